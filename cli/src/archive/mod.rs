//! Reading many records: the paths named expanded into files (record
//! files, `.yam` in any case, below a directory), and a file
//! cut into pieces of whole games that a pool of workers handles at once,
//! reported in file order, with a progress bar on a terminal. `check`,
//! `verify` and `export` all read archives through here; `show` and
//! `engine export` find one game through [`nth`].

pub(crate) mod games;
pub(crate) mod nth;
pub(crate) mod progress;
pub(crate) mod sink;

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use yam_notation::Pos;
use yam_notation::split::{Piece, Splitter};

use crate::diagnostics::Frame;

/// The files that the paths named on a command line stand for.
#[derive(Debug, Default)]
pub struct Expansion {
    /// The files named, with each directory replaced by the record files
    /// below it, in name order.
    pub files: Vec<PathBuf>,
    /// The directories named that hold no record file.
    pub empty: Vec<NoRecords>,
    /// How many files below the directories named were not record files.
    pub skipped: usize,
    /// Whether more than one file or a directory was named: the command
    /// then ends with a grand total.
    pub several: bool,
}

/// A directory named that holds no record file, with what it holds.
#[derive(Debug, thiserror::Error)]
#[error("{}: no .yam record below this directory{}", crate::diagnostics::visible_path(dir), describe_skipped(.skipped, *.count))]
pub struct NoRecords {
    /// The directory.
    pub dir: PathBuf,
    /// The first few files skipped.
    pub skipped: Vec<PathBuf>,
    /// How many files were skipped.
    pub count: usize,
}

/// How many of the files skipped a message names.
const NAMED: usize = 5;

fn describe_skipped(skipped: &[PathBuf], count: usize) -> String {
    if count == 0 {
        return " (it holds no file)".to_owned();
    }
    let names: Vec<String> = skipped
        .iter()
        .map(|p| crate::diagnostics::visible_path(p))
        .collect();
    let more = if count > names.len() {
        format!(" and {} more", count - names.len())
    } else {
        String::new()
    };
    format!(
        " (skipped {count} other file{}: {}{more})",
        if count == 1 { "" } else { "s" },
        names.join(", ")
    )
}

/// Whether `path` names a record file: its extension is `yam`, in any
/// case (`GAME.YAM` is one).
pub fn is_record_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yam"))
}

/// The files the paths stand for: each file as named (whatever its
/// name), each directory replaced by the record files below it (see
/// `is_record_file`), in name order, with the directories that hold none
/// and a count of the other files skipped.
pub fn expand(paths: &[PathBuf]) -> Result<Expansion, (PathBuf, io::Error)> {
    let mut out = Expansion {
        several: paths.len() > 1,
        ..Expansion::default()
    };
    for path in paths {
        if path.is_dir() {
            out.several = true;
            let mut found = Vec::new();
            let mut skipped = Vec::new();
            collect_records(path, &mut found, &mut skipped).map_err(|e| (path.clone(), e))?;
            found.sort();
            skipped.sort();
            out.skipped += skipped.len();
            if found.is_empty() {
                let count = skipped.len();
                skipped.truncate(NAMED);
                out.empty.push(NoRecords {
                    dir: path.clone(),
                    skipped,
                    count,
                });
            }
            out.files.extend(found);
        } else {
            out.files.push(path.clone());
        }
    }
    Ok(out)
}

fn collect_records(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    skipped: &mut Vec<PathBuf>,
) -> io::Result<()> {
    walk_records(dir, out, skipped, &mut HashSet::new())
}

/// [`collect_records`] below `dir`. Each directory and each file is taken
/// once, by its canonical path: a symbolic link back up the tree (or two
/// links to one place) would otherwise walk for ever or count a record
/// twice. Only regular files are records: a FIFO or a device named
/// `*.yam` in a directory would block the whole command, so it is counted
/// with the other files skipped (named explicitly, it is read).
fn walk_records(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    skipped: &mut Vec<PathBuf>,
    seen: &mut HashSet<PathBuf>,
) -> io::Result<()> {
    if !first_visit(dir, seen) {
        return Ok(());
    }
    // In name order, so that of two names for one record the first is kept
    // whatever order the file system lists them in.
    let mut entries = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<io::Result<Vec<_>>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk_records(&path, out, skipped, seen)?;
        } else if is_record_file(&path) && path.is_file() {
            if first_visit(&path, seen) {
                out.push(path);
            }
        } else {
            skipped.push(path);
        }
    }
    Ok(())
}

/// Whether `path`'s canonical path is new to `seen` (and now in it); a
/// path that cannot be resolved counts as new, and its read says why.
fn first_visit(path: &Path, seen: &mut HashSet<PathBuf>) -> bool {
    std::fs::canonicalize(path).map_or(true, |real| seen.insert(real))
}

/// A file named that holds no game.
#[derive(Debug, thiserror::Error)]
#[error("{}: no game in this file", crate::diagnostics::visible_path(.0))]
pub struct NoGame<'a>(pub &'a Path);

/// An archive to stream: the file at `path`, or standard input for `-`,
/// with its size when known (for a progress bar). Every command that reads
/// records opens them here, so each takes `-` alike.
pub fn open_input(path: &Path) -> io::Result<(Box<dyn Read + Send>, Option<u64>)> {
    if path.as_os_str() == "-" {
        return Ok((Box::new(io::stdin()), None));
    }
    let file = File::open(path)?;
    let size = file.metadata().ok().map(|m| m.len());
    Ok((Box::new(file), size))
}

