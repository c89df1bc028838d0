//! Positions in the source text, so every later error can point at the text.

use std::fmt;

/// A point in the source: byte offset from the start of the input, and the
/// 1-based line and column (the column counts characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// Byte offset from the start of the input (a BOM counts).
    pub offset: u64,
    /// 1-based line number; lines end at LF (a CR before it is ignored).
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

impl Pos {
    /// The first character of an input.
    pub const START: Pos = Pos {
        offset: 0,
        line: 1,
        column: 1,
    };
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A stretch of source text: where it starts and how many bytes it spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Where the text starts.
    pub start: Pos,
    /// Its length in bytes.
    pub len: u32,
}

impl Span {
    /// A span of `len` bytes starting at `start`.
    pub fn new(start: Pos, len: usize) -> Span {
        Span {
            start,
            len: u32::try_from(len).unwrap_or(u32::MAX),
        }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.start.fmt(f)
    }
}
