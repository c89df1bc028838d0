//! A Khan position: the board, whose turn it is, the counters, the siege state
//! (towers, manned squares, gers, captives) and the rules it is played under.
//!
//! A position is a plain `Copy` value with no heap data, so the move
//! generator can copy, play and look (copy-make) without allocating.

use std::fmt;

use yam_notation::khan::{EngineFen, KhanSyntaxError, TowerText, YamPosition};

use super::piece::{Captive, Kind, Piece, Side, is_magician};
use super::ruleset::Rules;
use super::square::{Bitboard, Square};
use serde::{Deserialize, Serialize};

/// At most this many towers in one position.
pub const MAX_TOWERS: usize = 4;

/// Where a captive is (KR-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CaptiveAt {
    /// Still inside the tower with this index.
    Tower(u8),
    /// Carried by the piece on this square.
    Carried(Square),
    /// Dropped off at this ger, waiting for it to be empty (KR-7.7).
    Waiting(Square),
}

/// The three possible captives, in the order of their slots.
pub const CAPTIVES: [Captive; 3] = [
    Captive::Khan(Side::White),
    Captive::Khan(Side::Black),
    Captive::General,
];

pub(crate) const fn captive_slot(c: Captive) -> usize {
    match c {
        Captive::Khan(Side::White) => 0,
        Captive::Khan(Side::Black) => 1,
        Captive::General => 2,
    }
}

/// A Khan position.
///
/// Besides the board, the siege state and the counters, it keeps three
/// boards made from them, for the replay's fast path (`plain_move`): which
/// squares are tower squares (`tower_union`), and which hold a carried
/// captive's carrier (`carried`) or a ger a khan waits at (`waiting`).
/// They are kept up to date where the towers and the captives change
/// ([`Position::captives_moved`]), are not stored ([`StoredPosition`]), and
/// are made again when a position is read back.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "StoredPosition", into = "StoredPosition")]
pub struct Position {
    pub(crate) squares: [Option<Piece>; 64],
    pub(crate) by_side: [Bitboard; 2],
    pub(crate) by_kind: [Bitboard; 11],
    pub(crate) turn: Side,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    pub(crate) towers: [Bitboard; MAX_TOWERS],
    /// Every tower's squares: the union of `towers`, which never change.
    pub(crate) tower_union: Bitboard,
    pub(crate) n_towers: u8,
    pub(crate) manned: Bitboard,
    pub(crate) gers: [Bitboard; 2],
    /// Indexed by [`captive_slot`]; `None` once freed, delivered or dead.
    pub(crate) captives: [Option<CaptiveAt>; 3],
    /// The squares of the pieces carrying a captive (`CaptiveAt::Carried`).
    pub(crate) carried: Bitboard,
    /// The gers a khan waits at (`CaptiveAt::Waiting`).
    pub(crate) waiting: Bitboard,
    pub(crate) delivered: Option<Side>,
    pub(crate) rules: Rules,
}

/// A [`Position`] as it is stored (a tip's replay, the history's states,
/// `docs/fair-play.md` 9.11): its fields without the boards made from them,
/// in the order and form every earlier build wrote, so a tip written before
/// those boards were kept still reads (a test holds the bytes).
#[derive(Serialize, Deserialize)]
#[serde(rename = "Position")]
struct StoredPosition {
    #[serde(with = "board_squares")]
    squares: [Option<Piece>; 64],
    by_side: [Bitboard; 2],
    by_kind: [Bitboard; 11],
    turn: Side,
    halfmoves: u32,
    fullmoves: u32,
    towers: [Bitboard; MAX_TOWERS],
    n_towers: u8,
    manned: Bitboard,
    gers: [Bitboard; 2],
    captives: [Option<CaptiveAt>; 3],
    delivered: Option<Side>,
    rules: Rules,
}

