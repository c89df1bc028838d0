//! The one home of a player's secrets: the `--secrets` directory.
//!
//! ```text
//! DIR/                              mode 0700
//! DIR/identities/NAME.seed          the 32-byte signing seed, in hex (0600)
//! DIR/games/GAME/NAME.chain         a chain secret for one game, with
//!                                   every 32nd value of its chain (0600)
//! DIR/games/GAME/NAME.setup         a sealed setup (salt and setup) until
//!                                   its reveal (0600)
//! DIR/games/GAME/NAME.seat-salt     the salt of the game's seat draw until
//!                                   its reveal (0600; an earlier Yam kept it
//!                                   as the setup of `GAME.seat-draw`)
//! DIR/games/GAME/checkpoint        the hot-seat's verified checkpoint of
//!                                   the game (a cache, not a secret)
//! DIR/keys/NAME.key                 a key of the program's own, such as the
//!                                   robot's key for its players' tokens (0600)
//! ```
//!
//! Every secret is drawn from the operating system (`getrandom`), written
//! once to a new file with mode 0600 and never overwritten, so a chain is
//! never reused after a restore. Secrets are read back only to sign or to
//! reveal; nothing here is ever written into a record.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use yam_referee::fair_play::chain::{ChainSecret, ChainValue, HashChain, MAX_CHAIN_LENGTH};
use yam_referee::fair_play::game_id::GameId;
use yam_referee::fair_play::hash::Hash32;
use yam_referee::fair_play::sign::{PublicKey, SigningKey};

/// How far apart the chain values kept beside a chain's secret are: a
/// turn needs at most this many hashes to find its value, where rebuilding
/// the chain from its secret costs one hash per value (1,024 for the
/// standard rules) at every read.
const CHECKPOINT_EVERY: u32 = 32;

/// Why the secrets directory could not be used.
#[derive(Debug)]
pub struct SecretError(pub String);

impl std::fmt::Display for SecretError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SecretError {}

/// The first line of a game's `answered` file.
const ANSWERED_HEADER: &str = "yam-answered 1";

/// What [`Secrets::remember_answers`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Remembered {
    /// New answers are remembered; `previous` is the file as it was (none:
    /// there was none), for [`Secrets::restore_answers`] should the turn
    /// that holds them not be written.
    Added {
        /// The answered rolls before.
        previous: Option<String>,
    },
    /// Every answer was remembered already (the same requests again).
    Unchanged,
    /// Roll `roll` was answered before, for another request: nothing is
    /// remembered, and the answer must not be given.
    AnsweredBefore {
        /// The roll's index.
        roll: u64,
        /// The file that remembers it.
        path: PathBuf,
    },
}

fn err(path: &Path, what: &str, e: impl std::fmt::Display) -> SecretError {
    SecretError(format!("{}: {what}: {e}", path.display()))
}

/// 32 bytes from the operating system's randomness.
pub fn random_32() -> Result<[u8; 32], SecretError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| SecretError(format!("the operating system gave no randomness: {e}")))?;
    Ok(bytes)
}

/// Whether `name` may name an identity: 1 to 32 letters, digits, `_`, `-`
/// or `.`, starting with a letter or digit.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 32
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A local identity: a name and its signing key.
pub struct Identity {
    /// Its name.
    pub name: String,
    /// Its signing key.
    pub key: SigningKey,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Identity({}, {})",
            self.name,
            self.key.public_key().fingerprint()
        )
    }
}

/// The secrets directory.
#[derive(Debug, Clone)]
pub struct Secrets {
    dir: PathBuf,
    /// The public key of each identity read so far, by name. A seed file
    /// is written once and never overwritten, so a name's key never
    /// changes: [`Secrets::identity_for`] derives each key once, not at
    /// every lookup (the robot looks up its players' keys for every mail,
    /// which read every seed each time: a cost that grew with the players).
    keys: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, PublicKey>>>,
    /// The signing key of each identity read so far, by name, with the
    /// seed it was derived from. Deriving a key is a scalar multiplication
    /// (SHA-512 of the seed, then the public point), and the robot reads
    /// its players' identities several times a command mail: 1,104
    /// derivations, 4.5% of its instructions, for a burst of 1,001 mails
    /// (docs/performance.md, "The thirty-first step"). The seed file is
    /// still read at every use (a seed removed since is no identity), and
    /// a key is used again only for the same seed.
    /// (The seed is the key's own secret, compared there: no copy of it is
    /// kept beside the key, which wipes its secret when dropped.)
    derived: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, SigningKey>>>,
}

