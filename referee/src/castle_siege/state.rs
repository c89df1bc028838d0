//! The state of a game: every unit where it stands, the breaches, whose
//! turn and which phase, the round, and the outcome once there is one.
//!
//! Units of the same side and type on the same square are interchangeable:
//! an order names a unit by type and square, and the referee picks one that
//! can still do what is asked (one that has not moved, or not acted).

use yam_notation::castle_siege::Phase;

use super::army::{Side, UnitKind, army_count, barred_from_castle, is_infantry, plural};
use super::board::{Square, SquareSet, is_castle, is_perimeter, is_victory, stack_limit};
use super::illegal::Illegal;
use super::outcome::{Outcome, WinReason};
use super::ruleset::{InnerMoves, Rules, TurnMode};
use super::setup::{Setup, SetupError};
use serde::{Deserialize, Serialize};

/// One unit on the board, with what it has done this turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Unit {
    /// Whose unit.
    pub side: Side,
    /// Its type.
    pub kind: UnitKind,
    /// Where it stands.
    pub square: Square,
    /// It has moved, or tried to enter the castle, this turn (CS-12, CS-24).
    pub moved: bool,
    /// It has attempted a breach or attacked this turn (CS-30, CS-33).
    pub acted: bool,
}

/// Why a position given square by square is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A unit type the side does not field.
    #[error("the {side} has no {}", plural(*.kind))]
    NotInArmy {
        /// The side.
        side: Side,
        /// The type.
        kind: UnitKind,
    },
    /// More units of a type than the army has.
    #[error("the {side} has only {limit} {}", plural(*.kind))]
    TooMany {
        /// The side.
        side: Side,
        /// The type.
        kind: UnitKind,
        /// The army's count.
        limit: usize,
    },
    /// CS-17: a defender outside the castle.
    #[error("a defending unit stands outside the castle, on {0}")]
    DefenderOutside(Square),
    /// CS-21: an engine in the castle.
    #[error("an attacking {kind} stands in the castle, on {square}")]
    EngineInCastle {
        /// The engine.
        kind: UnitKind,
        /// Where.
        square: Square,
    },
    /// CS-46: an attacker on a victory square would have won already.
    #[error("an attacking unit stands on the victory square {0}")]
    AttackerOnVictory(Square),
    /// CS-14: more of a side's units on a square than it may hold.
    #[error("{square} holds {count} {side} units, more than {limit}")]
    Overstacked {
        /// The side.
        side: Side,
        /// The square.
        square: Square,
        /// How many.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// CS-28: a breach where there can be none.
    #[error("{0} cannot be breached under this ruleset")]
    NotBreachable(Square),
    /// A round outside 1 to the cap.
    #[error("round {round} is outside 1 to the cap of {cap}")]
    BadRound {
        /// The round.
        round: u32,
        /// The cap.
        cap: u32,
    },
}

/// The state of a game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct State {
    rules: Rules,
    units: Vec<Unit>,
    breaches: SquareSet,
    turn: Side,
    round: u32,
    phase: Phase,
    outcome: Option<Outcome>,
    /// CS-P4 (the faithful turn): the allowance drawn by this turn's `Move`
    /// declaration and how many units have used it, carried from one
    /// declaration to the next. Always `None` under CS-P1, where the
    /// allowance lives and dies inside the one Move declaration.
    allowance: Option<Allowance>,
}

/// CS-12 under the faithful turn (CS-P4): the allowance die of this turn's
/// Move phase and how many distinct units have moved (or tried to enter)
/// under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Allowance {
    /// The die's face: this many distinct units may move.
    pub face: u8,
    /// How many have.
    pub used: u8,
}

impl Allowance {
    /// How many moves are left.
    pub fn left(self) -> u8 {
        self.face.saturating_sub(self.used)
    }
}

