//! Castle Siege: sides, unit letters, setups and order tokens, as text.
//! Syntax only: whether an order is legal, and what it does, is the referee's
//! business (`yam_referee::castle_siege`). The rules, with the notation, are
//! in `docs/rules/castle-siege.md`.
//!
//! # Units
//!
//! One letter per unit type, the same for both sides (whose unit it is
//! follows from whose turn it is, or, for a target, from the other side):
//!
//! | letter | unit | Defender | Attacker |
//! |---|---|---|---|
//! | `C` | cannon | 4 | 4 |
//! | `K` | knight | 4 | 8 |
//! | `A` | archer | 4 | 4 |
//! | `O` | boiling-oil cauldron | 4 | — |
//! | `S` | sapper | — | 4 |
//! | `R` | battering ram | — | 4 |
//! | `T` | siege tower | — | 4 |
//!
//! # Tokens
//!
//! ```text
//! token  = setup | order [mark]
//! setup  = side ":" ("sealed" | placement)
//! side   = "Defender" | "Attacker"
//! order  = "Move" | "Breach" | "Attack" | "End"        phase markers, end of turn
//!        | unit square "-" square                      a step (an entry attempt when it enters the castle)
//!        | unit square "#" square                      a breach attempt on a castle square
//!        | unit square "x" unit square                 an attack on an enemy unit of that type there
//! mark   = "@" face                                    the die that resolved it, 1 to 6
//!        | "/skip"                                     declared, but skipped: it drew no die
//! unit   = "C" | "K" | "A" | "O" | "S" | "R" | "T"
//! ```
//!
//! A **declared** order has no mark: nobody knows its die yet. The
//! **resolved** order in the movetext carries the die that resolved it, so a
//! reader sees every face: `Move@4` (the Move phase's allowance was 4),
//! `Kb4-c4@5` (an entry attempt rolled 5), `Rb4#c4@2` (a breach attempt
//! rolled 2), `Ab5xKc5@6` (an archer's attack on a knight rolled 6). A step
//! that needs no die (on open ground, or a defender's) is written bare:
//! `Kb3-b4`. An order that became impossible before its turn came (its unit
//! died, its target is gone, the allowance was spent) is written with
//! `/skip`: `Kc4xAc4/skip`.
//!
//! A setup is committed first (`Defender:sealed`, the commitment itself is
//! evidence in the signed record) and revealed later as a placement: the
//! letters of the side's units square by square, rank by rank from the top
//! like a FEN, over the side's own setup squares (see [`setup_squares`]):
//!
//! * Defender, the castle c6–f6 / c5–f5 / c4–f4 / c3–f3:
//!   `Defender:CKAO/OACK/KCOA/AOKC`;
//! * Attacker, the edge: rank 8 (a–h), then a and h of ranks 7 to 2, then
//!   rank 1 (a–h): `Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK`.
//!
//! Reading is lenient about case (`kB4-C4@5`, `move@4`, `/SKIP`); printing is
//! canonical: upper-case unit letters, capitalised keywords, lower-case
//! squares. No token starts with a digit, `*`, `+` or `-`, and none contains
//! whitespace, `{ } ( ) [ ] $ ;`, `!` or `?`: every token starts with a letter
//! and uses only letters, digits and `- # x @ / :`.

use std::fmt;
use std::str::FromStr;

use nom::{
    IResult, Parser, branch::alt, bytes::complete::tag_no_case, character::complete::satisfy,
    combinator::value,
};

use crate::grammar::{MoveGrammar, TokenError};
pub use crate::khan::Square;
use crate::khan::square;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------
// Sides, units, faces

/// The two sides. The Defender plays first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Side {
    /// The besieged, inside the castle; plays first.
    Defender,
    /// The besiegers, outside it.
    Attacker,
}

impl Side {
    /// Both sides, Defender first (the order of play).
    pub const BOTH: [Side; 2] = [Side::Defender, Side::Attacker];

    /// The other side.
    pub const fn opposite(self) -> Side {
        match self {
            Side::Defender => Side::Attacker,
            Side::Attacker => Side::Defender,
        }
    }

