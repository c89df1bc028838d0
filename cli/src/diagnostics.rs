//! Readable errors: the offending line with a caret, through miette.
//!
//! The text shown comes from a [`Frame`]: the lines around the fault, taken
//! from bytes the caller already holds (the piece of the archive a worker
//! read, or the whole of a small file), never by reading the file again.
//! A long line is shown as a window around the fault, cut with `…`, so
//! neither the time nor the width of a diagnostic grows with the line or
//! the file. Nothing here is called for a diagnostic that is not printed.

use std::path::Path;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};
use yam_notation::{ErrorKind, ParseError, Pos};
use yam_referee::check::{GameReport, Violation};
use yam_referee::signed::Failure;

/// A line up to this many characters is shown whole; a longer one as a
/// window of this many characters.
const WIDTH: usize = 120;
/// Characters of a long line shown before the fault.
const BEFORE: usize = 50;
/// What marks a line cut short.
const ELLIPSIS: char = '…';

/// The text a diagnostic shows: the line of the fault and the lines either
/// side of it, each cut to a window of [`WIDTH`] characters around the
/// fault's column when the fault's line is longer than that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The lines, each cut to the window, joined by LF.
    text: String,
    /// The 1-based line number of the first line of `text`.
    first_line: u32,
    /// The byte offset of the fault in `text`.
    fault: usize,
    /// The bytes of `text` from the fault to the end of what is shown of
    /// its line (before any `…`).
    room: usize,
    /// The fault's 1-based column in the file.
    column: u32,
    /// How many characters of each line the window leaves out on the left,
    /// less the one `…` that stands for them (0 when nothing is cut).
    shift: usize,
}

impl Frame {
    /// The frame of a fault at byte `at` of `bytes`, which is at `pos` in
    /// the file (`bytes` need not be the whole file: the piece of an
    /// archive that holds the game is enough). Reads only the fault's line
    /// and its neighbours.
    pub fn capture(bytes: &[u8], at: usize, pos: Pos) -> Frame {
        let at = at.min(bytes.len());
        let start = line_start(bytes, at);
        let end = line_end(bytes, at);
        let line = decode(&bytes[start..end]);
        let before_fault = String::from_utf8_lossy(&bytes[start..at]).chars().count();
        // The window: from the start, unless the fault's line is too long.
        let from = if line.chars().count() > WIDTH {
            before_fault.saturating_sub(BEFORE)
        } else {
            0
        };
        let mut text = String::new();
        let mut first_line = pos.line;
        if start > 0 && pos.line > 1 {
            let previous_end = start - 1;
            let previous = line_start(bytes, previous_end);
            text.push_str(&window(&decode(&bytes[previous..previous_end]), from).0);
            text.push('\n');
            first_line -= 1;
        }
        let (shown, cut_before) = window(&line, from);
        let fault = text.len()
            + if cut_before { ELLIPSIS.len_utf8() } else { 0 }
            + shown
                .chars()
                .skip(usize::from(cut_before))
                .take(before_fault - from)
                .map(char::len_utf8)
                .sum::<usize>();
        let line_shown_end = text.len() + shown.trim_end_matches(ELLIPSIS).len();
        text.push_str(&shown);
        if end < bytes.len() {
            let next = end + 1;
            if next < bytes.len() {
                text.push('\n');
                text.push_str(&window(&decode(&bytes[next..line_end(bytes, next)]), from).0);
            }
        }
        Frame {
            room: line_shown_end.saturating_sub(fault),
            text,
            first_line,
            fault,
            column: pos.column,
            shift: from.saturating_sub(1),
        }
    }
}

/// Where the line that holds byte `at` starts.
fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// Where the line that holds byte `at` ends (its LF, or the end).
fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i)
}

/// A line's text, without the CR of a CRLF ending; invalid UTF-8 is shown
/// replaced.
fn decode(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // A carriage return inside a line (a file with old Mac line endings) is
    // shown as the symbol for one, a character wide: left as it is, the
    // renderer would take it for a line break and number the lines wrong.
    visible(&String::from_utf8_lossy(line))
}

