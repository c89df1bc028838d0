//! `yam robot`: a referee on a mail address, for players who install
//! nothing. It reads a mailbox (IMAP or a Maildir), obeys the commands it
//! finds (`command`), refereeing every game in the local store with keys
//! and chains it keeps for its players (`decide`), and answers by SMTP.
//! `docs/robot.md` describes running it, its commands and its security.
//!
//! One file per job: `command` (the language), `auth` (tokens), `hygiene`
//! (what is never answered; rate limits), `clock` (time and deadlines),
//! `roll` (rolls with the player's seed), `decide` (deciding; its
//! `witness` keeps the games of players with their own keys, who name the
//! robot as referee), `journal` (crash safety), `files` (private files),
//! and here the loop and the mailbox.

pub mod auth;
pub mod clock;
pub mod command;
pub mod decide;
pub mod files;
pub mod hygiene;
pub mod journal;
pub mod roll;

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Subcommand;
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox as Address, MultiPart, SinglePart};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::config::{IncomingConfig, OutgoingConfig};
use crate::error::{Error, Result, Status};
use crate::mail::compose::{AutoSubmitted, YamGame};
use crate::mail::inbox::{Listed, Mailbox, Place, Session};
use crate::mail::transport::{Outgoing, send};
use crate::store::Store;
use decide::{OutMail, Robot, Settings, Work};
use journal::{Blocks, Journal, Plan, Progress, kill_point};

/// `yam robot ...`
#[derive(Debug, Subcommand)]
pub enum RobotCommand {
    /// Watch the mailbox and referee: process what is waiting, then wait
    /// (IMAP IDLE when the server offers it, else polling).
    #[command(
        after_help = "Examples:\n  yam robot run --config /etc/yam/robot.yaml\n  yam robot run --config robot.yaml --once\n  yam robot run --config robot.yaml --once --now 2026-12-01T00:00:00Z\n      # tests: the clock\n\nSee docs/robot.md for the configuration, the command language and the\nsecurity model."
    )]
    Run(RunArgs),
}

/// Arguments of `yam robot run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The robot's configuration (YAML; docs/robot.md).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The data directory (default: the configuration's `data:`, else
    /// $YAM_DATA_DIR, else $XDG_DATA_HOME/yam, else ~/.local/share/yam).
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Process the mail waiting and the deadlines due, then exit.
    #[arg(long)]
    once: bool,
    /// Seconds between looks at the mailbox at most (with IMAP IDLE a new
    /// mail wakes the robot at once).
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    poll: u64,
    /// The time (UTC, YYYY-MM-DDTHH:MM:SSZ), instead of the clock; also
    /// YAM_ROBOT_NOW. For tests of deadlines.
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
}

/// The robot's configuration file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobotConfig {
    /// Its address and name.
    pub robot: RobotIdentity,
    /// The data directory (default: the store's usual place).
    pub data: Option<PathBuf>,
    /// How mail leaves.
    #[serde(with = "serde_yaml_ng::with::singleton_map")]
    pub outgoing: OutgoingConfig,
    /// Where mail arrives.
    #[serde(with = "serde_yaml_ng::with::singleton_map")]
    pub incoming: IncomingConfig,
    /// Deadlines.
    #[serde(default)]
    pub deadlines: Option<Deadlines>,
    /// Limits.
    #[serde(default)]
    pub limits: Option<Limits>,
}

/// Who the robot is.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobotIdentity {
    /// Its address.
    pub address: String,
    /// Its display name.
    #[serde(default = "robot_name")]
    pub name: String,
}

fn robot_name() -> String {
    "Yam robot".into()
}

/// Deadlines, in days of silence.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deadlines {
    /// Reminders.
    pub reminders: Vec<u32>,
    /// The forfeit claim.
    pub forfeit: u32,
}

/// Limits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// The largest mail read, bytes.
    pub max_mail_bytes: Option<usize>,
    /// The largest mail read of a game the robot witnesses, from one of
    /// its players, bytes (the desk's own limit by default, 16 MiB).
    pub max_game_mail_bytes: Option<usize>,
    /// Unauthenticated mails read per sender per hour (a player's mail
    /// with her token is never counted).
    pub per_sender_per_hour: Option<u32>,
    /// Unauthenticated mails read from everyone per hour.
    pub unauthenticated_per_hour: Option<u32>,
    /// Answers to unauthenticated mail per hour (and always at most one a
    /// day to an address).
    pub answers_per_hour: Option<u32>,
    /// Invitations a player may send a day.
    pub invitations_per_day: Option<u32>,
    /// Days a challenge waits for its `join`.
    pub invitation_days: Option<u32>,
    /// Unauthenticated mails handled in one look at the mailbox (the rest
    /// wait for the next, which comes at once).
    pub per_cycle: Option<usize>,
    /// Days a processed mail's done marker is kept (default 30).
    pub journal_days: Option<u32>,
}

/// The journal key of a mail: its Message-ID and sender when it has one,
/// with its text (a mail delivered twice is the same mail), else its
/// bytes. The text counts: keyed by Message-ID and sender alone, a forged
/// mail that copied a player's Message-ID (seen by an opponent she copies
/// her moves to) and reached the robot first made her real move "a mail
/// delivered twice", skipped without a word.
///
/// With it, the key an earlier build gave the mail (its Message-ID and
/// sender alone), if it has both: a plan or a done marker an earlier build
/// left is the same mail's. One reading of the headers for both.
fn mail_keys(raw: &[u8]) -> (String, Option<String>) {
    let (end, id, from) = key_headers(raw);
    match (id, from) {
        (Some(id), Some(from)) => {
            let named = format!("id {id}\nfrom {from}");
            let mut hasher = Sha256::new();
            hasher.update(format!("{named}\ntext ").as_bytes());
            hasher.update(&raw[end..]);
            (short_key(&hasher.finalize()), Some(named_key(&named)))
        }
        // Without a Message-ID (or a sender), the mail is its author's
        // headers and its text: the trace headers a route adds (`Received`,
        // `Delivered-To`, a filter's `X-` fields) are left out, so the same
        // mail delivered again by another route is the same mail, obeyed
        // once; keyed by all its bytes, a copy with one more `Received`
        // line was a new mail and its move played twice
        // (`a_mail_without_message_id_delivered_twice_is_obeyed_once`,
        // found by an attacker helper). The key an earlier build gave it
        // (all its bytes) is the second.
        _ => (
            authored_key(raw, end),
            Some(short_key(&Sha256::digest(raw))),
        ),
    }
}

