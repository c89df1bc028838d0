//! Result tokens: a lexical class that no move token can take.
//!
//! Every game's results start with a digit, `*`, `+` or `-`, and no move
//! token may start with any of those (see [`crate::MoveGrammar`]), so the
//! reader tells a result from a move without asking the game.

use std::fmt;
use std::str::FromStr;

/// How a game ended, as the movetext's last token and the `Result` tag say.
///
/// "First side" is the side that moves first: White in Khan, the Defender in
/// Castle Siege. Genghis Khan, a solo game, ends with a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`: the first side won.
    FirstWins,
    /// `0-1`: the second side won.
    SecondWins,
    /// `1/2-1/2`: a draw.
    Draw,
    /// `+/-`: the first side won because the second forfeited.
    FirstWinsByForfeit,
    /// `-/+`: the second side won because the first forfeited.
    SecondWinsByForfeit,
    /// `-/-`: abandoned; nobody won.
    Abandoned,
    /// `*`: not finished (yet).
    Unfinished,
    /// `112/150`: a solo game's score out of its maximum.
    Score {
        /// Points scored.
        points: u32,
        /// The most points possible.
        max: u32,
    },
}

impl GameResult {
    /// Whether the game is over.
    pub fn is_finished(self) -> bool {
        self != GameResult::Unfinished
    }

    /// Parse a whole result token, or say none matched.
    pub fn parse(token: &[u8]) -> Option<GameResult> {
        Some(match token {
            b"1-0" => GameResult::FirstWins,
            b"0-1" => GameResult::SecondWins,
            b"1/2-1/2" => GameResult::Draw,
            b"+/-" => GameResult::FirstWinsByForfeit,
            b"-/+" => GameResult::SecondWinsByForfeit,
            b"-/-" => GameResult::Abandoned,
            b"*" => GameResult::Unfinished,
            _ => {
                let text = std::str::from_utf8(token).ok()?;
                let (points, max) = text.split_once('/')?;
                let digits = |s: &str| {
                    !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit())
                };
                if !digits(points) || !digits(max) {
                    return None;
                }
                GameResult::Score {
                    points: points.parse().ok()?,
                    max: max.parse().ok()?,
                }
            }
        })
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameResult::FirstWins => f.write_str("1-0"),
            GameResult::SecondWins => f.write_str("0-1"),
            GameResult::Draw => f.write_str("1/2-1/2"),
            GameResult::FirstWinsByForfeit => f.write_str("+/-"),
            GameResult::SecondWinsByForfeit => f.write_str("-/+"),
            GameResult::Abandoned => f.write_str("-/-"),
            GameResult::Unfinished => f.write_str("*"),
            GameResult::Score { points, max } => write!(f, "{points}/{max}"),
        }
    }
}

/// The text is not a result token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a result: 1-0, 0-1, 1/2-1/2, +/-, -/+, -/-, * or a score such as 112/150")]
pub struct NotAResult;

impl FromStr for GameResult {
    type Err = NotAResult;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameResult::parse(s.trim().as_bytes()).ok_or(NotAResult)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_result_round_trips() {
        for text in [
            "1-0", "0-1", "1/2-1/2", "+/-", "-/+", "-/-", "*", "112/150", "0/150",
        ] {
            let r: GameResult = text.parse().unwrap();
            assert_eq!(r.to_string(), text);
        }
    }

    #[test]
    fn non_results_are_refused() {
        for text in [
            "1.",
            "12",
            "1-1",
            "/150",
            "150/",
            "a/b",
            "1/2-",
            "1234567890/150",
        ] {
            assert!(text.parse::<GameResult>().is_err(), "{text}");
        }
    }
}
