//! Self-play: complete games of random legal orders with no referee error
//! and no panic, under every standard ruleset; each movetext replays.

use crate::castle_siege::ruleset::BUILTIN;
use crate::castle_siege::{Policy, Ruleset, Stats, play_game, play_game_with, replay_record};

#[test]
fn a_few_dozen_games_end_without_a_referee_error() {
    let mut stats = Stats::default();
    for (name, _) in BUILTIN {
        let ruleset = Ruleset::builtin(name).expect("ruleset");
        for seed in 0..8 {
            let g = play_game(seed, &ruleset).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(g.rounds >= 1 && g.rounds <= ruleset.rules.round_cap);
            // The movetext replays to the same end from its faces alone.
            let replayed = replay_record(ruleset.rules, &g.movetext)
                .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            assert_eq!(replayed.state.outcome(), Some(g.outcome));
            assert_eq!(replayed.dice, g.dice);
            stats.add(&g);
        }
    }
    assert_eq!(stats.games, 8 * BUILTIN.len() as u64);
    assert!(
        stats.skipped > 0,
        "whole-turn declarations skip some orders"
    );
}

#[test]
fn self_play_is_deterministic() {
    let ruleset = Ruleset::standard();
    let a = play_game(42, &ruleset).expect("game");
    let b = play_game(42, &ruleset).expect("game");
    assert_eq!(a, b);
    let c = play_game(43, &ruleset).expect("game");
    assert_ne!(a.movetext, c.movetext);
}

/// The balance figure: `cargo test --release -p yam-referee -- --ignored
/// thousand_games --nocapture`.
#[test]
#[ignore]
fn thousand_games() {
    for policy in [Policy::Random, Policy::Eager] {
        for (name, _) in BUILTIN {
            let ruleset = Ruleset::builtin(name).expect("ruleset");
            let mut stats = Stats::default();
            for seed in 0..1000 {
                let g = play_game_with(seed, &ruleset, policy)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                stats.add(&g);
            }
            println!(
                "{policy:?} {name}: {} games, Attacker wins {:.1}%, mean {:.2} rounds; \
             victory square {}, defenders eliminated {}, attrition {}, no infantry {}, round cap {}; \
             {} dice, {} skipped orders",
                stats.games,
                100.0 * stats.attacker_rate(),
                stats.mean_rounds(),
                stats.victory_square,
                stats.defenders_eliminated,
                stats.attackers_reduced,
                stats.no_infantry,
                stats.round_cap,
                stats.dice,
                stats.skipped,
            );
        }
    }
}

#[test]
fn eager_games_end_without_a_referee_error() {
    let mut stats = Stats::default();
    for (name, _) in BUILTIN {
        let ruleset = Ruleset::builtin(name).expect("ruleset");
        for seed in 100..104 {
            let g = play_game_with(seed, &ruleset, Policy::Eager)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let replayed = replay_record(ruleset.rules, &g.movetext)
                .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            assert_eq!(replayed.state.outcome(), Some(g.outcome));
            stats.add(&g);
        }
    }
    assert_eq!(stats.games, 4 * BUILTIN.len() as u64);
    assert!(stats.attacker_wins > 0, "an eager Attacker wins some games");
}
