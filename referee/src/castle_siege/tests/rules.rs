//! One test (or more) per ruling, CS-01 to CS-51 and the project's CS-P1 to
//! CS-P3: the legal case accepted, the illegal one refused with its reason.
//! The tests suggested in section 4 of the rulings file are marked
//! "(suggested)". Each flag is tested both ways.

use super::support::{
    Dice, at, attacking, defending, play, pos, reason, refused, skip_words, standard, tokens, with,
};
use crate::castle_siege::board::{is_castle, is_edge, is_moat, is_perimeter, is_victory};
use crate::castle_siege::{
    Adjacency, AttackKind, Declaration, Effect, EntryCondition, Illegal, InnerMoves, Phase, Rocks,
    Side, SkipReason, Square, UnitKind, WinReason, resolve,
};
use crate::fair_play::chance::Chance;

use Side::{Attacker as A, Defender as D};
use UnitKind::*;

fn count(pred: impl Fn(Square) -> bool) -> usize {
    Square::all().filter(|s| pred(*s)).count()
}

// ---------------------------------------------------------------------------
// Geometry

#[test]
fn cs01_castle_and_victory_squares() {
    assert_eq!(count(is_castle), 16);
    assert!(is_castle(Square::C3) && is_castle(Square::F6));
    assert!(!is_castle(Square::B3) && !is_castle(Square::G6) && !is_castle(Square::C7));
    assert_eq!(count(is_victory), 4);
    for sq in [Square::D4, Square::E4, Square::D5, Square::E5] {
        assert!(is_victory(sq));
    }
    assert_eq!(count(is_perimeter), 12);
}

#[test]
fn cs02_the_edge_holds_the_28_attackers() {
    assert_eq!(count(is_edge), 28);
    let mut setup: Vec<Square> = yam_notation::castle_siege::ATTACKER_SETUP_SQUARES.to_vec();
    setup.sort();
    assert_eq!(
        setup,
        Square::all().filter(|s| is_edge(*s)).collect::<Vec<_>>()
    );
    let mut castle: Vec<Square> = yam_notation::castle_siege::DEFENDER_SETUP_SQUARES.to_vec();
    castle.sort();
    assert_eq!(
        castle,
        Square::all().filter(|s| is_castle(*s)).collect::<Vec<_>>()
    );
}

#[test]
fn cs03_king_adjacency_enters_diagonally_orth_does_not() {
    // (suggested) From b2 a knight may enter c3 diagonally.
    let s = attacking(standard(), "Kd6", "Kb2", "");
    let r = play(&s, "Move Kb2-c3", &[1, 6]);
    assert_eq!(tokens(&r), "Move@1 Kb2-c3@6");
    assert_eq!(at(&r.state, A, Knight, Square::C3), 1);
    // Orthogonal adjacency: refused, and no die drawn.
    let s = attacking(with(|r| r.adjacency = Adjacency::Orth), "Kd6", "Kb2", "");
    assert_eq!(
        reason(&s, "Move Kb2-c3"),
        Illegal::NotAdjacent {
            from: Square::B2,
            to: Square::C3,
            adjacency: Adjacency::Orth
        }
    );
    let r = play(&s, "Move Kb2-b3", &[1]);
    assert_eq!(tokens(&r), "Move@1 Kb2-b3");
}

#[test]
fn cs04_range_counts_steps_of_the_adjacency() {
    // A defending cannon reaches 3: c6 to a8 is 2 king steps, but 4
    // orthogonal steps (CS-P3: range follows the adjacency flag).
    let s = defending(standard(), "Cc6", "Ka8", "");
    let r = play(&s, "Attack Cc6xKa8", &[6]);
    assert_eq!(at(&r.state, A, Knight, Square::A8), 0);
    let orth = with(|r| r.adjacency = Adjacency::Orth);
    let s = defending(orth, "Cc6", "Ka8 Kb7", "");
    let e = reason(&s, "Attack Cc6xKa8");
    assert!(matches!(e, Illegal::OutOfReach { distance: 4, .. }), "{e}");
    // b7 is 2 orthogonal steps away.
    play(&s, "Attack Cc6xKb7", &[6]);
}

#[test]
fn cs05_nothing_blocks_fire() {
    // A defending archer on c4 shoots over the units on b4 at a4.
    let s = defending(standard(), "Ac4", "Kb4 Tb4 Ka4", "");
    let r = play(&s, "Attack Ac4xKa4", &[6]);
    assert_eq!(at(&r.state, A, Knight, Square::A4), 0);
    assert_eq!(at(&r.state, A, Knight, Square::B4), 1);
}

#[test]
fn cs06_the_moat_ring() {
    assert_eq!(count(|s| is_moat(s, Adjacency::King)), 20);
    assert_eq!(count(|s| is_moat(s, Adjacency::Orth)), 16);
    for sq in [Square::B2, Square::G2, Square::B7, Square::G7] {
        assert!(is_moat(sq, Adjacency::King) && !is_moat(sq, Adjacency::Orth));
    }
    assert!(!is_moat(Square::A4, Adjacency::King));
    assert!(
        !is_moat(Square::C4, Adjacency::King),
        "castle squares are not the moat"
    );
}

// ---------------------------------------------------------------------------
// Setup (CS-07 to CS-10: see also setup.rs)

