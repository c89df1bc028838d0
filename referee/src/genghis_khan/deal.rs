//! A game dealt from physical cards and written down by hand: the Foe rows
//! as the record's `FoeLayout` tag lays them, and each Horde card as its
//! draw token names it (checked, when the record has a `KhanDeck` tag,
//! against the deck's order as dealt). `docs/notation.md`, "Genghis Khan
//! from physical cards".
//!
//! No door for chance is asked anything here: the deal already happened,
//! at a table. What the rules still decide is whether the moves could have
//! been played from that deal: every capture takes the top card of a row as
//! laid (GK-02), every draw takes a card still in the deck (GK-03), and so
//! on, exactly as for a seeded game ([`super::token::play`] does the work).
//! The deal itself is unverified: it is what the player wrote.

use yam_notation::genghis_khan::Move;
use yam_notation::genghis_khan::deal::{DealError, FoeLayout, KhanDeckOrder};

use super::action::{Event, Illegal};
use super::apply::laid_out;
use super::cards::KhanCard;
use super::ruleset::Ruleset;
use super::state::State;
use super::token::{play, resolve};
use crate::fair_play::chance::{Chance, ChanceError};
use crate::fair_play::outcome::Assurance;

pub use yam_notation::genghis_khan::deal::{FOE_LAYOUT_TAG, KHAN_DECK_TAG};

/// A deal from physical cards, as the header records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deal {
    layout: FoeLayout,
    deck: Option<KhanDeckOrder>,
}

impl Deal {
    /// The deal a header records: `None` without a `FoeLayout` tag, the
    /// reason when a tag is refused (the reader refuses such a header
    /// already; this says the same for a header built otherwise).
    pub fn from_tags(layout: Option<&str>, deck: Option<&str>) -> Result<Option<Deal>, DealError> {
        let Some(layout) = layout else {
            return match deck {
                None => Ok(None),
                Some(_) => Err(DealError {
                    tag: KHAN_DECK_TAG,
                    offset: 0,
                    card: None,
                    reason: "it needs the FoeLayout tag: a game dealt from physical cards records its Foe layout (GK-02)".into(),
                }),
            };
        };
        Ok(Some(Deal {
            layout: FoeLayout::parse(layout)?,
            deck: deck.map(KhanDeckOrder::parse).transpose()?,
        }))
    }

    /// A deal of `layout`, with the Khan deck's order if it was written down.
    pub fn new(layout: FoeLayout, deck: Option<KhanDeckOrder>) -> Deal {
        Deal { layout, deck }
    }

    /// The Foe layout.
    pub fn layout(&self) -> &FoeLayout {
        &self.layout
    }

    /// The Khan deck's order as dealt, if the record has it.
    pub fn khan_deck(&self) -> Option<&KhanDeckOrder> {
        self.deck.as_ref()
    }

    /// The game before its first move: the five rows as laid (GK-02; the
    /// last card of each is its top card, and the rows are public), the
    /// Khan deck undrawn and no hand (GK-03, GK-04), turn 1's Horde phase.
    pub fn setup(&self, ruleset: &Ruleset) -> State {
        laid_out(ruleset, self.layout.rows().clone())
    }

    /// The draws to come, none drawn yet.
    pub fn draws(&self) -> DealtDraws {
        DealtDraws {
            order: self.deck.as_ref().map(|d| d.cards().to_vec()),
            drawn: 0,
        }
    }
}

/// Where a dealt game's draws stand: the Khan deck's order as dealt, if
/// recorded, and how many cards have been drawn from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealtDraws {
    order: Option<Vec<KhanCard>>,
    drawn: usize,
}

impl DealtDraws {
    /// Cards drawn so far in this line of play.
    pub fn drawn(&self) -> usize {
        self.drawn
    }
}

/// One index, known beforehand: the place of the card a draw token names
/// among the cards a draw picks from.
struct Known(Option<usize>);

impl Chance for Known {
    fn die(&mut self, purpose: &str, _sides: u16) -> Result<u16, ChanceError> {
        Err(ChanceError::Missing {
            position: 0,
            purpose: purpose.to_owned(),
        })
    }

    fn draw(&mut self, purpose: &str, _remaining: usize) -> Result<usize, ChanceError> {
        self.0.take().ok_or_else(|| ChanceError::Missing {
            position: 0,
            purpose: purpose.to_owned(),
        })
    }

    fn assurance(&self) -> Assurance {
        // The deal is as the player wrote it: nothing vouches for it.
        Assurance::Unverified
    }
}

/// Play a written move of a dealt game: as [`super::token::play`], the
/// card a draw names coming from the table, not from a door for chance.
pub fn play_dealt(
    state: &State,
    mv: &Move,
    draws: &mut DealtDraws,
) -> Result<(State, Vec<Event>), Illegal> {
    let Move::Draw(card) = mv else {
        // Nothing but a draw needs chance.
        return play(state, mv, &mut Known(None));
    };
    // GK-04, GK-15: a draw is due; GK-03: the card is still in the deck.
    resolve(state, mv)?;
    // With a recorded deck order, the cards come off it in that order: the
    // first 100 draws. A reshuffled discard pile (the GK-14 flag) was
    // shuffled at the table and never written down: its draws are as the
    // tokens name them.
    if let Some(order) = &draws.order
        && let Some(&dealt) = order.get(draws.drawn)
        && dealt != *card
    {
        return Err(Illegal::NotDealt {
            number: draws.drawn + 1,
            dealt,
            written: *card,
        });
    }
    // The cards a draw picks from, in the order `apply` lists them: the
    // deck, or with the GK-14 flag and an empty deck the discard pile in
    // canonical order.
    let index = if state.deck.is_empty() && state.options.reshuffle {
        let mut pool = state.discard.clone();
        pool.sort_unstable();
        pool.iter().position(|c| c == card)
    } else {
        state.deck.iter().position(|c| c == card)
    };
    let played = play(state, mv, &mut Known(index))?;
    draws.drawn += 1;
    Ok(played)
}
