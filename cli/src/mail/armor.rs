//! The turn block: a turn armored for the body of a mail.
//!
//! ```text
//! -----BEGIN YAM TURN-----
//! Game: 2026-ann-bo-1
//! Ply: 12
//! Checksum: sha256:5d41402abc4b2a76b9719d911017c592
//!  2fbb4e6b0a1c3b2f7e5d9f0a4c8e1b3d
//!
//! W0dhbWUgIkNhc3RsZSBTaWVnZSJdClt...  (base64, 64 characters a line)
//! -----END YAM TURN-----
//! ```
//!
//! Mail mangles text: clients quote it (`> `), re-wrap it, encode it as
//! quoted-printable or base64, flow it, render it from HTML, forward it. The
//! block survives all of that because its payload is base64 (an alphabet
//! that none of those transformations touches once whitespace and quote
//! marks are dropped) and its checksum tells a complete payload from a
//! damaged one. The reader looks at words, not lines.
//!
//! No line is longer than 64 characters (the checksum's 64 hex digits are
//! split over two lines, which every Yam reads, since the reader gathers
//! hex digits that a client broke), so a mail whose other lines are short
//! and ASCII travels as 7bit, not quoted-printable, and the reader's mail
//! parser has nothing to decode (`docs/mail.md`, "Why the text side is
//! 7bit").

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The first line of a turn block.
pub const BEGIN: &str = "-----BEGIN YAM TURN-----";
/// The last line of a turn block.
pub const END: &str = "-----END YAM TURN-----";

/// A turn block's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The game's id.
    pub game: String,
    /// The ply the turn brings the game to.
    pub ply: u32,
    /// The turn's bytes.
    pub payload: Vec<u8>,
}

/// Why a turn block could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArmorError {
    /// The text ends before the block's end line.
    #[error("the turn block is cut off: the text ends before its {END} line")]
    Truncated,
    /// A second begin line comes before the block's end line.
    #[error("the turn block is cut off: a new {BEGIN} line comes before its {END} line")]
    Interrupted,
    /// A header is missing or malformed.
    #[error("the turn block has no valid {0} header")]
    Header(&'static str),
    /// The payload is not base64.
    #[error("the turn block's payload is damaged (not base64)")]
    NotBase64,
    /// The payload does not hash to the checksum.
    #[error("the turn block's checksum does not match: the turn was altered or cut in transit")]
    Checksum,
}

/// A turn block as found in a text, with how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Whether the block sits in quoted text (`> `): a copy of an earlier
    /// turn in a reply, not the sender's own turn.
    pub quoted: bool,
    /// The block, or why it is unreadable.
    pub block: Result<Block, ArmorError>,
}

