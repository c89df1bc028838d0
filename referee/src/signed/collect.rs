//! Reading the signed parts of a record while it streams past.
//!
//! [`Collector`] is a notation [`Visitor`] that keeps, for each game, what
//! the verifier needs and where it stands in the text: the header tags, the
//! main line's move tokens, and every `[%event]` (with the `[%chance]` that
//! shows its values), and the main line's move numbers, which the verifier
//! holds to the game as `yam check` does. Prose, NAGs and variations are
//! dropped: they are outside what is signed. Evidence inside a variation is
//! kept as a [`Item::Stray`], because the signed game is the main line.

use std::borrow::Cow;

use yam_notation::comment::RawPart;
use yam_notation::{
    Dots, GameKind, GameResult, Pos, RawComment, RawTagValue, Skip, Span, TokenError,
};
use yam_notation::{Visitor, tags};

use super::text::{CHANCE_COMMAND, EVENT_COMMAND};

/// A header tag with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagAt {
    /// The name, in canonical spelling for known tags.
    pub name: String,
    /// The value, escapes decoded.
    pub value: String,
    /// The whole tag pair.
    pub span: Span,
}

/// One signed-relevant element of the main line, in reading order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A move number (`12.` or `12...`).
    Number {
        /// The number.
        number: u32,
        /// Its dots.
        dots: Dots,
        /// Where.
        span: Span,
    },
    /// A move token as written.
    Move {
        /// The token.
        text: String,
        /// Where.
        span: Span,
    },
    /// An `[%event]` command.
    Event {
        /// Its arguments.
        args: Vec<String>,
        /// Where (the `[%event` that opens it).
        span: Span,
        /// The `[%chance]` command just before it in the same comment, with
        /// where it is.
        chance: Option<(Vec<String>, Span)>,
    },
    /// Evidence where it does not belong.
    Stray {
        /// Whether it is an `[%event]` (else a `[%chance]`).
        event: bool,
        /// What is wrong.
        reason: &'static str,
        /// Where.
        span: Span,
    },
}

impl Item {
    /// Whether `self` and `other` say the same thing, wherever each stands:
    /// a record printed again after a header change moves every span.
    pub fn same_as(&self, other: &Item) -> bool {
        match (self, other) {
            (
                Item::Number { number, dots, .. },
                Item::Number {
                    number: n2,
                    dots: d2,
                    ..
                },
            ) => number == n2 && dots == d2,
            (Item::Move { text, .. }, Item::Move { text: t2, .. }) => text == t2,
            (
                Item::Event { args, chance, .. },
                Item::Event {
                    args: a2,
                    chance: c2,
                    ..
                },
            ) => {
                args == a2
                    && match (chance, c2) {
                        (None, None) => true,
                        (Some((shown, _)), Some((s2, _))) => shown == s2,
                        _ => false,
                    }
            }
            (
                Item::Stray { event, reason, .. },
                Item::Stray {
                    event: e2,
                    reason: r2,
                    ..
                },
            ) => event == e2 && reason == r2,
            _ => false,
        }
    }
}

/// The signed view of one game of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedText {
    /// The game the header names.
    pub game: Option<GameKind>,
    /// The header, in reading order.
    pub tags: Vec<TagAt>,
    /// The main line's moves and the evidence, in reading order.
    pub items: Vec<Item>,
    /// The result token.
    pub result: GameResult,
    /// Where it is.
    pub result_span: Span,
    /// How many variations the movetext holds (nested ones included):
    /// moves the signatures do not cover, held to the rules by `yam
    /// check`'s checker (`yam verify` runs it on games that have any).
    pub variations: u32,
}

impl Default for SignedText {
    fn default() -> Self {
        SignedText {
            game: None,
            tags: Vec::new(),
            items: Vec::new(),
            result: GameResult::Unfinished,
            result_span: Span::default(),
            variations: 0,
        }
    }
}

impl SignedText {
    /// The tag `name` (canonical spelling), if present.
    pub fn tag(&self, name: &str) -> Option<&TagAt> {
        self.tags.iter().find(|t| t.name.eq_ignore_ascii_case(name))
    }

    /// Whether any signed event is present (readable `[%chance]` values
    /// alone, as in a plain export, do not make a record signed).
    pub fn is_signed(&self) -> bool {
        self.items
            .iter()
            .any(|i| matches!(i, Item::Event { .. } | Item::Stray { event: true, .. }))
    }

    /// How many `[%event]` commands the main line holds.
    pub fn event_count(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i, Item::Event { .. }))
            .count()
    }
}

