//! Yam's patch of mail-parser (../YAM-PATCH.md) against mail-parser 0.11.9
//! as published on crates.io: any bytes parse to the same message, every
//! part, offset, header and body alike (compared as their Debug text, which
//! prints all of them).
//!
//! The fuzz build has debug assertions on, and upstream's parse loop
//! asserts in five places that a part it looks up is there
//! (`parsers/message.rs`), which holds only for well-formed mails: a
//! mangled multipart trips one in the published crate. A release build has
//! no such assertion and returns a message, and Yam's patch takes them out
//! so that every build does (../YAM-PATCH.md). So where the published copy
//! stops at one of them, the patched one must return a message (what the
//! published one returns there in a release build cannot be seen from
//! here); any other panic must be the same in both.

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
    match (&published, &patched) {
        (Err(assertion), Ok(_)) if UPSTREAM_ASSERTIONS.contains(&assertion.as_str()) => {}
        _ => assert_eq!(published, patched),
    }
});

/// The messages of upstream's assertions that the patch takes out.
const UPSTREAM_ASSERTIONS: [&str; 4] = [
    "Invalid part ID, could not find message.",
    "Failed to restore parent message. Aborting.",
    "Invalid part ID, could not find multipart.",
    "This should not have happened.",
];
