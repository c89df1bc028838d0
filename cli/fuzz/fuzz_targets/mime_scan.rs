//! Yam's patch of mail-parser (vendor/mail-parser/YAM-PATCH.md) finds MIME
//! boundaries with a memchr search instead of a loop over every byte, and
//! decodes a base64 part's groups of four alphabet characters at once: on
//! any bytes, from any position, with any boundaries, one scan or several
//! in turn on one stream (the patched scan keeps its search from one part
//! to the next), and the base64 decoder with each boundary, the patched
//! code returns what the original loops returned and leaves the parser's
//! stream where they left it.
//!
//! The input: a byte that gives how many boundaries (1 to 3); each
//! boundary as a byte of its length (modulo 24) and its bytes; two bytes of
//! the position to scan from (big-endian); then the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mail_parser::parsers::mime::yam_scan_reference::same_as_bytewise;

fuzz_target!(|data: &[u8]| {
    let Some((&count, mut rest)) = data.split_first() else {
        return;
    };
    let mut boundaries = Vec::new();
    for _ in 0..1 + count % 3 {
        let Some((&len, after)) = rest.split_first() else {
            return;
        };
        let (boundary, after) = after.split_at(usize::from(len % 24).min(after.len()));
        boundaries.push(boundary);
        rest = after;
    }
    let Some((start, text)) = rest.split_first_chunk::<2>() else {
        return;
    };
    let start = usize::from(u16::from_be_bytes(*start));
    if let Err(e) = same_as_bytewise(text, start, &boundaries) {
        panic!("{e}");
    }
});
