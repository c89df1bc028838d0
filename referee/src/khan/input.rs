//! Lenient input, canonical records: what a player types for a Khan move,
//! resolved against the position to the one legal move it can mean.
//!
//! Three forms are read (`docs/notation.md`, "Typing moves"):
//!
//! - the **long form** of the record, `Ng3-f5`, `Hg4*f5`, `Nb5-b7=W`
//!   (KR-N); the promotion mark may be left out, since the position decides
//!   it (KR-5.1), but a wrong one is refused;
//! - a **short form**: the piece letter and the target square, `Nf5`, as
//!   chess players write SAN, with the origin's file, rank or square when
//!   several pieces of that kind could go there (`Ngf5`, `N3f5`, `Ng3f5`),
//!   and the move mark when one piece has several kinds of move onto that
//!   square (`Mxe5`, `M*e5`: a capture and a spell are two moves, KR-P1);
//! - the engine's **from-to** form, `g3f5`, as `yam engine export` writes it,
//!   or with the long form's mark between the squares, `g3-f5`, `e4*e5`.
//!
//! Whatever the form, the move is the legal move it matches. When several
//! match, the input is [`InputError::Ambiguous`] and lists them: a from-to
//! string onto a piece a magician could both capture and curse stays
//! ambiguous here, although an engine import picks the capture (KR-P1),
//! because a person typing must choose. When none matches, the input is
//! [`InputError::NoSuchMove`] with the rules' reason where the input names
//! one move, and the nearest legal moves. The caller records the canonical
//! long form ([`MoveToken`]), never what was typed.

use std::fmt;

use yam_notation::khan::{EngineMove, Kind, MoveToken};

use super::apply::Illegal;
use super::movegen::legal_moves;
use super::moves::{Action, Move};
use super::position::Position;
use super::square::Square;
use super::token::{from_engine, resolve, to_token};

/// How many nearest legal moves an impossible input is answered with.
pub const NEAREST: usize = 8;

/// Which of the three input forms a text is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    /// The record's own token, `Ng3-f5`.
    Long,
    /// Piece letter and target, with what disambiguates: `Nf5`, `Ngxf5`.
    Short,
    /// The engine's two squares, `g3f5`, or with the mark between them,
    /// `g3-f5`, `e4*e5`.
    Engine,
}

/// What a typed move says, read without a position: each `None` is left for
/// the position to decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// The form it was written in.
    pub form: Form,
    /// The kind of the piece that acts, if written.
    pub piece: Option<Kind>,
    /// The origin's file (0 = a), if written.
    pub from_file: Option<u8>,
    /// The origin's rank (0 = 1), if written.
    pub from_rank: Option<u8>,
    /// The kind of move, if a mark was written.
    pub action: Option<Action>,
    /// The target square, always written.
    pub to: Square,
    /// What the mover becomes, if `=X` was written.
    pub promotion: Option<Kind>,
}

/// What the reader expects, in words.
pub const EXPECTED: &str = "a Khan move: the long form (Ng3-f5, Hg4*f5), a short form \
    (Nf5, Ngf5, N3f5, Nxf5) or the from-to form (g3f5, g3-f5)";

impl Pattern {
    /// Reads `text` (surrounding whitespace ignored) in the first form it
    /// fits: long, then from-to (which starts with a lower-case file), then
    /// short.
    pub fn read(text: &str) -> Result<Pattern, InputError> {
        let t = text.trim();
        let unreadable = || InputError::Unreadable {
            text: t.to_owned(),
            expected: EXPECTED.to_owned(),
        };
        if let Ok(token) = MoveToken::parse(t) {
            return Ok(Pattern {
                form: Form::Long,
                piece: Some(token.piece),
                from_file: Some(token.from.file()),
                from_rank: Some(token.from.rank()),
                action: Some(token.action),
                to: token.to,
                promotion: token.promotion,
            });
        }
        // The engine writes its files in lower case; an upper-case first
        // letter is a piece's (`A1c1` is the archer from rank 1 to c1).
        if t.starts_with(|c: char| c.is_ascii_lowercase())
            && let Ok(em) = t.parse::<EngineMove>()
        {
            return Ok(Pattern {
                form: Form::Engine,
                piece: None,
                from_file: Some(em.from.file()),
                from_rank: Some(em.from.rank()),
                action: em.action,
                to: em.to,
                promotion: None,
            });
        }
        // The from-to form with the long form's mark, `g3-f5`, `e4*e5`:
        // the long form less its piece letter.
        if t.starts_with(|c: char| c.is_ascii_lowercase())
            && let Ok(token) = MoveToken::parse(&format!("K{t}"))
        {
            return Ok(Pattern {
                form: Form::Engine,
                piece: None,
                from_file: Some(token.from.file()),
                from_rank: Some(token.from.rank()),
                action: Some(token.action),
                to: token.to,
                promotion: token.promotion,
            });
        }
        Pattern::read_short(t).ok_or_else(unreadable)
    }

