//! Crash safety: a write-ahead journal per mail, and the one type that
//! carries a decision through it, [`Plan`].
//!
//! ```text
//! robot/journal/KEY.plan     the Work decided for the mail (files and mails), with its place in
//!                            the order of arrival; written atomically: the commit point
//! robot/journal/KEY.applied  its files are written
//! robot/journal/KEY.sent.N   its mail N went out
//! robot/journal/KEY.blocked  a step failed, and why (the plan is retried from where it stopped)
//! robot/journal/KEY.wait     a mail not decided yet: a game it reads has a plan not done (which)
//! robot/journal/.deciding    the key of the mail being decided (empty between decisions): a run
//!                            that finds it named at its start counts a death for that mail
//! robot/journal/KEY.died     how many runs died deciding the mail; at DIED_DECIDING it is set aside
//! robot/journal/done/KEY.done  all of it happened; the mail is archived (or about to be)
//! ```
//!
//! A plan's states (`docs/robot.md`, "Crash safety"):
//!
//! ```text
//!   (mail read) ──commit──▶ planned ──files written──▶ applied ──mails sent──▶ sent ──▶ done
//!                              │                          │                       │
//!                              └──── a step fails: blocked, in the state reached ─┘
//!                                    (retried from there at every cycle, first)
//! ```
//!
//! The plan is the commit point: before it exists nothing has changed (a
//! crash means deciding again, from the same store); once it exists, the
//! same files are written again (whole files: writing twice is writing
//! once) and the mails not marked sent are sent, under the Message-IDs
//! decided in the plan. So a move is applied at most once, an answer sent
//! at least once, and a duplicate is recognisable by its Message-ID.
//!
//! A burst is carried through by groups ([`Journal::commit_group`],
//! [`advance_group`]): the plans of independent decisions take each step
//! together, sharing its syncs: four barriers for the group, one for the
//! contents of its plan files, one for the contents of the files they
//! write and the plans' renames (the commit point), one for those files'
//! renames, one for the done markers. The `applied` and `sent.N` markers
//! are written only for a plan that stops.
//!
//! A plan not done holds back what it writes ([`Plan::claims`]: a game's
//! folder, a player's file): nothing new is decided on it until the plan
//! is done, since the store it would be decided on is not yet the one the
//! plan makes. Plans not done are carried on in the order their mails
//! arrived, before anything new; a mail for a game held back waits in the
//! mailbox, undecided and unanswered (`KEY.wait`), and is decided once the
//! plan is done, in its turn.
//!
//! A plan holds no token: a new player's token is written into it as its
//! nonce only (`auth::Sealed`), and put back into the mail when it is sent.
//! The plan and its step markers are deleted with the `KEY.done` marker
//! being written; a plan left beside a done marker (a crash in between) is
//! deleted at the next cycle, and never outlives it.
//!
//! Done markers are what recognises a mail delivered twice; they are
//! pruned once they are older than `limits.journal_days` (default 30), by
//! which time no mail system still retries a delivery and the mail itself
//! has long been archived.
//!
//! `YAM_ROBOT_KILL_AT=after-read|after-apply|before-done|after-send|after-archive|after-a-hint`
//! makes the process kill itself (SIGKILL, by `kill -9` of its own pid) at
//! that step, for the crash tests.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::auth::TokenKey;
use super::decide::{OutMail, Work};
use crate::store::atomic;

/// Steps where a test may kill the robot.
pub fn kill_point(step: &str) {
    if std::env::var("YAM_ROBOT_KILL_AT").is_ok_and(|v| v == step) {
        let pid = std::process::id().to_string();
        // A real SIGKILL: no destructor, no flush, exactly like a crash.
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid])
            .status();
        // `kill` missing: stop anyway, still without cleaning up.
        std::process::abort();
    }
}

/// The journal directory.
#[derive(Debug)]
pub struct Journal {
    dir: PathBuf,
    root: PathBuf,
    /// Puts new players' tokens back into the mails that carry them.
    tokens: TokenKey,
    /// The place of the next plan in the order of arrival.
    next_seq: Cell<u64>,
    /// The thread that deletes the files of plans done, and its queue.
    sweeper: RefCell<Option<Sweeper>>,
    /// The plans of the last group committed, renamed into place but not
    /// yet durable: made so by the first barrier of the files they write
    /// (no file of theirs is renamed into place before it), or before
    /// anything else is done with them ([`Journal::commits_durable`]).
    unsynced: RefCell<Option<atomic::Unsynced>>,
    /// `.deciding`, kept open: the key of the mail being decided, written
    /// over in place as a decision starts and emptied as it ends (no entry
    /// made or removed in the folder, which cost the burst 10%).
    deciding: RefCell<Option<std::fs::File>>,
}

/// A thread deleting files the journal is done with, off the loop's way
/// (each deletion waits for the file system's journal under load).
#[derive(Debug)]
struct Sweeper {
    queue: std::sync::mpsc::Sender<Vec<PathBuf>>,
    thread: std::thread::JoinHandle<()>,
}

/// How far a mail got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Never seen, or seen but nothing decided (maybe waiting).
    New,
    /// Decided; maybe partly done.
    Planned,
    /// Done.
    Done,
}

/// Where a plan stands. A plan whose last step failed is also *blocked*
/// ([`Plan::blocked`]), in the state it reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    /// Decided and durable; its files may not be written yet.
    Planned,
    /// Its files are written.
    Applied,
    /// Its mails are sent.
    Sent,
    /// All done: the plan is gone, its done marker stays.
    Done,
}

/// The plan file: the work and its place in the order of arrival.
/// (Plans written before the order was kept have no `seq`: they come
/// first, by age.)
#[derive(Debug, Serialize, Deserialize)]
struct PlanFile {
    #[serde(default)]
    seq: u64,
    #[serde(flatten)]
    work: Work,
    /// The mails (by position) whose attachment (its file name) is the
    /// text of a file the plan writes (by path), kept once: the answer to a
    /// move attaches the record the plan writes, and the plan carried it
    /// twice (twice its JSON escaping and bytes to sync, a 150 kB record at
    /// 283 events). Their attachment is absent in the file (an earlier
    /// build that read the plan would send the mail without it, not with
    /// an empty record), and put back when the plan is read
    /// ([`PlanFile::attachments_filled`]). Absent in plans of earlier
    /// builds, which carry the text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    attached_writes: Vec<(usize, String, String)>,
}

impl PlanFile {
    /// The plan with each attachment that is a file it writes kept once
    /// (see [`PlanFile::attached_writes`]), for writing.
    fn attachments_shared(mut self) -> PlanFile {
        let (writes, mails) = (&self.work.writes, &mut self.work.mails);
        for (n, mail) in mails.iter_mut().enumerate() {
            if let Some((name, text)) = &mail.attachment
                && let Some((rel, _)) = writes.iter().find(|(_, written)| *written == text)
            {
                self.attached_writes.push((n, name.clone(), rel.clone()));
                mail.attachment = None;
            }
        }
        self
    }

    /// The plan with every attachment kept once filled in again; a plan
    /// naming a file it does not write is damaged.
    fn attachments_filled(mut self) -> std::io::Result<PlanFile> {
        for (n, name, rel) in std::mem::take(&mut self.attached_writes) {
            let text = self.work.writes.get(&rel).cloned();
            match (self.work.mails.get_mut(n), text) {
                (
                    Some(OutMail {
                        attachment: attached @ None,
                        ..
                    }),
                    Some(text),
                ) => {
                    *attached = Some((name, text));
                }
                _ => {
                    return Err(std::io::Error::other(format!(
                        "the plan attaches to its mail {n} the file {rel}, which it does not write"
                    )));
                }
            }
        }
        Ok(self)
    }
}

