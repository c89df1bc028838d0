//! Khan behind the game-generic [`GameReplay`] door: one move per turn, no
//! chance, White moves first.

use yam_notation::khan::{KhanGrammar, MoveToken as KhanToken};
use yam_notation::{Dots, GameKind, GameResult, MoveGrammar};

use super::outcome::Outcome;
use super::piece::Side;
use super::position::Position;
use super::square::Square;
use super::{apply, legal_moves, resolve, to_token};
use crate::fair_play::chance::Chance;
use crate::fair_play::turn::MoveToken;
use crate::replay::{BuiltinReplay, GameEnd, GameReplay, RulesError, Snapshot, SpellingError};
use serde::{Deserialize, Serialize};

/// A Khan game being replayed.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct KhanReplay {
    position: Position,
    /// The squares of the last move played (from, to), for pictures.
    last: Option<(Square, Square)>,
    /// `position.outcome()`, worked out once per position: it looks for a
    /// legal move, and a signed replay asks for it several times per event
    /// (whose turn, whether the game is over, whether a seat may play).
    outcome: Option<Outcome>,
}

impl KhanReplay {
    /// A replay from `position`.
    pub fn new(position: Position) -> Self {
        KhanReplay {
            position,
            last: None,
            outcome: position.outcome(),
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }
}

/// The position in the form Yam's diagnostics use: the engine FEN, or Yam's
/// position text when there are towers.
pub fn position_text(pos: &Position) -> String {
    if pos.tower_squares().is_empty() {
        pos.fen()
    } else {
        pos.to_yam()
    }
}

fn token_text(token: &KhanToken) -> String {
    let mut out = String::new();
    KhanGrammar::write_move(token, &mut out);
    out
}

impl GameReplay for KhanReplay {
    fn saved(&self) -> Option<crate::signed::tip::SavedGame<'_>> {
        Some(crate::signed::tip::SavedGame::Khan(self))
    }

    fn game(&self) -> GameKind {
        GameKind::Khan
    }

    fn seats(&self) -> &'static [&'static str] {
        &["white", "black"]
    }

    fn to_move(&self) -> Option<usize> {
        if self.outcome.is_some() {
            return None;
        }
        Some(match self.position.turn() {
            Side::White => 0,
            Side::Black => 1,
        })
    }

    fn move_number(&self) -> (u32, Dots) {
        let dots = match self.position.turn() {
            Side::White => Dots::One,
            Side::Black => Dots::Three,
        };
        (self.position.fullmoves(), dots)
    }

    fn canonical_token(&self, written: &str) -> Result<String, SpellingError> {
        KhanGrammar::parse_move(written)
            .map(|t| token_text(&t))
            .map_err(|e| SpellingError {
                expected: format!("a Khan move token: {e}"),
            })
    }

    fn play(&mut self, moves: &[MoveToken], _chance: &mut dyn Chance) -> Result<(), RulesError> {
        let refuse = |index: usize, reason: String| RulesError {
            index,
            reason,
            position: position_text(&self.position),
        };
        if let Some(end) = self.outcome {
            return Err(refuse(0, format!("the game is over: {end}")));
        }
        let [token] = moves else {
            return Err(refuse(
                0,
                format!(
                    "a Khan turn is exactly one move, not {} (KR-2: players alternate single moves)",
                    moves.len()
                ),
            ));
        };
        let parsed = KhanGrammar::parse_move(token.as_str())
            .map_err(|e| refuse(0, format!("{token} is not a Khan move token: {e}")))?;
        let (mv, applied) = resolve(&self.position, &parsed)
            .and_then(|mv| apply(&self.position, &mv).map(|applied| (mv, applied)))
            .map_err(|illegal| refuse(0, format!("illegal: {token}: {illegal}")))?;
        self.position = applied.position;
        self.last = Some((mv.from, mv.to));
        self.outcome = self.position.outcome();
        Ok(())
    }

    fn outcome(&self) -> Option<GameEnd> {
        let end = self.outcome?;
        let result = end.result().parse().unwrap_or(GameResult::Unfinished);
        Some(GameEnd {
            result,
            reason: end.to_string(),
        })
    }

    fn position(&self) -> String {
        position_text(&self.position)
    }

    fn snapshot(&self) -> Snapshot<'_> {
        Snapshot::Khan(&self.position, self.last)
    }

    fn diagram(&self) -> String {
        super::diagram(&self.position)
    }

    fn legal_moves(&self) -> Vec<String> {
        legal_moves(&self.position)
            .iter()
            .filter_map(|mv| to_token(&self.position, mv).ok())
            .map(|t| token_text(&t))
            .collect()
    }

    fn boxed_clone(&self) -> Box<dyn GameReplay> {
        Box::new(*self)
    }

    fn builtin(&self) -> Option<BuiltinReplay<'_>> {
        Some(BuiltinReplay::Khan(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::khan::Ruleset;
    use crate::replay::NoChance;

    fn tokens(t: &[&str]) -> Vec<MoveToken> {
        t.iter().map(|t| MoveToken::new(*t).unwrap()).collect()
    }

    #[test]
    fn plays_one_legal_move_per_turn() {
        let mut game = KhanReplay::new(Ruleset::builtin("magician").unwrap().start_position());
        assert_eq!(game.to_move(), Some(0));
        assert_eq!(game.move_number(), (1, Dots::One));
        assert_eq!(game.canonical_token("ng3-F3").unwrap(), "Ng3-f3");
        assert!(game.legal_moves().contains(&"Ng3-f3".to_owned()));
        game.play(&tokens(&["Ng3-f3"]), &mut NoChance).unwrap();
        assert_eq!(game.to_move(), Some(1));
        assert_eq!(game.move_number(), (1, Dots::Three));
        let before = GameReplay::position(&game);
        let err = game.play(&tokens(&["Ae7-f4"]), &mut NoChance).unwrap_err();
        assert!(err.reason.contains("cannot reach f4"), "{}", err.reason);
        assert_eq!(GameReplay::position(&game), before);
        let err = game
            .play(&tokens(&["Ae7-f6", "Md7-e7"]), &mut NoChance)
            .unwrap_err();
        assert!(err.reason.contains("exactly one move"));
        assert!(game.canonical_token("1-0").is_err());
        assert!(game.outcome().is_none());
    }
}
