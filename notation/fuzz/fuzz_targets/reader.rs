//! Any bytes: the reader never panics, never loops, and every game it
//! accepts prints canonically and reads back as the same record.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_notation::{RawGrammar, ReadError, Reader, RecordBuilder, parse_record, record_to_string};

fuzz_target!(|data: &[u8]| {
    let mut reader = Reader::new(data);
    let mut builder = RecordBuilder::<RawGrammar>::new();
    // Each game consumes at least one byte, so this bound is never reached
    // by a reader that makes progress.
    for _ in 0..=data.len() {
        match reader.read_game(&mut builder) {
            Ok(None) => return,
            Ok(Some(record)) => {
                let printed = record_to_string::<RawGrammar>(&record);
                let again = parse_record::<RawGrammar>(&printed)
                    .unwrap_or_else(|e| panic!("canonical text does not read back: {e}\n{printed}"));
                assert_eq!(again, record, "{printed}");
                assert_eq!(record_to_string::<RawGrammar>(&again), printed);
            }
            Err(ReadError::Syntax(_)) => {}
            Err(ReadError::Io(e)) => panic!("reading a slice failed: {e}"),
        }
    }
    panic!("the reader made no progress");
});
