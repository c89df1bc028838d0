//! Writing a file so that a crash leaves either the old or the new
//! contents, never half of one: a temporary file in the same directory,
//! flushed to disk, then renamed over the target.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Writes `contents` to `path` atomically; with `replace` false, refuses
/// an existing `path`.
pub fn write(path: &Path, contents: &[u8], replace: bool) -> io::Result<()> {
    if !replace && path.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "the file exists (use --force to replace it)",
        ));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    replace_unsynced(path, dir, contents)?;
    // Make the rename itself durable.
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    Ok(())
}

/// Writes each of `files` atomically, as [`write`] with `replace`, but
/// makes the renames durable with one sync of each directory at the end
/// rather than one per file: each file is still either old or new after a
/// crash, only no longer in the order given. For files that need no order
/// between them (a game's record and its bookkeeping).
pub fn write_many(files: &[(&Path, &[u8])]) -> io::Result<()> {
    let mut dirs: Vec<&Path> = Vec::new();
    for (path, contents) in files {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        replace_unsynced(path, dir, contents)?;
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    #[cfg(unix)]
    for dir in dirs {
        fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// The name of the temporary file that becomes `name`, written by process
/// `pid`.
fn temporary_name(name: &str, pid: u32) -> String {
    format!(".{name}.tmp-{pid}")
}

/// The process that wrote the temporary file `name`, when it is one (what a
/// process killed between writing and renaming leaves behind).
pub fn temporary_of(name: &str) -> Option<u32> {
    let (rest, pid) = name.strip_prefix('.')?.rsplit_once(".tmp-")?;
    let pid = pid.parse().ok().filter(|_| !rest.is_empty())?;
    (temporary_name(rest, pid) == name).then_some(pid)
}

/// The file written to a temporary, flushed and renamed over `path`; the
/// rename is not yet synced.
fn replace_unsynced(path: &Path, dir: &Path, contents: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "record".into());
    let temp = dir.join(temporary_name(&name, std::process::id()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)?;
        file.write_all(contents)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replaces_only_when_asked_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("yam-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.yam");
        let _ = fs::remove_file(&path);
        write(&path, b"one", false).unwrap();
        assert_eq!(
            write(&path, b"two", false).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        write(&path, b"two", true).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let leftovers = fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_temporary_file_is_known_by_its_name() {
        assert_eq!(temporary_of(&temporary_name("record.yam", 42)), Some(42));
        assert_eq!(temporary_of(".k.plan.tmp-7"), Some(7));
        for name in [
            "record.yam",
            ".lock",
            ".x.tmp-",
            ".x.tmp-12a",
            "x.tmp-3",
            "..tmp-3",
        ] {
            assert_eq!(temporary_of(name), None, "{name}");
        }
    }

    #[test]
    fn writes_many_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        write(&a, b"old", false).unwrap();
        write_many(&[(&a, b"one"), (&b, b"two")]).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"one");
        assert_eq!(fs::read(&b).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
