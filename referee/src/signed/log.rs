//! A replay's history: its events, and the game as it stood after each.
//!
//! A replay keeps every event it accepted and the game after each (for a
//! take-back to it, and the move number it stood at). Restored from a
//! stored game's tip ([`super::Tip`]), that history is the bulk of the
//! tip, and most turns ask for little of it: the count, the last event,
//! the game after the last move. So a restored history stays as the tip's
//! bytes, shared by every copy of the replay, and an event or a game state
//! is decoded when it is first asked for (then kept); what a replay
//! accepts after it is kept decoded, as before. A copy of a replay shares
//! the old part instead of copying every event.
//!
//! The old part's bytes are the canonical bytes of each event (section 5
//! of `docs/fair-play.md`) and the postcard bytes of each game state, as
//! the tip holds them, undamaged (its seal). An event that does not decode
//! all the same (a tip crafted with a right seal) is absent: no panic.
//!
//! They are not copied out of the tip: a history restored while the tip's
//! buffer is `restoring` keeps that buffer and where each part lies in
//! it. At ply 300 the events and states are most of a 100 to 190 kB tip,
//! and a copy of them was that many fresh pages, each a page fault (the
//! largest part of what a turn's cost grew by; `docs/performance.md`).

use std::cell::{OnceCell, RefCell};
use std::ops::Range;
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::fair_play::encoding::Canonical;
use crate::fair_play::turn::SignedEvent;
use crate::replay::GameReplay;

/// The events a replay accepted, in order; see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct EventLog {
    saved: Option<Arc<SavedEvents>>,
    tail: Vec<SignedEvent>,
}

/// Bytes a restored history shares: the tip as it was read, kept whole
/// while any part of it is still asked for.
pub type SharedBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// Parts of one shared buffer: where each lies in it.
struct Parts {
    base: SharedBytes,
    spans: Box<[(usize, usize)]>,
}

impl Parts {
    fn len(&self) -> usize {
        self.spans.len()
    }

    fn get(&self, i: usize) -> Option<&[u8]> {
        let &(start, end) = self.spans.get(i)?;
        (*self.base).as_ref().get(start..end)
    }
}

impl std::fmt::Debug for Parts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parts")
            .field("base_len", &(*self.base).as_ref().len())
            .field("parts", &self.spans.len())
            .finish()
    }
}

thread_local! {
    /// The buffer a history is being restored from ([`restoring`]).
    static RESTORING: RefCell<Option<SharedBytes>> = const { RefCell::new(None) };
}

/// Runs `read` (a deserialisation of a replay from `buffer`'s bytes) so
/// that the histories it reads share `buffer` instead of copying their
/// parts out of it. Why a thread's context and not an argument: serde's
/// derived `Deserialize` passes none down to a field. Parts not borrowed
/// from `buffer` (another format, another buffer) are copied as before.
pub(super) fn restoring<T>(buffer: &SharedBytes, read: impl FnOnce() -> T) -> T {
    struct Reset(Option<SharedBytes>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let before = self.0.take();
            RESTORING.with(|r| *r.borrow_mut() = before);
        }
    }
    let before = RESTORING.with(|r| r.borrow_mut().replace(Arc::clone(buffer)));
    let _reset = Reset(before);
    read()
}

/// `parts` as [`Parts`]: spans of the buffer being [`restoring`] when
/// every one is borrowed from it, else copied into a buffer of their own.
fn shared_parts(parts: &[ByteString<'_>]) -> Parts {
    let base = RESTORING.with(|r| r.borrow().clone());
    if let Some(base) = base {
        let whole = (*base).as_ref();
        let from = whole.as_ptr() as usize;
        let span = |part: &ByteString<'_>| match &part.0 {
            std::borrow::Cow::Borrowed(bytes) => {
                let start = (bytes.as_ptr() as usize).checked_sub(from)?;
                let end = start.checked_add(bytes.len())?;
                (end <= whole.len()).then_some((start, end))
            }
            std::borrow::Cow::Owned(_) => None,
        };
        // One allocation of the final size: collected into an `Option`,
        // the spans grew by doubling (nine allocations for a siege's 368
        // events, about twice the bytes).
        let mut spans = Vec::with_capacity(parts.len());
        for part in parts {
            match span(part) {
                Some(s) => spans.push(s),
                None => break,
            }
        }
        if spans.len() == parts.len() {
            return Parts {
                base,
                spans: spans.into_boxed_slice(),
            };
        }
    }
    let mut bytes = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    let mut spans = Vec::with_capacity(parts.len());
    for part in parts {
        let start = bytes.len();
        bytes.extend_from_slice(&part.0);
        spans.push((start, bytes.len()));
    }
    Parts {
        base: Arc::new(bytes),
        spans: spans.into_boxed_slice(),
    }
}

