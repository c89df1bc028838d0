//! Building a turn mail.
//!
//! Plain UTF-8 text a person can read (a board, the last moves, what to do),
//! the turn as an armored block (`armor`), and the whole record attached as
//! bytes so the transport cannot alter it. With a picture of the board, the
//! text is one side of a `multipart/alternative` whose other side is HTML
//! showing the board as an inline PNG (clients that block SVG show PNG) and
//! the same text; the text side stays complete for plain-text readers, and
//! only it carries the turn block, so a reader finds the turn once. Threaded with Message-ID,
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

/// `X-Yam-Card: <base64 of a signed card>`: the sender's card (name,
/// address, key, signed by that key) on every mail copied to a referee
/// robot. The robot binds an address to a key of a game only on such a
/// card naming the mail's sender (docs/robot.md, "Whose game it is"): a
/// mail's `From` alone proves no key, and the invited player who relayed
/// the challenger's mail first was taken for the challenger before this.
/// A header rather than a part of the body, so that a desk (of any
/// build) reading the same mail sees the turn it always saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamCard(pub String);

/// How many base64 characters a line of `X-Yam-Card` carries: the header
/// is folded between them, within RFC 5322's 78.
const CARD_CHUNK: usize = 64;

impl YamCard {
    /// The header for a card's signed text.
    pub fn of(card_text: &str) -> Self {
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode(card_text);
        let chunks: Vec<&str> = encoded
            .as_bytes()
            .chunks(CARD_CHUNK)
            .map(|c| std::str::from_utf8(c).unwrap_or_default())
            .collect();
        YamCard(chunks.join(" "))
    }
}

impl Header for YamCard {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("X-Yam-Card")
    }
    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(YamCard(s.trim().to_owned()))
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
    /// The sender's signed card (its text), sent in `X-Yam-Card` when the
    /// mail goes to a referee.
    pub card: Option<String>,
    /// A reminder (its number) rather than a turn: its subject says so.
    pub reminder: Option<u32>,
    /// The board as a picture, for the HTML side.
    pub picture: Option<&'a Picture>,
}

/// A board as a PNG, for a turn mail's HTML side.
#[derive(Debug, Clone)]
pub struct Picture {
    /// The PNG's bytes.
    pub png: Vec<u8>,
    /// Its size on the page, in CSS pixels (width, height); the PNG itself
    /// has more pixels, for dense screens.
    pub size: (u32, u32),
    /// What it shows, in words (the image's `alt` text).
    pub alt: String,
}

/// The Content-ID of a turn mail's board picture (`cid:` in the HTML).
const PICTURE_ID: &str = "board";

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
        if let Some(card) = &mail.card {
            builder = builder.header(YamCard::of(card));
        }
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
    text.push_str(&seven_bit_lines(mail.body));
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push('\n');
    text.push_str(&armor::armor(mail.game_id, mail.ply, mail.turn));
    let name = format!("{}.yam", mail.game_id);
    let record_type = ContentType::parse("application/x-yam").unwrap_or(ContentType::TEXT_PLAIN);
    let record = record_body(mail.record);
    let readable = match mail.picture {
        None => MultiPart::mixed().singlepart(SinglePart::plain(text)),
        Some(picture) => {
            let png = ContentType::parse("image/png").unwrap_or(ContentType::TEXT_PLAIN);
            let image =
                Body::new_with_encoding(picture.png.clone(), ContentTransferEncoding::Base64)
                    .unwrap_or_else(Body::new);
            MultiPart::mixed().multipart(
                MultiPart::alternative()
                    .singlepart(SinglePart::plain(text))
                    .multipart(
                        MultiPart::related()
                            .singlepart(SinglePart::html(html_side(mail, picture)))
                            .singlepart(
                                Attachment::new_inline(PICTURE_ID.to_owned()).body(image, png),
                            ),
                    ),
            )
        }
    };
    builder.multipart(readable.singlepart(Attachment::new(name).body(record, record_type)))
}

/// The longest line of a record sent as 7bit: RFC 5322's limit of 998
/// characters, without the line break.
pub const SEVEN_BIT_RECORD_LINE: usize = 998;

