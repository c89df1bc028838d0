//! Lenient input, canonical records: the orders a player types for a Castle
//! Siege declaration, each resolved to the one order it can mean.
//!
//! Besides the record's own tokens (`Move`, `Kb3-b4`, `Rb4#c4`, `Ab5xKc5`,
//! `End`, keywords in any case), an order may leave out what the position
//! tells (`docs/notation.md`, "Typing moves"):
//!
//! - the unit type, when the square names it: `b3-b4`, `b3b4`, `b4#c4`,
//!   `b5xc5`;
//! - the origin, when the unit type names it: `K-b4`, `Kb4`, `R#c4`, `AxKc5`;
//! - the enemy unit's type in an attack, when the target square names it:
//!   `Ab5xc5`, `Axc5`.
//!
//! A step is written with `-` or nothing between its squares, a breach with
//! `#`, an attack with `x`. Unit letters are upper case (`a`..`h` are
//! files); squares may be either case.
//!
//! Candidates are the legal orders of the position ([`legal_orders`](super::legal::legal_orders)),
//! together with those an earlier step of the same declaration makes
//! possible (`Move Kb4-c4 Attack c4xd5`: a knight is on c4 once it has
//! stepped there, CS-P2), which the declaration check then judges. One
//! candidate is the order; several are [`InputError::Ambiguous`]; none is
//! [`InputError::NoSuchOrder`] with the nearest legal orders of that kind.

use std::fmt;

use yam_notation::castle_siege::{Mark, Order, Square, Token, UnitKind};

use super::legal::{legal_attacks, legal_breaches, legal_steps};
use super::state::State;

/// How many nearest legal orders an impossible order is answered with.
pub const NEAREST: usize = 8;

/// What the reader expects, in words.
pub const EXPECTED: &str = "a Castle Siege order: Move, Breach, Attack or End, a step \
    (Kb3-b4, b3b4, Kb4), a breach (Rb4#c4, b4#c4, R#c4) or an attack (Ab5xKc5, Ab5xc5, b5xc5, AxKc5)";

/// The three kinds of order that name units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `-` or nothing: a step.
    Step,
    /// `#`: a breach attempt.
    Breach,
    /// `x`: an attack.
    Attack,
}

/// What a typed order says: each `None` is left for the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// Step, breach or attack.
    pub kind: Kind,
    /// The acting unit's type, if written.
    pub unit: Option<UnitKind>,
    /// Where it stands, if written.
    pub from: Option<Square>,
    /// The enemy unit's type (attacks only), if written.
    pub victim: Option<UnitKind>,
    /// The destination or target square, always written.
    pub target: Square,
}

impl Pattern {
    /// Reads a short order; `None` if `t` is not one. At least one of the
    /// unit type and the origin must be written.
    pub fn read(t: &str) -> Option<Pattern> {
        if !t.is_ascii() {
            return None;
        }
        let b = t.as_bytes();
        let [head @ .., f, r] = b else { return None };
        let target = square(*f, *r)?;
        let (kind, victim, head) = match head {
            [h @ .., b'x' | b'X', v] if v.is_ascii_uppercase() && *v != b'X' => {
                (Kind::Attack, Some(unit_letter(*v)?), h)
            }
            [h @ .., b'x' | b'X'] => (Kind::Attack, None, h),
            [h @ .., b'#'] => (Kind::Breach, None, h),
            [h @ .., b'-'] => (Kind::Step, None, h),
            h => (Kind::Step, None, h),
        };
        let (unit, from) = match head {
            [] => return None,
            [u] => (Some(unit_letter(*u)?), None),
            [f, r] => (None, Some(square(*f, *r)?)),
            [u, f, r] => (Some(unit_letter(*u)?), Some(square(*f, *r)?)),
            _ => return None,
        };
        Some(Pattern {
            kind,
            unit,
            from,
            victim,
            target,
        })
    }

    /// Whether `order` is one this pattern may mean.
    pub fn matches(&self, order: &Order) -> bool {
        let (kind, unit, from, victim, target) = parts(order);
        kind == Some(self.kind)
            && target == self.target
            && self.unit.is_none_or(|u| Some(u) == unit)
            && self.from.is_none_or(|f| Some(f) == from)
            && self.victim.is_none_or(|v| Some(v) == victim)
    }
}

fn parts(
    order: &Order,
) -> (
    Option<Kind>,
    Option<UnitKind>,
    Option<Square>,
    Option<UnitKind>,
    Square,
) {
    match *order {
        Order::Step { unit, from, to } => (Some(Kind::Step), Some(unit), Some(from), None, to),
        Order::Breach { unit, from, target } => {
            (Some(Kind::Breach), Some(unit), Some(from), None, target)
        }
        Order::Attack {
            unit,
            from,
            victim,
            target,
        } => (
            Some(Kind::Attack),
            Some(unit),
            Some(from),
            Some(victim),
            target,
        ),
        Order::Phase(_) | Order::End => (None, None, None, None, Square::A1),
    }
}

/// A unit letter: upper case only, since `a`..`h` are files.
fn unit_letter(c: u8) -> Option<UnitKind> {
    if c.is_ascii_uppercase() {
        UnitKind::from_letter(c as char)
    } else {
        None
    }
}

fn square(f: u8, r: u8) -> Option<Square> {
    let file = f.to_ascii_lowercase().wrapping_sub(b'a');
    let rank = r.wrapping_sub(b'1');
    Square::new(file, rank)
}

