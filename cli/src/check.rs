//! `yam check`: syntax and rules of every game in one or more archives.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use yam_notation::split::{Piece, Splitter};
use yam_notation::{ParseError, Pos, ReadError, Reader};
use yam_referee::check::{Checker, GameReport, Verdict, Violation};

use crate::diagnostics::render;
use crate::rulesets::RecordRulesets;
use crate::{EXIT_INVALID, EXIT_USAGE, EXIT_VALID};

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

/// Run `yam check`; returns the exit code.
pub fn run(args: &CheckArgs) -> u8 {
    let mut code = EXIT_VALID;
    let stdout = io::stdout();
    let files = match expand(&args.files) {
        Ok(files) => files,
        Err((path, e)) => {
            eprintln!("{}: cannot read directory: {e}", path.display());
            return EXIT_USAGE;
        }
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
                    code = EXIT_USAGE;
                    continue;
                }
            }
        };
        match check_file(path, input, args.quiet, jobs, size) {
            Ok(tally) => {
                if tally.syntax_errors + tally.rule_errors > 0 && code == EXIT_VALID {
                    code = EXIT_INVALID;
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
                code = EXIT_USAGE;
            }
        }
    }
    code
}

/// The files named, with each directory replaced by the `.yam` files below
/// it, in name order.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, (PathBuf, io::Error)> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            collect_yam(path, &mut found).map_err(|e| (path.clone(), e))?;
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn collect_yam(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_yam(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "yam") {
            out.push(path);
        }
    }
    Ok(())
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

/// How many bytes of an archive one worker takes at a time: a few
/// milliseconds of work, so that handing pieces out costs nothing, and
/// small beside the program itself, so that the pieces in flight (two a
/// worker) leave the peak memory the same for any size of archive.
const PIECE: usize = 1 << 18;

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

/// Cut an archive into pieces of whole games, hand them to `jobs` workers
/// running `work`, and give what each piece's games came to to `report`, in
/// file order, with a progress bar on a terminal (none when standard error
/// is not one, or for small inputs).
///
/// Pieces come back in any order and wait until those before them are
/// reported; at most two per worker are in flight, so memory stays bounded
/// whatever the archive's size. Each allocation is freed by the thread that
/// made it: a piece by the reading thread, a piece's results by the worker
/// that produced them (they go back to it with its next piece). Freed
/// elsewhere, the allocator's per-thread caches and arenas let the peak
/// memory creep up with the archive's size (+22% over a gigabyte with two
/// workers).
pub(crate) fn stream_pieces<T: Send>(
    input: impl Read + Send,
    jobs: usize,
    size: Option<u64>,
    work: impl Fn(&Piece) -> Vec<T> + Sync,
    mut report: impl FnMut(&T, &indicatif::ProgressBar),
) -> io::Result<()> {
    let progress = match size {
        Some(total) if total > 4 * PIECE as u64 => indicatif::ProgressBar::new(total),
        _ => indicatif::ProgressBar::hidden(),
    };
    progress.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let jobs = jobs.max(1);
    const PER_WORKER: usize = 2;
    let mut read_error = None;
    let work = &work;
    std::thread::scope(|scope| {
        // Bounded channels hold their slots in one allocation: an unbounded
        // one allocates blocks in the sending thread that the receiving
        // thread frees. Neither ever fills: at most `PER_WORKER` pieces a
        // worker are in flight.
        let (done_tx, done_rx) = std::sync::mpsc::sync_channel::<Done<T>>(jobs * PER_WORKER);
        let mut workers = Vec::with_capacity(jobs);
        for worker in 0..jobs {
            let (job_tx, job_rx) = std::sync::mpsc::sync_channel::<Job<T>>(PER_WORKER + 1);
            let done_tx = done_tx.clone();
            scope.spawn(move || {
                for job in job_rx {
                    drop(job.garbage);
                    let Some(piece) = job.piece else { continue };
                    let results = work(&piece);
                    let done = Done {
                        worker,
                        index: job.index,
                        piece,
                        results,
                    };
                    if done_tx.send(done).is_err() {
                        return;
                    }
                }
            });
            workers.push(Worker {
                jobs: job_tx,
                in_flight: 0,
                garbage: Vec::new(),
            });
        }
        drop(done_tx);
        let mut pending = std::collections::BTreeMap::new();
        let mut next_to_report = 0usize;
        let mut arrived = |workers: &mut Vec<Worker<T>>, done: Done<T>| {
            workers[done.worker].in_flight -= 1;
            let bytes = done.piece.bytes.len() as u64;
            drop(done.piece);
            pending.insert(done.index, (done.worker, bytes, done.results));
            while let Some((worker, bytes, results)) = pending.remove(&next_to_report) {
                for item in &results {
                    report(item, &progress);
                }
                progress.inc(bytes);
                workers[worker].garbage.push(results);
                next_to_report += 1;
            }
        };
        for (index, piece) in Splitter::new(input, PIECE).enumerate() {
            let piece = match piece {
                Ok(p) => p,
                Err(e) => {
                    read_error = Some(e);
                    break;
                }
            };
            // The least busy worker, once one has room.
            let worker = loop {
                let (worker, least) = workers
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, w)| w.in_flight)
                    .map(|(i, w)| (i, w.in_flight))
                    .unwrap_or((0, 0));
                if least < PER_WORKER {
                    break worker;
                }
                match done_rx.recv() {
                    Ok(done) => arrived(&mut workers, done),
                    // A worker panicked: its pieces never come back.
                    Err(_) => return,
                }
            };
            let w = &mut workers[worker];
            let job = Job {
                index,
                piece: Some(piece),
                garbage: w.garbage.pop(),
            };
            if w.jobs.send(job).is_err() {
                return;
            }
            w.in_flight += 1;
        }
        while workers.iter().any(|w| w.in_flight > 0) {
            match done_rx.recv() {
                Ok(done) => arrived(&mut workers, done),
                Err(_) => return,
            }
        }
        // The last results go back to be freed; dropping the senders then
        // ends the workers.
        for mut w in workers {
            while let Some(results) = w.garbage.pop() {
                let _ = w.jobs.send(Job {
                    index: 0,
                    piece: None,
                    garbage: Some(results),
                });
            }
        }
    });
    progress.finish_and_clear();
    match read_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A piece for a worker (none: only free), with results it made before,
/// to free.
struct Job<T> {
    index: usize,
    piece: Option<Piece>,
    garbage: Option<Vec<T>>,
}

/// A piece's results, from the worker that made them.
struct Done<T> {
    worker: usize,
    index: usize,
    piece: Piece,
    results: Vec<T>,
}

/// The reading thread's view of one worker.
struct Worker<T> {
    jobs: std::sync::mpsc::SyncSender<Job<T>>,
    in_flight: usize,
    /// Results reported, waiting to go back (this list itself stays with
    /// the reading thread).
    garbage: Vec<Vec<T>>,
}

/// Move a position found in a piece into the whole file's terms.
pub(crate) fn shift_pos(piece: &Piece, pos: &mut Pos) {
    pos.offset += piece.offset;
    pos.line = pos.line.saturating_add(piece.line - 1);
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
