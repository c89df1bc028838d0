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

/// The most distinct boundaries looked for: each opens a multipart, itself
/// a part, so a mail declaring more has more parts than are read.
const MAX_BOUNDARIES: usize = 64;

/// How many parts `raw` declares, counted up to just past `limit`: the
/// lines that open a part (`--` and a boundary some `boundary=` parameter
/// names; RFC 2046 lets a body line begin so only as a delimiter) and the
/// messages nested in them (`message/rfc822`, in any case), whose headers
/// the parser reads as a part's.
pub fn parts_declared(raw: &[u8], limit: usize) -> usize {
    let boundaries = boundaries(raw);
    if boundaries.len() >= MAX_BOUNDARIES {
        return limit + 1;
    }
    let mut count = 0;
    let mut line_starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', raw).map(|i| i + 1));
    while count <= limit {
        let Some(start) = line_starts.next() else {
            break;
        };
        let Some(rest) = raw[start..].strip_prefix(b"--") else {
            continue;
        };
        if boundaries.iter().any(|b| rest.starts_with(b)) {
            count += 1;
        }
    }
    for slash in memchr::memchr_iter(b'/', raw) {
        if count > limit {
            break;
        }
        let before = raw[..slash].len().checked_sub(7).map(|s| &raw[s..slash]);
        let after = raw.get(slash + 1..slash + 7);
        if before.is_some_and(|b| b.eq_ignore_ascii_case(b"message"))
            && after.is_some_and(|a| a.eq_ignore_ascii_case(b"rfc822"))
        {
            count += 1;
        }
    }
    count
}

/// The distinct values of the `boundary=` parameters in `raw` (quoted or
/// not, at most 70 bytes as RFC 2046 allows), up to [`MAX_BOUNDARIES`].
fn boundaries(raw: &[u8]) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = Vec::new();
    for equals in memchr::memchr_iter(b'=', raw) {
        let Some(name) = equals.checked_sub(8).map(|s| &raw[s..equals]) else {
            continue;
        };
        if !name.eq_ignore_ascii_case(b"boundary") {
            continue;
        }
        let value = &raw[equals + 1..];
        let value = match value.strip_prefix(b"\"") {
            Some(quoted) => &quoted[..memchr::memchr(b'"', quoted).unwrap_or(quoted.len())],
            None => {
                let end = value
                    .iter()
                    .position(|&c| c == b';' || c.is_ascii_whitespace())
                    .unwrap_or(value.len());
                &value[..end]
            }
        };
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
}
