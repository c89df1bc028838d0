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

use yam_notation::{GameKind, RawGrammar, Record, read_all};

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

/// Read every game of every archive, with its status and positions. An
/// archive that cannot be read is reported and skipped; one that holds no
/// game is put in `without_games`.
pub(crate) fn gather(
    files: &[PathBuf],
    problems: &mut Vec<String>,
    without_games: &mut Vec<PathBuf>,
) -> Vec<Entry> {
    let mut entries = Vec::new();
    for path in files {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                problems.push(format!("{}: cannot read: {e}", path.display()));
                continue;
            }
        };
        let records = match read_all::<RawGrammar, _>(&bytes[..]) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{}: read error: {e}", path.display()));
                continue;
            }
        };
        if records.is_empty() {
            without_games.push(path.clone());
        }
        let statuses = status::of_archive(path, &bytes);
        for (i, record) in records.into_iter().enumerate() {
            let number = entries.len() + 1;
            let (record, status) = match record {
                Ok(r) => {
                    let s = statuses
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| Status::Failed("the game could not be checked".into()));
                    (Some(r), s)
                }
                Err(e) => (None, Status::syntax(&e)),
            };
            let id = record
                .as_ref()
                .and_then(|r| r.tags.get("GameId"))
                .unwrap_or("");
            entries.push(Entry {
                number,
                archive: path.display().to_string(),
                index: i + 1,
                file_name: file_name(number, id),
                record,
                status,
                path: path.clone(),
                score: None,
            });
        }
    }
    entries
}

/// Write the site for `files` (records, or directories searched for
/// `.yam` files) into `out`: valid when every game passed, invalid when
/// some game did not (the site shows which), unreadable when an archive
/// could not be read; an error when the site could not be written.
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
    let mut problems = Vec::new();
    let mut without_games = Vec::new();
    let mut entries = gather(&files, &mut problems, &mut without_games);
    for p in &problems {
        eprintln!("{p}");
    }
    // A file that holds no game, said as check and verify say it.
    for path in &without_games {
        eprintln!("warning: {}", crate::archive::NoGame(path));
    }
    write_site(out, &mut entries, &problems)
        .map_err(|e| Error::io(out, "cannot write the site", e))?;
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

/// Write the pages one game at a time (each game's positions are replayed,
/// drawn and dropped), then the index, which needs their scores.
fn write_site(out: &Path, entries: &mut [Entry], problems: &[String]) -> std::io::Result<()> {
    let games = out.join("games");
    std::fs::create_dir_all(&games)?;
    remove_old_pages(&games)?;
    std::fs::write(out.join("style.css"), STYLE)?;
    std::fs::write(out.join("site.js"), SCRIPT)?;
    for i in 0..entries.len() {
        let timeline = entries[i].timeline();
        let score = match timeline.as_ref().and_then(|t| t.positions.last()) {
            Some(Shown::Cards(state)) => Some(state.score().to_string()),
            _ => None,
        };
        entries[i].score = score;
        let entry = &entries[i];
        let prev = i.checked_sub(1).and_then(|j| entries.get(j));
        let next = entries.get(i + 1);
        std::fs::write(
            games.join(&entry.file_name),
            page::game_page(entry, timeline.as_ref(), prev, next),
        )?;
    }
    std::fs::write(out.join("index.html"), index(entries, problems))?;
    Ok(())
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
    fn file_names_stay_inside_games() {
        assert_eq!(file_name(3, "../../etc/passwd"), "3-------etc-passwd.html");
        assert_eq!(file_name(1, ""), "1-game.html");
        assert_eq!(file_name(2, "ok_id-7"), "2-ok_id-7.html");
    }
}
