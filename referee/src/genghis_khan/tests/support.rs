//! Helpers: a scripted door for chance, rows stacked by name, draws of named
//! cards, and short ways to play or refuse an action.

use std::collections::VecDeque;

use crate::fair_play::chance::{Chance, ChanceError};
use crate::fair_play::outcome::Assurance;
use crate::genghis_khan::{
    Action, Event, FoeCard, FoeDeck, Illegal, KhanCard, Options, Ruleset, State, apply, foe_deck,
    setup,
};

/// A door for chance that gives scripted indices (0 once the script runs
/// out) and remembers every request.
#[derive(Debug, Default)]
pub struct Script {
    picks: VecDeque<usize>,
    /// Every request: purpose and number of cards.
    pub asked: Vec<(String, usize)>,
}

impl Script {
    pub fn new(picks: impl IntoIterator<Item = usize>) -> Script {
        Script {
            picks: picks.into_iter().collect(),
            asked: Vec::new(),
        }
    }
}

impl Chance for Script {
    fn die(&mut self, _purpose: &str, _sides: u16) -> Result<u16, ChanceError> {
        panic!("Genghis Khan rolls no dice")
    }
    fn draw(&mut self, purpose: &str, remaining: usize) -> Result<usize, ChanceError> {
        self.asked.push((purpose.to_owned(), remaining));
        Ok(self.picks.pop_front().unwrap_or(0))
    }
    fn assurance(&self) -> Assurance {
        Assurance::Unverified
    }
}

pub fn standard() -> Ruleset {
    Ruleset::standard()
}

/// The standard ruleset with some options changed.
pub fn with(change: impl FnOnce(&mut Options)) -> Ruleset {
    let mut options = Options::default();
    change(&mut options);
    Ruleset::standard().with_options(options)
}

pub fn khan(name: &str) -> KhanCard {
    KhanCard::by_name(name).unwrap_or_else(|e| panic!("{e}"))
}

pub fn khans(names: &[&str]) -> Vec<KhanCard> {
    names.iter().map(|n| khan(n)).collect()
}

pub fn foe(deck: FoeDeck, name: &str) -> FoeCard {
    FoeCard::by_name(deck, name).unwrap_or_else(|e| panic!("{e}"))
}

/// A game set up so that each listed deck's row has these cards on top
/// (top first); under them, and in the other rows, the rest in canonical
/// order.
pub fn stacked(ruleset: &Ruleset, tops: &[(FoeDeck, &[&str])]) -> State {
    let mut picks = Vec::new();
    for deck in FoeDeck::ALL {
        let wanted: Vec<FoeCard> = tops
            .iter()
            .filter(|(d, _)| *d == deck)
            .flat_map(|(_, names)| names.iter().map(|n| foe(deck, n)))
            .collect();
        let mut rest = foe_deck(deck);
        for card in &wanted {
            let i = rest
                .iter()
                .position(|c| c == card)
                .expect("two copies at most");
            rest.remove(i);
        }
        // Laid bottom first: the rest, then the wanted cards, top last.
        let order: Vec<FoeCard> = rest.into_iter().chain(wanted.into_iter().rev()).collect();
        let mut left = foe_deck(deck);
        for card in order {
            let i = left.iter().position(|c| *c == card).expect("in the deck");
            picks.push(i);
            left.remove(i);
        }
    }
    setup(ruleset, &mut Script::new(picks)).unwrap_or_else(|e| panic!("{e}"))
}

/// Plays `action`, which must be legal.
pub fn act(state: &State, action: Action) -> (State, Vec<Event>) {
    apply(state, &action, &mut Script::default()).unwrap_or_else(|e| panic!("{action:?}: {e}"))
}

/// Plays `action`, which must be refused; the state is unchanged.
pub fn refused(state: &State, action: Action) -> Illegal {
    match apply(state, &action, &mut Script::default()) {
        Ok(_) => panic!("{action:?} was accepted"),
        Err(e) => e,
    }
}

/// Draws the named cards, in order.
pub fn draw(state: &State, names: &[&str]) -> State {
    let mut state = state.clone();
    for name in names {
        let card = khan(name);
        let pool: Vec<KhanCard> = if state.khan_deck().is_empty() {
            let mut d = state.discard().to_vec();
            d.sort_unstable();
            d
        } else {
            state.khan_deck().to_vec()
        };
        let i = pool
            .iter()
            .position(|c| *c == card)
            .unwrap_or_else(|| panic!("{name} is not in the deck"));
        let (next, events) = apply(&state, &Action::Draw, &mut Script::new([i]))
            .unwrap_or_else(|e| panic!("draw {name}: {e}"));
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Drew { card: c, .. } if *c == card))
        );
        state = next;
    }
    state
}

/// Draws whatever the Horde phase still has to draw (index 0 each time).
pub fn draw_rest(state: &State) -> State {
    let mut state = state.clone();
    while crate::genghis_khan::draws_due(&state) > 0 {
        state = act(&state, Action::Draw).0;
    }
    state
}

/// Ends the turn: pass, and discard the excess, weakest first.
pub fn end_turn(state: &State) -> State {
    let (mut state, _) = act(state, Action::Pass);
    if state.excess() > 0 {
        let mut hand = state.hand().to_vec();
        hand.sort_by_key(|c| c.force());
        hand.truncate(state.excess());
        state = act(&state, Action::Discard(hand)).0;
    }
    state
}

/// The state with the top `n` cards of `deck` moved to its conquest pile, as
/// if captured earlier.
pub fn with_captured(state: &State, deck: FoeDeck, n: usize) -> State {
    let mut state = state.clone();
    for _ in 0..n {
        if let Some(card) = state.rows[deck.index()].pop() {
            state.piles[deck.index()].push(card);
        }
    }
    state
}

/// Captures the top card of the attacked Foe with the named cards.
pub fn capture_with(state: &State, names: &[&str]) -> State {
    act(state, Action::Capture(khans(names))).0
}
