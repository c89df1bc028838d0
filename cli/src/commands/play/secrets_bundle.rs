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

/// The bundle's format marker.
const FORMAT: &str = "yam-desk-1";

#[derive(Debug, Serialize, Deserialize)]
struct Bundle {
    format: String,
    files: Vec<Entry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    path: String,
    secret: bool,
    base64: String,
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
        if name == ".lock" || name.starts_with(".tmp") || cache {
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
        });
    }
    let count = files.len();
    let text = serde_yaml_ng::to_string(&Bundle {
        format: FORMAT.into(),
        files,
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
/// many files were written.
pub fn import(data: &Path, file: &Path) -> Result<usize, Error> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::usage(format!("{}: {e}", file.display())))?;
    let bundle: Bundle = serde_yaml_ng::from_str(&text)
        .map_err(|e| Error::usage(format!("{}: {e}", file.display())))?;
    if bundle.format != FORMAT {
        return Err(Error::usage(format!(
            "{}: not a Yam desk bundle (format {:?}, expected {FORMAT})",
            file.display(),
            bundle.format
        )));
    }
    // Check everything before writing anything.
    let mut plan = Vec::new();
    for entry in &bundle.files {
        let relative = Path::new(&entry.path);
        if relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err(Error::usage(format!(
                "{}: the entry {:?} leaves the data directory",
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
                plan.push((target, bytes, entry.secret));
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
    let count = plan.len();
    for (target, bytes, secret) in plan {
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::usage(format!("{}: {e}", dir.display())))?;
            #[cfg(unix)]
            if secret {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
            }
        }
        if secret {
            write_private(&target, &bytes)
        } else {
            crate::store::atomic::write(&target, &bytes, false)
        }
        .map_err(|e| Error::usage(format!("{}: {e}", target.display())))?;
    }
    Ok(count)
}
