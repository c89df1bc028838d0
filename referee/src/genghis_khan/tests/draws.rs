//! How the game uses the door for chance: what it asks, in what order, from
//! how many cards, and that it asks nothing else.

use super::support::{Script, act, draw_rest, end_turn, standard};
use crate::genghis_khan::{Action, FoeDeck, Illegal, apply, foe_deck, khan_deck, setup};

#[test]
fn setup_lays_the_rows_one_card_at_a_time_in_deck_order() {
    let mut script = Script::default();
    let s = setup(&standard(), &mut script).unwrap();
    assert_eq!(script.asked.len(), 100);
    for (d, deck) in FoeDeck::ALL.into_iter().enumerate() {
        for k in 1..=20 {
            let (purpose, remaining) = &script.asked[d * 20 + k - 1];
            assert_eq!(purpose, &format!("lay out {deck}: card {k} of 20"));
            assert_eq!(*remaining, 21 - k);
        }
    }
    assert_eq!(
        script.asked[0],
        ("lay out Mongolian Unification: card 1 of 20".to_owned(), 20)
    );
    // Index 0 each time keeps the canonical order: copies side by side.
    assert_eq!(s.row(FoeDeck::Russia), foe_deck(FoeDeck::Russia).as_slice());
    assert_eq!(s.khan_deck(), khan_deck().as_slice());
}

#[test]
fn an_index_picks_from_the_cards_not_yet_laid_in_canonical_order() {
    // The last index of each draw: the row is laid in reverse canonical
    // order, so the first Tartars ends on top.
    let picks: Vec<usize> = (0..5).flat_map(|_| (1..=20).rev().map(|n| n - 1)).collect();
    let s = setup(&standard(), &mut Script::new(picks)).unwrap();
    let mut reversed = foe_deck(FoeDeck::XiXia);
    reversed.reverse();
    assert_eq!(s.row(FoeDeck::XiXia), reversed.as_slice());
    // The second of the two Merkits (index 3 of 20), then the first (index
    // 2 of the 19 left) - duplicates are separate entries.
    let mut picks = vec![3, 2];
    picks.extend(std::iter::repeat_n(0, 98));
    let s = setup(&standard(), &mut Script::new(picks)).unwrap();
    let row = s.row(FoeDeck::MongolianUnification);
    assert_eq!(row[0].name(), "Merkits");
    assert_eq!(row[1].name(), "Merkits");
    assert_eq!(row[2].name(), "Tartars");
}

#[test]
fn each_horde_card_is_one_draw_from_the_cards_left() {
    let s = setup(&standard(), &mut Script::default()).unwrap();
    let mut script = Script::new([99, 0, 50, 96, 0]);
    let mut state = s;
    let mut drawn = Vec::new();
    for _ in 0..5 {
        let (next, _) = apply(&state, &Action::Draw, &mut script).unwrap();
        drawn.push(*next.hand().last().unwrap());
        state = next;
    }
    assert_eq!(
        script.asked,
        (1..=5)
            .map(|k| (format!("turn 1 Horde: card {k}"), 101 - k))
            .collect::<Vec<_>>()
    );
    let names: Vec<&str> = drawn.iter().map(|c| c.name()).collect();
    // 99 of 100: the last card; 0: the first; 50 of 98: the 52nd listed;
    // 96 of 97: the last left.
    assert_eq!(
        names,
        [
            "Son Tolui",
            "Temujin",
            "Great Raids",
            "Son Ogodei",
            "Ordained by Tengri"
        ]
    );
    // Turn 2 asks again, from 95.
    let s = end_turn(&state);
    let mut script = Script::default();
    apply(&s, &Action::Draw, &mut script).unwrap();
    assert_eq!(script.asked, [("turn 2 Horde: card 1".to_owned(), 95)]);
}

#[test]
fn nothing_but_a_draw_asks_for_chance() {
    let s = draw_rest(&setup(&standard(), &mut Script::default()).unwrap());
    let mut script = Script::default();
    let (s, _) = apply(
        &s,
        &Action::Attack(FoeDeck::MongolianUnification),
        &mut script,
    )
    .unwrap();
    let (s, _) = apply(&s, &Action::Pass, &mut script).unwrap();
    assert!(script.asked.is_empty());
    assert_eq!(s.turn(), 2);
    // A refused action asks nothing either.
    let e = apply(&s, &Action::Pass, &mut script).unwrap_err();
    assert_eq!(e, Illegal::MustDraw { remaining: 5 });
    assert!(script.asked.is_empty());
}

#[test]
fn a_bad_index_from_the_door_is_refused_not_trusted() {
    let e = setup(&standard(), &mut Script::new([20])).unwrap_err();
    assert_eq!(
        e,
        Illegal::BadIndex {
            index: 20,
            remaining: 20
        }
    );
    let s = setup(&standard(), &mut Script::default()).unwrap();
    let e = apply(&s, &Action::Draw, &mut Script::new([100])).unwrap_err();
    assert_eq!(
        e,
        Illegal::BadIndex {
            index: 100,
            remaining: 100
        }
    );
    let _ = act(&s, Action::Draw);
}
