//! How a game ends (KR-6, KR-9, KR-P14), and the two endings a record states
//! rather than a move makes: resignation and draw by agreement (KR-6.6).

use std::fmt;

use super::piece::Side;
use super::position::Position;
use serde::{Deserialize, Serialize};

/// Why a side won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WinReason {
    /// KR-6.2: the loser's royal leader is attacked and it has no legal move.
    Checkmate,
    /// KR-6.3: the loser has no leader left on the board.
    NoLeader,
    /// KR-9: the winner delivered the general to its ger.
    GeneralDelivered,
    /// KR-6.6: the loser resigned (a record event).
    Resignation,
}

/// Why the game was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DrawReason {
    /// KR-6.4: the side to move has no legal move and its royal leader (if
    /// any) is not attacked.
    Stalemate,
    /// KR-6.5: 100 plies without a capture, tower death or captive death.
    HundredPlies,
    /// KR-6.6: both players agreed (a record event).
    Agreement,
}

/// The end of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The winner.
        winner: Side,
        /// Why.
        reason: WinReason,
    },
    /// Nobody won.
    Draw {
        /// Why.
        reason: DrawReason,
    },
}

impl Outcome {
    /// The winner, if there is one.
    pub fn winner(&self) -> Option<Side> {
        match self {
            Outcome::Win { winner, .. } => Some(*winner),
            Outcome::Draw { .. } => None,
        }
    }

    /// The record's result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(&self) -> &'static str {
        match self.winner() {
            Some(Side::White) => "1-0",
            Some(Side::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Outcome::Win { winner, reason } => {
                let loser = winner.opposite();
                match reason {
                    WinReason::Checkmate => {
                        write!(f, "{winner} wins: {loser}'s royal leader is checkmated")
                    }
                    WinReason::NoLeader => {
                        write!(f, "{winner} wins: {loser} has no leader left on the board")
                    }
                    WinReason::GeneralDelivered => {
                        write!(f, "{winner} wins: it delivered the general to its ger")
                    }
                    WinReason::Resignation => write!(f, "{winner} wins: {loser} resigned"),
                }
            }
            Outcome::Draw { reason } => match reason {
                DrawReason::Stalemate => {
                    f.write_str("draw: the side to move has no legal move (stalemate)")
                }
                DrawReason::HundredPlies => f.write_str(
                    "draw: 100 plies without a capture, a tower death or a captive's death",
                ),
                DrawReason::Agreement => f.write_str("draw by agreement"),
            },
        }
    }
}

/// An ending the record states: it is not a move and no position makes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordEvent {
    /// This side resigned.
    Resignation(Side),
    /// Both sides agreed to a draw.
    DrawAgreed,
}

impl RecordEvent {
    /// The outcome the event makes.
    pub fn outcome(self) -> Outcome {
        match self {
            RecordEvent::Resignation(side) => Outcome::Win {
                winner: side.opposite(),
                reason: WinReason::Resignation,
            },
            RecordEvent::DrawAgreed => Outcome::Draw {
                reason: DrawReason::Agreement,
            },
        }
    }
}

impl Position {
    /// The endings that need no move generation: the general delivered, a
    /// side without a leader, and (after a look for checkmate) the 100-ply rule.
    pub(crate) fn early_end(&self) -> Option<Outcome> {
        if let Some(winner) = self.delivered {
            return Some(Outcome::Win {
                winner,
                reason: WinReason::GeneralDelivered,
            });
        }
        let mover = self.turn.opposite();
        match (self.leaderless(Side::White), self.leaderless(Side::Black)) {
            // KR-P14: if one move leaves both sides without a leader, its maker wins.
            (true, true) => {
                return Some(Outcome::Win {
                    winner: mover,
                    reason: WinReason::NoLeader,
                });
            }
            (true, false) => {
                return Some(Outcome::Win {
                    winner: Side::Black,
                    reason: WinReason::NoLeader,
                });
            }
            (false, true) => {
                return Some(Outcome::Win {
                    winner: Side::White,
                    reason: WinReason::NoLeader,
                });
            }
            (false, false) => {}
        }
        if self.halfmoves >= 100 {
            // Checkmate and stalemate take precedence (KR-P14).
            return Some(self.no_move_outcome().unwrap_or(Outcome::Draw {
                reason: DrawReason::HundredPlies,
            }));
        }
        None
    }

    fn no_move_outcome(&self) -> Option<Outcome> {
        if self.has_legal_move() {
            return None;
        }
        let us = self.turn;
        let mated = self
            .royal(us)
            .is_some_and(|sq| self.attacker(sq, us.opposite()).is_some());
        Some(if mated {
            Outcome::Win {
                winner: us.opposite(),
                reason: WinReason::Checkmate,
            }
        } else {
            Outcome::Draw {
                reason: DrawReason::Stalemate,
            }
        })
    }

    /// How the game stands ended in this position, if it has ended, checked in
    /// the order of KR-P14.
    pub fn outcome(&self) -> Option<Outcome> {
        self.early_end().or_else(|| self.no_move_outcome())
    }
}

/// [`Position::outcome`] as a free function.
pub fn outcome(pos: &Position) -> Option<Outcome> {
    pos.outcome()
}