impl State {
    /// The start of a game (CS-10): both setups revealed, round 1, the
    /// Defender's Move phase (CS-11).
    pub fn new(rules: Rules, defender: &Setup, attacker: &Setup) -> Result<State, SetupError> {
        if defender.side() != Side::Defender || attacker.side() != Side::Attacker {
            return Err(SetupError::SidesMixed);
        }
        let units = defender
            .squares()
            .map(|(sq, kind)| (Side::Defender, kind, sq))
            .chain(
                attacker
                    .squares()
                    .map(|(sq, kind)| (Side::Attacker, kind, sq)),
            );
        Ok(State {
            rules,
            units: units
                .map(|(side, kind, square)| Unit {
                    side,
                    kind,
                    square,
                    moved: false,
                    acted: false,
                })
                .collect(),
            breaches: SquareSet::EMPTY,
            turn: Side::Defender,
            round: 1,
            phase: Phase::Move,
            outcome: None,
            allowance: None,
        })
    }

    /// Any position, for studies and tests: the units given, the breaches,
    /// at the start of `turn`'s Move phase in `round`. Checked against the
    /// armies, the castle's rules and stacking; if the position already
    /// meets an end condition (CS-47 to CS-49) the game is over.
    pub fn from_units(
        rules: Rules,
        units: impl IntoIterator<Item = (Side, UnitKind, Square)>,
        breaches: impl IntoIterator<Item = Square>,
        turn: Side,
        round: u32,
    ) -> Result<State, PositionError> {
        if round == 0 || round > rules.round_cap {
            return Err(PositionError::BadRound {
                round,
                cap: rules.round_cap,
            });
        }
        let mut list = Vec::new();
        for (side, kind, square) in units {
            let limit = army_count(side, kind);
            if limit == 0 {
                return Err(PositionError::NotInArmy { side, kind });
            }
            if side == Side::Defender && !is_castle(square) {
                return Err(PositionError::DefenderOutside(square));
            }
            if barred_from_castle(side, kind) && is_castle(square) {
                return Err(PositionError::EngineInCastle { kind, square });
            }
            if side == Side::Attacker && is_victory(square) {
                return Err(PositionError::AttackerOnVictory(square));
            }
            list.push(Unit {
                side,
                kind,
                square,
                moved: false,
                acted: false,
            });
            let same = |u: &&Unit| u.side == side && u.kind == kind;
            if list.iter().filter(same).count() > limit {
                return Err(PositionError::TooMany { side, kind, limit });
            }
            let count = list
                .iter()
                .filter(|u| u.side == side && u.square == square)
                .count();
            if count > stack_limit(square) {
                return Err(PositionError::Overstacked {
                    side,
                    square,
                    count,
                    limit: stack_limit(square),
                });
            }
        }
        let mut set = SquareSet::EMPTY;
        for sq in breaches {
            if !breachable(sq, rules.inner_moves) {
                return Err(PositionError::NotBreachable(sq));
            }
            set = set.with(sq);
        }
        let mut state = State {
            rules,
            units: list,
            breaches: set,
            turn,
            round,
            phase: Phase::Move,
            outcome: None,
            allowance: None,
        };
        state.outcome = state.attrition_outcome();
        Ok(state)
    }

    /// The flags.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Every unit alive, in a fixed order (setup order).
    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    /// The units on `sq`, both sides.
    pub fn units_at(&self, sq: Square) -> impl Iterator<Item = &Unit> {
        self.units.iter().filter(move |u| u.square == sq)
    }

    /// How many of `side`'s units stand on `sq` (CS-14).
    pub fn stack(&self, side: Side, sq: Square) -> usize {
        self.units_at(sq).filter(|u| u.side == side).count()
    }

    /// How many units `side` has left.
    pub fn count(&self, side: Side) -> usize {
        self.units.iter().filter(|u| u.side == side).count()
    }

    /// The breached squares (CS-27: permanent).
    pub fn breaches(&self) -> SquareSet {
        self.breaches
    }

    /// Whether `sq` is breached.
    pub fn is_breached(&self, sq: Square) -> bool {
        self.breaches.contains(sq)
    }

    /// Whose turn it is.
    pub fn turn(&self) -> Side {
        self.turn
    }

    /// The round, from 1: a Defender turn and then an Attacker turn (CS-11).
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The phase the turn has reached: the earliest phase the next order may
    /// belong to.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The end of the game, once there is one.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// CS-P4: the allowance drawn this turn, under the faithful turn.
    pub fn allowance(&self) -> Option<Allowance> {
        self.allowance
    }

