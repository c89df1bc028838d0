//! A text diagram of a position: rank 8 at the top, files labelled, tower
//! squares (manned or silenced), gers and carried captives marked, and a
//! legend. Plain ASCII, so it survives any mail client.
//!
//! ```text
//!      a   b   c   d   e   f   g   h
//! 8    w   f   w   w   a   .   .  @.   8
//! 7    w   .   s   h   a   .   .  #.   7
//! ```
//!
//! Each square is three characters: a square mark (`#` manned tower square,
//! `:` silenced tower square, `@` ger), the piece letter (or `.`), and a
//! captive mark for what that piece carries (`+` White's khan, `-` Black's
//! khan, `*` the general).

use std::fmt::Write;

use super::piece::{Captive, Kind, Side};
use super::position::{CaptiveAt, Position};
use super::square::Square;

/// The captive mark printed after a carrier.
pub const fn captive_mark(c: Captive) -> char {
    match c {
        Captive::Khan(Side::White) => '+',
        Captive::Khan(Side::Black) => '-',
        Captive::General => '*',
    }
}

/// The diagram of `pos`, legend included.
pub fn diagram(pos: &Position) -> String {
    let mut out = String::with_capacity(1024);
    let files = "     a   b   c   d   e   f   g   h\n";
    out.push_str(files);
    let towers = pos.tower_squares();
    let gers = pos.gers(Side::White) | pos.gers(Side::Black);
    for rank in (0..8u8).rev() {
        let _ = write!(out, "{}  ", rank + 1);
        for file in 0..8u8 {
            let Some(sq) = Square::new(file, rank) else {
                continue;
            };
            let mark = if pos.manned().contains(sq) {
                '#'
            } else if towers.contains(sq) {
                ':'
            } else if gers.contains(sq) {
                '@'
            } else {
                ' '
            };
            let piece = pos.piece_at(sq).map_or('.', |p| p.fen_char());
            let carried = pos.carried_by(sq).map_or(' ', captive_mark);
            out.push(' ');
            out.push(mark);
            out.push(piece);
            out.push(carried);
        }
        let _ = writeln!(out, "  {}", rank + 1);
    }
    out.push_str(files);
    out.push('\n');
    legend(pos, &mut out);
    out
}

/// A captive's name at the start of a sentence.
fn capital(c: Captive) -> String {
    let name = c.name();
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn squares(b: super::square::Bitboard) -> String {
    b.iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn legend(pos: &Position, out: &mut String) {
    out.push_str("Pieces: upper case White, lower case Black; ");
    let names: Vec<String> = Kind::ALL
        .iter()
        .map(|k| format!("{} {}", k.letter(), k.name()))
        .collect();
    out.push_str(&names.join(", "));
    out.push_str(".\n");
    let siege = pos.towers().next().is_some()
        || !(pos.gers(Side::White) | pos.gers(Side::Black)).is_empty()
        || pos.captives().next().is_some();
    if siege {
        out.push_str(
            "Marks: # manned tower square (deadly to all but magicians), : silenced tower square, \
             @ ger; after a piece: + carries White's khan, - carries Black's khan, * carries the general.\n",
        );
        for (i, t) in pos.towers().enumerate() {
            let manned = t & pos.manned();
            let _ = write!(out, "Tower {}: {}", i + 1, squares(t));
            if manned.is_empty() {
                out.push_str(", all silenced");
            } else if manned == t {
                out.push_str(", all manned");
            } else {
                let _ = write!(out, ", manned {}", squares(manned));
            }
            match pos.tower_captive(i) {
                Some(c) => {
                    let _ = writeln!(out, "; holds {c}.");
                }
                None => out.push_str("; empty.\n"),
            }
        }
        for side in Side::BOTH {
            let g = pos.gers(side);
            if !g.is_empty() {
                let _ = writeln!(out, "{side}'s ger: {}.", squares(g));
            }
        }
        for (c, at) in pos.captives() {
            match at {
                CaptiveAt::Carried(sq) => {
                    if let Some(p) = pos.piece_at(sq) {
                        let _ = writeln!(out, "{} is carried by the {p} on {sq}.", capital(c));
                    }
                }
                CaptiveAt::Waiting(sq) => {
                    let _ = writeln!(
                        out,
                        "{} waits at the ger {sq} until it is empty.",
                        capital(c)
                    );
                }
                CaptiveAt::Tower(_) => {}
            }
        }
    }
    if let Some(side) = pos.delivered() {
        let _ = writeln!(out, "{side} has delivered the general.");
    }
    let plies = pos.halfmoves();
    let word = if plies == 1 { "ply" } else { "plies" };
    let _ = writeln!(
        out,
        "{} to move; move {}; {plies} {word} since the last capture or death.",
        pos.turn(),
        pos.fullmoves(),
    );
}
