//! Positions as SVG pictures: a Khan board, a Castle Siege board, a
//! Genghis Khan tableau, each with a legend.
//!
//! The pictures are self-contained (no external fonts, images, styles or
//! ids), so they print, embed inline in an HTML page many times over, and
//! open from the file system. They do not rely on colour alone: sides are
//! told apart by fill (white or black), tower squares by hatching, breaches
//! by a drawn mark, so a black-and-white print reads the same.
//!
//! All text that comes from outside the program (a caption made of record
//! tags) goes through [`escape`].

pub mod castle_siege;
pub mod genghis_khan;
pub mod khan;

use std::fmt::Write;

use crate::pictures::positions::Shown;

/// The font every picture uses: generic families only, nothing to fetch.
pub const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";

/// `text` with the five XML special characters escaped, for element
/// content and attribute values alike.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // XML 1.0 forbids the control characters but tab, line feed
            // and carriage return, and the noncharacters U+FFFE and
            // U+FFFF, even escaped: a picture with one opens in no XML
            // reader.
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => out.push('\u{FFFD}'),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            // Bidirectional embeddings, overrides and isolates in someone
            // else's text run on past it: an override left open at the end
            // of a comment drew the result after it, `1-0`, as `0-1`.
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The picture of `shown`, captioned with `caption` (plain text).
pub fn draw(shown: &Shown, caption: &str) -> String {
    match shown {
        Shown::Khan(pos, last) => khan::draw(pos, *last, caption),
        Shown::Siege(state, turn) => {
            castle_siege::draw(Some(state), turn.as_deref(), None, caption)
        }
        Shown::SiegeSetup { sealed, revealed } => {
            let note = format!(
                "The setups are secret until both are revealed (CS-07 to CS-10): \
                 {sealed} sealed, {revealed} revealed."
            );
            castle_siege::draw(None, None, Some(&note), caption)
        }
        Shown::Cards(state) => genghis_khan::draw(state, caption),
    }
}

/// A picture being drawn: the body, and how tall it has grown.
#[derive(Debug)]
pub(crate) struct Canvas {
    body: String,
    width: u32,
    /// The lowest y used so far.
    pub(crate) bottom: u32,
}

impl Canvas {
    pub(crate) fn new(width: u32) -> Canvas {
        Canvas {
            body: String::with_capacity(16 * 1024),
            width,
            bottom: 0,
        }
    }

    /// Raw SVG markup; callers escape any text they put in it.
    pub(crate) fn raw(&mut self, markup: &str) {
        self.body.push_str(markup);
        self.body.push('\n');
    }

