//! The diagrams of a site as data the page's script draws: why a site of
//! 10,000 games fits in the space its records take, give or take.
//!
//! A diagram is an SVG picture drawn by [`crate::pictures::svg`], one
//! element a line. Two positions a move apart differ in a few lines (the
//! squares the move touched, its outline, a legend's count), and a site's
//! games share most of their lines (the board, its coordinates, a piece on
//! a square). So:
//!
//! - every distinct line of the whole site is stored once, in the
//!   [`LineBook`], written out as chunks `lines/K.js` of [`CHUNK`] lines;
//! - a game's page holds, for each position (its [`Tree`]'s frames), the
//!   operations that turn its parent's list of line ids into its own:
//!   copy `n` lines (`n`), skip `n` lines (`-n`), or insert ids
//!   (`[id, ...]`), against an empty parent for the start.
//!
//! `site.js` rebuilds a frame's lines from its parent's and sets them as
//! the figure's markup. The lines are the renderer's own output, escaped
//! there; nothing from a record reaches the page unescaped.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use similar::{Algorithm, DiffOp, capture_diff_slices};

use crate::pictures::positions::Tree;
use crate::pictures::svg;

/// Lines a chunk file holds. A page loads the chunks its lines are in:
/// small enough that a page needs little it does not use, large enough
/// that a long game needs a handful.
pub(crate) const CHUNK: usize = 1024;

/// What marks a chunk file as written by the export (old ones are
/// removed by the next export, nothing else in `lines/`).
pub(crate) const CHUNK_MARK: &str = "// yam export --html: diagram lines";

/// Every distinct diagram line of the site, numbered in order of first use.
#[derive(Debug)]
pub(crate) struct LineBook {
    dir: PathBuf,
    ids: HashMap<String, u32>,
    /// The lines of the chunk being filled.
    open: Vec<String>,
    /// Chunks already written.
    written: u32,
}

impl LineBook {
    /// A book writing its chunks into `dir` (created; earlier chunks the
    /// export wrote there are removed).
    pub(crate) fn new(dir: &Path) -> io::Result<LineBook> {
        std::fs::create_dir_all(dir)?;
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_file() && path.extension().is_some_and(|e| e == "js") {
                let text = std::fs::read(&path)?;
                if text.starts_with(CHUNK_MARK.as_bytes()) {
                    std::fs::remove_file(&path)?;
                }
            }
        }
        Ok(LineBook {
            dir: dir.to_path_buf(),
            ids: HashMap::new(),
            open: Vec::with_capacity(CHUNK),
            written: 0,
        })
    }

    /// The id of `line`, numbered now if it is new; a chunk that fills up
    /// is written at once, so memory holds the ids, not the chunks' text.
    fn id(&mut self, line: &str) -> io::Result<u32> {
        if let Some(&id) = self.ids.get(line) {
            return Ok(id);
        }
        let id = self.written * CHUNK as u32 + self.open.len() as u32;
        self.ids.insert(line.to_owned(), id);
        self.open.push(line.to_owned());
        if self.open.len() == CHUNK {
            self.flush()?;
        }
        Ok(id)
    }

    /// Write the chunk being filled (at the end of the export, a partial
    /// one).
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        if self.open.is_empty() {
            return Ok(());
        }
        let k = self.written;
        let lines = serde_json::to_string(&self.open).map_err(io::Error::other)?;
        let text =
            format!("{CHUNK_MARK}\n(window.yamLines = window.yamLines || {{}})[{k}] = {lines};\n");
        std::fs::write(self.dir.join(format!("{k}.js")), text)?;
        self.open.clear();
        self.written += 1;
        Ok(())
    }

    /// How many distinct lines the site has so far.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }
}

/// A game's diagrams, encoded.
#[derive(Debug)]
pub(crate) struct Encoded {
    /// The page's frame data: `{"main":M,"frames":[[parent, op...], ...]}`
    /// (JSON of numbers only, safe inside a `<script>` element).
    pub json: String,
    /// The chunks the frames' lines are in, in ascending order.
    pub chunks: Vec<u32>,
}

