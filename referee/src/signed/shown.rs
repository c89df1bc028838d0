//! Chance as a record's text shows it, for showing a position without
//! verifying it (`yam show`, the pictures of the HTML export): the values
//! of the main line's `[%chance ...]` commands handed out in order, or, for
//! a practice game, its open seed. Nothing here is checked against the
//! signed outcomes: that is [`super::verify`]'s work.

use std::collections::VecDeque;

use yam_notation::{CommentPart, Node, Record};

use super::text::{CHANCE_COMMAND, read_chance_item};
use crate::fair_play::chance::{Chance, ChanceError, ChanceResult, PracticeChance};
use crate::fair_play::encoding::Blob;
use crate::fair_play::game_id::GameId;
use crate::fair_play::outcome::Assurance;
use crate::genghis_khan::deal::{FOE_LAYOUT_TAG, KHAN_DECK_TAG};
use crate::genghis_khan::{
    Deal, DealtDraws, Event, Illegal, Move, Ruleset, State, play, play_dealt, setup,
};
use yam_notation::genghis_khan::deal::DealError;

/// Chance values read from a record's `[%chance ...]` commands, handed out
/// in order: what the text says, unverified.
#[derive(Debug, Clone)]
pub struct ShownChance {
    /// Each value's purpose, and the value when it reads as one.
    values: VecDeque<(String, Option<ChanceResult>)>,
    used: usize,
}

impl ShownChance {
    /// Every `[%chance ...]` item of the main line, in order; `None` if
    /// there is none. An item with no purpose is left out; one whose value
    /// does not read is handed out as missing when its turn comes.
    pub fn read<M>(record: &Record<M>) -> Option<ShownChance> {
        let mut depth = 0usize;
        let mut values = VecDeque::new();
        for node in &record.movetext {
            match node {
                Node::StartVariation => depth += 1,
                Node::EndVariation => depth = depth.saturating_sub(1),
                Node::Comment(c) if depth == 0 => {
                    for part in &c.parts {
                        let CommentPart::Command(cmd) = part else {
                            continue;
                        };
                        if !cmd.name.eq_ignore_ascii_case(CHANCE_COMMAND) {
                            continue;
                        }
                        // The first argument is the roll's number.
                        for item in cmd.args.iter().skip(1) {
                            match read_chance_item(item) {
                                Ok((purpose, value)) => {
                                    values.push_back((purpose.to_owned(), Some(value)));
                                }
                                Err(super::text::ChanceItemError::Value { purpose, .. }) => {
                                    values.push_back((purpose, None));
                                }
                                Err(super::text::ChanceItemError::NoPurpose(_)) => {}
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        (!values.is_empty()).then_some(ShownChance { values, used: 0 })
    }

    /// The next value, if it was recorded for `purpose`.
    fn next(&mut self, purpose: &str) -> Result<Option<ChanceResult>, ChanceError> {
        let missing = || ChanceError::Missing {
            position: self.used,
            purpose: purpose.to_owned(),
        };
        let (recorded, value) = self.values.pop_front().ok_or_else(missing)?;
        if recorded != purpose {
            return Err(ChanceError::PurposeMismatch {
                position: self.used,
                recorded,
                asked: purpose.to_owned(),
            });
        }
        self.used += 1;
        Ok(value)
    }
}

impl Chance for ShownChance {
    fn die(&mut self, purpose: &str, sides: u16) -> Result<u16, ChanceError> {
        let position = self.used;
        match self.next(purpose)? {
            Some(ChanceResult::Die { sides: s, face }) if s == sides => Ok(face),
            _ => Err(ChanceError::Missing {
                position,
                purpose: purpose.to_owned(),
            }),
        }
    }

    fn draw(&mut self, purpose: &str, remaining: usize) -> Result<usize, ChanceError> {
        let position = self.used;
        match self.next(purpose)? {
            Some(ChanceResult::Draw {
                remaining: r,
                index,
            }) if usize::try_from(r).ok() == Some(remaining) => {
                usize::try_from(index).map_err(|_| ChanceError::Missing {
                    position,
                    purpose: purpose.to_owned(),
                })
            }
            _ => Err(ChanceError::Missing {
                position,
                purpose: purpose.to_owned(),
            }),
        }
    }

    fn assurance(&self) -> Assurance {
        Assurance::Unverified
    }
}

/// Why a record's text does not show its chance.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShownChanceError {
    /// The `GameId` or `PracticeSeed` tag is not a valid id or seed.
    #[error("the GameId or PracticeSeed tag cannot be read")]
    Tags,
    /// Neither `[%chance ...]` values nor a practice seed.
    #[error(
        "the Foe layout and the draws of this game are nowhere in its text: it has neither [%chance] values nor a practice seed"
    )]
    Nowhere,
}

/// The chance a record's text shows: its `[%chance ...]` values, or else
/// the values of its open practice seed (`PracticeSeed` and `GameId`).
pub fn shown_chance<M>(record: &Record<M>) -> Result<Box<dyn Chance>, ShownChanceError> {
    if let Some(shown) = ShownChance::read(record) {
        return Ok(Box::new(shown));
    }
    let (Some(seed), Some(id)) = (record.tags.get("PracticeSeed"), record.tags.get("GameId"))
    else {
        return Err(ShownChanceError::Nowhere);
    };
    match (GameId::new(id), Blob::new(seed.as_bytes().to_vec())) {
        (Ok(game), Ok(seed)) => Ok(Box::new(PracticeChance::new(&game, &seed))),
        _ => Err(ShownChanceError::Tags),
    }
}

/// How a shown Genghis Khan game gets its cards: through a door for chance
/// (its `[%chance]` values or practice seed), or from the deal its header
/// records.
pub enum CardDealer {
    /// Values handed out by a door for chance.
    Chance(Box<dyn Chance>),
    /// A deal from physical cards (`FoeLayout`, `KhanDeck`).
    Dealt(DealtDraws),
}

impl std::fmt::Debug for CardDealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CardDealer::Chance(_) => f.write_str("CardDealer::Chance(..)"),
            CardDealer::Dealt(draws) => f.debug_tuple("CardDealer::Dealt").field(draws).finish(),
        }
    }
}