/// The header fields a mail's author writes, which a route leaves as they
/// are: a mail without a Message-ID is keyed by these and its text.
const AUTHORED_FIELDS: &[&str] = &[
    "from",
    "sender",
    "reply-to",
    "to",
    "cc",
    "date",
    "subject",
    "in-reply-to",
    "references",
    "mime-version",
    "content-type",
    "content-transfer-encoding",
];

/// [`mail_keys`]' key of a mail without a Message-ID: its authored header
/// fields (read by the mail parser, unfolded, in order) and its text after
/// `end`.
fn authored_key(raw: &[u8], end: usize) -> String {
    let head = &raw[..end.min(raw.len())];
    let parsed = mail_parser::MessageParser::default().parse_headers(head);
    let mut hasher = Sha256::new();
    hasher.update(b"authored\n");
    let mut dated = false;
    // The first hop (the bottom-most `Received`), which copies that part
    // later on the way share.
    let mut first_hop = None;
    for header in parsed.as_ref().map_or(&[][..], |m| m.headers()) {
        let name = header.name.as_str().to_ascii_lowercase();
        // The field's value as written, unfolded.
        let value = head
            .get(header.offset_start as usize..header.offset_end as usize)
            .map(|v| {
                String::from_utf8_lossy(v)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        dated |= name == "date";
        if name == "received" {
            first_hop = Some(value.clone());
        }
        if AUTHORED_FIELDS.contains(&name.as_str()) {
            hasher.update(format!("{name}: {value}\n").as_bytes());
        }
    }
    // Without a Date either, two mails of the same words (a script's
    // `move draw`, a turn apart) had the same authored headers and text:
    // the first hop tells them apart
    // (`two_mails_without_message_id_or_date_on_two_turns_are_both_obeyed`).
    if !dated && let Some(hop) = first_hop {
        hasher.update(format!("first hop: {hop}\n").as_bytes());
    }
    hasher.update(b"text ");
    hasher.update(raw.get(end..).unwrap_or_default());
    short_key(&hasher.finalize())
}

/// A journal key: the first 24 hex digits of a digest.
fn short_key(digest: &[u8]) -> String {
    hex::encode(digest)[..24].to_owned()
}

/// The key of `named` (a mail's Message-ID and sender).
fn named_key(named: &str) -> String {
    short_key(&Sha256::digest(named.as_bytes()))
}

/// The key an earlier build gave a mail (its Message-ID and sender), from
/// its headers alone: [`mail_keys`]' second key without hashing the text,
/// for a check made on every mail of a look.
fn earlier_key(raw: &[u8]) -> Option<String> {
    let (_, id, from) = key_headers(raw);
    Some(named_key(&format!("id {}\nfrom {}", id?, from?)))
}

/// Where a mail's headers end: after the first empty line, CR LF or plain
/// LF (Postfix, Dovecot's LDA and procmail write Maildir files with LF),
/// looked for in the first 64 KiB only, so a 50 MB mail is keyed as fast
/// as a short one. (Looking for CR LF alone, an LF mail was all headers
/// and its text hashed empty: its key was its Message-ID and sender again,
/// and a forger's copy of a Message-ID swallowed the real move.)
fn headers_end(raw: &[u8]) -> usize {
    let head = &raw[..raw.len().min(64 * 1024)];
    for (i, _) in head.iter().enumerate().filter(|(_, b)| **b == b'\n') {
        match (head.get(i + 1), head.get(i + 2)) {
            (Some(b'\n'), _) => return i + 2,
            (Some(b'\r'), Some(b'\n')) => return i + 3,
            _ => {}
        }
    }
    head.len()
}

/// Where a mail's headers end, its Message-ID and its sender (lower case).
fn key_headers(raw: &[u8]) -> (usize, Option<String>, Option<String>) {
    // The headers only: a 50 MB mail is keyed as fast as a short one.
    let end = headers_end(raw);
    let parsed = mail_parser::MessageParser::default().parse_headers(&raw[..end]);
    let id = parsed
        .as_ref()
        .and_then(|m| m.message_id().map(str::to_owned));
    let from = parsed
        .as_ref()
        .and_then(|m| m.from())
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .map(crate::mail::address::normal);
    (end, id, from)
}

/// The sender of a raw mail, as the desk and the robot's decisions keep it
/// ([`crate::mail::extract::sender_address`]), from its headers only.
fn sender(raw: &[u8]) -> String {
    let end = headers_end(raw);
    mail_parser::MessageParser::default()
        .parse_headers(&raw[..end])
        .as_ref()
        .and_then(|m| m.from())
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .map(crate::mail::extract::sender_address)
        .unwrap_or_default()
}

/// Builds the mail from its journaled form.
pub fn compose(robot: &Address, mail: &OutMail) -> Result<lettre::Message, String> {
    let mut builder = lettre::Message::builder()
        .from(robot.clone())
        .subject(mail.subject.clone())
        .message_id(Some(format!("<{}>", mail.message_id)))
        // RFC 3834: an answer no person wrote; vacation responders stay
        // quiet, so two robots never talk forever.
        .header(AutoSubmitted("auto-replied".into()));
    for to in &mail.to {
        builder = builder.to(to.parse::<Address>().map_err(|e| format!("{to}: {e}"))?);
    }
    if let Some(game) = &mail.game {
        builder = builder.header(YamGame(game.clone()));
    }
    if let Some(parent) = &mail.in_reply_to {
        builder = builder.in_reply_to(format!("<{parent}>"));
    }
    if !mail.references.is_empty() {
        let refs: Vec<String> = mail.references.iter().map(|r| format!("<{r}>")).collect();
        builder = builder.references(refs.join(" "));
    }
    let message = match &mail.attachment {
        Some((name, text)) => {
            let kind = ContentType::parse("application/x-yam").unwrap_or(ContentType::TEXT_PLAIN);
            // As a desk sends it (`mail::compose::record_body`): as its own
            // lines (7bit) when nothing on a mail's way would change them,
            // else in base64 (left to choose, lettre sends a record, ASCII
            // with long lines, as quoted-printable, slower to write and to
            // read, and larger). Until the forty-second step the robot sent
            // every record in base64, which docs/robot.md said it did not.
            let record = crate::mail::compose::record_body(text.as_bytes());
            builder.multipart(
                MultiPart::mixed()
                    .singlepart(SinglePart::plain(mail.body.clone()))
                    .singlepart(Attachment::new(name.clone()).body(record, kind)),
            )
        }
        None => builder.singlepart(SinglePart::plain(mail.body.clone())),
    };
    message.map_err(|e| e.to_string())
}

fn log(line: &str) {
    eprintln!("yam robot: {line}");
}

/// Run `yam robot`.
pub fn run(command: &RobotCommand) -> Result<Status> {
    match command {
        RobotCommand::Run(args) => run_loop(args).map(|()| Status::Valid),
    }
}

type Fail = Error;

fn usage(e: impl std::fmt::Display) -> Fail {
    Error::usage(format!("yam robot: {e}"))
}

/// Everything the loop needs.
struct Runner {
    /// The store's lock, held for as long as the robot runs.
    _lock: std::fs::File,
    robot: Robot,
    mailbox: Mailbox,
    /// Unauthenticated mails handled in one cycle.
    per_cycle: usize,
    outgoing: Outgoing,
    from: Address,
    journal: Journal,
    journal_days: u32,
    /// When the journal was last pruned (robot clock, seconds).
    pruned_at: Option<u64>,
    /// Decisions waiting for their group commit.
    group: Group,
    /// Mails done, to be marked read with the next group.
    seen: Vec<Place>,
    /// The unreadable store files already logged in this run, with why: a
    /// daemon says it once, not at every cycle that retries the mail.
    told: HashSet<decide::Unreadable>,
    /// The mails set aside this run, said once each ([`Runner::set_aside`]).
    told_set_aside: HashSet<String>,
    /// Whether the store's addresses are known to be in their normal form
    /// (`Robot::normalize_stored_addresses`, once a store, at the first
    /// look that finds no plan of an earlier run left to finish).
    addresses_normal: bool,
    /// Whether the log said once that mail waits for it.
    told_not_normal: bool,
}

fn setup(args: &RunArgs) -> Result<Runner, Fail> {
    let text = std::fs::read_to_string(&args.config)
        .map_err(|e| usage(format!("{}: {e}", args.config.display())))?;
    let mut config: RobotConfig = serde_yaml_ng::from_str(&text)
        .map_err(|e| usage(format!("{}: {e}", args.config.display())))?;
    // Paths in the file are relative to the file.
    if let Some(base) = args.config.parent() {
        let fix = |p: &mut PathBuf| *p = crate::config::resolve(base, p);
        if let Some(data) = config.data.as_mut() {
            fix(data);
        }
        match &mut config.incoming {
            IncomingConfig::Maildir { path, .. } | IncomingConfig::Mbox { path } => fix(path),
            IncomingConfig::Imap(_) => {}
        }
        if let OutgoingConfig::Directory { path } = &mut config.outgoing {
            fix(path);
        }
    }
    let now = clock::now(args.now.as_deref()).map_err(usage)?;
    let root = args
        .data_dir
        .clone()
        .or_else(|| config.data.clone())
        .unwrap_or_else(crate::store::default_data_dir);
    if let Some(crate::store::Owner::Desk(mark)) = crate::store::owner(&root) {
        return Err(usage(format!(
            "{}: this is a player's desk ({mark}), not a robot's store: the robot needs a data directory of its own (`data:` in its configuration, or --data-dir); on it the robot would make the desk's files its own and read its games",
            root.display()
        )));
    }
    let store = Store::open(&root).map_err(usage)?;
    // One robot per store: a second would answer every mail twice. Taken
    // before anything is written: two robots started together on a new
    // store both drew the robot's key, and the second failed on a file
    // the first had made, where it should say another robot runs.
    let lock = lock_store(&root.join("robot"))?;
    let mut settings = Settings::default();
    if let Some(d) = &config.deadlines {
        settings.reminders.clone_from(&d.reminders);
        settings.forfeit = d.forfeit;
    }
    if let Some(l) = &config.limits {
        settings.max_mail = l.max_mail_bytes.unwrap_or(settings.max_mail);
        settings.max_game_mail = l.max_game_mail_bytes.unwrap_or(settings.max_game_mail);
        settings.per_hour = l.per_sender_per_hour.unwrap_or(settings.per_hour);
        settings.unauthenticated_per_hour = l
            .unauthenticated_per_hour
            .unwrap_or(settings.unauthenticated_per_hour);
        settings.answers_per_hour = l.answers_per_hour.unwrap_or(settings.answers_per_hour);
        settings.invitations_per_day = l
            .invitations_per_day
            .unwrap_or(settings.invitations_per_day);
        settings.invitation_days = l.invitation_days.unwrap_or(settings.invitation_days);
    }
    let per_cycle = config
        .limits
        .as_ref()
        .and_then(|l| l.per_cycle)
        .unwrap_or(100)
        .max(1);
    let robot = Robot::new(store, &config.robot.address, settings, now).map_err(usage)?;
    // The robot files what it read itself (its archive folder): the
    // desk's `file_into` is refused, not ignored.
    let files_into = match &config.incoming {
        IncomingConfig::Maildir { file_into, .. } => file_into.is_some(),
        IncomingConfig::Imap(imap) => imap.file_into.is_some(),
        IncomingConfig::Mbox { .. } => false,
    };
    if files_into {
        return Err(usage(
            "incoming: file_into is a player's desk option; the robot files the mail it read into its own archive folder",
        ));
    }
    let mailbox = match &config.incoming {
        IncomingConfig::Maildir { path, .. } => Mailbox::Maildir(path.clone()),
        IncomingConfig::Imap(imap) => Mailbox::Imap(imap.account().map_err(usage)?),
        IncomingConfig::Mbox { .. } => {
            return Err(usage(
                "incoming: the robot reads IMAP or a Maildir, not an mbox file (it cannot archive what it read)",
            ));
        }
    };
    let outgoing = config.outgoing.transport().map_err(usage)?;
    let from = Address::new(
        Some(config.robot.name.clone()),
        config
            .robot
            .address
            .parse()
            .map_err(|e| usage(format!("robot.address: {e}")))?,
    );
    let journal = Journal::open(&root, robot.token_key()).map_err(usage)?;
    let journal_days = config
        .limits
        .as_ref()
        .and_then(|l| l.journal_days)
        .unwrap_or(30);
    Ok(Runner {
        _lock: lock,
        robot,
        mailbox,
        per_cycle,
        outgoing,
        from,
        journal,
        journal_days,
        pruned_at: None,
        group: Group::default(),
        seen: Vec::new(),
        told: HashSet::new(),
        told_set_aside: HashSet::new(),
        addresses_normal: false,
        told_not_normal: false,
    })
}

/// The store's lock (`robot/robot.lock`), held by one robot at a time.
fn lock_store(dir: &Path) -> Result<std::fs::File, Fail> {
    let lock_path = dir.join("robot.lock");
    std::fs::create_dir_all(dir).map_err(usage)?;
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(usage)?;
    lock.try_lock().map_err(|_| {
        usage(format!(
            "{}: another robot runs on this store",
            lock_path.display()
        ))
    })?;
    Ok(lock)
}

fn run_loop(args: &RunArgs) -> Result<(), Fail> {
    files::private_from_now();
    let mut runner = setup(args)?;
    // The walk of the whole store is taken only when the run before did
    // not end cleanly (or never walked it): a run that ended cleanly left
    // no temporary file and nothing others could read, and at every
    // `--once` of a cron robot of years, the walk read every file of the
    // store (3,000 statx at 1,000 games).
    let ended = files::EndedCleanly::of(runner.robot.store.root());
    let walk = if ended.take() {
        None
    } else {
        Some(files::tidy(runner.robot.store.root()))
    };
    match walk.unwrap_or(Ok(files::Tidied::default())) {
        Ok(done) => {
            if done.tightened > 0 {
                log(&format!(
                    "data directory: {} file(s) and folder(s) that others could read made private (0600/0700); an earlier build wrote them",
                    done.tightened
                ));
            }
            if done.temporaries > 0 {
                log(&format!(
                    "data directory: {} temporary file(s) left by a killed run removed",
                    done.temporaries
                ));
            }
        }
        Err(e) => log(&format!("data directory: cannot make it private: {e}")),
    }
    loop {
        let failures = runner.cycle();
        if args.once {
            ended.mark();
            return if failures == 0 {
                Ok(())
            } else {
                Err(Error::invalid(format!(
                    "yam robot: {failures} mail(s) could not be finished; they are retried at the next run"
                )))
            };
        }
        runner.wait(Duration::from_secs(args.poll.max(1)), failures > 0);
        if args.now.is_none() {
            runner.robot.now = clock::now(None).unwrap_or(runner.robot.now);
        }
    }
}

/// Mails decided in a look and not yet committed: a group, committed and
/// carried out together (`journal::advance_group`: each step behind one
/// barrier for all) and marked read together. A group holds only
/// decisions independent of one another: a mail whose decision reads or
/// writes what the group writes is decided again once the group is
/// committed. It is committed when it holds [`GROUP_MAILS`] decisions or
/// [`GROUP_BYTES`], when its first is [`GROUP_AGE`] old (a flood being
/// read does not hold an answer back longer), before such a mail or a
/// second copy of a mail in it, and at the end of the mailbox's reading.
/// `docs/robot.md`, "A look at the mailbox, by groups", draws its states.
#[derive(Debug, Default)]
struct Group {
    items: Vec<Decided>,
    /// What its decisions write or mail about ([`journal::claims`]).
    writes: BTreeSet<String>,
    /// When its first decision was made.
    opened: Option<Instant>,
    /// The bytes of files and answers its decisions hold.
    bytes: usize,
}

/// A decision waiting for its group's commit.
#[derive(Debug)]
struct Decided {
    key: String,
    work: Work,
    place: Place,
    /// Its sender, when the mail could be a step of a game (see
    /// [`Look::fail`]).
    from: Option<String>,
}

/// How much of a mail over `max_mail_bytes` is read to learn whether it
/// is a witnessed game's ([`Robot::reads_large`]): its header, bounded.
const HEAD_BYTES: u64 = 64 << 10;

/// The most decisions a group holds: the answers of a burst go out by
/// groups, and a group's plans are held in memory until then.
const GROUP_MAILS: usize = 64;

/// How many runs a mail may kill while it is decided before it is set
/// aside ([`Runner::set_aside`]): two, so that one death of another cause
/// (the operator's `kill -9`, a power cut) sets nothing aside.
const DIED_DECIDING: u32 = 2;

/// The most bytes of files and answers a group holds in memory (a long
/// game's record is written and attached to its answer: a group of such
/// decisions is committed before it holds more than this).
const GROUP_BYTES: usize = 8 << 20;

/// The age at which a group is committed, whatever it holds.
const GROUP_AGE: Duration = Duration::from_millis(250);

impl Group {
    /// Whether a decision that read or wrote `resources` depends on the
    /// group's.
    fn conflicts<'a>(&self, resources: impl IntoIterator<Item = &'a String>) -> bool {
        resources
            .into_iter()
            .any(|r| self.writes.contains(&journal::resource(r)))
    }

    /// Whether it is time to commit it.
    fn due(&self) -> bool {
        self.items.len() >= GROUP_MAILS
            || self.bytes >= GROUP_BYTES
            || self.opened.is_some_and(|t| t.elapsed() >= GROUP_AGE)
    }
}

/// What a look at the mailbox found so far.
#[derive(Debug, Default)]
struct Look {
    /// What plans not done hold back: nothing new is decided on it.
    blocks: Blocks,
    /// The senders whose mail that could be a step of a game (a player's
    /// with her token, a signed record) is not handled yet: no forfeit
    /// against them.
    waiting: HashSet<String>,
    /// Mails and plans that could not be finished (or wait).
    failures: usize,
}

impl Look {
    /// A mail could not be finished; `from`, its sender when it could be
    /// a step of a game. A mail without a token or a signed record never
    /// is (it is refused unread), so it holds no forfeit: otherwise a
    /// player who owed a move could hold his off for as long as he kept
    /// mailing the robot more such mails than a look reads.
    fn fail(&mut self, from: Option<String>) {
        if let Some(from) = from {
            self.waiting.insert(from);
        }
        self.failures += 1;
    }
}

impl Runner {
    /// Brings a store's addresses to their normal form, once, and says
    /// what it did; a failure is said and the step taken again at the
    /// next look.
    fn normalize_stored_addresses(&mut self) {
        match self.robot.normalize_stored_addresses() {
            Ok(done) => {
                self.addresses_normal = true;
                let Some(done) = done else { return };
                if done.changed > 0 {
                    log(&format!(
                        "data directory: {} file(s) of an earlier build brought to the normal form of their addresses (the originals in robot/before-normal-addresses)",
                        done.changed
                    ));
                }
                for (kept, there) in done.clashes {
                    log(&format!(
                        "data directory: {kept} names the same mailbox as {there}, which is the one used; {kept} is left as it is for the operator"
                    ));
                }
            }
            Err(e) => log(&format!(
                "data directory: the addresses of an earlier build could not all be brought to their normal form ({e}); tried again at the next look"
            )),
        }
        self.robot.touched();
    }

    /// One look at everything: unfinished plans, new mail, deadlines.
    /// Returns how many mails or plans could not be finished (or wait).
    ///
    /// First the plans not done, in the order their mails arrived; one
    /// whose game an earlier one holds waits behind it. Then the mailbox,
    /// in one session (one IMAP login): mail is listed with its sizes
    /// before any body is read; a mail over the size limit is never
    /// downloaded. Each mail is then read once and sorted: authenticated
    /// mail (a player's token, a signed record) is decided at once, in
    /// arrival order; the rest waits until all of it is done, and at most
    /// `per_cycle` of it is handled in one cycle, so a flood never stands
    /// between a player and her answer. Decisions are committed, carried
    /// out and marked read by groups ([`Group`]). A forfeit is never
    /// claimed against a player whose mail is still waiting, nor decided
    /// on a game a plan not done holds.
    fn cycle(&mut self) -> usize {
        let mut look = Look::default();
        self.prune_journal();
        let mut late = Vec::new();
        for mut plan in self.journal.pending() {
            let was_blocked = plan.blocked().is_some();
            if look.blocks.holders(&plan.claims()).is_empty() && self.advance(&mut plan) {
                if was_blocked {
                    late.push(plan);
                }
                continue;
            }
            look.blocks.hold(&plan);
            look.failures += 1;
        }
        // A store of an earlier build, its addresses brought to their
        // normal form before anything is decided on them, and after the
        // plans of its runs are finished (they write the files as that
        // build named them).
        if !self.addresses_normal {
            if self.robot.stored_addresses_normal() {
                self.addresses_normal = true;
            } else if look.failures == 0 {
                self.normalize_stored_addresses();
            }
        }
        // Nothing is decided on a store whose addresses are not yet in
        // their normal form: a player filed under her earlier key would be
        // taken for a stranger and registered again, and the step would
        // then leave her old files aside as a clash. The mail waits, read
        // at the look that finds the earlier runs' plans finished.
        if !self.addresses_normal {
            if !self.told_not_normal {
                self.told_not_normal = true;
                log(
                    "data directory: its addresses are not yet in their normal form (plans of an earlier run not finished, or the step failed, said above); no mail is read until they are",
                );
            }
            return look.failures.max(1);
        }
        // Mails that went out only now: the silences they started count
        // from now (`Robot::mailed_late`), decided on the store as the
        // plans left it.
        self.robot.touched();
        for plan in late {
            for (key, work) in self.robot.mailed_late(plan.key(), plan.work()) {
                self.robot.touched();
                if self.journal.progress(&key) != Progress::New {
                    continue;
                }
                self.carry_out_alone(&key, work, &mut look);
            }
        }
        self.robot.touched();
        match self.mailbox.open() {
            Ok(mut session) => {
                self.read_mail(&mut session, &mut look);
                self.flush(&mut session, &mut look);
                let _ = session.close();
            }
            Err(e) => {
                log(&format!("cannot read the mailbox: {e}"));
                return look.failures + 1;
            }
        }
        self.robot.touched();
        let due = self.robot.deadlines(&look.waiting);
        // A game whose files are damaged has no deadline decided (on a
        // store that is not what it seems) until they are mended.
        let unreadable = self.robot.unreadable();
        look.failures += unreadable.len();
        self.tell_unreadable("deadlines", unreadable);
        // The deadlines are decided: what they read is forgotten before
        // their plans write the store (the next look's first reads,
        // `Robot::authenticated`, come before any other decision).
        self.robot.touched();
        for (key, work) in due {
            if self.journal.progress(&key) != Progress::New {
                continue;
            }
            // Decided again once the game's plan is done.
            if !look.blocks.holders(&journal::claims(&work)).is_empty() {
                continue;
            }
            self.carry_out_alone(&key, work, &mut look);
        }
        self.journal.settle();
        look.failures
    }

    /// Commits one decision, dated now, as a plan of its own and carries
    /// it out; one that stops holds back what it writes.
    fn carry_out_alone(&mut self, key: &str, work: Work, look: &mut Look) {
        let work = Work {
            decided_at: Some(self.robot.now),
            ..work
        };
        match self.journal.commit(key, work) {
            Ok(mut plan) => {
                if !self.advance(&mut plan) {
                    look.blocks.hold(&plan);
                    look.failures += 1;
                }
            }
            Err(e) => {
                log(&format!("{key}: cannot write its plan: {e}"));
                look.failures += 1;
            }
        }
    }

    /// Reads the mailbox once (see `cycle`); notes in the look the
    /// senders whose mail is not handled yet, and the failures. The last
    /// group is left for the caller to commit.
    fn read_mail(&mut self, session: &mut Session, look: &mut Look) {
        let listed = match session.list_unseen() {
            Ok(l) => l,
            Err(e) => {
                log(&format!("cannot list the mailbox: {e}"));
                look.failures += 1;
                return;
            }
        };
        let max = self.robot.settings.max_mail as u64;
        let mut later: Vec<Listed> = Vec::new();
        for mail in listed {
            if self.group.due() {
                self.flush(session, look);
            }
            // Over the limit: read when its header, fetched alone, names a
            // witnessed game its sender plays (`Robot::reads_large`).
            let large = mail.size > max
                && match (mail.size <= self.robot.settings.max_game_mail as u64)
                    .then(|| session.fetch_head(&mail, HEAD_BYTES))
                {
                    None => true,
                    Some(Ok(head)) => !self.robot.reads_large(&head),
                    // A header that could not be fetched now (the server
                    // or the link failing for a moment) says nothing of
                    // the mail: it stays unread and is looked at again
                    // next time. Taken for "too large", a witnessed game's
                    // mail was marked seen and never read.
                    Some(Err(e)) => {
                        log(&format!("cannot fetch a mail's header: {e}"));
                        look.failures += 1;
                        continue;
                    }
                };
            if large {
                // Never downloaded: no command is that large, and a
                // record that is comes from a witnessed game's player
                // (its header read first, `Robot::reads_large`).
                log(&format!(
                    "ignored a mail of {} bytes, more than the {max} read",
                    mail.size
                ));
                self.seen.push(mail.place);
                continue;
            }
            let raw = match session.fetch(&mail) {
                Ok(raw) => raw,
                Err(e) => {
                    log(&format!("cannot fetch a mail: {e}"));
                    look.failures += 1;
                    continue;
                }
            };
            let key = self.key_of(&raw);
            match self.journal.progress(&key) {
                Progress::Done => {
                    self.seen.push(mail.place);
                    continue;
                }
                // Tried above: it stopped, and goes on at the next cycle;
                // its mail stays unread until then.
                Progress::Planned => {
                    look.fail(self.robot.authenticated(&raw).then(|| sender(&raw)));
                    continue;
                }
                Progress::New => {}
            }
            if self.set_aside(&key) {
                continue;
            }
            self.journal.deciding(&key);
            let authenticated = self.robot.authenticated(&raw);
            self.journal.decided();
            if authenticated {
                self.decide(session, look, &key, &raw, &mail.place, true);
            } else {
                later.push(mail);
            }
        }
        let budget = self.per_cycle;
        for (n, mail) in later.into_iter().enumerate() {
            if n >= budget {
                // Read at a later look (the mail is still unread); it holds
                // no forfeit (`Look::fail`).
                continue;
            }
            if self.group.due() {
                self.flush(session, look);
            }
            match session.fetch(&mail) {
                Ok(raw) => {
                    let key = self.key_of(&raw);
                    self.decide(session, look, &key, &raw, &mail.place, false);
                }
                Err(e) => {
                    log(&format!("cannot fetch a mail: {e}"));
                    look.fail(None);
                }
            }
        }
    }

    /// The journal key of a mail: [`mail_key`], or the key an earlier
    /// build gave it when its journal knows the mail by that one (a plan
    /// not done is carried on under its key, not decided again).
    fn key_of(&self, raw: &[u8]) -> String {
        let (key, earlier) = mail_keys(raw);
        if self.journal.progress(&key) == Progress::New
            && let Some(earlier) = earlier
            && self.journal.progress(&earlier) != Progress::New
        {
            return earlier;
        }
        key
    }

    /// Decides a mail read, into the group; whatever went wrong is noted
    /// in the look and logged. A mail done already is marked read; one
    /// planned is carried on by the plans not done; one whose game is
    /// held back by a plan not done waits in the mailbox, undecided and
    /// unanswered, for that plan.
    fn decide(
        &mut self,
        session: &mut Session,
        look: &mut Look,
        key: &str,
        raw: &[u8],
        place: &Place,
        authenticated: bool,
    ) {
        // The same mail delivered twice: the second is looked at once the
        // first is committed, and found done.
        if self.group.items.iter().any(|d| d.key == key) {
            self.flush(session, look);
        }
        // A copy of a mail the group holds whose text was changed on the
        // way (a gateway's footer), delivered in the same look: keyed when
        // it was fetched, before the group marked the first done under its
        // Message-ID and sender too (`Work::also_done`). Committed first,
        // the group makes it the same mail, found done; decided before
        // that, an authenticated challenge opened two games.
        if self.group.items.iter().any(|d| d.work.also_done.is_some())
            && let Some(earlier) = earlier_key(raw)
            && self
                .group
                .items
                .iter()
                .any(|d| d.work.also_done.as_deref() == Some(earlier.as_str()))
        {
            self.flush(session, look);
            if self.journal.progress(&earlier) == Progress::Done {
                self.seen.push(place.clone());
                return;
            }
        }
        let from = authenticated.then(|| sender(raw));
        match self.journal.progress(key) {
            Progress::Done => {
                self.seen.push(place.clone());
                return;
            }
            // Tried above: it stopped, and goes on at the next cycle; its
            // mail stays unread until then.
            Progress::Planned => return look.fail(from),
            Progress::New => {}
        }
        // Seen waiting already, for plans still not done: not decided again
        // (nor counted, nor logged) until they are.
        if self
            .journal
            .waits_for(key)
            .is_some_and(|on| on.iter().any(|p| look.blocks.holds(p)))
        {
            return look.fail(from);
        }
        // The sender's own file is written by the group (her first mail
        // registered her): the group is committed first, so that what is
        // decided on her file is decided once.
        if self.group.conflicts([&decide::player_path(&sender(raw))]) {
            self.flush(session, look);
        }
        if self.set_aside(key) {
            return;
        }
        // Noted while it is decided: a run that dies here (killed for
        // memory, an abort) leaves the note, and the mail is set aside
        // once it has killed `DIED_DECIDING` runs.
        self.journal.deciding(key);
        kill_point("after-read");
        let (mut work, mut read, mut unreadable) = self.decide_on_store(key, raw);
        self.journal.decided();
        if self.group.conflicts(&read) {
            // Decided on a store the group changes: decided again, once
            // the group is committed, on the store it makes (the counts the
            // first decision made taken back).
            self.robot.counted.take_back();
            self.flush(session, look);
            self.journal.deciding(key);
            (work, read, unreadable) = self.decide_on_store(key, raw);
            self.journal.decided();
        }
        if !unreadable.is_empty() {
            // Decided on a store that is not what it seems (a player taken
            // for a newcomer, a game for none): not carried out. The mail
            // waits unread until the operator mends the files.
            self.robot.counted.take_back();
            self.tell_unreadable(key, unreadable);
            return look.fail(from);
        }
        let holders = look.blocks.holders(&read);
        if !holders.is_empty() {
            // Not carried out: decided again when the plans are done.
            self.robot.counted.take_back();
            if self.journal.wait(key, &holders) {
                let games: Vec<String> = holders
                    .iter()
                    .flat_map(|p| look.blocks.games_of(p))
                    .collect();
                log(&format!(
                    "{key}: waits, undecided, for the plan(s) {} not done{}",
                    holders.join(", "),
                    if games.is_empty() {
                        String::new()
                    } else {
                        format!(" (game {})", games.join(", "))
                    }
                ));
            }
            return look.fail(from);
        }
        self.group.writes.extend(journal::claims(&work));
        self.group.opened.get_or_insert_with(Instant::now);
        self.group.bytes += work.writes.values().map(String::len).sum::<usize>()
            + work
                .mails
                .iter()
                .map(|m| m.body.len() + m.attachment.as_ref().map_or(0, |(_, a)| a.len()))
                .sum::<usize>();
        self.group.items.push(Decided {
            key: key.to_owned(),
            work,
            place: place.clone(),
            from,
        });
        if self.group.items.len() >= GROUP_MAILS || self.group.bytes >= GROUP_BYTES {
            self.flush(session, look);
        }
    }

    /// Whether the mail `key` is set aside: `DIED_DECIDING` runs died
    /// deciding it (said once a run). It stays unread where it is, for the
    /// operator (docs/robot.md, "A mail that kills the robot"); every other
    /// mail is read as before. Without this, a mail that killed the robot
    /// (as a 4 MB mail of empty MIME parts did in its unit's 64 MB) killed
    /// it again at every restart, and no game it keeps moved on.
    fn set_aside(&mut self, key: &str) -> bool {
        let died = self.journal.died_deciding(key);
        if died < DIED_DECIDING {
            return false;
        }
        if self.told_set_aside.insert(key.to_owned()) {
            log(&format!(
                "{key}: set aside, unread: {died} runs died deciding it (the mail stays where it \
                 is; remove robot/journal/{key}.died to have it decided again)"
            ));
        }
        true
    }

    /// Decides a mail on the store as it is: the work, and what the
    /// decision read or writes.
    fn decide_on_store(
        &self,
        key: &str,
        raw: &[u8],
    ) -> (Work, BTreeSet<String>, Vec<decide::Unreadable>) {
        self.robot.touched();
        self.robot.counted.forget();
        let work = self.robot.handle(key, raw);
        let unreadable = self.robot.unreadable();
        let mut read = self.robot.touched();
        read.extend(journal::claims(&work));
        (work, read, unreadable)
    }

    /// Logs the store files `what` could not be decided on for, each once
    /// a run.
    fn tell_unreadable(&mut self, what: &str, unreadable: Vec<decide::Unreadable>) {
        for fault in unreadable {
            if self.told.insert(fault.clone()) {
                log(&format!("{what}: waits, undecided: {fault}"));
            }
        }
    }

    /// Commits the group and carries its plans out together (the group
    /// commit: `journal::advance_group`), then marks read, in one request,
    /// every mail done since the last time. A plan that stops holds back
    /// what it writes, as one carried alone would.
    fn flush(&mut self, session: &mut Session, look: &mut Look) {
        let group = std::mem::take(&mut self.group);
        if !group.items.is_empty() {
            let mut owners = Vec::new();
            let mut works = Vec::new();
            for d in group.items {
                owners.push((d.place, d.from));
                let work = Work {
                    decided_at: Some(self.robot.now),
                    ..d.work
                };
                works.push((d.key, work));
            }
            let mut plans = Vec::new();
            let mut kept = Vec::new();
            for (committed, owner) in self.journal.commit_group(works).into_iter().zip(owners) {
                match committed {
                    Ok(plan) => {
                        plans.push(plan);
                        kept.push(owner);
                    }
                    Err((key, e)) => {
                        log(&format!("{key}: cannot write its plan: {e}"));
                        look.fail(owner.1);
                    }
                }
            }
            let results =
                journal::advance_group(&self.journal, &mut plans, log, |mail| self.deliver(mail));
            for ((plan, result), (place, from)) in plans.iter().zip(results).zip(kept) {
                match result {
                    Ok(()) => self.seen.push(place),
                    Err(stop) => {
                        self.stopped(plan, &stop);
                        look.blocks.hold(plan);
                        look.fail(from);
                    }
                }
            }
        }
        self.mark_seen(session, look);
    }

    /// Marks read where they are the mails done (answered, refused or
    /// ignored), all in one request: an IMAP message gets `\Seen` (in the
    /// session already open), a Maildir file moves to `cur/` with the S
    /// flag, as a mail client would. Nothing is moved out of the mailbox,
    /// so the operator finds every mail, refused ones included, where it
    /// arrived. A mail not marked (the server went away) is found done at
    /// the next look, and marked then.
    fn mark_seen(&mut self, session: &mut Session, look: &mut Look) {
        if self.seen.is_empty() {
            return;
        }
        let places = std::mem::take(&mut self.seen);
        if let Err(e) = session.mark_seen(&places) {
            log(&format!("cannot mark {} mail(s) read: {e}", places.len()));
            look.failures += 1;
        }
        kill_point("after-archive");
    }

    /// Waits for the next look at the mailbox: in IMAP IDLE when the
    /// server offers it, woken by a new mail, else `poll` of sleep. Either
    /// way at most `poll`, since deadlines fall due without any mail.
    /// After a cycle that could not finish a mail (a server down), it
    /// sleeps: the mail still unseen would wake IDLE at once, and the robot
    /// would hammer the server.
    fn wait(&self, poll: Duration, after_failure: bool) {
        if let (Mailbox::Imap(account), false) = (&self.mailbox, after_failure) {
            match crate::mail::imap::wait_for_mail(account, poll) {
                Ok(crate::mail::imap::Wake::Unsupported) => {}
                Ok(_) => return,
                Err(e) => log(&format!("cannot wait in IMAP IDLE ({e}); polling")),
            }
        }
        std::thread::sleep(poll);
    }

    /// Drops old done markers once a day, by the robot's clock, counted
    /// across runs: pruning asks the file system about every marker of the
    /// last `journal_days` days, and `--once` (for cron) starts a process
    /// a look. A clock that went back prunes at once.
    fn prune_journal(&mut self) {
        let now = self.robot.now;
        let last = self.pruned_at.or_else(|| self.journal.pruned_at());
        if last.is_some_and(|at| at <= now && now < at + 86_400) {
            self.pruned_at = last;
            return;
        }
        self.pruned_at = Some(now);
        match self.journal.prune(now, self.journal_days) {
            Ok(0) => {}
            Ok(n) => log(&format!(
                "journal: {n} done marker(s) older than {} days pruned",
                self.journal_days
            )),
            Err(e) => {
                log(&format!("journal: cannot prune: {e}"));
                return;
            }
        }
        // The rate counts of senders out of their windows count nothing.
        let limits = hygiene::Limits::new(
            &self.robot.dir(),
            &self.robot.settings,
            &hygiene::Counted::default(),
        );
        match limits.prune(now) {
            0 => {}
            n => log(&format!(
                "rate: {n} count file(s) out of their windows removed"
            )),
        }
        // Lost, it costs one pruning more at the next start.
        if let Err(e) = self.journal.note_pruned(now) {
            log(&format!("journal: cannot note when it was pruned: {e}"));
        }
    }

    /// Carries a plan on as far as it goes: files, mails, done. False
    /// when it stopped (logged once per reason): it is blocked, and holds
    /// back its games until it is done.
    fn advance(&self, plan: &mut Plan) -> bool {
        let was_blocked = plan.blocked().is_some();
        match plan.advance(&self.journal, log, |mail| self.deliver(mail)) {
            Ok(()) => {
                if was_blocked {
                    log(&format!("{}: done, after it was blocked", plan.key()));
                }
                true
            }
            Err(stop) => {
                self.stopped(plan, &stop);
                false
            }
        }
    }

    /// Logs a plan that stopped, once per reason.
    fn stopped(&self, plan: &Plan, stop: &journal::Stop) {
        if stop.new {
            log(&format!(
                "{}: blocked at {:?}: {stop}; nothing more is decided on what it writes until it is done (retried at every cycle)",
                plan.key(),
                plan.state()
            ));
        }
    }

    /// Sends one of a plan's mails.
    fn deliver(&self, mail: &OutMail) -> std::result::Result<(), String> {
        let message = match compose(&self.from, mail) {
            Ok(m) => m,
            // A mail that cannot be built never will be (a hostile
            // address): logged and dropped, so it cannot wedge the
            // journal and the answers after it.
            Err(e) => {
                log(&format!("mail {} not sent: {e}", mail.message_id));
                return Ok(());
            }
        };
        send(&self.outgoing, &message).map_err(|e| e.to_string())
    }
}
