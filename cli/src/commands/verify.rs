//! `yam verify`: every signature, hash link, roll, outcome, commitment and
//! the ruleset hash of every signed game, replayed with the game's rules.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use yam_notation::split::Piece;
use yam_notation::{ParseError, ReadError, Reader};
use yam_referee::check::{Checker, GameReport, Verdict as CheckVerdict};
use yam_referee::fair_play::roll::RollStage;
use yam_referee::fair_play::sign::Fingerprint;
use yam_referee::fair_play::turn::Mode;
use yam_referee::genghis_khan::deal::FOE_LAYOUT_TAG;
use yam_referee::signed::text::{mode_guarantee, mode_name, practice_seed_text};
use yam_referee::signed::{Collector, Verdict, Verified, verify_text};

use crate::archive::{
    NoGame, expand, frame_in_piece, game_id_of_fault, grand_total, open_input, shift_pos,
    stream_pieces,
};
use crate::diagnostics::{Frame, render_failure, render_syntax, render_violation};
use crate::error::{Error, Result, Status};
use crate::game::rulesets::RecordRulesets;
use crate::json::{Failure, Format, VERIFY_SCHEMA, emit};
use serde::Serialize;

/// Arguments of `yam verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Record files to verify (`-` for standard input), or directories to
    /// search for `.yam` files (`.YAM` too). A path that yields no game is
    /// a warning, and exit code 2; several files end with a grand total.
    #[arg(required = true, value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Print only the summary line of each file.
    #[arg(short, long)]
    pub quiet: bool,
    /// How many games to verify at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// How to print: `human`, or `json` for JSON Lines (one object a game,
    /// a file, the total; schema `yam-verify/1`, docs/json.md).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// One game, as `--format json` prints it (docs/schema/verify-1.json).
#[derive(Debug, Serialize)]
struct GameLine {
    schema: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    file: String,
    game: u64,
    game_id: String,
    /// `verified`, `practice`, `dealt`, `unsigned` or `failed`.
    status: &'static str,
    /// The fair-play mode (`peer`, `robot`, `director`, `practice`).
    mode: Option<&'static str>,
    /// What the mode guarantees, in one sentence.
    guarantee: Option<&'static str>,
    events: Option<u32>,
    plies: Option<u32>,
    rolls: Option<u64>,
    chance_values: Option<usize>,
    result: Option<String>,
    /// How the game ended, if it did.
    ending: Option<String>,
    /// Each seat's role and key fingerprint.
    seats: Vec<Seat>,
    /// The referee's (robot's, director's) fingerprint.
    referee: Option<String>,
    open_roll: Option<OpenRollLine>,
    claims: Vec<String>,
    error: Option<Failure>,
}

#[derive(Debug, Serialize)]
struct Seat {
    role: &'static str,
    fingerprint: String,
}

#[derive(Debug, Serialize)]
struct OpenRollLine {
    index: u64,
    /// `requested` or `answered`.
    stage: &'static str,
    owed_by: Vec<String>,
    since_event: u32,
}

/// A file's summary, or the total, as `--format json` prints it.
#[derive(Debug, Serialize)]
struct SummaryLine {
    schema: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<usize>,
    games: u64,
    verified: u64,
    practice: u64,
    dealt: u64,
    failed: u64,
    unsigned: u64,
    plies: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
}

impl Tally {
    fn line(&self, kind: &'static str, file: Option<&Path>, bytes: Option<u64>) -> SummaryLine {
        SummaryLine {
            schema: VERIFY_SCHEMA,
            kind,
            file: file.map(|f| f.display().to_string()),
            files: None,
            games: self.games,
            verified: self.verified,
            practice: self.practice,
            dealt: self.dealt,
            failed: self.failed,
            unsigned: self.unsigned,
            plies: self.plies,
            bytes,
        }
    }
}