/// Creates `path` (and missing parents) readable by its owner only. An
/// existing directory is left as it is: it may be one the user keeps other
/// things in, and the secret files in it are 0600 anyway.
#[cfg(unix)]
fn private_dir(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if path.is_dir() {
        return Ok(());
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
}

#[cfg(not(unix))]
fn private_dir(path: &Path) -> io::Result<()> {
    fs::create_dir_all(path)
}

/// Creates `path` with `contents`, readable by its owner only; never
/// replaces an existing file.
fn write_new_secret(path: &Path, contents: &str) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

/// Opens `path` to write, made if there is none, readable by its owner
/// only (as everything in the secrets directory is); never truncated.
fn open_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Reads a secret file, refusing one that others may read.
fn read_secret(path: &Path) -> Result<String, SecretError> {
    let mut file = File::open(path).map_err(|e| err(path, "cannot open", e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = file
            .metadata()
            .map_err(|e| err(path, "cannot read its mode", e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(SecretError(format!(
                "{}: a secret must be readable by its owner only (mode 0600), but its mode is {:o}",
                path.display(),
                mode & 0o777
            )));
        }
    }
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| err(path, "cannot read", e))?;
    Ok(text)
}

fn parse_hex32(path: &Path, text: &str) -> Result<[u8; 32], SecretError> {
    let bytes = hex::decode(text.trim()).map_err(|e| err(path, "not hex", e))?;
    bytes
        .try_into()
        .map_err(|_| SecretError(format!("{}: expected 32 bytes in hex", path.display())))
}

impl Secrets {
    /// The directory itself.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The directory `dir`, created (mode 0700) if needed.
    pub fn open(dir: &Path) -> Result<Secrets, SecretError> {
        private_dir(dir).map_err(|e| err(dir, "cannot create the secrets directory", e))?;
        Ok(Secrets {
            dir: dir.to_path_buf(),
            keys: std::sync::Arc::default(),
            derived: std::sync::Arc::default(),
        })
    }

    fn identities(&self) -> PathBuf {
        self.dir.join("identities")
    }

    fn identity_path(&self, name: &str) -> PathBuf {
        self.identities().join(format!("{name}.seed"))
    }

    /// The identity `name`, created with a fresh key if it does not exist;
    /// says whether it was created.
    pub fn identity(&self, name: &str) -> Result<(Identity, bool), SecretError> {
        if !valid_name(name) {
            return Err(SecretError(format!(
                "{name:?} is not a valid identity name (1 to 32 letters, digits, _, - or ., starting with a letter or digit)"
            )));
        }
        let path = self.identity_path(name);
        let created = !path.exists();
        if created {
            let dir = self.identities();
            private_dir(&dir).map_err(|e| err(&dir, "cannot create", e))?;
            let seed = random_32()?;
            write_new_secret(&path, &format!("{}\n", hex::encode(seed)))
                .map_err(|e| err(&path, "cannot create", e))?;
        }
        let seed = parse_hex32(&path, &read_secret(&path)?)?;
        Ok((
            Identity {
                name: name.to_owned(),
                key: self.signing_key(name, &seed),
            },
            created,
        ))
    }

    /// The signing key of `seed`, the seed of the identity `name`: derived
    /// once a process for the same name and seed ([`Secrets::derived`]).
    fn signing_key(&self, name: &str, seed: &[u8; 32]) -> SigningKey {
        let mut derived = self.derived.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = derived.get(name)
            && known.is_of_seed(seed)
        {
            return known.clone();
        }
        let key = SigningKey::from_seed(seed);
        derived.insert(name.to_owned(), key.clone());
        key
    }

    /// The key `name` (32 bytes), drawn the first time it is asked for.
    pub fn key(&self, name: &str) -> Result<[u8; 32], SecretError> {
        if !valid_name(name) {
            return Err(SecretError(format!("{name:?} is not a valid key name")));
        }
        let dir = self.dir.join("keys");
        let path = dir.join(format!("{name}.key"));
        if !path.exists() {
            private_dir(&dir).map_err(|e| err(&dir, "cannot create", e))?;
            match write_new_secret(&path, &format!("{}\n", hex::encode(random_32()?))) {
                Ok(()) => {}
                // Drawn by another process in between: that one it is.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(err(&path, "cannot create", e)),
            }
        }
        parse_hex32(&path, &read_secret(&path)?)
    }

    /// Every identity in the directory.
    pub fn all_identities(&self) -> Result<Vec<Identity>, SecretError> {
        self.identity_names()?
            .iter()
            .map(|name| Ok(self.identity(name)?.0))
            .collect()
    }

    /// The names of the identities in the directory, sorted.
    pub fn identity_names(&self) -> Result<Vec<String>, SecretError> {
        let dir = self.identities();
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(err(&dir, "cannot read", e)),
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                e.file_name()
                    .to_str()
                    .and_then(|n| n.strip_suffix(".seed"))
                    .map(str::to_owned)
            })
            .filter(|n| valid_name(n))
            .collect();
        names.sort();
        Ok(names)
    }

    /// The identity `name` if its seed exists: never created (a seed
    /// removed is no identity).
    fn existing_identity(&self, name: &str) -> Result<Option<Identity>, SecretError> {
        let path = self.identity_path(name);
        let text = match read_secret(&path) {
            Ok(text) => text,
            Err(_) if !valid_name(name) || !path.exists() => return Ok(None),
            Err(e) => return Err(e),
        };
        let seed = parse_hex32(&path, &text)?;
        Ok(Some(Identity {
            name: name.to_owned(),
            key: self.signing_key(name, &seed),
        }))
    }

    /// The identity holding `key`, looked for first among `names` (those
    /// the caller expects it under: the robot's players of one game), so
    /// that a store of a thousand players' seeds opens the few it needs;
    /// any other identity holding it is found as [`Secrets::identity_for`]
    /// finds it.
    pub fn identity_among(
        &self,
        names: &[&str],
        key: &PublicKey,
    ) -> Result<Option<Identity>, SecretError> {
        for name in names {
            if let Some(identity) = self.existing_identity(name)?
                && identity.key.public_key() == *key
            {
                self.keys
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(identity.name.clone(), *key);
                return Ok(Some(identity));
            }
        }
        self.identity_for(key)
    }

    /// The identity holding `key`.
    pub fn identity_for(&self, key: &PublicKey) -> Result<Option<Identity>, SecretError> {
        let known = |keys: &std::collections::HashMap<String, PublicKey>| {
            keys.iter()
                .find(|(_, k)| *k == key)
                .map(|(name, _)| name.clone())
        };
        let cached = known(&self.keys.lock().unwrap_or_else(|e| e.into_inner()));
        if let Some(name) = cached {
            // Read again (never created: a seed removed since is no
            // identity), and the key checked against the one derived.
            if let Some(identity) = self.existing_identity(&name)?
                && identity.key.public_key() == *key
            {
                return Ok(Some(identity));
            }
            self.keys
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&name);
        }
        // Not among the keys derived so far: the identities not read yet
        // (created since, by this process or another) are read once.
        let names = self.identity_names()?;
        let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        for name in names {
            if keys.contains_key(&name) {
                continue;
            }
            let identity = self.identity(&name)?.0;
            let public = identity.key.public_key();
            keys.insert(name, public);
            if public == *key {
                return Ok(Some(identity));
            }
        }
        Ok(None)
    }

    /// Where the hot-seat keeps its verified checkpoint of `game`
    /// ([`crate::game::checkpoint`]): beside the game's chains, where only
    /// the owner of the secrets writes.
    pub fn checkpoint_path(&self, game: &GameId) -> PathBuf {
        self.game_dir(game).join("checkpoint")
    }

    fn game_dir(&self, game: &GameId) -> PathBuf {
        let id = game.as_str();
        let safe = id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            && !id.starts_with('.');
        let name = if safe {
            id.to_owned()
        } else {
            Hash32::of(id.as_bytes()).to_hex()[..32].to_owned()
        };
        self.dir.join("games").join(name)
    }

    /// Draws and stores a new chain secret for `name` in `game`; refuses if
    /// one exists (a chain is never reused).
    pub fn new_chain(
        &self,
        game: &GameId,
        identity: &Identity,
        length: u32,
    ) -> Result<HashChain, SecretError> {
        let dir = self.game_dir(game);
        private_dir(&dir).map_err(|e| err(&dir, "cannot create", e))?;
        let path = dir.join(format!("{}.chain", identity.name));
        if path.exists() {
            return Err(SecretError(format!(
                "{}: a chain for this game already exists; a chain is never reused (choose another game id)",
                path.display()
            )));
        }
        let secret = random_32()?;
        let chain = HashChain::new(
            &ChainSecret::from_bytes(secret),
            game.clone(),
            identity.key.public_key(),
            length,
        )
        .map_err(|e| SecretError(format!("cannot build the chain: {e}")))?;
        let mut text = format!(
            "yam chain 1\nlength {length}\nsecret {}\nevery {CHECKPOINT_EVERY}\n",
            hex::encode(secret)
        );
        for value in chain.checkpoints(CHECKPOINT_EVERY) {
            text.push_str("checkpoint ");
            text.push_str(&hex::encode(value.as_bytes()));
            text.push('\n');
        }
        write_new_secret(&path, &text).map_err(|e| err(&path, "cannot create", e))?;
        Ok(chain)
    }

    /// Where the chain `identity` holds for `game` is kept.
    pub fn chain_path(&self, game: &GameId, identity: &Identity) -> PathBuf {
        self.game_dir(game).join(format!("{}.chain", identity.name))
    }

    /// The chain `identity` holds for `game`, if any.
    pub fn chain(
        &self,
        game: &GameId,
        identity: &Identity,
    ) -> Result<Option<HashChain>, SecretError> {
        let path = self.chain_path(game, identity);
        if !path.exists() {
            return Ok(None);
        }
        let text = read_secret(&path)?;
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name).map(str::trim))
                .ok_or_else(|| SecretError(format!("{}: no {name} line", path.display())))
        };
        let length: u32 = field("length ")?
            .parse()
            .map_err(|e| err(&path, "bad length", e))?;
        if length == 0 || length > MAX_CHAIN_LENGTH {
            return Err(SecretError(format!(
                "{}: bad length {length}",
                path.display()
            )));
        }
        let secret = ChainSecret::from_bytes(parse_hex32(&path, field("secret ")?)?);
        let owner = identity.key.public_key();
        let built = match field("every ") {
            // A chain kept with its checkpoints: each value is found in
            // fewer than `every` hashes, not rebuilt from the secret.
            Ok(every) => {
                let every: u32 = every.parse().map_err(|e| err(&path, "bad every", e))?;
                let checkpoints = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("checkpoint "))
                    .map(|v| parse_hex32(&path, v).map(ChainValue::from_bytes))
                    .collect::<Result<Vec<_>, _>>()?;
                HashChain::from_checkpoints(
                    &secret,
                    game.clone(),
                    owner,
                    length,
                    every,
                    &checkpoints,
                )
            }
            // Written before checkpoints were kept.
            Err(_) => HashChain::new(&secret, game.clone(), owner, length),
        };
        built.map(Some).map_err(|e| match e {
            yam_referee::fair_play::chain::ChainError::KeptValues { .. } => SecretError(format!(
                "{}: damaged: {e} (restore it from a backup; nothing was written)",
                path.display()
            )),
            _ => SecretError(format!("{}: {e}", path.display())),
        })
    }
}

