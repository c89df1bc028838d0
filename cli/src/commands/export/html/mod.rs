//! `yam export --html`: a static site of archives: a front page with a
//! summary and a search, listing pages of games, and one page per game
//! with its diagrams, moves, comments, NAGs and variations, stepped
//! through with the keyboard or the mouse.
//!
//! The site is plain HTML, one stylesheet and one small script; diagrams
//! are the SVG pictures of [`crate::pictures::svg`], stored once per
//! distinct line for the whole site and rebuilt by the script (see
//! [`frames`]), so a site takes space in proportion to its games' moves,
//! not to their pictures. It opens from the file system, needs no network
//! and no build step. Records are untrusted: every text that comes from one
//! is HTML-escaped ([`escape`]) before it reaches a page.
//!
//! The verification status on each game is the referee's, computed here
//! (see [`status`]), never what the record claims about itself.

mod frames;
mod listing;
mod page;
pub mod status;

use std::path::{Path, PathBuf};

use yam_notation::split::Piece;
use yam_notation::{GameKind, RawGrammar, Record, read_all};

use crate::archive::{shift_pos, stream_pieces};
use crate::pictures::positions::{Shown, Tree, tree};
use frames::LineBook;

use crate::error::{self, Error, Result};
use status::Status;

/// The stylesheet, written as `style.css`.
pub const STYLE: &str = include_str!("style.css");
/// The script, written as `site.js`.
pub const SCRIPT: &str = include_str!("site.js");

/// `text` escaped for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    crate::pictures::svg::escape(text)
}

/// One game of the site.
#[derive(Debug)]
pub(crate) struct Entry {
    /// 1-based, across all archives.
    pub number: usize,
    /// The archive it came from, as given on the command line.
    pub archive: String,
    /// Its place in the archive, 1-based.
    pub index: usize,
    /// The page's file name, inside `games/`.
    pub file_name: String,
    /// The record, unless it could not be read.
    pub record: Option<Record<String>>,
    /// What the referee found.
    pub status: Status,
    /// The archive's path, for rulesets beside it.
    pub path: PathBuf,
    /// Genghis Khan's score, as the referee counts it in the last position
    /// reached; known once the game's page is written.
    pub score: Option<String>,
}

impl Entry {
    pub(crate) fn tag(&self, name: &str) -> &str {
        self.record
            .as_ref()
            .and_then(|r| r.tags.get(name))
            .unwrap_or("")
    }

    pub(crate) fn game(&self) -> Option<GameKind> {
        self.record.as_ref().and_then(Record::game)
    }

    /// The players, first side first, each with the side's name.
    pub(crate) fn players(&self) -> Vec<(String, String)> {
        let Some(kind) = self.game() else {
            return Vec::new();
        };
        kind.player_tags()
            .iter()
            .filter_map(|t| {
                let name = self.tag(t);
                (!name.is_empty()).then(|| ((*t).to_owned(), name.to_owned()))
            })
            .collect()
    }

    /// The positions of the game and its variations, replayed (on demand:
    /// a big archive's positions are never all in memory at once).
    pub(crate) fn tree(&self) -> Option<Tree> {
        self.record.as_ref().map(|r| tree(&self.path, r))
    }

    pub(crate) fn title(&self) -> String {
        let id = self.tag("GameId");
        if id.is_empty() {
            format!("Game {} of {}", self.index, self.archive)
        } else {
            id.to_owned()
        }
    }
}

/// A page's file name: its number and its game id, with anything but
/// letters, digits, `-`, `_` and `.` replaced, so that no record can name a
/// path outside `games/`.
pub(crate) fn file_name(number: usize, game_id: &str) -> String {
    let mut id: String = game_id
        .chars()
        .take(60)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if id.is_empty() {
        id.push_str("game");
    }
    format!("{number}-{id}.html")
}

/// One game of a piece, read: its record (unless it could not be read)
/// and what the referee found.
#[derive(Debug)]
struct Read {
    record: Option<Record<String>>,
    status: Status,
}

/// Read and judge the games of one piece on their own (a worker's part).
fn read_piece(path: &Path, piece: &Piece) -> Vec<Read> {
    let statuses = status::of_piece(path, &piece.bytes, piece.line);
    // A slice cannot fail to read.
    let records = read_all::<RawGrammar, _>(&piece.bytes[..]).unwrap_or_default();
    records
        .into_iter()
        .enumerate()
        .map(|(i, record)| match record {
            Ok(r) => {
                let (status, taken_back) = statuses.get(i).cloned().unwrap_or_else(|| {
                    (
                        Status::Failed("the game could not be checked".into()),
                        Vec::new(),
                    )
                });
                // A signed game's moves taken back by agreement stay in its
                // main line; its page shows the game as it stands.
                let record = match yam_referee::signed::write::standing(&r, &taken_back) {
                    std::borrow::Cow::Owned(standing) => standing,
                    std::borrow::Cow::Borrowed(_) => r,
                };
                Read {
                    record: Some(record),
                    status,
                }
            }
            Err(mut e) => {
                shift_pos(piece, &mut e.pos);
                Read {
                    record: None,
                    status: Status::syntax(&e),
                }
            }
        })
        .collect()
}

