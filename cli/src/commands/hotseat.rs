//! `yam hotseat`: a game on one machine between local identities, every
//! event signed by the right key, every roll through the real protocol.
//!
//! The record file is the game's whole state: each command reads it,
//! verifies it completely, builds the next events through the referee's
//! harness (`yam_referee::signed::table`), which proves each one before
//! handing it back, verifies the new record once more, and only then
//! replaces the file atomically. Secrets stay in the `--secrets` directory
//! (see `secrets`).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use yam_notation::{GameKind, RawGrammar, ReadError, Record, record_to_string};
use yam_referee::autoplay::{self, Intent};
use yam_referee::fair_play::encoding::Blob;
use yam_referee::fair_play::game_id::GameId;
use yam_referee::fair_play::hash::Hash32;
use yam_referee::fair_play::sign::PublicKey;
use yam_referee::fair_play::turn::{EventBody, Evidence, Mode, SignedEvent};
use yam_referee::replay::{LoadedRuleset, RulesCatalog};
use yam_referee::signed::SignedReplay;
use yam_referee::signed::dispute::describe;
use yam_referee::signed::replay::OfferKind;
use yam_referee::signed::table::{self, Opening, Seating, Signer, TableError};
use yam_referee::signed::text::chance_item;
use yam_referee::signed::write::append_events;

use crate::diagnostics::visible_path;
use crate::error::{Error, Result, Status};
use crate::game::checkpoint;
use crate::game::header::{Header, today};
use crate::game::keys::{Keys, chain_length, game_of};
use crate::game::record::{
    Loaded, append_turn, check_written, load, load_checkpointed, read_signed,
};
use crate::game::rulesets::{RecordRulesets, tag_for};
use crate::game::secrets::{Identity, Remembered, Secrets, random_32};
use crate::game::setup::{reveal_setup, seal_setup, written_intent};
use crate::json::Format;
use crate::store::atomic;

/// Arguments of `yam hotseat`.
#[derive(Debug, clap::Args)]
pub struct HotseatArgs {
    #[command(subcommand)]
    command: HotseatCommand,
}

#[derive(Debug, Subcommand)]
enum HotseatCommand {
    /// Start a game between two local identities (created on first use).
    #[command(after_help = "Examples:\n  \
yam hotseat new --game-type khan --ruleset magician --first alice \\\n      \
--second bob --out game.yam --secrets ~/.yam-secrets\n  \
yam hotseat new --ruleset rescue-khan --first alice --second bob \\\n      \
--draw-seats --out siege.yam --secrets DIR\n  \
yam hotseat new --ruleset basic --first alice --second bob \\\n      \
--mode practice --seed 'lesson 1' --out practice.yam --secrets DIR\n  \
yam hotseat new --ruleset-file lessons/rulesets/drop-off.yaml \\\n      \
--first alice --second bob --out lessons/drop-off.yam --secrets DIR\n  \
yam hotseat new --game-type castle-siege --ruleset standard \\\n      \
--first alice --second bob --out siege.yam --secrets DIR\n  \
yam hotseat new --game-type castle-siege --ruleset standard \\\n      \
--turn priority-list --first alice --second bob \\\n      \
--out siege.yam --secrets DIR\n  \
yam hotseat new --game-type genghis-khan --ruleset standard \\\n      \
--first pat --director dora --out cards.yam --secrets DIR\n\n\
Genghis Khan is a solo game: its director (--director) opens it, answers\n\
every roll with its own chain and lists it in the director's register,\n\
DIR/director/register.yam.\n\n\
Castle Siege is played as its rules say by default (--turn faithful, CS-P4):\n\
the record names the ruleset's -faithful twin (standard-faithful);\n\
--turn priority-list keeps the one-mail priority list (CS-P1).")]
    New(Box<NewArgs>),
    /// Play the next move, signed by the player to move.
    #[command(after_help = "Examples:\n  \
yam hotseat move game.yam Ng3-f3 --secrets DIR\n  \
yam hotseat move game.yam Ae7-f6 --comment 'The archer answers.' --secrets DIR\n  \
yam hotseat move game.yam Wh3-f4 --dry-run --secrets DIR\n  \
yam hotseat move siege.yam Defender:CKAO/OACK/KCOA/AOKC --secrets DIR\n  \
    # a setup: sealed, kept secret\n  \
yam hotseat move siege.yam reveal --as bob --secrets DIR   # once both sealed\n  \
yam hotseat move siege.yam Move --secrets DIR      # faithful: the allowance\n  \
yam hotseat move siege.yam Kc4-b4 --secrets DIR    # then one step at a time\n  \
yam hotseat move siege.yam Attack Ad5xKb5 --secrets DIR   # one roll\n  \
yam hotseat move siege.yam Move Kc4-b4 Attack Ad5xKb5 End --secrets DIR\n  \
    # under --turn priority-list: a whole turn, one roll\n  \
yam hotseat move cards.yam draw --secrets DIR       # one card, one roll\n\n\
A move that needs chance is a roll: the declaration is signed first, then\n\
answered, then resolved; a dry run stops at the declaration and draws nothing.")]
    Move(MoveArgs),
    /// The player to move (or --as NAME) resigns.
    #[command(
        after_help = "Examples:\n  yam hotseat resign game.yam --secrets DIR\n  \
yam hotseat resign game.yam --as bob --secrets DIR"
    )]
    Resign(ActArgs),
    /// The player to move (or --as NAME) offers a draw.
    #[command(after_help = "Examples:\n  yam hotseat offer-draw game.yam --secrets DIR")]
    OfferDraw(ActArgs),
    /// The other side (or --as NAME) accepts the open draw offer.
    #[command(after_help = "Examples:\n  yam hotseat accept-draw game.yam --secrets DIR")]
    AcceptDraw(ActArgs),
    /// The other side (or --as NAME) declines the open draw offer.
    #[command(
        after_help = "Examples:\n  yam hotseat decline-draw game.yam --dry-run --secrets DIR"
    )]
    DeclineDraw(ActArgs),
    /// Who is to move, and the legal moves.
    #[command(
        after_help = "Examples:\n  yam hotseat status game.yam\n  yam hotseat status game.yam --moves    # one legal move per line, for scripts"
    )]
    Status(StatusArgs),
    /// Play the next turns as the automatic player chooses them (Castle Siege: the
    /// self-play driver; Genghis Khan: the greedy player; Khan: random legal
    /// moves), every one signed and rolled like a move of `move`.
    #[command(after_help = "Examples:\n  \
