//! `yam check`: syntax and rules of every game in one or more archives.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use yam_notation::split::Piece;
use yam_notation::{ParseError, Pos, ReadError, Reader};
use yam_referee::check::{ChanceSource, Checker, GameReport, Verdict};

use crate::archive::{
    NoGame, expand, frame_in_piece, game_id_of_fault, grand_total, open_input, shift_pos,
    stream_pieces,
};
use crate::diagnostics::{Frame, render_syntax, render_violation};
use crate::error::{Error, Result, Status};
use crate::game::rulesets::RecordRulesets;
use crate::json::{CHECK_SCHEMA, Failure, Format, emit};
use serde::Serialize;

/// Arguments of `yam check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Record files to check (`-` for standard input), or directories to
    /// search for `.yam` files (`.YAM` too). Each file may hold many games.
    /// A path that yields no game is a warning, and exit code 2; several
    /// files end with a grand total.
    #[arg(required = true, value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Print only the summary line of each file, not each error.
    #[arg(short, long)]
    pub quiet: bool,
    /// How many games to check at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// How to print: `human`, or `json` for JSON Lines (one object a game,
    /// a file, the total; schema `yam-check/1`, docs/json.md).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// One game, as `--format json` prints it (docs/schema/check-1.json).
#[derive(Debug, Serialize)]
struct GameLine<'a> {
    schema: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    file: String,
    /// 1-based, in the file, as the human output counts.
    game: u64,
    game_id: &'a str,
    /// The game's type (`Khan`, ...), unless its header could not be read.
    game_type: Option<&'static str>,
    /// `valid`, `invalid` or `unchecked` (syntax checked, rules not).
    status: &'static str,
    plies: u32,
    /// Where a Genghis Khan game's cards came from: `moves`,
    /// `practice-seed` or `recorded-deal`.
    chance: Option<&'static str>,
    /// Why the rules were not checked (`unchecked` only).
    not_checked: Option<&'a str>,
    /// The first failure (`invalid` only).
    error: Option<Failure>,
}

/// A file's summary, or the total, as `--format json` prints it.
#[derive(Debug, Serialize)]
struct SummaryLine {
    schema: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    /// The file (`file` lines only).
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// Files read (`total` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<usize>,
    games: u64,
    valid: u64,
    unchecked: u64,
    invalid: u64,
    syntax_errors: u64,
    rule_errors: u64,
    recorded_deals: u64,
    plies: u64,
    /// The file's size in bytes, when known (`file` lines only).
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
}

impl Tally {
    fn line(&self, kind: &'static str, file: Option<&Path>, bytes: Option<u64>) -> SummaryLine {
        SummaryLine {
            schema: CHECK_SCHEMA,
            kind,
            file: file.map(|f| f.display().to_string()),
            files: None,
            games: self.games,
            valid: self.valid,
            unchecked: self.unchecked,
            invalid: self.syntax_errors + self.rule_errors,
            syntax_errors: self.syntax_errors,
            rule_errors: self.rule_errors,
            recorded_deals: self.dealt,
            plies: self.plies,
            bytes,
        }
    }
}

/// What checking one file (or all of them) found.
#[derive(Debug, Default)]
struct Tally {
    games: u64,
    valid: u64,
    syntax_errors: u64,
    rule_errors: u64,
    unchecked: u64,
    /// Genghis Khan games whose rules were checked from a recorded deal.
    dealt: u64,
    plies: u64,
}

impl Tally {
    /// The counts, for a summary line.
    fn counts(&self) -> String {
        // A game whose rules could not be applied is not called valid:
        // it is counted apart, and each such game says why (above).
        let unchecked = match self.unchecked {
            0 => String::new(),
            n => format!(", {n} syntax-checked only (rules not checked)"),
        };
        let mut line = format!(
            "{} game{}, {} valid{unchecked}, {} invalid ({} syntax, {} rules), {} plies",
            self.games,
            if self.games == 1 { "" } else { "s" },
            self.valid,
            self.syntax_errors + self.rule_errors,
            self.syntax_errors,
            self.rule_errors,
            self.plies,
        );
        // Genghis Khan games checked from a deal written down by hand are
        // valid, and the summary says how many: nothing vouches for a deal.
        if self.dealt > 0 {
            line.push_str(&format!(
                ", {} rules-checked from a recorded deal",
                self.dealt
            ));
        }
        line
    }

    fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.valid += other.valid;
        self.syntax_errors += other.syntax_errors;
        self.rule_errors += other.rule_errors;
        self.unchecked += other.unchecked;
        self.dealt += other.dealt;
        self.plies += other.plies;
    }
}