impl CardDealer {
    /// Play a written move.
    pub fn play(&mut self, state: &State, mv: &Move) -> Result<(State, Vec<Event>), Illegal> {
        match self {
            CardDealer::Chance(chance) => play(state, mv, &mut **chance),
            CardDealer::Dealt(draws) => play_dealt(state, mv, draws),
        }
    }
}

/// Why a Genghis Khan record's text does not give its start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShownCardsError {
    /// No chance values, no seed, no deal.
    #[error(transparent)]
    Chance(#[from] ShownChanceError),
    /// The recorded deal is refused (the reader refuses it first).
    #[error("the recorded deal is refused: {0}")]
    Deal(DealError),
    /// The chance values do not lay out the rows.
    #[error("the Foe layout: {0}")]
    Layout(Illegal),
}

/// A Genghis Khan game before its first move, as its text shows it, and
/// where its cards will come from: the deal its header records
/// (`FoeLayout`), else its `[%chance]` values or practice seed. The same
/// choice as `yam check`'s, so that showing and checking never replay two
/// different games.
pub fn shown_cards<M>(
    record: &Record<M>,
    ruleset: &Ruleset,
) -> Result<(State, CardDealer), ShownCardsError> {
    let deal = Deal::from_tags(
        record.tags.get(FOE_LAYOUT_TAG),
        record.tags.get(KHAN_DECK_TAG),
    )
    .map_err(ShownCardsError::Deal)?;
    if let Some(deal) = deal {
        return Ok((deal.setup(ruleset), CardDealer::Dealt(deal.draws())));
    }
    let mut chance = shown_chance(record)?;
    let state = setup(ruleset, &mut *chance).map_err(ShownCardsError::Layout)?;
    Ok((state, CardDealer::Chance(chance)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use yam_notation::{RawGrammar, parse_record};

    fn record(text: &str) -> Record<String> {
        parse_record::<RawGrammar>(text).unwrap()
    }

    const HEADER: &str = "[Game \"Genghis Khan\"]\n[Variant \"Standard\"]\n[GameId \"g-1\"]\n[Date \"2026.01.01\"]\n[Player \"P\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"standard\"]\n";

    #[test]
    fn the_main_lines_values_are_handed_out_in_order() {
        let r = record(&format!(
            "{HEADER}\n1. x {{[%chance 0 \"a: d6 4\" \"b: #3 of 40\" \"c: nonsense\" nothing]}} (1. y {{[%chance 1 \"w: d6 1\"]}}) 2. z {{[%chance 1 \"v: d6 1\"]}} *\n"
        ));
        let mut chance = ShownChance::read(&r).unwrap();
        assert_eq!(chance.assurance(), Assurance::Unverified);
        assert_eq!(chance.die("a", 6), Ok(4));
        assert_eq!(chance.draw("b", 40), Ok(3));
        assert!(matches!(
            chance.die("c", 6),
            Err(ChanceError::Missing { position: 2, .. })
        ));
        // The variation's value is not the main line's.
        assert_eq!(chance.die("v", 6), Ok(1));
        assert!(matches!(
            chance.die("after", 6),
            Err(ChanceError::Missing { position: 4, .. })
        ));
        let mut chance = ShownChance::read(&r).unwrap();
        assert!(matches!(
            chance.die("b", 6),
            Err(ChanceError::PurposeMismatch { position: 0, .. })
        ));
        let mut chance = ShownChance::read(&r).unwrap();
        assert!(matches!(
            chance.die("a", 8),
            Err(ChanceError::Missing { position: 0, .. })
        ));
    }

    #[test]
    fn a_record_without_values_shows_its_practice_seed_or_nothing() {
        let bare = record(&format!("{HEADER}\n*\n"));
        assert!(ShownChance::read(&bare).is_none());
        assert_eq!(shown_chance(&bare).err(), Some(ShownChanceError::Nowhere));
        let practice = record(&format!("{}[PracticeSeed \"seed\"]\n\n*\n", HEADER));
        let mut chance = shown_chance(&practice).unwrap();
        assert_eq!(chance.assurance(), Assurance::Unverified);
        assert!(chance.draw("x", 10).unwrap() < 10);
    }
}
