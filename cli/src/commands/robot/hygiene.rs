//! Mail hygiene: which mails the robot never answers, and how much mail
//! that nobody has authenticated it reads and answers.
//!
//! Anyone can write any `From:`. So the limits count only mail that is not
//! authenticated (no right token, no signature from a member): a flood in a
//! player's name fills the forger's allowance, never the player's, whose
//! tokened mail is read first and never counted. What the robot sends in
//! answer to unauthenticated mail (a welcome with a token, a refusal) is
//! limited per recipient (one a day) and in total (an hour's budget), so
//! the robot cannot be made to spam an address or the world.
//!
//! Answering an auto-reply, a bounce, a mailing list or itself is how mail
//! robots loop; RFC 3834 asks responders not to. The robot's own answers
//! carry `Auto-Submitted: auto-replied`, so a well-behaved vacation
//! responder stays quiet too.
//!
//! A signed Yam record from a member of a witnessed game is judged before
//! these rules (`decide::witness`): the desks mark their automatic steps
//! `Auto-Submitted`, and the signature, not the header, decides. Only a
//! record that is taken escapes them.

use std::path::{Path, PathBuf};

use crate::mail::extract::Incoming;

/// Why a mail is not answered.
pub fn ignore_reason(incoming: &Incoming, raw: &[u8], own_address: &str) -> Option<String> {
    let Some(from) = incoming.from.as_deref() else {
        return Some("no From address".into());
    };
    if from.eq_ignore_ascii_case(own_address) {
        return Some("mail from the robot's own address".into());
    }
    let local = from.split('@').next().unwrap_or_default();
    if ["mailer-daemon", "postmaster", "noreply", "no-reply"]
        .iter()
        .any(|d| local.eq_ignore_ascii_case(d))
    {
        return Some(format!("mail from {from}, an address no person reads"));
    }
    if let Some(auto) = &incoming.auto_submitted {
        return Some(format!("an automatic mail (Auto-Submitted: {auto})"));
    }
    if incoming.bulk {
        return Some("bulk or list mail".into());
    }
    // A delivery report (`multipart/report`, RFC 3464) is never answered
    // (RFC 3834, 2), whatever its sender and Return-Path: a gateway's
    // bounce address, or a mailbox whose last hop wrote no Return-Path,
    // was welcomed, registered and sent a token.
    if incoming.report {
        return Some("a delivery report (multipart/report)".into());
    }
    let headers = header_block(raw).to_ascii_lowercase();
    for (name, what) in [
        ("\nx-autoreply:", "an auto-reply (X-Autoreply)"),
        ("\nx-autorespond:", "an auto-reply (X-Autorespond)"),
        (
            "\nx-auto-response-suppress:",
            "an auto-reply (X-Auto-Response-Suppress)",
        ),
        ("\nreturn-path: <>", "a bounce (empty Return-Path)"),
    ] {
        if headers.contains(name) {
            return Some(what.into());
        }
    }
    None
}

/// The header block of a raw mail, starting with a newline so every
/// header name can be matched as `\nname:`.
fn header_block(raw: &[u8]) -> String {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| raw.windows(2).position(|w| w == b"\n\n"))
        .unwrap_or(raw.len().min(64 * 1024));
    let mut text = String::from("\n");
    text.push_str(&String::from_utf8_lossy(&raw[..end]).replace("\r\n", "\n"));
    text
}

/// The counts a decision made, each file as it was before: a decision
/// thrown away (made on a store its group then changed, and made again
/// once the group is committed; or one that waits, or is not carried out)
/// takes them back, so that it spends nothing. The counts are written as
/// the mail is decided, not by its plan: a newcomer's first mail decided
/// twice in one look found the day's one welcome spent by the first
/// decision, and was never welcomed
/// (`robot_local::a_newcomers_first_mail_decided_again_in_a_look_is_still_welcomed`).
#[derive(Debug, Clone, Default)]
pub struct Counted(std::rc::Rc<std::cell::RefCell<Vec<CountedFile>>>);

