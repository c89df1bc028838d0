//! Khan, the innersky.ca game of Mongol tribes: its five game types
//! (Basic, Magician, Power magician, Rescue General, Rescue Khan), refereed
//! exactly. `docs/rules/khan.md` states the rules in the project's words; the
//! ids in comments (KR-3.6, KR-P11, ...) are its sections, each next to the
//! code that implements it.
//!
//! One job per module:
//! - [`square`]: squares, bitboards, neighbour tables;
//! - [`piece`]: what each kind of piece is in the rules (chains, casters, mounts);
//! - [`ruleset`]: options and start positions, read from YAML;
//! - [`position`]: the board and the siege state, Yam's position format;
//! - [`moves`]: the move type;
//! - [`movegen`]: where pieces go, what they attack, the legal moves;
//! - [`apply`](mod@apply): checking a move with reasons, and its consequences;
//! - [`outcome`](mod@outcome): checkmate, stalemate, lost leaders, delivery, 100 plies;
//! - [`token`]: written tokens and engine strings to moves and back;
//! - [`diagram`](mod@diagram): the text diagram;
//! - [`input`]: what a player types (long, short or from-to) resolved to
//!   the one legal move it means;
//! - [`main_line`]: a record's main line replayed move by move;
//! - [`perft`](mod@perft): move-path counting.
//!
//! ```
//! use yam_referee::khan::{Ruleset, legal_moves, apply, Move, Square};
//! let rules = Ruleset::builtin("magician").unwrap();
//! let start = rules.start_position();
//! assert_eq!(legal_moves(&start).len(), 23);
//! let next = apply(&start, &Move::step(Square::D2, Square::D3)).unwrap();
//! assert_eq!(next.position.turn(), yam_referee::khan::Side::Black);
//! ```

pub mod apply;
pub mod board_line;
pub mod diagram;
pub mod input;
pub mod main_line;
pub mod movegen;
pub mod moves;
pub mod outcome;
pub mod perft;
pub mod piece;
pub mod position;
pub mod replay;
pub mod ruleset;
pub mod square;
pub mod token;

pub use apply::{Applied, Event, EventSink, Illegal, NoEvents, apply};
pub use board_line::NewGame;
pub use diagram::diagram;
pub use input::{InputError, resolve_input};
pub use main_line::{MainLine, Ply, PlyError, PositionTagError, RefusedPly};
pub use movegen::{legal_moves, legal_moves_into};
pub use moves::{Action, Move};
pub use outcome::{DrawReason, Outcome, RecordEvent, WinReason, outcome};
pub use perft::{divide, perft};
pub use piece::{Captive, Kind, Piece, Side};
pub use position::{CaptiveAt, Position, PositionError};
pub use ruleset::{GameType, Options, PowerMagicianMoves, Rules, Ruleset};
pub use square::{Bitboard, Square};
pub use token::{
    EngineLineError, engine_misreading, engine_start, from_engine, replay_engine,
    replay_engine_from, resolve, resolve_into, to_engine, to_engine_exact, to_token,
};

#[cfg(test)]
mod tests;
