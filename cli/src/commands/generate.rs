//! `yam generate`: archives of complete, legal, random games, from a seed.
//!
//! The same seed gives the same bytes. Khan games are random legal moves to
//! the end (or to a ply cap); Castle Siege games come from the referee's
//! self-play driver; Genghis Khan games are the greedy player's practice
//! games, whose open seed is in the record so that anyone can replay every
//! draw. These archives feed the benchmarks and the scale tests; they are
//! unsigned (plain records), except Khan's with `--signed`: peer games with
//! every turn a signed event, for `yam verify`.

use std::io::Write;
use std::path::PathBuf;

use yam_notation::castle_siege::{CastleSiegeGrammar, Order, Token as SiegeToken};
use yam_notation::genghis_khan::GenghisKhanGrammar;
use yam_notation::khan::KhanGrammar;
use yam_notation::{
    Dots, GameKind, GameResult, Node, RawGrammar, Record, Span, Tags, write_record,
};
use yam_referee::fair_play::chain::{ChainSecret, HashChain};
use yam_referee::fair_play::chance::PracticeChance;
use yam_referee::fair_play::encoding::Blob;
use yam_referee::fair_play::game_id::GameId;
use yam_referee::fair_play::sign::SigningKey;
use yam_referee::fair_play::turn::Mode;
use yam_referee::replay::{Builtin, LoadedRuleset, RulesCatalog, load_ruleset};
use yam_referee::seeded::SplitMix64;
use yam_referee::signed::SignedReplay;
use yam_referee::signed::table::{self, Opening, Seating, Signer};
use yam_referee::signed::write::append_events;
use yam_referee::{castle_siege, genghis_khan, khan};

use crate::archive::progress::count_bar;
use crate::error::{Error, Result, Status};
use crate::game::header::Header;
use crate::store::atomic::Replacing;

