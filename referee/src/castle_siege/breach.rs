//! The Breach phase (CS-27 to CS-32): rams and sappers against an adjacent
//! castle square, cannons up to 2 away, from open ground; a breach is
//! permanent, and any attempt uses up the unit's attack.

use super::army::{UnitKind, breach_profile, fields};
use super::board::{Square, is_castle};
use super::illegal::Illegal;
use super::state::{State, breachable};

/// A legal breach attempt: which unit, and the face that makes the breach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreachPlan {
    /// The unit's index in [`State::units`].
    pub unit: usize,
    /// The lowest face that breaches: 5 for a ram, 6 for a sapper or cannon.
    pub need: u8,
}

/// Checks a breach attempt by the side to move's `kind` on `from` against
/// `target`. The reasons that do not depend on the position come first.
pub fn check_breach(
    state: &State,
    kind: UnitKind,
    from: Square,
    target: Square,
) -> Result<BreachPlan, Illegal> {
    let side = state.turn();
    let rules = state.rules();
    if !fields(side, kind) {
        return Err(Illegal::NotInArmy { side, kind });
    }
    // CS-11, CS-29: only the Attacker's rams, sappers and cannons.
    let Some((reach, need)) = breach_profile(side, kind) else {
        return Err(Illegal::CannotBreach { side, kind });
    };
    // CS-29: from outside the walls.
    if is_castle(from) {
        return Err(Illegal::BreachFromCastle { from });
    }
    // CS-28 (following `inner_moves`).
    if !breachable(target, rules.inner_moves) {
        return Err(Illegal::NotBreachable {
            target,
            inner_moves: rules.inner_moves,
        });
    }
    let distance = rules.adjacency.distance(from, target);
    if !(1..=reach).contains(&distance) {
        return Err(Illegal::BreachOutOfReach {
            kind,
            from,
            target,
            distance,
            reach,
        });
    }
    // CS-27: permanent, and never attempted again.
    if state.is_breached(target) {
        return Err(Illegal::AlreadyBreached { target });
    }
    // CS-30: one attempt per unit, and it uses up the unit's attack. CS-31:
    // whether the unit moved this turn does not matter.
    let unit = state.find(
        side,
        kind,
        from,
        |u| !u.acted,
        Illegal::AlreadyActed {
            side,
            kind,
            square: from,
        },
    )?;
    Ok(BreachPlan { unit, need })
}
