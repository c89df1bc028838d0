//! Correspondence play by mail: the player's commands.
//!
//! Each player has a data directory (games, secrets, contacts; see
//! `store`) and a configuration file (identity and mail accounts; see
//! `config`). Every mail carries the whole signed record, as an attachment
//! and as a turn block; the receiver adopts it only when it verifies
//! completely, continues the stored game event for event, comes from the
//! opponent's address and carries only events the opponent signed. So a
//! mistake (a mail read twice, an old mail, a mail from someone else)
//! changes nothing, and the two players' records are the same bytes.
//!
//! One writer at a time: the game always says whose step comes next
//! (`next_duty`: an acceptance, a move, a roll response, an answer to an
//! offer), and only that party writes; offers are made on one's own move.
//! So two mails never cross with events on the same parent, and a fork is
//! always someone's error or fraud, which `yam dispute` judges.

pub mod act;
pub mod body;
pub mod desk;
pub mod incoming;
pub mod memory;
pub mod secrets_bundle;

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Subcommand;
use yam_referee::signed::table::{Duty, next_duty};

use crate::config::IncomingConfig;
use crate::error::{Error, Result, Status};
use crate::json::Format;
use crate::mail::inbox::{Filed, Folder, Mailbox, Place};
use crate::mail::notice::NoticeKind;
use crate::store::read::{ReadUpTo, read_up_to};

use act::{Act, ChallengeSettings, MoveRequest};
use desk::{Desk, Game};
use memory::{Memory, content_key};

use crate::config::Where;
use incoming::Outcome;

pub(crate) use crate::game::header::today;

/// Days of silence after which a forfeit may be claimed, unless the
/// challenge said otherwise: correspondence chess's 40.
pub const DEFAULT_FORFEIT_DAYS: u32 = 40;

/// `yam challenge`.
#[derive(Debug, clap::Args)]
pub struct ChallengeArgs {
    /// The opponent's mail address.
    pub address: String,
    /// The game: khan or castle-siege.
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
    /// A built-in ruleset (Khan: basic, magician, power-magician,
    /// rescue-general, rescue-khan; Castle Siege: standard, ...).
    #[arg(long)]
    pub ruleset: String,
    /// Which seat you take: first (Khan: White; Castle Siege: Defender),
    /// second, or drawn by a commit-reveal toss.
    #[arg(long, default_value = "drawn", value_parser = ["first", "second", "drawn"])]
    pub seats: String,
    /// The game's id (default: game, date and random hex).
    #[arg(long)]
    pub id: Option<String>,
    /// Days of silence after which a forfeit may be claimed (correspondence
    /// chess: 40). At least 1: the invited desk reads 0 as no days agreed.
    #[arg(long, default_value_t = DEFAULT_FORFEIT_DAYS, value_parser = clap::value_parser!(u32).range(1..))]
    pub forfeit_days: u32,
    /// A comment for the opening.
    #[arg(long)]
    pub comment: Option<String>,
    /// A referee robot's address: it gets a copy of every mail of the game
    /// and keeps a witnessed record (docs/robot.md, "Players with the
    /// program").
    #[arg(long, value_name = "ADDRESS")]
    pub referee: Option<String>,
    #[command(flatten)]
    pub place: Where,
}

/// `yam move`.
#[derive(Debug, clap::Args)]
pub struct MoveArgs {
    /// The game's id.
    pub game: String,
    /// The turn's moves (Khan: one move, long `Ng3-f5`, short `Nf5` or
    /// from-to `g3f5`; Castle Siege: the orders of the turn, short ones too
    /// (`b3b4`, `Ab5xc5`), its setup as one token before the game, then
    /// `reveal`; Genghis Khan: a capture as `pay:10b+9e` too). The record
    /// keeps the canonical tokens (`docs/notation.md`, "Typing moves").
    #[arg(required_unless_present = "auto", num_args = 1..)]
    pub moves: Vec<String>,
    /// Let Yam choose a legal turn instead (random or eager; for demos,
    /// tests and a quick game against a friend's patience).
    #[arg(long, value_name = "POLICY", value_parser = ["random", "eager"], conflicts_with = "moves")]
    pub auto: Option<String>,
    /// The seed of `--auto`'s choices (choices only: never a die).
    #[arg(long, default_value_t = 0, requires = "auto")]
    pub seed: u64,
    /// Check the turn and show what would be sent; write and send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// A comment after the turn.
    #[arg(long)]
    pub comment: Option<String>,
    /// Offer a draw with the move.
    #[arg(long)]
    pub offer_draw: bool,
    #[command(flatten)]
    pub place: Where,
}

/// A command on one game.
#[derive(Debug, clap::Args)]
pub struct GameArgs {
    /// The game's id.
    pub game: String,
    #[command(flatten)]
    pub place: Where,
}

/// `yam draw` and `yam takeback`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OfferStep {
    /// Make the offer (on your own move).
    Offer,
    /// Accept the opponent's offer.
    Accept,
    /// Decline it.
    Decline,
}

/// `yam draw` / `yam takeback`.
#[derive(Debug, clap::Args)]
pub struct OfferArgs {
    /// offer, accept or decline.
    #[arg(value_enum)]
    pub step: OfferStep,
    /// The game's id.
    pub game: String,
    #[command(flatten)]
    pub place: Where,
}

