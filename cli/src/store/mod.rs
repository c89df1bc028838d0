//! The local store: where a player's games live between mails.
//!
//! ```text
//! DATA/                      $YAM_DATA_DIR, else $XDG_DATA_HOME/yam, else ~/.local/share/yam
//!   secrets/                 signing seeds and chain secrets (mode 0700, files 0600)
//!   games/<game id>/
//!     record.yam             the game's record, as verified
//!     .lock                  held while the game changes
//! ```
//!
//! Every write is atomic (a temporary file, fsync, rename: see `atomic`), and
//! a game is locked (an OS file lock) while it changes, so two `yam`
//! processes, or a crash at any moment, never leave a half-written game.

pub mod atomic;
pub mod read;

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// The data directory to use when none is named.
pub fn default_data_dir() -> PathBuf {
    if let Some(path) = std::env::var_os("YAM_DATA_DIR") {
        return PathBuf::from(path);
    }
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("yam")
}

/// Whose data directory `root` already is, by what only that kind of
/// store writes. A desk and a robot both default to the same directory
/// (`$YAM_DATA_DIR`, else `~/.local/share/yam`): a robot started without
/// `data:` on a player's machine took the desk's directory for its store,
/// made its files its own and removed the temporary files of the desk's
/// writes under way, and the two read each other's games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A player's desk; the file that shows it.
    Desk(&'static str),
    /// A referee robot's store (its `robot/` folder).
    Robot,
}

/// Whose data directory `root` is, if anyone's yet.
pub fn owner(root: &Path) -> Option<Owner> {
    if root.join("robot").is_dir() {
        return Some(Owner::Robot);
    }
    for mark in ["contacts.yaml", "read.log", "pending"] {
        if std::fs::symlink_metadata(root.join(mark)).is_ok() {
            return Some(Owner::Desk(mark));
        }
    }
    // A desk's configuration kept in its data directory (the default
    // place), before it has read anything.
    let desk_config = std::fs::read_to_string(root.join("config.yaml"))
        .is_ok_and(|text| names_an_identity(&text));
    desk_config.then_some(Owner::Desk("config.yaml"))
}

/// Whether a configuration's text has a top-level `identity:`, as a desk's
/// does: read as YAML (quoted or flow-style keys, a byte order mark an
/// editor wrote, all of which a desk reads), or, for a text that is not
/// YAML, line by line.
fn names_an_identity(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}');
    match serde_yaml_ng::from_str::<serde_yaml_ng::Value>(text) {
        Ok(serde_yaml_ng::Value::Mapping(map)) => map.contains_key("identity"),
        Ok(_) => false,
        Err(_) => text.lines().any(|l| l.starts_with("identity:")),
    }
}

/// The folder, among the games, that indexes the games with mail waiting
/// to be sent (no game's folder starts with '.').
const WAITING: &str = ".waiting";

/// In [`WAITING`]: the index is complete (written once every game was
/// looked at; a store of an earlier build has no index yet).
const INDEXED: &str = ".indexed";

/// Notes in the index of games with mail waiting whether the game whose
/// folder is `game_dir` has some. A marker made is made durable (the index
/// must never miss a waiting mail after a crash); one removed is not (a
/// stale marker costs a look).
pub fn note_waiting(game_dir: &Path, waiting: bool) -> io::Result<()> {
    let (Some(games), Some(name)) = (game_dir.parent(), game_dir.file_name()) else {
        return Ok(());
    };
    let dir = games.join(WAITING);
    let marker = dir.join(name);
    if !waiting {
        return match std::fs::remove_file(&marker) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    if std::fs::symlink_metadata(&marker).is_ok() {
        return Ok(());
    }
    if std::fs::symlink_metadata(&dir).is_err() {
        std::fs::create_dir_all(&dir)?;
        #[cfg(unix)]
        File::open(games)?.sync_all()?;
    }
    File::create(&marker)?;
    #[cfg(unix)]
    File::open(&dir)?.sync_all()?;
    Ok(())
}

/// A data directory.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

/// Why the store refused.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A game id that cannot name a folder.
    #[error(
        "{0:?} cannot be a game id (a game id holds only letters, digits, '-', '_' and '.', and does not start with '.')"
    )]
    BadId(String),
    /// No such game.
    #[error("there is no game {0} in this store")]
    NoGame(String),
    /// The game exists already.
    #[error("the game {0} exists already")]
    Exists(String),
    /// The file system failed.
    #[error("{0}: {1}")]
    Io(String, io::Error),
}

