//! `yam check`: syntax and rules of every game in one or more archives.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use yam_notation::split::Piece;
use yam_notation::{ParseError, Pos, ReadError, Reader};
use yam_referee::check::{Checker, GameReport, Verdict};

use crate::archive::{expand, shift_pos, stream_pieces};
use crate::diagnostics::{render_syntax, render_violation};
use crate::error::{Error, Result, Status};
use crate::game::rulesets::RecordRulesets;

/// Arguments of `yam check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Record files to check (`-` for standard input), or directories to
    /// search for `.yam` files. Each file may hold many games.
    #[arg(required = true, value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Print only the summary line of each file, not each error.
    #[arg(short, long)]
    pub quiet: bool,
    /// How many games to check at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// What checking one file found.
#[derive(Debug, Default)]
struct Tally {
    games: u64,
    valid: u64,
    syntax_errors: u64,
    rule_errors: u64,
    unchecked: u64,
    plies: u64,
}

/// Run `yam check`.
pub fn run(args: &CheckArgs) -> Result<Status> {
    let mut status = Status::Valid;
    let stdout = io::stdout();
    let files = match expand(&args.files) {
        Ok(files) => files,
        Err((path, e)) => return Err(Error::io(path, "cannot read directory", e)),
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    for path in &files {
        let started = std::time::Instant::now();
        let mut size = None;
        let input: Box<dyn Read + Send> = if path.as_os_str() == "-" {
            Box::new(io::stdin())
        } else {
            match File::open(path) {
                Ok(f) => {
                    size = f.metadata().ok().map(|m| m.len());
                    Box::new(f)
                }
                Err(e) => {
                    eprintln!("{}: cannot open: {e}", path.display());
                    status = status.and(Status::Unreadable);
                    continue;
                }
            }
        };
        match check_file(path, input, args.quiet, jobs, size) {
            Ok(tally) => {
                if tally.syntax_errors + tally.rule_errors > 0 {
                    status = status.and(Status::Invalid);
                }
                let mut line = format!(
                    "{}: {} game{}, {} valid, {} invalid ({} syntax, {} rules), {} moves",
                    path.display(),
                    tally.games,
                    if tally.games == 1 { "" } else { "s" },
                    tally.valid,
                    tally.syntax_errors + tally.rule_errors,
                    tally.syntax_errors,
                    tally.rule_errors,
                    tally.plies,
                );
                if tally.unchecked > 0 {
                    line.push_str(&format!(", {} checked for syntax only", tally.unchecked));
                }
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
                eprintln!("{}: read error: {e}", path.display());
                status = status.and(Status::Unreadable);
            }
        }
    }
    Ok(status)
}

/// One game's fate, with positions already in the whole file's terms.
#[derive(Debug)]
enum Checked {
    Game(GameReport),
    Syntax(Box<ParseError>),
}

/// Check one piece of an archive on its own.
fn check_piece(path: &Path, piece: &Piece) -> Vec<Checked> {
    let mut reader = Reader::new(&piece.bytes[..]);
    // Ruleset files are named relative to the record's directory.
    let mut checker = Checker::with_rulesets(Box::new(RecordRulesets::beside(path)));
    let mut out = Vec::new();
    let shift = |pos: &mut Pos| shift_pos(piece, pos);
    loop {
        match reader.read_game(&mut checker) {
            Ok(None) => return out,
            Ok(Some(mut report)) => {
                if let Verdict::Illegal(v) = &mut report.verdict {
                    shift(&mut v.span.start);
                }
                out.push(Checked::Game(report));
            }
            Err(ReadError::Syntax(mut e)) => {
                shift(&mut e.pos);
                shift(&mut e.game_start);
                out.push(Checked::Syntax(e));
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
    jobs: usize,
    size: Option<u64>,
) -> io::Result<Tally> {
    let mut tally = Tally::default();
    let mut games_before = 0u64;
    stream_pieces(
        input,
        jobs,
        size,
        |piece| check_piece(path, piece),
        |item, progress| {
            games_before += 1;
            record(path, games_before, item, quiet, &mut tally, progress);
        },
    )?;
    Ok(tally)
}

/// Count one game and print what is wrong with it.
fn record(
    path: &Path,
    game: u64,
    item: &Checked,
    quiet: bool,
    tally: &mut Tally,
    progress: &indicatif::ProgressBar,
) {
    tally.games += 1;
    let say = |text: String| {
        if !quiet {
            progress.suspend(|| eprint!("{text}"));
        }
    };
    match item {
        Checked::Game(report) => {
            tally.plies += u64::from(report.plies);
            match &report.verdict {
                Verdict::Legal => tally.valid += 1,
                Verdict::RulesNotChecked(why) => {
                    tally.valid += 1;
                    tally.unchecked += 1;
                    let id = if report.game_id.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", report.game_id)
                    };
                    say(format!(
                        "{}: game {game}{id}: syntax checked; rules not checked: {why}\n",
                        path.display()
                    ));
                }
                Verdict::Illegal(v) => {
                    tally.rule_errors += 1;
                    say(render_violation(path, game, report, v));
                }
            }
        }
        Checked::Syntax(e) => {
            tally.syntax_errors += 1;
            let mut e = e.clone();
            e.game = game;
            say(render_syntax(path, &e));
        }
    }
}
