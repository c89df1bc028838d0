//! A game-generic replay: what the fair-play layer needs from a game's rules.
//!
//! A signed record is checked by two judges at once: the fair-play verifier
//! (signatures, hash links, rolls, commitments) and the game's rules (is each
//! move legal, whose turn is it, is the game over). [`GameReplay`] is the
//! small door through which the signed-record verifier (`crate::signed`)
//! and the hot-seat harness drive any game's rules without knowing the game.
//!
//! A game implements it in five steps:
//!
//! 1. a ruleset, loaded by name; its text is what the signed opening pins
//!    (SHA-256 of the text as loaded, [`LoadedRuleset::hash`]);
//! 2. [`GameReplay::seats`]: the role word of each seat, first side first
//!    (Khan: `white`, `black`), which the signed opening assigns to keys;
//! 3. [`GameReplay::to_move`]: whose turn it is, as a seat;
//! 4. [`GameReplay::play`]: one turn's moves, in canonical spelling, with a
//!    `&mut dyn Chance` through which the rules ask for dice and cards
//!    (a game without chance never calls it);
//! 5. [`GameReplay::outcome`]: whether the rules have ended the game.
//!
//! Adding a game is one implementation plus one arm in [`load_ruleset`] and
//! [`start`] (or a [`RulesCatalog`] of one's own, as the tests do).

use std::fmt;

use yam_notation::{GameKind, GameResult};

use crate::fair_play::chance::Chance;
use crate::fair_play::hash::Hash32;
use crate::fair_play::turn::MoveToken;
use crate::khan;

/// How the rules ended a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameEnd {
    /// The result token the record must carry.
    pub result: GameResult,
    /// Why, in words ("White wins: Black's royal leader is checkmated").
    pub reason: String,
}

/// Why the rules refused a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesError {
    /// Which move of the turn was refused, from 0 (the turn as a whole when
    /// it is the number of moves that is wrong: then 0).
    pub index: usize,
    /// Why, in words.
    pub reason: String,
    /// The position before the refused move, in the game's own notation.
    pub position: String,
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// One game's rules, replaying a game turn by turn.
///
/// Implementations must never panic, whatever the tokens; a refused turn
/// leaves the replay unchanged.
pub trait GameReplay: fmt::Debug {
    /// Which game this is.
    fn game(&self) -> GameKind;

    /// The role word of each seat, first side first, in lower case: Khan
    /// `["white", "black"]`. The signed opening gives each to one key.
    fn seats(&self) -> &'static [&'static str];

    /// The seat whose turn it is, or `None` once the rules ended the game.
    fn to_move(&self) -> Option<usize>;

    /// The move number and dots the next move is printed with (`12.` or
    /// `12...`), for writing records.
    fn move_number(&self) -> (u32, yam_notation::Dots);

    /// The canonical spelling of a token as written in a record, or what the
    /// game's grammar expected.
    fn canonical_token(&self, written: &str) -> Result<String, String>;

    /// Plays one turn: `moves` in canonical spelling, chance through
    /// `chance`. On error nothing changes.
    fn play(&mut self, moves: &[MoveToken], chance: &mut dyn Chance) -> Result<(), RulesError>;

    /// How the rules ended the game, if they did.
    fn outcome(&self) -> Option<GameEnd>;

    /// The current position in the game's own notation, for diagnostics.
    fn position(&self) -> String;

    /// The canonical tokens of every legal single move now, for harnesses
    /// (a game whose turns hold several moves lists the first ones).
    fn legal_moves(&self) -> Vec<String>;

    /// A copy, for trying a turn without committing to it.
    fn boxed_clone(&self) -> Box<dyn GameReplay>;
}

impl Clone for Box<dyn GameReplay> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// A ruleset as loaded: its name, its exact text, and so its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedRuleset {
    /// The game it is for.
    pub game: GameKind,
    /// Its name, as the `Ruleset` tag gives it.
    pub name: String,
    /// Its text, byte for byte as loaded.
    pub text: String,
}

impl LoadedRuleset {
    /// SHA-256 of the text as loaded: what the signed opening pins.
    pub fn hash(&self) -> Hash32 {
        Hash32::of(self.text.as_bytes())
    }
}

