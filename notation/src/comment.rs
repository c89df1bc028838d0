//! Comments `{...}`: prose for people, embedded commands `[%name args]` for
//! machines, kept apart.
//!
//! Inside a comment, `\\`, `\}`, `\{` and `\[` are the escapes; any other
//! backslash is an error. An unescaped `[%` starts a command; an unescaped
//! `[` not followed by `%` is read as prose (the printer escapes it).
//! Whitespace in prose is not significant: runs collapse to one space, so the
//! printer can wrap comments at 80 columns without changing the record.

/// A comment, as a list of prose and embedded commands.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Comment {
    /// The parts in reading order.
    pub parts: Vec<CommentPart>,
}

/// One part of a comment.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CommentPart {
    /// Prose, whitespace-normalised, never empty.
    Text(String),
    /// An embedded command for machines.
    Command(Command),
}

/// An embedded command `[%name arg arg ...]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Command {
    /// The name, lower case.
    pub name: String,
    /// The arguments; an argument with spaces or brackets prints quoted.
    pub args: Vec<String>,
}

impl Command {
    /// A command with the given name and arguments.
    pub fn new(name: &str, args: impl IntoIterator<Item = impl Into<String>>) -> Command {
        Command {
            name: name.to_ascii_lowercase(),
            args: args.into_iter().map(Into::into).collect(),
        }
    }
}

impl Comment {
    /// A comment of prose only.
    pub fn text(text: &str) -> Comment {
        let mut c = Comment::default();
        c.push_text(text);
        c
    }

    /// Append prose, normalising whitespace and merging with prose before it.
    pub fn push_text(&mut self, text: &str) {
        // The notation's whitespace only (section 3: space, tab, vertical
        // tab, form feed, line ends), never every Unicode space: a
        // no-break space (`10\u{a0}km`), French's narrow no-break space
        // and the ideographic space are the text's own, and `yam fmt`
        // changes nothing but the layout.
        let mut words = text
            .split(is_notation_space)
            .filter(|w| !w.is_empty())
            .peekable();
        if words.peek().is_none() {
            return;
        }
        let joined = words.collect::<Vec<_>>().join(" ");
        if let Some(CommentPart::Text(prev)) = self.parts.last_mut() {
            prev.push(' ');
            prev.push_str(&joined);
        } else {
            self.parts.push(CommentPart::Text(joined));
        }
    }

    /// Append a command.
    pub fn push_command(&mut self, command: Command) {
        self.parts.push(CommentPart::Command(command));
    }

    /// The commands of this comment.
    pub fn commands(&self) -> impl Iterator<Item = &Command> {
        self.parts.iter().filter_map(|p| match p {
            CommentPart::Command(c) => Some(c),
            CommentPart::Text(_) => None,
        })
    }

    /// The prose of this comment, parts joined by spaces.
    pub fn prose(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                CommentPart::Text(t) => Some(t.as_str()),
                CommentPart::Command(_) => None,
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether the comment has no parts at all.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Parse a comment body (the text between the braces).
    pub fn parse(body: &str) -> Result<Comment, CommentError> {
        let mut comment = Comment::default();
        for part in RawParts::new(body) {
            match part? {
                RawPart::Text(raw) => comment.push_text(&unescape_prose(raw)),
                RawPart::Command { name, args } => comment.push_command(Command {
                    name: name.to_ascii_lowercase(),
                    args: args.iter().map(|a| a.value()).collect(),
                }),
            }
        }
        Ok(comment)
    }

    /// The printable words of this comment, in order, for line filling:
    /// escaped prose words and command pieces. The braces are not included.
    pub fn words(&self) -> Vec<String> {
        let mut words = Vec::new();
        for part in &self.parts {
            match part {
                CommentPart::Text(text) => {
                    for word in text.split(' ') {
                        let mut w = String::with_capacity(word.len());
                        escape_prose(word, &mut w);
                        words.push(w);
                    }
                }
                CommentPart::Command(cmd) => {
                    let mut head = format!("[%{}", cmd.name);
                    if cmd.args.is_empty() {
                        head.push(']');
                        words.push(head);
                        continue;
                    }
                    words.push(head);
                    let last = cmd.args.len() - 1;
                    for (i, arg) in cmd.args.iter().enumerate() {
                        let mut w = String::with_capacity(arg.len() + 2);
                        write_arg(arg, &mut w);
                        if i == last {
                            w.push(']');
                        }
                        words.push(w);
                    }
                }
            }
        }
        words
    }
}

/// Why a comment body is malformed; `offset` is a byte offset in the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentError {
    /// Byte offset inside the comment body.
    pub offset: usize,
    /// What was expected there.
    pub expected: &'static str,
}

