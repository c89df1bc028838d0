//! Finding the turn in an incoming mail, whatever its shape.
//!
//! In order of trust: the record attached as a file (bytes the transport
//! cannot alter), then turn blocks in the text (the sender's own, not the
//! quoted copies of earlier turns that replies carry), then the same inside a
//! forwarded message. HTML-only mails are read through their text rendering.

use mail_parser::{HeaderValue, Message, MessageParser, MimeHeaders, PartType};

use super::armor::{self, ArmorError, Block};

/// The largest mail the reader looks into; larger ones are refused unread,
/// so a hostile mailbox cannot exhaust memory.
pub const MAX_MAIL: usize = 16 << 20;

/// What an incoming mail says about itself and which turns it carries.
#[derive(Debug, Clone, Default)]
pub struct Incoming {
    /// The sender's address, lower case and printable ([`sender_address`]).
    pub from: Option<String>,
    /// Its Message-ID, without angle brackets.
    pub message_id: Option<String>,
    /// The Message-IDs it replies to (In-Reply-To, then References).
    pub replies_to: Vec<String>,
    /// Its subject.
    pub subject: String,
    /// When it says it was sent (its `Date`, seconds since 1970), if it
    /// says so readably: the sender's clock, so only a bound within what
    /// the reader knows (`MailMeta::owed_since_sent`).
    pub sent_at: Option<u64>,
    /// The `Auto-Submitted` header, if any other than `no` (RFC 3834).
    pub auto_submitted: Option<String>,
    /// Whether it is bulk or list mail (`Precedence: bulk/list/junk`, `List-Id`).
    pub bulk: bool,
    /// The game's referee robot (`X-Yam-Referee`), lower case.
    pub referee: Option<String>,
    /// The `X-Yam-Game` header: Yam wrote the mail (a turn, a card, an
    /// automatic step). Mail clients do not copy it into a reply.
    pub yam_game: Option<String>,
    /// The sender's card from `X-Yam-Card` (base64 decoded, not yet read
    /// or checked: [`crate::mail::cards::Card::read`]), on a mail a desk
    /// copied to a referee.
    pub card: Option<Vec<u8>>,
    /// Whether it is a delivery report (a bounce): `multipart/report`, or
    /// from a mailer daemon.
    pub report: bool,
    /// The turns found, best first: at most [`MAX_TURNS`].
    pub turns: Vec<Turn>,
    /// How many more turns the mail carried, passed over unread.
    pub turns_passed_over: usize,
    /// Turn blocks found damaged, with why (for the refusal message).
    pub damaged: Vec<ArmorError>,
    /// How many quoted copies of earlier turns were passed over.
    pub quoted_copies: usize,
    /// Read with the attachments only, when one is a turn: the checksums of
    /// the blocks of the mail's own text ([`armor::block_checksums`]), not
    /// decoded, so that a text carrying another record than the attached
    /// one is seen without decoding a text that carries the same.
    pub text_sums: Vec<String>,
}

/// The longest `X-Yam-Card` read: a card is some 600 base64 characters
/// (a long name makes it more); a header beyond this is not a card.
const MAX_CARD_HEADER: usize = 8 << 10;

/// A header's raw value with its RFC 2047 encoded words decoded (read as
/// the parser reads an unstructured header such as a subject).
fn decoded_words(raw: &str) -> String {
    if !raw.contains("=?") {
        return raw.to_owned();
    }
    let head = format!("Subject:{raw}\r\n\r\n");
    MessageParser::default()
        .parse_headers(head.as_bytes())
        .and_then(|m| m.subject().map(str::to_owned))
        .unwrap_or_else(|| raw.to_owned())
}

/// The bytes of an `X-Yam-Card` header's value: base64, folded anywhere.
fn card_header(value: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    if value.len() > MAX_CARD_HEADER {
        return None;
    }
    let compact: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact)
        .ok()
}

impl Incoming {
    /// The game `X-Yam-Game` names (its first word), if the header is there.
    pub fn named_game(&self) -> Option<&str> {
        self.yam_game.as_deref()?.split_whitespace().next()
    }

    /// The game and ply `X-Yam-Game: ID PLY` names: a turn mail's. `None`
    /// for a header without a ply (the robot's mails name a game only).
    pub fn named_turn(&self) -> Option<(&str, u32)> {
        let mut words = self.yam_game.as_deref()?.split_whitespace();
        Some((words.next()?, words.next()?.parse().ok()?))
    }

