//! `yam verify`: every signature, hash link, roll, outcome, commitment and
//! the ruleset hash of every signed game, replayed with the game's rules.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use yam_notation::{ParseError, ReadError, Reader};
use yam_referee::fair_play::turn::Mode;
use yam_referee::signed::text::{mode_name, practice_seed_text};
use yam_referee::signed::{Collector, Failure, SignedText, Verdict, Verified, verify_text};

use crate::check::{expand, render_syntax};
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
}

#[derive(Debug, Default)]
struct Tally {
    games: u64,
    verified: u64,
    practice: u64,
    failed: u64,
    unsigned: u64,
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
    if let Some(roll) = s.open_roll {
        counts.push_str(&format!(", roll {roll} waiting for its answer"));
    }
    let result = match &v.ending {
        Some(end) => format!("result {} ({})", v.result, end.reason),
        None => format!("result {} (game in progress)", v.result),
    };
    let mut lines = vec![format!("{head}: {counts}; {result}")];
    for (role, fp) in &v.seats {
        lines.push(format!("    {role:<10} {fp}"));
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
pub fn run(args: &VerifyArgs) -> u8 {
    let mut code = EXIT_VALID;
    let files = match expand(&args.files) {
        Ok(files) => files,
        Err((path, e)) => {
            eprintln!("{}: cannot read directory: {e}", path.display());
            return EXIT_USAGE;
        }
    };
    let stdout = io::stdout();
    for path in &files {
        let input: Box<dyn Read> = if path.as_os_str() == "-" {
            Box::new(io::stdin().lock())
        } else {
            match File::open(path) {
                Ok(f) => Box::new(f),
                Err(e) => {
                    eprintln!("{}: cannot open: {e}", path.display());
                    code = EXIT_USAGE;
                    continue;
                }
            }
        };
        let games = match read_signed(input) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("{}: read error: {e}", path.display());
                code = EXIT_USAGE;
                continue;
            }
        };
        let mut tally = Tally::default();
        let mut out = stdout.lock();
        let rulesets = RecordRulesets::beside(path);
        for (i, game) in games.iter().enumerate() {
            let number = i + 1;
            tally.games += 1;
            let text = match game {
                Ok(t) => t,
                Err(e) => {
                    tally.failed += 1;
                    if !args.quiet {
                        let _ = writeln!(
                            out,
                            "{}: game {number}: not verified: syntax error",
                            path.display()
                        );
                        eprint!("{}", render_syntax(path, e));
                    }
                    continue;
                }
            };
            let id = text.tag("GameId").map_or("", |t| t.value.as_str());
            let label = format!("{}: game {number} ({id})", path.display());
            match verify_text(text, &rulesets) {
                Verdict::Verified(v) => {
                    if v.is_practice() {
                        tally.practice += 1;
                    } else {
                        tally.verified += 1;
                    }
                    if !args.quiet {
                        let lines = describe_verified(&v);
                        let _ = writeln!(out, "{label}: {}", lines[0]);
                        for line in &lines[1..] {
                            let _ = writeln!(out, "{line}");
                        }
                    }
                }
                Verdict::Unsigned => {
                    tally.unsigned += 1;
                    if !args.quiet {
                        let _ = writeln!(
                            out,
                            "{label}: unsigned: the record carries no signed events ([%event]), so there is nothing to verify (`yam check` checks its moves)"
                        );
                    }
                }
                Verdict::Failed(f) => {
                    tally.failed += 1;
                    if !args.quiet {
                        let _ = writeln!(out, "{label}: not verified: {}", f.reason);
                        eprint!("{}", render_failure(path, number, id, &f));
                    }
                }
            }
        }
        if tally.failed + tally.unsigned > 0 && code == EXIT_VALID {
            code = EXIT_INVALID;
        }
        let _ = writeln!(
            out,
            "{}: {} game{}, {} verified, {} unverified practice, {} failed, {} unsigned",
            path.display(),
            tally.games,
            if tally.games == 1 { "" } else { "s" },
            tally.verified,
            tally.practice,
            tally.failed,
            tally.unsigned
        );
    }
    code
}
