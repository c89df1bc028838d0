//! The referee's move: what kind of move, from where, to where (KR-P1: a move
//! is identified by exactly these three, so a capture and a spell at one
//! piece are two moves, KR-4.4). Three bytes, `Copy`.

use std::fmt;

pub use yam_notation::khan::Action;

use super::square::Square;

/// A Khan move, resolved against no position yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// Move, capture, spell, exchange or transfer.
    pub action: Action,
    /// The square of the piece that acts (the caster, the exchange receiver,
    /// the carrier that transfers).
    pub from: Square,
    /// The target square.
    pub to: Square,
}

impl Move {
    /// A move of the given kind.
    pub const fn new(action: Action, from: Square, to: Square) -> Move {
        Move { action, from, to }
    }

    /// A move to an empty square (`-`).
    pub const fn step(from: Square, to: Square) -> Move {
        Move::new(Action::Move, from, to)
    }

    /// A capture (`x`).
    pub const fn capture(from: Square, to: Square) -> Move {
        Move::new(Action::Capture, from, to)
    }

    /// A spell (`*`).
    pub const fn spell(from: Square, to: Square) -> Move {
        Move::new(Action::Spell, from, to)
    }

    /// An exchange (`<>`), receiver on `from`, giver on `to`.
    pub const fn exchange(from: Square, to: Square) -> Move {
        Move::new(Action::Exchange, from, to)
    }

    /// A transfer (`>`) of the captive carried on `from` to the piece on `to`.
    pub const fn transfer(from: Square, to: Square) -> Move {
        Move::new(Action::Transfer, from, to)
    }
}

impl fmt::Display for Move {
    /// `g4-f5`, `g4xf5`, `f5*h5`, `e2<>f1`, `e2>d1`: the token without its
    /// piece letter and promotion, which need the position.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.from, self.action.mark(), self.to)
    }
}