    /// Why the mail is an automatic one that is not Yam's: an auto-reply
    /// (a vacation message), any `Auto-Submitted` mail without Yam's
    /// `X-Yam-Game` header, or a delivery report. Such a mail is left alone
    /// before its content is looked at, whatever it quotes, and never
    /// answered (RFC 3834). Yam's own automatic steps carry `X-Yam-Game`
    /// and are read like any turn.
    pub fn automatic_not_yam(&self) -> Option<String> {
        if self.report {
            return Some("a delivery report".to_owned());
        }
        match (&self.auto_submitted, &self.yam_game) {
            (Some(auto), None) => Some(format!("an automatic mail (Auto-Submitted: {auto})")),
            _ => None,
        }
    }
}

/// One turn found in a mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// A `.yam` file attached: the whole record.
    Attachment {
        /// The attachment's file name.
        name: String,
        /// Its bytes, exactly as sent.
        bytes: Vec<u8>,
    },
    /// A turn block in the text.
    Block(Block),
}

/// Why a mail could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailError {
    /// Nothing that parses as a mail.
    #[error("not a mail message")]
    NotAMail,
    /// Larger than [`MAX_MAIL`].
    #[error("the mail is {0} bytes, more than the {MAX_MAIL} Yam reads")]
    TooLarge(usize),
    /// Of more MIME parts than [`super::shape::MAX_PARTS`].
    #[error(
        "the mail declares more than {} MIME parts, more than Yam reads",
        super::shape::MAX_PARTS
    )]
    TooManyParts,
}

/// Read a raw mail (RFC 5322 bytes).
pub fn read_mail(raw: &[u8]) -> Result<Incoming, MailError> {
    read_mail_with(raw, true)
}

/// As [`read_mail`], but without the turn blocks of the mail's own text:
/// its turns are exactly the first ones [`read_mail`] finds, in the same
/// order (the attached records, and what forwarded messages carry). A
/// reader that is done once an attachment reads spares itself decoding
/// and checking the block, a second copy of the same record.
pub fn read_mail_attachments(raw: &[u8]) -> Result<Incoming, MailError> {
    read_mail_with(raw, false)
}

fn read_mail_with(raw: &[u8], own_text: bool) -> Result<Incoming, MailError> {
    if raw.len() > MAX_MAIL {
        return Err(MailError::TooLarge(raw.len()));
    }
    // Counted only where it matters: a mail of empty parts takes some
    // seventeen times its size to parse, 17 MB for a mail of 1 MiB, and
    // the count's passes cost a turn mail of 220 kB (ply 300) some
    // 0.1 ms, twice (measured with `scripts/bench/desk-ab.py`).
    if raw.len() > super::shape::COUNTED_FROM
        && super::shape::parts_declared(raw, super::shape::MAX_PARTS) > super::shape::MAX_PARTS
    {
        return Err(MailError::TooManyParts);
    }
    let mut message = MessageParser::default()
        .parse(raw)
        .ok_or(MailError::NotAMail)?;
    if message.parts.is_empty()
        || (message.from().is_none()
            && message.message_id().is_none()
            && message.subject().is_none())
    {
        return Err(MailError::NotAMail);
    }
    let mut incoming = Incoming {
        from: message
            .from()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .map(sender_address),
        message_id: message.message_id().map(str::to_owned),
        replies_to: {
            let mut all: Vec<String> = ids(message.in_reply_to())
                .chain(ids(message.references()))
                .collect();
            let mut seen = std::collections::HashSet::new();
            all.retain(|id| seen.insert(id.clone()));
            all
        },
        subject: message.subject().unwrap_or_default().to_owned(),
        sent_at: message
            .date()
            .filter(|d| d.is_valid())
            .and_then(|d| u64::try_from(d.to_timestamp()).ok()),
        auto_submitted: message
            .header_raw("Auto-Submitted")
            .map(|v| v.trim().to_ascii_lowercase())
            .filter(|v| v != "no"),
        bulk: message.header_raw("List-Id").is_some()
            || message.header_raw("Precedence").is_some_and(|p| {
                matches!(
                    p.trim().to_ascii_lowercase().as_str(),
                    "bulk" | "list" | "junk"
                )
            }),
        // Decoded: lettre writes an address beyond ASCII as RFC 2047
        // encoded words, and read raw, `=?utf-8?b?...?=` held no `@` and a
        // referee at `schiri@bücher.example` was dropped without a word
        // (`a_challenge_refereed_by_a_robot_at_an_address_beyond_ascii_reaches_the_invited`).
        referee: message
            .header_raw("X-Yam-Referee")
            .map(decoded_words)
            .map(|v| super::address::normal(v.trim().trim_matches(['<', '>'])))
            .filter(|v| v.contains('@')),
        yam_game: message
            .header_raw("X-Yam-Game")
            .map(|v| v.trim().to_owned()),
        card: message.header_raw("X-Yam-Card").and_then(card_header),
        report: message.content_type().is_some_and(|ct| {
            ct.ctype().eq_ignore_ascii_case("multipart")
                && ct
                    .subtype()
                    .is_some_and(|s| s.eq_ignore_ascii_case("report"))
        }) || message
            .from()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .is_some_and(|a| {
                let local = a.split('@').next().unwrap_or("").to_ascii_lowercase();
                local == "mailer-daemon" || local == "postmaster"
            }),
        ..Incoming::default()
    };
    collect_turns(&mut message, &mut incoming, 0, own_text);
    Ok(incoming)
}