#[derive(Debug)]
struct SavedEvents {
    /// Each event's canonical bytes.
    parts: Parts,
    /// Each event once decoded. Boxed: a cell of an event not asked for
    /// is 16 bytes, where an inline `SignedEvent` (about 900 bytes) made
    /// the table of a 300-event game 279 kB, every page of it written
    /// (and faulted in) at restore.
    decoded: Box<[OnceLock<Option<Box<SignedEvent>>>]>,
}

impl SavedEvents {
    fn get(&self, i: usize) -> Option<&SignedEvent> {
        let cell = self.decoded.get(i)?;
        cell.get_or_init(|| {
            let bytes = self.parts.get(i)?;
            SignedEvent::from_canonical_bytes(bytes).ok().map(Box::new)
        })
        .as_deref()
    }
}

impl EventLog {
    /// An empty log.
    pub fn new() -> Self {
        EventLog::default()
    }

    fn saved_len(&self) -> usize {
        self.saved.as_ref().map_or(0, |s| s.parts.len())
    }

    /// How many events.
    pub fn len(&self) -> usize {
        self.saved_len() + self.tail.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The event at position `i`.
    pub fn get(&self, i: usize) -> Option<&SignedEvent> {
        let saved = self.saved_len();
        match i.checked_sub(saved) {
            Some(t) => self.tail.get(t),
            None => self.saved.as_ref()?.get(i),
        }
    }

    /// The first event.
    pub fn first(&self) -> Option<&SignedEvent> {
        self.get(0)
    }

    /// The last event.
    pub fn last(&self) -> Option<&SignedEvent> {
        self.get(self.len().checked_sub(1)?)
    }

    /// The events in order (each decoded as it is reached).
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &SignedEvent> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The events at the positions `range` (clamped to the log), copied.
    pub fn slice(&self, range: Range<usize>) -> Vec<SignedEvent> {
        let end = range.end.min(self.len());
        (range.start.min(end)..end)
            .filter_map(|i| self.get(i))
            .cloned()
            .collect()
    }

    /// Every event as a slice: borrowed when none is an old one still
    /// kept as bytes (a replay made from a text), else copied.
    pub fn all(&self) -> std::borrow::Cow<'_, [SignedEvent]> {
        match self.saved {
            None => std::borrow::Cow::Borrowed(&self.tail),
            Some(_) => std::borrow::Cow::Owned(self.to_vec()),
        }
    }

    /// Every event, copied.
    pub fn to_vec(&self) -> Vec<SignedEvent> {
        self.iter().cloned().collect()
    }

    /// The 64-byte signature of the event at `i`, read from its bytes
    /// without decoding it when it is an old one (a checkpoint's seal
    /// covers every signature: `super::Checkpoint`).
    pub fn signature_bytes(&self, i: usize) -> Option<[u8; 64]> {
        let saved = self.saved_len();
        match i.checked_sub(saved) {
            Some(t) => self.tail.get(t).map(|e| e.signature.to_bytes()),
            None => {
                let bytes = self.saved.as_ref()?.parts.get(i)?;
                bytes.last_chunk::<64>().copied()
            }
        }
    }

    /// Appends an event.
    pub fn push(&mut self, event: SignedEvent) {
        self.tail.push(event);
    }
}