/// The armored text of a turn.
pub fn armor(game: &str, ply: u32, payload: &[u8]) -> String {
    let mut out = String::with_capacity(payload.len() * 4 / 3 + 200);
    out.push_str(BEGIN);
    out.push('\n');
    let sum = checksum(payload);
    let (first, second) = sum.split_at(sum.len() / 2);
    out.push_str(&format!(
        "Game: {game}\nPly: {ply}\nChecksum: sha256:{first}\n {second}\n\n"
    ));
    let encoded = STANDARD.encode(payload);
    for chunk in encoded.as_bytes().chunks(64) {
        // Base64 is ASCII, so every chunk is valid UTF-8.
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(END);
    out.push('\n');
    out
}

/// The hex SHA-256 of a payload.
pub fn checksum(payload: &[u8]) -> String {
    hex::encode(Sha256::digest(payload))
}

/// Every turn block in `text`, in order.
///
/// Linear in the text, whatever it holds: each stretch between one begin
/// line and the next is searched for an end line once. (Searching the whole
/// rest of the text from every begin line took 21.7 s on a stranger's 1 MB
/// mail of begin lines.)
pub fn find_blocks(text: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let mut spans = find_spans(text).peekable();
    while let Some((quoted, inside)) = spans.next() {
        let block = match inside {
            Some(inside) => parse_inside(inside),
            // The text ends, or a new block begins, before this one's end.
            None if spans.peek().is_none() => Err(ArmorError::Truncated),
            None => Err(ArmorError::Interrupted),
        };
        found.push(Found { quoted, block });
    }
    found
}

/// Each begin line of `text`, in order: whether it is quoted, and the
/// text between it and its end line, if one comes before the next begin
/// line. One pass over the text: each stretch between one begin line and
/// the next is searched for an end line once.
fn find_spans(text: &str) -> impl Iterator<Item = (bool, Option<&str>)> {
    // memchr's searcher, not `str::find`: a turn mail's text side is 107
    // kB at ply 300 of a Khan game, read for its blocks at every turn, and
    // the standard library's two-way search took about 0.04 ms of it.
    let end_finder = memchr::memmem::Finder::new(END);
    let mut begins = memchr::memmem::find_iter(text.as_bytes(), BEGIN).peekable();
    // Where the last begin line was, and whether it was quoted: a begin
    // line on the same line as the one before it shares its quoting, so
    // no line is searched backwards twice.
    let mut searched_to = 0;
    let mut last_quoted = false;
    std::iter::from_fn(move || {
        let at = begins.next()?;
        let quoted = match text[searched_to..at].rfind('\n') {
            Some(newline) => is_quoted(&text[searched_to + newline + 1..at]),
            None if searched_to == 0 => is_quoted(&text[..at]),
            None => last_quoted,
        };
        let inside_from = at + BEGIN.len();
        let next_begin = begins.peek().copied().unwrap_or(text.len());
        let stretch = &text[inside_from..next_begin];
        searched_to = at;
        last_quoted = quoted;
        let end = end_finder.find(stretch.as_bytes());
        Some((quoted, end.map(|end| &stretch[..end])))
    })
}

/// The checksum headers (64 hex digits, lower case) of the blocks of
/// `text` that are not quoted and have an end line, in order: what a
/// block holds, named without decoding it. A mail's attached record is
/// compared with its text's blocks by these (the attached record, when it
/// applies, is all that is decoded).
pub fn block_checksums(text: &str) -> Vec<String> {
    find_spans(text)
        .filter(|(quoted, _)| !quoted)
        .filter_map(|(_, inside)| inside)
        .filter_map(|inside| headers(&mut words_of(inside)).ok().map(|h| h.2))
        .collect()
}

/// Whether `line_start` (the text of a line before a begin line) starts
/// with a quote mark.
fn is_quoted(line_start: &str) -> bool {
    line_start.trim_start().starts_with('>')
}

/// The words of a block's inside, without the quote marks replies put in
/// front of lines, and without the `- ` an inline OpenPGP signature puts
/// in front of every line that begins with a dash (RFC 4880, 7.1): the
/// end line's, which falls inside the block. No word of a block is a lone
/// dash (its headers are `Name: value`, its payload base64), so a
/// clearsigned turn reads as the turn it is; taken for a payload word, the
/// dash called it damaged.
fn words_of(inside: &str) -> std::iter::Peekable<impl Iterator<Item = &str>> {
    inside
        .split_whitespace()
        .map(|w| w.trim_start_matches('>'))
        .filter(|w| !w.is_empty() && *w != "-")
        .peekable()
}

/// A block's headers (game, ply, checksum), read from its words; the
/// payload's words are left.
fn headers<'a>(
    words: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
) -> Result<(String, u32, String), ArmorError> {
    let mut game = None;
    let mut ply = None;
    let mut sum = None;
    while let Some(key) = words.peek().copied() {
        let Some(name) = key.strip_suffix(':') else {
            break;
        };
        words.next();
        let value = words.next();
        match name.to_ascii_lowercase().as_str() {
            "game" => game = value.map(str::to_owned),
            "ply" => ply = value.and_then(|v| v.parse::<u32>().ok()),
            "checksum" => {
                // A crude client may break even the 64 hex digits; gather them.
                let mut hex = value
                    .and_then(|v| v.strip_prefix("sha256:"))
                    .unwrap_or("")
                    .to_ascii_lowercase();
                while hex.len() < 64 {
                    match words.peek() {
                        Some(w)
                            if w.bytes().all(|b| b.is_ascii_hexdigit())
                                && hex.len() + w.len() <= 64 =>
                        {
                            hex.push_str(&w.to_ascii_lowercase());
                            words.next();
                        }
                        _ => break,
                    }
                }
                sum = Some(hex);
            }
            // Unknown headers are skipped, so later versions can add some.
            _ => {}
        }
    }
    let game = game.ok_or(ArmorError::Header("Game"))?;
    let ply = ply.ok_or(ArmorError::Header("Ply"))?;
    let sum = sum.ok_or(ArmorError::Header("Checksum"))?;
    Ok((game, ply, sum))
}