impl From<StoredPosition> for Position {
    fn from(stored: StoredPosition) -> Position {
        let mut pos = Position {
            squares: stored.squares,
            by_side: stored.by_side,
            by_kind: stored.by_kind,
            turn: stored.turn,
            halfmoves: stored.halfmoves,
            fullmoves: stored.fullmoves,
            towers: stored.towers,
            tower_union: stored.towers.iter().fold(Bitboard::EMPTY, |u, t| u | *t),
            n_towers: stored.n_towers,
            manned: stored.manned,
            gers: stored.gers,
            captives: stored.captives,
            carried: Bitboard::EMPTY,
            waiting: Bitboard::EMPTY,
            delivered: stored.delivered,
            rules: stored.rules,
        };
        pos.captives_moved();
        pos
    }
}

impl From<Position> for StoredPosition {
    fn from(pos: Position) -> StoredPosition {
        StoredPosition {
            squares: pos.squares,
            by_side: pos.by_side,
            by_kind: pos.by_kind,
            turn: pos.turn,
            halfmoves: pos.halfmoves,
            fullmoves: pos.fullmoves,
            towers: pos.towers,
            n_towers: pos.n_towers,
            manned: pos.manned,
            gers: pos.gers,
            captives: pos.captives,
            delivered: pos.delivered,
            rules: pos.rules,
        }
    }
}

/// Why a position (or its text) is not a valid Khan position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The text could not be read.
    #[error("{0}")]
    Syntax(#[from] KhanSyntaxError),
    /// More towers than the referee supports.
    #[error("at most {MAX_TOWERS} towers are supported, not {0}")]
    TooManyTowers(usize),
    /// A tower without squares.
    #[error("tower {0} has no squares")]
    EmptyTower(usize),
    /// A square in two towers, or twice in one.
    #[error("{0} is written twice among the tower squares")]
    TowersOverlap(Square),
    /// A manned square outside every tower.
    #[error("manned square {0} is not a tower square")]
    MannedOutsideTower(Square),
    /// A ger claimed twice.
    #[error("{0} is written twice among the gers")]
    GerTwice(Square),
    /// A captive in two places.
    #[error("{0} is in two places")]
    CaptiveTwice(Captive),
    /// A carried captive with nobody carrying it.
    #[error("{1} is carried on {0}, but no piece stands there")]
    NoCarrier(Square, Captive),
    /// One piece carrying two captives.
    #[error("the piece on {0} carries two captives; a piece carries at most one")]
    CarriesTwo(Square),
    /// A captive waiting where it cannot wait.
    #[error("{1} waits on {0}, which is not one of its gers")]
    WaitingOffGer(Square, Captive),
    /// A captive waiting on an empty ger would already have appeared.
    #[error("{1} waits on {0}, but {0} is empty, so it would already have appeared there")]
    WaitingOnEmptyGer(Square, Captive),
    /// The general is never left waiting: delivering him wins at once.
    #[error("the general cannot wait at a ger: delivering him ends the game")]
    GeneralWaiting,
    /// A khan both on the board and in captivity.
    #[error("{0} has a khan on the board and one in captivity")]
    KhanTwice(Side),
    /// The general both delivered and still about.
    #[error("the general is delivered and still a captive")]
    GeneralTwice,
    /// A non-magician on a manned tower square would have died there (KR-7.1).
    #[error("the {1} on {0} stands on a manned tower square; only magicians can")]
    OnMannedSquare(Square, Piece),
}