/// Encode `tree`'s frames, each captioned `caption`, numbering their lines
/// in `book`.
pub(crate) fn encode(book: &mut LineBook, tree: &Tree, caption: &str) -> io::Result<Encoded> {
    // A frame's lines are kept only while a later frame may be drawn
    // against them: a frame no other names as its parent (a variation's
    // last position, each of a game's sibling variations) keeps none.
    let mut is_parent = vec![false; tree.frames.len()];
    for frame in &tree.frames {
        if let Some(p) = frame.parent {
            is_parent[p] = true;
        }
    }
    let mut ids: Vec<Vec<u32>> = Vec::with_capacity(tree.frames.len());
    let mut json = String::with_capacity(64 * tree.frames.len());
    let mut chunks: Vec<u32> = Vec::new();
    let _ = write!(json, "{{\"main\":{},\"frames\":[", tree.main_frames);
    for (k, frame) in tree.frames.iter().enumerate() {
        let picture = svg::draw(&frame.shown, caption);
        let mut lines = Vec::with_capacity(picture.len() / 40);
        for line in picture.lines() {
            let id = book.id(line)?;
            let chunk = id / CHUNK as u32;
            if let Err(at) = chunks.binary_search(&chunk) {
                chunks.insert(at, chunk);
            }
            lines.push(id);
        }
        let empty = Vec::new();
        let parent = frame.parent.map_or(&empty, |p| &ids[p]);
        if k > 0 {
            json.push(',');
        }
        let _ = write!(json, "[{}", frame.parent.map_or(-1, |p| p as i64));
        for op in capture_diff_slices(Algorithm::Myers, parent, &lines) {
            match op {
                DiffOp::Equal { len, .. } => {
                    let _ = write!(json, ",{len}");
                }
                DiffOp::Delete { old_len, .. } => {
                    let _ = write!(json, ",-{old_len}");
                }
                DiffOp::Insert {
                    new_index, new_len, ..
                } => insert(&mut json, &lines[new_index..new_index + new_len]),
                DiffOp::Replace {
                    old_len,
                    new_index,
                    new_len,
                    ..
                } => {
                    let _ = write!(json, ",-{old_len}");
                    insert(&mut json, &lines[new_index..new_index + new_len]);
                }
            }
        }
        json.push(']');
        ids.push(if is_parent[k] { lines } else { Vec::new() });
    }
    json.push_str("]}");
    Ok(Encoded { json, chunks })
}

fn insert(json: &mut String, ids: &[u32]) {
    json.push_str(",[");
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        let _ = write!(json, "{id}");
    }
    json.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pictures::positions::tree;
    use yam_notation::{RawGrammar, parse_record};

    /// Rebuild frame `k`'s lines from the encoding, as site.js does.
    fn rebuild(frames: &[serde_json::Value], k: usize, lines: &[String]) -> Vec<String> {
        let f = frames[k].as_array().expect("frame");
        let parent = f[0].as_i64().expect("parent");
        let from = if parent < 0 {
            Vec::new()
        } else {
            rebuild(frames, parent as usize, lines)
        };
        let mut out = Vec::new();
        let mut at = 0usize;
        for op in &f[1..] {
            match op {
                serde_json::Value::Number(n) => {
                    let n = n.as_i64().expect("count");
                    if n > 0 {
                        out.extend_from_slice(&from[at..at + n as usize]);
                        at += n as usize;
                    } else {
                        at += (-n) as usize;
                    }
                }
                serde_json::Value::Array(ids) => {
                    for id in ids {
                        out.push(lines[id.as_u64().expect("id") as usize].clone());
                    }
                }
                other => panic!("unexpected op {other}"),
            }
        }
        out
    }

    #[test]
    fn every_frame_rebuilds_to_its_picture_and_lines_are_shared() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let path = root.join("examples/khan/opening-lesson.yam");
        let text = std::fs::read_to_string(&path).expect("example");
        let record = parse_record::<RawGrammar>(&text).expect("record");
        let tree = tree(&path, &record);
        assert!(
            tree.frames.len() > tree.main_frames,
            "the lesson's variations are drawn"
        );
        let dir = tempfile::tempdir().expect("dir");
        let mut book = LineBook::new(dir.path()).expect("book");
        let encoded = encode(&mut book, &tree, "lesson").expect("encoded");
        book.flush().expect("flush");
        // Read the chunks back as the browser would.
        let mut lines = Vec::new();
        for k in 0.. {
            let Ok(text) = std::fs::read_to_string(dir.path().join(format!("{k}.js"))) else {
                break;
            };
            let json = &text[text.find("] = ").expect("assignment") + 4..text.len() - 2];
            let chunk: Vec<String> = serde_json::from_str(json).expect("chunk");
            lines.extend(chunk);
        }
        assert_eq!(lines.len(), book.len());
        let data: serde_json::Value = serde_json::from_str(&encoded.json).expect("json");
        let frames = data["frames"].as_array().expect("frames");
        assert_eq!(frames.len(), tree.frames.len());
        for (k, frame) in tree.frames.iter().enumerate() {
            let picture = svg::draw(&frame.shown, "lesson");
            let expected: Vec<String> = picture.lines().map(str::to_owned).collect();
            assert_eq!(rebuild(frames, k, &lines), expected, "frame {k}");
        }
        // A move changes a few lines: the encoding is far smaller than the
        // pictures it stands for.
        let pictures: usize = tree
            .frames
            .iter()
            .map(|f| svg::draw(&f.shown, "lesson").len())
            .sum();
        assert!(
            encoded.json.len() * 20 < pictures,
            "{} bytes encode {pictures} bytes of pictures",
            encoded.json.len()
        );
    }
}