/// One game as a JSON line; counts it in `tally` as the human form does.
fn game_line(path: &Path, number: usize, item: &Checked, tally: &mut Tally) -> GameLine {
    let mut line = GameLine {
        schema: VERIFY_SCHEMA,
        kind: "game",
        file: path.display().to_string(),
        game: number as u64,
        game_id: String::new(),
        status: "failed",
        mode: None,
        guarantee: None,
        events: None,
        plies: None,
        rolls: None,
        chance_values: None,
        result: None,
        ending: None,
        seats: Vec::new(),
        referee: None,
        open_roll: None,
        claims: Vec::new(),
        error: None,
    };
    // The counts are the human form's, from the same function.
    report_game(path, number, item, true, tally);
    match item {
        Checked::Game { id, verdict, .. } => {
            line.game_id = id.clone();
            match verdict {
                Verdict::Verified(v) => {
                    let s = &v.summary;
                    line.status = if v.is_practice() {
                        "practice"
                    } else {
                        "verified"
                    };
                    line.mode = Some(mode_name(&s.mode));
                    line.guarantee = Some(mode_guarantee(&s.mode));
                    line.events = Some(s.events);
                    line.plies = Some(v.plies);
                    line.rolls = Some(s.rolls);
                    line.chance_values = Some(s.values_checked);
                    line.result = Some(v.result.to_string());
                    line.ending = v.ending.as_ref().map(|e| e.reason.to_string());
                    line.seats = v
                        .seats
                        .iter()
                        .map(|(role, fp)| Seat {
                            role,
                            fingerprint: fp.to_string(),
                        })
                        .collect();
                    line.referee = v.referee.as_ref().map(ToString::to_string);
                    line.open_roll = s.open_roll.as_ref().map(|open| OpenRollLine {
                        index: open.index,
                        stage: match open.stage {
                            RollStage::Requested => "requested",
                            RollStage::Answered => "answered",
                        },
                        owed_by: open.owed_by.iter().map(ToString::to_string).collect(),
                        since_event: open.since_event,
                    });
                    line.claims = v.claims.clone();
                }
                Verdict::Unsigned => line.status = "unsigned",
                Verdict::Failed(f) => {
                    line.error = Some(Failure {
                        kind: "verification",
                        line: f.span.start.line,
                        column: f.span.start.column,
                        text: f.found.clone(),
                        reason: f.reason.clone(),
                        move_number: None,
                        position: f.help.clone(),
                    });
                }
            }
        }
        Checked::Dealt { id, report, .. } => {
            line.game_id = id.clone();
            line.plies = Some(report.plies);
            match &report.verdict {
                CheckVerdict::Legal => line.status = "dealt",
                CheckVerdict::RulesNotChecked(_) => line.status = "unsigned",
                CheckVerdict::Illegal(v) => line.error = Some(Failure::rules(v)),
            }
        }
        Checked::Broken { id, report, .. } => {
            line.game_id = id.clone();
            if let CheckVerdict::Illegal(v) = &report.verdict {
                line.error = Some(Failure::rules(v));
            }
        }
        Checked::Syntax(e, _, id) => {
            line.game_id = id.clone();
            line.error = Some(Failure::syntax(e));
        }
    }
    line
}

/// What verifying one file (or all of them) found.
#[derive(Debug, Default)]
struct Tally {
    games: u64,
    verified: u64,
    practice: u64,
    failed: u64,
    unsigned: u64,
    /// Unsigned Genghis Khan games dealt from physical cards whose rules
    /// were checked from their recorded deal.
    dealt: u64,
    plies: u64,
}

impl Tally {
    /// The counts, for a summary line.
    fn counts(&self) -> String {
        let mut line = format!(
            "{} game{}, {} verified, {} unverified practice, {} failed, {} unsigned",
            self.games,
            if self.games == 1 { "" } else { "s" },
            self.verified,
            self.practice,
            self.failed,
            self.unsigned
        );
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
        self.verified += other.verified;
        self.practice += other.practice;
        self.failed += other.failed;
        self.unsigned += other.unsigned;
        self.dealt += other.dealt;
        self.plies += other.plies;
    }
}

