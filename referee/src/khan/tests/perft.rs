//! Perft: legal move paths from the five start positions and from middle
//! positions that exercise every rule, checked against hard-coded figures and
//! against the independent slow generator in `naive.rs` (same counts, and at
//! every node of the first plies the same moves leading to the same positions).

use super::naive::{Naive, as_move};
use super::support::{pos_with, start};
use crate::khan::{Options, Position, PowerMagicianMoves, legal_moves, perft};

/// A middle position: what it exercises, its Yam text, its options.
pub struct Middle {
    pub name: &'static str,
    pub text: &'static str,
    pub options: Options,
}

pub fn middles() -> Vec<Middle> {
    let d = Options::default();
    vec![
        Middle {
            name: "rescue khan: spells at towers, walks into them, a pickup square, single royal bondsmen",
            text: "1f6/2s1a3/wn6/2m2H2/1a3WA1/2h3NW/3A4/6F1 w 10 12 \
                   towers=h5h6h7:wk,a2a3a4:bk manned=a2a4h5h6h7 gers=a1:w,h8:b",
            options: d,
        },
        Middle {
            name: "rescue khan: carried khans, transfers, drop-offs next to both gers",
            text: "1f6/6h1/5w2/2a5/8/3S4/1AW5/6F1 w 20 30 towers=h5h6h7,a2a3a4 \
                   manned=a2a4h5h6 gers=a1:w,h8:b carried=b2:wk,g7:bk",
            options: d,
        },
        Middle {
            name: "rescue khan: carriers of the enemy's khans facing each other (captive-capture rules)",
            text: "1f6/8/2n5/5a2/4W3/3S4/8/6F1 w 0 40 towers=h5h6h7,a2a3a4 \
                   manned=a2a3a4h5h6h7 gers=a1:w,h8:b carried=e4:bk,f5:wk",
            options: d,
        },
        Middle {
            name: "exchanges and capture promotions on; base promotions in reach",
            text: "1f2k3/8/w1a5/AN1S2m1/8/2M3GA/2W1J3/3AWF2 w 0 20",
            options: Options {
                exchanges: true,
                capture_promotions: true,
                ..d
            },
        },
        Middle {
            name: "a royal bondsman attacked by a warrior; a swordsman that cannot attack it",
            text: "1f2k3/8/8/3m4/8/3w4/2s2A2/W3F2N w 0 50",
            options: d,
        },
        Middle {
            name: "single-leader mode: the khan is royal, the bondsman is not",
            text: "1f2k3/8/8/3m4/8/3w4/2s2A2/W3F1KN w 0 50",
            options: Options {
                bondsmen_leaders: false,
                ..d
            },
        },
        Middle {
            name: "rescue general: the general carried near the ger, a magician on a manned square",
            text: "wfwwa3/wks1a3/wn6/aa2m3/6AA/6NW/2W1MSKW/3AW1FW w 5 15 towers=d4e4d5e5 \
                   manned=e4d5e5 gers=a1:w,h8:b carried=c2:gen",
            options: d,
        },
        Middle {
            name: "orthogonal power magicians, extended spells, swords against mounts, no khan spells, no base promotions",
            text: "wfwwa3/wks1a3/wn1h4/aa1W4/2s3AA/4H1NW/3A1SKW/3AWWFW b 3 9",
            options: Options {
                power_magician_moves: PowerMagicianMoves::Orthogonal,
                magician_extended_demotion_sqs: 1,
                swords_capture_mounts: true,
                magician_demotes_khan: false,
                base_promotions: false,
                ..d
            },
        },
        Middle {
            name: "two plies short of the 100-ply draw, captives carried",
            text: "1f6/6h1/5w2/2a5/8/3S4/1AW5/6F1 w 98 80 towers=h5h6h7,a2a3a4 \
                   manned=a2a4h5h6 gers=a1:w,h8:b carried=b2:wk,g7:bk",
            options: d,
        },
    ]
}

pub fn middle_position(m: &Middle) -> Position {
    let text = m.text.split_whitespace().collect::<Vec<_>>().join(" ");
    pos_with(&text, m.options)
}

