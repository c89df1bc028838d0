//! From text to moves and back: Yam's explicit move tokens (KR-N), and the
//! innersky engine's from-to strings, whose kind the referee infers (KR-P1).

use yam_notation::khan::{EngineMove, EnginePosition, MoveToken};

use super::ruleset::Rules;

use super::apply::{Illegal, TakeBack};
use super::movegen::reach;
use super::moves::{Action, Move};
use super::position::Position;
use super::ruleset::Ruleset;
use super::square::Square;

/// Resolve a written token: the piece letter must name the piece on the
/// from-square, the move must be legal, and the promotion mark must be
/// written exactly when the move promotes, naming what the piece becomes.
pub fn resolve(pos: &Position, token: &MoveToken) -> Result<Move, Illegal> {
    resolve_with(pos, token, |mv| pos.check(mv)).map(|(mv, ())| mv)
}

/// [`resolve`], leaving the position after the move in `next` (unspecified
/// if the move is refused): the replay's path, which plays the move once
/// where `resolve` then [`super::apply()`] would check it twice and play it
/// up to three times.
pub fn resolve_into(
    pos: &Position,
    token: &MoveToken,
    next: &mut Position,
) -> Result<Move, Illegal> {
    // The fast path first (see `Position::plain_move`): the written piece is
    // the one there, and the promotion is written as the move makes it.
    // Anything else, every refusal included, goes the general way below.
    let mv = Move::new(token.action, token.from, token.to);
    if pos
        .piece_at(token.from)
        .is_some_and(|p| p.kind == token.piece)
        && pos.play_plain_promoting(&mv, next) == Some(token.promotion)
    {
        return Ok(mv);
    }
    resolve_general_into(pos, token, next)
}

/// [`resolve_into`] without its fast path, for a caller that already tried
/// it ([`resolve_plain_in_place`]): the fast path only ever agrees with the
/// general one, so it is not tried twice.
pub(crate) fn resolve_general_into(
    pos: &Position,
    token: &MoveToken,
    next: &mut Position,
) -> Result<Move, Illegal> {
    resolve_with(pos, token, |mv| pos.check_and_play_general(mv, next)).map(|(mv, ())| mv)
}

/// [`resolve_into`]'s fast path on the position itself: when the token names
/// a plain move the fast path decides legal (see `Position::plain_move`),
/// with the piece letter and the promotion written as the move makes them,
/// the move is played on `pos`, what takes it back is left in `taken`, and
/// the answer is `true`. `false` leaves `pos` and `taken` untouched, for
/// [`resolve_general_into`] to decide. The checker replays a record this
/// way: no copy of the position a move. (`taken` is written here rather
/// than returned: the caller keeps it anyway, and reloading a returned
/// copy cost a stall a move.)
pub(crate) fn resolve_plain_in_place(
    pos: &mut Position,
    token: &MoveToken,
    taken: &mut Option<TakeBack>,
) -> bool {
    if token.action == Action::Spell {
        return resolve_spell_in_place(pos, token, taken);
    }
    if pos.piece_at(token.from).map(|p| p.kind) != Some(token.piece) {
        return false;
    }
    let Some(plain) = pos.plain_move(&Move::new(token.action, token.from, token.to)) else {
        return false;
    };
    if plain.promotion() != token.promotion {
        return false;
    }
    // Played first, then the royal test (KR-6.2) on the position as it
    // now is: a move it refuses (few) is taken back, and `taken` given
    // back what it held. The take-back is written to `taken` before the
    // test rather than kept until after it: kept, its fields outlived the
    // test on the stack (1.3 M more instructions in the 2.5 MB archive).
    let us = pos.turn();
    let previous = *taken;
    pos.write_plain(&plain);
    *taken = Some(plain.take_back());
    if pos.royal_attacker(us).is_some() {
        if let Some(take_back) = std::mem::replace(taken, previous) {
            pos.unplay_plain(&take_back);
        }
        return false;
    }
    true
}