    /// `side` resigns: the other side wins. Either side may resign at any
    /// time until the game is over.
    pub fn resign(&self, side: Side) -> Result<State, Illegal> {
        if let Some(o) = self.outcome {
            return Err(Illegal::GameOver(o));
        }
        let mut next = self.clone();
        next.outcome = Some(Outcome {
            winner: side.opposite(),
            reason: WinReason::Resignation,
        });
        Ok(next)
    }

    // -- For the resolution of orders (crate-internal) --------------------

    pub(crate) fn unit_mut(&mut self, index: usize) -> Option<&mut Unit> {
        self.units.get_mut(index)
    }

    /// Removes a killed unit (CS-34: at once).
    pub(crate) fn remove(&mut self, index: usize) -> Option<Unit> {
        (index < self.units.len()).then(|| self.units.remove(index))
    }

    pub(crate) fn add_breach(&mut self, sq: Square) {
        self.breaches = self.breaches.with(sq);
    }

    /// The same position as CS-P1 sees it, where a step's legality does not
    /// hang on the allowance: for reading a typed step (`b3b4`) under the
    /// faithful turn, which the declaration check then judges with its
    /// reason ("declare Move first", "the allowance is used up", CS-P4).
    pub(crate) fn allowance_aside(&self) -> State {
        let mut s = self.clone();
        s.rules.turn = TurnMode::PriorityList;
        s
    }

    pub(crate) fn set_allowance(&mut self, allowance: Option<Allowance>) {
        self.allowance = allowance;
    }

    pub(crate) fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
    }

    pub(crate) fn set_outcome(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    /// The first unit of `side` and `kind` on `sq` that `ready` accepts;
    /// if there is none, why: none there at all (`NoUnit`) or none ready
    /// (the caller's reason).
    pub(crate) fn find(
        &self,
        side: Side,
        kind: UnitKind,
        sq: Square,
        ready: impl Fn(&Unit) -> bool,
        not_ready: Illegal,
    ) -> Result<usize, Illegal> {
        let mut any = false;
        for (i, u) in self.units.iter().enumerate() {
            if u.side == side && u.kind == kind && u.square == sq {
                if ready(u) {
                    return Ok(i);
                }
                any = true;
            }
        }
        if any {
            Err(not_ready)
        } else {
            Err(Illegal::NoUnit {
                side,
                kind,
                square: sq,
            })
        }
    }

    /// CS-47 to CS-49, checked after every kill.
    pub(crate) fn attrition_outcome(&self) -> Option<Outcome> {
        let defenders = self.count(Side::Defender);
        let attackers = self.count(Side::Attacker);
        if defenders == 0 {
            // CS-48.
            return Some(Outcome {
                winner: Side::Attacker,
                reason: WinReason::DefendersEliminated,
            });
        }
        if attackers <= 10 {
            // CS-47: the 18th loss.
            return Some(Outcome {
                winner: Side::Defender,
                reason: WinReason::AttackersReduced { left: attackers },
            });
        }
        if !self.units.iter().any(|u| is_infantry(u.side, u.kind)) {
            // CS-49.
            return Some(Outcome {
                winner: Side::Defender,
                reason: WinReason::NoInfantry,
            });
        }
        None
    }

    /// The end of the turn (CS-11): every unit may act again, the other side
    /// plays from its Move phase; after the Attacker's turn the round ends,
    /// and at the cap the Defender wins (CS-50).
    pub(crate) fn end_turn(&mut self) {
        for u in &mut self.units {
            u.moved = false;
            u.acted = false;
        }
        if self.turn == Side::Attacker {
            if self.round >= self.rules.round_cap {
                self.set_outcome(Outcome {
                    winner: Side::Defender,
                    reason: WinReason::RoundCap {
                        rounds: self.rules.round_cap,
                    },
                });
            } else {
                self.round += 1;
            }
        }
        self.turn = self.turn.opposite();
        self.phase = Phase::Move;
        self.allowance = None;
    }
}

/// CS-28: which squares can be breached. With free inner moves only the 12
/// perimeter squares (a breach inside would never matter); with restricted
/// inner moves every castle square, because inner moves then need entry
/// rolls too.
pub const fn breachable(sq: Square, inner_moves: InnerMoves) -> bool {
    match inner_moves {
        InnerMoves::Free => is_perimeter(sq),
        InnerMoves::Restricted => is_castle(sq),
    }
}
