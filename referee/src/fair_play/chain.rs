//! Hash chains bound to one game and one player.
//!
//! The owner picks a secret `s` (32 bytes from its own randomness) and a length
//! `N`. Then `x_N = s` and, going down,
//! `x_{i-1} = SHA-256(tag "yam/v1/chain" || game id || owner key || x_i)`.
//! The anchor `x_0` is published in the signed opening; the `k`-th reveal is
//! `x_k`, and anyone checks it by hashing it once to get `x_{k-1}`. Because
//! the game id and the owner's key are inside every step, a chain made for one
//! game or one player never checks against another's anchor.
//!
//! [`HashChain`] is the owner's side (it holds the secret and stays home);
//! [`ChainVerifier`] is everyone else's: it accepts exactly the next value
//! and refuses gaps and reuse.
//!
//! A chain is never replaced during a game: protocol v1 has no re-anchoring
//! (`docs/fair-play.md`, 3.2). Every game Yam referees has a bound on its
//! rolls, so the opening sizes each chain for the whole game.

use std::fmt;

use thiserror::Error;

use super::encoding::{Canonical, DecodeError, Decoder, Encoder, TAG_CHAIN};
use super::game_id::GameId;
use super::sign::{Fingerprint, PublicKey};
use serde::{Deserialize, Serialize};

/// The longest chain accepted (2^20 values), so that computing a chain, or
/// following a suspected gap, has a known cost.
pub const MAX_CHAIN_LENGTH: u32 = 1 << 20;

/// A chain's secret end `x_N`. It has no canonical encoding, so it can never
/// be put into a record, and its `Debug` hides it.
#[derive(Clone)]
pub struct ChainSecret([u8; 32]);

impl ChainSecret {
    /// Wraps 32 secret bytes the caller drew from its own randomness.
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        ChainSecret(bytes)
    }
}

impl fmt::Debug for ChainSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ChainSecret(..)")
    }
}

/// One value of a chain, `x_i`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChainValue([u8; 32]);

impl ChainValue {
    /// Wraps raw bytes.
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        ChainValue(bytes)
    }

    /// The raw bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for ChainValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChainValue({})", hex::encode(self.0))
    }
}

impl Canonical for ChainValue {
    fn encode(&self, enc: &mut Encoder) {
        enc.array(&self.0);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(ChainValue(dec.array("chain value")?))
    }
}

/// One step down the chain: `x_{i-1}` from `x_i`.
pub fn chain_step(game: &GameId, owner: &PublicKey, value: &ChainValue) -> ChainValue {
    let mut enc = Encoder::tagged(TAG_CHAIN);
    enc.put(game).put(owner).put(value);
    ChainValue(*enc.sha256().as_bytes())
}

/// A published anchor: the chain's `x_0`, the game and owner it is bound to,
/// and its length `N` (how many reveals it covers).
///
/// Canonical bytes: `game id || owner key (32) || length u32 || x_0 (32)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChainAnchor {
    /// The game the chain belongs to.
    pub game: GameId,
    /// The player (or robot, or director) who owns it.
    pub owner: PublicKey,
    /// How many values can be revealed: positions `1..=length`.
    pub length: u32,
    /// `x_0`.
    pub value: ChainValue,
}

impl Canonical for ChainAnchor {
    fn encode(&self, enc: &mut Encoder) {
        enc.put(&self.game)
            .put(&self.owner)
            .u32(self.length)
            .put(&self.value);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let game = dec.get()?;
        let owner = dec.get()?;
        let at = dec.position();
        let length = dec.u32("chain length")?;
        if length == 0 || length > MAX_CHAIN_LENGTH {
            return Err(dec.invalid("chain length", at, ChainError::InvalidLength { length }));
        }
        let value = dec.get()?;
        Ok(ChainAnchor {
            game,
            owner,
            length,
            value,
        })
    }
}