/// Append prose with `\`, `{`, `}` and `[` escaped.
pub fn escape_prose(text: &str, out: &mut String) {
    for c in text.chars() {
        if matches!(c, '\\' | '{' | '}' | '[') {
            out.push('\\');
        }
        out.push(c);
    }
}

fn unescape_prose(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The notation's whitespace (docs/notation.md, section 3).
fn is_notation_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// A bare argument holds no whitespace of the notation's (section 6): a
/// no-break space is the argument's own, as it is a prose word's
/// (`[%note 10\u{a0}km]` was refused as two arguments without a space).
fn is_bare_arg_char(c: char) -> bool {
    !is_notation_space(c) && !matches!(c, '[' | ']' | '{' | '}' | '"' | '\\')
}

/// [`is_bare_arg_char`] for each ASCII byte; `false` for the bytes of
/// longer characters, which are looked at whole.
const BARE_ASCII: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        // ASCII whitespace is exactly these six (`char::is_whitespace`).
        table[b] = !matches!(
            b as u8,
            b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' | b'[' | b']' | b'{' | b'}' | b'"' | b'\\'
        );
        b += 1;
    }
    table
};

/// The length of the run of bare-argument characters `rest` starts with:
/// a run of ASCII by table (a signed event's arguments are hundreds of
/// base64 characters each), longer characters looked at whole.
fn bare_len(rest: &str) -> usize {
    let bytes = rest.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && BARE_ASCII[usize::from(bytes[i])] {
            i += 1;
        }
        // Past the ASCII run: `i` is a character boundary.
        match rest.get(i..).and_then(|r| r.chars().next()) {
            Some(c) if !c.is_ascii() && is_bare_arg_char(c) => i += c.len_utf8(),
            _ => return i,
        }
    }
}

/// Append a command argument, quoted when it is not a bare atom. Inside
/// the quotes `"`, `\\`, `{` and `}` are escaped, so a quoted argument can
/// never end its comment early.
pub fn write_arg(arg: &str, out: &mut String) {
    // Any Unicode space is written inside quotes, though read bare: an
    // earlier Yam ended a bare argument at one.
    if !arg.is_empty() && bare_len(arg) == arg.len() && !arg.chars().any(char::is_whitespace) {
        out.push_str(arg);
        return;
    }
    out.push('"');
    for c in arg.chars() {
        if matches!(c, '"' | '\\' | '{' | '}') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// One argument of a raw command: bare, or quoted with escapes still in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawArg<'a> {
    /// A bare atom.
    Bare(&'a str),
    /// A quoted argument, the text between the quotes, escapes undecoded.
    Quoted(&'a str),
}

impl RawArg<'_> {
    /// The argument's value, escapes decoded.
    pub fn value(&self) -> String {
        match self {
            RawArg::Bare(s) => (*s).to_owned(),
            // A line end inside the quotes is a line end, CRLF or LF: the
            // same record saved either way has the same values, and its
            // canonical form (`yam fmt`) LF line ends only.
            RawArg::Quoted(s) if s.contains('\r') => unescape_prose(s).replace("\r\n", "\n"),
            RawArg::Quoted(s) => unescape_prose(s),
        }
    }
}

/// One part of a raw comment body, borrowed from the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawPart<'a> {
    /// Prose, escapes undecoded, whitespace as written.
    Text(&'a str),
    /// A command; `name` as written.
    Command {
        /// The command's name as written.
        name: &'a str,
        /// Its arguments.
        args: Vec<RawArg<'a>>,
    },
}

/// An iterator over the parts of a comment body, borrowing from it.
#[derive(Debug, Clone)]
pub struct RawParts<'a> {
    body: &'a str,
    at: usize,
    failed: bool,
}

impl<'a> RawParts<'a> {
    /// Iterate over the parts of `body`.
    pub fn new(body: &'a str) -> RawParts<'a> {
        RawParts {
            body,
            at: 0,
            failed: false,
        }
    }
}

impl<'a> Iterator for RawParts<'a> {
    type Item = Result<RawPart<'a>, CommentError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.at >= self.body.len() {
            return None;
        }
        let rest = &self.body[self.at..];
        let result = if rest.starts_with("[%") {
            command(rest)
        } else {
            prose(rest).map(|len| (len, RawPart::Text(&rest[..len])))
        };
        match result {
            Ok((len, part)) => {
                self.at += len;
                Some(Ok(part))
            }
            Err((offset, expected)) => {
                self.failed = true;
                Some(Err(CommentError {
                    offset: self.at + offset,
                    expected,
                }))
            }
        }
    }
}

