//! Rulesets: the ruling flags and limits, read from YAML. The standard
//! ruleset is the file `examples/genghis-khan/rulesets/standard.yaml`,
//! embedded here; a variant is one more YAML file, never a code change.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use yam_notation::GameKind;

use crate::ruleset_error::{RulesetError, RulesetTextError, read_yaml};
use crate::ruleset_name;

/// The options a ruleset may change, each with the rulings' default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// GK-14: when the Khan deck runs out, the discard pile becomes the new
    /// deck. Off by default.
    pub reshuffle: bool,
    /// GK-11: once the attacked Foe is captured completely, another Foe may
    /// be attacked in the same Conquest phase. Off by default.
    pub switch_after_exhaust: bool,
    /// GK-13: the most cards kept at the end of the Logistics phase (0..=15:
    /// a hand then never holds more than 20 cards, so every payment can be
    /// enumerated and every written payment stays a short token).
    #[serde(deserialize_with = "hand_limit")]
    pub hand_limit: u32,
    /// GK-16: the number of turns (1..=1000).
    #[serde(deserialize_with = "turns")]
    pub turns: u32,
}

impl Default for Options {
    /// The rulings' defaults.
    fn default() -> Options {
        Options {
            reshuffle: false,
            switch_after_exhaust: false,
            hand_limit: 6,
            turns: 21,
        }
    }
}

/// Reads an integer in `min..=max` inside the deserializer's own visit, so an
/// error carries the scalar's line and column.
struct Bounded {
    min: u64,
    max: u64,
    what: &'static str,
}

impl Visitor<'_> for Bounded {
    type Value = u32;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} from {} to {}", self.what, self.min, self.max)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
        if (self.min..=self.max).contains(&v) {
            u32::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
        } else {
            Err(E::invalid_value(de::Unexpected::Unsigned(v), &self))
        }
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u32, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
        }
    }
}

fn hand_limit<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    // A stored game's tip (`signed::Tip`) holds the number it wrote.
    if !d.is_human_readable() {
        return u32::deserialize(d);
    }
    d.deserialize_u64(Bounded {
        min: 0,
        max: 15,
        what: "a hand limit",
    })
}

fn turns<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    // A stored game's tip (`signed::Tip`) holds the number it wrote.
    if !d.is_human_readable() {
        return u32::deserialize(d);
    }
    d.deserialize_u64(Bounded {
        min: 1,
        max: 1000,
        what: "a number of turns",
    })
}

/// A whole ruleset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ruleset {
    /// The ruleset's name (the record's `Ruleset` tag).
    pub name: String,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// The options.
    #[serde(default)]
    pub options: Options,
}

/// The standard rulesets, by name, as shipped in `examples/genghis-khan/rulesets/`.
pub const BUILTIN: [(&str, &str); 1] = [(
    "standard",
    include_str!("../../../examples/genghis-khan/rulesets/standard.yaml"),
)];

impl Ruleset {
    /// Read a ruleset from YAML. Errors carry the line and column.
    pub fn from_yaml(text: &str) -> Result<Ruleset, RulesetTextError> {
        read_yaml::<Ruleset>(text)
    }

    /// A standard ruleset by name (case, `-` and `_` are not significant:
    /// [`crate::ruleset_name::same_name`]).
    pub fn builtin(name: &str) -> Result<Ruleset, RulesetError> {
        let (found, text) = ruleset_name::builtin(GameKind::GenghisKhan, name)?;
        Ruleset::from_yaml(text).map_err(|error| RulesetError::Invalid {
            name: found.to_owned(),
            error,
        })
    }

    /// The standard ruleset (the rulings' defaults).
    pub fn standard() -> Ruleset {
        // The embedded file is checked by the tests; were it ever unreadable,
        // its content is exactly the defaults, so fall back to those.
        Ruleset::builtin("standard").unwrap_or_else(|_| Ruleset {
            name: "standard".to_owned(),
            description: None,
            options: Options::default(),
        })
    }

    /// This ruleset with other options (for variants built in code).
    pub fn with_options(mut self, options: Options) -> Ruleset {
        self.options = options;
        self
    }
}