/// A revealed chain value: position `k` (from 1) and `x_k`.
///
/// Canonical bytes: `position u32 || x_k (32)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reveal {
    /// `k`, counted from 1 on the chain in force.
    pub position: u32,
    /// `x_k`.
    pub value: ChainValue,
}

impl Canonical for Reveal {
    fn encode(&self, enc: &mut Encoder) {
        enc.u32(self.position).put(&self.value);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Reveal {
            position: dec.u32("reveal position")?,
            value: dec.get()?,
        })
    }
}

/// Why a chain, a reveal or a re-anchoring was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChainError {
    /// Length 0, or over [`MAX_CHAIN_LENGTH`].
    #[error("a chain length must be 1 to {MAX_CHAIN_LENGTH}, not {length}")]
    InvalidLength {
        /// The length asked for.
        length: u32,
    },
    /// A chain kept by its values every `every` positions whose kept
    /// values are not as many as its length needs (a file cut short or
    /// altered): damage, not a length out of range.
    #[error(
        "the chain's kept values do not fit its length {length} (one every {every} positions): {found} kept"
    )]
    KeptValues {
        /// The chain's length.
        length: u32,
        /// Every how many positions a value is kept.
        every: u32,
        /// How many kept values there are.
        found: usize,
    },
    /// Every value of the chain has been revealed.
    #[error("the chain is exhausted: all {length} values have been revealed")]
    Exhausted {
        /// The chain's length.
        length: u32,
    },
    /// A value that was already revealed (or an earlier position).
    #[error("reveal at position {found} reuses a value; the next position is {expected}")]
    Reused {
        /// The next position.
        expected: u32,
        /// The position presented.
        found: u32,
    },
    /// A value further down the chain than the next one (`H^j`, `j > 1`).
    #[error("reveal skips values: the next position is {expected}, this value is position {found}")]
    Gap {
        /// The next position.
        expected: u32,
        /// The position the value really has.
        found: u32,
    },
    /// The value does not hash to the previous one: it is not from this chain.
    #[error("the value at position {position} does not extend the chain")]
    Mismatch {
        /// The position presented.
        position: u32,
    },
    /// An anchor bound to another game or another player.
    #[error("the anchor belongs to game {game} and key {owner}, not to this game and player")]
    BoundElsewhere {
        /// The game it names.
        game: GameId,
        /// The owner it names.
        owner: Fingerprint,
    },
    /// An anchor value another party of this game already published.
    #[error("the anchor value was already used in this game")]
    AnchorReused,
}

/// The owner's chain: every value precomputed, or (read back from the
/// owner's secrets) every `every`-th one, the rest hashed down on demand.
/// Holds the secret: it stays on the owner's machine.
pub struct HashChain {
    anchor: ChainAnchor,
    values: Values,
}

enum Values {
    /// `x_i` at `i`, for `i` in `0..=N`.
    All(Vec<ChainValue>),
    /// `x_{k·every}` at `k - 1`, for `k·every` strictly between 0 and
    /// `N`, and `x_N` last.
    Every(u32, Vec<ChainValue>),
}

/// What a checkpoint is kept as: `x_at` masked with a hash of the secret
/// and the position, so that the kept words are none of the chain's
/// values (not even once those are revealed) and read as nothing without
/// the secret.
fn mask(secret: &ChainValue, at: u32, value: &ChainValue) -> ChainValue {
    let mut bytes = Vec::with_capacity(64);
    bytes.extend_from_slice(b"yam/v1/chain-checkpoint");
    bytes.extend_from_slice(&secret.0);
    bytes.extend_from_slice(&at.to_be_bytes());
    let pad = crate::fair_play::hash::Hash32::of(&bytes).into_bytes();
    let mut out = value.0;
    for (o, p) in out.iter_mut().zip(pad) {
        *o ^= p;
    }
    ChainValue(out)
}

