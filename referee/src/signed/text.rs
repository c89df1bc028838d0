//! How signed events and their readable companions are spelled in a record.
//!
//! - `[%event EVENT SIGNATURE]`: one signed event. `EVENT` is the event's
//!   canonical bytes (`docs/fair-play.md`, 5.3), `SIGNATURE` its author's 64
//!   signature bytes, each in standard base64 with padding (RFC 4648,
//!   section 4), so both are bare command arguments.
//! - `[%chance ROLL ITEM...]`: the chance values of the event that follows it
//!   in the same comment, for people: `"purpose: d6 4"` for a die,
//!   `"purpose: #3 of 40"` for a draw (index from 0). The verifier requires
//!   it to equal what the signed outcomes say, so the readable faces cannot
//!   lie.
//!
//! The header's fair-play tags are in [`super::replay::SignedReplay::expected_tags`].

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use yam_notation::Command;

use crate::fair_play::chance::{ChanceRecord, ChanceResult};
use crate::fair_play::encoding::{Blob, Canonical, DecodeError};
use crate::fair_play::sign::Signature;
use crate::fair_play::turn::{Event, Mode, SignedEvent};

/// The name of the command that carries a signed event.
pub const EVENT_COMMAND: &str = "event";

/// The name of the command that shows an event's chance values.
pub const CHANCE_COMMAND: &str = "chance";

/// The header tags the fair-play layer writes and checks, in canonical order.
pub const FAIR_PLAY_TAGS: [&str; 11] = [
    "RulesetHash",
    "Mode",
    "FirstKey",
    "SecondKey",
    "RefereeKey",
    "FirstAnchor",
    "SecondAnchor",
    "RefereeAnchor",
    "FirstCommitment",
    "SecondCommitment",
    "PracticeSeed",
];

/// The `[%event ...]` command of a signed event.
pub fn event_command(signed: &SignedEvent) -> Command {
    Command::new(
        EVENT_COMMAND,
        [
            STANDARD.encode(signed.event.to_canonical_bytes()),
            STANDARD.encode(signed.signature.to_bytes()),
        ],
    )
}

/// Why the arguments of an `[%event ...]` command are not a signed event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventDecodeError {
    /// Not exactly two arguments (how many there are).
    #[error("[%event] takes two arguments (the event and its signature, in base64), not {0}")]
    Arguments(usize),
    /// The event is not standard base64 with padding.
    #[error("the event is not base64: {0}")]
    EventBase64(base64::DecodeError),
    /// The event's bytes do not decode as a canonical event.
    #[error("the event's {1} bytes are not a canonical event: {0}")]
    NotCanonical(DecodeError, usize),
    /// The signature is not standard base64 with padding.
    #[error("the signature is not base64: {0}")]
    SignatureBase64(base64::DecodeError),
    /// The signature is not 64 bytes long (how many bytes it is).
    #[error("a signature is 64 bytes, not {0}")]
    SignatureLength(usize),
}

/// Reads the arguments of an `[%event ...]` command, or says what is wrong.
pub fn decode_event(args: &[String]) -> Result<SignedEvent, EventDecodeError> {
    let [event, signature] = args else {
        return Err(EventDecodeError::Arguments(args.len()));
    };
    let bytes = STANDARD
        .decode(event)
        .map_err(EventDecodeError::EventBase64)?;
    let event = Event::from_canonical_bytes(&bytes)
        .map_err(|e| EventDecodeError::NotCanonical(e, bytes.len()))?;
    let signature = STANDARD
        .decode(signature)
        .map_err(EventDecodeError::SignatureBase64)?;
    let signature: [u8; 64] = signature
        .try_into()
        .map_err(|s: Vec<u8>| EventDecodeError::SignatureLength(s.len()))?;
    Ok(SignedEvent {
        event,
        signature: Signature::from_bytes(signature),
    })
}

/// The readable form of one chance value.
pub fn chance_item(record: &ChanceRecord) -> String {
    match record.result {
        ChanceResult::Die { sides, face } => format!("{}: d{sides} {face}", record.purpose),
        ChanceResult::Draw { remaining, index } => {
            format!("{}: #{index} of {remaining}", record.purpose)
        }
    }
}

/// Why one item of a `[%chance ...]` command is not a chance value as
/// [`chance_item`] writes it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChanceItemError {
    /// No `: ` between a purpose and a value.
    #[error("{0:?} is not `purpose: value`")]
    NoPurpose(String),
    /// The value is neither a die (`d6 4`) nor a draw (`#3 of 40`).
    #[error("{value:?} ({purpose}) is neither a die such as `d6 4` nor a draw such as `#3 of 40`")]
    Value {
        /// The purpose before it.
        purpose: String,
        /// The value.
        value: String,
    },
}

/// Reads one item of a `[%chance ...]` command, the way back from
/// [`chance_item`]: its purpose (everything before the last `: `) and its
/// value, `d{sides} {face}` for a die, `#{index} of {remaining}` for a
/// draw. Only the spelling is read: whether the value is possible, or true,
/// is for the game and the signed outcomes to say.
pub fn read_chance_item(item: &str) -> Result<(&str, ChanceResult), ChanceItemError> {
    let (purpose, value) = item
        .rsplit_once(": ")
        .ok_or_else(|| ChanceItemError::NoPurpose(item.to_owned()))?;
    let die = || {
        let (sides, face) = value.strip_prefix('d')?.split_once(' ')?;
        Some(ChanceResult::Die {
            sides: number(sides)?,
            face: number(face)?,
        })
    };
    let draw = || {
        let (index, remaining) = value.strip_prefix('#')?.split_once(" of ")?;
        Some(ChanceResult::Draw {
            remaining: number(remaining)?,
            index: number(index)?,
        })
    };
    let result = die().or_else(draw).ok_or_else(|| ChanceItemError::Value {
        purpose: purpose.to_owned(),
        value: value.to_owned(),
    })?;
    Ok((purpose, result))
}

