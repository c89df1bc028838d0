//! Rulesets: the standard files, the defaults, and errors with their line
//! and column.

use crate::castle_siege::ruleset::BUILTIN;
use crate::castle_siege::{Adjacency, InnerMoves, Rocks, Rules, Ruleset};

#[test]
fn the_standard_rulesets_read() {
    for (name, _) in BUILTIN {
        let r = Ruleset::builtin(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.name, name);
        assert!(r.description.is_some());
    }
    assert_eq!(Ruleset::standard().rules, Rules::default());
    let d = Rules::default();
    assert_eq!(
        (d.adjacency, d.inner_moves, d.rocks, d.round_cap),
        (Adjacency::King, InnerMoves::Free, Rocks::Adjacent, 50)
    );
    let r = Ruleset::builtin("Orthogonal_Restricted").expect("lenient name");
    assert_eq!(
        (r.rules.adjacency, r.rules.inner_moves),
        (Adjacency::Orth, InnerMoves::Restricted)
    );
    assert_eq!(
        Ruleset::builtin("castle-wide-rocks")
            .expect("ruleset")
            .rules
            .rocks,
        Rocks::CastleWide
    );
    let e = Ruleset::builtin("chess").unwrap_err();
    assert!(e.to_string().contains("standard, orthogonal"), "{e}");
}

#[test]
fn defaults_fill_in_missing_flags() {
    let r = Ruleset::from_yaml("name: bare\n").expect("ruleset");
    assert_eq!(r.rules, Rules::default());
    let r =
        Ruleset::from_yaml("name: x\nadjacency: orthogonal\nrocks: castle-wide\nround_cap: 7\n")
            .expect("aliases");
    assert_eq!(
        (r.rules.adjacency, r.rules.rocks, r.rules.round_cap),
        (Adjacency::Orth, Rocks::CastleWide, 7)
    );
}

#[test]
fn bad_rulesets_say_where() {
    for (text, line, column, words) in [
        ("name: x\nadjacency: hex\n", 2, 12, "unknown variant"),
        (
            "name: x\ninner_moves: sometimes\n",
            2,
            14,
            "unknown variant",
        ),
        ("name: x\nrocks: everywhere\n", 2, 8, "unknown variant"),
        (
            "name: x\nround_cap: 0\n",
            2,
            12,
            "round_cap must be 1 to 10000",
        ),
        ("name: x\nround_cap: 99999\n", 2, 12, "round_cap must be"),
        ("name: x\nround_cap: many\n", 2, 12, "invalid type"),
        ("name: x\nflags: {}\n", 2, 1, "unknown field"),
        ("adjacency: king\n", 1, 1, "missing field `name`"),
        ("name: x\n  bad indent: [\n", 2, 13, "mapping values"),
    ] {
        let e = Ruleset::from_yaml(text).unwrap_err();
        assert_eq!(
            (e.line, e.column),
            (Some(line), Some(column)),
            "{text:?}: {e}"
        );
        assert!(e.to_string().contains(words), "{text:?}: {e}");
        assert!(
            e.to_string()
                .starts_with(&format!("line {line}, column {column}: "))
        );
    }
}