/// The grand total line after the files' summaries: `counts` (the games
/// of all of them), how many files, how many could not be read, and how
/// many other files the directories held.
pub fn grand_total(counts: &str, expansion: &Expansion, unreadable: usize) -> String {
    let files = expansion.files.len();
    let mut line = format!(
        "total: {counts}, in {files} file{}",
        if files == 1 { "" } else { "s" }
    );
    if unreadable > 0 {
        line.push_str(&format!(" ({unreadable} unreadable)"));
    }
    if expansion.skipped > 0 {
        // Named `.yam` or not, what is not a regular file (a pipe, a
        // socket) is no record either.
        line.push_str(&format!(
            "; {} other file{} skipped (not {})",
            expansion.skipped,
            if expansion.skipped == 1 { "" } else { "s" },
            if expansion.skipped == 1 {
                "a .yam record"
            } else {
                ".yam records"
            }
        ));
    }
    line
}

/// How many bytes of an archive one worker takes at a time: a few
/// milliseconds of work, so that handing pieces out costs nothing, and
/// small beside the program itself, so that the pieces in flight (two a
/// worker) leave the peak memory the same for any size of archive.
const PIECE: usize = 1 << 18;

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
    report: impl FnMut(&T, &indicatif::ProgressBar),
) -> io::Result<()> {
    stream_pieces_of(PIECE, input, jobs, size, work, report)
}

/// As [`stream_pieces`], in pieces of about `piece` bytes: smaller for a
/// command whose results are as large as its input (`export --plain`
/// holds each piece's text until its turn to be written), so that the
/// results in flight stay small too.
pub(crate) fn stream_pieces_of<T: Send>(
    piece_size: usize,
    input: impl Read + Send,
    jobs: usize,
    size: Option<u64>,
    work: impl Fn(&Piece) -> Vec<T> + Sync,
    mut report: impl FnMut(&T, &indicatif::ProgressBar),
) -> io::Result<()> {
    let progress = progress::bytes_bar(size);
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
        for (index, piece) in Splitter::new(input, piece_size).enumerate() {
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

/// The text around a fault at `pos` (in the whole file's terms), from the
/// piece that holds it: the diagnostic needs nothing else from the file.
pub(crate) fn frame_in_piece(piece: &Piece, pos: Pos) -> Box<Frame> {
    let at = usize::try_from(pos.offset.saturating_sub(piece.offset)).unwrap_or(usize::MAX);
    Box::new(Frame::capture(&piece.bytes, at, pos))
}

/// Move a position found in a piece into the whole file's terms.
pub(crate) fn shift_pos(piece: &Piece, pos: &mut Pos) {
    pos.offset += piece.offset;
    pos.line = pos.line.saturating_add(piece.line - 1);
}

/// The `GameId` the header of the game a syntax error `e` (its positions
/// still the piece's) stopped in gave before the fault ([`game_id_before`]
/// over the piece's bytes from the game's start to the fault); empty when
/// none did. For `check` and `verify` alike.
pub fn game_id_of_fault(piece: &Piece, e: &yam_notation::ParseError) -> String {
    usize::try_from(e.game_start.offset)
        .ok()
        .zip(usize::try_from(e.pos.offset).ok())
        .and_then(|(from, to)| piece.bytes.get(from..to))
        .map(game_id_before)
        .unwrap_or_default()
}

/// The `GameId` a game's header gives in `text` (the game read up to a
/// syntax error): a `[GameId "..."]` pair on a line of the header (tag
/// names are read without case). For the JSON line, which docs/json.md
/// promises names the game unless its header could not be read (`check` and
/// `verify` alike): a stray
/// token far below a header that read fine left it empty, and a site that
/// files results by `game_id` could not say whose game failed.
pub fn game_id_before(text: &[u8]) -> String {
    let header = text
        .windows(2)
        .position(|w| w == b"\n\n")
        .map_or(text, |end| &text[..end]);
    let header = String::from_utf8_lossy(header);
    for line in header.lines() {
        let Some(rest) = line.trim_start().strip_prefix('[') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some((name, rest)) = rest.split_at_checked(6) else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix('"') else {
            continue;
        };
        if !name.eq_ignore_ascii_case("GameId") {
            continue;
        }
        let mut value = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => value.extend(chars.next()),
                '"' => return value,
                c => value.push(c),
            }
        }
        return String::new();
    }
    String::new()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Two links back up the tree, a FIFO named like a record and a second
    /// link to a record: the walk ends, takes each record once and skips
    /// the FIFO (found by an attack on the build: the walk ran for ever,
    /// its memory growing, and a FIFO blocked `yam check` on a directory).
    #[test]
    fn a_directory_walk_survives_link_loops_and_skips_what_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.yam"), "[Game \"Khan\"]\n").unwrap();
        std::os::unix::fs::symlink(".", root.join("loop1")).unwrap();
        std::os::unix::fs::symlink(".", root.join("loop2")).unwrap();
        std::os::unix::fs::symlink(root.join("a.yam"), root.join("b.yam")).unwrap();
        let fifo = std::process::Command::new("mkfifo")
            .arg(root.join("f.yam"))
            .status()
            .unwrap();
        assert!(fifo.success());
        let expansion = expand(&[root.to_path_buf()]).unwrap();
        assert_eq!(expansion.files, vec![root.join("a.yam")]);
        assert_eq!(expansion.skipped, 1, "the FIFO");
    }
}
