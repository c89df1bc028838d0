//! The canonical printer.
//!
//! Canonical form: tags in canonical order, one per line; a blank line; the
//! movetext filled to lines of at most 80 characters (a single unit longer
//! than that, such as a signature, stands on a line of its own); the result;
//! LF line ends; one blank line between games. The printer is deterministic,
//! so printing is byte-stable, and everything it prints reads back as the
//! same record.

use crate::comment::Comment;
use crate::grammar::MoveGrammar;
use crate::record::{Node, Record};
use crate::tags::escape_tag_value;
use crate::visitor::Dots;

/// The widest line the printer makes, unless one unit is wider.
pub const MAX_LINE: usize = 80;

/// Print one record canonically.
pub fn write_record<G: MoveGrammar>(record: &Record<G::Move>, out: &mut String) {
    for (name, value) in record.tags.iter() {
        out.push('[');
        out.push_str(name);
        out.push_str(" \"");
        escape_tag_value(value, out);
        out.push_str("\"]\n");
    }
    out.push('\n');
    let mut units = Units::default();
    push_nodes::<G>(&record.movetext, &mut units);
    units.push(record.result.to_string());
    units.fill(out, 0);
}

/// The movetext `nodes` as units.
fn push_nodes<G: MoveGrammar>(nodes: &[Node<G::Move>], units: &mut Units) {
    let mut nodes = nodes.iter().peekable();
    while let Some(node) = nodes.next() {
        match node {
            Node::MoveNumber(n, dots) => {
                let mut unit = n.to_string();
                unit.push_str(match dots {
                    Dots::One => ".",
                    Dots::Three => "...",
                });
                units.prefix(&unit, true);
            }
            Node::Move(mv, _) => {
                let mut unit = String::new();
                G::write_move(mv, &mut unit);
                // A glyph NAG right after a move prints as its suffix. Only
                // one: `!` `!` written together would read back as `!!`.
                if let Some(Node::Nag(nag)) = nodes.peek()
                    && let Some(glyph) = nag.glyph()
                {
                    unit.push_str(glyph);
                    nodes.next();
                }
                units.push(unit);
            }
            Node::Nag(nag) => units.push(nag.to_string()),
            Node::Comment(comment) => push_comment(comment, units),
            Node::StartVariation => units.prefix("(", false),
            Node::EndVariation => units.suffix(")"),
        }
    }
}

/// Continues a canonical record printed up to, and not including, the `}`
/// that closes its last comment, whose last line is `width` characters
/// long: `joined` is what joins that comment (its words follow the ones
/// printed), then the brace, then `nodes` and `result`, filled as
/// [`write_record`] fills them. The caller's text followed by this is what
/// [`write_record`] prints for the whole record, provided the comment's
/// last printed word stands where it would without its brace
/// ([`joins_in_place`]); the fill is greedy, so nothing before it moves.
pub fn continue_after_comment<G: MoveGrammar>(
    joined: &Comment,
    nodes: &[Node<G::Move>],
    result: &crate::result::GameResult,
    mut width: usize,
    out: &mut String,
) {
    let mut words = joined.words();
    match words.last_mut() {
        Some(last) => last.push('}'),
        None => {
            out.push('}');
            width += 1;
        }
    }
    let mut units = Units {
        units: words,
        pending: String::new(),
    };
    push_nodes::<G>(nodes, &mut units);
    units.push(result.to_string());
    units.fill(out, width);
}

/// Whether a comment's last printed word, `last_line` the line it ends
/// (its closing brace left out) after a line `line_before` long, stands
/// where [`write_record`] puts it once more words join the comment: the
/// word is one character shorter without its brace, and a word that went
/// to a new line only because of that character would move up.
pub fn joins_in_place(line_before: usize, last_line: &str) -> bool {
    let width = last_line.chars().count();
    last_line.contains(' ') || line_before == 0 || line_before + 1 + width > MAX_LINE
}

/// Print a record to a new string.
pub fn record_to_string<G: MoveGrammar>(record: &Record<G::Move>) -> String {
    let mut out = String::new();
    write_record::<G>(record, &mut out);
    out
}

/// Print records as an archive: one blank line between games.
pub fn write_archive<'a, G: MoveGrammar + 'a>(
    records: impl IntoIterator<Item = &'a Record<G::Move>>,
    out: &mut String,
) {
    for (i, record) in records.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        write_record::<G>(record, out);
    }
}

fn push_comment(comment: &Comment, units: &mut Units) {
    let words = comment.words();
    if words.is_empty() {
        units.push("{}".to_owned());
        return;
    }
    let last = words.len() - 1;
    for (i, word) in words.into_iter().enumerate() {
        let mut unit = String::with_capacity(word.len() + 2);
        if i == 0 {
            unit.push('{');
        }
        unit.push_str(&word);
        if i == last {
            unit.push('}');
        }
        units.push(unit);
    }
}

/// Unbreakable units of movetext, with pending glue.
#[derive(Default)]
struct Units {
    units: Vec<String>,
    /// Text to put before the next unit, and whether a space separates them.
    pending: String,
}

impl Units {
    fn prefix(&mut self, text: &str, space: bool) {
        self.pending.push_str(text);
        if space {
            self.pending.push(' ');
        }
    }

    fn push(&mut self, unit: String) {
        if self.pending.is_empty() {
            self.units.push(unit);
        } else {
            let mut glued = std::mem::take(&mut self.pending);
            glued.push_str(&unit);
            self.units.push(glued);
        }
    }

    fn suffix(&mut self, text: &str) {
        if !self.pending.is_empty() {
            // `(` directly followed by `)`, or a move number with no move.
            let mut glued = std::mem::take(&mut self.pending);
            let trimmed = glued.trim_end().len();
            glued.truncate(trimmed);
            glued.push_str(text);
            self.units.push(glued);
        } else if let Some(last) = self.units.last_mut() {
            last.push_str(text);
        } else {
            self.units.push(text.to_owned());
        }
    }

    /// Fills the units into lines after a line already `width` long.
    fn fill(mut self, out: &mut String, mut width: usize) {
        if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            self.units.push(pending.trim_end().to_owned());
        }
        for unit in &self.units {
            let len = unit.chars().count();
            if width > 0 && width + 1 + len > MAX_LINE {
                out.push('\n');
                width = 0;
            }
            if width > 0 {
                out.push(' ');
                width += 1;
            }
            out.push_str(unit);
            width += len;
        }
        out.push('\n');
    }
}
