//! A Khan position: the board with towers (manned squares cross-hatched,
//! silenced ones hatched one way), gers (a frame in the owner's dash
//! pattern and a `W`/`B` tag), pieces (white or black discs with their
//! letter), and captives as tags: on the piece that carries them, at the
//! ger they wait at, or on the tower that holds them.
//!
//! The legend shows a sample of each mark the board uses, drawn by the
//! same code as the board's, and nothing the board does not use: a
//! reader of a magician game is not told about towers.

use yam_referee::khan::{Captive, CaptiveAt, Kind, Position, Side, Square};

use super::Canvas;

const SQ: u32 = 48;
const LEFT: u32 = 28;
const TOP: u32 = 24;
const BOARD: u32 = 8 * SQ;
const WIDTH: u32 = LEFT + BOARD + 28;

const MANNED_FILL: &str = "#e9b8b0";
const MANNED_INK: &str = r##"stroke="#7a1f12" stroke-width="1""##;
const SILENCED_FILL: &str = "#dcdcdc";
const SILENCED_INK: &str = r##"stroke="#555555" stroke-width="1""##;
const LAST_INK: &str = r##"stroke="#d98c00" stroke-width="4""##;

/// The top-left corner of `sq`, rank 8 at the top.
fn corner(sq: Square) -> (u32, u32) {
    let file = u32::from(sq.file());
    let rank = (sq.index() / 8) as u32;
    (LEFT + file * SQ, TOP + (7 - rank) * SQ)
}

/// Where a captive tag goes, and how it is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// On the piece that carries it: a solid yellow tag.
    Carried,
    /// At a ger, waiting for it to be empty: a dashed yellow tag.
    Waiting,
    /// Still in a tower: a white tag with a thick double border.
    Tower,
}

/// What the board shows, so the legend can name exactly that.
#[derive(Debug, Default)]
struct Used {
    manned: bool,
    silenced: bool,
    gers: [bool; 2],
    /// Each way a captive is held, with a captive held so (the sample).
    held: Vec<(Held, Captive)>,
    captives: Vec<Captive>,
    kinds: Vec<Kind>,
}

