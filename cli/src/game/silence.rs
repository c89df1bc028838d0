//! Since when the party a game waits for has been silent: the clock the
//! desk's `yam remind` / `yam forfeit` and the robot's deadlines read.
//!
//! Counted from the last change, a player who owed a move could stall a
//! forfeit for ever by offering a draw every few weeks: each offer, and
//! the answer it forced from the other side, changed the game. So a move
//! is due from the latest turn, and the time the other side took to answer
//! an offer is not counted against the mover (it waited, it was not
//! silent); an answer is due from the offer it answers.
//!
//! The states, with the events that move between them:
//!
//! - **a move is due** since `move_due_since` (a turn, or an accepted
//!   take-back, which sets a new position, starts it again);
//! - **an answer is due** since `answer_due_since` (the first offer that
//!   waits; counter-offers do not move it, as the oldest offer is owed
//!   first); when the last open offer is answered without a new position,
//!   the move is due again and its clock is moved on by the time the
//!   answer took.

use serde::{Deserialize, Serialize};
use yam_referee::fair_play::turn::{EventBody, SignedEvent};
use yam_referee::signed::SignedReplay;
use yam_referee::signed::table::{Duty, next_duty};

/// The clock of a game's silence, kept beside the game (flattened into a
/// desk's `mail.yaml` and the robot's `robot.yaml`). Both fields are
/// absent in files of an earlier build, where the last change stands for
/// them until the next turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SilenceClock {
    /// When the move the game waits for fell due (seconds since 1970),
    /// less the time offers of the mover waited for their answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_due_since: Option<u64>,
    /// While the game waits for an answer to an offer: since when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_due_since: Option<u64>,
}

/// Whether the game waits for an answer to an offer.
fn answer_due(replay: &SignedReplay) -> bool {
    matches!(
        next_duty(replay),
        Some(Duty::AnswerDraw(_) | Duty::AnswerTakeback(_))
    )
}

impl SilenceClock {
    /// The clock after `events` were added at `now`, `after` being the
    /// game with them and `last_change` the time of the change before.
    pub fn step(
        &mut self,
        events: &[SignedEvent],
        after: &SignedReplay,
        now: u64,
        last_change: u64,
    ) {
        let new_position = events.iter().any(|e| {
            matches!(
                e.event.body,
                EventBody::Turn(_) | EventBody::TakebackAnswer { accepted: true, .. }
            )
        });
        let waits_for_answer = answer_due(after);
        if new_position {
            self.move_due_since = Some(now);
        } else if let (Some(since), false) = (self.answer_due_since, waits_for_answer) {
            // Answered: the mover's clock goes on where it stood.
            let paused = now.saturating_sub(since);
            self.move_due_since = Some(
                self.move_due_since
                    .unwrap_or(last_change)
                    .saturating_add(paused),
            );
        }
        self.answer_due_since = match (waits_for_answer, self.answer_due_since) {
            (false, _) => None,
            (true, Some(since)) if !new_position => Some(since),
            (true, _) => Some(now),
        };
    }

    /// Since when the party the game waits for has been silent (the clock
    /// knows whether an answer or a move is due: `answer_due_since` is
    /// set exactly while an answer is); files of an earlier build count
    /// from `last_change`.
    pub fn silent_since(&self, last_change: u64) -> u64 {
        self.answer_due_since
            .or(self.move_due_since)
            .unwrap_or(last_change)
    }
}
