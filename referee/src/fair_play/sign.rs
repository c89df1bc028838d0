//! Ed25519 signatures with strict semantics, and key fingerprints.
//!
//! Keys are made from a caller-supplied 32-byte seed (the referee has no
//! randomness of its own). Verification is `verify_strict` from ed25519-dalek
//! 2, and public keys are checked when they are read, so that every
//! implementation that follows `docs/fair-play.md` accepts exactly the same
//! signatures:
//!
//! - a public key must be a canonical encoding of a curve point in the
//!   prime-order subgroup (no small-order "weak" keys, no mixed-order keys:
//!   honest keys are always in the subgroup);
//! - a signature's `s` must be canonical (`s < l`) and its `R` must not be of
//!   small order, and `R` must equal `[s]B - [k]A` exactly (cofactorless),
//!   which refuses any torsion component in `R`.
//!
//! There is deliberately no batch fast path. ed25519-dalek's `verify_batch`
//! checks the cofactorless equation under 128-bit random weights `z`: a signer
//! who puts a torsion point `T` of order 2 into `R` makes the batch equation
//! fail only by `z·T`, which vanishes whenever `z` is even, so the batch accepts
//! such a signature about half the time while `verify_strict` always refuses
//! it (measured with ed25519-dalek 2.2: 105 of 200 such signatures passed
//! `verify_batch`, none passed `verify_strict`). Two honest verifiers would then disagree about the same record, which
//! is the one thing signatures are here to prevent. Ruling the torsion out
//! first costs a scalar multiplication per signature, as much as the single
//! check the batch would save. [`verify_all`] therefore checks one signature
//! at a time and names the first that fails; a game has a few hundred
//! signatures at most, well under a second on any machine.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use ed25519_dalek::Signer as _;
use thiserror::Error;

use super::encoding::{Canonical, DecodeError, Decoder, Encoder, TAG_FINGERPRINT};

/// Why 32 bytes are not an acceptable public key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum KeyError {
    /// The bytes do not decode to a curve point.
    #[error("not a point on the curve")]
    NotAPoint,
    /// The point has a shorter, canonical encoding; two spellings of one key
    /// would give it two fingerprints.
    #[error("not the canonical encoding of its point")]
    NonCanonical,
    /// A small-order ("weak") key, for which signatures prove nothing.
    #[error("a small-order (weak) key")]
    SmallOrder,
    /// A point outside the prime-order subgroup; no honest key is one.
    #[error("a mixed-order key (has a torsion component)")]
    MixedOrder,
}

/// A signature that did not verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("the signature does not verify under the key {key}")]
pub struct SignatureError {
    /// The key the signature was checked against.
    pub key: Fingerprint,
}

/// The first signature of a list that did not verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("signature #{index} does not verify under the key {key}")]
pub struct SignatureFailure {
    /// Its position in the list, from 0.
    pub index: usize,
    /// The key it was checked against.
    pub key: Fingerprint,
}

/// A checked ed25519 public key (see the module documentation for the checks).
#[derive(Clone, Copy)]
pub struct PublicKey(ed25519_dalek::VerifyingKey);

impl PublicKey {
    /// The key whose 32 bytes `text` spells in hex, as the clients keep a
    /// key in their files (contacts, bookkeeping); `None` when it spells
    /// none or the bytes are no valid key ([`PublicKey::from_bytes`]).
    pub fn from_hex(text: &str) -> Option<Self> {
        let bytes: [u8; 32] = hex::decode(text).ok()?.try_into().ok()?;
        PublicKey::from_bytes(&bytes).ok()
    }

    /// Reads and checks a key.
    ///
    /// The checks are a function of the bytes alone, and the torsion check
    /// costs a full scalar multiplication, more than verifying a signature;
    /// a record names the same two or three keys in every event. So the
    /// keys this thread accepted last are remembered by their bytes and
    /// handed back without checking again (a refused key is not remembered,
    /// and is refused again with its reason).
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, KeyError> {
        thread_local! {
            static ACCEPTED: std::cell::RefCell<[Option<PublicKey>; 4]> =
                const { std::cell::RefCell::new([None; 4]) };
        }
        let known = ACCEPTED.with_borrow(|keys| {
            keys.iter()
                .flatten()
                .find(|k| k.as_bytes() == bytes)
                .copied()
        });
        if let Some(key) = known {
            return Ok(key);
        }
        let key = PublicKey::check_bytes(bytes)?;
        ACCEPTED.with_borrow_mut(|keys| {
            keys.rotate_right(1);
            keys[0] = Some(key);
        });
        Ok(key)
    }

