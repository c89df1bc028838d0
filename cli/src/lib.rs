//! `yam`: play, referee, check and verify Khan, Castle Siege and Genghis
//! Khan games. All of Yam's I/O lives in this crate; `main.rs` only calls
//! [`main`].
//!
//! The crate is rooms (`docs/architecture.md`): the commands
//! (`commands/`), each thin and never importing another, over shared
//! services that know no command: the signed game ([`game`]), reading
//! archives (`archive`), mail ([`mail`]), the data directory (`store`),
//! the configuration (`config`), diagnostics and pictures. Its public
//! surface is small: [`main`] and [`run`], the exit codes, and the two
//! services other programs (the tests, the fuzz targets) drive directly.

/// A line to standard output that a closed pipe (`yam identity show |
/// head -1`) does not turn into a panic: `println!` panicked with a
/// backtrace once the reader had gone; what it did not read is no fault
/// of the command's.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// [`outln`] without the line break.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

mod archive;
mod commands;
mod config;
mod diagnostics;
mod error;
mod flags;
pub mod game;
mod json;
pub mod mail;
mod pictures;
mod store;

pub use archive::{Expansion, NoRecords, expand};
pub use error::{EXIT_INVALID, EXIT_USAGE, EXIT_VALID};

/// What the fuzz targets (`cli/fuzz`) reach that is not otherwise public:
/// the robot's command parser, which reads text from anyone who writes to
/// the robot, the desk's read log (`DATA/read.log`) answered both of the
/// ways a run answers it, and the desk bundle a player imports. Only re-exports, hidden from the
/// documentation: the commands stay private, and nothing else should use
/// this.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::commands::play::memory::both_ways as read_log;
    pub use crate::commands::play::secrets_bundle::{
        BundleFault, BundleFile, read as read_bundle, write as write_bundle,
    };
    pub use crate::commands::robot::command::{
        BadLine, Command, MAX_COMMANDS, MAX_SEED, Offer, Parsed, parse, unquoted,
    };
    pub use crate::config::{Config, ConfigError, yaml_lines};
    pub use crate::mail::flowed::unflow;
    pub use crate::mail::html::{MAX_QUOTE_MARKS, html_lines};
}

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use commands::{
    check, config as config_check, dispute, engine, export, fmt, generate, hotseat, manual, play,
    robot, select, show, verify,
};

