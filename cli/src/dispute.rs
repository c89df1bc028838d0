//! `yam dispute`: two logs of one game, compared.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use yam_notation::Comment;
use yam_referee::signed::SignedText;
use yam_referee::signed::dispute::{Log, Relation, compare, describe};
use yam_referee::signed::text::event_command;

use crate::rulesets::RecordRulesets;
use crate::verify::read_signed;
use crate::{EXIT_INVALID, EXIT_USAGE, EXIT_VALID};

/// Arguments of `yam dispute`.
#[derive(Debug, clap::Args)]
pub struct DisputeArgs {
    /// The first log (a record file).
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The second log.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// Which game of each file (1 is the first).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub game: usize,
}

fn load(path: &Path, game: usize) -> Result<SignedText, String> {
    let file = File::open(path).map_err(|e| format!("{}: cannot open: {e}", path.display()))?;
    let games = read_signed(file).map_err(|e| format!("{}: read error: {e}", path.display()))?;
    match games.into_iter().nth(game.wrapping_sub(1)) {
        Some(Ok(text)) => Ok(text),
        Some(Err(e)) => Err(format!(
            "{}: game {game} cannot be read: line {}, column {}: {}",
            path.display(),
            e.pos.line,
            e.pos.column,
            e.kind
        )),
        None => Err(format!("{}: there is no game {game}", path.display())),
    }
}

/// Run `yam dispute`; returns the exit code.
pub fn run(args: &DisputeArgs) -> u8 {
    let (a, b) = match (load(&args.a, args.game), load(&args.b, args.game)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}");
            return EXIT_USAGE;
        }
    };
    // Each log takes its ruleset files from its own directory.
    let report = compare(
        Log::read(&a, &RecordRulesets::beside(&args.a)),
        Log::read(&b, &RecordRulesets::beside(&args.b)),
    );
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "A: {}", args.a.display());
    let _ = writeln!(out, "B: {}", args.b.display());
    match &report.relation {
        Relation::Identical { events } => {
            let _ = writeln!(out, "the logs are identical ({events} signed events)");
        }
        Relation::Prefix { common, .. } => {
            let _ = writeln!(out, "no fork: one log is the other's first {common} events");
        }
        Relation::Fork(fork) => {
            let _ = writeln!(out, "fork at event #{}", fork.seq);
        }
    }
    for reason in &report.reasons {
        let _ = writeln!(out, "  - {reason}");
    }
    let _ = writeln!(out, "verdict: {}", report.verdict);
    if let Relation::Fork(fork) = &report.relation
        && let Some(proof) = fork.proof()
    {
        let (first, second) = proof.events();
        let _ = writeln!(
            out,
            "proof of equivocation by {} (two events, same game, same parent, same author, different content, both signatures valid; anyone can check them):",
            proof.culprit().fingerprint()
        );
        for event in [first, second] {
            let mut comment = Comment::default();
            comment.push_command(event_command(event));
            let _ = writeln!(out, "  {}", describe(event));
            let _ = writeln!(out, "  {{{}}}", comment.words().join(" "));
        }
    }
    if report.conflict {
        EXIT_INVALID
    } else {
        EXIT_VALID
    }
}
