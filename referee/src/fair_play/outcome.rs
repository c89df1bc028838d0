//! Outcome derivation: the byte stream from which a roll's dice and draws are
//! taken.
//!
//! For roll index `k` the stream is the concatenation of 32-byte blocks
//!
//! ```text
//! block_c = SHA-256( tag "yam/v1/outcome" || game id || k (u64)
//!                    || H(declaration) (32)
//!                    || party count (u32)
//!                    || for each party, in ascending order of key bytes:
//!                         key (32) || revealed chain value (32)
//!                    || c (u32) )
//! ```
//!
//! for `c = 0, 1, 2, ...`. Bytes are consumed strictly in order, from the
//! first byte of block 0 onwards, across block boundaries, by the dice and
//! draws of that roll in the order the game asks for them (see `dice` and
//! `draw`). A declared order that is skipped asks for nothing and so
//! consumes nothing.
//!
//! A practice game (open seed, unverified) uses one stream for the whole game:
//! `SHA-256(tag "yam/v1/practice" || game id || seed (u32 length + bytes) ||
//! c (u32))`.

use std::fmt;

use thiserror::Error;

use super::chain::ChainValue;
use super::encoding::{Blob, Encoder, TAG_OUTCOME, TAG_PRACTICE};
use super::game_id::GameId;
use super::hash::Hash32;
use super::sign::PublicKey;
use serde::{Deserialize, Serialize};

/// How far a stream's outcomes can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Assurance {
    /// Derived from committed chains revealed through the roll protocol:
    /// nobody could bias or foresee it.
    Verified,
    /// Derived from an open seed (practice): reproducible, but whoever chose
    /// the seed could have chosen the outcomes.
    Unverified,
}

/// Why a value could not be sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum SampleError {
    /// The stream's `u32` block counter ran out (after 128 GiB of output).
    #[error("the outcome stream is exhausted")]
    StreamExhausted,
    /// A die must have 2 to 256 sides.
    #[error("a die must have 2 to 256 sides, not {sides}")]
    InvalidSides {
        /// The number asked for.
        sides: u16,
    },
    /// A draw from no cards.
    #[error("cannot draw from an empty set of cards")]
    NoCards,
    /// A draw from more than `u32::MAX` cards.
    #[error("cannot draw from {count} cards; the limit is 4294967295")]
    TooManyCards {
        /// The number asked for.
        count: usize,
    },
}

/// A source of protocol bytes, consumed in order.
pub trait ByteSource {
    /// The next byte of the stream.
    fn next_byte(&mut self) -> Result<u8, SampleError>;

    /// How far the bytes can be trusted.
    fn assurance(&self) -> Assurance;

    /// The next four bytes as a big-endian `u32`.
    fn next_u32(&mut self) -> Result<u32, SampleError> {
        let mut word = [0u8; 4];
        for byte in &mut word {
            *byte = self.next_byte()?;
        }
        Ok(u32::from_be_bytes(word))
    }
}

/// SHA-256 in counter mode over a fixed prefix; the core of both streams.
#[derive(Clone, Serialize, Deserialize)]
struct CounterStream {
    prefix: Vec<u8>,
    counter: Option<u32>,
    block: [u8; 32],
    used: usize,
}

impl CounterStream {
    fn new(prefix: Vec<u8>) -> Self {
        CounterStream {
            prefix,
            counter: Some(0),
            block: [0; 32],
            // Start "past the end" so the first byte computes block 0.
            used: 32,
        }
    }

    fn next_byte(&mut self) -> Result<u8, SampleError> {
        if self.used == self.block.len() {
            let counter = self.counter.ok_or(SampleError::StreamExhausted)?;
            let mut enc = Encoder::new();
            enc.u32(counter);
            let mut input = self.prefix.clone();
            input.extend_from_slice(enc.as_bytes());
            self.block = Hash32::of(&input).into_bytes();
            self.counter = counter.checked_add(1);
            self.used = 0;
        }
        let byte = self
            .block
            .get(self.used)
            .copied()
            .ok_or(SampleError::StreamExhausted)?;
        self.used += 1;
        Ok(byte)
    }

    fn bytes_used(&self) -> u64 {
        let blocks = match self.counter {
            Some(next) => u64::from(next),
            None => 1 << 32,
        };
        (blocks * 32).saturating_sub((32 - self.used) as u64)
    }
}

/// The inputs of one roll's derivation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeInput {
    /// The game.
    pub game: GameId,
    /// The global roll index `k`.
    pub roll: u64,
    /// `H(declaration)`.
    pub declaration: Hash32,
    /// Each party's revealed chain value for this roll, in any order; the
    /// derivation sorts them by key bytes.
    pub reveals: Vec<(PublicKey, ChainValue)>,
}

impl OutcomeInput {
    /// The bytes hashed for every block before the counter.
    fn prefix(&self) -> Vec<u8> {
        let mut reveals = self.reveals.clone();
        reveals.sort_by_key(|(key, _)| *key);
        let mut enc = Encoder::tagged(TAG_OUTCOME);
        enc.put(&self.game).u64(self.roll).put(&self.declaration);
        // At most a handful of parties take part in a roll.
        enc.u32(u32::try_from(reveals.len()).unwrap_or(u32::MAX));
        for (key, value) in &reveals {
            enc.put(key).put(value);
        }
        enc.into_bytes()
    }
}

/// The verified byte stream of one roll.
#[derive(Clone)]
pub struct OutcomeStream {
    inner: CounterStream,
}

