//! Any text as a mail body: the turn-block finder never panics, finds
//! one block (read or refused) for a begin line at most, and every block
//! it reads re-armors to the same block: `armor` writes what
//! `find_blocks` reads; the checksums read without decoding
//! (`block_checksums`) name every unquoted block read, in order.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_cli::mail::armor::{self, BEGIN};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let found = armor::find_blocks(&text);
    assert!(found.len() <= text.matches(BEGIN).count());
    assert_eq!(found.is_empty(), !text.contains(BEGIN));
    let sums = armor::block_checksums(&text);
    assert!(sums.len() <= found.iter().filter(|f| !f.quoted).count());
    let read: Vec<String> = found
        .iter()
        .filter(|f| !f.quoted)
        .filter_map(|f| f.block.as_ref().ok())
        .map(|b| armor::checksum(&b.payload))
        .collect();
    let mut rest = sums.iter();
    for sum in &read {
        assert!(rest.any(|s| s == sum), "{sum} not among {sums:?}");
    }
    for f in &found {
        let Ok(block) = &f.block else { continue };
        let text = armor::armor(&block.game, block.ply, &block.payload);
        let again = armor::find_blocks(&text);
        assert_eq!(again.len(), 1, "{text}");
        assert!(!again[0].quoted);
        assert_eq!(again[0].block.as_ref(), Ok(block), "{text}");
    }
});
