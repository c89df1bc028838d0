//! One door for chance: how a game's rules ask for a die or a card.
//!
//! A game calls [`Chance::d6`], [`Chance::die`] or [`Chance::draw`] with a
//! short purpose ("attack of A on B") and gets a face or an index back. It
//! never sees hashes, keys or streams. Behind the door:
//!
//! - [`RecordingChance`] in play: takes values from a roll's outcome stream
//!   and records each as a [`ChanceRecord`], which goes into the record as
//!   evidence;
//! - [`ReplayChance`] when checking a record: recomputes every value from the
//!   stream and refuses any recorded outcome that differs (a changed face, a
//!   changed purpose, a missing or an extra outcome);
//! - [`PracticeChance`]: an open-seed stream for practice games, always
//!   reported as [`Assurance::Unverified`].
//!
//! Values are taken in the order the game asks for them, so an order the game
//! skips (its unit died) asks for nothing and consumes nothing.

use thiserror::Error;

use super::dice;
use super::draw;
use super::encoding::{
    Blob, Canonical, DecodeError, Decoder, Encoder, List, MAX_LIST_LEN, Text, ValueError,
};
use super::game_id::GameId;
use super::outcome::{Assurance, ByteSource, PracticeStream, SampleError};

/// One chance value as the record stores it.
///
/// Canonical bytes: `purpose (text) || kind u8 || fields`, where kind 0 is a
/// die (`sides u16 || face u16`) and kind 1 a draw
/// (`remaining u32 || index u32`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChanceRecord {
    /// What the game asked for it for.
    pub purpose: Text,
    /// The value.
    pub result: ChanceResult,
}

/// A die face or a drawn index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChanceResult {
    /// A die with `sides` sides showed `face` (1-based).
    Die {
        /// The number of sides.
        sides: u16,
        /// The face shown.
        face: u16,
    },
    /// Entry `index` (0-based) of `remaining` cards in canonical order.
    Draw {
        /// How many cards remained.
        remaining: u32,
        /// The index drawn.
        index: u32,
    },
}

/// In words, for reports: "a d6 showing 5", "entry 3 of 40 drawn".
impl std::fmt::Display for ChanceResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChanceResult::Die { sides, face } => write!(f, "a d{sides} showing {face}"),
            ChanceResult::Draw { remaining, index } => {
                write!(f, "entry {index} (from 0) of {remaining} drawn")
            }
        }
    }
}

impl Canonical for ChanceRecord {
    fn encode(&self, enc: &mut Encoder) {
        enc.text(&self.purpose);
        match self.result {
            ChanceResult::Die { sides, face } => enc.u8(0).u16(sides).u16(face),
            ChanceResult::Draw { remaining, index } => enc.u8(1).u32(remaining).u32(index),
        };
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let purpose = dec.text("chance purpose")?;
        let result = match dec.kind("chance kind", 2)? {
            0 => ChanceResult::Die {
                sides: dec.u16("die sides")?,
                face: dec.u16("die face")?,
            },
            _ => ChanceResult::Draw {
                remaining: dec.u32("cards remaining")?,
                index: dec.u32("card index")?,
            },
        };
        Ok(ChanceRecord { purpose, result })
    }
}

/// Why the door for chance refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChanceError {
    /// The value could not be sampled (bad request, exhausted stream).
    #[error(transparent)]
    Sample(#[from] SampleError),
    /// The purpose text is too long to record.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// More values than a record can hold for one roll.
    #[error("more than {MAX_LIST_LEN} chance values in one roll")]
    TooManyValues,
    /// Replay: the game asked for a value the record does not have.
    #[error("outcome #{position} ({purpose}) is missing from the record")]
    Missing {
        /// Its position in the roll, from 0.
        position: usize,
        /// What the game asked for.
        purpose: String,
    },
    /// Replay: the recorded outcome is for another purpose.
    #[error("outcome #{position} is recorded for {recorded:?}, but the game asked for {asked:?}")]
    PurposeMismatch {
        /// Its position.
        position: usize,
        /// The recorded purpose.
        recorded: String,
        /// The purpose asked.
        asked: String,
    },
    /// Replay: the recorded outcome differs from the recomputed one (a
    /// changed face, or a die recorded where a draw was asked).
    #[error("outcome #{position} is recorded as {recorded} but the evidence gives {computed}")]
    Mismatch {
        /// Its position.
        position: usize,
        /// What the record says.
        recorded: ChanceResult,
        /// What the evidence gives.
        computed: ChanceResult,
    },
    /// Replay: the record holds outcomes the game never asked for.
    #[error("{count} recorded outcome(s) from #{position} were never used")]
    Unused {
        /// The first unused position.
        position: usize,
        /// How many.
        count: usize,
    },
}

