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
//!
//! The file grows with every mail the desk ever read, its own and, in a
//! mailbox shared with personal mail, everyone else's (`I`): 20,000 lines
//! is a few years of an ordinary inbox. So a run holds the file as read
//! and answers the question it has: a mail named on the command line or
//! piped in asks about one content key, found by a search of the text;
//! an IMAP listing asks for the highest UID handled in its mailbox (a
//! pass over the `imap:` lines), above which it lists; a Maildir or mbox
//! listing asks about every place, and more than a few content keys are
//! worth an index, so the lines are then parsed once into a compact one
//! (an IMAP place as two numbers, a content key as its 32 bytes). Every
//! line means what it meant before (docs/performance.md, "The
//! twenty-seventh step", says what parsing every line cost a turn).
//!
//! Past a few thousand lines the file's first lines are summarized
//! ([`summary`], `DATA/read.idx`): a run reads the summary's header and
//! the lines after it, looks a key up in the summary's sorted table, and
//! settles what it says with the lines after it, as the lines would one
//! after another; a listing that asks about places reads every line
//! ([`Memory::read_whole`]).

mod summary;

use std::cell::{Cell, OnceCell};
use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use summary::{Said, Summary, Table};

/// The file name of the read log's summary, beside `read.log`: a cache,
/// left out of a desk's bundle as the games' checkpoints and tips are.
pub const SUMMARY: &str = summary::FILE;

use sha2::{Digest, Sha256};

use super::incoming::Outcome;
use crate::mail::inbox::Place;

/// What the desk has read.
#[derive(Debug)]
pub struct Memory {
    path: PathBuf,
    /// The file as read, and every line remembered since.
    text: String,
    /// What a pass over the lines finds, once asked.
    marks: OnceCell<Marks>,
    /// The places and keys of the lines, once a question needs them all.
    index: OnceCell<Index>,
    /// Content keys looked up by searching `text` so far.
    searches: Cell<u32>,
    /// The UIDVALIDITY of the IMAP mailbox read last in this run.
    last_validity: Option<u32>,
    /// The summary of the log's first lines (`read.idx`), when one
    /// matches the log: `text` then holds only the lines after it.
    summary: Option<Summary>,
}

/// How many content keys a run looks up by searching the text before it
/// parses the lines into an [`Index`]: a mail named on the command line
/// asks one or two, and a mailbox with many new mails is read through
/// the index.
const SEARCHES_BEFORE_INDEX: u32 = 4;

/// What one pass over the lines finds, passing over unparsed every line
/// that cannot change it (every line a build since BLAKE3 wrote, of a
/// mail not read by IMAP).
#[derive(Debug, Default)]
struct Marks {
    /// The highest IMAP UID handled, per UIDVALIDITY: an IMAP listing
    /// starts after it, and needs nothing else of the lines for the UIDs
    /// it lists.
    imap_high: HashMap<u32, u32>,
    /// Whether some mail is remembered by its SHA-256 content key, as
    /// builds before BLAKE3 wrote it: a mail is then looked up by that
    /// key too.
    legacy: bool,
}

/// The places and content keys of every line.
#[derive(Debug, Default)]
struct Index {
    /// IMAP places, by UIDVALIDITY and UID, for the lines that spell them
    /// as Yam writes them (`imap:V:U`, no sign, no leading zero).
    imap_places: HashSet<(u32, u32)>,
    /// Every other place (a Maildir file's unique name, an mbox offset,
    /// anything else a line holds), as written.
    other_places: HashSet<Box<str>>,
    /// Outcomes by BLAKE3 content key (`b3:` and 64 lowercase hex digits),
    /// held as the hash's 32 bytes.
    contents: HashMap<[u8; 32], char>,
    /// Outcomes by SHA-256 content key (bare lowercase hex, as builds
    /// before BLAKE3 wrote them), held as the hash's 32 bytes.
    sha256_contents: HashMap<[u8; 32], char>,
    /// Outcomes of content words that are neither (no build writes them;
    /// kept as written so that nothing a line says is lost).
    other_contents: HashMap<Box<str>, char>,
}

/// Where a content word's outcome is kept in an [`Index`].
enum ContentSlot<'a> {
    Blake3([u8; 32]),
    Sha256([u8; 32]),
    Other(&'a str),
}

impl<'a> ContentSlot<'a> {
    fn of(word: &'a str) -> ContentSlot<'a> {
        match word.strip_prefix(KEY_PREFIX) {
            Some(hex) => hash_bytes(hex).map_or(ContentSlot::Other(word), ContentSlot::Blake3),
            None => hash_bytes(word).map_or(ContentSlot::Other(word), ContentSlot::Sha256),
        }
    }
}

/// A hash written as 64 lowercase hex digits, as its 32 bytes; `None` for
/// any other text (which no key Yam computes can equal).
fn hash_bytes(hex: &str) -> Option<[u8; 32]> {
    // Every digit's value from a table, and one test at the end whether
    // any was not a digit: an index's parse decodes every line's key, and
    // a decoder that branches on every character cost a Maildir listing
    // of 20,000 known mails 4 ms.
    const VALUE: [u8; 256] = {
        let mut table = [0xff; 256];
        let mut digit = 0;
        while digit < 16 {
            table[b"0123456789abcdef"[digit] as usize] = digit as u8;
            digit += 1;
        }
        table
    };
    let hex: &[u8; 64] = hex.as_bytes().try_into().ok()?;
    let mut bytes = [0u8; 32];
    let mut invalid = 0;
    for (byte, pair) in bytes.iter_mut().zip(hex.chunks_exact(2)) {
        let (high, low) = (VALUE[pair[0] as usize], VALUE[pair[1] as usize]);
        invalid |= high | low;
        *byte = high << 4 | low;
    }
    (invalid & 0xf0 == 0).then_some(bytes)
}

/// An IMAP place spelled as [`Place::key`] spells it: `imap:V:U`, each a
/// `u32` in decimal without sign or leading zero.
fn canonical_imap(place: &str) -> Option<(u32, u32)> {
    let number = |text: &str| -> Option<u32> {
        let canonical = !text.is_empty()
            && text.bytes().all(|b| b.is_ascii_digit())
            && (text == "0" || !text.starts_with('0'));
        canonical.then(|| text.parse().ok()).flatten()
    };
    let (validity, uid) = place.strip_prefix("imap:")?.split_once(':')?;
    Some((number(validity)?, number(uid)?))
}

/// The mailbox and UID an IMAP place names, read as every build has
/// read them for the highest UID handled (a sign or leading zeros
/// allowed).
fn imap_numbers(place: &str) -> Option<(u32, u32)> {
    let (validity, uid) = place.strip_prefix("imap:")?.split_once(':')?;
    Some((validity.parse().ok()?, uid.parse().ok()?))
}

/// Raises `high`'s mark for the mailbox `place` names to its UID.
fn raise(high: &mut HashMap<u32, u32>, place: &str) {
    if let Some((validity, uid)) = imap_numbers(place) {
        let mark = high.entry(validity).or_insert(0);
        *mark = (*mark).max(uid);
    }
}

/// Each line of `text` with its LF, so that [`lines`] drops a CR before
/// it as it does in the whole text.
fn raw_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive('\n')
}

