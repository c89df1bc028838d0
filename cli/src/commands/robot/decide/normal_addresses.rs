//! A store whose addresses an earlier build wrote brought, once, to their
//! normal form (`docs/mail.md`, "One normal form for an address";
//! `docs/robot.md`, "A store of an earlier build: addresses").
//!
//! Before the forty-first step the robot kept an address trimmed and lower
//! case, as the mail wrote it: a player whose mail came with a punycode
//! domain, a local part in NFD or a final sigma was filed under a key the
//! normal form no longer gives, and a game's seats named her so. The normal
//! form cannot be turned back into the form a mail once wrote, so the
//! robot cannot find such a player from her next mail; it finds her here,
//! from the address her files keep, and files her where the normal form
//! looks: her player file, her key book, her register of games and her
//! rate counts under the key of her normal address, and every game's
//! bookkeeping (seats, challenger, invited address, bound keys) and every
//! key's owner in normal form. Each file changed is copied first into
//! `robot/before-normal-addresses/` (its path in the store kept), and the
//! step is done when `robot/addresses.normal` says so; until then it is
//! taken again at the next look, and each move in it can be taken twice.

use std::io;
use std::path::{Path, PathBuf};

use super::super::auth::{self, Player};
use super::keybook::KeyBook;
use super::{GameMeta, Robot};
use crate::mail::address::normal;

/// Written when every file is in normal form.
const DONE: &str = "robot/addresses.normal";

/// Where each file changed is copied first, at its path in the store.
const BACKUP: &str = "robot/before-normal-addresses";

/// What the step did: files brought to normal form, and players whose
/// normal form names another player's files too (left as they are, for
/// the operator: two registrations of one mailbox).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Normalized {
    /// Files rewritten or moved.
    pub changed: usize,
    /// Files left where they are, each with the file that holds its
    /// normal form already.
    pub clashes: Vec<(String, String)>,
}

impl Robot {
    /// Whether the store's addresses were brought to their normal form
    /// (by this build, once; a store of no earlier build is so from its
    /// first look).
    pub fn stored_addresses_normal(&self) -> bool {
        self.root().join(DONE).is_file()
    }

    /// Brings the store's addresses to their normal form, once (see the
    /// module). `None` when it was done before.
    pub fn normalize_stored_addresses(&self) -> io::Result<Option<Normalized>> {
        let root = self.root().to_path_buf();
        if root.join(DONE).is_file() {
            return Ok(None);
        }
        let mut step = Step {
            root: &root,
            done: Normalized::default(),
        };
        step.players()?;
        step.key_books()?;
        step.key_owners()?;
        step.games()?;
        crate::store::atomic::write(&root.join(DONE), b"", true)?;
        Ok(Some(step.done))
    }
}

struct Step<'a> {
    root: &'a Path,
    done: Normalized,
}

