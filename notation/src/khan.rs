//! Khan: squares, piece letters, move tokens, the innersky engine's forms and
//! Yam's own position format, as text. Syntax only: whether a move is legal,
//! and what it does, is the referee's business (`yam_referee::khan`).
//!
//! # Move tokens
//!
//! A Yam Khan move token names the piece, where it stands, what it does and
//! where it does it. Every kind of move has its own mark, so a record never
//! depends on inference:
//!
//! ```text
//! token     = piece from action to [promotion]
//! piece     = K | J | I | F | W | A | S | N | M | H | G      (the kind; the side is whose turn it is)
//! from, to  = square, a1 .. h8
//! action    = "-"   move to an empty square (a walk into a manned tower square too)
//!           | "x"   capture the enemy piece on `to`
//!           | "*"   cast a spell at `to` (an enemy piece, or an empty manned tower square)
//!           | "<>"  exchange with the friendly piece on `to` (receiver `from`, giver `to`)
//!           | ">"   transfer the captive carried on `from` to the friendly piece on `to`
//! promotion = "=" piece    what the mover becomes; written exactly when it is promoted
//! ```
//!
//! Examples: `Wg4-f5`, `Wg4xf5`, `Hf5*h5` (a spell), `Je2<>f1` (exchange),
//! `Ae2>d1` (transfer), `Sb5-b7=W` (base promotion), `Sa2xb2=A` (capture
//! promotion). Pick-ups, drop-offs, releases and tower deaths are
//! consequences of the position and are not marked; the referee reports them.
//!
//! Reading is lenient about case (`wG4-F5` reads as `Wg4-f5`, `X` as `x`);
//! printing is canonical: upper-case piece letters, lower-case squares.
//! No token starts with a digit, `*`, `+` or `-`, and none contains
//! whitespace, `{ } ( ) [ ] $ ;`, `!` or `?`: every token starts with a piece
//! letter and uses only letters, digits and `- x * < > =`.
//!
//! # The engine's forms
//!
//! * [`EngineFen`]: `wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1`
//!   (board, side, plies since the last capture, move number).
//! * [`EngineMove`]: a from-to string such as `g4f5`. It does not say what kind
//!   of move it is; the referee infers it (see `docs/rules/khan.md`, KR-N,
//!   "The engine's forms", for the cases where two moves share one string).
//! * [`EnginePosition`]: the protocol's `position fen ... startpos moves ...` line.
//!
//! # Yam's position format
//!
//! [`YamPosition`]: the engine FEN followed by the siege state, each field
//! present only when not empty, in this order:
//!
//! ```text
//! towers=h5h6h7:wk,a2a3a4:bk    towers (squares, then the captive it still holds)
//! manned=h5h6h7a2a4             tower squares still manned (the rest are silenced)
//! gers=a1:w,h8:b                healing gers and whose they are
//! carried=e2:wk                 captives carried, by the piece on that square
//! waiting=a1:wk                 captives dropped off, waiting for their ger to empty
//! delivered=w                   the general has been delivered by that side
//! ```
//!
//! Captives: `wk` White's khan, `bk` Black's khan, `gen` the general.
//!
//! The rules behind these forms are in `docs/rules/khan.md`, section KR-N.

use std::fmt;
use std::str::FromStr;

use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::tag,
    character::complete::{char, satisfy},
    combinator::{opt, value},
};

use crate::grammar::{MoveGrammar, TokenError};
use crate::visitor::PlainToken;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------
// Squares

/// One of the 64 squares, a1 = 0, b1 = 1, ..., h8 = 63.
///
/// Read back (a tip's stored positions) only from an index below 64: the
/// bitboards shift by it, and a stored byte of 64 or more (a damaged or
/// crafted cache) is refused as data, not a shift past the board.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8")]
pub struct Square(u8);

impl TryFrom<u8> for Square {
    type Error = SquareOffBoard;

    fn try_from(index: u8) -> Result<Square, SquareOffBoard> {
        Square::from_index(index).ok_or(SquareOffBoard(index))
    }
}

/// A square index of 64 or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquareOffBoard(pub u8);

impl fmt::Display for SquareOffBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "square index {} is off the board (0 to 63)", self.0)
    }
}

macro_rules! squares {
    ($($name:ident = $idx:expr),* $(,)?) => {
        impl Square {
            $(
                #[allow(missing_docs)]
                pub const $name: Square = Square($idx);
            )*
        }
    };
}

squares! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4, F1 = 5, G1 = 6, H1 = 7,
    A2 = 8, B2 = 9, C2 = 10, D2 = 11, E2 = 12, F2 = 13, G2 = 14, H2 = 15,
    A3 = 16, B3 = 17, C3 = 18, D3 = 19, E3 = 20, F3 = 21, G3 = 22, H3 = 23,
    A4 = 24, B4 = 25, C4 = 26, D4 = 27, E4 = 28, F4 = 29, G4 = 30, H4 = 31,
    A5 = 32, B5 = 33, C5 = 34, D5 = 35, E5 = 36, F5 = 37, G5 = 38, H5 = 39,
    A6 = 40, B6 = 41, C6 = 42, D6 = 43, E6 = 44, F6 = 45, G6 = 46, H6 = 47,
    A7 = 48, B7 = 49, C7 = 50, D7 = 51, E7 = 52, F7 = 53, G7 = 54, H7 = 55,
    A8 = 56, B8 = 57, C8 = 58, D8 = 59, E8 = 60, F8 = 61, G8 = 62, H8 = 63,
}

impl Square {
    /// The square on `file` (0 = a) and `rank` (0 = rank 1), if both are on the board.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// The square with index `index` (a1 = 0 .. h8 = 63).
    pub const fn from_index(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// Index a1 = 0 .. h8 = 63.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File, 0 = a .. 7 = h.
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// Rank, 0 = rank 1 .. 7 = rank 8.
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            Some(Square((r * 8 + f) as u8))
        } else {
            None
        }
    }

    /// King distance (the number of king steps between two squares on an empty board).
    pub const fn distance(self, other: Square) -> u8 {
        let df = self.file().abs_diff(other.file());
        let dr = self.rank().abs_diff(other.rank());
        if df > dr { df } else { dr }
    }

    /// All 64 squares, a1 first.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0u8..64).map(Square)
    }

    /// The file letter, `a`..`h`.
    pub const fn file_char(self) -> char {
        (b'a' + self.file()) as char
    }

    /// The rank digit, `1`..`8`.
    pub const fn rank_char(self) -> char {
        (b'1' + self.rank()) as char
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), self.rank_char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a piece of Khan text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: expected {expected}")]
pub struct KhanSyntaxError {
    /// Byte offset in the text where reading gave up.
    pub offset: usize,
    /// What was expected there, in words.
    pub expected: String,
}

impl KhanSyntaxError {
    fn new(offset: usize, expected: impl Into<String>) -> Self {
        KhanSyntaxError {
            offset,
            expected: expected.into(),
        }
    }
}

impl FromStr for Square {
    type Err = KhanSyntaxError;

