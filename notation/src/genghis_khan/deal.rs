//! A deal from physical cards, as a record's header writes it: the Foe
//! layout (tag `FoeLayout`) and, optionally, the order of the Khan deck as
//! dealt (tag `KhanDeck`). `docs/notation.md`, "Genghis Khan from physical
//! cards".
//!
//! Both are lists of cards in the notation's own spelling (short code,
//! name, or code/name), separated by whitespace:
//!
//! ```text
//! [FoeLayout "M10 M6 M8 ... R1 R5 ... J9 J10"]   100 Foe cards, bottom of each row first
//! [KhanDeck "9a 3f 10b ..."]                    100 Khan cards, top of the deck first
//! ```
//!
//! The reader refuses a bad list while reading the header (one verdict for
//! every command, as for a date the calendar does not have); this module
//! says why, naming the tag, the card's place in the list and what was
//! expected. Whether the moves then agree with the deal is the referee's
//! business.

use std::fmt;

use super::{Cursor, FoeCard, FoeDeck, KhanCard};

/// The tag that records the Foe layout.
pub const FOE_LAYOUT_TAG: &str = "FoeLayout";

/// The tag that records the Khan deck's order as dealt.
pub const KHAN_DECK_TAG: &str = "KhanDeck";

/// Why a deal tag is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealError {
    /// The tag: [`FOE_LAYOUT_TAG`] or [`KHAN_DECK_TAG`].
    pub tag: &'static str,
    /// Byte offset in the (unescaped) value where the fault lies.
    pub offset: usize,
    /// The card's place in the list (from 1) and its text, when one card
    /// is at fault.
    pub card: Option<(usize, String)>,
    /// Why, with the ruling that makes it so.
    pub reason: String,
}

impl fmt::Display for DealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.card {
            Some((n, text)) => write!(f, "tag {}, card {n} ({text}): {}", self.tag, self.reason),
            None => write!(f, "tag {}: {}", self.tag, self.reason),
        }
    }
}

impl std::error::Error for DealError {}

/// One item of a list: where it starts, its text, and the cursor after it.
fn items<'a, T>(
    tag: &'static str,
    value: &'a str,
    mut read: impl FnMut(&mut Cursor<'a>) -> Result<T, crate::TokenError>,
    mut each: impl FnMut(usize, usize, &'a str, T) -> Result<(), DealError>,
) -> Result<usize, DealError> {
    let mut c = Cursor::new(value);
    let mut n = 0;
    loop {
        c.rest = c.rest.trim_start();
        if c.rest.is_empty() {
            return Ok(n);
        }
        n += 1;
        let at = c.offset();
        let card = read(&mut c).map_err(|e| {
            // The whole item, up to the next whitespace, as written.
            let text = value[at..]
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
            DealError {
                tag,
                offset: e.offset,
                card: Some((n, text)),
                reason: format!("expected {}", e.expected),
            }
        })?;
        if !c.rest.is_empty() && !c.rest.starts_with(char::is_whitespace) {
            let text = &value[at..c.offset()];
            return Err(DealError {
                tag,
                offset: c.offset(),
                card: Some((n, text.to_owned())),
                reason: "expected whitespace after the card: cards are separated by spaces".into(),
            });
        }
        let text = &value[at..c.offset()];
        each(n, at, text, card)?;
    }
}

/// The dealt Foe layout: each deck laid out whole as a row (GK-02), in the
/// order laid, so the last card of a row is its top card.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FoeLayout {
    rows: [Vec<FoeCard>; 5],
}