impl HashChain {
    /// Builds the chain `x_N = secret` down to `x_0` for `game` and `owner`.
    pub fn new(
        secret: &ChainSecret,
        game: GameId,
        owner: PublicKey,
        length: u32,
    ) -> Result<Self, ChainError> {
        if length == 0 || length > MAX_CHAIN_LENGTH {
            return Err(ChainError::InvalidLength { length });
        }
        let mut values = Vec::with_capacity(length as usize + 1);
        let mut current = ChainValue(secret.0);
        values.push(current);
        for _ in 0..length {
            current = chain_step(&game, &owner, &current);
            values.push(current);
        }
        values.reverse();
        let anchor = ChainAnchor {
            game,
            owner,
            length,
            value: current,
        };
        Ok(HashChain {
            anchor,
            values: Values::All(values),
        })
    }

    /// Every `every`-th value strictly between `x_0` and `x_N`, masked,
    /// for the owner to keep beside the secret:
    /// [`HashChain::from_checkpoints`] then finds any value in fewer than
    /// `2·every` hashes instead of `N`. They are as secret as the secret,
    /// and kept with it.
    pub fn checkpoints(&self, every: u32) -> Vec<ChainValue> {
        let every = every.max(1);
        let Some(secret) = self.value(self.anchor.length) else {
            return Vec::new();
        };
        (every..self.anchor.length)
            .step_by(every as usize)
            .filter_map(|at| self.value(at).map(|v| mask(&secret, at, &v)))
            .collect()
    }

    /// The chain of `secret` from what [`HashChain::checkpoints`] gave:
    /// the same values, found on demand. Checkpoints of the wrong number
    /// are refused; wrong values give wrong reveals (and a wrong anchor),
    /// which every verifier, the owner's own replay first, refuses.
    pub fn from_checkpoints(
        secret: &ChainSecret,
        game: GameId,
        owner: PublicKey,
        length: u32,
        every: u32,
        checkpoints: &[ChainValue],
    ) -> Result<Self, ChainError> {
        if length == 0 || length > MAX_CHAIN_LENGTH {
            return Err(ChainError::InvalidLength { length });
        }
        if every == 0
            || checkpoints.len() as u64 != u64::from(length).div_ceil(u64::from(every)) - 1
        {
            return Err(ChainError::KeptValues {
                length,
                every,
                found: checkpoints.len(),
            });
        }
        let top = ChainValue(secret.0);
        let mut values: Vec<ChainValue> = checkpoints
            .iter()
            .zip(1u32..)
            .map(|(v, k)| mask(&top, k * every, v))
            .collect();
        values.push(top);
        // The anchor, from the lowest kept value.
        let (mut at, mut value) = (every.min(length), values[0]);
        while at > 0 {
            value = chain_step(&game, &owner, &value);
            at -= 1;
        }
        let anchor = ChainAnchor {
            game,
            owner,
            length,
            value,
        };
        Ok(HashChain {
            anchor,
            values: Values::Every(every, values),
        })
    }

    /// The first position at which the kept values do not hash down to
    /// the ones below them, if any: a secrets file damaged on disk above
    /// its lowest kept value still gives the anchor, and its values above
    /// the damage would be refused one roll at a time ("does not extend
    /// the chain") as if a rule had refused them. Costs a hash a value of
    /// the chain, so a client asks only once a reveal was refused.
    pub fn damaged_at(&self) -> Option<u32> {
        let mut below = self.anchor.value;
        let mut at_below = 0u32;
        let kept: Vec<(u32, ChainValue)> = match &self.values {
            Values::All(values) => values
                .iter()
                .zip(0u32..)
                .skip(1)
                .map(|(v, i)| (i, *v))
                .collect(),
            Values::Every(every, values) => {
                let top = values.len() - 1;
                values
                    .iter()
                    .enumerate()
                    .map(|(k, v)| {
                        let at = if k == top {
                            self.anchor.length
                        } else {
                            (k as u32 + 1) * every
                        };
                        (at, *v)
                    })
                    .collect()
            }
        };
        for (at, value) in kept {
            let mut down = value;
            for _ in at_below..at {
                down = chain_step(&self.anchor.game, &self.anchor.owner, &down);
            }
            if down != below {
                return Some(at);
            }
            below = value;
            at_below = at;
        }
        None
    }

