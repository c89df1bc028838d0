//! Resolving a declaration: every die through the fair-play door (CS-51 as
//! superseded by the fair-play layer), in a documented order, each with its
//! purpose; victory and termination checked
//! after every event.
//!
//! # Dice
//!
//! The orders are carried out one at a time in the order declared (CS-19,
//! CS-34). Dice are drawn only by orders that are carried out, at the moment
//! they are carried out:
//!
//! | order | die | purpose |
//! |---|---|---|
//! | `Move` with step orders after it | the allowance (CS-12) | `allowance` |
//! | a step into the castle that needs an entry roll | the entry roll | `entry Kb4-c4` |
//! | a breach attempt | the breach roll | `breach Rb4#c4` |
//! | an attack | the attack roll | `attack Ab5xKc5` |
//!
//! The purpose names the order by its canonical text. Markers, `End`, steps
//! that need no roll and skipped orders draw nothing.

use std::fmt;

use yam_notation::castle_siege::{Face, Mark, Order, Phase, Side, Token};

use super::army::UnitKind;
use super::attack::AttackKind;
use super::board::{Square, is_victory};
use super::declaration::{Declaration, Plan, check, plan};
use super::illegal::{Illegal, Refusal};
use super::outcome::{Outcome, WinReason};
use super::ruleset::TurnMode;
use super::state::{Allowance, State};
use super::step::EntryCondition;
use crate::fair_play::chance::{Chance, ChanceError};

/// Why an order was not carried out. A skipped order draws no die.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// CS-P1: the allowance was used up by the orders before it.
    AllowanceSpent {
        /// The allowance.
        allowance: u8,
    },
    /// The game ended before its turn came.
    GameOver(Outcome),
    /// It became impossible: the reason it would now be refused for.
    Impossible(Illegal),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::AllowanceSpent { allowance } => write!(
                f,
                "the allowance of {allowance} was used by the orders before it (CS-12, CS-P1)"
            ),
            SkipReason::GameOver(o) => write!(f, "the game is over: {o}"),
            SkipReason::Impossible(e) => write!(f, "{e}"),
        }
    }
}

/// What an order did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// A `Breach` or `Attack` marker, or a `Move` marker with no steps.
    PhaseBegun(Phase),
    /// The Move marker drew the allowance: this many distinct units may move.
    Allowance {
        /// The face.
        face: u8,
    },
    /// `End`: the other side plays next.
    TurnEnded {
        /// Who plays next.
        next: Side,
        /// In which round.
        round: u32,
    },
    /// A step with no roll.
    Stepped {
        /// The unit's type.
        kind: UnitKind,
        /// From.
        from: Square,
        /// To.
        to: Square,
    },
    /// An entry roll (CS-22 to CS-24): in on `need` or more, else the unit
    /// stays where it is, its move spent.
    Entry {
        /// The unit's type.
        kind: UnitKind,
        /// From.
        from: Square,
        /// The castle square.
        to: Square,
        /// The condition used.
        condition: EntryCondition,
        /// The face.
        face: u8,
        /// Whether it got in.
        entered: bool,
    },
    /// A breach attempt (CS-27 to CS-30).
    BreachAttempt {
        /// The unit's type.
        kind: UnitKind,
        /// The castle square.
        target: Square,
        /// The lowest face that breaches.
        need: u8,
        /// The face.
        face: u8,
        /// Whether the square is now breached.
        breached: bool,
    },
    /// An attack (CS-33 to CS-45).
    Attack {
        /// The attacking unit's type.
        kind: UnitKind,
        /// The victim's type.
        victim: UnitKind,
        /// Where the victim stands.
        target: Square,
        /// How.
        how: AttackKind,
        /// The lowest face that kills.
        need: u8,
        /// The face.
        face: u8,
        /// Whether the victim died.
        killed: bool,
    },
    /// Not carried out; no die drawn.
    Skipped(SkipReason),
}

