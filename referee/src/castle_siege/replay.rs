//! Replaying a movetext from the faces it shows.
//!
//! A record's movetext carries every die face (`Kb4-c4@5`), so a game can be
//! replayed and checked without the fair-play evidence: each turn's tokens,
//! stripped of their marks, are resolved as one declaration, the dice coming
//! through the door for chance from the faces written in the tokens, in
//! order; the resolved tokens must then equal the written ones exactly (the
//! same faces, the same skips). This checks the rules, not the dice: that the
//! faces are the ones the fair-play stream gives is the record verifier's
//! job (`fair_play::record`, [`ReplayChance`](crate::fair_play::chance::ReplayChance)).
//!
//! Resolving a turn's tokens as one declaration gives the same results as
//! the declarations the players actually made: orders are carried out one
//! at a time either way, and a single declaration accepts everything a
//! split one does (CS-P2). Under the faithful turn (CS-P4) that is not so:
//! `Move` draws the allowance whether or not steps follow, and a step after
//! it is checked against the allowance left, so such a turn is split into
//! the declarations it was played as ([`faithful_declarations`]) and each
//! is resolved in turn.

use std::collections::VecDeque;
use std::ops::Range;

use yam_notation::castle_siege::{Mark, Order, Phase, Side, Token};

use super::declaration::Declaration;
use super::illegal::Refusal;
use super::resolve::{ResolveError, resolve};
use super::ruleset::{Rules, TurnMode};
use super::setup::{Setup, SetupError};
use super::state::State;
use crate::fair_play::chance::{Chance, ChanceError};
use crate::fair_play::outcome::{Assurance, SampleError};

/// Why a movetext does not replay.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// A setup token is wrong.
    #[error("token {}: {error}", .index + 1)]
    Setup {
        /// The token's position, from 0.
        index: usize,
        /// Why.
        error: SetupError,
    },
    /// A side's setup is missing, or given twice.
    #[error("the movetext must reveal one {0} setup before the first order")]
    MissingSetup(Side),
    /// A turn is refused.
    #[error("token {}: {refusal}", .index + 1)]
    Refused {
        /// The position of the token at fault, from 0.
        index: usize,
        /// Why.
        refusal: Refusal,
    },
    /// A die is missing, or more dice were asked for than the tokens show.
    #[error("token {}: {error}", .index + 1)]
    Dice {
        /// The position of the token at fault, from 0.
        index: usize,
        /// Why.
        error: ChanceError,
    },
    /// The referee resolves a token differently from what is written.
    #[error("token {}: the movetext says {written}, the referee gives {resolved}", .index + 1)]
    Mismatch {
        /// The position of the token, from 0.
        index: usize,
        /// What the movetext says.
        written: Token,
        /// What the referee gives.
        resolved: Token,
    },
    /// Tokens after the end of the game.
    #[error("token {}: the game is already over", .index + 1)]
    AfterEnd {
        /// The position of the token, from 0.
        index: usize,
    },
}

impl ReplayError {
    /// The position of the token at fault, from 0, when one token is.
    pub fn index(&self) -> Option<usize> {
        match self {
            ReplayError::Setup { index, .. }
            | ReplayError::Refused { index, .. }
            | ReplayError::Dice { index, .. }
            | ReplayError::Mismatch { index, .. }
            | ReplayError::AfterEnd { index } => Some(*index),
            ReplayError::MissingSetup(_) => None,
        }
    }
}

/// Dice read from the faces written in resolved tokens, handed out in order.
#[derive(Debug, Clone)]
struct WrittenDice {
    faces: VecDeque<u8>,
    used: usize,
}

impl Chance for WrittenDice {
    fn die(&mut self, purpose: &str, sides: u16) -> Result<u16, ChanceError> {
        if sides != 6 {
            return Err(ChanceError::Sample(SampleError::InvalidSides { sides }));
        }
        let face = self.faces.pop_front().ok_or_else(|| ChanceError::Missing {
            position: self.used,
            purpose: purpose.to_owned(),
        })?;
        self.used += 1;
        Ok(u16::from(face))
    }

    fn draw(&mut self, purpose: &str, _remaining: usize) -> Result<usize, ChanceError> {
        // Castle Siege draws no cards.
        Err(ChanceError::Missing {
            position: self.used,
            purpose: purpose.to_owned(),
        })
    }

    fn assurance(&self) -> Assurance {
        Assurance::Unverified
    }
}

/// A replayed movetext: the final state and every token's report line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// The state after the last token.
    pub state: State,
    /// How many order tokens were replayed.
    pub orders: usize,
    /// How many dice.
    pub dice: usize,
    /// Where each turn starts: the index of its first token (in the tokens
    /// given), its round and its side, the move number the writer prints
    /// before it (`3.` for the Defender, `3...` for the Attacker).
    pub turns: Vec<(usize, u32, Side)>,
}

