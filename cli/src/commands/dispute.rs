//! `yam dispute`: two logs of one game, compared.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use yam_notation::Comment;
use yam_notation::{ReadError, Reader};
use yam_referee::signed::dispute::{Log, Relation, compare, describe};
use yam_referee::signed::text::event_command;
use yam_referee::signed::{Collector, SignedText};

use crate::error::{Error, Result, Status};
use crate::game::rulesets::RecordRulesets;

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
    /// How to print: `human`, or `json` for one object (schema
    /// `yam-dispute/1`, docs/json.md).
    #[arg(long, value_enum, default_value_t = crate::json::Format::Human)]
    pub format: crate::json::Format,
}

/// `dispute --format json` (docs/schema/dispute-1.json).
#[derive(Debug, serde::Serialize)]
struct DisputeLine {
    schema: &'static str,
    a: String,
    b: String,
    /// `identical`, `prefix` (one log is the other's beginning) or `fork`.
    relation: &'static str,
    /// Signed events both logs share.
    common_events: usize,
    /// Whether the logs conflict (exit code 1).
    conflict: bool,
    verdict: String,
    reasons: Vec<String>,
    /// When one party signed two different events with the same parent:
    /// who, and the two events as `[%event]` commands anyone can check.
    equivocation: Option<Equivocation>,
}

#[derive(Debug, serde::Serialize)]
struct Equivocation {
    by: String,
    events: Vec<String>,
}

/// Game `game` of the file, read as far as it goes: the whole game, or,
/// when the reader stops in it (a log cut short in the middle of an event,
/// or before its result), what was read before, with where it stopped.
fn load(path: &Path, game: usize) -> Result<(SignedText, Option<String>)> {
    // `-`: standard input, as every command that reads a record takes it.
    let (file, _) =
        crate::archive::open_input(path).map_err(|e| Error::io(path, "cannot open", e))?;
    let mut reader = Reader::new(file);
    let mut collector = Collector::new();
    for n in 1.. {
        match reader.read_game(&mut collector) {
            Ok(Some(text)) if n == game => return Ok((text, None)),
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(ReadError::Syntax(e)) if n == game => {
                let cut = format!(
                    "it stops at line {}, column {}: {}",
                    e.pos.line, e.pos.column, e.kind
                );
                return Ok((collector.take_partial(), Some(cut)));
            }
            // Another game's damage: the reader goes on to the next.
            Err(ReadError::Syntax(_)) => {}
            Err(ReadError::Io(e)) => return Err(Error::io(path, "cannot read", e)),
        }
    }
    Err(Error::usage(format!(
        "{}: there is no game {game}",
        path.display()
    )))
}

/// Run `yam dispute`: valid when the logs do not conflict.
pub fn run(args: &DisputeArgs) -> Result<Status> {
    let (a, b) = (load(&args.a, args.game)?, load(&args.b, args.game)?);
    // Each log takes its ruleset files from its own directory.
    let read = |(text, cut): (SignedText, Option<String>), path: &Path| {
        let rulesets = RecordRulesets::beside(path);
        match cut {
            None => Log::read(&text, &rulesets),
            Some(cut) => Log::read_cut(&text, &rulesets, cut),
        }
    };
    let report = compare(read(a, &args.a), read(b, &args.b));
    let status = if report.conflict {
        Status::Invalid
    } else {
        Status::Valid
    };
    if args.format == crate::json::Format::Json {
        let (relation, common_events) = match &report.relation {
            Relation::Identical { events } => ("identical", *events),
            Relation::Prefix { common, .. } => ("prefix", *common),
            Relation::Fork(fork) => ("fork", fork.seq),
        };
        let equivocation = match &report.relation {
            Relation::Fork(fork) => fork.proof().map(|proof| {
                let (first, second) = proof.events();
                Equivocation {
                    by: report.name_of(proof.culprit()),
                    events: [first, second]
                        .into_iter()
                        .map(|event| {
                            let mut comment = Comment::default();
                            comment.push_command(event_command(event));
                            comment.words().join(" ")
                        })
                        .collect(),
                }
            }),
            _ => None,
        };
        crate::json::emit(&DisputeLine {
            schema: "yam-dispute/1",
            a: args.a.display().to_string(),
            b: args.b.display().to_string(),
            relation,
            common_events,
            conflict: report.conflict,
            verdict: report.verdict.clone(),
            reasons: report.reasons.clone(),
            equivocation,
        });
        return Ok(status);
    }
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
            let _ = writeln!(
                out,
                "fork at event #{0}: the logs share their first {0} events",
                fork.seq
            );
        }
    }
    // The reasons and the verdict quote the logs (players' names, a
    // claim's signed reason): shown safe for a terminal.
    for reason in &report.reasons {
        let _ = writeln!(out, "  - {}", crate::diagnostics::visible(reason));
    }
    let _ = writeln!(
        out,
        "verdict: {}",
        crate::diagnostics::visible(&report.verdict)
    );
    if let Relation::Fork(fork) = &report.relation
        && let Some(proof) = fork.proof()
    {
        let (first, second) = proof.events();
        let _ = writeln!(
            out,
            "proof of equivocation by {} (two events, same game, same parent, same author, different content, both signatures valid; anyone can check them):",
            // A seat name is a label no signature covers: the culprit
            // writes his own, shown safe as the reasons are.
            crate::diagnostics::visible(&report.name_of(proof.culprit()))
        );
        for event in [first, second] {
            let mut comment = Comment::default();
            comment.push_command(event_command(event));
            let _ = writeln!(out, "  {}", crate::diagnostics::visible(&describe(event)));
            let _ = writeln!(out, "  {{{}}}", comment.words().join(" "));
        }
    }
    Ok(status)
}
