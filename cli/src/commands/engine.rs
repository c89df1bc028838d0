//! `yam engine`: trade Khan games and positions with the innersky engine.
//!
//! The engine speaks a UCI-like protocol: `ucinewgame [rules] board
//! [boardtype]` names the rule options and the game type, and `position fen
//! <fen> startpos moves g4f5 a5a4 ...` the start and the moves. Import turns
//! such lines into a Yam record (so a game played against the engine can be
//! archived and checked); export turns a Yam record back into them (so a Yam
//! position can be handed to the engine). The engine's from-to strings drop
//! the kind of move; where a from-to onto an enemy piece could be a capture
//! or a spell, Yam reads a capture whenever the piece can move there (KR-P1),
//! so export names every move that would come back as another one, and can
//! write Yam's marked string instead (`e4*e5`). See "The engine's forms" in
//! `docs/rules/khan.md`.

use std::io::Read;
use std::path::PathBuf;

use yam_notation::khan::{EnginePosition, KhanGrammar};
use yam_notation::{Dots, GameKind, Node, Record, Span, record_to_string};
use yam_referee::khan::{self, NewGame, board_line};
use yam_referee::replay::load_ruleset;

use crate::error::{Error, Result, Status};
use crate::game::header::Header;

/// The README's and `--help`'s import example: one board line, one position line.
const IMPORT_EXAMPLE: &str = "Example:\n  yam engine import 'ucinewgame board magician' 'position fen \\\n    wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves g3f3 e7f6'\n\nA siege game names its board type; its standard start is then the short FEN:\n  yam engine import 'ucinewgame board rescuekhan' 'position fen \\\n    wfwwa3/w1sha3/wn6/aa6/6AA/6NW/3AHS1W/3AWWFW w 0 1 startpos moves g3f3'";

/// `yam engine` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum EngineCommand {
    /// Make a Yam record from the engine's `ucinewgame` and `position` lines.
    #[command(after_help = IMPORT_EXAMPLE)]
    Import(ImportArgs),
    /// Print the engine's `ucinewgame` and `position` lines of a Yam record.
    #[command(
        after_help = "Example:\n  yam engine export examples/khan/opening-lesson.yam\n  yam engine export --exact game.yam | yam engine import"
    )]
    Export(ExportArgs),
}

/// Arguments of `yam engine import`.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The engine lines: an optional `ucinewgame ... board X` line, then one
    /// `position fen ...` line; each an argument, or one text with a line
    /// each. Read from standard input when absent.
    pub lines: Vec<String>,
    /// The built-in ruleset the game was played under (its options decide
    /// legality). Without it, the board line's board type names it, and
    /// without a board line it is `magician`. With both, they must agree.
    #[arg(long)]
    pub ruleset: Option<String>,
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
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub game: usize,
    /// Print only the FEN of the final position (a siege position with its
    /// siege fields).
    #[arg(long)]
    pub fen: bool,
    /// Write each move whose bare from-to string would be read back as
    /// another move with the kind's mark (`e4*e5`), so that `yam engine
    /// import` gives the game back exactly. The innersky engine does not
    /// read the marks.
    #[arg(long, conflicts_with = "strict")]
    pub exact: bool,
    /// Refuse (exit 1) a game with a move whose bare from-to string would be
    /// read back as another move, instead of warning.
    #[arg(long)]
    pub strict: bool,
}

/// Why engine lines cannot be imported, beyond the referee's own errors.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A line that is neither `ucinewgame` nor `position`.
    #[error("line {line}: expected `ucinewgame ...` or `position fen ...`, found `{found}`")]
    UnknownCommand {
        /// Which line, from 1.
        line: usize,
        /// Its first word.
        found: String,
    },
    /// No position line.
    #[error("no `position fen ...` line: expected one, after any `ucinewgame` line")]
    NoPosition,
    /// Two position lines, or two board lines, or a board line after the position.
    #[error("line {line}: {what}")]
    Order {
        /// Which line, from 1.
        line: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// The board line cannot be read.
    #[error("line {line}: {error}")]
    BoardLine {
        /// Which line, from 1.
        line: usize,
        /// Why.
        error: board_line::NewGameError,
    },
    /// `--ruleset` names another game type than the board line.
    #[error(
        "the board line says `board {board}` but --ruleset {ruleset} is a {game} ruleset: \
         leave --ruleset out, or name a {wanted} ruleset"
    )]
    RulesetBoard {
        /// The board type as the line writes it.
        board: String,
        /// The ruleset named.
        ruleset: String,
        /// Its game type.
        game: khan::GameType,
        /// The game type the line names.
        wanted: khan::GameType,
    },
    /// The board line's options are not the ruleset's.
    #[error(
        "the board line's options are not those of ruleset {ruleset}: {list}; \
         yam engine import records a game under a built-in ruleset, whose options must be the line's"
    )]
    Options {
        /// The ruleset.
        ruleset: String,
        /// Each difference, `exchanges is 1 on the line and 0 in the ruleset`.
        list: String,
    },
}