/// [`resolve_plain_in_place`]'s spell (see `Position::plain_spell`), out
/// of line: kept apart, the moves' path keeps its `PlainMove` in registers.
#[cold]
#[inline(never)]
fn resolve_spell_in_place(
    pos: &mut Position,
    token: &MoveToken,
    taken: &mut Option<TakeBack>,
) -> bool {
    if pos.piece_at(token.from).map(|p| p.kind) != Some(token.piece) || token.promotion.is_some() {
        return false;
    }
    let Some(plain) = pos.plain_spell(&Move::new(token.action, token.from, token.to)) else {
        return false;
    };
    pos.write_plain(&plain);
    *taken = Some(plain.take_back());
    true
}

/// [`resolve`]'s checks in their order, with `check` for the rules.
fn resolve_with<T>(
    pos: &Position,
    token: &MoveToken,
    check: impl FnOnce(&Move) -> Result<T, Illegal>,
) -> Result<(Move, T), Illegal> {
    let mv = Move::new(token.action, token.from, token.to);
    if let Some(p) = pos.piece_at(token.from)
        && p.side == pos.turn()
        && p.kind != token.piece
    {
        return Err(Illegal::WrongPiece {
            square: token.from,
            written: token.piece,
            actual: p.kind,
        });
    }
    let checked = check(&mv)?;
    let piece = token.piece;
    match (pos.promotion_of(&mv), token.promotion) {
        (None, None) => {}
        (Some(becomes), None) => return Err(Illegal::PromotionMissing { piece, becomes }),
        (None, Some(written)) => return Err(Illegal::PromotionNotDue { written }),
        (Some(becomes), Some(written)) if becomes != written => {
            return Err(Illegal::PromotionWrong {
                piece,
                becomes,
                written,
            });
        }
        (Some(_), Some(_)) => {}
    }
    Ok((mv, checked))
}

/// The canonical token of a legal move (an illegal one is refused with its reason).
pub fn to_token(pos: &Position, mv: &Move) -> Result<MoveToken, Illegal> {
    pos.check(mv)?;
    let piece = pos.piece_at(mv.from).ok_or(Illegal::NoPiece(mv.from))?;
    Ok(MoveToken {
        piece: piece.kind,
        from: mv.from,
        action: mv.action,
        to: mv.to,
        promotion: pos.promotion_of(mv),
    })
}

/// Import an engine from-to string (KR-P1): onto an enemy piece or an empty
/// manned square it is a capture or a move if the piece could get there by
/// moving, else a spell; onto a friendly neighbour it is a transfer if the
/// mover carries a captive, else an exchange. Then it must be legal.
///
/// Where a spell and a capture (or a walk into a manned square) share one
/// string, the capture is chosen; where an exchange and a transfer do, the
/// transfer. Those are the moves that do not survive export and import as
/// bare strings; Yam's marked string (`e4*e5`) names the kind, and is then
/// taken as written.
pub fn from_engine(pos: &Position, em: &EngineMove) -> Result<Move, Illegal> {
    let (from, to) = (em.from, em.to);
    let action = match em.action {
        Some(a) => a,
        None => inferred_action(pos, from, to),
    };
    let mv = Move::new(action, from, to);
    pos.check(&mv)?;
    Ok(mv)
}

/// KR-P1: the kind of move a bare from-to string is read as.
fn inferred_action(pos: &Position, from: Square, to: Square) -> Action {
    match pos.piece_at(from) {
        None => Action::Move,
        Some(p) => {
            let reachable = from != to
                && reach(
                    from,
                    p.kind,
                    pos.open(),
                    pos.rules().options.power_magician_moves,
                )
                .contains(to);
            let caster = pos.spell_range(p.kind).is_some();
            match pos.piece_at(to) {
                Some(t) if t.side == p.side && from != to => {
                    if pos.carried_by(from).is_some() {
                        Action::Transfer
                    } else {
                        Action::Exchange
                    }
                }
                Some(_) if !reachable && caster => Action::Spell,
                Some(_) => Action::Capture,
                None if pos.manned().contains(to) && !reachable && caster => Action::Spell,
                None => Action::Move,
            }
        }
    }
}

/// The engine's from-to string for a move (it drops the kind of move).
pub fn to_engine(mv: &Move) -> EngineMove {
    EngineMove::plain(mv.from, mv.to)
}

