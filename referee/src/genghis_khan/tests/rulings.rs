//! One test (or more) per ruling, GK-01 to GK-23: the legal case accepted,
//! the illegal one refused with its reason. The tests suggested in §4 of
//! the rulings file are marked "§4".

use super::support::{
    Script, act, draw, draw_rest, end_turn, foe, khan, khans, refused, stacked, standard, with,
    with_captured,
};
use crate::genghis_khan::{
    Action, EndReason, Event, FoeDeck, Illegal, Move, Phase, Score, State, apply, best_possible,
    draws_due, play, setup, tableau,
};

const M: FoeDeck = FoeDeck::MongolianUnification;
const R: FoeDeck = FoeDeck::Russia;
const K: FoeDeck = FoeDeck::Khwarizm;

/// Turn 1 with these MU top cards, these five cards drawn, and MU attacked.
fn attacking(tops: &[&str], hand: &[&str]) -> State {
    let s = stacked(&standard(), &[(M, tops)]);
    let s = draw(&s, hand);
    act(&s, Action::Attack(M)).0
}

fn capture(names: &[&str]) -> Action {
    Action::Capture(khans(names))
}

#[test]
fn gk01_names_are_flavour_only_force_counts() {
    let s = attacking(
        &["Naimans"],
        &[
            "Great Destiny",
            "Siege Warfare",
            "Skilled Horsemen",
            "Temujin",
            "Son Tolui",
        ],
    );
    // Two different cards of force 9 capture the 9 alike.
    let (a, _) = act(&s, capture(&["Great Destiny"]));
    let (b, _) = act(&s, capture(&["Siege Warfare"]));
    assert_eq!(a.pile(M), b.pile(M));
    assert_eq!(a.row(M), b.row(M));
    // "Skilled Horsemen" has force 8, whatever it is called.
    let e = refused(&s, capture(&["Skilled Horsemen"]));
    assert!(
        matches!(
            e,
            Illegal::Insufficient {
                paid: 8,
                needed: 9,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn gk02_the_top_card_is_the_last_laid_and_capturing_it_uncovers_the_next() {
    // Index 0 every time: each row is laid in canonical order, so the first
    // Tartars is at the bottom and the second Buryats on top.
    let s = setup(&standard(), &mut Script::default()).unwrap();
    assert_eq!(s.row(M).len(), 20);
    assert_eq!(s.row(M)[0], foe(M, "Tartars"));
    assert_eq!(s.top(M), Some(foe(M, "Buryats")));
    let s = draw(
        &s,
        &[
            "Overrun Sedentary Societies",
            "Foreign Troops",
            "Temujin",
            "Son Tolui",
            "Cavalry",
        ],
    );
    let s = act(&s, Action::Attack(M)).0;
    // A written capture must name the top card.
    let wrong = Move::capture(foe(M, "Tartars"), khans(&["Cavalry"]));
    let e = play(&s, &wrong, &mut Script::default()).unwrap_err();
    assert!(
        matches!(e, Illegal::NotTop { deck: M, .. }),
        "{e}: wrong card"
    );
    assert!(
        e.to_string()
            .contains("the top card of Mongolian Unification is Buryats")
    );
    let right = Move::capture(foe(M, "Buryats"), khans(&["Overrun Sedentary Societies"]));
    let (s, _) = play(&s, &right, &mut Script::default()).unwrap();
    // The other Buryats is uncovered, then the Karakorums.
    assert_eq!(s.top(M), Some(foe(M, "Buryats")));
    let (s, _) = act(&s, capture(&["Foreign Troops"]));
    assert_eq!(s.top(M), Some(foe(M, "Karakorum")));
}

#[test]
fn gk03_only_the_khan_deck_order_is_hidden_and_it_does_not_exist() {
    let mut script = Script::default();
    let s = setup(&standard(), &mut script).unwrap();
    // Setup drew the rows only: no Khan card order was made.
    assert_eq!(script.asked.len(), 100);
    assert!(script.asked.iter().all(|(p, _)| p.starts_with("lay out")));
    // The deck is the set of undrawn cards in canonical order.
    assert_eq!(s.khan_deck().len(), 100);
    assert!(s.khan_deck().windows(2).all(|w| w[0] < w[1]));
    let s = draw(&s, &["Cruel Genius", "Temujin"]);
    assert_eq!(s.khan_deck().len(), 98);
    assert!(s.khan_deck().windows(2).all(|w| w[0] < w[1]));
    assert!(!s.khan_deck().contains(&khan("Cruel Genius")));
    // Rows and piles are public: all 100 Foe cards are visible.
    let visible: usize = FoeDeck::ALL.iter().map(|&d| s.row(d).len()).sum();
    assert_eq!(visible, 100);
    // A draw cannot show a card that is no longer in the deck.
    let e = play(&s, &Move::Draw(khan("Temujin")), &mut Script::default()).unwrap_err();
    assert_eq!(e, Illegal::NotInDeck(khan("Temujin")));
    assert!(e.to_string().contains("GK-03"));
}

#[test]
fn gk04_there_is_no_starting_hand_turn_1_begins_with_the_horde() {
    let s = setup(&standard(), &mut Script::default()).unwrap();
    assert!(s.hand().is_empty());
    assert_eq!(s.turn(), 1);
    assert_eq!(s.phase(), Phase::Horde { drawn: 0 });
    assert_eq!(draws_due(&s), 5);
    let e = refused(&s, Action::Attack(M));
    assert_eq!(e, Illegal::MustDraw { remaining: 5 });
    assert!(e.to_string().contains("GK-04"));
    let s = draw_rest(&s);
    assert_eq!(s.hand().len(), 5);
    assert_eq!(s.phase(), Phase::Conquest { target: None });
    assert_eq!(refused(&s, Action::Draw), Illegal::NoDrawDue);
}

#[test]
fn gk05_one_foe_per_turn_declared_before_capturing() {
    let s = stacked(&standard(), &[(M, &["Great Assembly", "Gobi Desert"])]);
    let s = draw(
        &s,
        &["Temujin", "Son Tolui", "Cavalry", "Human Shields", "Tricks"],
    );
    // Capturing before declaring a Foe is refused.
    let e = refused(&s, capture(&["Son Tolui"]));
    assert_eq!(e, Illegal::NoTarget);
    assert!(e.to_string().contains("GK-05"));
    let (s, events) = act(&s, Action::Attack(M));
    assert_eq!(events, [Event::Attacked(M)]);
    let s = act(&s, capture(&["Son Tolui"])).0;
    // A second declaration in the same turn is refused.
    assert_eq!(refused(&s, Action::Attack(M)), Illegal::AlreadyAttacked(M));
    let e = refused(&s, Action::Attack(R));
    assert_eq!(e, Illegal::AlreadyAttacked(M));
    assert!(e.to_string().contains("GK-05"));
}

#[test]
fn gk06_several_captures_per_turn_each_paid_separately() {
    let s = attacking(
        &["Great Assembly", "Gobi Desert", "Karakorum"],
        &["Son Tolui", "Temujin", "Steppe Nomads", "Cavalry", "Tricks"],
    );
    let s = act(&s, capture(&["Son Tolui"])).0;
    let s = act(&s, capture(&["Temujin"])).0;
    let (s, events) = act(&s, capture(&["Steppe Nomads"]));
    assert_eq!(s.pile(M).len(), 3);
    assert!(matches!(events[0], Event::Captured { waste: 0, .. }));
    // Each capture needs its own payment.
    assert_eq!(refused(&s, Action::Capture(vec![])), Illegal::EmptyPayment);
}

#[test]
fn gk07_the_payment_must_equal_or_exceed_the_top_card() {
    let s = attacking(
        &["Naimans"],
        &[
            "Great Destiny",
            "Skilled Horsemen",
            "Temujin",
            "Son Tolui",
            "Cavalry",
        ],
    );
    let (_, events) = act(&s, capture(&["Great Destiny"]));
    assert!(matches!(events[0], Event::Captured { waste: 0, .. }));
    let (_, events) = act(&s, capture(&["Skilled Horsemen", "Son Tolui"]));
    assert!(matches!(events[0], Event::Captured { waste: 0, .. }));
    let e = refused(&s, capture(&["Skilled Horsemen"]));
    assert_eq!(
        e.to_string(),
        "force 8 does not capture Naimans (Mongolian Unification, force 9): the payment must \
         reach force 9 on its own (GK-07, GK-09, GK-10)"
    );
}

/// §4: paying 7+5 for a top card of 9 captures it and wastes 3; the waste is
/// not carried forward.
#[test]
fn gk08_excess_force_is_lost() {
    let s = attacking(
        &["Naimans", "Buryats", "Gobi Desert"],
        &[
            "United Mongols",
            "Overrun Sedentary Societies",
            "Ravage Cities",
            "Temujin",
            "Son Tolui",
        ],
    );
    let (s, events) = act(
        &s,
        capture(&["United Mongols", "Overrun Sedentary Societies"]),
    );
    assert_eq!(
        events[0],
        Event::Captured {
            foe: foe(M, "Naimans"),
            payment: khans(&["United Mongols", "Overrun Sedentary Societies"]),
            waste: 3,
        }
    );
    assert!(events[0].to_string().ends_with("wasting 3"));
    // Buryats (5): the 4 alone does not do, the 3 wasted are gone.
    let e = refused(&s, capture(&["Ravage Cities"]));
    assert!(
        matches!(
            e,
            Illegal::Insufficient {
                paid: 4,
                needed: 5,
                ..
            }
        ),
        "{e}"
    );
    let (s, _) = act(&s, capture(&["Ravage Cities", "Temujin"]));
    assert_eq!(s.pile(M).len(), 2);
    // Nor does anything carry into the next turn: the hand is all there is.
    let s = end_turn(&s);
    assert_eq!(s.turn(), 2);
    assert_eq!(s.hand(), khans(&["Son Tolui"]).as_slice());
}

#[test]
fn gk09_one_payment_captures_one_card() {
    let s = attacking(
        &["Karakorum", "Army of Toghril"],
        &[
            "Master of the World",
            "Son Tolui",
            "Temujin",
            "Taxes & Tribute",
            "Ordained by Tengri",
        ],
    );
    // The 10 takes the 3 and wastes 7; it does not also take the 7.
    let (s, events) = act(&s, capture(&["Master of the World"]));
    assert_eq!(s.pile(M).len(), 1);
    assert!(matches!(events[0], Event::Captured { waste: 7, .. }));
    assert_eq!(s.top(M), Some(foe(M, "Army of Toghril")));
    assert_eq!(refused(&s, Action::Capture(vec![])), Illegal::EmptyPayment);
    assert_eq!(
        refused(&s, capture(&["Master of the World"])),
        Illegal::NotInHand(khan("Master of the World"))
    );
}

#[test]
fn gk10_a_short_payment_is_illegal_and_nothing_accumulates() {
    let s = attacking(
        &["Tartars"],
        &[
            "Cavalry",
            "Ravage Cities",
            "Temujin",
            "Son Tolui",
            "Taxes & Tribute",
        ],
    );
    let e = refused(&s, capture(&["Cavalry"]));
    assert!(
        matches!(
            e,
            Illegal::Insufficient {
                paid: 6,
                needed: 10,
                ..
            }
        ),
        "{e}"
    );
    // The refusal changed nothing: a second short play is refused too,
    // though the two together would have been enough.
    let e = refused(&s, capture(&["Ravage Cities"]));
    assert!(matches!(e, Illegal::Insufficient { paid: 4, .. }), "{e}");
    assert_eq!(s.top(M), Some(foe(M, "Tartars")));
    assert_eq!(s.hand().len(), 5);
    let (s, _) = act(&s, capture(&["Cavalry", "Ravage Cities"]));
    assert_eq!(s.pile(M), [foe(M, "Tartars")]);
}

/// MU down to its last card (Tartars), Master of the World in hand, MU
/// attacked.
fn last_unification_card(ruleset: &crate::genghis_khan::Ruleset) -> State {
    let s = stacked(ruleset, &[(M, &["Buryats"]), (R, &["Prince Yuri"])]);
    let s = with_captured(&s, M, 19);
    assert_eq!(s.row(M).len(), 1);
    let s = draw(
        &s,
        &[
            "Master of the World",
            "Son Tolui",
            "Temujin",
            "Cavalry",
            "Tricks",
        ],
    );
    let top = s.top(M).map(|c| u32::from(c.force()));
    assert_eq!(top, Some(10));
    act(&s, Action::Attack(M)).0
}

#[test]
fn gk11_an_emptied_foe_ends_the_attacks_unless_the_flag_allows_a_switch() {
    let s = last_unification_card(&standard());
    let (s, events) = act(&s, capture(&["Master of the World"]));
    assert!(events.contains(&Event::Completed(M)));
    let e = refused(&s, Action::Attack(R));
    assert_eq!(e, Illegal::NoSwitch(M));
    assert!(e.to_string().contains("GK-11"));
    assert_eq!(
        refused(&s, capture(&["Son Tolui"])),
        Illegal::TargetExhausted(M)
    );
    // Passing is what is left.
    let (s, _) = act(&s, Action::Pass);
    assert_eq!(s.turn(), 2);

    let switch = with(|o| o.switch_after_exhaust = true);
    let s = last_unification_card(&switch);
    let (s, _) = act(&s, capture(&["Master of the World"]));
    let (s, _) = act(&s, Action::Attack(R));
    assert_eq!(s.target(), Some(R));
    let (s, _) = act(&s, capture(&["Son Tolui"]));
    assert_eq!(s.pile(R), [foe(R, "Prince Yuri")]);
    // Still one Foe at a time: Russia is not empty.
    assert_eq!(refused(&s, Action::Attack(K)), Illegal::AlreadyAttacked(R));
    // And an empty Foe cannot be attacked again.
    let s2 = with_captured(&s, R, 19);
    assert_eq!(refused(&s2, Action::Attack(M)), Illegal::Exhausted(M));
}

/// §4: attacking Russia is rejected while any MU card remains.
#[test]
fn gk12_mongolian_unification_first() {
    let s = draw_rest(&setup(&standard(), &mut Script::default()).unwrap());
    let e = refused(&s, Action::Attack(R));
    assert_eq!(
        e,
        Illegal::UnificationFirst {
            target: R,
            left: 20
        }
    );
    assert_eq!(
        e.to_string(),
        "Russia cannot be attacked while Mongolian Unification has 20 card(s) left (GK-12)"
    );
    let one_left = with_captured(&s, M, 19);
    assert!(matches!(
        refused(&one_left, Action::Attack(FoeDeck::JinEmpire)),
        Illegal::UnificationFirst { left: 1, .. }
    ));
    // Once MU is empty the others may be attacked, in any order.
    let done = with_captured(&s, M, 20);
    assert_eq!(
        crate::genghis_khan::attackable(&done),
        [R, K, FoeDeck::XiXia, FoeDeck::JinEmpire]
    );
    act(&done, Action::Attack(FoeDeck::XiXia));
    assert_eq!(refused(&done, Action::Attack(M)), Illegal::Exhausted(M));
}

/// §4: a hand of 11 after a pass is cut to 6 in Logistics.
#[test]
fn gk13_the_hand_limit_applies_in_logistics_and_the_player_chooses() {
    let s = draw_rest(&setup(&standard(), &mut Script::default()).unwrap());
    let s = end_turn(&s); // 5 cards kept
    let s = draw_rest(&s);
    let s = end_turn(&s); // 10 cut to 6
    assert_eq!(s.hand().len(), 6);
    let s = draw_rest(&s);
    assert_eq!(s.hand().len(), 11);
    // Conquest with 11 cards in hand is fine.
    assert!(crate::genghis_khan::check(&s, &Action::Attack(M)).is_ok());
    assert_eq!(
        refused(&s, Action::Discard(s.hand()[..5].to_vec())),
        Illegal::NotLogistics
    );
    let (s, _) = act(&s, Action::Pass);
    assert_eq!(s.phase(), Phase::Logistics);
    let e = refused(&s, Action::Pass);
    assert_eq!(
        e,
        Illegal::MustDiscard {
            hand: 11,
            limit: 6,
            excess: 5
        }
    );
    // Exactly the excess, no more, no less.
    for n in [4, 6] {
        let e = refused(&s, Action::Discard(s.hand()[..n].to_vec()));
        assert_eq!(
            e,
            Illegal::DiscardCount {
                discarded: n,
                required: 5,
                limit: 6
            }
        );
        assert!(e.to_string().contains("GK-13"));
    }
    let twice = vec![s.hand()[0]; 5];
    assert_eq!(
        refused(&s, Action::Discard(twice)),
        Illegal::NamedTwice(s.hand()[0])
    );
    let mut foreign = s.hand()[..4].to_vec();
    let outside = s.khan_deck()[0];
    foreign.push(outside);
    assert_eq!(
        refused(&s, Action::Discard(foreign)),
        Illegal::NotInHand(outside)
    );
    // The player chooses: keep the last six drawn.
    let chosen = s.hand()[..5].to_vec();
    let kept = s.hand()[5..].to_vec();
    let (s, events) = act(&s, Action::Discard(chosen));
    assert_eq!(s.hand(), kept.as_slice());
    assert!(matches!(&events[0], Event::Discarded(d) if d.len() == 5));
    assert_eq!(s.turn(), 4);
}

#[test]
fn gk13_the_hand_limit_is_a_ruleset_option() {
    let roomy = with(|o| o.hand_limit = 11);
    let s = setup(&roomy, &mut Script::default()).unwrap();
    let mut s = s;
    for _ in 0..2 {
        s = end_turn(&draw_rest(&s));
    }
    let s = draw_rest(&s);
    assert_eq!(s.hand().len(), 15);
    let (s, _) = act(&s, Action::Pass);
    assert_eq!(s.phase(), Phase::Logistics);
    assert_eq!(s.excess(), 4);
    let none = with(|o| o.hand_limit = 0);
    let s = draw_rest(&setup(&none, &mut Script::default()).unwrap());
    let (s, _) = act(&s, Action::Pass);
    assert_eq!(s.excess(), 5);
}

/// Plays turns 1 to 20 without attacking, keeping the strongest cards.
fn twenty_quiet_turns(ruleset: &crate::genghis_khan::Ruleset) -> (State, Vec<Event>) {
    let mut s = setup(ruleset, &mut Script::default()).unwrap();
    for turn in 1..=19 {
        assert_eq!(s.turn(), turn);
        s = end_turn(&draw_rest(&s));
    }
    let s = draw_rest(&s);
    let (s, mut events) = act(&s, Action::Pass);
    let mut hand = s.hand().to_vec();
    hand.sort_by_key(|c| c.force());
    hand.truncate(s.excess());
    let (s, more) = act(&s, Action::Discard(hand));
    events.extend(more);
    (s, events)
}

/// §4: turn 21 draws 0 cards.
#[test]
fn gk14_no_reshuffle_turn_21_draws_nothing() {
    let (s, events) = twenty_quiet_turns(&standard());
    assert!(events.contains(&Event::TurnBegan { turn: 21, draws: 0 }));
    assert_eq!(s.turn(), 21);
    assert!(s.khan_deck().is_empty());
    assert_eq!(s.phase(), Phase::Conquest { target: None });
    assert_eq!(s.hand().len(), 6);
    assert_eq!(refused(&s, Action::Draw), Illegal::NoDrawDue);
}

#[test]
fn gk14_with_the_reshuffle_flag_the_discard_becomes_the_deck() {
    let (s, events) = twenty_quiet_turns(&with(|o| o.reshuffle = true));
    assert!(events.contains(&Event::TurnBegan { turn: 21, draws: 5 }));
    assert_eq!(s.discard().len(), 94);
    let mut script = Script::default();
    let (s, events) = apply(&s, &Action::Draw, &mut script).unwrap();
    assert_eq!(events[0], Event::Reshuffled { cards: 94 });
    assert_eq!(script.asked, [("turn 21 Horde: card 1".to_owned(), 94)]);
    // In canonical order again, whatever the order of discarding.
    assert_eq!(s.khan_deck().len(), 93);
    assert!(s.khan_deck().windows(2).all(|w| w[0] < w[1]));
    assert!(s.discard().is_empty());
    let s = draw_rest(&s);
    assert_eq!(s.hand().len(), 11);
}

#[test]
fn gk15_a_short_deck_draws_what_remains() {
    let mut s = setup(&standard(), &mut Script::default()).unwrap();
    s.deck.truncate(3);
    assert_eq!(draws_due(&s), 3);
    let s = draw_rest(&s);
    assert_eq!(s.hand().len(), 3);
    assert_eq!(s.phase(), Phase::Conquest { target: None });
    assert_eq!(refused(&s, Action::Draw), Illegal::NoDrawDue);
}

#[test]
fn gk16_the_game_ends_after_turn_21() {
    let (s, _) = twenty_quiet_turns(&standard());
    let (s, events) = act(&s, Action::Pass);
    assert_eq!(s.phase(), Phase::Over(EndReason::TurnLimit));
    assert_eq!(
        events.last(),
        Some(&Event::GameOver {
            reason: EndReason::TurnLimit,
            score: Score::default()
        })
    );
    let e = refused(&s, Action::Pass);
    assert_eq!(e, Illegal::GameOver(EndReason::TurnLimit));
    assert!(e.to_string().contains("GK-16"));
    assert_eq!(
        refused(&s, Action::Draw),
        Illegal::GameOver(EndReason::TurnLimit)
    );
}

#[test]
fn gk16_the_turn_count_is_a_ruleset_option() {
    let short = with(|o| o.turns = 2);
    let s = setup(&short, &mut Script::default()).unwrap();
    let s = end_turn(&draw_rest(&s));
    assert_eq!(s.turn(), 2);
    let s = end_turn(&draw_rest(&s));
    assert_eq!(s.phase(), Phase::Over(EndReason::TurnLimit));
    assert_eq!(s.khan_deck().len(), 90);
}

#[test]
fn gk16_the_game_ends_early_when_all_is_captured_or_nothing_is_left() {
    // Every Foe card but the last captured: its capture ends the game at once.
    let s = last_unification_card(&standard());
    let mut s = s;
    for deck in [R, K, FoeDeck::XiXia, FoeDeck::JinEmpire] {
        s = with_captured(&s, deck, 20);
    }
    let (s, events) = act(&s, capture(&["Master of the World"]));
    assert_eq!(s.phase(), Phase::Over(EndReason::AllCaptured));
    assert_eq!(s.turn(), 1);
    assert_eq!(s.score().points(), 150);
    assert_eq!(
        events.last(),
        Some(&Event::GameOver {
            reason: EndReason::AllCaptured,
            score: Score {
                cards: 100,
                complete_decks: 5
            }
        })
    );
    assert_eq!(
        refused(&s, Action::Pass),
        Illegal::GameOver(EndReason::AllCaptured)
    );

    // No deck and no hand: the game ends with that turn.
    let mut s = draw_rest(&setup(&standard(), &mut Script::default()).unwrap());
    s.deck.clear();
    s.hand.clear();
    let (s, _) = act(&s, Action::Pass);
    assert_eq!(s.phase(), Phase::Over(EndReason::NoCards));
    // A hand still holding cards plays on.
    let mut s = draw_rest(&setup(&standard(), &mut Script::default()).unwrap());
    s.deck.clear();
    let (s, _) = act(&s, Action::Pass);
    assert_eq!(s.turn(), 2);
    assert_eq!(s.phase(), Phase::Conquest { target: None });
}

/// §4: two complete decks plus 17 other cards = 40 + 20 + 17 = 77.
#[test]
fn gk17_score_is_cards_plus_ten_per_complete_deck() {
    assert_eq!(Score::of([20, 20, 17, 0, 0]).points(), 77);
    assert_eq!(Score::of([20, 0, 0, 0, 0]).points(), 30);
    assert_eq!(Score::of([19, 19, 19, 19, 19]).points(), 95);
    assert_eq!(Score::of([20; 5]).points(), Score::MAX_POINTS);
    let s = setup(&standard(), &mut Script::default()).unwrap();
    let s = with_captured(&with_captured(&with_captured(&s, M, 20), R, 20), K, 17);
    assert_eq!(
        s.score(),
        Score {
            cards: 57,
            complete_decks: 2
        }
    );
    assert_eq!(s.score().points(), 77);
}

#[test]
fn gk18_both_figures_are_shown() {
    let s = setup(&standard(), &mut Script::default()).unwrap();
    let s = with_captured(&with_captured(&with_captured(&s, M, 20), R, 20), K, 17);
    assert_eq!(s.score().to_string(), "cards 57/100, score 77/150");
    assert!(tableau(&s).contains("cards 57/100, score 77/150"));
}

#[test]
fn gk19_the_result_is_a_score_not_a_win() {
    let s = setup(&with(|o| o.turns = 1), &mut Script::default()).unwrap();
    assert_eq!(s.result().to_string(), "*");
    let s = end_turn(&draw_rest(&s));
    assert!(s.is_over());
    assert_eq!(s.result().to_string(), "0/150");
}

#[test]
fn gk20_the_best_score_still_possible_falls_with_waste() {
    let s = setup(&standard(), &mut Script::default()).unwrap();
    // The force budget is exactly balanced at the start.
    assert_eq!(best_possible(&s), 150);
    let s = attacking(
        &["Great Assembly"],
        &[
            "Master of the World",
            "Son Tolui",
            "Temujin",
            "Cavalry",
            "Tricks",
        ],
    );
    assert_eq!(best_possible(&s), 150);
    let (wasteful, _) = act(&s, capture(&["Master of the World"]));
    let (exact, _) = act(&s, capture(&["Son Tolui"]));
    assert_eq!(best_possible(&exact), 150);
    // 9 force wasted: the rows can no longer all be paid for.
    assert!(best_possible(&wasteful) < 150);
    assert!(best_possible(&wasteful) >= wasteful.score().points());
}

#[test]
fn gk21_passing_is_allowed_after_the_horde() {
    let s = setup(&standard(), &mut Script::default()).unwrap();
    assert_eq!(
        refused(&s, Action::Pass),
        Illegal::MustDraw { remaining: 5 }
    );
    let s = draw_rest(&s);
    let (s, events) = act(&s, Action::Pass);
    assert_eq!(events[0], Event::ConquestEnded);
    assert_eq!(s.turn(), 2);
    assert_eq!(s.hand().len(), 5);
}

#[test]
fn gk22_a_payment_is_a_set() {
    let s = attacking(
        &["Naimans"],
        &[
            "United Mongols",
            "Overrun Sedentary Societies",
            "Ravage Cities",
            "Temujin",
            "Son Tolui",
        ],
    );
    let a = act(
        &s,
        capture(&["United Mongols", "Overrun Sedentary Societies"]),
    );
    let b = act(
        &s,
        capture(&["Overrun Sedentary Societies", "United Mongols"]),
    );
    assert_eq!(a, b);
    let e = refused(&s, capture(&["United Mongols", "United Mongols"]));
    assert_eq!(e, Illegal::NamedTwice(khan("United Mongols")));
    assert!(e.to_string().contains("GK-22"));
}

#[test]
fn gk23_played_cards_are_discarded_and_captures_kept_by_deck() {
    let s = attacking(
        &["Great Assembly", "Gobi Desert"],
        &["Son Tolui", "Temujin", "Cavalry", "Tricks", "Hostages"],
    );
    let (s, _) = act(&s, capture(&["Son Tolui"]));
    assert_eq!(s.discard(), khans(&["Son Tolui"]).as_slice());
    assert_eq!(s.pile(M), [foe(M, "Great Assembly")]);
    assert!(s.pile(R).is_empty());
    let e = refused(&s, capture(&["Son Tolui"]));
    assert_eq!(e, Illegal::NotInHand(khan("Son Tolui")));
    assert!(e.to_string().contains("Son Tolui (1j) is not in the hand"));
}
