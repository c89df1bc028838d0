//! The SHA-256 of a stored text's first bytes, kept unfinished in its tip,
//! so that the checksum of a record continuing that text is finished over
//! the record's new bytes only.
//!
//! Why: a turn mail carries its record twice, attached and in the turn
//! block of its text, and a desk that applied the attachment compares the
//! block's checksum (SHA-256 of the record, `cli/src/mail/armor.rs`) with
//! the attachment's, to see a text that carries another record (a fork,
//! kept as evidence). Hashing the attachment whole was a cost that grew
//! with the game (80 kB at ply 300, about 0.05 ms here). The attached
//! record continues the stored text byte for byte up to the tip's cut (the
//! tip is used only then), and SHA-256 reads its input in 64-byte blocks
//! from the start: the state after the stored text's first whole blocks up
//! to the cut is the state after the record's, and only the rest is read.
//!
//! Trust: a [`PrefixDigest`] also holds the BLAKE3 hash of the bytes its
//! state is of. [`PrefixDigest::hashing`] hashes a text once with BLAKE3
//! (the tip's binding to its text, which it computed anyway) and on the way
//! checks a prior digest against the text's own first bytes: a digest of
//! any other bytes (another text, a record printed anew) is not used, and
//! the state is computed from the start. So a tip's digest is always one of
//! its text, whatever the caller hands in, and a tip whose digest is not
//! one of its text is no tip ([`super::Tip::restore`]).
//!
//! One exception, for speed, that still only spares work: a digest
//! restored with its tip keeps BLAKE3's state after its bytes from the
//! pass that checked them against the stored text
//! ([`PrefixDigest::check_keeping`]), and the next tip, of that text with
//! new events appended after the cut, resumes from it instead of hashing
//! the text's first bytes again (80 kB at ply 300 of a Khan game, 177 kB
//! in a siege). The caller vouches that the text keeps those bytes (a text
//! printed anew forgets the state: [`PrefixDigest::forget_state`]); a
//! text that did not would get a tip whose hash is of other bytes than its
//! own, which [`super::Tip::restore`], hashing the text it is given,
//! refuses: the turn after is verified from the checkpoint. The state itself
//! is the writer's, trusted as the replay the same sealed tip carries is
//! (a private cache in a place only its client writes); and what it gives
//! can only spare work: a checksum that came out wrong would match no
//! block, and the desk would decode the text and compare its record with
//! the stored one, as it does for a block that differs. SHA-256's own state
//! (`sha2::compress256`, the crate's published block function) is used,
//! never a second implementation; [`PrefixDigest::finish`] adds the padding
//! of FIPS 180-4, 5.1.1, and is tested against `Sha256::digest` at every
//! length around the block boundaries.

use sha2::digest::generic_array::GenericArray;

/// SHA-256's initial state (FIPS 180-4, 5.3.3).
const INITIAL: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// A SHA-256 block.
const BLOCK: usize = 64;

/// How many blocks are copied into place for one call of the block
/// function (its blocks are `GenericArray`s, a text's bytes are a slice).
const BATCH: usize = 16;

/// The SHA-256 state after the first `64 * blocks` bytes of a text, and
/// the BLAKE3 hash of those bytes; see the module documentation.
///
/// In memory it may also hold BLAKE3's own state after those bytes, kept
/// by the pass that checked the digest against its text
/// ([`PrefixDigest::check_keeping`]): the next tip of a text that continues that
/// one ([`PrefixDigest::hashing`]) then hashes only what follows, where it
/// hashed the text's first bytes again to see that the digest is theirs
/// (80 kB at ply 300 of a Khan game, 177 kB in a siege). Never written
/// ([`PrefixDigest::encode`]), never compared.
#[derive(Debug, Clone)]
pub struct PrefixDigest {
    blocks: u64,
    state: [u32; 8],
    bound: [u8; 32],
    /// BLAKE3 after the digest's bytes, from the pass that checked them.
    resume: Option<Box<blake3::Hasher>>,
}

/// Equal when the digests are: the BLAKE3 state kept beside one is a way
/// to compute the same thing faster.
impl PartialEq for PrefixDigest {
    fn eq(&self, other: &Self) -> bool {
        (self.blocks, self.state, self.bound) == (other.blocks, other.state, other.bound)
    }
}

impl Eq for PrefixDigest {}

/// The size of a [`PrefixDigest`] in a tip.
pub const ENCODED: usize = 8 + 32 + 32;