impl OutcomeStream {
    /// The stream for `input`.
    pub fn new(input: &OutcomeInput) -> Self {
        OutcomeStream {
            inner: CounterStream::new(input.prefix()),
        }
    }

    /// How many bytes have been consumed.
    pub fn bytes_used(&self) -> u64 {
        self.inner.bytes_used()
    }
}

impl fmt::Debug for OutcomeStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OutcomeStream(used {} bytes)", self.bytes_used())
    }
}

impl ByteSource for OutcomeStream {
    fn next_byte(&mut self) -> Result<u8, SampleError> {
        self.inner.next_byte()
    }
    fn assurance(&self) -> Assurance {
        Assurance::Verified
    }
}

/// The open-seed stream of a practice game. Always [`Assurance::Unverified`].
#[derive(Clone, Serialize, Deserialize)]
pub struct PracticeStream {
    inner: CounterStream,
}

impl PracticeStream {
    /// The stream for a practice game with the open `seed`.
    pub fn new(game: &GameId, seed: &Blob) -> Self {
        let mut enc = Encoder::tagged(TAG_PRACTICE);
        enc.put(game).blob(seed);
        PracticeStream {
            inner: CounterStream::new(enc.into_bytes()),
        }
    }

    /// How many bytes have been consumed.
    pub fn bytes_used(&self) -> u64 {
        self.inner.bytes_used()
    }
}

impl fmt::Debug for PracticeStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PracticeStream(used {} bytes)", self.bytes_used())
    }
}

impl ByteSource for PracticeStream {
    fn next_byte(&mut self) -> Result<u8, SampleError> {
        self.inner.next_byte()
    }
    fn assurance(&self) -> Assurance {
        Assurance::Unverified
    }
}

impl<S: ByteSource + ?Sized> ByteSource for &mut S {
    fn next_byte(&mut self) -> Result<u8, SampleError> {
        (**self).next_byte()
    }
    fn assurance(&self) -> Assurance {
        (**self).assurance()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fair_play::sign::tests::key;

    /// A byte source that plays back fixed bytes, for crafted-input tests.
    #[derive(Debug)]
    pub(crate) struct Scripted(pub std::collections::VecDeque<u8>);

    impl Scripted {
        pub(crate) fn new(bytes: &[u8]) -> Self {
            Scripted(bytes.iter().copied().collect())
        }
    }

    impl ByteSource for Scripted {
        fn next_byte(&mut self) -> Result<u8, SampleError> {
            self.0.pop_front().ok_or(SampleError::StreamExhausted)
        }
        fn assurance(&self) -> Assurance {
            Assurance::Unverified
        }
    }

    fn input() -> OutcomeInput {
        OutcomeInput {
            game: GameId::new("g").unwrap(),
            roll: 7,
            declaration: Hash32::ZERO,
            reveals: vec![
                (key(1).public_key(), ChainValue::from_bytes([1; 32])),
                (key(2).public_key(), ChainValue::from_bytes([2; 32])),
            ],
        }
    }

    #[test]
    fn blocks_follow_the_documented_formula() {
        let input = input();
        let mut stream = OutcomeStream::new(&input);
        let mut first_two_blocks = Vec::new();
        for _ in 0..64 {
            first_two_blocks.push(stream.next_byte().unwrap());
        }
        let mut reveals = input.reveals.clone();
        reveals.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        for counter in 0u32..2 {
            let mut bytes = Vec::new();
            bytes.extend_from_slice(&[0, 0, 0, 14]);
            bytes.extend_from_slice(b"yam/v1/outcome");
            bytes.extend_from_slice(&[0, 0, 0, 1, b'g']);
            bytes.extend_from_slice(&7u64.to_be_bytes());
            bytes.extend_from_slice(&[0; 32]);
            bytes.extend_from_slice(&2u32.to_be_bytes());
            for (k, v) in &reveals {
                bytes.extend_from_slice(k.as_bytes());
                bytes.extend_from_slice(v.as_bytes());
            }
            bytes.extend_from_slice(&counter.to_be_bytes());
            let start = counter as usize * 32;
            assert_eq!(
                &first_two_blocks[start..start + 32],
                Hash32::of(&bytes).as_bytes()
            );
        }
        assert_eq!(stream.bytes_used(), 64);
    }

    #[test]
    fn party_order_does_not_matter_but_every_input_does() {
        let a = input();
        let mut b = input();
        b.reveals.reverse();
        let first = |i: &OutcomeInput| OutcomeStream::new(i).next_u32().unwrap();
        assert_eq!(first(&a), first(&b));
        let mut c = input();
        c.roll = 8;
        assert_ne!(first(&a), first(&c));
        let mut d = input();
        d.declaration = Hash32::from_bytes([1; 32]);
        assert_ne!(first(&a), first(&d));
        let mut e = input();
        e.reveals[0].1 = ChainValue::from_bytes([3; 32]);
        assert_ne!(first(&a), first(&e));
    }

    #[test]
    fn practice_stream_is_unverified_and_deterministic() {
        let game = GameId::new("g").unwrap();
        let seed = Blob::new(b"open".to_vec()).unwrap();
        let mut a = PracticeStream::new(&game, &seed);
        let mut b = PracticeStream::new(&game, &seed);
        assert_eq!(a.assurance(), Assurance::Unverified);
        assert_eq!(a.next_u32(), b.next_u32());
    }
}