impl Step<'_> {
    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The names in folder `rel`, sorted (none if there is no folder).
    fn names(&self, rel: &str) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        match std::fs::read_dir(self.path(rel)) {
            Ok(entries) => {
                for entry in entries {
                    if let Some(name) = entry?.file_name().to_str() {
                        names.push(name.to_owned());
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        names.sort();
        Ok(names)
    }

    /// The files of folder `rel` whose names end in `.yaml`, by name.
    fn yaml_files(&self, rel: &str) -> io::Result<Vec<String>> {
        let mut names = self.names(rel)?;
        names.retain(|n| n.ends_with(".yaml"));
        Ok(names)
    }

    /// Copies `rel` into the backup, once (a step taken again keeps the
    /// first copy: the file as the earlier build left it).
    fn back_up(&self, rel: &str) -> io::Result<()> {
        let to = self.path(BACKUP).join(rel);
        if to.exists() || !self.path(rel).exists() {
            return Ok(());
        }
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::copy(self.path(rel), &to).map(drop)
    }

    /// Writes `text` at `rel`, the file there backed up first.
    fn rewrite(&mut self, rel: &str, text: &str) -> io::Result<()> {
        self.back_up(rel)?;
        crate::store::atomic::write(&self.path(rel), text.as_bytes(), true)?;
        self.done.changed += 1;
        Ok(())
    }

    /// Writes `text`, what the file `from` becomes, at `to` (backed up
    /// first), unless `to` holds something else already: then it is a
    /// clash, left as it is, and false. `same` says whether what `to` holds
    /// is that text (the step was cut after writing it). The file `from`
    /// stays until [`Step::retire`]: what goes with it moves first, so a
    /// step cut between finds it again.
    fn place(
        &mut self,
        from: &str,
        to: &str,
        text: &str,
        same: impl FnOnce(&str) -> bool,
    ) -> io::Result<bool> {
        if from == to {
            self.rewrite(to, text)?;
            return Ok(true);
        }
        if let Ok(there) = std::fs::read_to_string(self.path(to)) {
            if !same(&there) {
                self.done.clashes.push((from.to_owned(), to.to_owned()));
                return Ok(false);
            }
        } else {
            self.rewrite(to, text)?;
        }
        Ok(true)
    }

    /// Removes `from`, placed at `to` (backed up first), the step's last
    /// move for it.
    fn retire(&mut self, from: &str, to: &str) -> io::Result<()> {
        if from != to {
            self.back_up(from)?;
            std::fs::remove_file(self.path(from))?;
            self.done.changed += 1;
        }
        Ok(())
    }

    /// Moves what is kept under the key `from` (a player's register of
    /// games, her rate counts) to the key `to`, where nothing is yet.
    fn move_keyed(&mut self, from: &str, to: &str) -> io::Result<()> {
        let mut places = vec!["robot/register".to_owned()];
        for name in self.names("robot/rate")? {
            places.push(format!("robot/rate/{name}"));
        }
        for place in places {
            let (old, new) = (self.path(&place).join(from), self.path(&place).join(to));
            if old.exists() && !new.exists() {
                std::fs::rename(&old, &new)?;
                // Durable before the player file that finds them goes.
                #[cfg(unix)]
                std::fs::File::open(self.path(&place))?.sync_all()?;
                self.done.changed += 1;
            }
        }
        Ok(())
    }

    fn players(&mut self) -> io::Result<()> {
        // A player moved by a step cut before her register and counts
        // followed her (the first version of the step removed her old file
        // first): found from the copy kept aside.
        let aside = format!("{BACKUP}/robot/players");
        for name in self.yaml_files(&aside)? {
            if self.path(&format!("robot/players/{name}")).exists() {
                continue;
            }
            if let Some(player) = read_yaml::<Player>(&self.path(&format!("{aside}/{name}"))) {
                let from = name.trim_end_matches(".yaml");
                self.move_keyed(from, &auth::address_key(&normal(&player.address)))?;
            }
        }
        for name in self.yaml_files("robot/players")? {
            let rel = format!("robot/players/{name}");
            let Some(mut player) = read_yaml::<Player>(&self.path(&rel)) else {
                continue;
            };
            let address = normal(&player.address);
            let to = super::player_path(&address);
            if to == rel && address == player.address {
                continue;
            }
            player.address = address.clone();
            let Ok(text) = serde_yaml_ng::to_string(&player) else {
                continue;
            };
            let placed = self.place(&rel, &to, &text, |there| {
                serde_yaml_ng::from_str::<Player>(there).is_ok_and(|p| p == player)
            })?;
            if placed {
                let from = name.trim_end_matches(".yaml");
                self.move_keyed(from, &auth::address_key(&address))?;
                self.retire(&rel, &to)?;
            }
        }
        Ok(())
    }

    fn key_books(&mut self) -> io::Result<()> {
        for name in self.yaml_files("robot/keys")? {
            let rel = format!("robot/keys/{name}");
            let Some(mut book) = read_yaml::<KeyBook>(&self.path(&rel)) else {
                continue;
            };
            let address = normal(&book.address);
            let to = super::keybook::book_path(&address);
            if to == rel && address == book.address {
                continue;
            }
            book.address = address;
            let Ok(text) = serde_yaml_ng::to_string(&book) else {
                continue;
            };
            if self.place(&rel, &to, &text, |there| {
                serde_yaml_ng::from_str::<KeyBook>(there).is_ok_and(|b| b == book)
            })? {
                self.retire(&rel, &to)?;
            }
        }
        Ok(())
    }

    /// `robot/keys/key-HEX`: the address a witnessed game's key is bound
    /// to, one line.
    fn key_owners(&mut self) -> io::Result<()> {
        let mut names = self.names("robot/keys")?;
        names.retain(|n| n.starts_with("key-"));
        for name in names {
            let rel = format!("robot/keys/{name}");
            let Ok(text) = std::fs::read_to_string(self.path(&rel)) else {
                continue;
            };
            let owner = normal(text.trim());
            if owner != text.trim() && !owner.is_empty() {
                self.rewrite(&rel, &format!("{owner}\n"))?;
            }
        }
        Ok(())
    }

    fn games(&mut self) -> io::Result<()> {
        for id in self.names("games")? {
            let rel = super::meta_path(&id);
            let Some(mut meta) = read_yaml::<GameMeta>(&self.path(&rel)) else {
                continue;
            };
            let before = meta.clone();
            meta.challenger = normal(&meta.challenger);
            meta.invited = meta.invited.as_deref().map(normal);
            for seat in &mut meta.seats {
                *seat = normal(seat);
            }
            for binding in &mut meta.bound {
                binding.address = normal(&binding.address);
            }
            if meta != before
                && let Ok(text) = serde_yaml_ng::to_string(&meta)
            {
                self.rewrite(&rel, &text)?;
            }
        }
        Ok(())
    }
}

/// The YAML file at `path`, parsed; `None` if it cannot be read or parsed
/// (such a file is said unreadable where it is used, as before).
fn read_yaml<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn player(address: &str, token: &str) -> Player {
        Player {
            address: address.into(),
            token_sha256: token.into(),
            identity: "p-bo".into(),
            games: vec!["g1".into()],
            registered: 1,
            unheard: false,
        }
    }

    /// A robot on the store at `root`.
    fn robot_on(root: &Path) -> Robot {
        Robot::new(
            Store::open(root).unwrap(),
            "robot@yam.test",
            super::super::Settings::default(),
            0,
        )
        .unwrap()
    }

    /// The key an earlier build filed `address` under: the first 16 hex
    /// digits of the SHA-256 of the address as it was written.
    fn earlier_key(address: &str) -> String {
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(address.as_bytes()))[..16].to_owned()
    }

    fn put(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A step cut after writing a player at her new key, taken again,
    /// only removes the old file; a second registration of one mailbox in
    /// another form is left where it is and named; once done, the step is
    /// not taken again.
    #[test]
    fn the_step_taken_twice_moves_once_and_leaves_two_registrations_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let robot = robot_on(root);
        let (earlier, now) = ("bo@xn--bcher-kva.example", "bo@bücher.example");
        let old_rel = format!("robot/players/{}.yaml", earlier_key(earlier));
        assert_ne!(old_rel, super::super::player_path(now));
        let yaml = |p: &Player| serde_yaml_ng::to_string(p).unwrap();
        put(root, &old_rel, &yaml(&player(earlier, "aa")));
        // Cut after writing the new file: the same player already there.
        put(
            root,
            &super::super::player_path(now),
            &yaml(&player(now, "aa")),
        );
        // Another player, registered twice by the earlier build.
        let (cy_earlier, cy_now) = ("cy@xn--bcher-kva.example", "cy@bücher.example");
        let cy_old = format!("robot/players/{}.yaml", earlier_key(cy_earlier));
        put(root, &cy_old, &yaml(&player(cy_earlier, "bb")));
        put(
            root,
            &super::super::player_path(cy_now),
            &yaml(&player(cy_now, "cc")),
        );
        let done = robot.normalize_stored_addresses().unwrap().unwrap();
        assert!(!root.join(&old_rel).exists(), "the old file removed");
        assert!(root.join(BACKUP).join(&old_rel).exists(), "and kept aside");
        assert_eq!(
            done.clashes,
            vec![(cy_old.clone(), super::super::player_path(cy_now))]
        );
        assert!(root.join(&cy_old).exists(), "a clash is left as it is");
        assert_eq!(robot.normalize_stored_addresses().unwrap(), None, "once");
    }

    /// Real life (a crash, a power cut): the step is cut after a player
    /// file was moved to its new key (written there, the old one
    /// removed) and before her register and rate counts followed it
    /// (`move_keyed`). The step is taken again at the next look, as the
    /// docs promise ("each move in it can be taken twice"), but it finds
    /// her from her old player file alone, which is gone: her register
    /// (the signed opening of every game she started, which `list` counts
    /// so that restarts until the cards are kind are seen) stays under the
    /// old key for good, and her rate counts with it.
    #[test]
    fn a_step_cut_after_a_player_moved_still_moves_her_register() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let robot = robot_on(root);
        let (earlier, now) = ("bo@xn--bcher-kva.example", "bo@bücher.example");
        let old_key = earlier_key(earlier);
        let new_key = auth::address_key(now);
        let yaml = |p: &Player| serde_yaml_ng::to_string(p).unwrap();
        // As the earlier build left it: player, register, a rate count.
        put(
            root,
            &format!("robot/players/{old_key}.yaml"),
            &yaml(&player(earlier, "aa")),
        );
        put(
            root,
            &format!("robot/register/{old_key}/g1.yam"),
            "opening\n",
        );
        put(root, &format!("robot/rate/invitations/{old_key}"), "3\n");
        // The step, cut after its first move: the player file is at its
        // new key and gone from the old one; nothing else moved yet.
        put(
            root,
            &super::super::player_path(now),
            &yaml(&player(now, "aa")),
        );
        // (The first version of the step kept the old file aside, then
        // removed it, then moved her register and counts.)
        put(
            root,
            &format!("{BACKUP}/robot/players/{old_key}.yaml"),
            &yaml(&player(earlier, "aa")),
        );
        std::fs::remove_file(root.join(format!("robot/players/{old_key}.yaml"))).unwrap();
        // The next look takes the step again.
        robot.normalize_stored_addresses().unwrap();
        assert!(
            root.join(format!("robot/register/{new_key}/g1.yam"))
                .exists(),
            "Bo's register follows him to his new key (still at the old one: {})",
            root.join(format!("robot/register/{old_key}")).exists()
        );
        assert!(
            root.join(format!("robot/rate/invitations/{new_key}"))
                .exists(),
            "and his rate counts"
        );
    }
}
