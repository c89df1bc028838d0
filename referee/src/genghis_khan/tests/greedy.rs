//! The greedy player: a handful of games in every test run, and the 400-game
//! figures of the rulings file (§3.3) on demand.

use super::support::{khans, standard, with};
use crate::genghis_khan::greedy::{captures_possible, cheapest_payment, practice, summarize};
use crate::genghis_khan::{Phase, best_possible};

#[test]
fn cheapest_payment_is_smallest_total_then_fewest_cards() {
    let hand = khans(&[
        "United Mongols",
        "Overrun Sedentary Societies",
        "Ravage Cities",
        "Temujin",
        "Son Tolui",
    ]);
    // 9: 7+2 and 5+4 both total 9 with two cards; the tie keeps the
    // stronger cards, so 5+4 goes and the 7 stays.
    assert_eq!(
        cheapest_payment(&hand, 9),
        Some(khans(&["Overrun Sedentary Societies", "Ravage Cities"]))
    );
    assert_eq!(cheapest_payment(&hand, 7), Some(khans(&["United Mongols"])));
    assert_eq!(
        cheapest_payment(&hand, 3),
        Some(khans(&["Temujin", "Son Tolui"]))
    );
    assert_eq!(cheapest_payment(&hand, 20), None);
    assert_eq!(cheapest_payment(&hand, 19), Some(hand.clone()));
    assert_eq!(cheapest_payment(&[], 1), None);
    let _ = captures_possible(&hand, &[]);
}

#[test]
fn a_handful_of_greedy_games_play_to_the_end() {
    for n in 0..5 {
        let game = practice(&standard(), n).unwrap();
        let s = &game.state;
        assert!(matches!(s.phase(), Phase::Over(_)));
        let score = s.score();
        assert!(score.points() <= 150 && score.cards <= 100);
        assert_eq!(best_possible(s), score.points());
        // Every Khan card is accounted for.
        assert_eq!(
            s.khan_deck().len() + s.hand().len() + s.discard().len(),
            100
        );
        assert!(score.points() >= 60, "game {n}: {score}");
    }
}

#[test]
#[ignore = "400 games; run in release: cargo test --release -p yam-referee greedy_400 -- --ignored --nocapture"]
fn greedy_400() {
    for (name, ruleset) in [
        ("standard", standard()),
        (
            "switch_after_exhaust",
            with(|o| o.switch_after_exhaust = true),
        ),
        ("reshuffle", with(|o| o.reshuffle = true)),
    ] {
        let s = summarize(&ruleset, 400).unwrap();
        println!(
            "{name}: {} games, mean {:.1}, min {}, max {}, mean cards {:.1}, mean complete decks {:.2}, over 100: {}",
            s.games, s.mean, s.min, s.max, s.mean_cards, s.mean_complete, s.over_100
        );
    }
}