    /// 0 for the Defender, 1 for the Attacker.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// "Defender" or "Attacker", as in tokens and tags.
    pub const fn name(self) -> &'static str {
        match self {
            Side::Defender => "Defender",
            Side::Attacker => "Attacker",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The seven unit types of the two armies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum UnitKind {
    /// `C`: both sides.
    Cannon,
    /// `K`: both sides.
    Knight,
    /// `A`: both sides.
    Archer,
    /// `O`: the Defender's boiling-oil cauldron.
    Cauldron,
    /// `S`: the Attacker's sapper.
    Sapper,
    /// `R`: the Attacker's battering ram.
    Ram,
    /// `T`: the Attacker's siege tower.
    Tower,
}

impl UnitKind {
    /// All seven, in letter order of the table above.
    pub const ALL: [UnitKind; 7] = [
        UnitKind::Cannon,
        UnitKind::Knight,
        UnitKind::Archer,
        UnitKind::Cauldron,
        UnitKind::Sapper,
        UnitKind::Ram,
        UnitKind::Tower,
    ];

    /// 0..7, the position in [`UnitKind::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The upper-case letter.
    pub const fn letter(self) -> char {
        match self {
            UnitKind::Cannon => 'C',
            UnitKind::Knight => 'K',
            UnitKind::Archer => 'A',
            UnitKind::Cauldron => 'O',
            UnitKind::Sapper => 'S',
            UnitKind::Ram => 'R',
            UnitKind::Tower => 'T',
        }
    }

    /// The unit type for a letter, either case.
    pub const fn from_letter(c: char) -> Option<UnitKind> {
        Some(match c.to_ascii_uppercase() {
            'C' => UnitKind::Cannon,
            'K' => UnitKind::Knight,
            'A' => UnitKind::Archer,
            'O' => UnitKind::Cauldron,
            'S' => UnitKind::Sapper,
            'R' => UnitKind::Ram,
            'T' => UnitKind::Tower,
            _ => return None,
        })
    }

    /// The name in words ("siege tower").
    pub const fn name(self) -> &'static str {
        match self {
            UnitKind::Cannon => "cannon",
            UnitKind::Knight => "knight",
            UnitKind::Archer => "archer",
            UnitKind::Cauldron => "cauldron",
            UnitKind::Sapper => "sapper",
            UnitKind::Ram => "ram",
            UnitKind::Tower => "siege tower",
        }
    }
}

impl fmt::Display for UnitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A face of a six-sided die, 1 to 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Face(u8);

impl Face {
    /// The face `n`, if it is 1 to 6.
    pub const fn new(n: u8) -> Option<Face> {
        if n >= 1 && n <= 6 {
            Some(Face(n))
        } else {
            None
        }
    }

    /// The number shown.
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

// ---------------------------------------------------------------------------
// Setup squares and placements

macro_rules! sq {
    ($($name:ident),* $(,)?) => { [$(Square::$name),*] };
}

/// The Defender's setup squares in placement order: the castle, rank 6 to
/// rank 3, files c to f.
pub const DEFENDER_SETUP_SQUARES: [Square; 16] = sq![
    C6, D6, E6, F6, C5, D5, E5, F5, C4, D4, E4, F4, C3, D3, E3, F3,
];

/// The Attacker's setup squares in placement order: the 28 edge squares,
/// rank 8 (a to h), then a and h of ranks 7 to 2, then rank 1 (a to h).
pub const ATTACKER_SETUP_SQUARES: [Square; 28] = sq![
    A8, B8, C8, D8, E8, F8, G8, H8, A7, H7, A6, H6, A5, H5, A4, H4, A3, H3, A2, H2, A1, B1, C1, D1,
    E1, F1, G1, H1,
];

/// How many letters each rank group of a placement holds, top rank first.
const fn groups(side: Side) -> &'static [usize] {
    match side {
        Side::Defender => &[4, 4, 4, 4],
        Side::Attacker => &[8, 2, 2, 2, 2, 2, 2, 8],
    }
}

/// A side's setup squares, in placement order.
pub const fn setup_squares(side: Side) -> &'static [Square] {
    match side {
        Side::Defender => &DEFENDER_SETUP_SQUARES,
        Side::Attacker => &ATTACKER_SETUP_SQUARES,
    }
}

/// A revealed placement as written: one unit letter per setup square of its
/// side, in [`setup_squares`] order. Whether the letters make up the side's
/// army is the referee's business.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Placement {
    side: Side,
    units: Vec<UnitKind>,
}

