//! A Castle Siege position: the board with the castle (shaded, outlined by
//! a thick wall), the victory squares (a double frame), the moat ring
//! (light), breaches (a jagged mark), and every square's stacks as chips:
//! white chips with capitals for the Defender, black chips with small
//! letters for the Attacker, each with its count.

use yam_referee::castle_siege::board::{is_castle, is_moat, is_victory};
use yam_referee::castle_siege::{Side, Square, State, UnitKind};

use super::Canvas;

const SQ: u32 = 72;
const LEFT: u32 = 28;
const TOP: u32 = 24;
const BOARD: u32 = 8 * SQ;
const WIDTH: u32 = LEFT + BOARD + 28;

fn corner(sq: Square) -> (u32, u32) {
    let file = u32::from(sq.file());
    let rank = (sq.index() / 8) as u32;
    (LEFT + file * SQ, TOP + (7 - rank) * SQ)
}

fn square(file: i8, rank: i8) -> Option<Square> {
    let file = u8::try_from(file).ok()?;
    let rank = u8::try_from(rank).ok()?;
    Square::new(file, rank)
}

/// The picture of `state`; with no state, the empty board and `note`.
pub fn draw(state: Option<&State>, note: Option<&str>, caption: &str) -> String {
    let mut c = Canvas::new(WIDTH);
    for index in 0..64u8 {
        let Some(sq) = Square::from_index(index) else {
            continue;
        };
        let (x, y) = corner(sq);
        let moat = state.is_some_and(|s| is_moat(sq, s.rules().adjacency));
        let fill = if is_castle(sq) {
            "#d8c8a8"
        } else if moat {
            "#d6e8f5"
        } else {
            "#f6f4ec"
        };
        c.rect(
            x,
            y,
            SQ,
            SQ,
            &format!(r##"fill="{fill}" stroke="#9a9a9a" stroke-width="1""##),
        );
        if is_victory(sq) {
            c.rect(
                x + 3,
                y + 3,
                SQ - 6,
                SQ - 6,
                r##"fill="none" stroke="#8a6d00" stroke-width="1.5""##,
            );
            c.rect(
                x + 6,
                y + 6,
                SQ - 12,
                SQ - 12,
                r##"fill="none" stroke="#8a6d00" stroke-width="1.5""##,
            );
        }
    }
    castle_walls(&mut c);
    if let Some(state) = state {
        for index in 0..64u8 {
            if let Some(sq) = Square::from_index(index) {
                stacks(&mut c, state, sq);
            }
        }
    }
    c.board_frame(LEFT, TOP, SQ);
    legend(&mut c, state, note, TOP + BOARD + 26);
    c.finish(caption)
}

/// The castle's outline: a thick line on every edge between a castle
/// square and a square outside it (or the board's edge).
fn castle_walls(c: &mut Canvas) {
    let wall = r##"stroke="#3b2a10" stroke-width="5" stroke-linecap="square""##;
    for index in 0..64u8 {
        let Some(sq) = Square::from_index(index) else {
            continue;
        };
        if !is_castle(sq) {
            continue;
        }
        let (x, y) = corner(sq);
        let (f, r) = (sq.file() as i8, (index / 8) as i8);
        let outside = |df: i8, dr: i8| !square(f + df, r + dr).is_some_and(is_castle);
        if outside(0, 1) {
            c.line(x, y, x + SQ, y, wall);
        }
        if outside(0, -1) {
            c.line(x, y + SQ, x + SQ, y + SQ, wall);
        }
        if outside(-1, 0) {
            c.line(x, y, x, y + SQ, wall);
        }
        if outside(1, 0) {
            c.line(x + SQ, y, x + SQ, y + SQ, wall);
        }
    }
}

/// A square's breach mark and its units.
fn stacks(c: &mut Canvas, state: &State, sq: Square) {
    let (x, y) = corner(sq);
    if state.is_breached(sq) {
        // A jagged crack across the square's top-right corner.
        c.raw(&format!(
            r##"<polyline points="{},{} {},{} {},{} {},{} {},{}" fill="none" stroke="#b00000" stroke-width="3"/>"##,
            x + SQ - 30,
            y + 2,
            x + SQ - 22,
            y + 10,
            x + SQ - 16,
            y + 5,
            x + SQ - 9,
            y + 16,
            x + SQ - 2,
            y + 12
        ));
    }
    let mut chips = Vec::new();
    for side in Side::BOTH {
        for kind in UnitKind::ALL {
            let n = state
                .units_at(sq)
                .filter(|u| u.side == side && u.kind == kind)
                .count();
            if n > 0 {
                chips.push((side, kind, n));
            }
        }
    }
    for (i, (side, kind, n)) in chips.into_iter().enumerate() {
        let i = i as u32;
        let cx = x + 4 + (i % 2) * 33;
        let cy = y + 18 + (i / 2) * 13;
        chip(c, cx, cy, side, kind, n);
    }
}

fn chip(c: &mut Canvas, x: u32, y: u32, side: Side, kind: UnitKind, n: usize) {
    let (fill, ink, letter) = match side {
        Side::Defender => ("#ffffff", "#000000", kind.letter()),
        Side::Attacker => ("#262626", "#ffffff", kind.letter().to_ascii_lowercase()),
    };
    c.rect(
        x,
        y,
        31,
        12,
        &format!(r##"rx="2" fill="{fill}" stroke="#000000" stroke-width="1""##),
    );
    let label = if n == 1 {
        letter.to_string()
    } else {
        format!("{n}{letter}")
    };
    c.text(
        x + 15,
        y + 10,
        10,
        &format!(r#"text-anchor="middle" font-weight="bold" fill="{ink}""#),
        &label,
    );
}

fn legend(c: &mut Canvas, state: Option<&State>, note: Option<&str>, top: u32) {
    let mut y = top + 8;
    chip(c, LEFT, y + 2, Side::Defender, UnitKind::Knight, 2);
    c.text(
        LEFT + 40,
        y + 12,
        12,
        "",
        "Defender: white chips, capitals; the count before the letter (2K two knights)",
    );
    y += 19;
    chip(c, LEFT, y + 2, Side::Attacker, UnitKind::Ram, 1);
    c.text(
        LEFT + 40,
        y + 12,
        12,
        "",
        "Attacker: black chips, small letters",
    );
    y += 19;
    c.rect(
        LEFT,
        y,
        31,
        14,
        r##"fill="#d8c8a8" stroke="#3b2a10" stroke-width="3""##,
    );
    c.text(
        LEFT + 40,
        y + 12,
        12,
        "",
        "castle square (thick line: the walls); light blue: the moat ring",
    );
    y += 19;
    c.rect(
        LEFT,
        y,
        31,
        14,
        r##"fill="none" stroke="#8a6d00" stroke-width="1.5""##,
    );
    c.rect(
        LEFT + 3,
        y + 3,
        25,
        8,
        r##"fill="none" stroke="#8a6d00" stroke-width="1.5""##,
    );
    c.text(LEFT + 40, y + 12, 12, "", "victory square (d4 e4 d5 e5)");
    y += 19;
    c.raw(&format!(
        r##"<polyline points="{},{} {},{} {},{} {},{} {},{}" fill="none" stroke="#b00000" stroke-width="3"/>"##,
        LEFT + 1,
        y + 2,
        LEFT + 9,
        y + 10,
        LEFT + 15,
        y + 5,
        LEFT + 22,
        y + 14,
        LEFT + 30,
        y + 10
    ));
    c.text(LEFT + 40, y + 12, 12, "", "breached castle square");
    y += 19;
    let mut lines = vec![
        "Units: C cannon, K knight, A archer, O cauldron, S sapper, R ram, T siege tower."
            .to_owned(),
    ];
    if let Some(note) = note {
        lines.push(note.to_owned());
    }
    if let Some(state) = state {
        let breaches = state.breaches();
        let breaches = if breaches.is_empty() {
            "none".to_owned()
        } else {
            breaches.to_string()
        };
        lines.push(format!(
            "Defenders {} of 16, attackers {} of 28; breaches: {breaches}.",
            state.count(Side::Defender),
            state.count(Side::Attacker),
        ));
        let rules = state.rules();
        lines.push(format!(
            "Rules: adjacency {}, inner_moves {}, rocks {}, round cap {}.",
            rules.adjacency,
            rules.inner_moves.name(),
            rules.rocks.name(),
            rules.round_cap
        ));
        lines.push(match state.outcome() {
            Some(o) => format!("Round {}: {o}.", state.round()),
            None => format!(
                "Round {}: the {} to play, {} phase.",
                state.round(),
                state.turn(),
                state.phase()
            ),
        });
    }
    c.paragraphs(LEFT, y - 4, &lines);
}
