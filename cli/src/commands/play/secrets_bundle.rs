//! One file holding a player's whole desk (signing key, chains, sealed
//! setups, contacts, games), for a backup or a move to a new machine.
//!
//! The file is YAML: one entry per file of the data directory, its path
//! relative to the directory and its bytes in base64. It is written with
//! mode 0600 because it holds the signing key. Importing never replaces a
//! file that differs from the bundle's: a newer game state or another key
//! on the new machine is kept, and the clash reported.

use crate::error::Error;
use std::path::{Component, Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use super::desk::Desk;

/// The bundle's format marker: version 2 counts its files and carries a
/// digest of them at its end, so a bundle cut short (a copy to a full
/// stick, a download that stopped) is told from a whole one; version 1, an
/// earlier Yam's, is still read.
const FORMAT: &str = "yam-desk-2";
/// An earlier Yam's bundles: no count, no digest, no modes.
const FORMAT_1: &str = "yam-desk-1";

#[derive(Debug, Serialize, Deserialize)]
struct Bundle {
    format: String,
    files: Vec<Entry>,
    /// How many entries (version 2): written after them, so a cut loses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    count: Option<usize>,
    /// SHA-256 of the entries (version 2, [`digest`]), last of all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sha256: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    path: String,
    secret: bool,
    base64: String,
    /// The file's permission bits (version 2, Unix): a file kept private
    /// (a configuration with a mail password) stays private on the new
    /// machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<u32>,
}

/// The digest of a bundle's entries: each one's path, kind, base64 text
/// and mode, length-prefixed, in order.
fn digest(files: &[Entry]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for entry in files {
        for field in [
            entry.path.as_bytes(),
            if entry.secret { b"secret" } else { b"file" },
            entry.base64.as_bytes(),
        ] {
            hasher.update((field.len() as u64).to_be_bytes());
            hasher.update(field);
        }
        hasher.update(entry.mode.map_or(u64::MAX, u64::from).to_be_bytes());
    }
    hex::encode(hasher.finalize())
}

/// Whether `text` uses YAML anchors or aliases, which Yam never writes: an
/// alias of a large value, repeated, made the import ask for gigabytes
/// before it checked anything.
fn has_aliases(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start().trim_start_matches("- ");
        let value = line.split_once(": ").map_or(line, |(_, v)| v);
        value.starts_with('&') || value.starts_with('*')
    })
}