    /// `x_i`, for `i` in `0..=N`.
    fn value(&self, i: u32) -> Option<ChainValue> {
        if i > self.anchor.length {
            return None;
        }
        match &self.values {
            Values::All(values) => values.get(i as usize).copied(),
            Values::Every(_, _) if i == 0 => Some(self.anchor.value),
            Values::Every(every, values) => {
                // The nearest kept value at or above `i`, hashed down.
                let k = i.div_ceil(*every);
                let kept = values.len() as u32 - 1;
                let (mut at, mut value) = if k <= kept {
                    (k * every, values[k as usize - 1])
                } else {
                    (self.anchor.length, values[kept as usize])
                };
                while at > i {
                    value = chain_step(&self.anchor.game, &self.anchor.owner, &value);
                    at -= 1;
                }
                Some(value)
            }
        }
    }

    /// The anchor to publish.
    pub fn anchor(&self) -> &ChainAnchor {
        &self.anchor
    }

    /// The reveal at `position` (`1..=N`).
    pub fn reveal(&self, position: u32) -> Result<Reveal, ChainError> {
        if position == 0 {
            return Err(ChainError::Reused {
                expected: 1,
                found: 0,
            });
        }
        self.value(position)
            .map(|value| Reveal { position, value })
            .ok_or(ChainError::Exhausted {
                length: self.anchor.length,
            })
    }
}

impl fmt::Debug for HashChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HashChain")
            .field("anchor", &self.anchor)
            .finish_non_exhaustive()
    }
}

/// A verifier's view of one party's chain: its anchor, and the last
/// position and value revealed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChainVerifier {
    game: GameId,
    owner: PublicKey,
    active: ChainAnchor,
    last_position: u32,
    last_value: ChainValue,
}

impl ChainVerifier {
    /// Starts verifying `anchor`, which must be bound to `game` and `owner`.
    pub fn new(anchor: ChainAnchor, game: &GameId, owner: &PublicKey) -> Result<Self, ChainError> {
        check_binding(&anchor, game, owner)?;
        Ok(ChainVerifier {
            game: game.clone(),
            owner: *owner,
            last_position: 0,
            last_value: anchor.value,
            active: anchor,
        })
    }

    /// The chain's anchor.
    pub fn anchor(&self) -> &ChainAnchor {
        &self.active
    }

    /// The position the next reveal must have.
    pub fn next_position(&self) -> u64 {
        u64::from(self.last_position) + 1
    }

    /// Checks that `reveal` is exactly the next value, without accepting it.
    pub fn check(&self, reveal: &Reveal) -> Result<(), ChainError> {
        let expected = self.last_position.saturating_add(1);
        if reveal.position < expected || reveal.value == self.last_value {
            return Err(ChainError::Reused {
                expected,
                found: reveal.position,
            });
        }
        if self.last_position >= self.active.length {
            return Err(ChainError::Exhausted {
                length: self.active.length,
            });
        }
        if reveal.position > expected {
            return Err(ChainError::Gap {
                expected,
                found: reveal.position,
            });
        }
        // The position is right; the value must hash to the previous one.
        let mut current = chain_step(&self.game, &self.owner, &reveal.value);
        if current == self.last_value {
            return Ok(());
        }
        // Say "gap" rather than "mismatch" when the value is from further down
        // this very chain, i.e. H^j(value) = x_last for some j > 1.
        let further = self.active.length - self.last_position;
        for j in 2..=further {
            current = chain_step(&self.game, &self.owner, &current);
            if current == self.last_value {
                return Err(ChainError::Gap {
                    expected,
                    found: self.last_position + j,
                });
            }
        }
        Err(ChainError::Mismatch {
            position: reveal.position,
        })
    }