/// Yam: a play-by-email referee and notation toolkit for Khan, Castle Siege
/// and Genghis Khan.
#[derive(Debug, Parser)]
#[command(name = "yam", version, about, long_about = None, propagate_version = true)]
#[command(
    after_help = "Examples:\n  yam check examples\n  yam show examples/khan/opening-lesson.yam --move 3\n  yam help hotseat\n\n\
Exit codes: 0 valid, 1 invalid input, 2 usage or I/O error (or a path named\n\
that holds no record).\n\
Documentation: README.md and docs/ in the Yam source tree."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check records: syntax, and every move against the game's rules.
    #[command(
        after_help = "Examples:\n  yam check examples/khan/*.yam\n  yam check --quiet archive.yam"
    )]
    Check(check::CheckArgs),
    /// Show the position of a game after any move: a diagram (Khan, Castle
    /// Siege) or a tableau (Genghis Khan).
    #[command(
        after_help = "Examples:\n  yam show game.yam                 # the final position\n  yam show game.yam --move 23       # after White's 23rd move\n  yam show game.yam --move 23...    # after Black's 23rd move\n  yam show archive.yam --game 4 --ply 10"
    )]
    Show(show::ShowArgs),
    /// Verify signed records: every signature, hash link, roll, outcome,
    /// commitment and the ruleset hash, with every move replayed by the
    /// rules.
    #[command(
        after_help = "Each game is reported \"verified\" (with its mode, counts and key fingerprints),\n\"unverified practice\" (an open-seed game: replayable, proves nothing about\nfairness),\n\"unsigned\" (no signed events: a failure here; `yam check` checks its moves)\nor with its first failure, its position and why.\n\nExamples:\n  yam verify examples/khan/signed\n  yam verify --quiet game.yam archive/"
    )]
    Verify(verify::VerifyArgs),
    /// Compare two logs of one game: the fork, who signed which branch, any
    /// proof of equivocation, and a verdict.
    #[command(
        after_help = "Exit code 0 when the logs do not conflict (identical, or one continues the\nother and verifies), 1 when they fork or a log fails verification, 2 on a\nusage or I/O error.\n\nExamples:\n  yam dispute alice-copy.yam bob-copy.yam\n  yam dispute --game 2 a.yam b.yam"
    )]
    Dispute(dispute::DisputeArgs),
    /// Play a game on one machine between local identities, every event
    /// signed by the right key and every roll through the real protocol.
    #[command(
        after_help = "Examples:\n  yam hotseat new --game-type khan --ruleset magician --first alice \\\n      --second bob --out game.yam --secrets DIR\n  yam hotseat new --game-type genghis-khan --ruleset standard \\\n      --first pat --director dora --out cards.yam --secrets DIR\n  yam hotseat move game.yam Ng3-f3 --secrets DIR\n  yam hotseat auto cards.yam --to-end --annotate --secrets DIR\n  yam hotseat status game.yam\n  yam hotseat offer-draw game.yam --secrets DIR\n  yam hotseat accept-draw game.yam --secrets DIR\n  yam hotseat resign game.yam --secrets DIR\n\nSecrets (signing seeds, chain secrets) live only in the --secrets directory\n(mode 0600 files); they never enter a record."
    )]
    Hotseat(hotseat::HotseatArgs),
    /// Export for readers: `--plain` strips a record's signed evidence;
    /// `--html` writes a static site of archives, diagrams and all.
    #[command(
        after_help = "Examples:\n  yam export --plain game.yam\n  yam export --plain game.yam --out game-plain.yam\n  yam export --html examples --out target/site"
    )]
    Export(export::ExportArgs),
    /// Rewrite archives in the canonical form, keeping everything (moves,
    /// comments, evidence, variations): only the layout changes.
    #[command(
        after_help = "A signed record that verified verifies after; formatting twice gives what\nformatting once gave. A game that does not parse is copied as written and\nreported (exit 1).\n\nExamples:\n  yam fmt archive.yam > tidy.yam\n  yam fmt --in-place games/*.yam\n  yam fmt --check archive.yam"
    )]
    Fmt(fmt::FmtArgs),
    /// Select games from archives by type, ruleset, player, result, date,
    /// tag, length or verdict, and find duplicates: copied exactly as
    /// written.
    #[command(
        after_help = "Every criterion given must match. Games are copied exactly as written (signed\nevidence and all), in file order; a game that does not parse is reported and\nleft out (exit 1).\n\nExamples:\n  yam select --game-type khan --player ann archive.yam -o ann.yam\n  yam select --result 1-0 --since 2026.01.01 --until 2026.06.30 archives/\n  yam select --tag Event=\"Spring cup\" --min-plies 40 archive.yam\n  yam select --status verified signed/ -o verified.yam\n  yam select --unique archive.yam -o deduplicated.yam\n  yam select --duplicates archive.yam > repeated.yam"
    )]
    Select(select::SelectArgs),
    /// Check the configuration: try each mail account and say what is wrong.
    #[command(subcommand, after_help = "Examples:\n  yam config check")]
    Config(config_check::ConfigCommand),
    /// Write an archive of complete, legal, random games from a seed.
    #[command(
        after_help = "Examples:\n  yam generate --game-type khan --games 100 --seed 7 -o khan.yam\n  yam generate --game-type castle-siege --games 10\n  yam generate --game-type genghis-khan --games 10 -o cards.yam --force\n\n`--game TYPE` (the old spelling) still works for now, with a warning."
    )]
    Generate(generate::GenerateArgs),
    /// Trade Khan games with the innersky engine: its FEN and from-to moves.
    #[command(
        subcommand,
        after_help = "Examples:\n  yam engine export game.yam\n  yam engine export --exact game.yam | yam engine import"
    )]
    Engine(engine::EngineCommand),
    /// Mail play: my identity and card, contacts, backups.
    #[command(
        subcommand,
        after_help = "Examples:\n  yam identity show\n  yam identity send bo@example.net\n  yam identity export --out desk-backup.yaml\n  yam identity import desk-backup.yaml"
    )]
    Identity(play::IdentityCommand),
    /// Mail play: challenge a player (their card is fetched first if new).
    #[command(
        after_help = "Examples:\n  yam challenge bo@example.net --game-type castle-siege --ruleset standard\n  yam challenge bo@example.net --game-type khan --ruleset rescue-khan \\\n      --seats first"
    )]
    Challenge(play::ChallengeArgs),
    /// Mail play: accept a challenge read by `yam read`.
    #[command(after_help = "Examples:\n  yam accept khan-20261130-1a2b")]
    Accept(play::GameArgs),
    /// Mail play: decline a challenge instead of accepting it.
    #[command(
        after_help = "Examples:\n  yam decline khan-20261130-1a2b --reason \"not this month, sorry\""
    )]
    Decline(play::CloseArgs),
    /// Mail play: withdraw my challenge before it is accepted.
    #[command(after_help = "Examples:\n  yam withdraw khan-20261130-1a2b")]
    Withdraw(play::CloseArgs),
    /// Mail play: make a move (checked by the referee before it is sent).
    #[command(
        after_help = "Examples:\n  yam move khan-20261130-1a2b Ng3-f3\n  yam move khan-20261130-1a2b Ng3-f3 --dry-run\n  yam move siege-1 Defender:CKAO/OACK/KCOA/AOKC      # seal a setup\n  yam move siege-1 Ab5xKc5 Ac4-c5 --comment \"all in\""
    )]
    Move(play::MoveArgs),
    /// Mail play: read turns and cards from the mailbox (or a file).
    #[command(
        after_help = "Examples:\n  yam read                      # the configured IMAP, Maildir or mbox\n  yam read --maildir ~/Maildir\n  yam read --eml turn.eml\n  yam read --stdin              # from a mail client's filter\n\nA refused mail changes nothing and stays where it was; reading a mail twice\nchanges nothing."
    )]
    Read(play::ReadArgs),
    /// Mail play: list my games with whose turn it is.
    #[command(
        after_help = "Examples:\n  yam games\n  yam games --data-dir ~/yam-club\n  yam games --format json"
    )]
    Games(play::GamesArgs),
    /// Mail play: show a game's board, whose turn it is and the legal moves.
    #[command(
        after_help = "Examples:\n  yam board khan-20261130-1a2b\n  yam board khan-20261130-1a2b --format json"
    )]
    Board(play::BoardArgs),
    /// Mail play: send the game as it stands again (a mail a failed send
    /// left waiting first).
    #[command(after_help = "Examples:\n  yam resend khan-20261130-1a2b")]
    Resend(play::GameArgs),
    /// Mail play: the game's turn as it stands, for sending by hand: the
    /// pasteable turn block, or a whole mail (`--out`).
    #[command(
        after_help = "Examples:\n  yam turn khan-20261130-1a2b               # the block, to paste into a mail\n  yam turn khan-20261130-1a2b -o turn.eml   # a whole mail, ready to send\n\n`--eml FILE` (the old spelling of --out) still works for now, with a warning."
    )]
    Turn(play::TurnArgs),
    /// Mail play: send every mail a failed send left waiting.
    #[command(after_help = "Examples:\n  yam send")]
    Send(play::PlaceArgs),
    /// Mail play: resign.
    #[command(after_help = "Examples:\n  yam resign khan-20261130-1a2b")]
    Resign(play::GameArgs),
    /// Mail play: offer, accept or decline a draw.
    #[command(
        after_help = "Examples:\n  yam draw offer khan-20261130-1a2b\n  yam draw accept khan-20261130-1a2b\n  yam draw decline khan-20261130-1a2b"
    )]
    Draw(play::OfferArgs),
    /// Mail play: offer, accept or decline taking back your last move
    /// (never past a roll).
    #[command(
        after_help = "Examples:\n  yam takeback offer khan-20261130-1a2b\n  yam takeback accept khan-20261130-1a2b"
    )]
    Takeback(play::OfferArgs),
    /// Mail play: remind the opponent that the game waits for them.
    #[command(after_help = "Examples:\n  yam remind khan-20261130-1a2b")]
    Remind(play::GameArgs),
    /// Mail play: claim a forfeit after the agreed days of silence.
    #[command(after_help = "Examples:\n  yam forfeit khan-20261130-1a2b")]
    Forfeit(play::GameArgs),
    /// Referee games on a mail address: players send plain commands by
    /// mail and get boards, results and verifiable records back.
    #[command(
        subcommand,
        after_help = "Examples:\n  yam robot run --config /etc/yam/robot.yaml"
    )]
    Robot(robot::RobotCommand),
    /// Print a shell completion script (bash, zsh, fish, powershell).
    #[command(
        after_help = "Examples:\n  source <(yam completions bash)                 # bash, this shell\n  yam completions zsh > ~/.zfunc/_yam            # zsh, with ~/.zfunc in fpath\n  yam completions fish > ~/.config/fish/completions/yam.fish"
    )]
    Completions(manual::CompletionsArgs),
    /// Write man pages for yam and every command into a directory.
    #[command(
        after_help = "Examples:\n  yam man --out target/man\n  man -l target/man/yam-check.1\n  yam man --out target/man --force      # replace the pages"
    )]
    Man(manual::ManArgs),
}

