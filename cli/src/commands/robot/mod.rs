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

use std::path::PathBuf;

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
use decide::{OutMail, Robot, Settings};
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

/// The journal key of a mail: its Message-ID and sender when it has one
/// (a mail delivered twice is the same mail), else its bytes.
pub fn mail_key(raw: &[u8]) -> String {
    // The headers only: a 50 MB mail is keyed as fast as a short one.
    let end = raw
        .windows(4)
        .take(64 * 1024)
        .position(|w| w == b"\r\n\r\n")
        .map_or(raw.len().min(64 * 1024), |i| i + 4);
    let parsed = mail_parser::MessageParser::default().parse_headers(&raw[..end]);
    let id = parsed
        .as_ref()
        .and_then(|m| m.message_id().map(str::to_owned));
    let from = parsed
        .as_ref()
        .and_then(|m| m.from())
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .map(str::to_lowercase);
    let digest = match (id, from) {
        (Some(id), Some(from)) => Sha256::digest(format!("id {id}\nfrom {from}").as_bytes()),
        _ => Sha256::digest(raw),
    };
    hex::encode(digest)[..24].to_owned()
}

/// The sender of a raw mail, lower case (from its headers only).
fn sender(raw: &[u8]) -> String {
    let end = raw
        .windows(4)
        .take(64 * 1024)
        .position(|w| w == b"\r\n\r\n")
        .map_or(raw.len().min(64 * 1024), |i| i + 4);
    mail_parser::MessageParser::default()
        .parse_headers(&raw[..end])
        .as_ref()
        .and_then(|m| m.from())
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .map(str::to_lowercase)
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
            builder.multipart(
                MultiPart::mixed()
                    .singlepart(SinglePart::plain(mail.body.clone()))
                    .singlepart(
                        Attachment::new(name.clone()).body(text.clone().into_bytes(), kind),
                    ),
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
    let store = Store::open(&root).map_err(usage)?;
    let mut settings = Settings::default();
    if let Some(d) = &config.deadlines {
        settings.reminders.clone_from(&d.reminders);
        settings.forfeit = d.forfeit;
    }
    if let Some(l) = &config.limits {
        settings.max_mail = l.max_mail_bytes.unwrap_or(settings.max_mail);
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
        robot,
        mailbox,
        per_cycle,
        outgoing,
        from,
        journal,
        journal_days,
        pruned_at: None,
    })
}

fn run_loop(args: &RunArgs) -> Result<(), Fail> {
    files::private_from_now();
    let mut runner = setup(args)?;
    // One robot per store: a second would answer every mail twice.
    let lock_path = runner.robot.dir().join("robot.lock");
    std::fs::create_dir_all(runner.robot.dir()).map_err(usage)?;
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
    match files::tidy(runner.robot.store.root()) {
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
            return if failures == 0 {
                Ok(())
            } else {
                Err(Error::invalid(format!(
                    "yam robot: {failures} mail(s) could not be finished; they are retried at the next run"
                )))
            };
        }
        runner.wait(
            std::time::Duration::from_secs(args.poll.max(1)),
            failures > 0,
        );
        if args.now.is_none() {
            runner.robot.now = clock::now(None).unwrap_or(runner.robot.now);
        }
    }
}

