//! Rulesets: the game type, every option of the original program with its
//! default, the start position and the siege geometry (and any captives
//! already carried), all read from YAML.
//! Nothing about a particular board is written in code: the five standard
//! rulesets are files under `examples/khan/rulesets/`, embedded here.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use yam_notation::GameKind;
use yam_notation::khan::{Captive, EngineFen, Side, Square, TowerText, YamPosition};

use super::position::Position;
use super::square::Bitboard;
use crate::ruleset_error::{RulesetError, RulesetTextError, read_yaml};
use crate::ruleset_name;

/// The five game types of the original program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameType {
    /// No magicians.
    Basic,
    /// One magician a side (the program's default board).
    Magician,
    /// One power magician a side.
    #[serde(alias = "powermagician")]
    PowerMagician,
    /// Siege 1: one Sung tower holding the general.
    #[serde(alias = "rescuegeneral")]
    RescueGeneral,
    /// Siege 2: each side's khan held in a tower.
    #[serde(alias = "rescuekhan")]
    RescueKhan,
}

impl GameType {
    /// All five, in the program's order.
    pub const ALL: [GameType; 5] = [
        GameType::Basic,
        GameType::Magician,
        GameType::PowerMagician,
        GameType::RescueGeneral,
        GameType::RescueKhan,
    ];

    /// The name of the standard ruleset (and of its file).
    pub const fn name(self) -> &'static str {
        match self {
            GameType::Basic => "basic",
            GameType::Magician => "magician",
            GameType::PowerMagician => "power-magician",
            GameType::RescueGeneral => "rescue-general",
            GameType::RescueKhan => "rescue-khan",
        }
    }

    /// The standard ruleset for this game type.
    pub fn standard(self) -> Ruleset {
        // The embedded files are checked by the tests; a failure here is a
        // build defect, so fall back to the plainest ruleset rather than panic.
        Ruleset::builtin(self.name()).unwrap_or_else(|_| Ruleset::fallback())
    }
}

impl fmt::Display for GameType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// KR-3.5: how the power magician moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PowerMagicianMoves {
    /// Like a warrior: one or two king steps (the ruling's default).
    #[default]
    Warrior,
    /// Slides of one or two squares along a rank or file, like the assassin.
    Orthogonal,
}

/// The rule options, under the original program's protocol keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// KR-6.2: two leaders (khan and bondsman); off: the khan alone is royal.
    #[serde(deserialize_with = "flag")]
    pub bondsmen_leaders: bool,
    /// KR-5.1: promotion on reaching the enemy camp.
    #[serde(deserialize_with = "flag")]
    pub base_promotions: bool,
    /// KR-3.10: S and I may capture W, F, K and H.
    #[serde(deserialize_with = "flag")]
    pub swords_capture_mounts: bool,
    /// KR-4.3: spells may target K and J.
    #[serde(deserialize_with = "flag")]
    pub magician_demotes_khan: bool,
    /// KR-4.1, KR-P3: extra king distance for every caster's spells.
    pub magician_extended_demotion_sqs: u8,
    /// KR-5.2: S and A promoted by what they capture.
    #[serde(deserialize_with = "flag")]
    pub capture_promotions: bool,
    /// KR-5.3: exchanges ("borrowing a horse").
    #[serde(deserialize_with = "flag")]
    pub exchanges: bool,
    /// KR-3.5: the power magician's movement.
    pub power_magician_moves: PowerMagicianMoves,
}

impl Default for Options {
    /// The original program's defaults, and the rulings' where it has none.
    fn default() -> Options {
        Options {
            bondsmen_leaders: true,
            base_promotions: true,
            swords_capture_mounts: false,
            magician_demotes_khan: true,
            magician_extended_demotion_sqs: 0,
            capture_promotions: false,
            exchanges: false,
            power_magician_moves: PowerMagicianMoves::Warrior,
        }
    }
}

/// An on/off option: `true`/`false`, `1`/`0` (the engine protocol's form), or
/// the bare keyword with no value, which means on (the protocol's
/// `basePromotions` example is written that way).
fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    // A stored game's tip (a binary cache, `signed::Tip`) holds the options
    // as it wrote them: a plain boolean.
    if !d.is_human_readable() {
        return bool::deserialize(d);
    }
    struct Flag;
    impl<'de> Visitor<'de> for Flag {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("true, false, 1, 0, or nothing (on)")
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
            Ok(v)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<bool, E> {
            match v {
                0 => Ok(false),
                1 => Ok(true),
                _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
            }
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<bool, E> {
            match v {
                0 => Ok(false),
                1 => Ok(true),
                _ => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
            }
        }
        fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_none<E: de::Error>(self) -> Result<bool, E> {
            Ok(true)
        }
    }
    d.deserialize_any(Flag)
}

/// The options and camps: the part of a ruleset every position carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    /// The rule options.
    pub options: Options,
    /// KR-5.1: where each side's pieces are promoted, indexed by [`Side::index`].
    pub camps: [Bitboard; 2],
}