/// A decision on its way through the journal: every plan is made by
/// [`Journal::commit`] or read back by [`Journal::pending`], and moves on
/// only by [`Plan::advance`].
#[derive(Debug)]
pub struct Plan {
    key: String,
    seq: u64,
    work: Work,
    state: State,
    blocked: Option<String>,
    /// Why the plan file could not be read: such a plan is never carried
    /// on (nor deleted); the operator reads it.
    unreadable: Option<String>,
    /// Whether step markers may be beside it (`applied`, `sent.N`,
    /// `blocked`): a plan read back, or one that stopped. A plan of a
    /// group carried out in one go has none to delete.
    marked: bool,
}

/// The other key a plan's mail is marked done under (`Work::also_done`),
/// if it is a key: a plan file is the robot's own, but a name that is not
/// a key must never become a path.
fn also_done(work: &Work) -> Option<&str> {
    work.also_done
        .as_deref()
        .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Why a plan stopped: the step and the error. It is retried from there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// What failed.
    pub reason: String,
    /// Whether this is news: the same reason as last time is not logged
    /// again.
    pub new: bool,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// What a decision holds back while it is not done: `games/ID` for a
/// game's files, `robot/register/KEY` for a register, else the file.
pub fn resource(rel: &str) -> String {
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        ["games", id, ..] => format!("games/{id}"),
        ["robot", "register", who, ..] => format!("robot/register/{who}"),
        _ => rel.to_owned(),
    }
}

/// What `work` writes or mails about, as [`resource`]s.
pub fn claims(work: &Work) -> BTreeSet<String> {
    work.writes
        .keys()
        .map(|rel| resource(rel))
        .chain(
            work.mails
                .iter()
                .filter_map(|m| m.game.as_ref().map(|g| format!("games/{g}"))),
        )
        .collect()
}

/// The resources held by plans not done, and by which.
#[derive(Debug, Default)]
pub struct Blocks {
    held: BTreeMap<String, String>,
    /// A plan that cannot be read: what it writes is unknown, so it holds
    /// everything. Carried on later, once mended, it writes its files
    /// whole: a move decided meanwhile on one of them would be written
    /// over (applied, answered, then gone from the record).
    everything: Option<String>,
}

impl Blocks {
    /// Holds back what `plan` claims (everything, when it cannot be read).
    pub fn hold(&mut self, plan: &Plan) {
        if plan.unreadable.is_some() {
            self.everything.get_or_insert_with(|| plan.key.clone());
        }
        for r in plan.claims() {
            self.held.entry(r).or_insert_with(|| plan.key.clone());
        }
    }

    /// The plans holding any of `resources` (store paths or resources).
    pub fn holders<'a>(&self, resources: impl IntoIterator<Item = &'a String>) -> Vec<String> {
        let mut resources = resources.into_iter().peekable();
        // A decision that reads or writes nothing waits for nobody.
        let everything = resources.peek().and(self.everything.clone());
        let mut keys: Vec<String> = resources
            .filter_map(|r| self.held.get(&resource(r)).cloned())
            .chain(everything)
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// Whether `key` holds anything.
    pub fn holds(&self, key: &str) -> bool {
        self.everything.as_deref() == Some(key) || self.held.values().any(|k| k == key)
    }

    /// The games held, for the log.
    pub fn games_of(&self, key: &str) -> Vec<String> {
        self.held
            .iter()
            .filter(|(_, k)| *k == key)
            .filter_map(|(r, _)| r.strip_prefix("games/").map(str::to_owned))
            .collect()
    }
}

impl Plan {
    /// The mail (or deadline) key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Where it stands.
    pub fn state(&self) -> State {
        self.state
    }

    /// What it writes and sends.
    pub fn work(&self) -> &Work {
        &self.work
    }

    /// Why its last step failed, if it did.
    pub fn blocked(&self) -> Option<&str> {
        self.blocked.as_deref()
    }

    /// What it holds back until it is done.
    pub fn claims(&self) -> BTreeSet<String> {
        claims(&self.work)
    }

    /// Carries the plan on from its state to done: writes its files (then
    /// `log` gets its lines), sends each mail not yet marked sent (by
    /// `send`), and marks it done. A step that fails leaves the plan
    /// blocked where it stopped, with the reason kept beside it.
    pub fn advance(
        &mut self,
        journal: &Journal,
        mut log: impl FnMut(&str),
        mut send: impl FnMut(&OutMail) -> Result<(), String>,
    ) -> Result<(), Stop> {
        if let Some(why) = &self.unreadable {
            let new = self.blocked.is_none();
            self.blocked = Some(why.clone());
            return Err(Stop {
                reason: why.clone(),
                new,
            });
        }
        self.marked = true;
        let result = (|| -> Result<(), String> {
            journal
                .commits_durable()
                .map_err(|e| format!("cannot make the plan durable: {e}"))?;
            if self.state == State::Planned {
                journal.apply(&self.work)?;
                atomic::write(&journal.path(&self.key, "applied"), b"", true)
                    .map_err(|e| format!("cannot mark it applied: {e}"))?;
                self.state = State::Applied;
                for line in &self.work.log {
                    log(line);
                }
                kill_point("after-apply");
            }
            if self.state == State::Applied {
                for (n, mail) in self.work.mails.iter().enumerate() {
                    let marker = journal.path(&self.key, &format!("sent.{n}"));
                    if marker.exists() {
                        continue;
                    }
                    let mail = journal.unseal(&self.work, mail);
                    send(&mail).map_err(|e| format!("cannot send mail {n}: {e}"))?;
                    atomic::write(&marker, b"", true)
                        .map_err(|e| format!("cannot mark mail {n} sent: {e}"))?;
                }
                self.state = State::Sent;
                // Alone, a plan's mails are marked sent one by one: the
                // two steps are one here.
                kill_point("before-done");
                kill_point("after-send");
            }
            if self.state == State::Sent {
                // The mail's other key first: a crash between the two
                // leaves the plan not done, carried on again.
                if let Some(also) = also_done(&self.work) {
                    atomic::write(&journal.path(also, "done"), b"", true)
                        .map_err(|e| format!("cannot mark it done: {e}"))?;
                }
                atomic::write(&journal.path(&self.key, "done"), b"", true)
                    .map_err(|e| format!("cannot mark it done: {e}"))?;
                self.state = State::Done;
                journal.forget_known(&self.key, Some(self.work.mails.len()));
            }
            Ok(())
        })();
        match result {
            Ok(()) => {
                self.blocked = None;
                Ok(())
            }
            Err(reason) => Err(self.stop(journal, reason)),
        }
    }

    /// The plan stopped for `reason`: blocked where it is, the reason kept
    /// beside it when it is news.
    fn stop(&mut self, journal: &Journal, reason: String) -> Stop {
        self.marked = true;
        let new = self.blocked.as_deref() != Some(reason.as_str());
        if new {
            // Kept for the next run's log (and the operator's eyes); a disk
            // too full for it is a disk too full for the plan, and the
            // reason is logged again.
            let _ = atomic::write(&journal.path(&self.key, "blocked"), reason.as_bytes(), true);
        }
        self.blocked = Some(reason.clone());
        Stop { reason, new }
    }
}

