//! Two players, each with a data directory of their own, play whole games
//! by mail with the `yam` binary: cards, challenge, acceptance, every turn
//! and every roll through the fair-play exchange. `directory` plays through
//! lettre's file transport (no server); `servers` plays through the real
//! SMTP and IMAP servers `scripts/test.sh` starts.

mod directory;
mod servers;

use std::path::{Path, PathBuf};

use base64::Engine;
use yam_tests::yam;

/// How a player's mail arrives.
#[derive(Debug, Clone)]
pub enum Inbox {
    /// `.eml` files in a directory (lettre's file transport), read one by
    /// one with `yam read --eml`; a mail dealt with moves to `archive`.
    Files { dir: PathBuf, archive: PathBuf },
    /// A Maildir, read with the configured `incoming: maildir`.
    Maildir,
    /// IMAP, read with the configured `incoming: imap`.
    Imap,
}

/// A player: a data directory with a configuration.
#[derive(Debug)]
pub struct Player {
    pub name: String,
    pub address: String,
    pub data: tempfile::TempDir,
    pub inbox: Inbox,
}

impl Player {
    /// A player whose configuration is `config` (the identity section is
    /// added here).
    pub fn new(name: &str, address: &str, inbox: Inbox, mail_config: &str) -> Player {
        let data = tempfile::tempdir().unwrap();
        let config = format!(
            "identity:\n  name: {name}\n  address: {address}\n  key: {}\n{mail_config}",
            name.to_ascii_lowercase()
        );
        std::fs::write(data.path().join("config.yaml"), config).unwrap();
        Player {
            name: name.into(),
            address: address.into(),
            data,
            inbox,
        }
    }

    pub fn dir(&self) -> &Path {
        self.data.path()
    }

    /// `yam ARGS --data-dir DIR`.
    pub fn yam(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        let mut cmd = yam!();
        cmd.args(args).arg("--data-dir").arg(self.dir());
        cmd.assert()
    }

    /// Reads the mail waiting; returns what `yam read` said.
    pub fn read(&self) -> String {
        match &self.inbox {
            Inbox::Files { dir, archive } => {
                let mut said = String::new();
                for file in mail_files(dir) {
                    let out = self.yam(&["read", "--eml", file.to_str().unwrap()]);
                    let output = out.get_output();
                    said.push_str(&String::from_utf8_lossy(&output.stdout));
                    said.push_str(&String::from_utf8_lossy(&output.stderr));
                    if output.status.success() {
                        std::fs::create_dir_all(archive).unwrap();
                        std::fs::rename(&file, archive.join(file.file_name().unwrap())).unwrap();
                    }
                }
                said
            }
            Inbox::Maildir | Inbox::Imap => {
                let out = self.yam(&["read"]);
                let output = out.get_output();
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                )
            }
        }
    }

    /// `YOU`, `them` or `over` for `game`.
    pub fn status(&self, game: &str) -> String {
        let out = self.yam(&["games"]).success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(game))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or("none")
            .to_owned()
    }

    /// The game's record as stored.
    pub fn record(&self, game: &str) -> String {
        std::fs::read_to_string(self.dir().join("games").join(game).join("record.yam")).unwrap()
    }
}

/// The `.eml` files of `dir`, oldest first.
pub fn mail_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                .map(|p| (std::fs::metadata(&p).unwrap().modified().unwrap(), p))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files.into_iter().map(|(_, p)| p).collect()
}

/// Introduces the players and has `challenger` challenge `invited` to
/// game `id` with `args`; the invited player accepts; the opening is
/// complete on both sides when this returns.
pub fn open_game(challenger: &Player, invited: &Player, id: &str, args: &[&str]) {
    let mut challenge = vec!["challenge", invited.address.as_str(), "--id", id];
    challenge.extend_from_slice(args);
    challenger
        .yam(&challenge)
        .success()
        .stdout(predicates::str::contains("new contact"));
    // The invited reads the card and answers with its own; the challenger
    // reads that, and the challenge goes out by itself.
    let said = invited.read();
    assert!(said.contains("my card is sent in answer"), "{said}");
    let said = challenger.read();
    assert!(
        said.contains(&format!("the waiting challenge {id} is sent")),
        "{said}"
    );
    let said = invited.read();
    assert!(said.contains("challenges you"), "{said}");
    invited.yam(&["accept", id]).success();
    // A drawn seat is revealed by the challenger's reading; then the
    // invited learns the seats.
    challenger.read();
    invited.read();
}

