//! The tip of a stored game: its verified replay, kept beside its text so
//! that the next turn starts where the last one ended.
//!
//! A [`Checkpoint`](super::Checkpoint) spares a client the signatures it
//! verified before, but not the rest: reading a stored game still parsed
//! and replayed its whole record (rules, hash links, chains, outcomes), so a
//! turn at ply 300 cost several times a turn at ply 10. A [`Tip`] is the
//! replay itself, serialised, and bound to the exact bytes of the text it
//! is the replay of: the length and BLAKE3 hash of that text. A client that
//! reads the same bytes back restores the replay instead of making it
//! again, and only the text after those bytes (a turn mail's new events,
//! the hot-seat's next move) is parsed and walked
//! ([`Tip::restore`], [`replay_after`]).
//!
//! Trust: a tip is a cache a client writes of a replay it verified itself,
//! in a place only that client writes (the hot-seat's secrets, the desk's
//! and the robot's data directories). It is never sent and never evidence:
//! `yam verify`, `check` and `dispute` never read one. It is used only
//! when everything it is bound to still holds (the same text bytes, the
//! same version of this format, the same ruleset text as the replay was
//! made under, the replay's own record of it); anything else, a tip of
//! another build, a text edited by hand, a ruleset file changed beside the
//! game, a tip that does not decode, is no tip, and the record is replayed
//! whole as before. So a tip can make a turn cheaper, never change what a
//! record is found to be. `docs/fair-play.md`, 9.11, specifies the file.
//!
//! The serialised form is [postcard](https://docs.rs/postcard) over the
//! replay's own types; protocol values (events, keys, hashes, chain values)
//! are carried as their canonical bytes and read back by the canonical
//! decoder. The format is Yam's private cache format: a tip of another
//! [`Tip::VERSION`] is no tip.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::castle_siege::game_replay::CastleSiegeReplay;
use crate::genghis_khan::game_replay::GenghisKhanReplay;
use crate::khan::replay::KhanReplay;
use crate::replay::{GameReplay, RulesCatalog};

use super::SignedReplay;
use super::collect::{Collector, Item, SignedText};
use super::log::SharedBytes;
use super::prefix::PrefixDigest;
use super::verify::{Known, walk_after};

/// The magic bytes a tip starts with.
const MAGIC: &[u8; 8] = b"yam-tip\0";

/// A stored game's verified replay bound to the text it replays; see the
/// module documentation.
#[derive(Debug, Clone, Copy)]
pub struct Tip;

impl Tip {
    /// The version of the tip format this build writes and reads. Any
    /// change to a serialised type (a field added to a game state, say)
    /// must change it: a tip of another version is no tip. (2: the
    /// history kept as bytes, `signed::log`; builds of the same day wrote
    /// 1 with the history inline; 3: the text's hash and the seal are
    /// BLAKE3, not SHA-256; 4: the SHA-256 state of the text's first
    /// bytes up to the cut, `signed::prefix`; 5: the seal is XXH3-128,
    /// [`seal`]; 6: the replay keeps the events its take-backs undid and
    /// the verifier the latest hidden setup, for the take-back rules; 7:
    /// the same types, but offers lapse and claims are withdrawn when a
    /// party plays on, so a replay kept by a build of the same day that
    /// wrote 6 may hold offers and claims that have lapsed since; 8: any
    /// party's turn ends every open offer, which 7's builds left open
    /// after their author's own turns; 9: the replay keeps each open draw
    /// offer's position, since the oldest open offer is the one the game
    /// waits on; 10: the verifier keeps each offer's position and a
    /// take-back offer's target, since an accepted take-back ends the
    /// offers made in the line it undoes, and keeps only open offers; 11:
    /// the replay keeps no offers of its own, the verifier's list is the
    /// only one.)
    pub const VERSION: u32 = 11;

