//! The configuration file: who I am and how my mail travels.
//!
//! ```yaml
//! identity:
//!   name: Ann
//!   address: ann@example.org
//!   key: ann                 # the signing identity in the secrets directory
//! outgoing:
//!   smtp:
//!     host: smtp.example.org
//!     port: 587
//!     security: starttls     # tls | starttls | none (none: this machine only)
//!     user: ann@example.org
//!     password_command: "pass show mail/ann"   # or password: "..."
//! incoming:
//!   imap:
//!     host: imap.example.org
//!     port: 993
//!     tls: true
//!     user: ann@example.org
//!     password_command: "pass show mail/ann"
//!     mailbox: INBOX
//! ```
//!
//! `outgoing` may instead be `sendmail: { program: /usr/sbin/sendmail }` or
//! `directory: { path: outbox }` (offline play); `incoming` may be
//! `maildir: { path: ~/Maildir }` or `mbox: { path: ~/mbox }`. Read with
//! serde_yaml_ng; an error names the line and column.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::mail::imap::ImapAccount;
use crate::mail::transport::{Outgoing, Security};

/// Where a player's things are: the data directory and the configuration
/// file, found one way by every command (`yam config check` too).
///
/// The data directory is `--data-dir`, else `$YAM_DATA_DIR`, else
/// `$XDG_DATA_HOME/yam`, else `~/.local/share/yam`; the configuration is
/// `--config`, else `$YAM_CONFIG`, else `config.yaml` in the data
/// directory.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Where {
    /// The data directory (games, secrets, contacts, config.yaml).
    #[arg(long, global = true, env = "YAM_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The configuration file (default: config.yaml in the data directory).
    #[arg(long, global = true, env = "YAM_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
}

impl Where {
    /// The data directory.
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir
            .clone()
            .unwrap_or_else(crate::store::default_data_dir)
    }

    /// The configuration file.
    pub fn config_file(&self) -> PathBuf {
        self.config
            .clone()
            .unwrap_or_else(|| self.data_dir().join("config.yaml"))
    }
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Who I am.
    pub identity: IdentityConfig,
    /// How mail leaves.
    #[serde(default, with = "serde_yaml_ng::with::singleton_map")]
    pub outgoing: Option<OutgoingConfig>,
    /// Where mail arrives.
    #[serde(default, with = "serde_yaml_ng::with::singleton_map")]
    pub incoming: Option<IncomingConfig>,
    /// Deadlines of mail games.
    #[serde(default)]
    pub deadlines: Option<DeskDeadlines>,
}

/// The deadlines of a player's mail games.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeskDeadlines {
    /// Days of silence before `yam remind` may remind the opponent
    /// (default 7).
    pub remind_after_days: Option<u32>,
}

impl Config {
    /// Days of silence before a reminder may be sent.
    pub fn remind_after_days(&self) -> u32 {
        self.deadlines
            .as_ref()
            .and_then(|d| d.remind_after_days)
            .unwrap_or(7)
    }
}

/// Who I am.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentityConfig {
    /// My name, as players see it.
    pub name: String,
    /// My mail address.
    #[serde(deserialize_with = "mail_address")]
    pub address: String,
    /// The signing identity's name in the secrets directory.
    #[serde(deserialize_with = "key_name")]
    pub key: String,
}

/// A mail address a mail can carry (`name@domain`), checked as the
/// configuration is read, so its error names the file, line and column:
/// taken as written, a mistyped address was refused only by the first
/// mail, naming no file.
fn mail_address<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let address = String::deserialize(d)?;
    match address.parse::<lettre::Address>() {
        Ok(_) => Ok(address),
        Err(e) => Err(serde::de::Error::custom(format!(
            "{address:?} is not a mail address ({e}); write it as name@domain"
        ))),
    }
}

/// A signing identity's name as the secrets directory keeps it.
fn key_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let key = String::deserialize(d)?;
    if crate::game::secrets::valid_name(&key) {
        Ok(key)
    } else {
        Err(serde::de::Error::custom(format!(
            "{key:?} cannot name a key (letters, digits, '_', '-' and '.', at most 32, starting with a letter or digit)"
        )))
    }
}

/// How mail leaves.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum OutgoingConfig {
    /// An SMTP server.
    Smtp(SmtpConfig),
    /// A sendmail-compatible program.
    Sendmail {
        /// Its path.
        program: PathBuf,
    },
    /// Mail written as files into a directory.
    Directory {
        /// The directory.
        path: PathBuf,
    },
}

/// An SMTP account.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    /// Host name.
    pub host: String,
    /// Port; by default 465 for TLS, 587 for STARTTLS, 25 without.
    pub port: Option<u16>,
    /// `tls`, `starttls` or `none`.
    #[serde(default = "starttls")]
    pub security: SecurityConfig,
    /// Login, when the server wants AUTH.
    pub user: Option<String>,
    /// Password, in the clear (prefer `password_command`).
    pub password: Option<String>,
    /// A command that prints the password.
    pub password_command: Option<String>,
}