/// What the bare from-to string of `mv`, played in `pos`, is read back as
/// (KR-P1) when that is not `mv` itself: the move a plain export loses.
/// `None` when the string gives `mv` back.
pub fn engine_misreading(pos: &Position, mv: &Move) -> Option<Move> {
    let read = Move::new(inferred_action(pos, mv.from, mv.to), mv.from, mv.to);
    (read != *mv).then_some(read)
}

/// The string Yam writes for `mv` when the game must come back exactly: the
/// bare string, or, where that would be read as another move
/// ([`engine_misreading`]), the string with the kind's mark (`e4*e5`).
pub fn to_engine_exact(pos: &Position, mv: &Move) -> EngineMove {
    let mut em = to_engine(mv);
    if engine_misreading(pos, mv).is_some() {
        em.action = Some(mv.action);
    }
    em
}

/// Why an engine position line could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineLineError {
    /// The FEN is not a valid position under the rules.
    #[error("the engine FEN is not a valid position: {0}")]
    Position(#[from] super::position::PositionError),
    /// A siege game's line gives a FEN other than its standard start and no
    /// siege fields, so where the towers, captives and gers are is unknown.
    #[error(
        "the {game} FEN `{found}` is not the game's standard start (`{start}`), and the line has \
         no siege fields after it (towers=..., manned=..., gers=..., carried=...): the siege state \
         of that position is unknown (see \"The engine's forms\" in docs/rules/khan.md)"
    )]
    SiegeStateMissing {
        /// The game type (`rescue-khan`).
        game: super::ruleset::GameType,
        /// The FEN the line gives.
        found: String,
        /// The game's standard start FEN.
        start: String,
    },
    /// A move is illegal; `index` counts from 0.
    #[error("engine move {} ({mv}) is illegal: {why}", index + 1)]
    Illegal {
        /// Which move.
        index: usize,
        /// The move as the engine wrote it.
        mv: EngineMove,
        /// Why.
        why: Illegal,
    },
}

/// Replay an engine position line (`position fen ... moves ...`) under `rules`,
/// from the position it gives (its siege fields included): the moves as Yam
/// resolves them, and the final position.
pub fn replay_engine(
    line: &EnginePosition,
    rules: Rules,
) -> Result<(Vec<Move>, Position), EngineLineError> {
    let pos = Position::from_yam_text(&line.position, rules)?;
    replay_engine_from(pos, line)
}

/// The position an engine line starts from under `ruleset` (KR-P15: the
/// engine FEN has no siege state, so it comes from elsewhere). The siege fields
/// when the line has them; otherwise the ruleset's start (siege state and
/// all) when the FEN is that start's, which is how the engine names the
/// standard siege start, by its board type and the short FEN; otherwise the
/// FEN alone, which a siege game cannot use ([`EngineLineError::SiegeStateMissing`]).
pub fn engine_start(line: &EnginePosition, ruleset: &Ruleset) -> Result<Position, EngineLineError> {
    let rules = ruleset.rules;
    if line.has_siege_fields() {
        return Ok(Position::from_yam_text(&line.position, rules)?);
    }
    let start = ruleset.start_position();
    if *line.fen() == start.to_engine_fen() {
        return Ok(start);
    }
    if !start.tower_squares().is_empty() {
        return Err(EngineLineError::SiegeStateMissing {
            game: ruleset.game,
            found: line.fen().to_string(),
            start: start.fen(),
        });
    }
    Ok(Position::from_yam_text(&line.position, rules)?)
}

/// Replay the moves of `line` from `start` (see [`engine_start`]).
pub fn replay_engine_from(
    start: Position,
    line: &EnginePosition,
) -> Result<(Vec<Move>, Position), EngineLineError> {
    let mut pos = start;
    let mut moves = Vec::with_capacity(line.moves.len());
    for (index, em) in line.moves.iter().enumerate() {
        let mv = from_engine(&pos, em).map_err(|why| EngineLineError::Illegal {
            index,
            mv: *em,
            why,
        })?;
        pos.play_unchecked(&mv);
        moves.push(mv);
    }
    Ok((moves, pos))
}
