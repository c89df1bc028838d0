//! The engine protocol's new-game line, `ucinewgame [rules] board
//! [boardtype]` (khan-sources 4): the rule options under the program's
//! keywords and the board type, read into Yam's [`Options`] and
//! [`GameType`] and written back from them.
//!
//! The keywords are those of the ruleset files (`bondsmenLeaders`, ...).
//! Five are the engine's own (khan-sources 2.7); `capturePromotions`,
//! `exchanges` and `powerMagicianMoves` are Yam's names for options whose
//! engine keyword is not known, so Yam writes them only when they are not at
//! their default. An option the line leaves out is at its default, as UCI
//! leaves an option not set.

use std::fmt;

use super::ruleset::{GameType, Options, PowerMagicianMoves};
use crate::ruleset_name::same_name;

/// A `ucinewgame` line, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewGame {
    /// The options: those the line sets, the others at their defaults.
    pub options: Options,
    /// The board type, when the line names one (`board rescuekhan`).
    pub game: Option<GameType>,
}

/// Why a `ucinewgame` line could not be read. Each says what was found and
/// what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NewGameError {
    /// The line does not start with `ucinewgame`.
    #[error("expected `ucinewgame` at the start of the line, found `{0}`")]
    NotNewGame(String),
    /// An option keyword Yam does not know.
    #[error("unknown rule option `{0}`: expected one of {KEYWORDS_TEXT}, or `board`")]
    UnknownOption(String),
    /// An option with a value it cannot take.
    #[error("option `{name}`: expected {expected}, found {found}")]
    BadValue {
        /// The keyword.
        name: &'static str,
        /// What it takes.
        expected: &'static str,
        /// What the line gives (`nothing` at the end of the line).
        found: String,
    },
    /// An option set twice.
    #[error("option `{0}` is set twice")]
    Twice(&'static str),
    /// `board` with no board type after it, or one Yam does not know.
    #[error(
        "board type: expected one of basic, magician, powermagician, rescuegeneral, rescuekhan, found {0}"
    )]
    UnknownBoard(String),
    /// Words after the board type.
    #[error("expected the end of the line after the board type, found `{0}`")]
    AfterBoard(String),
}

/// The keywords, in the order Yam writes them.
const KEYWORDS: [&str; 8] = [
    "bondsmenLeaders",
    "basePromotions",
    "swordsCaptureMounts",
    "magicianDemotesKhan",
    "magicianExtendedDemotionSqs",
    "capturePromotions",
    "exchanges",
    "powerMagicianMoves",
];

const KEYWORDS_TEXT: &str = "bondsmenLeaders, basePromotions, swordsCaptureMounts, \
    magicianDemotesKhan, magicianExtendedDemotionSqs, capturePromotions, exchanges, \
    powerMagicianMoves";

/// The board type as the protocol spells it (`powermagician`).
pub fn board_name(game: GameType) -> String {
    game.name().replace('-', "")
}

/// One option's value as the protocol writes it (`1`, `0`, `2`, `warrior`).
fn value_text(options: &Options, key: usize) -> String {
    let flag = |b: bool| if b { "1" } else { "0" }.to_owned();
    match key {
        0 => flag(options.bondsmen_leaders),
        1 => flag(options.base_promotions),
        2 => flag(options.swords_capture_mounts),
        3 => flag(options.magician_demotes_khan),
        4 => options.magician_extended_demotion_sqs.to_string(),
        5 => flag(options.capture_promotions),
        6 => flag(options.exchanges),
        _ => match options.power_magician_moves {
            PowerMagicianMoves::Warrior => "warrior".to_owned(),
            PowerMagicianMoves::Orthogonal => "orthogonal".to_owned(),
        },
    }
}

/// The options on which `a` and `b` differ: keyword, `a`'s value, `b`'s.
pub fn differences(a: &Options, b: &Options) -> Vec<(&'static str, String, String)> {
    (0..KEYWORDS.len())
        .filter_map(|k| {
            let (x, y) = (value_text(a, k), value_text(b, k));
            (x != y).then_some((KEYWORDS[k], x, y))
        })
        .collect()
}

