//! A mail's shape, counted before it is parsed: how many MIME parts it
//! declares.
//!
//! The mail parser keeps a structure for every part, some seventeen
//! times the mail's size for a mail of empty parts: a 4 MB mail of
//! 360,000 of them took 56 MB, and the robot, run in the 64 MB its
//! documentation's unit file gives it, was killed on such a mail "from" a
//! witnessed game's player (read up to 16 MiB), restarted, and killed
//! again on the same unread mail
//! (`a_witnessed_games_mail_of_countless_empty_parts_is_read_within_64_mb`).
//! One pass over the bytes counts the parts first, and a mail of more
//! than [`MAX_PARTS`] is refused unparsed. A Yam mail has a handful; a
//! person's mail with a thousand attachments is none a player sends.

/// The most MIME parts (and messages nested in them) a mail read may
/// declare.
pub const MAX_PARTS: usize = 1_000;

/// The size from which a mail's parts are counted before it is parsed: a
/// smaller mail, of any shape, parses within some 17 MB.
pub const COUNTED_FROM: usize = 1 << 20;

/// The most distinct boundaries looked for: each opens a multipart, itself
/// a part, so a mail declaring more has more parts than are read.
const MAX_BOUNDARIES: usize = 64;

/// How many parts `raw` declares, counted up to just past `limit`: the
/// delimiters (`--` and a boundary some `boundary` parameter names, found
/// anywhere, as the parser finds them, not only at a line's start) and
/// the messages nested in them (`message/rfc822` and `message/global`, in
/// any case), whose headers the parser reads as a part's. The boundary
/// parameter is read in every form the parser takes: `boundary=B`,
/// `boundary = "B"`, RFC 2231's `boundary*=charset'lang'B` and
/// `boundary*0=B` (a first piece: what it opens is counted, and more).
/// The first count looked for `--B` at a line's start and for
/// `boundary=` alone, and each other form let a flood through whole
/// (`a_flood_of_parts_is_counted_however_the_parser_finds_its_parts`).
pub fn parts_declared(raw: &[u8], limit: usize) -> usize {
    let boundaries = boundaries(raw);
    if boundaries.len() >= MAX_BOUNDARIES {
        return limit + 1;
    }
    let mut count = 0;
    for boundary in &boundaries {
        let mut delimiter = b"--".to_vec();
        delimiter.extend_from_slice(boundary);
        for _ in memchr::memmem::find_iter(raw, &delimiter) {
            count += 1;
            if count > limit {
                return count;
            }
        }
    }
    for slash in memchr::memchr_iter(b'/', raw) {
        if count > limit {
            break;
        }
        let before = slash.checked_sub(7).map(|s| &raw[s..slash]);
        let after = |n: usize| raw.get(slash + 1..slash + 1 + n);
        if before.is_some_and(|b| b.eq_ignore_ascii_case(b"message"))
            && (after(6).is_some_and(|a| a.eq_ignore_ascii_case(b"rfc822"))
                || after(6).is_some_and(|a| a.eq_ignore_ascii_case(b"global")))
        {
            count += 1;
        }
    }
    count
}

/// The distinct values of the `boundary` parameters in `raw`, in each
/// form the parser reads (see [`parts_declared`]), at most 70 bytes as
/// RFC 2046 allows, up to [`MAX_BOUNDARIES`].
fn boundaries(raw: &[u8]) -> Vec<&[u8]> {
    const NAME: &[u8] = b"boundary";
    let mut out: Vec<&[u8]> = Vec::new();
    for at in memchr::memchr2_iter(b'b', b'B', raw) {
        if !raw
            .get(at..at + NAME.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(NAME))
        {
            continue;
        }
        let mut rest = &raw[at + NAME.len()..];
        // RFC 2231: `*`, `*N` or `*N*` after the name.
        let extended = rest.first() == Some(&b'*');
        rest = trim_start(rest, |c| c == b'*' || c.is_ascii_digit());
        rest = trim_start(rest, |c| c == b' ' || c == b'\t');
        let Some(after) = rest.strip_prefix(b"=") else {
            continue;
        };
        let mut value = trim_start(after, |c| c == b' ' || c == b'\t');
        value = match value.strip_prefix(b"\"") {
            Some(quoted) => &quoted[..memchr::memchr(b'"', quoted).unwrap_or(quoted.len())],
            None => {
                let end = value
                    .iter()
                    .position(|&c| c == b';' || c.is_ascii_whitespace())
                    .unwrap_or(value.len());
                &value[..end]
            }
        };
        // An extended value names its charset and language first.
        if extended && let Some(quote) = memchr::memrchr(b'\'', value) {
            value = &value[quote + 1..];
        }
        if value.is_empty() || value.len() > 70 || out.contains(&value) {
            continue;
        }
        out.push(value);
        if out.len() >= MAX_BOUNDARIES {
            break;
        }
    }
    out
}

