//! The robot's command language, read from anyone who writes to it: the
//! first line of the bytes is the subject, the rest the body.
//!
//! - The parser never panics, reads at most `MAX_COMMANDS` commands (and
//!   says so when there were more), keeps a seed of at most `MAX_SEED`
//!   characters and refused lines of at most 200;
//! - what it reads is well formed: a token is one word, a move command has
//!   moves, none empty, none a `#PLY`, with no white space outside quotes;
//!   a challenge names its game in lower case and an invited address with
//!   an `@`;
//! - the subject is one more line: read before the body, it means what it
//!   means as the body's first line (unless there it would be a quote, the
//!   signature separator or the start of a quoted original); and a body
//!   means the same with CRLF line ends (as mail carries it) as with LF.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_cli::fuzzing::{Command, MAX_COMMANDS, MAX_SEED, Parsed, parse, unquoted};

/// One word of the command language: not empty, white space only inside
/// double quotes (Genghis Khan's card names).
fn one_word(w: &str) {
    assert!(!w.is_empty());
    let mut quoted = false;
    for ch in w.chars() {
        if ch == '"' {
            quoted = !quoted;
        }
        assert!(quoted || !ch.is_whitespace(), "{w:?}");
    }
}

fn well_formed(p: &Parsed) {
    assert!(p.commands.len() <= MAX_COMMANDS);
    if p.truncated {
        assert_eq!(p.commands.len(), MAX_COMMANDS);
    }
    if let Some(seed) = &p.seed {
        assert!(!seed.is_empty());
        assert!(seed.chars().count() <= MAX_SEED);
    }
    if let Some(token) = &p.token {
        assert!(!token.is_empty());
        assert!(!token.contains(char::is_whitespace), "{token:?}");
    }
    for bad in &p.errors {
        assert!(bad.line.chars().count() <= 200);
        assert!(!bad.expected.is_empty());
    }
    for c in &p.commands {
        match c {
            Command::Move { moves, .. } => {
                assert!(!moves.is_empty());
                for m in moves {
                    one_word(m);
                    assert!(!m.starts_with('#'), "{m:?}");
                }
            }
            Command::Challenge { game, invited, .. } => {
                assert!(!game.is_empty());
                assert_eq!(game, &game.to_ascii_lowercase());
                if let Some(address) = invited {
                    assert!(address.contains('@'));
                    assert_eq!(address, &address.to_ascii_lowercase());
                }
            }
            Command::Join(id) => one_word(id),
            Command::Show(Some(id))
            | Command::Resign(Some(id))
            | Command::Offer(_, Some(id))
            | Command::Answer(_, _, Some(id)) => {
                assert!(!id.is_empty() && !id.contains(char::is_whitespace))
            }
            _ => {}
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (subject, body) = text.split_once('\n').unwrap_or((&text, ""));
    let parsed = parse(subject, body);
    well_formed(&parsed);

    // The subject as the body's first line: the same, unless the line
    // would mean something else there (a quote, the signature separator,
    // the start of an original message below a reply: whatever makes
    // `unquoted` drop it or stop at it) or is not one line as `lines`
    // reads it.
    let joined = format!("{subject}\n{body}");
    if !subject.contains('\r') && unquoted(&joined).first() == Some(&subject) {
        assert_eq!(parse("", &joined), parsed);
    }
    // CRLF line ends, when the body has no carriage return of its own.
    if !body.contains('\r') {
        assert_eq!(parse(subject, &body.replace('\n', "\r\n")), parsed);
    }
});
