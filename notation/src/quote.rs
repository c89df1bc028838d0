//! Quoted names inside move tokens and embedded-command arguments.
//!
//! Genghis Khan's card names contain spaces, commas, digits and ampersands
//! ("Meat, Milk & Blood", "70,000 Horse Archers"). Inside a token such a name
//! stands between double quotes; `\"` and `\\` are the only escapes. A name
//! made only of "bare" characters may stand unquoted; the canonical printer
//! quotes exactly when [`needs_quotes`] says so.

use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{escaped_transform, is_not, tag},
    combinator::{map, value},
    sequence::delimited,
};

/// Characters that may stand in an unquoted name.
pub fn is_bare_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

/// Whether `name` must be quoted to be read back as one name.
pub fn needs_quotes(name: &str) -> bool {
    name.is_empty()
        || !name.chars().all(is_bare_char)
        || name.starts_with(|c: char| c.is_ascii_digit())
}

/// Append `name`, quoted and escaped when it needs to be.
pub fn write_name(name: &str, out: &mut String) {
    if needs_quotes(name) {
        write_quoted(name, out);
    } else {
        out.push_str(name);
    }
}

/// Append `s` between double quotes, escaping `"` and `\`.
pub fn write_quoted(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// Parse a quoted string (`"..."` with `\"` and `\\` escapes).
pub fn quoted(input: &str) -> IResult<&str, String> {
    delimited(
        tag("\""),
        alt((
            escaped_transform(
                is_not("\"\\"),
                '\\',
                alt((value("\\", tag("\\")), value("\"", tag("\"")))),
            ),
            map(tag(""), |_| String::new()),
        )),
        tag("\""),
    )
    .parse(input)
}

/// Parse a name: quoted, or a run of bare characters.
pub fn name(input: &str) -> IResult<&str, String> {
    alt((
        quoted,
        map(
            nom::bytes::complete::take_while1(is_bare_char),
            str::to_owned,
        ),
    ))
    .parse(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips() {
        for s in [
            "Meat, Milk & Blood",
            "70,000 Horse Archers",
            "Temujin",
            "a\"b\\c",
            "",
        ] {
            let mut out = String::new();
            write_name(s, &mut out);
            let (rest, back) = name(&out).unwrap();
            assert_eq!(rest, "");
            assert_eq!(back, s);
        }
    }

    #[test]
    fn bare_names_stay_bare() {
        let mut out = String::new();
        write_name("Temujin", &mut out);
        assert_eq!(out, "Temujin");
        assert!(needs_quotes("70,000 Horse Archers"));
    }

    #[test]
    fn bad_escape_is_refused() {
        assert!(quoted("\"a\\nb\"").is_err());
        assert!(quoted("\"unterminated").is_err());
    }
}