/// Plays game `id` to its end: whoever's turn it is moves (`choose` gives
/// the move arguments, from the ply count so far), the other reads.
pub fn play_out(a: &Player, b: &Player, id: &str, mut choose: impl FnMut(usize) -> Vec<String>) {
    let mut turns = 0usize;
    for _ in 0..2_000 {
        let (sa, sb) = (a.status(id), b.status(id));
        if sa == "over" && sb == "over" {
            return;
        }
        let mover = match (sa.as_str(), sb.as_str()) {
            ("YOU", _) => a,
            (_, "YOU") => b,
            _ => {
                // Both wait: a mail is still travelling.
                a.read();
                b.read();
                continue;
            }
        };
        let other = if std::ptr::eq(mover, a) { b } else { a };
        let mut args = vec!["move".to_owned(), id.to_owned()];
        args.extend(choose(turns));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        mover.yam(&args).success();
        turns += 1;
        other.read();
        mover.read();
    }
    panic!("game {id} did not end");
}

/// The main line of a record, as tokens.
pub fn main_line(text: &str) -> Vec<String> {
    let record = yam_notation::parse_record::<yam_notation::RawGrammar>(text).unwrap();
    record.main_line().map(|(t, _)| t.clone()).collect()
}

pub fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(all_files(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// The secrets a player must never send: its signing seed, its chain
/// seeds, and every chain value not yet revealed in `record`.
pub fn secrets_of(player: &Player, game: &str, name: &str) -> Vec<Vec<u8>> {
    let dir = player.dir().join("secrets");
    let store = yam_cli::game::secrets::Secrets::open(&dir).unwrap();
    let (identity, created) = store.identity(name).unwrap();
    assert!(!created, "{name} has an identity");
    let mut out = vec![];
    // Signing seeds and chain seeds; a sealed setup's salt is revealed with
    // the setup once both are sealed, so it is no secret at the end.
    for file in all_files(&dir)
        .into_iter()
        .filter(|f| f.extension().is_some_and(|x| x == "chain" || x == "seed"))
    {
        let text = std::fs::read_to_string(&file).unwrap();
        for word in text.split_whitespace() {
            if word.len() == 64
                && let Ok(bytes) = hex::decode(word)
            {
                out.push(bytes);
            }
        }
    }
    let id = yam_referee::fair_play::game_id::GameId::new(game).unwrap();
    let chain = store.chain(&id, &identity).unwrap().unwrap();
    // Each party reveals one value per roll at most; a game of this test
    // rolls far fewer than 400 times, so the values from 400 on are
    // certainly unrevealed, and the first ones revealed by the end.
    for position in 400..460 {
        out.push(chain.reveal(position).unwrap().value.as_bytes().to_vec());
    }
    out
}

/// Asserts that no secret appears in `mail`, raw, in hex, in base64 at
/// any alignment, or inside any base64 it carries (attachments, the turn
/// block, the record's signed events).
pub fn assert_no_secret(mail: &[u8], secrets: &[Vec<u8>], what: &str) {
    let b64 = base64::engine::general_purpose::STANDARD;
    let text = String::from_utf8_lossy(mail).into_owned();
    // The whole mail's base64 runs, joined across line breaks, decoded,
    // and once more inside what they decode to (the record's events).
    let mut layers: Vec<Vec<u8>> = vec![mail.to_vec()];
    let joined: String = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            l.len() >= 16
                && l.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
        })
        .collect::<Vec<_>>()
        .join("\n");
    for run in joined.split("\n\n") {
        let compact: String = run.split_whitespace().collect();
        if let Ok(bytes) = b64.decode(compact.as_bytes()) {
            layers.push(bytes);
        }
    }
    let mut inner = Vec::new();
    for layer in &layers {
        let t = String::from_utf8_lossy(layer);
        for word in t.split(|c: char| c.is_whitespace() || c == ']' || c == '}' || c == '[') {
            if word.len() >= 40
                && let Ok(bytes) = b64.decode(word)
            {
                inner.push(bytes);
            }
        }
    }
    layers.extend(inner);
    assert!(
        layers.len() > 2,
        "{what}: the mail's parts were not decoded"
    );
    // Every form of every secret, searched for at once (Aho-Corasick): raw
    // bytes, hex in both cases, and base64 at each of the three alignments
    // a secret can have inside a longer encoded string.
    let mut needles: Vec<Vec<u8>> = Vec::new();
    for secret in secrets {
        needles.push(secret.clone());
        needles.push(hex::encode(secret).into_bytes());
        needles.push(hex::encode_upper(secret).into_bytes());
        for shift in 0..3 {
            let mut padded = vec![0u8; shift];
            padded.extend_from_slice(secret);
            let encoded = b64.encode(&padded);
            needles.push(encoded.as_bytes()[4..encoded.len() - 4].to_vec());
        }
    }
    let finder = aho_corasick::AhoCorasick::new(&needles).unwrap();
    // The search itself can fail: a secret planted in a mail is found.
    let planted = format!("x{}y", b64.encode([&[7u8][..], &secrets[0]].concat()));
    assert!(finder.find(planted.as_bytes()).is_some());
    for layer in &layers {
        if let Some(found) = finder.find(layer) {
            panic!(
                "a secret (form {} of secret {}) in {what}",
                found.pattern().as_usize() % 6,
                found.pattern().as_usize() / 6
            );
        }
    }
}