/// The door through which games ask for chance.
pub trait Chance {
    /// One roll of a die with `sides` sides (2 to 256), face `1..=sides`.
    fn die(&mut self, purpose: &str, sides: u16) -> Result<u16, ChanceError>;

    /// One uniform index into `remaining` cards given in the game's canonical
    /// order (duplicates included): `0..remaining`.
    fn draw(&mut self, purpose: &str, remaining: usize) -> Result<usize, ChanceError>;

    /// How far the values can be trusted, for reports.
    fn assurance(&self) -> Assurance;

    /// One six-sided die, face `1..=6`.
    fn d6(&mut self, purpose: &str) -> Result<u8, ChanceError> {
        let face = self.die(purpose, 6)?;
        u8::try_from(face)
            .ok()
            .filter(|f| (1..=6).contains(f))
            .ok_or(ChanceError::Sample(SampleError::InvalidSides { sides: 6 }))
    }
}

/// One die roll from `source`, with its record form.
fn sample_die(
    source: &mut impl ByteSource,
    sides: u16,
) -> Result<(u16, ChanceResult), ChanceError> {
    let face = dice::die(source, sides)?;
    Ok((face, ChanceResult::Die { sides, face }))
}

/// One draw from `source`, with its record form.
fn sample_draw(
    source: &mut impl ByteSource,
    count: usize,
) -> Result<(usize, ChanceResult), ChanceError> {
    let too_many = SampleError::TooManyCards { count };
    let remaining = u32::try_from(count).map_err(|_| too_many)?;
    let index = draw::uniform_index(source, count)?;
    // index < remaining <= u32::MAX, so the conversion cannot fail.
    let record = ChanceResult::Draw {
        remaining,
        index: u32::try_from(index).map_err(|_| too_many)?,
    };
    Ok((index, record))
}

/// Play: values from a stream, each one recorded as evidence.
#[derive(Debug, Clone)]
pub struct RecordingChance<S> {
    source: S,
    records: Vec<ChanceRecord>,
}

impl<S: ByteSource> RecordingChance<S> {
    /// Values from `source` (a roll's outcome stream).
    pub fn new(source: S) -> Self {
        RecordingChance {
            source,
            records: Vec::new(),
        }
    }

    /// The values given so far, in order.
    pub fn records(&self) -> &[ChanceRecord] {
        &self.records
    }

    /// The values given, for the record.
    pub fn into_records(self) -> List<ChanceRecord> {
        // `give` refuses past MAX_LIST_LEN, so this always fits.
        List::new(self.records).unwrap_or_default()
    }

    /// Checks that one more value can be recorded, before any byte is used.
    fn purpose(&self, purpose: &str) -> Result<Text, ChanceError> {
        if self.records.len() >= MAX_LIST_LEN {
            return Err(ChanceError::TooManyValues);
        }
        Ok(Text::new(purpose)?)
    }
}

impl<S: ByteSource> Chance for RecordingChance<S> {
    fn die(&mut self, purpose: &str, sides: u16) -> Result<u16, ChanceError> {
        let purpose = self.purpose(purpose)?;
        let (face, result) = sample_die(&mut self.source, sides)?;
        self.records.push(ChanceRecord { purpose, result });
        Ok(face)
    }
    fn draw(&mut self, purpose: &str, remaining: usize) -> Result<usize, ChanceError> {
        let purpose = self.purpose(purpose)?;
        let (index, result) = sample_draw(&mut self.source, remaining)?;
        self.records.push(ChanceRecord { purpose, result });
        Ok(index)
    }
    fn assurance(&self) -> Assurance {
        self.source.assurance()
    }
}

/// Replay: every value is recomputed from the stream and must equal the
/// recorded one, with the same purpose, in the same order.
#[derive(Debug, Clone)]
pub struct ReplayChance<'r, S> {
    source: S,
    records: &'r [ChanceRecord],
    next: usize,
}

