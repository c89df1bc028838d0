//! RFC 3676 `format=flowed`: plain text whose long lines a mail program
//! broke where it liked, marking each soft break with a trailing space.
//!
//! Thunderbird sends plain text so and wraps at 72 columns: a Castle
//! Siege turn of 160 characters copied from the robot's answer arrived as
//! three lines, the first played as a turn of its own and the others
//! (whose first word is no command) passed over without a word
//! (`a_whole_turn_wrapped_by_a_flowed_mail_is_not_played_in_part`). The
//! text is joined again before a command is read, as a reader that knows
//! the format shows it.

use mail_parser::ContentType;

/// How a text part's `Content-Type` says it is flowed: `None` when it is
/// not (`format=fixed`, or no `format`), else whether `DelSp=yes` (the
/// space before each soft break is the mail program's, not the text's).
pub fn flowed(content_type: &ContentType<'_>) -> Option<bool> {
    let attribute = |name: &str| {
        content_type
            .attributes
            .iter()
            .flatten()
            .find(|a| a.name.eq_ignore_ascii_case(name))
            .map(|a| a.value.trim().to_ascii_lowercase())
    };
    let plain = content_type.c_type.eq_ignore_ascii_case("text")
        && content_type
            .c_subtype
            .as_deref()
            .is_none_or(|s| s.eq_ignore_ascii_case("plain"));
    (plain && attribute("format").as_deref() == Some("flowed"))
        .then(|| attribute("delsp").as_deref() == Some("yes"))
}

/// `text` with its soft breaks joined (RFC 3676, section 4): a line
/// ending in a space runs on into the next of the same quote depth; the
/// space a sender stuffed before a line (one beginning with a space,
/// `From ` or `>`) is taken away; the signature separator `-- ` is never
/// a soft break. With `delsp`, the space of each soft break goes too.
/// Quoted lines keep their `>` marks, written `> ` before their text.
pub fn unflow(text: &str, delsp: bool) -> String {
    let mut out = String::with_capacity(text.len());
    // The paragraph being joined: its quote depth, and whether its last
    // line ended in a soft break.
    let mut open: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let depth = line.bytes().take_while(|&b| b == b'>').count();
        let mut content = &line[depth..];
        if let Some(rest) = content.strip_prefix(' ') {
            content = rest;
        }
        let signature = content == "-- ";
        let soft = !signature && content.ends_with(' ');
        if open.is_some_and(|d| d != depth || signature) {
            // A soft break before another depth or the signature ends
            // its paragraph (RFC 3676, 4.5: a sender's error, read as a
            // hard break).
            out.push('\n');
            open = None;
        }
        if open.is_none() && depth > 0 {
            out.push_str(&">".repeat(depth));
            out.push(' ');
        }
        if soft && delsp {
            content = &content[..content.len() - 1];
        }
        out.push_str(content);
        if soft {
            open = Some(depth);
        } else {
            out.push('\n');
            open = None;
        }
    }
    if open.is_some() {
        out.push('\n');
    }
    // A last line without its line break is given back without one.
    if !text.ends_with('\n') && out.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_breaks_are_joined_and_hard_ones_kept() {
        let sent = "move g Move Ac4-d4 \r\nAd5-c6 Attack \r\nEnd #4\r\n\r\ntoken: t\r\n";
        assert_eq!(
            unflow(sent, false),
            "move g Move Ac4-d4 Ad5-c6 Attack End #4\n\ntoken: t\n"
        );
        // DelSp=yes: the break's space is the mail program's.
        assert_eq!(unflow("Ac4-\r\nd4\r\n", false), "Ac4-\nd4\n");
        assert_eq!(unflow("move Ac4 \r\nd4\r\n", true), "move Ac4d4\n");
    }

    #[test]
    fn stuffing_quotes_and_the_signature_are_read_as_the_rfc_says() {
        // A stuffed space goes; a quoted paragraph joins within its depth
        // and never into the sender's own text.
        assert_eq!(unflow(" From here\n", false), "From here\n");
        assert_eq!(
            unflow("> move g \r\n> Ab5-c5\r\nshow g\r\n", false),
            "> move g Ab5-c5\nshow g\n"
        );
        assert_eq!(unflow("> quoted \r\nmine\r\n", false), "> quoted \nmine\n");
        // `-- ` ends a paragraph and stays the separator.
        assert_eq!(
            unflow("move g \r\n-- \r\nAnn\r\n", false),
            "move g \n-- \nAnn\n"
        );
        assert_eq!(unflow("no newline", false), "no newline");
    }

    #[test]
    fn only_a_flowed_plain_text_part_is_unflowed() {
        let parse = |ct: &str| {
            let raw = format!("Content-Type: {ct}\r\n\r\nx\r\n");
            let message = mail_parser::MessageParser::default()
                .parse(raw.as_bytes())
                .unwrap();
            use mail_parser::MimeHeaders;
            message.content_type().map(flowed)
        };
        assert_eq!(parse("text/plain; format=flowed"), Some(Some(false)));
        assert_eq!(
            parse("text/plain; charset=utf-8; Format=Flowed; DelSp=Yes"),
            Some(Some(true))
        );
        assert_eq!(parse("text/plain; format=fixed"), Some(None));
        assert_eq!(parse("text/html; format=flowed"), Some(None));
    }
}
