//! The legal orders of a position, for the side to move: each one passes
//! [`check_order`](super::check_order) on its own. Used by the self-play
//! driver, and by anything that offers a player a choice.

use yam_notation::castle_siege::{Order, Phase};

use super::army::{breach_profile, can_attack};
use super::attack::check_attack;
use super::board::{Square, is_castle};
use super::breach::check_breach;
use super::ruleset::TurnMode;
use super::state::State;
use super::step::check_step;

/// Every legal step (each unit type, square and destination once).
pub fn legal_steps(state: &State) -> Vec<Order> {
    let mut out = Vec::new();
    if state.outcome().is_some() {
        return out;
    }
    // CS-P4: under the faithful turn a step is legal only in the Move phase,
    // with the allowance drawn and some of it left.
    if state.rules().turn == TurnMode::Faithful
        && (state.phase() != Phase::Move || state.allowance().is_none_or(|a| a.left() == 0))
    {
        return out;
    }
    let side = state.turn();
    let adjacency = state.rules().adjacency;
    for u in state.units().iter().filter(|u| u.side == side && !u.moved) {
        for to in adjacency.neighbours(u.square) {
            let order = Order::Step {
                unit: u.kind,
                from: u.square,
                to,
            };
            if !out.contains(&order) && check_step(state, u.kind, u.square, to).is_ok() {
                out.push(order);
            }
        }
    }
    out
}

/// Every legal breach attempt.
pub fn legal_breaches(state: &State) -> Vec<Order> {
    let mut out = Vec::new();
    if state.outcome().is_some() {
        return out;
    }
    let side = state.turn();
    for u in state.units().iter().filter(|u| u.side == side && !u.acted) {
        if breach_profile(side, u.kind).is_none() {
            continue;
        }
        for target in Square::all().filter(|sq| is_castle(*sq)) {
            let order = Order::Breach {
                unit: u.kind,
                from: u.square,
                target,
            };
            if !out.contains(&order) && check_breach(state, u.kind, u.square, target).is_ok() {
                out.push(order);
            }
        }
    }
    out
}

/// Every legal attack (each attacker and each enemy type and square once).
pub fn legal_attacks(state: &State) -> Vec<Order> {
    let mut out = Vec::new();
    if state.outcome().is_some() {
        return out;
    }
    let side = state.turn();
    for u in state.units().iter().filter(|u| u.side == side && !u.acted) {
        if !can_attack(u.kind) {
            continue;
        }
        for v in state.units().iter().filter(|v| v.side != side) {
            let order = Order::Attack {
                unit: u.kind,
                from: u.square,
                victim: v.kind,
                target: v.square,
            };
            if !out.contains(&order)
                && check_attack(state, u.kind, u.square, v.kind, v.square).is_ok()
            {
                out.push(order);
            }
        }
    }
    out
}

/// Every legal step, breach attempt and attack, in that order.
pub fn legal_orders(state: &State) -> Vec<Order> {
    let mut all = legal_steps(state);
    all.extend(legal_breaches(state));
    all.extend(legal_attacks(state));
    all
}
