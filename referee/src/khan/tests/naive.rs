//! An independent, deliberately slow move generator written straight from
//! the rules text (docs/rules/khan.md), sharing nothing with the referee's
//! generator but the letters of the pieces: its own board (a map of
//! coordinates), its own path search (every middle square tried, every
//! square of the board tried as a target), its own consequences of a move.
//! The referee's counts and positions are checked against it.

use std::collections::{BTreeMap, BTreeSet};

use yam_notation::khan::{
    Action, Captive, EngineFen, Kind, Piece, Side, Square, TowerText, YamPosition,
};

use crate::khan::{Options, Position, PowerMagicianMoves};

/// (file, rank), both 0..8.
type Sq = (i8, i8);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Loc {
    Tower(usize),
    Carried(Sq),
    Waiting(Sq),
}

/// A move as the naive generator sees it.
pub type NaiveMove = (Action, Sq, Sq);

#[derive(Clone, Debug)]
pub struct Naive {
    board: BTreeMap<Sq, (Side, Kind)>,
    turn: Side,
    halfmoves: u32,
    fullmoves: u32,
    towers: Vec<Vec<Sq>>,
    manned: BTreeSet<Sq>,
    gers: Vec<(Sq, Side)>,
    captives: Vec<(Captive, Loc)>,
    delivered: Option<Side>,
    opts: Options,
    camps: [Vec<Sq>; 2],
}

fn to_sq(s: Square) -> Sq {
    (s.file() as i8, s.rank() as i8)
}

fn from_sq(s: Sq) -> Square {
    Square::new(s.0 as u8, s.1 as u8).expect("on the board")
}

fn all_squares() -> impl Iterator<Item = Sq> {
    (0..8).flat_map(|r| (0..8).map(move |f| (f, r)))
}

fn king_distance(a: Sq, b: Sq) -> i8 {
    (a.0 - b.0).abs().max((a.1 - b.1).abs())
}

fn letter(k: Kind) -> char {
    k.letter()
}

fn kind(c: char) -> Kind {
    Kind::from_letter(c).expect("a piece letter")
}

impl Naive {
    /// Read the referee's position through its text, the way a stranger would.
    pub fn from_position(pos: &Position) -> Naive {
        let yam = YamPosition::parse(&pos.to_yam()).expect("the referee prints valid text");
        let mut board = BTreeMap::new();
        for s in Square::all() {
            if let Some(p) = yam.fen.board[s.index()] {
                board.insert(to_sq(s), (p.side, p.kind));
            }
        }
        let mut captives = Vec::new();
        for (i, t) in yam.towers.iter().enumerate() {
            if let Some(c) = t.captive {
                captives.push((c, Loc::Tower(i)));
            }
        }
        for &(s, c) in &yam.carried {
            captives.push((c, Loc::Carried(to_sq(s))));
        }
        for &(s, c) in &yam.waiting {
            captives.push((c, Loc::Waiting(to_sq(s))));
        }
        let rules = pos.rules();
        Naive {
            board,
            turn: yam.fen.side,
            halfmoves: yam.fen.halfmoves,
            fullmoves: yam.fen.fullmoves,
            towers: yam
                .towers
                .iter()
                .map(|t| t.squares.iter().map(|s| to_sq(*s)).collect())
                .collect(),
            manned: yam.manned.iter().map(|s| to_sq(*s)).collect(),
            gers: yam
                .gers
                .iter()
                .map(|(s, side)| (to_sq(*s), *side))
                .collect(),
            captives,
            delivered: yam.delivered,
            opts: rules.options,
            camps: [
                rules.camps[0].iter().map(to_sq).collect(),
                rules.camps[1].iter().map(to_sq).collect(),
            ],
        }
    }