yam hotseat auto siege.yam --secrets DIR   # the next declaration (or setup)\n  \
yam hotseat auto siege.yam --to-end --policy random --seed 7 --annotate \\\n      \
--secrets DIR\n  \
yam hotseat auto cards.yam --steps 5 --secrets DIR   # five greedy moves")]
    Auto(AutoArgs),
}

/// How chance is provided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModeArg {
    /// Both players' hash chains; nobody can bias or foresee a roll.
    Peer,
    /// Solo games: a tournament director's chain answers every roll, and
    /// the director's register lists every game started.
    Director,
    /// An open seed: reproducible, reported as unverified practice everywhere.
    Practice,
}

/// How `auto` chooses Castle Siege orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PolicyArg {
    /// Random legal orders ranked by a crude greed.
    Eager,
    /// Uniformly random legal orders.
    Random,
}

/// How a Castle Siege turn is declared (docs/rules/castle-siege.md, "Two
/// ways to play a turn").
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TurnArg {
    /// CS-P4: the allowance first, then each move, breach and attack chosen
    /// once the dice before it are known.
    Faithful,
    /// CS-P1: the Move phase as a priority list declared before the
    /// allowance, a whole turn in one declaration if one likes.
    PriorityList,
}

#[derive(Debug, clap::Args)]
struct NewArgs {
    /// The game: khan, castle-siege or genghis-khan [default: khan].
    #[arg(long, value_name = "TYPE")]
    game_type: Option<String>,
    /// The old spelling of --game-type, kept for one release (with a
    /// warning): everywhere else `--game N` is a game's number in a file.
    #[arg(
        long = "game",
        hide = true,
        value_name = "TYPE",
        conflicts_with = "game_type"
    )]
    old_game: Option<String>,
    /// The ruleset, by name (Khan: basic, magician, power-magician,
    /// rescue-general, rescue-khan).
    #[arg(
        long,
        required_unless_present = "ruleset_file",
        conflicts_with = "ruleset_file"
    )]
    ruleset: Option<String>,
    /// A Khan ruleset file of one's own (YAML, docs/rules/khan.md), in the
    /// record's directory or below it: the record names it by its path
    /// relative to the record, and the opening pins its exact text.
    #[arg(long, value_name = "FILE")]
    ruleset_file: Option<PathBuf>,
    /// Castle Siege: how a turn is declared. At one table the default is
    /// the faithful turn: a standard ruleset is played as its `-faithful`
    /// twin (`standard` as `standard-faithful`), which the record names.
    #[arg(long, value_enum, value_name = "TURN")]
    turn: Option<TurnArg>,
    /// Prose for the comment before the first move (it holds the opening).
    #[arg(long, value_name = "TEXT")]
    comment: Option<String>,
    /// The challenger's identity; it takes the first seat (Khan: White;
    /// Castle Siege: the Defender) unless --draw-seats. In a solo game
    /// (Genghis Khan), the player.
    #[arg(long, value_name = "NAME")]
    first: String,
    /// The invited identity (two-player games).
    #[arg(long, value_name = "NAME")]
    second: Option<String>,
    /// Solo games: the director's identity. It opens the game, answers every
    /// roll with its own chain and keeps the register of every game
    /// started (SECRETS/director/register.yam).
    #[arg(long, value_name = "NAME")]
    director: Option<String>,
    /// Peer (both players' chains), director (solo: a director's chain) or
    /// practice (open seed). Default: peer, or director for solo games.
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// The open seed of a practice game.
    #[arg(long, value_name = "TEXT", required_if_eq("mode", "practice"))]
    seed: Option<String>,
    /// Draw who takes the first seat by one commit-reveal exchange.
    #[arg(long)]
    draw_seats: bool,
    /// The game id (default: GAME-DATE-random).
    #[arg(long, value_name = "ID")]
    id: Option<String>,
    /// The date, YYYY.MM.DD (default: today, UTC).
    #[arg(long)]
    date: Option<String>,
    /// The Event tag.
    #[arg(long)]
    event: Option<String>,
    /// Rolls each player's chain covers (default: enough for the whole
    /// game, 1,024 at the least; a faithful Castle Siege 80 a round of its
    /// round cap), 1 to 1,048,576: checked before anything is made.
    #[arg(long, value_name = "N")]
    chain_length: Option<u32>,
    /// The record file to create.
    #[arg(short, long, value_name = "FILE")]
    out: PathBuf,
    /// Replace FILE if it exists.
    #[arg(long)]
    force: bool,
    /// The secrets directory (created with mode 0700).
    #[arg(long, value_name = "DIR")]
    secrets: PathBuf,
}

#[derive(Debug, clap::Args)]
struct MoveArgs {
    /// The game's record file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The turn's moves (Khan: one move, long `Ng3-f5`, short `Nf5` or
    /// from-to `g3f5`; Castle Siege: the orders of one declaration,
    /// unmarked, short ones too (`b3b4`, `Ab5xc5`), or a setup to seal, or
    /// `reveal`; Genghis Khan: `draw`, or moves that need no card, a
    /// capture as `pay:10b+9e`). The record keeps the canonical tokens.
    #[arg(required = true, value_name = "MOVE")]
    moves: Vec<String>,
    /// Who plays (default: the player to move; Castle Siege setups: either
    /// side).
    #[arg(long = "as", value_name = "NAME")]
    who: Option<String>,
    /// Prose for the comment after the move.
    #[arg(long, value_name = "TEXT")]
    comment: Option<String>,
    /// Show what would be signed and written, and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The secrets directory.
    #[arg(long, value_name = "DIR")]
    secrets: PathBuf,
}

#[derive(Debug, clap::Args)]
struct ActArgs {
    /// The game's record file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Who acts (default: the player to move; for answers, the other side).
    #[arg(long = "as", value_name = "NAME")]
    who: Option<String>,
    /// Show what would be signed and written, and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The secrets directory.
    #[arg(long, value_name = "DIR")]
    secrets: PathBuf,
}

#[derive(Debug, clap::Args)]
struct AutoArgs {
    /// The game's record file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// How many turns to play (each declaration, setup step or move is one).
    #[arg(long, default_value_t = 1, value_name = "N")]
    steps: u32,
    /// Play until the game is over.
    #[arg(long, conflicts_with = "steps")]
    to_end: bool,
    /// Castle Siege: how the orders are chosen.
    #[arg(long, value_enum, default_value_t = PolicyArg::Eager)]
    policy: PolicyArg,
    /// The seed of the automatic player's choices (never of a die or a card).
    #[arg(long, default_value_t = 1, value_name = "N")]
    seed: u64,
    /// Write what the dice decided, and how the game stands, into the
    /// comment after each turn.
    #[arg(long)]
    annotate: bool,
    /// The secrets directory.
    #[arg(long, value_name = "DIR")]
    secrets: PathBuf,
}

