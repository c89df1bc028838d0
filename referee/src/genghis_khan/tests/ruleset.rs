//! Rulesets: the standard one is the rulings' defaults; each option reads
//! both ways; a bad ruleset is refused with its line and column.

use crate::genghis_khan::ruleset::BUILTIN;
use crate::genghis_khan::{Options, Ruleset};

#[test]
fn the_standard_ruleset_is_the_rulings_defaults() {
    let r = Ruleset::builtin("standard").unwrap();
    assert_eq!(r.name, "standard");
    assert_eq!(r.options, Options::default());
    assert_eq!(
        r.options,
        Options {
            reshuffle: false,
            switch_after_exhaust: false,
            hand_limit: 6,
            turns: 21
        }
    );
    assert_eq!(Ruleset::standard(), r);
    assert_eq!(Ruleset::builtin("STANDARD"), Ok(r));
    assert_eq!(BUILTIN.len(), 1);
    let e = Ruleset::builtin("blitz").unwrap_err();
    assert!(
        e.to_string()
            .contains("no standard Genghis Khan ruleset is called \"blitz\""),
        "{e}"
    );
}

#[test]
fn every_option_reads_both_ways_and_defaults_when_left_out() {
    let r = Ruleset::from_yaml("name: minimal\n").unwrap();
    assert_eq!(r.options, Options::default());
    assert_eq!(r.description, None);
    let r = Ruleset::from_yaml(
        "name: variant\ndescription: all flags on\noptions:\n  reshuffle: true\n  \
         switch_after_exhaust: true\n  hand_limit: 0\n  turns: 1\n",
    )
    .unwrap();
    assert_eq!(
        r.options,
        Options {
            reshuffle: true,
            switch_after_exhaust: true,
            hand_limit: 0,
            turns: 1
        }
    );
    let r = Ruleset::from_yaml("name: v\noptions:\n  hand_limit: 15\n  turns: 1000\n").unwrap();
    assert_eq!((r.options.hand_limit, r.options.turns), (15, 1000));
    let r = Ruleset::from_yaml("name: v\noptions:\n  reshuffle: false\n").unwrap();
    assert!(!r.options.reshuffle);
}

fn error_at(yaml: &str) -> (usize, usize, String) {
    let e = Ruleset::from_yaml(yaml).expect_err("a bad ruleset");
    (e.line.unwrap_or(0), e.column.unwrap_or(0), e.to_string())
}

#[test]
fn bad_rulesets_are_refused_with_line_and_column() {
    // An unknown option, on line 3.
    let (l, c, m) = error_at("name: x\noptions:\n  reshufle: true\n");
    assert_eq!((l, c), (3, 3), "{m}");
    assert!(m.contains("unknown field `reshufle`"), "{m}");
    assert!(m.starts_with("line 3, column 3: "), "{m}");
    // A flag that is not a boolean.
    let (l, c, m) = error_at("name: x\noptions:\n  switch_after_exhaust: sometimes\n");
    assert_eq!((l, c), (3, 25), "{m}");
    // A hand limit out of range, and a negative one.
    let (l, c, m) = error_at("name: x\noptions:\n  hand_limit: 16\n");
    assert_eq!((l, c), (3, 15), "{m}");
    assert!(m.contains("a hand limit from 0 to 15"), "{m}");
    let (l, _, m) = error_at("name: x\noptions:\n  hand_limit: -1\n");
    assert_eq!(l, 3, "{m}");
    // No turns at all.
    let (l, c, m) = error_at("name: x\noptions:\n  hand_limit: 6\n  turns: 0\n");
    assert_eq!((l, c), (4, 10), "{m}");
    assert!(m.contains("a number of turns from 1 to 1000"), "{m}");
    // A turn count that is not a number.
    let (l, _, m) = error_at("name: x\noptions:\n  turns: many\n");
    assert_eq!(l, 3, "{m}");
    // An unknown top-level key.
    let (l, c, m) = error_at("name: x\nhorde: 6\n");
    assert_eq!((l, c), (2, 1), "{m}");
    // Broken YAML.
    let (l, _, m) = error_at("name: [unclosed\n");
    assert!(l >= 1, "{m}");
    // A missing name.
    let (_, _, m) = error_at("options:\n  turns: 5\n");
    assert!(m.contains("missing field `name`"), "{m}");
}