/// Carries a group of plans on together, the group commit of a burst:
/// the same steps as [`Plan::advance`], each taken for the whole group
/// before the next, so that the group shares its syncs. Every plan's
/// files are written and made durable together
/// ([`atomic::write_group_after`]: two barriers for all, the first of
/// which also makes the plans' renames durable, before any file is
/// renamed into place), the mails are sent, then every done marker is
/// made durable together (one barrier). The plans of a group must not
/// write the same files (the loop groups only decisions that neither
/// read nor write what another of the group writes), so taking a step
/// for all of them at once is taking it for each in turn.
///
/// The done markers are what says a group's mails went: a `sent.N`
/// marker for each would need a barrier of its own just before theirs,
/// and a crash before either barrier is the same window. The `applied`
/// and `sent.N` markers are written only for a plan that stops, for the
/// mails it sent, so that its retry neither writes its files again nor
/// sends those mails again. A crash after the group's files and before
/// its done markers carries its plans on from planned at the next start:
/// their files are written again, whole and the same (nothing was
/// decided after them: the next group is decided once the done markers
/// are durable, and a plan that stopped holds what it writes), and their
/// mails are sent again under the same Message-IDs, which is what a
/// crash between a mail sent and its `sent.N` marker does alone.
/// A step that fails for the group is taken again plan by plan
/// ([`Plan::advance`]), so the failure blocks only the plans it
/// concerns. Returns each plan's outcome, in order.
pub fn advance_group(
    journal: &Journal,
    plans: &mut [Plan],
    mut log: impl FnMut(&str),
    mut send: impl FnMut(&OutMail) -> Result<(), String>,
) -> Vec<Result<(), Stop>> {
    let mut results: Vec<Option<Result<(), Stop>>> = plans.iter().map(|_| None).collect();
    // Plans read back unreadable never go on.
    for (plan, result) in plans.iter_mut().zip(results.iter_mut()) {
        if let Some(why) = plan.unreadable.clone() {
            let new = plan.blocked.is_none();
            plan.blocked = Some(why.clone());
            *result = Some(Err(Stop { reason: why, new }));
        }
    }
    let open = |results: &[Option<Result<(), Stop>>], i: usize| results[i].is_none();
    // Applied: every file of every plan, then every marker, one sync of
    // each folder for all.
    let planned: Vec<usize> = (0..plans.len())
        .filter(|&i| open(&results, i) && plans[i].state == State::Planned)
        .collect();
    if !planned.is_empty() {
        // A file two plans write is written as the later one has it, as
        // one plan after the other would leave it.
        let mut files: BTreeMap<PathBuf, &str> = BTreeMap::new();
        for &i in &planned {
            for (rel, text) in &plans[i].work.writes {
                files.insert(journal.root.join(rel), text.as_str());
            }
        }
        let written = (|| {
            for path in files.keys() {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
            }
            let batch: Vec<(&Path, &[u8])> = files
                .iter()
                .map(|(p, t)| (p.as_path(), t.as_bytes()))
                .collect();
            // The plans' renames are made durable by the barrier of these
            // files' contents, before any of them is renamed into place.
            let mut unsynced = journal.unsynced.borrow_mut();
            atomic::write_group_after(&mut unsynced, &batch)?;
            unsynced.take().map_or(Ok(()), |mut files| files.durable())
        })();
        if written.is_err() {
            // Plan by plan: the one whose file cannot be written stops,
            // the others go on.
            return carried_alone(journal, plans, results, &mut log, &mut send);
        }
        for &i in &planned {
            plans[i].state = State::Applied;
            for line in &plans[i].work.log {
                log(line);
            }
        }
        kill_point("after-apply");
    }
    // Nothing is sent before the plans are durable (with no file to write,
    // their renames had no barrier yet).
    if journal.commits_durable().is_err() {
        return carried_alone(journal, plans, results, &mut log, &mut send);
    }
    // Sent: each plan's mails in turn; a plan whose mail fails stops with
    // the mails it sent marked, and the others go on.
    for i in 0..plans.len() {
        if !open(&results, i) || plans[i].state != State::Applied {
            continue;
        }
        let plan = &mut plans[i];
        let mut sent_now = Vec::new();
        let mut failed = None;
        for (n, mail) in plan.work.mails.iter().enumerate() {
            let marker = journal.path(&plan.key, &format!("sent.{n}"));
            if marker.exists() {
                continue;
            }
            let mail = journal.unseal(&plan.work, mail);
            if let Err(e) = send(&mail) {
                failed = Some(format!("cannot send mail {n}: {e}"));
                break;
            }
            sent_now.push((n, marker));
        }
        match failed {
            None => plan.state = State::Sent,
            Some(mut reason) => {
                // Retried from applied, without the mails it sent.
                plan.marked = true;
                if let Err(e) = atomic::write(&journal.path(&plan.key, "applied"), b"", true) {
                    reason = format!("cannot mark it applied: {e}");
                }
                for (n, marker) in sent_now {
                    if let Err(e) = atomic::write(&marker, b"", true) {
                        reason = format!("cannot mark mail {n} sent: {e}");
                        break;
                    }
                }
                results[i] = Some(Err(plan.stop(journal, reason)));
            }
        }
    }
    // Killed here, the mails just sent are sent again at the next start,
    // under the same Message-IDs: the done markers are what says they
    // went (no `sent.N` marker for each: it would be made durable by a
    // barrier of its own just before theirs, so a crash before either
    // is the same window).
    kill_point("before-done");
    // Done: every marker, one sync for all.
    let sent: Vec<usize> = (0..plans.len())
        .filter(|&i| open(&results, i) && plans[i].state == State::Sent)
        .collect();
    let markers: Vec<PathBuf> = sent
        .iter()
        .flat_map(|&i| {
            std::iter::once(plans[i].key.as_str())
                .chain(also_done(&plans[i].work))
                .map(|key| journal.path(key, "done"))
        })
        .collect();
    let batch: Vec<&Path> = markers.iter().map(PathBuf::as_path).collect();
    let together = atomic::mark_group(&batch).is_ok();
    if together {
        kill_point("after-send");
    }
    let mut done_with = Vec::new();
    for i in sent {
        let plan = &mut plans[i];
        results[i] = Some(if together {
            plan.state = State::Done;
            plan.blocked = None;
            done_with.push(journal.path(&plan.key, "plan"));
            // Step markers only of a plan carried alone before (stopped,
            // or read back after a crash).
            if plan.marked {
                done_with.extend(["applied", "blocked"].map(|what| journal.path(&plan.key, what)));
                done_with.extend(
                    (0..plan.work.mails.len())
                        .map(|n| journal.path(&plan.key, &format!("sent.{n}"))),
                );
            }
            Ok(())
        } else {
            plan.advance(journal, &mut log, &mut send)
        });
    }
    // What is done with goes in the background: a plan beside its done
    // marker is never carried on (and deleted at the next look).
    journal.discard(done_with);
    carried_alone(journal, plans, results, &mut log, &mut send)
}

/// The outcome of each plan of a group: the one it has, or, for a plan
/// without one yet, that of carrying it on alone ([`Plan::advance`]).
fn carried_alone(
    journal: &Journal,
    plans: &mut [Plan],
    results: Vec<Option<Result<(), Stop>>>,
    log: &mut impl FnMut(&str),
    send: &mut impl FnMut(&OutMail) -> Result<(), String>,
) -> Vec<Result<(), Stop>> {
    plans
        .iter_mut()
        .zip(results)
        .map(|(plan, result)| {
            result.unwrap_or_else(|| plan.advance(journal, &mut *log, &mut *send))
        })
        .collect()
}

/// A plan of a group commit, or the key of a work that could not be
/// written, and why.
pub type Committed = Result<Plan, (String, std::io::Error)>;