/// The picture of `pos`; `last` is the move that led to it (from, to),
/// outlined.
pub fn draw(pos: &Position, last: Option<(Square, Square)>, caption: &str) -> String {
    let mut c = Canvas::new(WIDTH);
    let mut used = Used::default();
    let manned = pos.manned();
    let towers = pos.tower_squares();
    for index in 0..64u8 {
        let Some(sq) = Square::from_index(index) else {
            continue;
        };
        let (x, y) = corner(sq);
        let dark = (sq.file() + (index / 8)) % 2 == 0;
        let fill = if dark { "#c8d3b8" } else { "#f3f1e4" };
        c.rect(x, y, SQ, SQ, &format!(r#"fill="{fill}""#));
        if manned.contains(sq) {
            manned_mark(&mut c, x, y, SQ, 8);
            used.manned = true;
        } else if towers.contains(sq) {
            silenced_mark(&mut c, x, y, SQ, 12);
            used.silenced = true;
        }
        for side in Side::BOTH {
            if pos.gers(side).contains(sq) {
                ger_frame(&mut c, x, y, SQ, side);
                used.gers[side.index()] = true;
            }
        }
    }
    // The last move: a thick outline on both squares (dashed on the square
    // left), under the pieces so it never hides one.
    if let Some((from, to)) = last {
        for (sq, dashed) in [(from, true), (to, false)] {
            let (x, y) = corner(sq);
            last_outline(&mut c, x, y, SQ, dashed);
        }
    }
    for index in 0..64u8 {
        let Some(sq) = Square::from_index(index) else {
            continue;
        };
        if let Some(p) = pos.piece_at(sq) {
            let (x, y) = corner(sq);
            piece(&mut c, x + SQ / 2, y + SQ / 2, p.side, p.kind);
            if !used.kinds.contains(&p.kind) {
                used.kinds.push(p.kind);
            }
        }
    }
    // Labels last, over the pieces, in corners the discs leave free: a
    // label under a piece cannot be read.
    for index in 0..64u8 {
        let Some(sq) = Square::from_index(index) else {
            continue;
        };
        for side in Side::BOTH {
            if pos.gers(side).contains(sq) {
                let (x, y) = corner(sq);
                ger_tag(&mut c, x + 2, y + SQ - 13, side);
            }
        }
    }
    let tower_list: Vec<_> = pos.towers().collect();
    let mut tagged: Vec<Square> = Vec::new();
    for (captive, at) in pos.captives() {
        let (sq, held) = match at {
            CaptiveAt::Carried(sq) => (Some(sq), Held::Carried),
            CaptiveAt::Waiting(sq) => (Some(sq), Held::Waiting),
            // A tower holds its captive as a whole: the tag goes on its
            // middle square, where the eye looks for the tower.
            CaptiveAt::Tower(i) => (
                tower_list
                    .get(usize::from(i))
                    .and_then(|t| middle(t.iter().collect())),
                Held::Tower,
            ),
        };
        if let Some(sq) = sq {
            let (x, y) = corner(sq);
            // A second tag on the same square (a carrier standing on a ger
            // where another captive waits) goes under the first.
            let below = tagged.iter().filter(|t| **t == sq).count() as u32;
            tagged.push(sq);
            captive_tag(
                &mut c,
                x + SQ - 25,
                y + 1 + 14 * below,
                captive.code(),
                held,
            );
            if !used.held.iter().any(|(h, _)| *h == held) {
                used.held.push((held, captive));
            }
            if !used.captives.contains(&captive) {
                used.captives.push(captive);
            }
        }
    }
    c.board_frame(LEFT, TOP, SQ);
    legend(&mut c, pos, last, &used, TOP + BOARD + 26);
    c.finish(caption)
}

/// The middle one of a tower's squares (in board order).
fn middle(mut squares: Vec<Square>) -> Option<Square> {
    squares.sort_by_key(|s| s.index());
    squares.get(squares.len() / 2).copied()
}

fn manned_mark(c: &mut Canvas, x: u32, y: u32, size: u32, step: u32) {
    c.rect(x, y, size, size, &format!(r#"fill="{MANNED_FILL}""#));
    c.hatch(x, y, size, step, true, MANNED_INK);
}

fn silenced_mark(c: &mut Canvas, x: u32, y: u32, size: u32, step: u32) {
    c.rect(x, y, size, size, &format!(r#"fill="{SILENCED_FILL}""#));
    c.hatch(x, y, size, step, false, SILENCED_INK);
}

/// A ger's frame: long blue dashes for White's, short black dots for
/// Black's (the dash pattern tells them apart in black and white).
fn ger_frame(c: &mut Canvas, x: u32, y: u32, size: u32, side: Side) {
    let dash = match side {
        Side::White => r##"stroke="#1d4f91" stroke-dasharray="6 3""##,
        Side::Black => r##"stroke="#1d1d1d" stroke-dasharray="2 2""##,
    };
    c.rect(
        x + 3,
        y + 3,
        size - 6,
        size - 6,
        &format!(r#"fill="none" stroke-width="3" {dash}"#),
    );
}

/// The ger's owner as a letter on a tag: white tag `W`, black tag `B`.
fn ger_tag(c: &mut Canvas, x: u32, y: u32, side: Side) {
    let (fill, ink, letter) = match side {
        Side::White => ("#ffffff", "#000000", "W"),
        Side::Black => ("#1d1d1d", "#ffffff", "B"),
    };
    c.raw(&format!(
        r##"<rect x="{x}" y="{y}" width="11" height="11" fill="{fill}" stroke="#000000" stroke-width="1"/>"##
    ));
    c.text(
        x + 6,
        y + 9,
        9,
        &format!(r#"text-anchor="middle" font-weight="bold" fill="{ink}""#),
        letter,
    );
}

fn last_outline(c: &mut Canvas, x: u32, y: u32, size: u32, dashed: bool) {
    let dash = if dashed {
        r#" stroke-dasharray="5 3""#
    } else {
        ""
    };
    c.rect(
        x + 2,
        y + 2,
        size - 4,
        size - 4,
        &format!(r#"fill="none" {LAST_INK}{dash}"#),
    );
}

fn piece(c: &mut Canvas, cx: u32, cy: u32, side: Side, kind: Kind) {
    let (fill, ink) = match side {
        Side::White => ("#ffffff", "#000000"),
        Side::Black => ("#262626", "#ffffff"),
    };
    c.raw(&format!(
        r##"<circle cx="{cx}" cy="{cy}" r="17" fill="{fill}" stroke="#000000" stroke-width="2"/>"##
    ));
    c.text(
        cx,
        cy + 6,
        18,
        &format!(r#"text-anchor="middle" font-weight="bold" fill="{ink}""#),
        &kind.letter().to_string(),
    );
}

/// A captive's tag, 24 by 13, with its code (`wk`, `bk`, `gen`).
fn captive_tag(c: &mut Canvas, x: u32, y: u32, code: &str, held: Held) {
    let style = match held {
        Held::Carried => r##"fill="#ffd84a" stroke="#000000" stroke-width="1""##,
        Held::Waiting => {
            r##"fill="#ffd84a" stroke="#000000" stroke-width="1" stroke-dasharray="3 2""##
        }
        Held::Tower => r##"fill="#ffffff" stroke="#000000" stroke-width="2.5""##,
    };
    c.raw(&format!(
        r##"<rect x="{x}" y="{y}" width="24" height="13" rx="3" {style}/>"##
    ));
    c.text(
        x + 12,
        y + 10,
        9,
        r#"text-anchor="middle" font-weight="bold""#,
        code,
    );
}

fn legend(c: &mut Canvas, pos: &Position, last: Option<(Square, Square)>, used: &Used, top: u32) {
    // One row per mark on the board: its sample, then what it means.
    let mut y = top + 4;
    let x = LEFT;
    let row = |c: &mut Canvas, y: &mut u32, words: &str| {
        c.text(x + 56, *y + 16, 12, "", words);
        *y += 28;
    };
    if used.manned {
        manned_mark(c, x, y, 24, 6);
        row(
            c,
            &mut y,
            "manned tower square (deadly to all but magicians)",
        );
    }
    if used.silenced {
        silenced_mark(c, x, y, 24, 8);
        row(c, &mut y, "silenced tower square");
    }
    for side in Side::BOTH {
        if used.gers[side.index()] {
            ger_frame(c, x, y - 2, 28, side);
            ger_tag(c, x + 32, y + 4, side);
            let words = match side {
                Side::White => "White's ger (long dashes, tag W)",
                Side::Black => "Black's ger (short dots, tag B)",
            };
            row(c, &mut y, words);
        }
    }
    let codes = used
        .captives
        .iter()
        .map(|k| format!("{} {}", k.code(), k.name()))
        .collect::<Vec<_>>()
        .join(", ");
    for held in [Held::Carried, Held::Waiting, Held::Tower] {
        if let Some((_, sample)) = used.held.iter().find(|(h, _)| *h == held) {
            captive_tag(c, x, y + 5, sample.code(), held);
            let words = match held {
                Held::Carried => "captive carried by the piece under the tag",
                Held::Waiting => "captive waiting at the ger (dashed tag)",
                Held::Tower => "captive held in the tower (white tag, thick border)",
            };
            row(c, &mut y, words);
        }
    }
    if let Some((from, to)) = last {
        last_outline(c, x, y - 2, 26, true);
        last_outline(c, x + 26, y - 2, 26, false);
        row(
            c,
            &mut y,
            &format!("last move, from {from} (dashed outline) to {to} (solid outline)"),
        );
    }
    let mut lines = Vec::new();
    if !used.kinds.is_empty() {
        let kinds = Kind::ALL
            .iter()
            .filter(|k| used.kinds.contains(k))
            .map(|k| format!("{} {}", k.letter(), k.name()))
            .collect::<Vec<_>>()
            .join(", ");
        lines.push(format!(
            "Pieces: white discs White, black discs Black; {kinds}."
        ));
    }
    if !codes.is_empty() {
        lines.push(format!("Captives: {codes}."));
    }
    // The referee's own legend lines that need no text marks: towers,
    // gers, captives, the general, whose move.
    let text = yam_referee::khan::diagram(pos);
    if let Some((_, legend)) = text.split_once("\n\n") {
        lines.extend(
            legend
                .lines()
                .filter(|l| !l.starts_with("Pieces:") && !l.starts_with("Marks:"))
                .map(str::to_owned),
        );
    }
    if let Some(outcome) = pos.outcome() {
        lines.push(outcome.to_string());
    }
    c.paragraphs(LEFT, y - 8, &lines);
}
