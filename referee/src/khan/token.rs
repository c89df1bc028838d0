//! From text to moves and back: Yam's explicit move tokens (KR-N), and the
//! innersky engine's from-to strings, whose kind the referee infers (KR-P1).

use yam_notation::khan::{EngineMove, EnginePosition, MoveToken};

use super::ruleset::Rules;

use super::apply::Illegal;
use super::movegen::reach;
use super::moves::{Action, Move};
use super::position::Position;

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
    resolve_with(pos, token, |mv| pos.check_and_play(mv, next)).map(|(mv, ())| mv)
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
/// transfer. Those are the moves that do not survive export and import.
pub fn from_engine(pos: &Position, em: &EngineMove) -> Result<Move, Illegal> {
    let (from, to) = (em.from, em.to);
    let action = match pos.piece_at(from) {
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
    };
    let mv = Move::new(action, from, to);
    pos.check(&mv)?;
    Ok(mv)
}

/// The engine's from-to string for a move (it drops the kind of move).
pub fn to_engine(mv: &Move) -> EngineMove {
    EngineMove {
        from: mv.from,
        to: mv.to,
    }
}

/// Why an engine position line could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineLineError {
    /// The FEN is not a valid position under the rules.
    #[error("the engine FEN is not a valid position: {0}")]
    Position(#[from] super::position::PositionError),
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

/// Replay an engine position line (`position fen ... moves ...`) under `rules`:
/// the moves as Yam resolves them, and the final position.
pub fn replay_engine(
    line: &EnginePosition,
    rules: Rules,
) -> Result<(Vec<Move>, Position), EngineLineError> {
    let mut pos = Position::from_yam_text(
        &yam_notation::khan::YamPosition::from_fen(line.fen.clone()),
        rules,
    )?;
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