/// Run `yam check`.
pub fn run(args: &CheckArgs) -> Result<Status> {
    let mut status = Status::Valid;
    let stdout = io::stdout();
    let expansion =
        expand(&args.files).map_err(|(path, e)| Error::io(path, "cannot read directory", e))?;
    for empty in &expansion.empty {
        eprintln!("warning: {empty}");
        status = status.and(Status::NoRecords);
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut total = Tally::default();
    let mut unreadable = 0usize;
    for path in &expansion.files {
        let started = std::time::Instant::now();
        let (input, size) = match open_input(path) {
            Ok(opened) => opened,
            Err(e) => {
                eprintln!(
                    "{}: cannot open: {e}",
                    crate::diagnostics::visible_path(path)
                );
                status = status.and(Status::Unreadable);
                unreadable += 1;
                continue;
            }
        };
        match check_file(path, input, args.quiet, args.format, jobs, size) {
            Ok(tally) => {
                if tally.syntax_errors + tally.rule_errors > 0 {
                    status = status.and(Status::Invalid);
                }
                if tally.games == 0 {
                    eprintln!("warning: {}", NoGame(path));
                    status = status.and(Status::NoRecords);
                }
                total.add(&tally);
                if args.format == Format::Json {
                    emit(&tally.line("file", Some(path), size));
                    continue;
                }
                let mut line = format!(
                    "{}: {}",
                    crate::diagnostics::visible_path(path),
                    tally.counts()
                );
                if let Some(bytes) = size {
                    let secs = started.elapsed().as_secs_f64().max(1e-6);
                    line.push_str(&format!(
                        "; {:.1} MB in {secs:.2} s ({:.0} MB/s)",
                        bytes as f64 / 1e6,
                        bytes as f64 / 1e6 / secs
                    ));
                }
                let _ = writeln!(stdout.lock(), "{line}");
            }
            Err(e) => {
                eprintln!(
                    "{}: read error: {e}",
                    crate::diagnostics::visible_path(path)
                );
                status = status.and(Status::Unreadable);
                unreadable += 1;
            }
        }
    }
    if expansion.several {
        // No total of no files in JSON: the schema's `files` is at least
        // one, and the warning on standard error says why nothing was read.
        if args.format == Format::Json {
            if expansion.files.is_empty() {
                return Ok(status);
            }
            let mut line = total.line("total", None, None);
            line.files = Some(expansion.files.len());
            emit(&line);
        } else {
            let _ = writeln!(
                stdout.lock(),
                "{}",
                grand_total(&total.counts(), &expansion, unreadable)
            );
        }
    }
    Ok(status)
}

/// One game's fate, with positions already in the whole file's terms, and
/// the text around its fault (none under `--quiet`: nothing is printed).
#[derive(Debug)]
enum Checked {
    Game(GameReport, Option<Box<Frame>>),
    /// A game that does not read: why, its frame, and the `GameId` its
    /// header gave before the fault (empty when none did).
    Syntax(Box<ParseError>, Option<Box<Frame>>, String),
}

/// Check one piece of an archive on its own; with `frames`, keep the text
/// around each fault from the piece, for its diagnostic.
fn check_piece(path: &Path, piece: &Piece, frames: bool) -> Vec<Checked> {
    WORKER.with_borrow_mut(|kept| {
        if kept.as_ref().is_some_and(|worker| worker.file != path) {
            *kept = None;
        }
        let worker = kept.get_or_insert_with(|| Worker {
            file: path.to_owned(),
            // Ruleset files are named relative to the record's directory.
            checker: Checker::with_rulesets(Box::new(RecordRulesets::beside(path))),
            buffer: Vec::new(),
        });
        let mut reader = Reader::with_buffer(&piece.bytes[..], std::mem::take(&mut worker.buffer));
        let out = check_piece_with(&mut reader, &mut worker.checker, piece, frames, path);
        worker.buffer = reader.into_buffer();
        out
    })
}

/// What a worker keeps from piece to piece of one file.
struct Worker {
    file: PathBuf,
    /// Its checker: the rulesets the file's games name are loaded, hashed
    /// and parsed once a worker, not once a piece (a quarter of a
    /// megabyte). Every game starts afresh in it (`Visitor::begin_game`).
    checker: Checker,
    /// Its reader's buffer, allocated and zeroed once a worker.
    buffer: Vec<u8>,
}

thread_local! {
    /// This worker's [`Worker`], for the file it checks.
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

/// [`check_piece`] with the worker's reader and checker.
fn check_piece_with(
    reader: &mut Reader<&[u8]>,
    checker: &mut Checker,
    piece: &Piece,
    frames: bool,
    path: &Path,
) -> Vec<Checked> {
    let mut out = Vec::new();
    let shift = |pos: &mut Pos| shift_pos(piece, pos);
    loop {
        let from = reader.bytes_read();
        match reader.read_game(checker) {
            Ok(None) => return out,
            Ok(Some(mut report)) => {
                if matches!(report.verdict, Verdict::Illegal(_)) {
                    let to = reader.bytes_read();
                    let game = usize::try_from(from)
                        .ok()
                        .zip(usize::try_from(to).ok())
                        .and_then(|(from, to)| piece.bytes.get(from..to));
                    if let Some(game) = game {
                        crate::game::record::follow_signed_takebacks(&mut report, game, path);
                    }
                }
                let mut framed = None;
                if let Verdict::Illegal(v) = &mut report.verdict {
                    shift(&mut v.span.start);
                    if frames {
                        framed = Some(frame_in_piece(piece, v.span.start));
                    }
                }
                out.push(Checked::Game(report, framed));
            }
            Err(ReadError::Syntax(mut e)) => {
                // Offsets in the piece, before they are made the file's.
                let game_id = game_id_of_fault(piece, &e);
                shift(&mut e.pos);
                shift(&mut e.game_start);
                let framed = frames.then(|| frame_in_piece(piece, e.pos));
                out.push(Checked::Syntax(e, framed, game_id));
            }
            // A slice cannot fail to read.
            Err(ReadError::Io(_)) => return out,
        }
    }
}

fn check_file(
    path: &Path,
    input: impl Read + Send,
    quiet: bool,
    format: Format,
    jobs: usize,
    size: Option<u64>,
) -> io::Result<Tally> {
    let mut tally = Tally::default();
    let mut games_before = 0u64;
    // Frames are for people: JSON and --quiet print none.
    let frames = !quiet && format == Format::Human;
    stream_pieces(
        input,
        jobs,
        size,
        |piece| check_piece(path, piece, frames),
        |item, progress| {
            games_before += 1;
            match format {
                Format::Human => record(path, games_before, item, quiet, &mut tally, progress),
                Format::Json => {
                    record(path, games_before, item, true, &mut tally, progress);
                    emit(&game_line(path, games_before, item));
                }
            }
        },
    )?;
    Ok(tally)
}

/// One game as a JSON line.
fn game_line<'a>(path: &Path, game: u64, item: &'a Checked) -> GameLine<'a> {
    let mut line = GameLine {
        schema: CHECK_SCHEMA,
        kind: "game",
        file: path.display().to_string(),
        game,
        game_id: "",
        game_type: None,
        status: "invalid",
        plies: 0,
        chance: None,
        not_checked: None,
        error: None,
    };
    match item {
        Checked::Game(report, _) => {
            line.game_id = &report.game_id;
            line.game_type = Some(report.game.name());
            line.plies = report.plies;
            line.chance = Some(match report.chance {
                ChanceSource::Moves => "moves",
                ChanceSource::PracticeSeed => "practice-seed",
                ChanceSource::RecordedDeal => "recorded-deal",
            });
            match &report.verdict {
                Verdict::Legal => line.status = "valid",
                Verdict::RulesNotChecked(why) => {
                    line.status = "unchecked";
                    line.not_checked = Some(why);
                }
                Verdict::Illegal(v) => line.error = Some(Failure::rules(v)),
            }
        }
        Checked::Syntax(e, _, game_id) => {
            line.game_id = game_id;
            line.error = Some(Failure::syntax(e));
        }
    }
    line
}

