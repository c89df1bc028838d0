//! Castle Siege behind the game-generic [`GameReplay`] door, for signed
//! records (`docs/fair-play.md`, section 9) and the hot-seat harness.
//!
//! A signed game runs in two stages:
//!
//! 1. **Secret setups** (CS-07 to CS-10, CS-09 as superseded). Each side
//!    seals its placement: its move is `Defender:sealed` (or
//!    `Attacker:sealed`) and its turn carries the commitment. Once both are
//!    sealed, each reveals: its move is the placement
//!    (`Defender:CKAO/OACK/KCOA/AOKC`) and its turn carries the opening,
//!    which must open to exactly that token's text (the canonical setup
//!    bytes). Both sides act at once in each step, in either order (CS-07):
//!    nobody can reveal before both have sealed, and nobody can seal after a
//!    reveal.
//! 2. **Turns.** A player's turn is one or more declarations (CS-P1,
//!    CS-P2); each declaration is one roll. The roll request declares the
//!    orders unmarked (`Move Kb4-c4 Attack Ab5xKc5 End`); the turn that
//!    carries the roll's outcomes plays the same orders as resolved, each
//!    with its die face or `/skip` (`Move@2 Kb4-c4@4 Attack Ab5xKc5@6 End`),
//!    so a reader sees every face. Replaying resolves the declaration with
//!    the recorded dice and requires exactly the written tokens; the signed
//!    replay requires the tokens, marks stripped, to be the declaration, and
//!    the skipped ones to be the ones its evidence records as skipped (they
//!    drew no die). A declaration that draws no die (`Breach` alone, `End`)
//!    needs no roll. Under the faithful turn (CS-P4, `turn: faithful`) each
//!    order is a declaration of its own: `Move` (the allowance), each step,
//!    each breach, each attack.

use yam_notation::castle_siege::{CastleSiegeGrammar, Mark, Order, Phase, Side, Token};
use yam_notation::{Dots, GameKind, GameResult, MoveGrammar};

use super::declaration::Declaration;
use super::diagram::diagram;
use super::legal::legal_orders;
use super::resolve::{ResolveError, resolve};
use super::ruleset::Rules;
use super::setup::Setup;
use super::state::State;
use crate::fair_play::chance::Chance;
use crate::fair_play::turn::MoveToken;
use crate::replay::{
    BuiltinReplay, GameEnd, GameReplay, Resolved, RulesError, SecretSetup, Snapshot, SpellingError,
};
use serde::{Deserialize, Serialize};

/// Where the secret setups stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupStage {
    /// Not both sides have sealed their setups yet (CS-07).
    Sealing,
    /// Both have sealed; not both have revealed (CS-10).
    Revealing,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
enum Stage {
    /// CS-07 to CS-10: which side has sealed, and what each revealed.
    Setup {
        sealed: [bool; 2],
        revealed: [Option<Setup>; 2],
    },
    /// Both setups revealed: the game.
    Play(Box<State>),
}

/// A Castle Siege game being replayed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CastleSiegeReplay {
    rules: Rules,
    stage: Stage,
}

const SIDES: [Side; 2] = [Side::Defender, Side::Attacker];

/// The side of a Castle Siege seat: the Defender sits first.
pub fn side_of(seat: usize) -> Side {
    if seat == 0 {
        Side::Defender
    } else {
        Side::Attacker
    }
}

fn token_text(token: &Token) -> String {
    let mut out = String::new();
    CastleSiegeGrammar::write_move(token, &mut out);
    out
}

impl CastleSiegeReplay {
    /// A game under `rules`, before the setups.
    pub fn new(rules: Rules) -> Self {
        CastleSiegeReplay {
            rules,
            stage: Stage::Setup {
                sealed: [false; 2],
                revealed: [None, None],
            },
        }
    }

    /// The flags.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The game once both setups are revealed.
    pub fn state(&self) -> Option<&State> {
        match &self.stage {
            Stage::Play(state) => Some(state),
            Stage::Setup { .. } => None,
        }
    }

    /// Where the secret setups stand, until both are revealed.
    pub fn setup_stage(&self) -> Option<SetupStage> {
        match &self.stage {
            Stage::Setup { sealed, .. } if sealed.iter().all(|s| *s) => Some(SetupStage::Revealing),
            Stage::Setup { .. } => Some(SetupStage::Sealing),
            Stage::Play(_) => None,
        }
    }

    fn refuse(&self, index: usize, reason: impl Into<String>) -> RulesError {
        RulesError {
            index,
            reason: reason.into(),
            position: GameReplay::position(self),
        }
    }

