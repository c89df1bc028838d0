//! The signed game: everything a client of a signed record does with it,
//! whoever the client is (the hot-seat harness, a player's desk, the
//! robot, `generate`). Each client is a thin room over these:
//!
//! - [`record`]: reading a signed record (its signed view and its record
//!   in one pass), verifying it, appending events and checking the new
//!   record as a whole before it is written;
//! - [`checkpoint`]: what a client verified of its copy of a game, kept
//!   beside it, so that a turn verifies only what is new;
//! - [`header`]: a new record's header, one spelling of every game type;
//! - [`input`]: the moves a player types, in any form the game reads,
//!   turned into the canonical tokens the record stores;
//! - [`keys`] and [`secrets`]: the parties' signing keys and chains, in a
//!   secrets directory of files only their owner may read;
//! - [`rulesets`]: the built-in rulesets and the ruleset files beside a
//!   record;
//! - [`setup`]: Castle Siege's sealed setups, and what a player's written
//!   moves ask for;
//! - [`annotate`]: the prose an automatic turn may carry;
//! - [`silence`]: since when the party a game waits for has been silent,
//!   the clock of reminders and forfeits;
//! - [`autoplay`]: the engines' choices, now the referee's
//!   ([`yam_referee::autoplay`]), under their old path.

pub mod annotate;
pub mod autoplay;
pub mod checkpoint;
pub mod header;
pub mod input;
pub mod keys;
pub mod record;
pub mod rulesets;
pub mod secrets;
pub mod setup;
pub mod silence;
