//! Notices (a challenge declined or withdrawn), which arrive from anyone
//! in a turn block.
//!
//! - Any bytes: `Notice::read` never panics; a notice it accepts starts
//!   with the notice's first line, its game and reason are clean
//!   (`clean_text` changes them no more), and it re-signs: the same
//!   fields under another key read back unchanged.
//! - Fields from the bytes, signed with a fixed key: the notice reads
//!   back with its game and reason cleaned, for every one-line game and
//!   any reason (the writer cleans the reason itself).

#![no_main]

use libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use yam_cli::mail::cards::clean_text;
use yam_cli::mail::notice::{Notice, NoticeKind, is_notice};
use yam_referee::fair_play::hash::Hash32;
use yam_referee::fair_play::sign::SigningKey;

fn key() -> SigningKey {
    SigningKey::from_seed(&[9; 32])
}

/// A notice signed by `key` reads back as itself, cleaned.
fn reads_back(notice: &Notice, key: &SigningKey) {
    let text = notice.clone().signed_text(key);
    let read = Notice::read(text.as_bytes());
    let expected = Notice {
        game: clean_text(&notice.game),
        reason: clean_text(&notice.reason),
        ..notice.clone()
    };
    assert_eq!(read, Ok(expected), "{text:?}");
}

fn written(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(withdraw), Ok(game), Ok(challenge), Ok(reason)) = (
        bool::arbitrary(&mut u),
        String::arbitrary(&mut u),
        <[u8; 32]>::arbitrary(&mut u),
        String::arbitrary(&mut u),
    ) else {
        return;
    };
    // A game id is one line (Yam's ids are words); the reason is the
    // user's text, which `signed_text` cleans.
    if game.contains(['\n', '\r']) {
        return;
    }
    let key = key();
    reads_back(
        &Notice {
            kind: if withdraw {
                NoticeKind::Withdraw
            } else {
                NoticeKind::Decline
            },
            game,
            challenge: Hash32::of(&challenge),
            key: key.public_key(),
            reason,
        },
        &key,
    );
}

fuzz_target!(|data: &[u8]| {
    if let Ok(notice) = Notice::read(data) {
        assert!(is_notice(data));
        assert_eq!(clean_text(&notice.game), notice.game);
        assert_eq!(clean_text(&notice.reason), notice.reason);
        let key = key();
        reads_back(
            &Notice {
                key: key.public_key(),
                ..notice
            },
            &key,
        );
    }
    written(data);
});
