//! Perft: the number of legal move sequences of a given length, the standard
//! check of a move generator.

use super::movegen::legal_moves_into;
use super::moves::Move;
use super::position::Position;

/// The number of legal move sequences of `depth` plies from `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut buffers: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(64)).collect();
    count(pos, &mut buffers)
}

/// Perft split by first move, for finding where two generators differ.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let mut first = Vec::new();
    legal_moves_into(pos, &mut first);
    first
        .into_iter()
        .map(|mv| {
            let mut next = *pos;
            next.play_unchecked(&mv);
            (mv, perft(&next, depth.saturating_sub(1)))
        })
        .collect()
}

fn count(pos: &Position, buffers: &mut [Vec<Move>]) -> u64 {
    let Some((moves, deeper)) = buffers.split_first_mut() else {
        return 1;
    };
    legal_moves_into(pos, moves);
    if deeper.is_empty() {
        return moves.len() as u64;
    }
    let mut n = 0;
    for mv in moves.iter() {
        let mut next = *pos;
        next.play_unchecked(mv);
        n += count(&next, deeper);
    }
    n
}