/// At every node down to `depth`: the same moves, and each leads to the same position.
fn walk(pos: &Position, naive: &Naive, depth: u32, path: &mut Vec<String>) {
    let mut fast: Vec<String> = legal_moves(pos).iter().map(|m| m.to_string()).collect();
    let mut slow: Vec<String> = naive
        .moves()
        .iter()
        .map(|m| as_move(m).to_string())
        .collect();
    fast.sort();
    slow.sort();
    assert_eq!(
        fast,
        slow,
        "moves differ after {path:?} in {}",
        pos.to_yam()
    );
    if depth <= 1 {
        return;
    }
    for nm in naive.moves() {
        let mv = as_move(&nm);
        let mut next = *pos;
        next.play_unchecked(&mv);
        let slow_next = naive.play(&nm);
        path.push(mv.to_string());
        assert_eq!(next.to_yam(), slow_next.to_yam(), "after {path:?}");
        walk(&next, &slow_next, depth - 1, path);
        path.pop();
    }
}

const STARTS: [(&str, [u64; 3]); 5] = [
    ("basic", [33, 1088, 44614]),
    ("magician", [23, 530, 17765]),
    ("power-magician", [31, 962, 42169]),
    ("rescue-general", [24, 577, 18274]),
    ("rescue-khan", [38, 1442, 64646]),
];

/// Checks start position `i` at depths 1 to 3, both ways, and walks it.
fn check_start(i: usize) {
    let (name, figures) = STARTS[i];
    let pos = start(name);
    let naive = Naive::from_position(&pos);
    for (d, want) in (1..=3).zip(figures) {
        assert_eq!(perft(&pos, d), want, "{name} depth {d}");
        assert_eq!(naive.perft(d), want, "{name} depth {d}, slow generator");
    }
    walk(&pos, &naive, 2, &mut Vec::new());
}

#[test]
fn start_basic() {
    check_start(0);
}

#[test]
fn start_magician() {
    check_start(1);
}

#[test]
fn start_power_magician() {
    check_start(2);
}

#[test]
fn start_rescue_general() {
    check_start(3);
}

#[test]
fn start_rescue_khan() {
    check_start(4);
}

const MIDDLE_FIGURES: [[u64; 3]; 9] = [
    [73, 4587, 314339],
    [39, 2286, 82624],
    [37, 925, 33816],
    [66, 3174, 214509],
    [4, 210, 4962],
    [34, 1904, 67306],
    [44, 1731, 83934],
    [37, 2014, 82779],
    // The third ply is cut short by the 100-ply rule except after a capture.
    [39, 2286, 7624],
];

/// Checks middle position `i` at depths 1 to 3, both ways, and walks it.
fn check_middle(i: usize) {
    let m = &middles()[i];
    let pos = middle_position(m);
    let naive = Naive::from_position(&pos);
    for (d, want) in (1..=3).zip(MIDDLE_FIGURES[i]) {
        assert_eq!(perft(&pos, d), want, "{} depth {d}", m.name);
        assert_eq!(naive.perft(d), want, "{} depth {d}, slow generator", m.name);
    }
    walk(&pos, &naive, 2, &mut Vec::new());
}

// One test per middle position, so the slow generator's work spreads over the cores.
#[test]
fn middle_spells_and_towers() {
    check_middle(0);
}

#[test]
fn middle_carried_khans_transfers_drop_offs() {
    check_middle(1);
}

#[test]
fn middle_captive_capture_rules() {
    check_middle(2);
}

#[test]
fn middle_exchanges_and_promotions() {
    check_middle(3);
}

#[test]
fn middle_royal_bondsman_in_check() {
    check_middle(4);
}

#[test]
fn middle_royal_khan_single_leader_mode() {
    check_middle(5);
}

#[test]
fn middle_rescue_general() {
    check_middle(6);
}

#[test]
fn middle_option_variety() {
    check_middle(7);
}

#[test]
fn middle_hundred_ply_edge() {
    check_middle(8);
}

/// Deeper counts and the generator's speed; run with
/// `cargo test --release -p yam-referee -- --ignored --nocapture perft_speed`.
#[test]
#[ignore = "seconds in release, minutes in debug"]
fn perft_speed() {
    for (name, _) in STARTS {
        let pos = start(name);
        let t = std::time::Instant::now();
        let n = perft(&pos, 5);
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name}: perft 5 = {n} in {s:.2} s ({:.1} M leaves/s)",
            n as f64 / s / 1e6
        );
    }
}