impl Placement {
    /// A placement of `units` over `side`'s setup squares, if the count is
    /// right (16 for the Defender, 28 for the Attacker).
    pub fn new(side: Side, units: Vec<UnitKind>) -> Option<Placement> {
        (units.len() == setup_squares(side).len()).then_some(Placement { side, units })
    }

    /// Whose placement.
    pub fn side(&self) -> Side {
        self.side
    }

    /// The units, in [`setup_squares`] order.
    pub fn units(&self) -> &[UnitKind] {
        &self.units
    }

    /// Each setup square with its unit.
    pub fn squares(&self) -> impl Iterator<Item = (Square, UnitKind)> + '_ {
        setup_squares(self.side)
            .iter()
            .copied()
            .zip(self.units.iter().copied())
    }

    /// Append the canonical text (`Defender:CKAO/...`).
    pub fn write(&self, out: &mut String) {
        out.push_str(self.side.name());
        out.push(':');
        let mut units = self.units.iter();
        for (i, n) in groups(self.side).iter().enumerate() {
            if i > 0 {
                out.push('/');
            }
            for u in units.by_ref().take(*n) {
                out.push(u.letter());
            }
        }
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(40);
        self.write(&mut s);
        f.write_str(&s)
    }
}

// ---------------------------------------------------------------------------
// Orders and tokens

/// The three phases of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Steps, within the d6 allowance.
    Move,
    /// Breach attempts on the castle walls.
    Breach,
    /// Attacks.
    Attack,
}

impl Phase {
    /// The three, in the order of a turn.
    pub const ALL: [Phase; 3] = [Phase::Move, Phase::Breach, Phase::Attack];

    /// The marker keyword.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Move => "Move",
            Phase::Breach => "Breach",
            Phase::Attack => "Attack",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An order as declared: what the player wants done, before any die.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// `Move`, `Breach`, `Attack`: the start of a phase.
    Phase(Phase),
    /// `End`: the end of the turn.
    End,
    /// `Kb2-c3`: one unit steps to a neighbouring square.
    Step {
        /// Its type.
        unit: UnitKind,
        /// Where it stands.
        from: Square,
        /// Where it goes.
        to: Square,
    },
    /// `Rb4#c4`: one unit tries to breach a castle square.
    Breach {
        /// Its type.
        unit: UnitKind,
        /// Where it stands.
        from: Square,
        /// The castle square.
        target: Square,
    },
    /// `Ab5xKc5`: one unit attacks an enemy unit of type `victim` on `target`.
    Attack {
        /// Its type.
        unit: UnitKind,
        /// Where it stands.
        from: Square,
        /// The enemy unit's type.
        victim: UnitKind,
        /// Where the enemy unit stands.
        target: Square,
    },
}

impl Order {
    /// The phase an order belongs to; `None` for `End`.
    pub const fn phase(&self) -> Option<Phase> {
        match self {
            Order::Phase(p) => Some(*p),
            Order::End => None,
            Order::Step { .. } => Some(Phase::Move),
            Order::Breach { .. } => Some(Phase::Breach),
            Order::Attack { .. } => Some(Phase::Attack),
        }
    }

    /// Append the canonical text.
    pub fn write(&self, out: &mut String) {
        match *self {
            Order::Phase(p) => out.push_str(p.name()),
            Order::End => out.push_str("End"),
            Order::Step { unit, from, to } => {
                out.push(unit.letter());
                push_square(out, from);
                out.push('-');
                push_square(out, to);
            }
            Order::Breach { unit, from, target } => {
                out.push(unit.letter());
                push_square(out, from);
                out.push('#');
                push_square(out, target);
            }
            Order::Attack {
                unit,
                from,
                victim,
                target,
            } => {
                out.push(unit.letter());
                push_square(out, from);
                out.push('x');
                out.push(victim.letter());
                push_square(out, target);
            }
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(10);
        self.write(&mut s);
        f.write_str(&s)
    }
}

/// What became of an order, as the movetext shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// No mark: declared and not yet resolved, or carried out without a die.
    Plain,
    /// `@n`: carried out with this die.
    Roll(Face),
    /// `/skip`: it became impossible and drew no die.
    Skipped,
}

