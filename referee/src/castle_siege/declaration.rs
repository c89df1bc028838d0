//! Declarations: the orders a player commits to before the dice that
//! resolve them are drawn, and the check that refuses an illegal one before
//! any die (project decisions CS-P1 and CS-P2 in `docs/rules/castle-siege.md`).
//!
//! A declaration is a list of orders in the order they will be carried out.
//! It may cover one phase, several, or a whole turn ending with `End`. Each
//! order is checked against the position as it stands when declared, on its
//! own. An order that fails is refused, and with it the declaration, unless
//! an earlier order of the same declaration could make it legal:
//!
//! - a breach or an attack by a unit that is not on its square yet, when an
//!   earlier step of the declaration moves a unit of that type there;
//! - a step into a full square, when an earlier step moves a friendly unit
//!   out of that square.
//!
//! Such an order, like any order that becomes impossible during resolution
//! (its unit died or already acted, its target died, the allowance ran out,
//! the game ended), is skipped and draws no die.
//!
//! Under the faithful turn (CS-P4, ruleset flag `turn: faithful`) each
//! order is chosen once the dice before it are known: `Move` alone draws
//! the allowance, each step is a declaration of its own and needs some of
//! the allowance left, and any other declaration draws at most one die,
//! with its last order. Nothing is then ever skipped for an earlier die.

use std::str::FromStr;

use yam_notation::castle_siege::{Mark, Order, Phase, Token};

use super::attack::{AttackPlan, check_attack};
use super::breach::{BreachPlan, check_breach};
use super::illegal::{Illegal, Refusal};
use super::ruleset::TurnMode;
use super::state::State;
use super::step::{StepPlan, check_step};

/// The orders a player declares, in the order they are carried out.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Declaration {
    orders: Vec<Order>,
}

impl Declaration {
    /// A declaration of `orders`.
    pub fn new(orders: impl IntoIterator<Item = Order>) -> Declaration {
        Declaration {
            orders: orders.into_iter().collect(),
        }
    }

    /// A declaration from tokens, which must be declared orders: a die face
    /// or `/skip` on a declared order is refused (nobody knows a die before
    /// declaring what it resolves).
    pub fn from_tokens<'a>(
        tokens: impl IntoIterator<Item = &'a Token>,
    ) -> Result<Declaration, Refusal> {
        let mut orders = Vec::new();
        for (i, token) in tokens.into_iter().enumerate() {
            match token {
                Token::Order {
                    order,
                    mark: Mark::Plain,
                } => orders.push(*order),
                Token::Order { order, .. } => {
                    return Err(Refusal::at(i, *order, Illegal::NotDeclared(token.clone())));
                }
                _ => {
                    return Err(Refusal {
                        index: Some(i),
                        order: None,
                        reason: Illegal::NotAnOrder(token.clone()),
                    });
                }
            }
        }
        Ok(Declaration { orders })
    }

    /// The orders.
    pub fn orders(&self) -> &[Order] {
        &self.orders
    }

    /// Each order's canonical text, as the fair-play layer's roll
    /// declaration carries them.
    pub fn texts(&self) -> Vec<String> {
        self.orders.iter().map(Order::to_string).collect()
    }

    /// Whether the declaration has step orders (and so draws the allowance).
    pub fn has_steps(&self) -> bool {
        self.orders.iter().any(|o| matches!(o, Order::Step { .. }))
    }
}

impl FromStr for Declaration {
    type Err = Refusal;

    /// Orders separated by whitespace: `Move Kb2-c3 Tb3-b4 Attack Ab5xKc5 End`.
    fn from_str(s: &str) -> Result<Declaration, Refusal> {
        let mut tokens = Vec::new();
        for (i, word) in s.split_whitespace().enumerate() {
            let token = Token::parse(word).map_err(|error| Refusal {
                index: Some(i),
                order: None,
                reason: Illegal::BadToken {
                    token: word.to_owned(),
                    error,
                },
            })?;
            tokens.push(token);
        }
        Declaration::from_tokens(&tokens)
    }
}

/// What a legal order will do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    Step(StepPlan),
    Breach(BreachPlan),
    Attack(AttackPlan),
}

/// The plan of a step, breach or attack order in `state`; `None` for markers.
pub(crate) fn plan(state: &State, order: &Order) -> Option<Result<Plan, Illegal>> {
    Some(match *order {
        Order::Step { unit, from, to } => check_step(state, unit, from, to).map(Plan::Step),
        Order::Breach { unit, from, target } => {
            check_breach(state, unit, from, target).map(Plan::Breach)
        }
        Order::Attack {
            unit,
            from,
            victim,
            target,
        } => check_attack(state, unit, from, victim, target).map(Plan::Attack),
        Order::Phase(_) | Order::End => return None,
    })
}

