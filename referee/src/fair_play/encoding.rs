//! The canonical byte encoding of everything Yam hashes or signs.
//!
//! Two implementations must produce the same bytes for the same value, so the
//! encoding is deliberately plain (see `docs/fair-play.md`, "Encodings"):
//!
//! - integers are fixed width, big-endian (`u8`, `u16`, `u32`, `u64`);
//! - booleans are one byte, `0` or `1` (anything else is refused);
//! - fixed-size values (hashes, keys, chain values, salts, signatures) are
//!   their raw bytes with no length prefix;
//! - variable-length byte strings and UTF-8 text are a `u32` length followed
//!   by the bytes;
//! - lists are a `u32` item count followed by the items;
//! - an optional value is a `u8` presence flag (`0` absent, `1` present)
//!   followed by the value when present;
//! - a choice between kinds (an enum) is a `u8` kind byte followed by that
//!   kind's fields;
//! - every hashed or signed message starts with a domain-separation [`Tag`],
//!   encoded like text (`u32` length, ASCII bytes).
//!
//! The decoder refuses anything the encoder could not have produced (bad
//! flags, unknown kinds, invalid UTF-8, trailing bytes, over-long fields) with
//! a [`DecodeError`]; it never panics and never allocates more than the input
//! can fill, whatever length a hostile input claims.

use std::fmt;
use std::ops::Deref;

use sha2::{Digest, Sha256};
use thiserror::Error;

use super::hash::Hash32;

/// The largest byte string or text any field may hold (1 MiB).
///
/// Large enough for any declaration, setup or seed; small enough that a
/// hostile length prefix cannot make a reader allocate without bound.
pub const MAX_FIELD_LEN: usize = 1 << 20;

/// The largest number of items any list may hold (65,536).
pub const MAX_LIST_LEN: usize = 1 << 16;

/// A domain-separation tag: the ASCII string that opens every hashed or signed
/// message, so that bytes meant for one purpose can never be taken for another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tag(&'static str);

impl Tag {
    /// The tag's text, e.g. `yam/v1/chain`.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// One step of a player's hash chain.
pub const TAG_CHAIN: Tag = Tag("yam/v1/chain");
/// The hash of a roll's declaration.
pub const TAG_DECLARATION: Tag = Tag("yam/v1/declaration");
/// One 32-byte block of a roll's outcome stream.
pub const TAG_OUTCOME: Tag = Tag("yam/v1/outcome");
/// One 32-byte block of a practice game's open-seed stream.
pub const TAG_PRACTICE: Tag = Tag("yam/v1/practice");
/// A salted commitment to a secret setup.
pub const TAG_COMMIT: Tag = Tag("yam/v1/commit");
/// The coin toss that draws roles from one commit-reveal exchange.
pub const TAG_ROLES: Tag = Tag("yam/v1/roles");
/// A public key's fingerprint.
pub const TAG_FINGERPRINT: Tag = Tag("yam/v1/fingerprint");
/// A roll request (hashed, and signed by the requester).
pub const TAG_ROLL_REQUEST: Tag = Tag("yam/v1/roll-request");
/// A roll response (signed by the responder).
pub const TAG_ROLL_RESPONSE: Tag = Tag("yam/v1/roll-response");
/// A record event: opening, turn, resignation, offers, answers, claims.
pub const TAG_EVENT: Tag = Tag("yam/v1/event");

/// Every tag the protocol uses, for documentation checks.
pub const ALL_TAGS: [Tag; 10] = [
    TAG_CHAIN,
    TAG_DECLARATION,
    TAG_OUTCOME,
    TAG_PRACTICE,
    TAG_COMMIT,
    TAG_ROLES,
    TAG_FINGERPRINT,
    TAG_ROLL_REQUEST,
    TAG_ROLL_RESPONSE,
    TAG_EVENT,
];

/// Why bytes could not be decoded. Positions are byte offsets into the input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// The input stopped in the middle of a value (a truncated record).
    #[error("input ends at byte {at}: {what} needs {needed} more byte(s)")]
    UnexpectedEnd {
        /// What was being read.
        what: &'static str,
        /// Where the missing bytes should have started.
        at: usize,
        /// How many bytes were missing.
        needed: usize,
    },
    /// A complete value was followed by bytes that belong to nothing.
    #[error("{count} unexpected byte(s) after the value, from byte {at}")]
    TrailingBytes {
        /// Where the extra bytes start.
        at: usize,
        /// How many there are.
        count: usize,
    },
    /// A length or count is larger than any valid value has.
    #[error("{what} at byte {at} claims length {len}; the limit is {limit}")]
    TooLong {
        /// What was being read.
        what: &'static str,
        /// Where the length prefix is.
        at: usize,
        /// The claimed length.
        len: u64,
        /// The limit for this field.
        limit: usize,
    },
    /// The bytes read are not a valid value of the expected type.
    #[error("invalid {what} at byte {at}: {reason}")]
    Invalid {
        /// What was being read.
        what: &'static str,
        /// Where the value starts.
        at: usize,
        /// Why it was refused.
        reason: String,
    },
    /// The message opens with a different domain-separation tag.
    #[error("expected the tag {expected} at byte {at}")]
    WrongTag {
        /// The tag that should open the message.
        expected: Tag,
        /// Where the tag starts.
        at: usize,
    },
}