#[test]
fn cs10_everything_is_revealed_and_the_defender_starts() {
    let s = super::setup::start();
    assert_eq!(s.units().len(), 44);
    assert_eq!((s.turn(), s.round(), s.phase()), (D, 1, Phase::Move));
    assert!(s.outcome().is_none());
}

// ---------------------------------------------------------------------------
// Turn sequence and movement

#[test]
fn cs11_move_breach_attack_defender_first_and_rounds() {
    let s = super::setup::start();
    // The Defender's Breach phase is always empty: its units cannot breach.
    let e = reason(&s, "Breach Cc6#c6");
    assert!(
        matches!(
            e,
            Illegal::CannotBreach {
                side: D,
                kind: Cannon
            }
        ),
        "{e}"
    );
    // An empty Breach phase is fine, and the phases come in order.
    let r = play(&s, "Breach", &[]);
    assert_eq!(r.state.phase(), Phase::Breach);
    let r = play(&r.state, "Attack", &[]);
    assert_eq!(
        reason(&r.state, "Breach"),
        Illegal::PhaseOver {
            phase: Phase::Breach,
            current: Phase::Attack
        }
    );
    let r = play(&r.state, "End", &[]);
    assert_eq!((r.state.turn(), r.state.round()), (A, 1));
    let r = play(&r.state, "End", &[]);
    assert_eq!((r.state.turn(), r.state.round()), (D, 2));
}

#[test]
fn cs12_the_allowance_moves_that_many_distinct_units_once() {
    let s = attacking(standard(), "Kd6", "Kb4 Kb5 Kc7", "");
    // Allowance 2: the third step is not carried out and draws nothing.
    let r = play(&s, "Move Kb4-b3 Kb5-a5 Kc7-d7", &[2]);
    assert_eq!(tokens(&r), "Move@2 Kb4-b3 Kb5-a5 Kc7-d7/skip");
    assert_eq!(
        r.report[3].effect,
        Effect::Skipped(SkipReason::AllowanceSpent { allowance: 2 })
    );
    // A unit moves once: its second order is skipped and does not count.
    let r = play(&s, "Move Kb4-b3 Kb4-a4 Kc7-d7", &[2]);
    assert_eq!(tokens(&r), "Move@2 Kb4-b3 Kb4-a4/skip Kc7-d7");
    assert!(skip_words(&r, 2).contains("no attacking knight on b4"));
    // A unit that failed to enter stayed, but has had its move.
    let r = play(&s, "Move Kb4-c4 Kb4-c5", &[2, 1]);
    assert_eq!(tokens(&r), "Move@2 Kb4-c4@1 Kb4-c5/skip");
    assert!(skip_words(&r, 2).contains("CS-12"), "{}", skip_words(&r, 2));
    // A unit that arrives has moved: a step from a square nobody stands on
    // when declared is refused.
    let e = refused(&s, "Move Kb4-b3 Kb3-a3");
    assert_eq!(e.index, Some(2));
    assert!(matches!(
        e.reason,
        Illegal::NoUnit {
            square: Square::B3,
            ..
        }
    ));
    // One Move phase a turn.
    assert_eq!(reason(&s, "Move Kb4-b3 Move Kb5-a5"), Illegal::SecondMove);
    let r = play(&s, "Move Kb4-b3", &[1]);
    assert_eq!(
        reason(&r.state, "Move Kb5-a5"),
        Illegal::PhaseOver {
            phase: Phase::Move,
            current: Phase::Breach
        }
    );
    // Movement is optional: no steps, no allowance die.
    let r = play(&s, "Move End", &[]);
    assert_eq!(tokens(&r), "Move End");
    // The Defender has the same allowance (CS-17).
    let s = defending(standard(), "Kc4 Kc5", "", "");
    let r = play(&s, "Move Kc4-d4 Kc5-d5", &[1]);
    assert_eq!(tokens(&r), "Move@1 Kc4-d4 Kc5-d5/skip");
}

#[test]
fn cs13_one_step_only() {
    let s = attacking(standard(), "Kd6", "Kb4", "");
    assert!(matches!(
        reason(&s, "Move Kb4-b6"),
        Illegal::NotAdjacent { .. }
    ));
    assert!(matches!(
        reason(&s, "Move Kb4-b4"),
        Illegal::NotAdjacent { .. }
    ));
    assert_eq!(tokens(&play(&s, "Move Kb4-b5", &[1])), "Move@1 Kb4-b5");
}

#[test]
fn cs14_stacking_counts_own_units_and_towers() {
    // (suggested) A siege tower is one of the 3 units of an open square.
    let s = attacking(standard(), "Kd6", "Tb4 Kb4 Kb4 Kb5", "");
    assert_eq!(
        reason(&s, "Move Kb5-b4"),
        Illegal::StackFull {
            side: A,
            square: Square::B4,
            limit: 3,
            castle: false
        }
    );
    let s = attacking(standard(), "Kd6", "Tb4 Kb4 Kb5", "");
    assert_eq!(tokens(&play(&s, "Move Kb5-b4", &[1])), "Move@1 Kb5-b4");
    // Two in the castle.
    let s = defending(standard(), "Kc4 Ac4 Kd4", "", "");
    let e = reason(&s, "Move Kd4-c4");
    assert!(
        matches!(
            e,
            Illegal::StackFull {
                limit: 2,
                castle: true,
                ..
            }
        ),
        "{e}"
    );
    // Enemy units never count: two defenders on c4 do not stop an attacker.
    let s = attacking(standard(), "Kc4 Ac4", "Kb4", "");
    let r = play(&s, "Move Kb4-c4", &[1, 6]);
    assert_eq!(at(&r.state, A, Knight, Square::C4), 1);
}