impl Position {
    /// An empty board, White to move, no siege state.
    pub fn empty(rules: Rules) -> Position {
        Position {
            squares: [None; 64],
            by_side: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 11],
            turn: Side::White,
            halfmoves: 0,
            fullmoves: 1,
            towers: [Bitboard::EMPTY; MAX_TOWERS],
            tower_union: Bitboard::EMPTY,
            n_towers: 0,
            manned: Bitboard::EMPTY,
            gers: [Bitboard::EMPTY; 2],
            captives: [None; 3],
            carried: Bitboard::EMPTY,
            waiting: Bitboard::EMPTY,
            delivered: None,
            rules,
        }
    }

    /// A position from the engine's FEN (no siege state).
    pub fn from_fen(fen: &str, rules: Rules) -> Result<Position, PositionError> {
        let fen = EngineFen::parse(fen)?;
        Position::from_yam_text(&YamPosition::from_fen(fen), rules)
    }

    /// A position from Yam's own position format.
    pub fn from_yam(text: &str, rules: Rules) -> Result<Position, PositionError> {
        let yam = YamPosition::parse(text)?;
        Position::from_yam_text(&yam, rules)
    }

    /// A position from the parsed Yam position text, checked.
    pub fn from_yam_text(yam: &YamPosition, rules: Rules) -> Result<Position, PositionError> {
        let mut pos = Position::empty(rules);
        for sq in Square::all() {
            if let Some(p) = yam.fen.board[sq.index()] {
                pos.put(sq, p);
            }
        }
        pos.turn = yam.fen.side;
        pos.halfmoves = yam.fen.halfmoves;
        pos.fullmoves = yam.fen.fullmoves;

        if yam.towers.len() > MAX_TOWERS {
            return Err(PositionError::TooManyTowers(yam.towers.len()));
        }
        for (i, t) in yam.towers.iter().enumerate() {
            if t.squares.is_empty() {
                return Err(PositionError::EmptyTower(i + 1));
            }
            for &sq in &t.squares {
                if pos.tower_union.contains(sq) {
                    return Err(PositionError::TowersOverlap(sq));
                }
                pos.towers[i] = pos.towers[i].with(sq);
                pos.tower_union = pos.tower_union.with(sq);
            }
            if let Some(c) = t.captive {
                pos.place_captive(c, CaptiveAt::Tower(i as u8))?;
            }
        }
        pos.n_towers = yam.towers.len() as u8;
        for &sq in &yam.manned {
            if !pos.tower_union.contains(sq) {
                return Err(PositionError::MannedOutsideTower(sq));
            }
            pos.manned = pos.manned.with(sq);
        }
        for &(sq, side) in &yam.gers {
            if (pos.gers[0] | pos.gers[1]).contains(sq) {
                return Err(PositionError::GerTwice(sq));
            }
            pos.gers[side.index()] = pos.gers[side.index()].with(sq);
        }
        for &(sq, c) in &yam.carried {
            if pos.squares[sq.index()].is_none() {
                return Err(PositionError::NoCarrier(sq, c));
            }
            if pos.carried_by(sq).is_some() {
                return Err(PositionError::CarriesTwo(sq));
            }
            pos.place_captive(c, CaptiveAt::Carried(sq))?;
        }
        for &(sq, c) in &yam.waiting {
            match c {
                Captive::General => return Err(PositionError::GeneralWaiting),
                Captive::Khan(side) => {
                    if !pos.gers[side.index()].contains(sq) {
                        return Err(PositionError::WaitingOffGer(sq, c));
                    }
                }
            }
            if pos.squares[sq.index()].is_none() {
                return Err(PositionError::WaitingOnEmptyGer(sq, c));
            }
            pos.place_captive(c, CaptiveAt::Waiting(sq))?;
        }
        pos.delivered = yam.delivered;
        if pos.delivered.is_some() && pos.captives[captive_slot(Captive::General)].is_some() {
            return Err(PositionError::GeneralTwice);
        }
        for side in Side::BOTH {
            if pos.captives[captive_slot(Captive::Khan(side))].is_some()
                && !pos.khan_types(side).is_empty()
            {
                return Err(PositionError::KhanTwice(side));
            }
        }
        for sq in pos.manned & pos.occupied() {
            if let Some(p) = pos.squares[sq.index()]
                && !is_magician(p.kind)
            {
                return Err(PositionError::OnMannedSquare(sq, p));
            }
        }
        Ok(pos)
    }

    fn place_captive(&mut self, c: Captive, at: CaptiveAt) -> Result<(), PositionError> {
        let slot = &mut self.captives[captive_slot(c)];
        if slot.is_some() {
            return Err(PositionError::CaptiveTwice(c));
        }
        *slot = Some(at);
        self.captives_moved();
        Ok(())
    }

    /// The position as Yam position text (parsed form).
    pub fn to_yam_text(&self) -> YamPosition {
        let mut yam = YamPosition::from_fen(self.to_engine_fen());
        for (i, t) in self.towers().enumerate() {
            yam.towers.push(TowerText {
                squares: t.iter().collect(),
                captive: self.tower_captive(i),
            });
        }
        yam.manned = self.manned.iter().collect();
        for sq in self.gers[0] | self.gers[1] {
            let side = if self.gers[0].contains(sq) {
                Side::White
            } else {
                Side::Black
            };
            yam.gers.push((sq, side));
        }
        let mut carried = Vec::new();
        let mut waiting = Vec::new();
        for (c, at) in self.captives() {
            match at {
                CaptiveAt::Carried(sq) => carried.push((sq, c)),
                CaptiveAt::Waiting(sq) => waiting.push((sq, c)),
                CaptiveAt::Tower(_) => {}
            }
        }
        carried.sort_by_key(|(sq, _)| *sq);
        waiting.sort_by_key(|(sq, _)| *sq);
        yam.carried = carried;
        yam.waiting = waiting;
        yam.delivered = self.delivered;
        yam
    }

    /// Whether the position holds anything the engine's FEN cannot carry:
    /// towers, manned squares, gers, captives carried or waiting, a khan
    /// delivered. A position with gers and a khan carried home but no
    /// tower left is a siege position too (written as the bare FEN, it
    /// lost them, and `yam engine import` gave another game).
    pub fn has_siege_state(&self) -> bool {
        self.to_yam_text() != YamPosition::from_fen(self.to_engine_fen())
    }

    /// The position in Yam's own format, siege state included (KR-P15);
    /// [`Position::from_yam`] reads it back exactly.
    pub fn to_yam(&self) -> String {
        self.to_yam_text().to_string()
    }

    /// The board, side and counters as the engine's FEN (no siege state).
    pub fn to_engine_fen(&self) -> EngineFen {
        EngineFen {
            board: self.squares,
            side: self.turn,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// The engine FEN as text.
    pub fn fen(&self) -> String {
        self.to_engine_fen().to_string()
    }

    // --- accessors -------------------------------------------------------

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.squares[sq.index()]
    }

    /// Whose turn it is.
    pub fn turn(&self) -> Side {
        self.turn
    }

    /// Plies since the last capture, tower death or captive death (KR-6.5).
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number.
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The rules this position is played under.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Every occupied square.
    pub fn occupied(&self) -> Bitboard {
        self.by_side[0] | self.by_side[1]
    }

    /// The squares of `side`'s pieces.
    pub fn pieces(&self, side: Side) -> Bitboard {
        self.by_side[side.index()]
    }

    /// The squares of `side`'s pieces of `kind`.
    pub fn pieces_of(&self, side: Side, kind: Kind) -> Bitboard {
        self.by_side[side.index()] & self.by_kind[kind.index()]
    }

    /// The towers, each as its set of squares.
    pub fn towers(&self) -> impl Iterator<Item = Bitboard> + '_ {
        self.towers[..usize::from(self.n_towers)].iter().copied()
    }

    /// Every tower square.
    pub fn tower_squares(&self) -> Bitboard {
        self.tower_union
    }

    /// Tower squares still manned (KR-7.1).
    pub fn manned(&self) -> Bitboard {
        self.manned
    }

    /// Tower squares silenced by a spell (KR-7.2).
    pub fn silenced(&self) -> Bitboard {
        self.tower_squares() & !self.manned
    }

    /// `side`'s healing gers.
    pub fn gers(&self, side: Side) -> Bitboard {
        self.gers[side.index()]
    }

    /// Where `c` is, if it is still a captive.
    pub fn captive(&self, c: Captive) -> Option<CaptiveAt> {
        self.captives[captive_slot(c)]
    }

    /// Every captive still a captive, and where.
    pub fn captives(&self) -> impl Iterator<Item = (Captive, CaptiveAt)> + '_ {
        CAPTIVES
            .iter()
            .zip(self.captives.iter())
            .filter_map(|(c, at)| at.map(|at| (*c, at)))
    }

    /// The captive still held by tower `i`.
    pub fn tower_captive(&self, i: usize) -> Option<Captive> {
        self.captives()
            .find(|(_, at)| *at == CaptiveAt::Tower(i as u8))
            .map(|(c, _)| c)
    }

    /// The captive carried by the piece on `sq`.
    pub fn carried_by(&self, sq: Square) -> Option<Captive> {
        let at = Some(CaptiveAt::Carried(sq));
        CAPTIVES
            .iter()
            .zip(self.captives.iter())
            .find(|(_, a)| **a == at)
            .map(|(c, _)| *c)
    }

    /// The squares of pieces carrying a captive.
    pub fn carriers(&self) -> Bitboard {
        self.carried
    }

    /// The side that delivered the general, if one has (KR-9).
    pub fn delivered(&self) -> Option<Side> {
        self.delivered
    }

    /// `side`'s khan-type pieces (K, J, I) on the board.
    pub fn khan_types(&self, side: Side) -> Bitboard {
        self.by_side[side.index()]
            & (self.by_kind[Kind::Khan.index()]
                | self.by_kind[Kind::KhanArcher.index()]
                | self.by_kind[Kind::KhanSword.index()])
    }

    /// KR-6.1: `side`'s leaders on the board: its khan-type pieces, and its
    /// bondsmen when `bondsmenLeaders` is on.
    pub fn leaders(&self, side: Side) -> Bitboard {
        self.all_leaders() & self.by_side[side.index()]
    }

    /// KR-6.1: both sides' leaders on the board (each side's is this and
    /// its pieces: the replay's fast path asks for both at once).
    pub(crate) fn all_leaders(&self) -> Bitboard {
        let k = self.by_kind[Kind::Khan.index()]
            | self.by_kind[Kind::KhanArcher.index()]
            | self.by_kind[Kind::KhanSword.index()];
        if self.rules.options.bondsmen_leaders {
            k | self.by_kind[Kind::Bondsman.index()]
        } else {
            k
        }
    }

    /// KR-6.2: `side`'s royal leader, if it has exactly one leader on the board.
    pub fn royal(&self, side: Side) -> Option<Square> {
        self.leaders(side).single()
    }

    /// KR-6.3, KR-P4: whether `side` has lost for want of a leader. With
    /// `bondsmenLeaders` off, a side whose khan is still a captive has not.
    pub fn leaderless(&self, side: Side) -> bool {
        self.leaders(side).is_empty()
            && (self.rules.options.bondsmen_leaders || self.captive(Captive::Khan(side)).is_none())
    }

    // --- editing ---------------------------------------------------------

    pub(crate) fn put(&mut self, sq: Square, p: Piece) {
        self.remove(sq);
        self.place(sq, p);
    }

    /// [`Position::put`] on a square known to be empty.
    pub(crate) fn place(&mut self, sq: Square, p: Piece) {
        debug_assert!(self.squares[sq.index()].is_none());
        self.squares[sq.index()] = Some(p);
        let b = Bitboard::from_square(sq);
        self.by_side[p.side.index()] |= b;
        self.by_kind[p.kind.index()] |= b;
    }

    pub(crate) fn remove(&mut self, sq: Square) -> Option<Piece> {
        let p = self.squares[sq.index()].take()?;
        let keep = !Bitboard::from_square(sq);
        self.by_side[p.side.index()] &= keep;
        self.by_kind[p.kind.index()] &= keep;
        Some(p)
    }

    pub(crate) fn set_kind(&mut self, sq: Square, kind: Kind) {
        if let Some(p) = self.squares[sq.index()] {
            self.put(sq, Piece::new(p.side, kind));
        }
    }

    pub(crate) fn set_captive(&mut self, c: Captive, at: Option<CaptiveAt>) {
        self.captives[captive_slot(c)] = at;
        self.captives_moved();
    }

    /// Make `carried` and `waiting` again from `captives`: called wherever
    /// a captive's place changes.
    pub(crate) fn captives_moved(&mut self) {
        let (mut carried, mut waiting) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for at in self.captives.iter().flatten() {
            match *at {
                CaptiveAt::Carried(s) => carried = carried.with(s),
                CaptiveAt::Waiting(s) => waiting = waiting.with(s),
                CaptiveAt::Tower(_) => {}
            }
        }
        self.carried = carried;
        self.waiting = waiting;
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_yam())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_yam())
    }
}