/// `text` safe to print on a terminal, one character for each: a control
/// character other than a line break or a tab becomes its control picture
/// (ESC `␛`, a CR inside a line `␍`, DEL `␡`), a C1 control or a character
/// that reorders or hides text (bidirectional overrides and isolates,
/// zero-width marks) U+FFFD. A record's comments may hold any of them,
/// and a diagnostic echoes the record: raw, an escape sequence in a
/// comment could clear the screen, retitle the window, or move the cursor
/// and paint over the verdict
/// (`cli_check::a_diagnostic_never_echoes_terminal_control_characters`,
/// found by an attacker helper). One character for one keeps the frame's
/// columns.
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'),
            '\u{7f}' => '\u{2421}',
            '\u{80}'..='\u{9f}' => '\u{FFFD}',
            // One list of what draws as nothing or reorders text, for
            // every place that prints someone else's text.
            c if yam_notation::is_hidden(c) => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// A path as a message may echo it to a terminal: every control
/// character a picture, a line break and a tab too (a file name is not
/// the user's choice when an archive comes by mail: one holding an escape
/// sequence retitled the terminal, one holding a line break forged a
/// second line of the message).
pub fn visible_path(path: &Path) -> String {
    visible(&path.display().to_string())
        .replace('\n', "\u{240a}")
        .replace('\t', "\u{2409}")
}

/// The characters of `line` from `from` on, at most [`WIDTH`] of them,
/// with `…` where the line goes on beyond them; and whether the start was
/// cut.
/// `line` made printable ([`visible`]) and cut to the window a diagnostic
/// shows around its character `at` ([`WIDTH`] characters, `…` where it is
/// cut); and where `at` falls in what is shown, in characters. For an
/// error about one line of input that is no record (an engine's line).
pub fn line_window(line: &str, at: usize) -> (String, usize) {
    let line = visible(line);
    let count = line.chars().count();
    let at = at.min(count);
    let from = if count > WIDTH {
        at.saturating_sub(BEFORE)
    } else {
        0
    };
    let (shown, cut_before) = window(&line, from);
    (shown, at - from + usize::from(cut_before))
}

fn window(line: &str, from: usize) -> (String, bool) {
    let count = line.chars().count();
    if from == 0 && count <= WIDTH {
        return (line.to_owned(), false);
    }
    let mut out = String::new();
    // An empty line stays empty: nothing of it was cut.
    let cut_before = from > 0 && count > 0;
    if cut_before {
        out.push(ELLIPSIS);
    }
    out.extend(line.chars().skip(from).take(WIDTH));
    if count > from + WIDTH {
        out.push(ELLIPSIS);
    }
    (out, cut_before)
}

/// A frame's text, numbered as the file's lines, for miette.
#[derive(Debug)]
struct Framed<'a> {
    name: String,
    frame: &'a Frame,
}

impl SourceCode for Framed<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.frame.text.read_span(span, before, after)?;
        let column = if span.offset() == self.frame.fault && before == 0 {
            self.frame.column.saturating_sub(1) as usize
        } else if inner.column() > 0 {
            inner.column() + self.frame.shift
        } else {
            0
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.frame.first_line as usize - 1,
            column,
            inner.line_count(),
        )))
    }
}

#[derive(Debug)]
struct Located<'a> {
    message: String,
    help: Option<String>,
    source: Framed<'a>,
    span: SourceSpan,
    label: String,
}

impl std::fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Located<'_> {}

impl Diagnostic for Located<'_> {
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some(self.label.clone()),
            self.span,
        ))))
    }
}

/// Render an error at `pos` in `path`: the message, the lines of `frame`
/// with a label under the offending `len` bytes, and an optional help
/// line. Without a frame, the message and the help alone.
pub fn render(
    path: &Path,
    pos: Pos,
    len: usize,
    message: &str,
    label: &str,
    help: Option<String>,
    frame: Option<&Frame>,
) -> String {
    // The message and the help quote the record too (the offending text,
    // a game's id): made visible like the frame.
    let header = visible(&format!(
        "{}:{}:{}: {message}",
        visible_path(path),
        pos.line,
        pos.column
    ));
    let help = help.map(|h| visible(&h));
    let Some(frame) = frame else {
        return match help {
            Some(h) => format!("{header}\n  help: {h}\n"),
            None => format!("{header}\n"),
        };
    };
    let diagnostic = Located {
        message: header,
        help,
        source: Framed {
            name: visible_path(path),
            frame,
        },
        span: SourceSpan::new(frame.fault.into(), len.min(frame.room)),
        label: label.to_owned(),
    };
    let mut out = String::new();
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    if handler.render_report(&mut out, &diagnostic).is_err() {
        out = format!("{}\n", diagnostic.message);
    }
    out
}

