//! Cutting an archive into pieces of whole games, so that the pieces can be
//! read in parallel.
//!
//! A piece ends where a game starts: at a line that begins with `[` and a
//! letter and follows a line that does not. That is the reader's own rule
//! for finding the next game after an error (`docs/notation.md`, section 7),
//! so reading the pieces one by one finds the same games, good or bad, as
//! reading the whole archive.
//!
//! A piece is never held larger than the reader's element limit
//! ([`crate::reader::DEFAULT_MAX_ELEMENT`]) plus a target's worth: past it
//! with no game start in hand, the held bytes go out as one piece (whose
//! last game the reader refuses: garbage as garbage, a game longer than the
//! limit as cut off) and the rest of the stretch is skipped to the next
//! game start without being kept. A gigabyte without a line break costs
//! the limit, not a gigabyte.

use std::io::{self, Read};

/// Whole games cut from an archive, with where they start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The absolute byte offset of `bytes[0]` in the archive.
    pub offset: u64,
    /// The 1-based line of `bytes[0]` in the archive.
    pub line: u32,
}

/// Cuts an archive into pieces of about `target` bytes (larger when one
/// game is larger, up to the reader's element limit: see
/// [`Splitter::next`]).
#[derive(Debug)]
pub struct Splitter<R> {
    src: R,
    carry: Vec<u8>,
    offset: u64,
    line: u32,
    target: usize,
    /// Past this many bytes without a game starting, what is held goes
    /// out as a piece and the rest of that stretch is skipped.
    limit: usize,
    eof: bool,
    /// Skipping the rest of a stretch too long to hold, up to the next
    /// game start; with what the skipped lines were.
    skip: Option<Lines>,
}

/// A UTF-8 byte-order mark.
pub(crate) const BOM: [u8; 3] = [0xef, 0xbb, 0xbf];

/// The most bytes of a line [`tag_line_start`] needs: a byte-order mark,
/// `[` and a letter.
pub(crate) const TAG_LINE_HEAD: usize = 5;

/// Whether a line whose first bytes are `head` is a tag line: `[` and a
/// letter, after a byte-order mark or not (records saved with one by an
/// editor and joined with `cat` bring one to the first line of every game
/// after the first: docs/notation.md, section 7); `None` while `head` is
/// too short to say (never once it holds [`TAG_LINE_HEAD`] bytes). The
/// game-start rule every scan shares: the reader's recovery and the
/// splitter's cuts.
pub(crate) fn tag_line_start(head: &[u8]) -> Option<bool> {
    let rest = match head.first() {
        Some(&first) if first == BOM[0] => {
            if head.len() < BOM.len() {
                return if BOM.starts_with(head) {
                    None
                } else {
                    Some(false)
                };
            }
            if head[..BOM.len()] != BOM {
                return Some(false);
            }
            &head[BOM.len()..]
        }
        _ => head,
    };
    match rest {
        [a, b, ..] => Some(*a == b'[' && b.is_ascii_alphabetic()),
        _ => None,
    }
}

/// Where a scan of skipped bytes stands, for the game-start rule: whether
/// the line before the current one is a tag line, and what is known of
/// the current line's first bytes.
#[derive(Debug, Clone, Copy)]
struct Lines {
    /// Whether the last complete line was a tag line.
    previous_tag: bool,
    /// The current line's first bytes seen while its kind is open.
    head: [u8; TAG_LINE_HEAD],
    /// How many of `head` are seen.
    seen: usize,
    /// The current line's kind, once settled.
    kind: Option<bool>,
}

impl Lines {
    fn after(previous_tag: bool) -> Lines {
        Lines {
            previous_tag,
            head: [0; TAG_LINE_HEAD],
            seen: 0,
            kind: None,
        }
    }