#[derive(Debug, clap::Args)]
struct StatusArgs {
    /// The game's record file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print only the legal moves, one per line.
    #[arg(long, conflicts_with = "format")]
    moves: bool,
    /// How to print: `human`, or `json` for one object (schema
    /// `yam-hotseat-status/1`, docs/json.md).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// `hotseat status --format json` (docs/schema/hotseat-status-1.json).
#[derive(Debug, serde::Serialize)]
struct StatusLine {
    schema: &'static str,
    file: String,
    game_type: &'static str,
    ruleset: String,
    mode: Option<&'static str>,
    events: usize,
    plies: u32,
    seats: Vec<SeatLine>,
    referee: Option<SeatLine>,
    draw_offered_by: Vec<String>,
    /// The result and why, once the game is over.
    result: Option<String>,
    ending: Option<String>,
    /// Who is to move (their seat's role and name), while the game goes on.
    to_move: Option<SeatLine>,
    /// The move number and dots the next move is written with (`12.`).
    move_number: Option<String>,
    legal_moves: Vec<String>,
    position: String,
}

#[derive(Debug, serde::Serialize)]
struct SeatLine {
    role: String,
    name: String,
    fingerprint: String,
}

type Step<T> = Result<T>;

fn usage(message: impl Into<String>) -> Error {
    Error::usage(message)
}

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid(message)
}

/// Run `yam hotseat`.
pub fn run(args: &HotseatArgs) -> Result<Status> {
    match &args.command {
        HotseatCommand::New(a) => new_game(a),
        HotseatCommand::Move(a) => play_move(a),
        HotseatCommand::Resign(a) => act(a, Act::Resign),
        HotseatCommand::OfferDraw(a) => act(a, Act::OfferDraw),
        HotseatCommand::AcceptDraw(a) => act(a, Act::Answer(true)),
        HotseatCommand::DeclineDraw(a) => act(a, Act::Answer(false)),
        HotseatCommand::Status(a) => status(a),
        HotseatCommand::Auto(a) => auto(a),
    }
    .map(|()| Status::Valid)
}

