//! A Khan position: the board with towers (manned squares cross-hatched,
//! silenced ones hatched one way), gers (a dashed frame in the owner's
//! style), pieces (white or black discs with their letter), and captives
//! as tags on the piece that carries them or the ger they wait at.

use yam_referee::khan::{Captive, CaptiveAt, Kind, Position, Side, Square};

use super::Canvas;

const SQ: u32 = 48;
const LEFT: u32 = 28;
const TOP: u32 = 24;
const BOARD: u32 = 8 * SQ;
const WIDTH: u32 = LEFT + BOARD + 28;

/// The top-left corner of `sq`, rank 8 at the top.
fn corner(sq: Square) -> (u32, u32) {
    let file = u32::from(sq.file());
    let rank = (sq.index() / 8) as u32;
    (LEFT + file * SQ, TOP + (7 - rank) * SQ)
}

/// The picture of `pos`; `last` is the move that led to it (from, to),
/// outlined.
pub fn draw(pos: &Position, last: Option<(Square, Square)>, caption: &str) -> String {
    let mut c = Canvas::new(WIDTH);
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
            c.rect(x, y, SQ, SQ, r##"fill="#e9b8b0""##);
            c.hatch(x, y, SQ, 8, true, r##"stroke="#7a1f12" stroke-width="1""##);
        } else if towers.contains(sq) {
            c.rect(x, y, SQ, SQ, r##"fill="#dcdcdc""##);
            c.hatch(
                x,
                y,
                SQ,
                12,
                false,
                r##"stroke="#555555" stroke-width="1""##,
            );
        }
        for side in Side::BOTH {
            if pos.gers(side).contains(sq) {
                let dash = match side {
                    Side::White => r##"stroke="#1d4f91" stroke-dasharray="6 3""##,
                    Side::Black => r##"stroke="#1d1d1d" stroke-dasharray="2 2""##,
                };
                c.rect(
                    x + 3,
                    y + 3,
                    SQ - 6,
                    SQ - 6,
                    &format!(r#"fill="none" stroke-width="3" {dash}"#),
                );
                let label = match side {
                    Side::White => "W ger",
                    Side::Black => "B ger",
                };
                c.text(x + 5, y + SQ - 5, 8, r##"fill="#1d1d1d""##, label);
            }
        }
        if let Some(p) = pos.piece_at(sq) {
            let (fill, ink) = match p.side {
                Side::White => ("#ffffff", "#000000"),
                Side::Black => ("#262626", "#ffffff"),
            };
            c.raw(&format!(
                r##"<circle cx="{}" cy="{}" r="17" fill="{fill}" stroke="#000000" stroke-width="2"/>"##,
                x + SQ / 2,
                y + SQ / 2
            ));
            c.text(
                x + SQ / 2,
                y + SQ / 2 + 6,
                18,
                &format!(r#"text-anchor="middle" font-weight="bold" fill="{ink}""#),
                &p.kind.letter().to_string(),
            );
        }
    }
    // The last move: a thick outline on both squares (dashed on the square
    // left), drawn under the pieces' tags.
    if let Some((from, to)) = last {
        for (sq, dash) in [(from, r#" stroke-dasharray="5 3""#), (to, "")] {
            let (x, y) = corner(sq);
            c.rect(
                x + 2,
                y + 2,
                SQ - 4,
                SQ - 4,
                &format!(r##"fill="none" stroke="#d98c00" stroke-width="4"{dash}"##),
            );
        }
    }
    // Captives over the pieces: a tag in the corner of the square.
    for (captive, at) in pos.captives() {
        match at {
            CaptiveAt::Carried(sq) => captive_tag(&mut c, sq, captive, false),
            CaptiveAt::Waiting(sq) => captive_tag(&mut c, sq, captive, true),
            CaptiveAt::Tower(_) => {}
        }
    }
    c.board_frame(LEFT, TOP, SQ);
    legend(&mut c, pos, last, TOP + BOARD + 26);
    c.finish(caption)
}

/// A captive's tag: solid on its carrier, dashed where it waits at a ger.
fn captive_tag(c: &mut Canvas, sq: Square, captive: Captive, waiting: bool) {
    let (x, y) = corner(sq);
    let dash = if waiting {
        r#" stroke-dasharray="3 2""#
    } else {
        ""
    };
    c.raw(&format!(
        r##"<rect x="{}" y="{}" width="24" height="13" rx="3" fill="#ffd84a" stroke="#000000" stroke-width="1"{dash}/>"##,
        x + SQ - 25,
        y + 1
    ));
    c.text(
        x + SQ - 13,
        y + 11,
        9,
        r#"text-anchor="middle" font-weight="bold""#,
        captive.code(),
    );
}

fn legend(c: &mut Canvas, pos: &Position, last: Option<(Square, Square)>, top: u32) {
    let mut y = top + 8;
    // Samples of each mark, then what they mean.
    let samples: [(&str, &str); 5] = [
        (
            "manned",
            "manned tower square (deadly to all but magicians)",
        ),
        ("silenced", "silenced tower square"),
        ("ger", "ger (dashed frame; W ger White's, B ger Black's)"),
        ("carried", "captive carried by the piece (wk, bk, gen)"),
        ("waiting", "captive waiting at the ger (dashed tag)"),
    ];
    for (kind, words) in samples {
        let x = LEFT;
        match kind {
            "manned" => {
                c.rect(x, y, 16, 16, r##"fill="#e9b8b0" stroke="#000000""##);
                c.hatch(x, y, 16, 5, true, r##"stroke="#7a1f12" stroke-width="1""##);
            }
            "silenced" => {
                c.rect(x, y, 16, 16, r##"fill="#dcdcdc" stroke="#000000""##);
                c.hatch(x, y, 16, 6, false, r##"stroke="#555555" stroke-width="1""##);
            }
            "ger" => c.rect(
                x,
                y,
                16,
                16,
                r##"fill="none" stroke="#1d4f91" stroke-width="3" stroke-dasharray="6 3""##,
            ),
            "carried" | "waiting" => {
                let dash = if kind == "waiting" {
                    r#" stroke-dasharray="3 2""#
                } else {
                    ""
                };
                c.rect(
                    x,
                    y + 2,
                    20,
                    12,
                    &format!(r##"rx="3" fill="#ffd84a" stroke="#000000"{dash}"##),
                );
            }
            _ => {}
        }
        c.text(x + 28, y + 13, 12, "", words);
        y += 21;
    }
    let mut lines = vec![format!(
        "Pieces: white discs White, black discs Black; {}.",
        Kind::ALL
            .iter()
            .map(|k| format!("{} {}", k.letter(), k.name()))
            .collect::<Vec<_>>()
            .join(", ")
    )];
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
    if let Some((from, to)) = last {
        lines.push(format!(
            "Last move from {from} (dashed orange outline) to {to} (solid orange outline)."
        ));
    }
    if let Some(outcome) = pos.outcome() {
        lines.push(outcome.to_string());
    }
    c.paragraphs(LEFT, y - 4, &lines);
}
