//! Notices: a challenge declined by an invited player, or withdrawn by its
//! challenger, before the game starts.
//!
//! A notice is not an event of the game (the signed record holds only what
//! was played); it is a short text signed by its author's key, naming the
//! game and the hash of its challenge event, so that it cannot be moved to
//! another game nor forged by someone who knows an address. It travels in
//! a turn block like a card:
//!
//! ```text
//! YAM-NOTICE 1
//! kind: decline
//! game: khan-20261201-1a2b
//! challenge: 5d41402abc4b2a76b9719d911017c592...
//! key: 3b6a27bcceb6a42d62a3a8d02a6f0d73...
//! reason: not this month, sorry
//! signature: 9f86d081884c7d659a2feaa0c55ad015...
//! ```
//!
//! The signature covers `yam-notice-v1\0`, then each of kind, game,
//! challenge hash (32 bytes), key (32 bytes) and reason as a 4-byte
//! big-endian length and its bytes.

use yam_referee::fair_play::hash::Hash32;
use yam_referee::fair_play::sign::{PublicKey, Signature, SigningKey};

use super::cards::clean_text;

/// The first line of a notice's text.
const NOTICE_MAGIC: &str = "YAM-NOTICE 1";
/// What a notice's signature covers, before its fields: no other signed
/// message of Yam starts with these bytes.
const NOTICE_DOMAIN: &[u8] = b"yam-notice-v1\0";

/// What a notice says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoticeKind {
    /// An invited player will not play.
    Decline,
    /// The challenger takes the challenge back.
    Withdraw,
}

impl NoticeKind {
    /// The word in the notice's text.
    pub fn word(self) -> &'static str {
        match self {
            NoticeKind::Decline => "decline",
            NoticeKind::Withdraw => "withdraw",
        }
    }

    /// What it did, in words (`declined`, `withdrawn`).
    pub fn done(self) -> &'static str {
        match self {
            NoticeKind::Decline => "declined",
            NoticeKind::Withdraw => "withdrawn",
        }
    }
}

/// A notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Decline or withdraw.
    pub kind: NoticeKind,
    /// The game's id.
    pub game: String,
    /// The hash of the game's challenge event.
    pub challenge: Hash32,
    /// The author's key.
    pub key: PublicKey,
    /// Why, in the author's words (one line, cleaned when read).
    pub reason: String,
}

/// Why a notice could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoticeError {
    /// Not UTF-8.
    #[error("the notice is not UTF-8")]
    NotUtf8,
    /// Not a notice.
    #[error("a notice starts with {NOTICE_MAGIC:?}")]
    NotANotice,
    /// A field's line is missing or malformed.
    #[error("the notice's {0} line is missing or malformed")]
    Field(&'static str),
    /// The signature does not verify under the notice's key.
    #[error("the notice's signature does not match its key")]
    Signature,
}

/// Whether `text` looks like a notice.
pub fn is_notice(text: &[u8]) -> bool {
    text.starts_with(NOTICE_MAGIC.as_bytes())
}

impl Notice {
    fn signed_bytes(&self) -> Vec<u8> {
        let mut bytes = NOTICE_DOMAIN.to_vec();
        for field in [
            self.kind.word().as_bytes(),
            self.game.as_bytes(),
            self.challenge.as_bytes(),
            self.key.as_bytes(),
            self.reason.as_bytes(),
        ] {
            bytes.extend_from_slice(&u32::try_from(field.len()).unwrap_or(u32::MAX).to_be_bytes());
            bytes.extend_from_slice(field);
        }
        bytes
    }

    /// The notice's text, signed by `key` (which must be its key). The
    /// reason is made one clean line first.
    pub fn signed_text(mut self, key: &SigningKey) -> String {
        self.reason = clean_text(&self.reason);
        let signature = key.sign(&self.signed_bytes());
        format!(
            "{NOTICE_MAGIC}\nkind: {}\ngame: {}\nchallenge: {}\nkey: {}\nreason: {}\nsignature: {}\n",
            self.kind.word(),
            self.game,
            self.challenge.to_hex(),
            hex::encode(self.key.as_bytes()),
            self.reason,
            hex::encode(signature.to_bytes()),
        )
    }

    /// Reads and checks a notice's text: its fields and its signature
    /// (not whether its author may give it: that is the game's to say).
    pub fn read(text: &[u8]) -> Result<Notice, NoticeError> {
        let text = std::str::from_utf8(text).map_err(|_| NoticeError::NotUtf8)?;
        let mut lines = text.lines();
        if lines.next() != Some(NOTICE_MAGIC) {
            return Err(NoticeError::NotANotice);
        }
        let mut field = |name: &'static str| -> Result<String, NoticeError> {
            lines
                .next()
                .and_then(|l| l.strip_prefix(name))
                .and_then(|l| l.strip_prefix(": ").or_else(|| l.strip_prefix(":")))
                .map(str::to_owned)
                .ok_or(NoticeError::Field(name))
        };
        let kind = match field("kind")?.as_str() {
            "decline" => NoticeKind::Decline,
            "withdraw" => NoticeKind::Withdraw,
            _ => return Err(NoticeError::Field("kind")),
        };
        let game = field("game")?;
        let challenge =
            Hash32::from_hex(&field("challenge")?).map_err(|_| NoticeError::Field("challenge"))?;
        let key = hex::decode(field("key")?)
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b).ok())
            .and_then(|b| PublicKey::from_bytes(&b).ok())
            .ok_or(NoticeError::Field("key"))?;
        let reason = field("reason")?;
        let signature = hex::decode(field("signature")?)
            .ok()
            .and_then(|b| <[u8; 64]>::try_from(b).ok())
            .map(Signature::from_bytes)
            .ok_or(NoticeError::Field("signature"))?;
        let notice = Notice {
            kind,
            game,
            challenge,
            key,
            reason,
        };
        key.verify(&notice.signed_bytes(), &signature)
            .map_err(|_| NoticeError::Signature)?;
        // Someone else's words, printed and stored: made harmless.
        Ok(Notice {
            game: clean_text(&notice.game),
            reason: clean_text(&notice.reason),
            ..notice
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(key: &SigningKey, kind: NoticeKind) -> Notice {
        Notice {
            kind,
            game: "khan-1".into(),
            challenge: Hash32::of(b"the challenge"),
            key: key.public_key(),
            reason: "not this month\r\x1b[2K".into(),
        }
    }

    #[test]
    fn a_notice_reads_back_and_a_changed_one_is_refused() {
        let key = SigningKey::from_seed(&[3; 32]);
        let text = notice(&key, NoticeKind::Decline).signed_text(&key);
        assert!(is_notice(text.as_bytes()));
        let read = Notice::read(text.as_bytes()).unwrap();
        assert_eq!(read.kind, NoticeKind::Decline);
        assert_eq!(read.game, "khan-1");
        assert!(!read.reason.chars().any(char::is_control), "{read:?}");
        // Another game, another kind, another key: each refused.
        for forged in [
            text.replace("game: khan-1", "game: khan-2"),
            text.replace("kind: decline", "kind: withdraw"),
        ] {
            assert_eq!(
                Notice::read(forged.as_bytes()).unwrap_err(),
                NoticeError::Signature
            );
        }
        let other = SigningKey::from_seed(&[4; 32]);
        let wrong = notice(&key, NoticeKind::Withdraw).signed_text(&other);
        assert_eq!(
            Notice::read(wrong.as_bytes()).unwrap_err(),
            NoticeError::Signature
        );
        assert!(Notice::read(b"YAM-NOTICE 1\nkind: shrug\n").is_err());
        assert!(Notice::read(b"\xff").is_err());
    }
}
