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

use std::cell::OnceCell;
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

#[derive(Debug)]
struct SavedEvents {
    bytes: Box<[u8]>,
    /// Where each event's bytes end in `bytes` (each starts where the one
    /// before ends).
    ends: Box<[usize]>,
    /// Each event once decoded. Boxed: a cell of an event not asked for
    /// is 16 bytes, where an inline `SignedEvent` (about 900 bytes) made
    /// the table of a 300-event game 279 kB, every page of it written
    /// (and faulted in) at restore.
    decoded: Box<[OnceLock<Option<Box<SignedEvent>>>]>,
}

impl SavedEvents {
    fn range(&self, i: usize) -> Option<Range<usize>> {
        let end = *self.ends.get(i)?;
        let start = match i.checked_sub(1) {
            Some(before) => self.ends[before],
            None => 0,
        };
        Some(start..end)
    }

    fn get(&self, i: usize) -> Option<&SignedEvent> {
        let cell = self.decoded.get(i)?;
        cell.get_or_init(|| {
            let bytes = self.bytes.get(self.range(i)?)?;
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
        self.saved.as_ref().map_or(0, |s| s.ends.len())
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
                let s = self.saved.as_ref()?;
                let bytes = s.bytes.get(s.range(i)?)?;
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
            for i in 0..saved.ends.len() {
                let bytes = saved.range(i).and_then(|r| saved.bytes.get(r));
                seq.serialize_element(&Bytes(bytes.unwrap_or_default()))?;
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
        let (bytes, ends) = deserializer.deserialize_seq(Concatenated)?;
        let decoded = ends.iter().map(|_| OnceLock::new()).collect();
        let saved = (!ends.is_empty()).then(|| {
            Arc::new(SavedEvents {
                bytes,
                ends,
                decoded,
            })
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

/// The room reserved a saved event or state when a history is read back:
/// about what one takes (a Khan game's average 390 bytes an event and 370
/// a state), so that a long history is copied into its buffer once, not
/// moved at every doubling. Room not used costs nothing (pages never
/// touched).
const ROOM_PER_ITEM: usize = 512;

/// Reads a sequence of byte strings into one buffer and where each ends.
struct Concatenated;

impl<'de> Visitor<'de> for Concatenated {
    type Value = (Box<[u8]>, Box<[usize]>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence of byte strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let hint = seq.size_hint().unwrap_or(0).min(1 << 16);
        let mut bytes = Vec::with_capacity(hint * ROOM_PER_ITEM);
        let mut ends = Vec::with_capacity(hint);
        while let Some(part) = seq.next_element::<ByteString>()? {
            bytes.extend_from_slice(&part.0);
            ends.push(bytes.len());
        }
        Ok((bytes.into_boxed_slice(), ends.into_boxed_slice()))
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
    bytes: Box<[u8]>,
    /// For each snapshot: its plies, and the index of the state it has
    /// (the same as the one before when the game did not change).
    entries: Box<[(u32, usize)]>,
    /// Where each distinct state's bytes end in `bytes`.
    ends: Box<[usize]>,
    decoded: Box<[OnceCell<Option<SharedGame>>]>,
}

/// A game state shared by the snapshots that have it.
type SharedGame = Arc<dyn GameReplay>;

impl SavedSnapshots {
    fn game(&self, state: usize) -> Option<Arc<dyn GameReplay>> {
        self.decoded
            .get(state)?
            .get_or_init(|| {
                let end = *self.ends.get(state)?;
                let start = state.checked_sub(1).map_or(0, |b| self.ends[b]);
                let bytes = self.bytes.get(start..end)?;
                super::tip::restore_game(bytes)
            })
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
                    let end = saved.ends.get(state).copied().unwrap_or(0);
                    let start = state.checked_sub(1).map_or(0, |b| saved.ends[b]);
                    saved.bytes.get(start..end).unwrap_or_default()
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
                let mut bytes = Vec::with_capacity(hint * ROOM_PER_ITEM);
                let mut entries = Vec::with_capacity(hint);
                let mut ends: Vec<usize> = Vec::with_capacity(hint);
                while let Some((plies, state)) = seq.next_element::<(u32, ByteString)>()? {
                    if !state.0.is_empty() {
                        bytes.extend_from_slice(&state.0);
                        ends.push(bytes.len());
                    }
                    let Some(index) = ends.len().checked_sub(1) else {
                        return Err(serde::de::Error::custom(
                            "the first snapshot shares no game",
                        ));
                    };
                    entries.push((plies, index));
                }
                if entries.is_empty() {
                    return Ok(SnapshotLog::default());
                }
                let decoded = ends.iter().map(|_| OnceCell::new()).collect();
                Ok(SnapshotLog {
                    saved: Some(Rc::new(SavedSnapshots {
                        bytes: bytes.into_boxed_slice(),
                        entries: entries.into_boxed_slice(),
                        ends: ends.into_boxed_slice(),
                        decoded,
                    })),
                    tail: Vec::new(),
                })
            }
        }
        deserializer.deserialize_seq(V)
    }
}
