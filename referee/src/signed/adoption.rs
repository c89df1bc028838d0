//! Adopting an incoming record: whether a verified record may replace the
//! one a party keeps. A player's desk and the referee robot witnessing a
//! game between two desks decide by this one rule (`docs/mail.md`, "What
//! is checked"): the kept events are a prefix of the received ones, hash
//! for hash, and every new event is signed by the sender.

use crate::fair_play::sign::PublicKey;
use crate::fair_play::turn::SignedEvent;

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
    /// The histories part after this many common events.
    Fork(usize),
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
        return Adoption::Fork(common);
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
}
