//! 32-byte SHA-256 digests: the identity of turns, requests, declarations and
//! commitments.

use std::fmt;

use thiserror::Error;

use super::encoding::{Canonical, DecodeError, Decoder, Encoder};

/// A SHA-256 digest. Shown as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Hash32([u8; 32]);

/// Text that is not 64 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("expected 64 hex digits: {0}")]
pub struct HexError(String);

impl Hash32 {
    /// All zero bytes: the parent of a game's first event.
    pub const ZERO: Hash32 = Hash32([0; 32]);

    /// Wraps raw digest bytes.
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Hash32(bytes)
    }

    /// The raw bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// SHA-256 of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::Digest as _;
        Hash32(sha2::Sha256::digest(bytes).into())
    }

    /// The raw bytes, by value.
    pub const fn into_bytes(self) -> [u8; 32] {
        self.0
    }

    /// Lowercase hex.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Parses 64 hex digits (either case).
    pub fn from_hex(text: &str) -> Result<Self, HexError> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(text, &mut out).map_err(|err| HexError(err.to_string()))?;
        Ok(Hash32(out))
    }
}

impl fmt::Display for Hash32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Hash32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash32({})", self.to_hex())
    }
}

impl Canonical for Hash32 {
    fn encode(&self, enc: &mut Encoder) {
        enc.array(&self.0);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Hash32(dec.array("hash")?))
    }
}

/// Serde for a hash: its 32 bytes as a byte string, as its canonical
/// bytes are (a replay's log of every event's hash is most of what a
/// stored game's tip holds besides the events, so it is read without the
/// canonical decoder's bookkeeping).
impl serde::Serialize for Hash32 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Hash32 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Hash32;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("32 bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Hash32, E> {
                <[u8; 32]>::try_from(bytes)
                    .map(Hash32)
                    .map_err(|_| E::invalid_length(bytes.len(), &self))
            }
        }
        deserializer.deserialize_bytes(Bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let hash = Hash32::from_bytes([0xab; 32]);
        assert_eq!(Hash32::from_hex(&hash.to_hex()), Ok(hash));
        assert!(Hash32::from_hex("abc").is_err());
    }
}
