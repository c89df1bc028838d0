//! The envelope's lexical elements, as nom parsers over bytes.
//!
//! Each parser works on a window of the reader's buffer and returns byte
//! ranges relative to that window, never borrowed slices: the reader may
//! refill and move its buffer between elements. The same parser runs in
//! streaming mode while more input may come (`Incomplete` asks for a refill)
//! and in complete mode at the end of the input.

use std::ops::Range;

use nom::{
    Err, IResult, Needed, Parser,
    bytes::{tag, take_while, take_while1},
    error::{ContextError, ErrorKind as NomKind, ParseError as NomParseError, context},
};

/// A lexing failure: where (the rest of the window) and what was expected.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LexError<'a> {
    pub input: &'a [u8],
    pub expected: &'static str,
    pub kind: LexFailure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LexFailure {
    Expected,
    BadEscape,
}

impl<'a> NomParseError<&'a [u8]> for LexError<'a> {
    fn from_error_kind(input: &'a [u8], _kind: NomKind) -> Self {
        LexError {
            input,
            expected: "",
            kind: LexFailure::Expected,
        }
    }
    fn append(_input: &'a [u8], _kind: NomKind, other: Self) -> Self {
        other
    }
}

impl<'a> ContextError<&'a [u8]> for LexError<'a> {
    fn add_context(_input: &'a [u8], ctx: &'static str, mut other: Self) -> Self {
        if other.expected.is_empty() {
            other.expected = ctx;
        }
        other
    }
}

pub(crate) type LexResult<'a, T> = IResult<&'a [u8], T, LexError<'a>>;

/// Run `parser` on `input`, streaming unless the input is complete.
pub(crate) fn run<'a, P, O>(mut parser: P, input: &'a [u8], eof: bool) -> LexResult<'a, O>
where
    P: Parser<&'a [u8], Output = O, Error = LexError<'a>>,
{
    if eof {
        parser.parse_complete(input)
    } else {
        parser.parse(input)
    }
}

/// Bytes that end a move token (outside quotes): whitespace, control
/// characters and the envelope's punctuation. A table, because the reader
/// asks this for every byte of every token.
static TOKEN_DELIMITER: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[0x7f] = true;
    let punctuation = b" {}()[]$;!?";
    let mut i = 0;
    while i < punctuation.len() {
        table[punctuation[i] as usize] = true;
        i += 1;
    }
    table
};

/// Whether `b` ends a move token (outside quotes).
#[inline]
pub(crate) fn is_token_delimiter(b: u8) -> bool {
    TOKEN_DELIMITER[b as usize]
}

/// How the reader's fast path sees a byte inside a move token.
pub(crate) const TOKEN_PLAIN: u8 = 0;
/// A byte of a multi-byte character.
pub(crate) const TOKEN_HIGH: u8 = 1;
/// `"`: a quoted string begins.
pub(crate) const TOKEN_QUOTE: u8 = 2;
/// A delimiter: the token ends before it.
pub(crate) const TOKEN_END: u8 = 3;

/// [`TOKEN_PLAIN`], [`TOKEN_HIGH`], [`TOKEN_QUOTE`] or [`TOKEN_END`] for
/// every byte.
pub(crate) static TOKEN_CLASS: [u8; 256] = {
    let mut table = [TOKEN_PLAIN; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = if TOKEN_DELIMITER[b] {
            TOKEN_END
        } else if b >= 0x80 {
            TOKEN_HIGH
        } else if b == b'"' as usize {
            TOKEN_QUOTE
        } else {
            TOKEN_PLAIN
        };
        b += 1;
    }
    table
};

// Eight bytes at a time ("SWAR"): each test sets the high bit of a byte of
// the result for the bytes of `x` it matches. A borrow can also set it in a
// byte *after* a matching one, never before, so the lowest set bit always
// marks the first match, which is all the fast path asks.

