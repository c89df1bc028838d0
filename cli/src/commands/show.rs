//! `yam show`: the position after any move of a record, as a diagram (Khan,
//! Castle Siege) or a tableau (Genghis Khan).
//!
//! Showing is not verifying: Castle Siege is replayed from the die faces
//! its tokens show, and Genghis Khan from the chance values its
//! `[%chance]` commands show (or from its open practice seed); `yam
//! verify` is what holds those to the signed evidence.

use std::path::PathBuf;

use yam_notation::castle_siege::Token as SiegeToken;
use yam_notation::genghis_khan::Move as CardMove;
use yam_notation::{Dots, GameKind, Node, RawGrammar, read_all};
use yam_referee::fair_play::chance::{Chance, PracticeChance};
use yam_referee::fair_play::encoding::Blob;
use yam_referee::fair_play::game_id::GameId;
use yam_referee::{castle_siege, genghis_khan, khan};

use crate::error::{EXIT_INVALID, EXIT_USAGE, EXIT_VALID};
use crate::pictures::positions::ShownChance;

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
    /// Draw the position as an SVG picture with a legend, instead of text.
    #[arg(long)]
    pub svg: bool,
    /// Write the picture here instead of standard output.
    #[arg(short, long, value_name = "OUT", requires = "svg")]
    pub out: Option<PathBuf>,
    /// Replace OUT if it exists.
    #[arg(long, requires = "out")]
    pub force: bool,
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
            eprint!("{}", crate::diagnostics::render_syntax(&args.file, e));
            return EXIT_INVALID;
        }
    };
    // Khan numbers single moves; the other games number whole turns.
    let per_turn = record.game() != Some(GameKind::Khan);
    let target = match target_ply(args, record, per_turn) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_USAGE;
        }
    };
    if args.svg {
        return show_svg(args, record, target);
    }
    match record.game() {
        Some(GameKind::Khan) => show_khan(&args.file, record, target),
        Some(GameKind::CastleSiege) => show_siege(record, target),
        Some(GameKind::GenghisKhan) => show_cards(record, target),
        None => EXIT_INVALID,
    }
}

/// The main-line ply to stop after, from `--move` or `--ply`. With
/// `per_turn`, a number stands for a whole turn (Castle Siege: a side's
/// turn of many tokens; Genghis Khan: a turn of the game), and the position
/// is the one after its last token.
fn target_ply(
    args: &ShowArgs,
    record: &yam_notation::Record<String>,
    per_turn: bool,
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
    if per_turn {
        return turn_end(record, number, dots)
            .map(Some)
            .ok_or_else(|| format!("the game has no move {text}"));
    }
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

/// The main-line ply after the last token numbered `number` `dots`.
fn turn_end(record: &yam_notation::Record<String>, number: u32, dots: Dots) -> Option<usize> {
    let mut depth = 0usize;
    let mut ply = 0usize;
    let mut current: Option<(u32, Dots)> = None;
    let mut end = None;
    for node in &record.movetext {
        match node {
            Node::StartVariation => depth += 1,
            Node::EndVariation => depth = depth.saturating_sub(1),
            Node::MoveNumber(n, d) if depth == 0 => current = Some((*n, *d)),
            Node::Move(..) if depth == 0 => {
                ply += 1;
                if current == Some((number, dots)) {
                    end = Some(ply);
                }
            }
            _ => {}
        }
    }
    end
}

/// `yam show --svg`: the picture of the position after `target` plies (the
/// end by default), drawn from the same replay as the HTML export's.
fn show_svg(args: &ShowArgs, record: &yam_notation::Record<String>, target: Option<usize>) -> u8 {
    let timeline = crate::pictures::positions::timeline(&args.file, record, target);
    let reached = timeline.positions.len().saturating_sub(1);
    let Some(shown) = timeline.positions.last() else {
        eprintln!(
            "{}: {}",
            args.file.display(),
            timeline.error.as_deref().unwrap_or("nothing to show")
        );
        return EXIT_INVALID;
    };
    // A failure after the position asked for does not matter here.
    if let Some(error) = &timeline.error
        && target.is_none_or(|t| t > reached)
    {
        eprintln!("{}: {error}", args.file.display());
        return EXIT_INVALID;
    }
    if target.is_some_and(|t| t > reached) {
        eprintln!(
            "{}: the main line has only {reached} moves",
            args.file.display()
        );
        return EXIT_USAGE;
    }
    let svg = crate::pictures::svg::draw(shown, &title(record, reached));
    match &args.out {
        Some(path) => {
            if let Err(e) = crate::store::atomic::write(path, svg.as_bytes(), args.force) {
                eprintln!("{}: cannot write: {e}", path.display());
                return EXIT_USAGE;
            }
        }
        None => {
            use std::io::Write;
            if std::io::stdout().lock().write_all(svg.as_bytes()).is_err() {
                return EXIT_USAGE;
            }
        }
    }
    EXIT_VALID
}

/// The title line: the game and how far it was played.
fn title(record: &yam_notation::Record<String>, played: usize) -> String {
    let moves_word = if played == 1 { "move" } else { "moves" };
    format!(
        "{} after {played} {moves_word}",
        record.tags.get("GameId").unwrap_or("game")
    )
}

fn show_siege(record: &yam_notation::Record<String>, target: Option<usize>) -> u8 {
    let name = record.tags.get("Ruleset").unwrap_or("standard");
    let ruleset = match castle_siege::Ruleset::builtin(name) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_INVALID;
        }
    };
    let mut tokens = Vec::new();
    for (token, span) in record.main_line() {
        if target.is_some_and(|t| tokens.len() >= t) {
            break;
        }
        match token.parse::<SiegeToken>() {
            Ok(t) => tokens.push(t),
            Err(e) => {
                eprintln!("line {}: {token}: {e}", span.start.line);
                return EXIT_INVALID;
            }
        }
    }
    let revealed = tokens
        .iter()
        .filter(|t| matches!(t, SiegeToken::Setup(_)))
        .count();
    if revealed < 2 && !tokens.iter().any(|t| matches!(t, SiegeToken::Order { .. })) {
        println!("{}", title(record, tokens.len()));
        let sealed = tokens
            .iter()
            .filter(|t| matches!(t, SiegeToken::Sealed(_)))
            .count();
        println!(
            "The setups are secret until both are revealed (CS-07 to CS-10): {sealed} sealed, {revealed} revealed."
        );
        return EXIT_VALID;
    }
    match castle_siege::replay_record(ruleset.rules, &tokens) {
        Ok(replayed) => {
            println!("{}", title(record, tokens.len()));
            print!("{}", castle_siege::diagram(&replayed.state));
            EXIT_VALID
        }
        Err(e) => {
            eprintln!("{e}");
            if target.is_some() {
                eprintln!(
                    "(a Castle Siege position is shown after whole declarations: try --move with a turn's number)"
                );
            }
            EXIT_INVALID
        }
    }
}