/// One game's fate, with positions already in the whole file's terms, and
/// the text around its fault (none under `--quiet`: nothing is printed).
#[derive(Debug)]
enum Checked {
    Game {
        id: String,
        verdict: Verdict,
        frame: Option<Box<Frame>>,
    },
    /// An unsigned Genghis Khan game dealt from physical cards: nothing to
    /// verify, but its recorded deal replays it, so its rules are checked
    /// as `yam check` checks them (the same checker: one verdict).
    Dealt {
        id: String,
        report: Box<GameReport>,
        frame: Option<Box<Frame>>,
    },
    /// A signed game that verifies, but whose variations (moves no
    /// signature covers) break the rules, as `yam check` finds.
    Broken {
        id: String,
        report: Box<GameReport>,
        frame: Option<Box<Frame>>,
    },
    /// A game that does not read: why, its frame, and the `GameId` its
    /// header gave before the fault (empty when none did), as `check`
    /// names it.
    Syntax(Box<ParseError>, Option<Box<Frame>>, String),
}

/// Verify one piece of an archive on its own; with `frames`, keep the text
/// around each fault from the piece, for its diagnostic.
fn verify_piece(path: &Path, piece: &Piece, frames: bool) -> Vec<Checked> {
    let mut reader = Reader::new(&piece.bytes[..]);
    let mut collector = Collector::new();
    // Ruleset files are named relative to the record's directory.
    let rulesets = RecordRulesets::beside(path);
    let mut out = Vec::new();
    // Games the rules checker must see too: unsigned games dealt from
    // physical cards (nothing to verify, a deal to replay), and signed
    // games with variations (moves no signature covers).
    let mut dealt = Vec::new();
    let mut with_variations = Vec::new();
    loop {
        match reader.read_game(&mut collector) {
            Ok(None) => break,
            Ok(Some(text)) => {
                let id = text
                    .tag("GameId")
                    .map_or(String::new(), |t| t.value.clone());
                let mut verdict = verify_text(&text, &rulesets);
                if matches!(verdict, Verdict::Unsigned) && text.tag(FOE_LAYOUT_TAG).is_some() {
                    dealt.push(out.len());
                }
                if matches!(verdict, Verdict::Verified(_)) && text.variations > 0 {
                    with_variations.push(out.len());
                }
                let mut frame = None;
                if let Verdict::Failed(f) = &mut verdict {
                    shift_pos(piece, &mut f.span.start);
                    if frames {
                        frame = Some(frame_in_piece(piece, f.span.start));
                    }
                }
                out.push(Checked::Game { id, verdict, frame });
            }
            Err(ReadError::Syntax(mut e)) => {
                // Offsets in the piece, before they are made the file's.
                let game_id = game_id_of_fault(piece, &e);
                shift_pos(piece, &mut e.pos);
                shift_pos(piece, &mut e.game_start);
                let frame = frames.then(|| frame_in_piece(piece, e.pos));
                out.push(Checked::Syntax(e, frame, game_id));
            }
            // A slice cannot fail to read.
            Err(ReadError::Io(_)) => break,
        }
    }
    if !dealt.is_empty() || !with_variations.is_empty() {
        check_rules(path, piece, frames, &dealt, &with_variations, &mut out);
    }
    out
}

