//! Yam's game-record notation.
//!
//! One textual record serves Khan, Castle Siege and Genghis Khan: a tag-pair
//! header and a movetext of move numbers, move tokens, comments (with embedded
//! machine commands), NAGs, variations and a result. The envelope is shared;
//! each game supplies its move-token grammar through [`MoveGrammar`].
//!
//! This crate is syntax only: it knows nothing of legality. The format is
//! specified in `docs/notation.md`.
//!
//! - [`Reader`] streams an archive of any size and calls a [`Visitor`].
//! - [`RecordBuilder`] is the visitor that builds an owned [`Record`].
//! - [`write_record`] prints a record canonically.

pub mod castle_siege;
pub mod comment;
pub mod error;
pub mod genghis_khan;
pub mod grammar;
mod hidden;
pub mod khan;
mod lex;
pub mod nag;
pub mod pos;
pub mod quote;
pub mod raw;
pub mod reader;
pub mod record;
pub mod result;
pub mod split;
pub mod tags;
pub mod visitor;
pub mod writer;

pub use comment::{Command, Comment, CommentPart};
pub use error::{ErrorKind, ParseError, ReadError};
pub use grammar::{MoveGrammar, TokenError};
pub use hidden::is_hidden;
pub use nag::Nag;
pub use pos::{Pos, Span};
pub use raw::RawGrammar;
pub use reader::{DEFAULT_MAX_GAME, Reader};
pub use record::{Node, Record, RecordBuilder, parse_record, read_all};
pub use result::GameResult;
pub use tags::{GameKind, Tags};
pub use visitor::{Both, Dots, PlainToken, RawComment, RawTagValue, Skip, Visitor};
pub use writer::{
    continue_after_comment, joins_in_place, record_to_string, write_archive, write_record,
};
