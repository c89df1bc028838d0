//! An mbox inbox (`yam read --mbox FILE`, or `incoming: mbox:`): a file the
//! MTA appends anyone's mail to.
//!
//! - Any bytes as the file: listing never panics; the listed mails start
//!   each with a `From ` line at a line's start, in order, and together
//!   cover the file from the first `From ` line to its end; each is keyed
//!   by its length and the digest of its bytes (BLAKE3, first 16 bytes),
//!   whatever its offset; fetching one never returns more than its listed
//!   size nor panics.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_cli::mail::inbox::{Mailbox, Place};

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = std::env::temp_dir()
        .join("yam-fuzz-mbox")
        .canonicalize()
        .or_else(|_| {
            let d = std::env::temp_dir().join("yam-fuzz-mbox");
            std::fs::create_dir_all(&d).map(|()| d)
        })
    else {
        return;
    };
    let file = dir.join(format!("box-{}", std::process::id()));
    if std::fs::write(&file, data).is_err() {
        return;
    }
    let Ok(mut session) = Mailbox::Mbox(file.clone()).open() else {
        return;
    };
    let listed = session.list(None).expect("a file that opened lists");
    let mut end = None;
    for mail in &listed {
        let Place::Mbox {
            offset,
            size,
            digest,
        } = mail.place
        else {
            panic!("an mbox lists mbox places: {:?}", mail.place);
        };
        assert_eq!(size, mail.size);
        let at = usize::try_from(offset).unwrap();
        assert!(data[at..].starts_with(b"From "), "{offset}");
        assert!(at == 0 || data[at - 1] == b'\n', "{offset}");
        if let Some(previous_end) = end {
            assert_eq!(previous_end, offset, "mails follow each other");
        }
        end = Some(offset + size);
        let bytes = &data[at..at + usize::try_from(size).unwrap()];
        assert_eq!(digest[..], blake3::hash(bytes).as_bytes()[..16]);
        assert_eq!(
            mail.place.key(),
            format!("mbox:{size}:{}", hex::encode(digest))
        );
        if let Ok(raw) = session.fetch(mail) {
            assert!(raw.len() as u64 <= size + 1, "{} > {size}", raw.len());
        }
    }
    if let Some(end) = end {
        assert_eq!(end, data.len() as u64, "the last mail runs to the end");
    }
    let _ = std::fs::remove_file(&file);
});