impl Mark {
    /// Append the canonical text (nothing, `@n` or `/skip`).
    pub fn write(&self, out: &mut String) {
        match self {
            Mark::Plain => {}
            Mark::Roll(f) => {
                out.push('@');
                out.push(char::from(b'0' + f.get()));
            }
            Mark::Skipped => out.push_str("/skip"),
        }
    }
}

/// A Castle Siege token: a setup, or an order with its mark.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Token {
    /// `Defender:sealed`: the side has committed to its secret setup.
    Sealed(Side),
    /// `Defender:CKAO/...`: the side's setup, revealed.
    Setup(Placement),
    /// An order, declared (`Mark::Plain`) or resolved.
    Order {
        /// The order.
        order: Order,
        /// What became of it.
        mark: Mark,
    },
}

impl Token {
    /// A declared order (no mark).
    pub const fn declared(order: Order) -> Token {
        Token::Order {
            order,
            mark: Mark::Plain,
        }
    }

    /// Read a whole token.
    pub fn parse(token: &str) -> Result<Token, TokenError> {
        let at = |rest: &str| token.len() - rest.len();
        if let Ok((rest, side)) = side_prefix(token) {
            return setup_body(side, rest, at(rest)).map_err(|e| TokenError {
                offset: e.offset,
                expected: e.expected,
            });
        }
        let (rest, order) = order(token, &at)?;
        let (rest, mark) = mark(rest).map_err(|_| {
            TokenError::new(
                at(rest),
                "a die face @1 to @6, /skip, or the end of the order",
            )
        })?;
        if !rest.is_empty() {
            return Err(TokenError::new(
                at(rest),
                "a die face @1 to @6, /skip, or the end of the order",
            ));
        }
        Ok(Token::Order { order, mark })
    }

    /// Append the canonical text.
    pub fn write(&self, out: &mut String) {
        match self {
            Token::Sealed(side) => {
                out.push_str(side.name());
                out.push_str(":sealed");
            }
            Token::Setup(p) => p.write(out),
            Token::Order { order, mark } => {
                order.write(out);
                mark.write(out);
            }
        }
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(12);
        self.write(&mut s);
        f.write_str(&s)
    }
}

impl FromStr for Token {
    type Err = TokenError;
    fn from_str(s: &str) -> Result<Token, TokenError> {
        Token::parse(s)
    }
}

impl FromStr for Order {
    type Err = TokenError;
    /// A declared order: a token with no mark.
    fn from_str(s: &str) -> Result<Order, TokenError> {
        match Token::parse(s)? {
            Token::Order {
                order,
                mark: Mark::Plain,
            } => Ok(order),
            Token::Order { order, .. } => {
                let mut plain = String::new();
                order.write(&mut plain);
                Err(TokenError::new(
                    plain.len(),
                    "the end of a declared order (a declared order has no die face and no /skip)",
                ))
            }
            _ => Err(TokenError::new(0, "an order, not a setup")),
        }
    }
}

fn push_square(out: &mut String, sq: Square) {
    out.push(sq.file_char());
    out.push(sq.rank_char());
}

fn unit_letter(input: &str) -> IResult<&str, UnitKind> {
    satisfy(|c| UnitKind::from_letter(c).is_some())
        .map(|c| UnitKind::from_letter(c).unwrap_or(UnitKind::Knight))
        .parse(input)
}

fn side_prefix(input: &str) -> IResult<&str, Side> {
    (
        alt((
            value(Side::Defender, tag_no_case("defender")),
            value(Side::Attacker, tag_no_case("attacker")),
        )),
        satisfy(|c| c == ':'),
    )
        .map(|(side, _)| side)
        .parse(input)
}

