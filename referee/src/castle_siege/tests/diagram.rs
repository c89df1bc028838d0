//! The text diagram: stacks for both sides, breaches, the castle outline,
//! a legend and a status line.

use super::setup::start;
use super::support::{attacking, play, standard};
use crate::castle_siege::diagram;

#[test]
fn the_start_position() {
    let expected = "     a     b     c     d     e     f     g     h
  +-----+-----+-----+-----+-----+-----+-----+-----+
8 |k    |k    |r    |t    |t    |r    |k    |k    | 8
  +-----+-----+-----+-----+-----+-----+-----+-----+
7 |a    |     |     |     |     |     |     |a    | 7
  +-----+-----+=====+=====+=====+=====+-----+-----+
6 |s    |     #C    |K    |A    |O    #     |s    | 6
  +-----+-----+-----+.....+.....+-----+-----+-----+
5 |c    |     #O    :A    |C    :K    #     |c    | 5
  +-----+-----+-----+-----+-----+-----+-----+-----+
4 |c    |     #K    :C    |O    :A    #     |c    | 4
  +-----+-----+-----+.....+.....+-----+-----+-----+
3 |s    |     #A    |O    |K    |C    #     |s    | 3
  +-----+-----+=====+=====+=====+=====+-----+-----+
2 |a    |     |     |     |     |     |     |a    | 2
  +-----+-----+-----+-----+-----+-----+-----+-----+
1 |k    |k    |r    |t    |t    |r    |k    |k    | 1
  +-----+-----+-----+-----+-----+-----+-----+-----+
     a     b     c     d     e     f     g     h

Defender upper case, Attacker lower case: C cannon, K knight, A archer, O cauldron, S sapper, R ram, T siege tower.
* breached. Castle walls = and #; victory squares d4 e4 d5 e5 inside . and :.
Defenders 16 of 16, attackers 28 of 28; breaches: none.
Rules: adjacency king, inner_moves free, rocks adjacent, round cap 50.
Round 1: the Defender to play, Move phase.
";
    assert_eq!(diagram(&start()), expected);
}

#[test]
fn stacks_breaches_and_the_end() {
    let s = attacking(standard(), "Kc5 Oc5 Kd6", "Sc5 Tb4 Kb4 Ab4", "c5 f4");
    let d = diagram(&s);
    assert!(d.contains("5 |     |     #*KOs :"), "{d}");
    assert!(d.contains("4 |     |kat  #"), "{d}");
    assert!(d.contains("breaches: f4 c5."), "{d}");
    assert!(
        d.contains("Round 1: the Attacker to play, Move phase."),
        "{d}"
    );
    let r = play(&s, "Move Sc5-d5", &[1]);
    let d = diagram(&r.state);
    assert!(
        d.contains(
            "Round 1: Attacker wins: an attacking unit entered the victory square d5 (CS-46)."
        ),
        "{d}"
    );
    assert!(d.contains("5 |     |     #*KO  :s    |"), "{d}");
}