/// The longest sender address kept whole; RFC 5321 allows 254 characters.
pub const MAX_ADDRESS: usize = 320;

/// A sender address as Yam keeps, compares and prints it: lower case, with
/// every control or invisible character (an escape sequence, a carriage
/// return, a bidirectional mark) replaced by U+FFFD, and cut after
/// [`MAX_ADDRESS`] characters with `…`.
///
/// The address is printed in refusals and logs, so a forger's escape codes
/// must not reach the reader's terminal. Nothing is lost by the change: a
/// card's address never holds such characters (cards refuse them), so an
/// address that changes here matched no player before it either.
pub fn sender_address(address: &str) -> String {
    use super::cards::is_unprintable;
    let mut kept: String = address
        .chars()
        .take(MAX_ADDRESS)
        .map(|c| if is_unprintable(c) { '\u{FFFD}' } else { c })
        .collect::<String>();
    kept = super::address::normal(&kept);
    if address.chars().nth(MAX_ADDRESS).is_some() {
        kept.push('…');
    }
    kept
}

fn ids<'a>(value: &'a HeaderValue<'_>) -> impl Iterator<Item = String> + 'a {
    let list: Vec<String> = match value {
        HeaderValue::Text(t) => vec![t.to_string()],
        HeaderValue::TextList(l) => l.iter().map(|t| t.to_string()).collect(),
        _ => Vec::new(),
    };
    list.into_iter()
}

/// Calls `visit` with each text body of the message, borrowed where the
/// parser holds it as text (an HTML-only mail's is rendered). The text
/// side of a turn mail is the largest part after the record (107 kB at ply
/// 300 of a Khan game): a reader that only looks for checksums in it must
/// not copy it.
fn each_text(message: &Message<'_>, mut visit: impl FnMut(&str)) {
    let mut any = false;
    for i in 0..message.text_body_count() {
        // An HTML part (an HTML-only mail) read as its reader sees it, one
        // line a block (`<div>`, `<p>`, `<br>`) and what it quotes marked
        // quoted, as the robot reads it (`crate::mail::html`): the mail
        // parser's own rendering breaks lines only at `<br>` and `</p>`,
        // so a block a webmail wrote in `<div>`s ran into one line and
        // was refused.
        let html = message
            .text_body
            .get(i)
            .and_then(|&id| message.part(id))
            .and_then(|part| match &part.body {
                PartType::Html(html) => Some(super::html::html_lines(html)),
                _ => None,
            });
        let text = match html {
            Some(lines) => Some(std::borrow::Cow::Owned(lines)),
            None => message.body_text(i),
        };
        if let Some(text) = text {
            any = true;
            visit(&text);
        }
    }
    if !any && let Some(text) = message.body_text(0) {
        visit(&text);
    }
}

/// `bytes` with every CRLF as LF (a CR alone stays).
fn lf_line_breaks(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut from = 0;
    for at in memchr::memmem::find_iter(bytes, b"\r\n") {
        out.extend_from_slice(&bytes[from..at]);
        out.push(b'\n');
        from = at + 2;
    }
    out.extend_from_slice(&bytes[from..]);
    out
}

/// How deep forwarded messages are followed.
const MAX_NESTING: usize = 3;

/// The most turns read from one mail (a Yam mail carries two: the
/// attached record and its text block). Each one that names a stored game
/// has that game read and parsed to be judged against it, so a stranger's
/// mail of thousands of one-line attachments `[GameId "khan-1"]` held a
/// desk's `yam read` for minutes, again at every read, and a robot's look
/// as long (`a_mail_of_many_tiny_attachments_does_not_read_the_stored_game_again_for_each`,
/// `a_witness_mail_of_many_tiny_attachments_does_not_parse_the_stored_game_again_for_each`).
pub const MAX_TURNS: usize = 16;