impl Default for Rules {
    /// Default options and no camps.
    fn default() -> Rules {
        Rules {
            options: Options::default(),
            camps: [Bitboard::EMPTY; 2],
        }
    }
}

/// A whole ruleset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruleset {
    /// The ruleset's name.
    pub name: String,
    /// Which of the five games it is a version of.
    pub game: GameType,
    /// Free text.
    pub description: Option<String>,
    /// The options and camps.
    pub rules: Rules,
    /// The start position, siege state included.
    pub start: Position,
}

/// The standard rulesets, by name, as shipped in `examples/khan/rulesets/`.
pub const BUILTIN: [(&str, &str); 5] = [
    (
        "basic",
        include_str!("../../../examples/khan/rulesets/basic.yaml"),
    ),
    (
        "magician",
        include_str!("../../../examples/khan/rulesets/magician.yaml"),
    ),
    (
        "power-magician",
        include_str!("../../../examples/khan/rulesets/power-magician.yaml"),
    ),
    (
        "rescue-general",
        include_str!("../../../examples/khan/rulesets/rescue-general.yaml"),
    ),
    (
        "rescue-khan",
        include_str!("../../../examples/khan/rulesets/rescue-khan.yaml"),
    ),
];

impl Ruleset {
    /// Read a ruleset from YAML. Errors carry the line and column.
    pub fn from_yaml(text: &str) -> Result<Ruleset, RulesetTextError> {
        let raw = read_yaml::<RawRuleset>(text)?;
        raw.into_ruleset().map_err(|(key, message)| {
            // Whole-position checks have no YAML event of their own; point at
            // the key of the section they concern.
            let (line, column) = key_location(text, key).unzip();
            RulesetTextError {
                line,
                column,
                message,
            }
        })
    }

    /// A standard ruleset by name (`rescue-khan`; case, `-` and `_` are not
    /// significant, so the engine protocol's board names such as
    /// `rescuekhan` are accepted too: [`crate::ruleset_name::same_name`]).
    pub fn builtin(name: &str) -> Result<Ruleset, RulesetError> {
        let (found, text) = ruleset_name::builtin(GameKind::Khan, name)?;
        Ruleset::from_yaml(text).map_err(|error| RulesetError::Invalid {
            name: found.to_owned(),
            error,
        })
    }

    /// The start position.
    pub fn start_position(&self) -> Position {
        self.start
    }

    /// The start position, borrowed: for a caller that writes it where it
    /// is wanted rather than through a copy of its own.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// An empty board with default rules; only used if an embedded ruleset
    /// were ever unreadable (the tests make sure none is).
    fn fallback() -> Ruleset {
        Ruleset {
            name: "empty".to_owned(),
            game: GameType::Basic,
            description: None,
            rules: Rules::default(),
            start: Position::empty(Rules::default()),
        }
    }
}

impl<'de> Deserialize<'de> for Ruleset {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ruleset, D::Error> {
        let raw = RawRuleset::deserialize(d)?;
        raw.into_ruleset().map_err(|(_, m)| de::Error::custom(m))
    }
}

/// A square written as a YAML string (`a7`); refused where it stands.
#[derive(Debug, Clone, Copy)]
struct SquareText(Square);

/// Reads a string scalar through `parse`, inside the deserializer's own visit,
/// so that an error carries the scalar's line and column.
struct ParsedStr<T>(fn(&str) -> Result<T, String>, &'static str);

impl<T> Visitor<'_> for ParsedStr<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.1)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.0)(v).map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for SquareText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SquareText, D::Error> {
        d.deserialize_str(ParsedStr(
            |s| {
                s.parse::<Square>()
                    .map(SquareText)
                    .map_err(|_| format!("{s:?} is not a square (a1 .. h8)"))
            },
            "a square such as a7",
        ))
    }
}

/// The engine FEN of the start board, checked where it stands.
#[derive(Debug, Clone)]
struct FenText(EngineFen);

impl<'de> Deserialize<'de> for FenText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FenText, D::Error> {
        d.deserialize_str(ParsedStr(
            |s| {
                EngineFen::parse(s)
                    .map(FenText)
                    .map_err(|e| format!("bad start FEN {s:?}: {e}"))
            },
            "an engine FEN such as wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1",
        ))
    }
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum CaptiveText {
    #[serde(alias = "wk")]
    WhiteKhan,
    #[serde(alias = "bk")]
    BlackKhan,
    #[serde(alias = "gen")]
    General,
}

