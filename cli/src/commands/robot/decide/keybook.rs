//! Which key speaks for which address, for games the robot witnesses.
//!
//! A witnessed game binds each of its keys to the address whose mail first
//! brought an event signed by it, but `From:` is anyone's to write. So that
//! binding only says where the game's mails came from. What a player's
//! register holds, and where the robot mails reminders and forfeit notices,
//! follows her *known* keys: a key becomes known for an address when a mail
//! from that address hands back a code the robot mailed to it (a
//! confirmation), which a forger who only knows the address never sees.
//!
//! - The first signed event (or card) from an address with no known key
//!   makes its key a candidate: the robot mails the address a random code
//!   (64 bits; only its SHA-256 is kept) naming the game and the key's
//!   fingerprint. A mail from the address with the line `confirm CODE`
//!   makes the key hers, with every game it signed.
//! - An address with a known key gets no mail about a game signed by
//!   another key, and such a game never enters her register: it is kept
//!   under its key alone (`robot/register/key-HEX/`). A new key of hers (a
//!   new machine) is confirmed the same way from her card
//!   (`yam identity send ROBOT-ADDRESS`), which she sends herself.
//! - A key known for one address is never a candidate for another from a
//!   game's mail (a key speaks for one address).
//! - At most [`MAX_PENDING`] codes wait per address, each mailed once and
//!   good for [`PENDING_DAYS`] days, the oldest giving way to a new one;
//!   what is mailed to an address is bounded by the day's confirmations to
//!   it: a forger cannot make the robot mail an address without end, nor
//!   keep the owner's own key from its confirmation.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use yam_referee::fair_play::sign::PublicKey;

use super::super::auth;
use super::super::hygiene;
use super::{OutMail, Robot, Work};

/// Codes waiting per address, at most.
pub const MAX_PENDING: usize = hygiene::CONFIRMATIONS_PER_DAY as usize;

/// Days a code is good for.
pub const PENDING_DAYS: u64 = 30;

/// An address's keys (`robot/keys/ADDRESS-KEY.yaml`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyBook {
    /// The address, lower case.
    pub address: String,
    /// Its known keys (hex), confirmed through the address.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Keys waiting for the address's confirmation.
    #[serde(default)]
    pub pending: Vec<Pending>,
}

/// A key waiting for its address's confirmation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// The key, hex.
    pub key: String,
    /// SHA-256 of the code mailed to the address, hex.
    pub code_sha256: String,
    /// When the code was mailed (seconds since 1970).
    pub since: u64,
    /// The witnessed games whose mails from the address it signed.
    #[serde(default)]
    pub games: Vec<String>,
}

/// Why a key was made a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source<'a> {
    /// A signed event of this witnessed game.
    Game(&'a str),
    /// The player's card, mailed to the robot.
    Card,
}

pub(super) fn book_path(address: &str) -> String {
    format!("robot/keys/{}.yaml", auth::address_key(address))
}

fn owner_path(key_hex: &str) -> String {
    format!("robot/keys/key-{key_hex}")
}

/// Where a witnessed game's signed opening is kept for one of its keys.
pub fn key_register(key_hex: &str) -> String {
    format!("robot/register/key-{key_hex}")
}

fn code_hash(code: &str) -> String {
    hex::encode(Sha256::digest(code.trim().to_ascii_lowercase().as_bytes()))
}

fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The fingerprint of a key in hex, for the texts (never without the
/// address it claims).
fn fingerprint(key_hex: &str) -> String {
    let bytes: Option<[u8; 32]> = hex::decode(key_hex).ok().and_then(|b| b.try_into().ok());
    bytes
        .and_then(|b| PublicKey::from_bytes(&b).ok())
        .map_or_else(|| key_hex.to_owned(), |k| k.fingerprint().to_string())
}

impl Robot {
    /// The keys of `address`.
    pub(super) fn key_book(&self, work: &Work, address: &str) -> KeyBook {
        // A book that does not parse is noted, and nothing is decided on
        // it: taken for empty, its known keys would be written over.
        let rel = book_path(address);
        self.read(work, &rel)
            .and_then(|t| self.yaml(&rel, &t))
            .unwrap_or_else(|| KeyBook {
                address: address.to_owned(),
                ..KeyBook::default()
            })
    }

    fn put_key_book(&self, work: &mut Work, book: &KeyBook) {
        if let Ok(text) = serde_yaml_ng::to_string(book) {
            work.writes.insert(book_path(&book.address), text);
        }
    }

    /// The address `key_hex` is known for, if any.
    pub(super) fn key_owner(&self, work: &Work, key_hex: &str) -> Option<String> {
        self.read(work, &owner_path(key_hex))
            .map(|t| t.trim().to_owned())
            .filter(|a| !a.is_empty())
    }

    /// Whether `key_hex` is a known key of `address`.
    pub(super) fn known_key(&self, work: &Work, address: &str, key_hex: &str) -> bool {
        self.key_book(work, address)
            .keys
            .iter()
            .any(|k| k == key_hex)
    }

    /// A key seen speaking for `address` (`mail_key` names the mail that
    /// brought it): nothing when it is hers; otherwise a candidate, with a
    /// confirmation mailed to the address when the rules above allow one.
    pub(super) fn vouch(
        &self,
        work: &mut Work,
        mail_key: &str,
        address: &str,
        key_hex: &str,
        source: Source<'_>,
    ) {
        let mut book = self.key_book(work, address);
        if book.keys.iter().any(|k| k == key_hex) {
            return;
        }
        let what = match source {
            Source::Game(id) => format!("{id}: "),
            Source::Card => "card: ".to_owned(),
        };
        let fp = fingerprint(key_hex);
        let live = |p: &Pending| self.now < p.since + PENDING_DAYS * 86_400;
        // A code already waiting for this key covers this game too: each
        // key is mailed about once.
        if let Some(p) = book
            .pending
            .iter_mut()
            .find(|p| p.key == key_hex && live(p))
        {
            if let Source::Game(id) = source
                && !p.games.iter().any(|g| g == id)
            {
                p.games.push(id.to_owned());
                self.put_key_book(work, &book);
            }
            return;
        }
        if let Source::Game(id) = source {
            if !book.keys.is_empty() {
                work.log.push(format!(
                    "{what}key {fp} is not the known key of {address}: the game is kept under the key, not in {address}'s register, and {address} is not mailed about it"
                ));
                return;
            }
            if let Some(owner) = self.key_owner(work, key_hex) {
                work.log.push(format!(
                    "{id}: key {fp} is known for {owner}, not {address}: the game is kept under the key"
                ));
                return;
            }
        }
        book.pending.retain(|p| live(p));
        // A mail to an address a signed mail named, which anyone with a key
        // may write: limited like every answer to mail nobody
        // authenticated (a few a day to an address, the hour's total).
        if !self.may_answer_unauthenticated(work, mail_key, hygiene::Answer::Confirmation, address)
        {
            return;
        }
        // Full: the oldest code gives way. Refused instead, three cards a
        // forger signed in her name kept the owner's own key from ever
        // being confirmed (three mails a month renewed the block); the
        // day's limit above bounds what is mailed to her either way.
        if book.pending.len() >= MAX_PENDING {
            book.pending.sort_by_key(|p| p.since);
            let gone = book.pending.remove(0);
            work.log.push(format!(
                "{what}key {fp} claims {address}, which had {MAX_PENDING} confirmations waiting: the oldest (key {}) gives way",
                fingerprint(&gone.key)
            ));
        }
        // Sealed like a token: the plan that mails it never holds it.
        let code = match self.new_token(work, address) {
            Ok(c) => c,
            Err(e) => {
                work.log.push(format!("error: {e}"));
                return;
            }
        };
        book.pending.push(Pending {
            key: key_hex.to_owned(),
            code_sha256: code_hash(&code),
            since: self.now,
            games: match source {
                Source::Game(id) => vec![id.to_owned()],
                Source::Card => Vec::new(),
            },
        });
        self.put_key_book(work, &book);
        let about = match source {
            Source::Game(id) => format!(
                "The Yam robot {} witnesses the game {id}, named by its players as their referee. A mail of\n\
                 that game from your address was signed by the key\n\n    {fp}\n\n",
                self.address
            ),
            Source::Card => format!(
                "The Yam robot {} received a Yam card from your address with the key\n\n    {fp}\n\n",
                self.address
            ),
        };
        let body = format!(
            "{about}If that is your key (`yam identity show` prints your fingerprint), reply to this mail with the line\n\n\
             \x20   confirm {code}\n\n\
             Then the robot knows the key as yours: its games enter your register (`list`), and the\n\
             robot mails you their reminders. Until then it keeps them under the key alone and\n\
             mails you nothing about them.\n\n\
             If you know nothing of this, ignore this mail: someone else wrote your address, and\n\
             nothing is done in your name. The code is good for {PENDING_DAYS} days.\n"
        );
        let n = work.mails.len();
        work.mails.push(OutMail {
            to: vec![address.to_owned()],
            subject: "[Yam] Is this key yours? A confirmation from the Yam robot".to_owned(),
            body,
            message_id: self.message_id(mail_key, n, None),
            in_reply_to: None,
            references: Vec::new(),
            game: None,
            attachment: None,
        });
        work.log.push(format!(
            "{what}key {fp} claims {address}: a confirmation is mailed to {address}"
        ));
    }

    /// A mail handing back a confirmation code of its sender: the key
    /// becomes hers, with its games. False when the mail carries no code
    /// of its sender (it is then an ordinary mail).
    pub(super) fn confirm(&self, work: &mut Work, mail_key: &str, from: &str, body: &str) -> bool {
        let codes: Vec<&str> = super::super::command::unquoted(body)
            .into_iter()
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                let verb = words.next()?;
                verb.trim_end_matches(':')
                    .eq_ignore_ascii_case("confirm")
                    .then(|| words.next())
                    .flatten()
            })
            .collect();
        if codes.is_empty() {
            return false;
        }
        let mut book = self.key_book(work, from);
        let now = self.now;
        let Some(at) = book.pending.iter().position(|p| {
            now < p.since + PENDING_DAYS * 86_400
                && codes.iter().any(|c| same(&code_hash(c), &p.code_sha256))
        }) else {
            // A wrong or stale code is not answered: the From may be forged.
            if !book.pending.is_empty() {
                work.log.push(format!(
                    "ignored {mail_key} from {from}: no confirmation code of {from} waits with that code"
                ));
                return true;
            }
            return false;
        };
        let pending = book.pending.remove(at);
        let key_hex = pending.key.clone();
        if !book.keys.contains(&key_hex) {
            book.keys.push(key_hex.clone());
        }
        self.put_key_book(work, &book);
        work.writes
            .insert(owner_path(&key_hex), format!("{from}\n"));
        // Its games: those it signed from this address, opened or not.
        let mut games = pending.games.clone();
        for id in self.games_under_key(&key_hex) {
            if !games.contains(&id) {
                games.push(id);
            }
        }
        let mut mine = Vec::new();
        for id in games {
            let Some(meta) = self.meta(work, &id) else {
                continue;
            };
            if !meta
                .bound
                .iter()
                .any(|b| b.key == key_hex && b.address == from)
            {
                continue;
            }
            self.refresh_seats(work, &id);
            mine.push(id);
        }
        let opened: Vec<String> = self
            .games_under_key(&key_hex)
            .into_iter()
            .filter(|id| mine.contains(id))
            .collect();
        if let Some(mut player) = self.player(work, from) {
            for id in &opened {
                if !player.games.contains(id) {
                    player.games.push(id.clone());
                }
            }
            self.put_player(work, &player);
        }
        let fp = fingerprint(&key_hex);
        work.log.push(format!(
            "{from} confirmed key {fp}; its games: {}",
            if mine.is_empty() {
                "none yet".to_owned()
            } else {
                mine.join(", ")
            }
        ));
        let body = format!(
            "Confirmed: the key {fp} is yours for the Yam robot.\n\n{}",
            if mine.is_empty() {
                "The games you play with it and name the robot as referee will be in your register.\n"
                    .to_owned()
            } else {
                format!(
                    "Its games witnessed by the robot: {}. They are in your register (`list`).\n",
                    mine.join(", ")
                )
            }
        );
        let n = work.mails.len();
        work.mails.push(OutMail {
            to: vec![from.to_owned()],
            subject: "[Yam] Your key is confirmed".to_owned(),
            body,
            message_id: self.message_id(mail_key, n, None),
            in_reply_to: None,
            references: Vec::new(),
            game: None,
            attachment: None,
        });
        true
    }

    /// The witnessed games kept under a key (their signed openings).
    pub(super) fn games_under_key(&self, key_hex: &str) -> Vec<String> {
        let rel = key_register(key_hex);
        self.touched.borrow_mut().insert(rel.clone());
        list_yam(&self.root().join(rel))
    }
}

/// The `ID` of every `ID.yam` in `dir`, sorted.
pub(super) fn list_yam(dir: &std::path::Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| {
                    e.file_name()
                        .to_str()
                        .and_then(|n| n.strip_suffix(".yam"))
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_compare_by_their_hash() {
        let h = code_hash("ABCDEF0123456789");
        assert!(same(&h, &code_hash("abcdef0123456789")));
        assert!(!same(&h, &code_hash("abcdef0123456788")));
        assert!(!h.contains("abcdef"));
    }
}