impl<'a> IntoIterator for &'a EventLog {
    type Item = &'a SignedEvent;
    type IntoIter = Box<dyn DoubleEndedIterator<Item = &'a SignedEvent> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl PartialEq for EventLog {
    fn eq(&self, other: &EventLog) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl PartialEq<[SignedEvent]> for EventLog {
    fn eq(&self, other: &[SignedEvent]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Serialize for EventLog {
    /// Each event's canonical bytes, the old ones as they were read.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        if let Some(saved) = &self.saved {
            for i in 0..saved.parts.len() {
                seq.serialize_element(&Bytes(saved.parts.get(i).unwrap_or_default()))?;
            }
        }
        for event in &self.tail {
            seq.serialize_element(&Bytes(&event.to_canonical_bytes()))?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for EventLog {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = deserializer.deserialize_seq(ByteStrings)?;
        let saved = (parts.len() > 0).then(|| {
            let decoded = (0..parts.len()).map(|_| OnceLock::new()).collect();
            Arc::new(SavedEvents { parts, decoded })
        });
        Ok(EventLog {
            saved,
            tail: Vec::new(),
        })
    }
}

/// A byte string for serde (a plain `&[u8]` is a sequence of numbers).
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// Reads a sequence of byte strings as [`Parts`].
struct ByteStrings;

impl<'de> Visitor<'de> for ByteStrings {
    type Value = Parts;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence of byte strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(part) = seq.next_element::<ByteString>()? {
            parts.push(part);
        }
        Ok(shared_parts(&parts))
    }
}

/// One byte string, borrowed when the format allows.
struct ByteString<'de>(std::borrow::Cow<'de, [u8]>);

impl<'de> Deserialize<'de> for ByteString<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ByteString<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_borrowed_bytes<E: serde::de::Error>(
                self,
                v: &'de [u8],
            ) -> Result<Self::Value, E> {
                Ok(ByteString(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
                Ok(ByteString(std::borrow::Cow::Owned(v.to_vec())))
            }
        }
        deserializer.deserialize_bytes(V)
    }
}

/// The game after each event, and the plies played by then; see the
/// module documentation. A state equal to the one before (an event that
/// changed nothing in the game) is shared with it.
#[derive(Debug, Clone, Default)]
pub(super) struct SnapshotLog {
    /// `Rc`, not `Arc`: game states are not `Send` (a replay stays on its
    /// thread), so neither is what holds them.
    saved: Option<Rc<SavedSnapshots>>,
    tail: Vec<Snapshot>,
}

/// The game after an event, and the plies played by then.
#[derive(Debug, Clone)]
pub(super) struct Snapshot {
    pub(super) game: Arc<dyn GameReplay>,
    pub(super) plies: u32,
}

#[derive(Debug)]
struct SavedSnapshots {
    /// Each distinct state's postcard bytes.
    states: Parts,
    /// For each snapshot: its plies, and the index of the state it has
    /// (the same as the one before when the game did not change).
    entries: Box<[(u32, usize)]>,
    decoded: Box<[OnceCell<Option<SharedGame>>]>,
}

/// A game state shared by the snapshots that have it.
type SharedGame = Arc<dyn GameReplay>;

impl SavedSnapshots {
    fn game(&self, state: usize) -> Option<Arc<dyn GameReplay>> {
        self.decoded
            .get(state)?
            .get_or_init(|| super::tip::restore_game(self.states.get(state)?))
            .clone()
    }
}

impl SnapshotLog {
    fn saved_len(&self) -> usize {
        self.saved.as_ref().map_or(0, |s| s.entries.len())
    }

    /// How many snapshots.
    pub(super) fn len(&self) -> usize {
        self.saved_len() + self.tail.len()
    }

    /// The snapshot after event `i`: the game (decoded when first asked
    /// for) and the plies.
    pub(super) fn get(&self, i: usize) -> Option<(Arc<dyn GameReplay>, u32)> {
        match i.checked_sub(self.saved_len()) {
            Some(t) => self.tail.get(t).map(|s| (Arc::clone(&s.game), s.plies)),
            None => {
                let saved = self.saved.as_ref()?;
                let (plies, state) = *saved.entries.get(i)?;
                Some((saved.game(state)?, plies))
            }
        }
    }

    /// Appends the snapshot after a new event: `game`, unless `changed` is
    /// false and there is a snapshot before it, whose game it shares.
    pub(super) fn push(&mut self, game: &dyn GameReplay, plies: u32, changed: bool) {
        let shared = if changed {
            None
        } else {
            match self.tail.last() {
                Some(last) => Some(Arc::clone(&last.game)),
                None => self
                    .len()
                    .checked_sub(1)
                    .and_then(|i| self.get(i))
                    .map(|(game, _)| game),
            }
        };
        let game = shared.unwrap_or_else(|| Arc::from(game.boxed_clone()));
        self.tail.push(Snapshot { game, plies });
    }
}

