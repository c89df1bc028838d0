//! How a game ends (CS-46 to CS-50), and resignation, the ending a record
//! states rather than an order makes. There are no draws.

use std::fmt;

use super::army::Side;
use super::board::Square;
use serde::{Deserialize, Serialize};

/// Why a side won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WinReason {
    /// CS-46: an attacking unit moved into a victory square.
    VictorySquare(Square),
    /// CS-47: 10 or fewer attacking units remain.
    AttackersReduced {
        /// How many remain.
        left: usize,
    },
    /// CS-48: every defending unit is dead.
    DefendersEliminated,
    /// CS-49: no attacking knight, archer or sapper remains, so nothing can
    /// enter the castle any more.
    NoInfantry,
    /// CS-50: the round cap was reached; the siege has failed.
    RoundCap {
        /// The cap.
        rounds: u32,
    },
    /// The loser resigned (a record event).
    Resignation,
}

/// The end of a game: always a win (CS-50 leaves no draws).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// The winner.
    pub winner: Side,
    /// Why.
    pub reason: WinReason,
}

impl Outcome {
    /// The record's result token: `1-0` for the Defender (the first side of
    /// the record's players), `0-1` for the Attacker.
    pub const fn result(&self) -> &'static str {
        match self.winner {
            Side::Defender => "1-0",
            Side::Attacker => "0-1",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.winner;
        let loser = w.opposite();
        match self.reason {
            WinReason::VictorySquare(sq) => {
                write!(
                    f,
                    "{w} wins: an attacking unit entered the victory square {sq} (CS-46)"
                )
            }
            WinReason::AttackersReduced { left } => write!(
                f,
                "{w} wins: only {left} attacking units remain, 10 or fewer (CS-47)"
            ),
            WinReason::DefendersEliminated => {
                write!(f, "{w} wins: every defending unit is dead (CS-48)")
            }
            WinReason::NoInfantry => write!(
                f,
                "{w} wins: no attacking knight, archer or sapper remains to enter the castle (CS-49)"
            ),
            WinReason::RoundCap { rounds } => write!(
                f,
                "{w} wins: the siege failed within the cap of {rounds} rounds (CS-50)"
            ),
            WinReason::Resignation => write!(f, "{w} wins: the {loser} resigned"),
        }
    }
}
