//! Golden tests pin the canonical form.

mod common;

use common::Toy;
use yam_notation::{parse_record, record_to_string};

#[test]
fn messy_input_prints_canonically() {
    let messy = include_str!("golden/messy.yam");
    let record = parse_record::<Toy>(messy).unwrap();
    let printed = record_to_string::<Toy>(&record);
    insta::assert_snapshot!(printed);
    // Canonical text is a fixed point.
    assert_eq!(
        record_to_string::<Toy>(&parse_record::<Toy>(&printed).unwrap()),
        printed
    );
}

#[test]
fn two_glyph_nags_do_not_merge_into_one() {
    // Found by the fuzzer: `!` and `!` printed together read back as `!!`.
    let text = format!("{}1. Wg4-f5 ! ! ? *\n", common::header("glyphs", "*"));
    let record = parse_record::<Toy>(&text).unwrap();
    let printed = record_to_string::<Toy>(&record);
    assert!(printed.contains("Wg4-f5! $1 $2 *"), "{printed}");
    assert_eq!(parse_record::<Toy>(&printed).unwrap(), record);
}
