//! Lenient input, canonical records: a Genghis Khan move as a player types
//! it (`docs/notation.md`, "Typing moves").
//!
//! The record's tokens already read card names case-insensitively and by
//! any unique prefix (GK-N: `capture:M9=meat+temujin`; a prefix several
//! cards share is refused with the candidates). Typing adds the short form
//! a player reaches for: a capture that leaves out the Foe card, since it
//! can only be the top card of the attacked Foe (GK-02) —
//! `capture:10b+9e`, `capture=10b+9e` or `pay:10b+9e` — which becomes
//! `capture:M10/Tartars=10b+9e`. Anything else passes as typed, for the
//! game's spelling and rules to judge.

use std::fmt;

use yam_notation::genghis_khan::{FoeCard, Move};

use super::state::State;

/// What the short capture reads, in words.
pub const EXPECTED: &str =
    "a payment of Khan cards joined by + (short codes such as 9a, or names or their prefixes)";

/// Why a typed move was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// A short capture whose payment cannot be read: an unknown card, or a
    /// name prefix several cards share (the candidates are in `expected`).
    Unreadable {
        /// What was typed.
        text: String,
        /// What was expected, in words.
        expected: String,
    },
    /// A short capture with no Foe card to capture: no Foe is attacked,
    /// or its row is empty.
    NoFoe {
        /// What was typed.
        text: String,
    },
}

impl std::error::Error for InputError {}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Unreadable { text, expected } => {
                write!(f, "cannot read `{text}`: expected {expected}")
            }
            InputError::NoFoe { text } => write!(
                f,
                "`{text}` captures the top card of the attacked Foe, but no Foe with cards is attacked: declare one first (attack:M)"
            ),
        }
    }
}

/// The moves of one turn as typed, each short capture completed with the
/// card it can only be: the top card of the Foe attacked before it (at the
/// turn's start, or by an `attack:` earlier in the turn), less the cards
/// captured before it in the turn. Other moves pass as typed.
pub fn resolve_turn(state: &State, typed: &[String]) -> Result<Vec<String>, InputError> {
    let mut target = state.target();
    let mut taken = 0;
    let mut out = Vec::with_capacity(typed.len());
    for text in typed {
        let t = text.trim();
        match Move::parse(t) {
            Ok(Move::Attack(deck)) => {
                target = Some(deck);
                taken = 0;
            }
            Ok(Move::Capture { .. }) => taken += 1,
            _ => {}
        }
        let top = target.and_then(|deck| {
            let row = state.row(deck);
            row.len().checked_sub(taken + 1).map(|i| row[i])
        });
        let resolved = resolve_with(top, t)?;
        if resolved != t {
            taken += 1;
        }
        out.push(resolved);
    }
    Ok(out)
}

/// One typed move at the start of a turn ([`resolve_turn`] of one move).
pub fn resolve_input(state: &State, text: &str) -> Result<String, InputError> {
    resolve_with(state.target().and_then(|deck| state.top(deck)), text.trim())
}

/// `t` completed with `top`, the card a short capture takes.
fn resolve_with(top: Option<FoeCard>, t: &str) -> Result<String, InputError> {
    if Move::parse(t).is_ok() {
        return Ok(t.to_owned());
    }
    let lower = t.to_ascii_lowercase();
    let Some(payment) = ["capture:", "capture=", "pay:", "pay="]
        .iter()
        .find(|p| lower.starts_with(*p))
        .map(|p| &t[p.len()..])
    else {
        return Ok(t.to_owned());
    };
    let Some(foe) = top else {
        return Err(InputError::NoFoe { text: t.to_owned() });
    };
    let full = format!("capture:{}={payment}", foe.code());
    Move::parse(&full)
        .map(|mv| mv.to_string())
        .map_err(|e| InputError::Unreadable {
            text: t.to_owned(),
            expected: e.expected.into_owned(),
        })
}