/// Replays resolved order tokens from `state`, one turn (up to and
/// including `End`) at a time.
pub fn replay_turns(state: &State, tokens: &[Token]) -> Result<Replayed, ReplayError> {
    replay_from(state.clone(), tokens, 0)
}

fn replay_from(mut state: State, tokens: &[Token], offset: usize) -> Result<Replayed, ReplayError> {
    let mut start = 0;
    let mut dice = 0;
    let mut turns = Vec::new();
    while start < tokens.len() {
        if state.outcome().is_some() {
            return Err(ReplayError::AfterEnd {
                index: offset + start,
            });
        }
        let end = tokens[start..]
            .iter()
            .position(|t| {
                matches!(
                    t,
                    Token::Order {
                        order: Order::End,
                        ..
                    }
                )
            })
            .map_or(tokens.len(), |i| start + i + 1);
        turns.push((offset + start, state.round(), state.turn()));
        // CS-P4: under the faithful turn a turn is several declarations, each
        // resolved in the position the one before it left.
        let parts: Vec<Range<usize>> = match state.rules().turn {
            TurnMode::PriorityList => std::iter::once(start..end).collect(),
            TurnMode::Faithful => faithful_declarations(&tokens[start..end])
                .into_iter()
                .map(|r| start + r.start..start + r.end)
                .collect(),
        };
        for part in parts {
            let (next, drawn) = replay_declaration(&state, tokens, part, offset)?;
            dice += drawn;
            state = next;
        }
        start = end;
    }
    Ok(Replayed {
        state,
        orders: tokens.len(),
        dice,
        turns,
    })
}

/// CS-P4: how a faithful turn's tokens split into the declarations that
/// made them. `Move` and each step are declarations of their own; any other
/// declaration runs up to its first die-drawing order (a breach or an
/// attack) or `End`, whichever comes first.
pub fn faithful_declarations(tokens: &[Token]) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut from = 0;
    for (i, t) in tokens.iter().enumerate() {
        let Token::Order { order, .. } = t else {
            continue;
        };
        match order {
            Order::Phase(Phase::Move) | Order::Step { .. } => {
                if from < i {
                    parts.push(from..i);
                }
                parts.push(i..i + 1);
                from = i + 1;
            }
            Order::Breach { .. } | Order::Attack { .. } | Order::End => {
                parts.push(from..i + 1);
                from = i + 1;
            }
            Order::Phase(_) => {}
        }
    }
    if from < tokens.len() {
        parts.push(from..tokens.len());
    }
    parts
}

/// One declaration's resolved tokens, `tokens[part]`, resolved again from
/// the faces they show: the state after it and how many dice it drew.
fn replay_declaration(
    state: &State,
    tokens: &[Token],
    part: Range<usize>,
    offset: usize,
) -> Result<(State, usize), ReplayError> {
    let start = part.start;
    let turn = &tokens[part];
    let mut faces = VecDeque::new();
    let mut declared = Vec::with_capacity(turn.len());
    for (i, t) in turn.iter().enumerate() {
        match t {
            Token::Order { order, mark } => {
                if let Mark::Roll(f) = mark {
                    faces.push_back(f.get());
                }
                declared.push(Token::declared(*order));
            }
            other => {
                return Err(ReplayError::Refused {
                    index: offset + start + i,
                    refusal: Refusal {
                        index: Some(i),
                        order: None,
                        reason: super::illegal::Illegal::NotAnOrder(other.clone()),
                    },
                });
            }
        }
    }
    let declaration =
        Declaration::from_tokens(&declared).map_err(|refusal| ReplayError::Refused {
            index: offset + start + refusal.index.unwrap_or(0),
            refusal,
        })?;
    let mut chance = WrittenDice { faces, used: 0 };
    let resolution = resolve(state, &declaration, &mut chance).map_err(|e| match e {
        ResolveError::Refused(refusal) => ReplayError::Refused {
            index: offset + start + refusal.index.unwrap_or(0),
            refusal,
        },
        ResolveError::Chance { index, error, .. } => ReplayError::Dice {
            index: offset + start + index,
            error,
        },
    })?;
    for (i, (written, resolved)) in turn.iter().zip(resolution.tokens()).enumerate() {
        if *written != resolved {
            return Err(ReplayError::Mismatch {
                index: offset + start + i,
                written: written.clone(),
                resolved,
            });
        }
    }
    let drawn = resolution.dice();
    Ok((resolution.state, drawn))
}