const ONES: u64 = u64::from_le_bytes([1; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// Bytes equal to `b`.
#[inline(always)]
pub(crate) fn swar_eq(x: u64, b: u8) -> u64 {
    let y = x ^ (ONES * u64::from(b));
    y.wrapping_sub(ONES) & !y & HIGHS
}

/// Bytes below `n` (at most 0x80).
#[inline(always)]
fn swar_below(x: u64, n: u8) -> u64 {
    x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS
}

/// The first of eight bytes (little-endian in `x`) that may not be a plain
/// ASCII token byte: every delimiter, `"` and byte of a multi-byte
/// character is caught, and a few plain bytes too (`Y`, `_`, `y`), which
/// the caller tells apart with [`TOKEN_CLASS`]. `None`: all eight are plain.
#[inline(always)]
pub(crate) fn token_stop(x: u64) -> Option<usize> {
    let m = token_stops(x);
    (m != 0).then(|| (m.trailing_zeros() / 8) as usize)
}

/// [`token_stop`]'s mask: the high bit of each byte that may stop a token
/// is set (and bits after the first may be set spuriously).
#[inline(always)]
pub(crate) fn token_stops(x: u64) -> u64 {
    swar_below(x, 0x23) // controls, space, `!`, `"`
        | swar_eq(x, b'$')
        | swar_eq(x & !ONES, b'(') // `(` `)`
        | swar_eq(x | (ONES * 0x04), b'?') // `;` `?`
        | swar_eq(x & !(ONES * 0x26), 0x59) // `[` `]` `{` `}` DEL, and Y _ y
        | (x & HIGHS)
}

/// A cheaper, coarser [`token_stops`] for the reader's quick path: the
/// high bit of every byte below `*` (controls, space, `!`, `"`, `$`, `(`,
/// `)`, and `#`, `%`, `&`, `'`), every byte whose low five bits are 0x1b
/// or more (`;`, `?`, `[`, `]`, `{`, `}`, DEL, and `<`, `=`, `>`, `\`,
/// `^`, `_`, `|`, `~`) and every byte of a multi-byte character, so every
/// byte that is not [`TOKEN_PLAIN`] and a few that are. The lowest set bit
/// marks the first such byte exactly (only the first term borrows, and only
/// into the byte after a match); a plain byte caught too just sends its
/// token the exact way.
#[inline(always)]
pub(crate) fn token_quick_stops(x: u64) -> u64 {
    let low5 = ((x & (ONES * 0x1f)) + ONES * 0x05) << 2; // 0x1b + 5 = 0x20, moved to 0x80
    swar_below(x, 0x2a) | (low5 & HIGHS) | (x & HIGHS)
}

/// The high bit of every byte that is not a tag name byte (ASCII letter,
/// digit or `_`), and of a few that are (`Z`, `_`, `z`, `P`, `p`): every
/// byte below `0`, every byte of a multi-byte character, every byte whose
/// low five bits are 0x1a or more (`:` to `?`, `[` to `_`, `{` to DEL, and
/// `Z`, `z`) or zero (`@`, `` ` ``, and `P`, `p`). The lowest set bit marks
/// the first such byte exactly, so the bytes before it are name bytes.
#[inline(always)]
pub(crate) fn tag_name_stops(x: u64) -> u64 {
    let low5 = x & (ONES * 0x1f);
    let high5 = (low5 + ONES * 0x06) << 2; // 0x1a + 6 = 0x20, moved to 0x80
    swar_below(x, 0x30) | (high5 & HIGHS) | swar_eq(low5, 0) | (x & HIGHS)
}

/// The first of eight bytes that may end or interrupt a quoted string:
/// `"`, `\`, control characters (among them CR and LF) and bytes of
/// multi-byte characters. `None`: none of the eight.
#[inline(always)]
pub(crate) fn quoted_stop(x: u64) -> Option<usize> {
    let m = swar_eq(x, b'"') | swar_eq(x, b'\\') | swar_below(x, 0x0e) | (x & HIGHS);
    (m != 0).then(|| (m.trailing_zeros() / 8) as usize)
}

/// ASCII letters, digits and `_`.
static TAG_NAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

pub(crate) fn is_tag_name_byte(b: u8) -> bool {
    TAG_NAME_BYTE[usize::from(b)]
}

fn spaces(input: &[u8], eof: bool) -> LexResult<'_, &[u8]> {
    run(take_while(|b: u8| b == b' ' || b == b'\t'), input, eof)
}

/// A tag pair's parts, as ranges in the window.
pub(crate) struct TagPair {
    pub name: Range<usize>,
    pub value: Range<usize>,
    pub len: usize,
}

/// The body of a quoted tag value: runs of plain bytes and `\"` or `\\`.
fn tag_value_body(input: &[u8]) -> LexResult<'_, &[u8]> {
    let mut i = 0;
    loop {
        match input.get(i) {
            None => return Err(Err::Incomplete(Needed::new(1))),
            Some(b'"') => return Ok((&input[i..], &input[..i])),
            Some(b'\\') => match input.get(i + 1) {
                None => return Err(Err::Incomplete(Needed::new(1))),
                Some(b'"' | b'\\') => i += 2,
                Some(_) => {
                    return Err(Err::Failure(LexError {
                        input: &input[i..],
                        expected: "\\\" or \\\\",
                        kind: LexFailure::BadEscape,
                    }));
                }
            },
            Some(b'\n' | b'\r') => {
                return Err(Err::Failure(LexError {
                    input: &input[i..],
                    expected: "a closing \" before the end of the line",
                    kind: LexFailure::Expected,
                }));
            }
            Some(_) => i += 1,
        }
    }
}

