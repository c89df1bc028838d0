//! The board's geometry (CS-01 to CS-06): the castle, its victory squares
//! and perimeter, the edge, the moat ring, and what "adjacent" and "range"
//! mean under each `adjacency` flag.

use std::fmt;

use serde::{Deserialize, Serialize};

pub use yam_notation::castle_siege::Square;

/// CS-03: which squares touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Adjacency {
    /// Eight-way: squares that share a side or a corner (the default).
    #[default]
    King,
    /// Four-way: squares that share a side.
    #[serde(alias = "orthogonal")]
    Orth,
}

impl Adjacency {
    /// The number of steps between two squares on an empty board: king steps
    /// (Chebyshev distance) or orthogonal steps (Manhattan distance).
    ///
    /// CS-04 measures range in the same steps as movement ("one metric
    /// serves both movement and fire"), so under `orth` a range of 2 counts
    /// two orthogonal steps (project decision CS-P3).
    pub const fn distance(self, a: Square, b: Square) -> u8 {
        let df = a.file().abs_diff(b.file());
        let dr = a.rank().abs_diff(b.rank());
        match self {
            Adjacency::King => {
                if df > dr {
                    df
                } else {
                    dr
                }
            }
            Adjacency::Orth => df + dr,
        }
    }

    /// Whether `a` and `b` are adjacent (one step apart).
    pub const fn adjacent(self, a: Square, b: Square) -> bool {
        self.distance(a, b) == 1
    }

    /// The squares adjacent to `sq`.
    pub fn neighbours(self, sq: Square) -> impl Iterator<Item = Square> {
        const KING: [(i8, i8); 8] = [
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ];
        KING.into_iter()
            .filter(move |(df, dr)| self == Adjacency::King || *df == 0 || *dr == 0)
            .filter_map(move |(df, dr)| sq.offset(df, dr))
    }

    /// The flag's value as the ruleset writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Adjacency::King => "king",
            Adjacency::Orth => "orth",
        }
    }
}

impl fmt::Display for Adjacency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// CS-01: the castle is the central 4x4 block, c3 to f6.
pub const fn is_castle(sq: Square) -> bool {
    matches!(sq.file(), 2..=5) && matches!(sq.rank(), 2..=5)
}

/// CS-01: the four victory squares, d4, e4, d5 and e5.
pub const fn is_victory(sq: Square) -> bool {
    matches!(sq.file(), 3..=4) && matches!(sq.rank(), 3..=4)
}

/// The 12 castle squares that touch open ground: the castle minus the
/// victory squares.
pub const fn is_perimeter(sq: Square) -> bool {
    is_castle(sq) && !is_victory(sq)
}

/// CS-01: the 48 squares outside the castle.
pub const fn is_open(sq: Square) -> bool {
    !is_castle(sq)
}

/// CS-02: the 28 border squares, corners included.
pub const fn is_edge(sq: Square) -> bool {
    sq.file() == 0 || sq.file() == 7 || sq.rank() == 0 || sq.rank() == 7
}

/// CS-06: the moat ring, the open squares adjacent to at least one castle
/// square: 20 squares under king adjacency, 16 under orthogonal adjacency
/// (b2, g2, b7 and g7 touch the castle only at a corner).
pub fn is_moat(sq: Square, adjacency: Adjacency) -> bool {
    is_open(sq) && adjacency.neighbours(sq).any(is_castle)
}

/// CS-14: how many of one side's units a square holds at most: 2 on a
/// castle square, 3 on an open square. Enemy units never count.
pub const fn stack_limit(sq: Square) -> usize {
    if is_castle(sq) { 2 } else { 3 }
}

/// A set of squares, bit `i` for the square with index `i` (a1 = 0).
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
pub struct SquareSet(u64);

impl SquareSet {
    /// No squares.
    pub const EMPTY: SquareSet = SquareSet(0);

    /// Whether `sq` is in the set.
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// The set plus `sq`.
    pub const fn with(self, sq: Square) -> SquareSet {
        SquareSet(self.0 | 1 << sq.index())
    }

    /// Number of squares.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The squares, a1 first.
    pub fn iter(self) -> impl Iterator<Item = Square> {
        Square::all().filter(move |sq| self.contains(*sq))
    }

    /// The squares of the board that satisfy `pred`.
    pub fn of(pred: impl Fn(Square) -> bool) -> SquareSet {
        Square::all().filter(|sq| pred(*sq)).collect()
    }
}

impl FromIterator<Square> for SquareSet {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> SquareSet {
        iter.into_iter().fold(SquareSet::EMPTY, SquareSet::with)
    }
}

impl fmt::Debug for SquareSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for SquareSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.iter().map(|s| s.to_string()).collect();
        f.write_str(&names.join(" "))
    }
}