/// A game, locked for as long as this value lives.
#[derive(Debug)]
pub struct LockedGame {
    dir: PathBuf,
    // Held for its lock; released when dropped.
    _lock: File,
}

impl Store {
    /// Open (and create) the store at `root`.
    pub fn open(root: &Path) -> Result<Store, StoreError> {
        let games = root.join("games");
        std::fs::create_dir_all(&games)
            .map_err(|e| StoreError::Io(games.display().to_string(), e))?;
        Ok(Store {
            root: root.to_path_buf(),
        })
    }

    /// The store's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The secrets directory.
    pub fn secrets_dir(&self) -> PathBuf {
        self.root.join("secrets")
    }

    /// The ids of the games in the store, sorted.
    pub fn games(&self) -> Result<Vec<String>, StoreError> {
        let dir = self.root.join("games");
        let mut ids = Vec::new();
        for entry in
            std::fs::read_dir(&dir).map_err(|e| StoreError::Io(dir.display().to_string(), e))?
        {
            let entry = entry.map_err(|e| StoreError::Io(dir.display().to_string(), e))?;
            // A game is a folder with a record, whatever the record's state:
            // one that cannot be read is listed, and fails when opened,
            // naming why (skipped, its game vanished from `yam games`, and
            // a turn mail for it was taken for a new challenge).
            if std::fs::symlink_metadata(entry.path().join("record.yam")).is_ok()
                && let Some(name) = entry.file_name().to_str()
            {
                ids.push(name.to_owned());
            }
        }
        ids.sort();
        Ok(ids)
    }

    fn game_dir(&self, id: &str) -> Result<PathBuf, StoreError> {
        let valid = !id.is_empty()
            && id.len() <= 128
            && !id.starts_with('.')
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !valid {
            return Err(StoreError::BadId(id.to_owned()));
        }
        Ok(self.root.join("games").join(id))
    }

    /// Whether a game `id` is stored (its record there, readable or not).
    /// The games with a mail waiting to be sent, by the index the desk
    /// keeps of them (`games/.waiting/`, an empty file a game, see
    /// [`note_waiting`]); none when the index is not yet complete (a store
    /// of an earlier build, or one whose index was lost): then the caller
    /// looks at every game and completes it ([`Store::index_waiting`]).
    pub fn waiting(&self) -> Result<Option<Vec<String>>, StoreError> {
        let dir = self.root.join("games").join(WAITING);
        if std::fs::symlink_metadata(dir.join(INDEXED)).is_err() {
            return Ok(None);
        }
        let io = |e| StoreError::Io(dir.display().to_string(), e);
        let mut ids = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            if let Some(name) = entry.file_name().to_str()
                && !name.starts_with('.')
            {
                ids.push(name.to_owned());
            }
        }
        ids.sort();
        Ok(Some(ids))
    }

    /// Completes the index of games with mail waiting after a look at
    /// every game found `waiting` (each marked, then the index said
    /// complete).
    pub fn index_waiting(&self, waiting: &[String]) -> Result<(), StoreError> {
        let dir = self.root.join("games").join(WAITING);
        let io = |e| StoreError::Io(dir.display().to_string(), e);
        for id in waiting {
            note_waiting(&self.root.join("games").join(id), true).map_err(io)?;
        }
        std::fs::create_dir_all(&dir).map_err(io)?;
        atomic::write(&dir.join(INDEXED), b"", true).map_err(io)
    }

    pub fn holds(&self, id: &str) -> bool {
        self.game_dir(id)
            .is_ok_and(|dir| std::fs::symlink_metadata(dir.join("record.yam")).is_ok())
    }

    /// Create a new game with its first record, and lock it.
    pub fn create(&self, id: &str, record: &[u8]) -> Result<LockedGame, StoreError> {
        let dir = self.game_dir(id)?;
        std::fs::create_dir_all(&dir).map_err(|e| StoreError::Io(dir.display().to_string(), e))?;
        let game = lock(dir)?;
        if game.record_path().exists() {
            return Err(StoreError::Exists(id.to_owned()));
        }
        game.write_record(record)?;
        Ok(game)
    }

    /// Lock an existing game (waiting while another process holds it).
    pub fn lock(&self, id: &str) -> Result<LockedGame, StoreError> {
        let dir = self.game_dir(id)?;
        // A record there but not a readable file is this game's, and its
        // read says why; only an absent one is no game.
        if std::fs::symlink_metadata(dir.join("record.yam")).is_err() {
            return Err(StoreError::NoGame(id.to_owned()));
        }
        lock(dir)
    }
}