fn new_game(args: &NewArgs) -> Step<()> {
    let kind = match (&args.game_type, &args.old_game) {
        (None, None) => "khan",
        (kind, old) => crate::flags::game_type("hotseat new", kind.as_deref(), old.as_deref())?,
    };
    let game = GameKind::from_name(kind).ok_or_else(|| usage(format!("unknown game {kind:?}")))?;
    // Rulesets resolve as every later command will resolve the record's
    // Ruleset tag: built-in names, or files relative to the record.
    let rulesets = RecordRulesets::beside(&args.out);
    let ruleset = match (&args.ruleset, &args.ruleset_file) {
        (_, Some(file)) => {
            let tag =
                tag_for(file, &args.out).map_err(|e| usage(format!("--ruleset-file: {e}")))?;
            rulesets
                .load_ruleset(game, &tag)
                .map_err(|e| usage(format!("--ruleset-file: {e}")))?
        }
        (Some(name), None) => rulesets
            .load_ruleset(game, name)
            .map_err(|e| usage(format!("--ruleset: {e}")))?,
        (None, None) => return Err(usage("give --ruleset NAME or --ruleset-file FILE")),
    };
    let ruleset = siege_turn(&rulesets, ruleset, args)?;
    let solo = rulesets
        .start(&ruleset)
        .map_err(|e| usage(e.to_string()))?
        .seats()
        .len()
        == 1;
    let mode_arg = args.mode.unwrap_or(if solo {
        ModeArg::Director
    } else {
        ModeArg::Peer
    });
    // The other party: the invited player, or (solo) the director.
    let other_name = match (solo, &args.second, &args.director, mode_arg) {
        (true, Some(_), _, _) => {
            return Err(usage(format!(
                "--second: {game} is a solo game; its other party is the director (--director NAME)"
            )));
        }
        (true, None, None, _) => {
            return Err(usage(format!(
                "{game} is a solo game: name its director with --director NAME (it answers every roll, and in director mode keeps the register of games started)"
            )));
        }
        (true, _, _, ModeArg::Peer) => {
            return Err(usage(format!(
                "--mode peer: {game} is a solo game; play it in director mode (a director's chain) or practice mode (an open seed)"
            )));
        }
        (true, None, Some(director), _) => director,
        (false, _, Some(_), _) | (false, _, _, ModeArg::Director) => {
            return Err(usage(format!(
                "{game} is played between two players (--first and --second); director mode and --director are for solo games"
            )));
        }
        (false, None, None, _) => return Err(usage("--second NAME: the invited player")),
        (false, Some(second), None, _) => second,
    };
    if args.first == *other_name {
        return Err(usage(if solo {
            "--first and --director must be two identities"
        } else {
            "--first and --second must be two identities"
        }));
    }
    if solo && args.draw_seats {
        return Err(usage("--draw-seats: a solo game has one seat"));
    }
    let date = args.date.clone().unwrap_or_else(today);
    let id_text = match &args.id {
        Some(id) => id.clone(),
        None => {
            let random = random_32().map_err(|e| usage(e.to_string()))?;
            format!(
                "{}-{}-{}",
                kind.to_ascii_lowercase().replace(' ', "-"),
                date.replace('.', ""),
                hex::encode(&random[..4])
            )
        }
    };
    let id = GameId::new(id_text.clone()).map_err(|e| usage(format!("--id: {e}")))?;
    // The header's own values (a mistyped --date, an --event holding a
    // line break) are checked before anything is drawn: found once the
    // record was printed, after the chains, they were said as an internal
    // error and the game id was spent (a chain is never drawn twice).
    let header = |players: &[String]| {
        Header {
            game,
            ruleset: &ruleset,
            ruleset_tag: &ruleset.name,
            id: id.as_str(),
            date: &date,
            event: args.event.as_deref(),
            site: None,
            players,
        }
        .tags()
    };
    let names = [args.first.clone(), other_name.clone()];
    yam_notation::parse_record::<RawGrammar>(&record_to_string::<RawGrammar>(
        &Record::<String>::new(header(&names)),
    ))
    .map_err(|e| usage(format!("the record's header (--date, --event): {}", e.kind)))?;
    // Checked with the header, before anything is made: a length out of
    // range failed only once both identities were made, unannounced.
    let length = args
        .chain_length
        .unwrap_or_else(|| chain_length(ruleset.game, &ruleset));
    if !(1..=yam_referee::fair_play::chain::MAX_CHAIN_LENGTH).contains(&length) {
        return Err(usage(format!(
            "--chain-length: a chain length must be 1 to {}, not {length}",
            yam_referee::fair_play::chain::MAX_CHAIN_LENGTH
        )));
    }
    if !args.force && args.out.exists() {
        return Err(usage(format!(
            "{}: the file exists (use --force to replace it)",
            visible_path(&args.out)
        )));
    }
    // The record's file is opened before anything is made, drawn or
    // registered: a folder that does not exist (a typo in --out), or one
    // that cannot be written, fails here, and no identity, no chain, no
    // register entry is left for a game that never started.
    let mut output = atomic::Replacing::create(&args.out, args.force)
        .map_err(|e| usage(format!("{}: cannot write: {e}", visible_path(&args.out))))?;
    let secrets = Secrets::open(&args.secrets).map_err(|e| usage(e.to_string()))?;
    let (first, first_new) = secrets
        .identity(&args.first)
        .map_err(|e| usage(e.to_string()))?;
    let (second, second_new) = secrets
        .identity(other_name)
        .map_err(|e| usage(e.to_string()))?;
    let mode = match mode_arg {
        ModeArg::Peer => Mode::Peer,
        ModeArg::Director => Mode::Director,
        ModeArg::Practice => Mode::Practice {
            seed: Blob::new(args.seed.clone().unwrap_or_default().into_bytes())
                .map_err(|e| usage(format!("--seed: {e}")))?,
        },
    };
    let chains = if mode_arg == ModeArg::Practice {
        None
    } else {
        // In director mode the player has a chain too, so that the director
        // cannot know an outcome before the player's request.
        Some((
            secrets
                .new_chain(&id, &first, length)
                .map_err(|e| usage(e.to_string()))?,
            secrets
                .new_chain(&id, &second, length)
                .map_err(|e| usage(e.to_string()))?,
        ))
    };
    let seating = if solo {
        Seating::Refereed
    } else if args.draw_seats {
        Seating::Drawn {
            salt: random_32().map_err(|e| usage(e.to_string()))?,
            toss: random_32().map_err(|e| usage(e.to_string()))?,
        }
    } else {
        Seating::Chosen {
            challenger_first: true,
        }
    };
    let first_signer = Signer {
        key: &first.key,
        chain: chains.as_ref().map(|c| &c.0),
    };
    let second_signer = Signer {
        key: &second.key,
        chain: chains.as_ref().map(|c| &c.1),
    };
    // A solo game is opened by its director, for the player.
    let (challenger, acceptor) = if solo {
        (second_signer, first_signer)
    } else {
        (first_signer, second_signer)
    };
    let opening = Opening {
        game: id.clone(),
        ruleset: ruleset.clone(),
        mode,
        challenger,
        acceptor,
        seating,
    };
    let before = SignedReplay::start(&rulesets, &ruleset).map_err(|e| usage(e.to_string()))?;
    let (replay, events) = table::open(&rulesets, &opening).map_err(|e| invalid(e.to_string()))?;
    let names = [&first, &second];
    let players: Vec<String> = replay
        .seats()
        .unwrap_or_default()
        .iter()
        .map(|key| {
            names
                .iter()
                .find(|i| i.key.public_key() == *key)
                .map_or("?", |i| i.name.as_str())
                .to_owned()
        })
        .collect();
    let mut record: Record<String> = Record::new(header(&players));
    append_events(&mut record, &before, &events, args.comment.as_deref())
        .map_err(|e| invalid(e.to_string()))?;
    let text = record_to_string::<RawGrammar>(&record);
    check_written(&text, &args.out).map_err(|e| invalid(e.to_string()))?;
    // The director's register first: a game that could not be registered
    // is not started, and a ladder sees every game that was.
    let register = if mode_arg == ModeArg::Director {
        // Counted as the register is read whole under its lock: the
        // games there before, and this one.
        let count = secrets
            .append_register(&text, |before| {
                Ok::<_, ReadError>(register_games(before, &first)? + register_games(&text, &first)?)
            })
            .map_err(|e| usage(e.to_string()))?;
        Some(count)
    } else {
        None
    };
    output
        .write_all(text.as_bytes())
        .and_then(|()| output.commit())
        .map_err(|e| {
            usage(match register {
                Some(_) => format!(
                    "{}: cannot write: {e} (the game is in the director's register, {}, as started)",
                    visible_path(&args.out),
                    visible_path(&secrets.register_path())
                ),
                None => format!("{}: cannot write: {e}", visible_path(&args.out)),
            })
        })?;
    let mut out = std::io::stdout().lock();
    for (identity, created) in [(&first, first_new), (&second, second_new)] {
        if created {
            let _ = writeln!(
                out,
                "new identity {} with key fingerprint {} (its secret is in {})",
                identity.name,
                identity.key.public_key().fingerprint(),
                args.secrets.display()
            );
        }
    }
    let _ = writeln!(
        out,
        "{}: new {} game {} ({} ruleset, {} mode)",
        args.out.display(),
        game,
        id,
        ruleset.name,
        match mode_arg {
            ModeArg::Peer => "peer",
            ModeArg::Director => "director",
            ModeArg::Practice => "practice: unverified",
        }
    );
    if let Some(count) = register {
        let _ = writeln!(
            out,
            "{}: the director's register lists {count} game{} started by {}",
            secrets.register_path().display(),
            if count == 1 { "" } else { "s" },
            first.name
        );
    }
    let names = identity_names(&names);
    print_seats(&mut out, &replay, &names);
    print_next(&mut out, &replay, &names);
    Ok(())
}

