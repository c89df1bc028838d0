//! `yam config check`: try every account of the configuration and say what
//! is wrong, before a turn depends on it.

use std::path::{Path, PathBuf};

use crate::config::{Config, IncomingConfig};
use crate::error::{Result, Status};
use crate::mail::{imap, transport};

/// `yam config` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ConfigCommand {
    /// Read the configuration and try each account: SMTP (connect and log
    /// in), sendmail, IMAP (log in and open the mailbox), Maildir, mbox.
    #[command(
        after_help = "Examples:\n  yam config check\n  yam config check --config ~/yam/config.yaml"
    )]
    Check {
        /// The configuration file (default: $YAM_CONFIG, else
        /// $XDG_CONFIG_HOME/yam/config.yaml, else ~/.config/yam/config.yaml).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
}

/// The configuration file to use when none is named.
pub fn default_config_path() -> PathBuf {
    if let Some(path) = std::env::var_os("YAM_CONFIG") {
        return PathBuf::from(path);
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("yam").join("config.yaml")
}

/// Run a `yam config` subcommand.
pub fn run(command: &ConfigCommand) -> Result<Status> {
    match command {
        ConfigCommand::Check { config } => {
            check(&config.clone().unwrap_or_else(default_config_path))
        }
    }
}

fn check(path: &Path) -> Result<Status> {
    let config = Config::load(path)?;
    println!(
        "{}: identity {} <{}> (key {})",
        path.display(),
        config.identity.name,
        config.identity.address,
        config.identity.key
    );
    let mut ok = true;
    let mut report = |what: &str, result: Result<String, String>| match result {
        Ok(fine) => println!("  ok      {what}: {fine}"),
        Err(wrong) => {
            ok = false;
            println!("  FAILED  {what}: {wrong}");
        }
    };
    match &config.outgoing {
        None => report(
            "outgoing",
            Err("no outgoing account: turns cannot be sent".into()),
        ),
        Some(out) => {
            let result = out
                .transport()
                .map_err(|e| e.to_string())
                .and_then(|t| transport::check(&t).map_err(|e| e.to_string()));
            report("outgoing", result);
        }
    }
    match &config.incoming {
        None => report(
            "incoming",
            Err("no incoming account: turns must be piped in".into()),
        ),
        Some(IncomingConfig::Imap(imap_config)) => {
            let result = imap_config
                .account()
                .map_err(|e| e.to_string())
                .and_then(|account| {
                    imap::check(&account)
                        .map(|n| {
                            format!(
                                "IMAP {}@{}:{} {} holds {n} messages",
                                account.user, account.host, account.port, account.mailbox
                            )
                        })
                        .map_err(|e| e.to_string())
                });
            report("incoming", result);
        }
        Some(IncomingConfig::Maildir { path }) => {
            let complete = ["cur", "new", "tmp"]
                .iter()
                .all(|sub| path.join(sub).is_dir());
            report(
                "incoming",
                if complete {
                    Ok(format!("Maildir {}", path.display()))
                } else {
                    Err(format!(
                        "{} is not a Maildir (it needs cur/, new/ and tmp/)",
                        path.display()
                    ))
                },
            );
        }
        Some(IncomingConfig::Mbox { path }) => report(
            "incoming",
            std::fs::File::open(path)
                .map(|_| format!("mbox {}", path.display()))
                .map_err(|e| format!("{}: {e}", path.display())),
        ),
    }
    Ok(if ok { Status::Valid } else { Status::Invalid })
}