/// The plan file of `work` at `seq`, and its text: new players' tokens
/// replaced by their nonces; refused if a token would still be in it.
fn seal(work: Work, seq: u64) -> std::io::Result<(PlanFile, String)> {
    let mut work = work;
    for sealed in &work.tokens {
        for mail in &mut work.mails {
            mail.body = mail.body.replace(sealed.token(), &sealed.mark());
        }
    }
    let file = PlanFile {
        seq,
        work,
        attached_writes: Vec::new(),
    }
    .attachments_shared();
    // JSON: a plan holds whole records and answers, which YAML's emitter
    // wrote character by character (a fifth of a robot's CPU on games of
    // 200 events); a plan is read back as JSON, or, written by an earlier
    // Yam and left by a crash, as YAML.
    let text = serde_json::to_string(&file).map_err(std::io::Error::other)?;
    let file = file.attachments_filled()?;
    if file
        .work
        .tokens
        .iter()
        .any(|s| s.token().is_empty() || text.contains(s.token()))
    {
        return Err(std::io::Error::other(
            "a token would be written into the plan in the clear; nothing is done",
        ));
    }
    Ok((file, text))
}

impl Plan {
    /// A plan just committed.
    fn planned(key: &str, file: PlanFile) -> Plan {
        Plan {
            key: key.to_owned(),
            seq: file.seq,
            work: file.work,
            state: State::Planned,
            blocked: None,
            unreadable: None,
            marked: false,
        }
    }
}

/// The note of the mail being decided ([`Journal::deciding`]): a dot
/// file, which no listing of plans or markers takes for one.
const DECIDING: &str = ".deciding";

/// The folder of the done markers, inside the journal's: one a mail of
/// the last `journal_days`, a hundred thousand on a busy robot, kept apart
/// from the plans, which every look lists (listed together, 100,000
/// markers cost a look 73 ms of CPU and 195 ms on the clock, against 7 and
/// 11: `a_look_does_not_list_every_done_marker_of_the_month`).
const DONE: &str = "done";

impl Journal {
    /// The journal of the store at `root`; `tokens` fills new players'
    /// tokens into their mails.
    pub fn open(root: &Path, tokens: TokenKey) -> std::io::Result<Journal> {
        let dir = root.join("robot").join("journal");
        std::fs::create_dir_all(dir.join(DONE))?;
        let journal = Journal {
            dir,
            root: root.to_path_buf(),
            tokens,
            next_seq: Cell::new(1),
            sweeper: RefCell::new(None),
            unsynced: RefCell::new(None),
            deciding: RefCell::new(None),
        };
        journal.count_a_death();
        let last = journal.pending().iter().map(|p| p.seq).max().unwrap_or(0);
        journal.next_seq.set(last + 1);
        Ok(journal)
    }

    fn path(&self, key: &str, what: &str) -> PathBuf {
        if what == "done" {
            return self.dir.join(DONE).join(format!("{key}.done"));
        }
        self.dir.join(format!("{key}.{what}"))
    }

