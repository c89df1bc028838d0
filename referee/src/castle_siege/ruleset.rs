//! Rulesets: the flags that choose between readings the rulings leave open,
//! read from YAML. The standard rulesets are files under
//! `examples/castle-siege/rulesets/`, embedded here.

use std::fmt;

use serde::{Deserialize, Serialize};
use yam_notation::GameKind;

use super::board::Adjacency;
use crate::ruleset_error::{RulesetError, RulesetTextError, read_yaml};
use crate::ruleset_name;

/// CS-20: whether the entry conditions apply to moves inside the castle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InnerMoves {
    /// Only a move from open ground into the castle needs an entry roll;
    /// moves between castle squares are free (the default).
    #[default]
    Free,
    /// Every attacker move into a castle square needs an entry roll, and
    /// (CS-28 following the flag) every castle square can be breached.
    Restricted,
}

impl InnerMoves {
    /// The flag's value as the ruleset writes it.
    pub const fn name(self) -> &'static str {
        match self {
            InnerMoves::Free => "free",
            InnerMoves::Restricted => "restricted",
        }
    }
}

/// CS-37: what a defending knight's rocks reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rocks {
    /// A moat-ring square adjacent to the knight's own square (the default).
    #[default]
    Adjacent,
    /// Any moat-ring square, from anywhere in the castle.
    #[serde(alias = "castle-wide")]
    CastleWide,
}

impl Rocks {
    /// The flag's value as the ruleset writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Rocks::Adjacent => "adjacent",
            Rocks::CastleWide => "castle_wide",
        }
    }
}

/// How a turn's orders are declared: the option between CS-P1's one-mail
/// priority list and the faithful turn of CS-12 and CS-19 (CS-P4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnMode {
    /// CS-P1: the Move phase is one declaration, a priority list of steps
    /// listed before the allowance is drawn; breaches and attacks may be
    /// declared several at once. The default, so that every record made
    /// before the option existed replays exactly as it did.
    #[default]
    #[serde(alias = "priority-list")]
    PriorityList,
    /// CS-P4: the turn as the rules play it. `Move` alone draws the
    /// allowance; then each step, breach and attack is its own declaration,
    /// chosen once the dice before it are known.
    Faithful,
}

impl TurnMode {
    /// The flag's value as the ruleset writes it.
    pub const fn name(self) -> &'static str {
        match self {
            TurnMode::PriorityList => "priority_list",
            TurnMode::Faithful => "faithful",
        }
    }
}

/// CS-50's default round cap.
pub const DEFAULT_ROUND_CAP: u32 = 50;

/// The largest round cap a ruleset may set; the cap exists to end the game.
pub const MAX_ROUND_CAP: u32 = 10_000;

/// The flags every position carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    /// CS-03.
    pub adjacency: Adjacency,
    /// CS-20, CS-28.
    pub inner_moves: InnerMoves,
    /// CS-37.
    pub rocks: Rocks,
    /// CS-50: after this many rounds the Defender wins.
    pub round_cap: u32,
    /// CS-P1 or CS-P4: how a turn's orders are declared.
    pub turn: TurnMode,
}

impl Default for Rules {
    /// The rulings' defaults.
    fn default() -> Rules {
        Rules {
            adjacency: Adjacency::King,
            inner_moves: InnerMoves::Free,
            rocks: Rocks::Adjacent,
            round_cap: DEFAULT_ROUND_CAP,
            turn: TurnMode::PriorityList,
        }
    }
}

/// A whole ruleset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruleset {
    /// The ruleset's name.
    pub name: String,
    /// Free text.
    pub description: Option<String>,
    /// The flags.
    pub rules: Rules,
}

