//! The text diagram: rank 8 at the top, files labelled, towers, gers and
//! carried captives marked, with a legend.

use super::perft::{middle_position, middles};
use super::support::{setup, start};
use crate::khan::{Options, diagram};

#[test]
fn the_rescue_khan_start() {
    let expected = "     a   b   c   d   e   f   g   h
8    w   f   w   w   a   .   .  @.   8
7    w   .   s   h   a   .   .  #.   7
6    w   n   .   .   .   .   .  #.   6
5    a   a   .   .   .   .   .  #.   5
4   #.   .   .   .   .   .   A   A   4
3   #.   .   .   .   .   .   N   W   3
2   #.   .   .   A   H   S   .   W   2
1   @.   .   .   A   W   W   F   W   1
     a   b   c   d   e   f   g   h

Pieces: upper case White, lower case Black; K khan, J khan archer, I khan sword, F bondsman, W warrior, A archer, S swordsman, N assassin, M magician, H power magician, G demoted magician.
Marks: # manned tower square (deadly to all but magicians), : silenced tower square, @ ger; after a piece: + carries White's khan, - carries Black's khan, * carries the general.
Tower 1: h5 h6 h7, all manned; holds White's khan.
Tower 2: a2 a3 a4, all manned; holds Black's khan.
White's ger: a1.
Black's ger: h8.
White to move; move 1; 0 plies since the last capture or death.
";
    assert_eq!(diagram(&start("rescue-khan")), expected);
}

#[test]
fn carried_captives_silenced_squares_and_waiting_khans() {
    let d = diagram(&middle_position(&middles()[1]));
    assert!(d.contains("7    .   .   .   .   .   .   h- :.   7"), "{d}");
    assert!(d.contains("2   #.   A+  W   .   .   .   .   .   2"), "{d}");
    assert!(d.contains("Tower 1: h5 h6 h7, manned h5 h6; empty."), "{d}");
    assert!(
        d.contains("White's khan is carried by the white archer on b2."),
        "{d}"
    );
    let waiting = setup(
        "Fa1 fb8 md5",
        'w',
        "towers=d4e4d5e5 manned=d5 gers=a1:w,h8:b waiting=a1:wk",
        Options::default(),
    );
    let d = diagram(&waiting);
    assert!(d.contains("1   @F   ."), "{d}");
    assert!(d.contains("5    .   .   .  #m  :.   ."), "{d}");
    assert!(
        d.contains("White's khan waits at the ger a1 until it is empty."),
        "{d}"
    );
    assert!(d.contains("Tower 1: d4 e4 d5 e5, manned d5; empty."), "{d}");
    // A plain game has no siege legend.
    let plain = diagram(&start("magician"));
    assert!(!plain.contains("Marks:"), "{plain}");
    assert!(plain.starts_with("     a   b"), "{plain}");
}
