//! Yam's fair-play layer: what makes a game played by mail checkable.
//!
//! Pure protocol, no I/O: no files, no clock, no randomness of its own. Callers
//! pass in every secret and seed (drawn from the operating system on the
//! owner's machine) and every message (read from mail or a record); this layer
//! builds, hashes, signs and verifies the canonical bytes. The protocol, its
//! encodings and its test vectors are in `docs/fair-play.md`.
//!
//! One job per module:
//! - [`encoding`]: the canonical bytes of everything hashed or signed, tags;
//! - [`hash`], [`game_id`]: digests and the game identifier;
//! - [`sign`]: ed25519 keys, strict signatures, fingerprints;
//! - [`chain`]: hash chains bound to a game and a player, re-anchoring;
//! - [`outcome`]: the derivation of a roll's byte stream;
//! - [`dice`], [`draw`]: unbiased die faces and draws from that stream;
//! - [`commit`]: salted commitments to secret setups, the role toss;
//! - [`roll`]: roll requests and responses, and the book that replays them;
//! - [`turn`]: signed record events (opening, turns, offers, claims), their
//!   hash chain, and equivocation proofs;
//! - [`record`]: verifying a signed record event by event, short of the
//!   game's own rules;
//! - [`chance`]: the one door through which games ask for dice and cards.

#![warn(missing_docs)]

pub mod chain;
pub mod chance;
pub mod commit;
pub mod dice;
pub mod draw;
pub mod encoding;
pub mod game_id;
pub mod hash;
mod hash_log;
pub mod outcome;
pub mod record;
pub mod roll;
pub mod sign;
pub mod turn;
#[cfg(test)]
mod vectors;
