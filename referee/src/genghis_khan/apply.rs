//! Setting up and playing: every chance value through the door for chance,
//! every action checked with its reason, and its consequences in order.

use crate::fair_play::chance::Chance;

use super::action::{Action, Event, Illegal};
use super::cards::{FoeCard, FoeDeck, KhanCard, foe_deck, khan_deck, khan_force};
use super::ruleset::Ruleset;
use super::state::{EndReason, HORDE, Phase, State};

/// The purpose of the draw that lays the `k`-th card (from 1) of a Foe row.
pub fn layout_purpose(deck: FoeDeck, k: usize) -> String {
    format!("lay out {deck}: card {k} of {}", FoeDeck::SIZE)
}

/// The purpose of the `number`-th draw (from 1) of a turn's Horde phase.
pub fn horde_purpose(turn: u32, number: usize) -> String {
    format!("turn {turn} Horde: card {number}")
}

/// Set up a game: lay out the five Foe rows in an order drawn through the
/// door for chance, and leave the Khan deck undrawn (GK-02, GK-03, GK-04).
///
/// The rows are laid in the order of [`FoeDeck::ALL`], each card in the
/// order laid: draw `k` of a row picks, uniformly, one of the cards of that
/// deck not yet laid, given in canonical order (see [`super::cards`]); the
/// 20th card laid is the top. That is 100 draws, from 20, 19, ..., 1 cards
/// per row. The rows are public from then on.
pub fn setup(ruleset: &Ruleset, chance: &mut (impl Chance + ?Sized)) -> Result<State, Illegal> {
    let mut rows: [Vec<_>; 5] = Default::default();
    for deck in FoeDeck::ALL {
        let mut left = foe_deck(deck);
        let row = &mut rows[deck.index()];
        for k in 1..=FoeDeck::SIZE {
            let index = pick(chance, &layout_purpose(deck, k), left.len())?;
            row.push(left.remove(index));
        }
    }
    Ok(laid_out(ruleset, rows))
}

/// The game once its Foe rows are laid (each in the order laid: the last
/// card is the top, GK-02), however they were laid: by the door for chance
/// ([`setup`]) or at a table ([`super::deal::Deal::setup`]).
pub(super) fn laid_out(ruleset: &Ruleset, rows: [Vec<FoeCard>; 5]) -> State {
    let mut state = State {
        options: ruleset.options,
        turn: 1,
        phase: Phase::Horde { drawn: 0 },
        deck: khan_deck(),
        hand: Vec::new(),
        discard: Vec::new(),
        rows,
        piles: Default::default(),
    };
    // GK-04: no starting hand; turn 1 begins with its Horde phase.
    state.begin_turn(1, &mut Vec::new());
    state
}

/// One index from the door, checked against the number of cards.
fn pick(
    chance: &mut (impl Chance + ?Sized),
    purpose: &str,
    remaining: usize,
) -> Result<usize, Illegal> {
    let index = chance.draw(purpose, remaining)?;
    if index < remaining {
        Ok(index)
    } else {
        Err(Illegal::BadIndex { index, remaining })
    }
}

/// Play `action`: the next state and what happened, or why it is refused.
/// Only [`Action::Draw`] asks the door for chance, for exactly one index.
pub fn apply(
    state: &State,
    action: &Action,
    chance: &mut (impl Chance + ?Sized),
) -> Result<(State, Vec<Event>), Illegal> {
    check(state, action)?;
    let mut next = state.clone();
    let mut events = Vec::new();
    match action {
        Action::Draw => next.draw(chance, &mut events)?,
        Action::Attack(deck) => {
            next.phase = Phase::Conquest {
                target: Some(*deck),
            };
            events.push(Event::Attacked(*deck));
        }
        Action::Capture(payment) => next.capture(payment, &mut events),
        Action::Pass => {
            events.push(Event::ConquestEnded);
            if next.excess() > 0 {
                next.phase = Phase::Logistics;
            } else {
                next.end_turn(&mut events);
            }
        }
        Action::Discard(cards) => {
            // GK-22: a set; it reaches the discard pile in canonical order.
            let mut cards = cards.clone();
            yam_notation::genghis_khan::sort_canonical(&mut cards);
            next.take_from_hand(&cards);
            events.push(Event::Discarded(cards));
            next.end_turn(&mut events);
        }
    }
    Ok((next, events))
}