fn setup_body(side: Side, body: &str, start: usize) -> Result<Token, TokenError> {
    if body.eq_ignore_ascii_case("sealed") {
        return Ok(Token::Sealed(side));
    }
    if body
        .get(..6)
        .is_some_and(|w| w.eq_ignore_ascii_case("sealed"))
    {
        return Err(TokenError::new(
            start + 6,
            "the end of the token after sealed",
        ));
    }
    let mut units = Vec::with_capacity(28);
    let mut rest = body;
    let shape = groups(side);
    for (i, n) in shape.iter().enumerate() {
        if i > 0 {
            match rest.strip_prefix('/') {
                Some(r) => rest = r,
                None => {
                    return Err(TokenError::new(
                        start + body.len() - rest.len(),
                        format!("/ after {} letters", shape[i - 1]),
                    ));
                }
            }
        }
        for _ in 0..*n {
            match unit_letter(rest) {
                Ok((r, u)) => {
                    units.push(u);
                    rest = r;
                }
                Err(_) => {
                    let what = if i == 0 && units.is_empty() {
                        "sealed, or a unit letter (C K A O S R T)"
                    } else {
                        "a unit letter (C K A O S R T)"
                    };
                    let what = format!(
                        "{what}: the {} placement has ranks of {}",
                        side.name(),
                        shape
                            .iter()
                            .map(usize::to_string)
                            .collect::<Vec<_>>()
                            .join("/")
                    );
                    return Err(TokenError::new(start + body.len() - rest.len(), what));
                }
            }
        }
    }
    if !rest.is_empty() {
        return Err(TokenError::new(
            start + body.len() - rest.len(),
            "the end of the placement",
        ));
    }
    Placement::new(side, units)
        .map(Token::Setup)
        .ok_or_else(|| TokenError::new(start, "a complete placement"))
}

fn keyword(input: &str) -> IResult<&str, Order> {
    alt((
        value(Order::Phase(Phase::Move), tag_no_case("move")),
        value(Order::Phase(Phase::Breach), tag_no_case("breach")),
        value(Order::Phase(Phase::Attack), tag_no_case("attack")),
        value(Order::End, tag_no_case("end")),
    ))
    .parse(input)
}

#[derive(Clone, Copy)]
enum ActionMark {
    Step,
    Breach,
    Attack,
}

fn action_mark(input: &str) -> IResult<&str, ActionMark> {
    alt((
        value(ActionMark::Step, satisfy(|c| c == '-')),
        value(ActionMark::Breach, satisfy(|c| c == '#')),
        value(ActionMark::Attack, satisfy(|c| c == 'x' || c == 'X')),
    ))
    .parse(input)
}

fn order<'a>(token: &'a str, at: &dyn Fn(&str) -> usize) -> Result<(&'a str, Order), TokenError> {
    if let Ok(ok) = keyword(token) {
        return Ok(ok);
    }
    let (rest, unit) = unit_letter(token).map_err(|_| {
        TokenError::new(
            0,
            "a unit letter (C K A O S R T), Move, Breach, Attack, End, Defender: or Attacker:",
        )
    })?;
    let (rest, from) =
        square(rest).map_err(|_| TokenError::new(at(rest), "a square such as b4"))?;
    let (rest, action) = action_mark(rest).map_err(|_| {
        TokenError::new(
            at(rest),
            "- (a step), # (a breach attempt) or x (an attack)",
        )
    })?;
    match action {
        ActionMark::Step | ActionMark::Breach => {
            let (rest, to) =
                square(rest).map_err(|_| TokenError::new(at(rest), "a square such as c4"))?;
            let order = match action {
                ActionMark::Step => Order::Step { unit, from, to },
                _ => Order::Breach {
                    unit,
                    from,
                    target: to,
                },
            };
            Ok((rest, order))
        }
        ActionMark::Attack => {
            let (rest, victim) = unit_letter(rest).map_err(|_| {
                TokenError::new(at(rest), "the target's unit letter (C K A O S R T)")
            })?;
            let (rest, target) = square(rest)
                .map_err(|_| TokenError::new(at(rest), "the target's square such as c5"))?;
            Ok((
                rest,
                Order::Attack {
                    unit,
                    from,
                    victim,
                    target,
                },
            ))
        }
    }
}

fn mark(input: &str) -> IResult<&str, Mark> {
    if input.is_empty() {
        return Ok((input, Mark::Plain));
    }
    alt((
        (satisfy(|c| c == '@'), satisfy(|c| matches!(c, '1'..='6')))
            .map(|(_, d)| Face::new(d as u8 - b'0').map_or(Mark::Skipped, Mark::Roll)),
        value(Mark::Skipped, tag_no_case("/skip")),
    ))
    .parse(input)
}

/// Castle Siege's move-token grammar for the record envelope.
#[derive(Debug, Clone, Copy, Default)]
pub struct CastleSiegeGrammar;

impl MoveGrammar for CastleSiegeGrammar {
    type Move = Token;
    const GAME: &'static str = "Castle Siege";

