//! Helpers for Yam's end-to-end tests: the `yam` binary under test, the
//! mail servers, client shapes of real mails, and an attacker.

pub mod attacker;
pub mod browser;
pub mod shapes;

use std::path::Path;

/// The workspace root.
pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
}

/// The path of the `yam` binary under test: cargo builds it from the
/// current sources before the tests (`src/bin/yam-e2e.rs`). A macro, so
/// that `env!` reads the path cargo gives the integration test being built.
#[macro_export]
macro_rules! yam_bin {
    () => {
        std::path::Path::new(env!("CARGO_BIN_EXE_yam-e2e"))
    };
}

/// A `yam` command, run from the workspace root.
#[macro_export]
macro_rules! yam {
    () => {
        $crate::command(env!("CARGO_BIN_EXE_yam-e2e"))
    };
}

/// A command running `bin` from the workspace root.
pub fn command(bin: &str) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(bin);
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

/// Whether the tip file at `tip` is a tip of exactly `text` that this
/// build reads back (`docs/fair-play.md`, 9.11): what a client's next turn
/// restores instead of verifying the record whole. The game's ruleset
/// must be a built-in one (no ruleset file is looked for). A tip that holds for no
/// text costs nothing but time, so only a test that asks sees one.
pub fn tip_is_of(tip: &Path, text: &str) -> bool {
    let Ok(bytes) = std::fs::read(tip) else {
        return false;
    };
    let bytes: yam_referee::signed::SharedBytes = std::sync::Arc::new(bytes);
    yam_referee::signed::Tip::restore(&bytes, text, &yam_referee::replay::Builtin).is_some()
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

/// The CPU time `yam ARGS` takes (user and system, in the kernel's clock
/// ticks, 100 a second), from the accounting of the shell that ran it and
/// waited for it (a reaped child's times are added to its parent's
/// `cutime` and `cstime`, `/proc/PID/stat`): a measure the machine's load
/// moves far less than the time on the clock, for the tests that hold a
/// cost to its growth (docs/performance.md: speed itself is measured in
/// benchmarks). Whatever its exit status: the caller looks at what it made.
#[cfg(target_os = "linux")]
pub fn cpu_ticks(yam: &std::ffi::OsStr, args: &[&std::ffi::OsStr]) -> u64 {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#""$0" "$@" >/dev/null 2>&1; cat /proc/$$/stat"#)
        .arg(yam)
        .args(args)
        .current_dir(workspace())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The fields after the command's name, which is in parentheses:
    // cutime and cstime are the 16th and 17th of the line.
    let after = text.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    match (fields.get(12), fields.get(13)) {
        (Some(user), Some(system)) => user + system,
        _ => panic!("the shell's /proc stat has no cutime and cstime: {text:?}"),
    }
}

/// The read(2) calls `yam ARGS` makes (the binary `yam`, from
/// [`yam_bin!`]), with `env` set, run from the workspace: from the kernel's
/// accounting of the shell that ran it and waited for it (a reaped child's
/// reads are added to its parent's `/proc/PID/io`), a count the machine's
/// load does not move. The run must succeed.
#[cfg(target_os = "linux")]
pub fn read_calls(yam: &std::ffi::OsStr, args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> u64 {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#""$0" "$@" >/dev/null 2>&1 || echo failed; grep '^syscr:' /proc/$$/io"#)
        .arg(yam)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(workspace())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("failed"), "yam {args:?} failed");
    text.trim()
        .strip_prefix("syscr:")
        .unwrap_or_else(|| panic!("no syscr in {text:?}"))
        .trim()
        .parse()
        .unwrap()
}

/// The tag characters (U+E0000..U+E007F) and U+061C ARABIC LETTER MARK in
/// `text`: characters that draw as nothing or reorder text, which no
/// output may carry from someone else's text as they stand.
pub fn tag_characters_and_letter_marks(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| c == '\u{061C}' || ('\u{E0000}'..='\u{E007F}').contains(&c))
        .collect()
}
