//! `yam config check`: try every account of the configuration and say what
//! is wrong, before a turn depends on it.

use std::path::{Path, PathBuf};

use crate::config::{Config, IncomingConfig, Where};
use crate::error::{Error, Result, Status};
use crate::mail::{imap, transport};

/// `yam config` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ConfigCommand {
    /// Read the configuration and try each account: SMTP (connect and log
    /// in), sendmail, IMAP (log in and open the mailbox), Maildir, mbox.
    #[command(
        after_help = "Examples:\n  yam config check\n  yam config check --data-dir ~/yam\n  yam config check --config ~/yam/config.yaml"
    )]
    Check {
        /// Where the configuration is: the same place every mail command
        /// reads it from.
        #[command(flatten)]
        place: Where,
    },
}

/// The file earlier versions of `config check` alone read by default: the
/// mail commands never did, so a configuration kept there was never used.
fn former_config_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("yam").join("config.yaml"))
}

/// Run a `yam config` subcommand.
pub fn run(command: &ConfigCommand) -> Result<Status> {
    match command {
        ConfigCommand::Check { place } => {
            let path = place.config_file();
            if !path.exists()
                && let Some(former) = former_config_path().filter(|p| p.exists())
            {
                return Err(Error::usage(format!(
                    "{}: no configuration. {} exists, but Yam reads its configuration from the data directory (or --config, $YAM_CONFIG): move it to {}, or name it with --config",
                    path.display(),
                    former.display(),
                    path.display()
                )));
            }
            check(&path)
        }
    }
}

fn check(path: &Path) -> Result<Status> {
    let config = Config::load(path)?;
    outln!(
        "{}: identity {} <{}> (key {})",
        path.display(),
        config.identity.name,
        config.identity.address,
        config.identity.key
    );
    let mut ok = true;
    let mut report = |what: &str, result: Result<String, String>| match result {
        Ok(fine) => outln!("  ok      {what}: {fine}"),
        Err(wrong) => {
            ok = false;
            outln!("  FAILED  {what}: {wrong}");
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
        Some(IncomingConfig::Maildir { path, .. }) => {
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
