//! Khan positions and engine strings: a record's position tags (`[Position
//! "..."]`), which come from anyone, and what an engine process answers.
//!
//! - Any text: `YamPosition`, `EngineFen`, `EnginePosition` and
//!   `EngineMove` never panic; what they read prints and reads back the
//!   same;
//! - the engine's `ucinewgame ... board X` line (`NewGame`) never panics,
//!   and one that reads prints and reads back the same;
//! - a position text that reads is set up under the rules of each built-in
//!   ruleset without panic, and a position that sets up has legal moves
//!   that play, and engine moves that import (`from_engine`) only as legal
//!   moves.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use yam_notation::khan::{EngineFen, EngineMove, EnginePosition, YamPosition};
use yam_referee::khan::ruleset::BUILTIN;
use yam_referee::khan::{NewGame, Position, Rules, Ruleset, apply, from_engine, legal_moves};

fn rules() -> &'static [Rules] {
    static RULES: OnceLock<Vec<Rules>> = OnceLock::new();
    RULES.get_or_init(|| {
        BUILTIN
            .iter()
            .map(|(name, _)| {
                Ruleset::builtin(name)
                    .unwrap_or_else(|e| panic!("built-in ruleset {name}: {e}"))
                    .rules
            })
            .collect()
    })
}

fn position(pos: &Position, text: &str) {
    let moves = legal_moves(pos);
    for mv in moves.iter().take(8) {
        apply(pos, mv).unwrap_or_else(|e| panic!("legal {mv:?} refused in {text:?}: {e}"));
    }
    for word in text.split_whitespace().take(8) {
        if let Ok(em) = word.parse::<EngineMove>()
            && let Ok(mv) = from_engine(pos, &em)
        {
            assert!(moves.contains(&mv), "{word} imported as an illegal move");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(yam) = YamPosition::parse(text) {
        let printed = yam.to_string();
        assert_eq!(YamPosition::parse(&printed).as_ref(), Ok(&yam), "{printed}");
        for rules in rules() {
            if let Ok(pos) = Position::from_yam_text(&yam, *rules) {
                position(&pos, text);
            }
        }
    }
    if let Ok(fen) = EngineFen::parse(text) {
        let printed = fen.to_string();
        assert_eq!(EngineFen::parse(&printed).as_ref(), Ok(&fen), "{printed}");
    }
    if let Ok(p) = EnginePosition::parse(text) {
        let printed = p.to_string();
        assert_eq!(
            EnginePosition::parse(&printed).as_ref(),
            Ok(&p),
            "{printed}"
        );
    }
    for line in text.lines().take(4) {
        if let Ok(new_game) = NewGame::parse(line) {
            let printed = new_game.to_string();
            assert_eq!(
                NewGame::parse(&printed).as_ref(),
                Ok(&new_game),
                "{line:?} printed {printed:?}"
            );
        }
    }
    for word in text.split_whitespace().take(8) {
        if let Ok(em) = word.parse::<EngineMove>() {
            let printed = em.to_string();
            assert_eq!(
                printed.parse::<EngineMove>(),
                Ok(em),
                "{word} printed {printed}"
            );
        }
    }
});