impl Runner {
    /// One look at everything: unfinished plans, new mail, deadlines.
    /// Returns how many mails or plans could not be finished (or wait).
    ///
    /// First the plans not done, in the order their mails arrived; one
    /// whose game an earlier one holds waits behind it. Then the mailbox:
    /// mail is listed with its sizes before any body is read; a mail over
    /// the size limit is never downloaded. Each mail is then read once and
    /// sorted: authenticated mail (a player's token, a signed record) is
    /// handled at once, in arrival order; the rest waits until all of it
    /// is done, and at most `per_cycle` of it is handled in one cycle, so
    /// a flood never stands between a player and her answer. A forfeit is
    /// never claimed against a player whose mail is still waiting, nor
    /// decided on a game a plan not done holds.
    fn cycle(&mut self) -> usize {
        let mut failures = 0;
        self.prune_journal();
        // What plans not done hold back: nothing new is decided on it.
        let mut blocks = Blocks::default();
        for mut plan in self.journal.pending() {
            if blocks.holders(&plan.claims()).is_empty() && self.advance(&mut plan) {
                continue;
            }
            blocks.hold(&plan);
            failures += 1;
        }
        let mut waiting = std::collections::HashSet::new();
        match self.mailbox.open() {
            Ok(mut session) => {
                failures += self.read_mail(&mut session, &mut waiting, &mut blocks);
                let _ = session.close();
            }
            Err(e) => {
                log(&format!("cannot read the mailbox: {e}"));
                return failures + 1;
            }
        }
        self.robot.touched();
        for (key, work) in self.robot.deadlines(&waiting) {
            if self.journal.progress(&key) != Progress::New {
                continue;
            }
            // Decided again once the game's plan is done.
            if !blocks.holders(&journal::claims(&work)).is_empty() {
                continue;
            }
            match self.journal.commit(&key, work) {
                Ok(mut plan) => {
                    if !self.advance(&mut plan) {
                        blocks.hold(&plan);
                        failures += 1;
                    }
                }
                Err(e) => {
                    log(&format!("{key}: cannot write its plan: {e}"));
                    failures += 1;
                }
            }
        }
        failures
    }

    /// Reads the mailbox once (see `cycle`); notes in `waiting` the
    /// senders whose mail is not handled yet. Returns the failures.
    fn read_mail(
        &mut self,
        session: &mut Session,
        waiting: &mut std::collections::HashSet<String>,
        blocks: &mut Blocks,
    ) -> usize {
        let mut failures = 0;
        let listed = match session.list_unseen() {
            Ok(l) => l,
            Err(e) => {
                log(&format!("cannot list the mailbox: {e}"));
                return 1;
            }
        };
        let max = self.robot.settings.max_mail as u64;
        let mut later: Vec<(Listed, String)> = Vec::new();
        for mail in listed {
            if mail.size > max {
                // Never downloaded: no command or record is that large.
                log(&format!(
                    "ignored a mail of {} bytes, more than the {max} read",
                    mail.size
                ));
                failures += usize::from(self.archive(session, &mail.place).is_err());
                continue;
            }
            let raw = match session.fetch(&mail) {
                Ok(raw) => raw,
                Err(e) => {
                    log(&format!("cannot fetch a mail: {e}"));
                    failures += 1;
                    continue;
                }
            };
            let key = mail_key(&raw);
            match self.journal.progress(&key) {
                Progress::Done => {
                    failures += usize::from(self.archive(session, &mail.place).is_err());
                    continue;
                }
                // Tried above: it stopped, and goes on at the next cycle;
                // its mail stays unread until then.
                Progress::Planned => {
                    waiting.insert(sender(&raw));
                    failures += 1;
                    continue;
                }
                Progress::New => {}
            }
            if self.robot.authenticated(&raw) {
                if self
                    .decide(session, &key, &raw, &mail.place, blocks)
                    .is_err()
                {
                    waiting.insert(sender(&raw));
                    failures += 1;
                }
            } else {
                later.push((mail, sender(&raw)));
            }
        }
        let budget = self.per_cycle;
        for (n, (mail, from)) in later.into_iter().enumerate() {
            if n >= budget {
                // The next cycle comes at once (the mail is still unread).
                waiting.insert(from);
                continue;
            }
            let result = session
                .fetch(&mail)
                .map_err(|e| {
                    log(&format!("cannot fetch a mail: {e}"));
                })
                .and_then(|raw| {
                    let key = mail_key(&raw);
                    self.decide(session, &key, &raw, &mail.place, blocks)
                });
            if result.is_err() {
                waiting.insert(from);
                failures += 1;
            }
        }
        failures
    }