    /// [`PublicKey::from_bytes`]'s checks, every time.
    fn check_bytes(bytes: &[u8; 32]) -> Result<Self, KeyError> {
        let key =
            ed25519_dalek::VerifyingKey::from_bytes(bytes).map_err(|_| KeyError::NotAPoint)?;
        let point = key.to_edwards();
        if point.compress().to_bytes() != *bytes {
            return Err(KeyError::NonCanonical);
        }
        if key.is_weak() {
            return Err(KeyError::SmallOrder);
        }
        if !point.is_torsion_free() {
            return Err(KeyError::MixedOrder);
        }
        Ok(PublicKey(key))
    }

    /// The 32 bytes of the key.
    pub fn as_bytes(&self) -> &[u8; 32] {
        self.0.as_bytes()
    }

    /// The key's fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(self)
    }

    /// Strict verification of `signature` over exactly `message`.
    pub fn verify(&self, message: &[u8], signature: &Signature) -> Result<(), SignatureError> {
        let signature = ed25519_dalek::Signature::from_bytes(&signature.0);
        self.0
            .verify_strict(message, &signature)
            .map_err(|_| SignatureError {
                key: self.fingerprint(),
            })
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for PublicKey {}

impl Hash for PublicKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

/// Keys order by their bytes; this is the documented order of parties in an
/// outcome derivation.
impl Ord for PublicKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl PartialOrd for PublicKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", hex::encode(self.as_bytes()))
    }
}

impl Canonical for PublicKey {
    fn encode(&self, enc: &mut Encoder) {
        enc.array(self.as_bytes());
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let at = dec.position();
        let bytes = dec.array("public key")?;
        PublicKey::from_bytes(&bytes).map_err(|err| dec.invalid("public key", at, err))
    }
}

/// A signing key. It never leaves its owner's machine: it has no canonical
/// encoding, so it cannot be put into a record, and its `Debug` shows only the
/// public key. A copy (`Clone`) stays in the process, and is wiped when
/// dropped, as the key is.
#[derive(Clone)]
pub struct SigningKey(ed25519_dalek::SigningKey);

impl SigningKey {
    /// The key whose RFC 8032 secret seed is `seed`. The caller draws the seed
    /// from the operating system's randomness and keeps it private.
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        SigningKey(ed25519_dalek::SigningKey::from_bytes(seed))
    }

    /// Whether this is the key of `seed` (compared with the key's own
    /// secret, not a copy of it, and in constant time, as secrets are).
    pub fn is_of_seed(&self, seed: &[u8; 32]) -> bool {
        use subtle::ConstantTimeEq;
        self.0.as_bytes().ct_eq(seed).into()
    }

    /// The matching public key.
    pub fn public_key(&self) -> PublicKey {
        // A key derived from a seed is a multiple of the base point, so it is
        // always canonical, of prime order and never weak.
        PublicKey(self.0.verifying_key())
    }

    /// Signs exactly `message` (deterministic, RFC 8032).
    pub fn sign(&self, message: &[u8]) -> Signature {
        Signature(self.0.sign(message).to_bytes())
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SigningKey(public {})", self.public_key().fingerprint())
    }
}

/// An ed25519 signature: 64 bytes, `R` then `s`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Signature([u8; 64]);

impl Signature {
    /// Wraps raw signature bytes (checked only when verified).
    pub const fn from_bytes(bytes: [u8; 64]) -> Self {
        Signature(bytes)
    }

    /// The raw bytes.
    pub const fn to_bytes(&self) -> [u8; 64] {
        self.0
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({})", hex::encode(self.0))
    }
}

impl Canonical for Signature {
    fn encode(&self, enc: &mut Encoder) {
        enc.array(&self.0);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Signature(dec.array("signature")?))
    }
}

/// A key fingerprint for people to compare: the first 16 bytes of
/// `SHA-256(tag "yam/v1/fingerprint" || key)`, shown as eight groups of four
/// lowercase hex digits separated by spaces (`3f1a 09c2 ...`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint([u8; 16]);

impl Fingerprint {
    /// The fingerprint of `key`.
    pub fn of(key: &PublicKey) -> Self {
        let mut enc = Encoder::tagged(TAG_FINGERPRINT);
        enc.put(key);
        let digest = enc.sha256();
        let mut out = [0u8; 16];
        out.copy_from_slice(&digest.as_bytes()[..16]);
        Fingerprint(out)
    }

