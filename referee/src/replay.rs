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
//! Games with dice, cards and secret setups say a little more, each through
//! a method with a default that suits a game without them (Khan):
//!
//! - [`GameReplay::canonical_order`] and [`GameReplay::resolve`]: what a
//!   player declares in a roll request, and the tokens the roll's values
//!   make of it (Castle Siege: `Ab5xKc5` declared, `Ab5xKc5@6` played;
//!   Genghis Khan: `draw` declared, `draw:9a/"Great Destiny"` played);
//! - [`GameReplay::declared_order`]: the way back, so that the signed
//!   replay holds each turn to its roll's declaration;
//! - [`GameReplay::secret_setup`]: which moves seal or reveal a secret
//!   setup, so that the signed replay holds them to their commitment
//!   evidence (`docs/fair-play.md`, 3.7);
//! - [`GameReplay::may_play`] and [`GameReplay::play_as`]: moves made at the
//!   same time by either player (Castle Siege's setups, CS-07);
//! - [`GameReplay::setup_by_chance`]: the rules' own draw before any move
//!   (Genghis Khan's Foe layout, GK-02);
//! - [`GameReplay::builtin`]: the game's own replay, as a
//!   [`BuiltinReplay`], for clients that know the built-in games.
//!
//! Adding a game is one implementation plus one arm in [`load_ruleset`] and
//! [`start`] (or a [`RulesCatalog`] of one's own, as the tests do).

use std::fmt;

use yam_notation::{GameKind, GameResult};

use crate::fair_play::chance::Chance;
use crate::fair_play::hash::Hash32;
use crate::fair_play::turn::MoveToken;
use crate::ruleset_error::RulesetError;
use crate::{castle_siege, genghis_khan, khan, ruleset_name};

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

/// Why a written token or order is not one the game's grammar reads: what
/// the grammar expected instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}")]
pub struct SpellingError {
    /// What was expected, in words (`a Khan move token: expected a square
    /// such as e4`).
    pub expected: String,
}

/// A turn as chance resolved it: the tokens to sign, and which declared
/// orders were skipped (they drew nothing; `docs/fair-play.md`, 3.3).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Resolved {
    /// The turn's moves, in canonical spelling.
    pub moves: Vec<String>,
    /// The positions, from 0, of the declared orders that were skipped.
    pub skipped: Vec<usize>,
}

/// What a turn's moves do with a secret setup (`docs/fair-play.md`, 3.7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretSetup {
    /// Nothing: the turn may carry no setup commitment and no reveal.
    None,
    /// The moves seal the author's setup (Castle Siege `Defender:sealed`):
    /// the turn must carry the author's setup commitment.
    Seal,
    /// The moves reveal a setup: the turn must carry the opening of the
    /// author's commitment, and it must open to exactly these bytes.
    Reveal(Vec<u8>),
}

