//! The move counts the sources state on the magician start board (MOVES page;
//! khan-sources.md 2.3), which pin down the movement geometry (KR-3).

use super::support::{sq, start};
use crate::khan::{Action, Side, legal_moves};

fn moves_of(square: &str, side: Side) -> Vec<String> {
    let mut pos = start("magician");
    if side == Side::Black {
        // Same board, Black to move.
        pos =
            crate::khan::Position::from_yam(&pos.to_yam().replacen(" w ", " b ", 1), *pos.rules())
                .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut v: Vec<String> = legal_moves(&pos)
        .into_iter()
        .filter(|m| m.from == sq(square) && matches!(m.action, Action::Move | Action::Capture))
        .map(|m| m.to.to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn white_archer_d2_has_five_moves() {
    assert_eq!(moves_of("d2", Side::White), ["c1", "c2", "c3", "d3", "e3"]);
}

#[test]
fn white_swordsman_f2_has_one_move() {
    assert_eq!(moves_of("f2", Side::White), ["e3"]);
}

#[test]
fn white_assassin_g3_has_two_moves() {
    assert_eq!(moves_of("g3", Side::White), ["e3", "f3"]);
}

#[test]
fn black_khan_b7_has_five_moves() {
    assert_eq!(moves_of("b7", Side::Black), ["c5", "c6", "d5", "d6", "e4"]);
}

#[test]
fn no_warrior_of_either_side_can_move() {
    for (side, squares) in [
        (Side::White, ["e1", "f1", "h1", "h2", "h3"]),
        (Side::Black, ["a6", "a7", "a8", "c8", "d8"]),
    ] {
        for s in squares {
            assert!(moves_of(s, side).is_empty(), "warrior {s}");
        }
    }
}
