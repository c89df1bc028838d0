#![allow(dead_code)]
//! Shared by the robot tests. Helpers for the robot's end-to-end tests: players who write plain mails
//! and read the robot's answers from their Maildir.

use std::path::{Path, PathBuf};
use std::process::Output;

use mail_parser::MimeHeaders;

use yam_referee::replay::Builtin;
use yam_referee::signed::{SignedReplay, replay_text};

/// A mail as a player sees it.
#[derive(Debug, Clone)]
pub struct Received {
    /// Subject.
    pub subject: String,
    /// Message-ID.
    pub message_id: String,
    /// Text.
    pub body: String,
    /// The attached record, if any.
    pub record: Option<String>,
}

/// Reads one raw mail.
pub fn parse(raw: &[u8]) -> Received {
    let m = mail_parser::MessageParser::default()
        .parse(raw)
        .expect("a mail");
    let record = m
        .attachments()
        .find(|a| a.attachment_name().is_some_and(|n| n.ends_with(".yam")))
        // A record sent as its lines comes with CRLF, as every text on the
        // wire; the desk's reader takes them back to LF (`mail::extract`).
        .map(|a| String::from_utf8_lossy(a.contents()).replace("\r\n", "\n"));
    Received {
        subject: m.subject().unwrap_or_default().to_owned(),
        message_id: m.message_id().unwrap_or_default().to_owned(),
        body: m.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
        record,
    }
}

/// Every mail file of a Maildir (new and cur), in delivery order.
pub fn maildir_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for sub in ["new", "cur"] {
        if let Ok(entries) = std::fs::read_dir(dir.join(sub)) {
            for e in entries.flatten() {
                files.push(e.path());
            }
        }
    }
    files.sort_by_key(|p| {
        (
            std::fs::metadata(p).and_then(|m| m.modified()).ok(),
            p.file_name().map(|n| n.to_owned()),
        )
    });
    files
}

/// The token in a welcome or invitation mail.
pub fn token_in(body: &str) -> Option<String> {
    body.lines().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("Your token is:")
            .or_else(|| l.strip_prefix("You are new to the robot: your token is"))
            .map(|t| t.trim().to_owned())
    })
}

/// The game id in a robot answer's `X-Yam-Game`-free text: the first word
/// after "game " that looks like an id.
pub fn game_in(body: &str) -> Option<String> {
    body.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '-')))
        .find(|w| (w.starts_with("khan-") || w.starts_with("genghis-khan-")) && w.len() > 14)
        .map(str::to_owned)
}

/// Replays a record the robot sent.
pub fn replay(record: &str) -> SignedReplay {
    let games = yam_cli::game::record::read_signed(record.as_bytes()).expect("readable");
    let signed = games.into_iter().next().expect("one game").expect("parses");
    replay_text(&signed, &Builtin).unwrap_or_else(|_| panic!("the record verifies:\n{record}"))
}

/// A plain mail from a player.
pub fn mail(from: &str, to: &str, id: &str, subject: &str, body: &str) -> lettre::Message {
    lettre::Message::builder()
        .from(from.parse().expect("address"))
        .to(to.parse().expect("address"))
        .message_id(Some(format!("<{id}>")))
        .subject(subject)
        .body(body.to_owned())
        .expect("a mail")
}

/// The steps where `YAM_ROBOT_KILL_AT` kills the robot, in the order a
/// mail goes through them (`docs/robot.md`, "Crash safety").
pub const KILL_STEPS: [&str; 5] = [
    "after-read",
    "after-apply",
    "before-done",
    "after-send",
    "after-archive",
];

/// `yam robot run --once` with the environment given; its output.
pub fn robot_once(config: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = std::process::Command::new(yam_tests::yam_bin!());
    cmd.args(["robot", "run", "--once", "--config"]).arg(config);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("yam runs")
}
