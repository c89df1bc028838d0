//! Readable errors: the offending line with a caret, through miette.

use std::path::Path;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan,
};
use yam_notation::{ParseError, Pos};
use yam_referee::check::{GameReport, Violation};
use yam_referee::signed::Failure;

/// Files up to this size are loaded to show the offending line; larger ones
/// get the plain `file:line:column` message.
const MAX_SOURCE: u64 = 64 << 20;

#[derive(Debug)]
struct Located {
    message: String,
    help: Option<String>,
    source: NamedSource<String>,
    span: SourceSpan,
    label: String,
}

impl std::fmt::Display for Located {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Located {}

impl Diagnostic for Located {
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some(self.label.clone()),
            self.span,
        ))))
    }
}

/// Render an error at `pos` in `path`: the message, the line with a label
/// under the offending text, and an optional help line.
pub fn render(
    path: &Path,
    pos: Pos,
    len: usize,
    message: &str,
    label: &str,
    help: Option<String>,
) -> String {
    let header = format!("{}:{}:{}: {message}", path.display(), pos.line, pos.column);
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_SOURCE);
    let text = if small {
        std::fs::read(path).ok()
    } else {
        None
    };
    let Some(bytes) = text else {
        return match help {
            Some(h) => format!("{header}\n  help: {h}\n"),
            None => format!("{header}\n"),
        };
    };
    // miette wants text; invalid UTF-8 is shown replaced, offsets kept.
    let source = String::from_utf8_lossy(&bytes).into_owned();
    let offset = usize::try_from(pos.offset)
        .unwrap_or(usize::MAX)
        .min(source.len());
    let len = len.min(source.len() - offset);
    let diagnostic = Located {
        message: header,
        help,
        source: NamedSource::new(path.display().to_string(), source),
        span: SourceSpan::new(offset.into(), len),
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
pub fn render_syntax(path: &Path, e: &ParseError) -> String {
    let len = e.found.split_whitespace().next().map_or(1, str::len).max(1);
    let label = if e.found.is_empty() {
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
    )
}

/// A broken rule, as a readable diagnostic.
pub fn render_violation(path: &Path, game: u64, report: &GameReport, v: &Violation) -> String {
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
    )
}

/// A failure, as a readable diagnostic.
pub fn render_failure(path: &Path, game: usize, id: &str, f: &Failure) -> String {
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
    )
}
