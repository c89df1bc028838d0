//! `yam verify`: every signature, hash link, roll, outcome, commitment and
//! the ruleset hash of every signed game, replayed with the game's rules.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use yam_notation::split::Piece;
use yam_notation::{
    Dots, GameKind, GameResult, Nag, ParseError, RawComment, RawGrammar, RawTagValue, ReadError,
    Reader, Record, RecordBuilder, Skip, Span, TokenError, Visitor,
};
use yam_referee::fair_play::roll::RollStage;
use yam_referee::fair_play::sign::Fingerprint;
use yam_referee::fair_play::turn::Mode;
use yam_referee::signed::text::{mode_guarantee, mode_name, practice_seed_text};
use yam_referee::signed::{Collector, Failure, SignedText, Verdict, Verified, verify_text};

use crate::check::{expand, render_syntax, shift_pos, stream_pieces};
use crate::diagnostics::render;
use crate::rulesets::RecordRulesets;
use crate::{EXIT_INVALID, EXIT_USAGE, EXIT_VALID};

/// Arguments of `yam verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Record files to verify (`-` for standard input), or directories to
    /// search for `.yam` files.
    #[arg(required = true, value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Print only the summary line of each file.
    #[arg(short, long)]
    pub quiet: bool,
    /// How many games to verify at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
}

#[derive(Debug, Default)]
struct Tally {
    games: u64,
    verified: u64,
    practice: u64,
    failed: u64,
    unsigned: u64,
    plies: u64,
}

/// One game's fate, with positions already in the whole file's terms.
#[derive(Debug)]
enum Checked {
    Game { id: String, verdict: Verdict },
    Syntax(Box<ParseError>),
}

/// Verify one piece of an archive on its own.
fn verify_piece(path: &Path, piece: &Piece) -> Vec<Checked> {
    let mut reader = Reader::new(&piece.bytes[..]);
    let mut collector = Collector::new();
    // Ruleset files are named relative to the record's directory.
    let rulesets = RecordRulesets::beside(path);
    let mut out = Vec::new();
    loop {
        match reader.read_game(&mut collector) {
            Ok(None) => return out,
            Ok(Some(text)) => {
                let id = text
                    .tag("GameId")
                    .map_or(String::new(), |t| t.value.clone());
                let mut verdict = verify_text(&text, &rulesets);
                if let Verdict::Failed(f) = &mut verdict {
                    shift_pos(piece, &mut f.span.start);
                }
                out.push(Checked::Game { id, verdict });
            }
            Err(ReadError::Syntax(mut e)) => {
                shift_pos(piece, &mut e.pos);
                shift_pos(piece, &mut e.game_start);
                out.push(Checked::Syntax(e));
            }
            // A slice cannot fail to read.
            Err(ReadError::Io(_)) => return out,
        }
    }
}

/// Every game of an archive, as its signed view or its syntax error.
pub fn read_signed(input: impl Read) -> io::Result<Vec<Result<SignedText, Box<ParseError>>>> {
    let mut reader = Reader::new(input);
    let mut collector = Collector::new();
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut collector) {
            Ok(None) => return Ok(games),
            Ok(Some(game)) => games.push(Ok(game)),
            Err(ReadError::Syntax(e)) => games.push(Err(e)),
            Err(ReadError::Io(e)) => return Err(e),
        }
    }
}

/// The signed view and the owned record of one game, read in one pass.
/// The record is `None` when only the record's stricter reading failed
/// (a malformed Date, say): the caller then parses the text once more to
/// say why, exactly as a plain parse would.
pub type SignedAndRecord = (SignedText, Option<Record<String>>);

/// As [`read_signed`], building each game's [`Record`] in the same pass:
/// a turn mail's record is both verified and kept, and reading it once
/// halves its parsing.
pub fn read_signed_with_record(
    input: impl Read,
) -> io::Result<Vec<Result<SignedAndRecord, Box<ParseError>>>> {
    let mut reader = Reader::new(input);
    let mut both = Both {
        signed: Collector::new(),
        record: RecordBuilder::new(),
        record_failed: false,
    };
    let mut games = Vec::new();
    loop {
        match reader.read_game(&mut both) {
            Ok(None) => return Ok(games),
            Ok(Some(game)) => games.push(Ok(game)),
            Err(ReadError::Syntax(e)) => games.push(Err(e)),
            Err(ReadError::Io(e)) => return Err(e),
        }
    }
}