/// One declared order and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderOutcome {
    /// Its position in the declaration, from 0.
    pub index: usize,
    /// The order.
    pub order: Order,
    /// Its mark in the movetext.
    pub mark: Mark,
    /// What it did.
    pub effect: Effect,
    /// The game ended with this order.
    pub ended: Option<Outcome>,
}

impl OrderOutcome {
    /// The resolved token for the movetext (`Kb4-c4@5`, `Ab5xKc5/skip`).
    pub fn token(&self) -> Token {
        Token::Order {
            order: self.order,
            mark: self.mark,
        }
    }
}

impl fmt::Display for OrderOutcome {
    /// One line of a report: the token and what it did, in words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.token())?;
        match &self.effect {
            Effect::PhaseBegun(p) => write!(f, "{p} phase")?,
            Effect::Allowance { face } => write!(
                f,
                "Move phase, allowance {face}: up to {face} distinct units may move"
            )?,
            Effect::TurnEnded { next, round } => {
                write!(f, "end of turn; the {next} plays round {round}")?
            }
            Effect::Stepped { kind, from, to } => {
                write!(f, "the {kind} steps from {from} to {to}")?
            }
            Effect::Entry {
                kind,
                to,
                condition,
                face,
                entered,
                ..
            } => {
                let need = condition.need();
                if *entered {
                    write!(
                        f,
                        "the {kind} enters {to} {condition} ({face}, needs {need}+)"
                    )?
                } else {
                    write!(
                        f,
                        "the {kind} fails to enter {to} {condition} ({face}, needs {need}+) and stays"
                    )?
                }
            }
            Effect::BreachAttempt {
                kind,
                target,
                need,
                face,
                breached,
            } => {
                if *breached {
                    write!(f, "the {kind} breaches {target} ({face}, needs {need}+)")?
                } else {
                    write!(
                        f,
                        "the {kind} fails to breach {target} ({face}, needs {need}+)"
                    )?
                }
            }
            Effect::Attack {
                kind,
                victim,
                target,
                how,
                need,
                face,
                killed,
            } => {
                let verdict = if *killed { "kills it" } else { "misses" };
                write!(
                    f,
                    "the {kind} attacks the {victim} on {target} with {how} and {verdict} ({face}, needs {need}+)"
                )?
            }
            Effect::Skipped(r) => write!(f, "skipped: {r}")?,
        }
        if let Some(o) = self.ended {
            write!(f, ". {o}")?;
        }
        Ok(())
    }
}

/// A resolved declaration: the state after it and what each order did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The state after the last order.
    pub state: State,
    /// One entry per declared order, in order.
    pub report: Vec<OrderOutcome>,
}

impl Resolution {
    /// The resolved tokens, for the movetext.
    pub fn tokens(&self) -> Vec<Token> {
        self.report.iter().map(OrderOutcome::token).collect()
    }

    /// The positions of the skipped orders, from 0: what the fair-play
    /// record's `Skipped` evidence lists for the roll.
    pub fn skipped(&self) -> Vec<usize> {
        self.report
            .iter()
            .filter(|o| o.mark == Mark::Skipped)
            .map(|o| o.index)
            .collect()
    }

    /// How many dice were drawn.
    pub fn dice(&self) -> usize {
        self.report
            .iter()
            .filter(|o| matches!(o.mark, Mark::Roll(_)))
            .count()
    }
}

/// Why a declaration could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The declaration is illegal; no die was drawn.
    #[error("the declaration is refused: {0}")]
    Refused(#[from] Refusal),
    /// The door for chance failed (in a replay: a changed face, a changed
    /// purpose, a missing value).
    #[error("order {} ({order}): the die could not be drawn: {error}", .index + 1)]
    Chance {
        /// The order's position.
        index: usize,
        /// The order.
        order: Order,
        /// Why.
        error: ChanceError,
    },
}

