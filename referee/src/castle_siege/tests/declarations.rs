//! Declarations (CS-P1, CS-P2): refused before any die with a reason, or
//! resolved in order with impossible orders skipped.

use super::support::{Dice, attacking, play, reason, refused, standard, tokens};
use crate::castle_siege::{
    Declaration, Illegal, Order, Phase, ResolveError, Side, Square, Token, UnitKind, check,
    check_order, resolve,
};
use crate::fair_play::chance::ChanceError;

#[test]
fn declared_orders_carry_no_die() {
    let s = attacking(standard(), "Kd6", "Kb4", "");
    let e = "Move Kb4-c4@6".parse::<Declaration>().unwrap_err();
    assert_eq!(e.index, Some(1));
    assert!(matches!(e.reason, Illegal::NotDeclared(_)), "{e}");
    assert!(e.to_string().contains("no die face"), "{e}");
    let e = "Move Kb4-c4/skip".parse::<Declaration>().unwrap_err();
    assert!(matches!(e.reason, Illegal::NotDeclared(_)));
    let e = "Defender:sealed".parse::<Declaration>().unwrap_err();
    assert!(matches!(
        e.reason,
        Illegal::NotAnOrder(Token::Sealed(Side::Defender))
    ));
    let e = "Move Kb4-c9".parse::<Declaration>().unwrap_err();
    assert!(matches!(e.reason, Illegal::BadToken { .. }), "{e}");
    assert_eq!(reason(&s, ""), Illegal::EmptyDeclaration);
}

#[test]
fn the_shape_of_a_declaration() {
    let s = attacking(standard(), "Kd6", "Kb4 Rb5", "");
    assert_eq!(reason(&s, "End Move"), Illegal::AfterEnd);
    assert_eq!(reason(&s, "Kb4-b3"), Illegal::StepWithoutMove);
    assert_eq!(
        reason(&s, "Breach Move Kb4-b3"),
        Illegal::PhaseOver {
            phase: Phase::Move,
            current: Phase::Breach
        }
    );
    assert_eq!(
        reason(&s, "Attack Rb5#c5"),
        Illegal::PhaseOver {
            phase: Phase::Breach,
            current: Phase::Attack
        }
    );
    let r = refused(&s, "Move Kb4-b3 Kb4-b6");
    assert_eq!(
        (r.index, r.order.map(|o| o.to_string())),
        (Some(2), Some("Kb4-b6".into()))
    );
    assert!(r.to_string().starts_with("order 3 (Kb4-b6): "), "{r}");
    // Markers other than Move may repeat; phases may be skipped.
    let r = play(&s, "Breach Breach Attack Attack End", &[]);
    assert_eq!(r.state.turn(), Side::Defender);
    // A declaration's orders as the roll declaration carries them.
    let d: Declaration = "move kb4-B3 end".parse().expect("lenient");
    assert_eq!(d.texts(), ["Move", "Kb4-b3", "End"]);
    assert!(check(&s, &d).is_ok());
}

#[test]
fn cs_p1_the_allowance_carries_out_the_first_distinct_orders() {
    let s = attacking(standard(), "Kd6", "Kb4 Kb5 Ab3 Kc7", "");
    // Priority list of five; the allowance of 3 is drawn after declaring.
    // The second order is impossible when its turn comes (the knight on b4
    // has moved) and does not count; the fifth is beyond the allowance.
    let r = play(&s, "Move Kb4-a4 Kb4-a5 Kb5-a5 Ab3-a3 Kc7-d7", &[3]);
    assert_eq!(
        tokens(&r),
        "Move@3 Kb4-a4 Kb4-a5/skip Kb5-a5 Ab3-a3 Kc7-d7/skip"
    );
    // The allowance is drawn first, before any entry roll.
    let mut dice = Dice::new(&[1, 6]);
    let d: Declaration = "Move Kb4-c4 Kb5-c5".parse().expect("declaration");
    let r = resolve(&s, &d, &mut dice).expect("resolves");
    assert_eq!(dice.asked, ["allowance", "entry Kb4-c4"]);
    assert_eq!(tokens(&r), "Move@1 Kb4-c4@6 Kb5-c5/skip");
}