/// A value refused when built, because it could not be encoded canonically.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ValueError {
    /// Too many bytes or items for the field.
    #[error("{what} has length {len}; the limit is {limit}")]
    TooLong {
        /// The field.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// The value breaks a rule of its type.
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// The field.
        what: &'static str,
        /// Why.
        reason: String,
    },
}

/// A value with one canonical byte encoding.
///
/// `decode(encode(v)) == v` for every value, and `decode` accepts only bytes
/// that `encode` produces.
pub trait Canonical: Sized {
    /// Append this value's canonical bytes.
    fn encode(&self, enc: &mut Encoder);

    /// Read one value; errors name the offending byte.
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError>;

    /// This value's canonical bytes on their own.
    fn to_canonical_bytes(&self) -> Vec<u8> {
        let mut enc = Encoder::new();
        self.encode(&mut enc);
        enc.into_bytes()
    }

    /// Decode a value that must fill `bytes` exactly.
    fn from_canonical_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut dec = Decoder::new(bytes);
        let value = Self::decode(&mut dec)?;
        dec.finish()?;
        Ok(value)
    }
}

/// Writes canonical bytes. Writing cannot fail: every variable-length value
/// reaches the encoder through a type ([`Blob`], [`Text`], [`List`]) whose
/// constructor already bounded its length.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    buf: Vec<u8>,
}

impl Encoder {
    /// An empty encoder.
    pub fn new() -> Self {
        // Room for a whole signed event's bytes (a few hundred) from the
        // start: grown from nothing, the buffer was copied five times.
        Encoder {
            buf: Vec::with_capacity(512),
        }
    }

    /// An encoder whose output starts with `tag`, as every hashed or signed
    /// message must.
    pub fn tagged(tag: Tag) -> Self {
        let mut enc = Encoder::new();
        enc.tag(tag);
        enc
    }

    /// A domain-separation tag: `u32` length, then its ASCII bytes.
    pub fn tag(&mut self, tag: Tag) -> &mut Self {
        // Tags are short string constants of this module.
        self.prefixed(tag.0.as_bytes())
    }

    /// One byte.
    pub fn u8(&mut self, value: u8) -> &mut Self {
        self.buf.push(value);
        self
    }

    /// Two bytes, big-endian.
    pub fn u16(&mut self, value: u16) -> &mut Self {
        self.buf.extend_from_slice(&value.to_be_bytes());
        self
    }

    /// Four bytes, big-endian.
    pub fn u32(&mut self, value: u32) -> &mut Self {
        self.buf.extend_from_slice(&value.to_be_bytes());
        self
    }