impl From<CaptiveText> for Captive {
    fn from(c: CaptiveText) -> Captive {
        match c {
            CaptiveText::WhiteKhan => Captive::Khan(Side::White),
            CaptiveText::BlackKhan => Captive::Khan(Side::Black),
            CaptiveText::General => Captive::General,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRuleset {
    name: String,
    game: GameType,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    options: Options,
    start: FenText,
    camps: RawPerSide,
    #[serde(default)]
    siege: Option<RawSiege>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPerSide {
    white: Vec<SquareText>,
    black: Vec<SquareText>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSiege {
    #[serde(default)]
    towers: Vec<RawTower>,
    gers: RawPerSide,
    /// Captives already carried at the start: a ruleset may begin in the
    /// middle of a rescue (a lesson, a study), as Yam's position format can.
    #[serde(default)]
    carried: Vec<RawCarried>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCarried {
    square: SquareText,
    captive: CaptiveText,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, try_from = "RawTowerFields")]
struct RawTower {
    squares: Vec<SquareText>,
    manned: Vec<SquareText>,
    captive: Option<CaptiveText>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTowerFields {
    squares: Vec<SquareText>,
    manned: Vec<SquareText>,
    #[serde(default)]
    captive: Option<CaptiveText>,
}

impl TryFrom<RawTowerFields> for RawTower {
    type Error = String;
    fn try_from(t: RawTowerFields) -> Result<RawTower, String> {
        let squares = board(&t.squares);
        if let Some(stray) = t.manned.iter().find(|m| !squares.contains(m.0)) {
            return Err(format!(
                "manned square {} is not one of its tower's squares",
                stray.0
            ));
        }
        Ok(RawTower {
            squares: t.squares,
            manned: t.manned,
            captive: t.captive,
        })
    }
}

/// The 1-based line and column of the top-level `key:` in a YAML text: in
/// block style a line that begins with it; else (flow style, and JSON,
/// which is YAML too) the first `key`, `"key"` or `'key'` that stands
/// where a key can (at a line's start, or after `{` or `,`, outside every
/// quoted string and comment) and is followed by `:`. (Block style only, a
/// bad start in a ruleset a script wrote as JSON was reported with no place
/// at all; a key's name in a quoted description is no key.)
fn key_location(text: &str, key: &str) -> Option<(usize, usize)> {
    let wanted = format!("{key}:");
    if let Some(i) = text.lines().position(|l| l.starts_with(&wanted)) {
        return Some((i + 1, 1));
    }
    let forms = [format!("\"{key}\""), format!("'{key}'"), key.to_owned()];
    let mut quote: Option<char> = None;
    for (i, line) in text.lines().enumerate() {
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let mut before: Option<char> = None;
        let mut j = 0;
        while j < chars.len() {
            let (at, c) = chars[j];
            if let Some(q) = quote {
                if q == '"' && c == '\\' {
                    j += 2;
                    continue;
                }
                if c == q {
                    if q == '\'' && chars.get(j + 1).is_some_and(|&(_, n)| n == '\'') {
                        j += 2;
                        continue;
                    }
                    quote = None;
                    before = Some(c);
                }
                j += 1;
                continue;
            }
            if c == '#' && (j == 0 || chars[j - 1].1.is_whitespace()) {
                break;
            }
            if matches!(before, None | Some('{') | Some(','))
                && let Some(form) = forms.iter().find(|f| line[at..].starts_with(f.as_str()))
                && line[at + form.len()..].trim_start().starts_with(':')
            {
                return Some((i + 1, j + 1));
            }
            if c == '"' || c == '\'' {
                quote = Some(c);
            } else if !c.is_whitespace() {
                before = Some(c);
            }
            j += 1;
        }
    }
    None
}

fn board(list: &[SquareText]) -> Bitboard {
    list.iter().map(|s| s.0).collect()
}

impl RawRuleset {
    /// The ruleset, or the top-level key whose section is wrong and why.
    fn into_ruleset(self) -> Result<Ruleset, (&'static str, String)> {
        let rules = Rules {
            options: self.options,
            camps: [board(&self.camps.white), board(&self.camps.black)],
        };
        let mut yam = YamPosition::from_fen(self.start.0);
        let key = if self.siege.is_some() {
            "siege"
        } else {
            "start"
        };
        if let Some(siege) = self.siege {
            for t in &siege.towers {
                yam.towers.push(TowerText {
                    squares: t.squares.iter().map(|s| s.0).collect(),
                    captive: t.captive.map(Captive::from),
                });
                yam.manned.extend(t.manned.iter().map(|s| s.0));
            }
            yam.gers
                .extend(siege.gers.white.iter().map(|s| (s.0, Side::White)));
            yam.gers
                .extend(siege.gers.black.iter().map(|s| (s.0, Side::Black)));
            yam.carried.extend(
                siege
                    .carried
                    .iter()
                    .map(|c| (c.square.0, Captive::from(c.captive))),
            );
        }
        let start = Position::from_yam_text(&yam, rules)
            .map_err(|e| (key, format!("the start position is not valid: {e}")))?;
        Ok(Ruleset {
            name: self.name,
            game: self.game,
            description: self.description,
            rules,
            start,
        })
    }
}