    fn from_str(s: &str) -> Result<Square, KhanSyntaxError> {
        match square(s) {
            Ok(("", sq)) => Ok(sq),
            Ok((rest, _)) => Err(KhanSyntaxError::new(
                s.len() - rest.len(),
                "the end of the square",
            )),
            Err(_) => Err(KhanSyntaxError::new(0, "a square such as e4")),
        }
    }
}

/// A square, either case (`e4`, `E4`).
pub fn square(input: &str) -> IResult<&str, Square> {
    (
        satisfy(|c| matches!(c, 'a'..='h' | 'A'..='H')),
        satisfy(|c| matches!(c, '1'..='8')),
    )
        .map(|(f, r)| {
            let file = (f.to_ascii_lowercase() as u8) - b'a';
            let rank = (r as u8) - b'1';
            Square(rank * 8 + file)
        })
        .parse(input)
}

// ---------------------------------------------------------------------------
// Sides and pieces

/// A tribe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Side {
    /// Moves first; upper-case letters.
    White,
    /// Lower-case letters.
    Black,
}

impl Side {
    /// Both sides, White first.
    pub const BOTH: [Side; 2] = [Side::White, Side::Black];

    /// The other side.
    pub const fn opposite(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// 0 for White, 1 for Black.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `w` or `b`, as in the FEN.
    pub const fn letter(self) -> char {
        match self {
            Side::White => 'w',
            Side::Black => 'b',
        }
    }

    /// "White" or "Black".
    pub const fn name(self) -> &'static str {
        match self {
            Side::White => "White",
            Side::Black => "Black",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The eleven kinds of piece, by their engine letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// K, the khan: main leader.
    Khan,
    /// J, the khan archer: a khan demoted once.
    KhanArcher,
    /// I, the khan sword: a khan demoted twice.
    KhanSword,
    /// F, the (first) bondsman: the backup leader.
    Bondsman,
    /// W, the warrior (mounted bowman).
    Warrior,
    /// A, the archer.
    Archer,
    /// S, the swordsman.
    Swordsman,
    /// N, the assassin.
    Assassin,
    /// M, the magician.
    Magician,
    /// H, the power magician.
    PowerMagician,
    /// G, the demoted (lesser) magician.
    DemotedMagician,
}

impl Kind {
    /// All eleven kinds, in the order of their indices.
    pub const ALL: [Kind; 11] = [
        Kind::Khan,
        Kind::KhanArcher,
        Kind::KhanSword,
        Kind::Bondsman,
        Kind::Warrior,
        Kind::Archer,
        Kind::Swordsman,
        Kind::Assassin,
        Kind::Magician,
        Kind::PowerMagician,
        Kind::DemotedMagician,
    ];

    /// 0..11, the position in [`Kind::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The upper-case engine letter.
    pub const fn letter(self) -> char {
        match self {
            Kind::Khan => 'K',
            Kind::KhanArcher => 'J',
            Kind::KhanSword => 'I',
            Kind::Bondsman => 'F',
            Kind::Warrior => 'W',
            Kind::Archer => 'A',
            Kind::Swordsman => 'S',
            Kind::Assassin => 'N',
            Kind::Magician => 'M',
            Kind::PowerMagician => 'H',
            Kind::DemotedMagician => 'G',
        }
    }

    /// The kind for a letter, either case.
    pub const fn from_letter(c: char) -> Option<Kind> {
        Some(match c.to_ascii_uppercase() {
            'K' => Kind::Khan,
            'J' => Kind::KhanArcher,
            'I' => Kind::KhanSword,
            'F' => Kind::Bondsman,
            'W' => Kind::Warrior,
            'A' => Kind::Archer,
            'S' => Kind::Swordsman,
            'N' => Kind::Assassin,
            'M' => Kind::Magician,
            'H' => Kind::PowerMagician,
            'G' => Kind::DemotedMagician,
            _ => return None,
        })
    }

    /// The piece's name in words ("khan archer").
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Khan => "khan",
            Kind::KhanArcher => "khan archer",
            Kind::KhanSword => "khan sword",
            Kind::Bondsman => "bondsman",
            Kind::Warrior => "warrior",
            Kind::Archer => "archer",
            Kind::Swordsman => "swordsman",
            Kind::Assassin => "assassin",
            Kind::Magician => "magician",
            Kind::PowerMagician => "power magician",
            Kind::DemotedMagician => "demoted magician",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece: a kind and a side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Piece {
    /// Whose piece it is.
    pub side: Side,
    /// What it is.
    pub kind: Kind,
}

impl Piece {
    /// A piece of `side` and `kind`.
    pub const fn new(side: Side, kind: Kind) -> Piece {
        Piece { side, kind }
    }

    /// The FEN letter: upper case for White, lower case for Black.
    pub const fn fen_char(self) -> char {
        let c = self.kind.letter();
        match self.side {
            Side::White => c,
            Side::Black => c.to_ascii_lowercase(),
        }
    }

    /// The piece for a FEN letter.
    pub const fn from_fen_char(c: char) -> Option<Piece> {
        let side = if c.is_ascii_uppercase() {
            Side::White
        } else {
            Side::Black
        };
        match Kind::from_letter(c) {
            Some(kind) => Some(Piece { side, kind }),
            None => None,
        }
    }
}

impl fmt::Display for Piece {
    /// "the white archer" style is left to callers; this prints "white archer".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Side::White => "white",
            Side::Black => "black",
        };
        write!(f, "{side} {}", self.kind.name())
    }
}

/// [`Kind::from_letter`] by byte: one load where the replay reads millions
/// of piece letters (`None` for every byte that is no letter of a kind).
const PIECE_LETTERS: [Option<Kind>; 256] = {
    let mut table = [None; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = Kind::from_letter(b as u8 as char);
        b += 1;
    }
    table
};

/// A square as a plain token writes it, file then rank. Off the board, or
/// not a file or rank: 8 or more. `| 0x20` folds only `A`..=`H` onto
/// `a`..=`h` among the bytes it maps there.
#[inline(always)]
fn plain_square(f: u8, r: u8) -> Option<Square> {
    let file = (f | 0x20).wrapping_sub(b'a');
    let rank = r.wrapping_sub(b'1');
    (file < 8 && rank < 8).then(|| Square(rank * 8 + file))
}

/// The one-byte move marks by byte (`<>` is read on its own).
const ONE_BYTE_MARKS: [Option<Action>; 256] = {
    let mut table = [None; 256];
    table[b'-' as usize] = Some(Action::Move);
    table[b'x' as usize] = Some(Action::Capture);
    table[b'X' as usize] = Some(Action::Capture);
    table[b'*' as usize] = Some(Action::Spell);
    table[b'>' as usize] = Some(Action::Transfer);
    table
};

// ---------------------------------------------------------------------------
// Move tokens

/// What a move token says the piece does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// `-`: move to an empty square.
    Move,
    /// `x`: capture the enemy piece on the target square.
    Capture,
    /// `*`: cast a spell at the target square.
    Spell,
    /// `<>`: exchange with the friendly piece on the target square.
    Exchange,
    /// `>`: pass the carried captive to the friendly piece on the target square.
    Transfer,
}

