//! The board's geometry: squares (shared with the notation), bitboards, and
//! the neighbour tables that movement and spells are built from (KR-1).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

pub use yam_notation::khan::Square;

/// A set of squares, bit `i` for the square with index `i` (a1 = 0).
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);

    /// The set holding just `sq`.
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Whether `sq` is in the set.
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// The set plus `sq`.
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.index())
    }

    /// The set minus `sq`.
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of squares.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest square, if any.
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Square::from_index(self.0.trailing_zeros() as u8)
        }
    }

    /// The only square, if the set has exactly one.
    pub const fn single(self) -> Option<Square> {
        // Not `count_ones() == 1`: without the popcnt instruction (the
        // default x86-64 target) that is a dozen instructions, and the
        // royal test asks this for every checked move.
        if self.0 != 0 && self.0 & (self.0 - 1) == 0 {
            self.first()
        } else {
            None
        }
    }

    /// Whether the set has more than `n` squares, for `n` of 0, 1 or 2
    /// (each lowest square cleared in turn; no population count).
    pub const fn more_than(self, n: u32) -> bool {
        let mut b = self.0;
        let mut i = 0;
        while i < n {
            b &= b.wrapping_sub(1);
            i += 1;
        }
        b != 0
    }

    /// The squares, a1 first.
    pub const fn iter(self) -> Squares {
        Squares(self.0)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;
    fn into_iter(self) -> Squares {
        Squares(self.0)
    }
}

/// Iterator over the squares of a [`Bitboard`], a1 first.
#[derive(Debug, Clone)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Square::from_index(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 | o.0)
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 & o.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl BitOrAssign for Bitboard {
    fn bitor_assign(&mut self, o: Bitboard) {
        self.0 |= o.0;
    }
}

impl BitAndAssign for Bitboard {
    fn bitand_assign(&mut self, o: Bitboard) {
        self.0 &= o.0;
    }
}

/// The eight king directions, orthogonal ones first.
pub(crate) const DIRECTIONS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// The four orthogonal directions.
pub(crate) const ORTHOGONAL: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

const fn neighbour_table(first_dir: usize, last_dir: usize) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut i = 0;
    while i < 64 {
        let f = (i % 8) as i8;
        let r = (i / 8) as i8;
        let mut d = first_dir;
        let mut bits = 0u64;
        while d < last_dir {
            let (df, dr) = DIRECTIONS[d];
            let (nf, nr) = (f + df, r + dr);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                bits |= 1 << (nr * 8 + nf);
            }
            d += 1;
        }
        table[i] = Bitboard(bits);
        i += 1;
    }
    table
}

/// The squares up to `n` steps along each direction in
/// `first_dir..last_dir`, whatever stands between (blocking ignored).
const fn ray_table(first_dir: usize, last_dir: usize, n: i8) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut i = 0;
    while i < 64 {
        let f = (i % 8) as i8;
        let r = (i / 8) as i8;
        let mut d = first_dir;
        let mut bits = 0u64;
        while d < last_dir {
            let (df, dr) = DIRECTIONS[d];
            let mut k = 1;
            while k <= n {
                let (nf, nr) = (f + df * k, r + dr * k);
                if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                    bits |= 1 << (nr * 8 + nf);
                }
                k += 1;
            }
            d += 1;
        }
        table[i] = Bitboard(bits);
        i += 1;
    }
    table
}

/// Every square within king distance two, the square itself left out: all
/// that one or two king steps can reach (KR-3.6).
const fn near2_table() -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut i = 0;
    while i < 64 {
        let f = (i % 8) as i8;
        let r = (i / 8) as i8;
        let mut bits = 0u64;
        let mut df = -2;
        while df <= 2 {
            let mut dr = -2;
            while dr <= 2 {
                let (nf, nr) = (f + df, r + dr);
                if (df != 0 || dr != 0) && nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                    bits |= 1 << (nr * 8 + nf);
                }
                dr += 1;
            }
            df += 1;
        }
        table[i] = Bitboard(bits);
        i += 1;
    }
    table
}

/// Squares within king distance two (the square itself left out).
pub(crate) static NEAR2: [Bitboard; 64] = near2_table();
/// Squares up to two steps away along the four orthogonal lines.
pub(crate) static ORTHO_LINES2: [Bitboard; 64] = ray_table(0, 4, 2);
/// Squares up to three steps away along the four orthogonal lines.
pub(crate) static ORTHO_LINES3: [Bitboard; 64] = ray_table(0, 4, 3);
/// Squares up to three steps away along all eight lines.
pub(crate) static LINES3: [Bitboard; 64] = ray_table(0, 8, 3);
/// [`NEAR2`] and [`LINES3`] together: every square a piece standing on it
/// could reach in one move (KR-3), so the attack lookup's first test is one
/// load, not two and an OR.
pub(crate) static REACH: [Bitboard; 64] = {
    let (near, lines) = (near2_table(), ray_table(0, 8, 3));
    let mut table = [Bitboard::EMPTY; 64];
    let mut i = 0;
    while i < 64 {
        table[i] = Bitboard(near[i].0 | lines[i].0);
        i += 1;
    }
    table
};