fn lock(dir: PathBuf) -> Result<LockedGame, StoreError> {
    let path = dir.join(".lock");
    let file = lock_file(&path).map_err(|e| StoreError::Io(path.display().to_string(), e))?;
    Ok(LockedGame { dir, _lock: file })
}

/// Opens the lock file at `path` (made when missing, never truncated) and
/// takes its exclusive OS lock, waiting while another process holds it;
/// the lock is held while the returned file is. Every lock of a desk
/// (a game, the contacts, the challenges waiting in `pending/`) is taken
/// here, so they are all taken the same way.
pub fn lock_file(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    file.lock()?;
    Ok(file)
}

impl LockedGame {
    fn record_path(&self) -> PathBuf {
        self.dir.join("record.yam")
    }

    /// The game's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The record as stored, read into a buffer with room for a turn's
    /// events after it: a desk appends a turn mail's events to the stored
    /// text in its own buffer, which a buffer of the file's length alone
    /// would have grown by copying it whole (80 kB at ply 300) into a new
    /// one. The room is only reserved: pages not written are never touched.
    pub fn record(&self) -> Result<Vec<u8>, StoreError> {
        /// A turn's events are a few hundred bytes (a siege roll with its
        /// evidence a few kilobytes).
        const ROOM: u64 = 16 << 10;
        /// Reserved at most (a larger file is read all the same, the
        /// buffer growing as it goes).
        const RESERVE: u64 = 64 << 20;
        let path = self.record_path();
        let failed = |e| StoreError::Io(path.display().to_string(), e);
        let mut file = File::open(&path).map_err(failed)?;
        let len = file.metadata().map_err(failed)?.len();
        let reserve = len.min(RESERVE) + ROOM;
        let mut record = Vec::with_capacity(usize::try_from(reserve).unwrap_or(0));
        io::Read::read_to_end(&mut file, &mut record).map_err(failed)?;
        Ok(record)
    }

    /// Replace the record, atomically.
    pub fn write_record(&self, record: &[u8]) -> Result<(), StoreError> {
        let path = self.record_path();
        atomic::write(&path, record, true)
            .map_err(|e| StoreError::Io(path.display().to_string(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_created_listed_and_rewritten_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        {
            let game = store.create("g-1", b"first").unwrap();
            game.write_record(b"second").unwrap();
        }
        assert!(matches!(
            store.create("g-1", b"x"),
            Err(StoreError::Exists(_))
        ));
        assert_eq!(store.games().unwrap(), ["g-1"]);
        let record = store.lock("g-1").unwrap().record().unwrap();
        assert_eq!(record, b"second");
        // Read with room for a turn's events, appended where it is.
        assert!(record.capacity() >= record.len() + (16 << 10));
        assert!(matches!(store.lock("nope"), Err(StoreError::NoGame(_))));
        for bad in ["", "../x", ".hidden", "a/b", "a b"] {
            assert!(
                matches!(store.create(bad, b""), Err(StoreError::BadId(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_locked_game_waits_for_the_other_writer() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        drop(store.create("g", b"0").unwrap());
        // Many threads each read, increment and write under the lock: no
        // update is lost, which is what the lock is for.
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..25 {
                        let game = store.lock("g").unwrap();
                        let n: u32 = String::from_utf8(game.record().unwrap())
                            .unwrap()
                            .parse()
                            .unwrap();
                        game.write_record((n + 1).to_string().as_bytes()).unwrap();
                    }
                });
            }
        });
        assert_eq!(store.lock("g").unwrap().record().unwrap(), b"200");
    }
}
