//! The engines' choices for `yam hotseat auto`, and the prose it writes
//! beside a turn. Pure: it looks at a replay and returns what to play;
//! `hotseat` signs and writes it like any other move.
//!
//! - Castle Siege: the self-play driver's setups and declarations
//!   (`castle_siege::selfplay`, policy `eager` or `random`), one
//!   declaration at a time, the dice coming from the real protocol.
//! - Genghis Khan: the greedy player (`genghis_khan::greedy`).
//! - Khan: a pseudo-random legal move.
//!
//! The choice depends on `--seed` and on the number of signed events so far,
//! so the same record and seed always give the same choice.

use yam_notation::castle_siege::{Side, Token};
use yam_notation::genghis_khan::Move;
use yam_referee::castle_siege::game_replay::{CastleSiegeReplay, SetupStage};
use yam_referee::castle_siege::{self, Effect, Policy};
use yam_referee::fair_play::turn::{EventBody, SignedEvent};
use yam_referee::genghis_khan::game_replay::{DRAW_ORDER, GenghisKhanReplay};
use yam_referee::genghis_khan::{self, Action, Event};
use yam_referee::replay::NoChance;
use yam_referee::seeded::SplitMix64;
use yam_referee::signed::SignedReplay;

/// What a player does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// A turn of orders, as written.
    Orders(Vec<String>),
    /// Castle Siege: seal this setup (its text), keeping it secret.
    Seal(String),
    /// Castle Siege: reveal the kept setup; when given, it must be this one.
    Reveal(Option<String>),
}

/// The Castle Siege replay behind the door, if the game is Castle Siege.
pub fn siege(replay: &SignedReplay) -> Option<&CastleSiegeReplay> {
    replay.game().as_any()?.downcast_ref::<CastleSiegeReplay>()
}

/// The Genghis Khan replay behind the door, if the game is Genghis Khan.
pub fn cards(replay: &SignedReplay) -> Option<&GenghisKhanReplay> {
    replay.game().as_any()?.downcast_ref::<GenghisKhanReplay>()
}

/// The side of a Castle Siege seat.
pub fn side_of_seat(seat: usize) -> Side {
    if seat == 0 {
        Side::Defender
    } else {
        Side::Attacker
    }
}

/// The engine's next turn for the player in `seat`, or why there is none.
pub fn choose(
    replay: &SignedReplay,
    seat: usize,
    policy: Policy,
    seed: u64,
) -> Result<Intent, String> {
    let step = SplitMix64::mix(seed ^ SplitMix64::mix(replay.events().len() as u64));
    if let Some(siege) = siege(replay) {
        return match (siege.setup_stage(), siege.state()) {
            (Some(SetupStage::Sealing), _) => {
                let setup = castle_siege::choose_setup(side_of_seat(seat), step)
                    .map_err(|e| e.to_string())?;
                Ok(Intent::Seal(setup.placement().to_string()))
            }
            (Some(SetupStage::Revealing), _) => Ok(Intent::Reveal(None)),
            (None, Some(state)) => Ok(Intent::Orders(
                castle_siege::choose_declaration(state, policy, step).texts(),
            )),
            (None, None) => Err("the game has no position".into()),
        };
    }
    if let Some(cards) = cards(replay) {
        let state = cards
            .state()
            .ok_or("the Foe rows are not laid out yet (the opening lays them out)")?;
        let action = genghis_khan::greedy_action(state).ok_or("the game is over")?;
        return Ok(Intent::Orders(vec![match &action {
            Action::Draw => DRAW_ORDER.to_owned(),
            other => genghis_khan::notate(state, other, &[])
                .map_err(|e| e.to_string())?
                .to_string(),
        }]));
    }
    let moves = replay.game().legal_moves();
    if moves.is_empty() {
        return Err("there is no legal move".into());
    }
    let pick = usize::try_from(step % moves.len() as u64).unwrap_or(0);
    Ok(Intent::Orders(vec![moves[pick].clone()]))
}

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
