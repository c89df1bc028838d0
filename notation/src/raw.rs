//! A grammar that keeps move tokens as text, for syntax-only checks of any
//! game and for tools that pass tokens through unchanged.

use crate::grammar::{MoveGrammar, TokenError};

/// The `GAME` of a grammar that accepts records of every game.
pub const ANY_GAME: &str = "*";

/// Move tokens as the text the envelope lexed; accepts any game.
#[derive(Debug, Clone, Copy, Default)]
pub struct RawGrammar;

impl MoveGrammar for RawGrammar {
    type Move = String;
    const GAME: &'static str = ANY_GAME;

    fn parse_move(token: &str) -> Result<String, TokenError> {
        Ok(token.to_owned())
    }

    fn write_move(mv: &String, out: &mut String) {
        out.push_str(mv);
    }
}
