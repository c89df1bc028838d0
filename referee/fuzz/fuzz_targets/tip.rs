//! A stored game's tip (`signed::Tip`) read back: any payload, wrapped
//! as a tip of a fixed text (its header, length, hash, digest of the
//! text's first bytes and seal all right,
//! as a damaged or crafted file whose seal was recomputed would be),
//! through the postcard and canonical decoders, then its history (kept as
//! bytes, decoded when asked for: `signed::log`) read event by event and
//! state by state, and its checkpoint sealed. Never a panic and never
//! memory out of proportion to the bytes; whatever decodes is written back
//! as a tip. (A tip is a cache a client writes in its own directory; the
//! states a decoded payload may hold are trusted as that directory is:
//! `docs/fair-play.md`, 9.11.)

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_referee::replay::Builtin;
use yam_referee::signed::prefix::PrefixDigest;
use yam_referee::signed::tip::Bounds;
use yam_referee::signed::{Checkpoint, Tip};

const TEXT: &str = "[Game \"Khan\"]\n\n{[%event AAAA]}\n*\n";

fuzz_target!(|payload: &[u8]| {
    let bounds = Bounds {
        movetext: TEXT.find("]\n").unwrap() + 1,
        cut: TEXT.find("]}").unwrap() + 1,
    };
    let mut tip = Vec::with_capacity(payload.len() + 100);
    tip.extend_from_slice(b"yam-tip\0");
    tip.extend_from_slice(&Tip::VERSION.to_be_bytes());
    tip.extend_from_slice(&(TEXT.len() as u64).to_be_bytes());
    tip.extend_from_slice(blake3::hash(TEXT.as_bytes()).as_bytes());
    tip.extend_from_slice(&(bounds.movetext as u64).to_be_bytes());
    tip.extend_from_slice(&(bounds.cut as u64).to_be_bytes());
    let (_, digest) = PrefixDigest::hashing(TEXT.as_bytes(), bounds.cut, None);
    tip.extend_from_slice(&digest.encode());
    tip.extend_from_slice(payload);
    let seal = yam_referee::signed::tip::seal(&tip);
    tip.extend_from_slice(&seal);
    let tip: yam_referee::signed::SharedBytes = std::sync::Arc::new(tip);
    if let Some((replay, restored, restored_digest)) = Tip::restore(&tip, TEXT, &Builtin) {
        assert_eq!(restored, bounds);
        assert_eq!(restored_digest, digest);
        let events = replay.events();
        assert!(events.iter().count() <= events.len());
        for seq in 0..events.len().min(64) {
            let _ = replay.move_number_before(seq);
        }
        let _ = Checkpoint::of(&replay);
        let _ = Tip::save(&replay, TEXT, bounds);
    }
});