    /// Where the lines stand at the end of `bytes` (held text that holds
    /// no game start), and how many of its bytes may go: all but a last
    /// line whose kind is still open, which stays held because whether a
    /// game starts there waits for its next bytes.
    fn at_end_of(bytes: &[u8]) -> (Lines, usize) {
        let kind_at = |start: usize, end: usize| {
            tag_line_start(&bytes[start..end.min(start + TAG_LINE_HEAD)])
        };
        let tail = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
        let previous_tag = tail > 0 && {
            let before = memchr::memrchr(b'\n', &bytes[..tail - 1]).map_or(0, |i| i + 1);
            // A line ended before its kind was settled is no tag line.
            kind_at(before, tail - 1) == Some(true)
        };
        let mut lines = Lines::after(previous_tag);
        match kind_at(tail, bytes.len()) {
            None => (lines, tail),
            kind => {
                lines.kind = kind;
                (lines, bytes.len())
            }
        }
    }
}

impl<R: Read> Splitter<R> {
    /// A splitter over `src`, aiming at pieces of `target` bytes.
    pub fn new(src: R, target: usize) -> Splitter<R> {
        Splitter::with_limit(src, target, crate::reader::DEFAULT_MAX_ELEMENT)
    }

    /// [`Splitter::new`], holding at most about `limit` bytes (at least
    /// `target`) of a stretch in which no game starts.
    fn with_limit(src: R, target: usize, limit: usize) -> Splitter<R> {
        let target = target.max(1);
        Splitter {
            src,
            carry: Vec::new(),
            offset: 0,
            line: 1,
            target,
            limit: limit.max(target).max(2),
            eof: false,
            skip: None,
        }
    }

    /// Drops the first `n` bytes held, counting their offset and lines.
    fn discard(&mut self, n: usize) {
        let lines = memchr::memchr_iter(b'\n', &self.carry[..n]).count();
        self.line = self
            .line
            .saturating_add(u32::try_from(lines).unwrap_or(u32::MAX));
        self.offset += n as u64;
        self.carry.drain(..n);
    }

    /// Skips held bytes up to the next game start (the reader's rule: a
    /// line that starts with `[` and a letter after a line that does not),
    /// reading on as needed; `false` when the input ends first.
    fn skip_to_game(&mut self, mut lines: Lines) -> io::Result<bool> {
        loop {
            let mut i = 0;
            let mut found = None;
            while i < self.carry.len() {
                let b = self.carry[i];
                if b == b'\n' {
                    // A line ended before its kind was settled is no tag
                    // line.
                    lines = Lines::after(lines.kind == Some(true));
                    i += 1;
                    continue;
                }
                if lines.kind.is_some() {
                    // Mid-line: on to its end.
                    match memchr::memchr(b'\n', &self.carry[i..]) {
                        Some(k) => i += k,
                        None => i = self.carry.len(),
                    }
                    continue;
                }
                lines.head[lines.seen] = b;
                lines.seen += 1;
                lines.kind = tag_line_start(&lines.head[..lines.seen]);
                if lines.kind == Some(true) && !lines.previous_tag {
                    // The line began `seen` bytes before (bytes kept from
                    // the last scan are scanned again).
                    found = Some(i + 1 - lines.seen);
                    break;
                }
                i += 1;
            }
            if let Some(start) = found {
                self.discard(start);
                return Ok(true);
            }
            // Keep a line's first bytes while its kind is open: the game
            // starts at them if it does.
            let keep = if lines.kind.is_none() { lines.seen } else { 0 };
            lines.seen = 0;
            self.discard(self.carry.len() - keep);
            if self.eof {
                return Ok(false);
            }
            self.read_more(self.target)?;
        }
    }

    fn read_more(&mut self, want: usize) -> io::Result<()> {
        // Read into the spare capacity as it is: zeroing a quarter of a
        // megabyte a piece first cost as much as cutting the pieces. What
        // was read before an error is kept, as `read_to_end` keeps it.
        self.carry.reserve(want);
        let got = (&mut self.src)
            .take(want as u64)
            .read_to_end(&mut self.carry)?;
        if got < want {
            self.eof = true;
        }
        Ok(())
    }