/// A sealed setup as its owner keeps it until the reveal: the salt and the
/// setup's canonical text.
#[derive(Clone, PartialEq, Eq)]
pub struct SealedSetup {
    /// The 32-byte salt of the commitment.
    pub salt: [u8; 32],
    /// The setup's canonical text (the bytes committed to).
    pub setup: String,
}

impl std::fmt::Debug for SealedSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The setup is the secret until it is revealed.
        f.write_str("SealedSetup(..)")
    }
}

impl Secrets {
    pub fn setup_path(&self, game: &GameId, identity: &Identity) -> PathBuf {
        self.game_dir(game).join(format!("{}.setup", identity.name))
    }

    /// Keeps `sealed` (created once, mode 0600) until its reveal. An
    /// existing file is never replaced: keeping the same setup again is
    /// fine, another one is refused.
    pub fn store_setup(
        &self,
        game: &GameId,
        identity: &Identity,
        sealed: &SealedSetup,
    ) -> Result<(), SecretError> {
        if let Some(kept) = self.setup(game, identity)? {
            if kept.setup == sealed.setup {
                return Ok(());
            }
            return Err(SecretError(format!(
                "{}: a setup for this game is already kept here; a setup never changes once chosen (remove the file only if it was never sealed)",
                self.setup_path(game, identity).display()
            )));
        }
        let dir = self.game_dir(game);
        private_dir(&dir).map_err(|e| err(&dir, "cannot create", e))?;
        let path = self.setup_path(game, identity);
        write_new_secret(
            &path,
            &format!(
                "yam setup 1\nsalt {}\nsetup {}\n",
                hex::encode(sealed.salt),
                sealed.setup
            ),
        )
        .map_err(|e| err(&path, "cannot create", e))
    }

