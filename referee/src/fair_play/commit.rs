//! Salted commitments to secret setups, and the one commit-reveal exchange
//! that can draw roles.
//!
//! A commitment to a setup is
//! `SHA-256(tag "yam/v1/commit" || game id || player key (32) || salt (32) ||
//! setup (u32 length + canonical setup bytes))`. The 32-byte salt, drawn by the
//! player, hides small setup spaces from brute force; the game id and key stop
//! a commitment from being replayed in another game or by another player. The
//! setup bytes are the game's own canonical encoding of its secret placement.

use std::fmt;

use thiserror::Error;

use super::encoding::{Blob, Canonical, DecodeError, Decoder, Encoder, TAG_COMMIT, TAG_ROLES};
use super::game_id::GameId;
use super::hash::Hash32;
use super::sign::{Fingerprint, PublicKey};

/// A 32-byte salt, drawn by the committing player from its own randomness.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Salt([u8; 32]);

impl Salt {
    /// Wraps 32 bytes.
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Salt(bytes)
    }

    /// The raw bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for Salt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Salt({})", hex::encode(self.0))
    }
}

impl Canonical for Salt {
    fn encode(&self, enc: &mut Encoder) {
        enc.array(&self.0);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Salt(dec.array("salt")?))
    }
}

/// The opening of a commitment: the salt and the setup's canonical bytes.
/// Canonical bytes: `salt (32) || setup (u32 length + bytes)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SetupOpening {
    /// The salt used when committing.
    pub salt: Salt,
    /// The game's canonical bytes of the setup.
    pub setup: Blob,
}

impl Canonical for SetupOpening {
    fn encode(&self, enc: &mut Encoder) {
        enc.put(&self.salt).blob(&self.setup);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(SetupOpening {
            salt: dec.get()?,
            setup: dec.blob("setup")?,
        })
    }
}

/// A published commitment to a secret setup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Commitment(Hash32);

/// A revealed setup that does not match its commitment.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "the revealed setup of {player} does not match its commitment {committed} (it hashes to {revealed})"
)]
pub struct CommitMismatch {
    /// Whose commitment.
    pub player: Fingerprint,
    /// The commitment made before.
    pub committed: Hash32,
    /// What the opening hashes to.
    pub revealed: Hash32,
}

impl Commitment {
    /// Commits `player` to `opening` in `game`.
    pub fn new(game: &GameId, player: &PublicKey, opening: &SetupOpening) -> Self {
        let mut enc = Encoder::tagged(TAG_COMMIT);
        enc.put(game)
            .put(player)
            .put(&opening.salt)
            .blob(&opening.setup);
        Commitment(enc.sha256())
    }

    /// Wraps a commitment read from a record.
    pub const fn from_hash(hash: Hash32) -> Self {
        Commitment(hash)
    }

    /// The commitment's hash.
    pub const fn hash(&self) -> &Hash32 {
        &self.0
    }

    /// Checks that `opening` is what `player` committed to in `game`.
    pub fn check(
        &self,
        game: &GameId,
        player: &PublicKey,
        opening: &SetupOpening,
    ) -> Result<(), CommitMismatch> {
        let revealed = Commitment::new(game, player, opening);
        if revealed == *self {
            Ok(())
        } else {
            Err(CommitMismatch {
                player: player.fingerprint(),
                committed: self.0,
                revealed: revealed.0,
            })
        }
    }
}

impl Canonical for Commitment {
    fn encode(&self, enc: &mut Encoder) {
        enc.put(&self.0);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Commitment(dec.get()?))
    }
}

/// Draws roles with one commit-reveal exchange.
///
/// The challenger commits (in the signed challenge) to a salt with an empty
/// setup; the acceptor answers (in the signed acceptance) with 32 bytes of its
/// own in the clear; the challenger then opens the commitment. The result is
/// `SHA-256(tag "yam/v1/roles" || game id || challenger salt (32) || acceptor
/// value (32))`, and the challenger takes the first listed role set when the
/// low bit of its last byte is 0. The challenger cannot change its salt after
/// seeing the acceptor's bytes; the acceptor cannot foresee the result.
///
/// Returns `true` when the challenger takes the first role set.
pub fn challenger_takes_first_roles(
    game: &GameId,
    challenger: &PublicKey,
    commitment: &Commitment,
    opening: &SetupOpening,
    acceptor_value: &[u8; 32],
) -> Result<bool, CommitMismatch> {
    commitment.check(game, challenger, opening)?;
    let mut enc = Encoder::tagged(TAG_ROLES);
    enc.put(game).put(&opening.salt).array(acceptor_value);
    Ok(enc.sha256().as_bytes()[31] & 1 == 0)
}

super::encoding::serde_as_canonical!(Commitment);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair_play::sign::tests::key;

    fn game() -> GameId {
        GameId::new("siege-1").unwrap()
    }

    fn opening(setup: &[u8]) -> SetupOpening {
        SetupOpening {
            salt: Salt::from_bytes([7; 32]),
            setup: Blob::new(setup.to_vec()).unwrap(),
        }
    }

    #[test]
    fn an_honest_opening_matches() {
        let player = key(1).public_key();
        let commitment = Commitment::new(&game(), &player, &opening(b"A1 B2"));
        assert_eq!(
            commitment.check(&game(), &player, &opening(b"A1 B2")),
            Ok(())
        );
    }

    #[test]
    fn a_changed_setup_salt_player_or_game_is_refused() {
        let player = key(1).public_key();
        let commitment = Commitment::new(&game(), &player, &opening(b"A1 B2"));
        let err = commitment
            .check(&game(), &player, &opening(b"A1 B3"))
            .unwrap_err();
        assert_eq!(err.committed, *commitment.hash());
        let mut salted = opening(b"A1 B2");
        salted.salt = Salt::from_bytes([8; 32]);
        assert!(commitment.check(&game(), &player, &salted).is_err());
        assert!(
            commitment
                .check(&game(), &key(2).public_key(), &opening(b"A1 B2"))
                .is_err()
        );
        assert!(
            commitment
                .check(
                    &GameId::new("siege-2").unwrap(),
                    &player,
                    &opening(b"A1 B2")
                )
                .is_err()
        );
    }

    #[test]
    fn the_role_toss_needs_the_committed_salt() {
        let challenger = key(1).public_key();
        let open = opening(b"");
        let commitment = Commitment::new(&game(), &challenger, &open);
        let first =
            challenger_takes_first_roles(&game(), &challenger, &commitment, &open, &[0; 32]);
        assert!(first.is_ok());
        let mut other = open.clone();
        other.salt = Salt::from_bytes([9; 32]);
        assert!(
            challenger_takes_first_roles(&game(), &challenger, &commitment, &other, &[0; 32])
                .is_err()
        );
        // Both outcomes occur as the acceptor's value varies.
        let results: Vec<bool> = (0..16u8)
            .map(|b| {
                challenger_takes_first_roles(&game(), &challenger, &commitment, &open, &[b; 32])
                    .unwrap()
            })
            .collect();
        assert!(results.contains(&true) && results.contains(&false));
    }
}
