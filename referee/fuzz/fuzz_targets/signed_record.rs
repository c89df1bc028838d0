//! Signed records, which `yam verify`, the desk and the robot read from
//! anyone: any bytes through the reader into the signed-record collector,
//! then the verifier (whole, and as a log cut short) with the built-in
//! rulesets. Never a panic; the collector makes progress.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_notation::{ReadError, Reader};
use yam_referee::replay::Builtin;
use yam_referee::signed::{Collector, verify_cut, verify_text};

fuzz_target!(|data: &[u8]| {
    let mut reader = Reader::new(data);
    // Each game consumes at least one byte.
    for _ in 0..=data.len() {
        let mut collector = Collector::new();
        match reader.read_game(&mut collector) {
            Ok(None) => return,
            Ok(Some(text)) => {
                let _ = verify_text(&text, &Builtin);
                let _ = verify_cut(&text, &Builtin);
            }
            Err(ReadError::Syntax(_)) => {
                let partial = collector.take_partial();
                let _ = verify_cut(&partial, &Builtin);
            }
            Err(ReadError::Io(e)) => panic!("reading a slice failed: {e}"),
        }
    }
    panic!("the reader made no progress");
});
