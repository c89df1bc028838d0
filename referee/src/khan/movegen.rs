//! Move generation: where each piece can go (KR-3), what it attacks (KR-P7),
//! its spells, exchanges and transfers, and the legal moves (KR-6.2).
//!
//! Targets are computed as bitboards, so a square reachable two ways (a khan's
//! two king steps and its slide) is one move. A manned tower square blocks
//! passage like a piece (KR-7.1) but can be landed on.

use super::apply::NoEvents;
use super::moves::{Action, Move};
use super::piece::{
    Kind, Piece, Side, base_spell_range, demoted, exchange_gives, exchange_receives, is_khan_type,
    is_mounted, is_sword,
};
use super::position::Position;
use super::ruleset::PowerMagicianMoves;
use super::square::{
    Bitboard, DIAG, DIRECTIONS, KING, LINES3, NEAR2, ORTHO, ORTHO_LINES2, ORTHO_LINES3, ORTHOGONAL,
    REACH, Square, within,
};

/// KR-3.6: one king step, or two king steps whose middle square is open
/// (any middle square will do).
fn two_steps(from: Square, open: Bitboard) -> Bitboard {
    let near = KING[from.index()];
    let mut r = near;
    for m in near & open {
        r |= KING[m.index()];
    }
    r.without(from)
}

/// Slides of 1..=`n` squares in `dirs`, stopping at the first closed square
/// (which is itself a target: a capture or a walk into a tower).
///
/// Each ray is walked as a one-bit bitboard shifted a step at a time, which
/// is branch-light: the referee asks this for every move it checks.
fn slides(from: Square, open: Bitboard, dirs: &[(i8, i8)], n: u8) -> Bitboard {
    let mut r = 0u64;
    for &(df, dr) in dirs {
        let mut frontier = 1u64 << from.index();
        for _ in 0..n {
            frontier = step(frontier, df, dr);
            r |= frontier;
            frontier &= open.0;
            if frontier == 0 {
                break;
            }
        }
    }
    Bitboard(r)
}

/// Whether a `kind` on `from` could end a move on `to`, given the `open`
/// squares: `reach(from, kind, open, power).contains(to)`, decided by direct
/// tests on the two squares instead of computing the whole reach, and
/// without a branch on the kind: how `to` lies from `from` ([`LIES`])
/// names the kinds that reach it at once, those that reach it along a line
/// if the squares between are open, and those that reach it by two king
/// steps through an open middle square; one test of the kind's bit against
/// the kinds that reach it decides. The replay asks this of nearly every
/// move, and the kinds come in no order a branch predictor learns: a jump
/// on the kind mispredicted often enough to cost what the extra tests cost.
#[inline(always)]
pub(crate) fn reaches(
    from: Square,
    to: Square,
    kind: Kind,
    open: Bitboard,
    power: PowerMagicianMoves,
) -> bool {
    let (a, b) = (from.index(), to.index());
    // 0x88 coordinates (rank * 16 + file): their difference names the
    // file and rank steps, with no wrap from one rank to the next.
    let lie = LIES[(b + (b & 0x38)) + 119 - (a + (a & 0x38))];
    // The squares strictly between the two, for a line two or three long;
    // `from` itself (never open: the mover stands there) for the rest.
    let between = (1u64 << (a as i32 + i32::from(lie.step)) as u32)
        | (1u64 << (a as i32 + i32::from(lie.second)) as u32);
    let line_open = between & !open.0 == 0;
    let middle_open = !(KING[a] & KING[b] & open).is_empty();
    // Selected without a jump: whether the squares between are open
    // depends on the kind and the board, which a predictor cannot learn
    // (LLVM made jumps of the masks these selections replaced).
    let reaching = lie.direct
        | std::hint::select_unpredictable(line_open, lie.line, 0)
        | std::hint::select_unpredictable(middle_open, lie.two, 0);
    // KR-3.5: a power magician moving orthogonally is a kind of its own.
    let orthogonal_power =
        kind == Kind::PowerMagician && matches!(power, PowerMagicianMoves::Orthogonal);
    let bit = 1u16
        << if orthogonal_power {
            ORTHOGONAL_POWER
        } else {
            kind.index()
        };
    reaching & bit != 0
}

/// The bit of a power magician moving orthogonally in [`Lie`]'s masks
/// (each other kind's is its index).
const ORTHOGONAL_POWER: usize = 11;

