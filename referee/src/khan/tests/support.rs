//! Helpers shared by the Khan tests.

use crate::khan::{Options, Position, Rules, Ruleset, Square};

/// A standard ruleset by name.
pub fn ruleset(name: &str) -> Ruleset {
    Ruleset::builtin(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A standard ruleset's start position.
pub fn start(name: &str) -> Position {
    ruleset(name).start_position()
}

/// The standard camps with the given options.
pub fn rules_with(options: Options) -> Rules {
    Rules {
        options,
        ..ruleset("magician").rules
    }
}

/// A position from Yam text under the standard camps and default options.
pub fn pos(text: &str) -> Position {
    pos_with(text, Options::default())
}

/// A position from Yam text under the standard camps and `options`.
pub fn pos_with(text: &str, options: Options) -> Position {
    Position::from_yam(text, rules_with(options)).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A square by name.
pub fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{name}: {e}"))
}
