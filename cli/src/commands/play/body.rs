//! The text of a turn mail, for the person reading it: what happened, the
//! board, the last moves, and what to do next.

use std::fmt::Write;

use yam_notation::Node;
use yam_referee::fair_play::turn::{EventBody, Evidence, SignedEvent};
use yam_referee::signed::table::{Duty, next_duty};
use yam_referee::signed::text::chance_item;

use super::desk::{Desk, Game};

/// How many of the last moves the body lists.
const LAST_MOVES: usize = 12;

/// The body of a mail carrying `game` after `news`.
pub fn turn_body(game: &Game, desk: &Desk, news: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{news}");
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", whose_turn(game, desk));
    // A game kept as its text holds only its header: its moves are read
    // from the text for the body.
    let record = game
        .whole_record()
        .unwrap_or(std::borrow::Cow::Borrowed(&game.record));
    let moves: Vec<&str> = record
        .movetext
        .iter()
        .filter_map(|n| match n {
            Node::Move(m, _) => Some(m.as_str()),
            _ => None,
        })
        .collect();
    if !moves.is_empty() {
        let from = moves.len().saturating_sub(LAST_MOVES);
        let _ = writeln!(
            out,
            "\nLast moves ({} in all): {}",
            moves.len(),
            moves[from..].join(" ")
        );
    }
    if game.replay.opening_complete() {
        let _ = writeln!(out, "\n{}", game.replay.game().diagram());
    }
    let _ = writeln!(
        out,
        "\nYam reads this mail by itself (`yam read`); the whole signed record\nis attached and in the block below. Game {id}.\nThen `yam board {id}` shows the game and the legal moves,\nand `yam move {id} ...` plays yours when it is your turn.",
        id = game.id()
    );
    out
}

/// The last move of the game as it stands, in words, with its comment:
/// what `yam board` shows first.
pub fn last_move(game: &Game, desk: &Desk) -> Option<String> {
    let last = game
        .replay
        .events()
        .iter()
        .rev()
        .find(|e| matches!(&e.event.body, EventBody::Turn(t) if !t.moves.is_empty()))?;
    let record = game
        .whole_record()
        .unwrap_or(std::borrow::Cow::Borrowed(&game.record));
    let prose = crate::game::record::prose_by_event(&record);
    let said: Vec<(u32, String)> = prose
        .get(&last.event.seq)
        .map(|p| (last.event.seq, crate::game::record::clean_prose(p)))
        .into_iter()
        .collect();
    what_happened(desk, std::slice::from_ref(last), &said)
        .into_iter()
        .next()
}

/// Whose turn it is, in words, for either reader.
pub fn whose_turn(game: &Game, desk: &Desk) -> String {
    if let Some(closed) = &game.meta.closed {
        return closed.describe();
    }
    if let Some(end) = game.replay.ending() {
        return format!("The game is over: {} ({}).", end.result, end.reason);
    }
    let name = |k| desk.name_of(&k);
    match next_duty(&game.replay) {
        Some(Duty::Accept(k)) => format!("Waiting for {} to accept the challenge.", name(k)),
        Some(Duty::RevealSeats(k)) => format!("Waiting for {} to reveal the seat draw.", name(k)),
        Some(Duty::AnswerDraw(k)) => format!("{} is to answer a draw offer.", name(k)),
        Some(Duty::AnswerTakeback(k)) => format!("{} is to answer a take-back offer.", name(k)),
        Some(Duty::Respond(k)) => format!("Waiting for {}'s roll response.", name(k)),
        Some(Duty::CompleteRoll(k)) => format!("The dice are in: {} plays the turn.", name(k)),
        Some(Duty::Move(k)) => format!("{} to move.", name(k)),
        None => "Nobody can move.".to_owned(),
    }
}

/// Each new event in words for the player who receives it: who played
/// what, with the dice or cards it drew and the comment the player gave it
/// (already cleaned), one line an event that does something.
pub fn what_happened(desk: &Desk, events: &[SignedEvent], said: &[(u32, String)]) -> Vec<String> {
    let mut lines = Vec::new();
    for event in events {
        let who = desk.name_of(&event.event.author);
        let mut line = match &event.event.body {
            EventBody::Turn(turn) if !turn.moves.is_empty() => {
                let moves: Vec<&str> = turn.moves.iter().map(|m| m.as_str()).collect();
                let mut line = format!("{who} played {}", moves.join(" "));
                for evidence in turn.evidence.iter() {
                    if let Evidence::Outcomes { roll, results } = evidence {
                        let values: Vec<String> = results.iter().map(chance_item).collect();
                        line.push_str(&format!(" (roll {roll}: {})", values.join(", ")));
                    }
                }
                line
            }
            EventBody::Turn(turn) => match turn.evidence.first() {
                Some(Evidence::RollRequest(r)) => {
                    let orders: Vec<&str> = r
                        .request
                        .declaration
                        .orders
                        .iter()
                        .map(|o| o.as_str())
                        .collect();
                    format!("{who} declared {} and asked for the dice", orders.join(" "))
                }
                Some(Evidence::RollResponse(_)) => format!("{who} answered the roll"),
                _ => continue,
            },
            EventBody::Resignation => format!("{who} resigned"),
            EventBody::DrawOffer => format!("{who} offers a draw"),
            EventBody::DrawAnswer { accepted: true, .. } => format!("{who} accepts the draw"),
            EventBody::DrawAnswer { .. } => format!("{who} declines the draw"),
            EventBody::TakebackOffer { .. } => format!("{who} offers to take back a move"),
            EventBody::TakebackAnswer { accepted, .. } => format!(
                "{who} {} the take-back",
                if *accepted { "accepts" } else { "declines" }
            ),
            // The reason is the claimant's own signed words, any text:
            // cleaned like every text of another's before it is printed.
            EventBody::ForfeitClaim { reason, .. } => format!(
                "{who} claims a forfeit: {}",
                crate::mail::cards::clean_text(reason.as_str())
            ),
            EventBody::Acceptance(_) => format!("{who} accepted the challenge"),
            EventBody::Challenge(_) => continue,
        };
        // The comment travels beside the signed event, not inside it: the
        // sender's words as the mail brought them, which anyone on the way
        // could have changed. Shown as such, never as what they signed.
        if let Some((_, comment)) = said.iter().find(|(seq, _)| *seq == event.event.seq) {
            line.push_str(&format!(
                ", with an unsigned comment: \u{201c}{comment}\u{201d}"
            ));
        }
        lines.push(line);
    }
    lines
}
