//! Machine-readable output (`--format json`): JSON Lines, one object a
//! line, written as each game is judged, so an archive of any size streams
//! in constant memory and a script reads it line by line.
//!
//! Every object names its schema (`"schema": "yam-check/1"`), and its
//! `"type"`: `"game"` for one game, `"file"` for one file's summary,
//! `"total"` for the grand total of several files. The schemas are in
//! `docs/schema/` and documented in `docs/json.md`; a version changes
//! only when a field changes meaning or goes away (new fields may appear
//! within a version, so a reader ignores fields it does not know).
//!
//! The fields are the human output's, computed once: the same counts,
//! the same first failure (line, column, offending text, rule and reason).

use std::io::Write;

use serde::Serialize;
use yam_notation::ParseError;

/// How a command prints what it found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: diagnostics framed around the fault, summary lines.
    #[default]
    Human,
    /// For scripts: JSON Lines on standard output (docs/json.md).
    Json,
}

/// The schema of `yam check --format json`.
pub const CHECK_SCHEMA: &str = "yam-check/1";
/// The schema of `yam verify --format json`.
pub const VERIFY_SCHEMA: &str = "yam-verify/1";

/// Write `value` as one line of standard output. A closed pipe ends the
/// output quietly, as for the human form.
pub fn emit<T: Serialize>(value: &T) {
    let mut out = std::io::stdout().lock();
    if serde_json::to_writer(&mut out, value).is_ok() {
        let _ = out.write_all(b"\n");
    }
}

/// Where a game failed, and why.
#[derive(Debug, Serialize)]
pub struct Failure {
    /// `syntax`, `rules` or `verification`.
    pub kind: &'static str,
    /// 1-based line of the file.
    pub line: u32,
    /// 1-based column (in characters).
    pub column: u32,
    /// The offending text (a token, a tag, the result), as written.
    pub text: String,
    /// Why it is refused: the rule broken, or what was expected.
    pub reason: String,
    /// The move number written before the offending move (`12.`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_number: Option<String>,
    /// The position before the offending move, in the game's own
    /// notation, if the rules refused a move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

impl Failure {
    /// A syntax error, positions in the file's terms.
    pub fn syntax(e: &ParseError) -> Failure {
        Failure {
            kind: "syntax",
            line: e.pos.line,
            column: e.pos.column,
            text: e.found.clone(),
            reason: e.kind.to_string(),
            move_number: None,
            position: None,
        }
    }

    /// A rule broken, positions in the file's terms.
    pub fn rules(v: &yam_referee::check::Violation) -> Failure {
        Failure {
            kind: "rules",
            line: v.span.start.line,
            column: v.span.start.column,
            text: v.token.clone(),
            reason: v.reason.clone(),
            move_number: (!v.move_number.is_empty()).then(|| v.move_number.clone()),
            position: (!v.position.is_empty()).then(|| v.position.clone()),
        }
    }
}
