//! Reading turns from a local Maildir (and from mbox files), through
//! mail-parser's mailbox readers.

use std::path::{Path, PathBuf};

/// One message of a local mailbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalMessage {
    /// Where it is (a Maildir file), so it can be moved once dealt with.
    pub path: Option<PathBuf>,
    /// Its raw bytes.
    pub raw: Vec<u8>,
}

/// The messages of a Maildir (`new/` and `cur/`), in file-name order, which
/// for Maildir names is delivery order.
pub fn read_maildir(dir: &Path) -> std::io::Result<Vec<LocalMessage>> {
    let mut messages = Vec::new();
    for sub in ["cur", "new"] {
        let folder = dir.join(sub);
        if !folder.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&folder)? {
            let path = entry?.path();
            let hidden = path
                .file_name()
                .and_then(|n| n.to_str())
                .is_none_or(|n| n.starts_with('.'));
            if path.is_file() && !hidden {
                messages.push(LocalMessage {
                    raw: std::fs::read(&path)?,
                    path: Some(path),
                });
            }
        }
    }
    messages.sort_by(|a, b| {
        a.path
            .as_ref()
            .and_then(|p| p.file_name())
            .cmp(&b.path.as_ref().and_then(|p| p.file_name()))
    });
    Ok(messages)
}

/// The messages of an mbox file, in order.
pub fn read_mbox(path: &Path) -> std::io::Result<Vec<LocalMessage>> {
    let file = std::fs::File::open(path)?;
    let messages = mail_parser::mailbox::mbox::MessageIterator::new(std::io::BufReader::new(file));
    let mut out = Vec::new();
    for message in messages {
        let message = message.map_err(|_| std::io::Error::other("malformed mbox"))?;
        out.push(LocalMessage {
            path: None,
            raw: message.contents().to_vec(),
        });
    }
    Ok(out)
}
