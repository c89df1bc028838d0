//! Building a turn mail.
//!
//! Plain UTF-8 text a person can read (a board, the last moves, what to do),
//! the turn as an armored block (`armor`), and the whole record attached as
//! bytes so the transport cannot alter it. Threaded with Message-ID,
//! In-Reply-To and References; `Auto-Submitted` marks mails no person wrote
//! (RFC 3834), so vacation responders stay quiet.

use lettre::message::header::{ContentTransferEncoding, ContentType, HeaderName, HeaderValue};
use lettre::message::{Attachment, Body, Mailbox, MultiPart, SinglePart, header::Header};

use super::armor;

/// `Auto-Submitted: auto-generated` or `auto-replied` (RFC 3834).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoSubmitted(pub String);

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }
    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted(s.trim().to_owned()))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// `X-Yam-Game: <game id> <ply>`, for filters and the robot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamGame(pub String);

impl Header for YamGame {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("X-Yam-Game")
    }
    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(YamGame(s.trim().to_owned()))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// `X-Yam-Referee: <address>`: the game's referee robot, which gets a copy
/// of every mail of the game (Cc) and witnesses the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamReferee(pub String);

impl Header for YamReferee {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("X-Yam-Referee")
    }
    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(YamReferee(s.trim().to_owned()))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// Whether a person wrote a mail, in RFC 3834's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Automatic {
    /// A person's mail (a move, an offer): no `Auto-Submitted` header.
    No,
    /// A step Yam took by itself in a game (a roll response, the turn a
    /// roll resolves, a reveal, a reminder): `Auto-Submitted:
    /// auto-generated`. It carries the game's record, which the other desk
    /// reads like any turn.
    Generated,
    /// An answer to the mail it replies to (a card answering a card):
    /// `Auto-Submitted: auto-replied`. Never answered in turn.
    Replied,
}

/// Everything a turn mail says.
#[derive(Debug, Clone)]
pub struct TurnMail<'a> {
    /// The sender.
    pub from: Mailbox,
    /// The recipients.
    pub to: Vec<Mailbox>,
    /// The game's name (`Castle Siege`).
    pub game_name: &'a str,
    /// The game's id.
    pub game_id: &'a str,
    /// The ply this turn brings the game to.
    pub ply: u32,
    /// The players, first side first.
    pub players: &'a [String],
    /// Text for the reader: the board, the last moves, whose turn it is.
    pub body: &'a str,
    /// The turn's bytes (armored into the body).
    pub turn: &'a [u8],
    /// The whole record (attached).
    pub record: &'a [u8],
    /// This mail's Message-ID, without brackets; stable, so that a resent
    /// turn is recognisably the same mail.
    pub message_id: String,
    /// The Message-IDs of the thread so far, oldest first.
    pub thread: &'a [String],
    /// Whether a person wrote it (RFC 3834).
    pub automatic: Automatic,
    /// The game's referee robot, if any: copied (Cc) and named in
    /// `X-Yam-Referee`.
    pub referee: Option<Mailbox>,
    /// A reminder (its number) rather than a turn: its subject says so.
    pub reminder: Option<u32>,
}

/// The subject of a turn mail: game, id, ply and players.
pub fn subject(game_name: &str, game_id: &str, ply: u32, players: &[String]) -> String {
    format!(
        "[Yam] {game_name} {game_id} #{ply}: {}",
        players.join(" vs ")
    )
}

