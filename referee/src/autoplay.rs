//! The engines' choices: what a player does next when a machine plays it
//! (`yam hotseat auto`, a desk's automatic moves, the robot's tests).
//! Pure: it looks at a signed replay and returns what to play; the caller
//! signs it and writes it like any other move.
//!
//! - Castle Siege: the self-play driver's setups and declarations
//!   ([`castle_siege::selfplay`], policy `eager` or `random`), one
//!   declaration at a time, the dice coming from the real protocol.
//! - Genghis Khan: the greedy player ([`genghis_khan::greedy`]).
//! - Khan, and any other game: a pseudo-random legal move.
//!
//! The choice depends on the seed and on the number of signed events so
//! far, so the same record and seed always give the same choice.

use crate::castle_siege::game_replay::{CastleSiegeReplay, SetupStage, side_of};
use crate::castle_siege::{self, Policy};
use crate::genghis_khan::game_replay::{DRAW_ORDER, GenghisKhanReplay};
use crate::genghis_khan::{self, Action};
use crate::replay::BuiltinReplay;
use crate::seeded::SplitMix64;
use crate::signed::SignedReplay;

/// What a player does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// A turn of orders, as written.
    Orders(Vec<String>),
    /// Castle Siege: seal this setup (its text), keeping it secret.
    Seal(String),
    /// Castle Siege: reveal the kept setup; when given, it must be this one.
    Reveal(Option<String>),
}

/// Why the engine has no move to offer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AutoplayError {
    /// Castle Siege: the driver could not choose a setup.
    #[error(transparent)]
    Setup(#[from] castle_siege::SetupError),
    /// Castle Siege: the setups are revealed, yet there is no position.
    #[error("the game has no position")]
    NoPosition,
    /// Genghis Khan: the opening's roll has not laid out the Foe rows.
    #[error("the Foe rows are not laid out yet (the opening lays them out)")]
    NotLaidOut,
    /// Genghis Khan: the game is over.
    #[error("the game is over")]
    GameOver,
    /// Genghis Khan: the greedy player's action could not be written.
    #[error(transparent)]
    Notation(#[from] genghis_khan::Illegal),
    /// No legal move (a finished game).
    #[error("there is no legal move")]
    NoLegalMove,
}

/// The Castle Siege replay behind the door, if the game is Castle Siege.
pub fn siege(replay: &SignedReplay) -> Option<&CastleSiegeReplay> {
    match replay.game().builtin()? {
        BuiltinReplay::CastleSiege(siege) => Some(siege),
        BuiltinReplay::Khan(_) | BuiltinReplay::GenghisKhan(_) => None,
    }
}

/// The Genghis Khan replay behind the door, if the game is Genghis Khan.
pub fn cards(replay: &SignedReplay) -> Option<&GenghisKhanReplay> {
    match replay.game().builtin()? {
        BuiltinReplay::GenghisKhan(cards) => Some(cards),
        BuiltinReplay::Khan(_) | BuiltinReplay::CastleSiege(_) => None,
    }
}

/// The engine's next turn for the player in `seat`, or why there is none.
pub fn choose(
    replay: &SignedReplay,
    seat: usize,
    policy: Policy,
    seed: u64,
) -> Result<Intent, AutoplayError> {
    let step = SplitMix64::mix(seed ^ SplitMix64::mix(replay.events().len() as u64));
    match replay.game().builtin() {
        Some(BuiltinReplay::CastleSiege(siege)) => siege_turn(siege, seat, policy, step),
        Some(BuiltinReplay::GenghisKhan(cards)) => cards_turn(cards),
        Some(BuiltinReplay::Khan(_)) | None => {
            let moves = replay.game().legal_moves();
            if moves.is_empty() {
                return Err(AutoplayError::NoLegalMove);
            }
            let pick = usize::try_from(step % moves.len() as u64).unwrap_or(0);
            Ok(Intent::Orders(vec![moves[pick].clone()]))
        }
    }
}

/// Castle Siege: a setup to seal, the reveal, or one declaration.
fn siege_turn(
    siege: &CastleSiegeReplay,
    seat: usize,
    policy: Policy,
    step: u64,
) -> Result<Intent, AutoplayError> {
    match (siege.setup_stage(), siege.state()) {
        (Some(SetupStage::Sealing), _) => {
            let setup = castle_siege::choose_setup(side_of(seat), step)?;
            Ok(Intent::Seal(setup.placement().to_string()))
        }
        (Some(SetupStage::Revealing), _) => Ok(Intent::Reveal(None)),
        (None, Some(state)) => Ok(Intent::Orders(
            castle_siege::choose_declaration(state, policy, step).texts(),
        )),
        (None, None) => Err(AutoplayError::NoPosition),
    }
}

/// Genghis Khan: the greedy player's next action, as an order.
fn cards_turn(cards: &GenghisKhanReplay) -> Result<Intent, AutoplayError> {
    let state = cards.state().ok_or(AutoplayError::NotLaidOut)?;
    let action = genghis_khan::greedy_action(state).ok_or(AutoplayError::GameOver)?;
    Ok(Intent::Orders(vec![match &action {
        Action::Draw => DRAW_ORDER.to_owned(),
        other => genghis_khan::notate(state, other, &[])?.to_string(),
    }]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{Builtin, load_ruleset};
    use yam_notation::GameKind;

    fn start(game: GameKind, name: &str) -> SignedReplay {
        let ruleset = load_ruleset(game, name).unwrap();
        SignedReplay::start(&Builtin, &ruleset).unwrap()
    }

    #[test]
    fn each_game_is_known_by_its_own_replay() {
        let khan = start(GameKind::Khan, "magician");
        let siege_game = start(GameKind::CastleSiege, "standard");
        let cards_game = start(GameKind::GenghisKhan, "standard");
        assert!(siege(&khan).is_none() && cards(&khan).is_none());
        assert!(siege(&siege_game).is_some() && cards(&siege_game).is_none());
        assert!(cards(&cards_game).is_some() && siege(&cards_game).is_none());
    }

    #[test]
    fn the_engine_chooses_reproducibly() {
        let khan = start(GameKind::Khan, "magician");
        let first = choose(&khan, 0, Policy::Eager, 7).unwrap();
        assert_eq!(choose(&khan, 0, Policy::Eager, 7).unwrap(), first);
        let Intent::Orders(moves) = &first else {
            panic!("a Khan move is an order: {first:?}")
        };
        assert!(khan.game().legal_moves().contains(&moves[0]));
        let siege_game = start(GameKind::CastleSiege, "standard");
        assert!(matches!(
            choose(&siege_game, 1, Policy::Eager, 7),
            Ok(Intent::Seal(_))
        ));
        let cards_game = start(GameKind::GenghisKhan, "standard");
        assert_eq!(
            choose(&cards_game, 0, Policy::Eager, 7),
            Err(AutoplayError::NotLaidOut)
        );
    }
}
