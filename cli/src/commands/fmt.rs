//! `yam fmt`: rewrite archives in the canonical form (docs/notation.md,
//! section 8), keeping everything: moves (in each game's canonical
//! spelling), comments, commands and signed evidence, NAGs, variations.
//! Only the layout changes, so a record that verified verifies after, and
//! formatting twice gives what formatting once gave.
//!
//! A game that does not parse cannot be printed anew: it is copied as it
//! was, reported as `yam check` reports it, and the exit code is 1, so
//! that nothing is lost.

use std::path::{Path, PathBuf};

use yam_notation::castle_siege::CastleSiegeGrammar;
use yam_notation::genghis_khan::GenghisKhanGrammar;
use yam_notation::khan::KhanGrammar;
use yam_notation::{GameKind, MoveGrammar, Node, ParseError, RawGrammar, Record, write_record};

use crate::archive::games::{GameText, games_of};
use crate::archive::sink::Sink;
use crate::archive::{self, stream_pieces_of};
use crate::diagnostics::{Frame, render_syntax};
use crate::error::{Error, Result, Status};

/// Arguments of `yam fmt`.
#[derive(Debug, clap::Args)]
pub struct FmtArgs {
    /// The record files to format (each may hold many games).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Write here instead of standard output (the files one after another).
    #[arg(short, long, value_name = "OUT", conflicts_with_all = ["in_place", "check"])]
    pub out: Option<PathBuf>,
    /// Replace OUT if it exists.
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Rewrite each file in place (put whole in place at the end; a file
    /// already canonical is left untouched).
    #[arg(long, conflicts_with = "check")]
    pub in_place: bool,
    /// Write nothing: list the games that are not in canonical form, and
    /// exit 1 if there is one.
    #[arg(long)]
    pub check: bool,
    /// Print no diagnostics, only each file's summary.
    #[arg(short, long)]
    pub quiet: bool,
    /// How many games to format at once (default: one per core); the
    /// output is in file order whatever the number.
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// The pieces `fmt` reads at a time.
const PIECE: usize = 64 * 1024;

/// What formatting one file found.
#[derive(Debug, Default)]
struct Tally {
    games: u64,
    changed: u64,
    unreadable: u64,
    /// Bytes of the file that reached no piece: the rest of a stretch
    /// without a game start longer than the reader's element limit (64
    /// MiB), which the piece cutter skips (docs/notation.md, section 10).
    not_copied: u64,
}

/// What the workers hand back: where each piece began, then its games.
enum Unit {
    Piece { offset: u64, len: u64 },
    Game(Formatted),
}

/// Run `yam fmt`.
pub fn run(args: &FmtArgs) -> Result<Status> {
    if args.in_place && args.files.iter().any(|f| f.as_os_str() == "-") {
        // Standard input has no file to put back: it would make one named `-`.
        return Err(Error::usage(
            "yam fmt --in-place: standard input (-) cannot be rewritten in place; \
             use `yam fmt - > FILE`",
        ));
    }
    let mut status = Status::Valid;
    let mut sink = if args.in_place || args.check {
        None
    } else {
        let target = args.out.as_deref().unwrap_or(Path::new("standard output"));
        Some(
            Sink::open(args.out.as_deref(), args.force)
                .map_err(|e| Error::io(target, "cannot write", e))?,
        )
    };
    let mut first = true;
    for file in &args.files {
        let mut own = if args.in_place {
            Some(Vec::new())
        } else {
            None
        };
        let jobs = args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let tally = format_file(file, jobs, args.quiet, args.check, |bytes| {
            match (&mut sink, &mut own) {
                (_, Some(buffer)) => {
                    buffer.extend_from_slice(bytes);
                    Ok(())
                }
                (Some(sink), None) => {
                    if !first {
                        sink.write_all(b"\n")?;
                    }
                    first = false;
                    sink.write_all(bytes)
                }
                (None, None) => Ok(()),
            }
        })?;
        if tally.unreadable > 0 {
            status = status.and(Status::Invalid);
        }
        if args.check && tally.changed > 0 {
            status = status.and(Status::Invalid);
        }
        if tally.not_copied > 0 {
            // Said, and never put in place: the formatted text lacks them.
            eprintln!(
                "{}: {} bytes were not copied: the rest of a stretch of more than {} bytes without a game start (the reader's element limit){}",
                crate::diagnostics::visible_path(file),
                tally.not_copied,
                yam_notation::reader::DEFAULT_MAX_ELEMENT,
                if args.in_place {
                    "; the file is left as it was"
                } else {
                    ""
                }
            );
            status = status.and(Status::Invalid);
        }
        if let Some(buffer) = own
            && tally.changed > 0
            && tally.not_copied == 0
        {
            // The whole file is rewritten only when a game changed: the
            // canonical file keeps its bytes, its date and its links.
            let mut out =
                Sink::open(Some(file), true).map_err(|e| Error::io(file, "cannot write", e))?;
            out.write_all(&buffer)
                .and_then(|()| out.finish())
                .map_err(|e| Error::io(file, "cannot write", e))?;
        }
        eprintln!(
            "{}: {} game{}, {} {}, {} copied as written (they do not parse)",
            crate::diagnostics::visible_path(file),
            tally.games,
            if tally.games == 1 { "" } else { "s" },
            tally.changed,
            if args.check {
                "not canonical"
            } else {
                "reformatted"
            },
            tally.unreadable
        );
    }
    if let Some(sink) = sink {
        let target = args.out.as_deref().unwrap_or(Path::new("standard output"));
        sink.finish()
            .map_err(|e| Error::io(target, "cannot write", e))?;
    }
    Ok(status)
}

/// Format one file's games, handing each game's text to `write` in turn.
fn format_file(
    file: &Path,
    jobs: usize,
    quiet: bool,
    check: bool,
    mut write: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> Result<Tally> {
    let (input, size) = archive::open_input(file).map_err(|e| Error::io(file, "cannot open", e))?;
    let mut tally = Tally::default();
    let mut write_error = None;
    // Where the next piece should begin: a piece further on means bytes
    // the cutter skipped, which would be lost from the output unsaid
    // ("copied as written" of a 100 MB stretch wrote 67 MB).
    let mut expected = None;
    stream_pieces_of(
        PIECE,
        input,
        jobs,
        size,
        |piece| {
            let mut units = vec![Unit::Piece {
                offset: piece.offset,
                len: piece.bytes.len() as u64,
            }];
            units.extend(
                games_of(piece)
                    .into_iter()
                    .map(|g| Unit::Game(formatted(g))),
            );
            units
        },
        |unit: &Unit, progress| {
            let game = match unit {
                Unit::Piece { offset, len } => {
                    if let Some(at) = expected
                        && *offset > at
                    {
                        tally.not_copied += offset - at;
                    }
                    expected = Some(offset + len);
                    return;
                }
                Unit::Game(game) => game,
            };
            tally.games += 1;
            if let Some((e, frame)) = &game.refused {
                tally.unreadable += 1;
                if !quiet {
                    let mut e = e.clone();
                    e.game = tally.games;
                    let shown = render_syntax(file, &e, Some(frame));
                    progress.suspend(|| eprint!("{shown}"));
                }
            } else if game.changed {
                tally.changed += 1;
                // --check names each game that is not canonical.
                if check && !quiet {
                    progress.suspend(|| {
                        eprintln!(
                            "{}: game {}: not in canonical form",
                            crate::diagnostics::visible_path(file),
                            tally.games
                        )
                    });
                }
            }
            let mut text = Vec::with_capacity(game.text.len() + 2);
            if tally.games > 1 {
                text.push(b'\n');
            }
            text.extend_from_slice(&game.text);
            if !text.ends_with(b"\n") {
                text.push(b'\n');
            }
            if write_error.is_none()
                && let Err(e) = write(&text)
            {
                write_error = Some(e);
            }
        },
    )
    .map_err(|e| Error::io(file, "read error", e))?;
    // A stretch skipped to the end of the file has no piece after it.
    if let (Some(size), Some(at)) = (size, expected)
        && size > at
    {
        tally.not_copied += size - at;
    }
    if let Some(e) = write_error {
        return Err(Error::io(file, "cannot write", e));
    }
    Ok(tally)
}

/// One game, formatted (or copied, when it does not parse).
#[derive(Debug)]
struct Formatted {
    text: Vec<u8>,
    changed: bool,
    /// Why a game does not parse, and the text around the fault.
    refused: Option<(Box<ParseError>, Box<Frame>)>,
}

fn formatted(game: GameText) -> Formatted {
    match game.record {
        Ok(record) => {
            let text = canonical(record).into_bytes();
            let changed = text.strip_suffix(b"\n").unwrap_or(&text) != &game.text[..];
            Formatted {
                text,
                changed,
                refused: None,
            }
        }
        Err(refused) => Formatted {
            refused: Some(refused),
            text: game.text,
            changed: false,
        },
    }
}

/// `record` in canonical form: its moves in its game's canonical spelling
/// (a token the game's grammar cannot read is left as written), printed by
/// the canonical printer.
pub(crate) fn canonical(mut record: Record<String>) -> String {
    let respell: fn(&str) -> Option<String> = match record.game() {
        Some(GameKind::Khan) => |t| {
            let mut out = String::new();
            KhanGrammar::write_move(&KhanGrammar::parse_move(t).ok()?, &mut out);
            Some(out)
        },
        Some(GameKind::CastleSiege) => |t| {
            let mut out = String::new();
            CastleSiegeGrammar::write_move(&CastleSiegeGrammar::parse_move(t).ok()?, &mut out);
            Some(out)
        },
        Some(GameKind::GenghisKhan) => |t| {
            let mut out = String::new();
            GenghisKhanGrammar::write_move(&GenghisKhanGrammar::parse_move(t).ok()?, &mut out);
            Some(out)
        },
        None => |_| None,
    };
    for node in &mut record.movetext {
        if let Node::Move(token, _) = node
            && let Some(spelled) = respell(token)
        {
            *token = spelled;
        }
    }
    let mut out = String::new();
    write_record::<RawGrammar>(&record, &mut out);
    out
}
