//! Typed moves (`genghis_khan::input`): a capture that leaves out the Foe
//! card takes the top card of the attacked Foe; card names by prefix in any
//! case; an ambiguous prefix is refused with the candidates.

use super::support::{Script, act, draw, standard};
use crate::genghis_khan::input::{InputError, resolve_input, resolve_turn};
use crate::genghis_khan::{Action, FoeDeck, setup};

const M: FoeDeck = FoeDeck::MongolianUnification;

#[test]
fn a_short_capture_takes_the_top_card_of_the_attacked_foe() {
    let s = setup(&standard(), &mut Script::default()).unwrap();
    let s = draw(
        &s,
        &["Temujin", "Cavalry", "Tricks", "Son Tolui", "Merciless"],
    );
    // No Foe is attacked yet.
    assert_eq!(
        resolve_input(&s, "capture:cav"),
        Err(InputError::NoFoe {
            text: "capture:cav".into()
        })
    );
    // The record's own tokens pass as typed, for the rules to judge.
    assert_eq!(resolve_input(&s, "attack:m").unwrap(), "attack:m");
    assert_eq!(resolve_input(&s, "pass").unwrap(), "pass");
    let s = act(&s, Action::Attack(M)).0;
    // The top card is the second Buryats (M5).
    for typed in [
        "capture:Cavalry",
        "capture=6b",
        "pay:cavalry",
        "PAY=cav",
        "capture:\"Cavalry\"",
    ] {
        assert_eq!(
            resolve_input(&s, typed).unwrap(),
            "capture:M5/Buryats=6b",
            "{typed}"
        );
    }
    assert_eq!(
        resolve_input(&s, "pay:merc+tricks").unwrap(),
        "capture:M5/Buryats=8e+4g"
    );
    assert_eq!(
        resolve_input(&s, "capture:M5=Cavalry").unwrap(),
        "capture:M5=Cavalry"
    );
    // "Son" starts three cards' names: the candidates are named.
    let e = resolve_input(&s, "pay:son").unwrap_err();
    assert!(matches!(e, InputError::Unreadable { .. }), "{e:?}");
    assert!(e.to_string().contains("Son Tolui"), "{e}");
    assert!(e.to_string().contains("Son Jochi"), "{e}");
}

#[test]
fn a_short_capture_after_an_attack_in_the_same_turn_takes_that_foes_cards_in_order() {
    let s = setup(&standard(), &mut Script::default()).unwrap();
    let s = draw(
        &s,
        &["Temujin", "Cavalry", "Tricks", "Son Tolui", "Merciless"],
    );
    let typed: Vec<String> = ["attack:M", "pay:cav", "pay:merc", "pass"]
        .iter()
        .map(|t| (*t).to_owned())
        .collect();
    let row = s.row(M);
    let top = row[row.len() - 1];
    let next = row[row.len() - 2];
    let turn = resolve_turn(&s, &typed).unwrap();
    assert_eq!(turn[0], "attack:M");
    assert!(
        turn[1].starts_with(&format!("capture:{}/", top.code())) && turn[1].ends_with("=6b"),
        "{turn:?}"
    );
    assert!(
        turn[2].starts_with(&format!("capture:{}/", next.code())) && turn[2].ends_with("=8e"),
        "{turn:?}"
    );
    assert_eq!(turn[3], "pass");
}
