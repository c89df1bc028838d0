//! Writing a file so that a crash leaves either the old or the new
//! contents, never half of one: a temporary file in the same directory,
//! flushed to disk, then renamed over the target. Caches, whose readers
//! refuse anything but a whole sealed file, are written over in place
//! instead ([`write_cache`]).

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `contents` to `path` atomically; with `replace` false, refuses
/// an existing `path`.
pub fn write(path: &Path, contents: &[u8], replace: bool) -> io::Result<()> {
    if !replace && path.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "the file exists (use --force to replace it)",
        ));
    }
    let path = &replaced(path);
    let dir = dir_of(path);
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
    for (path, contents) in files {
        replace_unsynced(path, dir_of(path), contents)?;
    }
    sync_dirs(files.iter().map(|(p, _)| *p))
}

/// Files renamed into place whose names are not yet durable: the first
/// barrier of the next [`write_group_after`] makes them so, together with
/// that group's contents, or [`Unsynced::durable`] does alone. This is
/// how a group of files that must be durable before the next group is
/// renamed into place (the robot's plans, before the files they write)
/// shares a barrier with it: the next group's files are renamed only
/// after that barrier, so the order holds. Dropped before either, it
/// makes them durable itself.
#[derive(Debug)]
pub struct Unsynced {
    dirs: BTreeSet<PathBuf>,
}

impl Unsynced {
    /// Makes the renames durable: one barrier. On an error they are still
    /// to be made durable.
    pub fn durable(&mut self) -> io::Result<()> {
        barrier_dirs(self.dirs.iter().map(PathBuf::as_path).collect(), &[])?;
        self.dirs.clear();
        Ok(())
    }
}

impl Drop for Unsynced {
    fn drop(&mut self) {
        if !self.dirs.is_empty() {
            let _ = barrier_dirs(self.dirs.iter().map(PathBuf::as_path).collect(), &[]);
        }
    }
}

/// Writes each of `files` atomically, as [`write_many`], for many files
/// at once (the robot's group commit): every temporary file is written,
/// then made durable by one barrier, together with the renames of
/// `earlier`, then all are renamed. This group's renames are left for the
/// caller to make durable: they are put in `earlier`, for the next
/// group's barrier or [`Unsynced::durable`]. Each file is either old or
/// new after a crash, as with [`write`]; none is renamed before every
/// contents, and every rename of `earlier`, is on disk. `earlier` is
/// taken only once its renames are durable, so on an error it is still
/// there to be made durable some other way. On Linux a barrier is one
/// `syncfs(2)` of the file system the files are on, whatever their
/// number; elsewhere it syncs each file, then each directory.
pub fn write_group_after(
    earlier: &mut Option<Unsynced>,
    files: &[(&Path, &[u8])],
) -> io::Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let temps: Vec<PathBuf> = files
        .iter()
        .map(|(path, _)| temp_path(path, dir_of(path)))
        .collect();
    let written = (|| {
        for ((_, contents), temp) in files.iter().zip(&temps) {
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(temp)?;
            file.write_all(contents)?;
        }
        let temp_paths: Vec<&Path> = temps.iter().map(PathBuf::as_path).collect();
        let mut dirs: BTreeSet<&Path> = temp_paths.iter().map(|p| dir_of(p)).collect();
        if let Some(before) = earlier.as_ref() {
            dirs.extend(before.dirs.iter().map(PathBuf::as_path));
        }
        barrier_dirs(dirs, &temp_paths)?;
        if let Some(mut before) = earlier.take() {
            before.dirs.clear();
        }
        for ((path, _), temp) in files.iter().zip(&temps) {
            fs::rename(temp, path)?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        for temp in &temps {
            let _ = fs::remove_file(temp);
        }
        return Err(e);
    }
    *earlier = Some(Unsynced {
        dirs: files.iter().map(|(p, _)| dir_of(p).to_owned()).collect(),
    });
    Ok(())
}

/// Creates each of `paths` as an empty file (a marker: it is there or
/// not, with no contents a crash could lose), and makes them durable with
/// one barrier, as [`Unsynced::durable`] does.
pub fn mark_group(paths: &[&Path]) -> io::Result<()> {
    if paths.is_empty() {
        return Ok(());
    }
    for path in paths {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
    }
    barrier(paths.iter().copied(), false)
}

/// Makes durable what was written to `paths` (their contents, when
/// `contents`) and their names in their directories.
fn barrier<'a>(paths: impl Iterator<Item = &'a Path> + Clone, contents: bool) -> io::Result<()> {
    let dirs: BTreeSet<&Path> = paths.clone().map(dir_of).collect();
    let files: Vec<&Path> = if contents {
        paths.collect()
    } else {
        Vec::new()
    };
    barrier_dirs(dirs, &files)
}