    /// The position in Yam's text, canonical order, to compare with the referee's.
    pub fn to_yam(&self) -> String {
        let mut fen_board = [None; 64];
        for (s, (side, k)) in &self.board {
            fen_board[from_sq(*s).index()] = Some(Piece::new(*side, *k));
        }
        let mut yam = YamPosition::from_fen(EngineFen {
            board: fen_board,
            side: self.turn,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        });
        let idx = |s: &Sq| from_sq(*s).index();
        for (i, t) in self.towers.iter().enumerate() {
            let mut squares: Vec<Square> = t.iter().map(|s| from_sq(*s)).collect();
            squares.sort();
            let captive = self
                .captives
                .iter()
                .find(|(_, l)| *l == Loc::Tower(i))
                .map(|(c, _)| *c);
            yam.towers.push(TowerText { squares, captive });
        }
        let mut manned: Vec<Sq> = self.manned.iter().copied().collect();
        manned.sort_by_key(idx);
        yam.manned = manned.into_iter().map(from_sq).collect();
        let mut gers = self.gers.clone();
        gers.sort_by_key(|(s, _)| idx(s));
        yam.gers = gers
            .into_iter()
            .map(|(s, side)| (from_sq(s), side))
            .collect();
        let mut carried = Vec::new();
        let mut waiting = Vec::new();
        for (c, l) in &self.captives {
            match l {
                Loc::Carried(s) => carried.push((from_sq(*s), *c)),
                Loc::Waiting(s) => waiting.push((from_sq(*s), *c)),
                Loc::Tower(_) => {}
            }
        }
        carried.sort_by_key(|(s, _)| *s);
        waiting.sort_by_key(|(s, _)| *s);
        yam.carried = carried;
        yam.waiting = waiting;
        yam.delivered = self.delivered;
        yam.to_string()
    }

    fn at(&self, s: Sq) -> Option<(Side, Kind)> {
        self.board.get(&s).copied()
    }

    /// "blocked by any piece on its path"; "a manned square blocks passage like a piece".
    fn open(&self, s: Sq) -> bool {
        self.at(s).is_none() && !self.manned.contains(&s)
    }

    fn carried(&self, s: Sq) -> Option<Captive> {
        self.captives
            .iter()
            .find(|(_, l)| *l == Loc::Carried(s))
            .map(|(c, _)| *c)
    }

    /// Straight line of length 1..=n (orthogonal only, or also diagonal),
    /// every square before the target open.
    fn slide(&self, from: Sq, to: Sq, n: i8, diagonal_too: bool) -> bool {
        let (dx, dy) = (to.0 - from.0, to.1 - from.1);
        let straight = dx == 0 || dy == 0;
        let diag = dx.abs() == dy.abs();
        if !(straight || (diagonal_too && diag)) {
            return false;
        }
        let d = king_distance(from, to);
        if d == 0 || d > n {
            return false;
        }
        let (sx, sy) = (dx.signum(), dy.signum());
        (1..d).all(|i| self.open((from.0 + sx * i, from.1 + sy * i)))
    }

    /// "one king step, or two king steps whose middle square is empty (any middle square will do)".
    fn warrior(&self, from: Sq, to: Sq) -> bool {
        match king_distance(from, to) {
            1 => true,
            2 => (-1..=1).any(|df| {
                (-1..=1).any(|dr| {
                    let m = (from.0 + df, from.1 + dr);
                    m != from
                        && (0..8).contains(&m.0)
                        && (0..8).contains(&m.1)
                        && king_distance(m, to) == 1
                        && self.open(m)
                })
            }),
            _ => false,
        }
    }

    fn reaches(&self, from: Sq, to: Sq, k: Kind) -> bool {
        let (dx, dy) = ((to.0 - from.0).abs(), (to.1 - from.1).abs());
        match letter(k) {
            'S' | 'I' => dx == 1 && dy == 1,
            'A' | 'J' => king_distance(from, to) == 1,
            'N' => self.slide(from, to, 2, false),
            'M' | 'G' => dx + dy == 1,
            'W' => self.warrior(from, to),
            'H' => match self.opts.power_magician_moves {
                PowerMagicianMoves::Warrior => self.warrior(from, to),
                PowerMagicianMoves::Orthogonal => self.slide(from, to, 2, false),
            },
            'F' => self.warrior(from, to) || self.slide(from, to, 3, false),
            'K' => self.warrior(from, to) || self.slide(from, to, 3, true),
            _ => false,
        }
    }

    fn sword_may_take(&self, attacker: Kind, victim: Kind) -> bool {
        let sword = matches!(letter(attacker), 'S' | 'I');
        let mounted = matches!(letter(victim), 'W' | 'F' | 'K' | 'H');
        self.opts.swords_capture_mounts || !(sword && mounted)
    }

    fn leaders(&self, side: Side) -> Vec<Sq> {
        self.board
            .iter()
            .filter(|(_, (s, k))| {
                *s == side
                    && (matches!(letter(*k), 'K' | 'J' | 'I')
                        || (self.opts.bondsmen_leaders && letter(*k) == 'F'))
            })
            .map(|(sq, _)| *sq)
            .collect()
    }

    fn leaderless(&self, side: Side) -> bool {
        self.leaders(side).is_empty()
            && (self.opts.bondsmen_leaders
                || !self.captives.iter().any(|(c, _)| *c == Captive::Khan(side)))
    }