/// Resolves `declaration` in `state`, drawing every die from `chance`.
///
/// An illegal declaration is refused before any die is drawn. Otherwise the
/// orders are carried out in order; an order that has become impossible is
/// skipped and draws nothing. The game's end is checked after every step
/// (CS-46), every kill (CS-47 to CS-49) and every `End` (CS-50); once it is
/// over, the remaining orders are skipped.
pub fn resolve<C: Chance + ?Sized>(
    state: &State,
    declaration: &Declaration,
    chance: &mut C,
) -> Result<Resolution, ResolveError> {
    check(state, declaration)?;
    let mut s = state.clone();
    let mut report = Vec::with_capacity(declaration.orders().len());
    let faithful = state.rules().turn == TurnMode::Faithful;
    // CS-P1: (allowance, units moved so far). Under CS-P4 it carries over
    // from the Move declaration that drew it; under CS-P1 it is `None`.
    let mut allowance: Option<(u8, u8)> = state.allowance().map(|a| (a.face, a.used));
    let mut turn_ended = false;
    for (index, order) in declaration.orders().iter().enumerate() {
        let roll = |chance: &mut C, what: &str| -> Result<u8, ResolveError> {
            chance
                .d6(&format!("{what} {order}"))
                .map_err(|error| ResolveError::Chance {
                    index,
                    order: *order,
                    error,
                })
        };
        let was_over = s.outcome().is_some();
        let (mark, effect) = if let Some(o) = s.outcome() {
            (Mark::Skipped, Effect::Skipped(SkipReason::GameOver(o)))
        } else {
            match *order {
                Order::Phase(Phase::Move) => {
                    s.set_phase(Phase::Move);
                    // CS-P4: under the faithful turn `Move` is declared
                    // alone and always draws the allowance, which the
                    // steps after it are chosen by.
                    if faithful || declaration.has_steps() {
                        let face =
                            chance
                                .d6("allowance")
                                .map_err(|error| ResolveError::Chance {
                                    index,
                                    order: *order,
                                    error,
                                })?;
                        allowance = Some((face, 0));
                        (mark_of(face), Effect::Allowance { face })
                    } else {
                        (Mark::Plain, Effect::PhaseBegun(Phase::Move))
                    }
                }
                Order::Phase(p) => {
                    s.set_phase(p);
                    (Mark::Plain, Effect::PhaseBegun(p))
                }
                Order::End => {
                    s.end_turn();
                    turn_ended = true;
                    (
                        Mark::Plain,
                        Effect::TurnEnded {
                            next: s.turn(),
                            round: s.round(),
                        },
                    )
                }
                Order::Step { .. } | Order::Breach { .. } | Order::Attack { .. } => {
                    if let Some(p) = order.phase() {
                        s.set_phase(p);
                    }
                    match (order, allowance) {
                        (Order::Step { .. }, Some((face, used))) if used >= face => (
                            Mark::Skipped,
                            Effect::Skipped(SkipReason::AllowanceSpent { allowance: face }),
                        ),
                        _ => match plan(&s, order) {
                            None => (Mark::Plain, Effect::PhaseBegun(s.phase())),
                            Some(Err(e)) => {
                                (Mark::Skipped, Effect::Skipped(SkipReason::Impossible(e)))
                            }
                            Some(Ok(Plan::Step(p))) => {
                                if let Some((_, used)) = allowance.as_mut() {
                                    *used += 1;
                                }
                                carry_step(&mut s, order, p, &mut |what| roll(chance, what))?
                            }
                            Some(Ok(Plan::Breach(p))) => {
                                carry_breach(&mut s, order, p, &mut |what| roll(chance, what))?
                            }
                            Some(Ok(Plan::Attack(p))) => {
                                carry_attack(&mut s, order, p, &mut |what| roll(chance, what))?
                            }
                        },
                    }
                }
            }
        };
        // The game ended with this order if it was not over before it.
        let ended = if was_over { None } else { s.outcome() };
        report.push(OrderOutcome {
            index,
            order: *order,
            mark,
            effect,
            ended,
        });
    }
    // CS-P4: the allowance carries over to the next declaration (the turn's
    // end has already cleared it).
    if faithful && !turn_ended {
        s.set_allowance(allowance.map(|(face, used)| Allowance { face, used }));
    }
    // CS-P1: the Move phase is one declaration; after it comes Breach.
    // Under CS-P4 the Move phase lasts until a later phase is declared.
    if !faithful
        && declaration.orders().contains(&Order::Phase(Phase::Move))
        && !turn_ended
        && s.phase() == Phase::Move
    {
        s.set_phase(Phase::Breach);
    }
    Ok(Resolution { state: s, report })
}

