//! An HTML-only mail's text as the robot reads its commands from it
//! (`yam_cli::mail::html::html_lines`), from anyone who writes to it:
//!
//! - it never panics, and its output stays within a few times the input
//!   (a line gets at most `MAX_QUOTE_MARKS` quote marks, however deep the
//!   quotes nest);
//! - no line is empty or has white space at either end (but the signature
//!   separator, `-- `), and no line break of the input survives inside a
//!   line;
//! - text inside a `<blockquote>` is never an unquoted line: with the
//!   input wrapped in one, every line starts with `> `.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_cli::fuzzing::{MAX_QUOTE_MARKS, html_lines};

fuzz_target!(|data: &[u8]| {
    let Ok(html) = std::str::from_utf8(data) else {
        return;
    };
    let out = html_lines(html);
    // A line costs at least a tag and a character of the input, and gets
    // at most `MAX_QUOTE_MARKS` marks and a line break.
    assert!(
        out.len() <= (2 * MAX_QUOTE_MARKS + 2) * html.len() / 4 + html.len() + 64,
        "{} from {}",
        out.len(),
        html.len()
    );
    for line in out.lines() {
        assert!(!line.is_empty());
        // The signature separator keeps its space, quoted or not.
        assert!(
            line.trim_start_matches("> ") == "-- " || line == line.trim(),
            "{line:?}"
        );
    }
    // Quoted as a whole: nothing of it reads as the sender's own line
    // (unless the input closes the quote itself).
    if !html.to_ascii_lowercase().contains("blockquote") && !html.contains('<') {
        let wrapped = html_lines(&format!("<blockquote>{html}</blockquote>"));
        for line in wrapped.lines() {
            assert!(line.starts_with("> "), "{line:?} of {html:?}");
        }
    }
});
