//! The prose `yam hotseat auto --annotate` writes beside a turn: what the
//! dice decided and how the game stands, in a few sentences. Presentation
//! only: the referee's own reports, reworded for a reader of the record.

use yam_notation::castle_siege::Token;
use yam_notation::genghis_khan::Move;
use yam_referee::autoplay::{cards, siege};
use yam_referee::castle_siege::{self, Effect};
use yam_referee::fair_play::turn::{EventBody, SignedEvent};
use yam_referee::genghis_khan::{self, Event};
use yam_referee::replay::NoChance;
use yam_referee::signed::SignedReplay;

/// A sentence from a report line: capitalised, with a full stop.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let mut out: String = chars
        .next()
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_default();
    out.push_str(chars.as_str());
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// Prose for the turn `events` add to `before`: what the dice decided and
/// how the game stands, in a few sentences; `None` when nothing is worth a
/// word.
pub fn annotate(before: &SignedReplay, events: &[SignedEvent]) -> Option<String> {
    let moves: Vec<String> = events
        .iter()
        .find_map(|e| match &e.event.body {
            EventBody::Turn(t) if !t.moves.is_empty() => {
                Some(t.moves.iter().map(|m| m.as_str().to_owned()).collect())
            }
            _ => None,
        })
        .unwrap_or_default();
    let mut lines = Vec::new();
    if let Some(siege) = siege(before) {
        let state = siege.state()?;
        if before.plies() == 4 {
            lines.push(
                "Both setups were sealed before either was revealed (CS-07). From here on each \
                 declaration is one roll: its orders are signed before the dice exist, and each \
                 token shows the face that resolved it."
                    .to_owned(),
            );
        }
        let tokens: Vec<Token> = moves.iter().filter_map(|m| m.parse().ok()).collect();
        let resolution = castle_siege::resolve_written(state, &tokens).ok()?;
        for outcome in &resolution.report {
            let notable = match &outcome.effect {
                Effect::Entry { entered, .. } => *entered,
                Effect::BreachAttempt { breached, .. } => *breached,
                Effect::Attack { killed, .. } => *killed,
                _ => false,
            };
            if notable {
                let line = outcome.to_string();
                let what = line.split_once(": ").map_or(line.as_str(), |(_, w)| w);
                lines.push(sentence(what));
            } else if let Some(end) = outcome.ended {
                lines.push(sentence(&end.to_string()));
            }
        }
        if let Some(end) = resolution.state.outcome()
            && !lines.iter().any(|l| l.contains("wins"))
        {
            lines.push(sentence(&end.to_string()));
        }
    } else if let Some(cards) = cards(before) {
        let state = cards.state()?;
        if before.plies() == 0 {
            lines.push(
                "Roll 0, in the opening comment, laid out the Foe rows (GK-02): its 100 draws \
                 stand there as readable chance values. Every Horde card below is a roll of its \
                 own, answered by the other party, so no order of the Khan deck exists before a \
                 card is drawn (GK-P1)."
                    .to_owned(),
            );
        }
        let mut now = state.clone();
        for m in &moves {
            let Ok(mv) = m.parse::<Move>() else { break };
            if matches!(mv, Move::Draw(_)) {
                break;
            }
            let Ok((next, happened)) = genghis_khan::play(&now, &mv, &mut NoChance) else {
                break;
            };
            for event in &happened {
                match event {
                    Event::Completed(deck) => lines.push(format!(
                        "{deck} is captured completely: 10 more points (GK-17)."
                    )),
                    Event::TurnBegan { turn, .. } => lines.push(format!(
                        "Turn {} ends at {}; the best score still possible is {}.",
                        turn.saturating_sub(1),
                        next.score(),
                        genghis_khan::best_possible(&next)
                    )),
                    Event::GameOver { reason, score } => {
                        lines.push(format!("The game is over ({reason}): {score}."));
                    }
                    _ => {}
                }
            }
            now = next;
        }
    }
    (!lines.is_empty()).then(|| lines.join(" "))
}