#[test]
fn cs15_enemy_units_never_block() {
    // A defender steps onto a square held by an attacker; nothing happens.
    let s = defending(standard(), "Kc4", "Kc5", "");
    let r = play(&s, "Move Kc4-c5", &[1]);
    assert_eq!(at(&r.state, D, Knight, Square::C5), 1);
    assert_eq!(at(&r.state, A, Knight, Square::C5), 1);
    // And an attacker leaves a square the defenders hold, freely.
    let s = attacking(standard(), "Kc4 Oc4", "Kc4", "");
    let r = play(&s, "Move Kc4-c5", &[1]);
    assert_eq!(tokens(&r), "Move@1 Kc4-c5");
}

#[test]
fn cs16_a_tower_carries_nobody() {
    let s = attacking(standard(), "Kd6", "Tb3 Kb3", "");
    let r = play(&s, "Move Tb3-b4", &[1]);
    assert_eq!(at(&r.state, A, Tower, Square::B4), 1);
    assert_eq!(at(&r.state, A, Knight, Square::B3), 1);
}

#[test]
fn cs17_defenders_stay_inside_and_never_roll() {
    let s = defending(standard(), "Kc4 Od5", "", "");
    assert_eq!(
        reason(&s, "Move Kc4-b4"),
        Illegal::DefenderLeavesCastle { to: Square::B4 }
    );
    // Into a victory square, no entry roll: only the allowance is drawn.
    let r = play(&s, "Move Kc4-d4 Od5-e5", &[6]);
    assert_eq!(tokens(&r), "Move@6 Kc4-d4 Od5-e5");
    assert!(
        r.state.outcome().is_none(),
        "only attackers win by entering"
    );
}

#[test]
fn cs18_attackers_leave_the_castle_freely() {
    let s = attacking(standard(), "Kd6", "Kc4", "");
    let r = play(&s, "Move Kc4-b4", &[1]);
    assert_eq!(tokens(&r), "Move@1 Kc4-b4");
    assert_eq!(at(&r.state, A, Knight, Square::B4), 1);
}

#[test]
fn cs19_a_tower_moves_up_and_a_unit_climbs_off_it() {
    let s = attacking(standard(), "Kd6", "Tb3 Kb4", "");
    let r = play(&s, "Move Tb3-b4 Kb4-c4", &[2, 4]);
    assert_eq!(tokens(&r), "Move@2 Tb3-b4 Kb4-c4@4");
    assert!(matches!(
        r.report[2].effect,
        Effect::Entry {
            condition: EntryCondition::Tower,
            entered: true,
            ..
        }
    ));
    // Without the tower first, the same knight needs a 6.
    let r = play(&s, "Move Kb4-c4 Tb3-b4", &[2, 4]);
    assert_eq!(tokens(&r), "Move@2 Kb4-c4@4 Tb3-b4");
    assert!(matches!(
        r.report[1].effect,
        Effect::Entry {
            condition: EntryCondition::Scale,
            entered: false,
            ..
        }
    ));
}

#[test]
fn cs20_inner_moves_free_or_restricted() {
    // Free (default): c4 to c5 with no roll.
    let s = attacking(standard(), "Kd6", "Kc4", "");
    assert_eq!(tokens(&play(&s, "Move Kc4-c5", &[1])), "Move@1 Kc4-c5");
    // Restricted: an entry roll, by the best condition on the destination.
    let restricted = with(|r| r.inner_moves = InnerMoves::Restricted);
    let s = attacking(restricted, "Kd6", "Kc4", "");
    let r = play(&s, "Move Kc4-c5", &[1, 5]);
    assert_eq!(tokens(&r), "Move@1 Kc4-c5@5");
    assert_eq!(at(&r.state, A, Knight, Square::C4), 1, "5 does not scale");
    let s = attacking(restricted, "Kd6", "Kc4", "c5");
    let r = play(&s, "Move Kc4-c5", &[1, 3]);
    assert_eq!(
        at(&r.state, A, Knight, Square::C5),
        1,
        "3 goes through the breach"
    );
    // Into a victory square under restricted moves: the roll decides the game.
    let s = attacking(restricted, "Kd6", "Kc4", "");
    let r = play(&s, "Move Kc4-d4", &[1, 5]);
    assert!(r.state.outcome().is_none());
    let r = play(&s, "Move Kc4-d4", &[1, 6]);
    assert_eq!(
        r.state.outcome().map(|o| o.reason),
        Some(WinReason::VictorySquare(Square::D4))
    );
}

#[test]
fn cs21_engines_never_enter_the_castle() {
    let s = attacking(standard(), "Kd6", "Rb4 Tb5 Cb3 Kb2 Ab6 Sc2", "");
    for (order, kind, to) in [
        ("Rb4-c4", Ram, Square::C4),
        ("Tb5-c5", Tower, Square::C5),
        ("Cb3-c3", Cannon, Square::C3),
    ] {
        assert_eq!(
            reason(&s, &format!("Move {order}")),
            Illegal::BarredFromCastle { kind, to },
            "{order}"
        );
    }
    let r = play(&s, "Move Kb2-c3 Ab6-c6 Sc2-d3", &[3, 6, 6, 6]);
    assert_eq!(tokens(&r), "Move@3 Kb2-c3@6 Ab6-c6@6 Sc2-d3@6");
    for (kind, sq) in [
        (Knight, Square::C3),
        (Archer, Square::C6),
        (Sapper, Square::D3),
    ] {
        assert_eq!(at(&r.state, A, kind, sq), 1);
    }
}