impl FoeLayout {
    /// Reads a `FoeLayout` value (unescaped): 100 Foe cards, the five rows
    /// one after another in the order M, R, K, X, J, each row bottom card
    /// first and top card last. Each row holds its own deck's 20 cards,
    /// every card twice (GK-01, GK-02); anything else is refused.
    pub fn parse(value: &str) -> Result<FoeLayout, DealError> {
        let mut rows: [Vec<FoeCard>; 5] = Default::default();
        // The row being read: rows are laid one after another.
        let mut current = 0usize;
        let err = |at: usize, n: usize, text: &str, reason: String| DealError {
            tag: FOE_LAYOUT_TAG,
            offset: at,
            card: Some((n, text.to_owned())),
            reason,
        };
        items(
            FOE_LAYOUT_TAG,
            value,
            |c| c.foe(),
            |n, at, text, card| {
                let deck = card.deck();
                if deck.index() < current {
                    return Err(err(
                        at,
                        n,
                        text,
                        format!(
                            "a card of {} after {}'s row: the rows are listed one after another, in the order M, R, K, X, J (GK-02)",
                            deck.name(),
                            FoeDeck::ALL[current].name()
                        ),
                    ));
                }
                if deck.index() > current {
                    let laid = rows[current].len();
                    if laid == 0 {
                        return Err(err(
                            at,
                            n,
                            text,
                            format!(
                                "a card of {} where {}'s row begins: the rows are listed in the order M, R, K, X, J (GK-02)",
                                deck.name(),
                                FoeDeck::ALL[current].name()
                            ),
                        ));
                    }
                    if laid < FoeDeck::SIZE {
                        return Err(err(
                            at,
                            n,
                            text,
                            format!(
                                "{}'s row ends after {laid} card(s), but a Foe deck is laid out whole: 20 cards, each of its ten twice (GK-01, GK-02)",
                                FoeDeck::ALL[current].name()
                            ),
                        ));
                    }
                    if deck.index() > current + 1 {
                        return Err(err(
                            at,
                            n,
                            text,
                            format!(
                                "{}'s row comes after {}'s: the rows are listed in the order M, R, K, X, J, all five (GK-02)",
                                FoeDeck::ALL[current + 1].name(),
                                FoeDeck::ALL[current].name()
                            ),
                        ));
                    }
                    current = deck.index();
                }
                let row = &mut rows[current];
                // GK-01: each Foe card is in its deck twice, no more.
                if row.iter().filter(|&&c| c == card).count() >= 2 {
                    return Err(err(
                        at,
                        n,
                        text,
                        format!(
                            "{} ({}) is laid a third time: the {} deck holds each of its cards twice (GK-01)",
                            card.name(),
                            card.code(),
                            deck.name()
                        ),
                    ));
                }
                row.push(card);
                Ok(())
            },
        )?;
        let end = value.len();
        for (i, row) in rows.iter().enumerate() {
            if row.len() < FoeDeck::SIZE {
                let deck = FoeDeck::ALL[i];
                let reason = if row.is_empty() {
                    format!(
                        "{}'s row is missing: the layout lists all five Foe decks, M, R, K, X, J, 20 cards each, 100 in all (GK-02)",
                        deck.name()
                    )
                } else {
                    format!(
                        "{}'s row ends after {} card(s), but a Foe deck is laid out whole: 20 cards, each of its ten twice (GK-01, GK-02)",
                        deck.name(),
                        row.len()
                    )
                };
                return Err(DealError {
                    tag: FOE_LAYOUT_TAG,
                    offset: end,
                    card: None,
                    reason,
                });
            }
        }
        Ok(FoeLayout { rows })
    }

    /// A layout from its rows, each in the order laid (checked as
    /// [`FoeLayout::parse`] checks a value).
    pub fn from_rows(rows: [Vec<FoeCard>; 5]) -> Result<FoeLayout, DealError> {
        let mut value = String::new();
        for row in &rows {
            for card in row {
                value.push_str(&card.code());
                value.push(' ');
            }
        }
        FoeLayout::parse(&value)
    }

    /// A row in the order laid: the last card is its top card (GK-02).
    pub fn row(&self, deck: FoeDeck) -> &[FoeCard] {
        &self.rows[deck.index()]
    }

    /// All five rows, in the order of [`FoeDeck::ALL`].
    pub fn rows(&self) -> &[Vec<FoeCard>; 5] {
        &self.rows
    }
}

impl fmt::Display for FoeLayout {
    /// The canonical value: short codes, one space apart.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let codes: Vec<String> = self.rows.iter().flatten().map(|c| c.code()).collect();
        f.write_str(&codes.join(" "))
    }
}

/// The Khan deck in the order dealt, top card (the first drawn) first.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KhanDeckOrder {
    cards: Vec<KhanCard>,
}