fn parse_inside(inside: &str) -> Result<Block, ArmorError> {
    let mut words = words_of(inside);
    let (game, ply, sum) = headers(&mut words)?;
    let encoded: String = words.collect();
    let payload = STANDARD
        .decode(encoded.as_bytes())
        .map_err(|_| ArmorError::NotBase64)?;
    if checksum(&payload) != sum {
        return Err(ArmorError::Checksum);
    }
    Ok(Block { game, ply, payload })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> (String, Vec<u8>) {
        let payload = "[Game \"Khan\"]\n\n1. Ng3-f3 {é} *\n"
            .repeat(5)
            .into_bytes();
        (armor("g-1", 3, &payload), payload)
    }

    #[test]
    fn a_block_reads_back() {
        let (text, payload) = sample();
        let found = find_blocks(&format!("Hello,\n\nmy move:\n\n{text}\n-- \nAnn\n"));
        assert_eq!(found.len(), 1);
        assert!(!found[0].quoted);
        assert_eq!(found[0].block.as_ref().unwrap().payload, payload);
    }

    #[test]
    fn quoting_rewrapping_and_crlf_do_not_hurt() {
        let (text, payload) = sample();
        let quoted: String = text.lines().map(|l| format!("> > {l}\r\n")).collect();
        let found = find_blocks(&quoted);
        assert!(found[0].quoted);
        assert_eq!(found[0].block.as_ref().unwrap().payload, payload);
        // A client that re-wraps at 30 columns.
        let rewrapped: String = text
            .lines()
            .flat_map(|l| {
                if l.starts_with("-----") {
                    vec![l.to_owned()]
                } else {
                    l.as_bytes()
                        .chunks(30)
                        .map(|c| String::from_utf8_lossy(c).into_owned())
                        .collect()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            find_blocks(&rewrapped)[0].block.as_ref().unwrap().payload,
            payload
        );
    }

    #[test]
    fn damage_is_named() {
        let (text, _) = sample();
        let cut = &text[..text.len() - 40];
        assert_eq!(find_blocks(cut)[0].block, Err(ArmorError::Truncated));
        let changed = text.replacen("W0dh", "W0di", 1);
        assert_eq!(find_blocks(&changed)[0].block, Err(ArmorError::Checksum));
        let no_ply = text.replace("Ply: 3", "");
        assert_eq!(
            find_blocks(&no_ply)[0].block,
            Err(ArmorError::Header("Ply"))
        );
    }

    #[test]
    fn a_begin_line_before_the_end_line_interrupts_a_block() {
        let (text, payload) = sample();
        let found = find_blocks(&format!("{BEGIN}\nGame: g-1\nPly: 3\n{text}"));
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].block, Err(ArmorError::Interrupted));
        assert_eq!(found[1].block.as_ref().unwrap().payload, payload);
        // Quoting is read per line, also for begin lines sharing one line.
        let found = find_blocks(&format!("> {BEGIN} {BEGIN}\n{text}"));
        let quoted: Vec<bool> = found.iter().map(|f| f.quoted).collect();
        assert_eq!(quoted, [true, true, false]);
    }

    #[test]
    fn checksums_are_read_without_decoding_for_unquoted_whole_blocks() {
        let (text, payload) = sample();
        let other = armor("g-1", 4, b"another record");
        let quoted: String = other.lines().map(|l| format!("> {l}\n")).collect();
        // A payload that is not base64 still names its checksum: the header
        // is read, the payload is not.
        let undecodable = text.replacen("W0dh", "W0d!", 1);
        let cut = &text[..text.len() - 40];
        let mail = format!("{text}\n{quoted}\n{other}\n{undecodable}\n{cut}");
        assert_eq!(
            block_checksums(&mail),
            [
                checksum(&payload),
                checksum(b"another record"),
                checksum(&payload)
            ]
        );
        assert!(block_checksums("no block here").is_empty());
    }

    #[test]
    fn a_flood_of_begin_lines_is_read_once() {
        // A stranger's mail of 200,000 begin lines and one end line (4.8 MB):
        // every block but the last is interrupted, the last is empty. Read
        // from every begin line to the end, this was hours of work.
        let flood = format!("{}{END}\n", format!("{BEGIN}\r\n").repeat(200_000));
        let found = find_blocks(&flood);
        assert_eq!(found.len(), 200_000);
        assert!(
            found[..199_999]
                .iter()
                .all(|f| f.block == Err(ArmorError::Interrupted) && !f.quoted)
        );
        assert_eq!(found[199_999].block, Err(ArmorError::Header("Game")));
        // The same on one line, quoted: no line is searched backwards twice.
        let one_line = format!("> {}", BEGIN.repeat(200_000));
        let found = find_blocks(&one_line);
        assert_eq!(found.len(), 200_000);
        assert!(found.iter().all(|f| f.quoted));
        assert_eq!(found[199_999].block, Err(ArmorError::Truncated));
    }

    proptest! {
        #[test]
        fn any_payload_round_trips(payload in prop::collection::vec(any::<u8>(), 0..2000), ply in any::<u32>()) {
            let text = armor("game", ply, &payload);
            let found = find_blocks(&text);
            prop_assert_eq!(found.len(), 1);
            let block = found[0].block.clone().unwrap();
            prop_assert_eq!(block.payload, payload);
            prop_assert_eq!(block.ply, ply);
        }

        #[test]
        fn any_text_is_read_without_panic(text in "\\PC{0,400}") {
            let _ = find_blocks(&text);
            let _ = find_blocks(&format!("{BEGIN}{text}{END}"));
        }
    }
}