    /// Eight bytes, big-endian.
    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.buf.extend_from_slice(&value.to_be_bytes());
        self
    }

    /// One byte, `1` for true and `0` for false.
    pub fn bool(&mut self, value: bool) -> &mut Self {
        self.u8(u8::from(value))
    }

    /// A fixed-size value: its raw bytes, no length prefix.
    pub fn array<const N: usize>(&mut self, bytes: &[u8; N]) -> &mut Self {
        self.buf.extend_from_slice(bytes);
        self
    }

    /// A byte string: `u32` length, then the bytes.
    pub fn blob(&mut self, blob: &Blob) -> &mut Self {
        self.prefixed(blob.as_bytes())
    }

    /// Text: `u32` length of its UTF-8 bytes, then the bytes.
    pub fn text(&mut self, text: &Text) -> &mut Self {
        self.prefixed(text.as_str().as_bytes())
    }

    /// Text held other than as a [`Text`] (a [`GameId`](super::game_id::GameId)),
    /// encoded as [`Encoder::text`] does; its type bounds its length.
    pub(crate) fn text_str(&mut self, text: &str) -> &mut Self {
        self.prefixed(text.as_bytes())
    }

    /// Any canonical value.
    pub fn put<T: Canonical>(&mut self, value: &T) -> &mut Self {
        value.encode(self);
        self
    }

    /// A list: `u32` item count, then the items.
    pub fn list<T: Canonical>(&mut self, list: &List<T>) -> &mut Self {
        self.length(list.len());
        for item in list.iter() {
            item.encode(self);
        }
        self
    }

    /// An optional value: `0`, or `1` followed by the value.
    pub fn option<T: Canonical>(&mut self, value: Option<&T>) -> &mut Self {
        match value {
            None => self.u8(0),
            Some(value) => self.u8(1).put(value),
        }
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The finished bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// SHA-256 of the bytes written.
    pub fn sha256(&self) -> Hash32 {
        Hash32::from_bytes(Sha256::digest(&self.buf).into())
    }

    fn prefixed(&mut self, bytes: &[u8]) -> &mut Self {
        self.length(bytes.len());
        self.buf.extend_from_slice(bytes);
        self
    }

    fn length(&mut self, len: usize) {
        // Every caller passes a length bounded by MAX_FIELD_LEN or
        // MAX_LIST_LEN (enforced by Blob, Text, List and the tag constants),
        // so the saturation never happens; it only keeps this path panic-free.
        self.u32(u32::try_from(len).unwrap_or(u32::MAX));
    }
}