/// The lines of `text` that say something: place, content word and
/// outcome letter (a line with fewer words, or an empty third, says
/// nothing).
fn lines(text: &str) -> impl Iterator<Item = (&str, &str, char)> {
    text.lines().filter_map(|line| {
        let mut words = line.split(' ');
        let (place, content, outcome) = (words.next()?, words.next()?, words.next()?);
        Some((place, content, outcome.chars().next()?))
    })
}

/// Whether a line's content word is an earlier build's SHA-256 key (or
/// anything else that is not a BLAKE3 key).
fn is_legacy(content: &str) -> bool {
    content != "-" && !content.starts_with(KEY_PREFIX)
}

impl Marks {
    /// The marks of `text`'s lines: what [`Marks::note`] makes of each,
    /// a line that starts with neither `imap:` nor a place followed by a
    /// BLAKE3 key or `-` parsed, any other passed over.
    fn of(text: &str) -> Marks {
        let mut marks = Marks::default();
        for line in raw_lines(text) {
            if !line.starts_with("imap:")
                && let Some(space) = memchr::memchr(b' ', line.as_bytes())
                && let content = &line[space + 1..]
                && (content.starts_with(KEY_PREFIX) || content.starts_with("- "))
            {
                continue;
            }
            for (place, content, _) in lines(line) {
                marks.note(place, content);
            }
        }
        marks
    }

    fn note(&mut self, place: &str, content: &str) {
        if place != "-" {
            raise(&mut self.imap_high, place);
        }
        if content != "-" {
            self.legacy |= is_legacy(content);
        }
    }
}

/// A mail refused once may be read again when asked for by name; any
/// other outcome is what it was: `later` settles what `known` says.
fn settle(known: &mut char, later: char) {
    if *known == 'R' {
        *known = later;
    }
}

/// The outcome `text` remembers for the content word `word`, found by
/// searching for it: every occurrence that is a line's second word, with
/// an outcome after it, settled in order as [`Index::note`] settles them.
fn searched_outcome(text: &str, word: &str) -> Option<char> {
    let bytes = text.as_bytes();
    let mut outcome: Option<char> = None;
    // The line of the last occurrence (where it starts, where its first
    // space is) is carried forward, and line ends are looked for only
    // between one occurrence and the next: a line holding the word many
    // times costs its length once, not once an occurrence.
    let mut line_start = 0;
    let mut first_space: Option<usize> = None;
    let mut searched_to = 0;
    for at in memchr::memmem::find_iter(bytes, word.as_bytes()) {
        let end = at + word.len();
        // A space before it and after it (the outcome follows)...
        if at == 0 || bytes[at - 1] != b' ' || bytes.get(end) != Some(&b' ') {
            continue;
        }
        if let Some(i) = memchr::memrchr(b'\n', &bytes[searched_to..at]) {
            line_start = searched_to + i + 1;
            first_space = None;
        }
        searched_to = at;
        // ...and that space the line's first: the second word.
        let space = *first_space.get_or_insert_with(|| {
            memchr::memchr(b' ', &bytes[line_start..]).map_or(usize::MAX, |i| line_start + i)
        });
        if space != at - 1 {
            continue;
        }
        let rest = &text[end + 1..];
        let line = rest.split('\n').next().unwrap_or_default();
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Some(letter) = line.split(' ').next().and_then(|w| w.chars().next()) else {
            continue;
        };
        match outcome.as_mut() {
            Some(known) => settle(known, letter),
            None => outcome = Some(letter),
        }
    }
    outcome
}

impl Index {
    fn note(&mut self, place: &str, content: &str, outcome: char) {
        if place != "-" {
            match canonical_imap(place) {
                Some(imap) => {
                    self.imap_places.insert(imap);
                }
                None => {
                    self.other_places.insert(place.into());
                }
            }
        }
        if content != "-" {
            let known = match ContentSlot::of(content) {
                ContentSlot::Blake3(key) => self.contents.entry(key),
                ContentSlot::Sha256(key) => self.sha256_contents.entry(key),
                ContentSlot::Other(word) => {
                    match self.other_contents.get_mut(word) {
                        Some(known) => settle(known, outcome),
                        None => {
                            self.other_contents.insert(word.into(), outcome);
                        }
                    }
                    return;
                }
            };
            known
                .and_modify(|known| settle(known, outcome))
                .or_insert(outcome);
        }
    }

    fn outcome_of(&self, word: &str) -> Option<char> {
        match ContentSlot::of(word) {
            ContentSlot::Blake3(key) => self.contents.get(&key),
            ContentSlot::Sha256(key) => self.sha256_contents.get(&key),
            ContentSlot::Other(word) => self.other_contents.get(word),
        }
        .copied()
    }
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

/// The text of a log's bytes read from line `first_line` on; a line that
/// is not UTF-8 is named.
fn log_text(bytes: Vec<u8>, first_line: u64) -> std::io::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        // Named by its line: a memory of years holds thousands.
        let bad = e.utf8_error().valid_up_to();
        let line = first_line + e.as_bytes()[..bad].iter().filter(|&&b| b == b'\n').count() as u64;
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "line {line} is damaged (not UTF-8): mend or delete that line; a mail it named is at worst read again and found as before"
            ),
        )
    })
}

