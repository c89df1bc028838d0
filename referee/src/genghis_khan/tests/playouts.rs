//! Random legal play: every listed action is legal and applies, the cards are
//! all accounted for, the best score still possible never rises, and the
//! game ends with it equal to the score.

use proptest::prelude::*;

use crate::fair_play::chance::PracticeChance;
use crate::fair_play::{encoding::Blob, game_id::GameId};
use crate::genghis_khan::{
    FoeDeck, Options, Ruleset, State, apply, best_possible, legal_actions, setup, tableau,
};

fn invariants(s: &State) {
    assert_eq!(
        s.khan_deck().len() + s.hand().len() + s.discard().len(),
        100
    );
    for deck in FoeDeck::ALL {
        assert_eq!(s.row(deck).len() + s.pile(deck).len(), 20);
    }
    assert!(s.hand().len() <= 5 + s.options().hand_limit as usize);
    assert!(best_possible(s) >= s.score().points());
    assert!(best_possible(s) <= 150);
}

fn playout(options: Options, seed: u64) {
    let ruleset = Ruleset::standard().with_options(options);
    let game = GameId::new(format!("playout-{seed}")).unwrap();
    let mut chance = PracticeChance::new(&game, &Blob::new(seed.to_be_bytes().to_vec()).unwrap());
    let mut s = setup(&ruleset, &mut chance).unwrap();
    // A small LCG picks among the legal actions, deterministically.
    let mut pick = seed | 1;
    let mut steps = 0;
    loop {
        invariants(&s);
        let legal = legal_actions(&s);
        if legal.is_empty() {
            break;
        }
        pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let index = (pick >> 33) as usize % legal.len();
        let action = &legal[index];
        let before = best_possible(&s);
        let (next, events) = apply(&s, action, &mut chance)
            .unwrap_or_else(|e| panic!("listed {action:?} refused: {e}\n{}", tableau(&s)));
        assert!(!events.is_empty());
        assert!(
            best_possible(&next) <= before,
            "{action:?} raised the bound from {before} to {}\n{}",
            best_possible(&next),
            tableau(&s)
        );
        s = next;
        steps += 1;
        assert!(steps < 10_000);
    }
    assert!(s.is_over());
    assert_eq!(best_possible(&s), s.score().points());
    let _ = tableau(&s);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn random_legal_play_keeps_the_invariants(
        seed in any::<u64>(),
        reshuffle in any::<bool>(),
        switch_after_exhaust in any::<bool>(),
        hand_limit in 0u32..9,
        turns in 1u32..26,
    ) {
        playout(Options { reshuffle, switch_after_exhaust, hand_limit, turns }, seed);
    }
}

#[test]
fn greedy_play_never_raises_the_bound() {
    use crate::genghis_khan::greedy::{greedy_action, practice_chance};
    for n in 0..3 {
        let mut chance = practice_chance(n).unwrap();
        let mut s = setup(&Ruleset::standard(), &mut chance).unwrap();
        let mut bound = best_possible(&s);
        assert_eq!(bound, 150);
        while let Some(action) = greedy_action(&s) {
            s = apply(&s, &action, &mut chance).unwrap().0;
            let now = best_possible(&s);
            assert!(now <= bound);
            bound = now;
        }
        assert_eq!(bound, s.score().points());
    }
}

fn arb_action() -> impl Strategy<Value = crate::genghis_khan::Action> {
    use crate::genghis_khan::{Action, KhanCard};
    let card =
        (0usize..100).prop_map(|i| KhanCard::from_index(i).unwrap_or_else(|| unreachable!()));
    let cards = proptest::collection::vec(card, 0..8);
    prop_oneof![
        Just(Action::Draw),
        (0usize..5).prop_map(|i| Action::Attack(FoeDeck::ALL[i])),
        cards.clone().prop_map(Action::Capture),
        Just(Action::Pass),
        cards.prop_map(Action::Discard),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Any action at all, legal or not, is either applied or refused with a
    /// reason; nothing panics and a refusal changes nothing.
    #[test]
    fn arbitrary_actions_never_panic(
        seed in any::<u64>(),
        actions in proptest::collection::vec(arb_action(), 0..120),
    ) {
        let game = GameId::new(format!("chaos-{seed}")).unwrap();
        let mut chance =
            PracticeChance::new(&game, &Blob::new(seed.to_be_bytes().to_vec()).unwrap());
        let mut s = setup(&Ruleset::standard(), &mut chance).unwrap();
        for action in &actions {
            match apply(&s, action, &mut chance) {
                Ok((next, _)) => s = next,
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
            invariants(&s);
        }
    }
}
