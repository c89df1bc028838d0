//! Yam's patch of mail-parser (../YAM-PATCH.md) against mail-parser 0.11.9
//! as published on crates.io: any bytes parse to the same message, every
//! part, offset, header and body alike (compared as their Debug text, which
//! prints all of them).
//!
//! The fuzz build has debug assertions on, and one of upstream's
//! ("Invalid part ID, could not find multipart.", `parsers/message.rs`)
//! holds only for well-formed multiparts: a mangled one trips it in the
//! published crate. A release build (Yam's) has no such assertion and
//! returns a message. So a parse that panics is compared too: both copies
//! must stop at the same assertion with the same message.

#![no_main]

use std::panic::{catch_unwind, AssertUnwindSafe};

use libfuzzer_sys::fuzz_target;

/// What a parse came to: the message's Debug text, or the panic's message.
fn outcome(parse: impl FnOnce() -> String) -> Result<String, String> {
    catch_unwind(AssertUnwindSafe(parse)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    })
}

fuzz_target!(|data: &[u8]| {
    // libFuzzer's hook aborts at any panic; the two parses' panics are
    // caught and compared instead, and the hook put back for the assertion.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let published = outcome(|| format!("{:?}", published::MessageParser::default().parse(data)));
    let patched = outcome(|| format!("{:?}", patched::MessageParser::default().parse(data)));
    std::panic::set_hook(hook);
    assert_eq!(published, patched);
});