fn trim_start(bytes: &[u8], drop: impl Fn(u8) -> bool) -> &[u8] {
    let n = bytes.iter().take_while(|&&c| drop(c)).count();
    &bytes[n..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_counted_by_their_declared_boundaries_and_nested_messages() {
        let turn = b"From: a@b\r\nContent-Type: multipart/mixed; boundary=\"B1\"\r\n\r\n\
                     --B1\r\nContent-Type: text/plain\r\n\r\nhi\r\n-- \r\nAnn\r\n\
                     --B1\r\nContent-Type: application/x-yam\r\n\r\n[GameId \"g\"]\r\n--B1--\r\n";
        // Two parts and the closing delimiter; the signature line is none.
        assert_eq!(parts_declared(turn, MAX_PARTS), 3);
        let mut flood = b"Content-Type: multipart/mixed; BOUNDARY=b\r\n\r\n".to_vec();
        flood.extend_from_slice(&b"--b\r\n\r\nhi\r\n".repeat(5_000));
        assert_eq!(parts_declared(&flood, MAX_PARTS), MAX_PARTS + 1);
        // Lines of dashes in a person's text are no parts.
        let table =
            "Content-Type: text/plain\r\n\r\n".to_owned() + &"------+------\r\n".repeat(5_000);
        assert_eq!(parts_declared(table.as_bytes(), MAX_PARTS), 0);
        // Messages nested in messages, without a boundary.
        let nested = "Content-Type: Message/RFC822\r\n\r\n".repeat(2_000);
        assert_eq!(parts_declared(nested.as_bytes(), MAX_PARTS), MAX_PARTS + 1);
    }

    /// Every way of declaring a part that the mail parser follows is
    /// counted: the parser takes an RFC 2231 `boundary*0=` or
    /// `boundary*=` as the boundary, and a value after white space; it
    /// finds a `--boundary` anywhere in a line (its search is not bound to
    /// a line's start); and it nests `message/global` (RFC 6532) as it
    /// nests `message/rfc822`. A mail of thousands of parts declared so
    /// was parsed whole, as the 4 MB flood the count exists for.
    #[test]
    fn a_flood_of_parts_is_counted_however_the_parser_finds_its_parts() {
        fn all_parts(message: &mail_parser::Message<'_>) -> usize {
            message
                .parts
                .iter()
                .map(|p| match &p.body {
                    mail_parser::PartType::Message(inner) => 1 + all_parts(inner),
                    _ => 1,
                })
                .sum()
        }
        let mut floods = vec![(
            "nested message/global".to_owned(),
            "Content-Type: message/global\r\n\r\n".repeat(2_000),
        )];
        for (header, part) in [
            ("multipart/mixed; boundary=b", "x--b\r\n\r\n"),
            ("multipart/mixed; boundary*0=b", "--b\r\n\r\nhi\r\n"),
            (
                "multipart/mixed; boundary*=us-ascii''b",
                "--b\r\n\r\nhi\r\n",
            ),
            ("multipart/mixed; boundary= b", "--b\r\n\r\nhi\r\n"),
        ] {
            floods.push((
                format!("{header:?} with parts {part:?}"),
                format!(
                    "From: a@b\r\nContent-Type: {header}\r\n\r\n{}",
                    part.repeat(5_000)
                ),
            ));
        }
        let mut missed = Vec::new();
        for (what, flood) in &floods {
            let parsed = all_parts(
                &mail_parser::MessageParser::default()
                    .parse(flood.as_bytes())
                    .unwrap(),
            );
            let counted = parts_declared(flood.as_bytes(), MAX_PARTS);
            if parsed > MAX_PARTS && counted <= MAX_PARTS {
                missed.push(format!(
                    "{what}: parsed into {parsed} parts, counted {counted}"
                ));
            }
        }
        assert!(missed.is_empty(), "{}", missed.join("\n"));
    }
}
