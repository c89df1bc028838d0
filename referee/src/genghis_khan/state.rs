//! The state of a game: the turn and phase, the Khan cards (deck, hand,
//! discard), the Foe rows and the conquest piles.

use std::fmt;

use yam_notation::GameResult;

use super::cards::{FoeCard, FoeDeck, KhanCard, khan_force};
use super::ruleset::Options;
use super::score::Score;
use serde::{Deserialize, Serialize};

/// GK-04, GK-15: cards drawn in each Horde phase.
pub const HORDE: usize = 5;

/// Why the game ended (GK-16). The score never depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EndReason {
    /// The Logistics phase of the last turn is over.
    TurnLimit,
    /// Every Foe card is captured.
    AllCaptured,
    /// The Khan deck and the hand are both empty (and, with the reshuffle
    /// flag, the discard pile too): nothing could be played any more.
    NoCards,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::TurnLimit => "the last turn is over",
            EndReason::AllCaptured => "every Foe card is captured",
            EndReason::NoCards => "no Khan card is left to play",
        })
    }
}

/// Where a turn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Drawing: `drawn` cards drawn so far this turn.
    Horde {
        /// Cards drawn so far in this Horde phase.
        drawn: usize,
    },
    /// Attacking: the Foe declared this turn, if any (GK-05).
    Conquest {
        /// The Foe attacked this turn.
        target: Option<FoeDeck>,
    },
    /// Discarding down to the hand limit (GK-13); only entered when the hand
    /// is over the limit.
    Logistics,
    /// The game is over.
    Over(EndReason),
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Phase::Horde { drawn } => write!(f, "Horde ({drawn} drawn)"),
            Phase::Conquest { target: None } => f.write_str("Conquest (no Foe attacked yet)"),
            Phase::Conquest { target: Some(deck) } => write!(f, "Conquest (attacking {deck})"),
            Phase::Logistics => f.write_str("Logistics"),
            Phase::Over(reason) => write!(f, "game over: {reason}"),
        }
    }
}

/// A game in progress, or over.
///
/// Everything here is public information (GK-03) except the order of the
/// Khan deck, which does not exist: the deck is held as the set of cards not
/// yet drawn, in canonical order, and each draw asks the door for chance for
/// one of them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct State {
    pub(super) options: Options,
    pub(super) turn: u32,
    pub(super) phase: Phase,
    /// The Khan cards not yet drawn, in canonical order.
    pub(super) deck: Vec<KhanCard>,
    /// The hand, in the order drawn.
    pub(super) hand: Vec<KhanCard>,
    /// Played and discarded Khan cards, in the order they went there.
    pub(super) discard: Vec<KhanCard>,
    /// GK-02: each Foe row in the order laid; the last card is the top.
    pub(super) rows: [Vec<FoeCard>; 5],
    /// GK-23: each Foe deck's conquest pile, in the order captured.
    pub(super) piles: [Vec<FoeCard>; 5],
}

impl State {
    /// The options the game is played under.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The turn, from 1.
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over(_))
    }

    /// The Khan cards not yet drawn, in canonical order (not the order they
    /// will come in: that order does not exist yet).
    pub fn khan_deck(&self) -> &[KhanCard] {
        &self.deck
    }

    /// The hand, in the order drawn.
    pub fn hand(&self) -> &[KhanCard] {
        &self.hand
    }

    /// The discard pile, oldest first.
    pub fn discard(&self) -> &[KhanCard] {
        &self.discard
    }

    /// A Foe row in the order laid: the last card is the top (GK-02).
    pub fn row(&self, deck: FoeDeck) -> &[FoeCard] {
        &self.rows[deck.index()]
    }

    /// The top card of a Foe row, the one a capture takes.
    pub fn top(&self, deck: FoeDeck) -> Option<FoeCard> {
        self.rows[deck.index()].last().copied()
    }

    /// A conquest pile, in the order captured.
    pub fn pile(&self, deck: FoeDeck) -> &[FoeCard] {
        &self.piles[deck.index()]
    }

    /// The score so far (GK-17).
    pub fn score(&self) -> Score {
        Score::of(self.piles.each_ref().map(Vec::len))
    }

    /// The total force in the hand.
    pub fn hand_force(&self) -> u32 {
        khan_force(&self.hand)
    }

    /// The Foe attacked this turn, if any.
    pub fn target(&self) -> Option<FoeDeck> {
        match self.phase {
            Phase::Conquest { target } => target,
            _ => None,
        }
    }

    /// Cards the hand is over the limit by (the Logistics discard).
    pub fn excess(&self) -> usize {
        self.hand
            .len()
            .saturating_sub(usize::try_from(self.options.hand_limit).unwrap_or(usize::MAX))
    }

    /// Khan cards a draw could still give this game: the deck, and with the
    /// reshuffle flag the discard pile too (GK-14).
    pub(super) fn drawable(&self) -> usize {
        if self.options.reshuffle {
            self.deck.len() + self.discard.len()
        } else {
            self.deck.len()
        }
    }

    /// The result as a record writes it (GK-19: a score, never a win or a
    /// loss): `77/150` once the game is over, `*` until then.
    pub fn result(&self) -> GameResult {
        if self.is_over() {
            GameResult::Score {
                points: self.score().points(),
                max: Score::MAX_POINTS,
            }
        } else {
            GameResult::Unfinished
        }
    }

    /// Whether a Foe deck is captured completely (its row is empty).
    pub fn is_complete(&self, deck: FoeDeck) -> bool {
        self.rows[deck.index()].is_empty()
    }
}