/// A decimal number as [`chance_item`] writes one: digits only.
fn number<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The arguments of the `[%chance ...]` command for roll `roll`.
pub fn chance_args(roll: u64, results: &[ChanceRecord]) -> Vec<String> {
    std::iter::once(roll.to_string())
        .chain(results.iter().map(chance_item))
        .collect()
}

/// The `[%chance ...]` command for roll `roll`.
pub fn chance_command(roll: u64, results: &[ChanceRecord]) -> Command {
    Command::new(CHANCE_COMMAND, chance_args(roll, results))
}

/// The `Mode` tag's value for a mode.
pub fn mode_name(mode: &Mode) -> &'static str {
    match mode {
        Mode::Peer => "peer",
        Mode::Robot => "robot",
        Mode::Director => "director",
        Mode::Practice { .. } => "practice",
    }
}

/// What a mode guarantees and what it does not, in one sentence for every
/// report (`docs/fair-play.md`, section 2).
pub fn mode_guarantee(mode: &Mode) -> &'static str {
    match mode {
        Mode::Peer => {
            "no trusted party: each player's own chain enters every roll, so no player could bias or foresee one"
        }
        Mode::Robot => {
            "a referee robot held the keys and chains it signed with: it could not bias a roll once the opening fixed its chains, and each player's seed text enters every roll, but it could see an outcome before answering"
        }
        Mode::Director => {
            "a director's chain answered every roll: it could not bias one once the opening fixed the chains, and the director's register shows every game started"
        }
        Mode::Practice { .. } => {
            "nothing about fairness: whoever chose the open seed could have chosen the outcomes"
        }
    }
}

/// The `PracticeSeed` tag's value: the seed as text, or `hex:` and its
/// bytes in hex when they are not UTF-8.
pub fn practice_seed_text(seed: &Blob) -> String {
    match std::str::from_utf8(seed.as_bytes()) {
        Ok(text) => text.to_owned(),
        Err(_) => format!("hex:{}", hex::encode(seed.as_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair_play::encoding::Text;
    use crate::fair_play::game_id::GameId;
    use crate::fair_play::hash::Hash32;
    use crate::fair_play::sign::tests::key;
    use crate::fair_play::turn::{EventBody, TurnBody};

    #[test]
    fn events_round_trip_through_their_command() {
        let event = Event {
            game: GameId::new("g-1").unwrap(),
            seq: 3,
            parent: Hash32::from_bytes([7; 32]),
            author: key(1).public_key(),
            body: EventBody::Turn(TurnBody::default()),
        };
        let signed = event.sign(&key(1)).unwrap();
        let command = event_command(&signed);
        assert_eq!(command.name, "event");
        assert_eq!(decode_event(&command.args), Ok(signed));
        let e = decode_event(&command.args[..1]).unwrap_err();
        assert_eq!(e, EventDecodeError::Arguments(1));
        assert!(e.to_string().contains("two"), "{e}");
        let bad = vec![command.args[0].clone(), "AAAA".to_owned()];
        let e = decode_event(&bad).unwrap_err();
        assert_eq!(e, EventDecodeError::SignatureLength(3));
        assert!(e.to_string().contains("64 bytes"), "{e}");
        let bad = vec!["!!".to_owned(), command.args[1].clone()];
        let e = decode_event(&bad).unwrap_err();
        assert!(matches!(e, EventDecodeError::EventBase64(_)), "{e}");
        assert!(e.to_string().contains("base64"), "{e}");
        let bad = vec![STANDARD.encode(b"junk"), command.args[1].clone()];
        let e = decode_event(&bad).unwrap_err();
        assert!(matches!(e, EventDecodeError::NotCanonical(_, 4)), "{e}");
        assert!(e.to_string().contains("canonical"), "{e}");
    }

    #[test]
    fn chance_values_read_plainly() {
        let records = [
            ChanceRecord {
                purpose: Text::new("A1xB2").unwrap(),
                result: ChanceResult::Die { sides: 6, face: 4 },
            },
            ChanceRecord {
                purpose: Text::new("reinforcement").unwrap(),
                result: ChanceResult::Draw {
                    remaining: 40,
                    index: 3,
                },
            },
        ];
        assert_eq!(
            chance_args(2, &records),
            ["2", "A1xB2: d6 4", "reinforcement: #3 of 40"]
        );
        for record in &records {
            assert_eq!(
                read_chance_item(&chance_item(record)),
                Ok((record.purpose.as_str(), record.result))
            );
        }
        assert_eq!(
            read_chance_item("a: b: d6 4"),
            Ok(("a: b", ChanceResult::Die { sides: 6, face: 4 }))
        );
        assert_eq!(
            read_chance_item("d6 4"),
            Err(ChanceItemError::NoPurpose("d6 4".to_owned()))
        );
        for value in ["d6", "d6 +4", "#3 of", "#3 of 4 0", "6"] {
            assert!(
                matches!(
                    read_chance_item(&format!("x: {value}")),
                    Err(ChanceItemError::Value { .. })
                ),
                "{value}"
            );
        }
        assert_eq!(
            practice_seed_text(&Blob::new(vec![0xff]).unwrap()),
            "hex:ff"
        );
    }
}