/// `[Name "value"]`, with spaces allowed around the parts.
pub(crate) fn tag_pair(window: &[u8], eof: bool) -> LexResult<'_, TagPair> {
    let parser = |input| {
        let (input, _) = run(tag("["), input, eof)?;
        let (input, _) = spaces(input, eof)?;
        let (input, name) = context("a tag name (a letter, then letters, digits or _)", |i| {
            let (rest, name): (&[u8], &[u8]) = run(take_while1(is_tag_name_byte), i, eof)?;
            if name[0].is_ascii_alphabetic() {
                Ok((rest, name))
            } else {
                Err(Err::Error(LexError::from_error_kind(i, NomKind::Alpha)))
            }
        })
        .parse(input)?;
        let (input, _) = spaces(input, eof)?;
        let (input, _) = run(
            context("a quoted tag value after the tag name", tag("\"")),
            input,
            eof,
        )?;
        let (input, value) = match tag_value_body(input) {
            Err(Err::Incomplete(n)) if eof => {
                let _ = n;
                return Err(Err::Failure(LexError {
                    input: &input[input.len()..],
                    expected: "a closing \" for the tag value",
                    kind: LexFailure::Expected,
                }));
            }
            other => other?,
        };
        let (input, _) = run(tag("\""), input, eof)?;
        let (input, _) = spaces(input, eof)?;
        let (input, _) = run(context("] to close the tag pair", tag("]")), input, eof)?;
        Ok((input, (name, value)))
    };
    let (rest, (name, value)) = parser(window)?;
    let offset = |s: &[u8]| s.as_ptr() as usize - window.as_ptr() as usize;
    Ok((
        rest,
        TagPair {
            name: offset(name)..offset(name) + name.len(),
            value: offset(value)..offset(value) + value.len(),
            len: window.len() - rest.len(),
        },
    ))
}

/// What a run starting with a digit, `*`, `+` or `-` turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Numeric {
    MoveNumber {
        number: u32,
        dots: usize,
        len: usize,
    },
    Result {
        len: usize,
    },
}

/// A move number (`12.`, `12...`) or a result token (`1-0`, `112/150`, `*`).
pub(crate) fn numeric(input: &[u8], eof: bool) -> LexResult<'_, Numeric> {
    {
        let (after_digits, digits) = run(take_while(|b: u8| b.is_ascii_digit()), input, eof)?;
        if !digits.is_empty() {
            if after_digits.is_empty() && !eof {
                return Err(Err::Incomplete(Needed::new(1)));
            }
            if after_digits.first() == Some(&b'.') {
                let dots = after_digits.iter().take_while(|&&b| b == b'.').count();
                if dots == after_digits.len() && !eof {
                    return Err(Err::Incomplete(Needed::new(1)));
                }
                let number = std::str::from_utf8(digits)
                    .ok()
                    .and_then(|d| d.parse::<u32>().ok())
                    .ok_or(Err::Failure(LexError {
                        input,
                        expected: "a move number below 4294967296",
                        kind: LexFailure::Expected,
                    }))?;
                return Ok((
                    &after_digits[dots..],
                    Numeric::MoveNumber {
                        number,
                        dots,
                        len: digits.len() + dots,
                    },
                ));
            }
        }
        let (rest, result) = run(
            take_while1(|b: u8| b.is_ascii_digit() || matches!(b, b'/' | b'-' | b'+' | b'*')),
            input,
            eof,
        )?;
        let delimited = rest.first().is_none_or(|&b| is_token_delimiter(b));
        if delimited && crate::GameResult::parse(result).is_some() {
            Ok((rest, Numeric::Result { len: result.len() }))
        } else {
            Err(Err::Failure(LexError {
                input,
                expected: "a move number such as 12. or 12..., or a result: 1-0, 0-1, 1/2-1/2, +/-, -/+, -/-, * or a score such as 112/150",
                kind: LexFailure::Expected,
            }))
        }
    }
}

