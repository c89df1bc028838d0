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
    #[serde(deserialize_with = "within_budget")]
    path: String,
    secret: bool,
    #[serde(deserialize_with = "within_budget")]
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

thread_local! {
    /// The bytes [`read`]'s strings may still add up to: the bundle's own
    /// length. Strings written out once each never pass it; an alias
    /// hands the deserializer its anchor's string again, and the aliases
    /// [`has_aliases`] cannot see (flow style, `{path: a, base64: *x}`)
    /// would copy a large value thousands of times.
    static BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

/// A string of a bundle entry, counted against [`BUDGET`].
fn within_budget<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let value = String::deserialize(d)?;
    let left = BUDGET.with(std::cell::Cell::get);
    match left.checked_sub(value.len()) {
        Some(rest) => {
            BUDGET.with(|b| b.set(rest));
            Ok(value)
        }
        None => Err(serde::de::Error::custom(ALIASES)),
    }
}

/// Why a bundle whose values add up to more than its text is refused.
const ALIASES: &str = "the bundle uses YAML anchors or aliases, which Yam never writes";

/// How every bundle's text starts (`format: yam-desk-1`, `-2`, ...).
const FORMAT_LINE_START: &str = "format: yam-desk-";

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

fn walk(
    root: &Path,
    dir: &Path,
    mailboxes: &[PathBuf],
    out: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if mailboxes
            .iter()
            .any(|m| path.strip_prefix(root).is_ok_and(|p| p == m))
        {
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // A verified checkpoint and a tip are caches, not part of the
        // desk (so is the read log's summary, `read.idx`): the new machine verifies each game whole once and keeps
        // its own (and two differing caches must never be a clash on
        // import). Files only: a game may be named so.
        let cache = path.is_file()
            && (name == "checkpoint"
                || name == "tip"
                || (name == super::memory::SUMMARY && dir == root));
        // A temporary a killed write left (`.NAME.tmp-PID`, `atomic`):
        // half a file, never part of the desk.
        let temporary = crate::store::atomic::temporary_of(name).is_some();
        let lock = name == ".lock" || name == crate::mail::cards::LOCK;
        if lock || name.starts_with(".tmp") || temporary || cache {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, mailboxes, out)?;
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

/// What an export wrote.
#[derive(Debug)]
pub struct Exported {
    /// How many files the bundle holds.
    pub files: usize,
    /// The mailboxes inside the data directory it left out, relative to it.
    pub left_out: Vec<PathBuf>,
    /// The bundles kept inside the data directory it left out (an earlier
    /// backup, the file being replaced), relative to it.
    pub bundles: Vec<PathBuf>,
}

/// The configured mailboxes (the incoming Maildir and the folder Yam files
/// into, an mbox, the outgoing directory) that lie inside the data
/// directory `root`, relative to it. They hold mail, not the desk: a
/// Maildir inside the data directory (the quick start puts one there)
/// went whole into the bundle, a player's personal mail with it, and a
/// mailbox of gigabytes made a bundle of gigabytes.
fn mailboxes_inside(desk: &Desk, root: &Path) -> Vec<PathBuf> {
    use crate::config::{IncomingConfig, OutgoingConfig};
    let mut paths: Vec<&Path> = Vec::new();
    match &desk.config.incoming {
        Some(IncomingConfig::Maildir { path, file_into }) => {
            paths.push(path);
            paths.extend(file_into.as_deref());
        }
        Some(IncomingConfig::Mbox { path }) => paths.push(path),
        _ => {}
    }
    if let Some(OutgoingConfig::Directory { path }) = &desk.config.outgoing {
        paths.push(path);
    }
    let Ok(root) = std::fs::canonicalize(root) else {
        return Vec::new();
    };
    paths
        .into_iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .filter_map(|p| p.strip_prefix(&root).ok().map(Path::to_path_buf))
        // The data directory itself is never left out.
        .filter(|p| !p.as_os_str().is_empty())
        .collect()
}

/// Writes the bundle of `desk` to `out` (replacing an existing `out` only
/// with `replace`, `--force`); says how many files it holds and which
/// mailboxes inside the data directory it left out.
pub fn export(desk: &Desk, out: &Path, replace: bool) -> Result<Exported, Error> {
    let root = desk.store.root();
    let secrets = desk.store.secrets_dir();
    let mut paths = Vec::new();
    let left_out = mailboxes_inside(desk, root);
    let mut bundles = Vec::new();
    walk(root, root, &left_out, &mut paths)
        .map_err(|e| Error::usage(format!("{}: {e}", root.display())))?;
    paths.sort();
    let mut files = Vec::new();
    for relative in paths {
        let full = root.join(&relative);
        let bytes =
            std::fs::read(&full).map_err(|e| Error::usage(format!("{}: {e}", full.display())))?;
        // A bundle kept beside the desk (a nightly `export -o backup.yaml`
        // there) is no part of it: carried, each bundle would hold every
        // one before it, a third larger a night, and an import would
        // write them all back.
        if bytes.starts_with(FORMAT_LINE_START.as_bytes()) {
            bundles.push(relative);
            continue;
        }
        files.push(BundleFile {
            secret: full.starts_with(&secrets),
            mode: mode_of(&full),
            path: relative,
            bytes,
        });
    }
    let count = files.len();
    let text = write(&files).map_err(|e| Error::usage(e.to_string()))?;
    let put = if replace {
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
    put(out, text.as_bytes()).map_err(|e| Error::usage(format!("{}: {e}", out.display())))?;
    Ok(Exported {
        files: count,
        left_out,
        bundles,
    })
}

/// One file of a bundle, as read: checked, not yet written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleFile {
    /// Its path relative to the data directory: normal components only.
    pub path: PathBuf,
    /// Whether it is a secret (written 0600, its directories 0700).
    pub secret: bool,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its permission bits, when the bundle kept them.
    pub mode: Option<u32>,
}

/// Why a bundle's text is not a bundle to import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BundleFault {
    /// YAML anchors or aliases, which Yam never writes.
    Aliases,
    /// Not YAML of a bundle's shape.
    Yaml(String),
    /// Another format marker.
    Format(String),
    /// A version-2 bundle whose count or digest does not match its entries.
    CutOrAltered {
        /// The entries read.
        entries: usize,
    },
    /// An entry whose path leaves the data directory (or is empty).
    LeavesDirectory(String),
    /// An entry named twice.
    Twice(String),
    /// An entry whose bytes are not base64.
    Base64 {
        /// The entry.
        path: String,
        /// Why.
        why: String,
    },
}

impl std::fmt::Display for BundleFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BundleFault::Aliases => {
                f.write_str("not a bundle Yam wrote (it uses YAML anchors or aliases)")
            }
            BundleFault::Yaml(why) => f.write_str(why),
            BundleFault::Format(found) => write!(
                f,
                "not a Yam desk bundle (format {found:?}, expected {FORMAT})"
            ),
            BundleFault::CutOrAltered { entries } => write!(
                f,
                "the bundle is cut short or altered (its count or digest does not match its {entries} entries): export it again"
            ),
            BundleFault::LeavesDirectory(path) => {
                write!(f, "the entry {path:?} leaves the data directory")
            }
            BundleFault::Twice(path) => write!(f, "the entry {path:?} is there twice"),
            BundleFault::Base64 { path, why } => write!(f, "{path}: {why}"),
        }
    }
}