/// How many games of the register `player` holds the seat of.
/// Castle Siege at one table plays the faithful turn by default (CS-P4):
/// nothing there calls for CS-P1's priority list, which exists so that a
/// turn fits in one mail. The record names the ruleset played, so a
/// standard ruleset is swapped for its twin of the wanted turn.
fn siege_turn(
    rulesets: &RecordRulesets,
    ruleset: LoadedRuleset,
    args: &NewArgs,
) -> Step<LoadedRuleset> {
    use yam_referee::castle_siege::{Ruleset, TurnMode};
    if ruleset.game != GameKind::CastleSiege {
        return match args.turn {
            Some(_) => Err(usage(format!(
                "--turn: only Castle Siege has a choice of turn, not {}",
                ruleset.game
            ))),
            None => Ok(ruleset),
        };
    }
    let have = Ruleset::from_yaml(&ruleset.text)
        .map_err(|e| usage(format!("ruleset {}: {e}", ruleset.name)))?
        .rules
        .turn;
    let want = match args.turn {
        None | Some(TurnArg::Faithful) => TurnMode::Faithful,
        Some(TurnArg::PriorityList) => TurnMode::PriorityList,
    };
    if have == want {
        return Ok(ruleset);
    }
    let twin = match want {
        TurnMode::Faithful => Some(format!("{}-faithful", ruleset.name)),
        TurnMode::PriorityList => ruleset.name.strip_suffix("-faithful").map(str::to_owned),
    };
    let found = if args.ruleset_file.is_some() {
        None
    } else {
        twin.and_then(|name| rulesets.load_ruleset(GameKind::CastleSiege, &name).ok())
    };
    match (found, args.turn) {
        (Some(twin), _) => Ok(twin),
        // A ruleset of one's own keeps its own turn unless told otherwise.
        (None, None) => Ok(ruleset),
        (None, Some(_)) => Err(usage(format!(
            "--turn {}: ruleset {} has turn: {} and no twin with turn: {}",
            want.name().replace('_', "-"),
            ruleset.name,
            have.name(),
            want.name()
        ))),
    }
}

/// How many games of `register` (director's register text) `player`
/// started (their FirstKey is its key), every game read whole: a game cut
/// short by a disk error or a partial restore is said, with its line and
/// column, rather than left out of the count without a word.
fn register_games(register: &str, player: &Identity) -> std::result::Result<usize, ReadError> {
    let key = hex::encode(player.key.public_key().as_bytes());
    let mut count = 0;
    for game in read_signed(register.as_bytes()).map_err(ReadError::Io)? {
        let game = game.map_err(ReadError::Syntax)?;
        count += usize::from(game.tag("FirstKey").is_some_and(|t| t.value == key));
    }
    Ok(count)
}

/// Names for keys: the local identities' names, or the record's player
/// tags.
type Names = [(PublicKey, String)];

fn identity_names(identities: &[&Identity]) -> Vec<(PublicKey, String)> {
    identities
        .iter()
        .map(|i| (i.key.public_key(), i.name.clone()))
        .collect()
}

fn tag_names(record: &Record<String>, replay: &SignedReplay) -> Vec<(PublicKey, String)> {
    let Some(game) = record.game() else {
        return Vec::new();
    };
    game.player_tags()
        .iter()
        .zip(replay.seats().unwrap_or_default())
        .filter_map(|(tag, key)| record.tags.get(tag).map(|n| (*key, n.to_owned())))
        .collect()
}

/// The status as one JSON object.
fn status_line(args: &StatusArgs, loaded: &Loaded, moves: Vec<String>) -> StatusLine {
    let replay = &loaded.replay;
    let names = tag_names(&loaded.record, replay);
    let seat = |role: &str, key: &PublicKey| SeatLine {
        role: role.to_owned(),
        name: name_of(&names, key),
        fingerprint: key.fingerprint().to_string(),
    };
    let seats = replay
        .game()
        .seats()
        .iter()
        .zip(replay.seats().unwrap_or_default())
        .map(|(role, key)| seat(role, key))
        .collect();
    let referee = replay.referee().zip(replay.challenge()).map(|(r, c)| {
        let role = yam_referee::signed::text::mode_name(&c.mode);
        seat(if role == "practice" { "referee" } else { role }, &r.key)
    });
    let to_move = match (replay.ending(), replay.to_move_key()) {
        (None, Some(key)) => Some(seat(
            replay
                .seat_of(&key)
                .and_then(|s| replay.game().seats().get(s))
                .copied()
                .unwrap_or(""),
            &key,
        )),
        _ => None,
    };
    let move_number = to_move.as_ref().and_then(|_| {
        let (number, dots) = replay.game().move_number();
        (number > 0).then(|| match dots {
            yam_notation::Dots::One => format!("{number}."),
            yam_notation::Dots::Three => format!("{number}..."),
        })
    });
    StatusLine {
        schema: "yam-hotseat-status/1",
        file: args.file.display().to_string(),
        game_type: replay.game().game().name(),
        ruleset: replay.ruleset_name().to_string(),
        mode: replay
            .challenge()
            .map(|c| yam_referee::signed::text::mode_name(&c.mode)),
        events: replay.events().len(),
        plies: replay.plies(),
        seats,
        referee,
        draw_offered_by: replay
            .open_offers_of_kind(OfferKind::Draw)
            .map(|offer| replay.name_of(&offer.author).to_string())
            .collect(),
        result: replay.ending().map(|e| e.result.to_string()),
        ending: replay.ending().map(|e| e.reason.to_string()),
        to_move,
        move_number,
        legal_moves: moves,
        position: replay.game().position(),
    }
}

fn print_seats(out: &mut impl Write, replay: &SignedReplay, names: &Names) {
    for (role, key) in replay
        .game()
        .seats()
        .iter()
        .zip(replay.seats().unwrap_or_default())
    {
        let _ = writeln!(
            out,
            "  {role:<8} {:<12} {}",
            name_of(names, key),
            key.fingerprint()
        );
    }
    if let (Some(referee), Some(challenge)) = (replay.referee(), replay.challenge()) {
        let role = yam_referee::signed::text::mode_name(&challenge.mode);
        let role = if role == "practice" { "referee" } else { role };
        let name = names
            .iter()
            .find(|(k, _)| *k == referee.key)
            .map_or("", |(_, n)| n.as_str());
        let _ = writeln!(out, "  {role:<8} {name:<12} {}", referee.key.fingerprint());
    }
}

fn name_of(names: &Names, key: &PublicKey) -> String {
    names
        .iter()
        .find(|(k, _)| k == key)
        .map_or_else(|| key.fingerprint().to_string(), |(_, n)| n.clone())
}

fn who(replay: &SignedReplay, names: &Names, key: &PublicKey) -> String {
    match replay
        .seat_of(key)
        .and_then(|s| replay.game().seats().get(s))
    {
        Some(role) => format!("{role} ({})", name_of(names, key)),
        None => name_of(names, key),
    }
}