/// A count file and what it held before the decision's first count.
type CountedFile = (PathBuf, Option<String>);

impl Counted {
    fn note(&self, path: &Path) {
        let mut noted = self.0.borrow_mut();
        if !noted.iter().any(|(p, _)| p == path) {
            noted.push((path.to_path_buf(), std::fs::read_to_string(path).ok()));
        }
    }

    /// A new decision begins: the counts before it stand.
    pub fn forget(&self) {
        self.0.borrow_mut().clear();
    }

    /// Takes back every count made since [`Counted::forget`].
    pub fn take_back(&self) {
        for (path, before) in self.0.borrow_mut().drain(..).rev() {
            // As in `RateLimit::allow`, a count that cannot be written is
            // not a reason to stop the robot.
            let _ = match before {
                Some(text) => crate::store::atomic::write(&path, text.as_bytes(), true),
                None => std::fs::remove_file(&path),
            };
        }
    }
}

/// At most `limit` events per name in any `window` seconds, remembered on
/// disk so a restart does not reset it.
#[derive(Debug, Clone)]
pub struct RateLimit {
    dir: PathBuf,
    limit: u32,
    window: u64,
    counted: Option<Counted>,
}

impl RateLimit {
    /// At most `limit` an hour, counts kept in `dir`.
    pub fn new(dir: &Path, limit: u32) -> RateLimit {
        RateLimit::per(dir, limit, 3600)
    }

    /// At most `limit` in any `window` seconds, counts kept in `dir`.
    pub fn per(dir: &Path, limit: u32, window: u64) -> RateLimit {
        RateLimit {
            dir: dir.to_path_buf(),
            limit,
            window,
            counted: None,
        }
    }

    /// The same limit, its counts noted in `counted` to be taken back.
    pub fn counting(self, counted: &Counted) -> RateLimit {
        RateLimit {
            counted: Some(counted.clone()),
            ..self
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(super::auth::address_key(name))
    }

    /// The counts of `name` within the window at `now`: each a time and
    /// how many events it stands for.
    fn counts(&self, name: &str, now: u64) -> Vec<(u64, u64)> {
        std::fs::read_to_string(self.path(name))
            .unwrap_or_default()
            .lines()
            .filter_map(count_line)
            // A count a little ahead of the clock (set back by less than
            // the window: a step of NTP, a wrong zone corrected) still
            // counts: dropped, a clock set back ten minutes gave every
            // sender a fresh hour. One further ahead than a whole window
            // is a clock that was wrong before, and no count of this one.
            .filter(|(t, _)| t + self.window > now && *t <= now.saturating_add(self.window))
            .collect()
    }

    /// The time an event at `now` is counted under: the end of its
    /// sixtieth of the window (a minute of an hour, 24 minutes of a day),
    /// so a count file holds at most 61 lines whatever the limit (one
    /// line an event, the total of 10,000 an hour an operator may allow
    /// was a 110 kB file written whole at every unauthenticated mail).
    /// Rounded up, an event counts up to a sixtieth of the window longer,
    /// never shorter.
    fn bucket(&self, now: u64) -> u64 {
        let width = (self.window / 60).max(1);
        (now - now % width).saturating_add(width)
    }

    /// Removes the count files none of whose times is within the window
    /// at `now` (they would count nothing); how many. A stranger's file
    /// (every address that mailed without a token has one) was kept for
    /// ever: a flood of forged addresses within the allowances left up to
    /// 6,240 a day, 25 MB, and every start after an unclean end walked
    /// them all (`the_counts_of_strangers_are_not_kept_once_their_window_is_past`).
    pub fn prune(&self, now: u64) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let mut removed = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            // The journal's temporary files and anything not a count
            // (a count file is named by a 16-digit hex key) are left.
            if name.len() != 16 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let counts = text
                .lines()
                .filter_map(count_line)
                .any(|(t, _)| t + self.window > now);
            if !counts && std::fs::remove_file(&path).is_ok() {
                removed += 1;
            }
        }
        removed
    }

    /// Whether one more event of `name` at `now` stays within the limit,
    /// without counting it.
    pub fn would_allow(&self, name: &str, now: u64) -> bool {
        total(&self.counts(name, now)) < u64::from(self.limit)
    }

    /// Counts one event of `name` at `now`; false (and not counted) when
    /// over the limit.
    pub fn allow(&self, name: &str, now: u64) -> bool {
        let mut counts = self.counts(name, now);
        let allowed = total(&counts) < u64::from(self.limit);
        if allowed {
            let at = self.bucket(now);
            match counts.iter_mut().find(|(t, _)| *t == at) {
                Some((_, n)) => *n += 1,
                None => counts.push((at, 1)),
            }
        }
        let text: String = counts.iter().map(|(t, n)| format!("{t} {n}\n")).collect();
        if let Some(counted) = &self.counted {
            counted.note(&self.path(name));
        }
        // A count that cannot be written is not a reason to stop the robot.
        let _ = std::fs::create_dir_all(&self.dir);
        let _ = crate::store::atomic::write(&self.path(name), text.as_bytes(), true);
        allowed
    }
}

