//! Properties over arbitrary orders: the referee never panics, refuses
//! before drawing any die, and draws exactly one die per face it reports.

use std::sync::OnceLock;

use proptest::prelude::*;

use super::setup::start;
use super::support::{Dice, attacking, standard};
use crate::castle_siege::{
    Declaration, Mark, Order, Phase, ResolveError, Square, State, UnitKind, check, legal_orders,
    resolve,
};
use crate::castle_siege::{Ruleset, play_game, replay_record};

fn arb_square() -> impl Strategy<Value = Square> {
    (0u8..64).prop_map(|i| Square::from_index(i).unwrap_or(Square::A1))
}

fn arb_unit() -> impl Strategy<Value = UnitKind> {
    (0usize..7).prop_map(|i| UnitKind::ALL[i])
}

fn arb_order() -> impl Strategy<Value = Order> {
    prop_oneof![
        (0usize..3).prop_map(|i| Order::Phase(Phase::ALL[i])),
        Just(Order::End),
        (arb_unit(), arb_square(), arb_square()).prop_map(|(unit, from, to)| Order::Step {
            unit,
            from,
            to
        }),
        (arb_unit(), arb_square(), arb_square()).prop_map(|(unit, from, target)| Order::Breach {
            unit,
            from,
            target
        }),
        (arb_unit(), arb_square(), arb_unit(), arb_square()).prop_map(
            |(unit, from, victim, target)| Order::Attack {
                unit,
                from,
                victim,
                target
            }
        ),
    ]
}

/// Positions to try orders in: the start, a crowded siege, and positions
/// from a self-played game (computed once).
fn positions() -> &'static [State] {
    static POSITIONS: OnceLock<Vec<State>> = OnceLock::new();
    POSITIONS.get_or_init(compute_positions)
}

fn compute_positions() -> Vec<State> {
    let mut out = vec![
        start(),
        attacking(
            standard(),
            "Kc4 Oc5 Cd4 Ac3 Kd6",
            "Kc4 Sc5 Tb4 Kb4 Ab4 Rb5 Cb6",
            "c5 f4",
        ),
    ];
    if let Ok(g) = play_game(7, &Ruleset::standard()) {
        // Replay growing prefixes of the movetext, one turn at a time.
        let mut prefix = Vec::new();
        for t in &g.movetext {
            prefix.push(t.clone());
            let is_end = matches!(
                t,
                crate::castle_siege::Token::Order {
                    order: Order::End,
                    ..
                }
            );
            if is_end
                && prefix.len() % 3 == 0
                && let Ok(r) = replay_record(standard(), &prefix)
                && r.state.outcome().is_none()
            {
                out.push(r.state);
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_declarations_never_panic(
        which in 0usize..64,
        orders in proptest::collection::vec(arb_order(), 0..10),
        faces in proptest::collection::vec(1u8..=6, 40),
    ) {
        let all = positions();
        let state = &all[which % all.len()];
        let declaration = Declaration::new(orders);
        let mut dice = Dice::new(&faces);
        match resolve(state, &declaration, &mut dice) {
            Err(ResolveError::Refused(_)) => {
                prop_assert!(dice.asked.is_empty(), "refused after drawing a die");
                prop_assert!(check(state, &declaration).is_err());
            }
            Err(ResolveError::Chance { .. }) => prop_assert!(false, "40 faces are enough"),
            Ok(r) => {
                let rolled = r.report.iter().filter(|o| matches!(o.mark, Mark::Roll(_))).count();
                prop_assert_eq!(rolled, dice.asked.len());
                prop_assert_eq!(r.report.len(), declaration.orders().len());
                let _ = crate::castle_siege::diagram(&r.state);
            }
        }
    }

    #[test]
    fn every_legal_order_can_be_declared(which in 0usize..64, pick in 0usize..1000, face in 1u8..=6) {
        let all = positions();
        let state = &all[which % all.len()];
        let legal = legal_orders(state);
        prop_assume!(!legal.is_empty());
        let order = legal[pick % legal.len()];
        let mut orders = Vec::new();
        match order.phase() {
            Some(Phase::Move) => orders.push(Order::Phase(Phase::Move)),
            Some(p) => orders.push(Order::Phase(p)),
            None => {}
        }
        orders.push(order);
        let declaration = Declaration::new(orders);
        prop_assert!(check(state, &declaration).is_ok(), "{} refused", order);
        let mut dice = Dice::new(&[face, face]);
        prop_assert!(resolve(state, &declaration, &mut dice).is_ok());
    }
}
