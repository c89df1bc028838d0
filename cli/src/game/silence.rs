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
//! - **a move is due** since `move_due_since`: a turn, or an accepted
//!   take-back, which sets a new position, starts it again;
//! - **the mover waits for an answer** since `answer_due_since`: the
//!   oldest open offer (the one owed first, 3.8) is owed by a party that
//!   does not owe the move, the offer at position `answer_due_for`. The
//!   silence counted is the answerer's, from when that offer became the
//!   one owed: a counter-offer does not move it (the oldest offer stays
//!   owed), an answer that leaves another offer the oldest starts it
//!   again (another answer is due, and it is due from now). When the
//!   mover no longer waits (the offer answered, or the oldest offer now
//!   owed by the mover), the time it waited is taken off its move's
//!   silence: `move_due_since` moves on by it;
//! - an offer made **to the mover** (the answer and then the move are
//!   the mover's) pauses nothing: the mover's silence goes on from
//!   `move_due_since`, and the days it sits on the offer count against it.
//!
//! Files of an earlier build have neither field: the last change stands
//! for the move's start, and the first step writes it, so an offer and
//! its answer cannot move the start to their own time (a player who owed
//! a move since the last change would have reset her clock with one draw
//! offer). A new game's opening writes no turn either: its first step
//! does the same.

use serde::{Deserialize, Serialize};
use yam_referee::fair_play::turn::{EventBody, SignedEvent};
use yam_referee::signed::SignedReplay;

/// The clock of a game's silence, kept beside the game (flattened into a
/// desk's `mail.yaml` and the robot's `robot.yaml`). The fields are absent
/// in files of an earlier build, where the last change stands for the
/// move's start until the next step writes it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SilenceClock {
    /// When the move the game waits for fell due (seconds since 1970),
    /// moved on by the time the mover waited for answers to offers owed
    /// by another party.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_due_since: Option<u64>,
    /// While the mover waits for another party's answer: since when that
    /// party has owed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_due_since: Option<u64>,
    /// The position of the offer whose answer `answer_due_since` counts
    /// (absent in files of an earlier build: taken as the same offer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_due_for: Option<u32>,
}

/// The open offer the mover waits on, by its position: the oldest open
/// offer, when the party it is owed by does not owe the move.
fn mover_waits_on(replay: &SignedReplay) -> Option<u32> {
    let offer = replay.first_open_offer()?;
    let owing = replay.owing();
    let mover = replay.to_move_key();
    match mover {
        Some(mover) if owing.contains(&mover) => None,
        _ => Some(offer.seq),
    }
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
        // Time never runs back within a game (see the callers).
        let now = now.max(last_change);
        let new_position = events.iter().any(|e| {
            matches!(
                e.event.body,
                EventBody::Turn(_) | EventBody::TakebackAnswer { accepted: true, .. }
            )
        });
        let waits_on = mover_waits_on(after);
        let mut move_due = self.move_due_since.unwrap_or(last_change);
        let same_wait = match (self.answer_due_since, waits_on) {
            (Some(_), Some(offer)) if !new_position => {
                self.answer_due_for.is_none_or(|kept| kept == offer)
            }
            _ => false,
        };
        if let (Some(since), false) = (self.answer_due_since, same_wait) {
            // The mover waited from `since` to now: not its silence.
            move_due = move_due.saturating_add(now.saturating_sub(since));
        }
        if new_position {
            move_due = now;
        }
        self.move_due_since = Some(move_due);
        self.answer_due_since = match waits_on {
            Some(_) if same_wait => self.answer_due_since,
            Some(_) => Some(now),
            None => None,
        };
        self.answer_due_for = waits_on;
    }

    /// Since when the party the game waits for has been silent: the
    /// answerer's since its answer fell due while the mover waits, else
    /// the mover's; files of an earlier build count from `last_change`.
    pub fn silent_since(&self, last_change: u64) -> u64 {
        self.answer_due_since
            .or(self.move_due_since)
            .unwrap_or(last_change)
    }
}