/// Feeds the reader's callbacks to the signed view and to the record.
/// Only the signed view's verdict stops the reading; the record's own
/// refusals are remembered and reported as the record being absent.
struct Both {
    signed: Collector,
    record: RecordBuilder<RawGrammar>,
    record_failed: bool,
}

impl Visitor for Both {
    type Output = SignedAndRecord;

    fn begin_game(&mut self) {
        self.signed.begin_game();
        self.record.begin_game();
        self.record_failed = false;
    }

    fn tag(&mut self, name: &str, value: RawTagValue<'_>, span: Span) -> Result<(), TokenError> {
        if !self.record_failed && self.record.tag(name, value, span).is_err() {
            self.record_failed = true;
        }
        self.signed.tag(name, value, span)
    }

    fn end_tags(&mut self, game: GameKind) -> Result<Skip, Cow<'static, str>> {
        if !self.record_failed && self.record.end_tags(game).is_err() {
            self.record_failed = true;
        }
        self.signed.end_tags(game)
    }

    fn move_number(&mut self, number: u32, dots: Dots, span: Span) {
        self.signed.move_number(number, dots, span);
        self.record.move_number(number, dots, span);
    }

    fn token(&mut self, token: &str, span: Span) -> Result<(), TokenError> {
        if !self.record_failed && self.record.token(token, span).is_err() {
            self.record_failed = true;
        }
        self.signed.token(token, span)
    }

    fn nag(&mut self, nag: Nag, span: Span) {
        self.signed.nag(nag, span);
        self.record.nag(nag, span);
    }

    fn comment(&mut self, comment: RawComment<'_>, span: Span) {
        self.signed.comment(comment, span);
        self.record.comment(comment, span);
    }

    fn begin_variation(&mut self) -> Skip {
        // Neither skips a variation; the signed view decides all the same.
        self.record.begin_variation();
        self.signed.begin_variation()
    }

    fn end_variation(&mut self) {
        self.signed.end_variation();
        self.record.end_variation();
    }

    fn result(&mut self, result: GameResult, span: Span) {
        self.signed.result(result, span);
        self.record.result(result, span);
    }

    fn end_game(&mut self) -> SignedAndRecord {
        let record = self.record.end_game();
        (
            self.signed.end_game(),
            (!self.record_failed).then_some(record),
        )
    }
}

/// A failure, as a readable diagnostic.
pub fn render_failure(path: &Path, game: usize, id: &str, f: &Failure) -> String {
    let id = if id.is_empty() {
        String::new()
    } else {
        format!(" ({id})")
    };
    render(
        path,
        f.span.start,
        (f.span.len as usize).max(1),
        &format!("game {game}{id}: not verified: {}", f.reason),
        "refused here",
        f.help.clone(),
    )
}

/// The report lines of a verified game (or unverified practice).
pub fn describe_verified(v: &Verified) -> Vec<String> {
    let s = &v.summary;
    let head = match &s.mode {
        Mode::Practice { seed } => format!(
            "unverified practice (open seed {:?}: whoever chose it could have chosen the outcomes)",
            practice_seed_text(seed)
        ),
        mode => format!("verified ({} mode)", mode_name(mode)),
    };
    let mut counts = format!(
        "{} signed events, {} moves, {} rolls ({} chance values recomputed)",
        s.events, v.plies, s.rolls, s.values_checked
    );
    if let Some(open) = &s.open_roll {
        counts.push_str(&format!(", roll {} open", open.index));
    }
    let result = match &v.ending {
        Some(end) => format!("result {} ({})", v.result, end.reason),
        None => format!("result {} (game in progress)", v.result),
    };
    let mut lines = vec![format!("{head}: {counts}; {result}")];
    lines.push(format!(
        "    {} mode guarantees {}",
        mode_name(&s.mode),
        mode_guarantee(&s.mode)
    ));
    for (role, fp) in &v.seats {
        lines.push(format!("    {role:<10} {fp}"));
    }
    if let Some(open) = &s.open_roll {
        let name = |fp: &Fingerprint| match v.seats.iter().find(|(_, f)| f == fp) {
            Some((role, _)) => format!("{role} ({fp})"),
            None => fp.to_string(),
        };
        let owed: Vec<String> = open.owed_by.iter().map(name).collect();
        let owed = owed.join(" and ");
        lines.push(match open.stage {
            RollStage::Requested => format!(
                "    open roll: roll {} is waiting for its response from {owed} since event #{}",
                open.index, open.since_event
            ),
            RollStage::Answered => format!(
                "    open roll: roll {} is answered and waiting for its outcomes, owed by {owed} since event #{} (no other move may come before that turn)",
                open.index, open.since_event
            ),
        });
    }
    if let Some(fp) = &v.referee {
        let role = match &s.mode {
            Mode::Director => "director",
            Mode::Robot => "robot",
            _ => "referee",
        };
        lines.push(format!("    {role:<10} {fp}"));
    }
    if v.seats.is_empty() {
        for fp in &s.parties {
            lines.push(format!("    {:<10} {fp}", "party"));
        }
    }
    for claim in &v.claims {
        lines.push(format!("    claim: {claim}"));
    }
    lines
}