/// Reads a bundle's text: every check that needs no disk (the format, a
/// whole bundle's count and digest, no aliases, every path once and
/// inside the directory, every file's base64). Bundles come from outside
/// (a backup handed over, a file found on a disk): fuzzed
/// (`cli/fuzz/fuzz_targets/desk_bundle.rs`).
pub fn read(text: &str) -> Result<Vec<BundleFile>, BundleFault> {
    if has_aliases(text) {
        return Err(BundleFault::Aliases);
    }
    BUDGET.with(|b| b.set(text.len()));
    let parsed = serde_yaml_ng::from_str::<Bundle>(text);
    BUDGET.with(|b| b.set(usize::MAX));
    let bundle = parsed.map_err(|e| {
        if e.to_string().contains(ALIASES) {
            BundleFault::Aliases
        } else {
            BundleFault::Yaml(e.to_string())
        }
    })?;
    match bundle.format.as_str() {
        FORMAT => {
            let whole = bundle.count == Some(bundle.files.len())
                && bundle.sha256.as_deref() == Some(digest(&bundle.files).as_str());
            if !whole {
                return Err(BundleFault::CutOrAltered {
                    entries: bundle.files.len(),
                });
            }
        }
        FORMAT_1 => {}
        other => return Err(BundleFault::Format(other.to_owned())),
    }
    let mut files = Vec::with_capacity(bundle.files.len());
    let mut seen = std::collections::HashSet::new();
    for entry in bundle.files {
        let relative = PathBuf::from(&entry.path);
        if relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
            || relative.as_os_str().is_empty()
        {
            return Err(BundleFault::LeavesDirectory(entry.path));
        }
        if !seen.insert(relative.clone()) {
            return Err(BundleFault::Twice(entry.path));
        }
        let bytes = STANDARD
            .decode(&entry.base64)
            .map_err(|e| BundleFault::Base64 {
                path: entry.path.clone(),
                why: e.to_string(),
            })?;
        files.push(BundleFile {
            path: relative,
            secret: entry.secret,
            bytes,
            mode: entry.mode,
        });
    }
    Ok(files)
}