#[test]
fn cs22_off_a_tower_on_4_but_not_on_3() {
    // (suggested)
    let s = attacking(standard(), "Kd6", "Kb4 Tb4", "");
    let r = play(&s, "Move Kb4-c4", &[1, 4]);
    assert_eq!(tokens(&r), "Move@1 Kb4-c4@4");
    assert_eq!(at(&r.state, A, Knight, Square::C4), 1);
    let r = play(&s, "Move Kb4-c4", &[1, 3]);
    assert_eq!(at(&r.state, A, Knight, Square::B4), 1, "3 is not enough");
    // A tower on another square does not help: scaling needs a 6.
    let s = attacking(standard(), "Kd6", "Kb4 Tb3", "");
    let r = play(&s, "Move Kb4-c4", &[1, 5]);
    assert!(matches!(
        r.report[1].effect,
        Effect::Entry {
            condition: EntryCondition::Scale,
            entered: false,
            ..
        }
    ));
}

#[test]
fn cs23_the_best_condition_is_used() {
    // (suggested) On a breached c4 the knight enters on a 3, tower or not.
    let s = attacking(standard(), "Kd6", "Kb4 Tb4", "c4");
    let r = play(&s, "Move Kb4-c4", &[1, 3]);
    assert!(matches!(
        r.report[1].effect,
        Effect::Entry {
            condition: EntryCondition::Breach,
            entered: true,
            ..
        }
    ));
    let s = attacking(standard(), "Kd6", "Kb4", "c4");
    let r = play(&s, "Move Kb4-c4", &[1, 2]);
    assert_eq!(at(&r.state, A, Knight, Square::B4), 1, "2 is not enough");
}

#[test]
fn cs24_a_failed_entry_spends_the_move_but_not_the_attack() {
    let s = attacking(standard(), "Kd6 Kc4", "Ab4 Kb5", "");
    // The archer fails to enter c4: it stays on b4, cannot try again (its
    // second order is skipped and not counted), and still shoots.
    let r = play(
        &s,
        "Move Ab4-c4 Ab4-c5 Kb5-a5 Attack Ab4xKc4 End",
        &[2, 5, 6],
    );
    assert_eq!(
        tokens(&r),
        "Move@2 Ab4-c4@5 Ab4-c5/skip Kb5-a5 Attack Ab4xKc4@6 End"
    );
    assert_eq!(at(&r.state, A, Archer, Square::B4), 1);
    assert_eq!(at(&r.state, D, Knight, Square::C4), 0);
    // The failed attempt used one of the allowance.
    let r = play(&s, "Move Ab4-c4 Kb5-a5", &[1, 5]);
    assert_eq!(tokens(&r), "Move@1 Ab4-c4@5 Kb5-a5/skip");
}

#[test]
fn cs25_stacking_is_checked_before_the_entry_roll() {
    // (suggested) A third attacker cannot enter, and no roll is made.
    let s = attacking(standard(), "Kd6", "Kc4 Sc4 Kb4", "");
    assert_eq!(
        reason(&s, "Move Kb4-c4"),
        Illegal::StackFull {
            side: A,
            square: Square::C4,
            limit: 2,
            castle: true
        }
    );
    // Filled during the declaration: skipped, no roll.
    let s = attacking(standard(), "Kd6", "Kb4 Ab3 Kb5", "");
    let r = play(&s, "Move Kb4-c4 Ab3-c4 Kb5-c4", &[3, 6, 6]);
    assert_eq!(tokens(&r), "Move@3 Kb4-c4@6 Ab3-c4@6 Kb5-c4/skip");
    assert!(skip_words(&r, 3).contains("CS-25"));
    // A friendly unit leaving first makes room: accepted.
    let s = attacking(standard(), "Kd6", "Kc4 Sc4 Kb4", "");
    let r = play(&s, "Move Sc4-c5 Kb4-c4", &[2, 6]);
    assert_eq!(tokens(&r), "Move@2 Sc4-c5 Kb4-c4@6");
    assert_eq!(at(&r.state, A, Knight, Square::C4), 2);
}

#[test]
fn cs26_the_breach_must_be_on_the_destination() {
    let s = attacking(standard(), "Kd6", "Kb4", "c5");
    let r = play(&s, "Move Kb4-c4", &[1, 5]);
    assert!(matches!(
        r.report[1].effect,
        Effect::Entry {
            condition: EntryCondition::Scale,
            entered: false,
            ..
        }
    ));
}

// ---------------------------------------------------------------------------
// Breaching

