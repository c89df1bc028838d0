//! `yam export --html`: a static site of archives: an index of games with
//! filters, and one page per game with its diagrams, moves, comments, NAGs
//! and variations, stepped through with the keyboard or the mouse.
//!
//! The site is plain HTML, one stylesheet and one small script, with every
//! diagram inline as SVG: it opens from the file system, needs no network
//! and no build step. Records are untrusted: every text that comes from one
//! is HTML-escaped ([`escape`]) before it reaches a page.
//!
//! The verification status on each game is the referee's, computed here
//! (see [`status`]), never what the record claims about itself.

mod page;
pub mod status;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use yam_notation::split::Piece;
use yam_notation::{GameKind, RawGrammar, Record, read_all};

use crate::archive::{shift_pos, stream_pieces};
use crate::pictures::positions::{Shown, Timeline, timeline};

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

    /// The positions of the main line, replayed (on demand: a big archive's
    /// positions are never all in memory at once).
    pub(crate) fn timeline(&self) -> Option<Timeline> {
        self.record.as_ref().map(|r| timeline(&self.path, r, None))
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
            Ok(r) => Read {
                record: Some(r),
                status: statuses
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| Status::Failed("the game could not be checked".into())),
            },
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
/// (a page links to the next game, whose title is known once it is read),
/// and a game whose page is out keeps only its header, for the index.
struct Writer {
    games: PathBuf,
    entries: Vec<Entry>,
    error: Option<std::io::Error>,
}

impl Writer {
    /// A game read: the page of the game before it can be written.
    fn add(&mut self, entry: Entry) {
        self.entries.push(entry);
        let n = self.entries.len();
        if n >= 2 {
            self.write_page(n - 2);
        }
    }

    /// Write game `i`'s page, then drop all but its header.
    fn write_page(&mut self, i: usize) {
        if self.error.is_some() {
            return;
        }
        let timeline = self.entries[i].timeline();
        self.entries[i].score = match timeline.as_ref().and_then(|t| t.positions.last()) {
            Some(Shown::Cards(state)) => Some(state.score().to_string()),
            _ => None,
        };
        let entry = &self.entries[i];
        let prev = i.checked_sub(1).and_then(|j| self.entries.get(j));
        let next = self.entries.get(i + 1);
        let page = page::game_page(entry, timeline.as_ref(), prev, next);
        drop(timeline);
        if let Err(e) = std::fs::write(self.games.join(&entry.file_name), page) {
            self.error = Some(e);
        }
        if let Some(record) = &mut self.entries[i].record {
            record.movetext = Vec::new();
        }
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
    std::fs::write(out.join("style.css"), STYLE).map_err(cannot_write)?;
    std::fs::write(out.join("site.js"), SCRIPT).map_err(cannot_write)?;
    let mut problems = Vec::new();
    let mut without_games = Vec::new();
    let mut site = Writer {
        games,
        entries: Vec::new(),
        error: None,
    };
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    for path in &files {
        let (input, size) = match crate::archive::open(path) {
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
                let number = site.entries.len() + 1;
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
    if let Some(last) = site.entries.len().checked_sub(1) {
        site.write_page(last);
    }
    if let Some(e) = site.error.take() {
        return Err(cannot_write(e));
    }
    let entries = site.entries;
    std::fs::write(out.join("index.html"), index(&entries, &problems)).map_err(cannot_write)?;
    let failed = entries.iter().filter(|e| e.status.is_failure()).count();
    println!(
        "{}: {} game{} from {} archive{}, {} with a failure; open {}",
        out.display(),
        entries.len(),
        if entries.len() == 1 { "" } else { "s" },
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
const GENERATOR: &str = "<meta name=\"generator\" content=\"yam export --html\">";

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

fn index(entries: &[Entry], problems: &[String]) -> String {
    let mut html = head("Yam games", "");
    html.push_str("<body class=\"index\">\n<main>\n<h1>Yam games</h1>\n");
    let _ = writeln!(
        html,
        "<p class=\"lead\">{} game{}. The status of each game is what Yam's referee found when \
         this site was written (<code>yam export --html</code>), not what the record says.</p>",
        entries.len(),
        if entries.len() == 1 { "" } else { "s" }
    );
    if !problems.is_empty() {
        html.push_str("<div class=\"problems\"><p>Archives that could not be read:</p><ul>\n");
        for p in problems {
            let _ = writeln!(html, "<li>{}</li>", escape(p));
        }
        html.push_str("</ul></div>\n");
    }
    // Filters: shown by the script, which is what makes them work.
    let mut players: Vec<String> = entries
        .iter()
        .flat_map(|e| e.players().into_iter().map(|(_, name)| name))
        .collect();
    players.sort_by_key(|p| p.to_lowercase());
    players.dedup();
    html.push_str("<form id=\"filters\" class=\"filters\" hidden>\n<label>Game <select id=\"filter-game\">\n<option value=\"\">all games</option>\n");
    for kind in GameKind::ALL {
        let _ = writeln!(
            html,
            "<option value=\"{0}\">{0}</option>",
            escape(kind.name())
        );
    }
    html.push_str("</select></label>\n<label>Player <select id=\"filter-player\">\n<option value=\"\">all players</option>\n");
    for p in &players {
        let _ = writeln!(html, "<option value=\"{0}\">{0}</option>", escape(p));
    }
    html.push_str(
        "</select></label>\n<span id=\"filter-count\" aria-live=\"polite\"></span>\n</form>\n",
    );
    html.push_str(
        "<table id=\"games\">\n<thead><tr><th>#</th><th>Game</th><th>Record</th><th>Variant</th><th>Players</th>\
         <th>Date</th><th>Result</th><th>Status</th><th>Score</th><th>Archive</th></tr></thead>\n<tbody>\n",
    );
    for e in entries {
        let game = e.game().map_or("", GameKind::name);
        let players = e.players();
        // Names one a line, for the script to split: a tag value is one line.
        let data_players = players
            .iter()
            .map(|(_, n)| escape(n))
            .collect::<Vec<_>>()
            .join("\n");
        let shown_players = players
            .iter()
            .map(|(_, n)| escape(n))
            .collect::<Vec<_>>()
            .join(" – ");
        let result = e
            .record
            .as_ref()
            .map(|r| r.result.to_string())
            .unwrap_or_default();
        let _ = writeln!(
            html,
            "<tr data-game=\"{}\" data-players=\"{data_players}\"><td>{}</td>\
             <td>{}</td><td><a href=\"games/{}\">{}</a></td><td>{}</td><td class=\"players\">{shown_players}</td><td>{}</td>\
             <td>{}</td><td><span class=\"status {}\">{}</span></td><td>{}</td><td class=\"archive\">{} #{}</td></tr>",
            escape(game),
            e.number,
            if game.is_empty() {
                "(unreadable)".to_owned()
            } else {
                escape(game)
            },
            escape(&e.file_name),
            escape(&e.title()),
            escape(e.tag("Variant")),
            escape(e.tag("Date")),
            escape(&result),
            e.status.class(),
            escape(&e.status.short()),
            escape(e.score.as_deref().unwrap_or_default()),
            escape(&e.archive),
            e.index,
        );
    }
    html.push_str("</tbody>\n</table>\n</main>\n</body>\n</html>\n");
    html
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