/// How the attached record travels: as its own lines (`7bit`) when nothing
/// on a mail's way would change them ([`travels_as_its_lines`]), otherwise
/// in base64, asked for by name (left to choose, lettre sends a record,
/// ASCII with long lines, as quoted-printable: larger, and dearer to write
/// and to read). Why 7bit at all: the reader's mail parser (mail-parser
/// 0.11) decodes base64 a byte at a time, about an eighth of the desk's
/// CPU for a Khan turn at ply 300, where a 7bit part is only scanned; the
/// mail is smaller by a quarter of the record; and the record is legible
/// in the raw mail (`docs/mail.md`, "Why the attached record travels as its
/// lines").
pub fn record_body(record: &[u8]) -> Body {
    if travels_as_its_lines(record) {
        // The lines with CRLF, as every text on the wire: the reader takes
        // them back to LF (`extract`). lettre adds the line break that
        // belongs to the boundary, so the record's own last one is kept.
        let mut wire = Vec::with_capacity(record.len() + record.len() / 32);
        for line in record.split_inclusive(|&b| b == b'\n') {
            wire.extend_from_slice(&line[..line.len() - 1]);
            wire.extend_from_slice(b"\r\n");
        }
        return Body::dangerous_pre_encoded(wire, ContentTransferEncoding::SevenBit);
    }
    base64_body(record)
}

/// `bytes` in base64 as a mail carries them: lines of 76 characters joined
/// by CRLF, as lettre writes them, without lettre's look at which encoding
/// would suit the bytes first (a scan of the whole record for an answer
/// known already: 1.2 M instructions for the robot's answer at 283 events
/// of a Genghis Khan game, whose records go in base64 for a 6 kB event
/// line).
fn base64_body(bytes: &[u8]) -> Body {
    use base64::Engine;
    const LINE: usize = 76;
    let mut out = Vec::with_capacity(bytes.len().div_ceil(57) * (LINE + 2));
    let mut line = [0u8; LINE];
    for (n, chunk) in bytes.chunks(LINE / 4 * 3).enumerate() {
        if n > 0 {
            out.extend_from_slice(b"\r\n");
        }
        // A chunk of 57 bytes is 76 characters: the line always holds it.
        if let Ok(len) = base64::engine::general_purpose::STANDARD.encode_slice(chunk, &mut line) {
            out.extend_from_slice(&line[..len]);
        }
    }
    Body::dangerous_pre_encoded(out, ContentTransferEncoding::Base64)
}

/// Whether a record can travel as its own lines and arrive as the same
/// bytes: text that ends with a line break, every line printable ASCII (a
/// tab allowed) and at most [`SEVEN_BIT_RECORD_LINE`] long, with none of
/// the shapes some transport on the way rewrites: a line that begins with
/// `From ` (mbox stores write `>From `), a line that ends in white space
/// (some gateways strip it), a line that is a single `.` (SMTP's end of
/// data, which a careless relay may not escape). Yam's own records always
/// qualify unless their prose is not ASCII (a name with an accent), or
/// a player's comment takes one of those shapes; those go in base64.
pub fn travels_as_its_lines(record: &[u8]) -> bool {
    let Some(body) = record.strip_suffix(b"\n") else {
        return false;
    };
    body.split(|&b| b == b'\n').all(|line| {
        line.len() <= SEVEN_BIT_RECORD_LINE
            && line
                .iter()
                .all(|&b| b == b'\t' || (b' '..=b'~').contains(&b))
            && !line.starts_with(b"From ")
            && !line.ends_with(b" ")
            && !line.ends_with(b"\t")
            && line != b"."
    })
}

/// The longest line of a text side that travels as 7bit: lettre sends a
/// text with a longer line (76 characters with its line break) as
/// quoted-printable.
pub const SEVEN_BIT_LINE: usize = 74;

/// `body` with every line longer than [`SEVEN_BIT_LINE`] wrapped at its
/// spaces (a word longer than that stays whole on its own line). With the
/// turn block, whose lines are at most 64 characters, an ASCII text side
/// then travels as 7bit: the reader's mail parser takes its bytes as they
/// are, where quoted-printable cost it about 45 instructions a byte, the
/// largest part of reading a long game's turn mail after its record
/// (`docs/mail.md`, "Why the text side is 7bit"). A text that is not
/// ASCII (a name with an accent) still goes as quoted-printable.
fn seven_bit_lines(body: &str) -> String {
    let options = textwrap::Options::new(SEVEN_BIT_LINE)
        .break_words(false)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    let mut out = String::with_capacity(body.len() + body.len() / 64);
    for line in body.split_inclusive('\n') {
        let (content, end) = match line.strip_suffix('\n') {
            Some(content) => (content, "\n"),
            None => (line, ""),
        };
        if content.len() <= SEVEN_BIT_LINE {
            out.push_str(line);
            continue;
        }
        let pieces = textwrap::wrap(content, &options);
        out.push_str(&pieces.join("\n"));
        out.push_str(end);
    }
    out
}

