//! The decks as data, and the canonical orders the door for chance draws from.
//!
//! The card lists themselves (names and forces, exactly as in the seed) are
//! the notation's vocabulary and live in `yam_notation::genghis_khan`; this
//! module makes decks of them. A draw is an index into the cards that remain,
//! listed in a canonical order that never depends on play:
//!
//! - **Khan deck**: the seed's list order, each card once (100 cards). The
//!   cards not yet drawn stay in that order; the deck has no other order
//!   until a card is drawn (GK-03).
//! - **Foe deck**: the seed's list order with each card's two copies side by
//!   side (Tartars, Tartars, Merkits, Merkits, ...: 20 cards). A drawn copy is
//!   removed and the others keep their order.
//! - **Reshuffle** (GK-14 flag): the discard pile becomes the deck, in the
//!   seed's list order again, however it was discarded.

pub use yam_notation::genghis_khan::{FoeCard, FoeDeck, KhanCard, NameError};

/// The whole Khan deck in canonical order.
pub fn khan_deck() -> Vec<KhanCard> {
    KhanCard::all().collect()
}

/// A whole Foe deck in canonical order: each card twice, copies side by side.
pub fn foe_deck(deck: FoeDeck) -> Vec<FoeCard> {
    deck.cards().flat_map(|c| [c, c]).collect()
}

/// Total force of some cards.
pub fn khan_force(cards: &[KhanCard]) -> u32 {
    cards.iter().map(|c| u32::from(c.force())).sum()
}

/// Total force of some Foe cards.
pub fn foe_force(cards: &[FoeCard]) -> u32 {
    cards.iter().map(|c| u32::from(c.force())).sum()
}

/// `Great Destiny (9a)`: how messages name a Khan card.
pub fn khan_label(card: KhanCard) -> String {
    format!("{} ({})", card.name(), card.code())
}

/// `Kiev (Russia, force 9)`: how messages name a Foe card.
pub fn foe_label(card: FoeCard) -> String {
    format!(
        "{} ({}, force {})",
        card.name(),
        card.deck().name(),
        card.force()
    )
}
