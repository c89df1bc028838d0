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

/// A move token of one to seven plain ASCII bytes, as the reader's quick
/// path reads it (see [`Visitor::plain_token`]): its text, and the same
/// bytes in one little-endian word, the first byte lowest.
///
/// Made without work the taker may not need: the text is sliced only when
/// asked for, and the word is the eight bytes the reader read, masked to
/// the token only when asked for ([`PlainToken::word`]).
#[derive(Debug, Clone, Copy)]
pub struct PlainToken<'a> {
    /// The text the token is in, and where.
    source: &'a str,
    at: usize,
    len: usize,
    /// The token's bytes, then what follows them in `source`.
    raw: u64,
}

impl<'a> PlainToken<'a> {
    /// The token `text` (1 to 7 bytes, ASCII); `None` for anything else.
    pub fn new(text: &'a str) -> Option<PlainToken<'a>> {
        if text.is_empty() || text.len() > 7 || !text.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 8];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Some(PlainToken {
            source: text,
            at: 0,
            len: text.len(),
            raw: u64::from_le_bytes(bytes),
        })
    }

    /// For the reader, which has checked that `source[at..at + len]` is
    /// 1 to 7 ASCII bytes and holds them and what follows in `raw`.
    #[inline]
    pub(crate) fn in_source(source: &'a str, at: usize, len: usize, raw: u64) -> PlainToken<'a> {
        let token = PlainToken {
            source,
            at,
            len,
            raw,
        };
        debug_assert_eq!(
            PlainToken::new(token.text()).map(|t| t.word()),
            Some(token.word())
        );
        token
    }

    /// The token's text.
    #[inline]
    pub fn text(&self) -> &'a str {
        // Never the default: the reader checked the bytes are ASCII.
        self.source
            .get(self.at..self.at + self.len)
            .unwrap_or_default()
    }

    /// The token's bytes in one word, the first byte lowest, zero past the
    /// token.
    #[inline]
    pub fn word(&self) -> u64 {
        self.raw & (u64::MAX >> (64 - 8 * self.len))
    }

    /// The word as the reader read it: the token's bytes, then (past its
    /// length) whatever followed it.
    #[inline]
    pub(crate) fn raw_word(&self) -> u64 {
        self.raw
    }

    /// Its length in bytes (1 to 7).
    #[inline]
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.len
    }
}

impl PartialEq for PlainToken<'_> {
    /// The same token: the same bytes.
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.word() == other.word()
    }
}

impl Eq for PlainToken<'_> {}

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

    /// The reader's quick offer of the commonest token, before its span is
    /// worked out: `true` if the visitor took it whole, as [`Visitor::token`]
    /// would have, with no error. `false` (the default) declines it, and
    /// the reader then calls [`Visitor::token`] with its span as for any
    /// other token, so a visitor that declines must be left exactly as it
    /// was. For a visitor that reads millions of tokens (a replay): no span,
    /// and the token's bytes already in a register.
    #[inline]
    fn plain_token(&mut self, token: PlainToken<'_>) -> bool {
        let _ = token;
        false
    }

    /// The quick offer of a move number `12.` (one dot), as
    /// [`Visitor::plain_token`] is of a token: `true` if taken as
    /// [`Visitor::move_number`] would have taken it, `false` (the default)
    /// to have the reader call [`Visitor::move_number`] with its span.
    #[inline]
    fn plain_move_number(&mut self, number: u32) -> bool {
        let _ = number;
        false
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

/// Two visitors fed one reading of a game, for a command that needs two
/// views of it (a record to show and the rules' verdict, say) from a
/// source that can be read only once, such as a pipe.
///
/// Each callback goes to both; the first error of either fails the game.
/// What follows is skipped only when both ask for it: the one that did not
/// ask still needs it.
#[derive(Debug, Default)]
pub struct Both<A, B>(pub A, pub B);

impl<A: Visitor, B: Visitor> Visitor for Both<A, B> {
    type Output = (A::Output, B::Output);

    fn begin_game(&mut self) {
        self.0.begin_game();
        self.1.begin_game();
    }

    fn tag(&mut self, name: &str, value: RawTagValue<'_>, span: Span) -> Result<(), TokenError> {
        let first = self.0.tag(name, value, span);
        let second = self.1.tag(name, value, span);
        first.and(second)
    }

    fn end_tags(&mut self, game: GameKind) -> Result<Skip, std::borrow::Cow<'static, str>> {
        let first = self.0.end_tags(game);
        let second = self.1.end_tags(game);
        Ok(Skip(first?.0 && second?.0))
    }

    fn move_number(&mut self, number: u32, dots: Dots, span: Span) {
        self.0.move_number(number, dots, span);
        self.1.move_number(number, dots, span);
    }

    fn token(&mut self, token: &str, span: Span) -> Result<(), TokenError> {
        let first = self.0.token(token, span);
        let second = self.1.token(token, span);
        first.and(second)
    }

    fn nag(&mut self, nag: Nag, span: Span) {
        self.0.nag(nag, span);
        self.1.nag(nag, span);
    }

    fn comment(&mut self, comment: RawComment<'_>, span: Span) {
        self.0.comment(comment, span);
        self.1.comment(comment, span);
    }

    fn begin_variation(&mut self) -> Skip {
        let first = self.0.begin_variation();
        let second = self.1.begin_variation();
        Skip(first.0 && second.0)
    }

    fn end_variation(&mut self) {
        self.0.end_variation();
        self.1.end_variation();
    }

    fn result(&mut self, result: GameResult, span: Span) {
        self.0.result(result, span);
        self.1.result(result, span);
    }

    fn end_game(&mut self) -> Self::Output {
        (self.0.end_game(), self.1.end_game())
    }
}