/// A syntax error, as a readable diagnostic.
pub fn render_syntax(path: &Path, e: &ParseError, frame: Option<&Frame>) -> String {
    // The offending word; for a variation too deep, its one `(`.
    let len = match e.kind {
        ErrorKind::TooDeep(_) | ErrorKind::LoneCarriageReturn => 1,
        _ => e.found.split_whitespace().next().map_or(1, str::len).max(1),
    };
    let label = if e.kind == ErrorKind::LoneCarriageReturn {
        "this carriage return".to_owned()
    } else if e.found.is_empty() {
        "the input ends here".to_owned()
    } else {
        "here".to_owned()
    };
    render(
        path,
        e.pos,
        len,
        &format!("game {}: {}", e.game, e.kind),
        &label,
        Some(format!("the game starts at line {}", e.game_start.line)),
        frame,
    )
}

/// A broken rule, as a readable diagnostic.
pub fn render_violation(
    path: &Path,
    game: u64,
    report: &GameReport,
    v: &Violation,
    frame: Option<&Frame>,
) -> String {
    let id = if report.game_id.is_empty() {
        String::new()
    } else {
        format!(" ({})", report.game_id)
    };
    let what = if v.move_number.is_empty() {
        v.token.clone()
    } else {
        format!("{} {}", v.move_number, v.token)
    };
    let help = (!v.position.is_empty()).then(|| format!("position before it: {}", v.position));
    render(
        path,
        v.span.start,
        v.span.len as usize,
        &format!("game {game}{id}: illegal: {what}: {}", v.reason),
        "refused here",
        help,
        frame,
    )
}

/// A failure, as a readable diagnostic.
pub fn render_failure(
    path: &Path,
    game: usize,
    id: &str,
    f: &Failure,
    frame: Option<&Frame>,
) -> String {
    let id = if id.is_empty() {
        String::new()
    } else {
        format!(" ({id})")
    };
    render(
        path,
        f.span.start,
        (f.span.len as usize).max(1),
        &format!("game {game}{id}: not verified: {}", f.reason),
        "refused here",
        f.help.clone(),
        frame,
    )
}

/// How much of a file around a fault [`frame_from_file`] reads, each side:
/// more than a window of any line needs.
const AROUND: u64 = 1 << 20;

/// The frame of `pos` in the file `path`, read from around the fault
/// alone (at most [`AROUND`] bytes each side), for a command that did not
/// keep the text; none if the file cannot be read again.
pub fn frame_from_file(path: &Path, pos: Pos) -> Option<Frame> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let start = pos.offset.saturating_sub(AROUND);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    file.take(2 * AROUND).read_to_end(&mut bytes).ok()?;
    let at = usize::try_from(pos.offset - start).ok()?;
    Some(Frame::capture(&bytes, at, pos))
}