// The copy-make generator copies positions; keep them small.
const _: () = assert!(size_of::<Position>() <= 512);
// `tower_squares` ORs the four slots.
const _: () = assert!(MAX_TOWERS == 4);

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        Rules::default()
    }

    #[test]
    fn yam_text_round_trips_exactly() {
        for text in [
            "wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1",
            "wfwwa3/w1sha3/wn6/aa6/6AA/6NW/3AHS1W/3AWWFW w 0 1 towers=h5h6h7:wk,a2a3a4:bk \
             manned=a2a3a4h5h6h7 gers=a1:w,h8:b",
            "8/6f1/8/4W3/8/8/4A3/F7 b 7 30 towers=a2a3a4,h5h6h7 manned=a2a4h6 \
             gers=a1:w,h8:b carried=e2:wk,e5:bk",
            "1f6/8/8/3M4/8/8/8/K6F w 0 9 towers=d4e4d5e5 manned=d4e4 gers=a1:w,h8:b delivered=b",
            "1f6/8/8/8/8/8/8/F7 w 0 9 gers=a1:w,h8:b waiting=a1:wk",
        ] {
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            match Position::from_yam(&text, rules()) {
                Ok(p) => assert_eq!(p.to_yam(), text),
                Err(e) => panic!("{text}: {e}"),
            }
        }
    }

    #[test]
    fn invalid_states_are_refused_with_their_reason() {
        let base = "1f6/8/8/8/8/8/8/K6F w 0 1";
        for (extra, want) in [
            (" towers=a2a3,a3a4", "a3 is written twice"),
            (" towers=a2a3 manned=a5", "manned square a5"),
            (" towers=a2a3:wk", "White has a khan on the board"),
            (" gers=h1:w carried=c3:bk", "no piece stands there"),
            (" gers=a1:w,a1:b", "a1 is written twice among the gers"),
            (" gers=g1:b waiting=g1:bk", "waits on g1, but g1 is empty"),
            (" gers=h1:w waiting=h1:bk", "not one of its gers"),
            (" towers=h1 manned=h1", "stands on a manned tower square"),
            (" towers=c2:gen delivered=w", "delivered and still"),
        ] {
            let e = Position::from_yam(&format!("{base}{extra}"), rules()).unwrap_err();
            assert!(e.to_string().contains(want), "{extra}: {e}");
        }
    }
}

