//! Genghis Khan behind the game-generic [`GameReplay`] door, for signed
//! records (`docs/fair-play.md`, section 9) and the hot-seat harness.
//!
//! The player is the only seat; the other party of every roll is a
//! tournament director's chain (mode `director`) or, in practice, an open
//! seed. Chance comes in two kinds of turns:
//!
//! - **The Foe layout** (GK-02): the first turn has no moves. It carries
//!   the values of a roll whose request declares no orders: the 100 draws
//!   that lay out the five rows, in the order of `apply::setup`. The rows
//!   are public from then on, before the player decides anything.
//! - **Horde draws** (GK-04, GK-15; **GK-P1**, a project decision): each
//!   card is its own roll, declared as `draw` and played as the card drawn
//!   (`draw:9a/"Great Destiny"`), alone in its turn. So no order of the
//!   Khan deck exists before a card is needed, not even for the five cards
//!   of one Horde phase.
//!
//! Every other move (attack, capture, pass, discard) needs no chance; a turn
//! may hold several of them.

use yam_notation::genghis_khan::{GenghisKhanGrammar, Move};
use yam_notation::{Dots, GameKind, MoveGrammar};

use super::action::{Action, Illegal};
use super::apply::{apply, legal_actions, setup};
use super::ruleset::Ruleset;
use super::state::{Phase, State};
use super::tableau::tableau;
use super::token::{notate, play};
use crate::fair_play::chance::Chance;
use crate::fair_play::turn::MoveToken;
use crate::replay::{
    BuiltinReplay, GameEnd, GameReplay, Resolved, RulesError, Snapshot, SpellingError,
};
use serde::{Deserialize, Serialize};

/// The word that declares a Horde draw in a roll request: the card is not
/// known until the roll is answered.
pub const DRAW_ORDER: &str = "draw";

/// A Genghis Khan game being replayed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GenghisKhanReplay {
    ruleset: Ruleset,
    /// `None` until the Foe rows are laid out.
    state: Option<State>,
}

fn move_text(mv: &Move) -> String {
    let mut out = String::new();
    GenghisKhanGrammar::write_move(mv, &mut out);
    out
}

impl GenghisKhanReplay {
    /// A game under `ruleset`, before the Foe layout.
    pub fn new(ruleset: Ruleset) -> Self {
        GenghisKhanReplay {
            ruleset,
            state: None,
        }
    }

    /// The ruleset.
    pub fn ruleset(&self) -> &Ruleset {
        &self.ruleset
    }

    /// The game, once the Foe rows are laid out.
    pub fn state(&self) -> Option<&State> {
        self.state.as_ref()
    }

    fn refuse(&self, index: usize, reason: impl Into<String>) -> RulesError {
        RulesError {
            index,
            reason: reason.into(),
            position: GameReplay::position(self),
        }
    }

    fn illegal(&self, index: usize, illegal: &Illegal) -> RulesError {
        self.refuse(index, illegal.to_string())
    }

    /// GK-P1: a draw is alone in its turn.
    fn one_draw_alone(&self, draws: usize, moves: usize) -> Result<(), RulesError> {
        if draws > 0 && moves > 1 {
            return Err(self.refuse(
                0,
                "each Horde card is drawn by a roll of its own, alone in its turn (GK-P1)",
            ));
        }
        Ok(())
    }

    /// Lays out the Foe rows (GK-02) with `chance`.
    fn lay_out(&mut self, moves: usize, chance: &mut dyn Chance) -> Result<(), RulesError> {
        if moves > 0 {
            return Err(self.refuse(
                0,
                "the Foe rows are laid out first, by a roll of their own that declares no orders (GK-02)",
            ));
        }
        let state = setup(&self.ruleset, chance).map_err(|e| self.illegal(0, &e))?;
        self.state = Some(state);
        Ok(())
    }
}