/// The visitor that builds a [`SignedText`] per game.
#[derive(Debug, Default)]
pub struct Collector {
    current: SignedText,
    depth: u32,
}

impl Collector {
    /// A collector, ready for an archive.
    pub fn new() -> Self {
        Collector::default()
    }

    /// What was collected of a game whose reading stopped at a syntax
    /// error (a log cut short in the middle of an event, or before its
    /// result): everything read before the error, for a caller that can
    /// use the complete events of a damaged log (`yam dispute`).
    pub fn take_partial(&mut self) -> SignedText {
        std::mem::take(&mut self.current)
    }
}

/// The position `offset` bytes into `text`, which starts at `start`.
pub fn pos_within(start: Pos, text: &str, offset: usize) -> Pos {
    let mut pos = start;
    for c in text.get(..offset).unwrap_or(text).chars() {
        pos.offset += c.len_utf8() as u64;
        if c == '\n' {
            pos.line += 1;
            pos.column = 1;
        } else {
            pos.column += 1;
        }
    }
    pos
}

impl Visitor for Collector {
    type Output = SignedText;

    fn begin_game(&mut self) {
        self.current = SignedText::default();
        self.depth = 0;
    }

    fn tag(&mut self, name: &str, value: RawTagValue<'_>, span: Span) -> Result<(), TokenError> {
        let name = tags::known_tag(name).map_or(name, |(_, known)| known);
        self.current.tags.push(TagAt {
            name: name.to_owned(),
            value: value.decode().into_owned(),
            span,
        });
        Ok(())
    }

