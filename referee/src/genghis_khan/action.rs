//! What the player does ([`Action`]), what follows from it ([`Event`]), and
//! why an action is refused ([`Illegal`]), in words with the ruling's id.

use std::fmt;

use crate::fair_play::chance::ChanceError;

use super::cards::{FoeCard, FoeDeck, KhanCard, foe_label, khan_label};
use super::score::Score;
use super::state::EndReason;

/// One step of play.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    /// Horde: draw the next card (the door for chance picks it).
    Draw,
    /// Conquest: declare the Foe attacked this turn (GK-05).
    Attack(FoeDeck),
    /// Conquest: capture the attacked Foe's top card, paying with these cards
    /// from the hand (GK-06, GK-07; a set: order does not matter, GK-22).
    Capture(Vec<KhanCard>),
    /// Conquest: end the Conquest phase, with or without attacking (GK-21).
    Pass,
    /// Logistics: discard exactly the cards over the hand limit, chosen by
    /// the player (GK-13).
    Discard(Vec<KhanCard>),
}

/// Something that happened as an action was carried out.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Event {
    /// A Khan card was drawn in the Horde phase.
    Drew {
        /// The card.
        card: KhanCard,
        /// The turn.
        turn: u32,
        /// Its place in this Horde phase, from 1.
        number: usize,
    },
    /// GK-14 flag: the discard pile became the Khan deck.
    Reshuffled {
        /// How many cards it held.
        cards: usize,
    },
    /// A Foe was declared for this turn.
    Attacked(FoeDeck),
    /// A Foe card was captured.
    Captured {
        /// The card.
        foe: FoeCard,
        /// What paid for it, in canonical order.
        payment: Vec<KhanCard>,
        /// GK-08: force paid beyond the card's force, lost.
        waste: u32,
    },
    /// A Foe deck is captured completely (GK-17's bonus).
    Completed(FoeDeck),
    /// The Conquest phase ended.
    ConquestEnded,
    /// Cards discarded in the Logistics phase.
    Discarded(Vec<KhanCard>),
    /// A new turn began; `draws` cards are due in its Horde phase.
    TurnBegan {
        /// The turn.
        turn: u32,
        /// Cards it will draw (GK-14, GK-15).
        draws: usize,
    },
    /// The game ended.
    GameOver {
        /// Why.
        reason: EndReason,
        /// The final score.
        score: Score,
    },
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Drew { card, turn, number } => {
                write!(f, "turn {turn}, Horde card {number}: {}", khan_label(*card))
            }
            Event::Reshuffled { cards } => {
                write!(f, "the discard pile ({cards} cards) becomes the Khan deck")
            }
            Event::Attacked(deck) => write!(f, "attacks {deck}"),
            Event::Captured {
                foe,
                payment,
                waste,
            } => {
                let paid: Vec<String> = payment.iter().map(|c| khan_label(*c)).collect();
                write!(f, "captures {} with {}", foe_label(*foe), paid.join(" + "))?;
                if *waste > 0 {
                    write!(f, ", wasting {waste}")?;
                }
                Ok(())
            }
            Event::Completed(deck) => write!(f, "{deck} is captured completely"),
            Event::ConquestEnded => f.write_str("the Conquest phase ends"),
            Event::Discarded(cards) => {
                let names: Vec<String> = cards.iter().map(|c| khan_label(*c)).collect();
                write!(f, "discards {}", names.join(", "))
            }
            Event::TurnBegan { turn, draws } => write!(f, "turn {turn} begins: {draws} to draw"),
            Event::GameOver { reason, score } => write!(f, "the game is over ({reason}): {score}"),
        }
    }
}

