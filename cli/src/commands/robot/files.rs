//! The robot's files are its own: its data directory and everything in it
//! readable by the robot's user only (folders 0700, files 0600: records,
//! plans and markers, players, counts, the lock), and no temporary file of
//! a killed run left behind.
//!
//! Every file and folder the robot creates is private from the start (a
//! umask of 077 for the whole process, so nothing is ever readable by
//! others, not even a temporary file for the moment before its rename). A
//! store written by an earlier build, with looser modes, is tightened once
//! at start, and the log says so.

use std::io;
use std::path::{Path, PathBuf};

use crate::store::atomic;

/// From now on, whatever this process creates is its user's alone.
pub fn private_from_now() {
    #[cfg(unix)]
    rustix::process::umask(rustix::fs::Mode::from_bits_truncate(0o077));
}

/// What [`tidy`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tidied {
    /// Files and folders others could read, made private.
    pub tightened: usize,
    /// Temporary files of killed runs, removed.
    pub temporaries: usize,
}

/// The robot's note that its last run ended cleanly (`robot/ended`):
/// present, the next start need not walk the store ([`tidy`]).
#[derive(Debug)]
pub struct EndedCleanly {
    path: PathBuf,
}

impl EndedCleanly {
    /// The note of the store at `root`.
    pub fn of(root: &Path) -> EndedCleanly {
        EndedCleanly {
            path: root.join("robot").join("ended"),
        }
    }

    /// Whether the last run ended cleanly; the note is taken away, durably
    /// (a run killed from now on leaves none, and the next start walks the
    /// store).
    pub fn take(&self) -> bool {
        if std::fs::remove_file(&self.path).is_err() {
            return false;
        }
        let synced = self
            .path
            .parent()
            .is_some_and(|dir| std::fs::File::open(dir).and_then(|d| d.sync_all()).is_ok());
        // Not durable: as if it had not been there.
        synced
    }

    /// This run ends cleanly (not synced: lost, it costs one walk).
    pub fn mark(&self) {
        let _ = std::fs::File::create(&self.path);
    }
}

/// At start, with the store's lock held (so no other robot writes in it):
/// makes everything under `root` private, and removes the temporary files
/// that atomic writes of killed runs left. The data directory itself may
/// be a symbolic link (a store put on a larger disk): what it points to is
/// the store, a folder, made 0700. Links inside it are neither followed nor
/// changed.
pub fn tidy(root: &Path) -> io::Result<Tidied> {
    let mut done = Tidied::default();
    let mut folders = vec![root.to_path_buf()];
    let own = std::process::id();
    while let Some(folder) = folders.pop() {
        // The root's own metadata through a link: the link's (0777, not a
        // folder) gave the folder it points to a file's 0600, through the
        // link, at every start: a store its owner could no longer enter.
        let meta = if folder == root {
            std::fs::metadata(&folder)?
        } else {
            std::fs::symlink_metadata(&folder)?
        };
        tighten(&folder, &meta, &mut done)?;
        for entry in std::fs::read_dir(&folder)? {
            let entry = entry?;
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path)?;
            if meta.is_dir() {
                folders.push(path);
            } else if meta.is_file() {
                let pid = entry.file_name().to_str().and_then(atomic::temporary_of);
                if pid.is_some_and(|p| p != own) {
                    std::fs::remove_file(&path)?;
                    done.temporaries += 1;
                } else {
                    tighten(&path, &meta, &mut done)?;
                }
            }
        }
    }
    Ok(done)
}

#[cfg(unix)]
fn tighten(path: &Path, meta: &std::fs::Metadata, done: &mut Tidied) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 == 0 {
        return Ok(());
    }
    let private = if meta.is_dir() { 0o700 } else { 0o600 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(private))?;
    done.tightened += 1;
    Ok(())
}

#[cfg(not(unix))]
fn tighten(_: &Path, _: &std::fs::Metadata, _: &mut Tidied) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn an_open_store_is_made_private_and_left_temporaries_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("data");
        std::fs::create_dir_all(root.join("games/g")).unwrap();
        std::fs::create_dir_all(root.join("robot/journal")).unwrap();
        let record = root.join("games/g/record.yam");
        std::fs::write(&record, "r").unwrap();
        let temp = root.join("robot/journal/.k.plan.tmp-1");
        std::fs::write(&temp, "half").unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "o").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("games/link")).unwrap();
        for p in [&root, &root.join("games"), &root.join("games/g")] {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::set_permissions(&record, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o644)).unwrap();
        let done = tidy(&root).unwrap();
        assert_eq!(done.temporaries, 1);
        assert!(!temp.exists());
        assert!(done.tightened >= 4, "{done:?}");
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&root.join("games/g")), 0o700);
        assert_eq!(mode(&record), 0o600);
        assert_eq!(mode(&outside), 0o644, "a link is not followed");
        assert_eq!(tidy(&root).unwrap(), Tidied::default(), "once");
    }
}
