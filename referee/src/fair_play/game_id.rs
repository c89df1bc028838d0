//! The game identifier that binds every chain, commitment, roll and turn to
//! one game.

use std::fmt;
use std::sync::Arc;

use super::encoding::{Canonical, DecodeError, Decoder, Encoder, ValueError};

/// A game's identifier: 1 to 128 printable ASCII characters, no spaces
/// (`0x21..=0x7e`), e.g. `2026-06-01-alice-bob-1`.
///
/// Printable ASCII keeps it byte-identical wherever it is copied (mail
/// headers, record tags, file names) and free of Unicode normalisation
/// questions. Encoded as text: `u32` length, then the bytes.
///
/// Shared, not copied: a game's identifier is copied into every event, chain
/// and roll of the game, and a replay copies its state at every event.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(Arc<str>);

impl GameId {
    /// The longest identifier accepted, in bytes.
    pub const MAX_LEN: usize = 128;

    /// Checks and wraps `id`.
    pub fn new(id: impl Into<String>) -> Result<Self, ValueError> {
        let id = id.into();
        GameId::check(&id)?;
        Ok(GameId(Arc::from(id)))
    }

    /// The rules of [`GameId::new`].
    fn check(id: &str) -> Result<(), ValueError> {
        if id.is_empty() || id.len() > Self::MAX_LEN {
            return Err(ValueError::Invalid {
                what: "game id",
                reason: format!("must be 1 to {} bytes, not {}", Self::MAX_LEN, id.len()),
            });
        }
        if let Some(bad) = id.bytes().find(|b| !b.is_ascii_graphic()) {
            return Err(ValueError::Invalid {
                what: "game id",
                reason: format!("byte 0x{bad:02x} is not printable ASCII"),
            });
        }
        Ok(())
    }

    /// The identifier.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GameId({:?})", self.as_str())
    }
}

impl Canonical for GameId {
    fn encode(&self, enc: &mut Encoder) {
        // At most 128 bytes (`GameId::check`), so within any text's limit.
        enc.text_str(&self.0);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let at = dec.position();
        let text = dec.text_str("game id")?;
        GameId::check(text).map_err(|err| dec.invalid("game id", at, err))?;
        Ok(GameId(Arc::from(text)))
    }
}

super::encoding::serde_as_canonical!(GameId);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_printable_ascii_only() {
        assert!(GameId::new("2026-06-01-alice-bob-1").is_ok());
        assert!(GameId::new("").is_err());
        assert!(GameId::new("has space").is_err());
        assert!(GameId::new("é").is_err());
        assert!(GameId::new("x".repeat(129)).is_err());
    }

    #[test]
    fn encodes_as_length_prefixed_text() {
        let id = GameId::new("g1").unwrap();
        assert_eq!(id.to_canonical_bytes(), [0, 0, 0, 2, b'g', b'1']);
        assert_eq!(
            GameId::from_canonical_bytes(&[0, 0, 0, 2, b'g', b'1']),
            Ok(id)
        );
        assert!(GameId::from_canonical_bytes(&[0, 0, 0, 1, b' ']).is_err());
    }
}
