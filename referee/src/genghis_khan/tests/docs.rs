//! The rules page's code tables are the card lists: a changed list or a
//! stale table fails here.

use crate::genghis_khan::{FoeCard, FoeDeck, KhanCard};

const DOC: &str = include_str!("../../../../docs/rules/genghis-khan.md");

/// The rows of the Markdown table that follows `heading`.
fn table(heading: &str) -> Vec<Vec<&'static str>> {
    let start = DOC.find(heading).expect("the heading");
    DOC[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect()
}

#[test]
fn the_khan_code_table_is_the_list() {
    let rows = table("### Khan short codes");
    assert_eq!(rows.len(), 10);
    for row in rows {
        let force: u8 = row[0].parse().unwrap();
        for (i, name) in row[1..].iter().enumerate() {
            let letter = char::from(b'a' + i as u8);
            let card = KhanCard::from_code(force, letter).unwrap();
            assert_eq!(card.name(), *name, "{force}{letter}");
        }
    }
}

#[test]
fn the_foe_table_is_the_lists() {
    let rows = table("### Foe cards by deck and force");
    assert_eq!(rows.len(), 10);
    for row in rows {
        let force: u8 = row[0].parse().unwrap();
        for (deck, name) in FoeDeck::ALL.into_iter().zip(&row[1..]) {
            assert_eq!(FoeCard::of_force(deck, force).unwrap().name(), *name);
        }
    }
}
