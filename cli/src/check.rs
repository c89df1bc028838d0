//! `yam check`: syntax and rules of every game in one or more archives.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use yam_notation::{ParseError, ReadError, Reader};
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
        match check_file(path, input, args.quiet) {
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

fn check_file(path: &Path, input: impl Read, quiet: bool) -> io::Result<Tally> {
    let mut reader = Reader::new(input);
    // Ruleset files are named relative to the record's directory.
    let mut checker = Checker::with_rulesets(Box::new(RecordRulesets::beside(path)));
    let mut tally = Tally::default();
    loop {
        match reader.read_game(&mut checker) {
            Ok(None) => return Ok(tally),
            Ok(Some(report)) => {
                tally.games += 1;
                tally.plies += u64::from(report.plies);
                match &report.verdict {
                    Verdict::Legal => tally.valid += 1,
                    Verdict::RulesNotChecked(why) => {
                        tally.valid += 1;
                        tally.unchecked += 1;
                        if !quiet {
                            eprintln!(
                                "{}: game {}{}: syntax checked; rules not checked: {why}",
                                path.display(),
                                reader.games_read(),
                                if report.game_id.is_empty() {
                                    String::new()
                                } else {
                                    format!(" ({})", report.game_id)
                                },
                            );
                        }
                    }
                    Verdict::Illegal(v) => {
                        tally.rule_errors += 1;
                        if !quiet {
                            eprint!(
                                "{}",
                                render_violation(path, reader.games_read(), &report, v)
                            );
                        }
                    }
                }
            }
            Err(ReadError::Syntax(e)) => {
                tally.games += 1;
                tally.syntax_errors += 1;
                if !quiet {
                    eprint!("{}", render_syntax(path, &e));
                }
            }
            Err(ReadError::Io(e)) => return Err(e),
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
