//! A greedy player, for sanity figures and tests (rulings file, §3.3):
//!
//! - **Conquest**: attack the legal Foe that allows the most captures this
//!   turn (the first in deck order on ties; pass if none allows one), then
//!   capture while the hand can pay;
//! - **payment**: the smallest sufficient total, then the fewest cards, then
//!   the payment that keeps the stronger cards (its forces, highest first,
//!   compared lexicographically), then the earlier cards of the seed's list;
//! - **Logistics**: keep the highest cards (on equal force, the earlier
//!   short-code letters).
//!
//! It is deterministic; its games differ only by what the door for chance
//! gives. [`practice`] plays one with an open practice seed.

use std::cmp::Reverse;

use yam_notation::genghis_khan::Move;

use crate::fair_play::chance::{Chance, ChanceError, PracticeChance};
use crate::fair_play::encoding::Blob;
use crate::fair_play::game_id::GameId;

use super::action::{Action, Illegal};
use super::apply::{apply, attackable, setup};
use super::cards::{FoeCard, KhanCard};
use super::ruleset::Ruleset;
use super::state::{Phase, State};
use super::token::notate;

/// The cheapest payment for a card of force `need` from `hand`, if any.
pub fn cheapest_payment(hand: &[KhanCard], need: u32) -> Option<Vec<KhanCard>> {
    if hand.len() > 20 {
        return None;
    }
    let subset = |mask: u32| -> Vec<KhanCard> {
        hand.iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, c)| *c)
            .collect()
    };
    let sum = |mask: u32| -> u32 {
        hand.iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, c)| u32::from(c.force()))
            .sum()
    };
    // First the smallest sufficient total and fewest cards, on masks alone.
    let mut best: Option<(u32, u32)> = None;
    for mask in 1u32..(1u32 << hand.len()) {
        let total = sum(mask);
        if total >= need {
            let key = (total, mask.count_ones());
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
    }
    let (total, count) = best?;
    // Then the tie-breaks, among the payments with that total and count.
    (1u32..(1u32 << hand.len()))
        .filter(|&m| m.count_ones() == count && sum(m) == total)
        .map(subset)
        .min_by_key(|cards| {
            let mut forces: Vec<u8> = cards.iter().map(|c| c.force()).collect();
            forces.sort_unstable_by(|a, b| b.cmp(a));
            let mut indices: Vec<usize> = cards.iter().map(|c| c.index()).collect();
            indices.sort_unstable();
            (forces, indices)
        })
}

/// How many cards of `row` (top last) the greedy payments capture from `hand`.
pub fn captures_possible(hand: &[KhanCard], row: &[FoeCard]) -> usize {
    let mut hand = hand.to_vec();
    let mut count = 0;
    for foe in row.iter().rev() {
        let Some(payment) = cheapest_payment(&hand, u32::from(foe.force())) else {
            break;
        };
        hand.retain(|c| !payment.contains(c));
        count += 1;
    }
    count
}

/// The greedy player's action, or `None` when the game is over.
pub fn greedy_action(state: &State) -> Option<Action> {
    match state.phase() {
        Phase::Over(_) => None,
        Phase::Horde { .. } => Some(Action::Draw),
        Phase::Logistics => {
            let mut hand = state.hand().to_vec();
            // Weakest first: lowest force, then the later letters.
            hand.sort_by_key(|c| (c.force(), Reverse(c.code_letter())));
            hand.truncate(state.excess());
            Some(Action::Discard(hand))
        }
        Phase::Conquest { target } => {
            if let Some(deck) = target
                && let Some(top) = state.top(deck)
            {
                return Some(
                    cheapest_payment(state.hand(), u32::from(top.force()))
                        .map_or(Action::Pass, Action::Capture),
                );
            }
            let mut best: Option<(usize, _)> = None;
            for deck in attackable(state) {
                let n = captures_possible(state.hand(), state.row(deck));
                if n > 0 && best.is_none_or(|(m, _)| n > m) {
                    best = Some((n, deck));
                }
            }
            Some(best.map_or(Action::Pass, |(_, deck)| Action::Attack(deck)))
        }
    }
}

/// A finished greedy game: the last state and every move, written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GreedyGame {
    /// The state at the end.
    pub state: State,
    /// The moves, in order, as a record writes them.
    pub moves: Vec<Move>,
}

/// Plays a whole game greedily, drawing through `chance`.
pub fn play_greedy(
    ruleset: &Ruleset,
    chance: &mut (impl Chance + ?Sized),
) -> Result<GreedyGame, Illegal> {
    let mut state = setup(ruleset, chance)?;
    let mut moves = Vec::new();
    // Every action moves the game on (a card drawn, a Foe declared or
    // captured, a phase ended), so this ends.
    while let Some(action) = greedy_action(&state) {
        let (next, events) = apply(&state, &action, chance)?;
        moves.push(notate(&state, &action, &events)?);
        state = next;
    }
    Ok(GreedyGame { state, moves })
}

/// The practice chance of greedy game number `n`: game id
/// `genghis-khan-greedy-<n>`, open seed the eight bytes of `n`, big-endian.
pub fn practice_chance(n: u64) -> Result<PracticeChance, Illegal> {
    let game = GameId::new(format!("genghis-khan-greedy-{n}")).map_err(ChanceError::from)?;
    let seed = Blob::new(n.to_be_bytes().to_vec()).map_err(ChanceError::from)?;
    Ok(PracticeChance::new(&game, &seed))
}

/// Greedy game number `n` under `ruleset`, with its practice chance
/// (unverified, reproducible).
pub fn practice(ruleset: &Ruleset, n: u64) -> Result<GreedyGame, Illegal> {
    play_greedy(ruleset, &mut practice_chance(n)?)
}

/// Figures over many greedy games.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Games played.
    pub games: u32,
    /// Mean score.
    pub mean: f64,
    /// Lowest score.
    pub min: u32,
    /// Highest score.
    pub max: u32,
    /// Mean Foe cards captured.
    pub mean_cards: f64,
    /// Mean Foe decks captured completely.
    pub mean_complete: f64,
    /// Games scoring over 100.
    pub over_100: u32,
}

/// Plays greedy games `0..games` under `ruleset` and sums them up.
pub fn summarize(ruleset: &Ruleset, games: u32) -> Result<Summary, Illegal> {
    let mut scores = Vec::with_capacity(games as usize);
    let (mut cards, mut complete) = (0u64, 0u64);
    for n in 0..games {
        let score = practice(ruleset, u64::from(n))?.state.score();
        scores.push(score.points());
        cards += u64::from(score.cards);
        complete += u64::from(score.complete_decks);
    }
    let count = f64::from(games.max(1));
    Ok(Summary {
        games,
        mean: scores.iter().map(|&s| f64::from(s)).sum::<f64>() / count,
        min: scores.iter().copied().min().unwrap_or(0),
        max: scores.iter().copied().max().unwrap_or(0),
        mean_cards: cards as f64 / count,
        mean_complete: complete as f64 / count,
        over_100: u32::try_from(scores.iter().filter(|&&s| s > 100).count()).unwrap_or(0),
    })
}
