//! Verified checkpoints on disk: what a client verified of its copy of a
//! game (the referee's [`yam_referee::signed::Checkpoint`]), kept in a small
//! text file where only the copy's owner writes:
//!
//! ```text
//! yam-checkpoint 2
//! events 302
//! head 64 hex digits (the hash of the last verified event)
//! seal 64 hex digits (docs/fair-play.md, "Verified checkpoints")
//! ```
//!
//! A checkpoint is a cache. One that is missing, unreadable, of another
//! version, or that does not match the record's events is thrown away: the
//! record is verified whole, and a new checkpoint written. It can make a
//! turn cheaper, never make a record verify that would not verify without
//! it (the referee verifies again from nothing when it does not match).

use std::path::Path;

use yam_referee::fair_play::hash::Hash32;
use yam_referee::signed::{Checkpoint, Known};

use crate::store::atomic;

/// The first line of a checkpoint file, with its version.
const MAGIC: &str = "yam-checkpoint 2";

/// The checkpoint kept at `path`, if there is a readable one of this
/// version; anything else is no checkpoint (the record is verified whole).
pub fn read(path: &Path) -> Option<Checkpoint> {
    use crate::store::read::{ReadUpTo, read_up_to};
    // A checkpoint is a few lines; a larger file is none (a link to
    // /dev/zero was read until memory ran out).
    const LIMIT: u64 = 64 << 10;
    let mut file = open_cache_file(path)?;
    let size = file.metadata().ok()?.len();
    match read_up_to(&mut file, Some(size), LIMIT).ok()? {
        ReadUpTo::Whole(bytes) => parse(std::str::from_utf8(&bytes).ok()?),
        ReadUpTo::Larger => None,
    }
}

/// A cache file opened to be read, if it is one: a regular file, not
/// followed through a link, and never waited on (a pipe in its place was
/// opened until a writer came, which never did: every command hung).
fn open_cache_file(path: &Path) -> Option<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(
            (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW).bits() as i32,
        );
    }
    let file = options.open(path).ok()?;
    file.metadata().ok()?.is_file().then_some(file)
}

/// The checkpoint a file's text holds, if it is a readable one of this
/// version (for a client that reads and writes its files itself, such as
/// the robot through its journal).
pub fn from_text(text: &str) -> Option<Checkpoint> {
    parse(text)
}

/// The text of a checkpoint file.
pub fn to_text(checkpoint: &Checkpoint) -> String {
    render(checkpoint)
}

/// The first of `events` (a stored record's, decoded, not verified) that
/// `checkpoint` vouches for: the prefix it covers if it matches them,
/// otherwise none. For a client that compares an incoming record with its
/// stored events (`Known::Events`): only vouched events are met again
/// without their signatures checked.
pub fn vouched<'a>(
    checkpoint: Option<&Checkpoint>,
    events: &'a [yam_referee::fair_play::turn::SignedEvent],
) -> &'a [yam_referee::fair_play::turn::SignedEvent] {
    match checkpoint {
        Some(c) if c.matches(events) => usize::try_from(c.events)
            .ok()
            .and_then(|n| events.get(..n))
            .unwrap_or_default(),
        _ => &[],
    }
}

/// What a replay may take as known with `checkpoint`.
pub fn known(checkpoint: Option<&Checkpoint>) -> Known<'_> {
    checkpoint.map_or(Known::Nothing, Known::Checkpoint)
}

/// Writes `checkpoint` to `path`, readable by its owner only, written
/// over in place ([`atomic::write_cache`]). Not synced: a checkpoint lost,
/// garbled or half written (read while it is written, or cut by a crash)
/// matches no record ([`Checkpoint::matches`] recomputes its seal) and
/// costs one whole verification, nothing more.
pub fn write(path: &Path, checkpoint: &Checkpoint) -> std::io::Result<()> {
    (|| {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        atomic::write_cache(path, render(checkpoint).as_bytes())
    })()
    .map_err(|e| at(path, e))
}

