//! Scoring (GK-17, GK-18) and the best score still possible (GK-20).

use std::fmt;

use super::cards::{FoeDeck, foe_force};
use super::state::{HORDE, Phase, State};

/// GK-17: one point per captured Foe card, ten more per Foe deck captured
/// completely.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Score {
    /// Foe cards captured, out of [`Score::MAX_CARDS`].
    pub cards: u32,
    /// Foe decks captured completely, out of 5.
    pub complete_decks: u32,
}

impl Score {
    /// All the Foe cards.
    pub const MAX_CARDS: u32 = 100;
    /// GK-18: the formula's maximum, which governs (the seed's "perfect score
    /// would be 100" is not a ceiling).
    pub const MAX_POINTS: u32 = 150;
    /// GK-17: the bonus for a complete Foe deck.
    pub const DECK_BONUS: u32 = 10;

    /// The score of conquest piles holding `counts` cards (by deck).
    pub fn of(counts: [usize; 5]) -> Score {
        let size = FoeDeck::SIZE;
        Score {
            cards: counts
                .iter()
                .map(|&n| u32::try_from(n.min(size)).unwrap_or(0))
                .sum(),
            complete_decks: u32::try_from(counts.iter().filter(|&&n| n >= size).count())
                .unwrap_or(0),
        }
    }

    /// The points: cards plus ten per complete deck.
    pub fn points(self) -> u32 {
        self.cards + Self::DECK_BONUS * self.complete_decks
    }
}

impl fmt::Display for Score {
    /// GK-18: both figures, `cards 57/100, score 77/150`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cards {}/{}, score {}/{}",
            self.cards,
            Self::MAX_CARDS,
            self.points(),
            Self::MAX_POINTS
        )
    }
}

/// GK-20: an upper bound on the final score, from the force budget.
///
/// Every capture costs at least the force of the card captured, captures
/// come off the top of each row in the row's public order, and no deck but
/// Mongolian Unification gains a card while Mongolian Unification has one
/// left (GK-12). The force still available is the hand plus the best the
/// remaining draws could bring: the strongest cards of the deck, or, with the
/// reshuffle flag, force 10 per draw. Without the switch flag each deck
/// still to be attacked needs a turn of its own (GK-05). The bound ignores
/// that payments come in whole cards, so it is a bound, not a promise; it
/// falls as force is wasted and equals the score once the game is over.
pub fn best_possible(state: &State) -> u32 {
    let now = state.score().points();
    let turns_after = state.options.turns.saturating_sub(state.turn);
    // Conquest phases still to come, and whether the current one can still
    // take a new Foe or only the one already attacked.
    let (this_turn_new, current) = match state.phase {
        Phase::Over(_) => return now,
        Phase::Horde { .. } => (true, None),
        Phase::Conquest { target: None } => (true, None),
        Phase::Conquest { target: Some(deck) } => (state.options.switch_after_exhaust, Some(deck)),
        Phase::Logistics => (false, None),
    };
    let attacks = u64::from(turns_after) + u64::from(this_turn_new);
    if attacks == 0 && current.is_none() {
        return now;
    }
    let budget = force_budget(state, turns_after);
    let row_force: u32 = FoeDeck::ALL.iter().map(|&d| foe_force(state.row(d))).sum();
    let budget = usize::try_from(budget.min(row_force)).unwrap_or(0);
    let limit = if state.options.switch_after_exhaust {
        usize::MAX
    } else {
        usize::try_from(attacks).unwrap_or(usize::MAX)
    };
    now + best_gain(state, budget, limit, current)
}

/// The force the player can still spend: the hand, and the best the draws
/// still to come could bring.
fn force_budget(state: &State, turns_after: u32) -> u32 {
    let due_now = match state.phase {
        Phase::Horde { drawn } => HORDE.saturating_sub(drawn),
        _ => 0,
    };
    let draws = due_now
        .saturating_add(HORDE.saturating_mul(usize::try_from(turns_after).unwrap_or(usize::MAX)));
    let future = if state.options.reshuffle {
        u32::try_from(draws.saturating_mul(10)).unwrap_or(u32::MAX)
    } else {
        let mut forces: Vec<u32> = state.deck.iter().map(|c| u32::from(c.force())).collect();
        forces.sort_unstable_by(|a, b| b.cmp(a));
        forces.iter().take(draws).sum()
    };
    state.hand_force().saturating_add(future)
}

/// The most points captures can add: a knapsack over how many cards to take
/// from the top of each row. `attacks` bounds the number of decks touched
/// besides `current` (the Foe already attacked this turn, free of charge).
fn best_gain(state: &State, budget: usize, attacks: usize, current: Option<FoeDeck>) -> u32 {
    // Per deck: (cost, gain) of taking the top k cards, k = 1..=len.
    let options = |deck: FoeDeck| -> Vec<(usize, usize)> {
        let row = state.row(deck);
        let mut cost = 0usize;
        row.iter()
            .rev()
            .enumerate()
            .map(|(k, card)| {
                cost += usize::from(card.force());
                let bonus = if k + 1 == row.len() {
                    Score::DECK_BONUS as usize
                } else {
                    0
                };
                (cost, k + 1 + bonus)
            })
            .collect()
    };
    let mu = FoeDeck::MongolianUnification;
    let mu_options = options(mu);
    let needs = |deck: FoeDeck| usize::from(current != Some(deck));
    let slots = attacks.min(FoeDeck::ALL.len());
    // GK-12: while Mongolian Unification has cards, it alone can gain,
    // unless all of it is captured.
    let mut best = 0;
    if needs(mu) <= slots || mu_options.is_empty() {
        for &(cost, gain) in &mu_options {
            if cost <= budget {
                best = best.max(gain);
            }
        }
    }
    let (mu_cost, mu_gain, mu_attack) = match mu_options.last() {
        None => (0, 0, 0),
        Some(&(cost, gain)) => (cost, gain, needs(mu)),
    };
    if mu_cost > budget || mu_attack > slots {
        return u32::try_from(best).unwrap_or(0);
    }
    let left = budget - mu_cost;
    let free = slots - mu_attack;
    // cheapest[g][a]: the least force that gains exactly g points from the
    // decks so far with at most a attacks (usize::MAX: impossible). Indexed
    // by gain, which is small (at most 30 per deck).
    let others: Vec<(FoeDeck, Vec<(usize, usize)>)> = FoeDeck::ALL
        .into_iter()
        .filter(|&d| d != mu)
        .map(|d| (d, options(d)))
        .collect();
    let max_gain: usize = others
        .iter()
        .filter_map(|(_, o)| o.last())
        .map(|o| o.1)
        .sum();
    let mut cheapest = vec![vec![0usize; free + 1]; max_gain + 1];
    for row in cheapest.iter_mut().skip(1) {
        row.fill(usize::MAX);
    }
    for (deck, opts) in &others {
        let need = needs(*deck);
        // Descending, so each deck is used once (0/1 over groups).
        for g in (1..=max_gain).rev() {
            for a in (need..=free).rev() {
                for &(cost, gain) in opts {
                    if gain > g {
                        break;
                    }
                    let base = cheapest[g - gain][a - need];
                    if base != usize::MAX && base + cost < cheapest[g][a] {
                        cheapest[g][a] = base + cost;
                    }
                }
            }
        }
    }
    let extra = (0..=max_gain)
        .rev()
        .find(|&g| cheapest[g].iter().any(|&c| c <= left))
        .unwrap_or(0);
    u32::try_from(best.max(mu_gain + extra)).unwrap_or(0)
}