/// The games at `dealt` (indices into the piece's games) checked by the
/// rules checker, which reads the piece game for game as the collector
/// did, so the indices agree.
fn check_rules(
    path: &Path,
    piece: &Piece,
    frames: bool,
    dealt: &[usize],
    with_variations: &[usize],
    out: &mut [Checked],
) {
    let mut reader = Reader::new(&piece.bytes[..]);
    let mut checker = Checker::with_rulesets(Box::new(RecordRulesets::beside(path)));
    let mut index = 0usize;
    loop {
        match reader.read_game(&mut checker) {
            Ok(Some(mut report)) => {
                let mut frame = None;
                if let CheckVerdict::Illegal(v) = &mut report.verdict {
                    shift_pos(piece, &mut v.span.start);
                    if frames {
                        frame = Some(frame_in_piece(piece, v.span.start));
                    }
                }
                if dealt.contains(&index) {
                    let id = report.game_id.clone();
                    out[index] = Checked::Dealt {
                        id,
                        report: Box::new(report),
                        frame,
                    };
                } else if with_variations.contains(&index)
                    && matches!(report.verdict, CheckVerdict::Illegal(_))
                {
                    // Signed, verified, and a move beside the signed ones
                    // breaks the rules: the game's verdict is `yam check`'s.
                    let id = report.game_id.clone();
                    out[index] = Checked::Broken {
                        id,
                        report: Box::new(report),
                        frame,
                    };
                }
            }
            Err(ReadError::Syntax(_)) => {}
            Ok(None) | Err(ReadError::Io(_)) => return,
        }
        index += 1;
    }
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
        "{} signed events, {} plies, {} rolls ({} chance values recomputed)",
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

/// Run `yam verify`.
///
/// Each file is streamed: cut into pieces of whole games that `--jobs`
/// workers verify at once, reported in file order, in constant memory.
pub fn run(args: &VerifyArgs) -> Result<Status> {
    let mut status = Status::Valid;
    let expansion =
        expand(&args.files).map_err(|(path, e)| Error::io(path, "cannot read directory", e))?;
    for empty in &expansion.empty {
        eprintln!("warning: {empty}");
        status = status.and(Status::NoRecords);
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let stdout = io::stdout();
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
        let mut tally = Tally::default();
        let streamed = stream_pieces(
            input,
            jobs,
            size,
            |piece| verify_piece(path, piece, !args.quiet && args.format == Format::Human),
            |item, progress| {
                tally.games += 1;
                let number = tally.games as usize;
                match args.format {
                    Format::Human => {
                        progress.suspend(|| report_game(path, number, item, args.quiet, &mut tally))
                    }
                    Format::Json => emit(&game_line(path, number, item, &mut tally)),
                }
            },
        );
        if let Err(e) = streamed {
            eprintln!(
                "{}: read error: {e}",
                crate::diagnostics::visible_path(path)
            );
            status = status.and(Status::Unreadable);
            unreadable += 1;
            continue;
        }
        if tally.failed + tally.unsigned > 0 {
            status = status.and(Status::Invalid);
        }
        if args.format == Format::Json {
            if tally.games == 0 {
                eprintln!("warning: {}", NoGame(path));
                status = status.and(Status::NoRecords);
            }
            emit(&tally.line("file", Some(path), size));
            total.add(&tally);
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
                "; {} plies; {:.1} MB in {secs:.2} s ({:.0} MB/s)",
                tally.plies,
                bytes as f64 / 1e6,
                bytes as f64 / 1e6 / secs
            ));
        }
        let _ = writeln!(stdout.lock(), "{line}");
        if tally.games == 0 {
            eprintln!("warning: {}", NoGame(path));
            status = status.and(Status::NoRecords);
        }
        total.add(&tally);
    }
    if expansion.several && args.format == Format::Json {
        // No total of no files (the schema's `files` is at least one).
        if expansion.files.is_empty() {
            return Ok(status);
        }
        let mut line = total.line("total", None, None);
        line.files = Some(expansion.files.len());
        emit(&line);
    } else if expansion.several {
        let counts = format!("{}; {} plies", total.counts(), total.plies);
        let _ = writeln!(
            stdout.lock(),
            "{}",
            grand_total(&counts, &expansion, unreadable)
        );
    }
    Ok(status)
}