/// The site as it is written: pages go out one game behind the reading
/// (a page links to the next game, whose title is known once it is read);
/// a game whose page is out leaves its row in the index being written,
/// and its header until the next page is out. Memory holds two games, one
/// index page of rows and the ids of the site's diagram lines, whatever
/// the archive's size.
struct Writer {
    games: PathBuf,
    book: LineBook,
    listing: listing::Listing,
    /// The game whose page went out last (its header, for the next page's
    /// link back).
    written: Option<Entry>,
    /// The game read whose page waits for the next game.
    pending: Option<Entry>,
    /// Games read so far.
    count: usize,
    error: Option<std::io::Error>,
}

impl Writer {
    /// A game read: the page of the game before it can be written.
    fn add(&mut self, entry: Entry) {
        self.count += 1;
        if let Some(pending) = self.pending.take() {
            self.write_page(pending, Some(&entry));
        }
        self.pending = Some(entry);
    }

    /// The last game's page.
    fn finish(&mut self) {
        if let Some(pending) = self.pending.take() {
            self.write_page(pending, None);
        }
    }

    /// Write `entry`'s page and its index row, then keep only its header.
    fn write_page(&mut self, mut entry: Entry, next: Option<&Entry>) {
        if self.error.is_some() {
            return;
        }
        let tree = entry.tree();
        entry.score = match tree
            .as_ref()
            .and_then(|t| t.main_frames.checked_sub(1).map(|k| &t.frames[k].shown))
        {
            Some(Shown::Cards(state)) => Some(state.score().to_string()),
            _ => None,
        };
        let written = tree.as_ref().map(|tree| {
            // Every diagram is captioned with the title: at most 200
            // characters of it, or a 1 MB GameId cost its length again for
            // each ply of the game.
            frames::encode(
                &mut self.book,
                tree,
                &crate::mail::cards::clean_text(&entry.title()),
            )
            .map(|encoded| (tree, encoded))
        });
        let page = match written {
            Some(Err(e)) => {
                self.error = Some(e);
                return;
            }
            Some(Ok((tree, encoded))) => {
                page::game_page(&entry, Some((tree, &encoded)), self.written.as_ref(), next)
            }
            None => page::game_page(&entry, None, self.written.as_ref(), next),
        };
        drop(tree);
        if let Err(e) = std::fs::write(self.games.join(&entry.file_name), page) {
            self.error = Some(e);
            return;
        }
        if let Err(e) = self.listing.add(&entry) {
            self.error = Some(e);
            return;
        }
        if let Some(record) = &mut entry.record {
            record.movetext = Vec::new();
        }
        self.written = Some(entry);
    }
}

