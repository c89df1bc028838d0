//! Why a ruleset could not be had: one set of errors for the three games.
//!
//! Every game reads its rulesets from YAML, so a ruleset's text fails the
//! same way whatever the game: [`RulesetTextError`], where and what is
//! wrong.

use std::fmt;

use serde::de::DeserializeOwned;

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
