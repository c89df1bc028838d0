//! Crash safety: a write-ahead journal per mail.
//!
//! ```text
//! robot/journal/KEY.plan     the Work decided for the mail (files and mails), written atomically
//! robot/journal/KEY.applied  its files are written
//! robot/journal/KEY.sent.N   its mail N went out
//! robot/journal/KEY.done     all of it happened; the mail is archived (or about to be)
//! ```
//!
//! The plan is the commit point: before it exists nothing has changed (a
//! crash means deciding again, from the same store); once it exists, the
//! same files are written again (whole files: writing twice is writing
//! once) and the mails not marked sent are sent, under the Message-IDs
//! decided in the plan. So a move is applied at most once, an answer sent
//! at least once, and a duplicate is recognisable by its Message-ID. The
//! plan is deleted once done, since it may hold a new player's token.
//!
//! Done markers are what recognises a mail delivered twice; they are
//! pruned once they are older than `limits.journal_days` (default 30), by
//! which time no mail system still retries a delivery and the mail itself
//! has long been archived.
//!
//! `YAM_ROBOT_KILL_AT=after-read|after-apply|after-send|after-archive`
//! makes the process kill itself (SIGKILL, by `kill -9` of its own pid) at
//! that step, for the crash tests.

use std::path::{Path, PathBuf};

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
#[derive(Debug, Clone)]
pub struct Journal {
    dir: PathBuf,
    root: PathBuf,
}

/// How far a mail got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Never seen, or seen but nothing decided.
    New,
    /// Decided; maybe partly done.
    Planned,
    /// Done.
    Done,
}

impl Journal {
    /// The journal of the store at `root`.
    pub fn open(root: &Path) -> std::io::Result<Journal> {
        let dir = root.join("robot").join("journal");
        std::fs::create_dir_all(&dir)?;
        Ok(Journal {
            dir,
            root: root.to_path_buf(),
        })
    }

    fn path(&self, key: &str, what: &str) -> PathBuf {
        self.dir.join(format!("{key}.{what}"))
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

    /// Keys planned but not done (a crash interrupted them).
    pub fn unfinished(&self) -> Vec<String> {
        let mut keys: Vec<String> = std::fs::read_dir(&self.dir)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                    .filter_map(|n| n.strip_suffix(".plan").map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        keys.retain(|k| !self.path(k, "done").exists());
        keys.sort();
        keys
    }

    /// Makes `work` durable: the commit point.
    pub fn plan(&self, key: &str, work: &Work) -> std::io::Result<()> {
        let text = serde_yaml_ng::to_string(work).map_err(std::io::Error::other)?;
        atomic::write(&self.path(key, "plan"), text.as_bytes(), true)
    }

    /// The plan of `key`.
    pub fn load(&self, key: &str) -> std::io::Result<Work> {
        let text = std::fs::read_to_string(self.path(key, "plan"))?;
        serde_yaml_ng::from_str(&text).map_err(std::io::Error::other)
    }

    /// Writes the plan's files (again, if a crash came between).
    pub fn apply(&self, key: &str, work: &Work) -> std::io::Result<()> {
        if !self.path(key, "applied").exists() {
            for (rel, text) in &work.writes {
                let path = self.root.join(rel);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                atomic::write(&path, text.as_bytes(), true)?;
            }
            atomic::write(&self.path(key, "applied"), b"", true)?;
        }
        Ok(())
    }

    /// Sends each mail not yet marked sent; stops at the first failure
    /// (the rest go at the next attempt).
    pub fn send(
        &self,
        key: &str,
        work: &Work,
        mut send: impl FnMut(&OutMail) -> Result<(), String>,
    ) -> Result<usize, String> {
        let mut sent = 0;
        for (n, mail) in work.mails.iter().enumerate() {
            let marker = self.path(key, &format!("sent.{n}"));
            if marker.exists() {
                continue;
            }
            send(mail)?;
            atomic::write(&marker, b"", true).map_err(|e| e.to_string())?;
            sent += 1;
        }
        Ok(sent)
    }

    /// Removes the done markers last written more than `days` days before
    /// `now` (seconds since the epoch); returns how many. Plans and their
    /// step markers are never pruned: they are work not yet finished.
    pub fn prune(&self, now: u64, days: u32) -> std::io::Result<usize> {
        let horizon = std::time::UNIX_EPOCH
            + std::time::Duration::from_secs(now.saturating_sub(u64::from(days) * 86_400));
        let mut removed = 0;
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            if !entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.ends_with(".done"))
            {
                continue;
            }
            let written = entry.metadata()?.modified()?;
            if written < horizon {
                std::fs::remove_file(entry.path())?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Marks `key` done and drops its plan and markers.
    pub fn finish(&self, key: &str, mails: usize) -> std::io::Result<()> {
        atomic::write(&self.path(key, "done"), b"", true)?;
        let _ = std::fs::remove_file(self.path(key, "plan"));
        let _ = std::fs::remove_file(self.path(key, "applied"));
        for n in 0..mails {
            let _ = std::fs::remove_file(self.path(key, &format!("sent.{n}")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_plan_is_applied_once_and_each_mail_sent_until_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(dir.path()).unwrap();
        let mut work = Work::default();
        work.writes
            .insert("games/g/record.yam".into(), "one".into());
        work.mails = vec![mail("a@x"), mail("b@x")];
        assert_eq!(journal.progress("k"), Progress::New);
        journal.plan("k", &work).unwrap();
        assert_eq!(journal.progress("k"), Progress::Planned);
        assert_eq!(journal.unfinished(), ["k"]);
        let loaded = journal.load("k").unwrap();
        assert_eq!(loaded, work);
        journal.apply("k", &loaded).unwrap();
        let record = dir.path().join("games/g/record.yam");
        assert_eq!(std::fs::read_to_string(&record).unwrap(), "one");
        // Applied once: a later change is not overwritten by a replay of
        // the plan.
        std::fs::write(&record, "two").unwrap();
        journal.apply("k", &loaded).unwrap();
        assert_eq!(std::fs::read_to_string(&record).unwrap(), "two");
        // The server fails on the second mail: the first is not sent again.
        let mut sent = Vec::new();
        let failed = journal.send("k", &loaded, |m| {
            if m.message_id == "b@x" {
                return Err("451 try later".into());
            }
            sent.push(m.message_id.clone());
            Ok(())
        });
        assert!(failed.is_err());
        let again = journal.send("k", &loaded, |m| {
            sent.push(m.message_id.clone());
            Ok(())
        });
        assert_eq!(again, Ok(1));
        assert_eq!(sent, ["a@x", "b@x"]);
        journal.finish("k", 2).unwrap();
        assert_eq!(journal.progress("k"), Progress::Done);
        assert!(journal.unfinished().is_empty());
        assert!(
            journal.load("k").is_err(),
            "the plan (it may hold a token) is gone"
        );
    }

    #[test]
    fn only_done_markers_older_than_the_horizon_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(dir.path()).unwrap();
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
        age("recent", "done", 29);
        // An unfinished plan is work, however old.
        age("stuck", "plan", 400);
        age("stuck", "sent.0", 400);
        assert_eq!(journal.prune(now, 30).unwrap(), 1);
        assert_eq!(journal.progress("old"), Progress::New);
        assert_eq!(journal.progress("recent"), Progress::Done);
        assert_eq!(journal.progress("stuck"), Progress::Planned);
        assert!(journal.path("stuck", "sent.0").exists());
        assert_eq!(journal.prune(now, 30).unwrap(), 0);
    }
}
