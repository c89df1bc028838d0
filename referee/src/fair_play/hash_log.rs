//! The verifier's log of every event hash, by position, in a form a copy
//! shares.
//!
//! Why: a replay is copied whole where a walk must leave the replay it
//! starts from untouched (the desk walks a turn mail's new events from the
//! stored game's replay, and again from it to check the text it writes).
//! A plain vector of hashes made each copy O(n): at ply 300 of a Khan game
//! 14 kB allocated and copied, five times a turn mail. Here the
//! hashes sit in sealed chunks of [`CHUNK`], shared by every copy, and an
//! open chunk of fewer: a copy costs a pointer a chunk and at most one
//! open chunk, whatever the game's length.
//!
//! Serialized exactly as the vector it replaces (a sequence of hashes), so
//! a tip written before reads as it is.

use std::sync::Arc;

use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::hash::Hash32;

/// Hashes a sealed chunk holds.
const CHUNK: usize = 64;

/// Append-only hashes by position; see the module documentation.
#[derive(Debug, Clone, Default)]
pub(crate) struct HashLog {
    /// Full chunks, never changed once sealed (a cut below one unseals it
    /// by copying: see [`HashLog::truncate`]).
    sealed: Vec<Arc<[Hash32]>>,
    /// The hashes after the sealed chunks, fewer than [`CHUNK`].
    open: Vec<Hash32>,
}

impl HashLog {
    /// How many hashes the log holds.
    pub(crate) fn len(&self) -> usize {
        self.sealed.len() * CHUNK + self.open.len()
    }

    /// The hash at `seq`, if the log reaches it.
    pub(crate) fn get(&self, seq: usize) -> Option<&Hash32> {
        match self.sealed.get(seq / CHUNK) {
            Some(chunk) => chunk.get(seq % CHUNK),
            None => self.open.get(seq - self.sealed.len() * CHUNK),
        }
    }

    /// Appends `hash` at the next position.
    pub(crate) fn push(&mut self, hash: Hash32) {
        self.open.push(hash);
        if self.open.len() == CHUNK {
            let full = std::mem::replace(&mut self.open, Vec::with_capacity(CHUNK));
            self.sealed.push(Arc::from(full));
        }
    }

    /// Keeps the first `len` hashes.
    pub(crate) fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        let keep_sealed = len / CHUNK;
        if keep_sealed < self.sealed.len() {
            // The chunk the cut falls in becomes the open one again.
            let reopened = self.sealed[keep_sealed].to_vec();
            self.sealed.truncate(keep_sealed);
            self.open = reopened;
        }
        self.open.truncate(len - keep_sealed * CHUNK);
    }

    /// Every hash in order.
    fn iter(&self) -> impl Iterator<Item = &Hash32> {
        self.sealed
            .iter()
            .flat_map(|chunk| chunk.iter())
            .chain(self.open.iter())
    }
}

/// For tests: a log of given hashes, and logs compared as vectors are.
#[cfg(test)]
impl FromIterator<Hash32> for HashLog {
    fn from_iter<I: IntoIterator<Item = Hash32>>(hashes: I) -> Self {
        let mut log = HashLog::default();
        for hash in hashes {
            log.push(hash);
        }
        log
    }
}

#[cfg(test)]
impl PartialEq for HashLog {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

#[cfg(test)]
impl Eq for HashLog {}

impl Serialize for HashLog {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The length first, as a vector gives it (postcard needs it).
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for hash in self.iter() {
            seq.serialize_element(hash)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for HashLog {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Straight into the chunks: no vector of them all on the way.
        struct Hashes;
        impl<'de> serde::de::Visitor<'de> for Hashes {
            type Value = HashLog;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a sequence of hashes")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<HashLog, A::Error> {
                let mut log = HashLog::default();
                while let Some(hash) = seq.next_element::<Hash32>()? {
                    log.push(hash);
                }
                Ok(log)
            }
        }
        deserializer.deserialize_seq(Hashes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(i: usize) -> Hash32 {
        Hash32::of(&i.to_be_bytes())
    }

    /// The log answers as the vector it replaces, at every length around
    /// the chunk boundaries, through pushes, cuts and copies.
    #[test]
    fn a_log_answers_as_a_vector() {
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK, 3 * CHUNK + 5] {
            let plain: Vec<Hash32> = (0..n).map(hash).collect();
            let log: HashLog = plain.iter().copied().collect();
            assert_eq!(log.len(), n);
            for seq in 0..n + 2 {
                assert_eq!(log.get(seq), plain.get(seq), "n {n} seq {seq}");
            }
            for cut in [
                0,
                1,
                CHUNK - 1,
                CHUNK,
                CHUNK + 1,
                n.saturating_sub(1),
                n,
                n + 3,
            ] {
                let mut copy = log.clone();
                copy.truncate(cut);
                let expected = &plain[..cut.min(n)];
                assert_eq!(copy.len(), expected.len(), "n {n} cut {cut}");
                assert!(copy.iter().eq(expected.iter()), "n {n} cut {cut}");
                // A cut copy grows again as a vector would, and leaves the
                // log it was copied from as it was.
                copy.push(hash(1000));
                assert_eq!(copy.get(expected.len()), Some(&hash(1000)));
                assert!(log.iter().eq(plain.iter()));
            }
        }
    }

    /// Written as the vector of hashes was: a tip of an earlier build
    /// reads back, and a log reads back as itself.
    #[test]
    fn a_log_is_serialized_as_the_vector_was() {
        let plain: Vec<Hash32> = (0..CHUNK + 7).map(hash).collect();
        let log: HashLog = plain.iter().copied().collect();
        let as_vector = postcard::to_allocvec(&plain).unwrap();
        assert_eq!(postcard::to_allocvec(&log).unwrap(), as_vector);
        assert_eq!(postcard::from_bytes::<HashLog>(&as_vector).unwrap(), log);
    }
}