impl Action {
    /// The mark printed between the squares.
    pub const fn mark(self) -> &'static str {
        match self {
            Action::Move => "-",
            Action::Capture => "x",
            Action::Spell => "*",
            Action::Exchange => "<>",
            Action::Transfer => ">",
        }
    }
}

/// A Khan move as written: syntax only, not yet checked against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveToken {
    /// The kind of the piece that acts (its side is whose turn it is).
    pub piece: Kind,
    /// Where it stands.
    pub from: Square,
    /// What it does.
    pub action: Action,
    /// Where it does it.
    pub to: Square,
    /// What the mover becomes, when the move promotes it (only after `-` or `x`).
    pub promotion: Option<Kind>,
}

impl MoveToken {
    /// Read a whole token.
    pub fn parse(token: &str) -> Result<MoveToken, TokenError> {
        // Nearly every token has the plain shape, read here byte by byte (a
        // replay reads millions); anything else, and so every error with
        // its message and column, goes through the grammar.
        match MoveToken::parse_plain(token) {
            Some(t) => Ok(t),
            None => MoveToken::parse_grammar(token),
        }
    }

    /// The plain shape: piece, square, mark, square, then `=piece` or nothing.
    /// `None` for anything else, valid or not. Accepts exactly what
    /// [`MoveToken::parse`] accepts for these shapes, with the same value.
    ///
    /// For a caller that reads millions of tokens and keeps the answer in
    /// registers (a replay): [`MoveToken::parse`] returns a `Result` whose
    /// error is large, so its answer goes through memory.
    #[inline]
    pub fn parse_plain(token: &str) -> Option<MoveToken> {
        let square = plain_square;
        // The commonest shape first, in a straight line: six bytes, a
        // one-byte mark, no promotion.
        if let &[p, f1, r1, mark, f2, r2] = token.as_bytes() {
            return Some(MoveToken {
                piece: PIECE_LETTERS[usize::from(p)]?,
                from: square(f1, r1)?,
                action: ONE_BYTE_MARKS[usize::from(mark)]?,
                to: square(f2, r2)?,
                promotion: None,
            });
        }
        let [p, f1, r1, mark, rest @ ..] = token.as_bytes() else {
            return None;
        };
        let piece = PIECE_LETTERS[usize::from(*p)]?;
        let from = square(*f1, *r1)?;
        let (action, rest) = match (mark, rest) {
            (b'<', [b'>', rest @ ..]) => (Action::Exchange, rest),
            (mark, rest) => (ONE_BYTE_MARKS[usize::from(*mark)]?, rest),
        };
        let [f2, r2, rest @ ..] = rest else {
            return None;
        };
        let to = square(*f2, *r2)?;
        let promotion = match rest {
            [] => None,
            [b'=', k] if matches!(action, Action::Move | Action::Capture) => {
                Some(PIECE_LETTERS[usize::from(*k)]?)
            }
            _ => return None,
        };
        Some(MoveToken {
            piece,
            from,
            action,
            to,
            promotion,
        })
    }

    /// [`MoveToken::parse_plain`] of a token the reader's quick path read,
    /// its commonest shape (six bytes) taken from the word it holds rather
    /// than from memory: the same answer for every token.
    #[inline]
    pub fn parse_plain_word(token: PlainToken<'_>) -> Option<MoveToken> {
        if token.len() != 6 {
            return MoveToken::parse_plain(token.text());
        }
        // Its six bytes as read, what follows them unused.
        let word = token.raw_word();
        let [p, _, _, mark, _, _, _, _] = word.to_le_bytes();
        // The four bytes of the two squares side by side (file, rank,
        // file, rank), the files folded to lower case as `plain_square`
        // folds them. Every byte is ASCII, so adding 7 to each carries
        // into none, and a file `a`..=`h` becomes 0x68..=0x6f and a rank
        // `1`..=`8` 0x38..=0x3f: each is valid exactly when its top five
        // bits say so, and its low three bits are then its file or rank.
        let squares = ((word >> 8) as u32 & 0xffff) | ((word >> 16) as u32 & 0xffff_0000);
        let squares = (squares | 0x0020_0020) + 0x0707_0707;
        if squares & 0xf8f8_f8f8 != 0x3868_3868 {
            return None;
        }
        let from = (squares & 7) | ((squares >> 5) & 0x38);
        let to = ((squares >> 16) & 7) | ((squares >> 21) & 0x38);
        Some(MoveToken {
            piece: PIECE_LETTERS[usize::from(p)]?,
            from: Square(from as u8),
            action: ONE_BYTE_MARKS[usize::from(mark)]?,
            to: Square(to as u8),
            promotion: None,
        })
    }

    /// The token's grammar, with the error of the first thing that is wrong.
    fn parse_grammar(token: &str) -> Result<MoveToken, TokenError> {
        let at = |rest: &str| token.len() - rest.len();
        let (rest, piece) = piece_letter(token)
            .map_err(|_| TokenError::new(0, "a piece letter (K J I F W A S N M H G)"))?;
        let (rest, from) =
            square(rest).map_err(|_| TokenError::new(at(rest), "a square such as e4"))?;
        let (rest, action) = action(rest).map_err(|_| {
            TokenError::new(
                at(rest),
                "a move mark: - (move), x (capture), * (spell), <> (exchange) or > (transfer)",
            )
        })?;
        let (rest, to) =
            square(rest).map_err(|_| TokenError::new(at(rest), "a square such as e4"))?;
        let (rest, promotion) = match action {
            Action::Move | Action::Capture => {
                let r: IResult<&str, Option<char>> = opt(char('=')).parse(rest);
                match r {
                    Ok((after, Some(_))) => {
                        let (after2, kind) = piece_letter(after).map_err(|_| {
                            TokenError::new(at(after), "the piece letter it is promoted to")
                        })?;
                        (after2, Some(kind))
                    }
                    _ => (rest, None),
                }
            }
            _ => (rest, None),
        };
        if !rest.is_empty() {
            let expected = match action {
                Action::Move | Action::Capture => "the end of the move or =piece (a promotion)",
                _ => "the end of the move (only moves and captures promote)",
            };
            return Err(TokenError::new(at(rest), expected));
        }
        Ok(MoveToken {
            piece,
            from,
            action,
            to,
            promotion,
        })
    }

    /// Append the canonical text.
    pub fn write(&self, out: &mut String) {
        out.push(self.piece.letter());
        push_square(out, self.from);
        out.push_str(self.action.mark());
        push_square(out, self.to);
        if let Some(p) = self.promotion {
            out.push('=');
            out.push(p.letter());
        }
    }
}

impl fmt::Display for MoveToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(10);
        self.write(&mut s);
        f.write_str(&s)
    }
}

impl FromStr for MoveToken {
    type Err = TokenError;
    fn from_str(s: &str) -> Result<MoveToken, TokenError> {
        MoveToken::parse(s)
    }
}

fn push_square(out: &mut String, sq: Square) {
    out.push(sq.file_char());
    out.push(sq.rank_char());
}