/// The whole command tree as clap sees it: what `--help`, the shell
/// completions and the man pages are made from (and what the tests walk).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parse the command line and run the command.
pub fn main() -> ExitCode {
    ExitCode::from(run(std::env::args_os()))
}

/// Run `yam` with these arguments (the first is the program's name), in
/// this process; returns the exit code. Benchmarks and examples measure a
/// command through it.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                EXIT_USAGE
            } else {
                EXIT_VALID
            };
        }
    };
    let result = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Fmt(args) => fmt::run(&args),
        Command::Select(args) => select::run(&args),
        Command::Show(args) => show::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Dispute(args) => dispute::run(&args),
        Command::Hotseat(args) => hotseat::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Engine(command) => engine::run(&command),
        Command::Generate(args) => generate::run(&args),
        Command::Config(command) => config_check::run(&command),
        Command::Identity(command) => play::identity(&command),
        Command::Challenge(args) => play::challenge(&args),
        Command::Accept(args) => play::accept(&args),
        Command::Move(args) => play::play(&args),
        Command::Read(args) => play::read(&args),
        Command::Games(args) => play::games(&args),
        Command::Board(args) => play::board(&args),
        Command::Resend(args) => play::resend(&args),
        Command::Send(args) => play::send(&args),
        Command::Turn(args) => play::turn(&args),
        Command::Resign(args) => play::resign(&args),
        Command::Decline(args) => play::decline(&args),
        Command::Withdraw(args) => play::withdraw(&args),
        Command::Remind(args) => play::remind(&args),
        Command::Forfeit(args) => play::forfeit(&args),
        Command::Draw(args) => play::offer(&args, false),
        Command::Takeback(args) => play::offer(&args, true),
        Command::Robot(command) => robot::run(&command),
        Command::Completions(args) => manual::completions(&args, Cli::command()),
        Command::Man(args) => manual::man(&args, Cli::command()),
    };
    if let Err(e) = &result {
        let message = e.to_string();
        if !message.is_empty() {
            eprintln!("{message}");
        }
    }
    error::exit_code(&result)
}