/// How an SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SecurityConfig {
    /// TLS from the first byte.
    Tls,
    /// STARTTLS, required.
    Starttls,
    /// No TLS (a server on this machine only).
    None,
}

fn starttls() -> SecurityConfig {
    SecurityConfig::Starttls
}

/// Where mail arrives.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum IncomingConfig {
    /// An IMAP account.
    Imap(ImapConfig),
    /// A local Maildir.
    Maildir {
        /// Its path.
        path: PathBuf,
        /// Another Maildir into which Yam moves its own mails once dealt
        /// with (e.g. `~/Maildir/.Yam`); by default they stay, marked read.
        #[serde(default)]
        file_into: Option<PathBuf>,
    },
    /// A local mbox file.
    Mbox {
        /// Its path.
        path: PathBuf,
    },
}

/// An IMAP account.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    /// Host name.
    pub host: String,
    /// Port; by default 993 with TLS, 143 without.
    pub port: Option<u16>,
    /// TLS from the first byte (default true).
    #[serde(default = "yes")]
    pub tls: bool,
    /// Login.
    pub user: String,
    /// Password, in the clear (prefer `password_command`).
    pub password: Option<String>,
    /// A command that prints the password.
    pub password_command: Option<String>,
    /// The mailbox to read (default INBOX).
    #[serde(default = "inbox")]
    pub mailbox: String,
    /// A folder into which Yam moves its own mails once dealt with (e.g.
    /// `Yam`); by default they stay in the mailbox, marked read.
    #[serde(default)]
    pub file_into: Option<String>,
}

fn yes() -> bool {
    true
}

fn inbox() -> String {
    "INBOX".into()
}

/// Why the configuration cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// The YAML is malformed or does not fit.
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A password could not be obtained.
    #[error("password: {0}")]
    Password(String),
}

impl Config {
    /// Read a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let mut config = Config::parse(&text, &path.display().to_string())?;
        // Paths in the file are relative to the file, not to wherever the
        // command happens to run.
        if let Some(base) = path.parent() {
            config.resolve_paths(base);
        }
        Ok(config)
    }

    /// Makes the relative paths of the configuration relative to `base`
    /// (the configuration file's directory). `~/` stands for the home
    /// directory.
    pub fn resolve_paths(&mut self, base: &Path) {
        let fix = |p: &mut PathBuf| *p = resolve(base, p);
        match &mut self.incoming {
            Some(IncomingConfig::Maildir { path, file_into }) => {
                fix(path);
                if let Some(folder) = file_into {
                    fix(folder);
                }
            }
            Some(IncomingConfig::Mbox { path }) => fix(path),
            _ => {}
        }
        if let Some(OutgoingConfig::Directory { path }) = &mut self.outgoing {
            fix(path);
        }
    }

    /// Read a configuration from text; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<Config, ConfigError> {
        serde_yaml_ng::from_str(text).map_err(|e| {
            let (mut line, mut column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
            // The YAML reader names a key written twice at the start of
            // its mapping: named where it is written the second time.
            if let Some(key) = e
                .to_string()
                .split_once("duplicate field `")
                .and_then(|(_, rest)| rest.split_once('`'))
                .map(|(key, _)| key.to_owned())
                && let Some(place) = second_key(text, &key, line, column)
            {
                (line, column) = place;
            }
            ConfigError::Syntax {
                path: name.to_owned(),
                line,
                column,
                message: e.to_string(),
            }
        })
    }
}

/// Where `key` is written the second time in the block mapping that
/// starts at `line` and `column` (1-based): the line and column of the
/// second line, from there on, that holds the key at the mapping's
/// indentation.
fn second_key(text: &str, key: &str, line: usize, column: usize) -> Option<(usize, usize)> {
    let indent = column.saturating_sub(1);
    yaml_lines(text)
        .enumerate()
        .skip(line.saturating_sub(1))
        .filter(|(_, l)| {
            l.len() > indent
                && l.as_bytes()[..indent].iter().all(|&b| b == b' ')
                && l[indent..]
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.trim_end() == ":" || rest.starts_with(": "))
        })
        .nth(1)
        .map(|(n, _)| (n + 1, column))
}

/// The lines of `text` as the YAML reader counts them (its line numbers
/// are these): broken by LF, CR LF, a CR alone, NEL, LS and PS.
pub fn yaml_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let now = rest?;
        match now
            .char_indices()
            .find(|&(_, c)| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}'))
        {
            Some((at, c)) => {
                let after = if now[at..].starts_with("\r\n") {
                    at + 2
                } else {
                    at + c.len_utf8()
                };
                rest = (after < now.len()).then(|| &now[after..]);
                Some(&now[..at])
            }
            None => {
                rest = None;
                (!now.is_empty()).then_some(now)
            }
        }
    })
}