/// Write the site for `files` (records, or directories searched for
/// `.yam` files) into `out`: valid when every game passed, invalid when
/// some game did not (the site shows which), unreadable when an archive
/// could not be read; an error when the site could not be written.
///
/// Each archive is streamed through the shared reading path (pieces of
/// whole games read and judged by a worker a core, in file order), and
/// each game's page is written as soon as the game after it is read: what
/// stays in memory is one header a game, for the index.
pub fn export(files: &[PathBuf], out: &Path) -> Result<error::Status> {
    let expansion = crate::archive::expand(files)
        .map_err(|(path, e)| Error::io(path, "cannot read directory", e))?;
    for empty in &expansion.empty {
        eprintln!("warning: {empty}");
    }
    let files = expansion.files;
    if files.is_empty() {
        // Nothing to export: no site is written.
        return Ok(error::Status::NoRecords);
    }
    let cannot_write = |e| Error::io(out, "cannot write the site", e);
    let games = out.join("games");
    std::fs::create_dir_all(&games).map_err(cannot_write)?;
    remove_old_pages(&games).map_err(cannot_write)?;
    let book = LineBook::new(&out.join("lines")).map_err(cannot_write)?;
    let listing = listing::Listing::new(out).map_err(cannot_write)?;
    std::fs::write(out.join("style.css"), STYLE).map_err(cannot_write)?;
    std::fs::write(out.join("site.js"), SCRIPT).map_err(cannot_write)?;
    let mut problems = Vec::new();
    let mut without_games = Vec::new();
    let mut site = Writer {
        games,
        book,
        listing,
        written: None,
        pending: None,
        count: 0,
        error: None,
    };
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    for path in &files {
        let (input, size) = match crate::archive::open_input(path) {
            Ok(opened) => opened,
            Err(e) => {
                let problem = format!("{}: cannot read: {e}", path.display());
                eprintln!("{problem}");
                problems.push(problem);
                continue;
            }
        };
        let mut index = 0;
        let streamed = stream_pieces(
            input,
            jobs,
            size,
            |piece| read_piece(path, piece),
            |read: &Read, _progress| {
                index += 1;
                let number = site.count + 1;
                let id = read
                    .record
                    .as_ref()
                    .and_then(|r| r.tags.get("GameId"))
                    .unwrap_or("");
                let entry = Entry {
                    number,
                    archive: path.display().to_string(),
                    index,
                    file_name: file_name(number, id),
                    record: read.record.clone(),
                    status: read.status.clone(),
                    path: path.clone(),
                    score: None,
                };
                site.add(entry);
            },
        );
        if let Err(e) = streamed {
            let problem = format!("{}: read error: {e}", path.display());
            eprintln!("{problem}");
            problems.push(problem);
        } else if index == 0 {
            // A file that holds no game, said as check and verify say it.
            eprintln!("warning: {}", crate::archive::NoGame(path));
            without_games.push(path.clone());
        }
    }
    site.finish();
    if let Some(e) = site.error.take() {
        return Err(cannot_write(e));
    }
    site.book.flush().map_err(cannot_write)?;
    let summary = site.listing.finish(&problems).map_err(cannot_write)?;
    let failed = summary.failed;
    outln!(
        "{}: {} game{} from {} archive{}, {} with a failure; open {}",
        out.display(),
        summary.games,
        if summary.games == 1 { "" } else { "s" },
        files.len() - problems.len(),
        if files.len() - problems.len() == 1 {
            ""
        } else {
            "s"
        },
        failed,
        out.join("index.html").display()
    );
    Ok(if !problems.is_empty() {
        error::Status::Unreadable
    } else if !expansion.empty.is_empty() || !without_games.is_empty() {
        error::Status::NoRecords
    } else if failed > 0 {
        error::Status::Invalid
    } else {
        error::Status::Valid
    })
}

/// What marks a page as written by this command.
pub(crate) const GENERATOR: &str = "<meta name=\"generator\" content=\"yam export --html\">";

/// Remove the game pages an earlier export left in `games`, so that a
/// game no longer exported leaves no stale page. Only `.html` files that
/// carry [`GENERATOR`] near their top are removed; anything else there is
/// someone else's and stays.
fn remove_old_pages(games: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(games)? {
        let path = entry?.path();
        if !path.is_file() || path.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let mut head = [0u8; 1024];
        let n = std::io::Read::read(&mut std::fs::File::open(&path)?, &mut head)?;
        if String::from_utf8_lossy(&head[..n]).contains(GENERATOR) {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// The head of every page; `root` leads from the page to the site's root.
pub(crate) fn head(title: &str, root: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         {GENERATOR}\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"{root}style.css\">\n\
         <script src=\"{root}site.js\" defer></script>\n</head>\n",
        escape(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_names_the_lines_of_the_file() {
        let good =
            std::fs::read_to_string(crate_root().join("examples/khan/opening-lesson.yam")).unwrap();
        let bad = good.replacen("\n1. ", "\n1. $ ", 1);
        let bad_line = bad.lines().position(|l| l.starts_with("1. $")).unwrap() as u32 + 1;
        let text = format!("{good}\n{bad}");
        let before = good.lines().count() as u32 + 1;
        let piece = Piece {
            bytes: text.into_bytes(),
            offset: 5000,
            line: 100,
        };
        let read = read_piece(&crate_root().join("examples/khan/x.yam"), &piece);
        assert_eq!(read.len(), 2);
        assert!(read[0].record.is_some());
        assert_eq!(read[0].status, Status::RulesChecked);
        assert!(read[1].record.is_none());
        let line = 100 - 1 + before + bad_line;
        assert!(
            read[1]
                .status
                .short()
                .contains(&format!("syntax error, line {line}:")),
            "{:?}",
            read[1].status
        );
    }

    fn crate_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    #[test]
    fn file_names_stay_inside_games() {
        assert_eq!(file_name(3, "../../etc/passwd"), "3-------etc-passwd.html");
        assert_eq!(file_name(1, ""), "1-game.html");
        assert_eq!(file_name(2, "ok_id-7"), "2-ok_id-7.html");
    }
}
