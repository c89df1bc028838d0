//! A text diagram of a position: rank 8 at the top, every square's stacks
//! for both sides, breaches, the castle walls and the victory squares, with a
//! legend and a status line. Plain ASCII, so it survives any mail client.
//!
//! ```text
//!      a     b     c     d     e     f     g     h
//!   +-----+-----+-----+-----+-----+-----+-----+-----+
//! 7 |a    |     |     |     |     |     |     |a    | 7
//!   +-----+-----+=====+=====+=====+=====+-----+-----+
//! 6 |s    |     #C    |K    |A    |O    #     |s    | 6
//!   +-----+-----+-----+.....+.....+-----+-----+-----+
//! 5 |c    |kat  #*KOs :A    |C    :K    #     |c    | 5
//! ```
//!
//! Each square shows the Defender's units in upper case, then the
//! Attacker's in lower case, by the letters of the notation; `*` first marks
//! a breach. The castle walls are drawn with `=` and `#`, the victory
//! squares are set off with `.` and `:`.

use std::fmt::Write;

use super::army::{Side, UnitKind};
use super::board::{Square, is_castle, is_victory};
use super::ruleset::TurnMode;
use super::state::State;
use yam_notation::castle_siege::Phase;

/// Width of a square's cell, between its borders.
const CELL: usize = 5;

/// The diagram of `state`, legend included.
pub fn diagram(state: &State) -> String {
    let mut out = String::with_capacity(2048);
    let files = "     a     b     c     d     e     f     g     h\n";
    out.push_str(files);
    for rank in (0..8u8).rev() {
        border(&mut out, rank.checked_add(1).filter(|r| *r < 8), Some(rank));
        let _ = write!(out, "{} ", rank + 1);
        for file in 0..8u8 {
            let Some(sq) = Square::new(file, rank) else {
                continue;
            };
            out.push(wall_left(file, rank));
            let cell = cell(state, sq);
            let _ = write!(out, "{cell:<CELL$}");
        }
        out.push('|');
        let _ = writeln!(out, " {}", rank + 1);
    }
    border(&mut out, Some(0), None);
    out.push_str(files);
    out.push('\n');
    legend(state, &mut out);
    out
}

/// The border line between the rank `upper` and the rank `lower` (0 to 7,
/// `None` off the board).
fn border(out: &mut String, upper: Option<u8>, lower: Option<u8>) {
    out.push_str("  +");
    for file in 0..8u8 {
        let sq_above = upper.and_then(|r| Square::new(file, r));
        let sq_below = lower.and_then(|r| Square::new(file, r));
        let castle = |s: Option<Square>| s.is_some_and(is_castle);
        let victory = |s: Option<Square>| s.is_some_and(is_victory);
        let fill = if castle(sq_above) != castle(sq_below) {
            '='
        } else if victory(sq_above) != victory(sq_below) {
            '.'
        } else {
            '-'
        };
        for _ in 0..CELL {
            out.push(fill);
        }
        out.push('+');
    }
    out.push('\n');
}

/// The wall drawn to the left of the square on `file` (0 to 7).
fn wall_left(file: u8, rank: u8) -> char {
    let here = Square::new(file, rank);
    let left = file.checked_sub(1).and_then(|f| Square::new(f, rank));
    let castle = |s: Option<Square>| s.is_some_and(is_castle);
    let victory = |s: Option<Square>| s.is_some_and(is_victory);
    if castle(here) != castle(left) {
        '#'
    } else if victory(here) != victory(left) {
        ':'
    } else {
        '|'
    }
}

/// A square's content: `*` if breached, then defenders upper case, then
/// attackers lower case, each in the order of [`UnitKind::ALL`].
fn cell(state: &State, sq: Square) -> String {
    let mut s = String::with_capacity(CELL);
    if state.is_breached(sq) {
        s.push('*');
    }
    for side in Side::BOTH {
        for kind in UnitKind::ALL {
            let n = state
                .units_at(sq)
                .filter(|u| u.side == side && u.kind == kind)
                .count();
            for _ in 0..n {
                let c = kind.letter();
                s.push(match side {
                    Side::Defender => c,
                    Side::Attacker => c.to_ascii_lowercase(),
                });
            }
        }
    }
    s
}

fn legend(state: &State, out: &mut String) {
    out.push_str(
        "Defender upper case, Attacker lower case: C cannon, K knight, A archer, \
         O cauldron, S sapper, R ram, T siege tower.\n",
    );
    out.push_str("* breached. Castle walls = and #; victory squares d4 e4 d5 e5 inside . and :.\n");
    let breaches = state.breaches();
    let breaches = if breaches.is_empty() {
        "none".to_owned()
    } else {
        breaches.to_string()
    };
    let _ = writeln!(
        out,
        "Defenders {} of 16, attackers {} of 28; breaches: {breaches}.",
        state.count(Side::Defender),
        state.count(Side::Attacker),
    );
    let rules = state.rules();
    // The turn is named only when faithful (CS-P4), so that the diagrams of
    // priority-list games read as they always did.
    let turn = match rules.turn {
        TurnMode::Faithful => ", turn faithful",
        TurnMode::PriorityList => "",
    };
    let _ = writeln!(
        out,
        "Rules: adjacency {}, inner_moves {}, rocks {}, round cap {}{turn}.",
        rules.adjacency,
        rules.inner_moves.name(),
        rules.rocks.name(),
        rules.round_cap
    );
    match state.outcome() {
        Some(o) => {
            let _ = writeln!(out, "Round {}: {o}.", state.round());
        }
        None => {
            // CS-P4: the player chooses each step knowing what is left.
            let allowance = match state.allowance() {
                Some(a) if state.phase() == Phase::Move => {
                    format!(" (allowance {}, {} left)", a.face, a.left())
                }
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "Round {}: the {} to play, {} phase{allowance}.",
                state.round(),
                state.turn(),
                state.phase()
            );
        }
    }
}