    fn parse_move(token: &str) -> Result<Token, TokenError> {
        Token::parse(token)
    }

    fn write_move(mv: &Token, out: &mut String) {
        mv.write(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(s: &str) -> Token {
        Token::parse(s).unwrap_or_else(|e| panic!("{s}: {e} at {}", e.offset))
    }

    #[test]
    fn every_order_reads_and_prints() {
        for text in [
            "Move",
            "Move@4",
            "Breach",
            "Attack",
            "End",
            "Kb2-c3",
            "Kb4-c4@5",
            "Kb2-c3/skip",
            "Rb4#c4",
            "Rb4#c4@2",
            "Cb1#c3/skip",
            "Ab5xKc5",
            "Ab5xKc5@6",
            "Oc4xSc4/skip",
            "Defender:sealed",
            "Attacker:sealed",
            "Defender:CKAO/OACK/KCOA/AOKC",
            "Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK",
        ] {
            assert_eq!(t(text).to_string(), text);
        }
        assert_eq!(
            t("Ab5xKc5@6"),
            Token::Order {
                order: Order::Attack {
                    unit: UnitKind::Archer,
                    from: Square::B5,
                    victim: UnitKind::Knight,
                    target: Square::C5
                },
                mark: Mark::Roll(Face::new(6).unwrap())
            }
        );
        assert_eq!(
            t("Attack"),
            Token::declared(Order::Phase(Phase::Attack)),
            "a keyword, not an archer"
        );
    }

    #[test]
    fn reading_is_lenient_about_case_printing_is_not() {
        assert_eq!(t("kB4-C4@5").to_string(), "Kb4-c4@5");
        assert_eq!(t("MOVE@3").to_string(), "Move@3");
        assert_eq!(t("aB5XkC5/SKIP").to_string(), "Ab5xKc5/skip");
        assert_eq!(t("defender:SEALED").to_string(), "Defender:sealed");
        assert_eq!(
            t("defender:ckao/oack/kcoa/aokc").to_string(),
            "Defender:CKAO/OACK/KCOA/AOKC"
        );
    }

    #[test]
    fn placements_map_letters_to_squares() {
        let Token::Setup(p) = t("Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK") else {
            panic!("a setup")
        };
        let at = |sq: Square| p.squares().find(|(s, _)| *s == sq).map(|(_, u)| u);
        assert_eq!(at(Square::C8), Some(UnitKind::Ram));
        assert_eq!(at(Square::H7), Some(UnitKind::Archer));
        assert_eq!(at(Square::A5), Some(UnitKind::Cannon));
        assert_eq!(at(Square::H1), Some(UnitKind::Knight));
        assert_eq!(p.side(), Side::Attacker);
        let Token::Setup(d) = t("Defender:CKAO/OACK/KCOA/AOKC") else {
            panic!("a setup")
        };
        assert_eq!(d.squares().next(), Some((Square::C6, UnitKind::Cannon)));
        assert_eq!(d.squares().last(), Some((Square::F3, UnitKind::Cannon)));
        assert!(Placement::new(Side::Defender, vec![UnitKind::Knight; 15]).is_none());
    }

    #[test]
    fn bad_tokens_say_where_and_what() {
        for (bad, offset, words) in [
            ("Zb2-c3", 0, "unit letter"),
            ("Kb9-c3", 1, "square"),
            ("Kb2/c3", 3, "breach"),
            ("Kb2-c", 4, "square"),
            ("Kb2xe3", 4, "target's unit letter"),
            ("Kb2xKc9", 5, "target's square"),
            ("Kb2-c3@7", 6, "die face"),
            ("Kb2-c3@", 6, "die face"),
            ("Kb2-c3/skipped", 11, "die face"),
            ("Kb2-c3@4x", 8, "die face"),
            ("Move4", 4, "die face"),
            ("Defender:CKAO/OACK/KCOA", 23, "/ after 4"),
            ("Defender:CKAO/OACK/KCOA/AOK", 27, "unit letter"),
            ("Defender:CKAO/OACK/KCOA/AOKCC", 28, "end of the placement"),
            ("Defender:sealedx", 15, "after sealed"),
            ("Attacker:KKRTTRKK/AAA", 20, "/ after 2"),
        ] {
            let e = Token::parse(bad).unwrap_err();
            assert_eq!(e.offset, offset, "{bad}: {e}");
            assert!(e.expected.contains(words), "{bad}: {e}");
        }
        let e = "Kb2-c3@4".parse::<Order>().unwrap_err();
        assert_eq!(e.offset, 6);
        assert!(e.expected.contains("declared order"), "{e}");
        assert_eq!(
            "Kb2-c3".parse::<Order>(),
            Ok(Order::Step {
                unit: UnitKind::Knight,
                from: Square::B2,
                to: Square::C3
            })
        );
    }

    #[test]
    fn the_setup_squares_are_the_castle_and_the_edge() {
        for sq in DEFENDER_SETUP_SQUARES {
            assert!((2..=5).contains(&sq.file()) && (2..=5).contains(&sq.rank()));
        }
        for sq in ATTACKER_SETUP_SQUARES {
            assert!(sq.file() == 0 || sq.file() == 7 || sq.rank() == 0 || sq.rank() == 7);
        }
        let mut all: Vec<Square> = ATTACKER_SETUP_SQUARES
            .iter()
            .chain(DEFENDER_SETUP_SQUARES.iter())
            .copied()
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 44);
    }

    const FORBIDDEN: &str = "{}()[]$;!?%";

    fn arb_square() -> impl Strategy<Value = Square> {
        (0u8..64).prop_map(|i| Square::from_index(i).unwrap_or(Square::A1))
    }

    fn arb_unit() -> impl Strategy<Value = UnitKind> {
        (0usize..7).prop_map(|i| UnitKind::ALL[i])
    }

    fn arb_mark() -> impl Strategy<Value = Mark> {
        prop_oneof![
            Just(Mark::Plain),
            Just(Mark::Skipped),
            (1u8..=6).prop_map(|n| Face::new(n).map_or(Mark::Plain, Mark::Roll)),
        ]
    }

    fn arb_order() -> impl Strategy<Value = Order> {
        prop_oneof![
            (0usize..3).prop_map(|i| Order::Phase(Phase::ALL[i])),
            Just(Order::End),
            (arb_unit(), arb_square(), arb_square()).prop_map(|(unit, from, to)| Order::Step {
                unit,
                from,
                to
            }),
            (arb_unit(), arb_square(), arb_square())
                .prop_map(|(unit, from, target)| { Order::Breach { unit, from, target } }),
            (arb_unit(), arb_square(), arb_unit(), arb_square()).prop_map(
                |(unit, from, victim, target)| Order::Attack {
                    unit,
                    from,
                    victim,
                    target
                }
            ),
        ]
    }

    fn arb_token() -> impl Strategy<Value = Token> {
        let side = prop_oneof![Just(Side::Defender), Just(Side::Attacker)];
        prop_oneof![
            side.clone().prop_map(Token::Sealed),
            (side, proptest::collection::vec(arb_unit(), 28)).prop_map(|(side, mut units)| {
                units.truncate(setup_squares(side).len());
                Token::Setup(Placement::new(side, units).unwrap_or_else(|| unreachable!()))
            }),
            (arb_order(), arb_mark()).prop_map(|(order, mark)| Token::Order { order, mark }),
        ]
    }

    proptest! {
        #[test]
        fn tokens_round_trip(tok in arb_token()) {
            let mut s = String::new();
            CastleSiegeGrammar::write_move(&tok, &mut s);
            prop_assert_eq!(CastleSiegeGrammar::parse_move(&s), Ok(tok));
            // The envelope's lexical promises.
            let first = s.chars().next().unwrap_or(' ');
            prop_assert!(first.is_ascii_alphabetic(), "token {} starts with {:?}", s, first);
            let forbidden = |c: char| c.is_whitespace() || FORBIDDEN.contains(c);
            prop_assert!(!s.contains(forbidden), "token {} has a forbidden character", s);
        }

        #[test]
        fn token_reader_never_panics(s in "\\PC{0,40}") {
            let _ = Token::parse(&s);
            let _ = s.parse::<Order>();
        }

        #[test]
        fn near_tokens_reparse_canonically(s in "[CKAOSRTMEBDa-h1-8xX#@/:-]{1,14}") {
            if let Ok(tok) = Token::parse(&s) {
                prop_assert_eq!(Token::parse(&tok.to_string()), Ok(tok));
            }
        }
    }
}
