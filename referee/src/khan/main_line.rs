//! A Khan record's main line, replayed move by move from its start.
//!
//! Showing a record (`yam show`, the pictures of the HTML export), handing
//! it to the engine (`yam engine export`) and the lessons' tests all walk
//! the same way: the start position is the record's `Position` tag read
//! under the ruleset's rules, or else the ruleset's start position; then
//! each main-line token is read with the Khan grammar, resolved against the
//! position and applied, and the first one that cannot be is where the walk
//! stops. [`MainLine`] is that walk, once.
//!
//! It is not the checker's walk (`crate::check`): the checker follows
//! variations too, holds move numbers to the position, and streams tokens
//! as the reader meets them without building a record.

use std::fmt;

use yam_notation::khan::KhanGrammar;
use yam_notation::{MoveGrammar, Record, Span, TokenError};

use super::apply::{Applied, Illegal, apply};
use super::moves::Move;
use super::position::{Position, PositionError};
use super::ruleset::Ruleset;
use super::token::resolve;

/// Why a record's `Position` tag gives no start position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad Position tag: {0}")]
pub struct PositionTagError(pub PositionError);

/// One main-line move, played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ply<'r> {
    /// The token as the record writes it.
    pub token: &'r str,
    /// Where the record writes it.
    pub span: Span,
    /// The move it resolved to.
    pub mv: Move,
    /// The position after it, and what it did.
    pub applied: Applied,
}

/// Why a main-line token could not be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlyError {
    /// The token is not a Khan move token.
    #[error(transparent)]
    Token(TokenError),
    /// The move is not legal in the position.
    #[error(transparent)]
    Illegal(Illegal),
}

/// The main-line token where the walk stopped, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{token}: {reason}")]
pub struct RefusedPly {
    /// The token as the record writes it.
    pub token: String,
    /// Where the record writes it.
    pub span: Span,
    /// Why it could not be played.
    pub reason: PlyError,
}

/// A Khan main line being replayed: an iterator of the moves played, each
/// with the position after it, that ends after the last token or after the
/// first token that cannot be played (yielded as the error).
pub struct MainLine<'r> {
    position: Position,
    tokens: Box<dyn Iterator<Item = (&'r str, Span)> + 'r>,
    stopped: bool,
}

impl fmt::Debug for MainLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MainLine")
            .field("position", &self.position)
            .field("stopped", &self.stopped)
            .finish_non_exhaustive()
    }
}

impl<'r> MainLine<'r> {
    /// The position a record's game starts from: its `Position` tag (`tag`)
    /// read under the ruleset's rules, or else the ruleset's start position.
    pub fn start_position(
        ruleset: &Ruleset,
        tag: Option<&str>,
    ) -> Result<Position, PositionTagError> {
        match tag {
            Some(text) => Position::from_yam(text, *ruleset.start_position().rules())
                .map_err(PositionTagError),
            None => Ok(ruleset.start_position()),
        }
    }

    /// The main line of `record`, played under `ruleset` from the record's
    /// start position ([`MainLine::start_position`]).
    pub fn of(
        record: &'r Record<String>,
        ruleset: &Ruleset,
    ) -> Result<MainLine<'r>, PositionTagError> {
        let start = MainLine::start_position(ruleset, record.tags.get("Position"))?;
        Ok(MainLine::new(
            start,
            record
                .main_line()
                .map(|(token, span)| (token.as_str(), span)),
        ))
    }

    /// The tokens `tokens`, each with where it is written, played from
    /// `start`.
    pub fn new<I>(start: Position, tokens: I) -> MainLine<'r>
    where
        I: IntoIterator<Item = (&'r str, Span)>,
        I::IntoIter: 'r,
    {
        MainLine {
            position: start,
            tokens: Box::new(tokens.into_iter()),
            stopped: false,
        }
    }

    /// The position reached: after the last move played so far (the start
    /// position before the first).
    pub fn position(&self) -> &Position {
        &self.position
    }
}

impl<'r> Iterator for MainLine<'r> {
    type Item = Result<Ply<'r>, RefusedPly>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped {
            return None;
        }
        let (token, span) = self.tokens.next()?;
        let played = KhanGrammar::parse_move(token)
            .map_err(PlyError::Token)
            .and_then(|parsed| {
                let mv = resolve(&self.position, &parsed)?;
                Ok((mv, apply(&self.position, &mv)?))
            })
            .map_err(|reason| RefusedPly {
                token: token.to_owned(),
                span,
                reason,
            });
        Some(match played {
            Ok((mv, applied)) => {
                self.position = applied.position;
                Ok(Ply {
                    token,
                    span,
                    mv,
                    applied,
                })
            }
            Err(refused) => {
                // Nothing after a refused move can be replayed.
                self.stopped = true;
                Err(refused)
            }
        })
    }
}

impl From<Illegal> for PlyError {
    fn from(e: Illegal) -> PlyError {
        PlyError::Illegal(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yam_notation::{RawGrammar, parse_record};

    /// A Magician game with `tags` added to the header and `moves` as its
    /// movetext.
    fn record(tags: &str, moves: &str) -> Record<String> {
        let text = format!(
            "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"t\"]\n[Date \"2026.01.01\"]\n\
             [White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n\
             [Ruleset \"magician\"]\n{tags}\n{moves} *\n"
        );
        parse_record::<RawGrammar>(&text).unwrap()
    }

    #[test]
    fn plays_the_main_line_and_stops_at_the_first_refused_move() {
        let ruleset = Ruleset::builtin("magician").unwrap();
        let game = record("", "1. Ng3-f3 (1. Ae7-f6) Ae7-f6 2. Ae7-f4 Ng3-f3");
        let mut line = MainLine::of(&game, &ruleset).unwrap();
        assert_eq!(*line.position(), ruleset.start_position());
        let first = line.next().unwrap().unwrap();
        assert_eq!(first.token, "Ng3-f3");
        assert_eq!(*line.position(), first.applied.position);
        assert_eq!(line.next().unwrap().unwrap().token, "Ae7-f6");
        let refused = line.next().unwrap().unwrap_err();
        assert_eq!(refused.token, "Ae7-f4");
        assert!(matches!(refused.reason, PlyError::Illegal(_)));
        assert!(refused.to_string().starts_with("Ae7-f4: "), "{refused}");
        assert!(line.next().is_none(), "nothing after a refused move");
    }

    #[test]
    fn a_position_tag_is_the_start() {
        let ruleset = Ruleset::builtin("magician").unwrap();
        let e = MainLine::of(&record("[Position \"x\"]\n", ""), &ruleset).unwrap_err();
        assert!(e.to_string().starts_with("bad Position tag: "), "{e}");
        let after = MainLine::of(&record("", "1. Ng3-f3"), &ruleset)
            .unwrap()
            .last()
            .unwrap()
            .unwrap()
            .applied
            .position;
        let game = record(
            &format!("[Position \"{}\"]\n", after.to_yam()),
            "1... Ae7-f6",
        );
        let mut line = MainLine::of(&game, &ruleset).unwrap();
        assert_eq!(line.position().fen(), after.fen());
        assert!(line.next().unwrap().is_ok());
    }
}
