//! A desk bundle (`yam identity import FILE`): a file handed to a player
//! (a backup, a file found on a shared disk), read before anything is
//! written.
//!
//! - Any bytes: `read_bundle` never panics nor asks for more memory than
//!   the text's size allows (aliases are refused before parsing); a bundle
//!   it accepts has every path once, of normal components only, and
//!   writes back to a text that reads as the same files.
//! - Files from the bytes: the text `write_bundle` makes reads back as
//!   those files; with its last line cut off, it is refused (the count and
//!   digest come last).

#![no_main]

use std::path::{Component, PathBuf};

use libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use yam_cli::fuzzing::{BundleFile, read_bundle, write_bundle};

fn round_trip(files: &[BundleFile]) {
    let text = write_bundle(files).expect("a bundle writes");
    assert_eq!(read_bundle(&text).as_deref(), Ok(files), "{text}");
    let trimmed = text.trim_end_matches('\n');
    if let Some(cut) = trimmed.rfind('\n') {
        assert!(read_bundle(&text[..cut + 1]).is_err(), "cut: {text}");
    }
}

fn written(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(raw) = Vec::<(String, bool, Vec<u8>, Option<u16>)>::arbitrary(&mut u) else {
        return;
    };
    let mut files: Vec<BundleFile> = Vec::new();
    for (path, secret, bytes, mode) in raw {
        let path = PathBuf::from(path);
        let normal = !path.as_os_str().is_empty()
            && path.components().all(|c| matches!(c, Component::Normal(_)))
            && !path.to_string_lossy().contains('\\');
        if normal && files.iter().all(|f| f.path != path) {
            files.push(BundleFile {
                path,
                secret,
                bytes,
                mode: mode.map(|m| u32::from(m) & 0o777),
            });
        }
    }
    // A path the YAML writer cannot carry as it is (a control character)
    // is not a path a data directory holds: only round trips that read.
    if let Ok(text) = write_bundle(&files)
        && read_bundle(&text).is_ok()
    {
        round_trip(&files);
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(files) = read_bundle(text)
    {
        let mut seen = std::collections::HashSet::new();
        for f in &files {
            assert!(seen.insert(f.path.clone()));
            assert!(!f.path.as_os_str().is_empty());
            assert!(
                f.path
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)))
            );
        }
        round_trip(&files);
    }
    written(data);
});
