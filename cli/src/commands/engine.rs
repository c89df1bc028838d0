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
use yam_notation::{Dots, GameKind, Node, Record, Span, record_to_string};
use yam_referee::khan;
use yam_referee::replay::load_ruleset;

use crate::error::{Error, Result, Status};
use crate::game::header::Header;

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
    /// Which game of the file (1 is the first). Only the games before it
    /// are read, one at a time.
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// Print only the FEN of the final position.
    #[arg(long)]
    pub fen: bool,
}

/// Run a `yam engine` subcommand.
pub fn run(command: &EngineCommand) -> Result<Status> {
    match command {
        EngineCommand::Import(args) => import(args),
        EngineCommand::Export(args) => export(args),
    }
}

/// A refusal in the referee's own words.
fn invalid(e: impl std::fmt::Display) -> Error {
    Error::invalid(e.to_string())
}

fn import(args: &ImportArgs) -> Result<Status> {
    let line = match &args.line {
        Some(l) => l.clone(),
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Error::usage(format!("cannot read standard input: {e}")))?;
            text
        }
    };
    let line = line.trim();
    let engine = EnginePosition::parse(line).map_err(|e| {
        Error::invalid(format!(
            "not an engine position line: at character {}: expected {}\n  {line}\n  {}^",
            e.offset + 1,
            e.expected,
            " ".repeat(e.offset.min(line.len()))
        ))
    })?;
    let ruleset = khan::Ruleset::builtin(&args.ruleset).map_err(|e| Error::usage(e.to_string()))?;
    let rules = *ruleset.start_position().rules();
    let (moves, _) = khan::replay_engine(&engine, rules).map_err(invalid)?;
    let start = khan::Position::from_fen(&engine.fen.to_string(), rules)
        .map_err(|e| Error::invalid(format!("the engine FEN is not a valid position: {e}")))?;
    // The header through the shared builder, spelled as every record Yam
    // writes (the ruleset loaded as `builtin` just did, so it is there).
    let loaded =
        load_ruleset(GameKind::Khan, &args.ruleset).map_err(|e| Error::usage(e.to_string()))?;
    let players = [args.white.clone(), args.black.clone()];
    let mut tags = Header {
        game: GameKind::Khan,
        ruleset: &loaded,
        ruleset_tag: &loaded.name,
        id: &args.game_id,
        date: &args.date,
        event: None,
        site: None,
        players: &players,
    }
    .tags();
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
        let token = khan::to_token(&pos, mv).map_err(invalid)?;
        record.movetext.push(Node::Move(token, Span::default()));
        pos = khan::apply(&pos, mv).map_err(invalid)?.position;
    }
    let result = pos
        .outcome()
        .and_then(|o| o.result().parse().ok())
        .unwrap_or(yam_notation::GameResult::Unfinished);
    record.set_result(result);
    print!("{}", record_to_string::<KhanGrammar>(&record));
    Ok(Status::Valid)
}

fn export(args: &ExportArgs) -> Result<Status> {
    let game = crate::archive::nth::record_of(&args.file, args.game)?;
    let status = export_record(args, &game.record)?;
    Ok(status.and(game.rules_verdict(&args.file, args.game)))
}

fn export_record(args: &ExportArgs, record: &Record<String>) -> Result<Status> {
    // The innersky engine plays Khan only.
    if let Some(game) = record.tags.game()
        && game != GameKind::Khan
    {
        return Err(Error::usage(format!(
            "{}: game {} is a {game} game; the innersky engine plays Khan only",
            args.file.display(),
            args.game
        )));
    }
    let tag = record.tags.get("Ruleset").unwrap_or("magician");
    let ruleset = crate::game::rulesets::khan_ruleset(&args.file, tag).map_err(invalid)?;
    let mut main_line = khan::MainLine::of(record, &ruleset).map_err(invalid)?;
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
        let ply = ply.map_err(|e| {
            Error::invalid(format!("{}:{}: {e}", args.file.display(), e.span.start))
        })?;
        line.moves.push(khan::to_engine(&ply.mv));
    }
    let pos = *main_line.position();
    if args.fen {
        println!("{}", pos.to_engine_fen());
    } else {
        println!("{line}");
    }
    Ok(Status::Valid)
}
