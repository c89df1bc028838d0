//! A game's mail thread: the Message-IDs its mails are threaded by.
//!
//! A reply names its parent (`In-Reply-To`) and the thread before it
//! (`References`, RFC 5322 section 3.6.4). A correspondence game of 300
//! plies would otherwise carry 300 Message-IDs in every header (12 KB, a
//! cost every turn reads and writes again, and a size some servers refuse),
//! so a thread keeps its first mail and its latest ones, as mail clients
//! trim long References: what a mail reader needs to place a reply is the
//! thread's root and its parent. A thread stored longer by an earlier
//! build is read as it is and trimmed at its next mail.

/// How many Message-IDs a thread keeps: its first and the latest others.
pub const KEPT: usize = 20;

/// Adds `message_id` to `thread` unless it is already there, keeping the
/// first mail and the latest [`KEPT`]` - 1`.
pub fn add(thread: &mut Vec<String>, message_id: &str) {
    if thread.iter().any(|m| m == message_id) {
        return;
    }
    thread.push(message_id.to_owned());
    if thread.len() > KEPT {
        thread.drain(1..thread.len() - (KEPT - 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_thread_keeps_its_root_and_its_latest_mails() {
        let mut thread = Vec::new();
        for i in 0..100 {
            add(&mut thread, &format!("m{i}"));
            add(&mut thread, &format!("m{i}"));
        }
        assert_eq!(thread.len(), KEPT);
        assert_eq!(thread[0], "m0");
        assert_eq!(thread[1], format!("m{}", 100 - (KEPT - 1)));
        assert_eq!(thread.last().map(String::as_str), Some("m99"));
        // A thread an earlier build kept whole is trimmed at its next mail.
        let mut old: Vec<String> = (0..300).map(|i| format!("o{i}")).collect();
        add(&mut old, "new");
        assert_eq!(old.len(), KEPT);
        assert_eq!(old[0], "o0");
        assert_eq!(old.last().map(String::as_str), Some("new"));
    }
}