    /// `P [file] [rank] [mark] square [=P]`, read from both ends: the piece
    /// letter first (either case: Khan has no pawns, so no move starts with
    /// a file; but a text that is also a from-to string, `a1c1`, was read
    /// as one), then from the end the promotion, the target and the mark;
    /// what is left is the origin.
    fn read_short(t: &str) -> Option<Pattern> {
        if !t.is_ascii() {
            return None;
        }
        let b = t.as_bytes();
        let (&first, mut rest) = b.split_first()?;
        let piece = Kind::from_letter(first as char)?;
        let mut promotion = None;
        if let [head @ .., b'=', k] = rest {
            promotion = Some(Kind::from_letter(*k as char)?);
            rest = head;
        }
        let [head @ .., f, r] = rest else {
            return None;
        };
        let to = square(*f, *r)?;
        rest = head;
        let (action, origin) = match rest {
            [head @ .., b'<', b'>'] => (Some(Action::Exchange), head),
            [head @ .., b'-'] => (Some(Action::Move), head),
            [head @ .., b'x' | b'X'] => (Some(Action::Capture), head),
            [head @ .., b'*'] => (Some(Action::Spell), head),
            [head @ .., b'>'] => (Some(Action::Transfer), head),
            other => (None, other),
        };
        if promotion.is_some() && !matches!(action, None | Some(Action::Move | Action::Capture)) {
            return None;
        }
        let (from_file, from_rank) = match origin {
            [] => (None, None),
            [f, r] => {
                let sq = square(*f, *r)?;
                (Some(sq.file()), Some(sq.rank()))
            }
            [c] if c.is_ascii_digit() => (None, Some(rank(*c)?)),
            [c] => (Some(file(*c)?), None),
            _ => return None,
        };
        Some(Pattern {
            form: Form::Short,
            piece: Some(piece),
            from_file,
            from_rank,
            action,
            to,
            promotion,
        })
    }

    /// The origin square, if the text names it whole.
    pub fn from(&self) -> Option<Square> {
        Square::new(self.from_file?, self.from_rank?)
    }

    /// Whether the legal move `mv` in `pos` is one this pattern may mean
    /// (the promotion mark aside).
    pub fn matches(&self, pos: &Position, mv: &Move) -> bool {
        mv.to == self.to
            && self.from_file.is_none_or(|f| mv.from.file() == f)
            && self.from_rank.is_none_or(|r| mv.from.rank() == r)
            && self.action.is_none_or(|a| mv.action == a)
            && self
                .piece
                .is_none_or(|k| pos.piece_at(mv.from).is_some_and(|p| p.kind == k))
    }
}

fn file(c: u8) -> Option<u8> {
    let f = c.to_ascii_lowercase().wrapping_sub(b'a');
    (f < 8).then_some(f)
}

fn rank(c: u8) -> Option<u8> {
    let r = c.wrapping_sub(b'1');
    (r < 8).then_some(r)
}

fn square(f: u8, r: u8) -> Option<Square> {
    Square::new(file(f)?, rank(r)?)
}

