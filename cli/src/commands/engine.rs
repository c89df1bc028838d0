//! `yam engine`: trade Khan games and positions with the innersky engine.
//!
//! The engine speaks a UCI-like protocol: `position fen <fen> startpos moves
//! g4f5 a5a4 ...`. Import turns such a line into a Yam record (so a game
//! played against the engine can be archived and checked); export turns a
//! Yam record back into that line (so a Yam position can be handed to the
//! engine). The engine's from-to strings drop the kind of move; where a
//! from-to onto an enemy piece could be a capture or a spell, Yam reads a
//! capture whenever the piece can move there (see `docs/rules/khan.md`).

use std::io::Read;
use std::path::PathBuf;

use yam_notation::khan::{EnginePosition, KhanGrammar};
use yam_notation::{Dots, Node, RawGrammar, Record, Span, Tags, read_all, record_to_string};
use yam_referee::khan;

use crate::error::{EXIT_INVALID, EXIT_USAGE, EXIT_VALID};

/// `yam engine` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum EngineCommand {
    /// Make a Yam record from an engine position line.
    #[command(
        after_help = "Example:\n  yam engine import --ruleset magician \\\n    'position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves g3f3 e7f6'"
    )]
    Import(ImportArgs),
    /// Print the engine position line of a Yam record.
    #[command(after_help = "Example:\n  yam engine export examples/khan/opening-lesson.yam")]
    Export(ExportArgs),
}

/// Arguments of `yam engine import`.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The engine line; read from standard input when absent.
    pub line: Option<String>,
    /// The ruleset the game was played under (its options decide legality).
    #[arg(long, default_value = "magician")]
    pub ruleset: String,
    /// The White player's name.
    #[arg(long, default_value = "White")]
    pub white: String,
    /// The Black player's name.
    #[arg(long, default_value = "Black")]
    pub black: String,
    /// The game's identifier.
    #[arg(long, default_value = "engine-import")]
    pub game_id: String,
    /// The date played, YYYY.MM.DD.
    #[arg(long, default_value = "????.??.??")]
    pub date: String,
}

/// Arguments of `yam engine export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The record file.
    pub file: PathBuf,
    /// Which game of the file (1 is the first).
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// Print only the FEN of the final position.
    #[arg(long)]
    pub fen: bool,
}

/// Run a `yam engine` subcommand.
pub fn run(command: &EngineCommand) -> u8 {
    match command {
        EngineCommand::Import(args) => import(args),
        EngineCommand::Export(args) => export(args),
    }
}

fn import(args: &ImportArgs) -> u8 {
    let line = match &args.line {
        Some(l) => l.clone(),
        None => {
            let mut text = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut text) {
                eprintln!("cannot read standard input: {e}");
                return EXIT_USAGE;
            }
            text
        }
    };
    let line = line.trim();
    let engine = match EnginePosition::parse(line) {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "not an engine position line: at character {}: expected {}",
                e.offset + 1,
                e.expected
            );
            eprintln!("  {line}\n  {}^", " ".repeat(e.offset.min(line.len())));
            return EXIT_INVALID;
        }
    };
    let ruleset = match khan::Ruleset::builtin(&args.ruleset) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_USAGE;
        }
    };
    let rules = *ruleset.start_position().rules();
    let (moves, _) = match khan::replay_engine(&engine, rules) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_INVALID;
        }
    };
    let start = match khan::Position::from_fen(&engine.fen.to_string(), rules) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("the engine FEN is not a valid position: {e}");
            return EXIT_INVALID;
        }
    };
    let mut tags = Tags::new();
    tags.set("Game", "Khan");
    tags.set("Variant", title_case(&ruleset.game.to_string()));
    tags.set("GameId", &args.game_id);
    tags.set("Date", &args.date);
    tags.set("White", &args.white);
    tags.set("Black", &args.black);
    tags.set("NotationVersion", yam_notation::tags::NOTATION_VERSION);
    tags.set("Ruleset", &args.ruleset);
    if start.fen() != ruleset.start_position().fen() {
        tags.set("Position", start.to_yam());
    }
    let mut record: Record<yam_notation::khan::MoveToken> = Record::new(tags);
    let mut pos = start;
    for mv in &moves {
        let number = pos.fullmoves();
        let dots = match pos.turn() {
            khan::Side::White => Some(Dots::One),
            khan::Side::Black if record.movetext.is_empty() => Some(Dots::Three),
            khan::Side::Black => None,
        };
        if let Some(dots) = dots {
            record.movetext.push(Node::MoveNumber(number, dots));
        }
        let token = match khan::to_token(&pos, mv) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{e}");
                return EXIT_INVALID;
            }
        };
        record.movetext.push(Node::Move(token, Span::default()));
        pos = match khan::apply(&pos, mv) {
            Ok(a) => a.position,
            Err(e) => {
                eprintln!("{e}");
                return EXIT_INVALID;
            }
        };
    }
    let result = pos
        .outcome()
        .and_then(|o| o.result().parse().ok())
        .unwrap_or(yam_notation::GameResult::Unfinished);
    record.set_result(result);
    print!("{}", record_to_string::<KhanGrammar>(&record));
    EXIT_VALID
}

fn export(args: &ExportArgs) -> u8 {
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
    let record = match games.get(args.game.wrapping_sub(1)) {
        Some(Ok(r)) => r,
        Some(Err(e)) => {
            eprint!("{}", crate::diagnostics::render_syntax(&args.file, e));
            return EXIT_INVALID;
        }
        None => {
            eprintln!("{}: there is no game {}", args.file.display(), args.game);
            return EXIT_USAGE;
        }
    };
    let tag = record.tags.get("Ruleset").unwrap_or("magician");
    let ruleset = match crate::game::rulesets::khan_ruleset(&args.file, tag) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_INVALID;
        }
    };
    let mut main_line = match khan::MainLine::of(record, &ruleset) {
        Ok(line) => line,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_INVALID;
        }
    };
    let start = *main_line.position();
    if !start.tower_squares().is_empty() {
        eprintln!(
            "note: the engine's short FEN cannot carry the siege state (towers, captives, gers); \
             the line below gives the pieces only"
        );
    }
    let mut line = EnginePosition {
        fen: start.to_engine_fen(),
        moves: Vec::new(),
    };
    for ply in main_line.by_ref() {
        match ply {
            Ok(ply) => line.moves.push(khan::to_engine(&ply.mv)),
            Err(e) => {
                eprintln!("{}:{}: {e}", args.file.display(), e.span.start);
                return EXIT_INVALID;
            }
        }
    }
    let pos = *main_line.position();
    if args.fen {
        println!("{}", pos.to_engine_fen());
    } else {
        println!("{line}");
    }
    EXIT_VALID
}

/// `rescue-khan` as `Rescue Khan`, for the `Variant` tag.
fn title_case(name: &str) -> String {
    name.split(['-', '_', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}