#[test]
fn cs27_breaches_are_permanent_and_never_made_twice() {
    let s = attacking(standard(), "Kd6", "Rb4 Rb5", "");
    let r = play(&s, "Breach Rb4#c4 End", &[5]);
    assert!(r.state.is_breached(Square::C4));
    let r = play(&r.state, "End", &[]);
    assert!(r.state.is_breached(Square::C4), "still there next turn");
    assert_eq!(
        reason(&r.state, "Breach Rb5#c4"),
        Illegal::AlreadyBreached { target: Square::C4 }
    );
    // Breached by an earlier order of the same declaration: skipped.
    let r = play(&s, "Breach Rb4#c4 Rb5#c4", &[6]);
    assert_eq!(tokens(&r), "Breach Rb4#c4@6 Rb5#c4/skip");
}

#[test]
fn cs28_which_squares_can_be_breached_follows_inner_moves() {
    let s = attacking(standard(), "Kd6", "Cb4", "");
    assert_eq!(
        reason(&s, "Breach Cb4#d4"),
        Illegal::NotBreachable {
            target: Square::D4,
            inner_moves: InnerMoves::Free
        }
    );
    let restricted = with(|r| r.inner_moves = InnerMoves::Restricted);
    let s = attacking(restricted, "Kd6", "Cb4", "");
    let r = play(&s, "Breach Cb4#d4", &[6]);
    assert!(r.state.is_breached(Square::D4));
    assert!(matches!(
        reason(&s, "Breach Cb4#b5"),
        Illegal::NotBreachable { .. }
    ));
}

#[test]
fn cs29_breaching_reach_from_open_ground() {
    let s = attacking(standard(), "Kd6", "Rb4 Sb5 Ca4 Kb3 Sc5", "");
    // Ram and sapper: 1; cannon: 2.
    let r = play(&s, "Breach Rb4#c4 Sb5#c6 Ca4#c3", &[5, 6, 6]);
    assert_eq!(r.state.breaches().len(), 3);
    let e = reason(&s, "Breach Rb4#d3");
    assert!(
        matches!(
            e,
            Illegal::BreachOutOfReach {
                distance: 2,
                reach: 1,
                ..
            }
        ),
        "{e}"
    );
    let e = reason(&s, "Breach Ca4#d6");
    assert!(
        matches!(
            e,
            Illegal::BreachOutOfReach {
                distance: 3,
                reach: 2,
                ..
            }
        ),
        "{e}"
    );
    // From inside the castle: no.
    assert_eq!(
        reason(&s, "Breach Sc5#c4"),
        Illegal::BreachFromCastle { from: Square::C5 }
    );
    // Knights do not breach.
    assert!(matches!(
        reason(&s, "Breach Kb3#c3"),
        Illegal::CannotBreach {
            side: A,
            kind: Knight
        }
    ));
    // Faces: a ram needs 5, a sapper and a cannon 6.
    let r = play(&s, "Breach Rb4#c4 Sb5#c6 Ca4#c3", &[4, 5, 5]);
    assert!(r.state.breaches().is_empty());
}

#[test]
fn cs30_a_breach_attempt_uses_up_the_attack() {
    // (suggested) Whether or not the breach succeeds.
    let s = attacking(standard(), "Kd6", "Cb4", "");
    for face in [2, 6] {
        let r = play(&s, "Breach Cb4#c4 Attack Cb4xKd6 End", &[face]);
        assert_eq!(
            tokens(&r),
            format!("Breach Cb4#c4@{face} Attack Cb4xKd6/skip End")
        );
        assert!(skip_words(&r, 3).contains("CS-30"));
    }
    let r = play(&s, "Breach Cb4#c4", &[1]);
    assert!(matches!(
        reason(&r.state, "Attack Cb4xKd6"),
        Illegal::AlreadyActed { kind: Cannon, .. }
    ));
    // One attempt per unit and turn.
    assert!(matches!(
        reason(&r.state, "Breach Cb4#c5"),
        Illegal::AlreadyActed { .. }
    ));
    // A ram's attack is never there to lose (CS-43).
    let s = attacking(standard(), "Kd6", "Rc7", "");
    assert_eq!(
        reason(&s, "Attack Rc7xKd6"),
        Illegal::CannotAttack { kind: Ram }
    );
}

#[test]
fn cs31_a_unit_that_moved_may_breach() {
    let s = attacking(standard(), "Kd6", "Rb5", "");
    let r = play(&s, "Move Rb5-b4 Breach Rb4#c4", &[1, 5]);
    assert_eq!(tokens(&r), "Move@1 Rb5-b4 Breach Rb4#c4@5");
    assert!(r.state.is_breached(Square::C4));
    // Without the step, no ram stands on b4: refused.
    assert!(matches!(
        reason(&s, "Breach Rb4#c4"),
        Illegal::NoUnit { kind: Ram, .. }
    ));
}

#[test]
fn cs32_a_breach_harms_nobody() {
    let s = attacking(standard(), "Kc4 Oc4", "Rb4", "");
    let r = play(&s, "Breach Rb4#c4", &[6]);
    assert_eq!(r.state.count(D), 2);
    assert_eq!(r.state.units_at(Square::C4).count(), 2);
}

// ---------------------------------------------------------------------------
// Attacks