impl KhanDeckOrder {
    /// Reads a `KhanDeck` value (unescaped): the 100 Khan cards, each once
    /// (GK-01), top of the deck first.
    pub fn parse(value: &str) -> Result<KhanDeckOrder, DealError> {
        let mut cards: Vec<KhanCard> = Vec::with_capacity(KhanCard::COUNT);
        items(
            KHAN_DECK_TAG,
            value,
            |c| c.khan(),
            |n, at, text, card| {
                if let Some(first) = cards.iter().position(|&c| c == card) {
                    return Err(DealError {
                        tag: KHAN_DECK_TAG,
                        offset: at,
                        card: Some((n, text.to_owned())),
                        reason: format!(
                            "{} ({}) is listed twice, as card {} and card {n}: the Khan deck holds each card once (GK-01)",
                            card.name(),
                            card.code(),
                            first + 1
                        ),
                    });
                }
                cards.push(card);
                Ok(())
            },
        )?;
        if cards.len() < KhanCard::COUNT {
            let missing: Vec<String> = KhanCard::all()
                .filter(|c| !cards.contains(c))
                .map(KhanCard::code)
                .collect();
            let shown = if missing.len() > 8 {
                format!("{}, ...", missing[..8].join(", "))
            } else {
                missing.join(", ")
            };
            return Err(DealError {
                tag: KHAN_DECK_TAG,
                offset: value.len(),
                card: None,
                reason: format!(
                    "{} card(s) listed, but the Khan deck is dealt whole: 100 cards, each once (GK-01); missing: {shown}",
                    cards.len()
                ),
            });
        }
        Ok(KhanDeckOrder { cards })
    }

    /// The cards, top of the deck first.
    pub fn cards(&self) -> &[KhanCard] {
        &self.cards
    }
}

