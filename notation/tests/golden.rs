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
