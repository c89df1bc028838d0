//! The plug-in point: each game supplies the grammar of its move tokens.
//!
//! The envelope (tags, move numbers, comments, NAGs, variations, results) is
//! shared by every game; what a move token *means* is the game's business. The
//! reader cuts the movetext into tokens by the envelope's lexical rules (see
//! `docs/notation.md`, "Move tokens") and hands each token's text to the game's
//! [`MoveGrammar`]. A fourth game is one more implementation of this trait.

use std::borrow::Cow;
use std::fmt;

/// Why a game's grammar refused a move token.
///
/// `offset` is a byte offset *inside the token*; the reader adds the token's
/// own position so the error points at the exact character in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenError {
    /// Byte offset inside the token where the grammar gave up.
    pub offset: usize,
    /// What the grammar expected there, in words ("a square such as e4").
    pub expected: Cow<'static, str>,
}

impl TokenError {
    /// An error at `offset` inside the token, expecting `expected`.
    pub fn new(offset: usize, expected: impl Into<Cow<'static, str>>) -> Self {
        TokenError {
            offset,
            expected: expected.into(),
        }
    }
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}", self.expected)
    }
}

impl std::error::Error for TokenError {}

/// A game's move-token grammar.
///
/// `parse_move` receives exactly one token as the envelope lexed it: never
/// empty, never containing unquoted whitespace, never starting with a digit,
/// `*`, `+` or `-` (those start move numbers and results), and with any
/// trailing `!`/`?` annotation glyphs already removed. Quoted strings
/// (`"Meat, Milk & Blood"`) are part of the token, escapes included; use
/// [`crate::quote`] to read and write them.
///
/// `write_move` must print the canonical form, and the canonical form must
/// parse back to an equal move: `parse_move(write_move(m)) == m`.
pub trait MoveGrammar {
    /// The game's move type.
    type Move: Clone + fmt::Debug + PartialEq;

    /// The game's name as it appears in the `Game` tag.
    const GAME: &'static str;

    /// Parse one token (lenient: keyword case is not significant).
    fn parse_move(token: &str) -> Result<Self::Move, TokenError>;

    /// Append the canonical text of `mv` to `out`.
    fn write_move(mv: &Self::Move, out: &mut String);
}
