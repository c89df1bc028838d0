//! What can go wrong, typed, and the one place that turns it into an exit
//! code (as ripgrep does): 0 when everything was valid, 1 when some input
//! was invalid or refused, 2 for a usage or I/O error.
//!
//! The shared services return their own error types (`StoreError`,
//! `ConfigError`, `SecretError`, the referee's `TableError`, ...); a
//! command returns [`Error`], which wraps them with their cause, and a
//! [`Status`] when it finished but found (and reported) invalid input.

use std::path::PathBuf;

use thiserror::Error;

/// Exit code: everything checked is valid.
pub const EXIT_VALID: u8 = 0;
/// Exit code: some input is invalid (syntax, rules or fair play), or a
/// move or a mail was refused.
pub const EXIT_INVALID: u8 = 1;
/// Exit code: bad usage, or a file could not be read or written.
pub const EXIT_USAGE: u8 = 2;

/// How a command that ran to its end finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Everything was valid.
    Valid,
    /// Some input was invalid or refused, and said so.
    Invalid,
    /// A path named holds no record (a directory without a `.yam` file,
    /// or a file without a game), and said so.
    NoRecords,
    /// Some input could not be read (a file of many), and said so.
    Unreadable,
}

impl Status {
    /// The worse of two.
    pub fn and(self, other: Status) -> Status {
        self.max(other)
    }
}

/// Why a command stopped.
#[derive(Debug, Error)]
pub enum Error {
    /// The command line asks for something that cannot be done (a missing
    /// option, a game that does not exist, secrets that are elsewhere).
    #[error("{0}")]
    Usage(String),
    /// The input is invalid, or the referee refuses it: a record that does
    /// not verify, an illegal move, a mail that is refused.
    #[error("{0}")]
    Invalid(String),
    /// Already reported in full (a diagnostic with its frame): nothing
    /// more to say, but the command failed as `kind` says.
    #[error("")]
    Reported(Status),
    /// A file could not be read or written.
    #[error("{}: {action}: {source}", crate::diagnostics::visible_path(path))]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done (`cannot read`, `cannot write`).
        action: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// The data directory.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The configuration.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The secrets directory.
    #[error(transparent)]
    Secret(#[from] crate::game::secrets::SecretError),
    /// The referee refused a step of a signed game.
    #[error("refused: {0}")]
    Table(#[from] yam_referee::signed::table::TableError),
    /// A Castle Siege setup that cannot be sealed.
    #[error(transparent)]
    Setup(#[from] crate::game::setup::SetupRefusal),
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, action: &'static str, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            action,
            source,
        }
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(message.into())
    }

    /// Invalid input, or a refusal.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::Invalid(message.into())
    }
}

/// The result of a command.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The exit code of a command's result: the only place one is chosen.
pub fn exit_code(result: &Result<Status>) -> u8 {
    match result {
        Ok(status) => status_code(*status),
        Err(Error::Reported(status)) => status_code(*status),
        Err(
            Error::Invalid(_)
            | Error::Table(_)
            | Error::Setup(crate::game::setup::SetupRefusal::WrongSide { .. }),
        ) => EXIT_INVALID,
        Err(Error::Setup(crate::game::setup::SetupRefusal::AnotherKept { .. })) => EXIT_USAGE,
        Err(
            Error::Usage(_)
            | Error::Io { .. }
            | Error::Store(_)
            | Error::Config(_)
            | Error::Secret(_),
        ) => EXIT_USAGE,
    }
}

fn status_code(status: Status) -> u8 {
    match status {
        Status::Valid => EXIT_VALID,
        Status::Invalid => EXIT_INVALID,
        Status::NoRecords | Status::Unreadable => EXIT_USAGE,
    }
}