fn print_next(out: &mut impl Write, replay: &SignedReplay, names: &Names) {
    match (replay.ending(), replay.to_move_key()) {
        (Some(end), _) => {
            let _ = writeln!(out, "game over: {} ({})", end.result, end.reason);
        }
        (None, Some(key)) => {
            let (number, dots) = replay.game().move_number();
            let dots = match dots {
                yam_notation::Dots::One => ".",
                yam_notation::Dots::Three => "...",
            };
            if number == 0 {
                // Before the first numbered move (Castle Siege's secret
                // setups, where either side may act).
                let _ = writeln!(
                    out,
                    "next: {} to move ({})",
                    who(replay, names, &key),
                    replay.game().position()
                );
            } else {
                let _ = writeln!(
                    out,
                    "next: {number}{dots} {} to move",
                    who(replay, names, &key)
                );
            }
        }
        (None, None) => {
            let _ = writeln!(out, "waiting: nobody can move yet");
        }
    }
}

/// The keys of the game's parties whose secrets are in `dir`.
fn local_keys(dir: &Path, replay: &SignedReplay) -> Step<Keys> {
    let secrets = Secrets::open(dir)?;
    Ok(Keys::load(&secrets, replay)?)
}

/// The signer of the party called `name`.
fn by_name<'k>(keys: &'k Keys, name: &str) -> Step<Signer<'k>> {
    keys.by_name(name).ok_or_else(|| {
        usage(format!(
            "{name} is not a party of this game (or its secrets are elsewhere)"
        ))
    })
}

fn table_error(e: TableError) -> Error {
    if let TableError::ChainExhausted { .. } = e {
        // Where the length came from, for the next game.
        return invalid(format!(
            "refused: {e} (its length was chosen at `yam hotseat new`: `--chain-length N`, or enough for the whole game by default)"
        ));
    }
    invalid(format!("refused: {e}"))
}

/// Writes the new events into the file (or shows them), after verifying
/// the new record as a whole.
fn commit(
    path: &Path,
    loaded: &mut Loaded,
    played: &SignedReplay,
    events: &[SignedEvent],
    prose: Option<&str>,
    how: Commit<'_>,
) -> Step<SignedReplay> {
    let Commit {
        dry_run,
        names,
        secrets,
    } = how;
    // What this command read (or last wrote): the file must still hold it
    // when the next text replaces it.
    let read = (!dry_run).then(|| loaded.text.clone());
    // The loaded text now holds the events (the caller keeps the replay),
    // so that the next turn continues from here.
    let after = append_turn(loaded, played, prose, path).map_err(|e| invalid(e.to_string()))?;
    // A dry run says what would be signed, not what was.
    let verb = |done: &'static str, would: &'static str| if dry_run { would } else { done };
    let mut lines = Vec::with_capacity(events.len());
    for event in events {
        let e = &event.event;
        let actor = who(&after, names, &e.author);
        let line = match &e.body {
            EventBody::Turn(turn) if !turn.moves.is_empty() => {
                let moves: Vec<&str> = turn.moves.iter().map(|m| m.as_str()).collect();
                let mut line = format!(
                    "{actor} {} {}",
                    verb("played", "would play"),
                    moves.join(" ")
                );
                for evidence in turn.evidence.iter() {
                    if let Evidence::Outcomes { roll, results } = evidence {
                        let values: Vec<String> = results.iter().map(chance_item).collect();
                        line.push_str(&format!(" (roll {roll}: {})", values.join(", ")));
                    }
                }
                line
            }
            EventBody::Resignation => format!("{actor} {}", verb("resigns", "would resign")),
            EventBody::DrawOffer => {
                format!("{actor} {} a draw", verb("offers", "would offer"))
            }
            EventBody::DrawAnswer { accepted: true, .. } => {
                format!("{actor} {} the draw", verb("accepts", "would accept"))
            }
            EventBody::DrawAnswer {
                accepted: false, ..
            } => format!("{actor} {} the draw", verb("declines", "would decline")),
            _ => format!(
                "{actor} {} {}",
                verb("signed", "would sign"),
                describe(event)
            ),
        };
        lines.push(line);
    }
    if let Some(read) = read {
        write_turn(path, &read, &loaded.text, events, &after, secrets)?;
    }
    // Only now is anything said: a turn's dice are shown once its record
    // is written (shown for a turn that could not be written, they could
    // steer another declaration, 3.3).
    let mut out = std::io::stdout().lock();
    for line in &lines {
        let _ = writeln!(out, "{line}");
    }
    if dry_run {
        let _ = writeln!(out, "dry run: {} not changed", visible_path(path));
        return Ok(after);
    }
    checkpoint::warn_unkept(loaded.keep_checkpoint(&after));
    print_next(&mut out, &after, names);
    Ok(after)
}

/// How [`commit`] writes.
#[derive(Clone, Copy)]
struct Commit<'a> {
    /// Show what would be signed, write nothing.
    dry_run: bool,
    /// The parties' names.
    names: &'a Names,
    /// The secrets directory (the game's lock and its answered rolls).
    secrets: &'a Path,
}

/// Writes `text` over the record `path`, which must still hold `read` (the
/// text this command read or last wrote), under the game's lock, the rolls
/// answered in `events` remembered first (`Secrets::remember_answers`).
fn write_turn(
    path: &Path,
    read: &str,
    text: &str,
    events: &[SignedEvent],
    after: &SignedReplay,
    secrets: &Path,
) -> Step<()> {
    let secrets = Secrets::open(secrets)?;
    let game = game_of(after).ok_or_else(|| invalid("the record has no opening"))?;
    let _lock = secrets.lock_game(&game)?;
    let now = std::fs::read(path).map_err(|e| Error::io(path, "cannot read", e))?;
    if now != read.as_bytes() {
        return Err(invalid(format!(
            "{}: the record changed since this command read it (another command wrote a turn meanwhile?): nothing was written; run the command again",
            visible_path(path)
        )));
    }
    let answers: Vec<(u64, Hash32)> = events
        .iter()
        .filter_map(|e| match &e.event.body {
            EventBody::Turn(turn) => Some(turn),
            _ => None,
        })
        .flat_map(|turn| turn.evidence.iter())
        .filter_map(|evidence| match evidence {
            Evidence::RollResponse(r) => Some((r.response.index, r.response.request_hash)),
            _ => None,
        })
        .collect();
    let previous = match secrets.remember_answers(&game, &answers)? {
        Remembered::AnsweredBefore { roll, path: kept } => {
            return Err(invalid(format!(
                "refused: roll {roll} of this game was answered before, for another record ({} remembers it): a copy of the game, or a record put back from before that roll, cannot throw the dice again (docs/fair-play.md, 9.8); nothing was written",
                visible_path(&kept)
            )));
        }
        Remembered::Added { previous } => Some(previous),
        Remembered::Unchanged => None,
    };
    atomic::write(path, text.as_bytes(), true).map_err(|e| {
        // A turn that was not written showed nothing and binds nothing:
        // its answers are forgotten, so the player may declare another
        // turn. Only while the file still holds what was read: a write
        // that failed after its rename (syncing the folder) holds them.
        if let Some(previous) = &previous
            && std::fs::read(path).is_ok_and(|now| now == read.as_bytes())
        {
            let _ = secrets.restore_answers(&game, previous.as_deref());
        }
        usage(format!("{}: cannot write: {e}", visible_path(path)))
    })
}