/// The permission bits of `path`, on Unix.
fn mode_of(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // A verified checkpoint and a tip are caches, not part of the
        // desk: the new machine verifies each game whole once and keeps
        // its own (and two differing caches must never be a clash on
        // import). Files only: a game may be named so.
        let cache = path.is_file() && (name == "checkpoint" || name == "tip");
        // A temporary a killed write left (`.NAME.tmp-PID`, `atomic`):
        // half a file, never part of the desk.
        let temporary = crate::store::atomic::temporary_of(name).is_some();
        if name == ".lock" || name.starts_with(".tmp") || temporary || cache {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, out)?;
        } else if path.is_file() {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Writes `bytes` to `path` with mode 0600, replacing an existing `path`:
/// a private temporary beside it, renamed over it, so a crash leaves the
/// old bundle or the new one and the new one is never readable by others.
fn replace_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bundle".into());
    let temp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let result = write_private(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Writes the bundle of `desk` to `out` (replacing an existing `out` only
/// with `replace`, `--force`); returns how many files it holds.
pub fn export(desk: &Desk, out: &Path, replace: bool) -> Result<usize, Error> {
    let root = desk.store.root();
    let secrets = desk.store.secrets_dir();
    let mut paths = Vec::new();
    walk(root, root, &mut paths).map_err(|e| Error::usage(format!("{}: {e}", root.display())))?;
    paths.sort();
    let mut files = Vec::new();
    for relative in paths {
        let full = root.join(&relative);
        let bytes =
            std::fs::read(&full).map_err(|e| Error::usage(format!("{}: {e}", full.display())))?;
        files.push(Entry {
            path: relative.to_string_lossy().replace('\\', "/"),
            secret: full.starts_with(&secrets),
            base64: STANDARD.encode(bytes),
            mode: mode_of(&full),
        });
    }
    let count = files.len();
    let sha256 = digest(&files);
    let text = serde_yaml_ng::to_string(&Bundle {
        format: FORMAT.into(),
        files,
        count: Some(count),
        sha256: Some(sha256),
    })
    .map_err(|e| Error::usage(e.to_string()))?;
    let write = if replace {
        replace_private
    } else {
        if out.exists() {
            return Err(Error::usage(format!(
                "{}: the file exists (use --force to replace it)",
                out.display()
            )));
        }
        write_private
    };
    write(out, text.as_bytes()).map_err(|e| Error::usage(format!("{}: {e}", out.display())))?;
    Ok(count)
}

/// Restores the bundle `file` into the data directory `data`; returns how
/// many files were written. Everything is checked before anything is
/// written (the format, a whole bundle's count and digest, every path once
/// and inside the directory, every file absent or the same); then the
/// secrets are written first and `config.yaml` last, so an import cut off
/// (a full disk, a kill) leaves no configuration without its key (a desk
/// that found one drew a new key, and the import run again was refused on
/// it), and run again it finishes.
pub fn import(data: &Path, file: &Path) -> Result<usize, Error> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::usage(format!("{}: {e}", file.display())))?;
    if has_aliases(&text) {
        return Err(Error::usage(format!(
            "{}: not a bundle Yam wrote (it uses YAML anchors or aliases); nothing was imported",
            file.display()
        )));
    }
    let bundle: Bundle = serde_yaml_ng::from_str(&text)
        .map_err(|e| Error::usage(format!("{}: {e}", file.display())))?;
    match bundle.format.as_str() {
        FORMAT => {
            let whole = bundle.count == Some(bundle.files.len())
                && bundle.sha256.as_deref() == Some(digest(&bundle.files).as_str());
            if !whole {
                return Err(Error::usage(format!(
                    "{}: the bundle is cut short or altered (its count or digest does not match its {} entries); nothing was imported: export it again",
                    file.display(),
                    bundle.files.len()
                )));
            }
        }
        FORMAT_1 => {}
        other => {
            return Err(Error::usage(format!(
                "{}: not a Yam desk bundle (format {other:?}, expected {FORMAT})",
                file.display(),
            )));
        }
    }
    // Check everything before writing anything.
    let mut plan = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for entry in &bundle.files {
        let relative = Path::new(&entry.path);
        if relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
            || relative.as_os_str().is_empty()
        {
            return Err(Error::usage(format!(
                "{}: the entry {:?} leaves the data directory",
                file.display(),
                entry.path
            )));
        }
        if !seen.insert(relative.to_path_buf()) {
            return Err(Error::usage(format!(
                "{}: the entry {:?} is there twice; nothing was imported",
                file.display(),
                entry.path
            )));
        }
        let bytes = STANDARD
            .decode(&entry.base64)
            .map_err(|e| Error::usage(format!("{}: {}: {e}", file.display(), entry.path)))?;
        let target = data.join(relative);
        match std::fs::read(&target) {
            Ok(existing) if existing == bytes => continue,
            Ok(_) => {
                return Err(Error::usage(format!(
                    "{}: exists and differs from the bundle's copy; nothing was imported (move it away to import)",
                    target.display()
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                plan.push((target, bytes, entry.secret, entry.mode));
            }
            // Taken for absent, it was planned, and the import wrote the
            // files before it one by one until this one failed.
            Err(e) => {
                return Err(Error::usage(format!(
                    "{}: cannot be read: {e}; nothing was imported",
                    target.display()
                )));
            }
        }
    }
    // Secrets first, the configuration last.
    let config = data.join("config.yaml");
    plan.sort_by_key(|(target, _, secret, _)| (!*secret, *target == config));
    let secrets = data.join("secrets");
    let count = plan.len();
    for (target, bytes, secret, mode) in plan {
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::usage(format!("{}: {e}", dir.display())))?;
            // Every directory of the secrets the owner's alone, as the
            // desk makes them (not only the file's own).
            #[cfg(unix)]
            if dir.starts_with(&secrets) {
                use std::os::unix::fs::PermissionsExt;
                for private in dir.ancestors().take_while(|d| d.starts_with(&secrets)) {
                    let _ =
                        std::fs::set_permissions(private, std::fs::Permissions::from_mode(0o700));
                }
            }
        }
        if secret {
            replace_private(&target, &bytes)
        } else {
            crate::store::atomic::write(&target, &bytes, false).and_then(|()| {
                // The mode the file had (an earlier Yam's bundle has none:
                // the owner's alone, which never widens who reads it).
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(
                        &target,
                        std::fs::Permissions::from_mode(mode.unwrap_or(0o600) & 0o777),
                    )
                }
                #[cfg(not(unix))]
                {
                    let _ = mode;
                    Ok(())
                }
            })
        }
        .map_err(|e| Error::usage(format!("{}: {e}", target.display())))?;
    }
    Ok(count)
}
