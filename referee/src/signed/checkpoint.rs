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

use crate::fair_play::hash::Hash32;
use crate::fair_play::turn::SignedEvent;

use super::{EventLog, SignedReplay};

/// The domain of a checkpoint's seal. Version 2: BLAKE3 (version 1 was
/// SHA-256, in software on machines without its instructions about twenty
/// cycles a byte, and the seal is made at every write of a game over every
/// signature: 1.0 M instructions of a robot's command at 283 events).
const DOMAIN: &[u8] = b"yam/v2/checkpoint\0";

/// What a verified prefix of a signed record established; see the module
/// documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// How many events, from the first, were verified.
    pub events: u32,
    /// The hash of the last of them.
    pub head: Hash32,
    /// BLAKE3 over the domain, `events` (4 bytes big-endian), `head`, and
    /// every event's 64-byte signature in order.
    pub seal: Hash32,
}

impl Checkpoint {
    /// The checkpoint of everything `replay` verified (`None` before the
    /// first event). Only for a replay that checked every signature, or
    /// that a matching checkpoint vouched for.
    pub fn of(replay: &SignedReplay) -> Option<Checkpoint> {
        Checkpoint::of_log(replay.events())
    }

    /// The checkpoint of the events of `log`, all verified (old events'
    /// signatures read from their bytes, not decoded).
    pub fn of_log(log: &EventLog) -> Option<Checkpoint> {
        let signatures = (0..log.len()).map(|i| log.signature_bytes(i));
        Checkpoint::made_of(log.len(), log.last()?, signatures)
    }

    /// As [`Checkpoint::matches`], for the events of `log`.
    pub fn matches_log(&self, log: &EventLog) -> bool {
        let n = usize::try_from(self.events).unwrap_or(usize::MAX);
        n <= log.len()
            && n.checked_sub(1)
                .and_then(|i| log.get(i))
                .is_some_and(|last| {
                    Checkpoint::made_of(n, last, (0..n).map(|i| log.signature_bytes(i)))
                        == Some(*self)
                })
    }

    /// The checkpoint of `events`, all verified.
    pub fn of_events(events: &[SignedEvent]) -> Option<Checkpoint> {
        let signatures = events.iter().map(|e| Some(e.signature.to_bytes()));
        Checkpoint::made_of(events.len(), events.last()?, signatures)
    }

    /// Whether the first `self.events` of `events` are exactly the events
    /// this checkpoint was made of.
    pub fn matches(&self, events: &[SignedEvent]) -> bool {
        usize::try_from(self.events)
            .ok()
            .and_then(|n| events.get(..n))
            .is_some_and(|prefix| Checkpoint::of_events(prefix) == Some(*self))
    }

    /// The checkpoint of `count` events whose last is `last`, with each
    /// event's signature in order.
    fn made_of(
        count: usize,
        last: &SignedEvent,
        signatures: impl Iterator<Item = Option<[u8; 64]>>,
    ) -> Option<Checkpoint> {
        let events = u32::try_from(count).ok()?;
        let head = last.hash();
        Some(Checkpoint {
            events,
            head,
            seal: seal(events, &head, signatures),
        })
    }

    /// Whether the event at position `seq` is one this checkpoint covers
    /// (provisionally: [`Checkpoint::matches`] decides at the end).
    pub fn covers(&self, seq: usize) -> bool {
        u32::try_from(seq).is_ok_and(|seq| seq < self.events)
    }
}

/// The seal over `events`, `head` and each signature in order; a missing
/// signature (an event that does not decode) seals to no checkpoint's
/// value: the all-zero hash.
fn seal(events: u32, head: &Hash32, signatures: impl Iterator<Item = Option<[u8; 64]>>) -> Hash32 {
    let mut hasher = blake3::Hasher::new();
    hasher.update(DOMAIN);
    hasher.update(&events.to_be_bytes());
    hasher.update(head.as_bytes());
    for signature in signatures {
        match signature {
            Some(bytes) => {
                hasher.update(&bytes);
            }
            None => return Hash32::from_bytes([0; 32]),
        }
    }
    Hash32::from_bytes(*hasher.finalize().as_bytes())
}