    /// How many runs died deciding the mail `key` (its `KEY.died`). A
    /// mail that kills every run deciding it would, restarted with
    /// `Restart=always`, stop every game the robot keeps.
    pub fn died_deciding(&self, key: &str) -> u32 {
        std::fs::read_to_string(self.path(key, "died"))
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0)
    }

    /// At the start of a run: a `.deciding` note that is not empty names
    /// the mail the run before died deciding (killed for memory, an
    /// abort); one more death is counted for it (`KEY.died`), and the note
    /// emptied.
    fn count_a_death(&self) {
        let path = self.dir.join(DECIDING);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return;
        };
        let key = text.trim();
        if !key.is_empty() && !key.contains(['/', '\\']) && !key.starts_with('.') {
            let died = self.died_deciding(key) + 1;
            let _ = std::fs::write(self.path(key, "died"), format!("{died}\n"));
        }
        let _ = std::fs::write(&path, b"");
    }

    /// Notes that the mail `key` is being decided: `.deciding` written
    /// over in place. Not synced: what a killed process wrote survives it
    /// (only a power cut loses the note, and then one run more tries).
    pub fn deciding(&self, key: &str) {
        use std::io::{Seek, Write};
        let mut note = self.deciding.borrow_mut();
        if note.is_none() {
            *note = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(self.dir.join(DECIDING))
                .ok();
        }
        if let Some(file) = note.as_mut() {
            let text = format!("{key}\n");
            let _ = file
                .seek(std::io::SeekFrom::Start(0))
                .and_then(|_| file.write_all(text.as_bytes()))
                .and_then(|()| file.set_len(text.len() as u64));
        }
    }

    /// The decision under way ended (whatever it came to): the note is
    /// emptied.
    pub fn decided(&self) {
        if let Some(file) = self.deciding.borrow().as_ref() {
            let _ = file.set_len(0);
        }
    }

    /// How far `key` got.
    pub fn progress(&self, key: &str) -> Progress {
        if self.path(key, "done").exists() {
            Progress::Done
        } else if self.path(key, "plan").exists() {
            Progress::Planned
        } else {
            Progress::New
        }
    }

    /// The plans not done (a crash or a failed step interrupted them), in
    /// the order their mails arrived. A plan beside a done marker is
    /// deleted here.
    pub fn pending(&self) -> Vec<Plan> {
        let names: Vec<String> = std::fs::read_dir(&self.dir)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        // An earlier build kept the done markers here, beside the plans:
        // moved once into `done/` (the listing every look makes of this
        // folder then holds plans and step markers only).
        for name in names
            .iter()
            .filter(|n| n.ends_with(".done") && !n.starts_with('.'))
        {
            let _ = std::fs::rename(self.dir.join(name), self.dir.join(DONE).join(name));
        }
        let keys: Vec<String> = names
            .iter()
            .filter_map(|n| n.strip_suffix(".plan").map(str::to_owned))
            .filter(|k| !k.starts_with('.'))
            .collect();
        let mut plans = Vec::new();
        for key in keys {
            if self.path(&key, "done").exists() {
                self.forget(&key);
                continue;
            }
            match self.load(&key) {
                Ok(plan) => plans.push(plan),
                // Not readable: kept for the operator, and said at each
                // run by the caller's log of what is still not done.
                Err(e) => plans.push(Plan {
                    key: key.clone(),
                    seq: 0,
                    work: Work::default(),
                    state: State::Planned,
                    blocked: None,
                    unreadable: Some(format!("the plan cannot be read: {e}")),
                    marked: true,
                }),
            }
        }
        let age = |p: &Plan| {
            std::fs::metadata(self.path(&p.key, "plan"))
                .and_then(|m| m.modified())
                .ok()
        };
        plans.sort_by_cached_key(|p| (p.seq, age(p), p.key.clone()));
        plans
    }

    /// The plan of `key`, in the state its markers say.
    fn load(&self, key: &str) -> std::io::Result<Plan> {
        let text = std::fs::read_to_string(self.path(key, "plan"))?;
        let file: PlanFile = match serde_json::from_str(&text) {
            Ok(file) => file,
            // A plan an earlier Yam wrote (YAML), left by a crash.
            Err(_) => serde_yaml_ng::from_str(&text).map_err(std::io::Error::other)?,
        };
        let file = file.attachments_filled()?;
        let state = if !self.path(key, "applied").exists() {
            State::Planned
        } else if (0..file.work.mails.len()).all(|n| self.path(key, &format!("sent.{n}")).exists())
        {
            State::Sent
        } else {
            State::Applied
        };
        let blocked = std::fs::read_to_string(self.path(key, "blocked")).ok();
        Ok(Plan {
            key: key.to_owned(),
            seq: file.seq,
            work: file.work,
            state,
            blocked,
            unreadable: None,
            marked: true,
        })
    }

    /// Makes `work` durable, the commit point: a plan, planned. New
    /// players' tokens are kept in it as their nonces only.
    pub fn commit(&self, key: &str, work: Work) -> std::io::Result<Plan> {
        let seq = self.next_seq.get();
        let (file, text) = seal(work, seq)?;
        atomic::write(&self.path(key, "plan"), text.as_bytes(), true)?;
        self.next_seq.set(seq + 1);
        let _ = std::fs::remove_file(self.path(key, "wait"));
        Ok(Plan::planned(key, file))
    }

    /// Makes a group of decisions durable at once, the group's commit
    /// point: each plan file is written whole and synced, and renamed
    /// into place; the renames are made durable by the first barrier of
    /// the files they write ([`advance_group`]), or before anything else
    /// is done with them (a crash leaves each plan whole or absent, as
    /// [`Journal::commit`] does, and none of its files written). The
    /// decisions of a group are independent of one another, so any of them
    /// surviving a crash without the others is a store some order of
    /// arrival could have made. When the group cannot be written together,
    /// each plan is written on its own, and one that cannot be is left out
    /// (its mail is decided again later). Returns each plan, or why it is
    /// not written, in order.
    pub fn commit_group(&self, works: Vec<(String, Work)>) -> Vec<Committed> {
        let mut seq = self.next_seq.get();
        let mut prepared = Vec::new();
        let mut refused = Vec::new();
        for (i, (key, work)) in works.into_iter().enumerate() {
            match seal(work, seq) {
                Ok((file, text)) => {
                    prepared.push((i, key, file, text));
                    seq += 1;
                }
                Err(e) => refused.push((i, Err((key, e)))),
            }
        }
        self.next_seq.set(seq);
        let paths: Vec<PathBuf> = prepared
            .iter()
            .map(|(_, key, _, _)| self.path(key, "plan"))
            .collect();
        let batch: Vec<(&Path, &[u8])> = paths
            .iter()
            .zip(&prepared)
            .map(|(p, (_, _, _, text))| (p.as_path(), text.as_bytes()))
            .collect();
        // Renamed into place, not yet durable: the barrier of the files
        // they write makes them so, before any is renamed into place.
        let together = atomic::write_group_after(&mut self.unsynced.borrow_mut(), &batch).is_ok();
        let mut results: Vec<(usize, Committed)> = refused;
        for (path, (i, key, file, text)) in paths.iter().zip(prepared) {
            let written = if together {
                Ok(())
            } else {
                atomic::write(path, text.as_bytes(), true)
            };
            results.push((
                i,
                match written {
                    Ok(()) => {
                        let _ = std::fs::remove_file(self.path(&key, "wait"));
                        Ok(Plan::planned(&key, file))
                    }
                    Err(e) => {
                        // Not a plan of this run: not one of the next either.
                        let _ = std::fs::remove_file(path);
                        Err((key, e))
                    }
                },
            ));
        }
        results.sort_by_key(|(i, _)| *i);
        results.into_iter().map(|(_, r)| r).collect()
    }

    /// Makes the plans of the last group committed durable, if they are
    /// not yet (see [`Journal::commit_group`]).
    fn commits_durable(&self) -> std::io::Result<()> {
        let mut unsynced = self.unsynced.borrow_mut();
        if let Some(plans) = unsynced.as_mut() {
            plans.durable()?;
        }
        *unsynced = None;
        Ok(())
    }

    /// A mail of `work` as it is sent: with the tokens it carries.
    fn unseal(&self, work: &Work, mail: &OutMail) -> OutMail {
        let mut mail = mail.clone();
        for sealed in &work.tokens {
            let mark = sealed.mark();
            if mail.body.contains(&mark) {
                mail.body = mail.body.replace(&mark, &self.tokens.token(sealed));
            }
        }
        mail
    }

    /// Writes the plan's files (again, if a crash came between).
    fn apply(&self, work: &Work) -> Result<(), String> {
        for (rel, text) in &work.writes {
            let path = self.root.join(rel);
            let written = (|| {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                atomic::write(&path, text.as_bytes(), true)
            })();
            written.map_err(|e| format!("cannot write {rel}: {e}"))?;
        }
        Ok(())
    }

    /// Deletes `files` (of plans done) in the background; see
    /// [`Journal::settle`].
    fn discard(&self, files: Vec<PathBuf>) {
        if files.is_empty() {
            return;
        }
        let mut sweeper = self.sweeper.borrow_mut();
        if sweeper.is_none() {
            let (queue, work) = std::sync::mpsc::channel::<Vec<PathBuf>>();
            let spawned = std::thread::Builder::new()
                .name("journal-sweeper".into())
                .spawn(move || {
                    for files in work {
                        for file in files {
                            let _ = std::fs::remove_file(file);
                        }
                    }
                });
            match spawned {
                Ok(thread) => *sweeper = Some(Sweeper { queue, thread }),
                // No thread: deleted here.
                Err(_) => {
                    for file in files {
                        let _ = std::fs::remove_file(file);
                    }
                    return;
                }
            }
        }
        if let Some(s) = sweeper.as_ref()
            && let Err(std::sync::mpsc::SendError(files)) = s.queue.send(files)
        {
            for file in files {
                let _ = std::fs::remove_file(file);
            }
        }
    }

    /// Waits until every file given to delete is deleted (at the end of a
    /// look: the next one reads the journal's folder).
    pub fn settle(&self) {
        if let Some(Sweeper { queue, thread }) = self.sweeper.borrow_mut().take() {
            drop(queue);
            let _ = thread.join();
        }
    }

    /// Deletes the plan of `key` and its step markers (it is done), when
    /// the plan had `markers` mails (none: it never had a step marker): no
    /// scan of the journal's folder, which holds every done marker of the
    /// last days.
    fn forget_known(&self, key: &str, markers: Option<usize>) {
        let _ = std::fs::remove_file(self.path(key, "plan"));
        let Some(mails) = markers else {
            return;
        };
        for what in ["applied", "blocked"] {
            let _ = std::fs::remove_file(self.path(key, what));
        }
        for n in 0..mails {
            let _ = std::fs::remove_file(self.path(key, &format!("sent.{n}")));
        }
    }

    /// Deletes the plan of `key` and its step markers (it is done).
    fn forget(&self, key: &str) {
        for what in ["plan", "applied", "blocked"] {
            let _ = std::fs::remove_file(self.path(key, what));
        }
        let prefix = format!("{key}.sent.");
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for e in entries.flatten() {
                if e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with(&prefix))
                {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }

    /// Notes that the mail `key` waits, undecided, for the plans `on`;
    /// true when that is news (it waited for nothing, or for others).
    pub fn wait(&self, key: &str, on: &[String]) -> bool {
        let text = on.join("\n");
        if self.waits_for(key).is_some_and(|old| old == on) {
            return false;
        }
        let _ = atomic::write(&self.path(key, "wait"), text.as_bytes(), true);
        true
    }

    /// The plans the mail `key` was last seen waiting for.
    pub fn waits_for(&self, key: &str) -> Option<Vec<String>> {
        std::fs::read_to_string(self.path(key, "wait"))
            .ok()
            .map(|t| t.lines().map(str::to_owned).collect())
    }

    /// When the journal was last pruned (the robot's clock, seconds since
    /// the epoch), as `robot/journal.pruned` says; `None` before the
    /// first pruning (a store of a build before the file) or when the
    /// file cannot be read: the journal is then pruned at the next look.
    pub fn pruned_at(&self) -> Option<u64> {
        std::fs::read_to_string(self.pruned_path())
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Notes that the journal was pruned at `now` (see
    /// [`Journal::pruned_at`]). A cache: not synced, since lost or garbled
    /// in a crash it costs one pruning more.
    pub fn note_pruned(&self, now: u64) -> std::io::Result<()> {
        atomic::write_cache(&self.pruned_path(), format!("{now}\n").as_bytes())
    }

    /// Beside the journal's folder, not in it: the folder holds plans and
    /// markers only.
    fn pruned_path(&self) -> PathBuf {
        self.dir.with_file_name("journal.pruned")
    }

    /// Removes the done markers (and wait notes) last written more than
    /// `days` days before `now` (seconds since the epoch), with anything a
    /// crash left beside them; returns how many. Plans not done and their
    /// step markers are never pruned: they are work not yet finished.
    pub fn prune(&self, now: u64, days: u32) -> std::io::Result<usize> {
        let horizon = std::time::UNIX_EPOCH
            + std::time::Duration::from_secs(now.saturating_sub(u64::from(days) * 86_400));
        // One listing of the folder: the markers to weigh, and each key's
        // plan and step markers, by key. (Each expired key's markers were
        // found by listing the folder again: a month of 30,000 markers
        // took more than ten seconds a day to prune, a first pruning of
        // 8,000 fourteen, growing as the square of the journal.)
        let mut steps: std::collections::HashMap<String, Vec<PathBuf>> =
            std::collections::HashMap::new();
        let mut weighed = Vec::new();
        let done = self.dir.join(DONE);
        let entries =
            std::fs::read_dir(&self.dir)?.chain(std::fs::read_dir(&done).into_iter().flatten());
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            if let Some(key) = name.strip_suffix(".done") {
                weighed.push((key.to_owned(), true, entry));
            } else if let Some(key) = name
                .strip_suffix(".wait")
                .or_else(|| name.strip_suffix(".died"))
            {
                weighed.push((key.to_owned(), false, entry));
            } else if let Some(key) = step_marker_key(name) {
                steps.entry(key.to_owned()).or_default().push(entry.path());
            }
        }
        let mut removed = 0;
        for (key, done, entry) in weighed {
            let written = entry.metadata()?.modified()?;
            if written < horizon {
                if done {
                    // Never the done marker alone: the plan beside it
                    // would be taken for work not done.
                    for path in steps.remove(&key).unwrap_or_default() {
                        let _ = std::fs::remove_file(path);
                    }
                }
                std::fs::remove_file(entry.path())?;
                removed += usize::from(done);
            }
        }
        Ok(removed)
    }
}

/// The key whose plan or step marker the journal file `name` is
/// (`KEY.plan`, `KEY.applied`, `KEY.blocked`, `KEY.sent.N`), if it is one.
fn step_marker_key(name: &str) -> Option<&str> {
    for what in [".plan", ".applied", ".blocked"] {
        if let Some(key) = name.strip_suffix(what) {
            return Some(key);
        }
    }
    let (key, n) = name.rsplit_once(".sent.")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::robot::auth::Sealed;

    fn mail(id: &str) -> OutMail {
        OutMail {
            to: vec!["ann@example.org".into()],
            subject: "s".into(),
            body: "b".into(),
            message_id: id.into(),
            in_reply_to: None,
            references: Vec::new(),
            game: None,
            attachment: None,
        }
    }

    fn journal(dir: &Path) -> Journal {
        Journal::open(dir, TokenKey::from_bytes([7; 32])).unwrap()
    }

    fn no_log(_: &str) {}

    /// The names in the journal's folder once every deletion is done, in
    /// order.
    fn left(journal: &Journal) -> Vec<String> {
        journal.settle();
        let mut names: Vec<String> = std::fs::read_dir(&journal.dir)
            .unwrap()
            .chain(std::fs::read_dir(journal.dir.join(DONE)).unwrap())
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != DONE)
            .collect();
        names.sort();
        names
    }

    /// Plans are written as JSON; one an earlier Yam wrote as YAML and a
    /// crash left is read and carried out as it was.
    #[test]
    fn a_plan_written_as_yaml_by_an_earlier_yam_is_read_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let mut work = Work::default();
        work.writes.insert(
            "games/g/record.yam".into(),
            "[Game \"Khan\"]\n\"quoted\": {not: yaml}\n\u{1F40E}\ttab\n".into(),
        );
        work.mails = vec![mail("a@x")];
        let old = serde_yaml_ng::to_string(&PlanFile {
            seq: 4,
            work: work.clone(),
            attached_writes: Vec::new(),
        })
        .unwrap();
        std::fs::write(journal.path("old", "plan"), &old).unwrap();
        let pending = journal.pending();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].key(), "old");
        assert_eq!(pending[0].work, work);
        journal.commit("new", work.clone()).unwrap();
        let new = std::fs::read_to_string(journal.path("new", "plan")).unwrap();
        assert!(new.starts_with('{'), "{new}");
        let both = journal.pending();
        assert_eq!(both.len(), 2);
        assert!(both.iter().all(|p| p.work == work));
    }

    /// The answer to a move attaches the record its plan writes: the plan
    /// keeps the text once, and reads back with the attachment whole; an
    /// earlier build's plan carrying it twice still reads.
    #[test]
    fn a_record_the_plan_writes_and_attaches_is_kept_in_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let record = format!("[Game \"Khan\"]\n{}\n*\n", "1. Ng3-f3 ".repeat(500));
        let mut work = Work::default();
        work.writes
            .insert("games/g/record.yam".into(), record.clone());
        work.writes
            .insert("games/g/robot.yaml".into(), "id: g\n".into());
        let mut answer = mail("a@x");
        answer.attachment = Some(("g.yam".into(), record.clone()));
        let mut other = mail("b@x");
        other.attachment = Some(("h.yam".into(), "not written\n".into()));
        work.mails = vec![answer, other];
        let committed = journal.commit("k", work.clone()).unwrap();
        assert_eq!(
            committed.work, work,
            "the plan in memory keeps the attachment"
        );
        let text = std::fs::read_to_string(journal.path("k", "plan")).unwrap();
        assert!(
            text.contains(r#""attached_writes":[[0,"g.yam","games/g/record.yam"]]"#),
            "{text}"
        );
        assert_eq!(
            text.matches("Ng3-f3").count(),
            500,
            "once: {} bytes",
            text.len()
        );
        assert!(
            text.contains("not written"),
            "an attachment not written is kept"
        );
        let pending = journal.pending();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].work, work, "read back whole");
        // A plan naming a file it does not write is damaged, not sent
        // with an empty record.
        std::fs::write(
            journal.path("k", "plan"),
            text.replace(
                r#""attached_writes":[[0,"g.yam","games/g/record.yam"]]"#,
                r#""attached_writes":[[0,"g.yam","games/g/other.yam"]]"#,
            ),
        )
        .unwrap();
        assert!(journal.load("k").is_err());
    }

    #[test]
    fn a_plan_is_applied_once_and_each_mail_sent_until_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let mut work = Work::default();
        work.writes
            .insert("games/g/record.yam".into(), "one".into());
        work.mails = vec![mail("a@x"), mail("b@x")];
        assert_eq!(journal.progress("k"), Progress::New);
        let mut plan = journal.commit("k", work.clone()).unwrap();
        assert_eq!(plan.state(), State::Planned);
        assert_eq!(journal.progress("k"), Progress::Planned);
        let pending = journal.pending();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].key(), "k");
        assert_eq!(pending[0].work, work);
        // The server fails on the second mail: the first is not sent again.
        let mut sent = Vec::new();
        let failed = plan.advance(&journal, no_log, |m| {
            if m.message_id == "b@x" {
                return Err("451 try later".into());
            }
            sent.push(m.message_id.clone());
            Ok(())
        });
        let stop = failed.unwrap_err();
        assert!(stop.new && stop.reason.contains("451"), "{stop}");
        assert_eq!(plan.state(), State::Applied);
        let record = dir.path().join("games/g/record.yam");
        assert_eq!(std::fs::read_to_string(&record).unwrap(), "one");
        // Applied once: a later change is not overwritten by a replay of
        // the plan, read back from the journal as a restart would.
        std::fs::write(&record, "two").unwrap();
        let mut again = journal.pending().pop().unwrap();
        assert_eq!(again.state(), State::Applied);
        assert_eq!(again.blocked(), Some(stop.reason.as_str()));
        // The same failure is not news.
        let same = again.advance(&journal, no_log, |_| Err("451 try later".into()));
        assert!(!same.unwrap_err().new);
        again
            .advance(&journal, no_log, |m| {
                sent.push(m.message_id.clone());
                Ok(())
            })
            .unwrap();
        assert_eq!(std::fs::read_to_string(&record).unwrap(), "two");
        assert_eq!(sent, ["a@x", "b@x"]);
        assert_eq!(again.state(), State::Done);
        assert_eq!(journal.progress("k"), Progress::Done);
        assert!(journal.pending().is_empty());
        assert_eq!(
            left(&journal),
            ["k.done"],
            "the plan and its markers are gone"
        );
    }

    #[test]
    fn a_group_is_committed_and_carried_out_together_and_one_failure_stops_only_its_plan() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let work = |game: &str, id: &str| {
            let mut work = Work::default();
            work.writes
                .insert(format!("games/{game}/record.yam"), game.to_owned());
            work.mails = vec![mail(&format!("{id}1@x")), mail(&format!("{id}2@x"))];
            work.log = vec![format!("{game} moved")];
            work
        };
        let committed = journal.commit_group(vec![
            ("g1".into(), work("a", "a")),
            ("g2".into(), work("b", "b")),
        ]);
        let mut plans: Vec<Plan> = committed.into_iter().map(Result::unwrap).collect();
        // Both in place, in the order of arrival, before anything is done;
        // their renames are made durable with their files' contents.
        let order: Vec<String> = journal.pending().iter().map(|p| p.key().into()).collect();
        assert_eq!(order, ["g1", "g2"]);
        assert!(journal.unsynced.borrow().is_some());
        // The second mail of the first plan fails: only that plan stops,
        // with its first mail marked sent.
        let mut sent = Vec::new();
        let mut lines = Vec::new();
        let results = advance_group(
            &journal,
            &mut plans,
            |l| lines.push(l.to_owned()),
            |m| {
                assert!(
                    journal.unsynced.borrow().is_none(),
                    "nothing is sent before the plans are durable"
                );
                if m.message_id == "a2@x" {
                    return Err("451 try later".into());
                }
                sent.push(m.message_id.clone());
                Ok(())
            },
        );
        assert!(results[0].as_ref().unwrap_err().reason.contains("451"));
        assert!(results[1].is_ok());
        assert_eq!(sent, ["a1@x", "b1@x", "b2@x"]);
        assert_eq!(lines, ["a moved", "b moved"]);
        for game in ["a", "b"] {
            let record = dir.path().join(format!("games/{game}/record.yam"));
            assert_eq!(std::fs::read_to_string(record).unwrap(), game);
        }
        assert_eq!(journal.progress("g2"), Progress::Done);
        assert_eq!(plans[0].state(), State::Applied);
        // Read back as a restart would: only the mail not sent goes.
        let mut again = journal.pending();
        assert_eq!(again.len(), 1);
        sent.clear();
        let results = advance_group(&journal, &mut again, no_log, |m| {
            sent.push(m.message_id.clone());
            Ok(())
        });
        assert!(results[0].is_ok());
        assert_eq!(sent, ["a2@x"]);
        assert_eq!(
            left(&journal),
            ["g1.done", "g2.done"],
            "no plan or marker is left"
        );
    }

    #[test]
    fn a_group_whose_file_cannot_be_written_blocks_that_plan_only() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        std::fs::create_dir_all(dir.path().join("games/a/record.yam/x")).unwrap();
        let work = |game: &str| {
            let mut work = Work::default();
            work.writes
                .insert(format!("games/{game}/record.yam"), game.to_owned());
            work.mails = vec![mail(&format!("{game}@x"))];
            work
        };
        let mut plans: Vec<Plan> = journal
            .commit_group(vec![("ka".into(), work("a")), ("kb".into(), work("b"))])
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let mut sent = Vec::new();
        let results = advance_group(&journal, &mut plans, no_log, |m| {
            sent.push(m.message_id.clone());
            Ok(())
        });
        assert!(results[0].as_ref().unwrap_err().reason.contains("games/a"));
        assert!(results[1].is_ok());
        assert_eq!(
            sent,
            ["b@x"],
            "nothing is announced before its files are written"
        );
        assert_eq!(plans[0].state(), State::Planned);
        assert_eq!(journal.progress("ka"), Progress::Planned);
        assert_eq!(journal.progress("kb"), Progress::Done);
        // The group's barrier never passed: the plans were made durable
        // plan by plan, before their files.
        assert!(journal.unsynced.borrow().is_none());
    }

    /// A group that writes no file (answers only: a `show`, a `list`)
    /// has its plans made durable before its first mail goes, and leaves
    /// no step marker: its done markers say its mails went.
    #[test]
    fn a_group_that_writes_nothing_is_durable_before_it_sends_and_leaves_only_done_markers() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let answer = |id: &str| Work {
            mails: vec![mail(id)],
            ..Work::default()
        };
        let mut plans: Vec<Plan> = journal
            .commit_group(vec![
                ("s1".into(), answer("s1@x")),
                ("s2".into(), answer("s2@x")),
            ])
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert!(journal.unsynced.borrow().is_some());
        let mut sent = Vec::new();
        let results = advance_group(&journal, &mut plans, no_log, |m| {
            assert!(journal.unsynced.borrow().is_none());
            for key in ["s1", "s2"] {
                assert!(!journal.path(key, "sent.0").exists(), "no sent marker");
            }
            sent.push(m.message_id.clone());
            Ok(())
        });
        assert!(results.iter().all(Result::is_ok));
        assert_eq!(sent, ["s1@x", "s2@x"]);
        assert_eq!(left(&journal), ["s1.done", "s2.done"]);
    }

    /// A mail its token authenticated is done under its Message-ID and
    /// sender too, alone or in a group; a name that is not a key is no
    /// path.
    #[test]
    fn a_plan_marks_its_mails_other_key_done_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let answer = |id: &str, also: &str| Work {
            mails: vec![mail(id)],
            also_done: Some(also.to_owned()),
            ..Work::default()
        };
        let mut plans: Vec<Plan> = journal
            .commit_group(vec![
                ("g1".into(), answer("g1@x", "g1other")),
                ("g2".into(), answer("g2@x", "../escape")),
            ])
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let results = advance_group(&journal, &mut plans, no_log, |_| Ok(()));
        assert!(results.iter().all(Result::is_ok));
        let mut alone = journal.commit("k", answer("k@x", "kother")).unwrap();
        alone.advance(&journal, no_log, |_| Ok(())).unwrap();
        assert_eq!(journal.progress("g1other"), Progress::Done);
        assert_eq!(journal.progress("kother"), Progress::Done);
        assert_eq!(
            left(&journal),
            [
                "g1.done",
                "g1other.done",
                "g2.done",
                "k.done",
                "kother.done"
            ]
        );
        assert!(!dir.path().join("robot/escape.done").exists());
    }

    #[test]
    fn a_group_commit_refuses_a_plan_with_a_token_in_the_clear_and_keeps_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let key = TokenKey::from_bytes([7; 32]);
        let sealed = Sealed::draw(&key, "ann@example.org").unwrap();
        let mut leaky = Work::default();
        // The token outside any mail body: it cannot be sealed.
        leaky
            .writes
            .insert("robot/x".into(), sealed.token().to_owned());
        leaky.tokens = vec![sealed];
        let results = journal.commit_group(vec![
            ("k1".into(), Work::default()),
            ("k2".into(), leaky),
            ("k3".into(), Work::default()),
        ]);
        assert!(results[0].is_ok() && results[1].is_err() && results[2].is_ok());
        assert_eq!(journal.progress("k2"), Progress::New);
        let order: Vec<String> = journal.pending().iter().map(|p| p.key().into()).collect();
        assert_eq!(order, ["k1", "k3"]);
    }

    #[test]
    fn a_plan_whose_file_cannot_be_written_stays_blocked_and_holds_its_game() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        // A folder where the record goes: no write can replace it.
        std::fs::create_dir_all(dir.path().join("games/g/record.yam/x")).unwrap();
        let mut work = Work::default();
        work.writes
            .insert("games/g/record.yam".into(), "one".into());
        work.writes
            .insert("robot/players/ann.yaml".into(), "ann".into());
        work.mails = vec![mail("a@x")];
        let mut plan = journal.commit("k", work).unwrap();
        let mut sent = 0;
        let stop = plan
            .advance(&journal, no_log, |_| {
                sent += 1;
                Ok(())
            })
            .unwrap_err();
        assert!(stop.reason.contains("games/g/record.yam"), "{stop}");
        assert_eq!(sent, 0, "nothing is announced before the files are written");
        assert_eq!(plan.state(), State::Planned);
        let mut blocks = Blocks::default();
        blocks.hold(&plan);
        let touched = |paths: &[&str]| -> Vec<String> {
            let paths: Vec<String> = paths.iter().map(|p| (*p).to_owned()).collect();
            blocks.holders(&paths)
        };
        assert_eq!(touched(&["games/g/robot.yaml"]), ["k"]);
        assert_eq!(touched(&["robot/players/ann.yaml"]), ["k"]);
        assert!(touched(&["games/h/robot.yaml", "robot/players/bo.yaml"]).is_empty());
        assert_eq!(blocks.games_of("k"), ["g"]);
        // Writable again: it goes on from where it stopped.
        std::fs::remove_dir_all(dir.path().join("games/g/record.yam")).unwrap();
        let mut plan = journal.pending().pop().unwrap();
        plan.advance(&journal, no_log, |_| Ok(())).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("games/g/record.yam")).unwrap(),
            "one"
        );
    }

    #[test]
    fn plans_are_pending_in_the_order_they_were_made() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        // Keys whose hash order is not their order of arrival.
        for key in ["c", "a", "d", "b"] {
            journal.commit(key, Work::default()).unwrap();
        }
        let order: Vec<String> = journal
            .pending()
            .iter()
            .map(|p| p.key().to_owned())
            .collect();
        assert_eq!(order, ["c", "a", "d", "b"]);
        // A later run goes on counting after them.
        let reopened = Journal::open(dir.path(), TokenKey::from_bytes([7; 32])).unwrap();
        reopened.commit("0", Work::default()).unwrap();
        assert_eq!(reopened.pending().last().unwrap().key(), "0");
        // A plan of an earlier build (no place) comes first.
        std::fs::write(
            journal.path("old", "plan"),
            "writes: {}\nmails: []\nlog: []\n",
        )
        .unwrap();
        assert_eq!(reopened.pending()[0].key(), "old");
    }

    #[test]
    fn a_plan_holds_no_token_and_its_mail_carries_it() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let key = TokenKey::from_bytes([7; 32]);
        let sealed = Sealed::draw(&key, "ann@example.org").unwrap();
        let token = sealed.token().to_owned();
        let mut work = Work::default();
        let mut welcome = mail("w@x");
        welcome.body = format!("Your token is:  {token}\n\n  token: {token}\n");
        work.mails = vec![welcome];
        work.tokens = vec![sealed];
        let mut plan = journal.commit("k", work).unwrap();
        let text = std::fs::read_to_string(journal.path("k", "plan")).unwrap();
        assert!(!text.contains(&token), "{text}");
        // After a crash, the plan read back sends the same token.
        let mut bodies = Vec::new();
        let mut again = journal.pending().pop().unwrap();
        again
            .advance(&journal, no_log, |m| {
                bodies.push(m.body.clone());
                Ok(())
            })
            .unwrap();
        assert_eq!(
            bodies,
            [format!("Your token is:  {token}\n\n  token: {token}\n")]
        );
        // Nothing is left to do.
        assert!(plan.advance(&journal, no_log, |_| Ok(())).is_ok());
    }

    #[test]
    fn only_done_markers_older_than_the_horizon_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let day = 86_400;
        let now = 1_800_000_000;
        let age = |key: &str, what: &str, days: u64| {
            let path = journal.path(key, what);
            std::fs::write(&path, b"").unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(now - days * day);
            file.set_modified(when).unwrap();
        };
        age("old", "done", 31);
        // A plan a crash left beside its done marker goes with it: it
        // would otherwise be taken for work not done.
        age("old", "plan", 31);
        // So do its step markers, found in the same one listing.
        for step in ["applied", "blocked", "sent.0", "sent.12"] {
            age("old", step, 31);
        }
        // Another key's markers stay, whatever its name shares.
        age("old.sent", "plan", 31);
        age("older", "sent.0", 31);
        age("recent", "done", 29);
        // An unfinished plan is work, however old.
        age("stuck", "plan", 400);
        age("stuck", "sent.0", 400);
        assert_eq!(journal.prune(now, 30).unwrap(), 1);
        assert_eq!(journal.progress("old"), Progress::New);
        assert_eq!(journal.progress("recent"), Progress::Done);
        assert_eq!(journal.progress("stuck"), Progress::Planned);
        assert!(journal.path("stuck", "sent.0").exists());
        for step in ["plan", "applied", "blocked", "sent.0", "sent.12"] {
            assert!(!journal.path("old", step).exists(), "old.{step} left");
        }
        assert!(journal.path("old.sent", "plan").exists());
        assert!(journal.path("older", "sent.0").exists());
        assert_eq!(journal.prune(now, 30).unwrap(), 0);
    }

    /// An earlier build's done markers, beside the plans, are moved once
    /// into `done/` and still say the mail is done.
    #[test]
    fn the_done_markers_of_an_earlier_build_are_moved_once_and_still_count() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("robot/journal");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("old.done"), b"").unwrap();
        let journal = journal(dir.path());
        assert_eq!(journal.progress("old"), Progress::Done);
        assert!(!root.join("old.done").exists());
        assert!(root.join(DONE).join("old.done").exists());
        assert_eq!(left(&journal), ["old.done"]);
    }

    #[test]
    fn a_plan_beside_its_done_marker_is_deleted_not_done_again() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        journal.commit("k", Work::default()).unwrap();
        std::fs::write(journal.path("k", "applied"), b"").unwrap();
        std::fs::write(journal.path("k", "done"), b"").unwrap();
        assert!(journal.pending().is_empty());
        assert!(!journal.path("k", "plan").exists());
        assert!(!journal.path("k", "applied").exists());
    }
}
