//! Verified checkpoints: what a client knows it verified of a stored game.
//!
//! A client that keeps a game (the hot-seat file, the desk's store, the
//! robot's store) verifies the whole record, signatures included, before it
//! writes it. Checking every signature again on the next turn makes a game
//! of n events cost O(n²) curve operations over its life. A [`Checkpoint`]
//! remembers that the first `events` events were verified completely, bound
//! to exactly those events: the hash of the last one (which, through the
//! hash links every replay checks, pins every event before it) and a digest
//! of every event's signature (the one part of an event its hash does not
//! cover). A replay given a checkpoint ([`Known::Checkpoint`](super::Known))
//! skips the curve arithmetic of the events it covers and checks everything
//! else; at the end the checkpoint must match the events replayed, or the
//! record is verified again from nothing, signatures and all. So a
//! checkpoint can make a replay faster, never make a record verify that
//! would not verify without it.
//!
//! `docs/fair-play.md`, "Verified checkpoints", specifies the seal.

use sha2::{Digest, Sha256};

use crate::fair_play::hash::Hash32;
use crate::fair_play::turn::SignedEvent;

use super::SignedReplay;

/// The domain of a checkpoint's seal.
const DOMAIN: &[u8] = b"yam/v1/checkpoint\0";

/// What a verified prefix of a signed record established; see the module
/// documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// How many events, from the first, were verified.
    pub events: u32,
    /// The hash of the last of them.
    pub head: Hash32,
    /// SHA-256 over the domain, `events` (4 bytes big-endian), `head`, and
    /// every event's 64-byte signature in order.
    pub seal: Hash32,
}

impl Checkpoint {
    /// The checkpoint of everything `replay` verified (`None` before the
    /// first event). Only for a replay that checked every signature, or
    /// that a matching checkpoint vouched for.
    pub fn of(replay: &SignedReplay) -> Option<Checkpoint> {
        Checkpoint::of_events(replay.events())
    }

    /// The checkpoint of `events`, all verified.
    pub fn of_events(events: &[SignedEvent]) -> Option<Checkpoint> {
        let last = events.last()?;
        let count = u32::try_from(events.len()).ok()?;
        let head = last.hash();
        Some(Checkpoint {
            events: count,
            head,
            seal: seal(count, &head, events),
        })
    }

    /// Whether the first `self.events` of `events` are exactly the events
    /// this checkpoint was made of.
    pub fn matches(&self, events: &[SignedEvent]) -> bool {
        let Some(prefix) = usize::try_from(self.events)
            .ok()
            .and_then(|n| events.get(..n))
        else {
            return false;
        };
        match prefix.last() {
            Some(last) if last.hash() == self.head => {
                seal(self.events, &self.head, prefix) == self.seal
            }
            _ => false,
        }
    }

    /// Whether the event at position `seq` is one this checkpoint covers
    /// (provisionally: [`Checkpoint::matches`] decides at the end).
    pub fn covers(&self, seq: usize) -> bool {
        u32::try_from(seq).is_ok_and(|seq| seq < self.events)
    }
}

fn seal(events: u32, head: &Hash32, prefix: &[SignedEvent]) -> Hash32 {
    let mut hasher = Sha256::new();
    hasher.update(DOMAIN);
    hasher.update(events.to_be_bytes());
    hasher.update(head.as_bytes());
    for event in prefix {
        hasher.update(event.signature.to_bytes());
    }
    Hash32::from_bytes(hasher.finalize().into())
}