/// The frame of `pos` in `text`, the whole of a file held in memory.
pub fn frame_in(text: &[u8], pos: Pos) -> Frame {
    Frame::capture(text, usize::try_from(pos.offset).unwrap_or(usize::MAX), pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(offset: u64, line: u32, column: u32) -> Pos {
        Pos {
            offset,
            line,
            column,
        }
    }

    #[test]
    fn a_short_line_is_shown_whole_with_its_neighbours() {
        let text = b"one\ntwo three\nfour\n";
        let frame = frame_in(text, pos(8, 2, 5));
        assert_eq!(frame.text, "one\ntwo three\nfour");
        assert_eq!(frame.first_line, 1);
        assert_eq!(&frame.text[frame.fault..frame.fault + frame.room], "three");
        let out = render(
            Path::new("f.yam"),
            pos(8, 2, 5),
            5,
            "bad",
            "here",
            None,
            Some(&frame),
        );
        assert!(out.contains("f.yam:2:5: bad"), "{out}");
        assert!(out.contains("[f.yam:2:5]"), "{out}");
        assert!(out.contains(" 2 │ two three"), "{out}");
        assert!(out.contains(" 3 │ four"), "{out}");
    }

    #[test]
    fn a_carriage_return_inside_a_line_is_shown_not_obeyed() {
        // Old Mac line endings: one line for the reader, and one line in the
        // frame, numbered 1, with the fault under its carriage return.
        let text = b"[Game \"Khan\"]\r[GameId \"x\"]\r\r1. Ng3-f3 *\r";
        let frame = frame_in(text, pos(13, 1, 14));
        assert_eq!(frame.first_line, 1);
        assert!(!frame.text.contains('\r'), "{:?}", frame.text);
        assert_eq!(&frame.text[frame.fault..][..3], "\u{240d}");
        let out = render(
            Path::new("f.yam"),
            pos(13, 1, 14),
            1,
            "bad",
            "this carriage return",
            None,
            Some(&frame),
        );
        assert!(out.contains(" 1 │ [Game \"Khan\"]\u{240d}[GameId"), "{out}");
        assert!(!out.contains(" 0 │"), "{out}");
    }

    #[test]
    fn a_long_line_is_a_window_around_the_fault() {
        let mut text = " ".repeat(65_536).into_bytes();
        text.extend_from_slice(b"x\n\n[Game");
        let at = 65_536;
        let frame = frame_in(&text, pos(at as u64, 1, 65_537));
        assert!(frame.text.starts_with(ELLIPSIS), "{:?}", frame.text);
        // The blank line after it is shown blank, not as cut.
        assert!(frame.text.ends_with("x\n"), "{:?}", frame.text);
        assert!(frame.text.chars().count() <= WIDTH + 2);
        assert_eq!(&frame.text[frame.fault..frame.fault + frame.room], "x");
        let out = render(
            Path::new("f.yam"),
            pos(at as u64, 1, 65_537),
            1,
            "bad",
            "here",
            None,
            Some(&frame),
        );
        assert!(out.contains("[f.yam:1:65537]"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() < 200), "{out}");
    }

    #[test]
    fn a_long_neighbour_is_cut_too() {
        let mut text = "a".repeat(1000);
        text.push_str("\nbad\n");
        text.push_str(&"b".repeat(1000));
        let frame = frame_in(text.as_bytes(), pos(1001, 2, 1));
        let lines: Vec<&str> = frame.text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1], "bad");
        assert!(lines[0].ends_with(ELLIPSIS) && lines[0].chars().count() == WIDTH + 1);
        assert!(lines[2].ends_with(ELLIPSIS));
    }

    #[test]
    fn a_frame_read_from_the_file_is_the_frame_of_the_text() {
        let dir = std::env::temp_dir().join(format!("yam-frame-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("far.yam");
        // The fault three megabytes in, on a line that starts before the
        // part read.
        let mut text = "a\n".repeat(1 << 20).into_bytes();
        text.extend(" ".repeat(3 << 20).bytes());
        let at = text.len();
        text.extend_from_slice(b"x\nnext\n");
        std::fs::write(&path, &text).unwrap();
        let fault = pos(at as u64, (1 << 20) + 1, (3 << 20) + 1);
        let read = frame_from_file(&path, fault).unwrap();
        let whole = frame_in(&text, fault);
        assert_eq!(read.text, whole.text.split_once('\n').unwrap().1);
        assert_eq!(&read.text[read.fault..read.fault + read.room], "x");
        // The next line lies left of the window: shown as cut.
        assert!(read.text.ends_with("x\n…"), "{:?}", read.text);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_end_of_the_input_and_bad_bytes_are_framed() {
        let text = b"[Game \"Khan\"]\n1. \xff";
        let frame = frame_in(text, pos(text.len() as u64, 2, 5));
        assert_eq!(frame.room, 0);
        assert!(frame.text.ends_with("1. \u{fffd}"), "{:?}", frame.text);
        let out = render(
            Path::new("f.yam"),
            pos(text.len() as u64, 2, 5),
            1,
            "ends",
            "the input ends here",
            None,
            Some(&frame),
        );
        assert!(out.contains("f.yam:2:5: ends"), "{out}");
    }
}