/// One declaration's resolved tokens, resolved again from the faces they
/// show: what each order did, for reports and annotations. The tokens
/// must come out exactly as written.
pub fn resolve_written(
    state: &State,
    tokens: &[Token],
) -> Result<super::resolve::Resolution, ReplayError> {
    let mut faces = VecDeque::new();
    let mut declared = Vec::with_capacity(tokens.len());
    for t in tokens {
        if let Token::Order { order, mark } = t {
            if let Mark::Roll(f) = mark {
                faces.push_back(f.get());
            }
            declared.push(Token::declared(*order));
        } else {
            declared.push(t.clone());
        }
    }
    let declaration =
        Declaration::from_tokens(&declared).map_err(|refusal| ReplayError::Refused {
            index: refusal.index.unwrap_or(0),
            refusal,
        })?;
    let mut chance = WrittenDice { faces, used: 0 };
    let resolution = resolve(state, &declaration, &mut chance).map_err(|e| match e {
        ResolveError::Refused(refusal) => ReplayError::Refused {
            index: refusal.index.unwrap_or(0),
            refusal,
        },
        ResolveError::Chance { index, error, .. } => ReplayError::Dice { index, error },
    })?;
    for (index, (written, resolved)) in tokens.iter().zip(resolution.tokens()).enumerate() {
        if *written != resolved {
            return Err(ReplayError::Mismatch {
                index,
                written: written.clone(),
                resolved,
            });
        }
    }
    Ok(resolution)
}

/// How far a record's movetext has gone: still in its setups, or played.
#[derive(Debug, Clone)]
pub enum Staged {
    /// No order yet and not both setups revealed (CS-07 to CS-10): the
    /// game is in its setup stage. The setups revealed are legal.
    Setup {
        /// The sides whose setup is revealed.
        revealed: Vec<Side>,
        /// How many sealed setups the movetext shows.
        sealed: usize,
    },
    /// Both setups revealed: the orders replayed.
    Play(Replayed),
}

/// Replays a record's movetext like [`replay_record`], except that a record
/// still in its setup stage (no order, not both setups revealed) is not an
/// error but [`Staged::Setup`]: a game straight from its challenge, or with
/// its setups sealed, is a game in progress. Each revealed setup is held to
/// its rules, and a side revealed twice is refused.
pub fn replay_staged(rules: Rules, tokens: &[Token]) -> Result<Staged, ReplayError> {
    let in_setup = !tokens.iter().any(|t| matches!(t, Token::Order { .. }));
    if in_setup {
        let mut revealed: Vec<Side> = Vec::new();
        let mut sealed = 0;
        for (index, t) in tokens.iter().enumerate() {
            match t {
                Token::Sealed(_) => sealed += 1,
                Token::Setup(p) => {
                    let setup = Setup::new(p.clone())
                        .map_err(|error| ReplayError::Setup { index, error })?;
                    if revealed.contains(&setup.side()) {
                        return Err(ReplayError::MissingSetup(setup.side().opposite()));
                    }
                    revealed.push(setup.side());
                }
                // None here: `in_setup` says so.
                Token::Order { .. } => {}
            }
        }
        if revealed.len() < 2 {
            return Ok(Staged::Setup { revealed, sealed });
        }
    }
    replay_record(rules, tokens).map(Staged::Play)
}

/// Replays a whole movetext: the setups (each side's `sealed` marker
/// optional, then both placements, in any order), then the orders.
pub fn replay_record(rules: Rules, tokens: &[Token]) -> Result<Replayed, ReplayError> {
    let mut setups: [Option<Setup>; 2] = [None, None];
    let mut first_order = tokens.len();
    for (index, t) in tokens.iter().enumerate() {
        match t {
            Token::Sealed(_) => {}
            Token::Setup(p) => {
                let setup =
                    Setup::new(p.clone()).map_err(|error| ReplayError::Setup { index, error })?;
                let slot = &mut setups[setup.side().index()];
                if slot.is_some() {
                    return Err(ReplayError::MissingSetup(setup.side().opposite()));
                }
                *slot = Some(setup);
            }
            Token::Order { .. } => {
                first_order = index;
                break;
            }
        }
    }
    let [Some(defender), Some(attacker)] = setups else {
        let side = if setups[0].is_none() {
            Side::Defender
        } else {
            Side::Attacker
        };
        return Err(ReplayError::MissingSetup(side));
    };
    let start = State::new(rules, &defender, &attacker)
        .map_err(|error| ReplayError::Setup { index: 0, error })?;
    let rest = tokens.get(first_order..).unwrap_or(&[]);
    let mut replayed = replay_from(start, rest, first_order)?;
    replayed.orders = rest.len();
    Ok(replayed)
}
