//! Identity cards, which arrive from anyone in a turn block.
//!
//! - Any bytes: `Card::read` never panics; a card it accepts starts with
//!   the card's first line, has a clean name (`clean_text` changes it no
//!   more), an address in its normal form (`address::normal` changes it no
//!   more) with an `@` and no white space, control or invisible
//!   character, and re-signs: the same fields under another key read back
//!   unchanged.
//! - Fields from the bytes (a name, an address, a date), signed with a
//!   fixed key: the card reads back as written (its name cleaned), or is
//!   refused exactly when its address has white space, a control or an
//!   invisible character, or when it lacks a name or an `@`; its address
//!   read in its normal form: the writer and the reader agree on every
//!   one-line field.

#![no_main]

use libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use yam_cli::mail::address::normal;
use yam_cli::mail::cards::{Card, CardError, clean_text, is_card, is_unprintable};
use yam_referee::fair_play::sign::SigningKey;

fn key() -> SigningKey {
    SigningKey::from_seed(&[7; 32])
}

/// A card signed by the fuzzer's key reads back as itself.
fn reads_back(card: &Card, key: &SigningKey) {
    let text = card.signed_text(key);
    let read = Card::read(text.as_bytes());
    let expected = if card
        .address
        .contains(|c: char| c.is_whitespace() || c.is_control() || is_unprintable(c))
    {
        Err(CardError::BadLine {
            name: "address",
            found: card.address.to_ascii_lowercase(),
        })
    } else if card.name.trim().is_empty() || !card.address.contains('@') {
        Err(CardError::Incomplete)
    } else {
        Ok(Card {
            name: clean_text(&card.name),
            address: normal(&card.address),
            ..card.clone()
        })
    };
    assert_eq!(read, expected, "{text:?}");
}

fn one_line(s: &str) -> bool {
    !s.contains(['\n', '\r'])
}

fn written(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(name), Ok(address), Ok(issued)) = (
        String::arbitrary(&mut u),
        String::arbitrary(&mut u),
        u64::arbitrary(&mut u),
    ) else {
        return;
    };
    // What a desk writes: its configured name, its address in lower case.
    let address = address.to_ascii_lowercase();
    if !one_line(&name) || !one_line(&address) {
        return;
    }
    let key = key();
    reads_back(
        &Card {
            name,
            address,
            key: key.public_key(),
            issued,
        },
        &key,
    );
}

fuzz_target!(|data: &[u8]| {
    if let Ok(card) = Card::read(data) {
        assert!(is_card(data));
        assert_eq!(clean_text(&card.name), card.name);
        assert!(!card.name.is_empty());
        assert_eq!(card.address, normal(&card.address));
        assert!(card.address.contains('@'));
        assert!(
            !card
                .address
                .contains(|c: char| c.is_whitespace() || c.is_control() || is_unprintable(c)),
            "{:?}",
            card.address
        );
        let key = key();
        reads_back(
            &Card {
                key: key.public_key(),
                ..card
            },
            &key,
        );
    }
    written(data);
});