impl NewGame {
    /// Read a `ucinewgame` line (surrounding spaces ignored; keywords and
    /// board types in any case, as UCI option names are).
    pub fn parse(line: &str) -> Result<NewGame, NewGameError> {
        let mut words = line.split_whitespace().peekable();
        match words.next() {
            Some("ucinewgame") => {}
            other => return Err(NewGameError::NotNewGame(other.unwrap_or("").to_owned())),
        }
        let mut options = Options::default();
        let mut set = [false; KEYWORDS.len()];
        let mut game = None;
        while let Some(word) = words.next() {
            if word.eq_ignore_ascii_case("board") {
                let Some(name) = words.next() else {
                    return Err(NewGameError::UnknownBoard("nothing".to_owned()));
                };
                let found = GameType::ALL
                    .into_iter()
                    .find(|g| same_name(g.name(), name))
                    .ok_or_else(|| NewGameError::UnknownBoard(format!("`{name}`")))?;
                game = Some(found);
                if let Some(extra) = words.next() {
                    return Err(NewGameError::AfterBoard(extra.to_owned()));
                }
                break;
            }
            let k = KEYWORDS
                .iter()
                .position(|kw| kw.eq_ignore_ascii_case(word))
                .ok_or_else(|| NewGameError::UnknownOption(word.to_owned()))?;
            let name = KEYWORDS[k];
            if std::mem::replace(&mut set[k], true) {
                return Err(NewGameError::Twice(name));
            }
            let next = words.peek().copied();
            let bad = |expected: &'static str| NewGameError::BadValue {
                name,
                expected,
                found: next.map_or("nothing".to_owned(), |w| format!("`{w}`")),
            };
            match k {
                4 => {
                    // A number is required: there is no bare form.
                    let n = next
                        .and_then(|w| w.parse::<u8>().ok())
                        .ok_or_else(|| bad("a number of squares (0, 1, 2, ...)"))?;
                    options.magician_extended_demotion_sqs = n;
                    words.next();
                }
                7 => {
                    options.power_magician_moves = match next {
                        Some(w) if w.eq_ignore_ascii_case("warrior") => PowerMagicianMoves::Warrior,
                        Some(w) if w.eq_ignore_ascii_case("orthogonal") => {
                            PowerMagicianMoves::Orthogonal
                        }
                        _ => return Err(bad("warrior or orthogonal")),
                    };
                    words.next();
                }
                _ => {
                    // On/off: `1`/`0`, `true`/`false`, or the bare keyword
                    // (on), as the protocol's `basePromotions` example has
                    // it; so a word that is not a flag value is the next
                    // keyword.
                    let value = match next {
                        Some("1") => Some(true),
                        Some("0") => Some(false),
                        Some(w) if w.eq_ignore_ascii_case("true") => Some(true),
                        Some(w) if w.eq_ignore_ascii_case("false") => Some(false),
                        Some(w) if w.starts_with(|c: char| c.is_ascii_digit()) => {
                            return Err(bad("1, 0, true, false or nothing (on)"));
                        }
                        _ => None,
                    };
                    if value.is_some() {
                        words.next();
                    }
                    let on = value.unwrap_or(true);
                    match k {
                        0 => options.bondsmen_leaders = on,
                        1 => options.base_promotions = on,
                        2 => options.swords_capture_mounts = on,
                        3 => options.magician_demotes_khan = on,
                        5 => options.capture_promotions = on,
                        _ => options.exchanges = on,
                    }
                }
            }
        }
        Ok(NewGame { options, game })
    }
}

impl fmt::Display for NewGame {
    /// The line Yam writes: the engine's five keywords always, with their
    /// values, so the engine's own defaults do not matter; Yam's three only
    /// when not at their default, since the engine may not know them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ucinewgame")?;
        let default = Options::default();
        for (k, kw) in KEYWORDS.iter().enumerate() {
            let v = value_text(&self.options, k);
            if k < 5 || v != value_text(&default, k) {
                write!(f, " {kw} {v}")?;
            }
        }
        if let Some(game) = self.game {
            write!(f, " board {}", board_name(game))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocols_example_reads() {
        let g = NewGame::parse(
            "ucinewgame bondsmenLeaders 1 basePromotions swordsCaptureMounts 0 \
             magicianDemotesKhan 1 magicianExtendedDemotionSqs 0 board magician",
        )
        .unwrap();
        assert_eq!(g.game, Some(GameType::Magician));
        assert_eq!(g.options, Options::default());
    }

    #[test]
    fn lines_round_trip_for_every_board_and_option() {
        for game in GameType::ALL {
            let mut options = Options::default();
            let g = NewGame {
                options,
                game: Some(game),
            };
            assert_eq!(NewGame::parse(&g.to_string()), Ok(g));
            options.exchanges = true;
            options.base_promotions = false;
            options.magician_extended_demotion_sqs = 2;
            options.power_magician_moves = PowerMagicianMoves::Orthogonal;
            let g = NewGame {
                options,
                game: Some(game),
            };
            let text = g.to_string();
            assert!(text.contains("exchanges 1"), "{text}");
            assert!(!text.contains("capturePromotions"), "{text}");
            assert_eq!(NewGame::parse(&text), Ok(g));
        }
        assert_eq!(
            NewGame::parse("ucinewgame board rescuekhan").unwrap().game,
            Some(GameType::RescueKhan)
        );
        assert_eq!(NewGame::parse("ucinewgame").unwrap().game, None);
        // A bare flag followed by another keyword, lower-case ones too.
        let g = NewGame::parse("ucinewgame swordsCaptureMounts exchanges board basic").unwrap();
        assert!(g.options.swords_capture_mounts && g.options.exchanges);
    }

    #[test]
    fn a_bad_line_is_refused_saying_what_was_found() {
        let cases = [
            (
                "position fen",
                "expected `ucinewgame` at the start of the line, found `position`",
            ),
            (
                "ucinewgame fastPlay 1 board magician",
                "unknown rule option `fastPlay`",
            ),
            (
                "ucinewgame exchanges 2 board magician",
                "option `exchanges`: expected 1, 0, true, false or nothing (on), found `2`",
            ),
            (
                "ucinewgame magicianExtendedDemotionSqs board magician",
                "option `magicianExtendedDemotionSqs`: expected a number of squares (0, 1, 2, ...), found `board`",
            ),
            ("ucinewgame board chess", "found `chess`"),
            ("ucinewgame board", "found nothing"),
            ("ucinewgame board basic extra", "found `extra`"),
            (
                "ucinewgame exchanges exchanges 0",
                "option `exchanges` is set twice",
            ),
        ];
        for (line, want) in cases {
            let e = NewGame::parse(line).unwrap_err().to_string();
            assert!(e.contains(want), "{line}: {e}");
        }
    }

    #[test]
    fn differences_name_each_option() {
        let a = Options::default();
        let b = Options {
            exchanges: true,
            ..a
        };
        assert_eq!(
            differences(&a, &b),
            vec![("exchanges", "0".to_owned(), "1".to_owned())]
        );
    }
}
