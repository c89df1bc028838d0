//! Yam's patch of mail-parser (vendor/mail-parser/YAM-PATCH.md) finds MIME
//! boundaries with a memchr search instead of a loop over every byte: on
//! any bytes, from any position, with any boundary, the patched scans
//! return what the original loops returned and leave the parser's stream
//! where they left it.
//!
//! The input: its first byte is the boundary's length (modulo 24), then the
//! boundary, then two bytes of the position to scan from (big-endian), then
//! the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mail_parser::parsers::mime::yam_scan_reference::same_as_bytewise;

fuzz_target!(|data: &[u8]| {
    let Some((&len, rest)) = data.split_first() else {
        return;
    };
    let len = usize::from(len % 24).min(rest.len());
    let (boundary, rest) = rest.split_at(len);
    let Some((start, text)) = rest.split_first_chunk::<2>() else {
        return;
    };
    let start = usize::from(u16::from_be_bytes(*start));
    if let Err(e) = same_as_bytewise(text, start, boundary) {
        panic!("{e}");
    }
});