/// Check a comment body as [`RawParts`] would, without building its parts
/// (no allocation): the first error `RawParts` yields, or none.
pub(crate) fn check_body(body: &str) -> Result<(), CommentError> {
    let mut at = 0;
    while at < body.len() {
        let rest = &body[at..];
        let result = if rest.starts_with("[%") {
            check_command(rest)
        } else {
            prose(rest)
        };
        match result {
            Ok(len) => at += len,
            Err((offset, expected)) => {
                return Err(CommentError {
                    offset: at + offset,
                    expected,
                });
            }
        }
    }
    Ok(())
}

/// The length of the command at the start of `rest`, as [`command`] reads
/// it, without collecting its arguments.
fn check_command(rest: &str) -> PartResult<usize> {
    scan_command(rest, None).map(|(len, _)| len)
}

/// Reads the command at the start of `rest` (which starts with `[%`): its
/// length and name, its arguments into `args` when given. One byte walk
/// for both [`check_body`] and [`RawParts`], so they cannot disagree; a
/// signed record's comments are mostly long base64 arguments, which a walk
/// by bytes reads several times faster than a parser by characters.
fn scan_command<'a>(
    rest: &'a str,
    mut args: Option<&mut Vec<RawArg<'a>>>,
) -> PartResult<(usize, &'a str)> {
    let bytes = rest.as_bytes();
    // The name: a letter, then letters, digits, `_` or `-`.
    let mut i = 2;
    if !bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
        return Err((2, "a command name after [% (a letter first)"));
    }
    while bytes
        .get(i)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        i += 1;
    }
    // ASCII only so far, so `i` is a character boundary.
    let name = rest.get(2..i).unwrap_or_default();
    loop {
        let ws_start = i;
        // The notation's whitespace (section 3), vertical tab and form
        // feed included, as in prose.
        while matches!(
            bytes.get(i),
            Some(b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
        ) {
            i += 1;
        }
        match bytes.get(i) {
            Some(b']') => return Ok((i + 1, name)),
            None => return Err((i, "] to close the command")),
            Some(_) if i == ws_start => {
                return Err((i, "a space between command arguments, or ]"));
            }
            Some(b'"') => {
                let (len, raw) = quoted_raw(&rest[i..]).map_err(|(o, e)| (i + o, e))?;
                if let Some(args) = args.as_deref_mut() {
                    args.push(RawArg::Quoted(raw));
                }
                i += len;
            }
            Some(_) => {
                let start = i;
                i += bare_len(&rest[i..]);
                if i == start {
                    return Err((start, "a command argument (bare or \"quoted\") or ]"));
                }
                if let Some(args) = args.as_deref_mut() {
                    // `start` and `i` are character boundaries (see above).
                    args.push(RawArg::Bare(rest.get(start..i).unwrap_or_default()));
                }
            }
        }
    }
}