/// Why a typed move was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// The text is in none of the three forms.
    Unreadable {
        /// What was typed.
        text: String,
        /// What the reader expected, in words.
        expected: String,
    },
    /// Several legal moves fit the text.
    Ambiguous {
        /// What was typed.
        text: String,
        /// Every legal move that fits, in canonical long form, sorted.
        candidates: Vec<MoveToken>,
    },
    /// No legal move fits the text.
    NoSuchMove {
        /// What was typed.
        text: String,
        /// The rules' reason, where the text names one move (its origin
        /// square given whole).
        why: Option<Illegal>,
        /// The nearest legal moves: those of the pieces the text names and
        /// those onto its target, nearest target first (at most
        /// [`NEAREST`]); empty when there is no legal move at all.
        nearest: Vec<MoveToken>,
    },
}

impl std::error::Error for InputError {}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Unreadable { text, expected } => {
                write!(f, "cannot read `{text}`: expected {expected}")
            }
            InputError::Ambiguous { text, candidates } => write!(
                f,
                "`{text}` could be any of {}; write which (its origin's file, rank or square, or its mark)",
                list(candidates)
            ),
            InputError::NoSuchMove { text, why, nearest } => {
                write!(f, "no legal move is `{text}`")?;
                if let Some(why) = why {
                    write!(f, ": {why}")?;
                }
                if nearest.is_empty() {
                    write!(f, "; there is no legal move to suggest")
                } else {
                    write!(f, "; the nearest legal moves: {}", list(nearest))
                }
            }
        }
    }
}

fn list(tokens: &[MoveToken]) -> String {
    tokens
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolves a typed move in any of the three forms to the one legal move it
/// means, as the canonical token the record stores.
///
/// ```
/// use yam_referee::khan::{Ruleset, input::resolve_input};
/// let start = Ruleset::builtin("magician").unwrap().start_position();
/// let token = resolve_input(&start, "Nf3").unwrap();
/// assert_eq!(token.to_string(), "Ng3-f3");
/// assert_eq!(resolve_input(&start, "g3f3").unwrap(), token);
/// ```
pub fn resolve_input(pos: &Position, text: &str) -> Result<MoveToken, InputError> {
    let pattern = Pattern::read(text)?;
    resolve_pattern(pos, &pattern, text.trim())
}

/// [`resolve_input`] for a pattern already read; `text` is quoted in errors.
pub fn resolve_pattern(
    pos: &Position,
    pattern: &Pattern,
    text: &str,
) -> Result<MoveToken, InputError> {
    let legal = legal_moves(pos);
    let fitting: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|mv| pattern.matches(pos, mv))
        .collect();
    // The promotion is the position's to decide (KR-5.1): one left out is
    // filled in, one written must be the one due.
    let promoted: Vec<Move> = fitting
        .iter()
        .copied()
        .filter(|mv| {
            pattern
                .promotion
                .is_none_or(|k| pos.promotion_of(mv) == Some(k))
        })
        .collect();
    match promoted.as_slice() {
        [one] => Ok(token_of(pos, one)),
        [] => Err(InputError::NoSuchMove {
            text: text.to_owned(),
            why: reason(pos, pattern, &fitting),
            nearest: nearest(pos, pattern, &legal),
        }),
        many => Err(InputError::Ambiguous {
            text: text.to_owned(),
            candidates: tokens(pos, many),
        }),
    }
}

/// The canonical token of a legal move.
fn token_of(pos: &Position, mv: &Move) -> MoveToken {
    // `mv` comes from the generator, so it has a token; the fallback is the
    // move's own squares under the piece actually there.
    to_token(pos, mv).unwrap_or(MoveToken {
        piece: pos.piece_at(mv.from).map_or(Kind::Khan, |p| p.kind),
        from: mv.from,
        action: mv.action,
        to: mv.to,
        promotion: pos.promotion_of(mv),
    })
}

fn tokens(pos: &Position, moves: &[Move]) -> Vec<MoveToken> {
    let mut out: Vec<MoveToken> = moves.iter().map(|mv| token_of(pos, mv)).collect();
    out.sort_by_key(|t| t.to_string());
    out
}

