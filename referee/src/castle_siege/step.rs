//! The Move phase's single step (CS-12 to CS-26): where a unit may go, the
//! stacking limits, and which entry roll, if any, an attacker needs to get
//! into the castle.

use std::fmt;

use super::army::{Side, UnitKind, barred_from_castle, fields};
use super::board::{Square, is_castle, is_open, stack_limit};
use super::illegal::Illegal;
use super::ruleset::InnerMoves;
use super::state::State;

/// CS-22, CS-23, CS-26: the three ways into the castle, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryCondition {
    /// The destination is breached: 3+.
    Breach,
    /// The mover starts on an open square with a friendly siege tower: 4+.
    Tower,
    /// Scaling the walls: 6.
    Scale,
}

impl EntryCondition {
    /// The lowest face that gets in.
    pub const fn need(self) -> u8 {
        match self {
            EntryCondition::Breach => 3,
            EntryCondition::Tower => 4,
            EntryCondition::Scale => 6,
        }
    }

    /// In words.
    pub const fn name(self) -> &'static str {
        match self {
            EntryCondition::Breach => "through the breach",
            EntryCondition::Tower => "off the siege tower",
            EntryCondition::Scale => "scaling the wall",
        }
    }
}

impl fmt::Display for EntryCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A legal step: which unit, and the entry roll it needs, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepPlan {
    /// The unit's index in [`State::units`].
    pub unit: usize,
    /// The entry condition when the step needs a roll.
    pub entry: Option<EntryCondition>,
}

/// Checks a step of the side to move's `kind` from `from` to `to` against
/// `state` (the phase is the declaration's business). The reasons that do
/// not depend on the position come first.
pub fn check_step(
    state: &State,
    kind: UnitKind,
    from: Square,
    to: Square,
) -> Result<StepPlan, Illegal> {
    let side = state.turn();
    let rules = state.rules();
    if !fields(side, kind) {
        return Err(Illegal::NotInArmy { side, kind });
    }
    // CS-03, CS-13: exactly one step.
    if !rules.adjacency.adjacent(from, to) {
        return Err(Illegal::NotAdjacent {
            from,
            to,
            adjacency: rules.adjacency,
        });
    }
    // CS-17: defenders stay inside.
    if side == Side::Defender && !is_castle(to) {
        return Err(Illegal::DefenderLeavesCastle { to });
    }
    // CS-21: engines stay outside.
    if barred_from_castle(side, kind) && is_castle(to) {
        return Err(Illegal::BarredFromCastle { kind, to });
    }
    // CS-12: distinct units, one move each.
    let unit = state.find(
        side,
        kind,
        from,
        |u| !u.moved,
        Illegal::AlreadyMoved {
            side,
            kind,
            square: from,
        },
    )?;
    // CS-14, CS-25: stacking is checked before any entry roll; only the
    // mover's own side counts (CS-15: enemies never block).
    let limit = stack_limit(to);
    if state.stack(side, to) >= limit {
        return Err(Illegal::StackFull {
            side,
            square: to,
            limit,
            castle: is_castle(to),
        });
    }
    Ok(StepPlan {
        unit,
        entry: entry_condition(state, side, from, to),
    })
}

/// The entry roll a step needs (CS-17, CS-18, CS-20, CS-22, CS-23, CS-26).
fn entry_condition(state: &State, side: Side, from: Square, to: Square) -> Option<EntryCondition> {
    // CS-17: defenders never roll. CS-18: leaving the castle is free.
    if side == Side::Defender || !is_castle(to) {
        return None;
    }
    // CS-20: inside the castle, moves are free unless `inner_moves` is
    // restricted.
    if is_castle(from) && state.rules().inner_moves == InnerMoves::Free {
        return None;
    }
    // CS-23: the best condition available; CS-26: the marker on the
    // destination itself.
    if state.is_breached(to) {
        return Some(EntryCondition::Breach);
    }
    // CS-22: off a friendly tower standing on the mover's open square.
    let tower = is_open(from)
        && state
            .units_at(from)
            .any(|u| u.side == Side::Attacker && u.kind == UnitKind::Tower);
    Some(if tower {
        EntryCondition::Tower
    } else {
        EntryCondition::Scale
    })
}
