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
//! content hash in hex, and OUTCOME one letter (`A` applied, `C` a
//! challenge, `K` a card, `S` the same as before, `I` not Yam's, `R`
//! refused, `L` too large to read). A line cut by a crash is ignored.

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

    /// How a mail with this content was handled before, if it was.
    pub fn content(&self, content: &str) -> Option<char> {
        self.contents.get(content).copied()
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

/// What a mail is, whatever trace headers it gained on its way: a hash of
/// its Message-ID, its sender and its body (everything after the header
/// block).
pub fn content_key(raw: &[u8]) -> String {
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
    let mut hash = Sha256::new();
    for part in [header("Message-ID"), header("From")] {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    hash.update(body);
    hex::encode(hash.finalize())
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
        assert_eq!(memory.content("abc"), Some('A'));
        assert_eq!(memory.content("def"), Some('R'));
        assert_eq!(memory.content("xyz"), None);
        // Written after the cut line, a new line reads whole.
        let mut memory = memory;
        memory.remember(None, Some("ghi"), 'K').unwrap();
        let memory = Memory::open(dir.path()).unwrap();
        assert_eq!(memory.content("ghi"), Some('K'));
    }
}
