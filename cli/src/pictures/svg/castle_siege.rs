//! A Castle Siege position: the board with the castle (shaded, outlined by
//! a thick wall), the victory squares (a double frame), the moat ring
//! (light), breaches (a jagged mark), and every unit as a disc with its
//! letter, centred in its square: white discs with capitals for the
//! Defender, black discs with small letters for the Attacker. A square
//! holding several units shares its space among them, smaller.
//!
//! The orders of the turn that led to the position are arrows (a step
//! solid, a breach attempt dashed, an attack dotted; the turn's latest
//! order thicker), each die drawn on its arrow where it crosses into the
//! next square (between the units, not over them), and all the turn's
//! dice in a row under the board with the order each resolved.
//!
//! The legend names only what the board shows.

use yam_notation::castle_siege::{Mark, Order, Phase};
use yam_referee::castle_siege::board::{is_castle, is_moat, is_victory};
use yam_referee::castle_siege::{Effect, Side, Square, State, TurnMode, UnitKind};

use super::Canvas;
use crate::pictures::positions::SiegeTurn;

const SQ: u32 = 72;
const LEFT: u32 = 28;
const TOP: u32 = 24;
const BOARD: u32 = 8 * SQ;
const WIDTH: u32 = LEFT + BOARD + 28;

const ARROW: &str = "#b34a00";

fn corner(sq: Square) -> (u32, u32) {
    let file = u32::from(sq.file());
    let rank = (sq.index() / 8) as u32;
    (LEFT + file * SQ, TOP + (7 - rank) * SQ)
}

fn centre(sq: Square) -> (u32, u32) {
    let (x, y) = corner(sq);
    (x + SQ / 2, y + SQ / 2)
}

fn square(file: i8, rank: i8) -> Option<Square> {
    let file = u8::try_from(file).ok()?;
    let rank = u8::try_from(rank).ok()?;
    Square::new(file, rank)
}

/// The kinds of order arrow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrow {
    Step,
    Breach,
    Attack,
}

impl Arrow {
    /// The dash pattern: what tells the kinds apart in black and white.
    fn dash(self) -> &'static str {
        match self {
            Arrow::Step => "",
            Arrow::Breach => r#" stroke-dasharray="9 4""#,
            Arrow::Attack => r#" stroke-dasharray="2 3""#,
        }
    }
}

/// What the board shows, so the legend can name exactly that.
#[derive(Debug, Default)]
struct Used {
    sides: [bool; 2],
    kinds: Vec<UnitKind>,
    breach: bool,
    arrows: Vec<Arrow>,
    dice: bool,
}

/// The picture of `state`, with `turn`'s orders marked; with no state,
/// the empty board and `note`.
pub fn draw(
    state: Option<&State>,
    turn: Option<&SiegeTurn>,
    note: Option<&str>,
    caption: &str,
) -> String {
    let mut c = Canvas::new(WIDTH);
    let mut used = Used::default();
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
            victory_mark(&mut c, x, y, SQ);
        }
    }
    castle_walls(&mut c);
    // The turn's arrows under the units (a range attack crosses other
    // squares, whose letters must stay readable), its dice over them.
    if let Some(turn) = turn {
        orders(&mut c, turn, &mut used, false);
    }
    if let Some(state) = state {
        for index in 0..64u8 {
            if let Some(sq) = Square::from_index(index) {
                units(&mut c, state, sq, &mut used);
            }
        }
        for index in 0..64u8 {
            if let Some(sq) = Square::from_index(index)
                && state.is_breached(sq)
            {
                let (x, y) = corner(sq);
                crack(&mut c, x + SQ - 30, y + 2);
                used.breach = true;
            }
        }
    }
    if let Some(turn) = turn {
        orders(&mut c, turn, &mut used, true);
    }
    c.board_frame(LEFT, TOP, SQ);
    let mut y = TOP + BOARD + 30;
    if let Some(turn) = turn {
        y = dice_row(&mut c, turn, y);
    }
    legend(&mut c, state, turn, note, &used, y);
    c.finish(caption)
}

