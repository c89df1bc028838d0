//! The flags every command spells alike (README, "Flags"), and the old
//! spellings kept for one release: `--game TYPE` where a command takes the
//! kind of game (now `--game-type`; `--game N` is a game's number in a
//! file everywhere), and `yam turn --eml FILE` (now `--out`).

use crate::error::{Error, Result};

/// The game type a command was given: `--game-type`, or the old `--game
/// TYPE` with a warning on standard error. A number given to the old flag
/// is the other meaning of `--game` (a game's number) and is refused,
/// saying what to write instead.
pub fn game_type<'a>(
    command: &str,
    game_type: Option<&'a str>,
    old: Option<&'a str>,
) -> Result<&'a str> {
    match (game_type, old) {
        (Some(kind), _) => Ok(kind),
        (None, Some(old)) if old.parse::<u64>().is_ok() => Err(Error::usage(format!(
            "yam {command} --game {old}: `--game N` is a game's number in a file; \
             the kind of game is --game-type TYPE (khan, castle-siege or genghis-khan)"
        ))),
        (None, Some(old)) => {
            deprecated(
                command,
                &format!("--game {old}"),
                &format!("--game-type {old}"),
            );
            Ok(old)
        }
        (None, None) => Err(Error::usage(format!(
            "yam {command} needs --game-type TYPE (khan, castle-siege or genghis-khan)"
        ))),
    }
}

/// Warns that `old` is an old spelling of `new`, kept for one release.
pub fn deprecated(command: &str, old: &str, new: &str) {
    eprintln!(
        "warning: `yam {command} {old}` is deprecated and will be removed in the next release: \
         write `{new}`"
    );
}