/// Reads canonical bytes, refusing anything [`Encoder`] would not write.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `input`.
    pub fn new(input: &'a [u8]) -> Self {
        Decoder { input, pos: 0 }
    }

    /// The offset of the next byte to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// How many bytes are left.
    pub fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// Succeeds only when every byte has been read.
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(DecodeError::TrailingBytes {
                at: self.pos,
                count,
            }),
        }
    }

    /// `n` raw bytes.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let available = self.remaining();
        if n > available {
            return Err(DecodeError::UnexpectedEnd {
                what,
                at: self.pos,
                needed: n - available,
            });
        }
        let start = self.pos;
        self.pos += n;
        self.input
            .get(start..self.pos)
            .ok_or(DecodeError::UnexpectedEnd {
                what,
                at: start,
                needed: n,
            })
    }

    /// A fixed-size value of `N` raw bytes.
    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        let bytes = self.take(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// One byte.
    pub fn u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        Ok(u8::from_be_bytes(self.array(what)?))
    }

    /// A big-endian `u16`.
    pub fn u16(&mut self, what: &'static str) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    /// A big-endian `u32`.
    pub fn u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    /// A big-endian `u64`.
    pub fn u64(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array(what)?))
    }

    /// A boolean byte; only `0` and `1` are valid.
    pub fn bool(&mut self, what: &'static str) -> Result<bool, DecodeError> {
        let at = self.pos;
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(DecodeError::Invalid {
                what,
                at,
                reason: format!("a boolean is 0 or 1, not {other}"),
            }),
        }
    }

    /// A kind byte that must be one of `0..count`.
    pub fn kind(&mut self, what: &'static str, count: u8) -> Result<u8, DecodeError> {
        let at = self.pos;
        let kind = self.u8(what)?;
        if kind < count {
            Ok(kind)
        } else {
            Err(DecodeError::Invalid {
                what,
                at,
                reason: format!("unknown kind {kind}"),
            })
        }
    }

    /// The tag `expected`, and nothing else.
    pub fn tag(&mut self, expected: Tag) -> Result<(), DecodeError> {
        let at = self.pos;
        let bytes = self.prefixed("tag", MAX_FIELD_LEN)?;
        if bytes == expected.0.as_bytes() {
            Ok(())
        } else {
            Err(DecodeError::WrongTag { expected, at })
        }
    }

    /// A length-prefixed byte string.
    pub fn blob(&mut self, what: &'static str) -> Result<Blob, DecodeError> {
        Ok(Blob(self.prefixed(what, MAX_FIELD_LEN)?.to_vec()))
    }

    /// Length-prefixed UTF-8 text.
    pub fn text(&mut self, what: &'static str) -> Result<Text, DecodeError> {
        Ok(Text(self.text_str(what)?.to_owned()))
    }

    /// [`Decoder::text`], borrowed from the input: for a type that keeps
    /// its text otherwise than in a [`Text`], without a copy in between.
    pub(crate) fn text_str(&mut self, what: &'static str) -> Result<&'a str, DecodeError> {
        let at = self.pos;
        let bytes = self.prefixed(what, MAX_FIELD_LEN)?;
        std::str::from_utf8(bytes).map_err(|err| DecodeError::Invalid {
            what,
            at,
            reason: format!("not UTF-8: {err}"),
        })
    }

    /// Any canonical value.
    pub fn get<T: Canonical>(&mut self) -> Result<T, DecodeError> {
        T::decode(self)
    }

    /// A counted list.
    pub fn list<T: Canonical>(&mut self, what: &'static str) -> Result<List<T>, DecodeError> {
        let count = self.length(what, MAX_LIST_LEN)?;
        // Never trust the count for allocation: every item takes at least one
        // byte, so a list cannot have more items than bytes remain.
        let mut items = Vec::with_capacity(count.min(self.remaining()));
        for _ in 0..count {
            items.push(T::decode(self)?);
        }
        Ok(List(items))
    }

    /// An optional value behind a presence byte.
    pub fn option<T: Canonical>(&mut self, what: &'static str) -> Result<Option<T>, DecodeError> {
        if self.bool(what)? {
            Ok(Some(T::decode(self)?))
        } else {
            Ok(None)
        }
    }

    /// An [`DecodeError::Invalid`] for a value that started at `at`, for
    /// types that check their own rules after reading their bytes.
    pub fn invalid(&self, what: &'static str, at: usize, reason: impl fmt::Display) -> DecodeError {
        DecodeError::Invalid {
            what,
            at,
            reason: reason.to_string(),
        }
    }

    fn length(&mut self, what: &'static str, limit: usize) -> Result<usize, DecodeError> {
        let at = self.pos;
        let len = self.u32(what)?;
        match usize::try_from(len) {
            Ok(len) if len <= limit => Ok(len),
            _ => Err(DecodeError::TooLong {
                what,
                at,
                len: u64::from(len),
                limit,
            }),
        }
    }

    fn prefixed(&mut self, what: &'static str, limit: usize) -> Result<&'a [u8], DecodeError> {
        let len = self.length(what, limit)?;
        self.take(len, what)
    }
}

/// A byte string of at most [`MAX_FIELD_LEN`] bytes.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Blob(Vec<u8>);

impl Blob {
    /// Wraps `bytes`, refusing more than [`MAX_FIELD_LEN`].
    pub fn new(bytes: Vec<u8>) -> Result<Self, ValueError> {
        check_len("byte string", bytes.len(), MAX_FIELD_LEN)?;
        Ok(Blob(bytes))
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Blob({})", hex::encode(&self.0))
    }
}

impl Canonical for Blob {
    fn encode(&self, enc: &mut Encoder) {
        enc.blob(self);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        dec.blob("byte string")
    }
}

/// UTF-8 text of at most [`MAX_FIELD_LEN`] bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Text(String);

impl Text {
    /// Wraps `text`, refusing more than [`MAX_FIELD_LEN`] bytes.
    pub fn new(text: impl Into<String>) -> Result<Self, ValueError> {
        let text = text.into();
        check_len("text", text.len(), MAX_FIELD_LEN)?;
        Ok(Text(text))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Canonical for Text {
    fn encode(&self, enc: &mut Encoder) {
        enc.text(self);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        dec.text("text")
    }
}

/// A list of at most [`MAX_LIST_LEN`] items.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct List<T>(Vec<T>);

impl<T> List<T> {
    /// Wraps `items`, refusing more than [`MAX_LIST_LEN`].
    pub fn new(items: Vec<T>) -> Result<Self, ValueError> {
        check_len("list", items.len(), MAX_LIST_LEN)?;
        Ok(List(items))
    }

    /// The empty list.
    pub fn empty() -> Self {
        List(Vec::new())
    }

    /// The items.
    pub fn into_vec(self) -> Vec<T> {
        self.0
    }
}

impl<T> Default for List<T> {
    fn default() -> Self {
        List::empty()
    }
}

impl<T> Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: Canonical> Canonical for List<T> {
    fn encode(&self, enc: &mut Encoder) {
        enc.list(self);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        dec.list("list")
    }
}

fn check_len(what: &'static str, len: usize, limit: usize) -> Result<(), ValueError> {
    if len > limit {
        Err(ValueError::TooLong { what, len, limit })
    } else {
        Ok(())
    }
}

macro_rules! canonical_int {
    ($($ty:ident),*) => {$(
        impl Canonical for $ty {
            fn encode(&self, enc: &mut Encoder) {
                enc.$ty(*self);
            }
            fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
                dec.$ty(stringify!($ty))
            }
        }
    )*};
}
canonical_int!(u8, u16, u32, u64);

impl<T: Canonical> Canonical for Option<T> {
    fn encode(&self, enc: &mut Encoder) {
        enc.option(self.as_ref());
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        dec.option("optional value")
    }
}

/// Fixed-size raw bytes, no length prefix.
impl<const N: usize> Canonical for [u8; N] {
    fn encode(&self, enc: &mut Encoder) {
        enc.array(self);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        dec.array("fixed-size bytes")
    }
}

impl Canonical for bool {
    fn encode(&self, enc: &mut Encoder) {
        enc.bool(*self);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        dec.bool("bool")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn integers_are_big_endian_and_fixed_width() {
        let mut enc = Encoder::new();
        enc.u8(1)
            .u16(0x0203)
            .u32(0x0405_0607)
            .u64(0x0809_0a0b_0c0d_0e0f);
        assert_eq!(
            hex::encode(enc.as_bytes()),
            "010203040506070809 0a0b0c0d0e0f".replace(' ', "")
        );
    }

    #[test]
    fn tags_and_text_are_u32_length_prefixed() {
        let enc = Encoder::tagged(TAG_CHAIN);
        assert_eq!(enc.as_bytes(), b"\0\0\0\x0cyam/v1/chain");
        let mut enc = Encoder::new();
        enc.text(&Text::new("é").unwrap());
        assert_eq!(enc.as_bytes(), &[0, 0, 0, 2, 0xc3, 0xa9]);
    }

    #[test]
    fn truncated_input_names_what_is_missing() {
        let mut dec = Decoder::new(&[0, 0, 0]);
        assert_eq!(
            dec.u32("roll index"),
            Err(DecodeError::UnexpectedEnd {
                what: "roll index",
                at: 0,
                needed: 1
            })
        );
    }

    #[test]
    fn hostile_length_prefix_is_refused_without_allocation() {
        let mut dec = Decoder::new(&[0xff, 0xff, 0xff, 0xff, 1, 2]);
        assert!(matches!(
            dec.blob("setup"),
            Err(DecodeError::TooLong {
                len: 0xffff_ffff,
                ..
            })
        ));
        // A count within the limit but beyond the input stops at the end.
        let mut dec = Decoder::new(&[0, 0, 0xff, 0xff, 7]);
        assert!(matches!(
            dec.list::<u8>("list"),
            Err(DecodeError::UnexpectedEnd { .. })
        ));
    }

    #[test]
    fn wrong_tag_flag_and_kind_are_refused() {
        let bytes = Encoder::tagged(TAG_OUTCOME).into_bytes();
        assert_eq!(
            Decoder::new(&bytes).tag(TAG_CHAIN),
            Err(DecodeError::WrongTag {
                expected: TAG_CHAIN,
                at: 0
            })
        );
        assert!(matches!(
            Decoder::new(&[2]).bool("flag"),
            Err(DecodeError::Invalid { .. })
        ));
        assert!(matches!(
            Decoder::new(&[9]).kind("event kind", 9),
            Err(DecodeError::Invalid { .. })
        ));
    }

    #[test]
    fn trailing_bytes_are_refused() {
        assert_eq!(
            u8::from_canonical_bytes(&[1, 2]),
            Err(DecodeError::TrailingBytes { at: 1, count: 1 })
        );
    }

    #[test]
    fn invalid_utf8_is_refused() {
        assert!(matches!(
            Text::from_canonical_bytes(&[0, 0, 0, 1, 0xff]),
            Err(DecodeError::Invalid { .. })
        ));
    }

    #[test]
    fn oversized_values_are_refused_when_built() {
        assert!(Blob::new(vec![0; MAX_FIELD_LEN + 1]).is_err());
        assert!(List::new(vec![0u8; MAX_LIST_LEN + 1]).is_err());
        assert!(Blob::new(vec![0; MAX_FIELD_LEN]).is_ok());
    }

    proptest! {
        #[test]
        fn primitives_round_trip(a: u8, b: u16, c: u32, d: u64, e: bool, text in ".{0,40}", blob in proptest::collection::vec(any::<u8>(), 0..64)) {
            let text = Text::new(text).unwrap();
            let blob = Blob::new(blob).unwrap();
            let list = List::new(vec![c, c ^ 1, 0]).unwrap();
            let mut enc = Encoder::new();
            enc.u8(a).u16(b).u32(c).u64(d).bool(e).text(&text).blob(&blob).list(&list).option(Some(&d)).option::<u64>(None);
            let bytes = enc.into_bytes();
            let mut dec = Decoder::new(&bytes);
            prop_assert_eq!(dec.u8("a").unwrap(), a);
            prop_assert_eq!(dec.u16("b").unwrap(), b);
            prop_assert_eq!(dec.u32("c").unwrap(), c);
            prop_assert_eq!(dec.u64("d").unwrap(), d);
            prop_assert_eq!(dec.bool("e").unwrap(), e);
            prop_assert_eq!(dec.text("text").unwrap(), text);
            prop_assert_eq!(dec.blob("blob").unwrap(), blob);
            prop_assert_eq!(dec.list::<u32>("list").unwrap(), list);
            prop_assert_eq!(dec.option::<u64>("some").unwrap(), Some(d));
            prop_assert_eq!(dec.option::<u64>("none").unwrap(), None);
            prop_assert!(dec.finish().is_ok());
        }

        #[test]
        fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = List::<Text>::from_canonical_bytes(&bytes);
            let _ = List::<List<u16>>::from_canonical_bytes(&bytes);
            let _ = Option::<Blob>::from_canonical_bytes(&bytes);
            let _ = Decoder::new(&bytes).tag(TAG_EVENT);
        }
    }
}

/// Serde for a protocol value through its canonical bytes: the one
/// encoding Yam defines for it, so a value kept in a client's cache (a
/// stored game's tip, `signed::tip`) is read back by the decoder that
/// refuses anything the encoder could not have produced. For these types
/// serde is a carrier only: the bytes are the canonical ones.
macro_rules! serde_as_canonical {
    ($($ty:ty),* $(,)?) => {$(
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bytes(&$crate::fair_play::encoding::Canonical::to_canonical_bytes(self))
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_bytes($crate::fair_play::encoding::CanonicalVisitor::<$ty>(
                    std::marker::PhantomData,
                ))
            }
        }
    )*};
}

pub(crate) use serde_as_canonical;

/// Reads a [`serde_as_canonical`] value from its bytes.
pub(crate) struct CanonicalVisitor<T>(pub(crate) std::marker::PhantomData<T>);

impl<T: Canonical> serde::de::Visitor<'_> for CanonicalVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value's canonical bytes")
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<T, E> {
        T::from_canonical_bytes(bytes).map_err(E::custom)
    }
}

serde_as_canonical!(Blob, Text);
