//! The desk's own memory of the mail it has read (`DATA/read.log`).
//!
//! A mail is recognised by where it is (an IMAP UID in its mailbox's
//! UIDVALIDITY, a Maildir file's unique name, an mbox offset) and by what
//! it is (a hash of its Message-ID, its sender and its body: a duplicate
//! delivery has the same content, whatever trace headers it gained on the
//! way). The mailbox's own flags are never consulted: a turn mail the
//! player already opened in a mail client is still read, and Yam changes
//! nothing of a mail that is not Yam's. A mail handled before costs
//! nothing on a later run: its place is known from the listing alone, its
//! body is never fetched again.
//!
//! The file is append-only, one line a mail: `PLACE CONTENT OUTCOME`, where
//! PLACE is `-` for a mail read from a file or standard input, CONTENT the
//! content hash (`b3:` and its BLAKE3 hash in hex; a bare hex SHA-256 in
//! the lines of builds before BLAKE3, still recognised), and OUTCOME one
//! letter (`A` applied, `C` a challenge, `K` a card, `S` the same as
//! before, `I` not Yam's, `R` refused, `L` too large to read). A line cut
//! by a crash is ignored.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::incoming::Outcome;
use crate::mail::inbox::Place;

/// What the desk has read.
#[derive(Debug)]
pub struct Memory {
    path: PathBuf,
    places: HashSet<String>,
    contents: HashMap<String, char>,
    /// The highest IMAP UID handled, per UIDVALIDITY.
    imap_high: HashMap<u32, u32>,
    /// The UIDVALIDITY of the IMAP mailbox read last in this run.
    last_validity: Option<u32>,
    /// Whether some mail is remembered by its SHA-256 content key, as
    /// builds before BLAKE3 wrote it: a mail is then looked up by that
    /// key too.
    legacy: bool,
}

/// The letter an outcome is remembered by.
fn letter(outcome: &Outcome) -> char {
    match outcome {
        Outcome::Applied { .. } => 'A',
        Outcome::Challenged { .. } => 'C',
        Outcome::Card(_) => 'K',
        Outcome::AlreadyKnown(_) => 'S',
        Outcome::Ignored(_) => 'I',
        Outcome::Refused(_) => 'R',
    }
}

impl Memory {
    /// The memory of the data directory `data` (empty when there is none
    /// yet).
    pub fn open(data: &Path) -> std::io::Result<Memory> {
        let path = data.join("read.log");
        let mut memory = Memory {
            path,
            places: HashSet::new(),
            contents: HashMap::new(),
            imap_high: HashMap::new(),
            last_validity: None,
            legacy: false,
        };
        let text = match std::fs::read_to_string(&memory.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(memory),
            Err(e) => return Err(e),
        };
        if !text.is_empty() && !text.ends_with('\n') {
            // A line cut by a crash: end it, so the next one starts afresh.
            std::fs::OpenOptions::new()
                .append(true)
                .open(&memory.path)?
                .write_all(b"\n")?;
        }
        for line in text.lines() {
            let mut words = line.split(' ');
            let (Some(place), Some(content), Some(outcome)) =
                (words.next(), words.next(), words.next())
            else {
                continue;
            };
            let Some(outcome) = outcome.chars().next() else {
                continue;
            };
            memory.note(place, content, outcome);
        }
        Ok(memory)
    }

    fn note(&mut self, place: &str, content: &str, outcome: char) {
        if place != "-" {
            self.places.insert(place.to_owned());
            if let Some(rest) = place.strip_prefix("imap:")
                && let Some((validity, uid)) = rest.split_once(':')
                && let (Ok(validity), Ok(uid)) = (validity.parse(), uid.parse())
            {
                let high = self.imap_high.entry(validity).or_insert(0);
                *high = (*high).max(uid);
            }
        }
        if content != "-" {
            self.legacy |= !content.starts_with(KEY_PREFIX);
            // A mail refused once may be read again when asked for by
            // name; anything else is what it was.
            self.contents
                .entry(content.to_owned())
                .and_modify(|o| {
                    if *o == 'R' {
                        *o = outcome;
                    }
                })
                .or_insert(outcome);
        }
    }