fn piece_letter(input: &str) -> IResult<&str, Kind> {
    satisfy(|c| Kind::from_letter(c).is_some())
        .map(|c| Kind::from_letter(c).unwrap_or(Kind::Khan))
        .parse(input)
}

fn action(input: &str) -> IResult<&str, Action> {
    alt((
        value(Action::Exchange, tag("<>")),
        value(Action::Move, char('-')),
        value(Action::Capture, satisfy(|c| c == 'x' || c == 'X')),
        value(Action::Spell, char('*')),
        value(Action::Transfer, char('>')),
    ))
    .parse(input)
}

/// Khan's move-token grammar for the record envelope.
#[derive(Debug, Clone, Copy, Default)]
pub struct KhanGrammar;

impl MoveGrammar for KhanGrammar {
    type Move = MoveToken;
    const GAME: &'static str = "Khan";

    fn parse_move(token: &str) -> Result<MoveToken, TokenError> {
        MoveToken::parse(token)
    }

    fn write_move(mv: &MoveToken, out: &mut String) {
        mv.write(out)
    }
}

// ---------------------------------------------------------------------------
// The engine's from-to move strings

/// An innersky engine move string such as `g4f5`: two squares, nothing else.
///
/// It does not say whether the move is a step, a capture, a spell, an exchange
/// or a transfer; the referee infers that from the position (KR-P1). Yam also
/// reads and writes one extension the engine does not know: the long form's
/// mark between the squares (`e4*e5`, `e2<>f1`), which names the kind of move
/// where the bare string would be read as another move (see "The engine's
/// forms" in `docs/rules/khan.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EngineMove {
    /// The square the piece stands on.
    pub from: Square,
    /// The other square.
    pub to: Square,
    /// The kind of move, when the Yam extension's mark is written.
    pub action: Option<Action>,
}

impl EngineMove {
    /// The engine's bare string, no mark.
    pub const fn plain(from: Square, to: Square) -> EngineMove {
        EngineMove {
            from,
            to,
            action: None,
        }
    }
}

impl FromStr for EngineMove {
    type Err = KhanSyntaxError;
    fn from_str(s: &str) -> Result<EngineMove, KhanSyntaxError> {
        let (rest, from) = square(s).map_err(|_| KhanSyntaxError::new(0, "a square such as g4"))?;
        // The optional mark is Yam's extension; `x` only in lower case, as
        // the long form prints it, so that a mark never looks like a file.
        let (rest, action) = match action(rest) {
            Ok((r, a)) if !rest.starts_with('X') => (r, Some(a)),
            _ => (rest, None),
        };
        let (rest, to) = square(rest).map_err(|_| {
            KhanSyntaxError::new(
                s.len() - rest.len(),
                "a square such as f5 (or a mark -, x, *, <>, > and a square)",
            )
        })?;
        if !rest.is_empty() {
            return Err(KhanSyntaxError::new(
                s.len() - rest.len(),
                "the end of the move string",
            ));
        }
        Ok(EngineMove { from, to, action })
    }
}

impl fmt::Display for EngineMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.action {
            None => write!(f, "{}{}", self.from, self.to),
            Some(a) => write!(f, "{}{}{}", self.from, a.mark(), self.to),
        }
    }
}

// ---------------------------------------------------------------------------
// The engine's position command

/// The engine protocol's position line,
/// `position fen <fen> [siege fields] [startpos] [moves <m1> <m2> ...]`, as
/// the innersky interface page shows it (`... w 0 1 startpos moves g4f5 a5a4
/// h4h5`; the `startpos` token after the FEN is the engine's own habit). A
/// game played against the engine can be read from it.
///
/// The siege fields (`towers=d4e4d5e5:gen manned=... gers=a1:w,h8:b`) are
/// Yam's extension, the fields of Yam's position format: the engine's own
/// "long version of the fen" for a custom siege setup is not documented, so
/// a siege position other than a standard start is written this way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnginePosition {
    /// The position the moves start from: the FEN, and the siege fields
    /// when the line has them (all empty when it has none).
    pub position: YamPosition,
    /// The moves played from it.
    pub moves: Vec<EngineMove>,
}

impl EnginePosition {
    /// A line from the engine FEN alone, no siege fields.
    pub fn from_fen(fen: EngineFen, moves: Vec<EngineMove>) -> EnginePosition {
        EnginePosition {
            position: YamPosition::from_fen(fen),
            moves,
        }
    }

    /// The engine FEN the moves start from.
    pub fn fen(&self) -> &EngineFen {
        &self.position.fen
    }

    /// Whether the line carries any siege field after the FEN.
    pub fn has_siege_fields(&self) -> bool {
        self.position != YamPosition::from_fen(self.position.fen.clone())
    }

    /// Read a position line.
    pub fn parse(s: &str) -> Result<EnginePosition, KhanSyntaxError> {
        let words: Vec<(usize, &str)> = s
            .split(' ')
            .scan(0usize, |at, w| {
                let start = *at;
                *at += w.len() + 1;
                Some((start, w))
            })
            .filter(|(_, w)| !w.is_empty())
            .collect();
        let mut i = 0;
        let expect = |word: &str, i: &mut usize| -> Result<(), KhanSyntaxError> {
            match words.get(*i) {
                Some((_, w)) if *w == word => {
                    *i += 1;
                    Ok(())
                }
                Some((at, w)) => Err(KhanSyntaxError::new(*at, format!("`{word}` (found `{w}`)"))),
                None => Err(KhanSyntaxError::new(s.len(), format!("`{word}`"))),
            }
        };
        expect("position", &mut i)?;
        expect("fen", &mut i)?;
        // The FEN is the next two to four words: board, side, and the
        // counters if present; then any siege fields, each `key=value`.
        let fen_start = words.get(i).map_or(s.len(), |(at, _)| *at);
        let mut j = i + 2;
        while j < words.len() && j < i + 4 && words[j].1.starts_with(|c: char| c.is_ascii_digit()) {
            j += 1;
        }
        while j < words.len() && words[j].1.contains('=') {
            j += 1;
        }
        let fen_end = words
            .get(j)
            .map_or(s.len(), |(at, _)| at.saturating_sub(1))
            .max(fen_start);
        let fen_text = s.get(fen_start..fen_end).unwrap_or("").trim_end();
        let position = YamPosition::parse(fen_text).map_err(|e| KhanSyntaxError {
            offset: fen_start + e.offset,
            expected: e.expected,
        })?;
        i = j;
        if words.get(i).is_some_and(|(_, w)| *w == "startpos") {
            i += 1;
        }
        let mut moves = Vec::new();
        if i < words.len() {
            expect("moves", &mut i)?;
            for &(at, w) in &words[i..] {
                moves.push(w.parse::<EngineMove>().map_err(|e| KhanSyntaxError {
                    offset: at + e.offset,
                    expected: e.expected,
                })?);
            }
        }
        Ok(EnginePosition { position, moves })
    }
}

