//! The text a reader sees in an HTML-only mail, line by line, with what it
//! quotes marked as quoted: the robot reads commands from mails whose
//! program writes HTML alone (webmail composers, phones).
//!
//! Why not the mail parser's own conversion: it breaks lines only at
//! `<br>` and `</p>`, so a composer's `<div>` lines ran into one (a move
//! and its token line read as one line, and the token was "not there"),
//! and it drops `<blockquote>` without marking what it held, so the robot's
//! own answer quoted back in a reply read as the player's commands (a
//! suggested Castle Siege setup sealed for a player who only asked for the
//! board: `robot_local::a_robot_mail_quoted_in_an_html_reply_is_not_obeyed`,
//! `robot_local::an_html_only_mail_written_in_divs_is_read_line_by_line`,
//! found by an attacker helper in the thirty-sixth step of issue #22).
//!
//! The rules, kept small on purpose (a reader of commands, not a browser):
//! a block element (`p`, `div`, `br`, `li`, `tr`, `h1`..`h6`, `hr`, `pre`,
//! `table`, `ul`, `ol`, `blockquote`) starts a line, and so does a line
//! break inside a `<pre>`; a line that is the signature separator keeps
//! its space (`-- `); every line inside a
//! `blockquote` (or a Gmail quote, `class="gmail_quote"`) is prefixed `> `
//! once per level; `head`, `script`, `style` and `title` are dropped; tags
//! and comments go; runs of white space are one space; the common entities
//! and numeric ones are decoded. Output is bounded by the input's size.

/// The most `> ` marks a line gets, however deep its quote: the output
/// stays within a few times the input's size.
pub const MAX_QUOTE_MARKS: usize = 8;

/// The lines an HTML mail body shows, quoted ones prefixed `> `, joined by
/// LF.
pub fn html_lines(html: &str) -> String {
    let mut out = Lines::default();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.text(&rest[..lt]);
        rest = &rest[lt..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
            continue;
        }
        let Some(gt) = rest.find('>') else {
            // A `<` that opens no tag is text.
            out.text(rest);
            rest = "";
            break;
        };
        out.tag(&rest[1..gt]);
        rest = &rest[gt + 1..];
    }
    out.text(rest);
    out.finish()
}

/// The lines being built.
#[derive(Default)]
struct Lines {
    done: Vec<String>,
    line: String,
    /// How deep the quotes are where the text now is.
    quote: usize,
    /// The quote depth of each open `div` (a Gmail quote closes with its
    /// `div`).
    divs: Vec<bool>,
    /// Inside an element whose text is not shown (`head`, `script`, ...).
    hidden: usize,
    /// Inside a `<pre>`, whose line breaks are lines.
    pre: usize,
}

impl Lines {
    fn text(&mut self, raw: &str) {
        if self.hidden > 0 || raw.is_empty() {
            return;
        }
        for c in decode_entities(raw).chars() {
            if c == '\n' && self.pre > 0 {
                self.break_line();
            } else if c.is_whitespace() && c != '\u{a0}' {
                if !self.line.is_empty() && !self.line.ends_with(' ') {
                    self.line.push(' ');
                }
            } else if c == '\u{a0}' {
                self.line.push(' ');
            } else {
                self.line.push(c);
            }
        }
    }

