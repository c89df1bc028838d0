//! Why a ruleset could not be had: one set of errors for the three games.
//!
//! - [`RulesetTextError`]: a ruleset's text is not a ruleset (where, and
//!   what is wrong). Every game reads its rulesets from YAML, so the text
//!   fails the same way whatever the game.
//! - [`RulesetError`]: a `Ruleset` tag names no ruleset that can be played:
//!   no built-in one has the name, the ruleset's text is not valid, or the
//!   ruleset file it names may not be named or cannot be read.
//! - [`RulesetPathError`]: a `Ruleset` tag gives a path that no record may
//!   name (`crate::ruleset_name`).

use std::fmt;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use yam_notation::GameKind;

use crate::ruleset_name::{MAX_FILE_BYTES, MAX_PATH_BYTES, builtins};

/// Why a `Ruleset` tag names no ruleset that can be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesetError {
    /// No built-in ruleset of `game` has the name (the message lists those
    /// that do).
    #[error("no standard {} ruleset is called {name:?}; {}", game.name(), known(*game))]
    Unknown {
        /// The game whose rulesets were searched.
        game: GameKind,
        /// The name asked for, as written.
        name: String,
    },
    /// The ruleset's text is not a valid ruleset of its game.
    #[error("ruleset {name}: {error}")]
    Invalid {
        /// The ruleset's name, as the `Ruleset` tag gives it.
        name: String,
        /// Where and what is wrong.
        error: RulesetTextError,
    },
    /// The tag gives a path that no record may name.
    #[error(transparent)]
    Path(#[from] RulesetPathError),
    /// The tag names a ruleset file, but this game takes built-in rulesets
    /// only.
    #[error(
        "ruleset files are read for Khan games only in this version; a {game} record names a built-in ruleset"
    )]
    FileForGame {
        /// The record's game.
        game: GameKind,
    },
    /// The ruleset file the tag names cannot be read.
    #[error(
        "ruleset file {} (the Ruleset tag's path, taken from the record's directory): {problem}",
        path.display()
    )]
    Unreadable {
        /// The file, as the reader looked for it.
        path: PathBuf,
        /// Why it cannot be read.
        problem: FileProblem,
    },
    /// The ruleset file's text is not a valid ruleset.
    #[error("ruleset file {}: {error}", path.display())]
    InvalidFile {
        /// The file.
        path: PathBuf,
        /// Where and what is wrong.
        error: RulesetTextError,
    },
}

/// `there are basic, magician, ...`: the built-in rulesets of `game`.
fn known(game: GameKind) -> String {
    match builtins(game) {
        [(one, _)] => format!("there is {one}"),
        list => {
            let names: Vec<&str> = list.iter().map(|(n, _)| *n).collect();
            format!("there are {}", names.join(", "))
        }
    }
}

/// Why a ruleset file could not be read. The referee reads no files: the
/// command line does, and says why not in these words (an I/O error in its
/// own words, since the referee has no use for its kind).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileProblem {
    /// The file cannot be opened.
    #[error("cannot open: {0}")]
    Open(String),
    /// The path is a directory or some other thing than a file.
    #[error("not a file")]
    NotAFile,
    /// Reading the open file failed.
    #[error("cannot read: {0}")]
    Read(String),
    /// The file is longer than [`MAX_FILE_BYTES`].
    #[error("larger than {} KiB, too large for a ruleset", MAX_FILE_BYTES / 1024)]
    TooLarge,
    /// The file is not UTF-8 text.
    #[error("not UTF-8 text (byte {byte} is not)")]
    NotUtf8 {
        /// The first byte that is not, from 1.
        byte: usize,
    },
}

/// Why a `Ruleset` tag that gives a file's path is refused: a record
/// travels by mail, so it may only name a file in its own directory or
/// below it, ending in `.yaml` or `.yml` (`crate::ruleset_name`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the Ruleset tag {tag:?} names a ruleset file, but {why}; a record names its ruleset file by a path relative to the record's directory that only goes down, such as rulesets/NAME.yaml"
)]
pub struct RulesetPathError {
    /// The tag's value.
    pub tag: String,
    /// What is wrong with the path.
    pub why: BadPath,
}

/// What is wrong with a ruleset file's path in a `Ruleset` tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadPath {
    /// Longer than a record may give.
    #[error("the path is longer than {} bytes", MAX_PATH_BYTES)]
    TooLong,
    /// A `\`: folders are separated by `/` on every system.
    #[error("the path contains a backslash (write / between folders)")]
    Backslash,
    /// A control character.
    #[error("the path contains a control character")]
    ControlCharacter,
    /// A character that draws as nothing or reorders the text around it
    /// (`yam_notation::is_hidden`): printed in a message, a right-to-left
    /// override reordered the line.
    #[error(
        "the path contains an invisible character (one that draws as nothing or reorders text)"
    )]
    Invisible,
    /// A path from the root or a drive.
    #[error("the path is absolute")]
    Absolute,
    /// `//`, or a `/` at an end.
    #[error("the path has an empty part (// or a / at an end)")]
    EmptyPart,
    /// A `.` or `..` part, which could leave the record's directory.
    #[error("the path contains . or ..")]
    Dots,
    /// The file's name does not end in `.yaml` or `.yml` (or is only that).
    #[error("the file's name does not end in .yaml or .yml")]
    NotYaml,
}

/// Why a ruleset's text is not a ruleset: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RulesetTextError {
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RulesetTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl RulesetTextError {
    /// What the YAML reader found wrong, with its line and column kept
    /// apart from the words.
    pub fn from_yaml(e: &serde_yaml_ng::Error) -> RulesetTextError {
        let loc = e.location();
        let mut message = e.to_string();
        if let Some(l) = &loc {
            // The library appends the location to its message; we keep it apart.
            let suffix = format!(" at line {} column {}", l.line(), l.column());
            if let Some(stripped) = message.strip_suffix(&suffix) {
                message = stripped.to_owned();
            }
        }
        RulesetTextError {
            line: loc.as_ref().map(|l| l.line()),
            column: loc.as_ref().map(|l| l.column()),
            message,
        }
    }
}

/// Reads a ruleset's YAML text into `T`, or says where and why not.
pub(crate) fn read_yaml<T: DeserializeOwned>(text: &str) -> Result<T, RulesetTextError> {
    serde_yaml_ng::from_str(text).map_err(|e| RulesetTextError::from_yaml(&e))
}