/// The text of a version-2 bundle of `files` (what `export` writes).
pub fn write(files: &[BundleFile]) -> Result<String, serde_yaml_ng::Error> {
    let entries: Vec<Entry> = files
        .iter()
        .map(|f| Entry {
            path: f.path.to_string_lossy().replace('\\', "/"),
            secret: f.secret,
            base64: STANDARD.encode(&f.bytes),
            mode: f.mode,
        })
        .collect();
    let sha256 = digest(&entries);
    serde_yaml_ng::to_string(&Bundle {
        format: FORMAT.into(),
        count: Some(entries.len()),
        files: entries,
        sha256: Some(sha256),
    })
}

/// Restores the bundle `file` into the data directory `data`; returns how
/// many files were written. Everything is checked before anything is
/// written ([`read`], then every file absent or the same); then the
/// secrets are written first and `config.yaml` last, so an import cut off
/// (a full disk, a kill) leaves no configuration without its key (a desk
/// that found one drew a new key, and the import run again was refused on
/// it), and run again it finishes.
pub fn import(data: &Path, file: &Path) -> Result<usize, Error> {
    // A desk never lands in a robot's store (the two default to one
    // directory): every desk command would refuse it after, and the robot
    // would run on a store holding a player's key.
    if crate::store::owner(data) == Some(crate::store::Owner::Robot) {
        return Err(Error::usage(format!(
            "{}: this is a referee robot's store (robot/), not a desk: import the desk into a data directory of its own (--data-dir, $YAM_DATA_DIR); nothing was imported",
            data.display()
        )));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::usage(format!("{}: {e}", file.display())))?;
    let files = read(&text).map_err(|fault| {
        Error::usage(format!("{}: {fault}; nothing was imported", file.display()))
    })?;
    // Check everything before writing anything.
    let mut plan = Vec::new();
    for BundleFile {
        path: relative,
        secret,
        bytes,
        mode,
    } in files
    {
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
                plan.push((target, bytes, secret, mode));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<BundleFile> {
        vec![
            BundleFile {
                path: "config.yaml".into(),
                secret: false,
                bytes: b"identity: {}\n".to_vec(),
                mode: Some(0o600),
            },
            BundleFile {
                path: "secrets/identities/ann.seed".into(),
                secret: true,
                bytes: vec![7; 32],
                mode: None,
            },
        ]
    }

    /// A bundle reads back as written; cut anywhere before its end, or
    /// with a byte of a file changed, it is refused.
    #[test]
    fn a_bundle_reads_back_whole_and_a_cut_or_altered_one_is_refused() {
        let text = write(&files()).unwrap();
        assert_eq!(read(&text), Ok(files()));
        for cut in text.match_indices('\n').map(|(i, _)| i + 1) {
            if cut < text.len() {
                assert!(
                    read(&text[..cut]).is_err(),
                    "cut at {cut}:\n{}",
                    &text[..cut]
                );
            }
        }
        let altered = text.replacen("aWRlbnRpdHk6IHt9Cg==", "aWRlbnRpdHk6IHt8Cg==", 1);
        assert_ne!(altered, text);
        assert!(matches!(
            read(&altered),
            Err(BundleFault::CutOrAltered { .. })
        ));
    }

    /// An earlier Yam's bundle (no count, digest nor modes) is read; a
    /// file named twice, a path out of the directory and aliases are not.
    #[test]
    fn an_earlier_bundle_is_read_and_hostile_ones_are_refused() {
        let earlier = "format: yam-desk-1\nfiles:\n- path: config.yaml\n  secret: false\n  base64: aWRlbnRpdHk6IHt9Cg==\n";
        assert_eq!(read(earlier).unwrap()[0].bytes, b"identity: {}\n");
        let twice = format!("{earlier}- path: config.yaml\n  secret: false\n  base64: ''\n");
        assert_eq!(read(&twice), Err(BundleFault::Twice("config.yaml".into())));
        let out = earlier.replace("config.yaml", "../config.yaml");
        assert!(matches!(read(&out), Err(BundleFault::LeavesDirectory(_))));
        let aliased = "format: yam-desk-1\nfiles:\n- path: a\n  secret: false\n  base64: &x QUFB\n- path: b\n  secret: false\n  base64: *x\n";
        assert_eq!(read(aliased), Err(BundleFault::Aliases));
    }
}