impl PrefixDigest {
    /// How many bytes of its text the state is of.
    pub fn len(&self) -> usize {
        usize::try_from(self.blocks).map_or(usize::MAX, |b| b.saturating_mul(BLOCK))
    }

    /// Whether the state is of no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.blocks == 0
    }

    /// The BLAKE3 hash of `text` and the digest of its whole blocks up to
    /// `upto` (`upto` is rounded down to a block; the text's length if
    /// longer), in one pass of BLAKE3 over the text. `prior`, a digest of
    /// a text this one may continue, is used if its BLAKE3 hash is that of
    /// this text's first bytes and it does not reach past `upto`: only the
    /// bytes after it are then read by SHA-256. Otherwise SHA-256 reads
    /// from the start (a wrong `prior` costs time, never a wrong state).
    pub fn hashing(
        text: &[u8],
        upto: usize,
        prior: Option<&PrefixDigest>,
    ) -> (blake3::Hash, PrefixDigest) {
        let end = upto.min(text.len()) / BLOCK * BLOCK;
        let mut hasher = blake3::Hasher::new();
        let (mut from, mut state) = (0, INITIAL);
        if let Some(prior) = prior.filter(|p| p.len() <= end) {
            // BLAKE3's state after the prior's bytes, kept by the check of
            // the text this one continues, or computed here.
            match prior.resume.as_deref() {
                Some(resumed) => hasher.clone_from(resumed),
                None => {
                    hasher.update(&text[..prior.len()]);
                }
            }
            if *hasher.finalize().as_bytes() == prior.bound {
                (from, state) = (prior.len(), prior.state);
            } else {
                hasher.reset();
            }
        }
        compress(&mut state, &text[from..end]);
        // BLAKE3 has read the same bytes as SHA-256: those of `from`.
        hasher.update(&text[from..end]);
        let digest = PrefixDigest {
            blocks: (end / BLOCK) as u64,
            state,
            bound: *hasher.finalize().as_bytes(),
            resume: None,
        };
        hasher.update(&text[end..]);
        (hasher.finalize(), digest)
    }

    /// Whether this is the digest of `text`'s first bytes, and the BLAKE3
    /// hash of the whole text, in one pass; `None` if the text is shorter
    /// than the digest's bytes. When it is, BLAKE3's state after those
    /// bytes is kept in the digest, for [`PrefixDigest::hashing`] to
    /// resume from: the caller promises that the text it hashes next keeps
    /// those first bytes (a text appended to after them). A promise broken
    /// costs time, never a wrong tip: the next tip's hash of its text would
    /// then be of other bytes, and [`super::Tip::restore`], which hashes
    /// the text it is given, refuses it.
    pub fn check_keeping(&mut self, text: &[u8]) -> Option<(bool, blake3::Hash)> {
        let mut hasher = blake3::Hasher::new();
        hasher.update(text.get(..self.len())?);
        let holds = *hasher.finalize().as_bytes() == self.bound;
        self.resume = holds.then(|| Box::new(hasher.clone()));
        hasher.update(&text[self.len()..]);
        Some((holds, hasher.finalize()))
    }

    /// Forgets the BLAKE3 state kept by [`PrefixDigest::check_keeping`],
    /// for a caller whose next text may not keep the digest's bytes (a
    /// record printed anew): [`PrefixDigest::hashing`] then hashes them
    /// to see.
    pub fn forget_state(&mut self) {
        self.resume = None;
    }

    /// The SHA-256 of `text`, whose first [`len`](Self::len) bytes must be
    /// those this digest is of (the caller knows it: they are a checked
    /// text's, compared byte for byte); only the rest is read. `None` if
    /// the text is shorter.
    pub fn finish(&self, text: &[u8]) -> Option<[u8; 32]> {
        let rest = text.get(self.len()..)?;
        let mut state = self.state;
        let whole = rest.len() / BLOCK * BLOCK;
        compress(&mut state, &rest[..whole]);
        // The padding (FIPS 180-4, 5.1.1): a 1 bit, zeros, and the length
        // in bits as 64 bits, big-endian, ending a block.
        let tail = &rest[whole..];
        let mut last = [0u8; 2 * BLOCK];
        last[..tail.len()].copy_from_slice(tail);
        last[tail.len()] = 0x80;
        let blocks = if tail.len() < BLOCK - 8 { 1 } else { 2 };
        let bits = (text.len() as u64).wrapping_mul(8);
        last[blocks * BLOCK - 8..blocks * BLOCK].copy_from_slice(&bits.to_be_bytes());
        compress(&mut state, &last[..blocks * BLOCK]);
        let mut out = [0u8; 32];
        for (word, bytes) in state.iter().zip(out.chunks_exact_mut(4)) {
            bytes.copy_from_slice(&word.to_be_bytes());
        }
        Some(out)
    }

    /// The digest as a tip carries it: the block count (8 bytes,
    /// big-endian), the state (eight 4-byte words, big-endian), the BLAKE3
    /// hash of the bytes.
    pub fn encode(&self) -> [u8; ENCODED] {
        let mut out = [0u8; ENCODED];
        out[..8].copy_from_slice(&self.blocks.to_be_bytes());
        for (word, bytes) in self.state.iter().zip(out[8..40].chunks_exact_mut(4)) {
            bytes.copy_from_slice(&word.to_be_bytes());
        }
        out[40..].copy_from_slice(&self.bound);
        out
    }

    /// A digest read back from [`encode`](Self::encode)'s bytes.
    pub fn decode(bytes: &[u8; ENCODED]) -> PrefixDigest {
        let mut blocks = [0u8; 8];
        blocks.copy_from_slice(&bytes[..8]);
        let mut state = [0u32; 8];
        for (word, b) in state.iter_mut().zip(bytes[8..40].chunks_exact(4)) {
            *word = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        }
        let mut bound = [0u8; 32];
        bound.copy_from_slice(&bytes[40..]);
        PrefixDigest {
            blocks: u64::from_be_bytes(blocks),
            state,
            bound,
            resume: None,
        }
    }
}