    fn attacked(&self, target: Sq, by: Side) -> bool {
        let victim = self.at(target).map(|p| p.1);
        self.board.iter().any(|(s, (side, k))| {
            *side == by
                && victim.is_none_or(|v| self.sword_may_take(*k, v))
                && self.reaches(*s, target, *k)
        })
    }

    /// Every piece of `by`'s that attacks `target`, in square order: the
    /// figure the fast generator's reverse lookup is held to.
    pub fn attackers(&self, target: Square, by: Side) -> Vec<Square> {
        let t = to_sq(target);
        let victim = self.at(t).map(|p| p.1);
        let mut found: Vec<Square> = self
            .board
            .iter()
            .filter(|(s, (side, k))| {
                **s != t
                    && *side == by
                    && victim.is_none_or(|v| self.sword_may_take(*k, v))
                    && self.reaches(**s, t, *k)
            })
            .map(|(s, _)| from_sq(*s))
            .collect();
        found.sort_by_key(|s| s.index());
        found
    }

    fn demote(k: Kind) -> Option<Kind> {
        Some(kind(match letter(k) {
            'K' => 'J',
            'J' => 'I',
            'H' => 'M',
            'M' => 'G',
            'W' => 'A',
            'A' => 'S',
            'N' => 'S',
            _ => return None,
        }))
    }

    fn pseudo(&self) -> Vec<NaiveMove> {
        let us = self.turn;
        let mut out = Vec::new();
        for (&from, &(side, k)) in &self.board {
            if side != us {
                continue;
            }
            for to in all_squares() {
                if to == from {
                    continue;
                }
                let target = self.at(to);
                let d = king_distance(from, to);
                match target {
                    None if self.reaches(from, to, k) => out.push((Action::Move, from, to)),
                    Some((s, v))
                        if s != us && self.reaches(from, to, k) && self.sword_may_take(k, v) =>
                    {
                        out.push((Action::Capture, from, to))
                    }
                    _ => {}
                }
                let range = match letter(k) {
                    'M' | 'H' => Some(2),
                    'G' => Some(1),
                    _ => None,
                }
                .map(|r: i8| r + self.opts.magician_extended_demotion_sqs.min(7) as i8);
                if let Some(r) = range
                    && d <= r
                {
                    let ok = match target {
                        Some((s, v)) => {
                            s != us
                                && Naive::demote(v).is_some()
                                && (self.opts.magician_demotes_khan
                                    || !matches!(letter(v), 'K' | 'J' | 'I'))
                        }
                        None => self.manned.contains(&to),
                    };
                    if ok {
                        out.push((Action::Spell, from, to));
                    }
                }
                if self.opts.exchanges
                    && matches!(letter(k), 'J' | 'I' | 'M' | 'G')
                    && d == 1
                    && matches!(target, Some((s, g)) if s == us && matches!(letter(g), 'F' | 'W' | 'A'))
                {
                    out.push((Action::Exchange, from, to));
                }
                if self.carried(from).is_some()
                    && d == 1
                    && matches!(target, Some((s, _)) if s == us)
                    && self.carried(to).is_none()
                {
                    out.push((Action::Transfer, from, to));
                }
            }
        }
        out
    }

    /// The legal moves; none once the game is over.
    pub fn moves(&self) -> Vec<NaiveMove> {
        if self.delivered.is_some() || self.leaderless(Side::White) || self.leaderless(Side::Black)
        {
            return Vec::new();
        }
        let us = self.turn;
        let legal: Vec<NaiveMove> = self
            .pseudo()
            .into_iter()
            .filter(|mv| {
                let next = self.play(mv);
                let leaders = next.leaders(us);
                leaders.len() != 1 || !next.attacked(leaders[0], us.opposite())
            })
            .collect();
        if self.halfmoves >= 100 {
            Vec::new()
        } else {
            legal
        }
    }

    fn drop_captive(&mut self, c: Captive) {
        self.captives.retain(|(x, _)| *x != c);
    }

    fn set_loc(&mut self, c: Captive, l: Loc) {
        for (x, loc) in &mut self.captives {
            if *x == c {
                *loc = l;
            }
        }
    }

