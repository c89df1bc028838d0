//! Lenient input, canonical records: what a player types for a turn, in
//! any form the game's resolver reads (`docs/notation.md`, "Typing
//! moves"), turned into the canonical tokens the record stores. The one
//! place every client goes through: `yam hotseat move` and `yam move` (by
//! [`super::setup::written_intent`]) and the robot's `move` mails.
//!
//! The resolving is the referee's ([`yam_referee::khan::input`],
//! [`yam_referee::castle_siege::input`],
//! [`yam_referee::genghis_khan::input`]); this module only finds the
//! game's position behind a signed replay.

use yam_referee::replay::BuiltinReplay;
use yam_referee::signed::SignedReplay;

/// Why typed moves were not taken: the resolver's answer, in words (the
/// candidates of an ambiguous move, the nearest legal moves to an
/// impossible one, or what a move looks like).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputRefusal(pub String);

/// The canonical tokens for `typed`, the moves of one turn as a player
/// wrote them, in `replay`'s current position.
///
/// - Khan: a turn is one move, in long, short or from-to form, resolved to
///   the one legal move it means ([`yam_referee::khan::resolve_input`]).
/// - Castle Siege: each order of the declaration, the unit type, origin or
///   enemy type left out where the position tells them
///   ([`yam_referee::castle_siege::input::resolve_declaration`]).
/// - Genghis Khan: a capture may leave out the Foe card, the top card of
///   the attacked Foe ([`yam_referee::genghis_khan::input::resolve_turn`]).
/// - Anything the resolvers have no position for (a game not begun, in its
///   setups, or over) is passed on as typed: the rules then judge it as
///   they always do.
pub fn canonical_moves(
    replay: &SignedReplay,
    typed: &[String],
) -> Result<Vec<String>, InputRefusal> {
    if replay.ending().is_some() {
        return Ok(typed.to_vec());
    }
    let refused = |e: &dyn std::fmt::Display| InputRefusal(e.to_string());
    match (replay.game().builtin(), typed) {
        (Some(BuiltinReplay::Khan(khan)), [one]) => {
            yam_referee::khan::resolve_input(khan.position(), one)
                .map(|token| vec![token.to_string()])
                .map_err(|e| refused(&e))
        }
        (Some(BuiltinReplay::CastleSiege(siege)), _) if siege.setup_stage().is_none() => {
            match siege.state() {
                Some(state) => yam_referee::castle_siege::input::resolve_declaration(state, typed)
                    .map_err(|e| refused(&e)),
                None => Ok(typed.to_vec()),
            }
        }
        (Some(BuiltinReplay::GenghisKhan(cards)), _) => match cards.state() {
            Some(state) => yam_referee::genghis_khan::input::resolve_turn(state, typed)
                .map_err(|e| refused(&e)),
            None => Ok(typed.to_vec()),
        },
        _ => Ok(typed.to_vec()),
    }
}