/// `yam read`.
#[derive(Debug, clap::Args)]
pub struct ReadArgs {
    /// Read this Maildir instead of the configured mailbox.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["mbox", "eml", "stdin"])]
    pub maildir: Option<PathBuf>,
    /// Read this mbox file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["eml", "stdin"])]
    pub mbox: Option<PathBuf>,
    /// Read these .eml files.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "stdin")]
    pub eml: Vec<PathBuf>,
    /// Read one mail from standard input (for a mail client's filter).
    #[arg(long)]
    pub stdin: bool,
    /// Keep reading: wait for new mail (IMAP IDLE where the server offers
    /// it, else a look every --every seconds) until interrupted.
    #[arg(long, conflicts_with_all = ["eml", "stdin"])]
    pub watch: bool,
    /// With --watch: seconds between looks at a mailbox that cannot
    /// announce new mail (Maildir, mbox, IMAP without IDLE).
    #[arg(long, value_name = "SECONDS", default_value_t = 60, requires = "watch")]
    pub every: u64,
    /// With --watch: stop after this many seconds.
    #[arg(long, value_name = "SECONDS", requires = "watch")]
    pub stop_after: Option<u64>,
    #[command(flatten)]
    pub place: Where,
}

/// `yam identity`.
#[derive(Debug, Subcommand)]
pub enum IdentityCommand {
    /// Show my identity (made on first use): name, address, key fingerprint.
    #[command(
        after_help = "Examples:\n  yam identity show\n  yam identity show --data-dir ~/yam-club"
    )]
    Show(PlaceArgs),
    /// Send my card (name, address, key) to a player, to play with them.
    #[command(after_help = "Examples:\n  yam identity send bo@example.net")]
    Send {
        /// Their address.
        address: String,
        #[command(flatten)]
        place: Where,
    },
    /// Write my identity, my contacts and every game's secrets to one
    /// file (mode 0600), for a backup or a move to a new machine.
    #[command(
        after_help = "Examples:\n  yam identity export --out desk-backup.yaml\n  yam identity export -o desk-backup.yaml --force   # replace an old backup"
    )]
    Export {
        /// The file to write.
        #[arg(long, short, value_name = "FILE")]
        out: PathBuf,
        /// Replace FILE if it exists.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        place: Where,
    },
    /// Restore what `export` wrote into this data directory.
    #[command(
        after_help = "Examples:\n  yam identity import desk-backup.yaml\n  yam identity import desk-backup.yaml --data-dir ~/new-yam"
    )]
    Import {
        /// The file `export` wrote.
        file: PathBuf,
        #[command(flatten)]
        place: Where,
    },
    /// List the players met, with their key fingerprints.
    #[command(after_help = "Examples:\n  yam identity contacts")]
    Contacts(PlaceArgs),
    /// Forget a contact's key (when they really have a new one).
    #[command(after_help = "Examples:\n  yam identity forget bo@example.net")]
    Forget {
        /// Their address.
        address: String,
        #[command(flatten)]
        place: Where,
    },
}

/// `yam decline` and `yam withdraw` arguments.
#[derive(Debug, clap::Args)]
pub struct CloseArgs {
    /// The game.
    pub game: String,
    /// Why, for the opponent (one line).
    #[arg(long, default_value = "")]
    pub reason: String,
    #[command(flatten)]
    pub place: Where,
}

/// `yam turn` arguments.
#[derive(Debug, clap::Args)]
pub struct TurnArgs {
    /// The game.
    pub game: String,
    /// Write the whole turn mail to this file instead (`.eml`).
    #[arg(short, long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The old spelling of --out, kept for one release (with a warning):
    /// `--eml FILE` is a file to read in `yam read`.
    #[arg(long = "eml", hide = true, value_name = "FILE", conflicts_with = "out")]
    pub old_eml: Option<PathBuf>,
    /// Replace FILE if it exists.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub place: Where,
}

/// Only where things are.
#[derive(Debug, clap::Args)]
pub struct PlaceArgs {
    #[command(flatten)]
    pub place: Where,
}