#[test]
fn cs_p2_a_whole_turn_or_phase_by_phase_gives_the_same_game() {
    let s = attacking(standard(), "Kc4 Kd6 Oc5", "Kb4 Tb4 Rb5 Ab3 Cb6", "");
    let whole = play(
        &s,
        "Move Kb4-c4 Tb4-a4 Breach Rb5#c5 Cb6#c6 Attack Kc4xKc4 Ab3xKc4 End",
        &[2, 4, 5, 1, 1, 6],
    );
    let a = play(&s, "Move Kb4-c4 Tb4-a4", &[2, 4]);
    let b = play(&a.state, "Breach Rb5#c5", &[5]);
    let c = play(&b.state, "Breach Cb6#c6", &[1]);
    let d = play(&c.state, "Attack Kc4xKc4", &[1]);
    let e = play(&d.state, "Attack Ab3xKc4 End", &[6]);
    assert_eq!(whole.state, e.state);
    let split: Vec<String> = [a, b, c, d, e].iter().map(tokens).collect();
    // The split repeats the markers; the orders and faces are the same.
    assert_eq!(
        tokens(&whole),
        "Move@2 Kb4-c4@4 Tb4-a4 Breach Rb5#c5@5 Cb6#c6@1 Attack Kc4xKc4@1 Ab3xKc4@6 End"
    );
    assert_eq!(
        split.join(" "),
        "Move@2 Kb4-c4@4 Tb4-a4 Breach Rb5#c5@5 Breach Cb6#c6@1 Attack Kc4xKc4@1 Attack Ab3xKc4@6 End"
    );
}

#[test]
fn cs_p2_orders_that_may_become_legal_are_accepted_then_skipped() {
    let s = attacking(standard(), "Kc4 Kd6", "Ab4", "");
    // The archer fails to enter c5: its attack from c5 is skipped.
    let r = play(&s, "Move Ab4-c5 Attack Ac5xKc4 End", &[1, 5]);
    assert_eq!(tokens(&r), "Move@1 Ab4-c5@5 Attack Ac5xKc4/skip End");
    // It gets in: the attack is carried out.
    let r = play(&s, "Move Ab4-c5 Attack Ac5xKc4 End", &[1, 6, 6]);
    assert_eq!(tokens(&r), "Move@1 Ab4-c5@6 Attack Ac5xKc4@6 End");
    // Nothing brings an archer to c6: refused.
    let e = reason(&s, "Move Ab4-c5 Attack Ac6xKd6 End");
    assert_eq!(
        e,
        Illegal::NoUnit {
            side: Side::Attacker,
            kind: UnitKind::Archer,
            square: Square::C6
        }
    );
}

#[test]
fn one_order_checked_on_its_own() {
    let s = attacking(standard(), "Kd6", "Kb4", "");
    let step = Order::Step {
        unit: UnitKind::Knight,
        from: Square::B4,
        to: Square::C4,
    };
    assert_eq!(check_order(&s, &step), Ok(()));
    let far = Order::Step {
        unit: UnitKind::Knight,
        from: Square::B4,
        to: Square::D4,
    };
    assert!(matches!(
        check_order(&s, &far),
        Err(Illegal::NotAdjacent { .. })
    ));
    assert_eq!(check_order(&s, &Order::End), Ok(()));
}

#[test]
fn a_failing_door_stops_resolution() {
    let s = attacking(standard(), "Kd6", "Kb4", "");
    let d: Declaration = "Move Kb4-c4".parse().expect("declaration");
    let mut dice = Dice::new(&[1]);
    let e = resolve(&s, &d, &mut dice).unwrap_err();
    assert!(
        matches!(
            e,
            ResolveError::Chance {
                index: 1,
                error: ChanceError::Missing { position: 1, .. },
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn the_rules_page_example_turn() {
    // docs/rules/castle-siege.md, "Notation".
    let s = attacking(standard(), "Kc5 Kd6", "Tb3 Kb4 Kb5 Rb6 Ab5", "");
    let r = play(
        &s,
        "Move Tb3-b4 Kb4-c4 Kb5-c5 Breach Rb6#c6 Attack Ab5xKc5 End",
        &[2, 4, 5, 3],
    );
    assert_eq!(
        tokens(&r),
        "Move@2 Tb3-b4 Kb4-c4@4 Kb5-c5/skip Breach Rb6#c6@5 Attack Ab5xKc5@3 End"
    );
    let lines: Vec<String> = r.report.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines[2],
        "Kb4-c4@4: the knight enters c4 off the siege tower (4, needs 4+)"
    );
    assert!(lines[3].starts_with("Kb5-c5/skip: skipped: the allowance of 2"));
    assert_eq!(lines[5], "Rb6#c6@5: the ram breaches c6 (5, needs 5+)");
    assert_eq!(
        lines[7],
        "Ab5xKc5@3: the archer attacks the knight on c5 with arrows and misses (3, needs 6+)"
    );
}
