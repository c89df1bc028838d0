//! Typed orders (`castle_siege::input`): every legal order of a position
//! resolves back from each of its short forms, or that form is ambiguous
//! among exactly the orders it fits; a declaration's later orders may use
//! the units its earlier steps move (CS-P2); an impossible order names the
//! nearest legal ones.

use std::collections::BTreeSet;

use super::setup::start;
use super::support::{attacking, play, standard};
use crate::castle_siege::input::{InputError, resolve_declaration, resolve_order};
use crate::castle_siege::{Order, State, legal_orders};

fn owned(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| (*t).to_owned()).collect()
}

/// What `text` resolves to on its own: the order, or the candidates.
fn resolved(state: &State, text: &str) -> Result<String, Vec<String>> {
    match resolve_order(state, &[], text) {
        Ok(Some(o)) => Ok(o.to_string()),
        Err(InputError::Ambiguous { candidates, .. }) => {
            Err(candidates.iter().map(|c| c.to_string()).collect())
        }
        other => panic!("{text}: {other:?}"),
    }
}

/// Each short form of each legal order against an oracle: the legal
/// orders of the same kind that agree on everything the form says.
fn every_form_resolves(state: &State) -> usize {
    let legal = legal_orders(state);
    let mut checked = 0;
    for order in &legal {
        let full = order.to_string();
        assert_eq!(resolved(state, &full), Ok(full.clone()));
        let (mark, unit, from, victim, target) = match *order {
            Order::Step { unit, from, to } => ("-", unit, from, None, to),
            Order::Breach { unit, from, target } => ("#", unit, from, None, target),
            Order::Attack {
                unit,
                from,
                victim,
                target,
            } => ("x", unit, from, Some(victim), target),
            _ => unreachable!("legal orders name units"),
        };
        let same_kind = |o: &Order| std::mem::discriminant(o) == std::mem::discriminant(order);
        let fits = |o: &Order, with_unit: bool, with_from: bool, with_victim: bool| {
            let text = o.to_string();
            let (u, f) = (unit.letter(), from.to_string());
            same_kind(o)
                && text.ends_with(&target.to_string())
                && (!with_unit || text.starts_with(u))
                && (!with_from || text[1..].starts_with(&f))
                && (!with_victim
                    || victim.is_none_or(|v| text.ends_with(&format!("{}{target}", v.letter()))))
        };
        let victim_text = |with: bool| match victim {
            Some(v) if with => v.letter().to_string(),
            _ => String::new(),
        };
        for (with_unit, with_from, with_victim) in [
            (false, true, true),
            (true, false, true),
            (true, true, false),
            (false, true, false),
            (true, false, false),
        ] {
            if victim.is_none() && !with_victim {
                continue;
            }
            let text = format!(
                "{}{}{mark}{}{target}",
                if with_unit {
                    unit.letter().to_string()
                } else {
                    String::new()
                },
                if with_from {
                    from.to_string()
                } else {
                    String::new()
                },
                victim_text(with_victim)
            );
            let oracle: BTreeSet<String> = legal
                .iter()
                .filter(|o| fits(o, with_unit, with_from, with_victim))
                .map(|o| o.to_string())
                .collect();
            if oracle.len() == 1 {
                assert_eq!(resolved(state, &text), Ok(full.clone()), "{text}");
            } else {
                assert_eq!(
                    resolved(state, &text),
                    Err(oracle.into_iter().collect()),
                    "{text}"
                );
            }
            checked += 1;
        }
        if let Order::Step { from, to, .. } = order {
            // The from-to form without the mark is a step too.
            assert_eq!(
                resolved(state, &format!("{from}{to}")),
                resolved(state, &format!("{from}-{to}"))
            );
        }
    }
    checked
}

#[test]
fn every_legal_order_resolves_from_its_short_forms() {
    let defender = start();
    // The Defender's first Move phase, then the Attacker's.
    let attacker = play(&defender, "End", &[]).state;
    let close = attacking(standard(), "Kc3 Ad4 Oc4 Cd5", "Kb2 Kb3 Ab4 Rb5 Sc2 Tb6", "");
    let mut checked = 0;
    for state in [&defender, &attacker, &close] {
        checked += every_form_resolves(state);
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn the_short_forms_of_a_declaration_become_its_canonical_orders() {
    let s = attacking(standard(), "Kc3 Ad4 Oc4 Cd5", "Kb2 Kb3 Ab4 Rb5 Sc2 Tb6", "");
    let typed = owned(&[
        "move", "b2a2", "R-b6", "breach", "b5#c5", "attack", "Ab4xc4", "end",
    ]);
    let canonical = resolve_declaration(&s, &typed).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        canonical,
        owned(&[
            "Move", "Kb2-a2", "Rb5-b6", "Breach", "Rb5#c5", "Attack", "Ab4xOc4", "End"
        ])
    );
    // An attack by a unit an earlier step of the declaration brings (CS-P2).
    let typed = owned(&["Move", "Ab4-b3", "Attack", "b3xc3"]);
    let canonical = resolve_declaration(&s, &typed).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(canonical[3], "Ab3xKc3");
}

#[test]
fn an_ambiguous_order_lists_the_candidates_and_an_impossible_one_the_nearest() {
    let s = attacking(standard(), "Kc3 Ad4 Oc4 Cd5", "Kb2 Kb3 Ab4 Rb5 Sc2 Tb6", "");
    // The knights on a1 (the filler's), b2 and b3 all reach a2.
    match resolve_order(&s, &[], "Ka2") {
        Err(InputError::Ambiguous { candidates, .. }) => {
            let c: Vec<String> = candidates.iter().map(|o| o.to_string()).collect();
            assert_eq!(c, ["Ka1-a2", "Kb2-a2", "Kb3-a2"]);
        }
        other => panic!("{other:?}"),
    }
    let e = resolve_order(&s, &[], "Ka2").unwrap_err().to_string();
    assert!(
        e.contains("`Ka2` could be any of Ka1-a2, Kb2-a2, Kb3-a2"),
        "{e}"
    );
    match resolve_order(&s, &[], "R#f6") {
        Err(InputError::NoSuchOrder { nearest, .. }) => {
            assert!(!nearest.is_empty());
            assert!(nearest.iter().all(|o| matches!(o, Order::Breach { .. })));
        }
        other => panic!("{other:?}"),
    }
    let e = resolve_order(&s, &[], "zz").unwrap_err().to_string();
    assert!(
        e.starts_with("cannot read `zz`: expected a Castle Siege order"),
        "{e}"
    );
}
