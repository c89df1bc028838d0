//! The summary of the start of the desk's `read.log` (`DATA/read.idx`):
//! what the lines of years say about content keys and IMAP mailboxes,
//! sorted, so that a run looks up a mail's key by a binary search in the
//! file instead of reading and searching every line ever written.
//!
//! It is a cache of `read.log`, never the truth: written whole (a new
//! file renamed over the old) once the lines it does not cover pass
//! [`SUMMARIZE_AFTER`] bytes, made from the lines as they are, and used
//! only while `read.log` still starts with the bytes it was made from
//! (its length, and a hash of its first and of its last
//! [`CHECKED_ENDS`] covered bytes): a log restored from a backup, cut, or
//! replaced is read whole again, and summarized anew. Deleting it costs
//! one reading of the whole log. A line whose content word is no key (no
//! build writes one: a hand edit, a damaged byte) is left out of the
//! tables and the summary says some line was (`others`): a question about
//! such a word, which no run asks, reads the covered lines; so does a
//! question about a key whose outcome is no ASCII letter (kept as
//! `0xff`).
//!
//! The layout, every number little-endian:
//!
//! ```text
//! "yam read.log summary 1\n"            the magic
//! u64 covered                            bytes of read.log it covers (whole lines)
//! u64 covered_lines                      lines in them
//! [u8; 32] head                          BLAKE3 of the first min(4096, covered) bytes
//! [u8; 32] tail                          BLAKE3 of the last min(4096, covered) covered bytes
//! u8 flags                               1: a line holds an earlier build's SHA-256 key;
//!                                        2: a line's content word is no key
//! u32 n_imap, then n_imap × (u32 validity, u32 highest UID handled)
//! u64 n_blake3, u64 n_sha256
//! n_blake3 × ([u8; 32] key, u8 outcome)  sorted by key
//! n_sha256 × ([u8; 32] key, u8 outcome)  sorted by key
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The summary's file name, beside `read.log`.
pub const FILE: &str = "read.idx";

/// Lines past the summary, in bytes, that a run summarizes again (about
/// 2,800 lines): below it a log is read whole, as it always was; above
/// it a run reads the summary's header and at most this much of the log.
pub const SUMMARIZE_AFTER: u64 = 256 << 10;

/// How much of each end of the covered bytes is hashed to know the log
/// is the one summarized.
pub const CHECKED_ENDS: u64 = 4096;

const MAGIC: &[u8] = b"yam read.log summary 1\n";

/// One entry: a key and its outcome letter.
const ENTRY: u64 = 33;

/// The outcome byte of a key whose settled outcome is no ASCII letter (a
/// hand-edited line; no build writes one): its outcome is read from the
/// covered lines when asked ([`Said::NOT_ASCII`]).
const NOT_ASCII: u8 = 0xff;

/// What the summary says of the content keys and mailboxes of the lines
/// it covers (every line's outcome settled as the lines settle it).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Said {
    /// Outcomes by BLAKE3 content key.
    pub blake3: HashMap<[u8; 32], char>,
    /// Outcomes by SHA-256 content key (builds before BLAKE3).
    pub sha256: HashMap<[u8; 32], char>,
    /// The highest IMAP UID handled, by UIDVALIDITY.
    pub imap_high: HashMap<u32, u32>,
    /// Whether a line holds a SHA-256 key.
    pub legacy: bool,
    /// Whether a line's content word is no key (left out of the tables).
    pub others: bool,
}

/// An open summary that matches its log.
#[derive(Debug)]
pub struct Summary {
    /// Bytes of the log it covers.
    pub covered: u64,
    /// Lines in them.
    pub covered_lines: u64,
    /// Whether a covered line holds a SHA-256 key.
    pub legacy: bool,
    /// Whether a covered line's content word is no key: such a word is
    /// not in the tables, and is looked for in the covered lines.
    pub others: bool,
    /// The highest IMAP UID handled, by UIDVALIDITY.
    pub imap_high: HashMap<u32, u32>,
    file: RefCell<File>,
    blake3: (u64, u64),
    sha256: (u64, u64),
}

/// Which of the two sorted tables a key is looked up in.
#[derive(Debug, Clone, Copy)]
pub enum Table {
    /// BLAKE3 content keys.
    Blake3,
    /// SHA-256 content keys.
    Sha256,
}

fn ends(bytes: &[u8]) -> ([u8; 32], [u8; 32]) {
    let n = (CHECKED_ENDS as usize).min(bytes.len());
    (
        *blake3::hash(&bytes[..n]).as_bytes(),
        *blake3::hash(&bytes[bytes.len() - n..]).as_bytes(),
    )
}

fn read_at(file: &mut File, at: u64, buf: &mut [u8]) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(buf)
}

/// The head and tail hashes of `log`'s first `covered` bytes, read from
/// the file.
fn ends_of(log: &mut File, covered: u64) -> std::io::Result<([u8; 32], [u8; 32])> {
    let n = CHECKED_ENDS.min(covered);
    let mut head = vec![0; n as usize];
    read_at(log, 0, &mut head)?;
    let mut tail = vec![0; n as usize];
    read_at(log, covered - n, &mut tail)?;
    Ok((
        *blake3::hash(&head).as_bytes(),
        *blake3::hash(&tail).as_bytes(),
    ))
}

impl Said {
    /// What [`Summary::outcome`] says of a key whose outcome is no ASCII
    /// letter: ask the covered lines.
    pub const NOT_ASCII: char = '\u{fffd}';
}