/// SHA-256's block function over `bytes`, a whole number of blocks.
fn compress(state: &mut [u32; 8], bytes: &[u8]) {
    debug_assert_eq!(bytes.len() % BLOCK, 0);
    let mut batch = [GenericArray::<u8, sha2::digest::consts::U64>::default(); BATCH];
    for run in bytes.chunks(BLOCK * BATCH) {
        let mut n = 0;
        for (into, block) in batch.iter_mut().zip(run.chunks_exact(BLOCK)) {
            into.copy_from_slice(block);
            n += 1;
        }
        sha2::compress256(state, &batch[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn text(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 7) as u8)
            .collect()
    }

    #[test]
    fn finishing_a_prefix_gives_sha256_at_every_length_around_the_blocks() {
        for len in (0..300).chain([1023, 1024, 1025, 4095, 4096, 4097, 81_919, 81_920, 81_921]) {
            let t = text(len, 7);
            let want: [u8; 32] = Sha256::digest(&t).into();
            for upto in [
                0,
                1,
                55,
                56,
                63,
                64,
                65,
                128,
                len / 2,
                len.saturating_sub(1),
                len,
            ] {
                let (hash, digest) = PrefixDigest::hashing(&t, upto, None);
                assert_eq!(hash, blake3::hash(&t), "len {len} upto {upto}");
                assert_eq!(digest.len(), upto.min(len) / 64 * 64);
                assert_eq!(digest.finish(&t), Some(want), "len {len} upto {upto}");
                assert_eq!(
                    digest.clone().check_keeping(&t),
                    Some((true, blake3::hash(&t)))
                );
                assert_eq!(PrefixDigest::decode(&digest.encode()), digest);
            }
        }
    }

    /// The vector of `docs/fair-play.md`, 9.11 (its state and digest
    /// computed by a separate implementation of FIPS 180-4).
    #[test]
    fn the_documented_vector() {
        let t: Vec<u8> = b"[Event \"yam\"]\n".repeat(15)[..200].to_vec();
        let (_, digest) = PrefixDigest::hashing(&t, 199, None);
        let encoded = digest.encode();
        assert_eq!(encoded[..8], 3u64.to_be_bytes());
        assert_eq!(
            hex::encode(&encoded[8..40]),
            "6f8a85274052926b6ab7f2213edf6a75b650996a8911091615dc9ae631938423"
        );
        assert_eq!(encoded[40..], *blake3::hash(&t[..192]).as_bytes());
        assert_eq!(
            hex::encode(digest.finish(&t).unwrap()),
            "81d3dd41a71aa374b70d442ffb9f02b1ec22f5f565874e61335c05af365ea9fd"
        );
    }

    #[test]
    fn a_prior_digest_is_used_only_for_the_text_it_is_of() {
        let old = text(5_000, 1);
        let (_, prior) = PrefixDigest::hashing(&old, 3_000, None);
        // A text that continues the old one past the prior's bytes.
        let mut new = old[..3_010].to_vec();
        new.extend_from_slice(b"{ new events } *\n");
        let (hash, digest) = PrefixDigest::hashing(&new, 3_020, Some(&prior));
        assert_eq!(hash, blake3::hash(&new));
        assert_eq!(digest.len(), 3_008 / 64 * 64);
        assert_eq!(digest, PrefixDigest::hashing(&new, 3_020, None).1);
        let want: [u8; 32] = Sha256::digest(&new).into();
        assert_eq!(digest.finish(&new), Some(want));
        // A text whose first bytes differ: the prior is not used, and the
        // state is the text's own (a wrong prior costs time only).
        let mut other = new.clone();
        other[100] ^= 1;
        let (_, digest) = PrefixDigest::hashing(&other, 3_020, Some(&prior));
        assert_eq!(digest, PrefixDigest::hashing(&other, 3_020, None).1);
        let want: [u8; 32] = Sha256::digest(&other).into();
        assert_eq!(digest.finish(&other), Some(want));
        assert_eq!(
            prior.clone().check_keeping(&other).map(|(holds, _)| holds),
            Some(false)
        );
        // A prior longer than the new cut: not used either.
        let (_, short) = PrefixDigest::hashing(&new, 1_000, Some(&prior));
        assert_eq!(short, PrefixDigest::hashing(&new, 1_000, None).1);
        // A text shorter than the digest's bytes has no answer.
        assert_eq!(prior.finish(&old[..100]), None);
        assert_eq!(prior.clone().check_keeping(&old[..100]), None);
    }

    /// A digest restored with its tip and checked against its text keeps
    /// BLAKE3's state: the next tip of a text continuing it comes out as
    /// if hashed from the start. A text that broke the promise (its first
    /// bytes changed) gets a hash of other bytes than its own, which a
    /// restore refuses, never a digest that passes for its own.
    #[test]
    fn a_kept_state_resumes_and_a_broken_promise_is_refused_later() {
        let old = text(90_000, 5);
        let (_, written) = PrefixDigest::hashing(&old, 80_000, None);
        let mut restored = PrefixDigest::decode(&written.encode());
        assert_eq!(
            restored.check_keeping(&old),
            Some((true, blake3::hash(&old)))
        );
        assert!(restored.resume.is_some());
        let mut new = old[..80_010].to_vec();
        new.extend_from_slice(&text(3_000, 9));
        for upto in [80_000, 80_001, 80_064, 82_000, new.len()] {
            let resumed = PrefixDigest::hashing(&new, upto, Some(&restored));
            let fresh = PrefixDigest::hashing(&new, upto, None);
            assert_eq!(resumed, fresh, "upto {upto}");
            assert_eq!(resumed.0, blake3::hash(&new));
        }
        // The promise broken: the hash is not the text's, so the tip it
        // goes in is refused; with the state forgotten, the text's own.
        let mut changed = new.clone();
        changed[10] ^= 1;
        let (hash, _) = PrefixDigest::hashing(&changed, 82_000, Some(&restored));
        assert_ne!(hash, blake3::hash(&changed));
        let mut forgot = restored.clone();
        forgot.forget_state();
        assert_eq!(
            PrefixDigest::hashing(&changed, 82_000, Some(&forgot)),
            PrefixDigest::hashing(&changed, 82_000, None)
        );
        // A check that fails keeps no state.
        let mut wrong = PrefixDigest::decode(&written.encode());
        assert_eq!(
            wrong.check_keeping(&changed).map(|(holds, _)| holds),
            Some(false)
        );
        assert!(wrong.resume.is_none());
    }

    #[test]
    fn a_state_from_another_text_is_not_its_sha256() {
        // What `finish` trusts its caller for: a digest finished over a
        // text whose first bytes are not its own is no SHA-256 of that
        // text (so the caller's byte comparison is what makes it one).
        let a = text(2_000, 3);
        let mut b = a.clone();
        b[10] ^= 0x40;
        let (_, digest) = PrefixDigest::hashing(&a, 1_500, None);
        let want: [u8; 32] = Sha256::digest(&b).into();
        assert_ne!(digest.finish(&b), Some(want));
    }
}
