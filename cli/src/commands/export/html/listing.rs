//! The site's index: a front page (a summary, a search over every game,
//! the first page of games) and listing pages `index/K.html` of
//! [`PAGE`] games each, written as they fill, so an archive of any size
//! makes pages of one size and the export holds one page of rows.
//!
//! The search runs in the reader's browser over `index/K.js`, one file of
//! rows a listing page: it loads them when a search is made, from the
//! file system as well as from a server (script elements, not fetch).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use yam_notation::GameKind;

use super::{Entry, GENERATOR, escape, head};

/// Games a listing page holds.
pub(crate) const PAGE: usize = 500;

/// What marks a search file as written by the export.
const ROWS_MARK: &str = "// yam export --html: search rows";

/// What a listing shows of one game (its record is gone by then).
#[derive(Debug)]
struct Row {
    number: usize,
    game: String,
    file_name: String,
    title: String,
    variant: String,
    players: Vec<String>,
    date: String,
    result: String,
    status_class: &'static str,
    status_short: String,
    score: String,
    archive: String,
    index: usize,
    event: String,
    site: String,
}

impl Row {
    fn of(entry: &Entry) -> Row {
        Row {
            number: entry.number,
            game: entry.game().map_or("", GameKind::name).to_owned(),
            file_name: entry.file_name.clone(),
            title: entry.title(),
            variant: entry.tag("Variant").to_owned(),
            players: entry.players().into_iter().map(|(_, name)| name).collect(),
            date: entry.tag("Date").to_owned(),
            result: entry
                .record
                .as_ref()
                .map(|r| r.result.to_string())
                .unwrap_or_default(),
            status_class: entry.status.class(),
            status_short: entry.status.short(),
            score: entry.score.clone().unwrap_or_default(),
            archive: entry.archive.clone(),
            index: entry.index,
            event: entry.tag("Event").to_owned(),
            site: entry.tag("Site").to_owned(),
        }
    }

    /// The row as a table row; `root` leads from the page to the site's root.
    fn html(&self, root: &str) -> String {
        let players: Vec<String> = self.players.iter().map(|n| escape(n)).collect();
        format!(
            "<tr data-game=\"{game}\" data-players=\"{data_players}\"><td>{number}</td>\
             <td>{shown_game}</td><td><a href=\"{root}games/{file}\">{title}</a></td><td>{variant}</td>\
             <td class=\"players\">{shown_players}</td><td>{date}</td><td>{result}</td>\
             <td><span class=\"status {class}\">{status}</span></td><td>{score}</td>\
             <td class=\"archive\">{archive} #{index}</td></tr>",
            game = escape(&self.game),
            // Names one a line, for a script to split: a tag value is one line.
            data_players = players.join("\n"),
            number = self.number,
            shown_game = if self.game.is_empty() {
                "(unreadable)".to_owned()
            } else {
                escape(&self.game)
            },
            file = escape(&self.file_name),
            title = escape(&self.title),
            variant = escape(&self.variant),
            shown_players = players
                .iter()
                .map(|n| format!("<bdi>{n}</bdi>"))
                .collect::<Vec<_>>()
                .join(" – "),
            date = escape(&self.date),
            result = escape(&self.result),
            class = self.status_class,
            status = escape(&self.status_short),
            score = escape(&self.score),
            archive = escape(&self.archive),
            index = self.index,
        )
    }

    /// The row for the search: the fields the script shows and matches,
    /// raw (the script puts them in the page as text, never as markup).
    fn search(&self) -> serde_json::Value {
        serde_json::json!([
            self.number,
            format!("games/{}", self.file_name),
            self.game,
            self.title,
            self.variant,
            self.players,
            self.date,
            self.result,
            self.status_class,
            self.status_short,
            self.score,
            self.archive,
            self.index,
            self.event,
            self.site,
        ])
    }
}

/// What the export counted, for its summary line.
#[derive(Debug, Default)]
pub(crate) struct Summary {
    pub games: usize,
    pub failed: usize,
    by_game: BTreeMap<String, usize>,
    by_status: BTreeMap<String, usize>,
}

/// The index being written.
#[derive(Debug)]
pub(crate) struct Listing {
    out: PathBuf,
    /// The first page's rows, written last on the front page.
    first: Vec<Row>,
    /// The rows of the page being filled (from the second page on).
    current: Vec<Row>,
    /// Listing pages written (the first counts once it is full).
    pages: usize,
    summary: Summary,
}

