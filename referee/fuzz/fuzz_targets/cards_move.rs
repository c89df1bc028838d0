//! Genghis Khan move tokens, as players write them in mails and records.
//!
//! - Any text, whole and line by line (a token may hold a card's name in
//!   quotes, spaces and all): `Move::parse` never panics, and a move it
//!   reads prints canonically and reads back the same.
//! - Each line a move, played in turn from a game set up under the
//!   standard rules or a variant (the first byte picks it): a line that
//!   is a number plays that legal action (modulo their count), so games
//!   go deep. Resolving and playing never panic; a written move that
//!   plays is notated back as itself (in canonical order); every legal
//!   action played is notated as a move that prints, reads back and
//!   resolves to that action (its cards a set, in any order).

#![no_main]

#[path = "dice.rs"]
mod dice;

use libfuzzer_sys::fuzz_target;
use yam_notation::genghis_khan::sort_canonical;
use yam_referee::genghis_khan::apply::{apply, legal_actions, setup};
use yam_referee::genghis_khan::{Action, Move, Options, Ruleset, notate, play, resolve};

use dice::Dice;

/// The most moves one input plays.
const MAX_MOVES: usize = 400;

/// Parses `line`; a move read prints and reads back the same.
fn written(line: &str) -> Option<Move> {
    let mv = Move::parse(line).ok()?;
    let printed = mv.to_string();
    assert_eq!(
        Move::parse(&printed).as_ref(),
        Ok(&mv),
        "{line:?} printed {printed:?}"
    );
    assert_eq!(printed.parse::<Move>().as_ref(), Ok(&mv));
    Some(mv)
}

/// The move in canonical order (a payment or a discard is a set).
fn canonical(mv: &Move) -> Move {
    match mv {
        Move::Capture { foe, payment } => Move::capture(*foe, payment.clone()),
        Move::Discard(cards) => Move::discard(cards.clone()),
        other => other.clone(),
    }
}

/// The action with its cards in canonical order (a set, GK-22).
fn canonical_action(action: &Action) -> Action {
    let sorted = |cards: &Vec<_>| {
        let mut cards = cards.clone();
        sort_canonical(&mut cards);
        cards
    };
    match action {
        Action::Capture(cards) => Action::Capture(sorted(cards)),
        Action::Discard(cards) => Action::Discard(sorted(cards)),
        other => other.clone(),
    }
}

fn ruleset(first: u8) -> Ruleset {
    let standard = Ruleset::standard();
    let options = standard.options;
    standard.with_options(Options {
        reshuffle: first & 1 != 0,
        switch_after_exhaust: first & 2 != 0,
        ..options
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    written(text);
    let Some(&first) = data.first() else {
        return;
    };
    let mut dice = Dice::new(u64::from(first));
    let Ok(mut state) = setup(&ruleset(first), &mut dice) else {
        return;
    };
    for line in text.lines().take(MAX_MOVES) {
        if state.is_over() {
            break;
        }
        let line = line.trim();
        if let Ok(n) = line.parse::<usize>() {
            // A legal action, by number.
            let actions = legal_actions(&state);
            let Some(action) = actions.get(n % actions.len().max(1)) else {
                break;
            };
            let (next, events) = apply(&state, action, &mut dice)
                .unwrap_or_else(|e| panic!("legal {action:?} refused: {e}"));
            let mv = notate(&state, action, &events)
                .unwrap_or_else(|e| panic!("{action:?} played but not notated: {e}"));
            let read = written(&mv.to_string()).expect("a canonical move reads");
            assert_eq!(read, mv);
            assert_eq!(
                resolve(&state, &read).map(|a| canonical_action(&a)),
                Ok(canonical_action(action)),
                "{mv}"
            );
            state = next;
            continue;
        }
        let Some(mv) = written(line) else {
            continue;
        };
        let resolved = resolve(&state, &mv);
        match play(&state, &mv, &mut dice) {
            Ok((next, events)) => {
                let action = resolved.unwrap_or_else(|e| panic!("{mv} played but refused: {e}"));
                assert_eq!(notate(&state, &action, &events), Ok(canonical(&mv)), "{mv}");
                state = next;
            }
            // Only a draw can resolve and still fail: the card drawn is
            // not the card written.
            Err(_) => assert!(resolved.is_err() || matches!(mv, Move::Draw(_)), "{mv}"),
        }
    }
});