impl Summary {
    /// The summary at `path`, if there is one that describes the start of
    /// `log` (whose length is `len`): any other (absent, damaged, of
    /// another log, of a build to come) is `None`, and the log is read
    /// whole.
    pub fn open(path: &Path, log: &mut File, len: u64) -> Option<Summary> {
        let mut file = File::open(path).ok()?;
        let size = file.metadata().ok()?.len();
        let mut fixed = vec![0; MAGIC.len() + 8 + 8 + 32 + 32 + 1 + 4];
        file.read_exact(&mut fixed).ok()?;
        if !fixed.starts_with(MAGIC) {
            return None;
        }
        let mut at = MAGIC.len();
        let mut take = |n: usize| {
            let part = &fixed[at..at + n];
            at += n;
            part.to_vec()
        };
        let u64_of = |b: Vec<u8>| u64::from_le_bytes(b.try_into().unwrap_or_default());
        let covered = u64_of(take(8));
        let covered_lines = u64_of(take(8));
        let head: [u8; 32] = take(32).try_into().ok()?;
        let tail: [u8; 32] = take(32).try_into().ok()?;
        let flags = take(1)[0];
        if flags > 3 {
            return None;
        }
        let (legacy, others) = (flags & 1 != 0, flags & 2 != 0);
        let n_imap = u32::from_le_bytes(take(4).try_into().ok()?);
        if covered == 0 || covered > len || u64::from(n_imap) * 8 > size {
            return None;
        }
        let mut imap = vec![0; n_imap as usize * 8];
        file.read_exact(&mut imap).ok()?;
        let imap_high = imap
            .chunks_exact(8)
            .map(|c| {
                (
                    u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                    u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
                )
            })
            .collect();
        let mut counts = [0; 16];
        file.read_exact(&mut counts).ok()?;
        let n_blake3 = u64::from_le_bytes(counts[..8].try_into().ok()?);
        let n_sha256 = u64::from_le_bytes(counts[8..].try_into().ok()?);
        let tables = fixed.len() as u64 + u64::from(n_imap) * 8 + 16;
        let entries = n_blake3.checked_add(n_sha256)?.checked_mul(ENTRY)?;
        if tables.checked_add(entries)? != size {
            return None;
        }
        if ends_of(log, covered).ok()? != (head, tail) {
            return None;
        }
        Some(Summary {
            covered,
            covered_lines,
            legacy,
            others,
            imap_high,
            file: RefCell::new(file),
            blake3: (tables, n_blake3),
            sha256: (tables + n_blake3 * ENTRY, n_sha256),
        })
    }

    /// The outcome the covered lines settle for `key` in `table`: a binary
    /// search in the file, some 17 reads of 33 bytes at 100,000 keys. A
    /// read that fails says nothing (the lines after the summary are still
    /// asked).
    pub fn outcome(&self, table: Table, key: &[u8; 32]) -> Option<char> {
        let (start, n) = match table {
            Table::Blake3 => self.blake3,
            Table::Sha256 => self.sha256,
        };
        let mut file = self.file.borrow_mut();
        let (mut low, mut high) = (0, n);
        let mut entry = [0u8; ENTRY as usize];
        while low < high {
            let mid = low + (high - low) / 2;
            read_at(&mut file, start + mid * ENTRY, &mut entry).ok()?;
            match entry[..32].cmp(&key[..]) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => {
                    return Some(match entry[32] {
                        NOT_ASCII => Said::NOT_ASCII,
                        letter => char::from(letter),
                    });
                }
            }
        }
        None
    }

    /// Writes the summary of `covered`, the first bytes of the log (whole
    /// lines, `lines` of them), which say `said`, to `path`: a new file
    /// renamed over the old.
    pub fn write(path: &Path, covered: &[u8], lines: u64, said: &Said) -> std::io::Result<()> {
        let (head, tail) = ends(covered);
        let mut out = Vec::with_capacity(
            MAGIC.len() + 128 + (said.blake3.len() + said.sha256.len()) * ENTRY as usize,
        );
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(covered.len() as u64).to_le_bytes());
        out.extend_from_slice(&lines.to_le_bytes());
        out.extend_from_slice(&head);
        out.extend_from_slice(&tail);
        out.push(u8::from(said.legacy) | (u8::from(said.others) << 1));
        let mut imap: Vec<(u32, u32)> = said.imap_high.iter().map(|(v, u)| (*v, *u)).collect();
        imap.sort_unstable();
        out.extend_from_slice(&u32::try_from(imap.len()).unwrap_or(u32::MAX).to_le_bytes());
        for (validity, uid) in imap.iter().take(u32::MAX as usize) {
            out.extend_from_slice(&validity.to_le_bytes());
            out.extend_from_slice(&uid.to_le_bytes());
        }
        out.extend_from_slice(&(said.blake3.len() as u64).to_le_bytes());
        out.extend_from_slice(&(said.sha256.len() as u64).to_le_bytes());
        for table in [&said.blake3, &said.sha256] {
            let mut entries: Vec<(&[u8; 32], &char)> = table.iter().collect();
            entries.sort_unstable();
            for (key, outcome) in entries {
                out.extend_from_slice(key);
                out.push(if outcome.is_ascii() {
                    *outcome as u8
                } else {
                    NOT_ASCII
                });
            }
        }
        // Written over the summary before: a log restored, or lines past
        // the threshold, are summarized anew. (Refused as "exists", every
        // later summary failed, the memory was left empty by the run that
        // tried, and every run paid for summarizing.)
        crate::store::atomic::write(path, &out, true)
    }
}