    /// The 16 raw bytes.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, pair) in self.0.chunks(2).enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(&hex::encode(pair))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// One signature to check: who signed, what bytes, which signature.
#[derive(Debug, Clone, Copy)]
pub struct SignedMessage<'a> {
    /// The claimed signer.
    pub key: &'a PublicKey,
    /// Exactly the signed bytes.
    pub message: &'a [u8],
    /// The signature.
    pub signature: &'a Signature,
}

/// Checks every signature strictly, in order, and names the first that fails.
/// Returns how many were checked. (Why there is no batch path: see the module
/// documentation.)
pub fn verify_all<'a>(
    items: impl IntoIterator<Item = SignedMessage<'a>>,
) -> Result<usize, SignatureFailure> {
    let mut count = 0;
    for (index, item) in items.into_iter().enumerate() {
        item.key
            .verify(item.message, item.signature)
            .map_err(|err| SignatureFailure {
                index,
                key: err.key,
            })?;
        count += 1;
    }
    Ok(count)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT, EIGHT_TORSION};
    use curve25519_dalek::scalar::Scalar;
    use sha2::{Digest, Sha512};

    /// A fixed test key: seed = 32 bytes of `byte`.
    pub(crate) fn key(byte: u8) -> SigningKey {
        SigningKey::from_seed(&[byte; 32])
    }

    /// The secret scalar of the seed `[byte; 32]` (RFC 8032, 5.1.5: the
    /// first half of SHA-512 of the seed, clamped): what a test needs to
    /// sign by hand, with a nonce of its own.
    pub(crate) fn secret_scalar(byte: u8) -> Scalar {
        let expanded = Sha512::digest([byte; 32]);
        let mut a_bytes = [0u8; 32];
        a_bytes.copy_from_slice(&expanded[..32]);
        a_bytes[0] &= 248;
        a_bytes[31] &= 127;
        a_bytes[31] |= 64;
        Scalar::from_bytes_mod_order(a_bytes)
    }

    #[test]
    fn honest_signature_verifies_and_any_mutation_is_refused() {
        let signer = key(1);
        let public = signer.public_key();
        let sig = signer.sign(b"turn bytes");
        assert_eq!(public.verify(b"turn bytes", &sig), Ok(()));
        assert!(public.verify(b"turn bytez", &sig).is_err());
        for i in [0, 31, 32, 63] {
            let mut bytes = sig.to_bytes();
            bytes[i] ^= 0x01;
            assert!(
                public
                    .verify(b"turn bytes", &Signature::from_bytes(bytes))
                    .is_err()
            );
        }
        assert!(key(2).public_key().verify(b"turn bytes", &sig).is_err());
    }

    #[test]
    fn malleated_s_is_refused() {
        // s + l verifies under the lax equation but is not canonical.
        let signer = key(3);
        let sig = signer.sign(b"m").to_bytes();
        let mut s = [0u8; 32];
        s.copy_from_slice(&sig[32..]);
        let l = Scalar::ZERO - Scalar::ONE; // l - 1
        let mut carry = 1u16; // add l = (l - 1) + 1 to s, little-endian
        let l_bytes = l.to_bytes();
        for i in 0..32 {
            let sum = u16::from(s[i]) + u16::from(l_bytes[i]) + carry;
            s[i] = sum as u8;
            carry = sum >> 8;
        }
        let mut forged = sig;
        forged[32..].copy_from_slice(&s);
        assert!(
            signer
                .public_key()
                .verify(b"m", &Signature::from_bytes(forged))
                .is_err()
        );
    }

    #[test]
    fn torsion_in_r_is_refused() {
        // The signer itself builds R' = rB + T with T of order 2 and a valid
        // s for R'. Lax or batch checks can accept this; strict never does.
        let a = secret_scalar(4);
        let public = key(4).public_key();
        let r = Scalar::from(12345u64);
        let r_point = ED25519_BASEPOINT_POINT * r + EIGHT_TORSION[4];
        let r_bytes = r_point.compress().to_bytes();
        let k = Scalar::from_bytes_mod_order_wide(
            &Sha512::new()
                .chain_update(r_bytes)
                .chain_update(public.as_bytes())
                .chain_update(b"m")
                .finalize()
                .into(),
        );
        let s = r + k * a;
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(&r_bytes);
        sig[32..].copy_from_slice(&s.to_bytes());
        assert!(public.verify(b"m", &Signature::from_bytes(sig)).is_err());
        // Sanity: without the torsion point the same construction verifies.
        let honest_r = (ED25519_BASEPOINT_POINT * r).compress().to_bytes();
        let k = Scalar::from_bytes_mod_order_wide(
            &Sha512::new()
                .chain_update(honest_r)
                .chain_update(public.as_bytes())
                .chain_update(b"m")
                .finalize()
                .into(),
        );
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(&honest_r);
        sig[32..].copy_from_slice(&(r + k * a).to_bytes());
        assert!(public.verify(b"m", &Signature::from_bytes(sig)).is_ok());
    }

    #[test]
    fn weak_mixed_and_non_canonical_keys_are_refused() {
        let mut identity = [0u8; 32];
        identity[0] = 1; // y = 1: the identity point, of order 1
        assert_eq!(PublicKey::from_bytes(&identity), Err(KeyError::SmallOrder));
        let order2 = EIGHT_TORSION[4].compress().to_bytes();
        assert_eq!(PublicKey::from_bytes(&order2), Err(KeyError::SmallOrder));
        let honest = key(5).public_key();
        let mixed = (honest.0.to_edwards() + EIGHT_TORSION[1])
            .compress()
            .to_bytes();
        assert_eq!(PublicKey::from_bytes(&mixed), Err(KeyError::MixedOrder));
        // y = p + 1 is a non-canonical spelling of y = 1 (the identity).
        let mut non_canonical = [0xffu8; 32];
        non_canonical[0] = 0xee;
        non_canonical[31] = 0x7f;
        assert_eq!(
            PublicKey::from_bytes(&non_canonical),
            Err(KeyError::NonCanonical)
        );
        assert_eq!(PublicKey::from_bytes(honest.as_bytes()), Ok(honest));
    }

    #[test]
    fn remembered_keys_change_no_answer() {
        let honest = key(6).public_key();
        let mixed = (honest.0.to_edwards() + EIGHT_TORSION[1])
            .compress()
            .to_bytes();
        for _ in 0..3 {
            // Accepted, then remembered: the same key again.
            assert_eq!(PublicKey::from_bytes(honest.as_bytes()), Ok(honest));
            // Refused every time, never remembered.
            assert_eq!(PublicKey::from_bytes(&mixed), Err(KeyError::MixedOrder));
        }
        // More keys than are remembered: each still reads as itself.
        for round in 0..2 {
            for seed in 20..30 {
                let k = key(seed).public_key();
                assert_eq!(PublicKey::from_bytes(k.as_bytes()), Ok(k), "{round} {seed}");
            }
        }
    }

    #[test]
    fn verify_all_names_the_failing_signature() {
        let (a, b) = (key(6), key(7));
        let (pa, pb) = (a.public_key(), b.public_key());
        let sigs = [a.sign(b"one"), b.sign(b"two"), a.sign(b"three")];
        let good = [
            SignedMessage {
                key: &pa,
                message: b"one",
                signature: &sigs[0],
            },
            SignedMessage {
                key: &pb,
                message: b"two",
                signature: &sigs[1],
            },
            SignedMessage {
                key: &pa,
                message: b"three",
                signature: &sigs[2],
            },
        ];
        assert_eq!(verify_all(good), Ok(3));
        let mut bad = good;
        bad[1].key = &pa;
        assert_eq!(
            verify_all(bad),
            Err(SignatureFailure {
                index: 1,
                key: pa.fingerprint()
            })
        );
    }

    #[test]
    fn a_key_knows_its_seed_and_a_copy_signs_alike() {
        let key = SigningKey::from_seed(&[5; 32]);
        assert!(key.is_of_seed(&[5; 32]));
        assert!(!key.is_of_seed(&[6; 32]));
        let copy = key.clone();
        assert_eq!(copy.public_key(), key.public_key());
        assert_eq!(copy.sign(b"m").to_bytes(), key.sign(b"m").to_bytes());
    }

    #[test]
    fn fingerprint_is_eight_groups_of_four_hex_digits() {
        let text = key(1).public_key().fingerprint().to_string();
        assert_eq!(text.len(), 39);
        assert_eq!(text.split(' ').count(), 8);
        assert!(
            text.split(' ')
                .all(|g| g.len() == 4 && g.bytes().all(|b| b.is_ascii_hexdigit()))
        );
    }

    #[test]
    fn a_key_reads_from_its_hex_and_nothing_else_does() {
        let public = key(1).public_key();
        let text = hex::encode(public.as_bytes());
        assert_eq!(PublicKey::from_hex(&text), Some(public));
        assert_eq!(PublicKey::from_hex(&text[..62]), None, "31 bytes");
        assert_eq!(PublicKey::from_hex("zz"), None, "not hex");
        // 32 bytes that are no valid key (the identity point has small order).
        let mut identity = [0u8; 32];
        identity[0] = 1;
        assert_eq!(PublicKey::from_hex(&hex::encode(identity)), None);
    }
}

super::encoding::serde_as_canonical!(PublicKey, Signature);