#[test]
fn cs33_one_roll_one_target_once_per_unit() {
    let s = defending(standard(), "Ac4", "Kb4 Sb5", "");
    let r = play(&s, "Attack Ac4xKb4 Ac4xSb5", &[5]);
    assert_eq!(tokens(&r), "Attack Ac4xKb4@5 Ac4xSb5/skip");
    assert_eq!(r.state.count(A), 13, "5 misses");
    assert!(matches!(
        reason(&r.state, "Attack Ac4xSb5"),
        Illegal::AlreadyActed { .. }
    ));
    // Only the side to move attacks: the Attacker has no cauldrons, and no
    // attacking archer stands on c4.
    let s = attacking(standard(), "Ac4 Oc4", "Kb4", "");
    assert!(matches!(
        reason(&s, "Attack Oc4xKb4"),
        Illegal::NotInArmy {
            side: A,
            kind: Cauldron
        }
    ));
    assert!(matches!(
        reason(&s, "Attack Ac4xAc4"),
        Illegal::NoUnit {
            side: A,
            kind: Archer,
            ..
        }
    ));
}

#[test]
fn cs34_attacks_one_at_a_time_the_dead_removed_at_once() {
    let s = defending(standard(), "Ac4 Cc5", "Kb4", "");
    let r = play(&s, "Attack Ac4xKb4 Cc5xKb4", &[6]);
    assert_eq!(tokens(&r), "Attack Ac4xKb4@6 Cc5xKb4/skip");
    assert!(matches!(
        r.report[2].effect,
        Effect::Skipped(SkipReason::Impossible(Illegal::NoTarget { .. }))
    ));
    // A miss leaves the target for the next order.
    let r = play(&s, "Attack Ac4xKb4 Cc5xKb4", &[1, 6]);
    assert_eq!(tokens(&r), "Attack Ac4xKb4@1 Cc5xKb4@6");
}

#[test]
fn cs35_the_target_is_chosen() {
    let s = defending(standard(), "Ac4", "Kb4 Ab4", "");
    let r = play(&s, "Attack Ac4xAb4", &[6]);
    assert_eq!(at(&r.state, A, Archer, Square::B4), 0);
    assert_eq!(at(&r.state, A, Knight, Square::B4), 1);
    assert_eq!(
        reason(&s, "Attack Ac4xSb4"),
        Illegal::NoTarget {
            side: A,
            kind: Sapper,
            square: Square::B4
        }
    );
}

#[test]
fn cs36_knights_in_their_own_square() {
    let s = attacking(standard(), "Kc4 Oc4", "Kc4 Kb5", "");
    // 5+ against a knight, 4+ against anything else.
    let r = play(&s, "Attack Kc4xKc4", &[4]);
    assert!(matches!(
        r.report[1].effect,
        Effect::Attack {
            need: 5,
            killed: false,
            ..
        }
    ));
    let r = play(&s, "Attack Kc4xOc4", &[4]);
    assert!(matches!(
        r.report[1].effect,
        Effect::Attack {
            need: 4,
            killed: true,
            how: AttackKind::Melee,
            ..
        }
    ));
    // An attacking knight does not reach the next square.
    let e = reason(&s, "Attack Kb5xKc4");
    assert!(matches!(e, Illegal::OutOfReach { kind: Knight, .. }), "{e}");
    assert!(e.to_string().contains("CS-36"));
}

#[test]
fn cs37_rocks_from_the_wall_at_the_moat_next_to_it() {
    // (suggested) Not from d4; from c4 at b3, b4, b5 but not a4.
    let s = defending(standard(), "Kd4 Kc4", "Kb3 Kb4 Kb5 Ka4", "");
    let e = reason(&s, "Attack Kd4xKb4");
    assert!(e.to_string().contains("CS-37"), "{e}");
    for target in ["b3", "b4", "b5"] {
        let r = play(&s, &format!("Attack Kc4xK{target}"), &[6]);
        assert!(matches!(
            r.report[1].effect,
            Effect::Attack {
                how: AttackKind::Rocks,
                need: 6,
                killed: true,
                ..
            }
        ));
    }
    assert!(matches!(
        reason(&s, "Attack Kc4xKa4"),
        Illegal::OutOfReach { .. }
    ));
    // Orthogonal adjacency: b4 only.
    let orth = defending(
        with(|r| r.adjacency = Adjacency::Orth),
        "Kd4 Kc4",
        "Kb3 Kb4",
        "",
    );
    assert!(matches!(
        reason(&orth, "Attack Kc4xKb3"),
        Illegal::OutOfReach { .. }
    ));
    play(&orth, "Attack Kc4xKb4", &[6]);
    // Castle-wide: from d4 too, but only at the moat.
    let wide = defending(
        with(|r| r.rocks = Rocks::CastleWide),
        "Kd4 Kc4",
        "Kb4 Ka4 Kg7",
        "",
    );
    play(&wide, "Attack Kd4xKb4", &[6]);
    play(&wide, "Attack Kc4xKg7", &[6]);
    let e = reason(&wide, "Attack Kd4xKa4");
    assert!(e.to_string().contains("castle_wide"), "{e}");
}

#[test]
fn cs38_rocks_or_melee_not_both() {
    let s = defending(standard(), "Kc4", "Kc4 Kb4", "");
    let r = play(&s, "Attack Kc4xKc4 Kc4xKb4", &[1]);
    assert_eq!(tokens(&r), "Attack Kc4xKc4@1 Kc4xKb4/skip");
}

