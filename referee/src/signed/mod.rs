//! Signed records: the fair-play layer inside a game's text.
//!
//! A signed record is an ordinary Yam record whose comments carry signed
//! events (`[%event ...]`) and readable chance values (`[%chance ...]`),
//! and whose header carries the fair-play tags (`RulesetHash`, `Mode`,
//! keys, anchors, commitments, `PracticeSeed`). `docs/fair-play.md`,
//! "In the record", specifies the format.
//!
//! One job per module:
//! - [`text`]: how events, chance values and tags are spelled;
//! - [`collect`]: a streaming visitor that keeps the signed parts of a game
//!   with their positions;
//! - [`replay`](mod@replay): rules and evidence replayed together, event by event;
//! - [`verify`](mod@verify): the text checked against what is signed;
//! - [`dispute`]: two logs of one game compared: fork, equivocation,
//!   verdict;
//! - [`checkpoint`]: what a client verified of a stored game, bound to
//!   its events, so the next turn checks only what is new;
//! - [`adoption`]: whether a verified incoming record may replace the kept
//!   one (the desk's and the witnessing robot's one rule);
//! - [`table`]: the hot-seat harness's pure half: building and signing the
//!   events of a game played on one machine;
//! - [`write`](mod@write): appending events to a record, and the plain export;
//! - [`shown`]: chance as a record's text shows it, unverified, for
//!   showing a position.

pub mod adoption;
pub mod checkpoint;
pub mod collect;
pub mod dispute;
pub mod log;
pub mod prefix;
pub mod replay;
pub mod shown;
pub mod table;
pub mod text;
pub mod tip;
pub mod verify;
pub mod write;

#[cfg(test)]
mod games_tests;
#[cfg(test)]
mod tests;

pub use checkpoint::Checkpoint;
pub use collect::{Collector, SignedText};
pub use log::{EventLog, SharedBytes};
pub use replay::{ReplayError, ReplayFault, SignedReplay};
pub use tip::Tip;
pub use verify::{
    Failure, Known, Rejected, Verdict, Verified, follow_takebacks, replay_text,
    replay_text_continuing, replay_text_knowing, verify_cut, verify_text,
};