    pub(crate) fn rect(&mut self, x: u32, y: u32, w: u32, h: u32, style: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" {style}/>"#
        );
        self.bottom = self.bottom.max(y + h);
    }

    pub(crate) fn line(&mut self, x1: u32, y1: u32, x2: u32, y2: u32, style: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" {style}/>"#
        );
    }

    /// Text at (`x`, `y`) (the baseline), escaped here.
    pub(crate) fn text(&mut self, x: u32, y: u32, size: u32, attrs: &str, text: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{x}" y="{y}" font-size="{size}" {attrs}>{}</text>"#,
            escape(text)
        );
        self.bottom = self.bottom.max(y + size / 3);
    }

    /// `text` wrapped at spaces into lines `width` wide at font `size`,
    /// the first baseline at `y`, `gap` apart; returns how many lines.
    /// Nothing is cut: a word too long for a line of its own is squeezed
    /// into the width (`textLength`), so a name is always whole.
    pub(crate) fn fitted(
        &mut self,
        x: u32,
        y: u32,
        size: u32,
        width: u32,
        gap: u32,
        text: &str,
    ) -> u32 {
        let chars = fit_chars(width, size);
        let lines = wrap(text, chars);
        for (i, line) in lines.iter().enumerate() {
            let attrs = if line.chars().count() > chars {
                format!(r#"textLength="{width}" lengthAdjust="spacingAndGlyphs""#)
            } else {
                String::new()
            };
            self.text(x, y + i as u32 * gap, size, &attrs, line);
        }
        lines.len() as u32
    }

    /// Diagonal hatching over a square, `step` apart; `both` crosses it.
    pub(crate) fn hatch(&mut self, x: u32, y: u32, size: u32, step: u32, both: bool, style: &str) {
        let mut k = step;
        while k < 2 * size {
            let a = k.min(size);
            let b = k - a;
            // From the top edge (or right edge) down to the left edge (or bottom edge).
            self.line(x + a, y + b, x + b, y + a, style);
            if both {
                self.line(x + size - a, y + b, x + size - b, y + a, style);
            }
            k += step;
        }
    }

    /// Paragraphs of legend text from `y` down, wrapped to the width;
    /// returns the y below them.
    pub(crate) fn paragraphs(&mut self, x: u32, mut y: u32, lines: &[String]) -> u32 {
        let chars = ((self.width - x - 8) as f32 / 6.6) as usize;
        for line in lines {
            for piece in wrap(line, chars.max(20)) {
                y += 15;
                self.text(x, y, 12, "", &piece);
            }
        }
        y
    }

    /// The finished document.
    /// The frame of an 8x8 board whose top-left corner is at `left`, `top`
    /// with squares `sq` wide, and the files and ranks on all four sides.
    pub(crate) fn board_frame(&mut self, left: u32, top: u32, sq: u32) {
        let board = 8 * sq;
        self.rect(
            left,
            top,
            board,
            board,
            r##"fill="none" stroke="#000000" stroke-width="2""##,
        );
        for i in 0..8u32 {
            let file = char::from(b'a' + i as u8).to_string();
            let x = left + i * sq + sq / 2;
            self.text(x, top - 7, 13, r#"text-anchor="middle""#, &file);
            self.text(x, top + board + 17, 13, r#"text-anchor="middle""#, &file);
            let rank = (8 - i).to_string();
            let y = top + i * sq + sq / 2 + 5;
            self.text(left - 14, y, 13, r#"text-anchor="middle""#, &rank);
            self.text(left + board + 14, y, 13, r#"text-anchor="middle""#, &rank);
        }
    }

    pub(crate) fn finish(self, caption: &str) -> String {
        let height = self.bottom + 10;
        let width = self.width;
        let caption = escape(caption);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" viewBox=\"0 0 {width} {height}\" \
             width=\"{width}\" height=\"{height}\" role=\"img\" font-family=\"{FONT}\">\n\
             <title>{caption}</title>\n\
             <rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n\
             {}</svg>\n",
            self.body
        )
    }
}

/// `text` cut into lines of at most `width` characters at spaces (a longer
/// word gets a line of its own).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// How many characters of the picture's font fit in `width` at `size`:
/// 0.58 em a character, a little over the average of DejaVu Sans (the
/// widest of the generic fonts named), so that whichever the reader has,
/// a line of ordinary words stays inside.
pub(crate) fn fit_chars(width: u32, size: u32) -> usize {
    ((width as f32) / (0.58 * size as f32)).floor().max(1.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_controls() {
        assert_eq!(
            escape("<a href=\"x\">&'\u{1}"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\u{FFFD}"
        );
    }

    #[test]
    fn wrap_keeps_words_whole() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh x", 3), vec!["abcdefgh", "x"]);
        assert!(wrap("   ", 3).is_empty());
    }

    #[test]
    fn fitted_text_keeps_every_word() {
        let mut c = Canvas::new(100);
        let n = c.fitted(0, 10, 10, 60, 11, "Enemies offer Treasure & Brides");
        assert!(n >= 2);
        let body = c.body.clone();
        for word in ["Enemies", "offer", "Treasure", "&amp;", "Brides"] {
            assert!(body.contains(word), "{word} missing in {body}");
        }
        assert!(!body.contains('…'));
        // A word wider than the line is squeezed, not cut.
        let mut c = Canvas::new(100);
        c.fitted(0, 10, 10, 30, 11, "Reconnaissance");
        assert!(c.body.contains(r#"textLength="30""#), "{}", c.body);
    }
}
