//! Yam's side of the archive bench, shared with `examples/verify_floor.rs`
//! (`#[path]`), so the profile harness measures exactly what the bench
//! measures: the envelope alone, `yam verify`'s path, and the floor of the
//! cryptography that path must do.

use std::hint::black_box;

use yam_notation::Visitor;
use yam_referee::fair_play::hash::Hash32;
use yam_referee::fair_play::sign::{PublicKey, Signature};
use yam_referee::replay::Builtin;
use yam_referee::signed::collect::Item;
use yam_referee::signed::text::decode_event;
use yam_referee::signed::{Collector, Verdict, verify_text};

/// Does nothing: the envelope alone.
pub struct Nothing;

impl Visitor for Nothing {
    type Output = ();
    fn end_game(&mut self) {}
}

/// Every game of `data` through `visitor`.
pub fn read_all<V: Visitor>(data: &[u8], visitor: &mut V) {
    let mut reader = yam_notation::Reader::new(data);
    while let Some(out) = reader.read_game(visitor).expect("the archive is valid") {
        black_box(out);
    }
}

/// `yam verify`'s work on one archive, on one thread.
pub fn verify_all(data: &[u8]) {
    let mut reader = yam_notation::Reader::new(data);
    let mut collector = Collector::new();
    while let Some(text) = reader.read_game(&mut collector).expect("valid") {
        let verdict = verify_text(&text, &Builtin);
        assert!(matches!(verdict, Verdict::Verified(_)), "{verdict:?}");
    }
}

/// A signed archive's events as the floor checks them: each author, the
/// event's canonical bytes and its signature; with the games and main-line
/// moves counted.
pub struct SignedEvents {
    /// (author, canonical bytes, signature) of every event.
    pub events: Vec<(PublicKey, Vec<u8>, Signature)>,
    /// How many games.
    pub games: u64,
    /// How many main-line moves.
    pub moves: u64,
}

/// The events of the signed archive `data`, decoded once.
pub fn signed_events(data: &[u8]) -> SignedEvents {
    let mut out = SignedEvents {
        events: Vec::new(),
        games: 0,
        moves: 0,
    };
    let mut reader = yam_notation::Reader::new(data);
    let mut collector = Collector::new();
    while let Some(text) = reader.read_game(&mut collector).expect("valid") {
        out.games += 1;
        for item in &text.items {
            match item {
                Item::Move { .. } => out.moves += 1,
                Item::Event { args, .. } => {
                    let signed = decode_event(args).expect("a valid event");
                    let bytes = yam_referee::fair_play::encoding::Canonical::to_canonical_bytes(
                        &signed.event,
                    );
                    out.events
                        .push((signed.event.author, bytes, signed.signature));
                }
                _ => {}
            }
        }
    }
    out
}

/// The cryptography alone: a strict signature check and a hash per event,
/// and a ruleset text hashed per game.
pub fn crypto_floor(signed: &SignedEvents) {
    let ruleset = yam_referee::khan::ruleset::BUILTIN
        .iter()
        .find(|(name, _)| *name == "rescue-khan")
        .map_or("", |(_, text)| text);
    for (key, bytes, signature) in &signed.events {
        key.verify(bytes, signature).expect("a valid signature");
        black_box(Hash32::of(bytes));
    }
    for _ in 0..signed.games {
        black_box(Hash32::of(ruleset.as_bytes()));
    }
}
