//! The streaming reader's callbacks.

use crate::comment::RawParts;
use crate::grammar::TokenError;
use crate::nag::Nag;
use crate::pos::Span;
use crate::result::GameResult;
use crate::tags::GameKind;

/// Whether to skip what follows (a variation, or the whole movetext).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Skip(pub bool);

/// Which side a move number introduces: `12.` or `12...`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dots {
    /// `12.`: the first side's turn of move 12.
    One,
    /// `12...`: the second side's turn of move 12.
    Three,
}

/// A tag value as written between the quotes; escapes are already checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawTagValue<'a>(pub &'a str);

impl<'a> RawTagValue<'a> {
    /// The value with escapes decoded.
    pub fn decode(&self) -> std::borrow::Cow<'a, str> {
        crate::tags::unescape_tag_value(self.0)
    }
}

/// A comment body as written between the braces; already checked, so its
/// parts iterate without error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawComment<'a>(pub &'a str);

impl<'a> RawComment<'a> {
    /// The prose and command parts, borrowed from the source.
    pub fn parts(&self) -> impl Iterator<Item = crate::comment::RawPart<'a>> {
        RawParts::new(self.0).filter_map(Result::ok)
    }

    /// The owned comment.
    pub fn to_comment(&self) -> crate::Comment {
        crate::Comment::parse(self.0).unwrap_or_default()
    }
}

/// Callbacks the [`crate::Reader`] makes while it reads one game.
///
/// Everything borrowed is borrowed from the reader's buffer: the reader does
/// not allocate per element. A visitor that builds nothing costs nothing.
pub trait Visitor {
    /// What a finished game yields.
    type Output;

    /// A new game begins; reset any per-game state here.
    fn begin_game(&mut self) {}

    /// One tag pair. Returning an error makes the game fail at the value.
    fn tag(&mut self, name: &str, value: RawTagValue<'_>, span: Span) -> Result<(), TokenError> {
        let _ = (name, value, span);
        Ok(())
    }

    /// The header is complete and valid for `game`. Skip the movetext?
    /// An error (what was expected instead) makes the game fail here.
    fn end_tags(&mut self, game: GameKind) -> Result<Skip, std::borrow::Cow<'static, str>> {
        let _ = game;
        Ok(Skip(false))
    }

    /// A move number `12.` or `12...`.
    fn move_number(&mut self, number: u32, dots: Dots, span: Span) {
        let _ = (number, dots, span);
    }

    /// A move token, for the game's grammar to parse. An error makes the
    /// game fail at the offset it names inside the token.
    fn token(&mut self, token: &str, span: Span) -> Result<(), TokenError> {
        let _ = (token, span);
        Ok(())
    }

    /// A NAG, written `$n` or as a glyph.
    fn nag(&mut self, nag: Nag, span: Span) {
        let _ = (nag, span);
    }

    /// A comment.
    fn comment(&mut self, comment: RawComment<'_>, span: Span) {
        let _ = (comment, span);
    }

    /// A variation opens. Skip it?
    fn begin_variation(&mut self) -> Skip {
        Skip(false)
    }

    /// The innermost open variation closes.
    fn end_variation(&mut self) {}

    /// The result token that ends the movetext.
    fn result(&mut self, result: GameResult, span: Span) {
        let _ = (result, span);
    }

    /// The game is complete and valid.
    fn end_game(&mut self) -> Self::Output;
}
