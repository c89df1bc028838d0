//! `yam`: play, referee, check and verify Khan, Castle Siege and Genghis
//! Khan games. All of Yam's I/O lives in this crate; `main.rs` only calls
//! [`main`].

pub mod check;
pub mod diagnostics;
pub mod engine;
pub mod generate;
pub mod mail;
pub mod show;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit code: everything checked is valid.
pub const EXIT_VALID: u8 = 0;
/// Exit code: some input is invalid (syntax, rules or fair play).
pub const EXIT_INVALID: u8 = 1;
/// Exit code: bad usage, or a file could not be read.
pub const EXIT_USAGE: u8 = 2;

/// Yam: a play-by-email referee and notation toolkit for Khan, Castle Siege
/// and Genghis Khan.
#[derive(Debug, Parser)]
#[command(name = "yam", version, about, long_about = None, propagate_version = true)]
#[command(
    after_help = "Exit codes: 0 valid, 1 invalid input, 2 usage or I/O error.\n\
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
    /// Show the position of a game after any move, as a diagram.
    #[command(
        after_help = "Examples:\n  yam show game.yam                 # the final position\n  yam show game.yam --move 23       # after White's 23rd move\n  yam show game.yam --move 23...    # after Black's 23rd move\n  yam show archive.yam --game 4 --ply 10"
    )]
    Show(show::ShowArgs),
    /// Write an archive of complete, legal, random games from a seed.
    #[command(
        after_help = "Examples:\n  yam generate --game khan --games 100 --seed 7 -o khan.yam\n  yam generate --game castle-siege --games 10\n  yam generate --game genghis-khan --games 10"
    )]
    Generate(generate::GenerateArgs),
    /// Trade Khan games with the innersky engine: its FEN and from-to moves.
    #[command(subcommand)]
    Engine(engine::EngineCommand),
}

/// Parse the command line and run the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Show(args) => show::run(&args),
        Command::Engine(command) => engine::run(&command),
        Command::Generate(args) => generate::run(&args),
    };
    ExitCode::from(code)
}