    fn end_tags(&mut self, game: GameKind) -> Result<Skip, Cow<'static, str>> {
        self.current.game = Some(game);
        Ok(Skip(false))
    }

    fn move_number(&mut self, number: u32, dots: Dots, span: Span) {
        if self.depth == 0 {
            self.current.items.push(Item::Number { number, dots, span });
        }
    }

    fn token(&mut self, token: &str, span: Span) -> Result<(), TokenError> {
        if self.depth == 0 {
            self.current.items.push(Item::Move {
                text: token.to_owned(),
                span,
            });
        }
        Ok(())
    }

    fn comment(&mut self, comment: RawComment<'_>, span: Span) {
        let body = comment.0;
        // The body starts one character after the `{`.
        let body_start = pos_within(span.start, "{", 1);
        let mut chance: Option<(Vec<String>, Span)> = None;
        // Each command's position is counted on from the one before it, so
        // a comment of many commands is read in one pass (counted from the
        // comment's start, 40,000 commands took 16 s).
        let mut counted = (0, body_start);
        for part in comment.parts() {
            let RawPart::Command { name, args } = part else {
                continue;
            };
            let is_event = name.eq_ignore_ascii_case(EVENT_COMMAND);
            let is_chance = name.eq_ignore_ascii_case(CHANCE_COMMAND);
            if !is_event && !is_chance {
                continue;
            }
            // `name` borrows from `body`, two bytes after its `[%`.
            let offset = (name.as_ptr() as usize)
                .saturating_sub(body.as_ptr() as usize)
                .saturating_sub(2);
            let pos = match body.get(counted.0..) {
                Some(rest) if offset >= counted.0 => {
                    pos_within(counted.1, rest, offset - counted.0)
                }
                _ => pos_within(body_start, body, offset),
            };
            counted = (offset, pos);
            let at = Span::new(pos, name.len() + 2);
            let values: Vec<String> = args.iter().map(|a| a.value()).collect();
            if self.depth > 0 {
                self.current.items.push(Item::Stray {
                    event: is_event,
                    reason: "signed evidence inside a variation: the signed game is the main line",
                    span: at,
                });
            } else if is_chance {
                if let Some((_, earlier)) = chance.replace((values, at)) {
                    self.current.items.push(Item::Stray {
                        event: false,
                        reason: "a [%chance] command not followed by its [%event]",
                        span: earlier,
                    });
                }
            } else {
                self.current.items.push(Item::Event {
                    args: values,
                    span: at,
                    chance: chance.take(),
                });
            }
        }
        if let Some((_, at)) = chance {
            self.current.items.push(Item::Stray {
                event: false,
                reason: "a [%chance] command not followed by its [%event] in the same comment",
                span: at,
            });
        }
    }

    fn begin_variation(&mut self) -> Skip {
        self.depth += 1;
        self.current.variations = self.current.variations.saturating_add(1);
        Skip(false)
    }

    fn end_variation(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn result(&mut self, result: GameResult, span: Span) {
        self.current.result = result;
        self.current.result_span = span;
    }

    fn end_game(&mut self) -> SignedText {
        std::mem::take(&mut self.current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yam_notation::Reader;

    fn collect(text: &str) -> SignedText {
        Reader::new(text.as_bytes())
            .read_game(&mut Collector::new())
            .unwrap()
            .unwrap()
    }

    const HEADER: &str = "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"g\"]\n[Date \"2026.01.01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"magician\"]\n[mode \"peer\"]\n\n";

    #[test]
    fn keeps_the_main_line_and_the_evidence_with_positions() {
        let text = format!(
            "{HEADER}{{[%event A B]}} 1. Ng3-f3 {{Good.\n  [%chance 0 \"x: d6 1\"] [%event C D]}} (1. Ng3-f4 {{[%event E F]}}) 1... Ae7-f6 *\n"
        );
        let signed = collect(&text);
        assert_eq!(signed.game, Some(GameKind::Khan));
        assert_eq!(signed.tag("Mode").unwrap().value, "peer");
        assert_eq!(signed.tag("Mode").unwrap().name, "Mode");
        let Item::Event { args, span, .. } = &signed.items[0] else {
            panic!("an event first")
        };
        assert_eq!(args, &["A", "B"]);
        assert_eq!((span.start.line, span.start.column), (12, 2));
        assert!(matches!(
            &signed.items[1],
            Item::Number {
                number: 1,
                dots: Dots::One,
                ..
            }
        ));
        assert!(matches!(&signed.items[2], Item::Move { text, .. } if text == "Ng3-f3"));
        let Item::Event { args, span, chance } = &signed.items[3] else {
            panic!("the second event")
        };
        assert_eq!(args, &["C", "D"]);
        assert_eq!((span.start.line, span.start.column), (13, 25));
        assert_eq!(&text[span.start.offset as usize..][..7], "[%event");
        let (values, at) = chance.as_ref().unwrap();
        assert_eq!(values, &["0", "x: d6 1"]);
        assert_eq!((at.start.line, at.start.column), (13, 3));
        assert!(matches!(&signed.items[4], Item::Stray { .. }));
        assert!(matches!(
            &signed.items[5],
            Item::Number {
                number: 1,
                dots: Dots::Three,
                ..
            }
        ));
        assert!(matches!(&signed.items[6], Item::Move { text, .. } if text == "Ae7-f6"));
        assert_eq!(signed.items.len(), 7);
        assert_eq!(signed.event_count(), 2);
    }

    #[test]
    fn a_chance_without_its_event_is_stray() {
        let signed = collect(&format!("{HEADER}{{[%chance 0 \"x: d6 1\"] prose}} *\n"));
        assert!(matches!(&signed.items[..], [Item::Stray { .. }]));
        assert!(!signed.is_signed());
        assert!(!collect(&format!("{HEADER}{{prose [%clk 1:00]}} *\n")).is_signed());
    }

    #[test]
    fn a_comment_of_many_commands_is_read_in_one_pass() {
        // 200,000 commands over lines of one to three, with a two-byte
        // character among them: each position is the one its text holds.
        // (Counted from the comment's start for each, this was hours.)
        let mut body = String::new();
        for i in 0..200_000 {
            body.push_str(match i % 3 {
                0 => "[%chance é] [%event A B]\n",
                1 => "[%event C D] ",
                _ => "[%event E F]\n\n",
            });
        }
        let text = format!("{HEADER}{{{body}}} *\n");
        let signed = collect(&text);
        assert_eq!(signed.event_count(), 200_000);
        let lines: Vec<usize> = text
            .char_indices()
            .filter(|&(_, c)| c == '\n')
            .map(|(i, _)| i)
            .collect();
        for item in [0, 1, 2, 99_999, 199_998, 199_999] {
            let Item::Event { span, chance, .. } = &signed.items[item] else {
                panic!("an event")
            };
            let offset = span.start.offset as usize;
            assert_eq!(&text[offset..][..7], "[%event");
            let line = lines.partition_point(|&n| n < offset) + 1;
            let line_start = lines.get(line.wrapping_sub(2)).map_or(0, |&n| n + 1);
            assert_eq!(span.start.line as usize, line);
            assert_eq!(
                span.start.column as usize,
                text[line_start..offset].chars().count() + 1
            );
            if let Some((_, at)) = chance {
                assert_eq!(&text[at.start.offset as usize..][..8], "[%chance");
                assert_eq!(at.start.line, span.start.line);
                assert_eq!(at.start.column, if item == 0 { 2 } else { 1 });
            }
        }
    }
}