/// Makes durable the names in `dirs` and the contents of `files`: on
/// Linux one `syncfs(2)` of each file system they are on (which flushes
/// every file and directory of it at once), elsewhere a sync of each of
/// `files`, then of each directory.
fn barrier_dirs(dirs: BTreeSet<&Path>, files: &[&Path]) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let _ = files;
        use std::os::unix::fs::MetadataExt;
        // Each directory is looked at once, however many of the files
        // are in it (a group's plans all share the journal's).
        let mut devices: Vec<u64> = Vec::new();
        for dir in dirs {
            let device = fs::metadata(dir)?.dev();
            if !devices.contains(&device) {
                devices.push(device);
                rustix::fs::syncfs(fs::File::open(dir)?).map_err(io::Error::from)?;
            }
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        for file in files {
            fs::File::open(file)?.sync_all()?;
        }
        #[cfg(unix)]
        for dir in dirs {
            fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    }
}

/// Syncs, once each, the directories the files of `paths` are in.
fn sync_dirs<'a>(paths: impl Iterator<Item = &'a Path>) -> io::Result<()> {
    let mut dirs: Vec<&Path> = Vec::new();
    for path in paths {
        let dir = dir_of(path);
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

/// A file written piece by piece and put in place atomically: the bytes go
/// to a temporary file in the same directory, and [`Replacing::commit`]
/// flushes it to disk and renames it over the target. Dropped without a
/// commit, the temporary is removed and the target left as it was.
#[derive(Debug)]
pub struct Replacing {
    path: PathBuf,
    temp: PathBuf,
    file: Option<io::BufWriter<fs::File>>,
}

impl Replacing {
    /// Starts writing `path`; with `replace` false, refuses an existing
    /// `path` before anything is written.
    pub fn create(path: &Path, replace: bool) -> io::Result<Replacing> {
        if !replace && path.exists() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "the file exists (use --force to replace it)",
            ));
        }
        let path = &replaced(path);
        let temp = temp_path(path, dir_of(path));
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)?;
        if let Err(e) = keep_mode(&file, path) {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        Ok(Replacing {
            path: path.to_owned(),
            temp,
            file: Some(io::BufWriter::new(file)),
        })
    }

    /// Flushes the bytes to disk and puts the file in place.
    pub fn commit(mut self) -> io::Result<()> {
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        let result = (|| {
            let file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
            file.sync_all()?;
            drop(file);
            fs::rename(&self.temp, &self.path)?;
            #[cfg(unix)]
            fs::File::open(dir_of(&self.path))?.sync_all()?;
            Ok(())
        })();
        if result.is_err() {
            let _ = fs::remove_file(&self.temp);
        }
        result
    }
}