/// Count an unsigned game dealt from physical cards, and print what its
/// rules check found: `yam check`'s verdict, in `yam verify`'s words.
fn report_dealt(
    path: &Path,
    number: usize,
    id: &str,
    report: &GameReport,
    frame: Option<&Frame>,
    quiet: bool,
    tally: &mut Tally,
) {
    let mut out = io::stdout().lock();
    // The id is the record's own GameId, any text its writer chose: shown
    // safe for a terminal, as the path is.
    let label = format!(
        "{}: game {number} ({})",
        crate::diagnostics::visible_path(path),
        crate::diagnostics::visible(id)
    );
    match &report.verdict {
        CheckVerdict::Illegal(v) => {
            tally.failed += 1;
            if !quiet {
                let _ = writeln!(
                    out,
                    "{label}: not verified: {}",
                    crate::diagnostics::visible(&v.reason)
                );
                eprint!(
                    "{}",
                    render_violation(path, number as u64, report, v, frame)
                );
            }
        }
        // A dealt game is always replayed; were it not, it would be a game
        // with nothing to verify, as any unsigned one.
        CheckVerdict::RulesNotChecked(_) => tally.unsigned += 1,
        CheckVerdict::Legal => {
            tally.dealt += 1;
            tally.plies += u64::from(report.plies);
            if !quiet {
                let _ = writeln!(
                    out,
                    "{label}: unsigned, no evidence to verify; {}: {} plies",
                    report.chance.wording(),
                    report.plies
                );
            }
        }
    }
}

/// Count one game and print what became of it.
fn report_game(path: &Path, number: usize, item: &Checked, quiet: bool, tally: &mut Tally) {
    let mut out = io::stdout().lock();
    let (id, verdict, frame) = match item {
        Checked::Game { id, verdict, frame } => (id, verdict, frame),
        Checked::Dealt { id, report, frame } => {
            report_dealt(path, number, id, report, frame.as_deref(), quiet, tally);
            return;
        }
        Checked::Broken { id, report, frame } => {
            tally.failed += 1;
            if !quiet && let CheckVerdict::Illegal(v) = &report.verdict {
                let _ = writeln!(
                    out,
                    "{}: game {number} ({}): not verified: its signatures hold, but a move \
                     beside them breaks the rules: {}: {}",
                    crate::diagnostics::visible_path(path),
                    crate::diagnostics::visible(id),
                    crate::diagnostics::visible(&v.token),
                    crate::diagnostics::visible(&v.reason)
                );
                eprint!(
                    "{}",
                    render_violation(path, number as u64, report, v, frame.as_deref())
                );
            }
            return;
        }
        Checked::Syntax(e, frame, _) => {
            tally.failed += 1;
            if !quiet {
                let mut e = e.clone();
                e.game = number as u64;
                let _ = writeln!(
                    out,
                    "{}: game {number}: not verified: syntax error",
                    crate::diagnostics::visible_path(path)
                );
                eprint!("{}", render_syntax(path, &e, frame.as_deref()));
            }
            return;
        }
    };
    // The id is the record's own GameId, any text its writer chose: shown
    // safe for a terminal, as the path is.
    let label = format!(
        "{}: game {number} ({})",
        crate::diagnostics::visible_path(path),
        crate::diagnostics::visible(id)
    );
    match verdict {
        Verdict::Verified(v) => {
            tally.plies += u64::from(v.plies);
            if v.is_practice() {
                tally.practice += 1;
            } else {
                tally.verified += 1;
            }
            if !quiet {
                // What the record says of itself (names, a resignation's
                // reason) shown safe for a terminal.
                let lines = describe_verified(v);
                let _ = writeln!(out, "{label}: {}", crate::diagnostics::visible(&lines[0]));
                for line in &lines[1..] {
                    let _ = writeln!(out, "{}", crate::diagnostics::visible(line));
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
                let _ = writeln!(
                    out,
                    "{label}: not verified: {}",
                    crate::diagnostics::visible(&f.reason)
                );
                eprint!("{}", render_failure(path, number, id, f, frame.as_deref()));
            }
        }
    }
}
