//! Syntax errors: where, what was found, what was expected.

use std::borrow::Cow;
use std::fmt;

use crate::pos::Pos;

/// What went wrong, in words a player or archivist can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// Something else stood where the reader needed a particular construct.
    Expected(Cow<'static, str>),
    /// A comment `{` was never closed.
    UnterminatedComment,
    /// A variation `(` was never closed.
    UnterminatedVariation,
    /// A `)` with no variation open.
    UnopenedVariation,
    /// A backslash escape that the notation does not define.
    BadEscape(&'static str),
    /// The game's movetext has no result token.
    MissingResult,
    /// A result where none may stand: inside a variation, or text after it.
    StrayResult(&'static str),
    /// The `Result` tag and the movetext's result disagree.
    ResultMismatch {
        /// The value of the `Result` tag.
        tag: String,
        /// The result token that ends the movetext.
        movetext: String,
    },
    /// Required tags are missing from the header.
    MissingTags(Vec<&'static str>),
    /// A tag appears twice in one header.
    DuplicateTag(String),
    /// The `Game` tag names no game Yam knows.
    UnknownGame(String),
    /// The `NotationVersion` tag names a version this reader cannot read.
    UnsupportedVersion(String),
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    /// The game's grammar refused a move token.
    BadMove(Cow<'static, str>),
    /// A visitor refused a tag value.
    BadTag(Cow<'static, str>),
    /// A Genghis Khan deal from physical cards (`FoeLayout`, `KhanDeck`)
    /// that no deck could give, or that cannot stand in this header: which
    /// tag, which card, what was expected.
    BadDeal(String),
    /// One element is longer than the reader will hold in memory.
    TooLong(usize),
    /// One game is longer than the reader reads (the limit, in bytes).
    GameTooLong(u64),
    /// Variations nest deeper than the reader's limit (the number): a
    /// `(` opened one more.
    TooDeep(u32),
    /// The input ends in the middle of a game.
    Truncated(&'static str),
    /// A carriage return not followed by a line feed: lines end in LF or
    /// CRLF (an old Macintosh file, CR only, is refused at its first line).
    LoneCarriageReturn,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Expected(what) => write!(f, "expected {what}"),
            ErrorKind::UnterminatedComment => f.write_str("unterminated comment: no `}` closes it"),
            ErrorKind::UnterminatedVariation => {
                f.write_str("unterminated variation: no `)` closes it")
            }
            ErrorKind::UnopenedVariation => f.write_str("`)` closes no variation"),
            ErrorKind::BadEscape(allowed) => write!(f, "bad escape; allowed here: {allowed}"),
            ErrorKind::MissingResult => {
                f.write_str("missing result: the movetext must end with a result such as 1-0 or *")
            }
            ErrorKind::StrayResult(why) => write!(f, "stray result: {why}"),
            ErrorKind::LoneCarriageReturn => f.write_str(
                "a carriage return (CR) without a line feed: lines end in LF or CRLF; convert the file's line endings (for instance `mac2unix`)",
            ),
            ErrorKind::ResultMismatch { tag, movetext } => write!(
                f,
                "the Result tag says {tag} but the movetext ends with {movetext}"
            ),
            ErrorKind::MissingTags(names) => {
                write!(f, "missing required tags: {}", names.join(", "))
            }
            ErrorKind::DuplicateTag(name) => write!(f, "tag {name} appears twice"),
            ErrorKind::UnknownGame(name) => write!(
                f,
                "unknown game {name:?}; expected Khan, Castle Siege or Genghis Khan"
            ),
            ErrorKind::UnsupportedVersion(v) => write!(
                f,
                "notation version {v:?} is not supported; this reader reads version {}",
                crate::tags::NOTATION_VERSION
            ),
            ErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            ErrorKind::BadMove(expected) => write!(f, "not a valid move: expected {expected}"),
            ErrorKind::BadTag(expected) => write!(f, "bad tag value: expected {expected}"),
            ErrorKind::BadDeal(reason) => write!(f, "the recorded deal is refused: {reason}"),
            ErrorKind::TooLong(limit) => write!(f, "element longer than {limit} bytes"),
            ErrorKind::GameTooLong(limit) => write!(
                f,
                "game longer than {} MiB: not read (a played game is a few hundred kilobytes; the rest of it is skipped)",
                limit >> 20
            ),
            ErrorKind::TooDeep(limit) => write!(
                f,
                "variations nest more than {limit} deep: this `(` opens one more than the limit"
            ),
            ErrorKind::Truncated(inside) => write!(f, "the input ends inside {inside}"),
        }
    }
}

/// A syntax error in one game of an archive.
///
/// The reader has already moved past the bad game when it returns this, so
/// the next read starts with the next game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Where the problem is.
    pub pos: Pos,
    /// What is wrong.
    pub kind: ErrorKind,
    /// The offending text (at most a line's worth), empty at end of input.
    pub found: String,
    /// The 1-based number of the game in the input.
    pub game: u64,
    /// Where that game starts.
    pub game_start: Pos,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: game {}: {}", self.pos, self.game, self.kind)?;
        if self.found.is_empty() {
            f.write_str(" (found the end of the input)")
        } else {
            write!(f, " (found {:?})", self.found)
        }
    }
}

impl std::error::Error for ParseError {}

/// What can stop a read: the input could not be read, or a game is malformed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Reading the input failed; the reader cannot go on.
    #[error("read error: {0}")]
    Io(#[from] std::io::Error),
    /// A game is malformed; the reader has skipped it and can go on.
    #[error("{0}")]
    Syntax(Box<ParseError>),
}

impl ReadError {
    /// The syntax error, if this is one.
    pub fn syntax(&self) -> Option<&ParseError> {
        match self {
            ReadError::Syntax(e) => Some(e),
            ReadError::Io(_) => None,
        }
    }
}