impl Write for Replacing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(file) => file.write(buf),
            None => Err(io::Error::other("the file is already committed")),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.file {
            Some(file) => file.write_all(buf),
            None => Err(io::Error::other("the file is already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for Replacing {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// The file a write to `path` replaces: the file a symbolic link there
/// names (its directory takes the temporary), so that the user's link
/// stays a link and the file it names is the one written; `path` itself
/// otherwise, or when the link names nothing that exists. Renamed over the
/// link, a new file took the link's place and left the file it named as
/// it was (`select_fmt::fmt_in_place_through_a_symbolic_link_rewrites_the_file_it_names`,
/// found by an attacker helper).
fn replaced(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
        }
        _ => path.to_owned(),
    }
}

/// Gives `temp`, the temporary that replaces `path`, the permissions of
/// the file it replaces, if any: a record its owner made private (0600)
/// stays private, where the new file took the default mode (0644)
/// (`select_fmt::fmt_in_place_keeps_the_files_permissions`). A new file
/// keeps the default.
fn keep_mode(temp: &fs::File, path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    if let Ok(old) = fs::metadata(path) {
        use std::os::unix::fs::PermissionsExt;
        // The permission bits only: a set-user-id bit is not carried to
        // new contents, as a plain write by its owner would clear it.
        let mode = old.permissions().mode() & 0o777;
        if temp.metadata()?.permissions().mode() & 0o7777 != mode {
            temp.set_permissions(fs::Permissions::from_mode(mode))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (temp, path);
    Ok(())
}

/// The directory a file is written in.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The temporary file `path` is written to first, in `dir`.
fn temp_path(path: &Path, dir: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "record".into());
    dir.join(temporary_name(&name, std::process::id()))
}

/// Writes a cache file (one whose loss costs only time, such as a verified
/// checkpoint or a tip): readable by its owner only, not synced, and
/// written over in place. A reader may find it half written, and after a
/// crash it may be old, empty, garbled or a mix of old and new: its reader
/// must take anything but a whole, sealed file as no cache (a tip's seal,
/// a checkpoint's seal over the record's signatures).
///
/// In place, not through a new file renamed over the old: a cache is
/// rewritten at every turn (a tip and a checkpoint per stored game), and
/// a new file and a rename each time cost the desk's `yam read` 0.12 to
/// 0.23 ms of CPU a turn on the development machine, at ply 10 as at ply
/// 300 (a new inode, a directory entry replaced, the old file's pages
/// freed and new ones taken), where writing over the file keeps its
/// pages (`docs/performance.md`, "The twenty-third step").
pub fn write_cache(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_cache_with(path, |file| file.write_all(contents).map(|()| true)).map(|_| ())
}

/// As [`write_cache`], the contents written by `write` as it makes them
/// (a cache too large to hold whole for nothing, such as a tip), from the
/// start of the file; what the old file held beyond them is cut off. If
/// `write` answers `false` (it has nothing to keep) or fails, the file is
/// removed, since its bytes are no longer the old cache's, and `Ok(false)`
/// or the error is returned.
///
/// The file written over is only ever a regular file of the owner's
/// alone, under this one name: anything else found at `path` (a symbolic
/// or hard link to another file, which would be written through; a file
/// others may read, or its owner may not write; a device or a pipe) is
/// removed first and a new file made, as the rename did.
pub fn write_cache_with(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> io::Result<bool>,
) -> io::Result<bool> {
    let mut file = open_cache(path)?;
    let result = (|| {
        if !write(&mut file)? {
            return Ok(false);
        }
        let end = io::Seek::stream_position(&mut file)?;
        file.set_len(end)?;
        Ok(true)
    })();
    if !matches!(result, Ok(true)) {
        drop(file);
        let _ = fs::remove_file(path);
    }
    result
}

/// The cache file at `path`, opened to be written over from its start
/// (made if there is none); see [`write_cache_with`].
fn open_cache(path: &Path) -> io::Result<fs::File> {
    let mut options = OpenOptions::new();
    // Not truncated: the file keeps its pages; `write_cache_with` cuts
    // what is left of the old contents once the new are written.
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        options.mode(0o600);
        // Never written through a symbolic link put in the file's place,
        // and never left waiting on a pipe put there (a regular file is
        // written as without the flag).
        let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
        options.custom_flags(flags.bits() as i32);
        // A regular file under this one name, that its owner may write and
        // no one else may read or write (mode 0600, as made here).
        let own = |meta: &fs::Metadata| {
            meta.file_type().is_file() && meta.nlink() == 1 && meta.mode() & 0o277 == 0o200
        };
        match fs::symlink_metadata(path) {
            Ok(meta) if !own(&meta) => fs::remove_file(path)?,
            _ => {}
        }
        let file = options.open(path)?;
        if own(&file.metadata()?) {
            return Ok(file);
        }
        // Something else was put there since: not written over.
        drop(file);
        fs::remove_file(path)?;
        options.clone().create_new(true).open(path)
    }
    #[cfg(not(unix))]
    options.open(path)
}

/// The file written to a temporary, flushed and renamed over `path`; the
/// rename is not yet synced.
fn replace_unsynced(path: &Path, dir: &Path, contents: &[u8]) -> io::Result<()> {
    let temp = temp_path(path, dir);
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)?;
        keep_mode(&file, path)?;
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
    fn a_replacing_file_appears_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.yam");
        fs::write(&path, b"old").unwrap();
        assert_eq!(
            Replacing::create(&path, false).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        let mut w = Replacing::create(&path, true).unwrap();
        w.write_all(b"new ").unwrap();
        w.write_all(b"text").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"old");
        w.commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new text");
        // Dropped unfinished: the target stays, no temporary is left.
        let mut w = Replacing::create(&path, true).unwrap();
        w.write_all(b"half").unwrap();
        drop(w);
        assert_eq!(fs::read(&path).unwrap(), b"new text");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_is_written_over_in_place_and_removed_when_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tip");
        write_cache(&path, b"an old and longer tip").unwrap();
        let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&fs::metadata(p).unwrap());
        let first = inode(&path);
        // Kept: written in pieces over the old file, whose longer tail is
        // cut off; the same file (no new one renamed over it).
        let kept = write_cache_with(&path, |file| {
            file.write_all(b"new ")?;
            file.write_all(b"tip")?;
            Ok(true)
        });
        assert!(kept.unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"new tip");
        assert_eq!(inode(&path), first);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        // Nothing to keep: the file was being written over, so it goes.
        let kept = write_cache_with(&path, |file| file.write_all(b"half").map(|()| false));
        assert!(!kept.unwrap());
        assert!(!path.exists());
        // A failure midway: likewise, and the error is the writer's.
        write_cache(&path, b"old").unwrap();
        let failed = write_cache_with(&path, |file| {
            file.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "disk full");
        assert!(!path.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_is_never_written_through_another_name() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("someone's file");
        let mode = |p: &Path| fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777;
        // A symbolic link in the cache's place: the link goes, its target
        // is untouched, a file of the owner's alone is made.
        fs::write(&other, b"keep me").unwrap();
        let path = dir.path().join("tip");
        std::os::unix::fs::symlink(&other, &path).unwrap();
        write_cache(&path, b"tip").unwrap();
        assert_eq!(fs::read(&other).unwrap(), b"keep me");
        assert!(fs::symlink_metadata(&path).unwrap().file_type().is_file());
        assert_eq!(fs::read(&path).unwrap(), b"tip");
        assert_eq!(mode(&path), 0o600);
        // A hard link: the same.
        fs::remove_file(&path).unwrap();
        fs::hard_link(&other, &path).unwrap();
        write_cache(&path, b"tip").unwrap();
        assert_eq!(fs::read(&other).unwrap(), b"keep me");
        assert_eq!(fs::read(&path).unwrap(), b"tip");
        // A file others may read (restored from a backup, say): replaced
        // by one of the owner's alone.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        write_cache(&path, b"tip again").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"tip again");
        assert_eq!(mode(&path), 0o600);
        // A file its owner may not write (a backup restored read-only):
        // replaced, as the rename replaced it.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o400)).unwrap();
        write_cache(&path, b"tip").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"tip");
        assert_eq!(mode(&path), 0o600);
        // A pipe: removed, not waited on (no reader would ever come).
        fs::remove_file(&path).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_bits_truncate(0o600),
            0,
        )
        .unwrap();
        write_cache(&path, b"tip").unwrap();
        assert!(fs::symlink_metadata(&path).unwrap().file_type().is_file());
        assert_eq!(fs::read(&path).unwrap(), b"tip");
    }

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
    fn marks_a_group_as_empty_files() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.done"), dir.path().join("b.done"));
        fs::write(&a, b"left").unwrap();
        mark_group(&[&a, &b]).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"");
        assert_eq!(fs::read(&b).unwrap(), b"");
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

    #[test]
    fn writes_a_group_whole_or_not_at_all_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        write(&a, b"old", false).unwrap();
        let mut renamed = None;
        write_group_after(&mut renamed, &[(&a, b"one"), (&b, b"two")]).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"one");
        assert_eq!(fs::read(&b).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
        // One that cannot be written (its folder is missing): nothing is
        // renamed, and the others' temporaries are removed too.
        let c = dir.path().join("missing").join("c");
        let mut none = None;
        assert!(write_group_after(&mut none, &[(&a, b"three"), (&c, b"four")]).is_err());
        assert!(none.is_none());
        assert_eq!(fs::read(&a).unwrap(), b"one");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
        renamed.unwrap().durable().unwrap();
    }

    /// The renames of one group are made durable by the next group's
    /// first barrier: taken from `earlier` once it has passed, and left
    /// there when the next group fails before it.
    #[test]
    fn a_groups_renames_are_made_durable_by_the_next_groups_barrier_or_kept() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("journal");
        let game = dir.path().join("game");
        fs::create_dir_all(&journal).unwrap();
        fs::create_dir_all(&game).unwrap();
        let plan = journal.join("k.plan");
        let mut earlier = None;
        write_group_after(&mut earlier, &[(&plan, b"plan")]).unwrap();
        let dirs = |u: &Option<Unsynced>| u.as_ref().map(|u| u.dirs.clone());
        assert_eq!(dirs(&earlier), Some(BTreeSet::from([journal.clone()])));
        // A group that fails before its barrier: the plans' renames are
        // still to be made durable.
        let missing = dir.path().join("missing").join("record.yam");
        assert!(write_group_after(&mut earlier, &[(&missing, b"x")]).is_err());
        assert_eq!(dirs(&earlier), Some(BTreeSet::from([journal.clone()])));
        // The files' group: its barrier covers the plans, and what is left
        // to make durable is its own renames.
        let record = game.join("record.yam");
        write_group_after(&mut earlier, &[(&record, b"record")]).unwrap();
        assert_eq!(dirs(&earlier), Some(BTreeSet::from([game.clone()])));
        assert_eq!(fs::read(&record).unwrap(), b"record");
        let mut files = earlier.take().unwrap();
        files.durable().unwrap();
        assert!(files.dirs.is_empty(), "durable, nothing left for its drop");
        // An empty group changes nothing, and takes nothing.
        let mut kept = Some(Unsynced {
            dirs: BTreeSet::from([journal.clone()]),
        });
        write_group_after(&mut kept, &[]).unwrap();
        assert!(kept.is_some());
    }
}
