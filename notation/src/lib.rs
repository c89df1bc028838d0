//! Yam's game-record notation.
//!
//! One textual record serves Khan, Castle Siege and Genghis Khan: a tag-pair
//! header and a movetext of move numbers, move tokens, comments (with embedded
//! machine commands), NAGs, variations and a result. The envelope is shared;
//! each game supplies its move-token grammar through [`MoveGrammar`].
//!
//! This crate is syntax only: it knows nothing of legality.

pub mod grammar;
pub mod khan;
pub mod quote;

pub use grammar::{MoveGrammar, TokenError};