/// Why an action is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    /// GK-16: nothing is played after the end.
    #[error("the game is over ({0}) (GK-16)")]
    GameOver(EndReason),
    /// GK-04: the Horde phase comes first, and draws all its cards.
    #[error("the Horde phase comes first: {remaining} more card(s) to draw (GK-04)")]
    MustDraw {
        /// Cards still due.
        remaining: usize,
    },
    /// GK-04, GK-15: draws happen only in the Horde phase, five at most.
    #[error("no card is drawn now: this turn's Horde phase is over (GK-04, GK-15)")]
    NoDrawDue,
    /// GK-13: the Logistics phase must discard the excess first.
    #[error("the hand holds {hand} cards and the limit is {limit}: discard {excess} first (GK-13)")]
    MustDiscard {
        /// Cards in hand.
        hand: usize,
        /// The hand limit.
        limit: u32,
        /// Cards to discard.
        excess: usize,
    },
    /// GK-13: discards happen only in the Logistics phase, and only when the
    /// hand is over the limit.
    #[error(
        "cards are discarded only in the Logistics phase, and only those over the hand limit (GK-13)"
    )]
    NotLogistics,
    /// GK-05: one Foe per turn.
    #[error("only one Foe may be attacked per turn, and this turn's is {0} (GK-05)")]
    AlreadyAttacked(FoeDeck),
    /// GK-11: the attacked Foe is emptied and switching is off.
    #[error(
        "{0} is captured completely, which ends this turn's attacks: no other Foe may be attacked until next turn (GK-11)"
    )]
    NoSwitch(FoeDeck),
    /// GK-12: Mongolian Unification first.
    #[error(
        "{target} cannot be attacked while Mongolian Unification has {left} card(s) left (GK-12)"
    )]
    UnificationFirst {
        /// The deck the player tried to attack.
        target: FoeDeck,
        /// Mongolian Unification cards left.
        left: usize,
    },
    /// An empty Foe deck cannot be attacked.
    #[error("{0} has no card left to capture")]
    Exhausted(FoeDeck),
    /// GK-05: captures follow the declaration.
    #[error("declare the Foe to attack before capturing (GK-05)")]
    NoTarget,
    /// GK-11: the attacked Foe is emptied; nothing is left to capture from it.
    #[error("{0} is captured completely: nothing is left to capture from it this turn (GK-11)")]
    TargetExhausted(FoeDeck),
    /// GK-07, GK-10: a capture is paid with at least one card.
    #[error("a capture must be paid with at least one Khan card (GK-07, GK-10)")]
    EmptyPayment,
    /// GK-23: only cards in the hand can be played or discarded.
    #[error("{} is not in the hand (GK-23)", khan_label(*.0))]
    NotInHand(KhanCard),
    /// GK-22: a payment or discard is a set of distinct cards.
    #[error("{} is named twice; each Khan card exists once (GK-22)", khan_label(*.0))]
    NamedTwice(KhanCard),
    /// GK-07, GK-09, GK-10: the force paid must equal or exceed the top card's.
    #[error(
        "force {paid} does not capture {}: the payment must reach force {needed} on its own (GK-07, GK-09, GK-10)",
        foe_label(*.foe)
    )]
    Insufficient {
        /// The top card.
        foe: FoeCard,
        /// Force paid.
        paid: u32,
        /// Force needed.
        needed: u32,
    },
    /// GK-02: the card captured is the top card.
    #[error("the top card of {deck} is {}, not {} (GK-02)", foe_label(*.top), foe_label(*.written))]
    NotTop {
        /// The attacked deck.
        deck: FoeDeck,
        /// Its top card.
        top: FoeCard,
        /// The card the move named.
        written: FoeCard,
    },
    /// GK-13: the player discards exactly the excess.
    #[error(
        "{discarded} card(s) discarded, but exactly {required} must go to keep the hand limit of {limit} (GK-13)"
    )]
    DiscardCount {
        /// Cards the action discards.
        discarded: usize,
        /// Cards it must discard.
        required: usize,
        /// The hand limit.
        limit: u32,
    },
    /// GK-03: a draw token named a card that is not in the Khan deck.
    #[error("{} cannot be drawn: it is not in the Khan deck (GK-03)", khan_label(*.0))]
    NotInDeck(KhanCard),
    /// A dealt game's draw names another card than the next of the Khan
    /// deck as dealt (its `KhanDeck` tag).
    #[error(
        "draw {number} of the Khan deck as dealt (tag KhanDeck) is {}, but the move draws {}",
        khan_label(*.dealt),
        khan_label(*.written)
    )]
    NotDealt {
        /// The draw's place in the game, from 1.
        number: usize,
        /// The card the deal gives.
        dealt: KhanCard,
        /// The card the move named.
        written: KhanCard,
    },
    /// A draw token named another card than the one drawn.
    #[error("the card drawn is {}, but the move says {}", khan_label(*.drawn), khan_label(*.written))]
    DrawMismatch {
        /// The card the move named.
        written: KhanCard,
        /// The card drawn.
        drawn: KhanCard,
    },
    /// The door for chance refused (a replay that does not match its
    /// evidence, an exhausted stream).
    #[error("the draw failed: {0}")]
    Chance(#[from] ChanceError),
    /// The door for chance gave an index outside the cards that remain.
    #[error("the door for chance gave index {index} of {remaining} cards")]
    BadIndex {
        /// The index given.
        index: usize,
        /// The cards that remained.
        remaining: usize,
    },
}
