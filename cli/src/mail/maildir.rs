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

/// Whether a Maildir file carries the Seen flag (`:2,...S...`).
pub fn is_seen(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.rsplit_once(":2,"))
        .is_some_and(|(_, flags)| flags.contains('S'))
}

/// Moves a Maildir message to `cur/` with the Seen flag, as mail clients
/// do: it stays in its folder, read. A file already gone (moved by an
/// earlier run) is not an error.
pub fn mark_seen(path: &Path) -> std::io::Result<()> {
    match path.parent().and_then(|p| p.parent()) {
        Some(folder) => move_into(path, folder),
        None => Ok(()),
    }
}

/// Moves a Maildir message into the Maildir `folder` (its `cur/`), with
/// the Seen flag added to those it has. A file already gone is not an
/// error.
pub fn move_into(path: &Path, folder: &Path) -> std::io::Result<()> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(());
    };
    let base = name.split_once(":2,").map_or(name, |(b, _)| b);
    let flags = name.split_once(":2,").map_or("", |(_, f)| f);
    let mut flags: Vec<char> = flags.chars().chain(['S']).collect();
    flags.sort_unstable();
    flags.dedup();
    let target = folder.join("cur").join(format!(
        "{base}:2,{}",
        flags.into_iter().collect::<String>()
    ));
    match std::fs::rename(path, target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
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