/// Count one game and print what is wrong with it (nothing, not even
/// rendered, under `--quiet`).
fn record(
    path: &Path,
    game: u64,
    item: &Checked,
    quiet: bool,
    tally: &mut Tally,
    progress: &indicatif::ProgressBar,
) {
    tally.games += 1;
    let say = |text: &dyn Fn() -> String| {
        if !quiet {
            let text = text();
            progress.suspend(|| eprint!("{text}"));
        }
    };
    match item {
        Checked::Game(report, frame) => {
            tally.plies += u64::from(report.plies);
            // Written only when something is said (never under --quiet).
            let id = || {
                if report.game_id.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", crate::mail::cards::clean_text(&report.game_id))
                }
            };
            match &report.verdict {
                Verdict::Legal => {
                    tally.valid += 1;
                    // A Genghis Khan game says where its cards came from:
                    // a recorded deal and a practice seed vouch for
                    // different things, and neither is signed evidence.
                    if report.chance == ChanceSource::RecordedDeal {
                        tally.dealt += 1;
                    }
                    if report.chance != ChanceSource::Moves {
                        say(&|| {
                            format!(
                                "{}: game {game}{}: {}\n",
                                crate::diagnostics::visible_path(path),
                                id(),
                                report.chance.wording()
                            )
                        });
                    }
                }
                Verdict::RulesNotChecked(why) => {
                    tally.unchecked += 1;
                    say(&|| {
                        format!(
                            "{}: game {game}{}: syntax checked; rules not checked: {why}\n",
                            crate::diagnostics::visible_path(path),
                            id()
                        )
                    });
                }
                Verdict::Illegal(v) => {
                    tally.rule_errors += 1;
                    say(&|| render_violation(path, game, report, v, frame.as_deref()));
                }
            }
        }
        Checked::Syntax(e, frame, _) => {
            tally.syntax_errors += 1;
            say(&|| {
                let mut e = e.clone();
                e.game = game;
                render_syntax(path, &e, frame.as_deref())
            });
        }
    }
}