    /// The tip of `replay`, the verified replay of exactly `text`, whose
    /// [`Bounds`] are `bounds`: magic, version, the text's length and
    /// BLAKE3 hash, the bounds, the [`PrefixDigest`] of the text's whole
    /// SHA-256 blocks up to the cut, the replay, and last its [`seal`]
    /// (a tip damaged on disk is no tip).
    ///
    /// BLAKE3, not the protocol's SHA-256, for the binding: a tip is a
    /// private cache, never sent, and hashing the text and the tip is what
    /// grows with the game in a turn read from its tip; BLAKE3 is a
    /// cryptographic hash as collision-resistant for the binding, and
    /// about four times as fast here (7.8 GB/s against SHA-NI's 2.0 on the
    /// development machine).
    /// `None` for a game that keeps no tip (a test game of the referee's
    /// own).
    pub fn save(replay: &SignedReplay, text: &str, bounds: Bounds) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        match Tip::write(replay, text, bounds, None, &mut out) {
            Ok(Some(_)) => Some(out),
            _ => None,
        }
    }

    /// Writes to `out` the tip [`Tip::save`] makes, as it is made: the
    /// bytes go out in chunks and are hashed for the seal on the way, so a
    /// tip (100 to 190 kB at ply 300) is never held whole in memory, whose
    /// fresh pages were a page fault each at every turn. The digest of the
    /// text's first bytes it holds (for the next tip, `prior`), or
    /// `Ok(None)` when there is no tip (as `save`'s `None`): what was
    /// written then is no tip, and the caller discards it.
    ///
    /// `prior`, the digest of a text this one continues (the one restored
    /// with the tip this text was continued from), spares SHA-256 the
    /// bytes it covers, if it is one of this text's first bytes (checked
    /// by BLAKE3 on the pass that hashes the text anyway); any other is
    /// not used ([`PrefixDigest::hashing`]).
    pub fn write(
        replay: &SignedReplay,
        text: &str,
        bounds: Bounds,
        prior: Option<&PrefixDigest>,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<Option<PrefixDigest>> {
        if !bounds.hold(text) {
            return Ok(None);
        }
        let (text_hash, digest) = PrefixDigest::hashing(text.as_bytes(), bounds.cut, prior);
        let mut sealing = Sealing {
            out,
            hasher: xxhash_rust::xxh3::Xxh3Default::new(),
            pending: Vec::with_capacity(CHUNK),
            failed: None,
        };
        sealing.put(MAGIC)?;
        sealing.put(&Tip::VERSION.to_be_bytes())?;
        sealing.put(&(text.len() as u64).to_be_bytes())?;
        sealing.put(text_hash.as_bytes())?;
        sealing.put(&(bounds.movetext as u64).to_be_bytes())?;
        sealing.put(&(bounds.cut as u64).to_be_bytes())?;
        sealing.put(&digest.encode())?;
        if postcard::serialize_with_flavor(replay, &mut sealing).is_err() {
            return match sealing.failed.take() {
                Some(e) => Err(e),
                // The game keeps no tip.
                None => Ok(None),
            };
        }
        sealing.drain()?;
        let seal = sealing.hasher.digest128().to_be_bytes();
        sealing.out.write_all(&seal)?;
        sealing.out.flush()?;
        Ok(Some(digest))
    }

    /// The replay a tip holds, the bounds of its text and the digest of the
    /// text's first bytes, if the tip is one this build wrote of exactly
    /// `text`, undamaged, and the ruleset the replay was made under still
    /// has the text it had (`catalog` loads it as a whole replay would).
    /// Anything else is `None`: replay the record whole.
    ///
    /// The replay's history keeps `tip` and reads its old events and
    /// states from it when asked (`signed::log`), rather than copies.
    pub fn restore(
        tip: &SharedBytes,
        text: &str,
        catalog: &dyn RulesCatalog,
    ) -> Option<(SignedReplay, Bounds, PrefixDigest)> {
        let (sealed, stored) = (**tip).as_ref().split_last_chunk::<SEAL>()?;
        if seal(sealed) != *stored {
            return None;
        }
        let rest = sealed.strip_prefix(MAGIC)?;
        let (version, rest) = rest.split_first_chunk::<4>()?;
        if u32::from_be_bytes(*version) != Tip::VERSION {
            return None;
        }
        let (len, rest) = rest.split_first_chunk::<8>()?;
        if u64::from_be_bytes(*len) != text.len() as u64 {
            return None;
        }
        let (hash, rest) = rest.split_first_chunk::<32>()?;
        let (movetext, rest) = rest.split_first_chunk::<8>()?;
        let (cut, rest) = rest.split_first_chunk::<8>()?;
        let (digest, payload) = rest.split_first_chunk::<{ super::prefix::ENCODED }>()?;
        let bounds = Bounds {
            movetext: usize::try_from(u64::from_be_bytes(*movetext)).ok()?,
            cut: usize::try_from(u64::from_be_bytes(*cut)).ok()?,
        };
        // One pass of BLAKE3 over the text: the tip is of exactly this
        // text, and its digest of this text's first bytes, up to the cut.
        let mut digest = PrefixDigest::decode(digest);
        let (of_text, text_hash) = digest.check_keeping(text.as_bytes())?;
        if !of_text || text_hash != *hash || digest.len() > bounds.cut || !bounds.hold(text) {
            return None;
        }
        let replay: SignedReplay =
            super::log::restoring(tip, || postcard::from_bytes(payload)).ok()?;
        let ruleset = catalog
            .load_ruleset(replay.game().game(), replay.ruleset_name())
            .ok()?;
        (ruleset.hash() == *replay.ruleset_hash()).then_some((replay, bounds, digest))
    }
}

