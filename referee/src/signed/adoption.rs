//! Adopting an incoming record: whether a verified record may replace the
//! one a party keeps. A player's desk and the referee robot witnessing a
//! game between two desks decide by this one rule (`docs/mail.md`, "What
//! is checked"): the kept events are a prefix of the received ones, hash
//! for hash, and every new event is signed by the sender. Two histories
//! that part are settled by one more rule when they part because an event
//! a party may sign without the pen (a resignation, a forfeit claim)
//! crossed the pen-holder's in the mail: the pen-holder's stands
//! (`docs/fair-play.md`, 3.10; [`crossing`]).

use crate::fair_play::sign::PublicKey;
use crate::fair_play::turn::{EventBody, SignedEvent};

/// Whether a verified record may replace the stored one: what the desk
/// and the referee robot both decide before adopting a mail's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Adoption<'a> {
    /// It continues the stored record with this many events, all signed by
    /// the sender.
    New(usize),
    /// The very same events: read before.
    Same,
    /// Fewer events than stored, on the same history: a late or replayed
    /// mail.
    Old,
    /// The histories part after this many common events, and no rule
    /// says which stands: someone's error or fraud, for a director.
    Fork(usize),
    /// The histories part after `common` events because an event signed
    /// without the pen crossed the pen-holder's in the mail; the one that
    /// `stands` is the game, the other's events after `common` are void
    /// (kept as evidence). Whether the received events are the sender's
    /// is the caller's to ask, as for [`Adoption::New`].
    Crossed {
        /// The events both histories share.
        common: usize,
        /// Which history is the game.
        stands: Stands,
    },
    /// A new event signed by someone other than the sender.
    Foreign(&'a SignedEvent),
}

/// Judges `received` (verified) against `stored` (the events kept): the
/// stored ones must be a prefix, hash for hash, and every new one signed
/// by `sender`.
pub fn adoption<'a>(
    stored: &[SignedEvent],
    received: &'a [SignedEvent],
    sender: Option<PublicKey>,
) -> Adoption<'a> {
    // Equal events have equal hashes and unequal ones unequal hashes (the
    // hash is of the event's canonical bytes, signature aside), so the
    // events are compared as they are, without hashing both histories.
    let common = stored
        .iter()
        .zip(received)
        .take_while(|(a, b)| a.event == b.event)
        .count();
    if common < stored.len() && common < received.len() {
        return match crossing(&stored[common..], &received[common..]) {
            Some(Branch::First) => Adoption::Crossed {
                common,
                stands: Stands::Kept,
            },
            Some(Branch::Second) => Adoption::Crossed {
                common,
                stands: Stands::Received,
            },
            None => Adoption::Fork(common),
        };
    }
    if received.len() == stored.len() {
        return Adoption::Same;
    }
    if received.len() < stored.len() {
        return Adoption::Old;
    }
    if let Some(foreign) = received[stored.len()..]
        .iter()
        .find(|e| Some(e.event.author) != sender)
    {
        return Adoption::Foreign(foreign);
    }
    Adoption::New(received.len() - stored.len())
}

/// Of two crossing histories, the one that is the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stands {
    /// The one kept: the received one's events after the common ones are
    /// void.
    Kept,
    /// The one received: the kept one's events after the common ones are
    /// void.
    Received,
}

/// One of two branches, in the order given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Branch {
    /// The first one given.
    First,
    /// The second one given.
    Second,
}

/// Which of two branches that part after a common event stands, when an
/// event signed without the pen crossed the pen-holder's in the mail
/// (`docs/fair-play.md`, 3.10): `first` and `second` are the two
/// histories' events after the common ones, each verified in its own
/// history. `None` when no rule settles them (3.9: the same author signed
/// both, which is equivocation; or neither branch is such a crossing).
///
/// A branch is void against the other when it holds only events its author
/// may sign without the pen (resignations and forfeit claims) and its first
/// one yields to the other's first: a forfeit claim yields to any event of
/// the party it is against (who held the pen, or the claim would not
/// verify: the silent party spoke after all), and a resignation to any event
/// of the opponent but a resignation or a claim against the resigner (a
/// move, a roll's step, an offer or an answer is signed only with the pen).
/// Exactly one branch must yield: two resignations at once, or two claims
/// against each other (both owed, as in a siege's setup), settle nothing.
pub fn crossing(first: &[SignedEvent], second: &[SignedEvent]) -> Option<Branch> {
    let (a, b) = (first.first()?, second.first()?);
    if a.event.author == b.event.author {
        return None;
    }
    match (yields(first, b), yields(second, a)) {
        (true, false) => Some(Branch::Second),
        (false, true) => Some(Branch::First),
        _ => None,
    }
}