#[test]
fn cs39_cannons() {
    // Attacking: 1 to 2 away, into the castle too.
    let s = attacking(standard(), "Kc4 Kd4 Kd6", "Ca4", "");
    let r = play(&s, "Attack Ca4xKc4", &[6]);
    assert_eq!(at(&r.state, D, Knight, Square::C4), 0);
    let e = reason(&s, "Attack Ca4xKd4");
    assert!(matches!(e, Illegal::OutOfReach { distance: 3, .. }), "{e}");
    assert!(e.to_string().contains("CS-39"));
    // Defending: 1 to 3, never its own square.
    let s = defending(standard(), "Cc4 Cd4", "Ka4 Kc4 Kg4", "");
    let r = play(&s, "Attack Cd4xKa4", &[5]);
    assert!(matches!(
        r.report[1].effect,
        Effect::Attack {
            need: 6,
            killed: false,
            how: AttackKind::Fire,
            ..
        }
    ));
    assert!(matches!(
        reason(&s, "Attack Cc4xKc4"),
        Illegal::OutOfReach { distance: 0, .. }
    ));
    assert!(matches!(
        reason(&s, "Attack Cc4xKg4"),
        Illegal::OutOfReach { distance: 4, .. }
    ));
}

#[test]
fn cs40_archers() {
    // Attacking: own square or 1; defending: own square or 1 to 2.
    let s = attacking(standard(), "Kc4 Kd4", "Ab4 Ac4", "");
    play(&s, "Attack Ab4xKc4 Ac4xKc4", &[1, 6]);
    assert!(matches!(
        reason(&s, "Attack Ab4xKd4"),
        Illegal::OutOfReach { .. }
    ));
    let s = defending(standard(), "Ac4", "Ka4 Kc4 Kh4", "");
    play(&s, "Attack Ac4xKa4", &[6]);
    play(&s, "Attack Ac4xKc4", &[6]);
    let e = reason(&s, "Attack Ac4xKh4");
    assert!(e.to_string().contains("CS-40"), "{e}");
}

#[test]
fn cs41_sappers_in_their_own_square() {
    let s = attacking(standard(), "Kc4 Kd4", "Sc4", "");
    let r = play(&s, "Attack Sc4xKc4", &[6]);
    assert_eq!(r.state.count(D), 1);
    let r = play(&s, "Attack Sc4xKc4", &[5]);
    assert_eq!(r.state.count(D), 2, "a sapper needs 6");
    let e = reason(&s, "Attack Sc4xKd4");
    assert!(e.to_string().contains("CS-41"), "{e}");
}

#[test]
fn cs42_cauldrons_pour_on_their_square_and_the_moat_next_to_it() {
    let s = defending(standard(), "Oc4 Od4", "Kc4 Kb4 Ka4", "");
    let r = play(&s, "Attack Oc4xKc4", &[5]);
    assert!(matches!(
        r.report[1].effect,
        Effect::Attack {
            need: 5,
            killed: true,
            how: AttackKind::Oil,
            ..
        }
    ));
    let r = play(&s, "Attack Oc4xKb4", &[4]);
    assert!(matches!(
        r.report[1].effect,
        Effect::Attack { killed: false, .. }
    ));
    let e = reason(&s, "Attack Oc4xKa4");
    assert!(e.to_string().contains("CS-42"), "{e}");
    // From a victory square only its own square: c4 is castle, not moat.
    assert!(matches!(
        reason(&s, "Attack Od4xKc4"),
        Illegal::OutOfReach { distance: 1, .. }
    ));
    // Under orthogonal adjacency b5 is not next to c4.
    let s = defending(with(|r| r.adjacency = Adjacency::Orth), "Oc4", "Kb5", "");
    assert!(matches!(
        reason(&s, "Attack Oc4xKb5"),
        Illegal::OutOfReach { .. }
    ));
}

#[test]
fn cs43_rams_and_towers_never_attack_but_die() {
    let s = attacking(standard(), "Kd6", "Rc7 Tc7", "");
    assert_eq!(
        reason(&s, "Attack Rc7xKd6"),
        Illegal::CannotAttack { kind: Ram }
    );
    assert_eq!(
        reason(&s, "Attack Tc7xKd6"),
        Illegal::CannotAttack { kind: Tower }
    );
    let s = defending(standard(), "Cd6", "Rc7 Tc7", "");
    let r = play(&s, "Attack Cd6xTc7", &[6]);
    assert_eq!(at(&r.state, A, Tower, Square::C7), 0);
}

#[test]
fn cs44_units_that_moved_or_failed_may_attack() {
    let s = attacking(standard(), "Kc4 Kd6", "Kb5 Ab3", "");
    // The knight fails to enter c4, the archer steps to b4: both attack.
    let r = play(&s, "Move Kb5-c4 Ab3-b4 Attack Ab4xKc4 End", &[2, 5, 6]);
    assert_eq!(tokens(&r), "Move@2 Kb5-c4@5 Ab3-b4 Attack Ab4xKc4@6 End");
    assert_eq!(r.state.count(D), 1);
}

#[test]
fn cs45_no_friendly_fire() {
    let s = attacking(standard(), "Kc4 Kd6", "Kc4 Sc4", "");
    let r = play(&s, "Attack Kc4xKc4", &[6]);
    assert_eq!(at(&r.state, A, Sapper, Square::C4), 1);
    assert_eq!(at(&r.state, A, Knight, Square::C4), 1);
    assert_eq!(at(&r.state, D, Knight, Square::C4), 0);
    assert_eq!(
        reason(&s, "Attack Kc4xSc4"),
        Illegal::NoSuchEnemy {
            enemy: D,
            kind: Sapper
        }
    );
}

