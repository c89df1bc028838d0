//! Helpers for Yam's end-to-end tests: the `yam` binary, built once.

pub mod attacker;
pub mod shapes;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
}

/// The path of the `yam` binary, built (once per test process) with the
/// same profile as the tests.
pub fn yam_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "-p", "yam-cli", "--bin", "yam"])
            .current_dir(workspace())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building yam failed");
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace().join("target"));
        target.join("debug").join("yam")
    })
}

/// A `yam` command, run from the workspace root.
pub fn yam() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(yam_bin());
    cmd.current_dir(workspace());
    cmd
}

/// A variable `scripts/test.sh` sets for the mail servers it starts; the
/// mail tests fail, saying so, without it.
pub fn mail_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: run the tests with scripts/test.sh, which starts the mail servers"
        )
    })
}

/// A mailbox name of a test's own, so tests running at once never see each
/// other's mail.
pub fn fresh_user(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{prefix}{}{nanos}", std::process::id())
}

/// Where the mail servers `scripts/test.sh` started listen, and their
/// logins.
#[derive(Debug, Clone)]
pub struct MailServers {
    /// The servers' directory (Maildirs under `home/USER/Maildir`).
    pub dir: String,
    /// The SMTP port (AUTH required).
    pub smtp_port: u16,
    /// The IMAP port.
    pub imap_port: u16,
    /// The SMTP login.
    pub smtp_user: String,
    /// Its password.
    pub smtp_password: String,
    /// Every IMAP user's password.
    pub imap_password: String,
}

/// The mail servers of `scripts/test.sh`; fails, saying so, without them.
pub fn mail_servers() -> MailServers {
    let port = |name: &str| {
        mail_env(name)
            .parse()
            .unwrap_or_else(|_| panic!("{name} is not a port"))
    };
    MailServers {
        dir: mail_env("YAM_MAILTEST_DIR"),
        smtp_port: port("YAM_MAILTEST_SMTP_PORT"),
        imap_port: port("YAM_MAILTEST_IMAP_PORT"),
        smtp_user: mail_env("YAM_MAILTEST_SMTP_USER"),
        smtp_password: mail_env("YAM_MAILTEST_SMTP_PASSWORD"),
        imap_password: mail_env("YAM_MAILTEST_IMAP_PASSWORD"),
    }
}