    /// Accepts `reveal` if it is exactly the next value.
    pub fn accept(&mut self, reveal: &Reveal) -> Result<(), ChainError> {
        self.check(reveal)?;
        self.last_position = reveal.position;
        self.last_value = reveal.value;
        Ok(())
    }
}

fn check_binding(anchor: &ChainAnchor, game: &GameId, owner: &PublicKey) -> Result<(), ChainError> {
    if anchor.game != *game || anchor.owner != *owner {
        return Err(ChainError::BoundElsewhere {
            game: anchor.game.clone(),
            owner: anchor.owner.fingerprint(),
        });
    }
    if anchor.length == 0 || anchor.length > MAX_CHAIN_LENGTH {
        return Err(ChainError::InvalidLength {
            length: anchor.length,
        });
    }
    Ok(())
}

super::encoding::serde_as_canonical!(ChainValue, ChainAnchor, Reveal);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair_play::sign::tests::key;

    fn game() -> GameId {
        GameId::new("test-game").unwrap()
    }

    fn chain(secret: u8, length: u32) -> HashChain {
        HashChain::new(
            &ChainSecret::from_bytes([secret; 32]),
            game(),
            key(1).public_key(),
            length,
        )
        .unwrap()
    }

    fn verifier(chain: &HashChain) -> ChainVerifier {
        ChainVerifier::new(chain.anchor().clone(), &game(), &key(1).public_key()).unwrap()
    }

    #[test]
    fn honest_reveals_in_order_are_accepted_until_exhaustion() {
        let chain = chain(9, 3);
        let mut v = verifier(&chain);
        for k in 1..=3 {
            assert_eq!(v.accept(&chain.reveal(k).unwrap()), Ok(()));
        }
        assert_eq!(chain.reveal(4), Err(ChainError::Exhausted { length: 3 }));
        let beyond = Reveal {
            position: 4,
            value: ChainValue([0; 32]),
        };
        assert_eq!(v.accept(&beyond), Err(ChainError::Exhausted { length: 3 }));
    }

    /// A kept value damaged above the lowest one still gives the anchor;
    /// `damaged_at` finds it (a whole chain, and every sound one, none).
    #[test]
    fn a_damaged_kept_value_is_found_where_it_lies() {
        for (length, every) in [(1, 32), (5, 2), (100, 32), (1024, 32)] {
            let full = chain(9, length);
            assert_eq!(full.damaged_at(), None);
            let kept = full.checkpoints(every);
            let sound = HashChain::from_checkpoints(
                &ChainSecret::from_bytes([9; 32]),
                game(),
                key(1).public_key(),
                length,
                every,
                &kept,
            )
            .unwrap();
            assert_eq!(sound.damaged_at(), None, "{length} {every}");
        }
        let full = chain(9, 1024);
        let mut kept = full.checkpoints(32);
        kept[1].0[0] ^= 1;
        let damaged = HashChain::from_checkpoints(
            &ChainSecret::from_bytes([9; 32]),
            game(),
            key(1).public_key(),
            1024,
            32,
            &kept,
        )
        .unwrap();
        assert_eq!(damaged.anchor(), full.anchor(), "the anchor still holds");
        assert_eq!(damaged.damaged_at(), Some(64));
    }

    #[test]
    fn checkpoints_give_the_same_chain() {
        for (length, every) in [(1, 32), (5, 2), (64, 32), (100, 32), (1024, 32), (7, 10)] {
            let full = chain(9, length);
            let kept = HashChain::from_checkpoints(
                &ChainSecret::from_bytes([9; 32]),
                game(),
                key(1).public_key(),
                length,
                every,
                &full.checkpoints(every),
            )
            .unwrap();
            assert_eq!(kept.anchor(), full.anchor());
            // No kept word is a value of the chain.
            for word in full.checkpoints(every) {
                assert!((0..=length).all(|i| full.reveal(i).ok().map(|r| r.value) != Some(word)));
            }
            for position in 0..=length + 1 {
                assert_eq!(
                    kept.reveal(position),
                    full.reveal(position),
                    "{length} {every} {position}"
                );
            }
        }
        assert!(
            HashChain::from_checkpoints(
                &ChainSecret::from_bytes([9; 32]),
                game(),
                key(1).public_key(),
                100,
                32,
                &chain(9, 100).checkpoints(16),
            )
            .is_err()
        );
    }

    #[test]
    fn anchor_is_x0_and_each_reveal_hashes_to_the_previous() {
        let chain = chain(9, 5);
        let owner = key(1).public_key();
        let x1 = chain.reveal(1).unwrap().value;
        assert_eq!(chain_step(&game(), &owner, &x1), chain.anchor().value);
        assert_eq!(chain.reveal(5).unwrap().value, ChainValue([9; 32]));
    }

    #[test]
    fn gaps_are_refused_by_position_and_by_value() {
        let chain = chain(9, 10);
        let mut v = verifier(&chain);
        v.accept(&chain.reveal(1).unwrap()).unwrap();
        assert_eq!(
            v.accept(&chain.reveal(4).unwrap()),
            Err(ChainError::Gap {
                expected: 2,
                found: 4
            })
        );
        // x_4 presented as if it were position 2: H^3(x_4) = x_1.
        let disguised = Reveal {
            position: 2,
            value: chain.reveal(4).unwrap().value,
        };
        assert_eq!(
            v.accept(&disguised),
            Err(ChainError::Gap {
                expected: 2,
                found: 4
            })
        );
        assert_eq!(v.next_position(), 2);
    }

    #[test]
    fn reuse_is_refused() {
        let chain = chain(9, 10);
        let mut v = verifier(&chain);
        v.accept(&chain.reveal(1).unwrap()).unwrap();
        v.accept(&chain.reveal(2).unwrap()).unwrap();
        let again = chain.reveal(2).unwrap();
        assert_eq!(
            v.accept(&again),
            Err(ChainError::Reused {
                expected: 3,
                found: 2
            })
        );
        let relabelled = Reveal {
            position: 3,
            value: again.value,
        };
        assert_eq!(
            v.accept(&relabelled),
            Err(ChainError::Reused {
                expected: 3,
                found: 3
            })
        );
    }

    #[test]
    fn a_chain_of_another_game_or_player_is_refused() {
        let honest = chain(9, 10);
        let other_game = HashChain::new(
            &ChainSecret::from_bytes([9; 32]),
            GameId::new("other-game").unwrap(),
            key(1).public_key(),
            10,
        )
        .unwrap();
        let other_player = HashChain::new(
            &ChainSecret::from_bytes([9; 32]),
            game(),
            key(2).public_key(),
            10,
        )
        .unwrap();
        // The same secret gives unrelated values once the binding changes.
        let mut v = verifier(&honest);
        assert_eq!(
            v.accept(&other_game.reveal(1).unwrap()),
            Err(ChainError::Mismatch { position: 1 })
        );
        assert_eq!(
            v.accept(&other_player.reveal(1).unwrap()),
            Err(ChainError::Mismatch { position: 1 })
        );
        // And their anchors are refused outright.
        assert!(matches!(
            ChainVerifier::new(other_game.anchor().clone(), &game(), &key(1).public_key()),
            Err(ChainError::BoundElsewhere { .. })
        ));
    }

    #[test]
    fn anchor_round_trips_and_refuses_bad_lengths() {
        let anchor = chain(9, 3).anchor().clone();
        assert_eq!(
            ChainAnchor::from_canonical_bytes(&anchor.to_canonical_bytes()),
            Ok(anchor.clone())
        );
        let mut bad = anchor;
        bad.length = 0;
        assert!(ChainAnchor::from_canonical_bytes(&bad.to_canonical_bytes()).is_err());
        assert!(
            HashChain::new(
                &ChainSecret::from_bytes([0; 32]),
                game(),
                key(1).public_key(),
                0
            )
            .is_err()
        );
    }
}