/// A NAG `$n`; returns its value and length.
pub(crate) fn nag(input: &[u8], eof: bool) -> LexResult<'_, (u8, usize)> {
    {
        let (after, _) = run(tag("$"), input, eof)?;
        let (rest, digits) = run(
            context(
                "a NAG number from 0 to 255 after $",
                take_while1(|b: u8| b.is_ascii_digit()),
            ),
            after,
            eof,
        )?;
        let value = std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse::<u8>().ok())
            .ok_or(Err::Failure(LexError {
                input: after,
                expected: "a NAG number from 0 to 255 after $",
                kind: LexFailure::Expected,
            }))?;
        Ok((rest, (value, input.len() - rest.len())))
    }
}

/// A run of `!` and `?`; the caller checks that it is one of the six glyphs.
pub(crate) fn glyph(window: &[u8], eof: bool) -> LexResult<'_, usize> {
    let (rest, run) = run(take_while1(|b: u8| b == b'!' || b == b'?'), window, eof)?;
    Ok((rest, run.len()))
}

/// A move token: token bytes and quoted strings up to a delimiter.
pub(crate) fn token(window: &[u8], eof: bool) -> LexResult<'_, usize> {
    // The common case: no quotes, and the token ends inside the window.
    if let Some(end) = window
        .iter()
        .position(|&b| is_token_delimiter(b) || b == b'"')
        && window[end] != b'"'
    {
        return Ok((&window[end..], end));
    }
    let mut i = 0;
    let mut in_quotes = false;
    loop {
        let Some(&b) = window.get(i) else {
            if !eof {
                return Err(Err::Incomplete(Needed::new(1)));
            }
            if in_quotes {
                return Err(Err::Failure(LexError {
                    input: &window[i..],
                    expected: "a closing \" for the quoted name",
                    kind: LexFailure::Expected,
                }));
            }
            return Ok((&window[i..], i));
        };
        if in_quotes {
            match b {
                b'"' => in_quotes = false,
                b'\\' => match window.get(i + 1) {
                    None if !eof => return Err(Err::Incomplete(Needed::new(1))),
                    Some(b'"' | b'\\') => i += 1,
                    _ => {
                        return Err(Err::Failure(LexError {
                            input: &window[i..],
                            expected: "\\\" or \\\\",
                            kind: LexFailure::BadEscape,
                        }));
                    }
                },
                b'\n' | b'\r' => {
                    return Err(Err::Failure(LexError {
                        input: &window[i..],
                        expected: "a closing \" for the quoted name before the end of the line",
                        kind: LexFailure::Expected,
                    }));
                }
                _ => {}
            }
        } else if b == b'"' {
            in_quotes = true;
        } else if is_token_delimiter(b) {
            return Ok((&window[i..], i));
        }
        i += 1;
    }
}

/// How a comment's body was found.
pub(crate) struct CommentSpan {
    pub body: Range<usize>,
    pub len: usize,
}

use crate::split::{TAG_LINE_HEAD, tag_line_start};