fn collect_turns(message: &mut Message<'_>, incoming: &mut Incoming, depth: usize, own_text: bool) {
    // Attached records first: their bytes are exactly what the sender sent.
    for id in message.attachments.clone() {
        let Some(part) = message.parts.get_mut(id as usize) else {
            continue;
        };
        if let PartType::Message(inner) = &mut part.body {
            if depth < MAX_NESTING {
                collect_turns(inner, incoming, depth + 1, true);
            }
            continue;
        }
        let name = part.attachment_name().unwrap_or_default().to_owned();
        let is_yam = name.to_ascii_lowercase().ends_with(".yam")
            || part
                .content_type()
                .and_then(|ct| ct.subtype())
                .is_some_and(|s| s.eq_ignore_ascii_case("x-yam"));
        if is_yam && incoming.turns.len() >= MAX_TURNS {
            incoming.turns_passed_over += 1;
        } else if is_yam {
            // A record that travelled as text (7bit as Yam sends it, or
            // quoted-printable, as a client may re-attach it) has the
            // wire's CRLF line breaks: it is read with the LF it was
            // written with, so it is the sender's bytes again (and its
            // checksum the text block's). A base64 part's decoded bytes
            // are the sender's as they are: taken, not copied (a long
            // game's record is 80 kB or more).
            let bytes = match &mut part.body {
                _ if part.encoding != mail_parser::Encoding::Base64 => {
                    lf_line_breaks(part.contents())
                }
                PartType::Binary(bytes) | PartType::InlineBinary(bytes) => {
                    std::mem::take(bytes).into_owned()
                }
                _ => part.contents().to_vec(),
            };
            incoming.turns.push(Turn::Attachment { name, bytes });
        }
    }
    // Then turn blocks in the text bodies (HTML-only mails are rendered).
    if depth == 0 && !own_text {
        if !incoming.turns.is_empty() {
            each_text(message, |text| {
                incoming.text_sums.extend(armor::block_checksums(text));
            });
        }
        return;
    }
    each_text(message, |text| {
        for found in armor::find_blocks(text) {
            match (found.quoted, found.block) {
                (true, _) => incoming.quoted_copies += 1,
                (false, Ok(_)) if incoming.turns.len() >= MAX_TURNS => {
                    incoming.turns_passed_over += 1;
                }
                (false, Ok(block)) => incoming.turns.push(Turn::Block(block)),
                (false, Err(e)) => incoming.damaged.push(e),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_and_turn_x_yam_game_names() {
        let with = |header: Option<&str>| Incoming {
            yam_game: header.map(str::to_owned),
            ..Incoming::default()
        };
        let turn = with(Some("khan-1 12"));
        assert_eq!(turn.named_game(), Some("khan-1"));
        assert_eq!(turn.named_turn(), Some(("khan-1", 12)));
        // The robot's mails name a game without a ply.
        let game_only = with(Some("khan-1"));
        assert_eq!(game_only.named_game(), Some("khan-1"));
        assert_eq!(game_only.named_turn(), None);
        assert_eq!(with(Some("khan-1 twelve")).named_turn(), None);
        assert_eq!(with(Some("khan-1 -1")).named_turn(), None);
        assert_eq!(with(Some("  ")).named_game(), None);
        assert_eq!(with(None).named_game(), None);
    }

    #[test]
    fn a_sender_address_is_kept_printable_and_bounded() {
        assert_eq!(sender_address("Ann@Example.ORG"), "ann@example.org");
        assert_eq!(
            sender_address("\u{1b}[2J\r\u{0}x\u{202e}@evil.example"),
            "\u{fffd}[2j\u{fffd}\u{fffd}x\u{fffd}@evil.example"
        );
        let long = format!("{}@example.org", "a".repeat(1000));
        let kept = sender_address(&long);
        assert_eq!(kept.chars().count(), MAX_ADDRESS + 1);
        assert!(kept.ends_with("aa…"));
        // An address of the longest length a mail address may have is whole.
        let longest = format!("{}@{}.org", "a".repeat(64), "b".repeat(185));
        assert_eq!(sender_address(&longest), longest);
    }

    /// A forwarded mail mangled so that mail-parser's parse loop reaches
    /// a part it asserted could not be missing (found by the `mail` fuzz
    /// target; `vendor/mail-parser/YAM-PATCH.md`): read as any other mail,
    /// in a test build (which has debug assertions) as in a release one.
    /// Upstream's own multipart (issue 120 of mail-parser, a forwarded
    /// message that is no message) likewise.
    #[test]
    fn a_mangled_forward_is_read_without_a_panic() {
        let mangled = include_bytes!("../../fuzz/seeds/mail/mangled-forward.eml");
        let incoming = read_mail(mangled).unwrap();
        assert!(incoming.turns.is_empty());
        assert_eq!(incoming.from.as_deref(), Some("ann@!xn\u{fffd}ample.org"));
        let _ = read_mail_attachments(mangled).unwrap();
        let no_message = b"From: Test <test@example.org>\r\nSubject: test\r\n\
            Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
            --b\r\nContent-Type: text/plain\r\n\r\nbla\r\n\
            --b\r\nContent-Type: message/rfc822\r\n\
            Content-Disposition: attachment; filename=\"corrupted.eml\"\r\n\r\n\
            this attachment is not a valid eml, sorry!\r\n--b--\r\n";
        let incoming = read_mail(no_message).unwrap();
        assert!(incoming.turns.is_empty());
    }
}