/// How many bytes a tip's [`seal`] is.
pub const SEAL: usize = 16;

/// The seal that ends a tip: XXH3-128 of every byte before it, big-endian.
///
/// The seal is there for damage on disk (a tip written over in place and
/// cut by a crash, or read while it is written), not for an adversary: the
/// tip is bound to its text by the BLAKE3 hash in its header, and whoever
/// can write the tip can compute any seal, a cryptographic one too (who
/// that is, and what it gives them: `docs/fair-play.md`, 9.11). A 128-bit
/// hash leaves a damaged tip one chance in 2^128 of passing. XXH3 rather
/// than BLAKE3 because the whole tip is sealed twice a turn (read, then
/// written), 114 kB each at ply 300 of a Khan game: 4.5 us against 18 us
/// each on the development machine.
pub fn seal(bytes: &[u8]) -> [u8; SEAL] {
    xxhash_rust::xxh3::xxh3_128(bytes).to_be_bytes()
}

/// How much of a tip [`Tip::write`] gathers before hashing and writing it.
const CHUNK: usize = 32 << 10;

/// A tip on its way out: bytes gathered into chunks, each hashed for the
/// seal and written.
struct Sealing<'w> {
    out: &'w mut dyn std::io::Write,
    hasher: xxhash_rust::xxh3::Xxh3Default,
    pending: Vec<u8>,
    /// Why writing failed, if it did (postcard's own error cannot say).
    failed: Option<std::io::Error>,
}

impl Sealing<'_> {
    fn drain(&mut self) -> std::io::Result<()> {
        self.hasher.update(&self.pending);
        self.out.write_all(&self.pending)?;
        self.pending.clear();
        Ok(())
    }

    fn put(&mut self, data: &[u8]) -> std::io::Result<()> {
        if self.pending.len() + data.len() > CHUNK {
            self.drain()?;
        }
        if data.len() > CHUNK {
            self.hasher.update(data);
            return self.out.write_all(data);
        }
        self.pending.extend_from_slice(data);
        Ok(())
    }
}

