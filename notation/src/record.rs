//! The owned record of one game, built from the reader's events.

use std::io::Read;
use std::marker::PhantomData;

use crate::comment::Comment;
use crate::error::{ParseError, ReadError};
use crate::grammar::{MoveGrammar, TokenError};
use crate::nag::Nag;
use crate::pos::Span;
use crate::reader::Reader;
use crate::result::GameResult;
use crate::tags::{GameKind, Tags};
use crate::visitor::{Dots, RawComment, RawTagValue, Visitor};

/// One element of the movetext.
///
/// Variations are flat: `StartVariation` and `EndVariation` bracket them.
/// A flat list nests to any depth without recursion, so neither building,
/// printing nor dropping a record can exhaust the stack.
#[derive(Debug, Clone)]
pub enum Node<M> {
    /// `12.` or `12...`.
    MoveNumber(u32, Dots),
    /// A move, with where it was read (not part of equality).
    Move(M, Span),
    /// A NAG.
    Nag(Nag),
    /// A comment.
    Comment(Comment),
    /// `(`: a variation on the move before it begins.
    StartVariation,
    /// `)`: the innermost variation ends.
    EndVariation,
}

impl<M: PartialEq> PartialEq for Node<M> {
    fn eq(&self, other: &Node<M>) -> bool {
        match (self, other) {
            (Node::MoveNumber(a, b), Node::MoveNumber(c, d)) => a == c && b == d,
            (Node::Move(a, _), Node::Move(b, _)) => a == b,
            (Node::Nag(a), Node::Nag(b)) => a == b,
            (Node::Comment(a), Node::Comment(b)) => a == b,
            (Node::StartVariation, Node::StartVariation)
            | (Node::EndVariation, Node::EndVariation) => true,
            _ => false,
        }
    }
}

/// One game: its header, its movetext and its result.
#[derive(Debug, Clone, PartialEq)]
pub struct Record<M> {
    /// The tag pairs, in canonical order.
    pub tags: Tags,
    /// The movetext, without the result.
    pub movetext: Vec<Node<M>>,
    /// The result token that ends the movetext.
    pub result: GameResult,
}

impl<M> Record<M> {
    /// An empty record with the given header.
    pub fn new(tags: Tags) -> Record<M> {
        let result = tags
            .get("Result")
            .and_then(|r| r.parse().ok())
            .unwrap_or(GameResult::Unfinished);
        Record {
            tags,
            movetext: Vec::new(),
            result,
        }
    }

    /// The game the header names.
    pub fn game(&self) -> Option<GameKind> {
        self.tags.game()
    }

    /// The moves of the main line, in order (variations left out).
    pub fn main_line(&self) -> impl Iterator<Item = (&M, Span)> {
        let mut depth = 0usize;
        self.movetext.iter().filter_map(move |node| {
            match node {
                Node::StartVariation => depth += 1,
                Node::EndVariation => depth = depth.saturating_sub(1),
                Node::Move(m, span) if depth == 0 => return Some((m, *span)),
                _ => {}
            }
            None
        })
    }

    /// Set the result, in the movetext and the `Result` tag alike.
    pub fn set_result(&mut self, result: GameResult) {
        self.result = result;
        self.tags.set("Result", result.to_string());
    }
}

/// Parse the first game of `text` with the grammar `G`.
pub fn parse_record<G: MoveGrammar>(text: &str) -> Result<Record<G::Move>, Box<ParseError>> {
    let mut reader = Reader::new(text.as_bytes());
    let mut builder = RecordBuilder::<G>::new();
    match reader.read_game(&mut builder) {
        Ok(Some(record)) => Ok(record),
        Ok(None) => Err(Box::new(ParseError {
            pos: crate::Pos::START,
            kind: crate::ErrorKind::Expected("a game".into()),
            found: String::new(),
            game: 1,
            game_start: crate::Pos::START,
        })),
        Err(ReadError::Syntax(e)) => Err(e),
        Err(ReadError::Io(e)) => Err(Box::new(ParseError {
            pos: crate::Pos::START,
            kind: crate::ErrorKind::Expected(format!("readable input ({e})").into()),
            found: String::new(),
            game: 1,
            game_start: crate::Pos::START,
        })),
    }
}

