//! Cutting an archive into pieces of whole games, so that the pieces can be
//! read in parallel.
//!
//! A piece ends where a game starts: at a line that begins with `[` and a
//! letter and follows a line that does not. That is the reader's own rule
//! for finding the next game after an error (`docs/notation.md`, section 7),
//! so reading the pieces one by one finds the same games, good or bad, as
//! reading the whole archive.

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
/// game is larger).
#[derive(Debug)]
pub struct Splitter<R> {
    src: R,
    carry: Vec<u8>,
    offset: u64,
    line: u32,
    target: usize,
    eof: bool,
}

impl<R: Read> Splitter<R> {
    /// A splitter over `src`, aiming at pieces of `target` bytes.
    pub fn new(src: R, target: usize) -> Splitter<R> {
        Splitter {
            src,
            carry: Vec::new(),
            offset: 0,
            line: 1,
            target: target.max(1),
            eof: false,
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
        let starts_tag = |at: usize| {
            bytes.get(at) == Some(&b'[') && bytes.get(at + 1).is_some_and(u8::is_ascii_alphabetic)
        };
        let mut end = bytes.len();
        while let Some(newline) = memchr::memrchr(b'\n', &bytes[..end]) {
            let line_start = newline + 1;
            if line_start <= from {
                return None;
            }
            // Both this line's first two bytes must be in hand.
            if line_start + 1 < bytes.len() && starts_tag(line_start) {
                let previous = memchr::memrchr(b'\n', &bytes[..newline]).map_or(0, |i| i + 1);
                if !starts_tag(previous) {
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
                    None => {
                        // One game larger than the target: read on.
                        let want = self.target.max(self.carry.len());
                        if let Err(e) = self.read_more(want) {
                            return Some(Err(e));
                        }
                        continue;
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
    fn header_lines_are_never_separated() {
        let text = "[Game \"Khan\"]\n[GameId \"1\"]\n[Result \"*\"]\n\n*\n".repeat(50);
        for piece in Splitter::new(text.as_bytes(), 7).map(Result::unwrap) {
            assert!(piece.bytes.starts_with(b"[Game"));
        }
    }
}