    /// Decides a new mail and carries out the plan, unless a game it
    /// reads or writes is held back by a plan not done: then it waits in
    /// the mailbox, undecided and unanswered, for that plan. Whatever
    /// went wrong is logged here.
    fn decide(
        &mut self,
        session: &mut Session,
        key: &str,
        raw: &[u8],
        place: &Place,
        blocks: &mut Blocks,
    ) -> std::result::Result<(), ()> {
        // Seen waiting already, for plans still not done: not decided again
        // (nor counted, nor logged) until they are.
        if self
            .journal
            .waits_for(key)
            .is_some_and(|on| on.iter().any(|p| blocks.holds(p)))
        {
            return Err(());
        }
        kill_point("after-read");
        self.robot.touched();
        let work = self.robot.handle(key, raw);
        let mut read = self.robot.touched();
        read.extend(journal::claims(&work));
        let holders = blocks.holders(&read);
        if !holders.is_empty() {
            if self.journal.wait(key, &holders) {
                let games: Vec<String> = holders.iter().flat_map(|p| blocks.games_of(p)).collect();
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
            return Err(());
        }
        let mut plan = match self.journal.commit(key, work) {
            Ok(plan) => plan,
            Err(e) => {
                log(&format!("{key}: cannot write its plan: {e}"));
                return Err(());
            }
        };
        if !self.advance(&mut plan) {
            blocks.hold(&plan);
            return Err(());
        }
        self.archive(session, place).map_err(|e| {
            log(&format!("{key}: {e}"));
        })
    }

    /// Marks a mail read where it is, whatever became of it (answered,
    /// refused or ignored): an IMAP message gets `\Seen` (in the session
    /// already open), a Maildir file moves to `cur/` with the S flag, as a
    /// mail client would. Nothing is moved out of the mailbox, so the
    /// operator finds every mail, refused ones included, where it arrived.
    fn archive(&self, session: &mut Session, place: &Place) -> std::result::Result<(), String> {
        let result = session
            .mark_seen(std::slice::from_ref(place))
            .map_err(|e| e.to_string());
        kill_point("after-archive");
        result
    }

    /// Waits for the next look at the mailbox: in IMAP IDLE when the
    /// server offers it, woken by a new mail, else `poll` of sleep. Either
    /// way at most `poll`, since deadlines fall due without any mail.
    /// After a cycle that could not finish a mail (a server down), it
    /// sleeps: the mail still unseen would wake IDLE at once, and the robot
    /// would hammer the server.
    fn wait(&self, poll: std::time::Duration, after_failure: bool) {
        if let (Mailbox::Imap(account), false) = (&self.mailbox, after_failure) {
            match crate::mail::imap::wait_for_mail(account, poll) {
                Ok(crate::mail::imap::Wake::Unsupported) => {}
                Ok(_) => return,
                Err(e) => log(&format!("cannot wait in IMAP IDLE ({e}); polling")),
            }
        }
        std::thread::sleep(poll);
    }

    /// Drops old done markers, at start-up and then once a day.
    fn prune_journal(&mut self) {
        let now = self.robot.now;
        if self.pruned_at.is_some_and(|at| now < at + 86_400) {
            return;
        }
        self.pruned_at = Some(now);
        match self.journal.prune(now, self.journal_days) {
            Ok(0) => {}
            Ok(n) => log(&format!(
                "journal: {n} done marker(s) older than {} days pruned",
                self.journal_days
            )),
            Err(e) => log(&format!("journal: cannot prune: {e}")),
        }
    }

    /// Carries a plan on as far as it goes: files, mails, done. False
    /// when it stopped (logged once per reason): it is blocked, and holds
    /// back its games until it is done.
    fn advance(&self, plan: &mut Plan) -> bool {
        let was_blocked = plan.blocked().is_some();
        let key = plan.key().to_owned();
        let result = plan.advance(&self.journal, log, |mail| {
            let message = match compose(&self.from, mail) {
                Ok(m) => m,
                // A mail that cannot be built never will be (a hostile
                // address): logged and dropped, so it cannot wedge the
                // journal and the answers after it.
                Err(e) => {
                    log(&format!("{key}: mail {} not sent: {e}", mail.message_id));
                    return Ok(());
                }
            };
            send(&self.outgoing, &message).map_err(|e| e.to_string())
        });
        match result {
            Ok(()) => {
                if was_blocked {
                    log(&format!("{}: done, after it was blocked", plan.key()));
                }
                true
            }
            Err(stop) => {
                if stop.new {
                    log(&format!(
                        "{}: blocked at {:?}: {stop}; nothing more is decided on what it writes until it is done (retried at every cycle)",
                        plan.key(),
                        plan.state()
                    ));
                }
                false
            }
        }
    }
}