    /// A setup step by `seat`: one token, sealing or revealing.
    fn setup_step(&mut self, seat: usize, moves: &[MoveToken]) -> Result<(), RulesError> {
        let me = side_of(seat);
        let [token] = moves else {
            return Err(self.refuse(
                0,
                format!(
                    "a setup turn is one token ({me}:sealed, then the placement), not {}",
                    moves.len()
                ),
            ));
        };
        let parsed = Token::parse(token.as_str())
            .map_err(|e| self.refuse(0, format!("{token} is not a Castle Siege token: {e}")))?;
        let owner = match &parsed {
            Token::Sealed(side) => Some(*side),
            Token::Setup(p) => Some(p.side()),
            Token::Order { .. } => None,
        };
        if owner.is_some_and(|side| side != me) {
            return Err(self.refuse(
                0,
                format!(
                    "{token} is not the {me}'s to play: each side seals and reveals its own setup"
                ),
            ));
        }
        let stage = self.setup_stage();
        let setup = match (stage, parsed) {
            (Some(SetupStage::Sealing), Token::Sealed(_)) => None,
            (Some(SetupStage::Revealing), Token::Setup(placement)) => Some(
                // CS-08: exactly the side's army, one unit per setup square.
                Setup::new(placement).map_err(|e| self.refuse(0, format!("{token}: {e}")))?,
            ),
            (Some(SetupStage::Sealing), _) => {
                return Err(self.refuse(
                    0,
                    format!(
                        "both setups are sealed before either is revealed (CS-07; CS-09 as superseded by the fair-play commitments): the {me} plays {me}:sealed with its commitment"
                    ),
                ));
            }
            (_, Token::Sealed(_)) => {
                return Err(self.refuse(
                    0,
                    format!("the {me} has already sealed its setup; it now reveals it"),
                ));
            }
            _ => {
                return Err(self.refuse(
                    0,
                    format!(
                        "the orders begin once both setups are revealed (CS-10): the {me} reveals its placement"
                    ),
                ));
            }
        };
        let rules = self.rules;
        let Stage::Setup { sealed, revealed } = &mut self.stage else {
            return Ok(());
        };
        match setup {
            None => sealed[seat] = true,
            Some(setup) => revealed[seat] = Some(setup),
        }
        if let [Some(defender), Some(attacker)] = revealed {
            let state = State::new(rules, defender, attacker).map_err(|e| RulesError {
                index: 0,
                reason: e.to_string(),
                position: String::new(),
            })?;
            self.stage = Stage::Play(Box::new(state));
        }
        Ok(())
    }

    /// A turn of orders: the tokens as the movetext shows them, resolved
    /// with `chance`; they must come out exactly as written.
    fn orders(&mut self, moves: &[MoveToken], chance: &mut dyn Chance) -> Result<(), RulesError> {
        let Stage::Play(state) = &self.stage else {
            return Err(self.refuse(0, "the setups are not revealed yet"));
        };
        let mut written = Vec::with_capacity(moves.len());
        for (i, token) in moves.iter().enumerate() {
            match Token::parse(token.as_str()) {
                Ok(t @ Token::Order { .. }) => written.push(t),
                Ok(other) => {
                    return Err(self.refuse(
                        i,
                        format!("{other}: a setup token among the orders of a turn"),
                    ));
                }
                Err(e) => {
                    return Err(self.refuse(i, format!("{token} is not a Castle Siege token: {e}")));
                }
            }
        }
        let declared: Vec<Token> = written
            .iter()
            .map(|t| match t {
                Token::Order { order, .. } => Token::declared(*order),
                other => other.clone(),
            })
            .collect();
        let resolution =
            resolve_tokens(state, &declared, chance).map_err(|e| self.unresolved(e))?;
        for (i, (w, r)) in written.iter().zip(resolution.tokens()).enumerate() {
            if *w != r {
                return Err(self.refuse(
                    i,
                    format!("the move says {w}, but the referee resolves it as {r} with the recorded dice"),
                ));
            }
        }
        self.stage = Stage::Play(Box::new(resolution.state));
        Ok(())
    }
}

/// Why declared tokens did not resolve: the order at fault, why, and
/// whether it was the chance that failed (not the rules).
struct Unresolved {
    index: usize,
    reason: String,
    chance: bool,
}

impl CastleSiegeReplay {
    /// The refusal of an unresolved turn. A chance that failed is the
    /// caller's to report (a roll request's probe ends every valid
    /// request's replay that way, and discards the error): the position
    /// is not drawn for it (drawing the board was a quarter of the CPU of
    /// a turn late in a long game).
    fn unresolved(&self, e: Unresolved) -> RulesError {
        if e.chance {
            RulesError {
                index: e.index,
                reason: e.reason,
                position: String::new(),
            }
        } else {
            self.refuse(e.index, e.reason)
        }
    }
}

