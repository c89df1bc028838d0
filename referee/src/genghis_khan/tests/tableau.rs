//! The text display of the tableau.

use super::support::{act, capture_with, draw, end_turn, stacked, standard, with_captured};
use crate::genghis_khan::{Action, FoeDeck, tableau};

const EXPECTED: &str = r#"Genghis Khan: turn 1 of 21, Conquest (attacking Mongolian Unification)

Foe rows: the top card, then the forces under it, next uncovered first
  M Mongolian Unification  19 left, top Naimans (M9)
      then 5 5 3 3 2 2 1 9 7 7 4 4 8 8 6 6 10 10
  R Russia                 20 left, top Russian Principalities (R6)
      then 6 10 10 8 8 7 7 9 9 2 2 3 3 4 4 5 5 1 1
  K Khwarizm               20 left, top Garrisons (K1)
      then 1 10 10 2 2 6 6 5 5 3 3 4 4 8 8 9 9 7 7
  X Xi Xia                 20 left, top The Mysterious Kingdom (X4)
      then 4 5 5 9 9 8 8 3 3 6 6 7 7 2 2 1 1 10 10
  J Jin Empire             20 left, top Juyong Pass (J8)
      then 8 9 9 4 4 10 10 7 7 2 2 1 1 5 5 6 6 3 3

Hand: 4 cards, force 24:
    10j "Cruel Genius", 9a "Great Destiny", 3f "Meat, Milk & Blood",
    2a Temujin
Khan deck: 95 cards, force 525 (no order until drawn)
Discard: 1 card, force 1
Conquest piles: M 1/20 R 0/20 K 0/20 X 0/20 J 0/20
cards 1/100, score 1/150; best still possible 150
"#;

#[test]
fn the_tableau_shows_rows_hand_piles_score_and_bound() {
    let s = stacked(
        &standard(),
        &[(
            FoeDeck::MongolianUnification,
            &["Great Assembly", "Naimans"],
        )],
    );
    let s = draw(
        &s,
        &[
            "Meat, Milk & Blood",
            "Great Destiny",
            "Temujin",
            "Cruel Genius",
            "Son Tolui",
        ],
    );
    let s = act(&s, Action::Attack(FoeDeck::MongolianUnification)).0;
    let s = capture_with(&s, &["Son Tolui"]);
    assert_eq!(tableau(&s), EXPECTED);
    assert!(tableau(&s).lines().all(|l| l.len() <= 78));
}

#[test]
fn complete_decks_and_the_end_are_shown() {
    let s = stacked(
        &crate::genghis_khan::ruleset::Ruleset::standard().with_options(
            crate::genghis_khan::Options {
                turns: 1,
                ..Default::default()
            },
        ),
        &[],
    );
    let s = with_captured(&s, FoeDeck::MongolianUnification, 20);
    let s = end_turn(&super::support::draw_rest(&s));
    let text = tableau(&s);
    assert!(
        text.contains("  M Mongolian Unification  captured completely\n"),
        "{text}"
    );
    assert!(
        text.starts_with("Genghis Khan: turn 1 of 1, game over: the last turn is over\n"),
        "{text}"
    );
    assert!(
        text.contains("cards 20/100, score 30/150; best still possible 30\n"),
        "{text}"
    );
}
