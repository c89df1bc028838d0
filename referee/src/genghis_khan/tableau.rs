//! A text display of the tableau: where the turn stands, the five Foe rows
//! with their top cards, the hand, the piles, the score and the best score
//! still possible. Plain ASCII apart from card names, so it survives mail.
//!
//! ```text
//! Genghis Khan: turn 2 of 21, Conquest (attacking Mongolian Unification)
//!
//! Foe rows: the top card, then the forces under it, next to be uncovered first
//!   M Mongolian Unification  17 left  top Naimans (M9)         then 4 7 ...
//!   R Russia                 20 left  top Kiev (R9)            then 2 10 ...
//!
//! Hand (8, force 41): 10a Master of the World, 9a Great Destiny, ...
//! Khan deck: 90 cards, force 495 (no order until drawn)
//! Discard: 2 cards, force 12
//! Conquest piles: M 3/20  R 0/20  K 0/20  X 0/20  J 0/20
//! cards 3/100, score 3/150; best still possible 150
//! ```

use std::fmt::Write;

use super::cards::{FoeDeck, khan_force};
use super::score::best_possible;
use super::state::State;

/// The tableau of `state` as text.
pub fn tableau(state: &State) -> String {
    let mut out = String::with_capacity(1024);
    let _ = writeln!(
        out,
        "Genghis Khan: turn {} of {}, {}",
        state.turn(),
        state.options().turns,
        state.phase()
    );
    out.push('\n');
    out.push_str("Foe rows: the top card, then the forces under it, next to be uncovered first\n");
    for deck in FoeDeck::ALL {
        let row = state.row(deck);
        let _ = write!(out, "  {} {:<22} ", deck.letter(), deck.name());
        match row.last() {
            None => out.push_str("captured completely\n"),
            Some(top) => {
                let top_text = format!("top {} ({})", top.name(), top.code());
                let _ = write!(out, "{:>2} left  {:<32}", row.len(), top_text);
                let under: Vec<String> = row
                    .iter()
                    .rev()
                    .skip(1)
                    .map(|c| c.force().to_string())
                    .collect();
                if !under.is_empty() {
                    let _ = write!(out, " then {}", under.join(" "));
                }
                out.push('\n');
            }
        }
    }
    out.push('\n');
    let mut hand = state.hand().to_vec();
    yam_notation::genghis_khan::sort_canonical(&mut hand);
    let cards: Vec<String> = hand
        .iter()
        .map(|c| format!("{} {}", c.code(), c.name()))
        .collect();
    let _ = writeln!(
        out,
        "Hand ({}, force {}): {}",
        hand.len(),
        khan_force(&hand),
        if cards.is_empty() {
            "empty".to_owned()
        } else {
            cards.join(", ")
        }
    );
    let _ = writeln!(
        out,
        "Khan deck: {} cards, force {} (no order until drawn)",
        state.khan_deck().len(),
        khan_force(state.khan_deck())
    );
    let _ = writeln!(
        out,
        "Discard: {} cards, force {}",
        state.discard().len(),
        khan_force(state.discard())
    );
    out.push_str("Conquest piles:");
    for deck in FoeDeck::ALL {
        let _ = write!(
            out,
            " {} {}/{}",
            deck.letter(),
            state.pile(deck).len(),
            FoeDeck::SIZE
        );
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{}; best still possible {}",
        state.score(),
        best_possible(state)
    );
    out
}