/// A visitor that builds an owned [`Record`] with the grammar `G`.
#[derive(Debug)]
pub struct RecordBuilder<G: MoveGrammar> {
    tags: Tags,
    movetext: Vec<Node<G::Move>>,
    result: GameResult,
    grammar: PhantomData<G>,
}

impl<G: MoveGrammar> RecordBuilder<G> {
    /// A builder, ready for a game.
    pub fn new() -> RecordBuilder<G> {
        RecordBuilder {
            tags: Tags::new(),
            movetext: Vec::new(),
            result: GameResult::Unfinished,
            grammar: PhantomData,
        }
    }
}

impl<G: MoveGrammar> Default for RecordBuilder<G> {
    fn default() -> Self {
        Self::new()
    }
}

impl<G: MoveGrammar> Visitor for RecordBuilder<G> {
    type Output = Record<G::Move>;

    fn begin_game(&mut self) {
        self.tags = Tags::new();
        self.movetext = Vec::new();
        self.result = GameResult::Unfinished;
    }

    fn tag(&mut self, name: &str, value: RawTagValue<'_>, _span: Span) -> Result<(), TokenError> {
        let mut value = value.decode().into_owned();
        if name.eq_ignore_ascii_case("Game") {
            if let Some(game) = GameKind::from_name(&value) {
                value = game.name().to_owned();
            }
        } else if name.eq_ignore_ascii_case("Result") {
            if let Ok(result) = value.parse::<GameResult>() {
                value = result.to_string();
            }
        } else if name.eq_ignore_ascii_case("Date") {
            value = canonical_date(&value)
                .ok_or_else(|| TokenError::new(0, "a date YYYY.MM.DD (?? for unknown parts)"))?;
        }
        // The reader has refused a game with this name twice.
        self.tags.insert_new(name, value);
        Ok(())
    }

    fn end_tags(&mut self, game: GameKind) -> Result<crate::Skip, std::borrow::Cow<'static, str>> {
        if G::GAME != game.name() && G::GAME != crate::raw::ANY_GAME {
            return Err(format!("a {} record (the Game tag says {})", G::GAME, game.name()).into());
        }
        Ok(crate::Skip(false))
    }

    fn move_number(&mut self, number: u32, dots: Dots, _span: Span) {
        self.movetext.push(Node::MoveNumber(number, dots));
    }

    fn token(&mut self, token: &str, span: Span) -> Result<(), TokenError> {
        let mv = G::parse_move(token)?;
        self.movetext.push(Node::Move(mv, span));
        Ok(())
    }

    fn nag(&mut self, nag: Nag, _span: Span) {
        self.movetext.push(Node::Nag(nag));
    }

    fn comment(&mut self, comment: RawComment<'_>, _span: Span) {
        self.movetext.push(Node::Comment(comment.to_comment()));
    }

    fn begin_variation(&mut self) -> crate::Skip {
        self.movetext.push(Node::StartVariation);
        crate::Skip(false)
    }

    fn end_variation(&mut self) {
        self.movetext.push(Node::EndVariation);
    }

    fn result(&mut self, result: GameResult, _span: Span) {
        self.result = result;
    }

    fn end_game(&mut self) -> Record<G::Move> {
        Record {
            tags: std::mem::take(&mut self.tags),
            movetext: std::mem::take(&mut self.movetext),
            result: self.result,
        }
    }
}

/// One game of an archive as read: its record, or why it is malformed.
pub type GameOrError<M> = Result<Record<M>, Box<ParseError>>;

/// Read every game of an archive into owned records, each with its error.
pub fn read_all<G: MoveGrammar, R: Read>(
    src: R,
) -> Result<Vec<GameOrError<G::Move>>, std::io::Error> {
    let mut reader = Reader::new(src);
    let mut builder = RecordBuilder::<G>::new();
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut builder) {
            Ok(Some(record)) => games.push(Ok(record)),
            Ok(None) => return Ok(games),
            Err(ReadError::Syntax(e)) => games.push(Err(e)),
            Err(ReadError::Io(e)) => return Err(e),
        }
    }
}

/// The canonical form of a `Date` value: `YYYY.MM.DD`, with `?` for unknown
/// digits. `-` and `/` separators are read too, always year first. A date
/// must be one the calendar has: a month from 01 to 12, a day the month
/// has (29 February in leap years only); a part written `??` is unknown and
/// not checked, nor is a day whose month or year is unknown beyond 31 (or
/// 29 in February). `None` for anything else (`yesterday`, `01/12/2026`,
/// `""`, `2026.13.45`): the reader refuses it, for every command alike.
pub fn canonical_date(value: &str) -> Option<String> {
    let (y, m, d) = date_parts(value)?;
    Some(format!("{y}.{m}.{d}"))
}