/// The game file, verified through the checkpoint the secrets directory
/// keeps of it (`SECRETS/games/GAME/checkpoint`): only what is new since
/// is checked for its signatures, so a turn costs the same late in a long
/// game as early in it. The checkpoint is a cache beside the chains, where
/// only the owner of the secrets writes; without one (or with one that
/// does not match) the file is verified whole.
fn load_game(file: &Path, secrets: &Path) -> Step<Loaded> {
    let secrets = Secrets::open(secrets)?;
    let (loaded, kept) = load_checkpointed(file, |id| {
        GameId::new(id)
            .ok()
            .map(|game| secrets.checkpoint_path(&game))
    })?;
    checkpoint::warn_unkept(kept);
    Ok(loaded)
}

fn play_move(args: &MoveArgs) -> Step<()> {
    let mut loaded = load_game(&args.file, &args.secrets)?;
    let keys = local_keys(&args.secrets, &loaded.replay)?;
    let mover = pick_mover(&loaded.replay, &keys, args.who.as_deref(), &args.secrets)?;
    let intent = written_intent(&loaded.replay, &args.moves)?;
    take_turn(
        &args.file,
        &mut loaded,
        &keys,
        &mover,
        intent,
        &Turn {
            prose: args.comment.as_deref(),
            dry_run: args.dry_run,
            annotate: false,
            secrets: &args.secrets,
        },
    )
    .map(drop)
}

/// Who plays: `who` by name, or the player to move.
fn pick_mover(
    replay: &SignedReplay,
    keys: &Keys,
    who: Option<&str>,
    secrets: &Path,
) -> Step<PublicKey> {
    if let Some(name) = who {
        return Ok(by_name(keys, name)?.public_key());
    }
    let Some(to_move) = replay.to_move_key() else {
        return Err(invalid(match replay.ending() {
            Some(end) => format!("the game is over: {} ({})", end.result, end.reason),
            None => "nobody can move yet".to_owned(),
        }));
    };
    if keys.signer(&to_move).is_none() {
        return Err(usage(format!(
            "it is {}'s turn, whose secrets are not in {}",
            replay.name_of(&to_move),
            secrets.display()
        )));
    }
    Ok(to_move)
}

/// How a turn is taken.
struct Turn<'a> {
    /// Prose for the comment after it.
    prose: Option<&'a str>,
    /// Show it, write nothing.
    dry_run: bool,
    /// Add what the dice decided to the prose.
    annotate: bool,
    /// The secrets directory.
    secrets: &'a Path,
}

/// Plays `intent` by `mover`: builds and proves the events, then writes
/// them (or, in a dry run, shows them). Returns the replay after them
/// (`loaded.record` holds them too).
fn take_turn(
    path: &Path,
    loaded: &mut Loaded,
    keys: &Keys,
    mover: &PublicKey,
    intent: Intent,
    how: &Turn<'_>,
) -> Step<SignedReplay> {
    let names = keys.names();
    let signer = keys.signer(mover).ok_or_else(|| {
        usage(format!(
            "the secrets of {} are not in {}",
            loaded.replay.name_of(mover),
            how.secrets.display()
        ))
    })?;
    let mut replay = loaded.replay.clone();
    let events = match intent {
        Intent::Orders(moves) => {
            if how.dry_run
                && let Ok(table::Prepared::Roll(orders)) = table::prepare(&replay, &moves, &signer)
            {
                // Drawing the dice would show them before the request is
                // signed: a dry run stops at the declaration.
                let index = replay.roll_book().map_or(0, |b| b.next_index());
                let mut out = std::io::stdout().lock();
                let _ = writeln!(
                    out,
                    "{} would request roll {index} declaring: {}",
                    who(&replay, &names, mover),
                    if orders.is_empty() {
                        "no orders".to_owned()
                    } else {
                        orders.join(" ")
                    }
                );
                let _ = writeln!(
                    out,
                    "dry run: the values are drawn only once the request is signed; {} not changed",
                    path.display()
                );
                // Nothing was signed: the game as it was.
                return Ok(loaded.replay.clone());
            }
            table::play(&mut replay, &moves, &signer, &keys.others(mover)).map_err(|e| match e {
                TableError::Rules(r) => {
                    invalid(format!("refused: {}\n  position: {}", r.reason, r.position))
                }
                // Named as the players know the identity.
                TableError::ChainExhausted { who, owner, length } => {
                    table_error(TableError::ChainExhausted {
                        who: keys
                            .identity(&owner)
                            .map_or_else(|| who.clone(), |i| format!("{} ({who})", i.name)),
                        owner,
                        length,
                    })
                }
                // A reveal refused may be a chain file damaged on disk:
                // then the file is the fault, and is named.
                other => Secrets::open(how.secrets)
                    .ok()
                    .and_then(|secrets| keys.damaged_chain(&secrets, &loaded.replay))
                    .map_or_else(|| table_error(other), |damaged| usage(damaged.to_string())),
            })?
        }
        Intent::Seal(written) => vec![seal(&mut replay, keys, &signer, &written, how)?],
        Intent::Reveal(written) => vec![reveal(&mut replay, keys, &signer, written, how)?],
    };
    let annotation = if how.annotate {
        crate::game::annotate::annotate(&loaded.replay, &events)
    } else {
        None
    };
    let prose = match (how.prose, annotation.as_deref()) {
        (Some(p), Some(a)) => Some(format!("{p} {a}")),
        (Some(p), None) => Some(p.to_owned()),
        (None, a) => a.map(str::to_owned),
    };
    commit(
        path,
        loaded,
        &replay,
        &events,
        prose.as_deref(),
        Commit {
            dry_run: how.dry_run,
            names: &names,
            secrets: how.secrets,
        },
    )
}