/// The party who resigned in `void`, a branch the crossing rule made void
/// (3.10), if it holds a resignation.
pub fn void_resigner(void: &[SignedEvent]) -> Option<PublicKey> {
    void.iter()
        .find(|e| matches!(e.event.body, EventBody::Resignation))
        .map(|e| e.event.author)
}

/// A resignation is not taken back by crossing (3.10): after her void
/// resignation, `resigner`'s next event in the history that stands must be
/// her resignation signed again. `after` holds that history's events from
/// the crossing on; the first of `resigner`'s, when it is anything else
/// (she played on instead), is returned: it takes the resignation back.
pub fn resignation_taken_back<'a>(
    resigner: &PublicKey,
    after: &'a [SignedEvent],
) -> Option<&'a SignedEvent> {
    after
        .iter()
        .find(|e| e.event.author == *resigner)
        .filter(|e| !matches!(e.event.body, EventBody::Resignation))
}

/// Whether `branch` is void against a branch whose first event is
/// `other` (see [`crossing`]).
fn yields(branch: &[SignedEvent], other: &SignedEvent) -> bool {
    let Some(first) = branch.first() else {
        return false;
    };
    let author = first.event.author;
    let without_pen = branch.iter().all(|e| {
        e.event.author == author
            && matches!(
                e.event.body,
                EventBody::Resignation | EventBody::ForfeitClaim { .. }
            )
    });
    if !without_pen {
        return false;
    }
    match &first.event.body {
        EventBody::ForfeitClaim { against, .. } => *against == other.event.author,
        EventBody::Resignation => match &other.event.body {
            EventBody::Resignation => false,
            EventBody::ForfeitClaim { against, .. } => *against != author,
            _ => true,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair_play::encoding::{List, Text};
    use crate::fair_play::game_id::GameId;
    use crate::fair_play::hash::Hash32;
    use crate::fair_play::sign::SigningKey;
    use crate::fair_play::sign::tests::key;
    use crate::fair_play::turn::{Challenge, Event, EventBody, Mode, Party, RoleChoice, TurnBody};

    /// A challenge by `alice` and one turn by `bob` after it: events whose
    /// content differs by author, which is all adoption looks at.
    fn opened(alice: &SigningKey, bob: &SigningKey) -> Vec<SignedEvent> {
        let challenge = Event::challenge(
            GameId::new("adoption").unwrap(),
            alice.public_key(),
            Challenge {
                game_name: Text::new("Khan").unwrap(),
                ruleset_hash: Hash32::of(b"rules"),
                mode: Mode::Peer,
                roles: RoleChoice::Chosen,
                challenger: Party {
                    key: alice.public_key(),
                    anchor: None,
                    roles: List::empty(),
                },
                invited: List::new(vec![bob.public_key()]).unwrap(),
            },
        );
        let first = challenge.sign(alice).unwrap();
        let second = Event::after(
            &first.event,
            bob.public_key(),
            EventBody::Turn(TurnBody::default()),
        )
        .sign(bob)
        .unwrap();
        vec![first, second]
    }

    #[test]
    fn only_a_continuation_signed_by_the_sender_is_new() {
        let (alice, bob) = (key(1), key(2));
        let base = opened(&alice, &bob);
        let next = |events: &[SignedEvent], who: &SigningKey| {
            Event::after(
                &events.last().unwrap().event,
                who.public_key(),
                EventBody::Turn(TurnBody::default()),
            )
            .sign(who)
            .unwrap()
        };
        let mut longer = base.clone();
        longer.push(next(&longer, &alice));
        assert_eq!(
            adoption(&base, &longer, Some(alice.public_key())),
            Adoption::New(1)
        );
        assert_eq!(
            adoption(&base, &longer, Some(bob.public_key())),
            Adoption::Foreign(&longer[2])
        );
        assert_eq!(adoption(&base, &base, None), Adoption::Same);
        assert_eq!(adoption(&longer, &base, None), Adoption::Old);
        let mut fork = base.clone();
        fork.push(next(&fork, &bob));
        assert_eq!(adoption(&longer, &fork, None), Adoption::Fork(2));
    }

    /// `events` continued by `who` with `body`.
    fn then(events: &[SignedEvent], who: &SigningKey, body: EventBody) -> Vec<SignedEvent> {
        let mut out = events.to_vec();
        out.push(
            Event::after(&events.last().unwrap().event, who.public_key(), body)
                .sign(who)
                .unwrap(),
        );
        out
    }

    fn claim(against: &SigningKey) -> EventBody {
        EventBody::ForfeitClaim {
            against: against.public_key(),
            reason: Text::new("silent").unwrap(),
            robot_time: None,
        }
    }

    fn turn() -> EventBody {
        EventBody::Turn(TurnBody::default())
    }

    #[test]
    fn an_event_signed_without_the_pen_yields_to_the_pen_holders_that_it_crossed() {
        // 3.10. Alice (not holding the pen) resigns or claims while Bob's
        // move is on its way: Bob's history stands on both desks, whichever
        // way round they are given.
        let (alice, bob) = (key(1), key(2));
        let base = opened(&alice, &bob);
        let moved = then(&base, &bob, turn());
        for void in [
            then(&base, &alice, EventBody::Resignation),
            then(&base, &alice, claim(&bob)),
            // A claim and then a resignation, both without the pen.
            then(
                &then(&base, &alice, claim(&bob)),
                &alice,
                EventBody::Resignation,
            ),
        ] {
            assert_eq!(
                adoption(&void, &moved, Some(bob.public_key())),
                Adoption::Crossed {
                    common: 2,
                    stands: Stands::Received
                }
            );
            assert_eq!(
                adoption(&moved, &void, Some(alice.public_key())),
                Adoption::Crossed {
                    common: 2,
                    stands: Stands::Kept
                }
            );
        }
        // Bob's branch may go on after his move (a roll's steps, another
        // event of his): it still stands.
        let further = then(&moved, &bob, EventBody::DrawOffer);
        assert_eq!(
            crossing(&then(&base, &alice, claim(&bob))[2..], &further[2..]),
            Some(Branch::Second)
        );
        // The pen-holder's own resignation stands against the claim.
        assert_eq!(
            crossing(
                &then(&base, &alice, claim(&bob))[2..],
                &then(&base, &bob, EventBody::Resignation)[2..]
            ),
            Some(Branch::Second)
        );
        // A resignation stands against a claim against the resigner.
        assert_eq!(
            crossing(
                &then(&base, &alice, EventBody::Resignation)[2..],
                &then(&base, &bob, claim(&alice))[2..]
            ),
            Some(Branch::First)
        );
    }

    #[test]
    fn a_fork_no_rule_settles_stays_a_fork() {
        let (alice, bob) = (key(1), key(2));
        let base = opened(&alice, &bob);
        fn fork(a: &[SignedEvent], b: &[SignedEvent]) -> Adoption<'static> {
            match adoption(a, b, None) {
                Adoption::Fork(n) => Adoption::Fork(n),
                Adoption::Crossed { common, stands } => Adoption::Crossed { common, stands },
                _ => Adoption::Same,
            }
        }
        // Two resignations at once, two claims against each other.
        assert_eq!(
            fork(
                &then(&base, &alice, EventBody::Resignation),
                &then(&base, &bob, EventBody::Resignation)
            ),
            Adoption::Fork(2)
        );
        assert_eq!(
            fork(
                &then(&base, &alice, claim(&bob)),
                &then(&base, &bob, claim(&alice))
            ),
            Adoption::Fork(2)
        );
        // Two moves by two authors: neither was signed without the pen.
        assert_eq!(
            fork(&then(&base, &alice, turn()), &then(&base, &bob, turn())),
            Adoption::Fork(2)
        );
        // The same author on both sides: equivocation (3.9), not a
        // crossing, even when one of the two is a resignation.
        assert_eq!(
            fork(
                &then(&base, &bob, EventBody::Resignation),
                &then(&base, &bob, turn())
            ),
            Adoption::Fork(2)
        );
        // A claim against someone else than the other branch's author.
        assert_eq!(
            fork(
                &then(&base, &alice, claim(&alice)),
                &then(&base, &bob, turn())
            ),
            Adoption::Fork(2)
        );
        // A void branch holds only events signed without the pen, by one
        // author: a resignation followed by a move of the resigner's is no
        // crossing.
        let resigned_then_moved =
            then(&then(&base, &alice, EventBody::Resignation), &alice, turn());
        assert_eq!(
            fork(&resigned_then_moved, &then(&base, &bob, turn())),
            Adoption::Fork(2)
        );
    }

    #[test]
    fn a_void_resignation_is_taken_back_only_by_another_event_of_the_resigner() {
        let (alice, bob) = (key(1), key(2));
        let base = opened(&alice, &bob);
        let void = then(&base, &alice, EventBody::Resignation);
        assert_eq!(void_resigner(&void[2..]), Some(alice.public_key()));
        assert_eq!(void_resigner(&then(&base, &alice, claim(&bob))[2..]), None);
        let moved = then(&base, &bob, turn());
        // Signed again after Bob's move: not taken back.
        let again = then(&moved, &alice, EventBody::Resignation);
        assert_eq!(
            resignation_taken_back(&alice.public_key(), &again[2..]),
            None
        );
        // Nothing of hers yet: not taken back (yet).
        assert_eq!(
            resignation_taken_back(&alice.public_key(), &moved[2..]),
            None
        );
        // A move of hers instead: taken back, by that event.
        let played_on = then(&moved, &alice, turn());
        assert_eq!(
            resignation_taken_back(&alice.public_key(), &played_on[2..]),
            Some(&played_on[3])
        );
    }
}