/// How a target lies from a start, and so which kinds reach it (KR-3), as
/// masks of kind bits: at once (`direct`), along a line whose squares
/// between must be open (`line`: `step` and `second` are the offsets of
/// those squares from the start), by two king steps through an open
/// middle square (`two`).
#[derive(Clone, Copy)]
struct Lie {
    direct: u16,
    line: u16,
    two: u16,
    step: i8,
    second: i8,
}

/// [`Lie`] by the difference of the two squares' 0x88 coordinates, plus
/// 119 (ranks and files -7 to 7).
static LIES: [Lie; 239] = {
    const fn bits(kinds: &[usize]) -> u16 {
        let mut m = 0;
        let mut i = 0;
        while i < kinds.len() {
            m |= 1 << kinds[i];
            i += 1;
        }
        m
    }
    const KHAN: usize = Kind::Khan as usize;
    const KHAN_ARCHER: usize = Kind::KhanArcher as usize;
    const KHAN_SWORD: usize = Kind::KhanSword as usize;
    const BONDSMAN: usize = Kind::Bondsman as usize;
    const WARRIOR: usize = Kind::Warrior as usize;
    const ARCHER: usize = Kind::Archer as usize;
    const SWORDSMAN: usize = Kind::Swordsman as usize;
    const ASSASSIN: usize = Kind::Assassin as usize;
    const MAGICIAN: usize = Kind::Magician as usize;
    const POWER: usize = Kind::PowerMagician as usize;
    const DEMOTED: usize = Kind::DemotedMagician as usize;
    // KR-3.6's two king steps: the warrior, the power magician moving as
    // one (KR-3.5), the bondsman (KR-3.7) and the khan (KR-3.8).
    let stepping = bits(&[WARRIOR, POWER, BONDSMAN, KHAN]);
    // One orthogonal step: those, the archers (KR-3.2), the assassin
    // (KR-3.3), the magicians (KR-3.4), the orthogonal power magician.
    let orthogonal_one = stepping
        | bits(&[
            ARCHER,
            KHAN_ARCHER,
            ASSASSIN,
            MAGICIAN,
            DEMOTED,
            ORTHOGONAL_POWER,
        ]);
    // One diagonal step: the steppers, the archers, the swords (KR-3.1).
    let diagonal_one = stepping | bits(&[ARCHER, KHAN_ARCHER, SWORDSMAN, KHAN_SWORD]);
    // Slides: two orthogonal squares (the assassin, the orthogonal power
    // magician), three (the bondsman), three along any line (the khan).
    let orthogonal_two = bits(&[ASSASSIN, ORTHOGONAL_POWER, BONDSMAN, KHAN]);
    let orthogonal_three = bits(&[BONDSMAN, KHAN]);
    let diagonal_slide = bits(&[KHAN]);
    let none = Lie {
        direct: 0,
        line: 0,
        two: 0,
        step: 0,
        second: 0,
    };
    let mut table = [none; 239];
    let mut dr: i32 = -7;
    while dr <= 7 {
        let mut df: i32 = -7;
        while df <= 7 {
            let (f, r) = (df.abs(), dr.abs());
            let d = if f > r { f } else { r };
            let orthogonal = f == 0 || r == 0;
            let diagonal = f == r;
            let step = (df.signum() + 8 * dr.signum()) as i8;
            let mut lie = none;
            if d == 1 {
                lie.direct = if orthogonal {
                    orthogonal_one
                } else {
                    diagonal_one
                };
            } else if d == 2 {
                lie.two = stepping;
                if orthogonal || diagonal {
                    lie.line = if orthogonal {
                        orthogonal_two
                    } else {
                        diagonal_slide
                    };
                    lie.step = step;
                    lie.second = step;
                }
            } else if d == 3 && (orthogonal || diagonal) {
                lie.line = if orthogonal {
                    orthogonal_three
                } else {
                    diagonal_slide
                };
                lie.step = step;
                lie.second = 2 * step;
            }
            table[(dr * 16 + df + 119) as usize] = lie;
            df += 1;
        }
        dr += 1;
    }
    table
};

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Every square of `b` moved one step by (`df`, `dr`) (one of the eight
/// king steps); steps off the board are dropped, files do not wrap.
#[inline(always)]
const fn step(b: u64, df: i8, dr: i8) -> u64 {
    let b = match df {
        1 => b & !FILE_H,
        -1 => b & !FILE_A,
        _ => b,
    };
    let s = dr * 8 + df;
    if s >= 0 { b << s } else { b >> -s }
}

/// Every square a `kind` on `from` could end a move on, given the set of
/// `open` squares it may pass through (empty and not manned). What stands on
/// the target is not considered here.
pub(crate) fn reach(
    from: Square,
    kind: Kind,
    open: Bitboard,
    power: PowerMagicianMoves,
) -> Bitboard {
    match kind {
        // KR-3.1
        Kind::Swordsman | Kind::KhanSword => DIAG[from.index()],
        // KR-3.2
        Kind::Archer | Kind::KhanArcher => KING[from.index()],
        // KR-3.3
        Kind::Assassin => slides(from, open, &ORTHOGONAL, 2),
        // KR-3.4
        Kind::Magician | Kind::DemotedMagician => ORTHO[from.index()],
        // KR-3.6
        Kind::Warrior => two_steps(from, open),
        // KR-3.5
        Kind::PowerMagician => match power {
            PowerMagicianMoves::Warrior => two_steps(from, open),
            PowerMagicianMoves::Orthogonal => slides(from, open, &ORTHOGONAL, 2),
        },
        // KR-3.7
        Kind::Bondsman => two_steps(from, open) | slides(from, open, &ORTHOGONAL, 3),
        // KR-3.8
        Kind::Khan => two_steps(from, open) | slides(from, open, &DIRECTIONS, 3),
    }
}

/// What every piece's pseudo-moves are worked out from, computed once per
/// position.
#[derive(Clone, Copy)]
struct PseudoBoard {
    own: Bitboard,
    enemy: Bitboard,
    empty: Bitboard,
    open: Bitboard,
    spellable: Bitboard,
    not_sword_prey: Bitboard,
    carriers: Bitboard,
}

impl PseudoBoard {
    fn of(pos: &Position) -> Self {
        let us = pos.turn;
        let enemy = pos.by_side[us.opposite().index()];
        let empty = !pos.occupied();
        PseudoBoard {
            own: pos.by_side[us.index()],
            enemy,
            empty,
            open: pos.open(),
            spellable: pos.spell_targets(us) | (pos.manned & empty),
            not_sword_prey: enemy & !pos.mounted(),
            carriers: pos.carriers(),
        }
    }
}

impl Position {
    /// Squares a piece may pass through: empty and not manned.
    pub(crate) fn open(&self) -> Bitboard {
        !(self.occupied() | self.manned)
    }

    /// KR-3.10: whether a `capturer` may capture a `victim` under the options.
    pub(crate) fn may_capture(&self, capturer: Kind, victim: Kind) -> bool {
        self.rules.options.swords_capture_mounts || !(is_sword(capturer) && is_mounted(victim))
    }

    fn mounted(&self) -> Bitboard {
        self.by_kind[Kind::Warrior.index()]
            | self.by_kind[Kind::Bondsman.index()]
            | self.by_kind[Kind::Khan.index()]
            | self.by_kind[Kind::PowerMagician.index()]
    }

    /// KR-4.2, KR-4.3: enemy pieces of `side`'s that a spell may target.
    fn spell_targets(&self, side: Side) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for kind in Kind::ALL {
            if demoted(kind).is_some()
                && (self.rules.options.magician_demotes_khan || !is_khan_type(kind))
            {
                b |= self.by_kind[kind.index()];
            }
        }
        b & self.by_side[side.opposite().index()]
    }

    /// KR-4.1, KR-P3: a caster's spell range, or `None` if `kind` casts none.
    pub(crate) fn spell_range(&self, kind: Kind) -> Option<u8> {
        base_spell_range(kind)
            .map(|r| r.saturating_add(self.rules.options.magician_extended_demotion_sqs))
    }

    /// KR-P7: an enemy (of `by`'s) piece that attacks `target`: could capture
    /// there by an ordinary move. Spells never attack. Of several, the one on
    /// the lowest square.
    pub fn attacker(&self, target: Square, by: Side) -> Option<Square> {
        self.attackers(target, by).first()
    }

    /// Every piece of `by`'s that attacks `target` (KR-P7).
    ///
    /// Every movement is symmetric: a piece on `a` reaches `b` exactly when
    /// the same kind on `b` would reach `a` over the same open squares (one
    /// step, two steps with an open middle square, a ray with open squares
    /// between). So instead of asking each nearby enemy piece whether it
    /// reaches the target, this asks once per movement which squares the
    /// target reaches, and keeps the pieces there that move that way. The
    /// royal test of every checked move comes here (the replay's fast path
    /// asks it with the move played: `Position::royal_attacker`).
    #[inline(always)]
    pub(crate) fn attackers(&self, target: Square, by: Side) -> Bitboard {
        let theirs = self.by_side[by.index()];
        let open = self.open();
        let victim = self.squares[target.index()].map(|p| p.kind);
        let t = target.index();
        // Every movement ends within king distance two of its start, or up
        // to three squares along one of the eight lines (KR-3): with none
        // of `theirs` there, nothing attacks the target, and the lookups
        // below are not needed (far from the fighting, the common case).
        if (theirs & REACH[t]).is_empty() {
            return Bitboard::EMPTY;
        }
        let kinds = |ks: &[Kind]| {
            ks.iter()
                .fold(Bitboard::EMPTY, |b, k| b | self.by_kind[k.index()])
        };
        let (power_two, power_orth) = match self.rules.options.power_magician_moves {
            PowerMagicianMoves::Warrior => (kinds(&[Kind::PowerMagician]), Bitboard::EMPTY),
            PowerMagicianMoves::Orthogonal => (Bitboard::EMPTY, kinds(&[Kind::PowerMagician])),
        };
        let swords = kinds(&[Kind::Swordsman, Kind::KhanSword]) & theirs;
        let mut found = swords & DIAG[t];
        found |= kinds(&[Kind::Archer, Kind::KhanArcher]) & theirs & KING[t];
        found |= kinds(&[Kind::Magician, Kind::DemotedMagician]) & theirs & ORTHO[t];
        // Only pieces near enough can reach: one or two king steps end within
        // king distance two, slides run at most two (assassin, orthogonal
        // power magician) or three (bondsman, khan) squares along a line. Each
        // such piece is asked directly whether its movement ends on the target
        // (a few bitboard tests), instead of walking the target's rays.
        let near = (((kinds(&[Kind::Warrior, Kind::Bondsman, Kind::Khan]) | power_two) & NEAR2[t])
            | ((kinds(&[Kind::Assassin]) | power_orth) & ORTHO_LINES2[t])
            | (kinds(&[Kind::Bondsman]) & ORTHO_LINES3[t])
            | (kinds(&[Kind::Khan]) & LINES3[t]))
            & theirs;
        let power = self.rules.options.power_magician_moves;
        for from in near {
            if let Some(p) = self.squares[from.index()] {
                // Selected without a jump: which of them reach depends on
                // the board, in no order a predictor learns.
                let reaching = reaches(from, target, p.kind, open, power);
                found |= std::hint::select_unpredictable(
                    reaching,
                    Bitboard::from_square(from),
                    Bitboard::EMPTY,
                );
            }
        }
        // KR-3.10: a sword that may not capture the piece there does not attack it.
        if let Some(victim) = victim
            && !self.may_capture(Kind::Swordsman, victim)
        {
            found &= !swords;
        }
        found
    }

    /// Every move that obeys the movement, capture, spell, exchange and
    /// transfer rules, before the royal-leader test.
    pub(crate) fn pseudo_moves(&self, out: &mut Vec<Move>) {
        let board = PseudoBoard::of(self);
        for from in board.own {
            self.pseudo_moves_from(&board, from, out);
        }
    }

    /// [`Position::pseudo_moves`] of the piece on `from` (one of the side
    /// to move's), appended to `out`.
    fn pseudo_moves_from(&self, board: &PseudoBoard, from: Square, out: &mut Vec<Move>) {
        let PseudoBoard {
            own,
            enemy,
            empty,
            open,
            spellable,
            not_sword_prey,
            carriers,
        } = *board;
        let opts = &self.rules.options;
        let Some(Piece { kind, .. }) = self.squares[from.index()] else {
            return;
        };
        let r = reach(from, kind, open, opts.power_magician_moves);
        for to in r & empty {
            out.push(Move::step(from, to));
        }
        let prey = if opts.swords_capture_mounts || !is_sword(kind) {
            enemy
        } else {
            not_sword_prey
        };
        for to in r & prey {
            out.push(Move::capture(from, to));
        }
        if let Some(range) = self.spell_range(kind) {
            for to in within(from, range) & spellable {
                out.push(Move::spell(from, to));
            }
        }
        if opts.exchanges && exchange_receives(kind).is_some() {
            for to in KING[from.index()] & own {
                if self.squares[to.index()].is_some_and(|g| exchange_gives(g.kind).is_some()) {
                    out.push(Move::exchange(from, to));
                }
            }
        }
        if carriers.contains(from) {
            for to in KING[from.index()] & own & !carriers {
                out.push(Move::transfer(from, to));
            }
        }
    }

    /// Whether a move that obeys the movement rules also passes the
    /// royal-leader test (KR-6.2, KR-P5, KR-P6).
    pub(crate) fn passes_royal_test(&self, mv: &Move) -> bool {
        self.royal_attacker_after(mv).is_none()
    }

    /// If the move leaves the mover's royal leader attacked: the leader's
    /// square in the new position and the attacker's square.
    pub(crate) fn royal_attacker_after(&self, mv: &Move) -> Option<(Square, Square)> {
        self.royal_test(mv, None).err()
    }

    /// The royal-leader test: `Err` with the leader's and the attacker's
    /// squares if the move leaves the leader attacked. If it had to play the
    /// move and `out` is given, the position after the move is left there and
    /// the answer is `Ok(true)`, so a caller that goes on to play the move
    /// need not play it twice. (Written into place, not returned: a position
    /// is a few hundred bytes, and moving it through `Result`s costs copies.)
    pub(crate) fn royal_test(
        &self,
        mv: &Move,
        out: Option<&mut Position>,
    ) -> Result<bool, (Square, Square)> {
        let us = self.turn;
        let before = self.leaders(us);
        // A move loses at most one of the mover's leaders (walking it into a
        // manned square, or giving the bondsman's horse in an exchange); with
        // two left over nobody is royal, so there is nothing to test.
        if before.more_than(2) || (before.more_than(1) && !self.may_lose_leader(mv)) {
            return Ok(false);
        }
        let mut local;
        let next = match out {
            Some(out) => {
                *out = *self;
                out
            }
            None => {
                local = *self;
                &mut local
            }
        };
        next.play(mv, &mut NoEvents);
        match next.royal_attacker(us) {
            Some(attacked) => Err(attacked),
            None => Ok(true),
        }
    }

    /// KR-6.2, KR-P6, asked of the position after a move of `mover`'s: if
    /// its royal leader (its only leader, when it has exactly one) is
    /// attacked, the leader's square and the lowest attacker's. The general
    /// path's [`Position::royal_test`] and the replay's fast path, which
    /// plays a move in place before asking, both ask here.
    #[inline(always)]
    pub(crate) fn royal_attacker(&self, mover: Side) -> Option<(Square, Square)> {
        let royal = self.royal(mover)?;
        Some((royal, self.attackers(royal, mover.opposite()).first()?))
    }

    fn may_lose_leader(&self, mv: &Move) -> bool {
        let leaders = self.leaders(self.turn);
        match mv.action {
            Action::Move | Action::Capture => {
                leaders.contains(mv.from) && self.manned.contains(mv.to)
            }
            Action::Exchange => leaders.contains(mv.to),
            Action::Spell | Action::Transfer => false,
        }
    }

    /// The legal moves, whatever the state of the game (used to tell
    /// checkmate and stalemate).
    pub(crate) fn legal_moves_ignoring_end(&self, out: &mut Vec<Move>) {
        out.clear();
        self.pseudo_moves(out);
        out.retain(|mv| self.passes_royal_test(mv));
    }

    /// Whether the side to move has any legal move, whatever the state of the game.
    ///
    /// Piece by piece, stopping at the first legal move: asked after every
    /// move a replay plays, and nearly always answered by the first piece,
    /// so the other pieces' moves need not be generated.
    pub(crate) fn has_legal_move(&self) -> bool {
        let board = PseudoBoard::of(self);
        let mut moves = Vec::with_capacity(32);
        for from in board.own {
            moves.clear();
            self.pseudo_moves_from(&board, from, &mut moves);
            if moves.iter().any(|mv| self.passes_royal_test(mv)) {
                return true;
            }
        }
        false
    }
}

/// The legal moves in `pos`; none once the game is over (KR-P14).
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut out = Vec::with_capacity(64);
    legal_moves_into(pos, &mut out);
    out
}

/// [`legal_moves`] into a reused buffer (cleared first).
pub fn legal_moves_into(pos: &Position, out: &mut Vec<Move>) {
    out.clear();
    if pos.delivered.is_some() || pos.leaderless(Side::White) || pos.leaderless(Side::Black) {
        return;
    }
    pos.legal_moves_ignoring_end(out);
    // KR-6.5 comes after checkmate and stalemate (KR-P14), which an empty list already is.
    if pos.halfmoves >= 100 {
        out.clear();
    }
}