/// `yam games`.
#[derive(Debug, clap::Args)]
pub struct GamesArgs {
    #[command(flatten)]
    pub place: Where,
    /// How to print: `human`, or `json` for JSON Lines: one object a
    /// challenge waiting for a card (schema `yam-challenge/1`), then one
    /// a game (schema `yam-games/1`), docs/json.md.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// `yam board`.
#[derive(Debug, clap::Args)]
pub struct BoardArgs {
    /// The game's id.
    pub game: String,
    #[command(flatten)]
    pub place: Where,
    /// How to print: `human`, or `json` for one object (schema
    /// `yam-board/1`, docs/json.md).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// One game, as `yam games --format json` prints it.
#[derive(Debug, serde::Serialize)]
struct GameLine {
    schema: &'static str,
    game_id: String,
    game_type: Option<&'static str>,
    variant: Option<String>,
    players: Vec<String>,
    /// `you`, `them` or `over`; `unreadable` when the game's files are not.
    turn: &'static str,
    /// Whose turn it is, in words (the human form's sentence).
    whose_turn: Option<String>,
    /// Days since the game last changed.
    waiting_days: Option<u64>,
    /// The day a forfeit may be claimed from, while the opponent is to play.
    forfeit_from: Option<String>,
    /// Why the game could not be opened (`unreadable` only).
    error: Option<String>,
}

/// A challenge waiting for the invited player's card, as `yam games
/// --format json` prints it before the games: no game yet, but the
/// player's to see (a lost card leaves one waiting).
#[derive(Debug, serde::Serialize)]
struct ChallengeLine {
    schema: &'static str,
    /// The address whose card the challenge waits for.
    opponent: String,
    /// The game id chosen for it, if one was.
    game_id: Option<String>,
    /// The game as the challenge named it (`khan`, `castle-siege`).
    game: Option<String>,
    ruleset: Option<String>,
    /// Always `card`: what the challenge waits for.
    waiting_for: &'static str,
    /// Why the waiting challenge's file could not be read.
    error: Option<String>,
}

/// A game, as `yam board --format json` prints it.
#[derive(Debug, serde::Serialize)]
struct BoardLine {
    schema: &'static str,
    game_id: String,
    game_type: Option<&'static str>,
    players: Vec<String>,
    referee: Option<String>,
    /// Days of silence after which a forfeit may be claimed, as agreed at
    /// the challenge.
    forfeit_days: u32,
    last_move: Option<String>,
    whose_turn: String,
    /// Whether it is my move.
    my_move: bool,
    /// The position in the game's own notation.
    position: String,
    /// The board as the human form draws it (none before the opening is
    /// complete).
    diagram: Option<String>,
    /// Every legal move now, when it is my move.
    legal_moves: Vec<String>,
}

/// Prints what a step did.
fn report(result: Result<act::Done>) -> Result<Status> {
    let done = result?;
    let mut out = std::io::stdout().lock();
    for line in done.lines {
        let _ = writeln!(out, "{line}");
    }
    Ok(Status::Valid)
}

/// The desk at `place`.
fn open(place: &Where) -> Result<Desk> {
    Desk::open(place)
}

/// `yam challenge`.
pub fn challenge(args: &ChallengeArgs) -> Result<Status> {
    let game = crate::flags::game_type(
        "challenge",
        args.game_type.as_deref(),
        args.old_game.as_deref(),
    )?;
    let desk = open(&args.place)?;
    let settings = ChallengeSettings {
        game: game.to_owned(),
        ruleset: args.ruleset.clone(),
        seats: args.seats.clone(),
        id: args.id.clone(),
        forfeit_days: args.forfeit_days,
        comment: args.comment.clone(),
        referee: args.referee.as_deref().map(crate::mail::address::normal),
    };
    let address = crate::mail::address::normal(&args.address);
    // Oneself is no opponent: kept, the challenge waited for ever for a
    // card that my own `yam read` passes over as my own mail
    // (`directory::a_challenge_to_my_own_address_is_refused_not_kept_waiting_for_ever`).
    if address == desk.address() {
        return Err(Error::usage(format!(
            "{address} is your own address (the configuration's identity address): a challenge goes to your opponent's"
        )));
    }
    // Checked before anything is signed or stored: a bad referee address
    // would otherwise surface only when the first mail is sent.
    if let Some(referee) = &settings.referee
        && (referee.parse::<lettre::Address>().is_err()
            || *referee == address
            || *referee == desk.address())
    {
        return Err(Error::usage(format!(
            "--referee {referee}: expected the address of a referee robot, neither yours nor your opponent's"
        )));
    }
    match desk.contacts.by_address(&address).cloned() {
        Some(contact) => report(
            act::challenge(&desk, &contact, &settings).map(|id| act::Done {
                lines: vec![format!(
                    "challenge {id} sent to {} <{}> (key fingerprint {})",
                    contact.name, contact.address, contact.fingerprint
                )],
            }),
        ),
        None => {
            // The challenge names the invited key: the keys travel first.
            let sent = incoming::keep_pending(&desk, &address, &settings)
                .and_then(|()| incoming::send_card(&desk, &address, None));
            report(sent.map(|_| act::Done {
                lines: vec![format!(
                    "{address} is a new contact: my card is sent to them; the challenge follows by itself when `yam read` reads their card"
                )],
            }))
        }
    }
}

/// `yam accept`.
pub fn accept(args: &GameArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    report(act::accept(&desk, &args.game))
}

/// `yam move`.
pub fn play(args: &MoveArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    report(act::play(
        &desk,
        &args.game,
        &MoveRequest {
            moves: args.moves.clone(),
            comment: args.comment.clone(),
            dry_run: args.dry_run,
            offer_draw: args.offer_draw,
            auto: args.auto.as_deref().map(|p| {
                (
                    if p == "eager" {
                        yam_referee::castle_siege::Policy::Eager
                    } else {
                        yam_referee::castle_siege::Policy::Random
                    },
                    args.seed,
                )
            }),
        },
    ))
}

/// `yam decline`: an invited player will not play the challenge.
pub fn decline(args: &CloseArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    report(act::close(
        &desk,
        &args.game,
        NoticeKind::Decline,
        &args.reason,
    ))
}

/// `yam withdraw`: the challenger takes a challenge back.
pub fn withdraw(args: &CloseArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    report(act::close(
        &desk,
        &args.game,
        NoticeKind::Withdraw,
        &args.reason,
    ))
}

/// `yam resign`.
pub fn resign(args: &GameArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    report(act::act(&desk, &args.game, Act::Resign))
}

/// `yam forfeit`.
pub fn forfeit(args: &GameArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    report(act::act(&desk, &args.game, Act::ClaimForfeit))
}

/// `yam remind`.
pub fn remind(args: &GameArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    report(act::remind(&desk, &args.game))
}

/// `yam turn`: the game's turn as it stands, for a player who sends mail
/// by hand: the pasteable block, or (`--out`) a whole mail.
pub fn turn(args: &TurnArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    let game = Game::open(&desk.store, &args.game)?;
    let (block, mail) = game.turn_by_hand(&desk)?;
    if let Some(old) = &args.old_eml {
        let old = old.display();
        crate::flags::deprecated("turn", &format!("--eml {old}"), &format!("--out {old}"));
    }
    match args.out.as_ref().or(args.old_eml.as_ref()) {
        None => out!("{block}"),
        Some(path) => {
            crate::store::atomic::write(path, &mail, args.force)
                .map_err(|e| Error::io(path, "cannot write", e))?;
            outln!(
                "{}: the turn mail to {}, ready to send",
                path.display(),
                game.meta.opponent
            );
        }
    }
    Ok(Status::Valid)
}

/// `yam send`: every mail a failed send left waiting.
pub fn send(args: &PlaceArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    let (sent, failed) = act::send_waiting(&desk);
    let mut out = std::io::stdout().lock();
    if sent.is_empty() && failed.is_empty() {
        let _ = writeln!(out, "no mail is waiting to be sent");
    }
    for line in sent {
        let _ = writeln!(out, "{line}");
    }
    let status = if failed.is_empty() {
        Status::Valid
    } else {
        Status::Unreadable
    };
    for e in failed {
        eprintln!("{e}");
    }
    Ok(status)
}

/// `yam resend`.
pub fn resend(args: &GameArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    report(act::resend(&desk, &args.game))
}

/// `yam draw` (`takeback` false) and `yam takeback`.
pub fn offer(args: &OfferArgs, takeback: bool) -> Result<Status> {
    let desk = open(&args.place)?;
    let act = match (args.step, takeback) {
        (OfferStep::Offer, false) => Act::OfferDraw,
        (OfferStep::Accept, false) => Act::AnswerDraw(true),
        (OfferStep::Decline, false) => Act::AnswerDraw(false),
        (OfferStep::Offer, true) => Act::OfferTakeback,
        (OfferStep::Accept, true) => Act::AnswerTakeback(true),
        (OfferStep::Decline, true) => Act::AnswerTakeback(false),
    };
    report(act::act(&desk, &args.game, act))
}

/// `yam games`: every game with whose turn it is.
pub fn games(args: &GamesArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    let ids = desk.store.games()?;
    if args.format == Format::Json {
        return games_json(&desk, ids);
    }
    let mut out = std::io::stdout().lock();
    let waiting = incoming::waiting_challenges(&desk);
    if ids.is_empty() && waiting.is_empty() {
        let _ = writeln!(
            out,
            "no games yet: `yam challenge ADDRESS --game ... --ruleset ...`"
        );
    }
    let mut status = Status::Valid;
    // Challenges that wait for the invited player's card: no game yet,
    // but the player's to see (a lost card leaves one waiting).
    for (address, settings) in &waiting {
        let address = crate::mail::cards::clean_text(address);
        match settings {
            Ok(s) => {
                let _ = writeln!(
                    out,
                    "card  {}  a challenge to {address} ({}, {} ruleset) waits for their card: it is sent when `yam read` reads it; `yam identity send {address}` sends my card again{}",
                    s.id.as_deref().map_or("-", |id| id),
                    s.game,
                    s.ruleset,
                    s.id.as_deref()
                        .map(|id| format!(", `yam withdraw {id}` drops it"))
                        .unwrap_or_default()
                );
            }
            Err(e) => {
                let _ = writeln!(
                    out,
                    "?     -  a challenge waiting for {address}'s card cannot be read: {e}"
                );
                status = Status::Invalid;
            }
        }
    }
    for id in ids {
        match Game::open(&desk.store, &id) {
            Ok(game) => {
                let mark = match next_duty(&game.replay) {
                    _ if game.meta.closed.is_some() => "over",
                    Some(d) if d.who() == desk.key() => "YOU",
                    Some(_) => "them",
                    None => "over",
                };
                // How long the game has waited, and when a forfeit may be
                // claimed if the opponent stays silent.
                let since = game.silent_since();
                let days = desk::now().saturating_sub(since) / 86_400;
                let waiting = match next_duty(&game.replay) {
                    _ if game.meta.closed.is_some() => String::new(),
                    None => String::new(),
                    Some(d) if d.who() == desk.key() && !game.replay.opening_complete() => {
                        format!("  waiting for you {days} day(s)")
                    }
                    Some(d) if d.who() == desk.key() => format!(
                        "  waiting for you {days} day(s); a forfeit may be claimed against you from {} (UTC)",
                        crate::game::header::first_whole_day_from(
                            since + u64::from(game.meta.forfeit_days) * 86_400
                        )
                    ),
                    Some(_) if !game.replay.opening_complete() => format!(
                        "  waiting {days} day(s) for the acceptance (`yam withdraw {id}` takes the challenge back)"
                    ),
                    Some(_) => format!(
                        "  waiting {days} day(s); a forfeit may be claimed from {} (UTC)",
                        crate::game::header::first_whole_day_from(
                            since + u64::from(game.meta.forfeit_days) * 86_400
                        )
                    ),
                };
                let _ = writeln!(
                    out,
                    "{mark:<5} {id}  {} ({})  {}  {}{waiting}",
                    game.record.game().map_or("?", |g| g.name()),
                    // The challenger's header, unsigned: shown safe.
                    crate::diagnostics::visible(game.record.tags.get("Variant").unwrap_or("-")),
                    game.players().join(" vs "),
                    body::whose_turn(&game, &desk)
                );
            }
            Err(e) => {
                let _ = writeln!(out, "?     {id}  {e}");
                status = Status::Invalid;
            }
        }
    }
    Ok(status)
}

/// `yam games --format json`: one line a game.
fn games_json(desk: &Desk, ids: Vec<String>) -> Result<Status> {
    let mut status = Status::Valid;
    for (address, settings) in incoming::waiting_challenges(desk) {
        let mut line = ChallengeLine {
            schema: "yam-challenge/1",
            opponent: address,
            game_id: None,
            game: None,
            ruleset: None,
            waiting_for: "card",
            error: None,
        };
        match settings {
            Ok(s) => {
                line.game_id = s.id;
                line.game = Some(s.game);
                line.ruleset = Some(s.ruleset);
            }
            Err(e) => {
                line.error = Some(e);
                status = Status::Invalid;
            }
        }
        crate::json::emit(&line);
    }
    for id in ids {
        let mut line = GameLine {
            schema: "yam-games/1",
            game_id: id.clone(),
            game_type: None,
            variant: None,
            players: Vec::new(),
            turn: "unreadable",
            whose_turn: None,
            waiting_days: None,
            forfeit_from: None,
            error: None,
        };
        match Game::open(&desk.store, &id) {
            Ok(game) => {
                let duty = next_duty(&game.replay);
                line.turn = match duty {
                    _ if game.meta.closed.is_some() => "over",
                    Some(d) if d.who() == desk.key() => "you",
                    Some(_) => "them",
                    None => "over",
                };
                line.game_type = game.record.game().map(|g| g.name());
                line.variant = game.record.tags.get("Variant").map(str::to_owned);
                line.players = game.players();
                line.whose_turn = Some(body::whose_turn(&game, desk));
                if line.turn != "over" {
                    line.waiting_days =
                        Some(desk::now().saturating_sub(game.silent_since()) / 86_400);
                }
                if line.turn == "them" {
                    line.forfeit_from = Some(crate::game::header::first_whole_day_from(
                        game.silent_since() + u64::from(game.meta.forfeit_days) * 86_400,
                    ));
                }
            }
            Err(e) => {
                line.error = Some(e.to_string());
                status = Status::Invalid;
            }
        }
        crate::json::emit(&line);
    }
    Ok(status)
}

/// `yam board`: the game as it stands, and what may be played.
pub fn board(args: &BoardArgs) -> Result<Status> {
    let desk = open(&args.place)?;
    let game = Game::open(&desk.store, &args.game)?;
    if args.format == Format::Json {
        let my_move = next_duty(&game.replay) == Some(Duty::Move(desk.key()));
        crate::json::emit(&BoardLine {
            schema: "yam-board/1",
            game_id: game.id(),
            game_type: game.record.game().map(|g| g.name()),
            players: game.players(),
            referee: game.meta.referee.clone(),
            forfeit_days: game.meta.forfeit_days,
            last_move: body::last_move(&game, &desk),
            whose_turn: body::whose_turn(&game, &desk),
            my_move,
            position: game.replay.game().position(),
            diagram: game
                .replay
                .opening_complete()
                .then(|| game.replay.game().diagram()),
            legal_moves: if my_move {
                game.replay.game().legal_moves()
            } else {
                Vec::new()
            },
        });
        return Ok(Status::Valid);
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{} {}: {}",
        game.record.game().map_or("?", |g| g.name()),
        game.id(),
        game.players().join(" vs ")
    );
    if let Some(referee) = &game.meta.referee {
        let _ = writeln!(
            out,
            "refereed by {referee} (a copy of every mail goes to it)"
        );
    }
    let _ = writeln!(
        out,
        "a forfeit may be claimed after {} days of silence",
        game.meta.forfeit_days
    );
    if let Some(last) = body::last_move(&game, &desk) {
        let _ = writeln!(out, "last move: {last}");
    }
    if game.replay.opening_complete() {
        let _ = writeln!(out, "{}", game.replay.game().diagram());
    }
    let _ = writeln!(out, "{}", body::whose_turn(&game, &desk));
    if next_duty(&game.replay) == Some(Duty::Move(desk.key())) {
        let legal = game.replay.game().legal_moves();
        let shown: Vec<&str> = legal.iter().take(40).map(String::as_str).collect();
        let _ = writeln!(
            out,
            "legal now ({}): {}{}",
            legal.len(),
            shown.join(" "),
            if legal.len() > shown.len() {
                " ..."
            } else {
                ""
            }
        );
    }
    Ok(Status::Valid)
}

/// What a reading told so far.
#[derive(Debug, Default)]
struct Tally {
    news: usize,
    refused: usize,
    /// Mails of a mailbox that are not Yam's (personal mail, auto-replies,
    /// lists), left as they were and only counted.
    ignored: usize,
    /// Mails of a mailbox larger than Yam reads, left unread and unfetched:
    /// said once, when first listed (the read log remembers them).
    too_large: usize,
}

impl Tally {
    /// Prints what came of one mail. From a mailbox, a mail read before is
    /// passed over in silence (a duplicate delivery, a copy a reply
    /// carries); a mail named on the command line is always answered for.
    fn tell(&mut self, outcome: &Outcome, from_mailbox: bool, out: &mut impl Write) {
        if matches!(
            outcome,
            Outcome::Applied { .. } | Outcome::Challenged { .. } | Outcome::Card(_)
        ) {
            self.news += 1;
        }
        if from_mailbox && matches!(outcome, Outcome::AlreadyKnown(_)) {
            return;
        }
        // A shared inbox holds the player's other mail: it is not listed
        // one by one, only counted (a mail named on the command line is
        // always answered for).
        if from_mailbox && matches!(outcome, Outcome::Ignored(_)) {
            self.ignored += 1;
            return;
        }
        let line = match outcome {
            Outcome::Applied { news, .. } => news.join("\n  "),
            Outcome::Challenged {
                game,
                by,
                forfeit_days,
            } => format!(
                "{by} challenges you: game {game}, a forfeit may be claimed after {forfeit_days} days of silence. Accept with `yam accept {game}` or decline with `yam decline {game}` (`yam board {game}` shows it)"
            ),
            Outcome::Card(s) => s.clone(),
            Outcome::AlreadyKnown(s) => s.clone(),
            Outcome::Ignored(s) => format!("ignored: {s}"),
            Outcome::Refused(s) => {
                self.refused += 1;
                format!("refused, left in place: {s}")
            }
        };
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

impl Tally {
    /// Says how many mails not Yam's were left alone, if any, and starts
    /// counting afresh.
    fn tell_others(&mut self, out: &mut impl Write) {
        if self.ignored > 0 {
            let _ = writeln!(
                out,
                "{} other mail(s) (not Yam's) left as they were",
                self.ignored
            );
            self.ignored = 0;
        }
        if self.too_large > 0 {
            let _ = writeln!(
                out,
                "{} mail(s) larger than {} MiB left as they were, unread (no Yam turn is that large; look at them in your mail client)",
                self.too_large,
                crate::mail::extract::MAX_MAIL >> 20
            );
            self.too_large = 0;
        }
    }
}

/// `yam read`.
pub fn read(args: &ReadArgs) -> Result<Status> {
    let mut desk = open(&args.place)?;
    let mut out = std::io::stdout().lock();
    let mut tally = Tally::default();
    // Mails a failed send left behind go first.
    let (sent, failed) = act::send_waiting(&desk);
    for line in sent {
        let _ = writeln!(out, "{line}");
    }
    for e in failed {
        eprintln!("{e}");
    }
    let mut memory = Memory::open(desk.store.root())
        .map_err(|e| Error::io(desk.store.root().join("read.log"), "cannot read", e))?;
    // A mail named on the command line, or piped in: read unless it was
    // read before (a refused one is read again when named).
    let one = |desk: &mut Desk, memory: &mut Memory, raw: &[u8]| -> Result<Outcome> {
        let content = content_key(raw);
        let outcome = match memory.content(&content, raw) {
            // Known, and remembered already: nothing to add (a mail filter
            // that names the same mail again grew the memory each time).
            Some(known) if known != 'R' => {
                return Ok(Outcome::AlreadyKnown(
                    "read before; nothing changes".to_owned(),
                ));
            }
            _ => incoming::process(desk, raw),
        };
        memory
            .remember_outcome(None, &content, &outcome)
            .map_err(|e| Error::io(desk.store.root().join("read.log"), "cannot write", e))?;
        Ok(outcome)
    };
    if args.stdin {
        let read = read_bounded(std::io::stdin().lock(), None)
            .map_err(|e| Error::io("standard input", "cannot read", e))?;
        let outcome = match read {
            ReadUpTo::Whole(raw) => one(&mut desk, &mut memory, &raw)?,
            ReadUpTo::Larger => too_large(None),
        };
        tally.tell(&outcome, false, &mut out);
    } else if !args.eml.is_empty() {
        for path in &args.eml {
            // Never more than Yam reads is read, whatever the file's size.
            let file = std::fs::File::open(path).map_err(|e| Error::io(path, "cannot read", e))?;
            let size = file.metadata().ok().map(|m| m.len());
            let read = read_bounded(file, size).map_err(|e| Error::io(path, "cannot read", e))?;
            let outcome = match read {
                ReadUpTo::Whole(raw) => one(&mut desk, &mut memory, &raw)?,
                ReadUpTo::Larger => too_large(size),
            };
            let _ = write!(out, "{}: ", path.display());
            tally.tell(&outcome, false, &mut out);
        }
    } else {
        let mailbox = match (&args.maildir, &args.mbox) {
            (Some(dir), _) => Mailbox::Maildir(dir.clone()),
            (_, Some(file)) => Mailbox::Mbox(file.clone()),
            _ => match desk.config.incoming.clone() {
                Some(IncomingConfig::Imap(imap)) => Mailbox::Imap(imap.account()?),
                Some(IncomingConfig::Maildir { path, .. }) => Mailbox::Maildir(path),
                Some(IncomingConfig::Mbox { path }) => Mailbox::Mbox(path),
                None => {
                    return Err(Error::usage(
                        "no mailbox configured (incoming: imap, maildir or mbox); or use --maildir, --mbox, --eml, --stdin",
                    ));
                }
            },
        };
        if !args.watch {
            read_mailbox(&mut desk, &mut memory, &mailbox, &mut tally, &mut out)?;
            tally.tell_others(&mut out);
            if tally.news == 0 && tally.refused == 0 {
                let _ = writeln!(out, "nothing new");
            }
        } else {
            watch(&mut desk, &mut memory, &mailbox, args, &mut tally, &mut out)?;
        }
    }
    Ok(if tally.refused > 0 {
        Status::Invalid
    } else {
        Status::Valid
    })
}

/// At most [`crate::mail::extract::MAX_MAIL`] bytes of a mail and one more,
/// to know whether there is more: a 300 MB file is not read whole to be
/// refused. `size`, a file's length when it is known, sizes the buffer at
/// once (a turn mail at ply 300 is about 220 kB: read into memory mapped
/// in one call, [`crate::store::read`]).
fn read_bounded(mut input: impl Read, size: Option<u64>) -> std::io::Result<ReadUpTo> {
    read_up_to(&mut input, size, crate::mail::extract::MAX_MAIL as u64)
}

/// The refusal of a mail larger than Yam reads; `size` when it is known
/// (a file's), not the bytes read to find out (standard input's).
fn too_large(size: Option<u64>) -> Outcome {
    let limit = crate::mail::extract::MAX_MAIL;
    Outcome::Refused(match size {
        Some(size) => format!(
            "unreadable: the mail is {size} bytes, more than the {limit} Yam reads (no Yam turn is that large)"
        ),
        None => format!(
            "unreadable: the mail is more than the {limit} bytes Yam reads (no Yam turn is that large)"
        ),
    })
}

/// One round of reading a mailbox: every mail not handled before, each
/// told.
fn read_mailbox(
    desk: &mut Desk,
    memory: &mut Memory,
    mailbox: &Mailbox,
    tally: &mut Tally,
    out: &mut impl Write,
) -> Result<()> {
    let log = desk.store.root().join("read.log");
    let written = |e| Error::io(&log, "cannot write", e);
    // A Maildir's or an mbox's mails are known by their places, which the
    // summary of the log's first lines does not keep (an IMAP mailbox is
    // listed above the highest UID handled, which it does).
    if !matches!(mailbox, Mailbox::Imap(_)) {
        memory
            .read_whole()
            .map_err(|e| Error::io(&log, "cannot read", e))?;
    }
    let mut session = mailbox.open().map_err(|e| Error::usage(e.to_string()))?;
    // Handled before: known from the listing alone (a Maildir's by name),
    // never fetched again.
    let after = memory.imap_after(session.validity());
    let listed = session
        .list_new(after, |place| memory.knows_place(place))
        .map_err(|e| Error::usage(e.to_string()))?;
    let mut yams = Vec::new();
    for mail in listed {
        // An empty file is no mail yet: a writer that creates its file and
        // then fills it (another program's file transport; Yam's own
        // writes whole files by rename) is caught in between. Remembered,
        // its name was passed over for good once the turn was in it.
        if mail.size == 0 {
            continue;
        }
        if mail.size > crate::mail::extract::MAX_MAIL as u64 {
            // Never downloaded: no turn is that large.
            memory
                .remember(Some(&mail.place), None, 'L')
                .map_err(written)?;
            tally.too_large += 1;
            continue;
        }
        let raw = match session.fetch(&mail) {
            Ok(raw) => raw,
            // Not remembered: read at its new place by the next look. A
            // read that stopped here left the mails it had handled
            // unmarked and every later one for the next run.
            Err(e) if matches!(mail.place, Place::File(_)) && e.is_moved_away() => continue,
            Err(e) => return Err(Error::usage(e.to_string())),
        };
        let content = content_key(&raw);
        let outcome = match memory.content(&content, &raw) {
            // A second copy of a mail not Yam's (to her and to an alias
            // she is on): not Yam's either, and left exactly as it was.
            // Taken for "read before", it was counted as Yam's and marked
            // read, or filed out of the inbox.
            Some('I') => Outcome::Ignored("not Yam's (another copy of a mail read before)".into()),
            // A second delivery of a mail read before: the same, and
            // nothing is done twice.
            Some(known) if known != 'R' => {
                Outcome::AlreadyKnown("read before; nothing changes".to_owned())
            }
            _ => incoming::process(desk, &raw),
        };
        memory
            .remember_outcome(Some(&mail.place), &content, &outcome)
            .map_err(written)?;
        // Only Yam's own mails are marked read; anything else (personal
        // mail, a refused mail) is left exactly as it was.
        if outcome.dealt_with() {
            yams.push(mail.place.clone());
        }
        tally.tell(&outcome, true, out);
    }
    match filing(desk, mailbox) {
        Some(folder) => match session.file_into(&yams, &folder) {
            Ok(Filed::Moved) => {}
            Ok(Filed::CopiedOnly) => {
                eprintln!(
                    "the server cannot move mail by UID: Yam's mails were copied to the folder and left in the inbox, marked read"
                );
            }
            Err(e) => eprintln!("{e} (filing Yam's mails is a courtesy: nothing is lost)"),
        },
        None => {
            if let Err(e) = session.mark_seen(&yams) {
                eprintln!("{e} (marking Yam's mails read is a courtesy: nothing is lost)");
            }
        }
    }
    let validity = session.validity();
    let _ = session.close();
    memory.note_validity(validity);
    Ok(())
}

/// The folder Yam's own mails are filed into, when the configuration
/// asks for one and the mailbox read is the configured one.
fn filing(desk: &Desk, mailbox: &Mailbox) -> Option<Folder> {
    match (&desk.config.incoming, mailbox) {
        (Some(IncomingConfig::Imap(imap)), Mailbox::Imap(_)) => {
            imap.file_into.clone().map(Folder::Imap)
        }
        (Some(IncomingConfig::Maildir { path, file_into }), Mailbox::Maildir(read))
            if path == read =>
        {
            file_into.clone().map(Folder::Maildir)
        }
        _ => None,
    }
}

/// `yam read --watch`: reads, then waits for mail (IMAP IDLE where the
/// server offers it, else a look every `--every` seconds), and again,
/// until interrupted or `--stop-after` seconds have passed. A mailbox that
/// cannot be reached is retried at the next round: a watcher outlives a
/// server's restart.
fn watch(
    desk: &mut Desk,
    memory: &mut Memory,
    mailbox: &Mailbox,
    args: &ReadArgs,
    tally: &mut Tally,
    out: &mut impl Write,
) -> Result<()> {
    use std::time::{Duration, Instant};
    let started = Instant::now();
    let every = Duration::from_secs(args.every.max(1));
    let left = |now: Instant| {
        args.stop_after
            .map(|s| Duration::from_secs(s).saturating_sub(now - started))
    };
    let _ = writeln!(
        out,
        "watching {} (Ctrl-C stops)",
        match mailbox {
            Mailbox::Imap(a) => format!("{} on {}", a.mailbox, a.host),
            Mailbox::Maildir(p) | Mailbox::Mbox(p) => p.display().to_string(),
        }
    );
    let _ = out.flush();
    loop {
        // Mails a failed send left behind go out as soon as they can.
        let (sent, _) = act::send_waiting(desk);
        for line in sent {
            let _ = writeln!(out, "{line}");
        }
        let round = read_mailbox(desk, memory, mailbox, tally, out);
        tally.tell_others(out);
        let wait = match left(Instant::now()) {
            Some(left) if left.is_zero() => return Ok(()),
            Some(left) => left,
            None => Duration::MAX,
        };
        if let Err(e) = round {
            // Not at once: a mailbox that fails now would fail again.
            eprintln!("{e} (trying again in {} s)", every.as_secs());
            std::thread::sleep(every.min(wait));
            continue;
        }
        match mailbox {
            Mailbox::Imap(account) => {
                // RFC 2177: a client re-issues IDLE at least every 29
                // minutes; 25 leaves room.
                let idle = wait.min(Duration::from_secs(25 * 60));
                let after = memory.imap_after(memory.last_validity());
                match crate::mail::imap::wait_for_new(account, after, idle) {
                    Ok(crate::mail::imap::Wake::Unsupported) => std::thread::sleep(every.min(wait)),
                    Ok(_) => {}
                    Err(e) => {
                        eprintln!("{e} (trying again in {} s)", every.as_secs());
                        std::thread::sleep(every.min(wait));
                    }
                }
            }
            Mailbox::Maildir(_) | Mailbox::Mbox(_) => std::thread::sleep(every.min(wait)),
        }
    }
}

/// `yam identity ...`.
pub fn identity(command: &IdentityCommand) -> Result<Status> {
    match command {
        IdentityCommand::Show(args) => {
            let desk = open(&args.place)?;
            let card = desk.card();
            if desk.new_identity {
                outln!(
                    "a new signing key was made for {}",
                    desk.config.identity.key
                );
            }
            outln!("{} <{}>", card.name, card.address);
            outln!("key fingerprint: {}", card.key.fingerprint());
            outln!("public key: {}", hex::encode(card.key.as_bytes()));
            Ok(Status::Valid)
        }
        IdentityCommand::Send { address, place } => {
            let desk = open(place)?;
            report(
                incoming::send_card(&desk, &address.to_ascii_lowercase(), None).map(|_| {
                    act::Done {
                        lines: vec![format!("my card is sent to {address}")],
                    }
                }),
            )
        }
        IdentityCommand::Contacts(args) => {
            let desk = open(&args.place)?;
            for c in desk.contacts.all() {
                let former = if c.former.is_empty() {
                    String::new()
                } else {
                    format!("  (formerly {})", c.former.join(", "))
                };
                outln!("{} <{}>  {}{former}", c.name, c.address, c.fingerprint);
            }
            Ok(Status::Valid)
        }
        IdentityCommand::Forget { address, place } => {
            let mut desk = open(place)?;
            if desk
                .contacts
                .forget(address)
                .map_err(|e| Error::usage(e.to_string()))?
            {
                outln!("{address} forgotten: the next card from it is trusted on first use");
                Ok(Status::Valid)
            } else {
                Err(Error::usage(format!("{address} is not a contact")))
            }
        }
        IdentityCommand::Export { out, force, place } => {
            let desk = open(place)?;
            let exported = secrets_bundle::export(&desk, out, *force)?;
            outln!(
                "{}: {} file(s) of secrets and contacts written (mode 0600)",
                out.display(),
                exported.files
            );
            for mailbox in &exported.left_out {
                outln!(
                    "left out: {} (a mailbox of the configuration: mail, not the desk; move it yourself if the new machine reads it)",
                    mailbox.display()
                );
            }
            for bundle in &exported.bundles {
                outln!(
                    "left out: {} (a bundle like this one, not part of the desk)",
                    bundle.display()
                );
            }
            outln!(
                "Keep it safe: it holds your signing key. Play each game from ONE machine: a chain used from two copies would reveal its values twice, and the second use is refused as a fork."
            );
            Ok(Status::Valid)
        }
        IdentityCommand::Import { file, place } => {
            let data = place.data_dir();
            let n = secrets_bundle::import(&data, file)?;
            outln!("{n} file(s) restored into {}", data.display());
            outln!("Do not go on playing from the old machine: a chain must never be used twice.");
            Ok(Status::Valid)
        }
    }
}