/// The rules' reason a text that names one move is refused: the strict
/// token's (KR-N), or for a from-to string the engine's inference (KR-P1).
fn reason(pos: &Position, pattern: &Pattern, fitting: &[Move]) -> Option<Illegal> {
    if let Some(outcome) = pos.outcome() {
        return Some(Illegal::GameOver(outcome));
    }
    let from = pattern.from()?;
    let piece = pattern
        .piece
        .or_else(|| pos.piece_at(from).map(|p| p.kind))?;
    let action = match pattern.action {
        Some(a) => a,
        // A legal move fits but the written promotion does not: the
        // strict reading of that move says which is due.
        None if !fitting.is_empty() => fitting[0].action,
        None => {
            return from_engine(pos, &EngineMove::plain(from, pattern.to)).err();
        }
    };
    let token = MoveToken {
        piece,
        from,
        action,
        to: pattern.to,
        promotion: pattern.promotion,
    };
    resolve(pos, &token).err()
}

/// The legal moves nearest to what `pattern` asks: those of the pieces it
/// names (of its kind, from its origin where written, or of its kind
/// anywhere if no such piece moves) and those onto its target, ordered by
/// how far their target lies from the one written.
fn nearest(pos: &Position, pattern: &Pattern, legal: &[Move]) -> Vec<MoveToken> {
    let of_kind = |mv: &Move| {
        pattern
            .piece
            .is_none_or(|k| pos.piece_at(mv.from).is_some_and(|p| p.kind == k))
    };
    let from_origin = |mv: &Move| {
        pattern.from_file.is_none_or(|f| mv.from.file() == f)
            && pattern.from_rank.is_none_or(|r| mv.from.rank() == r)
    };
    let constrained =
        pattern.piece.is_some() || pattern.from_file.is_some() || pattern.from_rank.is_some();
    let mut near: Vec<Move> = if constrained {
        legal
            .iter()
            .copied()
            .filter(|mv| of_kind(mv) && from_origin(mv))
            .collect()
    } else {
        Vec::new()
    };
    if near.is_empty() && pattern.piece.is_some() {
        near = legal.iter().copied().filter(|mv| of_kind(mv)).collect();
    }
    near.extend(legal.iter().copied().filter(|mv| mv.to == pattern.to));
    if near.is_empty() {
        near = legal.to_vec();
    }
    let mut near: Vec<(u8, String, MoveToken)> = near
        .iter()
        .map(|mv| {
            let t = token_of(pos, mv);
            (mv.to.distance(pattern.to), t.to_string(), t)
        })
        .collect();
    near.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    near.dedup_by(|a, b| a.1 == b.1);
    near.into_iter().take(NEAREST).map(|(_, _, t)| t).collect()
}

/// The shortest short form that resolves to the legal move `mv` alone: the
/// piece letter and target, with the origin's file, else its rank, else
/// its square, and the mark, only as far as other legal moves need them
/// (as SAN disambiguates). The promotion mark is left out.
pub fn short_form(pos: &Position, mv: &Move) -> Result<String, Illegal> {
    let token = to_token(pos, mv)?;
    let legal = legal_moves(pos);
    let origins = [
        (None, None),
        (Some(mv.from.file()), None),
        (None, Some(mv.from.rank())),
        (Some(mv.from.file()), Some(mv.from.rank())),
    ];
    let mut forms: Vec<Pattern> = [false, true]
        .into_iter()
        .flat_map(|with_mark| {
            origins.map(|(from_file, from_rank)| Pattern {
                form: Form::Short,
                piece: Some(token.piece),
                from_file,
                from_rank,
                action: with_mark.then_some(mv.action),
                to: mv.to,
                promotion: None,
            })
        })
        .collect();
    // Shortest first; at equal length an origin before a mark (stable).
    forms.sort_by_key(|p| write_short(p).len());
    for pattern in forms {
        if legal
            .iter()
            .filter(|m| pattern.matches(pos, m))
            .eq(std::iter::once(mv))
        {
            return Ok(write_short(&pattern));
        }
    }
    // Unreachable for a legal move: piece, origin, mark and target name it.
    Ok(token.to_string())
}

fn write_short(p: &Pattern) -> String {
    let mut s = String::with_capacity(8);
    if let Some(k) = p.piece {
        s.push(k.letter());
    }
    if let Some(f) = p.from_file {
        s.push((b'a' + f) as char);
    }
    if let Some(r) = p.from_rank {
        s.push((b'1' + r) as char);
    }
    if let Some(a) = p.action {
        s.push_str(a.mark());
    }
    s.push_str(&p.to.to_string());
    s
}