/// One line of a count file: a time and how many events it stands for,
/// `TIME COUNT`; `TIME` alone, as builds before the forty-second step wrote
/// each event, is one.
fn count_line(line: &str) -> Option<(u64, u64)> {
    let mut fields = line.split_whitespace();
    let time = fields.next()?.parse().ok()?;
    let count = match fields.next() {
        Some(count) => count.parse().ok()?,
        None => 1,
    };
    fields.next().is_none().then_some((time, count))
}

fn total(counts: &[(u64, u64)]) -> u64 {
    counts.iter().map(|(_, n)| n).sum()
}

/// The robot's limits on mail nobody has authenticated, and on what it
/// sends in answer to such mail.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Unauthenticated mails read per sender an hour.
    pub per_sender: RateLimit,
    /// Unauthenticated mails read from everyone an hour.
    pub total: RateLimit,
    /// Welcomes (a new token) per recipient a day.
    pub welcomes_per_recipient: RateLimit,
    /// Refusals (no valid token, a record not taken) per recipient a day.
    pub refusals_per_recipient: RateLimit,
    /// Confirmation codes (is this key yours?) per recipient a day: as
    /// many as may wait at once.
    pub confirmations_per_recipient: RateLimit,
    /// Answers to unauthenticated mail to everyone an hour.
    pub answers_total: RateLimit,
}

/// Confirmation codes mailed to an address a day, and waiting for it at
/// once (the key book's bound).
pub const CONFIRMATIONS_PER_DAY: u32 = 3;

/// The name the totals are counted under.
pub const EVERYONE: &str = "*";

impl Limits {
    /// The limits of the robot whose data directory is `dir`.
    /// Counts noted in `counted`, to be taken back with a decision thrown
    /// away.
    pub fn new(dir: &Path, settings: &super::decide::Settings, counted: &Counted) -> Limits {
        let rate = dir.join("rate");
        let limit = |name: &str, limit: u32, window: u64| {
            RateLimit::per(&rate.join(name), limit, window).counting(counted)
        };
        Limits {
            per_sender: limit("sender", settings.per_hour, 3600),
            total: limit("total", settings.unauthenticated_per_hour, 3600),
            welcomes_per_recipient: limit("welcomed", 1, 86_400),
            refusals_per_recipient: limit("refused", 1, 86_400),
            confirmations_per_recipient: limit("confirmations", CONFIRMATIONS_PER_DAY, 86_400),
            answers_total: limit("answers", settings.answers_per_hour, 3600),
        }
    }