impl<'r, S: ByteSource> ReplayChance<'r, S> {
    /// Checks the recorded `records` against `source`.
    pub fn new(source: S, records: &'r [ChanceRecord]) -> Self {
        ReplayChance {
            source,
            records,
            next: 0,
        }
    }

    /// Succeeds when the game used every recorded value.
    pub fn finish(&self) -> Result<(), ChanceError> {
        match self.records.len().saturating_sub(self.next) {
            0 => Ok(()),
            count => Err(ChanceError::Unused {
                position: self.next,
                count,
            }),
        }
    }

    /// The recorded value for the next request, if its purpose matches.
    fn recorded_for(&self, purpose: &str) -> Result<&'r ChanceRecord, ChanceError> {
        let position = self.next;
        let recorded = self
            .records
            .get(position)
            .ok_or_else(|| ChanceError::Missing {
                position,
                purpose: purpose.to_owned(),
            })?;
        if recorded.purpose.as_str() != purpose {
            return Err(ChanceError::PurposeMismatch {
                position,
                recorded: recorded.purpose.as_str().to_owned(),
                asked: purpose.to_owned(),
            });
        }
        Ok(recorded)
    }

    /// Accepts the recomputed value if it equals the recorded one.
    fn compare(
        &mut self,
        recorded: &ChanceRecord,
        computed: ChanceResult,
    ) -> Result<(), ChanceError> {
        if computed != recorded.result {
            return Err(ChanceError::Mismatch {
                position: self.next,
                recorded: recorded.result,
                computed,
            });
        }
        self.next += 1;
        Ok(())
    }
}

impl<S: ByteSource> Chance for ReplayChance<'_, S> {
    fn die(&mut self, purpose: &str, sides: u16) -> Result<u16, ChanceError> {
        let recorded = self.recorded_for(purpose)?;
        let (face, computed) = sample_die(&mut self.source, sides)?;
        self.compare(recorded, computed)?;
        Ok(face)
    }
    fn draw(&mut self, purpose: &str, remaining: usize) -> Result<usize, ChanceError> {
        let recorded = self.recorded_for(purpose)?;
        let (index, computed) = sample_draw(&mut self.source, remaining)?;
        self.compare(recorded, computed)?;
        Ok(index)
    }
    fn assurance(&self) -> Assurance {
        self.source.assurance()
    }
}

/// Practice: values from an open seed, recorded like play but always
/// [`Assurance::Unverified`]: whoever chose the seed could have chosen the
/// outcomes. Replay a practice game with a [`ReplayChance`] over a
/// [`PracticeStream`].
#[derive(Debug, Clone)]
pub struct PracticeChance {
    inner: RecordingChance<PracticeStream>,
}

impl PracticeChance {
    /// Practice values for `game` from the open `seed`.
    pub fn new(game: &GameId, seed: &Blob) -> Self {
        PracticeChance {
            inner: RecordingChance::new(PracticeStream::new(game, seed)),
        }
    }

    /// The values given so far.
    pub fn records(&self) -> &[ChanceRecord] {
        self.inner.records()
    }

    /// The values given, for the record; drains them so that each turn's
    /// evidence holds its own values while the stream goes on.
    pub fn take_records(&mut self) -> List<ChanceRecord> {
        List::new(std::mem::take(&mut self.inner.records)).unwrap_or_default()
    }
}

impl Chance for PracticeChance {
    fn die(&mut self, purpose: &str, sides: u16) -> Result<u16, ChanceError> {
        self.inner.die(purpose, sides)
    }
    fn draw(&mut self, purpose: &str, remaining: usize) -> Result<usize, ChanceError> {
        self.inner.draw(purpose, remaining)
    }
    fn assurance(&self) -> Assurance {
        Assurance::Unverified
    }
}