fn show_cards(record: &yam_notation::Record<String>, target: Option<usize>) -> u8 {
    let name = record.tags.get("Ruleset").unwrap_or("standard");
    let ruleset = match genghis_khan::Ruleset::builtin(name) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_INVALID;
        }
    };
    let mut chance: Box<dyn Chance> = if let Some(shown) = ShownChance::read(record) {
        Box::new(shown)
    } else if let (Some(seed), Some(id)) =
        (record.tags.get("PracticeSeed"), record.tags.get("GameId"))
    {
        match (GameId::new(id), Blob::new(seed.as_bytes().to_vec())) {
            (Ok(game), Ok(seed)) => Box::new(PracticeChance::new(&game, &seed)),
            _ => {
                eprintln!("the GameId or PracticeSeed tag cannot be read");
                return EXIT_INVALID;
            }
        }
    } else {
        eprintln!(
            "the Foe layout and the draws of this game are nowhere in its text: it has neither [%chance] values nor a practice seed"
        );
        return EXIT_INVALID;
    };
    let mut state = match genghis_khan::setup(&ruleset, &mut *chance) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("the Foe layout: {e}");
            return EXIT_INVALID;
        }
    };
    let mut played = 0usize;
    for (token, span) in record.main_line() {
        if target.is_some_and(|t| played >= t) {
            break;
        }
        let step = token
            .parse::<CardMove>()
            .map_err(|e| e.to_string())
            .and_then(|mv| {
                genghis_khan::play(&state, &mv, &mut *chance).map_err(|e| e.to_string())
            });
        match step {
            Ok((next, _)) => state = next,
            Err(e) => {
                eprintln!("line {}: {token}: {e}", span.start.line);
                return EXIT_INVALID;
            }
        }
        played += 1;
    }
    println!("{}", title(record, played));
    print!("{}", genghis_khan::tableau(&state));
    EXIT_VALID
}

fn show_khan(
    file: &std::path::Path,
    record: &yam_notation::Record<String>,
    target: Option<usize>,
) -> u8 {
    let name = record.tags.get("Ruleset").unwrap_or("magician");
    // A built-in name, or a ruleset file beside the record.
    let ruleset = match crate::game::rulesets::khan_ruleset(file, name) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_INVALID;
        }
    };
    let mut line = match khan::MainLine::of(record, &ruleset) {
        Ok(line) => line,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_INVALID;
        }
    };
    let mut played = 0usize;
    for ply in line.by_ref().take(target.unwrap_or(usize::MAX)) {
        if let Err(e) = ply {
            eprintln!("line {}: {e}", e.span.start.line);
            return EXIT_INVALID;
        }
        played += 1;
    }
    let pos = *line.position();
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