// ---------------------------------------------------------------------------
// Victory and termination

#[test]
fn cs46_entering_a_victory_square_wins_at_once() {
    // (suggested) From c4 to d4, no roll, and the game is over.
    let s = attacking(standard(), "Kd6", "Kc4", "");
    let r = play(&s, "Move Kc4-d4 Ka1-b2 Attack End", &[2]);
    assert_eq!(tokens(&r), "Move@2 Kc4-d4 Ka1-b2/skip Attack/skip End/skip");
    let o = r.state.outcome().expect("over");
    assert_eq!(
        (o.winner, o.reason),
        (A, WinReason::VictorySquare(Square::D4))
    );
    assert_eq!(r.report[1].ended, Some(o));
    assert!(matches!(reason(&r.state, "End"), Illegal::GameOver(_)));
}

#[test]
fn cs47_the_18th_loss_ends_the_game_on_that_kill() {
    // (suggested) 11 attackers left; one more kill.
    let s = defending(standard(), "Cc3 Cc4", "", "");
    assert_eq!(s.count(A), 11);
    let r = play(&s, "Attack Cc3xCa3 Cc4xSa2 End", &[6]);
    assert_eq!(tokens(&r), "Attack Cc3xCa3@6 Cc4xSa2/skip End/skip");
    let o = r.state.outcome().expect("over");
    assert_eq!(
        (o.winner, o.reason),
        (D, WinReason::AttackersReduced { left: 10 })
    );
    // With 12 the game goes on.
    let s = defending(standard(), "Cc3", "Kb7", "");
    let r = play(&s, "Attack Cc3xCa3", &[6]);
    assert!(r.state.outcome().is_none());
}

#[test]
fn cs48_killing_every_defender_wins() {
    let s = attacking(standard(), "Kc4", "Sc4", "");
    let r = play(&s, "Attack Sc4xKc4", &[6]);
    assert_eq!(
        r.state.outcome().map(|o| (o.winner, o.reason)),
        Some((A, WinReason::DefendersEliminated))
    );
}

#[test]
fn cs49_no_infantry_left_is_a_defender_win() {
    // 12 attackers, one knight among them: kill it.
    let s = pos(
        standard(),
        "Cc4",
        "Ca1 Ca2 Ca3 Ra8 Rb8 Rc8 Rd8 Th1 Th2 Th3 Th4 Kb4",
        "",
        D,
    );
    let r = play(&s, "Attack Cc4xKb4", &[6]);
    assert_eq!(
        r.state.outcome().map(|o| (o.winner, o.reason)),
        Some((D, WinReason::NoInfantry))
    );
    assert_eq!(r.state.count(A), 11);
    let r = play(&s, "Attack Cc4xCa2", &[6]);
    assert!(r.state.outcome().is_none());
}

#[test]
fn cs50_the_round_cap_is_a_defender_win() {
    let capped = with(|r| r.round_cap = 2);
    let s = defending(capped, "Kc4", "", "");
    let r = play(&s, "End", &[]);
    let r = play(&r.state, "End", &[]);
    assert_eq!((r.state.round(), r.state.outcome()), (2, None));
    let r = play(&r.state, "End", &[]);
    let r = play(&r.state, "End", &[]);
    assert_eq!(
        r.state.outcome().map(|o| (o.winner, o.reason)),
        Some((D, WinReason::RoundCap { rounds: 2 }))
    );
    assert_eq!(r.report[0].ended, r.state.outcome());
}

#[test]
fn resignation_is_a_record_event() {
    let s = super::setup::start();
    let over = s.resign(D).expect("may resign");
    assert_eq!(
        over.outcome().map(|o| (o.winner, o.reason, o.result())),
        Some((A, WinReason::Resignation, "0-1"))
    );
    // Either side, at any time; not after the end.
    assert!(s.resign(A).is_ok());
    assert!(matches!(over.resign(A), Err(Illegal::GameOver(_))));
    assert!(matches!(reason(&over, "End"), Illegal::GameOver(_)));
}

#[test]
fn cs51_every_die_comes_through_the_door_with_its_purpose() {
    let s = attacking(standard(), "Kc4 Kd6", "Kb4 Tb4 Rb5 Ab3", "");
    let decl: Declaration = "Move Kb4-c4 Ab3-a3 Breach Rb5#c5 Attack Ab3xKc4 Kc4xKc4 End"
        .parse()
        .expect("declaration");
    let mut dice = Dice::new(&[2, 4, 5, 1]);
    // Through the trait object as well as generically.
    let door: &mut dyn Chance = &mut dice;
    let r = resolve(&s, &decl, door).expect("resolves");
    assert_eq!(
        dice.asked,
        [
            "allowance",
            "entry Kb4-c4",
            "breach Rb5#c5",
            "attack Kc4xKc4"
        ]
    );
    // The archer moved to a3, so its attack from b3 is skipped and draws
    // nothing; the knight that climbed off the tower fights on c4.
    assert_eq!(
        tokens(&r),
        "Move@2 Kb4-c4@4 Ab3-a3 Breach Rb5#c5@5 Attack Ab3xKc4/skip Kc4xKc4@1 End"
    );
    assert_eq!(dice.left(), 0);
    assert_eq!(r.dice(), 4);
    assert_eq!(r.skipped(), [6]);
}