/// Whether [`canonical_date`] accepts `value`, without building the
/// canonical text: the reader asks this of every game's `Date` tag, and the
/// allocation and formatting cost more than the check.
pub fn is_calendar_date(value: &str) -> bool {
    // The usual form, `YYYY.MM.DD` with every digit known, decided from
    // the bytes; anything else the general way.
    if let &[y0, y1, y2, y3, b'.', m0, m1, b'.', d0, d1] = value.as_bytes()
        && [y0, y1, y2, y3, m0, m1, d0, d1]
            .iter()
            .all(u8::is_ascii_digit)
    {
        let num = |a: u8, b: u8| u32::from(a - b'0') * 10 + u32::from(b - b'0');
        let year = num(y0, y1) * 100 + num(y2, y3);
        let (month, day) = (num(m0, m1), num(d0, d1));
        return (1..=12).contains(&month) && (1..=days_in_month(year, month)).contains(&day);
    }
    date_parts(value).is_some()
}

/// The year, month and day parts of a date [`canonical_date`] accepts.
fn date_parts(value: &str) -> Option<(&str, &str, &str)> {
    let mut parts = value.trim().split(['.', '-', '/']);
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    // A part is all digits (known) or all `?` (unknown).
    let field = |s: &str, width: usize| -> Option<Option<u32>> {
        if s.len() != width {
            None
        } else if s.bytes().all(|b| b.is_ascii_digit()) {
            s.parse().ok().map(Some)
        } else if s.bytes().all(|b| b == b'?') {
            Some(None)
        } else {
            None
        }
    };
    let year = field(y, 4)?;
    let month = field(m, 2)?;
    let day = field(d, 2)?;
    if let Some(month) = month
        && !(1..=12).contains(&month)
    {
        return None;
    }
    if let Some(day) = day {
        let most = match (year, month) {
            (_, None) => 31,
            (None, Some(2)) => 29,
            (Some(year), Some(month)) => days_in_month(year, month),
            (None, Some(month)) => days_in_month(2001, month),
        };
        if !(1..=most).contains(&day) {
            return None;
        }
    }
    Some((y, m, d))
}

/// Days in `month` (1 to 12) of `year`, in the Gregorian calendar.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::{canonical_date, is_calendar_date};

    #[test]
    fn dates_the_calendar_has_are_read_and_printed_with_dots() {
        for (text, canonical) in [
            ("2026.11.29", "2026.11.29"),
            ("2026-11-29", "2026.11.29"),
            ("2026/11/29", "2026.11.29"),
            (" 2026.11.29 ", "2026.11.29"),
            ("2026.11.??", "2026.11.??"),
            ("????.??.??", "????.??.??"),
            ("2024.02.29", "2024.02.29"),
            ("2000.02.29", "2000.02.29"),
            ("????.02.29", "????.02.29"),
            ("2026.??.31", "2026.??.31"),
        ] {
            assert_eq!(canonical_date(text).as_deref(), Some(canonical), "{text}");
            assert!(is_calendar_date(text), "{text}");
        }
    }

    #[test]
    fn the_usual_form_is_judged_like_any_other() {
        for year in [
            "0000", "0400", "1900", "2000", "2023", "2024", "2026", "9999",
        ] {
            for month in 0..=13 {
                for day in 0..=32 {
                    let text = format!("{year}.{month:02}.{day:02}");
                    assert_eq!(
                        is_calendar_date(&text),
                        super::date_parts(&text).is_some(),
                        "{text}"
                    );
                }
            }
        }
    }

    #[test]
    fn dates_the_calendar_does_not_have_are_refused() {
        for text in [
            "yesterday",
            "",
            "01/12/2026",
            "2026.13.45",
            "2026.00.10",
            "2026.11.00",
            "2026.11.31",
            "2026.02.29",
            "1900.02.29",
            "????.02.30",
            "2026.1.2",
            "2026.11.2?",
            "2026.11.29.1",
        ] {
            assert_eq!(canonical_date(text), None, "{text}");
            assert!(!is_calendar_date(text), "{text}");
        }
    }
}
