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
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "record".into());
    let temp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)?;
        file.write_all(contents)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)?;
        // Make the rename itself durable.
        #[cfg(unix)]
        fs::File::open(dir)?.sync_all()?;
        Ok(())
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
}