/// The HTML side of a turn mail: the board's picture, then the body's
/// text as it is (escaped). Not the turn block: that is machine data, in
/// the text side and the attached record.
fn html_side(mail: &TurnMail<'_>, picture: &Picture) -> String {
    let escape = crate::pictures::svg::escape;
    let (w, h) = picture.size;
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n\
         <body style=\"font-family: sans-serif\">\n\
         <p><img src=\"cid:{PICTURE_ID}\" alt=\"{alt}\" width=\"{w}\" height=\"{h}\" \
         style=\"max-width: 100%; height: auto\"></p>\n\
         <pre style=\"white-space: pre-wrap\">{body}</pre>\n\
         <p style=\"color: #555555\">The signed turn is in the plain-text version of this mail \
         and in the attached record; Yam reads either (<code>yam read</code>).</p>\n\
         </body></html>\n",
        title = escape(&subject(
            mail.game_name,
            mail.game_id,
            mail.ply,
            mail.players
        )),
        alt = escape(&picture.alt),
        body = escape(mail.body),
    )
}

#[cfg(test)]
mod tests {

    /// The record's base64 is lettre's own, byte for byte.
    #[test]
    fn a_record_in_base64_is_as_lettre_writes_it() {
        for len in [0usize, 1, 56, 57, 58, 114, 1000, 6288] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let ours = base64_body(&bytes).into_vec();
            let lettres = Body::new_with_encoding(bytes.clone(), ContentTransferEncoding::Base64)
                .unwrap()
                .into_vec();
            assert_eq!(ours, lettres, "{len} bytes");
        }
    }
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
            card: None,
            reminder: None,
            picture: None,
        };
        let raw = compose(&mail).unwrap().formatted();
        assert_eq!(attachment_encoding(&raw), "7bit");
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

    #[test]
    fn a_mail_with_a_picture_has_an_html_side_and_its_turn_once() {
        use mail_parser::MimeHeaders;
        let players = vec!["Ann".to_owned(), "Bo <script>".to_owned()];
        let svg = crate::pictures::svg::draw(
            &crate::pictures::positions::Shown::Khan(
                Box::new(
                    yam_referee::khan::Ruleset::builtin("magician")
                        .unwrap()
                        .start_position(),
                ),
                None,
            ),
            "g1",
        );
        let (png, size) = crate::pictures::png::png(&svg).unwrap();
        let picture = Picture {
            png: png.clone(),
            size,
            alt: "the board after ply 2".into(),
        };
        let mail = TurnMail {
            from: "Ann <ann@example.org>".parse().unwrap(),
            to: vec!["bo@example.net".parse().unwrap()],
            game_name: "Khan",
            game_id: "g1",
            ply: 2,
            players: &players,
            body: "Your move, Bo. <b>",
            turn: b"the turn",
            record: b"[Game \"Khan\"]\n",
            message_id: "yam.g1.2@example.org".into(),
            thread: &[],
            automatic: Automatic::No,
            referee: None,
            card: None,
            reminder: None,
            picture: Some(&picture),
        };
        let raw = compose(&mail).unwrap().formatted();
        let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let html = parsed.body_html(0).unwrap();
        assert!(html.contains("<img src=\"cid:board\""), "{html}");
        assert!(html.contains("Your move, Bo. &lt;b&gt;"), "escaped: {html}");
        assert!(!html.contains("<script>"), "escaped: {html}");
        assert!(!html.contains(armor::BEGIN), "no turn block in the HTML");
        let image = parsed
            .parts
            .iter()
            .find(|p| p.content_type().is_some_and(|c| c.ctype() == "image"))
            .expect("the picture");
        assert_eq!(image.contents(), &png[..]);
        assert_eq!(image.content_id(), Some("board"));
        // The text side is whole, and the turn is found once.
        let text = parsed.body_text(0).unwrap();
        assert!(text.contains("Your move, Bo. <b>"), "{text}");
        let incoming = read_mail(&raw).unwrap();
        let blocks = incoming
            .turns
            .iter()
            .filter(|t| matches!(t, Turn::Block(_)))
            .count();
        assert_eq!(blocks, 1, "{:?}", incoming.turns);
    }

    /// The transfer encoding of the part whose headers hold `marker`, or
    /// `absent` when they name none.
    fn part_encoding(raw: &[u8], marker: &str, absent: &str) -> String {
        let text = String::from_utf8_lossy(raw);
        let at = text.find(marker).expect("the part");
        let start = text[..at].rfind("\r\n--").unwrap_or(0);
        let header = &text[start..at + text[at..].find("\r\n\r\n").unwrap()];
        header
            .lines()
            .find_map(|l| l.strip_prefix("Content-Transfer-Encoding: "))
            .unwrap_or(absent)
            .to_owned()
    }

    /// The transfer encoding of the attached record `g1.yam`.
    fn attachment_encoding(raw: &[u8]) -> String {
        part_encoding(raw, "filename=\"g1.yam\"", "none")
    }

    fn turn_mail<'a>(players: &'a [String], record: &'a [u8]) -> TurnMail<'a> {
        TurnMail {
            from: "Ann <ann@example.org>".parse().unwrap(),
            to: vec!["bo@example.net".parse().unwrap()],
            game_name: "Khan",
            game_id: "g1",
            ply: 3,
            players,
            body: "Your move, Bo.",
            turn: record,
            record,
            message_id: "yam.g1.3@example.org".into(),
            thread: &[],
            automatic: Automatic::No,
            referee: None,
            card: None,
            reminder: None,
            picture: None,
        }
    }

    /// The attached record as the reader takes it, and the text block's.
    fn read_back(raw: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let incoming = read_mail(raw).unwrap();
        let attached = incoming.turns.iter().find_map(|t| match t {
            Turn::Attachment { bytes, .. } => Some(bytes.clone()),
            Turn::Block(_) => None,
        });
        let block = incoming.turns.iter().find_map(|t| match t {
            Turn::Block(b) => Some(b.payload.clone()),
            Turn::Attachment { .. } => None,
        });
        (attached.expect("an attachment"), block.expect("a block"))
    }

    #[test]
    fn a_record_travels_as_its_lines_and_reads_back_as_its_bytes() {
        let players = vec!["Ann".to_owned(), "Bo".to_owned()];
        let event = format!("{{[%event {}]}}", "QUJD".repeat(90));
        let record = format!(
            "[Game \"Khan\"]\n[White \"Ann\"]\n\n1. Ng3-f3 {event}\n1... Nc6-d6 {{\tgood}}\n\n*\n"
        );
        let raw = compose(&turn_mail(&players, record.as_bytes()))
            .unwrap()
            .formatted();
        assert_eq!(attachment_encoding(&raw), "7bit");
        // Legible in the raw mail, with the wire's line breaks.
        let wire = String::from_utf8_lossy(&raw);
        assert!(wire.contains(&format!("\r\n1. Ng3-f3 {event}\r\n")));
        let (attached, block) = read_back(&raw);
        assert_eq!(
            attached,
            record.as_bytes(),
            "the sender's bytes, LF and all"
        );
        assert_eq!(armor::checksum(&attached), armor::checksum(&block));
    }

    #[test]
    fn a_record_that_a_transport_could_change_travels_in_base64() {
        let players = vec!["Ann".to_owned(), "Bo".to_owned()];
        let fine = "[Game \"Khan\"]\n\n1. Ng3-f3 {nice} *\n";
        assert!(travels_as_its_lines(fine.as_bytes()));
        let long = format!("[Game \"Khan\"]\n\n1. Ng3-f3 {{{}}} *\n", "x".repeat(1000));
        let at_limit = format!("{}\n", "x".repeat(SEVEN_BIT_RECORD_LINE));
        assert!(travels_as_its_lines(at_limit.as_bytes()));
        for (why, record) in [
            ("not ASCII", "[White \"Zoë\"]\n\n*\n".to_owned()),
            ("a line over 998", long),
            (
                "mbox's From",
                "[Game \"Khan\"]\n\n1. Ng3-f3 {a line\nFrom here on} *\n".to_owned(),
            ),
            ("a trailing space", "[Game \"Khan\"] \n\n*\n".to_owned()),
            ("a trailing tab", "[Game \"Khan\"]\t\n\n*\n".to_owned()),
            (
                "SMTP's end of data",
                "[Game \"Khan\"]\n\n1. Ng3-f3 {\n.\n} *\n".to_owned(),
            ),
            (
                "a carriage return",
                "[Game \"Khan\"]\r\n\r\n*\r\n".to_owned(),
            ),
            (
                "a control byte",
                "[Game \"Khan\"]\n\n1. Ng3-f3 {\u{1b}[2J} *\n".to_owned(),
            ),
            ("no last line break", "[Game \"Khan\"]\n\n*".to_owned()),
        ] {
            assert!(!travels_as_its_lines(record.as_bytes()), "{why}");
            let raw = compose(&turn_mail(&players, record.as_bytes()))
                .unwrap()
                .formatted();
            assert_eq!(attachment_encoding(&raw), "base64", "{why}");
            let (attached, _) = read_back(&raw);
            assert_eq!(attached, record.as_bytes(), "{why}: the bytes as sent");
        }
    }

    fn text_side_encoding(raw: &[u8]) -> String {
        part_encoding(raw, "Content-Type: text/plain", "7bit")
    }

    #[test]
    fn an_ascii_text_side_travels_as_7bit_and_its_long_lines_are_wrapped() {
        let players = vec!["Ann".to_owned(), "Bo".to_owned()];
        let moves = "Kf4-f7 Fc5-c8 Kf7-g6 Fc8-b7 Kg6-h8 ".repeat(6);
        let body = format!(
            "Bo plays Fc6-a4.\n\nLast moves (300 in all): {moves}\n\n     a   b   c\nPieces: upper case White, lower case Black; K khan, J khan archer, I khan sword.\n"
        );
        let record = "[Game \"Khan\"]\n\n1. Ng3-f3 *\n".repeat(400);
        let mut mail = TurnMail {
            from: "Ann <ann@example.org>".parse().unwrap(),
            to: vec!["bo@example.net".parse().unwrap()],
            game_name: "Khan",
            game_id: "g1",
            ply: 300,
            players: &players,
            body: &body,
            turn: record.as_bytes(),
            record: record.as_bytes(),
            message_id: "yam.g1.300@example.org".into(),
            thread: &[],
            automatic: Automatic::No,
            referee: None,
            card: None,
            reminder: None,
            picture: None,
        };
        // The body's long lines (and the checksum's) would make it
        // quoted-printable; wrapped, it is 7bit.
        let raw = compose(&mail).unwrap().formatted();
        assert_eq!(text_side_encoding(&raw), "7bit");
        let text = mail_parser::MessageParser::default()
            .parse(&raw)
            .unwrap()
            .body_text(0)
            .unwrap()
            .replace("\r\n", "\n");
        assert!(text.lines().all(|l| l.len() <= SEVEN_BIT_LINE), "{text}");
        let words = |t: &str| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(
            words(&text[..text.find(armor::BEGIN).unwrap()]),
            words(&body)
        );
        assert!(
            text.contains("\n     a   b   c\n"),
            "short lines as they were"
        );
        let incoming = read_mail(&raw).unwrap();
        assert!(incoming.turns.contains(&Turn::Block(armor::Block {
            game: "g1".into(),
            ply: 300,
            payload: record.clone().into_bytes()
        })));
        // A name that is not ASCII, or a word too long for any line (a
        // link), takes quoted-printable, and still reads.
        let accented = body.replace("Bo plays", "Zoë plays");
        let linked = format!("{body}https://example.org/{}\n", "x".repeat(90));
        for body in [&accented, &linked] {
            mail.body = body;
            let raw = compose(&mail).unwrap().formatted();
            assert_eq!(text_side_encoding(&raw), "quoted-printable");
            assert_eq!(read_mail(&raw).unwrap().turns.len(), 2);
        }
    }

    #[test]
    fn a_mail_to_a_referee_carries_the_senders_card_in_folded_lines_read_back_whole() {
        use crate::mail::cards::Card;
        use yam_referee::fair_play::sign::SigningKey;
        let players = vec!["Ann".to_owned(), "Bo".to_owned()];
        let key = SigningKey::from_seed(&[7; 32]);
        let card = Card {
            name: "Ann Long-Name of the Correspondence Club".into(),
            address: "ann@example.org".into(),
            key: key.public_key(),
            issued: 1_790_000_000,
        }
        .signed_text(&key);
        let mut mail = turn_mail(&players, b"[Game \"Khan\"]\n\n*\n");
        mail.card = Some(card.clone());
        // Without a referee the card is not sent: it is for the robot.
        let raw = compose(&mail).unwrap().formatted();
        assert!(read_mail(&raw).unwrap().card.is_none());
        mail.referee = Some("robot@example.net".parse().unwrap());
        let raw = compose(&mail).unwrap().formatted();
        let head =
            String::from_utf8_lossy(&raw[..raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap()])
                .into_owned();
        assert!(head.contains("X-Yam-Card: "), "{head}");
        assert!(
            head.split("\r\n").all(|l| l.len() <= 78),
            "a header line longer than 78:\n{head}"
        );
        let read = read_mail(&raw).unwrap().card.expect("the card read back");
        assert_eq!(read, card.as_bytes());
        assert_eq!(Card::read(&read).unwrap().key, key.public_key());
        // A header that is not base64 is no card.
        let broken = String::from_utf8_lossy(&raw).replacen("X-Yam-Card: ", "X-Yam-Card: !", 1);
        assert!(read_mail(broken.as_bytes()).unwrap().card.is_none());
    }
}