    fn tag(&mut self, inside: &str) {
        let inside = inside.trim();
        let closing = inside.starts_with('/');
        let inside = inside.trim_start_matches('/');
        let name: String = inside
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let attributes = inside[name.len().min(inside.len())..].to_ascii_lowercase();
        match name.as_str() {
            "head" | "script" | "style" | "title" => {
                if closing {
                    self.hidden = self.hidden.saturating_sub(1);
                } else if !inside.ends_with('/') {
                    self.hidden += 1;
                }
            }
            "blockquote" => {
                self.break_line();
                if closing {
                    self.quote = self.quote.saturating_sub(1);
                } else {
                    self.quote += 1;
                }
            }
            "div" => {
                self.break_line();
                if closing {
                    if self.divs.pop() == Some(true) {
                        self.quote = self.quote.saturating_sub(1);
                    }
                } else {
                    let quotes = attributes.contains("gmail_quote");
                    if quotes {
                        self.quote += 1;
                    }
                    self.divs.push(quotes);
                }
            }
            "pre" => {
                self.break_line();
                if closing {
                    self.pre = self.pre.saturating_sub(1);
                } else {
                    self.pre += 1;
                }
            }
            "br" | "p" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "hr" | "table"
            | "ul" | "ol" | "dd" | "dt" => self.break_line(),
            "td" | "th" if !closing && !self.line.is_empty() => self.line.push(' '),
            _ => {}
        }
    }

    fn break_line(&mut self) {
        let line = self.line.trim();
        // The signature separator keeps its space (`-- `), which the
        // command reader stops at, as in a plain mail: Gmail writes it in
        // a span of its own, and trimmed to `--` the signature's lines were
        // read as commands.
        let line = if line == "--" { "-- " } else { line };
        if !line.is_empty() {
            // A quote's depth is shown up to a few levels: what a reader of
            // commands needs is whether a line is quoted, and a thousand
            // nested quotes must not make each line a thousand marks long.
            let mut quoted = "> ".repeat(self.quote.min(MAX_QUOTE_MARKS));
            quoted.push_str(line);
            self.done.push(quoted);
        }
        self.line.clear();
    }

    fn finish(mut self) -> String {
        self.break_line();
        self.done.join("\n")
    }
}

/// `text` with its character references decoded: the named ones a mail
/// program writes, and numeric ones; anything else as it is.
fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        // Bytes, not a slice of the text: twelve bytes may end inside a
        // character (found by the fuzz target).
        let Some(semi) = rest.as_bytes()[..rest.len().min(12)]
            .iter()
            .position(|&b| b == b';')
        else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..semi];
        let decoded = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{a0}'),
            _ => name
                .strip_prefix("#x")
                .or_else(|| name.strip_prefix("#X"))
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                // A control character written as a reference (`&#27;`)
                // is no text of a reader's: kept as U+FFFD, not raw in the
                // lines the robot quotes back.
                out.push(if c.is_control() && c != '\n' && c != '\t' {
                    '\u{FFFD}'
                } else {
                    c
                });
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_start_lines_and_quotes_are_marked() {
        let html = "<html><head><style>p{}</style></head><body>\
            <div dir=\"ltr\"><div>move Ng3-f3 #0</div><div>token: T&amp;1</div></div>\
            <p>On Monday the robot wrote:</p>\
            <blockquote type=\"cite\">move khan-1 Defender:CKAO<br>show<blockquote>deeper</blockquote></blockquote>\
            <div class=\"gmail_quote\">quoted too</div>after</body></html>";
        assert_eq!(
            html_lines(html),
            "move Ng3-f3 #0\ntoken: T&1\nOn Monday the robot wrote:\n> move khan-1 Defender:CKAO\n> show\n> > deeper\n> quoted too\nafter"
        );
    }

    #[test]
    fn text_is_one_spaced_and_entities_decoded() {
        assert_eq!(
            html_lines("a  b\r\n c&nbsp;d &#65;&#x42; &bogus; & <!-- x --> e < f"),
            "a b c d AB &bogus; & e < f"
        );
        assert_eq!(html_lines("<p>unclosed <b"), "unclosed <b");
        assert_eq!(html_lines("<pre>a\n  b\n</pre>c"), "a\nb\nc");
        assert_eq!(html_lines("x<br><span>-- </span><br>sig"), "x\n-- \nsig");
        assert_eq!(html_lines("a&#27;b"), "a\u{FFFD}b");
        // A reference cut inside a character (the fuzz target's crash).
        assert_eq!(html_lines("&aaaaaaaaaaé;"), "&aaaaaaaaaaé;");
        assert_eq!(html_lines(""), "");
    }
}
