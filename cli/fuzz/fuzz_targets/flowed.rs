//! `format=flowed` text (RFC 3676) joined again, from anyone who mails the
//! robot:
//!
//! - it never panics, and its first byte says whether `DelSp=yes`;
//! - joining only takes away line breaks, the spaces of soft breaks and
//!   stuffing, and carriage returns, and writes quote marks again: what
//!   is left of the text without them is what was sent;
//! - a text with no soft break, no stuffed space, no quote mark and no
//!   carriage return comes back as it was sent.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_cli::fuzzing::unflow;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let delsp = first & 1 == 1;
    let text = String::from_utf8_lossy(rest);
    let joined = unflow(&text, delsp);
    let bare = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, ' ' | '>' | '\r' | '\n'))
            .collect()
    };
    assert_eq!(bare(&joined), bare(&text));
    let plain = !text.contains('\r')
        && text
            .split('\n')
            .all(|l| !l.ends_with(' ') && !l.starts_with(' ') && !l.starts_with('>'));
    if plain {
        assert_eq!(joined, text);
    }
});