    /// The position after `mv`, following the rules text step by step.
    pub fn play(&self, mv: &NaiveMove) -> Naive {
        let mut n = self.clone();
        let (action, from, to) = *mv;
        let us = n.turn;
        let mut reset = false;
        match action {
            Action::Move | Action::Capture => {
                let (side, mut k) = n.board.remove(&from).expect("a mover");
                let mut carrying = n.carried(from);
                let victim = n.board.remove(&to);
                if let Some((_, v)) = victim {
                    reset = true;
                    if let Some(vc) = n.carried(to) {
                        // "if the captured piece carries the capturer's own khan, the capturer
                        // takes it, and any enemy captive the capturer held dies; if it carries
                        // the enemy's khan, that khan dies"; the general is taken over.
                        if vc == Captive::Khan(side) || vc == Captive::General {
                            if let Some(old) = carrying {
                                n.drop_captive(old);
                            }
                            carrying = Some(vc);
                        } else {
                            n.drop_captive(vc);
                        }
                    }
                    if n.opts.capture_promotions {
                        k = match (letter(k), letter(v)) {
                            ('S', 'A') => kind('A'),
                            ('S' | 'A', 'W') => kind('W'),
                            _ => k,
                        };
                    }
                }
                if let Some(c) = carrying {
                    n.set_loc(c, Loc::Carried(to));
                }
                if n.manned.contains(&to) && !matches!(letter(k), 'M' | 'H' | 'G') {
                    // Dies there, with whatever it carries.
                    reset = true;
                    if let Some(c) = carrying {
                        n.drop_captive(c);
                    }
                } else {
                    if carrying.is_none()
                        && let Some(t) = n.towers.iter().position(|t| t.contains(&to))
                        && !n.manned.contains(&to)
                        && let Some((c, _)) = n
                            .captives
                            .iter()
                            .find(|(_, l)| *l == Loc::Tower(t))
                            .copied()
                    {
                        n.set_loc(c, Loc::Carried(to));
                        carrying = Some(c);
                    }
                    match carrying {
                        Some(Captive::Khan(owner)) if n.gers.contains(&(to, owner)) => {
                            n.set_loc(Captive::Khan(owner), Loc::Waiting(to));
                        }
                        Some(Captive::General) if n.gers.contains(&(to, side)) => {
                            n.drop_captive(Captive::General);
                            n.delivered = Some(side);
                        }
                        _ => {}
                    }
                    if n.opts.base_promotions && n.camps[side.index()].contains(&to) {
                        k = kind(match letter(k) {
                            'S' | 'N' | 'A' => 'W',
                            'I' => 'J',
                            'J' => 'K',
                            'G' => 'M',
                            'M' => 'H',
                            c => c,
                        });
                    }
                    n.board.insert(to, (side, k));
                }
            }
            Action::Spell => match n.at(to) {
                Some((s, v)) => {
                    if let Some(d) = Naive::demote(v) {
                        n.board.insert(to, (s, d));
                    }
                }
                None => {
                    n.manned.remove(&to);
                }
            },
            Action::Exchange => {
                let (s, r) = n.at(from).expect("receiver");
                let (_, g) = n.at(to).expect("giver");
                let up = match letter(r) {
                    'I' => 'J',
                    'J' => 'K',
                    'G' => 'M',
                    'M' => 'H',
                    c => c,
                };
                let down = match letter(g) {
                    'F' => 'W',
                    'W' => 'A',
                    'A' => 'S',
                    c => c,
                };
                n.board.insert(from, (s, kind(up)));
                n.board.insert(to, (s, kind(down)));
            }
            Action::Transfer => {
                if let Some(c) = n.carried(from) {
                    n.set_loc(c, Loc::Carried(to));
                }
            }
        }
        // Release: a khan waiting at a ger that is now empty appears on it.
        let waiting: Vec<(Captive, Sq)> = n
            .captives
            .iter()
            .filter_map(|(c, l)| match l {
                Loc::Waiting(g) => Some((*c, *g)),
                _ => None,
            })
            .collect();
        for (c, g) in waiting {
            if n.at(g).is_none()
                && let Captive::Khan(side) = c
            {
                n.drop_captive(c);
                n.board.insert(g, (side, Kind::Khan));
            }
        }
        n.halfmoves = if reset { 0 } else { n.halfmoves + 1 };
        if us == Side::Black {
            n.fullmoves += 1;
        }
        n.turn = us.opposite();
        n
    }

    /// Perft, the slow way.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|m| self.play(m).perft(depth - 1)).sum()
    }
}

/// The naive move's form in the referee's terms.
pub fn as_move(mv: &NaiveMove) -> crate::khan::Move {
    crate::khan::Move::new(mv.0, from_sq(mv.1), from_sq(mv.2))
}