    /// The setup `identity` keeps for `game`, if any.
    pub fn setup(
        &self,
        game: &GameId,
        identity: &Identity,
    ) -> Result<Option<SealedSetup>, SecretError> {
        let path = self.setup_path(game, identity);
        if !path.exists() {
            return Ok(None);
        }
        let text = read_secret(&path)?;
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name).map(str::trim))
                .ok_or_else(|| SecretError(format!("{}: no {name}line", path.display())))
        };
        Ok(Some(SealedSetup {
            salt: parse_hex32(&path, field("salt ")?)?,
            setup: field("setup ")?.to_owned(),
        }))
    }

    fn seat_salt_path(&self, game: &GameId, identity: &Identity) -> PathBuf {
        self.game_dir(game)
            .join(format!("{}.seat-salt", identity.name))
    }

    /// Keeps the salt of `game`'s seat draw (created once, mode 0600)
    /// until its reveal, among the game's own secrets. (An earlier Yam
    /// kept it as the setup of a game named `GAME.seat-draw`: a name
    /// another player could give a real game, whose setup then found the
    /// draw's salt in its place and could never be sealed.)
    pub fn store_seat_salt(
        &self,
        game: &GameId,
        identity: &Identity,
        salt: &[u8; 32],
    ) -> Result<(), SecretError> {
        let dir = self.game_dir(game);
        private_dir(&dir).map_err(|e| err(&dir, "cannot create", e))?;
        let path = self.seat_salt_path(game, identity);
        write_new_secret(
            &path,
            &format!("yam seat-salt 1\nsalt {}\n", hex::encode(salt)),
        )
        .map_err(|e| err(&path, "cannot create", e))
    }

    /// The salt of `game`'s seat draw `identity` keeps, if any: where this
    /// build keeps it, else where an earlier one did (a draw challenged
    /// before the update is still revealed).
    pub fn seat_salt(
        &self,
        game: &GameId,
        identity: &Identity,
    ) -> Result<Option<[u8; 32]>, SecretError> {
        let path = self.seat_salt_path(game, identity);
        if path.exists() {
            let text = read_secret(&path)?;
            let salt = text
                .lines()
                .find_map(|l| l.strip_prefix("salt "))
                .ok_or_else(|| SecretError(format!("{}: no salt line", path.display())))?;
            return parse_hex32(&path, salt.trim()).map(Some);
        }
        let Ok(earlier) = GameId::new(format!("{}.seat-draw", game.as_str())) else {
            return Ok(None);
        };
        Ok(self.setup(&earlier, identity)?.map(|kept| kept.salt))
    }

    /// Takes `game`'s lock (`games/GAME/lock`), held while the returned
    /// file is: the hot-seat holds it from checking that the record is
    /// still the text it read until the next one is written, so two
    /// commands on one game (two terminals of one account) take turns, and
    /// the second finds that the first wrote meanwhile instead of writing
    /// over its turn.
    pub fn lock_game(&self, game: &GameId) -> Result<File, SecretError> {
        let dir = self.game_dir(game);
        private_dir(&dir).map_err(|e| err(&dir, "cannot create", e))?;
        let path = dir.join("lock");
        let lock = open_private(&path).map_err(|e| err(&path, "cannot open the game's lock", e))?;
        lock.lock()
            .map_err(|e| err(&path, "cannot lock the game", e))?;
        Ok(lock)
    }

    /// Where the rolls of `game` this directory's parties answered are
    /// remembered (`games/GAME/answered`).
    pub fn answered_path(&self, game: &GameId) -> PathBuf {
        self.game_dir(game).join("answered")
    }

    /// Remembers that this directory answered each roll of `answers` (its
    /// index, and `H(request)` of the request answered), durably (synced)
    /// before the caller writes the record that holds the answers; refuses,
    /// writing nothing, an answer to a roll it answered before for another
    /// request. A chain's value is revealed once: answered again for a
    /// copy of the record, or for a record put back from before the roll,
    /// another declaration would get the same dice, a re-roll, and a copy
    /// played ahead would show the values the game is yet to draw
    /// (`docs/fair-play.md`, 9.8). The same request again (a turn run
    /// again after a crash: signatures are deterministic) is the same
    /// answer, and passes. A last line cut short (a crash during its
    /// writing, before the record was written) is no answer.
    pub fn remember_answers(
        &self,
        game: &GameId,
        answers: &[(u64, Hash32)],
    ) -> Result<Remembered, SecretError> {
        if answers.is_empty() {
            return Ok(Remembered::Unchanged);
        }
        let path = self.answered_path(game);
        let previous = match fs::read_to_string(&path) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(err(&path, "cannot read the answered rolls", e)),
        };
        let text = previous.as_deref().unwrap_or("");
        // The file is made whole (empty at first, then the header and its
        // lines written atomically) and only appended to after: anything
        // else before the header's line break is damage (zeros from a disk
        // or a file system's crash), said, never read as "nothing
        // answered", which would answer every roll again.
        if !text.is_empty() && !text.starts_with(&format!("{ANSWERED_HEADER}\n")) {
            let first = text.lines().next().unwrap_or_default();
            return Err(err(
                &path,
                "damaged (restore it from a backup; without it a roll could be answered twice)",
                format!(
                    "line 1: {}",
                    first
                        .escape_debug()
                        .to_string()
                        .chars()
                        .take(80)
                        .collect::<String>()
                ),
            ));
        }
        let complete = text.rfind('\n').map_or("", |end| &text[..end]);
        let mut known: Vec<(u64, Hash32)> = Vec::new();
        for (n, line) in complete.lines().enumerate() {
            if n == 0 {
                if line != ANSWERED_HEADER {
                    return Err(err(&path, "not a file of answered rolls", line));
                }
                continue;
            }
            let parsed = line.split_once(' ').and_then(|(index, hash)| {
                Some((index.parse::<u64>().ok()?, Hash32::from_hex(hash).ok()?))
            });
            let Some(entry) = parsed else {
                return Err(err(
                    &path,
                    "damaged (restore it from a backup; without it a roll could be answered twice)",
                    format!("line {}: {line}", n + 1),
                ));
            };
            known.push(entry);
        }
        let mut new = Vec::new();
        for &(index, request) in answers {
            match known.iter().find(|(k, _)| *k == index) {
                Some((_, h)) if *h == request => {}
                Some(_) => return Ok(Remembered::AnsweredBefore { roll: index, path }),
                None => new.push((index, request)),
            }
        }
        if new.is_empty() {
            return Ok(Remembered::Unchanged);
        }
        let lines: String = new
            .iter()
            .map(|(index, request)| format!("{index} {}\n", request.to_hex()))
            .collect();
        if !complete.is_empty() && complete.len() + 1 == text.len() {
            // Whole lines so far: the new ones appended and synced, so a
            // turn late in a long game writes its own lines, not the file
            // again (a crash cuts at most the last line, which is no
            // answer, above).
            let mut file = OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(|e| err(&path, "cannot open the answered rolls", e))?;
            file.write_all(lines.as_bytes())
                .and_then(|()| file.sync_all())
                .map_err(|e| err(&path, "cannot write the answered rolls", e))?;
        } else {
            // New, or a last line cut by a crash: written whole, the cut
            // line dropped, atomically.
            let whole = if complete.is_empty() {
                format!("{ANSWERED_HEADER}\n{lines}")
            } else {
                format!("{complete}\n{lines}")
            };
            let dir = self.game_dir(game);
            private_dir(&dir).map_err(|e| err(&dir, "cannot create", e))?;
            // Made private first: the atomic write keeps the mode it finds.
            open_private(&path).map_err(|e| err(&path, "cannot create", e))?;
            crate::store::atomic::write(&path, whole.as_bytes(), true)
                .map_err(|e| err(&path, "cannot write the answered rolls", e))?;
        }
        Ok(Remembered::Added { previous })
    }

    /// Puts `game`'s answered rolls back as they were (`previous`, none:
    /// no file), after a turn whose record could not be written: no record
    /// holds its answers and nothing of them was shown.
    pub fn restore_answers(
        &self,
        game: &GameId,
        previous: Option<&str>,
    ) -> Result<(), SecretError> {
        let path = self.answered_path(game);
        match previous {
            Some(text) => crate::store::atomic::write(&path, text.as_bytes(), true),
            None => fs::remove_file(&path).or_else(|e| {
                if e.kind() == io::ErrorKind::NotFound {
                    Ok(())
                } else {
                    Err(e)
                }
            }),
        }
        .map_err(|e| err(&path, "cannot put the answered rolls back", e))
    }

    /// The director's register: every game a director started, one signed
    /// opening per game (`director/register.yam`).
    pub fn register_path(&self) -> PathBuf {
        self.dir.join("director").join("register.yam")
    }

    /// Appends `entry` (one game's record as first written) to the
    /// director's register: under an exclusive lock, so that two games
    /// started at once both land in it, and by an atomic replace, so that a
    /// crash leaves the register as it was before or after, never half
    /// written. `read` reads the register as it stands first, under the
    /// lock (the caller counts its games): a register it finds damaged is
    /// said (the file and why), and nothing is appended to it. Returns what
    /// `read` found.
    pub fn append_register<T, E: std::fmt::Display>(
        &self,
        entry: &str,
        read: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<T, SecretError> {
        let path = self.register_path();
        let dir = path
            .parent()
            .map_or_else(|| self.dir.clone(), Path::to_path_buf);
        private_dir(&dir).map_err(|e| err(&dir, "cannot create", e))?;
        let lock_path = dir.join("register.lock");
        let lock = crate::store::lock_file(&lock_path)
            .map_err(|e| err(&lock_path, "cannot lock the register", e))?;
        let mut text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(err(&path, "cannot read the register", e)),
        };
        let found = read(&text).map_err(|why| {
            err(
                &path,
                "the register is damaged, and a game is not started without being registered",
                why,
            )
        })?;
        if !text.is_empty() && !text.ends_with("\n\n") {
            text.push_str(if text.ends_with('\n') { "\n" } else { "\n\n" });
        }
        text.push_str(entry);
        crate::store::atomic::write(&path, text.as_bytes(), true)
            .map_err(|e| err(&path, "cannot write the register", e))?;
        drop(lock);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A roll is answered once a game: the same request again passes (a
    /// turn run again after a crash), another request for the same roll
    /// is refused with nothing written, a last line cut by a crash is no
    /// answer, and a damaged line is said, never read as no answer.
    #[test]
    fn a_roll_is_answered_once_for_one_request() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = Secrets::open(&dir.path().join("s")).unwrap();
        let game = GameId::new("g-1".to_owned()).unwrap();
        let (a, b) = (Hash32::of(b"request a"), Hash32::of(b"request b"));
        assert_eq!(
            secrets.remember_answers(&game, &[(0, a)]).unwrap(),
            Remembered::Added { previous: None }
        );
        assert_eq!(
            secrets.remember_answers(&game, &[(0, a)]).unwrap(),
            Remembered::Unchanged,
            "the same request, the same answer"
        );
        let path = secrets.answered_path(&game);
        let before = fs::read(&path).unwrap();
        assert_eq!(
            secrets.remember_answers(&game, &[(1, b), (0, b)]).unwrap(),
            Remembered::AnsweredBefore {
                roll: 0,
                path: path.clone()
            }
        );
        assert_eq!(fs::read(&path).unwrap(), before, "nothing remembered");
        // A later roll is appended to the whole lines there.
        assert_eq!(
            secrets.remember_answers(&game, &[(2, b)]).unwrap(),
            Remembered::Added {
                previous: Some(String::from_utf8(before.clone()).unwrap())
            }
        );
        let grown = fs::read_to_string(&path).unwrap();
        assert_eq!(grown.lines().count(), 3, "{grown}");
        assert!(grown.starts_with(ANSWERED_HEADER), "{grown}");
        assert!(matches!(
            secrets.remember_answers(&game, &[(2, a)]).unwrap(),
            Remembered::AnsweredBefore { roll: 2, .. }
        ));
        let before = fs::read(&path).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        // A crash while the line of roll 1 was written: roll 1 is free.
        let mut cut = before.clone();
        cut.extend_from_slice(b"1 0123");
        fs::write(&path, &cut).unwrap();
        assert_eq!(
            secrets.remember_answers(&game, &[(1, b)]).unwrap(),
            Remembered::Added {
                previous: Some(String::from_utf8(cut.clone()).unwrap())
            }
        );
        assert_eq!(
            secrets.remember_answers(&game, &[(1, a)]).unwrap(),
            Remembered::AnsweredBefore {
                roll: 1,
                path: path.clone()
            }
        );
        // A damaged line is said.
        fs::write(&path, b"yam-answered 1\n0 not-hex\n").unwrap();
        let said = secrets.remember_answers(&game, &[(2, a)]).unwrap_err();
        assert!(said.to_string().contains("damaged"), "{said}");
    }

    /// An answered-rolls file zero-filled by a disk error or a crash of
    /// the file system (its length kept, every byte NUL) still held the
    /// answers: it is damaged, said, and never read as "nothing answered",
    /// which would answer roll 0 again for another request.
    #[test]
    fn a_zero_filled_answered_file_is_said_not_read_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = Secrets::open(&dir.path().join("s")).unwrap();
        let game = GameId::new("g-1".to_owned()).unwrap();
        let (a, b) = (Hash32::of(b"request a"), Hash32::of(b"request b"));
        secrets.remember_answers(&game, &[(0, a)]).unwrap();
        let path = secrets.answered_path(&game);
        let len = fs::metadata(&path).unwrap().len() as usize;
        fs::write(&path, vec![0u8; len]).unwrap();
        let again = secrets.remember_answers(&game, &[(0, b)]);
        assert!(
            !matches!(again, Ok(Remembered::Added { .. })),
            "roll 0, answered for request a, answered again for request b from a zero-filled file: {again:?}; the file is now {:?}",
            fs::read_to_string(&path).unwrap()
        );
    }

    /// A seat draw's salt is kept among its game's own secrets, apart from
    /// any setup, and one an earlier Yam kept as the setup of
    /// `GAME.seat-draw` is still found; a real game of that name keeps its
    /// own setup beside it.
    #[test]
    fn a_seat_salt_is_the_games_own_and_an_earlier_builds_is_still_found() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = Secrets::open(&dir.path().join("s")).unwrap();
        let (ann, _) = secrets.identity("ann").unwrap();
        let game = GameId::new("g1").unwrap();
        secrets.store_seat_salt(&game, &ann, &[1; 32]).unwrap();
        assert_eq!(secrets.seat_salt(&game, &ann).unwrap(), Some([1; 32]));
        // A game named after its draw keeps its own setup.
        let named = GameId::new("g1.seat-draw").unwrap();
        let setup = SealedSetup {
            salt: [2; 32],
            setup: "Defender:CKAO".into(),
        };
        secrets.store_setup(&named, &ann, &setup).unwrap();
        assert_eq!(secrets.setup(&named, &ann).unwrap(), Some(setup));
        assert_eq!(secrets.seat_salt(&game, &ann).unwrap(), Some([1; 32]));
        // An earlier build's salt, kept as the setup of `g2.seat-draw`.
        let earlier = GameId::new("g2.seat-draw").unwrap();
        secrets
            .store_setup(
                &earlier,
                &ann,
                &SealedSetup {
                    salt: [3; 32],
                    setup: String::new(),
                },
            )
            .unwrap();
        let g2 = GameId::new("g2").unwrap();
        assert_eq!(secrets.seat_salt(&g2, &ann).unwrap(), Some([3; 32]));
        assert_eq!(
            secrets
                .seat_salt(&GameId::new("g3").unwrap(), &ann)
                .unwrap(),
            None
        );
    }

    /// A key derived once is used again only for the same seed: a seed
    /// file another hand rewrote gives its own key, and a removed one is
    /// created anew with a new key, never the one remembered.
    #[test]
    fn a_derived_key_is_used_again_only_for_its_seed() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = Secrets::open(&dir.path().join("s")).unwrap();
        let (ann, created) = secrets.identity("ann").unwrap();
        assert!(created);
        let again = secrets.identity("ann").unwrap().0;
        assert_eq!(again.key.public_key(), ann.key.public_key());
        let seed = parse_hex32(
            &secrets.identity_path("ann"),
            &read_secret(&secrets.identity_path("ann")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            ann.key.public_key(),
            SigningKey::from_seed(&seed).public_key()
        );
        // Rewritten by another hand: the new seed's key.
        let other = [7u8; 32];
        fs::write(
            secrets.identity_path("ann"),
            format!("{}\n", hex::encode(other)),
        )
        .unwrap();
        let rewritten = secrets.identity("ann").unwrap().0;
        assert_eq!(
            rewritten.key.public_key(),
            SigningKey::from_seed(&other).public_key()
        );
        // Removed: created again with a fresh seed, not the one remembered.
        fs::remove_file(secrets.identity_path("ann")).unwrap();
        let (fresh, created) = secrets.identity("ann").unwrap();
        assert!(created);
        assert_ne!(fresh.key.public_key(), rewritten.key.public_key());
        assert_ne!(fresh.key.public_key(), ann.key.public_key());
    }

    /// A key is found among identities read before, created since (by
    /// another process too), and never among removed ones: a removed seed
    /// is not created again by a lookup.
    #[test]
    fn an_identity_is_found_by_its_key_as_the_directory_changes() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = Secrets::open(&dir.path().join("s")).unwrap();
        let (ann, _) = secrets.identity("ann").unwrap();
        let (bo, _) = secrets.identity("bo").unwrap();
        let found = |key: &PublicKey| secrets.identity_for(key).unwrap().map(|i| i.name);
        assert_eq!(found(&bo.key.public_key()).as_deref(), Some("bo"));
        assert_eq!(found(&ann.key.public_key()).as_deref(), Some("ann"));
        // Created by another process (another Secrets on the directory).
        let other = Secrets::open(&dir.path().join("s")).unwrap();
        let (cy, _) = other.identity("cy").unwrap();
        assert_eq!(found(&cy.key.public_key()).as_deref(), Some("cy"));
        // Removed: not found, and not created again.
        fs::remove_file(secrets.identity_path("bo")).unwrap();
        assert_eq!(found(&bo.key.public_key()), None);
        assert!(!secrets.identity_path("bo").exists());
        // A stranger's key.
        let stranger = SigningKey::from_seed(&[9; 32]).public_key();
        assert_eq!(found(&stranger), None);
        assert_eq!(found(&ann.key.public_key()).as_deref(), Some("ann"));
    }

    #[test]
    fn an_identity_is_looked_for_among_names_first_then_everywhere() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = Secrets::open(&dir.path().join("s")).unwrap();
        let (ann, _) = secrets.identity("ann").unwrap();
        let (bo, _) = secrets.identity("bo").unwrap();
        let among = |names: &[&str], key: &PublicKey| {
            secrets.identity_among(names, key).unwrap().map(|i| i.name)
        };
        assert_eq!(among(&["bo"], &bo.key.public_key()).as_deref(), Some("bo"));
        // Under another name than expected: still found.
        assert_eq!(
            among(&["bo"], &ann.key.public_key()).as_deref(),
            Some("ann")
        );
        // A name with no seed is not created, nor one that is no name.
        assert_eq!(
            among(&["dee", "../x"], &ann.key.public_key()).as_deref(),
            Some("ann")
        );
        assert!(!secrets.identity_path("dee").exists());
        let stranger = SigningKey::from_seed(&[9; 32]).public_key();
        assert_eq!(among(&["ann", "bo"], &stranger), None);
        // A damaged seed under an expected name is said, not passed over.
        fs::write(secrets.identity_path("bo"), "not hex\n").unwrap();
        assert!(
            secrets
                .identity_among(&["bo"], &bo.key.public_key())
                .is_err()
        );
    }
}