/// Where rulesets come from and how games start: the built-in catalogue for
/// the command line, another for tests.
pub trait RulesCatalog {
    /// The ruleset `name` of `game`, or why there is none.
    fn load_ruleset(&self, game: GameKind, name: &str) -> Result<LoadedRuleset, String>;

    /// A replay at the ruleset's start position.
    fn start(&self, ruleset: &LoadedRuleset) -> Result<Box<dyn GameReplay>, String>;
}

/// The rulesets and games built into this version of Yam.
#[derive(Debug, Clone, Copy, Default)]
pub struct Builtin;

impl RulesCatalog for Builtin {
    fn load_ruleset(&self, game: GameKind, name: &str) -> Result<LoadedRuleset, String> {
        load_ruleset(game, name)
    }
    fn start(&self, ruleset: &LoadedRuleset) -> Result<Box<dyn GameReplay>, String> {
        start(ruleset)
    }
}

/// A built-in ruleset by name (`magician`, `rescue-khan`).
pub fn load_ruleset(game: GameKind, name: &str) -> Result<LoadedRuleset, String> {
    match game {
        GameKind::Khan => {
            let wanted = name.replace(['-', '_'], "").to_ascii_lowercase();
            khan::ruleset::BUILTIN
                .iter()
                .find(|(n, _)| n.replace('-', "") == wanted)
                .map(|(n, text)| LoadedRuleset {
                    game,
                    name: (*n).to_owned(),
                    text: (*text).to_owned(),
                })
                .ok_or_else(|| {
                    let known: Vec<&str> = khan::ruleset::BUILTIN.iter().map(|(n, _)| *n).collect();
                    format!(
                        "no standard Khan ruleset is called {name:?}; there are {}",
                        known.join(", ")
                    )
                })
        }
        other => Err(format!("this build cannot replay {other} games yet")),
    }
}

/// A replay at the start of `ruleset`.
pub fn start(ruleset: &LoadedRuleset) -> Result<Box<dyn GameReplay>, String> {
    match ruleset.game {
        GameKind::Khan => {
            let rules = khan::Ruleset::from_yaml(&ruleset.text)
                .map_err(|e| format!("ruleset {}: {e}", ruleset.name))?;
            Ok(Box::new(khan::replay::KhanReplay::new(
                rules.start_position(),
            )))
        }
        other => Err(format!("this build cannot replay {other} games yet")),
    }
}

/// A door for chance that has nothing behind it: a turn that carries no
/// outcomes. A game that asks through it is told the outcome is missing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoChance;

impl Chance for NoChance {
    fn die(
        &mut self,
        purpose: &str,
        _sides: u16,
    ) -> Result<u16, crate::fair_play::chance::ChanceError> {
        Err(crate::fair_play::chance::ChanceError::Missing {
            position: 0,
            purpose: purpose.to_owned(),
        })
    }
    fn draw(
        &mut self,
        purpose: &str,
        _remaining: usize,
    ) -> Result<usize, crate::fair_play::chance::ChanceError> {
        Err(crate::fair_play::chance::ChanceError::Missing {
            position: 0,
            purpose: purpose.to_owned(),
        })
    }
    fn assurance(&self) -> crate::fair_play::outcome::Assurance {
        crate::fair_play::outcome::Assurance::Verified
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rulesets_load_by_name_and_hash_their_text() {
        let magician = load_ruleset(GameKind::Khan, "magician").unwrap();
        assert_eq!(magician.name, "magician");
        assert_eq!(magician.hash(), Hash32::of(magician.text.as_bytes()));
        assert_eq!(
            load_ruleset(GameKind::Khan, "Rescue_Khan").unwrap().name,
            "rescue-khan"
        );
        assert!(
            load_ruleset(GameKind::Khan, "chess")
                .unwrap_err()
                .contains("rescue-khan")
        );
        assert!(load_ruleset(GameKind::CastleSiege, "standard").is_err());
        let game = start(&magician).unwrap();
        assert_eq!(game.to_move(), Some(0));
        assert_eq!(game.seats(), &["white", "black"]);
    }
}