/// Whether `order` is legal for the side to move in `state` as it stands,
/// on its own, whatever the phase (phase order is a declaration's matter).
pub fn check_order(state: &State, order: &Order) -> Result<(), Illegal> {
    if let Some(o) = state.outcome() {
        return Err(Illegal::GameOver(o));
    }
    match plan(state, order) {
        Some(Err(e)) => Err(e),
        _ => Ok(()),
    }
}

/// Checks a whole declaration against `state` before any die is drawn.
pub fn check(state: &State, declaration: &Declaration) -> Result<(), Refusal> {
    if let Some(o) = state.outcome() {
        return Err(Refusal::whole(Illegal::GameOver(o)));
    }
    let orders = declaration.orders();
    if orders.is_empty() {
        return Err(Refusal::whole(Illegal::EmptyDeclaration));
    }
    let faithful = state.rules().turn == TurnMode::Faithful;
    if faithful {
        faithful_shape(state, orders)?;
    }
    // CS-11: the phases in order, from the one the turn has reached.
    let mut current = state.phase();
    // CS-P4: a Move declaration of an earlier declaration drew the
    // allowance this turn.
    let mut move_declared = state.allowance().is_some();
    let mut ended = false;
    for (i, order) in orders.iter().enumerate() {
        let refuse = |reason| Err(Refusal::at(i, *order, reason));
        if ended {
            return refuse(Illegal::AfterEnd);
        }
        match order.phase() {
            None => ended = true,
            Some(phase) => {
                if phase < current {
                    return refuse(Illegal::PhaseOver { phase, current });
                }
                match order {
                    Order::Phase(Phase::Move) if move_declared => {
                        return refuse(Illegal::SecondMove);
                    }
                    Order::Phase(Phase::Move) => move_declared = true,
                    // CS-P4: a step needs the allowance drawn by an earlier
                    // Move declaration, and some of it left.
                    Order::Step { .. } if faithful => match state.allowance() {
                        None => return refuse(Illegal::NoAllowance),
                        Some(a) if a.left() == 0 => {
                            return refuse(Illegal::AllowanceSpent { allowance: a.face });
                        }
                        Some(_) => {}
                    },
                    // CS-P1: steps follow the Move marker, which draws the
                    // allowance.
                    Order::Step { .. } if !move_declared => {
                        return refuse(Illegal::StepWithoutMove);
                    }
                    _ => {}
                }
                current = phase;
            }
        }
        if let Some(Err(reason)) = plan(state, order)
            && !curable(&reason, order, &orders[..i])
        {
            return refuse(reason);
        }
    }
    Ok(())
}

/// CS-P4, the faithful turn: each order is chosen once the dice before it
/// are known. So `Move` (which draws the allowance) and each step are
/// declarations of their own, and any other declaration draws at most one
/// die, with its last order: phase markers may lead up to a breach or an
/// attack, and `End` closes a declaration that draws nothing.
fn faithful_shape(state: &State, orders: &[Order]) -> Result<(), Refusal> {
    let alone = orders.len() == 1;
    for (i, order) in orders.iter().enumerate() {
        let refuse = |reason| Err(Refusal::at(i, *order, reason));
        match order {
            // CS-12: one allowance roll a turn, even under the faithful turn.
            Order::Phase(Phase::Move) if state.allowance().is_some() => {
                return refuse(Illegal::SecondMove);
            }
            Order::Phase(Phase::Move) if !alone => return refuse(Illegal::MoveNotAlone),
            Order::Step { .. } if !alone => return refuse(Illegal::StepNotAlone),
            Order::Breach { .. } | Order::Attack { .. } if i + 1 < orders.len() => {
                return refuse(Illegal::OrderAfterDie);
            }
            _ => {}
        }
    }
    Ok(())
}

/// CS-P2: whether an earlier order of the same declaration could make a
/// refused order legal by the time it is carried out.
fn curable(reason: &Illegal, order: &Order, earlier: &[Order]) -> bool {
    match (reason, order) {
        // The unit may arrive by an earlier step (units that arrive have
        // moved, so this never helps another step).
        (
            Illegal::NoUnit { .. },
            Order::Breach { unit, from, .. } | Order::Attack { unit, from, .. },
        ) => earlier
            .iter()
            .any(|e| matches!(e, Order::Step { unit: u, to, .. } if u == unit && to == from)),
        // A friendly unit may leave the full square first.
        (Illegal::StackFull { .. }, Order::Step { to, .. }) => earlier
            .iter()
            .any(|e| matches!(e, Order::Step { from, .. } if from == to)),
        _ => false,
    }
}
