//! Ruleset files, which players write and send (`[Ruleset "file.yaml"]`)
//! and which Yam loads for every game: any text as the YAML ruleset of
//! each of the three games.
//!
//! - Loading never panics (errors carry their line and column);
//! - a ruleset that loads can be played: a short game of driver moves
//!   from its start never panics, whatever its options (an empty board, a
//!   hand limit of 0, a round cap of 0 or of four billion);
//! - a Genghis Khan ruleset writes back as YAML that loads the same.

#![no_main]

#[path = "dice.rs"]
mod dice;

use libfuzzer_sys::fuzz_target;
use yam_referee::castle_siege::selfplay::{Policy, choose_declaration, choose_setup};
use yam_referee::castle_siege::{self, Side};
use yam_referee::genghis_khan::apply::{apply, legal_actions, setup};
use yam_referee::seeded::SplitMix64;
use yam_referee::{genghis_khan, khan};

use dice::Dice;

/// The most moves (declarations in Castle Siege) each game plays.
const MAX_MOVES: usize = 60;

fn khan(text: &str) {
    let Ok(ruleset) = khan::Ruleset::from_yaml(text) else {
        return;
    };
    let mut pos = ruleset.start_position();
    let mut rng = SplitMix64::new(1);
    for _ in 0..MAX_MOVES {
        if khan::outcome(&pos).is_some() {
            break;
        }
        let moves = khan::legal_moves(&pos);
        let Some(mv) = rng.pick(&moves) else {
            break;
        };
        pos = khan::apply(&pos, mv)
            .unwrap_or_else(|e| panic!("legal {mv:?} refused: {e}"))
            .position;
    }
}

fn castle_siege(text: &str) {
    let Ok(ruleset) = castle_siege::Ruleset::from_yaml(text) else {
        return;
    };
    let (Ok(defender), Ok(attacker)) = (
        choose_setup(Side::Defender, 1),
        choose_setup(Side::Attacker, 1),
    ) else {
        return;
    };
    let Ok(mut state) = castle_siege::State::new(ruleset.rules, &defender, &attacker) else {
        return;
    };
    let mut dice = Dice::new(1);
    for i in 0..MAX_MOVES as u64 {
        if state.outcome().is_some() {
            break;
        }
        let declaration = choose_declaration(&state, Policy::Random, i);
        state = castle_siege::resolve(&state, &declaration, &mut dice)
            .unwrap_or_else(|e| panic!("the driver's {declaration:?} refused: {e}"))
            .state;
    }
}

fn genghis_khan(text: &str) {
    let Ok(ruleset) = genghis_khan::Ruleset::from_yaml(text) else {
        return;
    };
    let yaml = serde_yaml_ng::to_string(&ruleset).expect("a ruleset writes as YAML");
    assert_eq!(
        genghis_khan::Ruleset::from_yaml(&yaml).as_ref(),
        Ok(&ruleset),
        "{yaml}"
    );
    let mut dice = Dice::new(1);
    let Ok(mut state) = setup(&ruleset, &mut dice) else {
        return;
    };
    let mut rng = SplitMix64::new(1);
    for _ in 0..MAX_MOVES {
        if state.is_over() {
            break;
        }
        let actions = legal_actions(&state);
        let Some(action) = rng.pick(&actions) else {
            break;
        };
        state = apply(&state, action, &mut dice)
            .unwrap_or_else(|e| panic!("legal {action:?} refused: {e}"))
            .0;
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    khan(text);
    castle_siege(text);
    genghis_khan(text);
});
