//! Why an order or a declaration is illegal, in words, with the ruling that
//! says so. The same reasons explain skipped orders: an order that was legal
//! when declared and became impossible before its turn came is skipped with
//! the reason it would now be refused for.

use std::fmt;

use yam_notation::castle_siege::{Order, Phase, Token};
use yam_notation::grammar::TokenError;

use super::army::{Side, UnitKind, plural, unit_words};
use super::board::{Adjacency, Square};
use super::outcome::Outcome;
use super::ruleset::InnerMoves;

/// Why an order, a declaration or a resignation is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    /// Nothing is legal after the end of the game.
    #[error("the game is over: {0}")]
    GameOver(Outcome),
    /// A declaration with no orders.
    #[error("a declaration needs at least one order")]
    EmptyDeclaration,
    /// A token that cannot be read.
    #[error("{token:?} is not an order: at byte {}, expected {}", .error.offset, .error.expected)]
    BadToken {
        /// The text.
        token: String,
        /// Why.
        error: TokenError,
    },
    /// A resolved token (with a die face or `/skip`) where a declared order
    /// belongs: nobody may know a die before declaring what it resolves.
    #[error("{0} is a resolved order; a declared order carries no die face and no /skip")]
    NotDeclared(Token),
    /// A setup token where an order belongs.
    #[error("{0} is a setup, not an order")]
    NotAnOrder(Token),
    /// A phase that is already over this turn (CS-11: Move, Breach, Attack,
    /// in that order).
    #[error(
        "the {phase} phase is over: the turn has reached its {current} phase (CS-11: Move, Breach, Attack, in that order)"
    )]
    PhaseOver {
        /// The phase the order belongs to.
        phase: Phase,
        /// The phase already reached.
        current: Phase,
    },
    /// CS-12: one Move phase, with one allowance roll, per turn.
    #[error(
        "the Move marker appears twice: a turn has one Move phase and one allowance roll (CS-12)"
    )]
    SecondMove,
    /// CS-P1: step orders follow the Move marker of the same declaration.
    #[error(
        "step orders follow the Move marker in the same declaration: the marker carries the allowance roll (CS-12, CS-P1)"
    )]
    StepWithoutMove,
    /// CS-P4: under the faithful turn the `Move` marker is a declaration
    /// of its own: it draws the allowance, and every step is chosen after
    /// it is known.
    #[error(
        "under the faithful turn Move is declared alone: it draws the allowance, and each step is then declared on its own once the allowance is known (CS-12, CS-19, CS-P4)"
    )]
    MoveNotAlone,
    /// CS-P4: under the faithful turn a step is a declaration of its own,
    /// so that the next move is chosen once its entry roll is known.
    #[error(
        "under the faithful turn a step is declared alone, one unit at a time, each complete with its entry roll before the next is chosen (CS-19, CS-P4)"
    )]
    StepNotAlone,
    /// CS-P4: under the faithful turn a step needs the allowance, drawn by
    /// a `Move` declaration first.
    #[error(
        "no allowance has been drawn this turn: declare Move first, which rolls the allowance (CS-12, CS-P4)"
    )]
    NoAllowance,
    /// CS-12 under the faithful turn: the allowance is used up.
    #[error(
        "the allowance of {allowance} is used up: that many distinct units have moved or tried to enter this turn (CS-12, CS-P4)"
    )]
    AllowanceSpent {
        /// The allowance.
        allowance: u8,
    },
    /// CS-P4: under the faithful turn a declaration draws at most one die,
    /// and it is the declaration's last order, so that whatever follows a
    /// die is chosen once it is known.
    #[error(
        "under the faithful turn a declaration ends with the order that rolls its die: what follows a die is chosen once the die is known (CS-19, CS-34, CS-P4)"
    )]
    OrderAfterDie,
    /// Orders after `End`.
    #[error("nothing may follow End in a declaration")]
    AfterEnd,
    /// A unit type the side does not field.
    #[error("the {side} has no {}", plural(*.kind))]
    NotInArmy {
        /// The side.
        side: Side,
        /// The unit type.
        kind: UnitKind,
    },
    /// No unit of that type on that square.
    #[error("there is no {} on {square}", unit_words(*.side, *.kind))]
    NoUnit {
        /// Whose unit.
        side: Side,
        /// Its type.
        kind: UnitKind,
        /// The square named.
        square: Square,
    },
    /// CS-12: each unit moves at most once a turn.
    #[error(
        "every {} on {square} has already moved (or tried to) this turn (CS-12: one move per unit)",
        unit_words(*.side, *.kind)
    )]
    AlreadyMoved {
        /// Whose unit.
        side: Side,
        /// Its type.
        kind: UnitKind,
        /// The square named.
        square: Square,
    },
    /// CS-30, CS-33: one breach attempt or one attack per unit and turn.
    #[error(
        "every {} on {square} has already breached or attacked this turn (CS-30, CS-33: one breach attempt or attack per unit)",
        unit_words(*.side, *.kind)
    )]
    AlreadyActed {
        /// Whose unit.
        side: Side,
        /// Its type.
        kind: UnitKind,
        /// The square named.
        square: Square,
    },
    /// CS-03, CS-13: a move is exactly one step to an adjacent square.
    #[error(
        "{to} is not adjacent to {from} under {adjacency} adjacency (CS-03, CS-13: a unit moves exactly one step)"
    )]
    NotAdjacent {
        /// From.
        from: Square,
        /// To.
        to: Square,
        /// The flag.
        adjacency: Adjacency,
    },
    /// CS-17: defenders stay in the castle.
    #[error("defending units never leave the castle; {to} is outside it (CS-17)")]
    DefenderLeavesCastle {
        /// The open square.
        to: Square,
    },
    /// CS-21: the Attacker's engines never enter the castle.
    #[error(
        "an attacking {kind} may never enter a castle square such as {to}: only knights, archers and sappers can (CS-21)"
    )]
    BarredFromCastle {
        /// The engine.
        kind: UnitKind,
        /// The castle square.
        to: Square,
    },
    /// CS-14, CS-25: the square already holds as many of the side's units as
    /// it may.
    #[error(
        "{square} already holds {limit} {} units, the limit on {} (CS-14, CS-25)",
        match .side { Side::Defender => "defending", Side::Attacker => "attacking" },
        if *.castle { "a castle square" } else { "an open square" }
    )]
    StackFull {
        /// Whose units.
        side: Side,
        /// The full square.
        square: Square,
        /// The limit: 2 in the castle, 3 outside.
        limit: usize,
        /// Whether the square is a castle square.
        castle: bool,
    },
    /// CS-11, CS-29: only the Attacker's rams, sappers and cannons breach.
    #[error(
        "{} cannot breach: only attacking rams, sappers and cannons do (CS-11, CS-29)",
        unit_words(*.side, *.kind)
    )]
    CannotBreach {
        /// Whose unit.
        side: Side,
        /// Its type.
        kind: UnitKind,
    },
    /// CS-29: breaching is done from outside the walls.
    #[error("a breaching unit stands on open ground, not in the castle square {from} (CS-29)")]
    BreachFromCastle {
        /// The castle square it stands on.
        from: Square,
    },
    /// CS-28: which squares can be breached follows `inner_moves`.
    #[error(
        "{target} cannot be breached: {} (CS-28, inner_moves: {})",
        match .inner_moves {
            InnerMoves::Free => "only the 12 perimeter castle squares can be (the victory squares are never entered from open ground)",
            InnerMoves::Restricted => "only castle squares can be",
        },
        .inner_moves.name()
    )]
    NotBreachable {
        /// The square.
        target: Square,
        /// The flag.
        inner_moves: InnerMoves,
    },
    /// CS-29: rams and sappers reach 1, cannons 2.
    #[error(
        "{target} is {distance} away from the {} on {from}; it breaches at most {reach} away (CS-29)",
        .kind.name()
    )]
    BreachOutOfReach {
        /// The breaching unit's type.
        kind: UnitKind,
        /// Where it stands.
        from: Square,
        /// The castle square.
        target: Square,
        /// The distance between them.
        distance: u8,
        /// Its reach.
        reach: u8,
    },
    /// CS-27: a breach is permanent and is never made twice.
    #[error(
        "{target} is already breached; a breach is permanent and cannot be attempted again (CS-27)"
    )]
    AlreadyBreached {
        /// The square.
        target: Square,
    },
    /// CS-43: rams and towers never attack.
    #[error("{} never attack (CS-43)", plural(*.kind))]
    CannotAttack {
        /// The type.
        kind: UnitKind,
    },
    /// CS-45: attacks target enemy units only, and the enemy does not field
    /// this type.
    #[error("the {enemy} has no {}: an attack targets an enemy unit (CS-35, CS-45)", plural(*.kind))]
    NoSuchEnemy {
        /// The enemy side.
        enemy: Side,
        /// The type named.
        kind: UnitKind,
    },
    /// No enemy unit of that type on the target square.
    #[error("there is no {} on {square} to attack", unit_words(*.side, *.kind))]
    NoTarget {
        /// The enemy side.
        side: Side,
        /// The type named.
        kind: UnitKind,
        /// The square named.
        square: Square,
    },
    /// CS-36 to CS-42: the target is outside the attacker's reach.
    #[error(
        "the {} on {from} cannot attack {target}, {distance} away: {rule}",
        unit_words(*.side, *.kind)
    )]
    OutOfReach {
        /// The attacking unit's side.
        side: Side,
        /// Its type.
        kind: UnitKind,
        /// Where it stands.
        from: Square,
        /// The target square.
        target: Square,
        /// The distance between them.
        distance: u8,
        /// The unit's reach in words, with its ruling.
        rule: &'static str,
    },
}

/// A refused declaration: which order, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Refusal {
    /// The order's position in the declaration (from 0), when one order is
    /// at fault.
    pub index: Option<usize>,
    /// That order.
    pub order: Option<Order>,
    /// Why.
    pub reason: Illegal,
}

impl Refusal {
    /// A refusal of the whole declaration.
    pub fn whole(reason: Illegal) -> Refusal {
        Refusal {
            index: None,
            order: None,
            reason,
        }
    }

    /// A refusal of order `index`.
    pub fn at(index: usize, order: Order, reason: Illegal) -> Refusal {
        Refusal {
            index: Some(index),
            order: Some(order),
            reason,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.index, self.order) {
            (Some(i), Some(o)) => write!(f, "order {} ({o}): {}", i + 1, self.reason),
            _ => write!(f, "{}", self.reason),
        }
    }
}