    /// Whether the mail at `place` was handled before.
    pub fn knows_place(&self, place: &Place) -> bool {
        self.places.contains(&place.key())
    }

    /// The highest IMAP UID handled in a mailbox of this UIDVALIDITY: the
    /// listing starts after it.
    pub fn imap_after(&self, validity: Option<u32>) -> Option<u32> {
        validity.and_then(|v| self.imap_high.get(&v).copied())
    }

    /// Notes the UIDVALIDITY of the IMAP mailbox just read (a watcher
    /// waits for UIDs above the highest handled in it).
    pub fn note_validity(&mut self, validity: Option<u32>) {
        if validity.is_some() {
            self.last_validity = validity;
        }
    }

    /// The UIDVALIDITY of the IMAP mailbox read last in this run.
    pub fn last_validity(&self) -> Option<u32> {
        self.last_validity
    }

    /// How the mail `raw`, whose [`content_key`] is `content`, was handled
    /// before, if it was: by its key, or by the SHA-256 key an earlier
    /// build remembered it by.
    pub fn content(&self, content: &str, raw: &[u8]) -> Option<char> {
        self.contents.get(content).copied().or_else(|| {
            self.legacy
                .then(|| self.contents.get(&sha256_content_key(raw)).copied())
                .flatten()
        })
    }

    /// Remembers a mail and what came of it.
    pub fn remember(
        &mut self,
        place: Option<&Place>,
        content: Option<&str>,
        outcome: char,
    ) -> std::io::Result<()> {
        let place = place.map_or_else(|| "-".to_owned(), Place::key);
        let content = content.unwrap_or("-");
        self.note(&place, content, outcome);
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        // One write a line, so a line is whole or (cut by a crash) ignored.
        file.write_all(format!("{place} {content} {outcome}\n").as_bytes())
    }

    /// Remembers a mail by what came of reading it.
    pub fn remember_outcome(
        &mut self,
        place: Option<&Place>,
        content: &str,
        outcome: &Outcome,
    ) -> std::io::Result<()> {
        self.remember(place, Some(content), letter(outcome))
    }
}

/// How a content key starts: it is a BLAKE3 hash.
const KEY_PREFIX: &str = "b3:";

/// What a mail is, whatever trace headers it gained on its way: a hash of
/// its Message-ID, its sender and its body (everything after the header
/// block), `b3:` and the BLAKE3 hash in hex. BLAKE3 rather than SHA-256:
/// the key is the desk's own, never compared with anyone's, and hashing a
/// long game's turn mail (250 kB at ply 300 of a Khan game) is a part of
/// reading it that grows with the game; BLAKE3 hashes it about four times
/// as fast.
pub fn content_key(raw: &[u8]) -> String {
    let mut hash = blake3::Hasher::new();
    keyed_content(raw, |bytes| {
        hash.update(bytes);
    });
    format!("{KEY_PREFIX}{}", hash.finalize().to_hex())
}

/// The content key builds before BLAKE3 wrote: the same bytes hashed with
/// SHA-256, bare hex.
fn sha256_content_key(raw: &[u8]) -> String {
    let mut hash = Sha256::new();
    keyed_content(raw, |bytes| hash.update(bytes));
    hex::encode(hash.finalize())
}