const HEAD_ROW: &str = "<thead><tr><th>#</th><th>Game</th><th>Record</th><th>Variant</th>\
    <th>Players</th><th>Date</th><th>Result</th><th>Status</th><th>Score</th><th>Archive</th></tr></thead>";

impl Listing {
    /// A listing writing into the site `out` (its `index/` directory is
    /// created; pages and search files an earlier export wrote there are
    /// removed, nothing else).
    pub(crate) fn new(out: &Path) -> io::Result<Listing> {
        let dir = out.join("index");
        std::fs::create_dir_all(&dir)?;
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            let mark = match path.extension().and_then(|e| e.to_str()) {
                Some("html") => GENERATOR,
                Some("js") => ROWS_MARK,
                _ => continue,
            };
            if !path.is_file() {
                continue;
            }
            let mut head = [0u8; 1024];
            let n = io::Read::read(&mut std::fs::File::open(&path)?, &mut head)?;
            if String::from_utf8_lossy(&head[..n]).contains(mark) {
                std::fs::remove_file(&path)?;
            }
        }
        Ok(Listing {
            out: out.to_path_buf(),
            first: Vec::with_capacity(PAGE),
            current: Vec::new(),
            pages: 0,
            summary: Summary::default(),
        })
    }

    /// A game whose page is written.
    pub(crate) fn add(&mut self, entry: &Entry) -> io::Result<()> {
        let row = Row::of(entry);
        self.summary.games += 1;
        if entry.status.is_failure() {
            self.summary.failed += 1;
        }
        let game = if row.game.is_empty() {
            "(unreadable)".to_owned()
        } else {
            row.game.clone()
        };
        *self.summary.by_game.entry(game).or_default() += 1;
        *self
            .summary
            .by_status
            .entry(row.status_class.to_owned())
            .or_default() += 1;
        // A full page is written when a row for the next one arrives, so
        // that it links to a page that exists.
        if self.first.len() < PAGE {
            self.first.push(row);
            return Ok(());
        }
        if self.pages == 0 {
            // The first page is full: its rows stay for the front page,
            // its search file goes out now.
            self.write_rows(1, &self.first)?;
            self.pages = 1;
        }
        if self.current.len() == PAGE {
            let rows = std::mem::take(&mut self.current);
            self.write_page(self.pages + 1, &rows, true)?;
            self.pages += 1;
        }
        self.current.push(row);
        Ok(())
    }

    /// Write what is left, and the front page.
    pub(crate) fn finish(mut self, problems: &[String]) -> io::Result<Summary> {
        if self.pages == 0 {
            self.write_rows(1, &self.first)?;
            self.pages = 1;
        }
        if !self.current.is_empty() {
            let rows = std::mem::take(&mut self.current);
            self.write_page(self.pages + 1, &rows, false)?;
            self.pages += 1;
        }
        std::fs::write(self.out.join("index.html"), self.front(problems))?;
        Ok(self.summary)
    }

    fn write_rows(&self, k: usize, rows: &[Row]) -> io::Result<()> {
        let rows: Vec<serde_json::Value> = rows.iter().map(Row::search).collect();
        // `<` only occurs inside JSON strings: written `\u003c`, a record's
        // text never appears as markup in the site's files, wherever they
        // end up (the search puts it in the page as text).
        let json = serde_json::to_string(&rows)
            .map_err(io::Error::other)?
            .replace('<', "\\u003c");
        std::fs::write(
            self.out.join("index").join(format!("{k}.js")),
            format!("{ROWS_MARK}\n(window.yamRows = window.yamRows || {{}})[{k}] = {json};\n"),
        )
    }

    /// Listing page `k` (2 or more), and its search file.
    fn write_page(&self, k: usize, rows: &[Row], has_next: bool) -> io::Result<()> {
        self.write_rows(k, rows)?;
        let mut html = head(&format!("Yam games, page {k}"), "../");
        html.push_str("<body class=\"index listing\">\n<main>\n");
        let _ = writeln!(html, "<h1>Yam games, page {k}</h1>");
        let prev = if k == 2 {
            "../index.html".to_owned()
        } else {
            format!("{}.html", k - 1)
        };
        let mut nav = format!(
            "<nav class=\"pages\"><a href=\"../index.html\">All games and search</a> · \
             <a href=\"{prev}\" rel=\"prev\">page {}</a>",
            k - 1
        );
        if has_next {
            let _ = write!(
                nav,
                " · <a href=\"{}.html\" rel=\"next\">page {}</a>",
                k + 1,
                k + 1
            );
        }
        nav.push_str("</nav>\n");
        html.push_str(&nav);
        let _ = writeln!(html, "<table id=\"games\">\n{HEAD_ROW}\n<tbody>");
        for row in rows {
            html.push_str(&row.html("../"));
            html.push('\n');
        }
        html.push_str("</tbody>\n</table>\n");
        html.push_str(&nav);
        html.push_str("</main>\n</body>\n</html>\n");
        std::fs::write(self.out.join("index").join(format!("{k}.html")), html)
    }

    /// The front page: the summary, the search, the first page of games and
    /// the links to the others.
    fn front(&self, problems: &[String]) -> String {
        let s = &self.summary;
        let mut html = head("Yam games", "");
        html.push_str("<body class=\"index\">\n<main>\n<h1>Yam games</h1>\n");
        let _ = writeln!(
            html,
            "<p class=\"lead\">{} game{}. The status of each game is what Yam's referee found when \
             this site was written (<code>yam export --html</code>), not what the record says.</p>",
            s.games,
            if s.games == 1 { "" } else { "s" }
        );
        if s.games > 0 {
            html.push_str("<div class=\"summary\">\n<table><caption>By game</caption><tbody>\n");
            for (game, n) in &s.by_game {
                let _ = writeln!(html, "<tr><th>{}</th><td>{n}</td></tr>", escape(game));
            }
            html.push_str("</tbody></table>\n<table><caption>By status</caption><tbody>\n");
            for (status, n) in &s.by_status {
                let _ = writeln!(html, "<tr><th>{}</th><td>{n}</td></tr>", escape(status));
            }
            html.push_str("</tbody></table>\n</div>\n");
        }
        if !problems.is_empty() {
            html.push_str("<div class=\"problems\"><p>Archives that could not be read:</p><ul>\n");
            for p in problems {
                let _ = writeln!(html, "<li>{}</li>", escape(p));
            }
            html.push_str("</ul></div>\n");
        }
        // The search: shown by the script, which is what makes it work.
        let _ = writeln!(
            html,
            "<form id=\"filters\" class=\"filters\" data-pages=\"{}\" hidden>\n\
             <label>Game <select id=\"filter-game\">\n<option value=\"\">all games</option>",
            self.pages
        );
        for kind in GameKind::ALL {
            let _ = writeln!(
                html,
                "<option value=\"{0}\">{0}</option>",
                escape(kind.name())
            );
        }
        html.push_str(
            "</select></label>\n<label>Status <select id=\"filter-status\">\n\
             <option value=\"\">any status</option>\n\
             <option value=\"verified\">verified</option>\n\
             <option value=\"practice\">practice</option>\n\
             <option value=\"unsigned\">unsigned</option>\n\
             <option value=\"failed\">failed</option>\n</select></label>\n\
             <label>Player <input id=\"filter-player\" type=\"search\" placeholder=\"part of a name\"></label>\n\
             <label>Text <input id=\"filter-text\" type=\"search\" placeholder=\"id, event, site, date, result\"></label>\n\
             <span id=\"filter-count\" aria-live=\"polite\"></span>\n</form>\n",
        );
        let _ = writeln!(
            html,
            "<table id=\"results\" hidden>\n{HEAD_ROW}\n<tbody></tbody>\n</table>"
        );
        let mut nav = String::new();
        if self.pages > 1 {
            nav.push_str("<nav class=\"pages\">Pages: <b>1</b>");
            for k in 2..=self.pages {
                let _ = write!(nav, " <a href=\"index/{k}.html\">{k}</a>");
            }
            nav.push_str("</nav>\n");
        }
        let _ = writeln!(
            html,
            "<div id=\"listing\">\n{nav}<table id=\"games\">\n{HEAD_ROW}\n<tbody>"
        );
        for row in &self.first {
            html.push_str(&row.html(""));
            html.push('\n');
        }
        let _ = writeln!(html, "</tbody>\n</table>\n{nav}</div>");
        html.push_str("</main>\n</body>\n</html>\n");
        html
    }
}