    /// Removes the count files that count nothing at `now` (see
    /// [`RateLimit::prune`]); how many.
    pub fn prune(&self, now: u64) -> usize {
        [
            &self.per_sender,
            &self.total,
            &self.welcomes_per_recipient,
            &self.refusals_per_recipient,
            &self.confirmations_per_recipient,
            &self.answers_total,
        ]
        .iter()
        .map(|limit| limit.prune(now))
        .sum()
    }

    /// Counts one unauthenticated mail from `sender`; why it is not read,
    /// if it is over a limit.
    pub fn read_unauthenticated(&self, sender: &str, now: u64) -> Result<(), &'static str> {
        if !self.per_sender.would_allow(sender, now) {
            return Err("its sender's hourly allowance of unauthenticated mail is spent");
        }
        if !self.total.allow(EVERYONE, now) {
            return Err("the hourly allowance of unauthenticated mail is spent");
        }
        self.per_sender.allow(sender, now);
        Ok(())
    }

    /// Counts one answer of `kind` to unauthenticated mail to
    /// `recipient`; false when it must not be sent (one of each kind a day
    /// to an address, and the hour's total).
    pub fn answer_unauthenticated(&self, kind: Answer, recipient: &str, now: u64) -> bool {
        let recipient = &mailbox_of(recipient);
        let per_recipient = match kind {
            Answer::Welcome => &self.welcomes_per_recipient,
            Answer::Refusal => &self.refusals_per_recipient,
            Answer::Confirmation => &self.confirmations_per_recipient,
        };
        if !per_recipient.would_allow(recipient, now)
            || !self.answers_total.would_allow(EVERYONE, now)
        {
            return false;
        }
        per_recipient.allow(recipient, now) && self.answers_total.allow(EVERYONE, now)
    }
}

/// The mailbox an address reaches, as the answers to it are counted:
/// its local part cut at the first `+` (RFC 5233 subaddresses, which
/// Gmail, Fastmail, Outlook.com and Postfix's `recipient_delimiter`
/// deliver to one mailbox). Counted per address, a forger who knew
/// `ann@` had her sent a welcome for each of `ann+1@`, `ann+2@`, ... up
/// to the hour's whole allowance.
pub fn mailbox_of(address: &str) -> String {
    match address.rsplit_once('@') {
        Some((local, domain)) => match local.split_once('+') {
            Some((mailbox, _)) if !mailbox.is_empty() => format!("{mailbox}@{domain}"),
            _ => address.to_owned(),
        },
        None => address.to_owned(),
    }
}