impl GameReplay for GenghisKhanReplay {
    fn saved(&self) -> Option<crate::signed::tip::SavedGame<'_>> {
        Some(crate::signed::tip::SavedGame::GenghisKhan(self))
    }

    fn game(&self) -> GameKind {
        GameKind::GenghisKhan
    }

    fn seats(&self) -> &'static [&'static str] {
        &["player"]
    }

    fn to_move(&self) -> Option<usize> {
        match &self.state {
            Some(state) if state.is_over() => None,
            _ => Some(0),
        }
    }

    fn move_number(&self) -> (u32, Dots) {
        match &self.state {
            // The layout comes before the first numbered move.
            None => (0, Dots::One),
            Some(state) => (state.turn(), Dots::One),
        }
    }

    fn canonical_token(&self, written: &str) -> Result<String, SpellingError> {
        GenghisKhanGrammar::parse_move(written)
            .map(|m| move_text(&m))
            .map_err(|e| SpellingError {
                expected: format!("a Genghis Khan move: {e}"),
            })
    }

    fn canonical_order(&self, written: &str) -> Result<String, SpellingError> {
        if written.eq_ignore_ascii_case(DRAW_ORDER) {
            return Ok(DRAW_ORDER.to_owned());
        }
        match GenghisKhanGrammar::parse_move(written) {
            Ok(Move::Draw(card)) => Err(SpellingError {
                expected: format!(
                    "a draw is declared as `draw`: the card ({card}) is not known until the roll is answered"
                ),
            }),
            Ok(m) => Ok(move_text(&m)),
            Err(e) => Err(SpellingError {
                expected: format!("`draw` or a Genghis Khan move: {e}"),
            }),
        }
    }

    fn play(&mut self, moves: &[MoveToken], chance: &mut dyn Chance) -> Result<(), RulesError> {
        let Some(state) = &self.state else {
            let mut next = self.clone();
            next.lay_out(moves.len(), chance)?;
            *self = next;
            return Ok(());
        };
        if moves.is_empty() {
            return Err(self.refuse(0, "a turn holds at least one move"));
        }
        let mut parsed = Vec::with_capacity(moves.len());
        for (i, token) in moves.iter().enumerate() {
            let mv = GenghisKhanGrammar::parse_move(token.as_str())
                .map_err(|e| self.refuse(i, format!("{token} is not a Genghis Khan move: {e}")))?;
            parsed.push(mv);
        }
        let draws = parsed.iter().filter(|m| matches!(m, Move::Draw(_))).count();
        self.one_draw_alone(draws, parsed.len())?;
        let mut next = state.clone();
        for (i, mv) in parsed.iter().enumerate() {
            next = play(&next, mv, chance).map_err(|e| refused(i, &next, e))?.0;
        }
        self.state = Some(next);
        Ok(())
    }

    fn resolve(
        &self,
        _seat: usize,
        orders: &[String],
        chance: &mut dyn Chance,
    ) -> Result<Resolved, RulesError> {
        let Some(state) = &self.state else {
            let mut next = self.clone();
            next.lay_out(orders.len(), chance)?;
            return Ok(Resolved::default());
        };
        if orders.is_empty() {
            return Err(self.refuse(0, "a turn holds at least one move"));
        }
        let draws = orders.iter().filter(|o| *o == DRAW_ORDER).count();
        self.one_draw_alone(draws, orders.len())?;
        let mut next = state.clone();
        let mut moves = Vec::with_capacity(orders.len());
        for (i, order) in orders.iter().enumerate() {
            let fail = |s: &State, e: Illegal| refused(i, s, e);
            if order == DRAW_ORDER {
                let (after, events) =
                    apply(&next, &Action::Draw, chance).map_err(|e| fail(&next, e))?;
                let mv = notate(&next, &Action::Draw, &events).map_err(|e| fail(&next, e))?;
                moves.push(move_text(&mv));
                next = after;
            } else {
                let mv = GenghisKhanGrammar::parse_move(order)
                    .map_err(|e| self.refuse(i, format!("{order}: {e}")))?;
                next = play(&next, &mv, chance).map_err(|e| fail(&next, e))?.0;
                moves.push(move_text(&mv));
            }
        }
        Ok(Resolved {
            moves,
            skipped: Vec::new(),
        })
    }

    fn declared_order(&self, played: &str) -> Option<(String, bool)> {
        match GenghisKhanGrammar::parse_move(played).ok()? {
            Move::Draw(_) => Some((DRAW_ORDER.to_owned(), false)),
            other => Some((move_text(&other), false)),
        }
    }

    fn no_draw_by_agreement(&self) -> Option<&'static str> {
        Some("a solo Genghis Khan game has no draw: its result is always a score (GK-19)")
    }

    fn setup_by_chance(&self) -> bool {
        self.state.is_none()
    }

    fn outcome(&self) -> Option<GameEnd> {
        let state = self.state.as_ref()?;
        let Phase::Over(reason) = state.phase() else {
            return None;
        };
        Some(GameEnd {
            result: state.result(),
            reason: format!("the game is over ({reason}): {}", state.score()),
        })
    }

    fn snapshot(&self) -> Snapshot<'_> {
        match &self.state {
            Some(state) => Snapshot::Cards(state),
            None => Snapshot::None,
        }
    }

    fn position(&self) -> String {
        match &self.state {
            Some(state) => tableau(state),
            None => "the Foe rows are not laid out yet".to_owned(),
        }
    }

    fn legal_moves(&self) -> Vec<String> {
        let Some(state) = &self.state else {
            return Vec::new();
        };
        legal_actions(state)
            .iter()
            .filter_map(|action| match action {
                Action::Draw => Some(DRAW_ORDER.to_owned()),
                other => notate(state, other, &[]).ok().map(|m| move_text(&m)),
            })
            .collect()
    }

    fn boxed_clone(&self) -> Box<dyn GameReplay> {
        Box::new(self.clone())
    }

    fn builtin(&self) -> Option<BuiltinReplay<'_>> {
        Some(BuiltinReplay::GenghisKhan(self))
    }
}

/// The rules' refusal of move `index` in `state`. When the door for chance
/// refused (a probe asking whether a turn needs chance, which every roll
/// request's declaration is tried with, or outcomes that do not match),
/// the caller reports the chance error, not this position: the tableau,
/// whose best possible score is a search, is not drawn for it (it was a
/// third of a robot's CPU on long games).
fn refused(index: usize, state: &State, e: Illegal) -> RulesError {
    let position = if matches!(e, Illegal::Chance(_)) {
        String::new()
    } else {
        tableau(state)
    };
    RulesError {
        index,
        reason: e.to_string(),
        position,
    }
}