/// Build the mail.
pub fn compose(mail: &TurnMail<'_>) -> Result<lettre::Message, lettre::error::Error> {
    let mut builder = lettre::Message::builder()
        .from(mail.from.clone())
        .subject(match mail.reminder {
            None => subject(mail.game_name, mail.game_id, mail.ply, mail.players),
            Some(n) => format!(
                "Reminder {n}: {}",
                subject(mail.game_name, mail.game_id, mail.ply, mail.players)
            ),
        })
        .message_id(Some(format!("<{}>", mail.message_id)))
        .header(YamGame(format!("{} {}", mail.game_id, mail.ply)));
    for to in &mail.to {
        builder = builder.to(to.clone());
    }
    if let Some(referee) = &mail.referee {
        builder = builder
            .cc(referee.clone())
            .header(YamReferee(referee.email.to_string()));
    }
    // The mails before this one: a thread may already hold this mail's
    // own Message-ID (recorded before it was sent), which is never its own
    // parent.
    let earlier: Vec<&String> = mail
        .thread
        .iter()
        .filter(|id| **id != mail.message_id)
        .collect();
    if let Some(parent) = earlier.last() {
        builder = builder.in_reply_to(format!("<{parent}>"));
        let refs: Vec<String> = earlier.iter().map(|id| format!("<{id}>")).collect();
        builder = builder.references(refs.join(" "));
    }
    match mail.automatic {
        Automatic::No => {}
        Automatic::Generated => {
            builder = builder.header(AutoSubmitted("auto-generated".into()));
        }
        Automatic::Replied => builder = builder.header(AutoSubmitted("auto-replied".into())),
    }
    let mut text = String::with_capacity(mail.body.len() + mail.turn.len() * 2);
    text.push_str(mail.body);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push('\n');
    text.push_str(&armor::armor(mail.game_id, mail.ply, mail.turn));
    let name = format!("{}.yam", mail.game_id);
    let record_type = ContentType::parse("application/x-yam").unwrap_or(ContentType::TEXT_PLAIN);
    // Bytes in base64, asked for by name: left to choose, lettre sends a
    // record (ASCII, long lines) as quoted-printable, which costs more to
    // write and to read than base64 and is larger. Base64 accepts any bytes.
    let record = Body::new_with_encoding(mail.record.to_vec(), ContentTransferEncoding::Base64)
        .unwrap_or_else(Body::new);
    builder.multipart(
        MultiPart::mixed()
            .singlepart(SinglePart::plain(text))
            .singlepart(Attachment::new(name).body(record, record_type)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::extract::{Turn, read_mail};

    #[test]
    fn a_composed_mail_reads_back() {
        let players = vec!["Ann".to_owned(), "Bo".to_owned()];
        let thread = vec!["yam.g1.1@example.org".to_owned()];
        let record = "[Game \"Khan\"]\n\n1. Ng3-f3 *\n".repeat(20);
        let mail = TurnMail {
            from: "Ann <ann@example.org>".parse().unwrap(),
            to: vec!["bo@example.net".parse().unwrap()],
            game_name: "Khan",
            game_id: "g1",
            ply: 2,
            players: &players,
            body: "Your move, Bo.",
            turn: b"the turn's bytes \x00\xff",
            record: record.as_bytes(),
            message_id: "yam.g1.2@example.org".into(),
            thread: &thread,
            automatic: Automatic::Generated,
            referee: None,
            reminder: None,
        };
        let raw = compose(&mail).unwrap().formatted();
        let text = String::from_utf8_lossy(&raw);
        let attached = &text[text.find("filename=\"g1.yam\"").unwrap()..];
        assert!(
            attached.contains("Content-Transfer-Encoding: base64"),
            "{attached}"
        );
        let incoming = read_mail(&raw).unwrap();
        assert_eq!(incoming.from.as_deref(), Some("ann@example.org"));
        assert_eq!(incoming.message_id.as_deref(), Some("yam.g1.2@example.org"));
        assert_eq!(incoming.replies_to, ["yam.g1.1@example.org"]);
        assert_eq!(incoming.subject, "[Yam] Khan g1 #2: Ann vs Bo");
        assert_eq!(incoming.auto_submitted.as_deref(), Some("auto-generated"));
        assert_eq!(
            incoming.turns,
            vec![
                Turn::Attachment {
                    name: "g1.yam".into(),
                    bytes: record.into_bytes()
                },
                Turn::Block(armor::Block {
                    game: "g1".into(),
                    ply: 2,
                    payload: b"the turn's bytes \x00\xff".to_vec()
                }),
            ]
        );
    }
}