/// Feeds what identifies a mail to `update`: its Message-ID and From
/// header values, each after its length, then its body.
fn keyed_content(raw: &[u8], mut update: impl FnMut(&[u8])) {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
        .or_else(|| raw.windows(2).position(|w| w == b"\n\n").map(|i| i + 2))
        .unwrap_or(0);
    let (head, body) = raw.split_at(split);
    let header = |name: &str| -> String {
        let head = String::from_utf8_lossy(head);
        head.lines()
            .find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.trim()
                    .eq_ignore_ascii_case(name)
                    .then(|| v.trim().to_owned())
            })
            .unwrap_or_default()
    };
    for part in [header("Message-ID"), header("From")] {
        update(&(part.len() as u64).to_be_bytes());
        update(part.as_bytes());
    }
    update(body);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_delivery_has_the_same_content_key() {
        let a = b"Received: from a\r\nMessage-ID: <1@x>\r\nFrom: Ann <a@x>\r\n\r\nbody\r\n";
        let b = b"Received: from b\r\nDelivered-To: bo@y\r\nMessage-ID: <1@x>\r\nFrom: Ann <a@x>\r\n\r\nbody\r\n";
        let forged = b"Message-ID: <1@x>\r\nFrom: Ann <a@x>\r\n\r\nanother body\r\n";
        assert_eq!(content_key(a), content_key(b));
        assert_ne!(content_key(a), content_key(forged));
        assert!(content_key(a).starts_with("b3:"));
    }

    #[test]
    fn a_mail_an_earlier_build_remembered_by_its_sha256_key_is_still_known() {
        let dir = tempfile::tempdir().unwrap();
        let mail = b"Message-ID: <1@x>\r\nFrom: Ann <a@x>\r\n\r\nbody\r\n";
        let other = b"Message-ID: <2@x>\r\nFrom: Ann <a@x>\r\n\r\nbody\r\n";
        // The line an earlier build wrote: the bare hex SHA-256 key.
        let legacy = sha256_content_key(mail);
        assert_eq!(legacy.len(), 64);
        std::fs::write(dir.path().join("read.log"), format!("- {legacy} A\n")).unwrap();
        let mut memory = Memory::open(dir.path()).unwrap();
        assert_eq!(memory.content(&content_key(mail), mail), Some('A'));
        assert_eq!(memory.content(&content_key(other), other), None);
        // Remembered anew by its BLAKE3 key, it is known by that key.
        memory
            .remember(None, Some(&content_key(other)), 'S')
            .unwrap();
        assert_eq!(memory.content(&content_key(other), other), Some('S'));
        // A memory without SHA-256 keys computes none.
        let fresh = tempfile::tempdir().unwrap();
        let mut memory = Memory::open(fresh.path()).unwrap();
        memory
            .remember(None, Some(&content_key(other)), 'S')
            .unwrap();
        let memory = Memory::open(fresh.path()).unwrap();
        assert!(!memory.legacy, "no SHA-256 key: none is computed");
        assert_eq!(memory.content(&content_key(other), other), Some('S'));
        assert_eq!(memory.content(&content_key(mail), mail), None);
    }

    #[test]
    fn the_memory_survives_and_a_cut_line_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let mut memory = Memory::open(dir.path()).unwrap();
        let place = Place::Imap {
            validity: 7,
            uid: 42,
        };
        memory.remember(Some(&place), Some("abc"), 'A').unwrap();
        memory.remember(None, Some("def"), 'R').unwrap();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("read.log"))
            .unwrap();
        file.write_all(b"imap:7:99 xyz").unwrap();
        let memory = Memory::open(dir.path()).unwrap();
        assert!(memory.knows_place(&place));
        assert_eq!(memory.imap_after(Some(7)), Some(42));
        assert_eq!(memory.imap_after(Some(8)), None);
        assert_eq!(memory.content("abc", b""), Some('A'));
        assert_eq!(memory.content("def", b""), Some('R'));
        assert_eq!(memory.content("xyz", b""), None);
        // Written after the cut line, a new line reads whole.
        let mut memory = memory;
        memory.remember(None, Some("ghi"), 'K').unwrap();
        let memory = Memory::open(dir.path()).unwrap();
        assert_eq!(memory.content("ghi", b""), Some('K'));
    }
}
