//! Positions written compactly, and dice that say what they were asked for.

use std::collections::VecDeque;

use crate::castle_siege::{
    Declaration, Illegal, Refusal, Resolution, ResolveError, Rules, Ruleset, Side, Square, State,
    UnitKind, resolve,
};
use crate::fair_play::chance::{Chance, ChanceError};
use crate::fair_play::outcome::Assurance;

/// The standard flags.
pub fn standard() -> Rules {
    Ruleset::standard().rules
}

/// Units written as `Kb4 Tb4 Sc3`, for one side.
fn units(side: Side, text: &str) -> Vec<(Side, UnitKind, Square)> {
    text.split_whitespace()
        .map(|w| {
            let mut chars = w.chars();
            let kind = chars
                .next()
                .and_then(UnitKind::from_letter)
                .unwrap_or_else(|| panic!("a unit letter in {w}"));
            let sq: Square = chars
                .as_str()
                .parse()
                .unwrap_or_else(|_| panic!("a square in {w}"));
            (side, kind, sq)
        })
        .collect()
}

/// A position: the Defender's units, the Attacker's, the breaches, whose
/// turn, at the start of round 1's Move phase.
pub fn pos(rules: Rules, defenders: &str, attackers: &str, breaches: &str, turn: Side) -> State {
    let mut all = units(Side::Defender, defenders);
    all.extend(units(Side::Attacker, attackers));
    let breaches: Vec<Square> = breaches
        .split_whitespace()
        .map(|s| s.parse().expect("a square"))
        .collect();
    State::from_units(rules, all, breaches, turn, 1).expect("a legal test position")
}

/// Filler that keeps the game alive: 11 attackers in the corners, infantry
/// among them (CS-47, CS-49). It leaves 6 knights, 3 sappers and 2 of every
/// other type for a test.
pub const ATTACKER_FILLER: &str = "Ka1 Sa2 Ca3 Th1 Rh2 Ah3 Cb1 Tg1 Ra8 Kh8 Ah7";

/// The Attacker to play with `attackers` plus the filler, and `defenders`.
pub fn attacking(rules: Rules, defenders: &str, attackers: &str, breaches: &str) -> State {
    pos(
        rules,
        defenders,
        &format!("{attackers} {ATTACKER_FILLER}"),
        breaches,
        Side::Attacker,
    )
}

/// The Defender to play.
pub fn defending(rules: Rules, defenders: &str, attackers: &str, breaches: &str) -> State {
    pos(
        rules,
        defenders,
        &format!("{attackers} {ATTACKER_FILLER}"),
        breaches,
        Side::Defender,
    )
}

/// Dice with set faces, keeping every purpose asked.
#[derive(Debug, Default)]
pub struct Dice {
    faces: VecDeque<u8>,
    pub asked: Vec<String>,
}

impl Dice {
    pub fn new(faces: &[u8]) -> Dice {
        Dice {
            faces: faces.iter().copied().collect(),
            asked: Vec::new(),
        }
    }

    /// Faces left over.
    pub fn left(&self) -> usize {
        self.faces.len()
    }
}

impl Chance for Dice {
    fn die(&mut self, purpose: &str, sides: u16) -> Result<u16, ChanceError> {
        assert_eq!(sides, 6, "Castle Siege rolls only d6");
        self.asked.push(purpose.to_owned());
        let position = self.asked.len() - 1;
        self.faces
            .pop_front()
            .map(u16::from)
            .ok_or(ChanceError::Missing {
                position,
                purpose: purpose.to_owned(),
            })
    }
    fn draw(&mut self, purpose: &str, _remaining: usize) -> Result<usize, ChanceError> {
        panic!("Castle Siege draws no cards ({purpose})")
    }
    fn assurance(&self) -> Assurance {
        Assurance::Unverified
    }
}

/// Resolves `text` with `faces`; every face must be used.
pub fn play(state: &State, text: &str, faces: &[u8]) -> Resolution {
    let decl: Declaration = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    let mut dice = Dice::new(faces);
    let r = resolve(state, &decl, &mut dice).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(
        dice.left(),
        0,
        "{text}: unused faces; asked {:?}",
        dice.asked
    );
    r
}

/// The resolved tokens as text.
pub fn tokens(r: &Resolution) -> String {
    r.tokens()
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Resolves `text`, which must be refused before any die; the reason.
pub fn refused(state: &State, text: &str) -> Refusal {
    let decl: Declaration = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    let mut dice = Dice::new(&[]);
    match resolve(state, &decl, &mut dice) {
        Err(ResolveError::Refused(r)) => {
            assert!(dice.asked.is_empty(), "a die was drawn before refusing");
            r
        }
        other => panic!("{text}: expected a refusal, got {other:?}"),
    }
}

/// The reason `text` is refused.
pub fn reason(state: &State, text: &str) -> Illegal {
    refused(state, text).reason
}

/// The skip reason of order `index` of a resolution, in words.
pub fn skip_words(r: &Resolution, index: usize) -> String {
    match &r.report[index].effect {
        crate::castle_siege::Effect::Skipped(s) => s.to_string(),
        other => panic!("order {index} was not skipped: {other:?}"),
    }
}

/// How many of `side`'s `kind` stand on `sq`.
pub fn at(state: &State, side: Side, kind: UnitKind, sq: Square) -> usize {
    state
        .units_at(sq)
        .filter(|u| u.side == side && u.kind == kind)
        .count()
}

/// The rules with some flags changed.
pub fn with(f: impl FnOnce(&mut Rules)) -> Rules {
    let mut r = standard();
    f(&mut r);
    r
}