impl postcard::ser_flavors::Flavor for &mut Sealing<'_> {
    type Output = ();

    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.put(data).map_err(|e| {
            self.failed = Some(e);
            postcard::Error::SerializeBufferFull
        })
    }

    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.try_extend(&[data])
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// A game state as a tip carries it: which game, then its state.
#[derive(Debug, Serialize)]
pub enum SavedGame<'a> {
    /// Khan and its siege variants.
    Khan(&'a KhanReplay),
    /// Castle Siege.
    CastleSiege(&'a CastleSiegeReplay),
    /// Genghis Khan.
    GenghisKhan(&'a GenghisKhanReplay),
}

/// [`SavedGame`] read back: the same variants in the same order.
#[derive(Deserialize)]
enum RestoredGame {
    Khan(KhanReplay),
    CastleSiege(CastleSiegeReplay),
    GenghisKhan(GenghisKhanReplay),
}

impl RestoredGame {
    fn boxed(self) -> Box<dyn GameReplay> {
        match self {
            RestoredGame::Khan(g) => Box::new(g),
            RestoredGame::CastleSiege(g) => Box::new(g),
            RestoredGame::GenghisKhan(g) => Box::new(g),
        }
    }
}

fn save_game<S: Serializer>(game: &dyn GameReplay, serializer: S) -> Result<S::Ok, S::Error> {
    match game.saved() {
        Some(saved) => saved.serialize(serializer),
        None => Err(serde::ser::Error::custom("this game keeps no tip")),
    }
}

/// Serde for a replay's current game (`#[serde(with)]`).
pub(super) mod boxed_game {
    use super::*;

    // `serde(with)` hands the field as it is declared.
    #[allow(clippy::borrowed_box)]
    pub fn serialize<S: Serializer>(
        game: &Box<dyn GameReplay>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        save_game(game.as_ref(), serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Box<dyn GameReplay>, D::Error> {
        Ok(RestoredGame::deserialize(deserializer)?.boxed())
    }
}

/// A game state's bytes in a tip (postcard, the game named first).
pub(super) fn save_game_bytes(game: &dyn GameReplay) -> Result<Vec<u8>, String> {
    let saved = game.saved().ok_or("this game keeps no tip")?;
    postcard::to_allocvec(&saved).map_err(|e| e.to_string())
}

/// A game state read back from its bytes in a tip; `None` if they are not
/// one.
pub(super) fn restore_game(bytes: &[u8]) -> Option<Arc<dyn GameReplay>> {
    let game: RestoredGame = postcard::from_bytes(bytes).ok()?;
    Some(Arc::from(game.boxed()))
}

/// Where a verified record may be continued without being read again: the
/// byte offset where its movetext begins (`movetext`: the end of its last
/// tag pair; everything before it is the header) and the offset of the
/// `}` that closes the comment holding its last event (`cut`; after it
/// come only white space and the result). A record Yam writes after more
/// events is `text[..cut]`, then the new events (joining that comment, as
/// an event without moves does, or after it), then the result: the writer
/// fills lines greedily, so what it printed before `cut` does not change
/// (`docs/fair-play.md`, 9.11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounds {
    /// Where the movetext begins (the header ends).
    pub movetext: usize,
    /// Where the comment holding the last event closes.
    pub cut: usize,
}

impl Bounds {
    /// The bounds of `text`, whose signed view (read from exactly this
    /// text) is `signed`; `None` unless its last item is an event in a
    /// comment closed right before the white space and the result.
    pub fn of(text: &str, signed: &SignedText) -> Option<Bounds> {
        if !matches!(signed.items.last(), Some(Item::Event { .. })) {
            return None;
        }
        let last_tag = signed.tags.last()?.span;
        let movetext = usize::try_from(last_tag.start.offset + u64::from(last_tag.len)).ok()?;
        let result = usize::try_from(signed.result_span.start.offset).ok()?;
        let bounds = Bounds {
            movetext,
            cut: text.get(..result)?.trim_end().len().checked_sub(1)?,
        };
        bounds.hold(text).then_some(bounds)
    }

    /// The bounds of `text`, a record Yam printed by appending events to a
    /// text whose movetext began at `movetext` (its last item is the last
    /// event appended): the `}` before the white space and the result.
    pub fn after_append(text: &str, movetext: usize) -> Option<Bounds> {
        let body = text.trim_end();
        let result = body.rsplit(char::is_whitespace).next()?;
        let before = body[..body.len() - result.len()].trim_end();
        let bounds = Bounds {
            movetext,
            cut: before.len().checked_sub(1)?,
        };
        bounds.hold(text).then_some(bounds)
    }

    /// What `text` holds after these bounds, as one game to read: its
    /// header, a blank line, and the rest of the comment cut at `cut`
    /// opened anew. Both the walk of a continued text
    /// ([`replay_after`]) and a reader of its new prose read this, so
    /// they read the same new part. `None` if the bounds fall outside
    /// `text` or inside a character.
    pub fn new_part(&self, text: &str) -> Option<String> {
        let header = text.get(..self.movetext)?;
        let rest = text.get(self.cut..)?;
        let mut part = String::with_capacity(header.len() + 3 + rest.len());
        part.push_str(header);
        part.push_str("\n\n{");
        part.push_str(rest);
        Some(part)
    }

    /// Whether these bounds can be those of `text`: the header ends with a
    /// tag pair, `cut` is a `}`, and after it come only white space and a
    /// result token. (A tip's bounds are bound to its text by its hash;
    /// this guards against a client's mistake.)
    pub fn hold(&self, text: &str) -> bool {
        let (Some(header), Some(rest)) = (text.get(..self.movetext), text.get(self.cut..)) else {
            return false;
        };
        let Some(after) = rest.strip_prefix('}') else {
            return false;
        };
        self.movetext < self.cut
            && header.ends_with(']')
            && after.starts_with(char::is_whitespace)
            && RESULTS.contains(&after.trim())
    }
}

/// The result tokens a record ends with.
const RESULTS: [&str; 4] = ["*", "1-0", "0-1", "1/2-1/2"];

/// What [`replay_after`] found.
#[derive(Debug)]
pub enum After {
    /// The text continues the prefix: its replay, and its own bounds if it
    /// can be continued in turn.
    Replayed {
        /// The text's replay, the one a whole replay gives.
        replay: Box<SignedReplay>,
        /// Where it may be continued.
        bounds: Option<Bounds>,
    },
    /// Not a continuation of the prefix, or its new part failed: replay the
    /// text whole, for the verdict and for where a failure is.
    Whole,
}

/// The replay of `text`, a record whose first bytes are `prefix[..bounds.cut]`,
/// where `before` is the verified replay of `prefix` and `bounds` its
/// bounds (a [`Tip`] restored, or a text this process verified). Only the
/// header and what follows `bounds.cut` are read and walked, from a copy
/// of `before`; the header and the result are checked as for a whole
/// record.
///
/// Why the answer is the whole replay's: the prefix's last comment ends,
/// up to `cut`, with its last event (the one command a `[%chance]` after
/// it could not belong to), so the items of `text` are those of `prefix`
/// followed by those of what comes after `cut`, read as a comment of its
/// own (`{` and the rest); and a replay is a function of its items. Anything
/// that is not such a continuation, or whose new part fails, is
/// [`After::Whole`].
pub fn replay_after(
    text: &str,
    prefix: &str,
    bounds: Bounds,
    before: &SignedReplay,
    known: Known<'_>,
) -> After {
    let Some(verified) = prefix.get(..bounds.cut) else {
        return After::Whole;
    };
    if !bounds.hold(prefix) || !text.starts_with(verified) {
        return After::Whole;
    }
    walk_new_part(text, bounds, before, known)
}

/// As [`replay_after`], for the record `appended` made in place from the
/// text `before` is the verified replay of
/// ([`super::write::append_verified_in_place`]): its first `cut` bytes
/// are that text's own, so there is no prefix to compare (it is no longer
/// at hand). Only the new part is read and walked.
pub fn replay_continued(
    text: &str,
    appended: &super::write::AppendedInPlace,
    before: &SignedReplay,
    known: Known<'_>,
) -> After {
    walk_new_part(text, appended.bounds(), before, known)
}

/// Whether the reader stands at `cut` in `text` (a comment's closing brace)
/// as it stands right after a comment's `{`, so that what follows `cut`
/// reads the same in `text` and as a comment opened anew
/// ([`Bounds::new_part`]). Two bytes before the brace would carry over:
/// a line end (a line inside a comment that starts like a tag pair, `[`
/// and a letter, ends the comment's game) and a `[` (with a `%` after it,
/// the start of a command). Yam's printer leaves neither there (it writes
/// a prose `[` as `\[`, and the brace ends the comment's last word); a
/// text laid out by hand may, and is read whole. Asked here, where both
/// kinds of continuation walk a new part, rather than in
/// [`Bounds::hold`]: such bounds still say where the verified part ends,
/// and its tip still restores the replay for every command that does not
/// continue the text.
fn fresh_at(text: &str, cut: usize) -> bool {
    cut.checked_sub(1)
        .and_then(|i| text.as_bytes().get(i))
        .is_some_and(|b| !matches!(b, b'\n' | b'['))
}

/// The replay of `text`, whose first `bounds.cut` bytes are those of the
/// text `before` is the replay of: only its new part read and walked.
fn walk_new_part(text: &str, bounds: Bounds, before: &SignedReplay, known: Known<'_>) -> After {
    // A text too long for a whole reading is refused there; its new part
    // alone could be short enough to read.
    if text.len() as u64 > yam_notation::DEFAULT_MAX_GAME {
        return After::Whole;
    }
    if !fresh_at(text, bounds.cut) {
        return After::Whole;
    }
    // `text` starts with the verified prefix, so its header is the prefix's.
    let Some(fragment) = bounds.new_part(text) else {
        return After::Whole;
    };
    let mut reader = yam_notation::Reader::new(fragment.as_bytes());
    let mut collector = Collector::new();
    let view = match reader.read_game(&mut collector) {
        Ok(Some(view)) => view,
        _ => return After::Whole,
    };
    if !matches!(reader.read_game(&mut collector), Ok(None)) {
        return After::Whole;
    }
    match walk_after(&view, known, before) {
        Ok(replay) => {
            if view.items.is_empty() {
                // Nothing new: the last event is still the prefix's, so the
                // bounds are the whole reading's (`Bounds::of`): the last
                // brace before the result, wherever new prose moved it.
                let bounds = Bounds::after_append(text, bounds.movetext);
                return After::Replayed {
                    replay: Box::new(replay),
                    bounds,
                };
            }
            // The fragment's bounds, moved to where its parts stand in
            // `text` (both end with `rest`).
            let bounds = Bounds::of(&fragment, &view)
                .filter(|b| b.cut >= bounds.movetext + 3)
                .map(|b| Bounds {
                    movetext: bounds.movetext,
                    cut: b.cut + text.len() - fragment.len(),
                })
                .filter(|b| b.hold(text));
            After::Replayed {
                replay: Box::new(replay),
                bounds,
            }
        }
        Err(_) => After::Whole,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seal is XXH3-128 as its authors define it, so anyone can check a
    /// tip's: the value for no bytes is the one xxHash's own sanity test
    /// holds (`XXH3_128bits` of an empty input, high half first); streamed
    /// in chunks, as [`Tip::write`] seals, it is the same as in one call.
    #[test]
    fn the_seal_is_xxh3_128() {
        assert_eq!(hex::encode(seal(b"")), "99aa06d3014798d86001c324468d497f");
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for chunk in [1, 63, 64, 1000, CHUNK, CHUNK + 1] {
            let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
            bytes.chunks(chunk).for_each(|c| hasher.update(c));
            assert_eq!(
                hasher.digest128().to_be_bytes(),
                seal(&bytes),
                "chunks of {chunk}"
            );
        }
    }
}