/// Resolves declared tokens: the resolution, or the order at fault and why.
fn resolve_tokens(
    state: &State,
    declared: &[Token],
    chance: &mut dyn Chance,
) -> Result<super::resolve::Resolution, Unresolved> {
    let refused = |index: usize, reason: String| Unresolved {
        index,
        reason,
        chance: false,
    };
    let declaration = Declaration::from_tokens(declared)
        .map_err(|r| refused(r.index.unwrap_or(0), r.to_string()))?;
    if declaration.orders().is_empty() {
        return Err(refused(0, "a turn declares at least one order".to_owned()));
    }
    resolve(state, &declaration, chance).map_err(|e| match e {
        ResolveError::Refused(r) => refused(r.index.unwrap_or(0), r.to_string()),
        ResolveError::Chance { index, error, .. } => Unresolved {
            index,
            reason: error.to_string(),
            chance: true,
        },
    })
}

impl GameReplay for CastleSiegeReplay {
    fn saved(&self) -> Option<crate::signed::tip::SavedGame<'_>> {
        Some(crate::signed::tip::SavedGame::CastleSiege(self))
    }

    fn game(&self) -> GameKind {
        GameKind::CastleSiege
    }

    fn seats(&self) -> &'static [&'static str] {
        &["defender", "attacker"]
    }

    fn to_move(&self) -> Option<usize> {
        match &self.stage {
            Stage::Setup { .. } => (0..2).find(|&seat| self.may_play(seat)),
            Stage::Play(state) => match state.outcome() {
                Some(_) => None,
                None => Some(state.turn().index()),
            },
        }
    }

    fn no_draw_by_agreement(&self) -> Option<&'static str> {
        Some("Castle Siege has no draws: the round cap ends the game as a Defender win (CS-50)")
    }

    fn may_play(&self, seat: usize) -> bool {
        match (&self.stage, self.setup_stage()) {
            // CS-07: both sides seal, then both reveal, each in any order.
            (Stage::Setup { sealed, .. }, Some(SetupStage::Sealing)) => seat < 2 && !sealed[seat],
            (Stage::Setup { revealed, .. }, _) => seat < 2 && revealed[seat].is_none(),
            (Stage::Play(_), _) => self.to_move() == Some(seat),
        }
    }

    fn move_number(&self) -> (u32, Dots) {
        match &self.stage {
            // The setups come before the first numbered move.
            Stage::Setup { .. } => (0, Dots::One),
            Stage::Play(state) => (
                state.round(),
                match state.turn() {
                    Side::Defender => Dots::One,
                    Side::Attacker => Dots::Three,
                },
            ),
        }
    }

    fn canonical_token(&self, written: &str) -> Result<String, SpellingError> {
        CastleSiegeGrammar::parse_move(written)
            .map(|t| token_text(&t))
            .map_err(|e| SpellingError {
                expected: format!("a Castle Siege token: {e}"),
            })
    }

    fn canonical_order(&self, written: &str) -> Result<String, SpellingError> {
        match CastleSiegeGrammar::parse_move(written) {
            Ok(Token::Order {
                order,
                mark: Mark::Plain,
            }) => Ok(order.to_string()),
            Ok(Token::Order { order, .. }) => Err(SpellingError {
                expected: format!(
                    "an order as declared, without a die face or /skip ({order}): nobody knows a die before declaring what it resolves (CS-P2)"
                ),
            }),
            Ok(other) => Ok(token_text(&other)),
            Err(e) => Err(SpellingError {
                expected: format!("a Castle Siege order: {e}"),
            }),
        }
    }

    fn play(&mut self, moves: &[MoveToken], chance: &mut dyn Chance) -> Result<(), RulesError> {
        let seat = self.to_move().unwrap_or(0);
        self.play_as(seat, moves, chance)
    }

    fn play_as(
        &mut self,
        seat: usize,
        moves: &[MoveToken],
        chance: &mut dyn Chance,
    ) -> Result<(), RulesError> {
        if let Some(end) = self.outcome() {
            return Err(self.refuse(0, format!("the game is over: {}", end.reason)));
        }
        if !self.may_play(seat) {
            return Err(self.refuse(0, format!("it is not the {}'s turn", side_of(seat))));
        }
        let mut next = self.clone();
        match self.stage {
            Stage::Setup { .. } => next.setup_step(seat, moves)?,
            Stage::Play(_) => next.orders(moves, chance)?,
        }
        *self = next;
        Ok(())
    }

    fn resolve(
        &self,
        seat: usize,
        orders: &[String],
        chance: &mut dyn Chance,
    ) -> Result<Resolved, RulesError> {
        let Stage::Play(state) = &self.stage else {
            // Setup steps draw nothing: the tokens are the moves.
            let tokens: Vec<MoveToken> = orders
                .iter()
                .filter_map(|o| MoveToken::new(o.as_str()).ok())
                .collect();
            let mut game = self.clone();
            game.play_as(seat, &tokens, chance)?;
            return Ok(Resolved {
                moves: orders.to_vec(),
                skipped: Vec::new(),
            });
        };
        if !self.may_play(seat) {
            return Err(self.refuse(0, format!("it is not the {}'s turn", side_of(seat))));
        }
        let mut declared = Vec::with_capacity(orders.len());
        for (i, order) in orders.iter().enumerate() {
            match Token::parse(order) {
                Ok(
                    t @ Token::Order {
                        mark: Mark::Plain, ..
                    },
                ) => declared.push(t),
                Ok(other) => {
                    return Err(self.refuse(i, format!("{other} is not an order as declared")));
                }
                Err(e) => return Err(self.refuse(i, format!("{order}: {e}"))),
            }
        }
        let resolution =
            resolve_tokens(state, &declared, chance).map_err(|e| self.unresolved(e))?;
        Ok(Resolved {
            moves: resolution.tokens().iter().map(token_text).collect(),
            skipped: resolution.skipped(),
        })
    }

    fn declared_order(&self, played: &str) -> Option<(String, bool)> {
        match Token::parse(played).ok()? {
            Token::Order { order, mark } => Some((order.to_string(), mark == Mark::Skipped)),
            other => Some((token_text(&other), false)),
        }
    }

    fn secret_setup(&self, moves: &[MoveToken]) -> SecretSetup {
        match moves {
            [one] => match Token::parse(one.as_str()) {
                Ok(Token::Sealed(_)) => SecretSetup::Seal,
                // The committed bytes are the canonical token's text
                // (`setup::Setup::canonical_bytes`).
                Ok(Token::Setup(p)) => SecretSetup::Reveal(p.to_string().into_bytes()),
                _ => SecretSetup::None,
            },
            _ => SecretSetup::None,
        }
    }

    fn outcome(&self) -> Option<GameEnd> {
        let outcome = self.state()?.outcome()?;
        Some(GameEnd {
            result: outcome.result().parse().unwrap_or(GameResult::Unfinished),
            reason: outcome.to_string(),
        })
    }

    fn snapshot(&self) -> Snapshot<'_> {
        match &self.stage {
            Stage::Setup { sealed, revealed } => Snapshot::SiegeSetup {
                sealed: sealed.iter().filter(|s| **s).count(),
                revealed: revealed.iter().filter(|r| r.is_some()).count(),
            },
            Stage::Play(state) => Snapshot::Siege(state),
        }
    }

    fn position(&self) -> String {
        match &self.stage {
            Stage::Play(state) => diagram(state),
            Stage::Setup { sealed, revealed } => {
                let word = |seat: usize| {
                    if revealed[seat].is_some() {
                        "revealed"
                    } else if sealed[seat] {
                        "sealed"
                    } else {
                        "not sealed"
                    }
                };
                format!(
                    "secret setups: the Defender's {}, the Attacker's {}",
                    word(0),
                    word(1)
                )
            }
        }
    }

    fn legal_moves(&self) -> Vec<String> {
        let Some(state) = self.state().filter(|s| s.outcome().is_none()) else {
            return Vec::new();
        };
        // CS-P4: under the faithful turn `Move` is offered until the
        // allowance is drawn, once a turn.
        let markers = [Phase::Move, Phase::Breach, Phase::Attack]
            .into_iter()
            .filter(|p| *p >= state.phase())
            .filter(|p| *p != Phase::Move || state.allowance().is_none())
            .map(Order::Phase);
        markers
            .chain(legal_orders(state))
            .chain([Order::End])
            .map(|o| o.to_string())
            .collect()
    }

    fn boxed_clone(&self) -> Box<dyn GameReplay> {
        Box::new(self.clone())
    }

    fn builtin(&self) -> Option<BuiltinReplay<'_>> {
        Some(BuiltinReplay::CastleSiege(self))
    }
}

/// The setup token each side seals its placement under.
pub fn sealed_token(side: Side) -> String {
    token_text(&Token::Sealed(side))
}

/// The two sides, in seat order.
pub fn sides() -> [Side; 2] {
    SIDES
}