impl fmt::Display for EnginePosition {
    /// The canonical line, with the engine's `startpos` token.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "position fen {} startpos", self.position)?;
        if !self.moves.is_empty() {
            f.write_str(" moves")?;
            for m in &self.moves {
                write!(f, " {m}")?;
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// The engine FEN

/// The innersky engine FEN: board, side to move, plies since the last capture,
/// move number. No castling or en-passant fields; the siege state is not in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineFen {
    /// The piece on each square, indexed a1 = 0 .. h8 = 63.
    pub board: [Option<Piece>; 64],
    /// Who moves next.
    pub side: Side,
    /// Plies since the last capture (or tower death, or captive death).
    pub halfmoves: u32,
    /// Move number, starting at 1.
    pub fullmoves: u32,
}

impl EngineFen {
    /// Read an engine FEN. The two counters may be left out (they then read as
    /// `0 1`); anything after them is refused.
    pub fn parse(s: &str) -> Result<EngineFen, KhanSyntaxError> {
        let mut p = FieldReader::new(s);
        let fen = p.fen()?;
        p.end()?;
        Ok(fen)
    }

    /// Append the canonical text.
    pub fn write(&self, out: &mut String) {
        for rank in (0..8u8).rev() {
            let mut empty = 0u8;
            for file in 0..8u8 {
                match self.board[usize::from(rank * 8 + file)] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        out.push(p.fen_char());
                    }
                }
            }
            if empty > 0 {
                out.push((b'0' + empty) as char);
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(self.side.letter());
        out.push(' ');
        out.push_str(&self.halfmoves.to_string());
        out.push(' ');
        out.push_str(&self.fullmoves.to_string());
    }
}

impl fmt::Display for EngineFen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(64);
        self.write(&mut s);
        f.write_str(&s)
    }
}

impl FromStr for EngineFen {
    type Err = KhanSyntaxError;
    fn from_str(s: &str) -> Result<EngineFen, KhanSyntaxError> {
        EngineFen::parse(s)
    }
}

// ---------------------------------------------------------------------------
// Yam's position format

/// A captive: a khan held by the enemy's Sung towers, or the general.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Captive {
    /// A side's khan; once released it is a khan of that side.
    Khan(Side),
    /// The general (Uryankhadai), nobody's piece; delivering him wins.
    General,
}

impl Captive {
    /// The position-format name: `wk`, `bk` or `gen`.
    pub const fn code(self) -> &'static str {
        match self {
            Captive::Khan(Side::White) => "wk",
            Captive::Khan(Side::Black) => "bk",
            Captive::General => "gen",
        }
    }

    /// The captive's name in words.
    pub const fn name(self) -> &'static str {
        match self {
            Captive::Khan(Side::White) => "White's khan",
            Captive::Khan(Side::Black) => "Black's khan",
            Captive::General => "the general",
        }
    }
}

impl fmt::Display for Captive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Captive {
    type Err = KhanSyntaxError;
    fn from_str(s: &str) -> Result<Captive, KhanSyntaxError> {
        match captive(s) {
            Ok(("", c)) => Ok(c),
            _ => Err(KhanSyntaxError::new(0, "a captive: wk, bk or gen")),
        }
    }
}

fn captive(input: &str) -> IResult<&str, Captive> {
    alt((
        value(Captive::Khan(Side::White), tag("wk")),
        value(Captive::Khan(Side::Black), tag("bk")),
        value(Captive::General, tag("gen")),
    ))
    .parse(input)
}

/// A tower as written: its squares and the captive it still holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TowerText {
    /// The tower's squares, in the order written.
    pub squares: Vec<Square>,
    /// The captive still inside, if any.
    pub captive: Option<Captive>,
}

/// Yam's own position text: the engine FEN plus the siege state. See the
/// module documentation for the fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamPosition {
    /// Board, side, counters.
    pub fen: EngineFen,
    /// Towers, in order.
    pub towers: Vec<TowerText>,
    /// Tower squares still manned.
    pub manned: Vec<Square>,
    /// Gers and their owners.
    pub gers: Vec<(Square, Side)>,
    /// Captives carried, by the piece on the square.
    pub carried: Vec<(Square, Captive)>,
    /// Captives waiting at a ger for it to empty.
    pub waiting: Vec<(Square, Captive)>,
    /// The side that delivered the general, if one has.
    pub delivered: Option<Side>,
}

impl YamPosition {
    /// A position with no siege state.
    pub fn from_fen(fen: EngineFen) -> YamPosition {
        YamPosition {
            fen,
            towers: Vec::new(),
            manned: Vec::new(),
            gers: Vec::new(),
            carried: Vec::new(),
            waiting: Vec::new(),
            delivered: None,
        }
    }

    /// Read a position. Fields after the FEN must come in the documented
    /// order, each at most once.
    pub fn parse(s: &str) -> Result<YamPosition, KhanSyntaxError> {
        let mut p = FieldReader::new(s);
        let fen = p.fen()?;
        let mut pos = YamPosition::from_fen(fen);
        const KEYS: [&str; 6] = [
            "towers",
            "manned",
            "gers",
            "carried",
            "waiting",
            "delivered",
        ];
        let mut next_key = 0;
        while let Some((start, field)) = p.next_field() {
            let Some((key, val)) = field.split_once('=') else {
                return Err(KhanSyntaxError::new(
                    start,
                    "a siege field such as towers=h5h6h7:wk",
                ));
            };
            let Some(k) = KEYS.iter().position(|k| *k == key) else {
                return Err(KhanSyntaxError::new(
                    start,
                    "one of towers=, manned=, gers=, carried=, waiting=, delivered=",
                ));
            };
            if k < next_key {
                return Err(KhanSyntaxError::new(
                    start,
                    format!(
                        "fields in the order towers, manned, gers, carried, waiting, delivered, each once (not {key} here)"
                    ),
                ));
            }
            next_key = k + 1;
            let vstart = start + key.len() + 1;
            match k {
                0 => pos.towers = list(val, vstart, tower_text)?,
                1 => pos.manned = square_run(val, vstart)?,
                2 => pos.gers = list(val, vstart, ger)?,
                3 => pos.carried = list(val, vstart, square_captive)?,
                4 => pos.waiting = list(val, vstart, square_captive)?,
                _ => {
                    pos.delivered = Some(match val {
                        "w" => Side::White,
                        "b" => Side::Black,
                        _ => return Err(KhanSyntaxError::new(vstart, "w or b")),
                    })
                }
            }
        }
        Ok(pos)
    }

    /// Append the canonical text.
    pub fn write(&self, out: &mut String) {
        self.fen.write(out);
        if !self.towers.is_empty() {
            out.push_str(" towers=");
            for (i, t) in self.towers.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                for &sq in &t.squares {
                    push_square(out, sq);
                }
                if let Some(c) = t.captive {
                    out.push(':');
                    out.push_str(c.code());
                }
            }
        }
        if !self.manned.is_empty() {
            out.push_str(" manned=");
            for &sq in &self.manned {
                push_square(out, sq);
            }
        }
        if !self.gers.is_empty() {
            out.push_str(" gers=");
            for (i, (sq, side)) in self.gers.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_square(out, *sq);
                out.push(':');
                out.push(side.letter());
            }
        }
        for (key, items) in [(" carried=", &self.carried), (" waiting=", &self.waiting)] {
            if !items.is_empty() {
                out.push_str(key);
                for (i, (sq, c)) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_square(out, *sq);
                    out.push(':');
                    out.push_str(c.code());
                }
            }
        }
        if let Some(side) = self.delivered {
            out.push_str(" delivered=");
            out.push(side.letter());
        }
    }
}

