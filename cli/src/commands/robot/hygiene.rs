//! Mail hygiene: which mails the robot never answers, and how often it
//! answers one sender.
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

/// At most `limit` mails per sender in any hour, remembered on disk so a
/// restart does not reset it.
#[derive(Debug, Clone)]
pub struct RateLimit {
    dir: PathBuf,
    limit: u32,
}

impl RateLimit {
    /// Counts kept in `dir`.
    pub fn new(dir: &Path, limit: u32) -> RateLimit {
        RateLimit {
            dir: dir.to_path_buf(),
            limit,
        }
    }

    /// Counts one mail of `sender` at `now`; false when over the limit.
    pub fn allow(&self, sender: &str, now: u64) -> bool {
        let path = self.dir.join(super::auth::address_key(sender));
        let mut times: Vec<u64> = std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .filter(|t: &u64| t + 3600 > now && *t <= now)
            .collect();
        let allowed = times.len() < self.limit as usize;
        if allowed {
            times.push(now);
        }
        let text: String = times.iter().map(|t| format!("{t}\n")).collect();
        // A count that cannot be written is not a reason to stop the robot.
        let _ = std::fs::create_dir_all(&self.dir);
        let _ = crate::store::atomic::write(&path, text.as_bytes(), true);
        allowed
    }
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
    fn each_sender_is_limited_per_hour() {
        let dir = tempfile::tempdir().unwrap();
        let limit = RateLimit::new(dir.path(), 3);
        for _ in 0..3 {
            assert!(limit.allow("ann@example.org", 1000));
        }
        assert!(!limit.allow("ann@example.org", 1001));
        assert!(limit.allow("bo@example.org", 1001));
        assert!(limit.allow("ann@example.org", 1000 + 3600));
    }
}