/// A comment `{...}`; fails if a tag-pair line starts inside it, which
/// means the comment was never closed and the next game has begun.
pub(crate) fn comment(window: &[u8], eof: bool) -> Result<CommentSpan, CommentLexError> {
    debug_assert_eq!(window.first(), Some(&b'{'));
    let mut i = 1;
    loop {
        let Some(found) = memchr::memchr3(b'}', b'\\', b'\n', &window[i..]) else {
            return Err(if eof {
                CommentLexError::Unterminated
            } else {
                CommentLexError::Incomplete
            });
        };
        let at = i + found;
        match window[at] {
            b'}' => {
                return Ok(CommentSpan {
                    body: 1..at,
                    len: at + 1,
                });
            }
            b'\\' => i = at + 2,
            _ => {
                // A line inside a comment that starts like a tag pair ends
                // the comment's game: the `}` is missing.
                // (After a byte-order mark too: a record joined with
                // `cat`, docs/notation.md section 7.)
                let head = &window[at + 1..window.len().min(at + 1 + TAG_LINE_HEAD)];
                match tag_line_start(head) {
                    Some(true) => return Err(CommentLexError::TagLineInside(at + 1)),
                    None if !eof => return Err(CommentLexError::Incomplete),
                    _ => i = at + 1,
                }
            }
        }
        if i > window.len() {
            return Err(if eof {
                CommentLexError::Unterminated
            } else {
                CommentLexError::Incomplete
            });
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommentLexError {
    Incomplete,
    Unterminated,
    TagLineInside(usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The eight-byte scans find the first byte a byte-by-byte scan would
    /// stop at, or one before it that the byte table tells apart.
    #[test]
    fn the_quick_token_scan_stops_at_every_byte_that_is_not_plain() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut word = *b"Wa1-b2xA";
                word[at] = b;
                let x = u64::from_le_bytes(word);
                let first = (token_quick_stops(x).trailing_zeros() / 8) as usize;
                let plain = TOKEN_CLASS[usize::from(b)] == TOKEN_PLAIN;
                if plain {
                    // Stops here or nowhere, never earlier.
                    assert!(first == at || first == 8, "{b:#x} at {at}: {first}");
                } else {
                    assert_eq!(first, at, "{b:#x} at {at}");
                }
            }
        }
    }

    #[test]
    fn the_tag_name_scan_stops_at_every_byte_that_is_not_a_name_byte() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut word = *b"Ab1ecD9y";
                word[at] = b;
                let x = u64::from_le_bytes(word);
                let first = (tag_name_stops(x).trailing_zeros() / 8) as usize;
                if is_tag_name_byte(b) {
                    // Stops here or nowhere, never earlier (`_` and a few
                    // letters stop too).
                    assert!(first == at || first == 8, "{b:#x} at {at}: {first}");
                } else {
                    assert_eq!(first, at, "{b:#x} at {at}");
                }
            }
        }
    }

    #[test]
    fn swar_scans_stop_no_later_than_the_byte_tables() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let interesting: Vec<u8> = (0..=255u8).collect();
        for round in 0..200_000 {
            let mut bytes = [0u8; 8];
            for b in &mut bytes {
                let r = next();
                *b = if round % 2 == 0 {
                    interesting[(r % 256) as usize]
                } else {
                    // Mostly plain token bytes, now and then anything.
                    match r % 16 {
                        0 => (r >> 8) as u8,
                        _ => b"Wg4-f5xK#@/:=*+YyaZ_"[((r >> 8) % 20) as usize],
                    }
                };
            }
            let x = u64::from_le_bytes(bytes);
            let token_first = bytes
                .iter()
                .position(|&b| TOKEN_CLASS[usize::from(b)] != TOKEN_PLAIN);
            match token_stop(x) {
                None => assert_eq!(token_first, None, "{bytes:?}"),
                Some(at) => {
                    assert!(token_first.is_none_or(|f| at <= f), "{bytes:?}");
                    assert!(
                        TOKEN_CLASS[usize::from(bytes[at])] != TOKEN_PLAIN
                            || matches!(bytes[at], b'Y' | b'_' | b'y'),
                        "{bytes:?}"
                    );
                }
            }
            let quoted_first = bytes
                .iter()
                .position(|&b| matches!(b, b'"' | b'\\' | b'\n' | b'\r') || !b.is_ascii());
            match quoted_stop(x) {
                None => assert_eq!(quoted_first, None, "{bytes:?}"),
                Some(at) => {
                    assert!(quoted_first.is_none_or(|f| at <= f), "{bytes:?}");
                    assert!(
                        matches!(bytes[at], b'"' | b'\\' | 0..0x0e) || !bytes[at].is_ascii(),
                        "{bytes:?}"
                    );
                }
            }
        }
    }
}