impl fmt::Display for YamPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(128);
        self.write(&mut s);
        f.write_str(&s)
    }
}

impl FromStr for YamPosition {
    type Err = KhanSyntaxError;
    fn from_str(s: &str) -> Result<YamPosition, KhanSyntaxError> {
        YamPosition::parse(s)
    }
}

/// A comma-separated list, each item read by `item` and wholly consumed.
fn list<T>(
    val: &str,
    start: usize,
    item: fn(&str, usize) -> Result<T, KhanSyntaxError>,
) -> Result<Vec<T>, KhanSyntaxError> {
    let mut out = Vec::new();
    let mut offset = start;
    for part in val.split(',') {
        out.push(item(part, offset)?);
        offset += part.len() + 1;
    }
    Ok(out)
}

/// One or more squares written together (`h5h6h7`).
fn square_run(s: &str, start: usize) -> Result<Vec<Square>, KhanSyntaxError> {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        match square(rest) {
            Ok((r, sq)) => {
                out.push(sq);
                rest = r;
            }
            Err(_) => {
                return Err(KhanSyntaxError::new(
                    start + s.len() - rest.len(),
                    "a square such as h5",
                ));
            }
        }
        if rest.is_empty() {
            return Ok(out);
        }
    }
}

fn tower_text(s: &str, start: usize) -> Result<TowerText, KhanSyntaxError> {
    let (sqs, cap) = match s.split_once(':') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let squares = square_run(sqs, start)?;
    let captive = match cap {
        None => None,
        Some(c) => Some(
            c.parse::<Captive>()
                .map_err(|e| KhanSyntaxError::new(start + sqs.len() + 1, e.expected))?,
        ),
    };
    Ok(TowerText { squares, captive })
}

fn ger(s: &str, start: usize) -> Result<(Square, Side), KhanSyntaxError> {
    let (sq, rest) = match square(s) {
        Ok(ok) => (ok.1, ok.0),
        Err(_) => return Err(KhanSyntaxError::new(start, "a ger square such as a1")),
    };
    match rest {
        ":w" => Ok((sq, Side::White)),
        ":b" => Ok((sq, Side::Black)),
        _ => Err(KhanSyntaxError::new(
            start + 2,
            ":w or :b (whose ger it is)",
        )),
    }
}

fn square_captive(s: &str, start: usize) -> Result<(Square, Captive), KhanSyntaxError> {
    let (rest, sq) = square(s).map_err(|_| KhanSyntaxError::new(start, "a square such as e2"))?;
    let Some(code) = rest.strip_prefix(':') else {
        return Err(KhanSyntaxError::new(
            start + 2,
            ": and a captive (wk, bk, gen)",
        ));
    };
    let c = code
        .parse::<Captive>()
        .map_err(|e| KhanSyntaxError::new(start + 3, e.expected))?;
    Ok((sq, c))
}

/// Splits a position line into space-separated fields, tracking offsets.
struct FieldReader<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> FieldReader<'a> {
    fn new(text: &'a str) -> Self {
        FieldReader { text, pos: 0 }
    }

    /// The next field and its offset; fields are separated by single spaces.
    fn next_field(&mut self) -> Option<(usize, &'a str)> {
        if self.pos >= self.text.len() {
            return None;
        }
        let start = self.pos;
        let rest = &self.text[start..];
        let len = rest.find(' ').unwrap_or(rest.len());
        self.pos = start + len + 1;
        Some((start, &rest[..len]))
    }

    fn end(&mut self) -> Result<(), KhanSyntaxError> {
        match self.next_field() {
            None => Ok(()),
            Some((at, _)) => Err(KhanSyntaxError::new(at, "the end of the FEN")),
        }
    }

    fn fen(&mut self) -> Result<EngineFen, KhanSyntaxError> {
        let Some((start, board_text)) = self.next_field() else {
            return Err(KhanSyntaxError::new(0, "a FEN board"));
        };
        let board = fen_board(board_text, start)?;
        let side = match self.next_field() {
            Some((_, "w")) => Side::White,
            Some((_, "b")) => Side::Black,
            Some((at, _)) => return Err(KhanSyntaxError::new(at, "w or b (the side to move)")),
            None => {
                return Err(KhanSyntaxError::new(
                    self.text.len(),
                    "w or b after the board",
                ));
            }
        };
        let save = self.pos;
        let (halfmoves, fullmoves) = match self.next_field() {
            Some((at, h)) if h.starts_with(|c: char| c.is_ascii_digit()) => {
                let halfmoves = number(h, at, "the number of plies since the last capture")?;
                let Some((at2, f)) = self.next_field() else {
                    return Err(KhanSyntaxError::new(self.text.len(), "the move number"));
                };
                let fullmoves = number(f, at2, "the move number")?;
                if fullmoves == 0 {
                    return Err(KhanSyntaxError::new(at2, "a move number of 1 or more"));
                }
                (halfmoves, fullmoves)
            }
            _ => {
                self.pos = save;
                (0, 1)
            }
        };
        Ok(EngineFen {
            board,
            side,
            halfmoves,
            fullmoves,
        })
    }
}

fn number(s: &str, at: usize, what: &str) -> Result<u32, KhanSyntaxError> {
    // Canonical numbers only, so that the text round-trips exactly.
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0'))
    {
        return Err(KhanSyntaxError::new(at, what.to_owned()));
    }
    s.parse::<u32>()
        .map_err(|_| KhanSyntaxError::new(at, format!("{what} (too large)")))
}