/// Serde for the 64 squares of a position (serde's derives stop at arrays
/// of 32): one byte a square, 0 empty, else 1 + 11 x side + kind, as one
/// byte string (a stored game's tip holds a position after every move, and
/// a string is read in one step, not 64).
mod board_squares {
    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};
    use yam_notation::khan::{Kind, Piece, Side};

    pub fn serialize<S: Serializer>(
        squares: &[Option<Piece>; 64],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut bytes = [0u8; 64];
        for (byte, square) in bytes.iter_mut().zip(squares) {
            if let Some(p) = square {
                // At most 1 + 11 + 10: a byte.
                *byte = (1 + 11 * p.side.index() + p.kind.index()) as u8;
            }
        }
        serializer.serialize_bytes(&bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<[Option<Piece>; 64], D::Error> {
        struct Squares;
        impl Visitor<'_> for Squares {
            type Value = [Option<Piece>; 64];
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the 64 squares of a Khan position, a byte each")
            }
            fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
                if bytes.len() != 64 {
                    return Err(E::invalid_length(bytes.len(), &self));
                }
                let mut squares = [None; 64];
                for (square, &byte) in squares.iter_mut().zip(bytes) {
                    if byte != 0 {
                        let code = usize::from(byte - 1);
                        let side = [Side::White, Side::Black]
                            .get(code / 11)
                            .copied()
                            .ok_or_else(|| E::custom("no such side"))?;
                        *square = Some(Piece::new(side, Kind::ALL[code % 11]));
                    }
                }
                Ok(squares)
            }
        }
        deserializer.deserialize_bytes(Squares)
    }
}