fn mark_of(face: u8) -> Mark {
    Face::new(face).map_or(Mark::Plain, Mark::Roll)
}

type Roll<'a> = dyn FnMut(&str) -> Result<u8, ResolveError> + 'a;

/// CS-13 to CS-24, CS-46.
fn carry_step(
    s: &mut State,
    order: &Order,
    plan: super::step::StepPlan,
    roll: &mut Roll<'_>,
) -> Result<(Mark, Effect), ResolveError> {
    let Order::Step {
        unit: kind,
        from,
        to,
    } = *order
    else {
        return Ok((Mark::Plain, Effect::PhaseBegun(Phase::Move)));
    };
    let side = s.turn();
    let (mark, effect, arrived) = match plan.entry {
        None => (Mark::Plain, Effect::Stepped { kind, from, to }, true),
        Some(condition) => {
            let face = roll("entry")?;
            let entered = face >= condition.need();
            (
                mark_of(face),
                Effect::Entry {
                    kind,
                    from,
                    to,
                    condition,
                    face,
                    entered,
                },
                entered,
            )
        }
    };
    // CS-16: only this unit moves; a tower carries nobody.
    if let Some(u) = s.unit_mut(plan.unit) {
        // CS-24: a failed entry still spends the unit's move.
        u.moved = true;
        if arrived {
            u.square = to;
        }
    }
    // CS-46: the Attacker wins the moment a unit completes a move into a
    // victory square.
    if arrived && side == Side::Attacker && is_victory(to) {
        s.set_outcome(Outcome {
            winner: Side::Attacker,
            reason: WinReason::VictorySquare(to),
        });
    }
    Ok((mark, effect))
}

/// CS-27 to CS-30.
fn carry_breach(
    s: &mut State,
    order: &Order,
    plan: super::breach::BreachPlan,
    roll: &mut Roll<'_>,
) -> Result<(Mark, Effect), ResolveError> {
    let Order::Breach {
        unit: kind, target, ..
    } = *order
    else {
        return Ok((Mark::Plain, Effect::PhaseBegun(Phase::Breach)));
    };
    let face = roll("breach")?;
    let breached = face >= plan.need;
    // CS-30: any attempt uses up the unit's attack.
    if let Some(u) = s.unit_mut(plan.unit) {
        u.acted = true;
    }
    if breached {
        s.add_breach(target);
    }
    Ok((
        mark_of(face),
        Effect::BreachAttempt {
            kind,
            target,
            need: plan.need,
            face,
            breached,
        },
    ))
}

/// CS-33 to CS-45, CS-47 to CS-49.
fn carry_attack(
    s: &mut State,
    order: &Order,
    plan: super::attack::AttackPlan,
    roll: &mut Roll<'_>,
) -> Result<(Mark, Effect), ResolveError> {
    let Order::Attack {
        unit: kind,
        victim,
        target,
        ..
    } = *order
    else {
        return Ok((Mark::Plain, Effect::PhaseBegun(Phase::Attack)));
    };
    let face = roll("attack")?;
    let killed = face >= plan.need;
    if let Some(u) = s.unit_mut(plan.unit) {
        u.acted = true;
    }
    if killed {
        // CS-34: the dead are removed at once.
        s.remove(plan.victim);
        if let Some(o) = s.attrition_outcome() {
            s.set_outcome(o);
        }
    }
    Ok((
        mark_of(face),
        Effect::Attack {
            kind,
            victim,
            target,
            how: plan.kind,
            need: plan.need,
            face,
            killed,
        },
    ))
}