fn fen_board(text: &str, start: usize) -> Result<[Option<Piece>; 64], KhanSyntaxError> {
    let mut board = [None; 64];
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(KhanSyntaxError::new(
            start,
            format!("8 ranks separated by / (found {})", ranks.len()),
        ));
    }
    let mut offset = start;
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file = 0u8;
        let mut last_digit = false;
        for (j, c) in rank_text.char_indices() {
            let at = offset + j;
            if let Some(d) = c.to_digit(10) {
                // One way to write each rank, so the FEN round-trips exactly.
                if !(1..=8).contains(&d) || last_digit {
                    return Err(KhanSyntaxError::new(
                        at,
                        "a piece letter or a single digit 1-8 for a run of empty squares",
                    ));
                }
                file += d as u8;
                last_digit = true;
            } else if let Some(p) = Piece::from_fen_char(c) {
                if file < 8 {
                    board[usize::from(rank * 8 + file)] = Some(p);
                }
                file += 1;
                last_digit = false;
            } else {
                return Err(KhanSyntaxError::new(
                    at,
                    "a piece letter (KJIFWASNMHG, upper case White, lower case Black) or a digit",
                ));
            }
            if file > 8 {
                return Err(KhanSyntaxError::new(
                    at,
                    format!("at most 8 squares in rank {}", rank + 1),
                ));
            }
        }
        if file != 8 {
            return Err(KhanSyntaxError::new(
                offset + rank_text.len(),
                format!("8 squares in rank {} (found {file})", rank + 1),
            ));
        }
        offset += rank_text.len() + 1;
    }
    Ok(board)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const START: &str = "wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1";

    #[test]
    fn squares_read_and_print() {
        assert_eq!("e4".parse::<Square>(), Ok(Square::E4));
        assert_eq!("H8".parse::<Square>(), Ok(Square::H8));
        assert!("i1".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
        assert!("a".parse::<Square>().is_err());
        assert_eq!(Square::G4.to_string(), "g4");
        assert_eq!(Square::B7.distance(Square::E4), 3);
    }

    /// The plain path's tables and folds, byte by byte: every ASCII byte and
    /// a few wider characters in every place of tokens of each shape give
    /// the grammar's answer, and the grammar accepts nothing of these that
    /// the plain path leaves to it; and the path from the reader's word
    /// (six bytes read from a register) reads as the plain path does.
    #[test]
    fn the_plain_token_path_agrees_with_the_grammar_on_every_byte() {
        let wide = ['é', 'K', 'Ｋ', 'ａ', '１'];
        let chars = (0u8..128).map(char::from).chain(wide);
        let chars: Vec<char> = chars.collect();
        for template in [
            "Wg4-f5", "Sb5xb7=W", "Hf5*h5", "Je2<>f1", "Ae2>d1", "kA1XH8=g",
        ] {
            let template: Vec<char> = template.chars().collect();
            for at in 0..=template.len() {
                for &c in &chars {
                    // Each character in each place, and one more inserted.
                    for insert in [false, true] {
                        let mut token = template.clone();
                        if insert {
                            token.insert(at, c);
                        } else if at < token.len() {
                            token[at] = c;
                        } else {
                            continue;
                        }
                        let token: String = token.into_iter().collect();
                        let grammar = MoveToken::parse_grammar(&token);
                        let plain = MoveToken::parse_plain(&token);
                        match plain {
                            Some(t) => assert_eq!(grammar, Ok(t), "{token:?}"),
                            None => assert!(grammar.is_err(), "{token:?}: plain path refused"),
                        }
                        // The reader's word, for what its quick path reads.
                        if let Some(word) = PlainToken::new(&token) {
                            assert_eq!(MoveToken::parse_plain_word(word), plain, "{token:?}");
                            // And with what follows it in the reader's word.
                            let source = format!("{token} x=X*");
                            let mut raw = [0u8; 8];
                            raw.copy_from_slice(&source.as_bytes()[..8]);
                            let raw = u64::from_le_bytes(raw);
                            let read = PlainToken::in_source(&source, 0, token.len(), raw);
                            assert_eq!(read, word);
                            assert_eq!(MoveToken::parse_plain_word(read), plain, "{token:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_action_reads_and_prints() {
        for (text, action) in [
            ("Wg4-f5", Action::Move),
            ("Wg4xf5", Action::Capture),
            ("Hf5*h5", Action::Spell),
            ("Je2<>f1", Action::Exchange),
            ("Ae2>d1", Action::Transfer),
        ] {
            let t = MoveToken::parse(text).unwrap();
            assert_eq!(t.action, action);
            assert_eq!(t.to_string(), text);
        }
        let p = MoveToken::parse("Sb5-b7=W").unwrap();
        assert_eq!(p.promotion, Some(Kind::Warrior));
        assert_eq!(p.to_string(), "Sb5-b7=W");
    }

    #[test]
    fn reading_is_lenient_about_case_printing_is_not() {
        let t = MoveToken::parse("wG4XF5").unwrap();
        assert_eq!(t.to_string(), "Wg4xf5");
        assert_eq!(
            MoveToken::parse("sb5-b7=w").unwrap().to_string(),
            "Sb5-b7=W"
        );
    }

    #[test]
    fn bad_tokens_say_where_and_what() {
        let e = MoveToken::parse("Zg4-f5").unwrap_err();
        assert_eq!(e.offset, 0);
        let e = MoveToken::parse("Wg9-f5").unwrap_err();
        assert_eq!(e.offset, 1);
        let e = MoveToken::parse("Wg4/f5").unwrap_err();
        assert_eq!(e.offset, 3);
        assert!(e.expected.contains("spell"));
        let e = MoveToken::parse("Wg4-f").unwrap_err();
        assert_eq!(e.offset, 4);
        let e = MoveToken::parse("Mf5*h5=H").unwrap_err();
        assert_eq!(e.offset, 6);
        assert!(e.expected.contains("only moves and captures promote"));
        let e = MoveToken::parse("Sb5-b7=").unwrap_err();
        assert_eq!(e.offset, 7);
        let e = MoveToken::parse("Wg4-f5extra").unwrap_err();
        assert_eq!(e.offset, 6);
    }

    #[test]
    fn engine_moves_round_trip() {
        let m: EngineMove = "g4f5".parse().unwrap();
        assert_eq!(m.from, Square::G4);
        assert_eq!(m.to, Square::F5);
        assert_eq!(m.to_string(), "g4f5");
        assert_eq!("G4F5".parse::<EngineMove>().unwrap().to_string(), "g4f5");
        assert!("g4f".parse::<EngineMove>().is_err());
        assert!("g4f5q".parse::<EngineMove>().is_err());
        // Yam's extension: the long form's mark names the kind of move.
        for (text, action) in [
            ("e4*e5", Action::Spell),
            ("e4xe5", Action::Capture),
            ("f4-h5", Action::Move),
            ("e2<>f1", Action::Exchange),
            ("e2>d1", Action::Transfer),
        ] {
            let m: EngineMove = text.parse().unwrap();
            assert_eq!(m.action, Some(action), "{text}");
            assert_eq!(m.to_string(), text);
        }
        assert!("e4*".parse::<EngineMove>().is_err());
        assert!("e4**e5".parse::<EngineMove>().is_err());
    }

    #[test]
    fn engine_position_lines_read_and_print() {
        let line = "position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves g4f5 a5a4 h4h5";
        let p = EnginePosition::parse(line).unwrap();
        assert_eq!(p.fen().to_string(), START);
        assert!(!p.has_siege_fields());
        assert_eq!(p.moves.len(), 3);
        assert_eq!(p.moves[2].to_string(), "h4h5");
        assert_eq!(p.to_string(), line);
        let bare = EnginePosition::parse("position fen 8/8/8/8/8/8/8/8 b").unwrap();
        assert!(bare.moves.is_empty());
        assert_eq!(bare.fen().side, Side::Black);
        let e = EnginePosition::parse(&line.replace("h4h5", "h4h9")).unwrap_err();
        assert_eq!(e.offset, line.len() - 2);
        assert!(EnginePosition::parse("position startpos").is_err());
        assert!(EnginePosition::parse(&line.replace("moves", "mvs")).is_err());
    }

    #[test]
    fn engine_position_lines_carry_siege_fields() {
        let line = "position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 \
                    towers=d4e4d5e5:gen manned=d4e4d5e5 gers=a1:w,h8:b startpos moves g4f5";
        let p = EnginePosition::parse(line).unwrap();
        assert!(p.has_siege_fields());
        assert_eq!(p.position.towers.len(), 1);
        assert_eq!(p.position.gers.len(), 2);
        assert_eq!(p.moves.len(), 1);
        assert_eq!(p.to_string(), line);
        // Without counters and without moves.
        let p = EnginePosition::parse("position fen 8/8/8/8/8/8/8/8 w towers=d4").unwrap();
        assert_eq!(p.position.towers[0].squares, vec![Square::D4]);
        // A bad field is reported where it stands.
        let bad = line.replace("gers=a1:w", "gers=a1:x");
        let e = EnginePosition::parse(&bad).unwrap_err();
        assert_eq!(e.offset, bad.find("a1:x").unwrap() + 2);
        let bad = line.replace("towers=", "tours=");
        let e = EnginePosition::parse(&bad).unwrap_err();
        assert_eq!(e.offset, bad.find("tours=").unwrap());
    }

    #[test]
    fn engine_fen_round_trips() {
        let fen = EngineFen::parse(START).unwrap();
        assert_eq!(
            fen.board[Square::G2.index()],
            Some(Piece::new(Side::White, Kind::Khan))
        );
        assert_eq!(
            fen.board[Square::B7.index()],
            Some(Piece::new(Side::Black, Kind::Khan))
        );
        assert_eq!(fen.to_string(), START);
        let short = EngineFen::parse("wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW b").unwrap();
        assert_eq!(short.side, Side::Black);
        assert_eq!(short.to_string().split(' ').nth(2), Some("0"));
    }

    #[test]
    fn bad_fens_are_refused_with_offsets() {
        for (bad, offset) in [
            ("wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW w 0 1", 0),
            ("wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFWW w 0 1", 43),
            ("wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW x 0 1", 44),
            ("wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFZ w 0 1", 42),
            ("wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 0", 48),
            ("wfwwa3/wksma3/wn33/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1", 17),
            ("", 0),
        ] {
            let e = EngineFen::parse(bad).unwrap_err();
            assert_eq!(e.offset, offset, "{bad}: {e}");
        }
    }

    #[test]
    fn yam_positions_round_trip() {
        let text = "wfwwa3/w1sha3/wn6/aa6/6AA/6NW/3AHSKW/3AWWFW w 0 1 \
                    towers=h5h6h7:wk,a2a3a4:bk manned=h5h6h7a2a3a4 gers=a1:w,h8:b";
        let p = YamPosition::parse(text).unwrap();
        assert_eq!(p.towers.len(), 2);
        assert_eq!(p.towers[1].captive, Some(Captive::Khan(Side::Black)));
        assert_eq!(p.to_string(), text);
        let text2 = "8/8/8/8/8/8/8/8 b 12 40 towers=d4e4d5e5 manned=d4 gers=a1:w,h8:b \
                     carried=e2:wk,f7:gen waiting=a1:bk delivered=w";
        assert_eq!(YamPosition::parse(text2).unwrap().to_string(), text2);
    }

    #[test]
    fn bad_yam_fields_are_refused() {
        let base = "8/8/8/8/8/8/8/8 w 0 1 ";
        for (bad, offset) in [
            ("towers=h5h6h9", 22 + 11),
            ("manned=h5 towers=h5", 32),
            ("gers=a1:x", 22 + 7),
            ("carried=e2:zz", 22 + 11),
            ("colour=red", 22),
            ("delivered=x", 22 + 10),
        ] {
            let e = YamPosition::parse(&format!("{base}{bad}")).unwrap_err();
            assert_eq!(e.offset, offset, "{bad}: {e}");
        }
    }

    const FORBIDDEN: &str = "{}()[]$;!?";

    fn arb_token() -> impl Strategy<Value = MoveToken> {
        let kind = (0usize..11).prop_map(|i| Kind::ALL[i]);
        let sq = (0u8..64).prop_map(|i| Square::from_index(i).unwrap_or(Square::A1));
        let action = prop_oneof![
            Just(Action::Move),
            Just(Action::Capture),
            Just(Action::Spell),
            Just(Action::Exchange),
            Just(Action::Transfer),
        ];
        (
            kind.clone(),
            sq.clone(),
            action,
            sq,
            proptest::option::of(kind),
        )
            .prop_map(|(piece, from, action, to, promotion)| MoveToken {
                piece,
                from,
                action,
                to,
                promotion: match action {
                    Action::Move | Action::Capture => promotion,
                    _ => None,
                },
            })
    }

    proptest! {
        #[test]
        fn tokens_round_trip(t in arb_token()) {
            let mut s = String::new();
            KhanGrammar::write_move(&t, &mut s);
            prop_assert_eq!(KhanGrammar::parse_move(&s), Ok(t));
            // The envelope's lexical promises.
            let first = s.chars().next().unwrap_or(' ');
            prop_assert!(!first.is_ascii_digit() && !matches!(first, '*' | '+' | '-'));
            let forbidden = |c: char| c.is_whitespace() || FORBIDDEN.contains(c);
            prop_assert!(!s.contains(forbidden), "token {} has a forbidden character", s);
        }

        #[test]
        fn the_plain_token_path_agrees_with_the_grammar(
            s in "[KJIFWASNMHGkxXa-hA-H0-9=<>*-]{0,9}"
        ) {
            if let Some(t) = MoveToken::parse_plain(&s) {
                prop_assert_eq!(MoveToken::parse_grammar(&s), Ok(t));
            }
        }

        #[test]
        fn plain_looking_tokens_take_the_plain_path(
            p in "[KJIFWASNMHGkjifwasnmhg]", f in "[a-hA-H]", r in "[1-8]",
            m in "(-|x|X|\\*|>|<>)", g in "[a-hA-H]", q in "[1-8]",
            promo in "(=[KJIFWASNMHG])?",
        ) {
            let s = format!("{p}{f}{r}{m}{g}{q}{promo}");
            let grammar = MoveToken::parse_grammar(&s);
            match MoveToken::parse_plain(&s) {
                Some(t) => prop_assert_eq!(grammar, Ok(t)),
                None => prop_assert!(grammar.is_err(), "{} refused by the plain path only", s),
            }
        }

        #[test]
        fn token_reader_never_panics(s in "\\PC{0,12}") {
            let _ = MoveToken::parse(&s);
            let _ = s.parse::<EngineMove>();
            let _ = EngineFen::parse(&s);
            let _ = YamPosition::parse(&s);
            let _ = EnginePosition::parse(&s);
            let _ = EnginePosition::parse(&format!("position fen {s}"));
        }

        #[test]
        fn fen_reader_never_panics_on_near_fens(s in "[wfaksmnKAWSNMFH1-9/ ]{0,60}") {
            if let Ok(f) = EngineFen::parse(&s) {
                prop_assert_eq!(EngineFen::parse(&f.to_string()), Ok(f));
            }
        }
    }
}
