//! From written moves to actions and back. A written move says a little more
//! than the action: a draw shows the card drawn and a capture names the card
//! captured, so the referee checks both against the game.

use yam_notation::genghis_khan::Move;

use crate::fair_play::chance::Chance;

use super::action::{Action, Event, Illegal};
use super::apply::{apply, check};
use super::state::{Phase, State};

/// The action a written move stands for, checked as far as it can be before
/// any chance value: a capture must name the top card of the attacked Foe
/// (GK-02) and a draw a card still in the Khan deck (GK-03).
pub fn resolve(state: &State, mv: &Move) -> Result<Action, Illegal> {
    let action = match mv {
        Move::Draw(card) => {
            check(state, &Action::Draw)?;
            // With the reshuffle flag an empty deck is refilled from the
            // discard pile before the draw (GK-14).
            let pool = if state.deck.is_empty() && state.options.reshuffle {
                &state.discard
            } else {
                &state.deck
            };
            if !pool.contains(card) {
                return Err(Illegal::NotInDeck(*card));
            }
            Action::Draw
        }
        Move::Attack(deck) => Action::Attack(*deck),
        Move::Capture { foe, payment } => {
            if let Phase::Conquest { target: Some(deck) } = state.phase
                && let Some(top) = state.top(deck)
                && top != *foe
            {
                return Err(Illegal::NotTop {
                    deck,
                    top,
                    written: *foe,
                });
            }
            Action::Capture(payment.clone())
        }
        Move::Pass => Action::Pass,
        Move::Discard(cards) => Action::Discard(cards.clone()),
    };
    check(state, &action)?;
    Ok(action)
}

/// Play a written move: resolve it, apply it, and for a draw check that the
/// card drawn is the card written.
pub fn play(
    state: &State,
    mv: &Move,
    chance: &mut (impl Chance + ?Sized),
) -> Result<(State, Vec<Event>), Illegal> {
    let action = resolve(state, mv)?;
    let (next, events) = apply(state, &action, chance)?;
    if let Move::Draw(written) = mv
        && let Some(drawn) = drawn_card(&events)
        && drawn != *written
    {
        return Err(Illegal::DrawMismatch {
            written: *written,
            drawn,
        });
    }
    Ok((next, events))
}

/// The written move for `action`, played from `before` with `events` as its
/// outcome (a draw's card comes from the events).
pub fn notate(before: &State, action: &Action, events: &[Event]) -> Result<Move, Illegal> {
    Ok(match action {
        Action::Draw => Move::Draw(drawn_card(events).ok_or(Illegal::NoDrawDue)?),
        Action::Attack(deck) => Move::Attack(*deck),
        Action::Capture(payment) => {
            let deck = before.target().ok_or(Illegal::NoTarget)?;
            let foe = before.top(deck).ok_or(Illegal::TargetExhausted(deck))?;
            Move::capture(foe, payment.clone())
        }
        Action::Pass => Move::Pass,
        Action::Discard(cards) => Move::discard(cards.clone()),
    })
}

fn drawn_card(events: &[Event]) -> Option<yam_notation::genghis_khan::KhanCard> {
    events.iter().find_map(|e| match e {
        Event::Drew { card, .. } => Some(*card),
        _ => None,
    })
}