/// `e`, naming the cache file it is about: the warning of a cache that
/// could not be kept says which file is in the way.
fn at(path: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Writes the checkpoint of what `replay` verified at `path`, unless
/// `kept` already says as much. A failure to write is not an error of the
/// turn (the next one verifies whole); it is returned for the caller to
/// mention.
pub fn keep(
    path: &Path,
    kept: Option<&Checkpoint>,
    replay: &yam_referee::signed::SignedReplay,
) -> std::io::Result<()> {
    match Checkpoint::of(replay) {
        Some(now) if kept != Some(&now) => write(path, &now),
        _ => Ok(()),
    }
}

/// Says on standard error that a checkpoint could not be kept: it costs
/// the next reading a whole verification, and the client goes on.
pub fn warn_unkept<T>(kept: std::io::Result<T>) {
    if let Err(e) = kept {
        eprintln!(
            "warning: cannot keep a cache of the verified game ({e}): the next reading verifies the whole record"
        );
    }
}

/// Where a client keeps the tip of a game (`docs/fair-play.md`, 9.11)
/// beside its checkpoint at `checkpoint`: the file `tip` in the same
/// directory.
pub fn tip_path(checkpoint: &Path) -> std::path::PathBuf {
    checkpoint.with_file_name("tip")
}

/// The tip kept at `path` for a text of `text_len` bytes, if there is one
/// of a size such a tip can have; what it holds is decided by
/// [`yam_referee::signed::Tip::restore`] (anything but a tip of this build,
/// of exactly the text, undamaged, is no tip). A tip holds the text's
/// events once and a game state a turn: well under eight times the text,
/// so a larger file (damaged, or not a tip) is not read into memory.
///
/// Read into memory mapped in one call ([`crate::store::read`]): at ply
/// 300 a tip is 100 to 190 kB, and its pages faulted in one by one were
/// the largest part of what reading it cost.
pub fn read_tip(path: &Path, text_len: usize) -> Option<crate::store::read::FileBytes> {
    use crate::store::read::{ReadUpTo, read_up_to};
    let limit = text_len.saturating_mul(8).saturating_add(1 << 20);
    let mut file = open_cache_file(path)?;
    let size = file.metadata().ok()?.len();
    if size > limit as u64 {
        return None;
    }
    match read_up_to(&mut file, Some(size), limit as u64).ok()? {
        ReadUpTo::Whole(bytes) => Some(bytes),
        ReadUpTo::Larger => None,
    }
}

/// Writes the tip of `replay`, the verified replay of `text` whose bounds
/// are `bounds`, at `path` (written over in place, owner only, not
/// synced: a cache like the checkpoint, whose seal refuses it half
/// written). A game that keeps no tip, or a text that
/// cannot be continued, leaves none: an older tip is removed, since it
/// could only be of another text. `prior` is the digest of the text the
/// last tip was of (`Tip::write`: it spares hashing the text's first
/// bytes again if they are still the same); the new tip's is returned,
/// for the next.
pub fn keep_tip(
    path: &Path,
    replay: &yam_referee::signed::SignedReplay,
    text: &str,
    bounds: Option<yam_referee::signed::tip::Bounds>,
    prior: Option<&yam_referee::signed::prefix::PrefixDigest>,
) -> std::io::Result<Option<yam_referee::signed::prefix::PrefixDigest>> {
    keep_tip_unnamed(path, replay, text, bounds, prior).map_err(|e| at(path, e))
}

fn keep_tip_unnamed(
    path: &Path,
    replay: &yam_referee::signed::SignedReplay,
    text: &str,
    bounds: Option<yam_referee::signed::tip::Bounds>,
    prior: Option<&yam_referee::signed::prefix::PrefixDigest>,
) -> std::io::Result<Option<yam_referee::signed::prefix::PrefixDigest>> {
    let mut digest = None;
    let kept = match bounds {
        Some(bounds) => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            atomic::write_cache_with(path, |file| {
                digest = yam_referee::signed::Tip::write(replay, text, bounds, prior, file)?;
                Ok(digest.is_some())
            })?
        }
        None => false,
    };
    if kept {
        return Ok(digest);
    }
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(None),
    }
}

fn render(checkpoint: &Checkpoint) -> String {
    format!(
        "{MAGIC}\nevents {}\nhead {}\nseal {}\n",
        checkpoint.events, checkpoint.head, checkpoint.seal
    )
}

fn parse(text: &str) -> Option<Checkpoint> {
    let mut lines = text.lines();
    if lines.next()? != MAGIC {
        return None;
    }
    let mut field = |name: &str| lines.next()?.strip_prefix(name)?.strip_prefix(' ');
    let events = field("events")?.parse().ok()?;
    let head = Hash32::from_hex(field("head")?).ok()?;
    let seal = Hash32::from_hex(field("seal")?).ok()?;
    if lines.next().is_some() {
        return None;
    }
    Some(Checkpoint { events, head, seal })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_reads_back_and_anything_else_is_none() {
        let checkpoint = Checkpoint {
            events: 302,
            head: Hash32::of(b"head"),
            seal: Hash32::of(b"seal"),
        };
        let text = render(&checkpoint);
        assert_eq!(parse(&text), Some(checkpoint));
        for bad in [
            String::new(),
            // Version 1 (a SHA-256 seal, builds before the forty-second
            // step): no checkpoint, the record verified whole once.
            text.replace("yam-checkpoint 2", "yam-checkpoint 1"),
            text.replace("yam-checkpoint 2", "yam-checkpoint 3"),
            text.replace("events 302", "events -1"),
            text.replace("head ", "head  "),
            text[..text.len() - 10].to_owned(),
            format!("{text}extra\n"),
        ] {
            assert_eq!(parse(&bad), None, "{bad:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games/g/checkpoint");
        assert_eq!(read(&path), None);
        write(&path, &checkpoint).unwrap();
        assert_eq!(read(&path), Some(checkpoint));
    }

    /// A pipe where the tip or the checkpoint is kept (made by a sync tool
    /// or a hand; `atomic::write_cache` already removes one rather than
    /// wait on it) is no cache: reading it must not wait for a writer that
    /// never comes. `yam hotseat move`, `status` and the desk's commands
    /// hung for ever on a tip that is a pipe, before the write that would
    /// have removed it.
    #[cfg(unix)]
    #[test]
    fn a_pipe_in_a_caches_place_is_no_cache_and_is_not_waited_on() {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().unwrap();
        for name in ["tip", "checkpoint"] {
            let path = dir.path().join(name);
            rustix::fs::mknodat(
                rustix::fs::CWD,
                &path,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_bits_truncate(0o600),
                0,
            )
            .unwrap();
            let (done, answer) = std::sync::mpsc::channel();
            let reading = path.clone();
            std::thread::spawn(move || {
                let found = if name == "tip" {
                    read_tip(&reading, 100).is_some()
                } else {
                    read(&reading).is_some()
                };
                let _ = done.send(found);
            });
            let found = answer.recv_timeout(std::time::Duration::from_secs(5));
            if found.is_err() {
                // Let the reader go (a writer comes, and leaves).
                let _ = std::fs::OpenOptions::new()
                    .write(true)
                    .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
                    .open(&path);
            }
            assert_eq!(
                found,
                Ok(false),
                "a pipe at {name} is no cache, found at once (not waited on for 5 s)"
            );
        }
    }
}