/// Whether `action` is legal now, and if not, why. Asks no chance.
pub fn check(state: &State, action: &Action) -> Result<(), Illegal> {
    match state.phase {
        Phase::Over(reason) => Err(Illegal::GameOver(reason)),
        Phase::Horde { .. } => match action {
            Action::Draw => Ok(()),
            _ => Err(Illegal::MustDraw {
                remaining: draws_due(state),
            }),
        },
        Phase::Logistics => match action {
            Action::Discard(cards) => check_discard(state, cards),
            _ => Err(Illegal::MustDiscard {
                hand: state.hand.len(),
                limit: state.options.hand_limit,
                excess: state.excess(),
            }),
        },
        Phase::Conquest { target } => match action {
            Action::Draw => Err(Illegal::NoDrawDue),
            Action::Discard(_) => Err(Illegal::NotLogistics),
            Action::Pass => Ok(()),
            Action::Attack(deck) => check_attack(state, target, *deck),
            Action::Capture(payment) => check_capture(state, target, payment),
        },
    }
}

fn check_attack(state: &State, target: Option<FoeDeck>, deck: FoeDeck) -> Result<(), Illegal> {
    if let Some(current) = target {
        // GK-05: one Foe per turn. GK-11: unless it is emptied and the
        // switch flag is on.
        if !state.is_complete(current) {
            return Err(Illegal::AlreadyAttacked(current));
        }
        if !state.options.switch_after_exhaust {
            return Err(Illegal::NoSwitch(current));
        }
    }
    if state.is_complete(deck) {
        return Err(Illegal::Exhausted(deck));
    }
    // GK-12: Mongolian Unification must be captured completely first.
    let mu = state.row(FoeDeck::MongolianUnification).len();
    if deck != FoeDeck::MongolianUnification && mu > 0 {
        return Err(Illegal::UnificationFirst {
            target: deck,
            left: mu,
        });
    }
    Ok(())
}

fn check_capture(
    state: &State,
    target: Option<FoeDeck>,
    payment: &[KhanCard],
) -> Result<(), Illegal> {
    let deck = target.ok_or(Illegal::NoTarget)?;
    let foe = state.top(deck).ok_or(Illegal::TargetExhausted(deck))?;
    if payment.is_empty() {
        return Err(Illegal::EmptyPayment);
    }
    check_cards(state, payment)?;
    // GK-07: equal or exceed. GK-09, GK-10: this payment alone, nothing
    // carried over or accumulated.
    let paid = khan_force(payment);
    let needed = u32::from(foe.force());
    if paid < needed {
        return Err(Illegal::Insufficient { foe, paid, needed });
    }
    Ok(())
}

fn check_discard(state: &State, cards: &[KhanCard]) -> Result<(), Illegal> {
    check_cards(state, cards)?;
    let required = state.excess();
    if cards.len() != required {
        return Err(Illegal::DiscardCount {
            discarded: cards.len(),
            required,
            limit: state.options.hand_limit,
        });
    }
    Ok(())
}

/// GK-22, GK-23: distinct cards, all in the hand.
fn check_cards(state: &State, cards: &[KhanCard]) -> Result<(), Illegal> {
    for (i, card) in cards.iter().enumerate() {
        if cards[..i].contains(card) {
            return Err(Illegal::NamedTwice(*card));
        }
        if !state.hand.contains(card) {
            return Err(Illegal::NotInHand(*card));
        }
    }
    Ok(())
}

/// Cards still to draw in this Horde phase (0 outside it).
pub fn draws_due(state: &State) -> usize {
    match state.phase {
        Phase::Horde { drawn } => HORDE.saturating_sub(drawn).min(state.drawable()),
        _ => 0,
    }
}

/// The Foes an [`Action::Attack`] may name now.
pub fn attackable(state: &State) -> Vec<FoeDeck> {
    FoeDeck::ALL
        .into_iter()
        .filter(|&d| check(state, &Action::Attack(d)).is_ok())
        .collect()
}

/// Every legal action now. Captures are listed as every sufficient payment
/// (at most 2047 for a hand of 11), discards as every choice of the excess.
pub fn legal_actions(state: &State) -> Vec<Action> {
    let mut out = Vec::new();
    match state.phase {
        Phase::Over(_) => {}
        Phase::Horde { .. } => out.push(Action::Draw),
        Phase::Logistics => {
            for_each_subset(&state.hand, |cards| {
                if cards.len() == state.excess() {
                    out.push(Action::Discard(cards.to_vec()));
                }
            });
        }
        Phase::Conquest { target } => {
            out.extend(attackable(state).into_iter().map(Action::Attack));
            if check_capture(state, target, &state.hand).is_ok() {
                for_each_subset(&state.hand, |cards| {
                    if !cards.is_empty() && check_capture(state, target, cards).is_ok() {
                        out.push(Action::Capture(cards.to_vec()));
                    }
                });
            }
            out.push(Action::Pass);
        }
    }
    out
}