/// The standard rulesets, by name, as shipped in
/// `examples/castle-siege/rulesets/`: the rulings' defaults, the four
/// variants of the rulings' balance check, and a short game of 8 rounds;
/// each of them also as its `-faithful` twin, the same flags with the
/// faithful turn (CS-P4). The plain names keep CS-P1's priority list, so
/// that the records naming them replay as they always did.
pub const BUILTIN: [(&str, &str); 12] = [
    (
        "standard",
        include_str!("../../../examples/castle-siege/rulesets/standard.yaml"),
    ),
    (
        "orthogonal",
        include_str!("../../../examples/castle-siege/rulesets/orthogonal.yaml"),
    ),
    (
        "restricted",
        include_str!("../../../examples/castle-siege/rulesets/restricted.yaml"),
    ),
    (
        "orthogonal-restricted",
        include_str!("../../../examples/castle-siege/rulesets/orthogonal-restricted.yaml"),
    ),
    (
        "castle-wide-rocks",
        include_str!("../../../examples/castle-siege/rulesets/castle-wide-rocks.yaml"),
    ),
    (
        "skirmish",
        include_str!("../../../examples/castle-siege/rulesets/skirmish.yaml"),
    ),
    (
        "standard-faithful",
        include_str!("../../../examples/castle-siege/rulesets/standard-faithful.yaml"),
    ),
    (
        "orthogonal-faithful",
        include_str!("../../../examples/castle-siege/rulesets/orthogonal-faithful.yaml"),
    ),
    (
        "restricted-faithful",
        include_str!("../../../examples/castle-siege/rulesets/restricted-faithful.yaml"),
    ),
    (
        "orthogonal-restricted-faithful",
        include_str!("../../../examples/castle-siege/rulesets/orthogonal-restricted-faithful.yaml"),
    ),
    (
        "castle-wide-rocks-faithful",
        include_str!("../../../examples/castle-siege/rulesets/castle-wide-rocks-faithful.yaml"),
    ),
    (
        "skirmish-faithful",
        include_str!("../../../examples/castle-siege/rulesets/skirmish-faithful.yaml"),
    ),
];

impl Ruleset {
    /// Read a ruleset from YAML. Errors carry the line and column.
    pub fn from_yaml(text: &str) -> Result<Ruleset, RulesetTextError> {
        let raw = read_yaml::<RawRuleset>(text)?;
        Ok(Ruleset {
            name: raw.name,
            description: raw.description,
            rules: Rules {
                adjacency: raw.adjacency,
                inner_moves: raw.inner_moves,
                rocks: raw.rocks,
                round_cap: raw.round_cap.0,
                turn: raw.turn,
            },
        })
    }

    /// A standard ruleset by name (`standard`, `castle-wide-rocks`; case,
    /// `-` and `_` are not significant: [`crate::ruleset_name::same_name`]).
    pub fn builtin(name: &str) -> Result<Ruleset, RulesetError> {
        let (found, text) = ruleset_name::builtin(GameKind::CastleSiege, name)?;
        Ruleset::from_yaml(text).map_err(|error| RulesetError::Invalid {
            name: found.to_owned(),
            error,
        })
    }

    /// The standard ruleset: every flag at the rulings' default.
    pub fn standard() -> Ruleset {
        // The embedded file is checked by the tests; should it ever be
        // unreadable, the defaults it documents are the same thing.
        Ruleset::builtin("standard").unwrap_or_else(|_| Ruleset {
            name: "standard".to_owned(),
            description: None,
            rules: Rules::default(),
        })
    }
}

/// CS-50's cap, checked where it stands so that an error has its line.
#[derive(Debug, Clone, Copy)]
struct RoundCap(u32);

impl Default for RoundCap {
    fn default() -> RoundCap {
        RoundCap(DEFAULT_ROUND_CAP)
    }
}

impl<'de> Deserialize<'de> for RoundCap {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RoundCap, D::Error> {
        // Checked inside the deserializer's own visit, so that an error
        // carries the value's line and column.
        struct Cap;
        impl serde::de::Visitor<'_> for Cap {
            type Value = RoundCap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a number of rounds, 1 to {MAX_ROUND_CAP}")
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<RoundCap, E> {
                u32::try_from(n)
                    .ok()
                    .filter(|n| (1..=MAX_ROUND_CAP).contains(n))
                    .map(RoundCap)
                    .ok_or_else(|| {
                        E::custom(format!(
                            "round_cap must be 1 to {MAX_ROUND_CAP} rounds, not {n}"
                        ))
                    })
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<RoundCap, E> {
                match u64::try_from(n) {
                    Ok(n) => self.visit_u64(n),
                    Err(_) => Err(E::custom(format!(
                        "round_cap must be 1 to {MAX_ROUND_CAP} rounds, not {n}"
                    ))),
                }
            }
        }
        d.deserialize_u64(Cap)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRuleset {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    adjacency: Adjacency,
    #[serde(default)]
    inner_moves: InnerMoves,
    #[serde(default)]
    rocks: Rocks,
    #[serde(default)]
    round_cap: RoundCap,
    #[serde(default)]
    turn: TurnMode,
}
