//! The Attack phase (CS-33 to CS-45): what each unit type reaches, and the
//! face it needs to kill.

use std::fmt;

use super::army::{Side, UnitKind, can_attack, fields};
use super::board::{Square, is_moat};
use super::illegal::Illegal;
use super::ruleset::{Rocks, Rules};
use super::state::State;

/// How an attack is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttackKind {
    /// CS-36, CS-41: knights and sappers in their own square.
    Melee,
    /// CS-37: a defending knight's rocks.
    Rocks,
    /// CS-39: cannon fire.
    Fire,
    /// CS-40: arrows.
    Arrows,
    /// CS-42: boiling oil.
    Oil,
}

impl AttackKind {
    /// In words.
    pub const fn name(self) -> &'static str {
        match self {
            AttackKind::Melee => "melee",
            AttackKind::Rocks => "rocks",
            AttackKind::Fire => "cannon fire",
            AttackKind::Arrows => "arrows",
            AttackKind::Oil => "boiling oil",
        }
    }
}

impl fmt::Display for AttackKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A legal attack: the attacking unit, the victim, how, and the face that kills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttackPlan {
    /// The attacking unit's index in [`State::units`].
    pub unit: usize,
    /// The victim's index in [`State::units`].
    pub victim: usize,
    /// How.
    pub kind: AttackKind,
    /// The lowest face that kills.
    pub need: u8,
}

/// Checks an attack by the side to move's `kind` on `from` at an enemy
/// `victim` on `target`. The reasons that do not depend on the position
/// come first.
pub fn check_attack(
    state: &State,
    kind: UnitKind,
    from: Square,
    victim: UnitKind,
    target: Square,
) -> Result<AttackPlan, Illegal> {
    let side = state.turn();
    let enemy = side.opposite();
    if !fields(side, kind) {
        return Err(Illegal::NotInArmy { side, kind });
    }
    // CS-43.
    if !can_attack(kind) {
        return Err(Illegal::CannotAttack { kind });
    }
    // CS-45: enemies only, so the type must be one the enemy fields.
    if !fields(enemy, victim) {
        return Err(Illegal::NoSuchEnemy {
            enemy,
            kind: victim,
        });
    }
    let (how, need) = reach(state.rules(), side, kind, from, victim, target)?;
    // CS-35: the chosen target must be there.
    let victim_index = state
        .units()
        .iter()
        .position(|u| u.side == enemy && u.kind == victim && u.square == target)
        .ok_or(Illegal::NoTarget {
            side: enemy,
            kind: victim,
            square: target,
        })?;
    // CS-30, CS-33, CS-38: one attack per unit, none after a breach attempt.
    // CS-44: whether it moved, or failed to enter, does not matter.
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
    Ok(AttackPlan {
        unit,
        victim: victim_index,
        kind: how,
        need,
    })
}

const ATTACKING_KNIGHT: &str = "an attacking knight fights only in its own square (CS-36)";
const ROCKS_ADJACENT: &str = "a defending knight fights in its own square (CS-36) or throws rocks at a unit on a moat square next to it (CS-37, rocks: adjacent)";
const ROCKS_CASTLE_WIDE: &str = "a defending knight fights in its own square (CS-36) or throws rocks at a unit on any moat square (CS-37, rocks: castle_wide)";
const ATTACKING_CANNON: &str =
    "an attacking cannon fires 1 to 2 squares away, never into its own square (CS-39)";
const DEFENDING_CANNON: &str =
    "a defending cannon fires 1 to 3 squares away, never into its own square (CS-39)";
const ATTACKING_ARCHER: &str =
    "an attacking archer shoots into its own square or 1 square away (CS-40)";
const DEFENDING_ARCHER: &str =
    "a defending archer shoots into its own square or 1 to 2 squares away (CS-40)";
const CAULDRON: &str =
    "a cauldron pours oil into its own square or onto a moat square next to it (CS-42)";
const SAPPER: &str = "a sapper fights only in its own square (CS-41)";

/// What `kind` of `side` reaches from `from`, and with what face: CS-04
/// (distances in the adjacency's steps), CS-05 (nothing blocks), CS-36 to
/// CS-42.
fn reach(
    rules: &Rules,
    side: Side,
    kind: UnitKind,
    from: Square,
    victim: UnitKind,
    target: Square,
) -> Result<(AttackKind, u8), Illegal> {
    let distance = rules.adjacency.distance(from, target);
    let moat = is_moat(target, rules.adjacency);
    let out = |rule: &'static str| Illegal::OutOfReach {
        side,
        kind,
        from,
        target,
        distance,
        rule,
    };
    match (side, kind) {
        // CS-36: 5+ against a knight, 4+ against anything else.
        (_, UnitKind::Knight) if distance == 0 => Ok((
            AttackKind::Melee,
            if victim == UnitKind::Knight { 5 } else { 4 },
        )),
        (Side::Attacker, UnitKind::Knight) => Err(out(ATTACKING_KNIGHT)),
        // CS-37: rocks at the moat ring, next to the knight unless the
        // ruleset throws them castle-wide.
        (Side::Defender, UnitKind::Knight) => match rules.rocks {
            Rocks::Adjacent if moat && distance == 1 => Ok((AttackKind::Rocks, 6)),
            Rocks::CastleWide if moat => Ok((AttackKind::Rocks, 6)),
            Rocks::Adjacent => Err(out(ROCKS_ADJACENT)),
            Rocks::CastleWide => Err(out(ROCKS_CASTLE_WIDE)),
        },
        // CS-39: never into its own square; the Defender's height adds 1.
        (_, UnitKind::Cannon) => {
            let (range, rule) = match side {
                Side::Attacker => (2, ATTACKING_CANNON),
                Side::Defender => (3, DEFENDING_CANNON),
            };
            if (1..=range).contains(&distance) {
                Ok((AttackKind::Fire, 6))
            } else {
                Err(out(rule))
            }
        }
        // CS-40: the own square, and the range.
        (_, UnitKind::Archer) => {
            let (range, rule) = match side {
                Side::Attacker => (1, ATTACKING_ARCHER),
                Side::Defender => (2, DEFENDING_ARCHER),
            };
            if distance <= range {
                Ok((AttackKind::Arrows, 6))
            } else {
                Err(out(rule))
            }
        }
        // CS-42.
        (_, UnitKind::Cauldron) => {
            if distance == 0 || (distance == 1 && moat) {
                Ok((AttackKind::Oil, 5))
            } else {
                Err(out(CAULDRON))
            }
        }
        // CS-41.
        (_, UnitKind::Sapper) => {
            if distance == 0 {
                Ok((AttackKind::Melee, 6))
            } else {
                Err(out(SAPPER))
            }
        }
        // CS-43 (already refused by the caller).
        (_, UnitKind::Ram | UnitKind::Tower) => Err(Illegal::CannotAttack { kind }),
    }
}
