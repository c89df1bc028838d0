//! Numeric annotation glyphs: `$n`, and the six move-suffix glyphs.

use std::fmt;

/// A numeric annotation glyph, `$0` to `$255`.
///
/// The suffix glyphs are the same NAGs in another spelling: `!` is `$1`, `?`
/// is `$2`, `!!` is `$3`, `??` is `$4`, `!?` is `$5` and `?!` is `$6`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nag(pub u8);

impl Nag {
    /// `!`, a good move.
    pub const GOOD: Nag = Nag(1);
    /// `?`, a mistake.
    pub const MISTAKE: Nag = Nag(2);
    /// `!!`, a brilliant move.
    pub const BRILLIANT: Nag = Nag(3);
    /// `??`, a blunder.
    pub const BLUNDER: Nag = Nag(4);
    /// `!?`, a speculative move.
    pub const SPECULATIVE: Nag = Nag(5);
    /// `?!`, a dubious move.
    pub const DUBIOUS: Nag = Nag(6);

    /// The glyph spelling of NAGs 1 to 6.
    pub fn glyph(self) -> Option<&'static str> {
        Some(match self.0 {
            1 => "!",
            2 => "?",
            3 => "!!",
            4 => "??",
            5 => "!?",
            6 => "?!",
            _ => return None,
        })
    }

    /// The NAG a glyph spells, if it is one of the six.
    pub fn from_glyph(glyph: &[u8]) -> Option<Nag> {
        Some(Nag(match glyph {
            b"!" => 1,
            b"?" => 2,
            b"!!" => 3,
            b"??" => 4,
            b"!?" => 5,
            b"?!" => 6,
            _ => return None,
        }))
    }
}

impl fmt::Display for Nag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}", self.0)
    }
}