fn victory_mark(c: &mut Canvas, x: u32, y: u32, size: u32) {
    let ink = r##"fill="none" stroke="#8a6d00" stroke-width="1.5""##;
    c.rect(x + 3, y + 3, size - 6, size - 6, ink);
    c.rect(x + 6, y + 6, size - 12, size - 12, ink);
}

/// A breach: a jagged crack, 28 by 14, from (`x`, `y`).
fn crack(c: &mut Canvas, x: u32, y: u32) {
    c.raw(&format!(
        r##"<polyline points="{},{} {},{} {},{} {},{} {},{}" fill="none" stroke="#b00000" stroke-width="3"/>"##,
        x,
        y,
        x + 8,
        y + 8,
        x + 14,
        y + 3,
        x + 21,
        y + 14,
        x + 28,
        y + 10
    ));
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

/// A square's units, one disc each, centred: one unit large, several
/// sharing the square in a grid (two side by side, up to four in two
/// rows, up to nine in three), the Defender's first, by type.
fn units(c: &mut Canvas, state: &State, sq: Square, used: &mut Used) {
    let mut here: Vec<(Side, UnitKind)> = state.units_at(sq).map(|u| (u.side, u.kind)).collect();
    if here.is_empty() {
        return;
    }
    here.sort_by_key(|(side, kind)| {
        (
            Side::BOTH.iter().position(|s| s == side),
            UnitKind::ALL.iter().position(|k| k == kind),
        )
    });
    let n = here.len() as u32;
    let cols = match n {
        1 => 1,
        2..=4 => 2,
        _ => 3,
    };
    let rows = n.div_ceil(cols);
    // The square less a margin, cut into cells; each disc fills its cell.
    let area = SQ - 8;
    let cell = (area / cols).min(area / rows.max(1));
    let r = (cell / 2).saturating_sub(2).min(20);
    let (x, y) = corner(sq);
    let top = y + (SQ - rows * cell) / 2;
    for (i, (side, kind)) in here.into_iter().enumerate() {
        let i = i as u32;
        let row = i / cols;
        // The last row, if short, is centred too.
        let in_row = (n - row * cols).min(cols);
        let left = x + (SQ - in_row * cell) / 2;
        let cx = left + (i % cols) * cell + cell / 2;
        let cy = top + row * cell + cell / 2;
        unit(c, cx, cy, r, side, kind);
        used.sides[Side::BOTH.iter().position(|s| *s == side).unwrap_or(0)] = true;
        if !used.kinds.contains(&kind) {
            used.kinds.push(kind);
        }
    }
}

/// One unit: a disc of radius `r` with its letter.
fn unit(c: &mut Canvas, cx: u32, cy: u32, r: u32, side: Side, kind: UnitKind) {
    let (fill, ink, letter) = match side {
        Side::Defender => ("#ffffff", "#000000", kind.letter()),
        Side::Attacker => ("#262626", "#ffffff", kind.letter().to_ascii_lowercase()),
    };
    c.raw(&format!(
        r##"<circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}" stroke="#000000" stroke-width="1.5"/>"##
    ));
    let size = r * 6 / 5 + 2;
    c.text(
        cx,
        cy + size * 7 / 20,
        size,
        &format!(r#"text-anchor="middle" font-weight="bold" fill="{ink}""#),
        &letter.to_string(),
    );
}

/// The turn's orders on the board: an arrow for each step, breach
/// attempt and attack carried out: without `dice` their shafts, with
/// `dice` their heads and each die where its arrow crosses a square's
/// edge. Skipped orders did nothing and are not drawn
/// (the legend lists them).
fn orders(c: &mut Canvas, turn: &SiegeTurn, used: &mut Used, dice: bool) {
    let latest = turn
        .orders
        .iter()
        .rposition(|(o, _, _)| !matches!(o, Order::Phase(_) | Order::End));
    for (i, (order, mark, _)) in turn.orders.iter().enumerate() {
        let (arrow, from, to) = match *order {
            Order::Step { from, to, .. } => (Arrow::Step, from, to),
            Order::Breach { from, target, .. } => (Arrow::Breach, from, target),
            Order::Attack { from, target, .. } => (Arrow::Attack, from, target),
            Order::Phase(_) | Order::End => continue,
        };
        if *mark == Mark::Skipped {
            continue;
        }
        // The turn's latest order stands out while the turn goes on.
        let width = if Some(i) == latest && !turn.ended {
            6
        } else {
            4
        };
        let (x1, y1) = centre(from);
        let (x2, y2) = centre(to);
        let ends = ((x1, y1), (x2, y2));
        if !dice {
            arrow_line(c, ends, 20, width, arrow, (true, false));
            if !used.arrows.contains(&arrow) {
                used.arrows.push(arrow);
            }
            continue;
        }
        // The head over the units, so a step's direction shows even into
        // a crowded square.
        arrow_line(c, ends, 20, width, arrow, (false, true));
        if let Mark::Roll(face) = mark {
            // Where the arrow leaves its first half's square: an edge or
            // a corner, between the discs of the squares it joins.
            let d = u32::from(from.file().abs_diff(to.file()))
                .max((from.index() / 8).abs_diff(to.index() / 8) as u32)
                .max(1);
            let t = (d / 2) as f32 + 0.5;
            let px = x1 as f32 + (x2 as f32 - x1 as f32) * t / d as f32;
            let py = y1 as f32 + (y2 as f32 - y1 as f32) * t / d as f32;
            die(
                c,
                px.round() as u32 - 9,
                py.round() as u32 - 9,
                18,
                face.get(),
            );
            used.dice = true;
        }
    }
}

/// An arrow from `a` to `b`, both ends pulled in by `gap` so it does not
/// cover the units it joins.
/// With `shaft` false, only the head; with `head` false, only the shaft.
fn arrow_line(
    c: &mut Canvas,
    (a, b): ((u32, u32), (u32, u32)),
    gap: u32,
    width: u32,
    kind: Arrow,
    (shaft, head_too): (bool, bool),
) {
    let (ax, ay) = (a.0 as f32, a.1 as f32);
    let (bx, by) = (b.0 as f32, b.1 as f32);
    let (dx, dy) = (bx - ax, by - ay);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let gap = (gap as f32).min(len / 3.0);
    let (sx, sy) = (ax + ux * gap, ay + uy * gap);
    let (ex, ey) = (bx - ux * gap, by - uy * gap);
    let head = 4.0 + 1.5 * width as f32;
    // The shaft stops where the head begins, so its dashes stay sharp.
    let (hx, hy) = (ex - ux * head, ey - uy * head);
    let dash = kind.dash();
    if shaft {
        c.raw(&format!(
            r#"<line x1="{sx:.1}" y1="{sy:.1}" x2="{hx:.1}" y2="{hy:.1}" stroke="{ARROW}" stroke-width="{width}"{dash}/>"#
        ));
    }
    if !head_too {
        return;
    }
    let (px, py) = (-uy * head * 0.6, ux * head * 0.6);
    c.raw(&format!(
        r#"<polygon points="{ex:.1},{ey:.1} {:.1},{:.1} {:.1},{:.1}" fill="{ARROW}"/>"#,
        hx + px,
        hy + py,
        hx - px,
        hy - py
    ));
}

/// A die showing `face`: a white rounded square with the number.
fn die(c: &mut Canvas, x: u32, y: u32, size: u32, face: u8) {
    c.raw(&format!(
        r##"<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="3" fill="#ffffff" stroke="#000000" stroke-width="1.5"/>"##
    ));
    let font = size * 3 / 4;
    c.text(
        x + size / 2,
        y + size / 2 + font * 7 / 20,
        font,
        r#"text-anchor="middle" font-weight="bold""#,
        &face.to_string(),
    );
    c.bottom = c.bottom.max(y + size);
}

/// The turn's dice in a row, each with the order it resolved; returns the
/// y below.
fn dice_row(c: &mut Canvas, turn: &SiegeTurn, top: u32) -> u32 {
    let rolled: Vec<(String, u8)> = turn
        .orders
        .iter()
        .filter_map(|(order, mark, _)| match mark {
            Mark::Roll(face) => Some((order.to_string(), face.get())),
            _ => None,
        })
        .collect();
    let whose = if turn.ended {
        format!(
            "The {}'s turn of round {} (ended)",
            turn.side.name(),
            turn.round
        )
    } else {
        format!(
            "The {}'s turn of round {}, so far",
            turn.side.name(),
            turn.round
        )
    };
    let heading = match rolled.len() {
        0 => format!("{whose}: no dice rolled."),
        1 => format!("{whose}: 1 die."),
        n => format!("{whose}: {n} dice, in the order rolled."),
    };
    c.text(LEFT, top, 13, r#"font-weight="bold""#, &heading);
    let mut y = top + 8;
    let per_row = (BOARD / 64) as usize;
    for (i, (order, face)) in rolled.iter().enumerate() {
        let col = (i % per_row) as u32;
        let row = (i / per_row) as u32;
        let x = LEFT + col * 64;
        let dy = y + row * 50;
        die(c, x + 18, dy, 26, *face);
        c.text(x + 31, dy + 40, 10, r#"text-anchor="middle""#, order);
    }
    if !rolled.is_empty() {
        y += (rolled.len().div_ceil(per_row) as u32) * 50;
    }
    y + 6
}

fn legend(
    c: &mut Canvas,
    state: Option<&State>,
    turn: Option<&SiegeTurn>,
    note: Option<&str>,
    used: &Used,
    top: u32,
) {
    let mut y = top;
    let x = LEFT;
    let row = |c: &mut Canvas, y: &mut u32, words: &str| {
        c.text(x + 48, *y + 18, 12, "", words);
        *y += 28;
    };
    if used.sides[0] {
        unit(c, x + 13, y + 13, 12, Side::Defender, UnitKind::Knight);
        row(
            c,
            &mut y,
            "a Defender unit: white disc, capital letter (K knight)",
        );
    }
    if used.sides[1] {
        unit(c, x + 13, y + 13, 12, Side::Attacker, UnitKind::Knight);
        row(
            c,
            &mut y,
            "an Attacker unit: black disc, small letter (k knight)",
        );
    }
    c.rect(
        x,
        y + 2,
        26,
        24,
        r##"fill="#d8c8a8" stroke="#3b2a10" stroke-width="3""##,
    );
    row(c, &mut y, "castle square (thick line: the walls)");
    // The moat depends on the rules' adjacency: drawn once they are known.
    if state.is_some() {
        c.rect(
            x,
            y + 2,
            26,
            24,
            r##"fill="#d6e8f5" stroke="#9a9a9a" stroke-width="1""##,
        );
        row(c, &mut y, "the moat ring (light blue)");
    }
    victory_mark(c, x, y, 26);
    row(c, &mut y, "victory square (d4 e4 d5 e5)");
    if used.breach {
        crack(c, x, y + 6);
        row(c, &mut y, "breached castle square");
    }
    for arrow in [Arrow::Step, Arrow::Breach, Arrow::Attack] {
        if used.arrows.contains(&arrow) {
            arrow_line(
                c,
                ((x, y + 14), (x + 40, y + 14)),
                0,
                4,
                arrow,
                (true, true),
            );
            let words = match arrow {
                Arrow::Step => "a step this turn (solid arrow)",
                Arrow::Breach => "a breach attempt this turn (dashed arrow)",
                Arrow::Attack => "an attack this turn (dotted arrow)",
            };
            row(c, &mut y, words);
        }
    }
    if used.dice {
        die(c, x + 4, y + 4, 18, 5);
        row(c, &mut y, "the die that resolved the order, on its arrow");
    }
    let mut lines = Vec::new();
    if !used.kinds.is_empty() {
        let kinds = UnitKind::ALL
            .iter()
            .filter(|k| used.kinds.contains(k))
            .map(|k| format!("{} {}", k.letter(), k.name()))
            .collect::<Vec<_>>()
            .join(", ");
        lines.push(format!("Units: {kinds}."));
    }
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
        // As the text diagram: the turn named only when faithful (CS-P4),
        // with the allowance left while the Move phase lasts.
        let turn = match rules.turn {
            TurnMode::Faithful => ", turn faithful",
            TurnMode::PriorityList => "",
        };
        lines.push(format!(
            "Rules: adjacency {}, inner_moves {}, rocks {}, round cap {}{turn}.",
            rules.adjacency,
            rules.inner_moves.name(),
            rules.rocks.name(),
            rules.round_cap
        ));
        let allowance = match state.allowance() {
            Some(a) if state.phase() == Phase::Move => {
                format!(" (allowance {}, {} left)", a.face, a.left())
            }
            _ => String::new(),
        };
        lines.push(match state.outcome() {
            Some(o) => format!("Round {}: {o}.", state.round()),
            None => format!(
                "Round {}: the {} to play, {} phase{allowance}.",
                state.round(),
                state.turn(),
                state.phase()
            ),
        });
    }
    if let Some(turn) = turn {
        lines.extend(report(turn));
    }
    c.paragraphs(LEFT, y - 6, &lines);
}

/// What each order of the turn did, numbered, in the referee's words.
fn report(turn: &SiegeTurn) -> Vec<String> {
    let mut lines = vec![format!(
        "The {}'s orders, round {}{}:",
        turn.side.name(),
        turn.round,
        if turn.ended { "" } else { " (so far)" }
    )];
    for (i, (order, mark, effect)) in turn.orders.iter().enumerate() {
        let mut token = order.to_string();
        mark.write(&mut token);
        let what = match effect {
            Some(effect) => effect_words(effect),
            None => "not resolved on its own before the turn's End".to_owned(),
        };
        lines.push(format!("{}. {token}: {what}", i + 1));
    }
    lines
}

fn effect_words(effect: &Effect) -> String {
    match effect {
        Effect::PhaseBegun(p) => format!("{p} phase"),
        Effect::Allowance { face } => {
            let units = if *face == 1 { "unit" } else { "units" };
            format!("allowance {face}: up to {face} {units} may move")
        }
        Effect::TurnEnded { next, round } => format!("end of turn; the {next} plays round {round}"),
        Effect::Stepped { kind, from, to } => format!("the {kind} steps from {from} to {to}"),
        Effect::Entry {
            kind,
            to,
            condition,
            face,
            entered,
            ..
        } => {
            let need = condition.need();
            if *entered {
                format!("the {kind} enters {to} ({face}, needs {need}+)")
            } else {
                format!("the {kind} fails to enter {to} ({face}, needs {need}+) and stays")
            }
        }
        Effect::BreachAttempt {
            kind,
            target,
            need,
            face,
            breached,
        } => {
            let verdict = if *breached {
                "breaches"
            } else {
                "fails to breach"
            };
            format!("the {kind} {verdict} {target} ({face}, needs {need}+)")
        }
        Effect::Attack {
            kind,
            victim,
            target,
            need,
            face,
            killed,
            ..
        } => {
            let verdict = if *killed { "kills it" } else { "misses" };
            format!(
                "the {kind} attacks the {victim} on {target}: {verdict} ({face}, needs {need}+)"
            )
        }
        Effect::Skipped(why) => format!("skipped: {why}"),
    }
}
