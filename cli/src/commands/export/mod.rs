//! `yam export`: for readers. `--plain` writes the reader's copy of a
//! record, without the machine evidence; `--html` writes a static site of
//! archives (see `html`).

mod html;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use yam_notation::split::Piece;
use yam_notation::{Both, ParseError, RawGrammar, ReadError, Reader, RecordBuilder, write_record};
use yam_referee::check::{Checker, GameReport, Verdict as CheckVerdict};
use yam_referee::signed::write::plain;
use yam_referee::signed::{Verdict, follow_takebacks, verify_text};

use crate::archive::nth::{Nth, nth_of};
use crate::archive::sink::Sink;
use crate::archive::{self, frame_in_piece, shift_pos, stream_pieces_of};
use crate::diagnostics::{Frame, render_syntax, render_violation};
use crate::error::{Error, Result, Status};
use crate::game::record::SignedWithRecord;
use crate::game::rulesets::RecordRulesets;

/// Arguments of `yam export`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("format").required(true).args(["plain", "html"])))]
pub struct ExportArgs {
    /// Strip the signed evidence ([%event] commands and the fair-play tags),
    /// keeping moves, prose, NAGs, variations and readable dice. Takes one
    /// record file, streamed one game at a time; a game that does not
    /// parse is reported and skipped (exit code 1), the others exported.
    #[arg(long)]
    pub plain: bool,
    /// Write a static HTML site of the archives into the directory OUT: an
    /// index, and a page per game with diagrams to step through.
    #[arg(long, requires = "out")]
    pub html: bool,
    /// The record files (every game of each is exported); with --html,
    /// directories too, searched for .yam files.
    #[arg(value_name = "ARCHIVE", required = true)]
    pub files: Vec<PathBuf>,
    /// --plain: write here instead of standard output. --html: the site's
    /// directory (created if missing; the site's files in it are replaced).
    #[arg(short, long, value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// --plain: replace OUT if it exists. (--html replaces only the pages
    /// an earlier export wrote in OUT, and needs no --force.)
    #[arg(long)]
    pub force: bool,
    /// --plain: print only the summary line, not each game skipped or
    /// breaking the rules.
    #[arg(short, long)]
    pub quiet: bool,
    /// --plain: how many workers export at once (default: 1). More are
    /// faster on an idle machine, but each worker's heap grows with the
    /// archive's size (two: 16.7 MB at 1 GB, against 8.6 MB for one).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// Run `yam export`.
pub fn run(args: &ExportArgs) -> Result<Status> {
    if args.html {
        let Some(out) = &args.out else {
            return Err(Error::usage("yam export --html needs --out DIR"));
        };
        return html::export(&args.files, out);
    }
    let [file] = &args.files[..] else {
        return Err(Error::usage("yam export --plain takes one record file"));
    };
    run_plain(args, file)
}

/// One piece of an archive, as `--plain` exports it: the reader's copies
/// of its good games in one buffer (each after a blank line), and the
/// games that do not parse.
#[derive(Debug)]
struct ExportedPiece {
    /// The games exported, each preceded by `\n`.
    text: Text,
    /// How many games the piece holds, good or bad.
    games: u64,
    /// How many of them are in `text`.
    exported: u64,
    /// The others: their place in the piece (0 is its first game) and why
    /// (positions in the file's terms).
    /// Each game skipped: its index in the piece, why, and the text
    /// around the fault (taken from the piece, so the file is not read
    /// again).
    skipped: Vec<(u64, Box<ParseError>, Box<Frame>)>,
    /// Each unsigned game exported that breaks the rules: its index in the
    /// piece, what `yam check` found, and the text around the fault.
    broken: Vec<(u64, GameReport, Box<Frame>)>,
}

std::thread_local! {
    /// A worker's buffers of exported text, kept for its next pieces.
    static BUFFERS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A piece's exported text. It waits, in order, for the pieces before it
/// to be written, while its worker reads the next pieces: a buffer freed
/// after such a wait and allocated anew leaves holes among the worker's
/// many small allocations, and the peak memory creeps up with the
/// archive's size. So the buffer is kept: dropped (by the worker that made
/// it, see [`crate::archive::stream_pieces`]), it goes back to that worker's pool, and the
/// next piece reuses it.
#[derive(Debug)]
struct Text(String);

impl Text {
    fn with_capacity(capacity: usize) -> Text {
        let kept = BUFFERS.with(|b| b.borrow_mut().pop());
        Text(match kept {
            Some(mut s) => {
                s.clear();
                s.reserve(capacity);
                s
            }
            None => String::with_capacity(capacity),
        })
    }
}

impl Drop for Text {
    fn drop(&mut self) {
        let s = std::mem::take(&mut self.0);
        let _ = BUFFERS.try_with(|b| b.borrow_mut().push(s));
    }
}

/// The pieces `--plain` reads at a time: a quarter of `check`'s, since
/// each piece's exported text, as large as the piece, waits in memory for
/// its turn to be written (two pieces a worker in flight).
const PLAIN_PIECE: usize = 1 << 16;

/// What `--plain` made of an archive.
#[derive(Debug, Default)]
struct Tally {
    exported: u64,
    skipped: u64,
    /// Unsigned games exported that break the rules.
    broken: u64,
}

/// `--plain`: the archive streamed through the shared reading path
/// (pieces of whole games, `--jobs` workers, one by default, in file
/// order), each game written out as soon as its turn comes; a game that
/// does not parse is reported as `yam check` reports it and skipped. Memory stays bounded by the
/// largest game, whatever the archive's size.
fn run_plain(args: &ExportArgs, file: &Path) -> Result<Status> {
    let (input, size) = archive::open_input(file).map_err(|e| Error::io(file, "cannot open", e))?;
    // One worker unless asked: see `--jobs`.
    let jobs = args.jobs.unwrap_or(1);
    let target = args.out.as_deref().unwrap_or(Path::new("standard output"));
    let mut sink = Sink::open(args.out.as_deref(), args.force)
        .map_err(|e| Error::io(target, "cannot write", e))?;
    let mut tally = Tally::default();
    let mut games = 0u64;
    let mut write_error = None;
    stream_pieces_of(
        PLAIN_PIECE,
        input,
        jobs,
        size,
        |piece| vec![export_piece(file, piece)],
        |out: &ExportedPiece, progress| {
            for (index, e, frame) in out.skipped.iter().filter(|_| !args.quiet) {
                let mut e = e.clone();
                e.game = games + index + 1;
                let shown = render_syntax(file, &e, Some(frame));
                // The offending text once more: a large archive's
                // diagnostic has no frame to show it in.
                let found = match e.found.split_whitespace().next() {
                    Some(word) => format!(", at {word:?}"),
                    None => String::new(),
                };
                progress.suspend(|| {
                    eprint!("{shown}");
                    eprintln!(
                        "{}: game {} skipped: syntax error at line {}, column {}{found}",
                        file.display(),
                        e.game,
                        e.pos.line,
                        e.pos.column
                    );
                });
            }
            for (index, report, frame) in out.broken.iter().filter(|_| !args.quiet) {
                if let CheckVerdict::Illegal(v) = &report.verdict {
                    let game = games + index + 1;
                    let shown = render_violation(file, game, report, v, Some(frame));
                    progress.suspend(|| {
                        eprint!("{shown}");
                        eprintln!(
                            "{}: game {game} exported with a note: it breaks the rules at line {}, column {}",
                            file.display(),
                            v.span.start.line,
                            v.span.start.column
                        );
                    });
                }
            }
            games += out.games;
            tally.skipped += out.skipped.len() as u64;
            tally.broken += out.broken.len() as u64;
            // No blank line before the first game of all.
            let text = match tally.exported {
                0 => out.text.0.strip_prefix('\n').unwrap_or(&out.text.0),
                _ => &out.text.0,
            };
            tally.exported += out.exported;
            if write_error.is_none()
                && let Err(e) = sink.write_all(text.as_bytes())
            {
                write_error = Some(e);
            }
        },
    )
    .map_err(|e| Error::io(file, "read error", e))?;
    if let Some(e) = write_error {
        return Err(Error::io(target, "cannot write", e));
    }
    sink.finish()
        .map_err(|e| Error::io(target, "cannot write", e))?;
    let broken = match tally.broken {
        0 => String::new(),
        n => format!(" ({n} breaking the rules)"),
    };
    eprintln!(
        "{}: {} game{} exported{broken}, {} skipped",
        file.display(),
        tally.exported,
        if tally.exported == 1 { "" } else { "s" },
        tally.skipped
    );
    Ok(if tally.skipped > 0 || tally.broken > 0 {
        Status::Invalid
    } else {
        Status::Valid
    })
}

/// Export the games of one piece on their own: each read once, as its
/// signed view (for the note on what verification found) and its record.
fn export_piece(file: &Path, piece: &Piece) -> ExportedPiece {
    let rulesets = RecordRulesets::beside(file);
    let mut reader = Reader::new(&piece.bytes[..]);
    // One reading feeds both the signed view with its record and `yam
    // check`'s checker: an unsigned game's only verdict is the rules', and
    // it must be the one `yam check` gives (a signed game's verification
    // replays the main line itself, not its variations).
    let mut visitor = Both(
        SignedWithRecord::new(),
        Checker::with_rulesets(Box::new(RecordRulesets::beside(file))),
    );
    let mut out = ExportedPiece {
        text: Text::with_capacity(piece.bytes.len() + piece.bytes.len() / 8),
        games: 0,
        exported: 0,
        skipped: Vec::new(),
        broken: Vec::new(),
    };
    loop {
        let read = reader.read_game(&mut visitor);
        let index = out.games;
        match read {
            // (A slice cannot fail to read.)
            Ok(None) | Err(ReadError::Io(_)) => return out,
            Ok(Some(((signed, Some(record)), mut report))) => {
                let verdict = verify_text(&signed, &rulesets);
                let mut note = note(&verdict);
                let mut taken_back = &[][..];
                if let Verdict::Verified(verified) = &verdict {
                    follow_takebacks(&mut report, verified, signed.variations);
                    taken_back = &verified.taken_back[..];
                }
                // An unsigned game has only the rules' verdict; a signed one
                // that verifies may still carry variations no signature
                // covers, which `yam verify` holds to the rules too.
                if matches!(verdict, Verdict::Unsigned | Verdict::Verified(_))
                    && let CheckVerdict::Illegal(v) = &mut report.verdict
                {
                    shift_pos(piece, &mut v.span.start);
                    if matches!(verdict, Verdict::Verified(_)) {
                        note =
                            "removed by yam export --plain; its signatures held, but the original \
                                did NOT verify"
                                .to_owned();
                    }
                    let _ = write!(
                        note,
                        "; it breaks the rules at line {}: {}: {}",
                        v.span.start.line, v.token, v.reason
                    );
                    let frame = frame_in_piece(piece, v.span.start);
                    out.broken.push((index, report, frame));
                }
                out.text.0.push('\n');
                write_record::<RawGrammar>(&plain(&record, &note, taken_back), &mut out.text.0);
                out.exported += 1;
            }
            Ok(Some(((_, None), _))) => {
                // Only the record's stricter reading refused the game:
                // read it once more as a record, to say why.
                let mut e = record_error(&piece.bytes, reader.games_read());
                shift_pos(piece, &mut e.pos);
                shift_pos(piece, &mut e.game_start);
                let frame = frame_in_piece(piece, e.pos);
                out.skipped.push((index, e, frame));
            }
            Err(ReadError::Syntax(mut e)) => {
                shift_pos(piece, &mut e.pos);
                shift_pos(piece, &mut e.game_start);
                let frame = frame_in_piece(piece, e.pos);
                out.skipped.push((index, e, frame));
            }
        }
        out.games += 1;
    }
}

/// Why game `number` of `bytes` does not read as a record.
fn record_error(bytes: &[u8], number: u64) -> Box<ParseError> {
    let mut builder = RecordBuilder::<RawGrammar>::new();
    let found = nth_of(bytes, number, &mut builder, |_| {});
    match found {
        Ok(Nth::Syntax(e)) => e,
        // The two readings disagree on whether it parses: a defect, said
        // as plainly as possible rather than hidden.
        _ => Box::new(ParseError {
            pos: yam_notation::Pos::START,
            kind: yam_notation::ErrorKind::Expected("a record Yam can read".into()),
            found: String::new(),
            game: number,
            game_start: yam_notation::Pos::START,
        }),
    }
}

/// What verification found, for the record's `Plain` tag.
fn note(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Verified(v) if v.is_practice() => {
            "removed by yam export --plain; the original is an unverified practice game".to_owned()
        }
        Verdict::Verified(_) => {
            "removed by yam export --plain; the original verified (yam verify)".to_owned()
        }
        Verdict::Unsigned => "none: the original was not signed".to_owned(),
        Verdict::Failed(f) => format!(
            "removed by yam export --plain; the original did NOT verify: {}",
            f.reason
        ),
    }
}