/// Run `yam verify`; returns the exit code.
///
/// Each file is streamed: cut into pieces of whole games that `--jobs`
/// workers verify at once, reported in file order, in constant memory.
pub fn run(args: &VerifyArgs) -> u8 {
    let mut code = EXIT_VALID;
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
    let stdout = io::stdout();
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
        let mut tally = Tally::default();
        let streamed = stream_pieces(
            input,
            jobs,
            size,
            |piece| verify_piece(path, piece),
            |item, progress| {
                tally.games += 1;
                let number = tally.games as usize;
                progress.suspend(|| report_game(path, number, item, args.quiet, &mut tally));
            },
        );
        if let Err(e) = streamed {
            eprintln!("{}: read error: {e}", path.display());
            code = EXIT_USAGE;
            continue;
        }
        if tally.failed + tally.unsigned > 0 && code == EXIT_VALID {
            code = EXIT_INVALID;
        }
        let mut line = format!(
            "{}: {} game{}, {} verified, {} unverified practice, {} failed, {} unsigned",
            path.display(),
            tally.games,
            if tally.games == 1 { "" } else { "s" },
            tally.verified,
            tally.practice,
            tally.failed,
            tally.unsigned
        );
        if let Some(bytes) = size {
            let secs = started.elapsed().as_secs_f64().max(1e-6);
            line.push_str(&format!(
                "; {} moves; {:.1} MB in {secs:.2} s ({:.0} MB/s)",
                tally.plies,
                bytes as f64 / 1e6,
                bytes as f64 / 1e6 / secs
            ));
        }
        let _ = writeln!(stdout.lock(), "{line}");
    }
    code
}

/// Count one game and print what became of it.
fn report_game(path: &Path, number: usize, item: &Checked, quiet: bool, tally: &mut Tally) {
    let mut out = io::stdout().lock();
    let (id, verdict) = match item {
        Checked::Game { id, verdict } => (id, verdict),
        Checked::Syntax(e) => {
            tally.failed += 1;
            let mut e = e.clone();
            e.game = number as u64;
            if !quiet {
                let _ = writeln!(
                    out,
                    "{}: game {number}: not verified: syntax error",
                    path.display()
                );
                eprint!("{}", render_syntax(path, &e));
            }
            return;
        }
    };
    let label = format!("{}: game {number} ({id})", path.display());
    match verdict {
        Verdict::Verified(v) => {
            tally.plies += u64::from(v.plies);
            if v.is_practice() {
                tally.practice += 1;
            } else {
                tally.verified += 1;
            }
            if !quiet {
                let lines = describe_verified(v);
                let _ = writeln!(out, "{label}: {}", lines[0]);
                for line in &lines[1..] {
                    let _ = writeln!(out, "{line}");
                }
            }
        }
        Verdict::Unsigned => {
            tally.unsigned += 1;
            if !quiet {
                let _ = writeln!(
                    out,
                    "{label}: unsigned: the record carries no signed events ([%event]), so there is nothing to verify (`yam check` checks its moves)"
                );
            }
        }
        Verdict::Failed(f) => {
            tally.failed += 1;
            if !quiet {
                let _ = writeln!(out, "{label}: not verified: {}", f.reason);
                eprint!("{}", render_failure(path, number, id, f));
            }
        }
    }
}