/// `path` relative to `base` (`~/` to the home directory); an absolute
/// path as it is.
pub fn resolve(base: &Path, path: &Path) -> PathBuf {
    if let Ok(rest) = path.strip_prefix("~")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

fn password(
    plain: &Option<String>,
    command: &Option<String>,
) -> Result<Option<String>, ConfigError> {
    if let Some(p) = plain {
        return Ok(Some(p.clone()));
    }
    let Some(command) = command else {
        return Ok(None);
    };
    let output = std::process::Command::new("sh")
        .args(["-c", command])
        .output()
        .map_err(|e| ConfigError::Password(format!("cannot run {command:?}: {e}")))?;
    if !output.status.success() {
        return Err(ConfigError::Password(format!(
            "{command:?} failed ({})",
            output.status
        )));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(Some(text.lines().next().unwrap_or_default().to_owned()))
}

impl OutgoingConfig {
    /// The transport this configuration describes.
    pub fn transport(&self) -> Result<Outgoing, ConfigError> {
        Ok(match self {
            OutgoingConfig::Smtp(smtp) => {
                let security = match smtp.security {
                    SecurityConfig::Tls => Security::Tls,
                    SecurityConfig::Starttls => Security::StartTls,
                    SecurityConfig::None => Security::None,
                };
                let port = smtp.port.unwrap_or(match security {
                    Security::Tls => 465,
                    Security::StartTls => 587,
                    Security::None => 25,
                });
                let auth = match (
                    &smtp.user,
                    password(&smtp.password, &smtp.password_command)?,
                ) {
                    (Some(user), Some(pass)) => Some((user.clone(), pass)),
                    (Some(_), None) => {
                        return Err(ConfigError::Password(
                            "smtp: a user but no password or password_command".into(),
                        ));
                    }
                    (None, _) => None,
                };
                Outgoing::Smtp {
                    host: smtp.host.clone(),
                    port,
                    security,
                    auth,
                }
            }
            OutgoingConfig::Sendmail { program } => Outgoing::Sendmail {
                program: program.clone(),
            },
            OutgoingConfig::Directory { path } => Outgoing::Directory { dir: path.clone() },
        })
    }
}

impl ImapConfig {
    /// The account this configuration describes.
    pub fn account(&self) -> Result<ImapAccount, ConfigError> {
        let password = password(&self.password, &self.password_command)?
            .ok_or_else(|| ConfigError::Password("imap: no password or password_command".into()))?;
        Ok(ImapAccount {
            host: self.host.clone(),
            port: self.port.unwrap_or(if self.tls { 993 } else { 143 }),
            tls: self.tls,
            user: self.user.clone(),
            password,
            mailbox: self.mailbox.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key written twice is named where it is written again, past lines
    /// of any script (a name in Greek before it).
    #[test]
    fn a_key_written_twice_is_named_at_its_second_line() {
        let text =
            "identity:\n  name: Σωκράτης\n  address: s@example.org\n  key: s\n  name: again\n";
        let Err(ConfigError::Syntax { line, column, .. }) = Config::parse(text, "c.yaml") else {
            panic!("a duplicate name is refused");
        };
        assert_eq!((line, column), (5, 3));
        assert_eq!(second_key("  é: x\né\n", "é", 1, 1), None);
        // A CR alone breaks a line for the YAML reader: so here.
        assert_eq!(second_key("a: 1\rb: 2\ra: 3\n", "a", 1, 1), Some((3, 1)));
        let lines: Vec<&str> = yaml_lines("a\r\nb\rc\u{2028}d\n\ne").collect();
        assert_eq!(lines, ["a", "b", "c", "d", "", "e"]);
    }

    #[test]
    fn a_full_config_reads() {
        let text = "identity:\n  name: Ann\n  address: ann@example.org\n  key: ann\noutgoing:\n  smtp:\n    host: smtp.example.org\n    user: ann\n    password_command: echo s3cret\nincoming:\n  imap:\n    host: imap.example.org\n    user: ann\n    password: pw\n";
        let config = Config::parse(text, "config.yaml").unwrap();
        let Some(Outgoing::Smtp {
            port,
            security,
            auth,
            ..
        }) = config.outgoing.as_ref().map(|o| o.transport().unwrap())
        else {
            panic!("smtp")
        };
        assert_eq!((port, security), (587, Security::StartTls));
        assert_eq!(auth, Some(("ann".into(), "s3cret".into())));
        let Some(IncomingConfig::Imap(imap)) = &config.incoming else {
            panic!("imap")
        };
        let account = imap.account().unwrap();
        assert_eq!(
            (account.port, account.tls, account.mailbox.as_str()),
            (993, true, "INBOX")
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let text = "identity:\n  name: Ann\n  adress: ann@example.org\n  key: ann\n";
        let err = Config::parse(text, "config.yaml").unwrap_err();
        let ConfigError::Syntax {
            line,
            column,
            message,
            ..
        } = &err
        else {
            panic!("{err}")
        };
        assert_eq!(*line, 3, "{err}");
        assert!(*column >= 3, "{err}");
        assert!(message.contains("adress"), "{err}");
        let err = Config::parse("identity:\n  name: Ann\n  address: a@b\n  key: k\noutgoing:\n  smtp:\n    host: h\n    security: sometimes\n", "c.yaml").unwrap_err();
        assert!(err.to_string().starts_with("c.yaml:8:"), "{err}");
    }
}