/// The up-to-eight squares one king step away.
pub(crate) static KING: [Bitboard; 64] = neighbour_table(0, 8);
/// The up-to-four squares one orthogonal step away.
pub(crate) static ORTHO: [Bitboard; 64] = neighbour_table(0, 4);
/// The up-to-four squares one diagonal step away.
pub(crate) static DIAG: [Bitboard; 64] = neighbour_table(4, 8);

/// Every square within king distance `r` of `sq` (`sq` included).
pub fn within(sq: Square, r: u8) -> Bitboard {
    let r = r.min(7);
    let (f, k) = (sq.file(), sq.rank());
    let (f0, f1) = (f.saturating_sub(r), (f + r).min(7));
    let (k0, k1) = (k.saturating_sub(r), (k + r).min(7));
    // One rank's worth of files f0..=f1, then repeated over ranks k0..=k1.
    let row: u64 = ((1u64 << (f1 - f0 + 1)) - 1) << f0;
    let mut bits = 0u64;
    let mut rank = k0;
    while rank <= k1 {
        bits |= row << (rank * 8);
        rank += 1;
    }
    Bitboard(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A square is read back from a tip only on the board: the `tip` fuzz
    /// target found a stored captive's square of 200, which made a
    /// bitboard shift by 200 (a panic where overflow is checked, a wrong
    /// board where it is not).
    #[test]
    fn a_stored_square_off_the_board_is_refused() {
        for index in 0..=255u8 {
            let read = postcard::from_bytes::<Square>(&[index]);
            match Square::from_index(index) {
                Some(square) => assert_eq!(read.unwrap(), square),
                None => assert!(read.is_err(), "{index}"),
            }
        }
        let back: Square =
            postcard::from_bytes(&postcard::to_allocvec(&Square::H8).unwrap()).unwrap();
        assert_eq!(back, Square::H8);
    }

    #[test]
    fn single_and_more_than_agree_with_the_count() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut boards = vec![0, 1, 1 << 63, 3, 7, u64::MAX];
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Sparse sets too: most royal tests see one to three leaders.
            boards.push(x & x.rotate_left(17) & x.rotate_left(41));
            boards.push(x);
        }
        for b in boards.into_iter().map(Bitboard) {
            assert_eq!(b.single().is_some(), b.count() == 1, "{:#x}", b.0);
            assert_eq!(b.single(), (b.count() == 1).then(|| b.first()).flatten());
            for n in 0..3 {
                assert_eq!(b.more_than(n), b.count() > n, "{:#x} {n}", b.0);
            }
        }
    }

    #[test]
    fn neighbour_tables_have_the_right_sizes() {
        assert_eq!(KING[Square::A1.index()].count(), 3);
        assert_eq!(KING[Square::E4.index()].count(), 8);
        assert_eq!(ORTHO[Square::H8.index()].count(), 2);
        assert_eq!(DIAG[Square::E4.index()].count(), 4);
        assert!(DIAG[Square::E4.index()].contains(Square::D3));
        assert!(!DIAG[Square::E4.index()].contains(Square::E3));
    }

    #[test]
    fn the_line_and_box_tables_hold_what_they_say() {
        for sq in Square::all() {
            let i = sq.index();
            let near: Bitboard = Square::all()
                .filter(|o| *o != sq && o.distance(sq) <= 2)
                .collect();
            assert_eq!(NEAR2[i], near, "{sq}");
            let on_line = |o: &Square, orthogonal_only: bool, n: u8| {
                let df = i16::from(o.file()) - i16::from(sq.file());
                let dr = i16::from(o.rank()) - i16::from(sq.rank());
                let line = if orthogonal_only {
                    df == 0 || dr == 0
                } else {
                    df == 0 || dr == 0 || df.abs() == dr.abs()
                };
                *o != sq && line && o.distance(sq) <= n
            };
            let o2: Bitboard = Square::all().filter(|o| on_line(o, true, 2)).collect();
            let o3: Bitboard = Square::all().filter(|o| on_line(o, true, 3)).collect();
            let l3: Bitboard = Square::all().filter(|o| on_line(o, false, 3)).collect();
            assert_eq!(ORTHO_LINES2[i], o2, "{sq}");
            assert_eq!(ORTHO_LINES3[i], o3, "{sq}");
            assert_eq!(LINES3[i], l3, "{sq}");
            assert_eq!(REACH[i], near | l3, "{sq}");
        }
    }

    #[test]
    fn within_is_the_king_distance_box() {
        for sq in Square::all() {
            for r in 0..8 {
                let expected: Bitboard = Square::all().filter(|o| o.distance(sq) <= r).collect();
                assert_eq!(within(sq, r), expected, "{sq} {r}");
            }
        }
    }
}