/// A replay's position as data, for drawing it.
#[derive(Debug, Clone, Copy)]
pub enum Snapshot<'a> {
    /// A Khan position, and the squares of the last move (from, to).
    Khan(&'a khan::Position, Option<(khan::Square, khan::Square)>),
    /// A Castle Siege game still in its setups (CS-07 to CS-10).
    SiegeSetup {
        /// Setups sealed.
        sealed: usize,
        /// Setups revealed.
        revealed: usize,
    },
    /// A Castle Siege game in play.
    Siege(&'a castle_siege::State),
    /// A Genghis Khan tableau.
    Cards(&'a genghis_khan::State),
    /// Nothing to draw (the Foe rows not laid out yet, or a game without
    /// pictures).
    None,
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
    fn canonical_token(&self, written: &str) -> Result<String, SpellingError>;

    /// Plays one turn: `moves` in canonical spelling, chance through
    /// `chance`. On error nothing changes.
    fn play(&mut self, moves: &[MoveToken], chance: &mut dyn Chance) -> Result<(), RulesError>;

    /// How the rules ended the game, if they did.
    fn outcome(&self) -> Option<GameEnd>;

    /// The current position in the game's own notation, for diagnostics.
    fn position(&self) -> String;

    /// The position drawn for a person (a board diagram or a tableau), for
    /// mail bodies and terminals; by default the position text.
    fn diagram(&self) -> String {
        self.position()
    }

    /// The position as data, for pictures (a turn mail's board): which
    /// game's state it is; by default none (a game without pictures).
    fn snapshot(&self) -> Snapshot<'_> {
        Snapshot::None
    }

    /// The canonical tokens of every legal single move now, for harnesses
    /// (a game whose turns hold several moves lists the first ones).
    fn legal_moves(&self) -> Vec<String>;

    /// A copy, for trying a turn without committing to it.
    fn boxed_clone(&self) -> Box<dyn GameReplay>;

    /// The state as a stored game's tip keeps it ([`crate::signed::Tip`]);
    /// `None` for a game that keeps none (the replay is then made whole).
    fn saved(&self) -> Option<crate::signed::tip::SavedGame<'_>> {
        None
    }

    /// Whether the player in `seat` may play a turn now: the player to
    /// move, or, while the rules let both act at once (Castle Siege's
    /// secret setups, CS-07), either.
    fn may_play(&self, seat: usize) -> bool {
        self.to_move() == Some(seat)
    }

    /// Plays one turn by the player in `seat` (which [`GameReplay::may_play`]
    /// allowed). Games where only the player to move acts need not tell
    /// seats apart.
    fn play_as(
        &mut self,
        seat: usize,
        moves: &[MoveToken],
        chance: &mut dyn Chance,
    ) -> Result<(), RulesError> {
        let _ = seat;
        self.play(moves, chance)
    }

    /// The canonical spelling of an order as a player declares it in a roll
    /// request, before chance resolves it. By default a move token.
    fn canonical_order(&self, written: &str) -> Result<String, SpellingError> {
        self.canonical_token(written)
    }

    /// The turn that carries out `orders` (declared, in canonical spelling)
    /// by the player in `seat`, with the values `chance` gives: the tokens to
    /// sign and the skipped orders. By default each order is its own token
    /// and none is skipped. The replay itself does not change.
    fn resolve(
        &self,
        seat: usize,
        orders: &[String],
        chance: &mut dyn Chance,
    ) -> Result<Resolved, RulesError> {
        let mut tokens = Vec::with_capacity(orders.len());
        for (index, order) in orders.iter().enumerate() {
            tokens.push(MoveToken::new(order.as_str()).map_err(|e| RulesError {
                index,
                reason: format!("{order:?} is not a move token: {e}"),
                position: self.position(),
            })?);
        }
        let mut game = self.boxed_clone();
        game.play_as(seat, &tokens, chance)?;
        Ok(Resolved {
            moves: orders.to_vec(),
            skipped: Vec::new(),
        })
    }

    /// The order a played token carries out, as its roll request declared
    /// it, and whether the token records that the order was skipped. `None`
    /// (the default): the token is the order itself, and skipped orders are
    /// left out of the turn. Games whose tokens show what chance did
    /// (Castle Siege `Ab5xKc5@6`, `Kc4xAc4/skip`) strip it here.
    fn declared_order(&self, played: &str) -> Option<(String, bool)> {
        let _ = played;
        None
    }

    /// What `moves` do with a secret setup; by default nothing.
    fn secret_setup(&self, moves: &[MoveToken]) -> SecretSetup {
        let _ = moves;
        SecretSetup::None
    }

    /// Why the rules allow no draw by agreement, with the ruling that says
    /// so; `None` (the default) when two players may agree a draw.
    fn no_draw_by_agreement(&self) -> Option<&'static str> {
        None
    }

    /// Whether the rules draw chance before any move (Genghis Khan's Foe
    /// layout, GK-02): the next turn then has no moves, and carries the
    /// values of a roll that declares no orders.
    fn setup_by_chance(&self) -> bool {
        false
    }

    /// The game's own replay when it is one of the games built into Yam,
    /// for harnesses and viewers that know the game (a diagram, an
    /// engine's choice); `None` (the default) for any other game, such as
    /// the tests' own.
    fn builtin(&self) -> Option<BuiltinReplay<'_>> {
        None
    }
}