/// What the robot sends in answer to mail nobody authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// A welcome, with a new token (or an invitation to a new address).
    Welcome,
    /// "Refused: no valid token" (perhaps someone wrote in your name), or
    /// a record that was not taken.
    Refusal,
    /// "Is this key yours?", to an address a signed mail named: a
    /// stranger with a key of her own names any address she likes.
    Confirmation,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::extract::read_mail;

    fn mail(headers: &str) -> Vec<u8> {
        format!("{headers}Message-ID: <m@x>\r\nSubject: show\r\n\r\nshow\r\n").into_bytes()
    }

    #[test]
    fn a_person_is_answered_and_robots_are_not() {
        let ok = mail("From: ann@example.org\r\n");
        assert_eq!(
            ignore_reason(&read_mail(&ok).unwrap(), &ok, "robot@yam.org"),
            None
        );
        for (headers, why) in [
            ("From: robot@yam.org\r\n", "own address"),
            (
                "From: ann@example.org\r\nAuto-Submitted: auto-replied\r\n",
                "Auto-Submitted",
            ),
            ("From: ann@example.org\r\nPrecedence: bulk\r\n", "bulk"),
            (
                "From: ann@example.org\r\nList-Id: <l.example.org>\r\n",
                "bulk",
            ),
            (
                "From: ann@example.org\r\nX-Autoreply: yes\r\n",
                "X-Autoreply",
            ),
            ("From: MAILER-DAEMON@example.org\r\n", "no person"),
            ("Return-Path: <>\r\nFrom: ann@example.org\r\n", "bounce"),
        ] {
            let raw = mail(headers);
            let reason = ignore_reason(&read_mail(&raw).unwrap(), &raw, "robot@yam.org");
            assert!(
                reason.as_deref().is_some_and(|r| r.contains(why)),
                "{headers}: {reason:?}"
            );
        }
    }

    #[test]
    fn answers_to_unauthenticated_mail_are_one_a_day_an_address() {
        let dir = tempfile::tempdir().unwrap();
        let settings = crate::commands::robot::decide::Settings {
            answers_per_hour: 2,
            ..Default::default()
        };
        let limits = Limits::new(dir.path(), &settings, &Counted::default());
        let refuse = |to: &str, at: u64| limits.answer_unauthenticated(Answer::Refusal, to, at);
        assert!(refuse("vic@example.org", 1000));
        assert!(!refuse("vic@example.org", 2000));
        assert!(refuse("a@example.org", 2000));
        // The hour's total is spent; a day later (after the end of the
        // 24 minutes the first is counted in, 1,440) one more to the victim.
        assert!(!refuse("b@example.org", 2001));
        assert!(!refuse("vic@example.org", 1000 + 86_400));
        assert!(refuse("vic@example.org", 1440 + 86_400));
        // A welcome is counted apart from a refusal.
        assert!(limits.answer_unauthenticated(Answer::Welcome, "new@example.org", 1000 + 86_400));
    }

    #[test]
    fn each_sender_is_limited_per_hour() {
        let dir = tempfile::tempdir().unwrap();
        let limit = RateLimit::new(dir.path(), 3);
        for _ in 0..3 {
            assert!(limit.allow("ann@example.org", 1000));
        }
        assert!(!limit.allow("ann@example.org", 1001));
        assert!(limit.allow("bo@example.org", 1001));
        // Counted at the end of their minute (1,020): an hour after it.
        assert!(!limit.allow("ann@example.org", 1000 + 3600));
        assert!(limit.allow("ann@example.org", 1020 + 3600));
    }

    /// A count file holds a line a sixtieth of the window, whatever the
    /// limit; one an earlier build wrote (a line an event) still counts.
    #[test]
    fn a_count_file_stays_small_at_any_limit_and_earlier_counts_still_count() {
        let dir = tempfile::tempdir().unwrap();
        let limit = RateLimit::new(dir.path(), 1_000);
        for n in 0..1_000u64 {
            assert!(limit.allow(EVERYONE, 100_000 + n * 3));
        }
        assert!(!limit.allow(EVERYONE, 100_000 + 3_400));
        let text = std::fs::read_to_string(limit.path(EVERYONE)).unwrap();
        assert!(text.lines().count() <= 61, "{} lines", text.lines().count());
        let earlier = RateLimit::new(&dir.path().join("earlier"), 3);
        std::fs::create_dir_all(&earlier.dir).unwrap();
        std::fs::write(earlier.path("ann@example.org"), "5000\n5001\n5002\n").unwrap();
        assert!(!earlier.allow("ann@example.org", 5100));
        assert!(earlier.allow("ann@example.org", 5003 + 3600));
    }

    #[test]
    fn a_clock_set_back_does_not_give_a_sender_a_fresh_hour() {
        let dir = tempfile::tempdir().unwrap();
        let limit = RateLimit::new(dir.path(), 3);
        for _ in 0..3 {
            assert!(limit.allow("ann@example.org", 10_000));
        }
        // The clock is set back ten minutes: the three still count.
        assert!(!limit.allow("ann@example.org", 10_000 - 600));
        // Set back by more than a whole window, the counts are of a clock
        // that was wrong before: not held against her for ever.
        assert!(limit.allow("ann@example.org", 10_000 - 3600 - 1));
    }
}