impl fmt::Display for KhanDeckOrder {
    /// The canonical value: short codes, one space apart.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let codes: Vec<String> = self.cards.iter().map(|c| c.code()).collect();
        f.write_str(&codes.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row in canonical order (each card's copies side by side).
    fn canonical() -> String {
        FoeDeck::ALL
            .iter()
            .flat_map(|d| d.cards().flat_map(|c| [c.code(), c.code()]))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn khan_all() -> Vec<String> {
        KhanCard::all().map(KhanCard::code).collect()
    }

    #[test]
    fn a_whole_layout_reads_in_any_spelling_and_prints_as_codes() {
        let text = canonical();
        let layout = FoeLayout::parse(&text).unwrap();
        assert_eq!(layout.to_string(), text);
        let m = layout.row(FoeDeck::MongolianUnification);
        assert_eq!(m.len(), 20);
        assert_eq!(m[0].name(), "Tartars");
        // Names, code/name, quoted names and extra whitespace read alike.
        let spelled = text
            .replacen("M10 M10", "M/Tartars\tM10/tartars", 1)
            .replacen("M8 M8", "M/\"Blood Brother Jamuqua\"\n M8", 1);
        assert_eq!(FoeLayout::parse(&spelled).unwrap(), layout);
        assert_eq!(FoeLayout::from_rows(layout.rows().clone()).unwrap(), layout);
    }

    #[test]
    fn a_bad_layout_is_refused_with_the_tag_the_card_and_the_reason() {
        let text = canonical();
        let refused = |t: &str| FoeLayout::parse(t).unwrap_err().to_string();
        // Not a card.
        let e = refused(&text.replacen("M10", "M11", 1));
        assert!(
            e.starts_with("tag FoeLayout, card 1 (M11): expected"),
            "{e}"
        );
        let e = refused(&text.replacen("M10", "M/Kiev", 1));
        assert!(
            e.contains("card 1 (M/Kiev)") && e.contains("Mongolian"),
            "{e}"
        );
        // A third copy.
        let e = refused(&text.replacen("M6", "M10", 1));
        assert!(
            e.contains("card 3 (M10): Tartars (M10) is laid a third time"),
            "{e}"
        );
        assert!(e.contains("GK-01"), "{e}");
        // A short row, and a card of another deck inside a row.
        let e = refused(&text.replacen("M10 ", "", 1));
        assert!(
            e.contains("card 20 (R1): Mongolian Unification's row ends after 19"),
            "{e}"
        );
        let e = refused(&text.replacen("M6", "R6", 1));
        assert!(
            e.contains("card 3 (R6): Mongolian Unification's row ends after 2"),
            "{e}"
        );
        // Rows out of order.
        let rows: Vec<&str> = text.split(' ').collect();
        let swapped = [&rows[20..40], &rows[..20], &rows[40..]].concat().join(" ");
        let e = refused(&swapped);
        assert!(
            e.contains("card 1 (R1): a card of Russia where Mongolian Unification's row begins"),
            "{e}"
        );
        let mixed = [&rows[..21], &rows[..1], &rows[22..]].concat().join(" ");
        let e = refused(&mixed);
        assert!(
            e.contains("card 22 (M10): a card of Mongolian Unification after Russia's row"),
            "{e}"
        );
        let skipped = [&rows[..20], &rows[40..]].concat().join(" ");
        let e = refused(&skipped);
        assert!(
            e.contains("Russia's row comes after Mongolian Unification's"),
            "{e}"
        );
        // Too few rows; nothing at all; no separator.
        let e = refused(&rows[..80].join(" "));
        assert!(
            e.contains("tag FoeLayout: Jin Empire's row is missing"),
            "{e}"
        );
        let e = refused("");
        assert!(e.contains("Mongolian Unification's row is missing"), "{e}");
        let e = refused(&text.replacen("M10 M10", "M10,M10", 1));
        assert!(e.contains("card 1 (M10): expected whitespace"), "{e}");
    }

    #[test]
    fn a_whole_khan_deck_reads_and_a_bad_one_is_refused() {
        let all = khan_all();
        let text = all.join(" ");
        let deck = KhanDeckOrder::parse(&text).unwrap();
        assert_eq!(deck.cards().len(), 100);
        assert_eq!(deck.to_string(), text);
        let mut named = all.clone();
        let first = KhanCard::all().next().unwrap();
        named[0] = format!("{}/{:?}", first.code(), first.name());
        assert_eq!(KhanDeckOrder::parse(&named.join(" ")).unwrap(), deck);
        let refused = |t: &str| KhanDeckOrder::parse(t).unwrap_err().to_string();
        let mut twice = all.clone();
        twice[5] = all[0].clone();
        let e = refused(&twice.join(" "));
        let want = format!(
            "tag KhanDeck, card 6 ({0}): {1} ({0}) is listed twice, as card 1 and card 6",
            first.code(),
            first.name()
        );
        assert!(e.contains(&want), "{e}");
        let e = refused(&all[..99].join(" "));
        let last = all[99].clone();
        assert!(
            e.contains("99 card(s) listed") && e.contains(&format!("missing: {last}")),
            "{e}"
        );
        let e = refused(&text.replacen(&all[0], "11a", 1));
        assert!(e.starts_with("tag KhanDeck, card 1 (11a): expected"), "{e}");
        let e = refused(&text.replacen(&all[0], "Nobody", 1));
        assert!(e.contains("card 1 (Nobody)"), "{e}");
    }

    /// A Genghis Khan record with `extra` tags.
    fn record(game: &str, extra: &str) -> String {
        format!(
            "[Game \"{game}\"]\n[Variant \"standard\"]\n[GameId \"d-1\"]\n[Date \"2026.12.01\"]\n[Player \"pat\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"standard\"]\n{extra}\n*\n"
        )
    }

    #[test]
    fn the_reader_refuses_a_bad_deal_for_every_command_alike() {
        use crate::{ErrorKind, RawGrammar, parse_record, record_to_string};
        let layout = canonical();
        let deck = khan_all().join(" ");
        let good = record(
            "Genghis Khan",
            &format!("[KhanDeck \"{deck}\"]\n[Annotator \"me\"]\n[FoeLayout \"{layout}\"]\n"),
        );
        let read = parse_record::<RawGrammar>(&good).unwrap();
        assert_eq!(read.tags.get("FoeLayout"), Some(layout.as_str()));
        // Printed in canonical order: after the fair-play tags, before Annotator.
        let printed = record_to_string::<RawGrammar>(&read);
        let (f, k, a) = (
            printed.find("[FoeLayout").unwrap(),
            printed.find("[KhanDeck").unwrap(),
            printed.find("[Annotator").unwrap(),
        );
        assert!(f < k && k < a, "{printed}");
        let refused = |text: String| match parse_record::<RawGrammar>(&text) {
            Err(e) => match e.kind {
                ErrorKind::BadDeal(reason) => reason,
                other => panic!("{other}"),
            },
            Ok(_) => panic!("accepted: {text}"),
        };
        let bad = refused(record(
            "Genghis Khan",
            &format!("[FoeLayout \"{}\"]\n", layout.replacen("M6", "M10", 1)),
        ));
        assert!(
            bad.contains("card 3 (M10): Tartars (M10) is laid a third time"),
            "{bad}"
        );
        let bad = refused(record("Genghis Khan", &format!("[KhanDeck \"{deck}\"]\n")));
        assert!(
            bad.contains("tag KhanDeck needs the FoeLayout tag"),
            "{bad}"
        );
        let bad = refused(record("Khan", &format!("[FoeLayout \"{layout}\"]\n")));
        assert!(bad.contains("this is a Khan game"), "{bad}");
        for other in ["[Mode \"practice\"]", "[PracticeSeed \"s\"]"] {
            let bad = refused(record(
                "Genghis Khan",
                &format!("[FoeLayout \"{layout}\"]\n{other}\n"),
            ));
            assert!(bad.contains("a game has one deal"), "{bad}");
        }
    }
}