impl Serialize for SnapshotLog {
    /// A sequence of (plies, state): the state a byte string of the game's
    /// postcard bytes, or empty when it is the one before.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        if let Some(saved) = &self.saved {
            let mut last = None;
            for &(plies, state) in saved.entries.iter() {
                let bytes: &[u8] = if last == Some(state) {
                    &[]
                } else {
                    saved.states.get(state).unwrap_or_default()
                };
                last = Some(state);
                seq.serialize_element(&(plies, Bytes(bytes)))?;
            }
        }
        // The last old state, if it was decoded: a new snapshot may share it.
        let last_saved = self.saved.as_ref().and_then(|saved| {
            let &(_, state) = saved.entries.last()?;
            saved.decoded.get(state)?.get()?.clone()
        });
        let mut before: Option<&Arc<dyn GameReplay>> = last_saved.as_ref();
        for snapshot in &self.tail {
            let same = before
                .is_some_and(|b| std::ptr::addr_eq(Arc::as_ptr(b), Arc::as_ptr(&snapshot.game)));
            let bytes = if same {
                Vec::new()
            } else {
                super::tip::save_game_bytes(snapshot.game.as_ref())
                    .map_err(serde::ser::Error::custom)?
            };
            seq.serialize_element(&(snapshot.plies, Bytes(&bytes)))?;
            before = Some(&snapshot.game);
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for SnapshotLog {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SnapshotLog;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a replay's snapshots")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let hint = seq.size_hint().unwrap_or(0).min(1 << 16);
                let mut states = Vec::with_capacity(hint);
                let mut entries = Vec::with_capacity(hint);
                while let Some((plies, state)) = seq.next_element::<(u32, ByteString)>()? {
                    if !state.0.is_empty() {
                        states.push(state);
                    }
                    let Some(index) = states.len().checked_sub(1) else {
                        return Err(serde::de::Error::custom(
                            "the first snapshot shares no game",
                        ));
                    };
                    entries.push((plies, index));
                }
                if entries.is_empty() {
                    return Ok(SnapshotLog::default());
                }
                let decoded = states.iter().map(|_| OnceCell::new()).collect();
                Ok(SnapshotLog {
                    saved: Some(Rc::new(SavedSnapshots {
                        states: shared_parts(&states),
                        entries: entries.into_boxed_slice(),
                        decoded,
                    })),
                    tail: Vec::new(),
                })
            }
        }
        deserializer.deserialize_seq(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn borrowed(bytes: &[u8]) -> ByteString<'_> {
        ByteString(Cow::Borrowed(bytes))
    }

    #[test]
    fn parts_read_while_restoring_share_the_buffer_and_are_not_copied() {
        let buffer: SharedBytes = Arc::new(b"head:event-one;event-two;tail".to_vec());
        let whole = (*buffer).as_ref();
        let parts = restoring(&buffer, || {
            shared_parts(&[borrowed(&whole[5..14]), borrowed(&whole[15..24])])
        });
        assert!(Arc::ptr_eq(&parts.base, &buffer), "the tip's own buffer");
        assert_eq!(parts.get(0), Some(&b"event-one"[..]));
        assert_eq!(parts.get(1), Some(&b"event-two"[..]));
        assert_eq!(parts.get(2), None);
        // The context ends with the reading.
        assert!(RESTORING.with(|r| r.borrow().is_none()));
    }

    #[test]
    fn parts_from_elsewhere_are_copied_into_a_buffer_of_their_own() {
        let buffer: SharedBytes = Arc::new(b"event-one".to_vec());
        let elsewhere = b"event-two".to_vec();
        let whole = (*buffer).as_ref();
        for parts in [
            // Not while restoring.
            shared_parts(&[borrowed(whole)]),
            // One part borrowed from another buffer, one owned.
            restoring(&buffer, || {
                shared_parts(&[borrowed(whole), borrowed(&elsewhere)])
            }),
            restoring(&buffer, || {
                shared_parts(&[borrowed(whole), ByteString(Cow::Owned(elsewhere.clone()))])
            }),
        ] {
            assert!(!Arc::ptr_eq(&parts.base, &buffer));
            assert_eq!(parts.get(0), Some(&b"event-one"[..]));
        }
        let two = restoring(&buffer, || {
            shared_parts(&[borrowed(whole), borrowed(&elsewhere)])
        });
        assert_eq!(two.get(1), Some(&b"event-two"[..]));
    }
}