type PartResult<T> = Result<T, (usize, &'static str)>;

/// The length of the prose run at the start of `rest` (up to the next `[%`).
fn prose(rest: &str) -> PartResult<usize> {
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => match bytes.get(i + 1) {
                Some(b'\\' | b'{' | b'}' | b'[') => i += 2,
                _ => return Err((i, "an escape: \\\\, \\{, \\} or \\[")),
            },
            b'[' if bytes.get(i + 1) == Some(&b'%') && i > 0 => return Ok(i),
            _ => i += 1,
        }
    }
    Ok(i)
}

fn quoted_raw(input: &str) -> PartResult<(usize, &str)> {
    let bytes = input.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Ok((i + 1, &input[1..i])),
            b'\\' => match bytes.get(i + 1) {
                Some(b'\\' | b'"' | b'{' | b'}') => i += 2,
                _ => return Err((i, "an escape in a quoted argument: \\\\, \\\", \\{ or \\}")),
            },
            _ => i += 1,
        }
    }
    Err((input.len(), "a closing \" for the quoted argument"))
}

/// A command at the start of `rest` (which starts with `[%`).
fn command(rest: &str) -> PartResult<(usize, RawPart<'_>)> {
    let mut args = Vec::new();
    let (len, name) = scan_command(rest, Some(&mut args))?;
    Ok((len, RawPart::Command { name, args }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_table_is_the_character_test() {
        for b in 0u8..128 {
            assert_eq!(
                BARE_ASCII[usize::from(b)],
                is_bare_arg_char(char::from(b)),
                "{b:#04x}"
            );
        }
        assert_eq!(bare_len("abc=+/ d"), 6);
        // Only the notation's whitespace ends a bare argument: a no-break
        // space, or NEL, is the argument's own.
        assert_eq!(bare_len("é\u{a0}x"), 5);
        assert_eq!(bare_len("\u{85}x"), 3);
        assert_eq!(bare_len("a\x0cb"), 1);
    }
    use nom::{
        IResult, Parser,
        bytes::complete::{take_while, take_while1},
        character::complete::multispace0,
        combinator::recognize,
    };

    /// The parts of `body` as the parser by characters that `scan_command`
    /// replaced read them: the reference the byte walk must match.
    fn reference_parts(body: &str) -> Vec<Result<RawPart<'_>, CommentError>> {
        fn command_name(input: &str) -> IResult<&str, &str> {
            recognize((
                take_while1(|c: char| c.is_ascii_alphabetic()),
                take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            ))
            .parse(input)
        }
        fn command(rest: &str) -> PartResult<(usize, RawPart<'_>)> {
            let after_open = &rest[2..];
            let (mut input, name) = command_name(after_open)
                .map_err(|_| (2, "a command name after [% (a letter first)"))?;
            let mut args = Vec::new();
            loop {
                let (after_ws, ws) =
                    multispace0::<&str, nom::error::Error<&str>>(input).unwrap_or((input, ""));
                if let Some(after) = after_ws.strip_prefix(']') {
                    return Ok((rest.len() - after.len(), RawPart::Command { name, args }));
                }
                let offset = rest.len() - after_ws.len();
                if after_ws.is_empty() {
                    return Err((offset, "] to close the command"));
                }
                if ws.is_empty() {
                    return Err((offset, "a space between command arguments, or ]"));
                }
                if after_ws.starts_with('"') {
                    let (len, raw) = quoted_raw(after_ws).map_err(|(o, e)| (offset + o, e))?;
                    args.push(RawArg::Quoted(raw));
                    input = &after_ws[len..];
                } else {
                    let parsed: IResult<&str, &str> = take_while1(is_bare_arg_char).parse(after_ws);
                    match parsed {
                        Ok((after, atom)) => {
                            args.push(RawArg::Bare(atom));
                            input = after;
                        }
                        Err(_) => {
                            return Err((offset, "a command argument (bare or \"quoted\") or ]"));
                        }
                    }
                }
            }
        }
        let mut parts = Vec::new();
        let mut at = 0;
        while at < body.len() {
            let rest = &body[at..];
            let result = if rest.starts_with("[%") {
                command(rest)
            } else {
                prose(rest).map(|len| (len, RawPart::Text(&rest[..len])))
            };
            match result {
                Ok((len, part)) => {
                    at += len;
                    parts.push(Ok(part));
                }
                Err((offset, expected)) => {
                    parts.push(Err(CommentError {
                        offset: at + offset,
                        expected,
                    }));
                    break;
                }
            }
        }
        parts
    }

    #[test]
    fn prose_and_commands_are_kept_apart() {
        let c = Comment::parse(" A  fine\nmove [%ROLL d6 4 \"a b\"] indeed ").unwrap();
        assert_eq!(
            c.parts,
            vec![
                CommentPart::Text("A fine move".into()),
                CommentPart::Command(Command::new("roll", ["d6", "4", "a b"])),
                CommentPart::Text("indeed".into()),
            ]
        );
    }

    #[test]
    fn escapes_are_decoded_and_literal_brackets_kept() {
        let c = Comment::parse(r"a \} b \\ c \[%x] [d]").unwrap();
        assert_eq!(c.prose(), r"a } b \ c [%x] [d]");
        assert_eq!(c.commands().count(), 0);
    }

    #[test]
    fn malformed_comments_say_where() {
        assert_eq!(
            Comment::parse(r"ok \q").unwrap_err(),
            CommentError {
                offset: 3,
                expected: "an escape: \\\\, \\{, \\} or \\["
            }
        );
        assert_eq!(Comment::parse("x [%9]").unwrap_err().offset, 4);
        assert_eq!(
            Comment::parse("x [%clk 1:00").unwrap_err().expected,
            "] to close the command"
        );
        assert_eq!(
            Comment::parse("[%a \"b").unwrap_err().expected,
            "a closing \" for the quoted argument"
        );
    }

    /// `check_body` agrees with `RawParts` on every body: same first error,
    /// or none.
    #[test]
    fn checking_a_body_finds_what_the_parts_find() {
        let pieces = [
            "a",
            " ",
            "\n",
            "\t",
            "\r",
            "[",
            "]",
            "%",
            "[%",
            "\"",
            "\\",
            "{",
            "}",
            "é",
            "\u{a0}",
            "\u{3000}",
            "x1",
            "_",
            "-",
            "9",
            "[%clk 1:00]",
            "[%a \"b c\"]",
            "\\\\",
            "\\}",
            "\\[",
            "\\\"",
            "\\q",
        ];
        // Every sequence of up to four pieces, and some longer ones.
        let mut bodies = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for body in &bodies {
                for piece in pieces {
                    next.push(format!("{body}{piece}"));
                }
            }
            bodies.extend(next.into_iter().filter(|b| b.len() < 12));
            bodies.sort();
            bodies.dedup();
        }
        assert!(bodies.len() > 10_000);
        for body in &bodies {
            let expected = match RawParts::new(body).find(Result::is_err) {
                Some(Err(e)) => Err(e),
                _ => Ok(()),
            };
            assert_eq!(check_body(body), expected, "{body:?}");
            let parts: Vec<_> = RawParts::new(body).collect();
            assert_eq!(parts, reference_parts(body), "{body:?}");
        }
    }

    #[test]
    fn the_table_of_bare_bytes_is_the_rule() {
        for b in 0..=255u8 {
            let expected = b.is_ascii() && is_bare_arg_char(char::from(b));
            assert_eq!(BARE_ASCII[usize::from(b)], expected, "{b:#04x}");
        }
    }

    #[test]
    fn words_reparse_to_the_same_comment() {
        let c = Comment::parse(r#"see [d] \} [%sig ed25519 "x y"] [%mark] end"#).unwrap();
        let printed = c.words().join(" ");
        assert_eq!(Comment::parse(&printed).unwrap(), c);
    }
}
