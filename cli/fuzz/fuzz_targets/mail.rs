//! Any bytes as a raw mail, the robot's and `yam read`'s first step: the
//! intake never panics, and what it finds holds together.
//!
//! - `read_mail` and `read_mail_attachments` agree on whether the bytes
//!   are a mail and on every header, and the turns (and damaged blocks)
//!   of the second are the first ones of the first, in order;
//! - every turn block found re-armors to the same block, read back
//!   unquoted and intact;
//! - the `X-Yam-Referee` address has an `@` and is lower case, and the
//!   replied-to ids have no duplicates;
//! - what it finds is bounded by the mail: no more turns, damaged blocks
//!   and quoted copies than bytes, no block payload longer than the mail,
//!   no attachment more than a few times longer (a charset conversion
//!   may widen a text part).

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use yam_cli::mail::armor;
use yam_cli::mail::extract::{MAX_MAIL, MailError, Turn, read_mail, read_mail_attachments};

fuzz_target!(|data: &[u8]| {
    let full = read_mail(data);
    let first = read_mail_attachments(data);
    let (full, first) = match (full, first) {
        (Ok(full), Ok(first)) => (full, first),
        (Err(a), Err(b)) => {
            assert_eq!(a, b);
            if data.len() <= MAX_MAIL {
                assert_eq!(a, MailError::NotAMail);
            }
            return;
        }
        (a, b) => panic!("the two readers disagree: {a:?} / {b:?}"),
    };
    assert_eq!(full.from, first.from);
    assert_eq!(full.message_id, first.message_id);
    assert_eq!(full.replies_to, first.replies_to);
    assert_eq!(full.subject, first.subject);
    assert_eq!(full.auto_submitted, first.auto_submitted);
    assert_eq!(full.bulk, first.bulk);
    assert_eq!(full.referee, first.referee);
    assert_eq!(full.yam_game, first.yam_game);
    assert_eq!(full.report, first.report);
    assert_eq!(full.automatic_not_yam(), first.automatic_not_yam());
    assert!(
        full.turns.starts_with(&first.turns),
        "the attachments' turns are not the first turns: {:?} / {:?}",
        first.turns,
        full.turns
    );
    assert!(full.damaged.starts_with(&first.damaged));
    assert!(full.quoted_copies >= first.quoted_copies);

    if let Some(referee) = &full.referee {
        assert!(referee.contains('@'));
        assert_eq!(referee, &referee.to_ascii_lowercase());
    }
    let mut seen = HashSet::new();
    assert!(full.replies_to.iter().all(|id| seen.insert(id)));

    assert!(full.turns.len() + full.damaged.len() + full.quoted_copies <= data.len());
    for turn in &full.turns {
        match turn {
            Turn::Attachment { bytes, .. } => assert!(bytes.len() <= 4 * data.len()),
            Turn::Block(block) => assert!(block.payload.len() <= data.len()),
        }
    }
    for turn in &full.turns {
        if let Turn::Block(block) = turn {
            let text = armor::armor(&block.game, block.ply, &block.payload);
            let again = armor::find_blocks(&text);
            assert_eq!(again.len(), 1, "{text}");
            assert!(!again[0].quoted);
            assert_eq!(again[0].block.as_ref(), Ok(block), "{text}");
        }
    }
});