/// Castle Siege: seals `written` (a placement of the mover's side) with a
/// fresh commitment; the setup and its salt are kept in the secrets
/// directory until the reveal, and the record shows only the sealed marker.
fn seal(
    replay: &mut SignedReplay,
    keys: &Keys,
    signer: &Signer<'_>,
    written: &str,
    how: &Turn<'_>,
) -> Step<SignedEvent> {
    let identity = keys
        .identity(&signer.public_key())
        .ok_or_else(|| usage("the mover's identity is not in the secrets directory"))?;
    let secrets = Secrets::open(how.secrets).map_err(|e| usage(e.to_string()))?;
    seal_setup(replay, &secrets, identity, signer, written, how.dry_run)
}

/// Castle Siege: reveals the setup the mover sealed, from the secrets
/// directory; `written`, if given, must be that setup.
fn reveal(
    replay: &mut SignedReplay,
    keys: &Keys,
    signer: &Signer<'_>,
    written: Option<String>,
    how: &Turn<'_>,
) -> Step<SignedEvent> {
    let identity = keys
        .identity(&signer.public_key())
        .ok_or_else(|| usage("the mover's identity is not in the secrets directory"))?;
    let secrets = Secrets::open(how.secrets).map_err(|e| usage(e.to_string()))?;
    reveal_setup(replay, &secrets, identity, signer, written)
}

fn auto(args: &AutoArgs) -> Step<()> {
    use yam_referee::castle_siege::Policy;
    let policy = match args.policy {
        PolicyArg::Eager => Policy::Eager,
        PolicyArg::Random => Policy::Random,
    };
    // A game always ends (the rules cap every game's length); the bound
    // only keeps a defect from running forever.
    let steps = if args.to_end { 1_000_000 } else { args.steps };
    // Read and verified once: each turn continues the replay the last one
    // left (its events proven and the file written), not the whole game
    // read again.
    let mut loaded = load_game(&args.file, &args.secrets)?;
    for _ in 0..steps {
        if let Some(end) = loaded.replay.ending() {
            if args.to_end {
                return Ok(());
            }
            return Err(invalid(format!(
                "the game is over: {} ({})",
                end.result, end.reason
            )));
        }
        let keys = local_keys(&args.secrets, &loaded.replay)?;
        let mover = pick_mover(&loaded.replay, &keys, None, &args.secrets)?;
        let seat = loaded
            .replay
            .seat_of(&mover)
            .ok_or_else(|| invalid("the player to move has no seat"))?;
        // An open roll is played before anything else: its own declared
        // orders, not the automatic player's next choice (`docs/fair-play.md`, 3.3).
        let intent = if loaded.replay.verifier().open_roll().is_some() {
            Intent::Orders(Vec::new())
        } else {
            autoplay::choose(&loaded.replay, seat, policy, args.seed)
                .map_err(|e| invalid(e.to_string()))?
        };
        loaded.replay = take_turn(
            &args.file,
            &mut loaded,
            &keys,
            &mover,
            intent,
            &Turn {
                prose: None,
                dry_run: false,
                annotate: args.annotate,
                secrets: &args.secrets,
            },
        )?;
    }
    Ok(())
}

#[derive(Debug, Clone, Copy)]
enum Act {
    Resign,
    OfferDraw,
    Answer(bool),
}

fn act(args: &ActArgs, action: Act) -> Step<()> {
    let mut loaded = load_game(&args.file, &args.secrets)?;
    let keys = local_keys(&args.secrets, &loaded.replay)?;
    let names = keys.names();
    let signer = match &args.who {
        Some(name) => by_name(&keys, name)?,
        None => {
            let key = match action {
                // The party the oldest open draw offer is made to (the
                // one `table::answer_draw` answers for it).
                Act::Answer(_) => loaded
                    .replay
                    .open_offers_of_kind(OfferKind::Draw)
                    .next()
                    .and_then(|offer| loaded.replay.offer_made_to(&offer.author).first().copied()),
                _ => loaded.replay.to_move_key(),
            }
            .ok_or_else(|| {
                invalid(match action {
                    Act::Answer(_) => "no draw offer is waiting for an answer".to_owned(),
                    _ => "nobody is to move: the game is over".to_owned(),
                })
            })?;
            keys.signer(&key).ok_or_else(|| {
                usage(format!(
                    "the secrets of {} are not in {}",
                    loaded.replay.name_of(&key),
                    args.secrets.display()
                ))
            })?
        }
    };
    let mut replay = loaded.replay.clone();
    let event = match action {
        Act::Resign => table::resign(&mut replay, &signer),
        Act::OfferDraw => table::offer_draw(&mut replay, &signer),
        Act::Answer(accepted) => table::answer_draw(&mut replay, &signer, accepted),
    }
    .map_err(table_error)?;
    commit(
        &args.file,
        &mut loaded,
        &replay,
        &[event],
        None,
        Commit {
            dry_run: args.dry_run,
            names: &names,
            secrets: &args.secrets,
        },
    )
    .map(drop)
}

fn status(args: &StatusArgs) -> Step<()> {
    let loaded = load(&args.file)?;
    let replay = &loaded.replay;
    let mut out = std::io::stdout().lock();
    let moves = if replay.ending().is_some() || replay.to_move_key().is_none() {
        Vec::new()
    } else {
        replay.game().legal_moves()
    };
    if args.moves {
        for m in moves {
            let _ = writeln!(out, "{m}");
        }
        return Ok(());
    }
    if args.format == Format::Json {
        crate::json::emit(&status_line(args, &loaded, moves));
        return Ok(());
    }
    let mode = match replay.challenge().map(|c| &c.mode) {
        Some(Mode::Practice { .. }) => "practice mode: unverified practice".to_owned(),
        Some(mode) => format!("{} mode", yam_referee::signed::text::mode_name(mode)),
        None => "no opening".to_owned(),
    };
    let _ = writeln!(
        out,
        "{}: {} game, {} ruleset, {mode}, {} signed events, {} plies",
        args.file.display(),
        replay.game().game(),
        replay.ruleset_name(),
        replay.events().len(),
        replay.plies()
    );
    let names = tag_names(&loaded.record, replay);
    print_seats(&mut out, replay, &names);
    for offer in replay.open_offers_of_kind(OfferKind::Draw) {
        let _ = writeln!(out, "draw offered by {}", replay.name_of(&offer.author));
    }
    print_next(&mut out, replay, &names);
    if !moves.is_empty() {
        let _ = writeln!(out, "legal moves: {}", moves.join(" "));
        let _ = writeln!(out, "position: {}", replay.game().position());
    }
    Ok(())
}