/// Why one game could not be made: the referee's own refusal, in its own
/// words (a bad `--ruleset` above all; the rest would be a bug).
#[derive(Debug, thiserror::Error)]
enum GameError {
    /// The ruleset is not a built-in one, or not a ruleset of its game.
    #[error(transparent)]
    Ruleset(#[from] yam_referee::ruleset_error::RulesetError),
    /// A Khan move the rules refused.
    #[error(transparent)]
    Khan(#[from] khan::Illegal),
    /// A Genghis Khan action the rules refused.
    #[error(transparent)]
    Cards(#[from] genghis_khan::Illegal),
    /// Castle Siege self-play stopped.
    #[error(transparent)]
    SelfPlay(#[from] castle_siege::selfplay::SelfPlayError),
    /// A game id or seed the fair-play layer cannot encode.
    #[error(transparent)]
    Value(#[from] yam_referee::fair_play::encoding::ValueError),
    /// A party's hash chain.
    #[error(transparent)]
    Chain(#[from] yam_referee::fair_play::chain::ChainError),
    /// The signed harness refused a step.
    #[error(transparent)]
    Table(#[from] table::TableError),
    /// The signed replay refused an event.
    #[error(transparent)]
    Replay(#[from] yam_referee::signed::replay::ReplayError),
    /// Self-play ended with a result the notation does not read.
    #[error("bad result")]
    BadResult,
}

/// Arguments of `yam generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// Which game: khan, castle-siege or genghis-khan.
    #[arg(long, value_name = "TYPE", required_unless_present = "old_game")]
    pub game_type: Option<String>,
    /// The old spelling of --game-type, kept for one release (with a
    /// warning): everywhere else `--game N` is a game's number in a file.
    #[arg(
        long = "game",
        hide = true,
        value_name = "TYPE",
        conflicts_with = "game_type"
    )]
    pub old_game: Option<String>,
    /// The ruleset (default: each game's standard one).
    #[arg(long)]
    pub ruleset: Option<String>,
    /// How many games.
    #[arg(long, default_value_t = 10)]
    pub games: u64,
    /// The seed; the same seed gives the same archive, byte for byte.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace FILE if it exists.
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Khan only: stop a game after this many plies (result `*`).
    #[arg(long, default_value_t = 600)]
    pub max_plies: u32,
    /// Khan only: signed peer games with their evidence, every turn an
    /// event signed through the fair-play harness, for `yam verify`. The
    /// keys and chains are derived from the seed (so the same seed gives
    /// the same bytes): they are public, and prove nothing about anyone.
    #[arg(long)]
    pub signed: bool,
}

/// Run `yam generate`.
pub fn run(args: &GenerateArgs) -> Result<Status> {
    let name = crate::flags::game_type(
        "generate",
        args.game_type.as_deref(),
        args.old_game.as_deref(),
    )?;
    if args.signed && name != "khan" {
        return Err(Error::usage("--signed makes Khan games only"));
    }
    let Some(game) = GameKind::from_name(name) else {
        return Err(Error::usage(format!(
            "unknown game type {name:?}: expected khan, castle-siege or genghis-khan"
        )));
    };
    // A file is put in place whole at the end, and an existing one is
    // replaced only with --force (as every command that writes a file).
    let mut file = match &args.out {
        Some(path) => Some(
            Replacing::create(path, args.force).map_err(|e| Error::io(path, "cannot write", e))?,
        ),
        None => None,
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let out: &mut dyn Write = match &mut file {
        Some(file) => file,
        None => &mut stdout,
    };
    let write_error = |e: std::io::Error| Error::usage(format!("write error: {e}"));
    let mut text = String::new();
    // On a terminal only (standard error), and the summary after it.
    let progress = count_bar(args.games, "games");
    let mut bytes = 0u64;
    for i in 0..args.games {
        text.clear();
        if i > 0 {
            text.push('\n');
        }
        match game {
            GameKind::Khan if args.signed => signed_khan_game(args, i, &mut text),
            GameKind::Khan => khan_game(args, i, &mut text),
            GameKind::CastleSiege => siege_game(args, i, &mut text),
            GameKind::GenghisKhan => card_game(args, i, &mut text),
        }
        .map_err(|e| Error::usage(format!("game {}: {e}", i + 1)))?;
        out.write_all(text.as_bytes()).map_err(write_error)?;
        bytes += text.len() as u64;
        progress.inc(1);
    }
    out.flush().map_err(write_error)?;
    if let Some(file) = file {
        file.commit().map_err(write_error)?;
    }
    progress.finish_and_clear();
    eprintln!(
        "{}: {} game{}, {:.1} MB",
        args.out
            .as_ref()
            .map_or("standard output".into(), |p| p.display().to_string()),
        args.games,
        if args.games == 1 { "" } else { "s" },
        bytes as f64 / 1e6
    );
    Ok(Status::Valid)
}

/// The header every generated game has, through the shared builder, so a
/// generated record spells its tags as every other record Yam writes.
fn header(ruleset: &LoadedRuleset, id: &str, players: &[&str]) -> Tags {
    let players: Vec<String> = players.iter().map(|p| (*p).to_owned()).collect();
    Header {
        game: ruleset.game,
        ruleset,
        ruleset_tag: &ruleset.name,
        id,
        date: "2026.01.01",
        event: Some("Generated by yam generate"),
        site: None,
        players: &players,
    }
    .tags()
}

fn khan_game(args: &GenerateArgs, i: u64, out: &mut String) -> Result<(), GameError> {
    let name = args.ruleset.as_deref().unwrap_or("rescue-khan");
    let ruleset = khan::Ruleset::builtin(name)?;
    let loaded = load_ruleset(GameKind::Khan, name)?;
    let id = format!("gen-khan-{}-{i}", args.seed);
    let mut record = Record::new(header(&loaded, &id, &["Random White", "Random Black"]));
    let mut rng = SplitMix64::new(args.seed.wrapping_mul(0x1000_0000_01b3) ^ i);
    let mut pos = ruleset.start_position();
    let mut moves = Vec::new();
    let mut plies = 0;
    while pos.outcome().is_none() && plies < args.max_plies {
        khan::legal_moves_into(&pos, &mut moves);
        let Some(&mv) = moves.get(rng.below(moves.len().max(1))) else {
            break;
        };
        if pos.turn() == khan::Side::White {
            record
                .movetext
                .push(Node::MoveNumber(pos.fullmoves(), Dots::One));
        }
        let token = khan::to_token(&pos, &mv)?;
        record.movetext.push(Node::Move(token, Span::default()));
        pos = khan::apply(&pos, &mv)?.position;
        plies += 1;
    }
    let result = pos
        .outcome()
        .and_then(|o| o.result().parse().ok())
        .unwrap_or(GameResult::Unfinished);
    record.set_result(result);
    write_record::<KhanGrammar>(&record, out);
    Ok(())
}

/// 32 bytes from the generator, for a derived key or chain secret.
fn bytes32(rng: &mut SplitMix64) -> [u8; 32] {
    let mut out = [0u8; 32];
    for chunk in out.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    out
}

/// A Khan game as two peers play it through the signed harness: the
/// challenge and acceptance, then one signed turn event per move, each
/// proven against the replay before it is written. The moves are the same
/// kind of random legal moves as the plain games'.
fn signed_khan_game(args: &GenerateArgs, i: u64, out: &mut String) -> Result<(), GameError> {
    let name = args.ruleset.as_deref().unwrap_or("rescue-khan");
    let rules = khan::Ruleset::builtin(name)?;
    let id = format!("gen-khan-signed-{}-{i}", args.seed);
    let game = GameId::new(id.clone())?;
    let mut rng = SplitMix64::new(args.seed.wrapping_mul(0x1000_0000_01b3) ^ i);
    let party = |rng: &mut SplitMix64| -> Result<(SigningKey, HashChain), GameError> {
        let key = SigningKey::from_seed(&bytes32(rng));
        // Khan draws nothing, so the chain is only anchored in the opening.
        let chain = HashChain::new(
            &ChainSecret::from_bytes(bytes32(rng)),
            game.clone(),
            key.public_key(),
            16,
        )?;
        Ok((key, chain))
    };
    let parties = [party(&mut rng)?, party(&mut rng)?];
    let signer = |p: usize| Signer {
        key: &parties[p].0,
        chain: Some(&parties[p].1),
    };
    let loaded = Builtin.load_ruleset(GameKind::Khan, name)?;
    let mut record = Record::new(header(&loaded, &id, &["Random White", "Random Black"]));
    let before = SignedReplay::start(&Builtin, &loaded)?;
    let (_, events) = table::open(
        &Builtin,
        &Opening {
            game: game.clone(),
            ruleset: loaded,
            mode: Mode::Peer,
            challenger: signer(0),
            acceptor: signer(1),
            // The challenger plays White.
            seating: Seating::Chosen {
                challenger_first: true,
            },
        },
    )?;
    let mut replay = append_events(&mut record, &before, &events, None)?;
    let mut pos = rules.start_position();
    let mut moves = Vec::new();
    let mut plies = 0;
    while pos.outcome().is_none() && plies < args.max_plies {
        khan::legal_moves_into(&pos, &mut moves);
        let Some(&mv) = moves.get(rng.below(moves.len().max(1))) else {
            break;
        };
        let token = khan::to_token(&pos, &mv)?;
        let mover = usize::from(pos.turn() == khan::Side::Black);
        let before = replay.clone();
        let events = table::play(
            &mut replay,
            &[token.to_string()],
            &signer(mover),
            &[signer(1 - mover)],
        )?;
        replay = append_events(&mut record, &before, &events, None)?;
        pos.play_unchecked(&mv);
        plies += 1;
    }
    // The events set the result of a finished game; one stopped at the
    // ply cap is still in progress.
    if pos.outcome().is_none() {
        record.set_result(GameResult::Unfinished);
    }
    write_record::<RawGrammar>(&record, out);
    Ok(())
}

fn siege_game(args: &GenerateArgs, i: u64, out: &mut String) -> Result<(), GameError> {
    let name = args.ruleset.as_deref().unwrap_or("standard");
    let ruleset = castle_siege::Ruleset::builtin(name)?;
    let seed = args.seed.wrapping_mul(1_000_003).wrapping_add(i);
    let summary = castle_siege::selfplay::play_game_with(
        seed,
        &ruleset,
        castle_siege::selfplay::Policy::Eager,
    )?;
    let loaded = load_ruleset(GameKind::CastleSiege, name)?;
    let id = format!("gen-siege-{}-{i}", args.seed);
    let mut record = Record::new(header(
        &loaded,
        &id,
        &["Random Defender", "Random Attacker"],
    ));
    // A turn starts with the first order after the setups or after `End`.
    let mut turn = 0u32;
    let mut at_turn_start = true;
    for token in summary.movetext {
        let is_order = matches!(token, SiegeToken::Order { .. });
        if is_order && at_turn_start {
            let dots = if turn.is_multiple_of(2) {
                Dots::One
            } else {
                Dots::Three
            };
            record.movetext.push(Node::MoveNumber(turn / 2 + 1, dots));
            at_turn_start = false;
        }
        let ends_turn = matches!(
            token,
            SiegeToken::Order {
                order: Order::End,
                ..
            }
        );
        record.movetext.push(Node::Move(token, Span::default()));
        if ends_turn {
            turn += 1;
            at_turn_start = true;
        }
    }
    record.set_result(
        summary
            .outcome
            .result()
            .parse()
            .map_err(|_| GameError::BadResult)?,
    );
    write_record::<CastleSiegeGrammar>(&record, out);
    Ok(())
}

fn card_game(args: &GenerateArgs, i: u64, out: &mut String) -> Result<(), GameError> {
    let name = args.ruleset.as_deref().unwrap_or("standard");
    let ruleset = genghis_khan::Ruleset::builtin(name)?;
    let id = format!("gen-gk-{}-{i}", args.seed);
    let seed_text = format!("practice seed {} {i}", args.seed);
    let game = GameId::new(id.clone())?;
    let seed = Blob::new(seed_text.as_bytes().to_vec())?;
    let mut chance = PracticeChance::new(&game, &seed);
    let played = genghis_khan::play_greedy(&ruleset, &mut chance)?;
    let loaded = load_ruleset(GameKind::GenghisKhan, name)?;
    let mut tags = header(&loaded, &id, &["Greedy"]);
    tags.set("Mode", "practice");
    tags.set("PracticeSeed", seed_text);
    let mut record = Record::new(tags);
    // Replay to put a move number at each turn.
    let mut replay = PracticeChance::new(&game, &seed);
    let mut state = genghis_khan::setup(&ruleset, &mut replay)?;
    let mut turn = 0;
    for mv in played.moves {
        if state.turn() != turn {
            turn = state.turn();
            record.movetext.push(Node::MoveNumber(turn, Dots::One));
        }
        state = genghis_khan::play(&state, &mv, &mut replay)?.0;
        record.movetext.push(Node::Move(mv, Span::default()));
    }
    record.set_result(state.result());
    write_record::<GenghisKhanGrammar>(&record, out);
    Ok(())
}