/// A built-in game's own replay, behind the generic door: what a client
/// that knows the game matches on, instead of downcasting.
#[derive(Debug, Clone, Copy)]
pub enum BuiltinReplay<'a> {
    /// A Khan game.
    Khan(&'a khan::replay::KhanReplay),
    /// A Castle Siege game.
    CastleSiege(&'a castle_siege::game_replay::CastleSiegeReplay),
    /// A Genghis Khan game.
    GenghisKhan(&'a genghis_khan::game_replay::GenghisKhanReplay),
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
    fn load_ruleset(&self, game: GameKind, name: &str) -> Result<LoadedRuleset, RulesetError>;

    /// A replay at the ruleset's start position, or why its text is not a
    /// ruleset of its game.
    fn start(&self, ruleset: &LoadedRuleset) -> Result<Box<dyn GameReplay>, RulesetError>;
}

/// The rulesets and games built into this version of Yam.
#[derive(Debug, Clone, Copy, Default)]
pub struct Builtin;

impl RulesCatalog for Builtin {
    fn load_ruleset(&self, game: GameKind, name: &str) -> Result<LoadedRuleset, RulesetError> {
        load_ruleset(game, name)
    }
    fn start(&self, ruleset: &LoadedRuleset) -> Result<Box<dyn GameReplay>, RulesetError> {
        start(ruleset)
    }
}

/// A built-in ruleset by name (`magician`, `rescue-khan`; case, `-` and
/// `_` are not significant: [`crate::ruleset_name::same_name`]).
pub fn load_ruleset(game: GameKind, name: &str) -> Result<LoadedRuleset, RulesetError> {
    let (found, text) = ruleset_name::builtin(game, name)?;
    Ok(LoadedRuleset {
        game,
        name: found.to_owned(),
        text: text.to_owned(),
    })
}

/// A replay at the start of `ruleset`.
///
/// Reading a ruleset's YAML costs as much as checking a few signatures,
/// and the games of an archive share one ruleset or two: the start this
/// thread made last is kept with the game and the exact text it was made
/// from, and copied when they are asked for again (a ruleset refused is
/// not kept, and is refused again with its reason).
pub fn start(ruleset: &LoadedRuleset) -> Result<Box<dyn GameReplay>, RulesetError> {
    type Started = (GameKind, String, Box<dyn GameReplay>);
    thread_local! {
        static LAST: std::cell::RefCell<Option<Started>> = const { std::cell::RefCell::new(None) };
    }
    let known = LAST.with_borrow(|last| match last {
        Some((game, text, replay)) if *game == ruleset.game && *text == ruleset.text => {
            Some(replay.boxed_clone())
        }
        _ => None,
    });
    if let Some(replay) = known {
        return Ok(replay);
    }
    let replay = start_from_text(ruleset)?;
    LAST.with_borrow_mut(|last| {
        *last = Some((ruleset.game, ruleset.text.clone(), replay.boxed_clone()));
    });
    Ok(replay)
}

/// [`start`], reading the ruleset's text every time.
fn start_from_text(ruleset: &LoadedRuleset) -> Result<Box<dyn GameReplay>, RulesetError> {
    let invalid = |error| RulesetError::Invalid {
        name: ruleset.name.clone(),
        error,
    };
    match ruleset.game {
        GameKind::CastleSiege => {
            let rules = castle_siege::Ruleset::from_yaml(&ruleset.text).map_err(invalid)?;
            Ok(Box::new(castle_siege::game_replay::CastleSiegeReplay::new(
                rules.rules,
            )))
        }
        GameKind::GenghisKhan => {
            let rules = genghis_khan::Ruleset::from_yaml(&ruleset.text).map_err(invalid)?;
            Ok(Box::new(genghis_khan::game_replay::GenghisKhanReplay::new(
                rules,
            )))
        }
        GameKind::Khan => {
            let rules = khan::Ruleset::from_yaml(&ruleset.text).map_err(invalid)?;
            Ok(Box::new(khan::replay::KhanReplay::new(
                rules.start_position(),
            )))
        }
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
                .to_string()
                .contains("rescue-khan")
        );
        let siege = load_ruleset(GameKind::CastleSiege, "Castle_Wide-Rocks").unwrap();
        assert_eq!(siege.name, "castle-wide-rocks");
        assert_eq!(start(&siege).unwrap().seats(), &["defender", "attacker"]);
        let cards = load_ruleset(GameKind::GenghisKhan, "standard").unwrap();
        assert_eq!(start(&cards).unwrap().seats(), &["player"]);
        assert!(
            load_ruleset(GameKind::GenghisKhan, "chess")
                .unwrap_err()
                .to_string()
                .contains("no standard Genghis Khan ruleset")
        );
        let game = start(&magician).unwrap();
        assert_eq!(game.to_move(), Some(0));
        assert_eq!(game.seats(), &["white", "black"]);
    }

    #[test]
    fn a_start_is_kept_by_its_game_and_exact_text() {
        let magician = load_ruleset(GameKind::Khan, "magician").unwrap();
        let rescue = load_ruleset(GameKind::Khan, "rescue-khan").unwrap();
        for ruleset in [&magician, &magician, &rescue, &magician] {
            let fresh = start_from_text(ruleset).unwrap();
            let game = start(ruleset).unwrap();
            assert_eq!(game.position(), fresh.position());
            assert_eq!(game.seats(), fresh.seats());
        }
        let mut broken = magician.clone();
        broken.text.push_str("\n: [");
        let refused = start_from_text(&broken).unwrap_err().to_string();
        assert_eq!(start(&broken).unwrap_err().to_string(), refused);
        assert_eq!(start(&broken).unwrap_err().to_string(), refused);
        assert!(start(&magician).is_ok());
    }
}
