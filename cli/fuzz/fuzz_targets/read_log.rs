//! A desk's read log (`DATA/read.log`), any text: a run answers it by
//! shortcuts (a content word found by searching the text, the IMAP marks
//! and the SHA-256 flag by one pass that passes over the lines that
//! cannot change them) until a question needs every line parsed. For
//! any text:
//!
//! - the marks' pass finds what every line parsed says;
//! - every word of the text, and every word of the bytes after the first
//!   NUL (words no line holds whole, or only inside another), has the
//!   outcome by search that the parsed lines give it;
//! - every IMAP place a word spells (`imap:V:U`, however written), and
//!   the UIDs beside it, are known as the parsed lines know them, though
//!   a run passes over any UID above its mailbox's mark unasked.
//!
//! A difference would be a mail the desk reads twice, or never.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_cli::fuzzing::read_log;

/// How many distinct words one input asks about.
const MAX_WORDS: usize = 256;

fuzz_target!(|data: &[u8]| {
    let Ok(data) = std::str::from_utf8(data) else {
        return;
    };
    let (text, asked) = data.split_once('\0').unwrap_or((data, ""));
    let [passed, parsed] = read_log::marks(text);
    assert_eq!(passed, parsed, "the marks of {text:?}");
    let mut seen = std::collections::HashSet::new();
    let words = text
        .split([' ', '\n', '\r'])
        .chain(asked.split('\0'))
        .filter(|w| seen.insert(*w))
        .take(MAX_WORDS);
    for word in words {
        let (searched, indexed) = read_log::outcome(text, word);
        assert_eq!(searched, indexed, "{word:?} in {text:?}");
        let imap = word.strip_prefix("imap:").and_then(|p| p.split_once(':'));
        if let Some((Ok(validity), Ok(uid))) = imap.map(|(v, u)| (v.parse(), u.parse::<u32>())) {
            for uid in [uid.wrapping_sub(1), uid, uid.wrapping_add(1)] {
                let (asked, parsed) = read_log::imap_place(text, validity, uid);
                assert_eq!(asked, parsed, "imap:{validity}:{uid} in {text:?}");
            }
        }
    }
});