super::encoding::serde_as_canonical!(ChanceRecord);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair_play::roll::tests::Table;

    /// A toy game rule: an attack rolls one d6 per attacker that is still
    /// alive, then draws a card from what is left.
    fn resolve(
        chance: &mut impl Chance,
        attackers_alive: &[bool],
    ) -> Result<(Vec<u8>, usize), ChanceError> {
        let mut faces = Vec::new();
        for (i, alive) in attackers_alive.iter().enumerate() {
            if *alive {
                faces.push(chance.d6(&format!("attacker {i}"))?);
            }
        }
        let card = chance.draw("reinforcement", 5)?;
        Ok((faces, card))
    }

    #[test]
    fn replay_accepts_exactly_what_play_recorded() {
        let mut t = Table::new();
        let roll = t.play(0, 0);
        let mut play = RecordingChance::new(roll.stream(&t.game));
        let played = resolve(&mut play, &[true, false, true]).unwrap();
        assert_eq!(play.assurance(), Assurance::Verified);
        let records = play.into_records();
        assert_eq!(records.len(), 3);
        let mut replay = ReplayChance::new(roll.stream(&t.game), &records);
        assert_eq!(resolve(&mut replay, &[true, false, true]).unwrap(), played);
        assert_eq!(replay.finish(), Ok(()));
    }

    #[test]
    fn a_skipped_order_consumes_no_die() {
        let mut t = Table::new();
        let roll = t.play(0, 0);
        let mut all = RecordingChance::new(roll.stream(&t.game));
        resolve(&mut all, &[true, true]).unwrap();
        let mut skipped = RecordingChance::new(roll.stream(&t.game));
        resolve(&mut skipped, &[false, true]).unwrap();
        // With attacker 0 dead, attacker 1 gets the first die of the stream.
        assert_eq!(skipped.records()[0].result, all.records()[0].result);
    }

    #[test]
    fn a_changed_face_purpose_or_count_is_refused() {
        let mut t = Table::new();
        let roll = t.play(0, 0);
        let mut play = RecordingChance::new(roll.stream(&t.game));
        resolve(&mut play, &[true, true]).unwrap();
        let records = play.into_records().into_vec();

        let mut changed = records.clone();
        let ChanceResult::Die { face, .. } = changed[1].result else {
            panic!("a die")
        };
        changed[1].result = ChanceResult::Die {
            sides: 6,
            face: face % 6 + 1,
        };
        let mut replay = ReplayChance::new(roll.stream(&t.game), &changed);
        assert!(matches!(
            resolve(&mut replay, &[true, true]),
            Err(ChanceError::Mismatch { position: 1, .. })
        ));

        let mut renamed = records.clone();
        renamed[0].purpose = Text::new("attacker 9").unwrap();
        let mut replay = ReplayChance::new(roll.stream(&t.game), &renamed);
        assert!(matches!(
            resolve(&mut replay, &[true, true]),
            Err(ChanceError::PurposeMismatch { position: 0, .. })
        ));

        let mut replay = ReplayChance::new(roll.stream(&t.game), &records[..2]);
        assert!(matches!(
            resolve(&mut replay, &[true, true]),
            Err(ChanceError::Missing { position: 2, .. })
        ));

        let mut replay = ReplayChance::new(roll.stream(&t.game), &records);
        resolve(&mut replay, &[false, true]).unwrap_err();
        let mut replay = ReplayChance::new(roll.stream(&t.game), &records);
        let _ = replay.d6("attacker 0").unwrap();
        assert_eq!(
            replay.finish(),
            Err(ChanceError::Unused {
                position: 1,
                count: 2
            })
        );
    }

    #[test]
    fn practice_is_reproducible_and_unverified() {
        let game = GameId::new("solo-1").unwrap();
        let seed = Blob::new(b"open seed".to_vec()).unwrap();
        let mut practice = PracticeChance::new(&game, &seed);
        assert_eq!(practice.assurance(), Assurance::Unverified);
        let played = resolve(&mut practice, &[true]).unwrap();
        let records = practice.take_records();
        assert!(practice.records().is_empty());
        let mut replay = ReplayChance::new(PracticeStream::new(&game, &seed), &records);
        assert_eq!(replay.assurance(), Assurance::Unverified);
        assert_eq!(resolve(&mut replay, &[true]).unwrap(), played);
    }

    #[test]
    fn records_round_trip() {
        let record = ChanceRecord {
            purpose: Text::new("attack").unwrap(),
            result: ChanceResult::Draw {
                remaining: 40,
                index: 17,
            },
        };
        assert_eq!(
            ChanceRecord::from_canonical_bytes(&record.to_canonical_bytes()),
            Ok(record)
        );
    }
}