/// Why a typed order was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// The text is no order.
    Unreadable {
        /// What was typed.
        text: String,
        /// What the reader expected, in words.
        expected: String,
    },
    /// Several orders fit the text.
    Ambiguous {
        /// What was typed.
        text: String,
        /// Every order that fits, canonical, sorted.
        candidates: Vec<Order>,
    },
    /// No order fits the text.
    NoSuchOrder {
        /// What was typed.
        text: String,
        /// The nearest legal orders of the kind written (those of the unit
        /// type or from the square named, and those at the target), nearest
        /// target first; at most [`NEAREST`].
        nearest: Vec<Order>,
    },
}

impl std::error::Error for InputError {}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Unreadable { text, expected } => {
                write!(f, "cannot read `{text}`: expected {expected}")
            }
            InputError::Ambiguous { text, candidates } => write!(
                f,
                "`{text}` could be any of {}; write which (the unit type, its square or the enemy's type)",
                list(candidates)
            ),
            InputError::NoSuchOrder { text, nearest } => {
                write!(f, "no legal order is `{text}`")?;
                if nearest.is_empty() {
                    write!(f, "; there is no legal order of that kind to suggest")
                } else {
                    write!(f, "; the nearest legal orders: {}", list(nearest))
                }
            }
        }
    }
}

fn list(orders: &[Order]) -> String {
    orders
        .iter()
        .map(|o| o.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolves the typed orders of one declaration, in order, to canonical
/// tokens. The record's own tokens pass as written (spelled canonically
/// later, and judged by the declaration check with their reasons); short
/// forms are resolved against `state` and the steps declared before them.
pub fn resolve_declaration(state: &State, typed: &[String]) -> Result<Vec<String>, InputError> {
    let mut earlier: Vec<Order> = Vec::with_capacity(typed.len());
    let mut out = Vec::with_capacity(typed.len());
    for text in typed {
        let order = resolve_order(state, &earlier, text)?;
        match order {
            Some(order) => {
                earlier.push(order);
                out.push(order.to_string());
            }
            None => out.push(text.clone()),
        }
    }
    Ok(out)
}

/// Resolves one typed order after the `earlier` orders of its declaration:
/// `Ok(Some(order))` for an order in any form, `Ok(None)` for a token the
/// record's grammar reads that is not a declared order (a setup, or an
/// order with a die face), which is left to the rules.
pub fn resolve_order(
    state: &State,
    earlier: &[Order],
    text: &str,
) -> Result<Option<Order>, InputError> {
    let t = text.trim();
    match Token::parse(t) {
        Ok(Token::Order {
            order,
            mark: Mark::Plain,
        }) => return Ok(Some(order)),
        Ok(_) => return Ok(None),
        Err(_) => {}
    }
    let Some(pattern) = Pattern::read(t) else {
        return Err(InputError::Unreadable {
            text: t.to_owned(),
            expected: EXPECTED.to_owned(),
        });
    };
    let legal = match pattern.kind {
        // CS-P4: a step is read whatever the allowance; the check says why
        // it cannot be played yet, or any more.
        Kind::Step => legal_steps(&state.allowance_aside()),
        Kind::Breach => legal_breaches(state),
        Kind::Attack => legal_attacks(state),
    };
    let mut fitting: Vec<Order> = legal
        .iter()
        .copied()
        .chain(after_steps(state, earlier, &pattern))
        .filter(|o| pattern.matches(o))
        .collect();
    fitting.sort_by_key(|o| o.to_string());
    fitting.dedup();
    match fitting.as_slice() {
        [one] => Ok(Some(*one)),
        [] => Err(InputError::NoSuchOrder {
            text: t.to_owned(),
            nearest: nearest(state, &pattern, &legal),
        }),
        _ => Err(InputError::Ambiguous {
            text: t.to_owned(),
            candidates: fitting,
        }),
    }
}

/// The orders that units stepped by `earlier` orders could give from their
/// new squares (CS-P2: an earlier step may make a breach or an attack
/// legal). Not checked here: the declaration check judges them.
fn after_steps(state: &State, earlier: &[Order], pattern: &Pattern) -> Vec<Order> {
    let side = state.turn();
    let mut out = Vec::new();
    for o in earlier {
        let Order::Step { unit, to: from, .. } = *o else {
            continue;
        };
        match pattern.kind {
            Kind::Step => out.push(Order::Step {
                unit,
                from,
                to: pattern.target,
            }),
            Kind::Breach => out.push(Order::Breach {
                unit,
                from,
                target: pattern.target,
            }),
            Kind::Attack => {
                for v in state.units_at(pattern.target).filter(|v| v.side != side) {
                    out.push(Order::Attack {
                        unit,
                        from,
                        victim: v.kind,
                        target: pattern.target,
                    });
                }
            }
        }
    }
    out
}

/// The legal orders of the pattern's kind nearest to it: those of its unit
/// type or from its square, and those at its target, nearest target first.
fn nearest(state: &State, pattern: &Pattern, legal: &[Order]) -> Vec<Order> {
    let adjacency = state.rules().adjacency;
    let named = |o: &Order| {
        let (_, unit, from, _, _) = parts(o);
        (pattern.unit.is_some() || pattern.from.is_some())
            && pattern.unit.is_none_or(|u| Some(u) == unit)
            && pattern.from.is_none_or(|f| Some(f) == from)
    };
    let mut near: Vec<(u8, String, Order)> = legal
        .iter()
        .filter(|o| named(o) || parts(o).4 == pattern.target)
        .map(|o| {
            (
                adjacency.distance(parts(o).4, pattern.target),
                o.to_string(),
                *o,
            )
        })
        .collect();
    near.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    near.dedup_by(|a, b| a.1 == b.1);
    near.into_iter().take(NEAREST).map(|(_, _, o)| o).collect()
}
