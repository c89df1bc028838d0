//! `yam show`: the position after any move of a record, as a diagram.

use std::path::PathBuf;

use yam_notation::khan::KhanGrammar;
use yam_notation::{Dots, GameKind, Node, RawGrammar, read_all};
use yam_referee::khan;

use crate::{EXIT_INVALID, EXIT_USAGE, EXIT_VALID};

/// Arguments of `yam show`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The record file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Which game of the file (1 is the first).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub game: usize,
    /// Show the position after this move: `23` after the first side's 23rd
    /// move, `23...` after the second side's. Default: the end.
    #[arg(long, value_name = "MOVE", conflicts_with = "ply")]
    pub r#move: Option<String>,
    /// Show the position after this many plies of the main line (0 is the start).
    #[arg(long, value_name = "N")]
    pub ply: Option<usize>,
}

/// Run `yam show`; returns the exit code.
pub fn run(args: &ShowArgs) -> u8 {
    let file = match std::fs::File::open(&args.file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{}: cannot open: {e}", args.file.display());
            return EXIT_USAGE;
        }
    };
    let games = match read_all::<RawGrammar, _>(file) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{}: read error: {e}", args.file.display());
            return EXIT_USAGE;
        }
    };
    let Some(game) = games.get(args.game.wrapping_sub(1)) else {
        eprintln!(
            "{}: there is no game {} (the file holds {})",
            args.file.display(),
            args.game,
            games.len()
        );
        return EXIT_USAGE;
    };
    let record = match game {
        Ok(r) => r,
        Err(e) => {
            eprint!("{}", crate::check::render_syntax(&args.file, e));
            return EXIT_INVALID;
        }
    };
    let target = match target_ply(args, record) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_USAGE;
        }
    };
    match record.game() {
        Some(GameKind::Khan) => show_khan(&args.file, record, target),
        Some(other) => {
            eprintln!("showing {other} positions is not available in this build");
            EXIT_USAGE
        }
        None => EXIT_INVALID,
    }
}

/// The main-line ply to stop after, from `--move` or `--ply`.
fn target_ply(
    args: &ShowArgs,
    record: &yam_notation::Record<String>,
) -> Result<Option<usize>, String> {
    if let Some(ply) = args.ply {
        return Ok(Some(ply));
    }
    let Some(text) = &args.r#move else {
        return Ok(None);
    };
    let (number, dots) = match text.strip_suffix("...") {
        Some(n) => (n, Dots::Three),
        None => (text.trim_end_matches('.'), Dots::One),
    };
    let number: u32 = number
        .parse()
        .map_err(|_| format!("--move takes a move number such as 23 or 23..., not {text:?}"))?;
    // Find the main-line move that this number introduces.
    let mut depth = 0usize;
    let mut ply = 0usize;
    let mut current: Option<(u32, Dots)> = None;
    for node in &record.movetext {
        match node {
            Node::StartVariation => depth += 1,
            Node::EndVariation => depth = depth.saturating_sub(1),
            Node::MoveNumber(n, d) if depth == 0 => current = Some((*n, *d)),
            Node::Move(..) if depth == 0 => {
                ply += 1;
                if current == Some((number, dots)) {
                    return Ok(Some(ply));
                }
                // The second side's move follows the first side's without a number.
                current = match current {
                    Some((n, Dots::One)) => Some((n, Dots::Three)),
                    _ => None,
                };
            }
            _ => {}
        }
    }
    Err(format!("the game has no move {text}"))
}

fn show_khan(
    file: &std::path::Path,
    record: &yam_notation::Record<String>,
    target: Option<usize>,
) -> u8 {
    let name = record.tags.get("Ruleset").unwrap_or("magician");
    // A built-in name, or a ruleset file beside the record.
    let ruleset = match crate::rulesets::khan_ruleset(file, name) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_INVALID;
        }
    };
    let mut pos = match record.tags.get("Position") {
        Some(text) => match khan::Position::from_yam(text, *ruleset.start_position().rules()) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("bad Position tag: {e}");
                return EXIT_INVALID;
            }
        },
        None => ruleset.start_position(),
    };
    let mut played = 0usize;
    for (token, span) in record.main_line() {
        if target.is_some_and(|t| played >= t) {
            break;
        }
        let step = <KhanGrammar as yam_notation::MoveGrammar>::parse_move(token)
            .map_err(|e| e.to_string())
            .and_then(|t| {
                khan::resolve(&pos, &t)
                    .and_then(|m| khan::apply(&pos, &m))
                    .map_err(|e| e.to_string())
            });
        match step {
            Ok(applied) => pos = applied.position,
            Err(e) => {
                eprintln!("line {}: {token}: {e}", span.start.line);
                return EXIT_INVALID;
            }
        }
        played += 1;
    }
    let moves_word = if played == 1 { "move" } else { "moves" };
    println!(
        "{} after {played} {moves_word}",
        record.tags.get("GameId").unwrap_or("game")
    );
    print!("{}", khan::diagram(&pos));
    if let Some(outcome) = pos.outcome() {
        println!("{outcome}");
    }
    EXIT_VALID
}