/// Calls `f` with every subset of `cards` (in a fixed order).
pub(super) fn for_each_subset(cards: &[KhanCard], mut f: impl FnMut(&[KhanCard])) {
    // A hand never exceeds 5 + the hand limit; past 20 cards this would be
    // too many subsets to list, so it lists none rather than hang.
    if cards.len() > 20 {
        return;
    }
    let mut buf = Vec::with_capacity(cards.len());
    for mask in 0u32..(1u32 << cards.len()) {
        buf.clear();
        buf.extend(
            cards
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, c)| *c),
        );
        f(&buf);
    }
}

impl State {
    /// Horde: one card through the door (GK-14 reshuffle first if the flag
    /// is on and the deck is empty).
    fn draw(
        &mut self,
        chance: &mut (impl Chance + ?Sized),
        events: &mut Vec<Event>,
    ) -> Result<(), Illegal> {
        let Phase::Horde { drawn } = self.phase else {
            return Err(Illegal::NoDrawDue);
        };
        if self.deck.is_empty() && self.options.reshuffle {
            // GK-14 flag: the discard pile becomes the deck, in canonical order.
            let mut cards = std::mem::take(&mut self.discard);
            cards.sort_unstable();
            events.push(Event::Reshuffled { cards: cards.len() });
            self.deck = cards;
        }
        let number = drawn + 1;
        let index = pick(chance, &horde_purpose(self.turn, number), self.deck.len())?;
        let card = self.deck.remove(index);
        self.hand.push(card);
        events.push(Event::Drew {
            card,
            turn: self.turn,
            number,
        });
        self.phase = Phase::Horde { drawn: number };
        if draws_due(self) == 0 {
            self.phase = Phase::Conquest { target: None };
        }
        Ok(())
    }

    /// Conquest: capture the top card of the attacked Foe (checked already).
    fn capture(&mut self, payment: &[KhanCard], events: &mut Vec<Event>) {
        let Phase::Conquest { target: Some(deck) } = self.phase else {
            return;
        };
        let Some(foe) = self.rows[deck.index()].pop() else {
            return;
        };
        // GK-22: a set; it reaches the discard pile in canonical order.
        let mut paid = payment.to_vec();
        yam_notation::genghis_khan::sort_canonical(&mut paid);
        self.take_from_hand(&paid);
        self.piles[deck.index()].push(foe);
        // GK-08: the excess is lost.
        let waste = khan_force(payment).saturating_sub(u32::from(foe.force()));
        events.push(Event::Captured {
            foe,
            payment: paid,
            waste,
        });
        if self.is_complete(deck) {
            events.push(Event::Completed(deck));
        }
        // GK-16: the game ends as soon as every Foe card is captured.
        if FoeDeck::ALL.iter().all(|&d| self.is_complete(d)) {
            self.finish(EndReason::AllCaptured, events);
        }
    }

    /// Moves `cards` from the hand to the discard pile (GK-23).
    fn take_from_hand(&mut self, cards: &[KhanCard]) {
        for card in cards {
            if let Some(i) = self.hand.iter().position(|c| c == card) {
                self.hand.remove(i);
                self.discard.push(*card);
            }
        }
    }

    /// After the Logistics phase: the game ends (GK-16) or the next turn
    /// begins.
    fn end_turn(&mut self, events: &mut Vec<Event>) {
        if self.turn >= self.options.turns {
            self.finish(EndReason::TurnLimit, events);
        } else if self.hand.is_empty() && self.drawable() == 0 {
            self.finish(EndReason::NoCards, events);
        } else {
            self.begin_turn(self.turn + 1, events);
        }
    }

    /// A turn's start: its Horde phase, or straight to Conquest when nothing
    /// can be drawn (GK-14: turn 21 draws nothing).
    fn begin_turn(&mut self, turn: u32, events: &mut Vec<Event>) {
        self.turn = turn;
        self.phase = Phase::Horde { drawn: 0 };
        let draws = draws_due(self);
        events.push(Event::TurnBegan { turn, draws });
        if draws == 0 {
            self.phase = Phase::Conquest { target: None };
        }
    }

    fn finish(&mut self, reason: EndReason, events: &mut Vec<Event>) {
        self.phase = Phase::Over(reason);
        events.push(Event::GameOver {
            reason,
            score: self.score(),
        });
    }
}