    /// Where the last game starting after `from` begins, if any.
    fn last_game_start(&self, from: usize) -> Option<usize> {
        let bytes = &self.carry;
        let kind_at = |at: usize| tag_line_start(&bytes[at..bytes.len().min(at + TAG_LINE_HEAD)]);
        let mut end = bytes.len();
        while let Some(newline) = memchr::memrchr(b'\n', &bytes[..end]) {
            let line_start = newline + 1;
            if line_start <= from {
                return None;
            }
            // The line's kind must be settled by the bytes in hand.
            if kind_at(line_start) == Some(true) {
                let previous = memchr::memrchr(b'\n', &bytes[..newline]).map_or(0, |i| i + 1);
                if kind_at(previous) != Some(true) {
                    return Some(line_start);
                }
            }
            end = newline;
        }
        None
    }
}

impl<R: Read> Iterator for Splitter<R> {
    type Item = io::Result<Piece>;

    fn next(&mut self) -> Option<io::Result<Piece>> {
        if let Some(lines) = self.skip.take() {
            match self.skip_to_game(lines) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
        loop {
            if self.carry.len() < self.target && !self.eof {
                let want = self.target - self.carry.len();
                if let Err(e) = self.read_more(want) {
                    return Some(Err(e));
                }
                continue;
            }
            let cut = if self.eof {
                self.carry.len()
            } else {
                match self.last_game_start(0) {
                    Some(cut) => cut,
                    None if self.carry.len() < self.limit => {
                        // One game larger than the target: read on.
                        let want = self
                            .target
                            .max(self.carry.len())
                            .min(self.limit - self.carry.len());
                        if let Err(e) = self.read_more(want) {
                            return Some(Err(e));
                        }
                        continue;
                    }
                    // No game starts in more than the reader would hold of
                    // one element: what is held goes out as a piece (the
                    // reader refuses its game), and the rest of the
                    // stretch is skipped, as the reader's recovery skips
                    // it, without holding it.
                    None => {
                        let (lines, cut) = Lines::at_end_of(&self.carry);
                        self.skip = Some(lines);
                        cut
                    }
                }
            };
            if cut == 0 {
                return None;
            }
            let rest = self.carry.split_off(cut);
            let bytes = std::mem::replace(&mut self.carry, rest);
            let piece = Piece {
                offset: self.offset,
                line: self.line,
                bytes,
            };
            self.offset += piece.bytes.len() as u64;
            let lines = memchr::memchr_iter(b'\n', &piece.bytes).count();
            self.line = self
                .line
                .saturating_add(u32::try_from(lines).unwrap_or(u32::MAX));
            return Some(Ok(piece));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stretch without a game start longer than the limit is not held:
    /// what was held goes out as a piece, the rest is skipped, and the next
    /// game is found where it starts, with its offset and line, whatever
    /// the limit and wherever the stretch's lines end.
    #[test]
    fn a_long_stretch_without_a_game_is_skipped_in_bounded_memory() {
        for junk in [
            "x".repeat(997),
            "[not a tag line\n".repeat(60),
            "a\n[\n".repeat(200),
            "\n".repeat(500),
            "[%a comment]\n[b\n".repeat(90),
        ] {
            let second = game(2);
            let text = format!("{}{{{junk}\n{second}{}", game(1), game(3));
            let at = text.find(&second).unwrap();
            for limit in 100..400 {
                for target in [1, 3, 7] {
                    let pieces: Vec<Piece> = Splitter::with_limit(text.as_bytes(), target, limit)
                        .map(Result::unwrap)
                        .collect();
                    let starting = pieces.iter().find(|p| p.offset as usize >= at);
                    let piece = starting.unwrap_or_else(|| panic!("limit {limit}: {pieces:?}"));
                    assert_eq!(piece.offset as usize, at, "limit {limit} target {target}");
                    assert!(
                        piece.bytes.starts_with(second.as_bytes()),
                        "junk {:?} limit {limit} target {target}: {:?}",
                        &junk[..10],
                        String::from_utf8_lossy(&piece.bytes)
                    );
                    let line = 1 + text[..at].matches('\n').count();
                    assert_eq!(piece.line as usize, line);
                    for p in &pieces {
                        let start = p.offset as usize;
                        assert_eq!(&text.as_bytes()[start..start + p.bytes.len()], &p.bytes[..]);
                        assert!(
                            p.bytes.len() <= 2 * limit.max(target) + 8,
                            "{}",
                            p.bytes.len()
                        );
                    }
                    let last = pieces.last().unwrap();
                    assert_eq!(last.offset as usize + last.bytes.len(), text.len());
                }
            }
        }
    }

    /// Sixty-four megabytes of NUL bytes, a megabyte held at most.
    #[test]
    fn zeros_without_end_are_read_in_bounded_memory() {
        let zeros = io::repeat(0).take(64 << 20);
        let mut pieces = 0;
        for piece in Splitter::with_limit(zeros, 1 << 16, 1 << 20) {
            let piece = piece.unwrap();
            assert!(piece.bytes.len() <= 1 << 21);
            pieces += 1;
        }
        assert_eq!(pieces, 1);
    }

    fn game(id: usize) -> String {
        format!("[Game \"Khan\"]\n[GameId \"{id}\"]\n\n1. Ng3-f3 {{a comment\n[%x]}} *\n\n")
    }

    #[test]
    fn pieces_are_whole_games_and_cover_everything() {
        let text: String = (0..200).map(game).collect();
        for target in [1, 10, 100, 1000, 100_000] {
            let pieces: Vec<Piece> = Splitter::new(text.as_bytes(), target)
                .map(Result::unwrap)
                .collect();
            let joined: Vec<u8> = pieces.iter().flat_map(|p| p.bytes.clone()).collect();
            assert_eq!(joined, text.as_bytes(), "target {target}");
            for p in &pieces {
                assert!(p.bytes.starts_with(b"[Game"), "target {target}");
                let before = &text.as_bytes()[..p.offset as usize];
                assert_eq!(
                    p.line as usize,
                    before.iter().filter(|&&b| b == b'\n').count() + 1
                );
            }
        }
    }

    #[test]
    fn a_game_saved_with_a_byte_order_mark_is_cut_where_its_mark_is() {
        // Records saved with a mark and joined with `cat`, and junk whose
        // lines begin with a mark, a part of one, or a mark and no tag.
        let text: String = (0..60)
            .map(|i| match i % 4 {
                0 => format!("\u{feff}{}", game(i)),
                1 => format!("{}\u{feff}[not a tag\n\u{feff}\n", game(i)),
                2 => format!("{{\u{feff}x\n\u{feff}[%c]}}\n{}", game(i)),
                _ => game(i),
            })
            .collect();
        let read = |bytes: &[u8]| -> Vec<String> {
            crate::record::read_all::<crate::raw::RawGrammar, _>(bytes)
                .unwrap()
                .into_iter()
                .map(|g| match g {
                    Ok(_) => "good".to_owned(),
                    Err(e) => format!("{:?} {:?}", e.kind, e.found),
                })
                .collect()
        };
        let whole = read(text.as_bytes());
        // Sixty games (these lack required tags) and the fifteen junk
        // lines that begin with a mark and `[n`; every game's header whole.
        assert_eq!(whole.len(), 75, "{whole:#?}");
        assert!(!whole.iter().any(|g| g.contains("\"Game\"")), "{whole:#?}");
        for target in [1, 2, 3, 4, 5, 6, 10, 100, 1000] {
            let pieces: Vec<Piece> = Splitter::with_limit(text.as_bytes(), target, 64)
                .map(Result::unwrap)
                .collect();
            let joined: Vec<u8> = pieces.iter().flat_map(|p| p.bytes.clone()).collect();
            assert_eq!(joined, text.as_bytes(), "target {target}");
            let by_pieces: Vec<String> = pieces.iter().flat_map(|p| read(&p.bytes)).collect();
            assert_eq!(by_pieces, whole, "target {target}");
            for p in &pieces[1..] {
                assert!(
                    p.bytes.starts_with(b"[Game")
                        || p.bytes.starts_with("\u{feff}[Game".as_bytes())
                        || p.bytes.starts_with("\u{feff}[not".as_bytes()),
                    "target {target}: {:?}",
                    String::from_utf8_lossy(&p.bytes)
                );
            }
        }
    }

    /// A game cut short (no result, a comment or a variation left open)
    /// before a header saved with a mark: the header is where reading
    /// resumes, read whole or in pieces.
    #[test]
    fn a_header_with_a_mark_ends_a_game_left_open() {
        let next = format!("\u{feff}{}", game(2));
        let header = "[Game \"Khan\"]\n[Variant \"Basic\"]\n[GameId \"1\"]\n[Date \"2026.12.07\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"basic\"]\n\n";
        for open in [
            "1. Ng3-f3\n",
            "1. Ng3-f3 {never closed\n",
            "1. Ng3-f3 (1. Ng3-f2\n",
        ] {
            let text = format!("{header}{open}{next}");
            let games =
                crate::record::read_all::<crate::raw::RawGrammar, _>(text.as_bytes()).unwrap();
            assert_eq!(games.len(), 2, "{text:?}: {games:#?}");
            let second = games[1]
                .as_ref()
                .map_or_else(|e| format!("{:?}", e.kind), |_| String::new());
            assert!(second.starts_with("MissingTags"), "{text:?}: {games:#?}");
            let first = games[0]
                .as_ref()
                .map_or_else(|e| format!("{:?}", e.kind), |_| String::new());
            assert!(
                [
                    "MissingResult",
                    "UnterminatedComment",
                    "UnterminatedVariation"
                ]
                .iter()
                .any(|k| first.starts_with(k)),
                "{text:?}: {first}"
            );
            for target in [1, 5, 20] {
                let by_pieces: usize = Splitter::new(text.as_bytes(), target)
                    .map(|p| {
                        crate::record::read_all::<crate::raw::RawGrammar, _>(&p.unwrap().bytes[..])
                            .unwrap()
                            .len()
                    })
                    .sum();
                assert_eq!(by_pieces, 2, "{text:?} target {target}");
            }
        }
    }

    #[test]
    fn the_game_start_rule_reads_a_mark_before_the_tag() {
        let mark = "\u{feff}";
        assert_eq!(tag_line_start(b"[G"), Some(true));
        assert_eq!(tag_line_start(format!("{mark}[G").as_bytes()), Some(true));
        assert_eq!(tag_line_start(format!("{mark}[").as_bytes()), None);
        assert_eq!(tag_line_start(&BOM[..2]), None);
        assert_eq!(tag_line_start(&[0xef, 0xbb, b'[']), Some(false));
        assert_eq!(
            tag_line_start(format!("{mark}{mark}[G").as_bytes()),
            Some(false)
        );
        assert_eq!(tag_line_start(format!("{mark}[%").as_bytes()), Some(false));
        assert_eq!(tag_line_start(b" [G"), Some(false));
        assert_eq!(tag_line_start(b"["), None);
    }

    #[test]
    fn header_lines_are_never_separated() {
        let text = "[Game \"Khan\"]\n[GameId \"1\"]\n[Result \"*\"]\n\n*\n".repeat(50);
        for piece in Splitter::new(text.as_bytes(), 7).map(Result::unwrap) {
            assert!(piece.bytes.starts_with(b"[Game"));
        }
    }
}
