//! `docs/rules/khan.md` is held to the code: its ruleset examples load, its
//! position text round-trips, and its list of moves that do not survive the
//! engine's from-to strings names every case the round-trip tests allow
//! (`playouts.rs`, `documented`).

use crate::khan::{Captive, CaptiveAt, GameType, Position, Ruleset, Side, Square};

const DOC: &str = include_str!("../../../../docs/rules/khan.md");

/// The fenced blocks of `lang` after `heading`, up to the next `## `.
fn blocks(heading: &str, lang: &str) -> Vec<String> {
    let start = DOC.find(heading).unwrap_or_else(|| panic!("{heading}"));
    let section = &DOC[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let fence = format!("```{lang}\n");
    section
        .split(&fence)
        .skip(1)
        .filter_map(|b| b.split("```").next().map(str::to_owned))
        .collect()
}

#[test]
fn the_ruleset_examples_load() {
    let yaml = blocks("## Rulesets", "yaml");
    assert_eq!(yaml.len(), 2, "the whole ruleset and the carried fragment");
    let whole = Ruleset::from_yaml(&yaml[0]).unwrap_or_else(|e| panic!("{e}"));
    let standard = GameType::RescueKhan.standard();
    assert_eq!((whole.game, whole.rules), (standard.game, standard.rules));
    assert_eq!(whole.start, standard.start);
    // The fragment, as the siege section of the whole example with a white
    // warrior on b2 to carry the khan.
    let head = &yaml[0][..yaml[0].find("siege:").unwrap_or(0)];
    let head = head.replace("/3AHS1W/", "/1W1AHS1W/");
    let mid_rescue =
        Ruleset::from_yaml(&format!("{head}{}", yaml[1])).unwrap_or_else(|e| panic!("{e}"));
    let start = mid_rescue.start_position();
    assert_eq!(
        start.carried_by(Square::B2),
        Some(Captive::Khan(Side::White))
    );
    assert_eq!(
        start.captive(Captive::Khan(Side::Black)),
        Some(CaptiveAt::Tower(1))
    );
}

#[test]
fn the_position_text_example_round_trips() {
    let text = blocks("### Yam's position format", "");
    let line = text[0].trim();
    let rules = GameType::RescueKhan.standard().rules;
    let pos = Position::from_yam(line, rules).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pos.to_yam(), line);
    assert_eq!(pos, GameType::RescueKhan.standard().start_position());
}

#[test]
fn the_engine_round_trip_exceptions_are_listed() {
    let start = DOC
        .find("**Moves that do not survive export and import.**")
        .expect("the list of moves that do not survive the engine's strings");
    let list: Vec<&str> = DOC[start..]
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("1."))
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| {
            let t = l.trim_start();
            t.chars().next().is_some_and(|c| c.is_ascii_digit()) && t.contains(". ")
        })
        .collect();
    assert_eq!(list.len(), 3, "{list:?}");
    assert!(list[0].contains("a spell by a magician at an enemy piece it could also capture"));
    assert!(list[1].contains("a spell that silences an empty manned square"));
    assert!(list[2].contains("an exchange by a piece that carries a captive"));
}