impl From<ImportError> for Error {
    fn from(e: ImportError) -> Error {
        Error::invalid(e.to_string())
    }
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

/// The engine lines of an import: the board line, if any, and the position line.
struct EngineLines {
    new_game: Option<NewGame>,
    position: String,
}

/// Sort the input into its board line and position line (blank lines
/// skipped), refusing anything else, so that nothing is silently ignored.
fn engine_lines(texts: &[String]) -> std::result::Result<EngineLines, ImportError> {
    let mut new_game = None;
    let mut position = None;
    for (i, line) in texts
        .iter()
        .flat_map(|t| t.lines())
        .map(str::trim)
        // Numbered before the blank lines are skipped, so a line's number
        // is where it stands in the input.
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
    {
        let n = i + 1;
        match line.split_whitespace().next().unwrap_or("") {
            "ucinewgame" => {
                if position.is_some() {
                    return Err(ImportError::Order {
                        line: n,
                        what: "a `ucinewgame` line after the `position` line: expected it before",
                    });
                }
                if new_game.is_some() {
                    return Err(ImportError::Order {
                        line: n,
                        what: "a second `ucinewgame` line: expected one at most",
                    });
                }
                new_game = Some(
                    NewGame::parse(line)
                        .map_err(|error| ImportError::BoardLine { line: n, error })?,
                );
            }
            "position" => {
                if position.is_some() {
                    return Err(ImportError::Order {
                        line: n,
                        what: "a second `position` line: expected one game",
                    });
                }
                position = Some(line.to_owned());
            }
            other => {
                return Err(ImportError::UnknownCommand {
                    line: n,
                    found: crate::diagnostics::line_window(other, 0).0,
                });
            }
        }
    }
    Ok(EngineLines {
        new_game,
        position: position.ok_or(ImportError::NoPosition)?,
    })
}

/// The built-in ruleset of an import: `--ruleset`, else the board line's
/// board type, else `magician`; the board line's options must be its.
fn import_ruleset(args: &ImportArgs, new_game: Option<&NewGame>) -> Result<khan::Ruleset> {
    let board = new_game.and_then(|g| g.game);
    let name = match (&args.ruleset, board) {
        (Some(name), _) => name.clone(),
        (None, Some(game)) => game.name().to_owned(),
        (None, None) => "magician".to_owned(),
    };
    let ruleset = khan::Ruleset::builtin(&name).map_err(|e| Error::usage(e.to_string()))?;
    if let Some(wanted) = board
        && ruleset.game != wanted
    {
        return Err(ImportError::RulesetBoard {
            board: board_line::board_name(wanted),
            ruleset: name,
            game: ruleset.game,
            wanted,
        }
        .into());
    }
    if let Some(g) = new_game {
        let diffs = board_line::differences(&g.options, &ruleset.rules.options);
        if !diffs.is_empty() {
            let list = diffs
                .iter()
                .map(|(kw, line, rs)| format!("{kw} is {line} on the line and {rs} in the ruleset"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(ImportError::Options {
                ruleset: ruleset.name.clone(),
                list,
            }
            .into());
        }
    }
    Ok(ruleset)
}

/// The most standard input an import reads: an engine's lines are a board
/// line and a position line, whose moves the rules bound (KR-6.5) to far
/// less. Read whole, a 100 MB line took 312 MB.
const MAX_INPUT: u64 = 4 << 20;

fn import(args: &ImportArgs) -> Result<Status> {
    let texts = if args.lines.is_empty() {
        // Its size first, then its encoding: cut by the limit inside a
        // character, 6 MiB of UTF-8 was refused as "not valid UTF-8"
        // (`standard_input_over_the_limit_is_refused_as_too_long_even_cut_mid_character`).
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_INPUT + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::usage(format!("cannot read standard input: {e}")))?;
        if bytes.len() as u64 > MAX_INPUT {
            return Err(Error::invalid(format!(
                "standard input holds more than {MAX_INPUT} bytes: expected an engine's lines (a \
                 board line and a position line)"
            )));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::invalid(format!(
                "standard input is not UTF-8 (byte {}): expected an engine's lines",
                e.utf8_error().valid_up_to()
            ))
        })?;
        vec![text]
    } else {
        args.lines.clone()
    };
    let lines = engine_lines(&texts)?;
    let line = lines.position.as_str();
    let engine = EnginePosition::parse(line).map_err(|e| {
        // A window of the line around the fault, as every diagnostic
        // shows one: a megabyte line was echoed whole, caret line and all
        // (`a_megabyte_engine_line_is_refused_in_a_short_message`).
        let (shown, at) = crate::diagnostics::line_window(line, e.offset);
        Error::invalid(format!(
            "not an engine position line: at character {}: expected {}\n  {shown}\n  {}^",
            e.offset + 1,
            e.expected,
            " ".repeat(at)
        ))
    })?;
    let ruleset = import_ruleset(args, lines.new_game.as_ref())?;
    // The siege state comes from the line's fields, or from the board
    // type's standard start when the FEN is that start's.
    let start = khan::engine_start(&engine, &ruleset).map_err(invalid)?;
    let (moves, _) = khan::replay_engine_from(start, &engine).map_err(invalid)?;
    // The header through the shared builder, spelled as every record Yam
    // writes (the ruleset loaded as `builtin` just did, so it is there).
    let loaded =
        load_ruleset(GameKind::Khan, &ruleset.name).map_err(|e| Error::usage(e.to_string()))?;
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
    // The whole start, siege state included, so the record checked is the
    // game imported.
    if start != ruleset.start_position() {
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
    out!("{}", record_to_string::<KhanGrammar>(&record));
    Ok(Status::Valid)
}

fn export(args: &ExportArgs) -> Result<Status> {
    let game = crate::archive::nth::record_of(&args.file, args.game)?;
    let status = export_record(args, &game.standing())?;
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
    let new_game = NewGame {
        options: ruleset.rules.options,
        game: Some(ruleset.game),
    };
    let standard = ruleset.game.standard();
    if ruleset.rules.camps != standard.rules.camps {
        eprintln!(
            "warning: ruleset {tag} has camps other than the standard {} ruleset's; the board \
             line cannot carry them, and `yam engine import` reads the standard ones",
            ruleset.game
        );
    }
    for (kw, value, _) in board_line::differences(&ruleset.rules.options, &khan::Options::default())
    {
        if matches!(kw, "capturePromotions" | "exchanges" | "powerMagicianMoves") {
            eprintln!(
                "note: {kw} {value} is Yam's keyword; the innersky engine's keyword for it is not known"
            );
        }
    }
    // The standard start of a game type travels as its short FEN (the board
    // line names the game); any other start with siege state as the FEN and
    // Yam's siege fields, the engine's own long FEN being unknown.
    let position = if start == standard.start_position() || !start.has_siege_state() {
        yam_notation::khan::YamPosition::from_fen(start.to_engine_fen())
    } else {
        eprintln!(
            "note: this siege start is not the standard {} start; it is written as the FEN and \
             Yam's siege fields (towers=, manned=, ...), which `yam engine import` reads but the \
             innersky engine may not (its long FEN is not documented)",
            ruleset.game
        );
        start.to_yam_text()
    };
    let mut line = EnginePosition {
        position,
        moves: Vec::new(),
    };
    let mut lossy = 0usize;
    loop {
        let before = *main_line.position();
        let Some(ply) = main_line.next() else { break };
        let ply = ply.map_err(|e| {
            Error::invalid(format!("{}:{}: {e}", args.file.display(), e.span.start))
        })?;
        let plain = khan::to_engine(&ply.mv);
        let Some(misread) = khan::engine_misreading(&before, &ply.mv) else {
            line.moves.push(plain);
            continue;
        };
        // The bare string would come back as another move: name both.
        let dots = if before.turn() == khan::Side::White {
            "."
        } else {
            "..."
        };
        let written = khan::to_token(&before, &ply.mv)
            .map_or_else(|_| ply.token.to_owned(), |t| t.to_string());
        let read = khan::to_token(&before, &misread).map_or_else(
            |e| format!("{misread}, which is illegal there ({e})"),
            |t| t.to_string(),
        );
        let exact = khan::to_engine_exact(&before, &ply.mv);
        let what = format!(
            "move {}{dots} {written} written {plain} is read back as {read}",
            before.fullmoves()
        );
        if args.strict {
            return Err(Error::invalid(format!(
                "{}: game {}: {what}; refused (--strict); --exact writes it {exact}",
                args.file.display(),
                args.game
            )));
        }
        if args.exact {
            line.moves.push(exact);
        } else {
            eprintln!(
                "warning: {what}, so the game read back parts from this one there \
                 (--exact writes {exact}, which Yam reads back but the engine may not)"
            );
            lossy += 1;
            line.moves.push(plain);
        }
    }
    if lossy > 1 {
        eprintln!("warning: {lossy} moves would be read back as other moves");
    }
    let pos = *main_line.position();
    // What the two lines cannot carry beyond the moves: the record's result
    // when the final position does not make it (a resignation, an agreed
    // draw), and a ruleset import cannot name.
    let made = pos.outcome().map(|o| o.result().to_owned());
    if let Some(result) = record.tags.get("Result")
        && result != "*"
        && made.as_deref() != Some(result)
    {
        eprintln!(
            "note: the result {result} is not carried: the engine's lines give the moves only, \
             and `yam engine import` records {}",
            made.as_deref().unwrap_or("*")
        );
    }
    if yam_referee::ruleset_name::builtin(GameKind::Khan, tag).is_err() {
        eprintln!(
            "note: ruleset {tag} is not built in; the board line gives its game type and \
             options, and `yam engine import` records the game under a built-in ruleset"
        );
    }
    if args.fen {
        if !pos.has_siege_state() {
            outln!("{}", pos.to_engine_fen());
        } else {
            eprintln!(
                "note: a siege position is printed with Yam's siege fields after the FEN; the \
                 innersky engine's own long FEN is not documented"
            );
            outln!("{}", pos.to_yam());
        }
    } else {
        outln!("{new_game}");
        outln!("{line}");
    }
    Ok(Status::Valid)
}
