//! A Genghis Khan tableau: the five Foe rows (the top card drawn, the
//! forces under it in the order they will be uncovered), the hand as
//! cards, the Khan deck, the discard and the conquest piles as bars, and
//! the score.

use yam_referee::genghis_khan::cards::khan_force;
use yam_referee::genghis_khan::{FoeDeck, State, best_possible};

use super::Canvas;

/// Hand cards per row, and each card's size: wide enough that every
/// Khan card's name fits whole in three lines.
const HAND_ROW: usize = 8;
const CARD_W: u32 = 86;
const CARD_H: u32 = 62;

const WIDTH: u32 = 760;
const LEFT: u32 = 16;

/// The picture of `state`.
pub fn draw(state: &State, caption: &str) -> String {
    let mut c = Canvas::new(WIDTH);
    c.text(
        LEFT,
        22,
        15,
        r#"font-weight="bold""#,
        &format!(
            "Turn {} of {}, {}",
            state.turn(),
            state.options().turns,
            state.phase()
        ),
    );
    c.text(
        LEFT,
        44,
        12,
        "",
        "Foe rows: the top card, then the forces under it, next uncovered first",
    );
    let mut y = 54;
    let target = state.target();
    for deck in FoeDeck::ALL {
        let row = state.row(deck);
        let attacked = target == Some(deck);
        c.rect(
            LEFT,
            y,
            WIDTH - 2 * LEFT,
            66,
            if attacked {
                r##"fill="#fff4cc" stroke="#8a6d00" stroke-width="2""##
            } else {
                r##"fill="#f6f4ec" stroke="#9a9a9a" stroke-width="1""##
            },
        );
        c.text(
            LEFT + 8,
            y + 22,
            14,
            r#"font-weight="bold""#,
            &format!("{} {}", deck.letter(), deck.name()),
        );
        let status = match row.len() {
            0 => "captured completely".to_owned(),
            n => format!("{n} left"),
        };
        let status = if attacked {
            format!("{status}; under attack")
        } else {
            status
        };
        c.text(LEFT + 8, y + 42, 12, "", &status);
        if let Some(top) = row.last() {
            let x = LEFT + 214;
            c.rect(
                x,
                y + 5,
                100,
                56,
                r##"rx="4" fill="#ffffff" stroke="#000000" stroke-width="1.5""##,
            );
            c.text(x + 6, y + 24, 16, r#"font-weight="bold""#, &top.code());
            // The whole name, in two lines if need be.
            c.fitted(x + 6, y + 39, 10, 90, 11, top.name());
            for (i, card) in row.iter().rev().skip(1).enumerate() {
                let i = i as u32;
                let bx = x + 108 + (i % 19) * 21;
                let by = y + 10 + (i / 19) * 23;
                c.rect(
                    bx,
                    by,
                    20,
                    20,
                    r##"fill="#e4e4e4" stroke="#555555" stroke-width="1""##,
                );
                c.text(
                    bx + 10,
                    by + 14,
                    11,
                    r#"text-anchor="middle""#,
                    &card.force().to_string(),
                );
            }
        }
        y += 72;
    }
    // The hand, in canonical order.
    let mut hand = state.hand().to_vec();
    yam_notation::genghis_khan::sort_canonical(&mut hand);
    y += 14;
    c.text(
        LEFT,
        y,
        14,
        r#"font-weight="bold""#,
        &format!("Hand: {}, force {}", cards(hand.len()), khan_force(&hand)),
    );
    y += 8;
    for (i, card) in hand.iter().enumerate() {
        let i = i as u32;
        let x = LEFT + (i % HAND_ROW as u32) * (CARD_W + 4);
        let cy = y + (i / HAND_ROW as u32) * (CARD_H + 6);
        c.rect(
            x,
            cy,
            CARD_W,
            CARD_H,
            r##"rx="4" fill="#ffffff" stroke="#000000" stroke-width="1.5""##,
        );
        c.text(x + 5, cy + 19, 15, r#"font-weight="bold""#, &card.code());
        c.fitted(x + 5, cy + 33, 9, CARD_W - 8, 10, card.name());
    }
    if !hand.is_empty() {
        y += (hand.len() as u32).div_ceil(HAND_ROW as u32) * (CARD_H + 6);
    }
    y += 22;
    c.text(
        LEFT,
        y,
        12,
        "",
        &format!(
            "Khan deck: {}, force {} (no order until drawn). Discard: {}, force {}.",
            cards(state.khan_deck().len()),
            khan_force(state.khan_deck()),
            cards(state.discard().len()),
            khan_force(state.discard())
        ),
    );
    y += 12;
    c.text(LEFT, y + 12, 14, r#"font-weight="bold""#, "Conquest piles");
    y += 20;
    for (i, deck) in FoeDeck::ALL.into_iter().enumerate() {
        let x = LEFT + i as u32 * 145;
        let n = state.pile(deck).len() as u32;
        let full = FoeDeck::SIZE as u32;
        c.rect(
            x,
            y,
            120,
            14,
            r##"fill="#ffffff" stroke="#000000" stroke-width="1""##,
        );
        c.rect(
            x,
            y,
            120 * n.min(full) / full,
            14,
            r##"fill="#4f6f3a" stroke="none""##,
        );
        c.text(x, y + 30, 12, "", &format!("{} {n}/{full}", deck.letter()));
    }
    y += 36;
    let lines = vec![
        format!(
            "{}; best still possible {}.",
            state.score(),
            best_possible(state)
        ),
        "Cards: Khan cards by force and letter (9a), Foe cards by row letter and force (M9). \
         The highlighted row is the one under attack."
            .to_owned(),
    ];
    c.paragraphs(LEFT, y, &lines);
    c.finish(caption)
}

fn cards(n: usize) -> String {
    if n == 1 {
        "1 card".to_owned()
    } else {
        format!("{n} cards")
    }
}
