//! Yam's patch of mail-parser (../YAM-PATCH.md) against mail-parser 0.11.9
//! as published on crates.io: any bytes parse to the same message, every
//! part, offset, header and body alike (compared as their Debug text, which
//! prints all of them).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let published = format!("{:?}", published::MessageParser::default().parse(data));
    let patched = format!("{:?}", patched::MessageParser::default().parse(data));
    assert_eq!(published, patched);
});