impl Said {
    /// What the lines of `text` say of content keys and mailboxes (a
    /// content word that is no key left out, and said to be).
    fn of(text: &str) -> Said {
        let mut said = Said::default();
        let mut marks = Marks::default();
        for (place, content, outcome) in lines(text) {
            marks.note(place, content);
            if content == "-" {
                continue;
            }
            let known = match ContentSlot::of(content) {
                ContentSlot::Blake3(key) => said.blake3.entry(key),
                ContentSlot::Sha256(key) => said.sha256.entry(key),
                ContentSlot::Other(_) => {
                    said.others = true;
                    continue;
                }
            };
            known
                .and_modify(|known| settle(known, outcome))
                .or_insert(outcome);
        }
        said.imap_high = marks.imap_high;
        said.legacy = marks.legacy;
        said
    }
}

impl Memory {
    /// The memory of the data directory `data` (empty when there is none
    /// yet).
    pub fn open(data: &Path) -> std::io::Result<Memory> {
        Memory::open_summarizing_after(data, summary::SUMMARIZE_AFTER)
    }

    /// [`Memory::open`], summarizing the log's lines once more than
    /// `after` bytes of them are past the summary (docs/performance.md,
    /// "The fortieth step"): a run then reads the summary's header and
    /// the lines after it, and looks a mail's key up in the summary, where
    /// it read and searched every line the desk ever wrote (15 ms at
    /// 100,000 lines, a few decades of a busy inbox).
    pub fn open_summarizing_after(data: &Path, after: u64) -> std::io::Result<Memory> {
        let path = data.join("read.log");
        let mut file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Memory::holding(path, String::new()));
            }
            Err(e) => return Err(e),
        };
        let len = file.metadata()?.len();
        let summary = Summary::open(&data.join(summary::FILE), &mut file, len);
        let (start, first_line) = summary
            .as_ref()
            .map_or((0, 1), |s| (s.covered, s.covered_lines + 1));
        file.seek(SeekFrom::Start(start))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let text = log_text(bytes, first_line)?;
        if is_cut(&text) {
            // A line cut by a crash: end it in the file too, so the next
            // one starts afresh.
            std::fs::OpenOptions::new()
                .append(true)
                .open(&path)?
                .write_all(b"\n")?;
        }
        let mut memory = Memory::holding(path, text);
        memory.summary = summary;
        if memory.text.len() as u64 >= after.max(1) {
            // Only a cache: a log that cannot be summarized is read whole.
            let _ = memory.summarize(data);
        }
        Ok(memory)
    }

    /// Writes the summary of the whole log as it stands, and holds it and
    /// no line. On any error the memory stays as it was (every line it
    /// held, or its summary and the lines after it).
    fn summarize(&mut self, data: &Path) -> std::io::Result<()> {
        let read;
        let whole: &str = match &self.summary {
            Some(_) => {
                read = log_text(std::fs::read(&self.path)?, 1)?;
                &read
            }
            None => &self.text,
        };
        // Whole lines only: a line another reader is appending is left
        // for the next summary.
        let covered = whole.rfind('\n').map_or(0, |i| i + 1);
        if covered == 0 {
            return Ok(());
        }
        let said = Said::of(&whole[..covered]);
        let lines = whole[..covered].matches('\n').count() as u64;
        Summary::write(
            &data.join(summary::FILE),
            &whole.as_bytes()[..covered],
            lines,
            &said,
        )?;
        let mut file = std::fs::File::open(&self.path)?;
        let len = file.metadata()?.len();
        // The summary as written, if the log still starts with what it
        // covers; else every line held, as before.
        let Some(summary) = Summary::open(&data.join(summary::FILE), &mut file, len)
            .filter(|s| s.covered == covered as u64)
        else {
            return Ok(());
        };
        self.text = whole[covered..].to_owned();
        self.summary = Some(summary);
        self.marks = OnceCell::new();
        self.index = OnceCell::new();
        self.searches.set(0);
        Ok(())
    }

    /// Reads the lines the summary covers too: asked before a Maildir or
    /// an mbox is listed, whose every mail is known by its place, which
    /// the summary does not keep.
    pub fn read_whole(&mut self) -> std::io::Result<()> {
        if self.summary.is_none() {
            return Ok(());
        }
        // Read and checked before anything is let go: a line that is not
        // UTF-8 stops this listing and every later one (a watching desk's
        // next round went on with the lines after the summary alone).
        let mut text = log_text(std::fs::read(&self.path)?, 1)?;
        if is_cut(&text) {
            text.push('\n');
        }
        self.summary = None;
        self.text = text;
        self.marks = OnceCell::new();
        self.index = OnceCell::new();
        self.searches.set(0);
        Ok(())
    }

    /// A memory of `text`, kept in the file `path`. A cut last line is
    /// read ended, as every later run reads it (its last CR is then a
    /// line end's, where builds before the twenty-seventh step read it as
    /// a letter in this one run).
    fn holding(path: PathBuf, mut text: String) -> Memory {
        if is_cut(&text) {
            text.push('\n');
        }
        Memory {
            path,
            text,
            marks: OnceCell::new(),
            index: OnceCell::new(),
            searches: Cell::new(0),
            last_validity: None,
            summary: None,
        }
    }

    /// The lines parsed (the first call parses them).
    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut index = Index::default();
            for (place, content, outcome) in lines(&self.text) {
                index.note(place, content, outcome);
            }
            index
        })
    }

    /// The marks of the lines (the first call finds them).
    fn marks(&self) -> &Marks {
        self.marks.get_or_init(|| {
            let mut marks = Marks::of(&self.text);
            if let Some(summary) = &self.summary {
                marks.legacy |= summary.legacy;
                for (validity, uid) in &summary.imap_high {
                    let high = marks.imap_high.entry(*validity).or_insert(*uid);
                    *high = (*high).max(*uid);
                }
            }
            marks
        })
    }

    /// Whether the mail at `place` was handled before.
    pub fn knows_place(&self, place: &Place) -> bool {
        match place {
            Place::Imap { validity, uid } => {
                // Above the highest UID handled in its mailbox (every UID
                // an IMAP listing returns), no line names it.
                let above = self
                    .marks()
                    .imap_high
                    .get(validity)
                    .is_none_or(|high| uid > high);
                !above && self.index().imap_places.contains(&(*validity, *uid))
            }
            other => self.index().other_places.contains(other.key().as_str()),
        }
    }

    /// The highest IMAP UID handled in a mailbox of this UIDVALIDITY: the
    /// listing starts after it.
    pub fn imap_after(&self, validity: Option<u32>) -> Option<u32> {
        validity.and_then(|v| self.marks().imap_high.get(&v).copied())
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
        self.outcome_of(content).or_else(|| {
            self.marks()
                .legacy
                .then(|| self.outcome_of(&sha256_content_key(raw)))
                .flatten()
        })
    }

    /// The outcome remembered for the content word `word`: searched for
    /// in the text while the lines are not parsed and few searches were
    /// made, else from the index.
    fn outcome_of(&self, word: &str) -> Option<char> {
        let after = self.lines_outcome_of(word);
        let Some(summary) = &self.summary else {
            return after;
        };
        let said = match ContentSlot::of(word) {
            ContentSlot::Blake3(key) => summary.outcome(Table::Blake3, &key),
            ContentSlot::Sha256(key) => summary.outcome(Table::Sha256, &key),
            ContentSlot::Other(word) if summary.others => self.covered_outcome_of(word),
            ContentSlot::Other(_) => None,
        };
        // An outcome the summary could not hold (no ASCII letter, written
        // by no build): the covered lines say it.
        let said = match said {
            Some(Said::NOT_ASCII) => self.covered_outcome_of(word),
            said => said,
        };
        // The lines after the summary settle what it says, as they would
        // one line after another.
        match said {
            None => after,
            Some('R') => after.or(Some('R')),
            said => said,
        }
    }

    /// The outcome the lines the summary covers settle for a content word
    /// that is no key, read from the file: no run asks about such a word
    /// (a run asks about the keys it computes), so this costs nothing in
    /// use; it keeps every answer the lines' own. A file that cannot be
    /// read again says nothing.
    fn covered_outcome_of(&self, word: &str) -> Option<char> {
        let covered = self.summary.as_ref()?.covered;
        let mut bytes = vec![0; usize::try_from(covered).ok()?];
        let mut file = std::fs::File::open(&self.path).ok()?;
        file.read_exact(&mut bytes).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let mut index = Index::default();
        for (place, content, outcome) in lines(&text) {
            index.note(place, content, outcome);
        }
        index.outcome_of(word)
    }

    /// [`Memory::outcome_of`] in the lines held (all of them, or those
    /// after the summary).
    fn lines_outcome_of(&self, word: &str) -> Option<char> {
        if self.index.get().is_none() {
            // A word a search would find inside others' (empty, or with a
            // separator in it), and `-` (which says "no content"), are left
            // to the index; no key is such.
            let searchable = !word.is_empty() && word != "-" && !word.contains([' ', '\n', '\r']);
            let searches = self.searches.get();
            if searchable && searches < SEARCHES_BEFORE_INDEX {
                self.searches.set(searches + 1);
                return searched_outcome(&self.text, word);
            }
        }
        self.index().outcome_of(word)
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
        let line = format!("{place} {content} {outcome}\n");
        // A line that will not read back as these three (a place or key
        // with a space or line end in it, an outcome letter that is one)
        // is noted as given, as it always was: in the index, built for it.
        let reads_back = !place.contains([' ', '\n'])
            && !content.contains([' ', '\n'])
            && !matches!(outcome, ' ' | '\n' | '\r');
        if !reads_back {
            self.marks();
            self.index();
        }
        if let Some(marks) = self.marks.get_mut() {
            marks.note(&place, content);
        }
        if let Some(index) = self.index.get_mut() {
            index.note(&place, content, outcome);
        }
        self.text.push_str(&line);
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        // One write a line, so a line is whole or (cut by a crash) ignored.
        file.write_all(line.as_bytes())
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

/// Whether the last line of `text` was cut (by a crash): it has no line
/// end.
fn is_cut(text: &str) -> bool {
    !text.is_empty() && !text.ends_with('\n')
}

/// The two ways a memory answers, side by side, for the fuzz target
/// `read_log` (`cli/fuzz`, through `yam_cli::fuzzing`): what a run's
/// shortcuts through the text find (the search for a content word, the
/// one pass for the marks) and what the lines say parsed one by one. For
/// any text each pair must be equal; a difference is a mail read twice
/// or never.
#[doc(hidden)]
pub mod both_ways {
    use std::path::PathBuf;

    use super::{Marks, Memory, lines};
    use crate::mail::inbox::Place;

    /// The memory of `text` as [`Memory::open`] holds a file of it;
    /// never written.
    fn memory(text: &str) -> Memory {
        Memory::holding(PathBuf::new(), text.to_owned())
    }

    /// Whether the IMAP mail `uid` of the mailbox `validity` was handled:
    /// as a run asks it (not above its mailbox's mark, then the index),
    /// and from the parsed lines alone.
    pub fn imap_place(text: &str, validity: u32, uid: u32) -> (bool, bool) {
        let asked = memory(text).knows_place(&Place::Imap { validity, uid });
        let parsed = memory(text).index().imap_places.contains(&(validity, uid));
        (asked, parsed)
    }

    /// The outcome remembered for the content word `word`: as the first
    /// question of a run finds it, and from the parsed lines.
    pub fn outcome(text: &str, word: &str) -> (Option<char>, Option<char>) {
        let first = memory(text).outcome_of(word);
        let parsed = memory(text);
        parsed.index();
        (first, parsed.outcome_of(word))
    }

    /// Whether some line holds a SHA-256 key, and the highest UID of
    /// each IMAP mailbox (sorted): as the marks' pass finds them (passing
    /// over the lines it deems unable to change them), and from every
    /// line parsed and noted.
    pub fn marks(text: &str) -> [(bool, Vec<(u32, u32)>); 2] {
        let text = memory(text).text;
        let said = |marks: Marks| {
            let mut high: Vec<_> = marks.imap_high.into_iter().collect();
            high.sort_unstable();
            (marks.legacy, high)
        };
        let mut every_line = Marks::default();
        for (place, content, _) in lines(&text) {
            every_line.note(place, content);
        }
        [said(Marks::of(&text)), said(every_line)]
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
        assert!(!memory.marks().legacy, "no SHA-256 key: none is computed");
        assert_eq!(memory.content(&content_key(other), other), Some('S'));
        assert_eq!(memory.content(&content_key(mail), mail), None);
        // Asked before and after a SHA-256 key is remembered in the same
        // run: the second question looks the mail up by it.
        let mut memory = memory;
        memory
            .remember(None, Some(&sha256_content_key(mail)), 'A')
            .unwrap();
        assert_eq!(memory.content(&content_key(mail), mail), Some('A'));
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

    /// A number below `n` at each call, from a xorshift generator seeded
    /// with `seed`: the random logs of these tests, the same every run.
    fn xorshift(mut state: u64) -> impl FnMut(usize) -> usize {
        move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        }
    }

    /// The memory as it was held before the twenty-seventh step (every
    /// line's place and content as strings of their own), kept as the
    /// oracle of what a log means.
    struct Naive {
        places: HashSet<String>,
        contents: HashMap<String, char>,
        imap_high: HashMap<u32, u32>,
        legacy: bool,
    }

    impl Naive {
        fn of(text: &str) -> Naive {
            let mut naive = Naive {
                places: HashSet::new(),
                contents: HashMap::new(),
                imap_high: HashMap::new(),
                legacy: false,
            };
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
                if place != "-" {
                    naive.places.insert(place.to_owned());
                    if let Some(rest) = place.strip_prefix("imap:")
                        && let Some((validity, uid)) = rest.split_once(':')
                        && let (Ok(validity), Ok(uid)) = (validity.parse(), uid.parse())
                    {
                        let high = naive.imap_high.entry(validity).or_insert(0);
                        *high = (*high).max(uid);
                    }
                }
                if content != "-" {
                    naive.legacy |= !content.starts_with(KEY_PREFIX);
                    naive
                        .contents
                        .entry(content.to_owned())
                        .and_modify(|o| {
                            if *o == 'R' {
                                *o = outcome;
                            }
                        })
                        .or_insert(outcome);
                }
            }
            naive
        }

        fn content(&self, content: &str, raw: &[u8]) -> Option<char> {
            self.contents.get(content).copied().or_else(|| {
                self.legacy
                    .then(|| self.contents.get(&sha256_content_key(raw)).copied())
                    .flatten()
            })
        }
    }

    #[test]
    fn searched_or_indexed_the_memory_answers_as_every_line_kept_whole_did() {
        let mails: Vec<Vec<u8>> = (0..4)
            .map(|i| format!("Message-ID: <{i}@x>\r\nFrom: a@x\r\n\r\nbody {i}\r\n").into_bytes())
            .collect();
        let b3: Vec<String> = mails.iter().map(|m| content_key(m)).collect();
        let sha: Vec<String> = mails.iter().map(|m| sha256_content_key(m)).collect();
        let mut contents: Vec<String> =
            vec!["-".into(), "-abc".into(), "abc".into(), String::new()];
        contents.extend(b3.iter().cloned());
        contents.extend(sha.iter().cloned());
        contents.push(b3[0].to_uppercase());
        contents.push(format!("b3:{}", &sha[1]));
        contents.push(format!("{}0", b3[2]));
        contents.push(sha[3].replace('a', "A"));
        let places = [
            "-",
            "imap:7:42",
            "imap:7:43",
            "imap:07:42",
            "imap:+7:44",
            "imap:7:0",
            "imap:0:9",
            "imap:7",
            "imap:x:1",
            "imap:4294967296:1",
            "maildir:1796.M1P2.host",
            "mbox:100",
            "",
            "weird place",
        ];
        let outcomes = ["A", "R", "S", "I", "K", "C", "L", "", "Rx", "é"];
        let queried_places = [
            Place::Imap {
                validity: 7,
                uid: 42,
            },
            Place::Imap {
                validity: 7,
                uid: 43,
            },
            Place::Imap {
                validity: 7,
                uid: 44,
            },
            Place::Imap {
                validity: 7,
                uid: 0,
            },
            Place::Imap {
                validity: 0,
                uid: 9,
            },
            Place::Imap {
                validity: 8,
                uid: 42,
            },
            Place::File("/m/cur/1796.M1P2.host:2,S".into()),
            Place::File("/m/new/1796.M1P3.host".into()),
            Place::Mbox {
                offset: 100,
                size: 10,
                digest: [1; 16],
            },
            Place::Mbox {
                offset: 101,
                size: 10,
                digest: [2; 16],
            },
        ];
        // A fixed sequence of pseudo-random logs (xorshift), each line
        // drawn from the words above, some joined by two spaces, some
        // with CR LF, some cut.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15_u64);
        for _ in 0..300 {
            let mut text = String::new();
            for _ in 0..next(25) {
                let sep = if next(8) == 0 { "  " } else { " " };
                text.push_str(places[next(places.len())]);
                text.push_str(sep);
                text.push_str(&contents[next(contents.len())]);
                if next(10) != 0 {
                    text.push(' ');
                    text.push_str(outcomes[next(outcomes.len())]);
                }
                text.push_str(if next(6) == 0 { "\r\n" } else { "\n" });
            }
            if next(3) == 0 {
                text.push_str("imap:7:99 ");
            }
            if next(5) == 0 {
                // A key many times over on one line, second word or not.
                let key = &contents[next(contents.len())];
                text.push_str(&format!("- {key} {key} {key}  {key} A\n"));
            }
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("read.log"), &text).unwrap();
            // A line remembered in this run, after the questions below.
            let later = (
                queried_places[next(queried_places.len())].clone(),
                contents[next(contents.len())].clone(),
                ['A', 'R', 'S', 'I'][next(4)],
            );
            let mut naive = Naive::of(&text);
            assert_eq!(Marks::of(&text).legacy, naive.legacy, "{text:?}");
            assert_eq!(Marks::of(&text).imap_high, naive.imap_high, "{text:?}");
            // Each content word asked of a memory of its own, first (a
            // search of the text), and after the searches' allowance (the
            // index); then everything asked of one memory.
            for (word, raw) in contents.iter().zip(mails.iter().cycle()) {
                let fresh = Memory::open(dir.path()).unwrap();
                assert_eq!(
                    fresh.content(word, raw),
                    naive.content(word, raw),
                    "{word:?} in {text:?}"
                );
            }
            for place in &queried_places {
                let fresh = Memory::open(dir.path()).unwrap();
                assert_eq!(
                    fresh.knows_place(place),
                    naive.places.contains(&place.key()),
                    "{place:?} in {text:?}"
                );
                let fresh = Memory::open(dir.path()).unwrap();
                assert_eq!(fresh.imap_after(Some(7)), naive.imap_high.get(&7).copied());
            }
            // Every place known as the old way knew it, and the marks.
            let places_agree = |memory: &Memory, naive: &Naive, text: &str| {
                for place in &queried_places {
                    assert_eq!(
                        memory.knows_place(place),
                        naive.places.contains(&place.key()),
                        "{place:?} in {text:?}"
                    );
                }
                assert_eq!(memory.marks().imap_high, naive.imap_high, "{text:?}");
            };
            {
                // The marks asked first, a line remembered, then places.
                let copy = tempfile::tempdir().unwrap();
                std::fs::write(copy.path().join("read.log"), &text).unwrap();
                let mut memory = Memory::open(copy.path()).unwrap();
                let _ = memory.imap_after(Some(7));
                memory.remember(Some(&later.0), None, later.2).unwrap();
                let text = std::fs::read_to_string(copy.path().join("read.log")).unwrap();
                let naive = Naive::of(&text);
                places_agree(&memory, &naive, &text);
            }
            let mut memory = Memory::open(dir.path()).unwrap();
            let ask = |memory: &Memory, naive: &Naive, text: &str| {
                for (word, raw) in contents.iter().zip(mails.iter().cycle()) {
                    assert_eq!(
                        memory.content(word, raw),
                        naive.content(word, raw),
                        "{word:?} in {text:?}"
                    );
                }
                for (mail, key) in mails.iter().zip(&b3) {
                    assert_eq!(
                        memory.content(key, mail),
                        naive.content(key, mail),
                        "{text:?}"
                    );
                }
                assert_eq!(memory.marks().legacy, naive.legacy, "{text:?}");
                places_agree(memory, naive, text);
            };
            // Before anything is asked (searches, the legacy flag by a
            // search), then with the index built.
            // One search first (which may ask whether some key is an
            // earlier build's), so that what is remembered after it
            // updates what the search found.
            let unknown = b"Message-ID: <none@x>\r\n\r\nnothing\r\n";
            assert_eq!(
                memory.content(&content_key(unknown), unknown),
                naive.content(&content_key(unknown), unknown)
            );
            memory
                .remember(Some(&later.0), Some(&later.1), later.2)
                .unwrap();
            let text = std::fs::read_to_string(dir.path().join("read.log")).unwrap();
            naive = Naive::of(&text);
            ask(&memory, &naive, &text);
            memory.remember(None, Some(&later.1), 'K').unwrap();
            let text = std::fs::read_to_string(dir.path().join("read.log")).unwrap();
            ask(&memory, &Naive::of(&text), &text);
            ask(&Memory::open(dir.path()).unwrap(), &Naive::of(&text), &text);
        }
    }

    #[test]
    fn a_line_that_does_not_read_back_is_known_as_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let mut memory = Memory::open(dir.path()).unwrap();
        let spaced = Place::File("/m/new/a b".into());
        memory.remember(Some(&spaced), None, 'L').unwrap();
        assert!(memory.knows_place(&spaced));
        memory.remember(None, Some("x\ny"), 'A').unwrap();
        memory.remember(None, Some("b3:q"), '\r').unwrap();
        assert_eq!(memory.content("x\ny", b""), Some('A'));
        assert_eq!(memory.content("b3:q", b""), Some('\r'));
    }

    #[test]
    fn a_cut_line_is_read_as_later_runs_read_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("read.log"), "imap:7:5 abc \r").unwrap();
        let memory = Memory::open(dir.path()).unwrap();
        let ended = std::fs::read_to_string(dir.path().join("read.log")).unwrap();
        assert_eq!(ended, "imap:7:5 abc \r\n");
        let naive = Naive::of(&ended);
        assert_eq!(memory.content("abc", b""), naive.content("abc", b""));
        assert_eq!(memory.imap_after(Some(7)), naive.imap_high.get(&7).copied());
        assert_eq!(memory.imap_after(Some(7)), None);
    }

    #[test]
    fn the_fuzz_target_asks_the_search_and_the_parsed_lines() {
        let key = content_key(b"Message-ID: <1@x>\r\n\r\nbody\r\n");
        let legacy = "ab".repeat(32);
        // A cut last line is ended as `open` ends it: it says nothing.
        let text = format!("imap:7:5 {key} A\n- {legacy} R\n- {legacy} S\nimap:7:9 x ");
        assert_eq!(both_ways::outcome(&text, &key), (Some('A'), Some('A')));
        assert_eq!(both_ways::outcome(&text, &legacy), (Some('S'), Some('S')));
        assert_eq!(both_ways::outcome(&text, "x"), (None, None));
        assert_eq!(both_ways::outcome(&text, "b3:"), (None, None));
        assert_eq!(both_ways::imap_place(&text, 7, 5), (true, true));
        assert_eq!(both_ways::imap_place(&text, 7, 9), (false, false));
        assert_eq!(both_ways::imap_place(&text, 8, 5), (false, false));
        let [passed, parsed] = both_ways::marks(&text);
        assert_eq!(passed, (true, vec![(7, 5)]));
        assert_eq!(passed, parsed);
        let [passed, parsed] = both_ways::marks(&format!("imap:7:5 {key} A\n"));
        assert_eq!((passed.0, parsed.0), (false, false));
    }

    #[test]
    fn a_key_is_decoded_from_lowercase_hex_only() {
        let key = content_key(b"Message-ID: <1@x>\r\n\r\nbody\r\n");
        let hex = key.strip_prefix(KEY_PREFIX).unwrap();
        assert_eq!(hash_bytes(hex).map(hex::encode).as_deref(), Some(hex));
        assert_eq!(
            hash_bytes(&"0123456789abcdef".repeat(4)).unwrap()[..8],
            [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]
        );
        for bad in [b'A', b'F', b'g', b' ', b'/', b':', b'`', 0x80] {
            for at in [0, 1, 62, 63] {
                let mut text = hex.as_bytes().to_vec();
                text[at] = bad;
                let text = String::from_utf8_lossy(&text);
                assert_eq!(hash_bytes(&text), None, "{text}");
            }
        }
        assert_eq!(hash_bytes(&hex[1..]), None);
        assert_eq!(hash_bytes(&format!("{hex}0")), None);
    }

    /// A memory whose first lines are summarized (`read.idx`) answers
    /// every question as the lines read one by one do: each content word
    /// (by a search of the lines after the summary, and past the
    /// searches' allowance), the IMAP marks, and every place once the
    /// whole log is read for a listing; summarized again, the same.
    #[test]
    fn a_summarized_memory_answers_as_every_line_read_did() {
        let mails: Vec<Vec<u8>> = (0..6)
            .map(|i| format!("Message-ID: <{i}@x>\r\nFrom: a@x\r\n\r\nbody {i}\r\n").into_bytes())
            .collect();
        let mut contents: Vec<String> = mails.iter().map(|m| content_key(m)).collect();
        contents.extend(mails.iter().take(3).map(|m| sha256_content_key(m)));
        contents.push("-".into());
        // Words no build writes.
        contents.push("abc".into());
        contents.push("xyz".into());
        let places = [
            Place::Imap {
                validity: 7,
                uid: 42,
            },
            Place::Imap {
                validity: 7,
                uid: 43,
            },
            Place::Imap {
                validity: 9,
                uid: 1,
            },
            Place::File("/m/cur/1796.M1P2.host:2,S".into()),
            Place::Mbox {
                offset: 100,
                size: 10,
                digest: [1; 16],
            },
        ];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d_u64);
        for round in 0..150 {
            let mut first = String::new();
            for _ in 0..=next(30) {
                let place = if next(3) == 0 {
                    "-".to_owned()
                } else {
                    places[next(places.len())].key()
                };
                let content = &contents[next(contents.len())];
                // (`é`: a hand edit; no build writes it.)
                let outcome = ['A', 'R', 'S', 'I', 'K', 'é'][next(6)];
                first.push_str(&format!("{place} {content} {outcome}\n"));
            }
            // A word no build writes, asked about below.
            let other = round % 10 == 9;
            if other {
                first.push_str("- abc A\n");
            }
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("read.log"), &first).unwrap();
            drop(Memory::open_summarizing_after(dir.path(), 1).unwrap());
            // Summarized, a word no build writes with the rest (left out
            // of the tables, and said to be).
            assert!(dir.path().join(summary::FILE).exists(), "{first:?}");
            let mut memory = Memory::open_summarizing_after(dir.path(), u64::MAX).unwrap();
            for _ in 0..next(8) {
                let place = (next(2) == 0).then(|| &places[next(places.len())]);
                let content = &contents[next(contents.len())];
                memory
                    .remember(place, Some(content), ['A', 'R', 'S'][next(3)])
                    .unwrap();
            }
            drop(memory);
            let text = std::fs::read_to_string(dir.path().join("read.log")).unwrap();
            let naive = Naive::of(&text);
            let fresh = || Memory::open_summarizing_after(dir.path(), u64::MAX).unwrap();
            let ask = |memory: &Memory| {
                for (word, raw) in contents.iter().zip(mails.iter().cycle()) {
                    assert_eq!(
                        memory.content(word, raw),
                        naive.content(word, raw),
                        "{word:?} in {text:?}"
                    );
                }
                for validity in [7, 9, 8] {
                    assert_eq!(
                        memory.imap_after(Some(validity)),
                        naive.imap_high.get(&validity).copied(),
                        "{text:?}"
                    );
                }
            };
            for (word, raw) in contents.iter().zip(mails.iter().cycle()) {
                assert_eq!(fresh().content(word, raw), naive.content(word, raw));
            }
            ask(&fresh());
            let mut whole = fresh();
            whole.read_whole().unwrap();
            for place in &places {
                assert_eq!(
                    whole.knows_place(place),
                    naive.places.contains(&place.key()),
                    "{place:?} in {text:?}"
                );
            }
            ask(&whole);
            ask(&Memory::open_summarizing_after(dir.path(), 1).unwrap());
            ask(&fresh());
        }
    }

    /// A summary is used only for the log it was made of: one restored
    /// from a backup of the same length, cut, or damaged, or a summary
    /// damaged, is passed over and the log read whole.
    #[test]
    fn a_summary_of_another_log_or_a_damaged_one_is_not_used() {
        let key = |i: u8| format!("b3:{}", hex::encode([i; 32]));
        let log = |outcome: char| -> String {
            (0..200u8)
                .map(|i| format!("- {} {outcome}\n", key(i)))
                .collect()
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read.log");
        std::fs::write(&path, log('A')).unwrap();
        drop(Memory::open_summarizing_after(dir.path(), 1).unwrap());
        let summary = dir.path().join(summary::FILE);
        let made = std::fs::read(&summary).unwrap();
        let said = |dir: &Path| {
            Memory::open_summarizing_after(dir, u64::MAX)
                .unwrap()
                .content(&key(100), b"")
        };
        assert_eq!(said(dir.path()), Some('A'));
        // Another log of the same length: its own outcome.
        std::fs::write(&path, log('I')).unwrap();
        assert_eq!(said(dir.path()), Some('I'));
        // Cut shorter than the summary covers.
        std::fs::write(&path, &log('A')[..100]).unwrap();
        assert_eq!(said(dir.path()), None);
        // The summary cut, or its counts changed, with the log it was of.
        std::fs::write(&path, log('A')).unwrap();
        for damaged in [
            made[..made.len() - 1].to_vec(),
            made[..40].to_vec(),
            {
                let mut d = made.clone();
                let at = d.len() - 200 * 33 - 16;
                d[at] ^= 1;
                d
            },
            Vec::new(),
        ] {
            std::fs::write(&summary, &damaged).unwrap();
            assert_eq!(said(dir.path()), Some('A'));
        }
        // Any bytes in its place (a disk error, a sync tool): never a
        // panic, an allocation the file's size does not bound, or another
        // answer than the log's. A changed key or letter inside the tables
        // would pass (the file is a cache, not a proof: docs/performance.md).
        let tables = made.len() - 200 * 33;
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15_u64);
        for _ in 0..500 {
            let mut damaged = made.clone();
            match next(3) {
                0 => damaged.truncate(next(made.len())),
                1 => {
                    for _ in 0..=next(4) {
                        let at = next(tables);
                        damaged[at] = next(256) as u8;
                    }
                }
                _ => damaged = (0..next(300)).map(|_| next(256) as u8).collect(),
            }
            std::fs::write(&summary, &damaged).unwrap();
            let answer = said(dir.path());
            assert!(
                answer == Some('A') || damaged[..] == made[..],
                "{damaged:?}"
            );
        }
    }

    /// A summary left by another log (the log restored from a backup of
    /// an earlier day, here its first 150 lines) is passed over and the
    /// log "read whole and summarized anew" (docs/mail.md): the run that
    /// summarizes still answers from every line, and the new summary is
    /// the log's.
    #[test]
    fn a_log_restored_from_a_backup_is_summarized_anew_and_still_known() {
        let key = |i: u8| format!("b3:{}", hex::encode([i; 32]));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read.log");
        let line = |i: u8| format!("imap:7:{} {} A\n", 100 + u32::from(i), key(i));
        let log: String = (0..200u8).map(line).collect();
        std::fs::write(&path, &log).unwrap();
        drop(Memory::open_summarizing_after(dir.path(), 1).unwrap());
        assert!(dir.path().join(summary::FILE).exists());
        let restored: String = (0..150u8).map(line).collect();
        std::fs::write(&path, &restored).unwrap();
        let memory = Memory::open_summarizing_after(dir.path(), 1).unwrap();
        assert_eq!(
            memory.content(&key(100), b""),
            Some('A'),
            "a mail the restored log remembers is unknown to the run"
        );
        assert_eq!(memory.imap_after(Some(7)), Some(249));
        drop(memory);
        let memory = Memory::open_summarizing_after(dir.path(), u64::MAX).unwrap();
        assert_eq!(
            memory.summary.as_ref().map(|s| s.covered),
            Some(restored.len() as u64),
            "the summary left is not the restored log's"
        );
    }

    /// Once more than the threshold of lines stands past a summary, a run
    /// writes a new one (docs/mail.md: "Once more than 256 kB of lines
    /// stand past the summary, a run writes a new one"): the next run
    /// holds none of the lines summarized.
    #[test]
    fn a_second_summary_replaces_the_first() {
        let key = |i: u8| format!("b3:{}", hex::encode([i; 32]));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read.log");
        let first: String = (0..100u8).map(|i| format!("- {} A\n", key(i))).collect();
        std::fs::write(&path, &first).unwrap();
        drop(Memory::open_summarizing_after(dir.path(), 1).unwrap());
        let mut memory = Memory::open_summarizing_after(dir.path(), u64::MAX).unwrap();
        assert_eq!(
            memory.summary.as_ref().map(|s| s.covered),
            Some(first.len() as u64)
        );
        for i in 100..200u8 {
            memory.remember(None, Some(&key(i)), 'I').unwrap();
        }
        drop(memory);
        // Past the threshold (here 1 byte): summarized again.
        let memory = Memory::open_summarizing_after(dir.path(), 1).unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(memory.content(&key(150), b""), Some('I'));
        assert_eq!(
            memory.summary.as_ref().map(|s| s.covered),
            Some(len),
            "the run that summarized holds the old summary and every later line"
        );
        drop(memory);
        let memory = Memory::open_summarizing_after(dir.path(), u64::MAX).unwrap();
        assert_eq!(
            memory.text.len(),
            0,
            "read.idx was not renewed: every later run reads and parses the lines past it again"
        );
    }

    /// A byte of a summarized line damaged (a disk error, a sync tool;
    /// the summary still matches: its head and tail are intact) stops a
    /// Maildir listing, which reads the whole log, and stops it again at
    /// the next round of `yam read --watch` (docs/mail.md: "A memory with
    /// a byte that is not UTF-8 ... stops every read"): the first failed
    /// `read_whole` dropped the summary, so the second found nothing to
    /// read, said Ok, and the listing went on knowing none of the
    /// summarized mails (every one read again and remembered again).
    #[test]
    fn a_damaged_summarized_line_stops_every_listing_not_only_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read.log");
        let place = |i: u32| Place::File(format!("/m/cur/17{i:04}.M1P2.host:2,S").into());
        let lines: String = (0..300u32)
            .map(|i| {
                format!(
                    "{} b3:{} I\n",
                    place(i).key(),
                    hex::encode([(i % 251) as u8; 32])
                )
            })
            .collect();
        std::fs::write(&path, &lines).unwrap();
        drop(Memory::open_summarizing_after(dir.path(), 1).unwrap());
        // A byte in the middle of the summarized lines goes bad.
        let mut bytes = lines.into_bytes();
        let middle = bytes.len() / 2;
        let at = middle + bytes[middle..].iter().position(|&b| b == b':').unwrap() + 1;
        bytes[at] = 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let mut memory = Memory::open_summarizing_after(dir.path(), u64::MAX).unwrap();
        assert!(memory.summary.is_some(), "setup: the summary still matches");
        assert!(
            memory.read_whole().is_err(),
            "setup: the first listing stops"
        );
        // The watcher's next round.
        let again = memory.read_whole();
        assert!(
            again.is_err() || memory.knows_place(&place(0)),
            "the second listing goes on without the summarized lines: {again:?}, place 0 known: {}",
            memory.knows_place(&place(0))
        );
    }

    /// A line that is not UTF-8 after the summary is named by its line in
    /// the whole log.
    #[test]
    fn a_damaged_line_after_the_summary_is_named_by_its_line_in_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read.log");
        let lines: String = (0..50u8)
            .map(|i| format!("- b3:{} A\n", hex::encode([i; 32])))
            .collect();
        std::fs::write(&path, &lines).unwrap();
        drop(Memory::open_summarizing_after(dir.path(), 1).unwrap());
        let mut bytes = lines.into_bytes();
        bytes.extend_from_slice(b"- b3:00 A\nmaildir:\xff - I\n");
        std::fs::write(&path, &bytes).unwrap();
        let e = Memory::open_summarizing_after(dir.path(), u64::MAX).unwrap_err();
        assert!(e.to_string().starts_with("line 52 is damaged"), "{e}");
    }

    #[test]
    fn a_memory_that_is_not_utf8_is_an_error_and_stays_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = b"- b3:00 A\nmaildir:\xff - I";
        std::fs::write(dir.path().join("read.log"), bytes).unwrap();
        let e = Memory::open(dir.path()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(std::fs::read(dir.path().join("read.log")).unwrap(), bytes);
    }
}
