//! Castle Siege, Lloyd Krassner's dice wargame of a castle and its
//! besiegers, refereed under the project's rulings. `docs/rules/castle-siege.md`
//! states the rules in the project's words; the ids in comments (CS-14,
//! CS-P1, ...) are its rulings, each next to the code that implements it.
//!
//! Every die comes through the fair-play door ([`crate::fair_play::chance`]):
//! a player declares orders, the declaration is checked before any die is
//! drawn, and then it is resolved one order at a time, each die with its
//! purpose. Setups are committed and revealed through
//! [`crate::fair_play::commit`]. No I/O.
//!
//! One job per module:
//! - [`board`]: the castle, victory squares, edge, moat ring, adjacency;
//! - [`army`]: the two armies and what each unit type may do;
//! - [`ruleset`]: the flags, read from YAML;
//! - [`setup`]: secret setups, their canonical bytes and commitments;
//! - [`state`]: units, breaches, turn, phase, round, outcome;
//! - [`step`], [`breach`](mod@breach), [`attack`](mod@attack): one order of
//!   each phase, checked with its reason;
//! - [`declaration`]: declared orders and the check before any die;
//! - [`resolve`](mod@resolve): carrying them out through the door for chance;
//! - [`outcome`](mod@outcome): how the game ends;
//! - [`replay`](mod@replay): a movetext replayed from the faces it shows;
//! - [`game_replay`]: the game behind the fair-play layer's `GameReplay`
//!   door: setups sealed and revealed, declarations resolved by rolls;
//! - [`legal`]: the legal orders of a position;
//! - [`input`]: orders as a player types them (`b3b4`, `Kb4`, `Ab5xc5`)
//!   resolved to the one order each means;
//! - [`diagram`](mod@diagram): the text diagram;
//! - [`selfplay`]: seeded games of random legal orders.
//!
//! ```
//! use yam_referee::castle_siege::{Declaration, Ruleset, Setup, State, resolve};
//! use yam_referee::fair_play::chance::PracticeChance;
//! use yam_referee::fair_play::{encoding::Blob, game_id::GameId};
//!
//! let rules = Ruleset::standard().rules;
//! let defender = Setup::parse("Defender:CKAO/OACK/KCOA/AOKC").unwrap();
//! let attacker = Setup::parse("Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK").unwrap();
//! let start = State::new(rules, &defender, &attacker).unwrap();
//!
//! let mut dice = PracticeChance::new(&GameId::new("doc").unwrap(), &Blob::new(b"seed".to_vec()).unwrap());
//! let turn: Declaration = "Move Kd6-d5 Attack Cc6xRc8 End".parse().unwrap();
//! let done = resolve(&start, &turn, &mut dice).unwrap();
//! assert_eq!(done.state.turn(), yam_referee::castle_siege::Side::Attacker);
//! assert_eq!(done.report.len(), 5);
//! ```

pub mod army;
pub mod attack;
pub mod board;
pub mod breach;
pub mod declaration;
pub mod diagram;
pub mod game_replay;
pub mod illegal;
pub mod input;
pub mod legal;
pub mod outcome;
pub mod replay;
pub mod resolve;
pub mod ruleset;
pub mod selfplay;
pub mod setup;
pub mod state;
pub mod step;

pub use army::{Side, UnitKind};
pub use attack::{AttackKind, AttackPlan, check_attack};
pub use board::{Adjacency, Square, SquareSet};
pub use breach::{BreachPlan, check_breach};
pub use declaration::{Declaration, check, check_order};
pub use diagram::diagram;
pub use illegal::{Illegal, Refusal};
pub use legal::{legal_attacks, legal_breaches, legal_orders, legal_steps};
pub use outcome::{Outcome, WinReason};
pub use replay::{
    ReplayError, Replayed, Staged, faithful_declarations, replay_record, replay_staged,
    replay_turns, resolve_written,
};
pub use resolve::{Effect, OrderOutcome, Resolution, ResolveError, SkipReason, resolve};
pub use ruleset::{InnerMoves, Rocks, Rules, Ruleset, TurnMode};
pub use selfplay::{
    GameSummary, Policy, SelfPlayError, Stats, choose_declaration, choose_setup, play_game,
    play_game_with, play_games,
};
pub use setup::{Setup, SetupError};
pub use state::{Allowance, PositionError, State, Unit, breachable};
pub use step::{EntryCondition, StepPlan, check_step};
pub use yam_notation::castle_siege::{Face, Mark, Order, Phase, Placement, Token};

#[cfg(test)]
mod tests;
