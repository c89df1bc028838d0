//! A text display of the tableau: where the turn stands, the five Foe rows
//! with their top cards, the hand, the piles, the score and the best score
//! still possible. Plain ASCII apart from card names, so it survives mail.
//!
//! ```text
//! Genghis Khan: turn 1 of 21, Conquest (attacking Mongolian Unification)
//!
//! Foe rows: the top card, then the forces under it, next uncovered first
//!   M Mongolian Unification  19 left, top Naimans (M9)
//!       then 5 5 3 3 2 2 1 9 7 7 4 4 8 8 6 6 10 10
//!   R Russia                 20 left, top Russian Principalities (R6)
//!       then 6 10 10 8 8 7 7 9 9 2 2 3 3 4 4 5 5 1 1
//!   ...
//!
//! Hand: 4 cards, force 24:
//!     10j "Cruel Genius", 9a "Great Destiny", 3f "Meat, Milk & Blood",
//!     2a Temujin
//! Khan deck: 95 cards, force 525 (no order until drawn)
//! Discard: 1 card, force 1
//! Conquest piles: M 1/20 R 0/20 K 0/20 X 0/20 J 0/20
//! cards 1/100, score 1/150; best still possible 150
//! ```
//!
//! Names in the hand are written as tokens write them (quoted when they
//! hold commas or spaces), so a list of them reads unambiguously.

use std::fmt::Write;

use yam_notation::quote;

use super::cards::{FoeDeck, khan_force};
use super::score::best_possible;
use super::state::State;

/// The widest line the tableau makes.
const WIDTH: usize = 78;

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
    out.push_str("Foe rows: the top card, then the forces under it, next uncovered first\n");
    for deck in FoeDeck::ALL {
        let row = state.row(deck);
        let _ = write!(out, "  {} {:<22} ", deck.letter(), deck.name());
        match row.last() {
            None => out.push_str("captured completely\n"),
            Some(top) => {
                let _ = writeln!(
                    out,
                    "{:>2} left, top {} ({})",
                    row.len(),
                    top.name(),
                    top.code()
                );
                let under: Vec<String> = row
                    .iter()
                    .rev()
                    .skip(1)
                    .map(|c| c.force().to_string())
                    .collect();
                if !under.is_empty() {
                    let _ = writeln!(out, "      then {}", under.join(" "));
                }
            }
        }
    }
    out.push('\n');
    let mut hand = state.hand().to_vec();
    yam_notation::genghis_khan::sort_canonical(&mut hand);
    let _ = write!(
        out,
        "Hand: {}, force {}",
        cards(hand.len()),
        khan_force(&hand)
    );
    let items: Vec<String> = hand
        .iter()
        .map(|c| {
            let mut item = c.code();
            item.push(' ');
            quote::write_name(c.name(), &mut item);
            item
        })
        .collect();
    if items.is_empty() {
        out.push('\n');
    } else {
        out.push(':');
        wrap(&items, &mut out);
    }
    let _ = writeln!(
        out,
        "Khan deck: {}, force {} (no order until drawn)",
        cards(state.khan_deck().len()),
        khan_force(state.khan_deck())
    );
    let _ = writeln!(
        out,
        "Discard: {}, force {}",
        cards(state.discard().len()),
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

fn cards(n: usize) -> String {
    if n == 1 {
        "1 card".to_owned()
    } else {
        format!("{n} cards")
    }
}

/// Appends `items` separated by commas, in indented lines of at most
/// [`WIDTH`] characters.
fn wrap(items: &[String], out: &mut String) {
    let mut line = String::from("   ");
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!(" {item},")
        } else {
            format!(" {item}")
        };
        if line.len() + piece.len() > WIDTH && line.len() > 3 {
            out.push('\n');
            out.push_str(line.trim_end());
            line = String::from("   ");
        }
        line.push_str(&piece);
    }
    out.push('\n');
    out.push_str(line.trim_end());
    out.push('\n');
}
