//! Who is who: identity cards exchanged by mail, and the keys of the
//! players met so far, remembered on first use.
//!
//! A challenge names the invited player by key, so two players who have
//! never met exchange keys first: each side's card (name, address, public
//! key, signed by that key) travels in an ordinary turn block. The first
//! card seen from an address is remembered with its fingerprint shown
//! (trust on first use, as ssh does); a later card from the same address
//! with another key is refused loudly, because that is what an attacker
//! who controls the mail would send. Players who want more compare the
//! fingerprints by another channel (a phone call, a club's web page).
//!
//! A player who changes address sends a card from the new address, signed
//! by the key already known: the key's owner vouches for the address, so
//! the contact and every game with them move to it (shown to the user). A
//! card is dated (`issued`, under a second signature, in lines that an
//! earlier Yam ignores), and only a card newer than the one that bound the
//! key moves it: an old card of the player's, replayed from an old address
//! under a forged `From`, moves nothing. An undated card (from an earlier
//! Yam) never moves a key.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use yam_referee::fair_play::sign::{PublicKey, Signature, SigningKey};

use super::address::normal;
use crate::store::atomic;

/// The first line of a card's text.
const CARD_MAGIC: &str = "YAM-CARD 1";
/// What a card's signature covers, before its fields: no other signed
/// message of Yam starts with these bytes.
const CARD_DOMAIN: &[u8] = b"yam-card-v1\0";
/// What a card's date signature covers, before its fields and the date.
const ISSUED_DOMAIN: &[u8] = b"yam-card-issued-v1\0";

/// A player's identity card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// The name the player goes by.
    pub name: String,
    /// Its mail address, lower case.
    pub address: String,
    /// Its public key.
    pub key: PublicKey,
    /// When it was issued, seconds since 1970-01-01 UTC; 0 for a card of
    /// an earlier Yam, which is undated.
    pub issued: u64,
}

fn signed_bytes(name: &str, address: &str, key: &PublicKey) -> Vec<u8> {
    let mut bytes = CARD_DOMAIN.to_vec();
    for field in [name.as_bytes(), address.as_bytes(), key.as_bytes()] {
        bytes.extend_from_slice(&u32::try_from(field.len()).unwrap_or(u32::MAX).to_be_bytes());
        bytes.extend_from_slice(field);
    }
    bytes
}

fn issued_bytes(name: &str, address: &str, key: &PublicKey, issued: u64) -> Vec<u8> {
    let mut bytes = ISSUED_DOMAIN.to_vec();
    bytes.extend_from_slice(&signed_bytes(name, address, key)[CARD_DOMAIN.len()..]);
    bytes.extend_from_slice(&issued.to_be_bytes());
    bytes
}

/// Whether `text` looks like a card (and not a record).
pub fn is_card(text: &[u8]) -> bool {
    text.starts_with(CARD_MAGIC.as_bytes())
}

impl Card {
    /// The card's text, signed by `key` (which must be the card's key).
    pub fn signed_text(&self, key: &SigningKey) -> String {
        let signature = key.sign(&signed_bytes(&self.name, &self.address, &self.key));
        let mut text = format!(
            "{CARD_MAGIC}\nname: {}\naddress: {}\nkey: {}\nsignature: {}\n",
            self.name,
            self.address,
            hex::encode(self.key.as_bytes()),
            hex::encode(signature.to_bytes()),
        );
        if self.issued > 0 {
            let dated = key.sign(&issued_bytes(
                &self.name,
                &self.address,
                &self.key,
                self.issued,
            ));
            text.push_str(&format!(
                "issued: {}\nissued-signature: {}\n",
                self.issued,
                hex::encode(dated.to_bytes())
            ));
        }
        text
    }

    /// Reads and checks a card's text: its fields and its signature.
    pub fn read(text: &[u8]) -> Result<Card, CardError> {
        let text = std::str::from_utf8(text).map_err(|_| CardError::NotUtf8)?;
        let mut lines = text.lines();
        if lines.next() != Some(CARD_MAGIC) {
            return Err(CardError::NotACard);
        }
        let mut field = |name: &'static str| -> Result<String, CardError> {
            let line = lines.next().ok_or(CardError::MissingLine(name))?;
            line.strip_prefix(name)
                .and_then(|l| l.strip_prefix(": "))
                .map(str::to_owned)
                .ok_or_else(|| CardError::BadLine {
                    name,
                    found: line.to_owned(),
                })
        };
        let name = field("name")?;
        let written = field("address")?;
        // The address is printed and stored as it stands (it must equal
        // the mail's sender): no white space, no control character, which
        // no mail address has and which a terminal would obey.
        // Nor an invisible character that reorders or hides text (a
        // bidirectional override, a zero-width mark): printed in a log or
        // a refusal, it rewrote the operator's line
        // (`a_card_naming_an_address_with_invisible_controls_is_not_logged_as_it_stands`).
        if written.contains(|c: char| c.is_whitespace() || c.is_control() || is_unprintable(c)) {
            return Err(CardError::BadLine {
                name: "address",
                found: written.to_ascii_lowercase(),
            });
        }
        let key_hex = field("key")?;
        let signature_hex = field("signature")?;
        let key_bytes: [u8; 32] = hex::decode(&key_hex)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(CardError::KeyNotHex)?;
        let key = PublicKey::from_bytes(&key_bytes).map_err(CardError::Key)?;
        let signature_bytes: [u8; 64] = hex::decode(&signature_hex)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(CardError::SignatureNotHex)?;
        let signature = Signature::from_bytes(signature_bytes);
        // The signature covers the address as its desk wrote it: in the
        // normal form (`address::normal`) since the forty-first step, in
        // ASCII lower case before, and a card's text whose ASCII letters
        // were raised since (a hand copy) was read against its lower-cased
        // form, so both are still read. Everything after compares the
        // normal form.
        let signed = [written.clone(), written.to_ascii_lowercase()]
            .into_iter()
            .find(|a| {
                key.verify(&signed_bytes(&name, a, &key), &signature)
                    .is_ok()
            })
            .ok_or(CardError::Signature)?;
        let address = normal(&written);
        if name.trim().is_empty() || !address.contains('@') {
            return Err(CardError::Incomplete);
        }
        // The date, when there is one, is under its own signature.
        let issued = match lines.next() {
            None | Some("") => 0,
            Some(line) => {
                let issued = line
                    .strip_prefix("issued: ")
                    .and_then(|n| n.parse::<u64>().ok())
                    .ok_or_else(|| CardError::BadLine {
                        name: "issued",
                        found: line.to_owned(),
                    })?;
                let line = lines
                    .next()
                    .ok_or(CardError::MissingLine("issued-signature"))?;
                let dated: [u8; 64] = line
                    .strip_prefix("issued-signature: ")
                    .and_then(|h| hex::decode(h).ok())
                    .and_then(|b| b.try_into().ok())
                    .ok_or(CardError::SignatureNotHex)?;
                key.verify(
                    &issued_bytes(&name, &signed, &key, issued),
                    &Signature::from_bytes(dated),
                )
                .map_err(|_| CardError::Signature)?;
                issued
            }
        };
        // The name is someone else's text, printed on the player's terminal
        // and written into records: no escape sequence may rewrite what the
        // terminal shows (a faked fingerprint line), no line break may end a
        // tag.
        let name = clean_text(&name);
        Ok(Card {
            name,
            address,
            key,
            issued,
        })
    }
}

/// Whether a character must not reach a terminal as it stands: a control
/// character (escape sequences, carriage returns, NUL) or an invisible one
/// that reorders or hides text (bidirectional marks, zero-width spaces).
pub fn is_unprintable(c: char) -> bool {
    c.is_control() || yam_notation::is_hidden(c)
}

/// Someone else's text made harmless to print and to store: control
/// characters (escape sequences, carriage returns, line breaks, tabs) and
/// the invisible formatting characters that reorder or hide text (bidi
/// overrides, zero-width marks) each become U+FFFD; at most 200
/// characters are kept.
pub fn clean_text(text: &str) -> String {
    const MAX: usize = 200;
    let mut out: String = text
        .trim()
        .chars()
        .take(MAX)
        .map(|c| if is_unprintable(c) { '\u{FFFD}' } else { c })
        .collect();
    if text.trim().chars().count() > MAX {
        out.push('…');
    }
    out
}

/// Why a card could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    /// Not UTF-8.
    #[error("the card is not UTF-8")]
    NotUtf8,
    /// Not a card at all.
    #[error("a card starts with {CARD_MAGIC:?}")]
    NotACard,
    /// A field's line is missing.
    #[error("the card has no {0} line")]
    MissingLine(&'static str),
    /// A field's line is not `name: value`.
    #[error("expected `{name}: ...`, found {found:?}")]
    BadLine {
        /// The field expected.
        name: &'static str,
        /// The line found.
        found: String,
    },
    /// The key is not 32 bytes of hex.
    #[error("the card's key is not 32 bytes of hex")]
    KeyNotHex,
    /// The key is not a valid public key.
    #[error("the card's key: {0}")]
    Key(yam_referee::fair_play::sign::KeyError),
    /// The signature is not 64 bytes of hex.
    #[error("the card's signature is not 64 bytes of hex")]
    SignatureNotHex,
    /// The signature does not verify under the card's key.
    #[error("the card's signature does not match its key")]
    Signature,
    /// A name or an address is missing.
    #[error("a card names a player and a mail address")]
    Incomplete,
}

/// Why the contacts file could not be used, or a card not remembered.
#[derive(Debug, thiserror::Error)]
pub enum ContactsError {
    /// It could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not the YAML it should be.
    #[error("{}: {source}", path.display())]
    Yaml {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_yaml_ng::Error,
    },
    /// A known address presents another key.
    #[error(
        "{address} presents the key {presented}, but the key remembered for that address is {remembered}: someone may be impersonating them. If they really have a new key, confirm its fingerprint with them by another channel and run `yam identity forget {address}`"
    )]
    KeyChanged {
        /// The address.
        address: String,
        /// The key's fingerprint in the card.
        presented: String,
        /// The fingerprint remembered.
        remembered: String,
    },
    /// A known key presents itself from a new address with a card no
    /// newer than the one that bound it (an old card replayed, or a card
    /// of an earlier Yam, which is undated).
    #[error(
        "{address} presents the key of {name} <{known}> with a card that is not newer than the one known ({why}): the address is not changed. If {name} has moved, ask them to send their card from the new address with this Yam (`yam identity send`)"
    )]
    StaleMove {
        /// The new address.
        address: String,
        /// The contact's name.
        name: String,
        /// The address the key is bound to.
        known: String,
        /// Why the card does not move it.
        why: String,
    },
}

/// A player met before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contact {
    /// The mail address, in its normal form (`address::normal`; an
    /// earlier build wrote it in ASCII lower case, put in the normal form
    /// as the file is read).
    pub address: String,
    /// The name from the card.
    pub name: String,
    /// The public key, hex.
    pub key: String,
    /// The key's fingerprint, as shown when it was first seen.
    pub fingerprint: String,
    /// When the newest card read from them was issued (0: undated, or a
    /// contacts file of an earlier Yam): a card must be newer to move them
    /// to another address.
    #[serde(default)]
    pub issued: u64,
    /// The addresses they moved from, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub former: Vec<String>,
    /// When my card was last sent in answer to one of theirs (seconds since
    /// 1970; 0: never, or a contacts file of an earlier Yam): a card of
    /// theirs replayed under new Message-IDs is answered at most once a day.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub answered: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Contact {
    /// The contact's public key.
    pub fn public_key(&self) -> Option<PublicKey> {
        PublicKey::from_hex(&self.key)
    }
}

/// The contacts file.
#[derive(Debug)]
pub struct Contacts {
    path: PathBuf,
    list: Vec<Contact>,
    /// The file's modification time and length when `list` was read or
    /// written: what [`Contacts::refresh`] compares.
    stamp: Option<(std::time::SystemTime, u64)>,
}

/// What remembering a card did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remembered {
    /// A new contact.
    New,
    /// The same key as before.
    Known,
    /// A known key from a new address: the contact moved there.
    Moved {
        /// The address it moved from.
        from: String,
    },
}

impl Contacts {
    /// The contacts of the data directory `data`.
    pub fn open(data: &Path) -> Result<Contacts, ContactsError> {
        let path = data.join("contacts.yaml");
        let stamp = stamp_of(&path);
        let list = read_list(&path)?;
        Ok(Contacts { path, list, stamp })
    }

    /// Reads the contacts again when another command changed the file
    /// since (its modification time or length differ): a desk that keeps
    /// reading (`yam read --watch`) decided with the contacts of its
    /// start, and took a challenge signed with a key the player had
    /// forgotten meanwhile (`yam identity forget` in another terminal)
    /// as from a known contact. One `stat` a mail when nothing changed.
    pub fn refresh(&mut self) -> Result<(), ContactsError> {
        let now = stamp_of(&self.path);
        if now != self.stamp {
            self.list = read_list(&self.path)?;
            self.stamp = now;
        }
        Ok(())
    }

    /// The contact at `address`.
    pub fn by_address(&self, address: &str) -> Option<&Contact> {
        let address = normal(address);
        self.list.iter().find(|c| c.address == address)
    }

    /// The contact with `key`.
    pub fn by_key(&self, key: &PublicKey) -> Option<&Contact> {
        let hex = hex::encode(key.as_bytes());
        self.list.iter().find(|c| c.key == hex)
    }

    /// Remembers `card` (trust on first use). A different key for a known
    /// address is refused: only `forget` makes room for it. A known key
    /// from a new address moves the contact there when the card is newer
    /// than the one that bound it.
    pub fn remember(&mut self, card: &Card) -> Result<Remembered, ContactsError> {
        self.update(|list| remember_in(list, card))
    }

    /// Forgets the contact at `address`; whether there was one.
    pub fn forget(&mut self, address: &str) -> Result<bool, ContactsError> {
        let address = normal(address);
        self.update(|list| {
            let before = list.len();
            list.retain(|c| c.address != address);
            let changed = list.len() != before;
            Ok((changed, changed))
        })
    }

    /// Notes that my card was sent in answer to the contact at `address`
    /// at `now`.
    pub fn note_answered(&mut self, address: &str, now: u64) -> Result<(), ContactsError> {
        let address = normal(address);
        self.update(|list| {
            let known = list.iter_mut().find(|c| c.address == address);
            let changed = known.is_some();
            if let Some(contact) = known {
                contact.answered = now;
            }
            Ok(((), changed))
        })
    }

    /// Every contact.
    pub fn all(&self) -> &[Contact] {
        &self.list
    }

    /// One change to the contacts, made to the file as it is now, under
    /// its lock: read again, changed, written (when `change` says it
    /// changed anything), and kept as this desk's list. A desk reads its
    /// contacts once per command, and `yam read --watch` keeps one for
    /// hours: written back whole from that list, a change lost every
    /// contact another command (`yam read --eml`, `yam identity forget`)
    /// had remembered or forgotten meanwhile, and a forgotten key is a
    /// next card under any key taken for a new contact.
    fn update<T>(
        &mut self,
        change: impl FnOnce(&mut Vec<Contact>) -> Result<(T, bool), ContactsError>,
    ) -> Result<T, ContactsError> {
        let lock_path = self.path.with_file_name(LOCK);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ContactsError::Io { path, source }
        };
        let _lock = crate::store::lock_file(&lock_path).map_err(io(&lock_path))?;
        let mut list = read_list(&self.path)?;
        let (out, changed) = change(&mut list)?;
        if changed {
            let text = serde_yaml_ng::to_string(&list).map_err(|source| ContactsError::Yaml {
                path: self.path.clone(),
                source,
            })?;
            atomic::write(&self.path, text.as_bytes(), true).map_err(io(&self.path))?;
        }
        self.list = list;
        self.stamp = stamp_of(&self.path);
        Ok(out)
    }
}

/// A file's modification time and length, if it is there.
fn stamp_of(path: &Path) -> Option<(std::time::SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// The lock file beside the contacts, held while they change.
pub const LOCK: &str = ".contacts.lock";

/// The contacts file's list; none when there is no file yet.
fn read_list(path: &Path) -> Result<Vec<Contact>, ContactsError> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let mut list: Vec<Contact> =
                serde_yaml_ng::from_str(&text).map_err(|source| ContactsError::Yaml {
                    path: path.to_path_buf(),
                    source,
                })?;
            // An earlier build lower-cased ASCII only: its `Ümit@...` is
            // the `ümit@...` every comparison now uses, and is written so
            // with the file's next change.
            for contact in &mut list {
                contact.address = normal(&contact.address);
                for former in &mut contact.former {
                    *former = normal(former);
                }
            }
            Ok(list)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err(ContactsError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Remembers `card` in `list` (see [`Contacts::remember`]); what it did,
/// and whether the list changed.
fn remember_in(list: &mut Vec<Contact>, card: &Card) -> Result<(Remembered, bool), ContactsError> {
    let hex = hex::encode(card.key.as_bytes());
    let address = normal(&card.address);
    if let Some(known) = list.iter_mut().find(|c| c.address == address) {
        if known.key != hex {
            return Err(ContactsError::KeyChanged {
                address: card.address.clone(),
                presented: card.key.fingerprint().to_string(),
                remembered: known.fingerprint.clone(),
            });
        }
        let newer = card.issued > known.issued;
        if newer {
            known.issued = card.issued;
        }
        return Ok((Remembered::Known, newer));
    }
    if let Some(known) = list.iter_mut().find(|c| c.key == hex) {
        if card.issued == 0 || card.issued <= known.issued {
            return Err(ContactsError::StaleMove {
                address: card.address.clone(),
                name: known.name.clone(),
                known: known.address.clone(),
                why: if card.issued == 0 {
                    "it is undated, from an earlier Yam".to_owned()
                } else {
                    "it is older".to_owned()
                },
            });
        }
        let from = std::mem::replace(&mut known.address, card.address.clone());
        known.former.retain(|a| *a != card.address);
        known.former.push(from.clone());
        known.name.clone_from(&card.name);
        known.issued = card.issued;
        return Ok((Remembered::Moved { from }, true));
    }
    list.push(Contact {
        address: card.address.clone(),
        name: card.name.clone(),
        key: hex,
        fingerprint: card.key.fingerprint().to_string(),
        issued: card.issued,
        former: Vec::new(),
        answered: 0,
    });
    Ok((Remembered::New, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_others_are_made_harmless() {
        assert_eq!(clean_text("Ann"), "Ann");
        assert_eq!(
            clean_text("Bo\x1b[2K\rnew contact Eve"),
            "Bo\u{FFFD}[2K\u{FFFD}new contact Eve"
        );
        assert_eq!(clean_text("a\u{202E}txt"), "a\u{FFFD}txt");
        assert_eq!(clean_text(&"x".repeat(300)).chars().count(), 201);
        // A card whose name carries an escape sequence and a carriage
        // return still reads, with the name cleaned.
        let key = SigningKey::from_seed(&[4; 32]);
        let card = Card {
            name: "Bo\x1b[2K\rEve".into(),
            address: "bo@example.net".into(),
            key: key.public_key(),
            issued: 1,
        };
        let read = Card::read(card.signed_text(&key).as_bytes()).unwrap();
        assert!(!read.name.chars().any(char::is_control), "{:?}", read.name);
    }

    #[test]
    fn an_address_with_white_space_or_a_control_character_is_refused() {
        // Its owner's key signs it, but no mail address looks so, and the
        // address is printed as it stands (the refusal names it, escaped).
        for address in [
            "bo@example.net\x1b[2J",
            "bo@exa\rmple.net",
            "bo @example.net",
            "bo@example.net\u{85}",
        ] {
            let key = SigningKey::from_seed(&[5; 32]);
            let text = format!(
                "{CARD_MAGIC}\nname: Bo\naddress: {address}\nkey: {}\nsignature: {}\n",
                hex::encode(key.public_key().as_bytes()),
                hex::encode(
                    key.sign(&signed_bytes("Bo", address, &key.public_key()))
                        .to_bytes()
                ),
            );
            assert_eq!(
                Card::read(text.as_bytes()).unwrap_err(),
                CardError::BadLine {
                    name: "address",
                    found: address.to_ascii_lowercase()
                },
                "{address:?}"
            );
        }
    }

    fn card(seed: u8, address: &str) -> (Card, SigningKey) {
        dated(seed, address, 0)
    }

    fn dated(seed: u8, address: &str, issued: u64) -> (Card, SigningKey) {
        let key = SigningKey::from_seed(&[seed; 32]);
        (
            Card {
                name: "Ann".into(),
                address: address.into(),
                key: key.public_key(),
                issued,
            },
            key,
        )
    }

    #[test]
    fn a_dated_card_reads_back_and_its_date_cannot_be_changed() {
        let (card, key) = dated(1, "ann@example.org", 1_800_000_000);
        let text = card.signed_text(&key);
        assert_eq!(Card::read(text.as_bytes()).unwrap(), card);
        let later = text.replace("issued: 1800000000", "issued: 1900000000");
        assert_eq!(
            Card::read(later.as_bytes()).unwrap_err(),
            CardError::Signature
        );
        // An earlier Yam's reading: the four lines it knows, the rest
        // ignored; its signature alone still holds.
        let undated: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
        assert_eq!(Card::read(undated.as_bytes()).unwrap().issued, 0);
    }

    #[test]
    fn a_newer_card_signed_by_the_known_key_moves_the_contact_and_an_old_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let mut contacts = Contacts::open(dir.path()).unwrap();
        let (first, _) = dated(1, "ann@example.org", 100);
        assert_eq!(contacts.remember(&first).unwrap(), Remembered::New);
        let (moved, _) = dated(1, "ann@new.example", 200);
        assert_eq!(
            contacts.remember(&moved).unwrap(),
            Remembered::Moved {
                from: "ann@example.org".into()
            }
        );
        let reopened = Contacts::open(dir.path()).unwrap();
        let ann = reopened.by_address("ann@new.example").unwrap();
        assert_eq!(ann.former, vec!["ann@example.org".to_owned()]);
        assert!(reopened.by_address("ann@example.org").is_none());
        // Her old card, replayed from the old address, moves nothing.
        let err = contacts.remember(&first).unwrap_err();
        assert!(matches!(err, ContactsError::StaleMove { .. }), "{err}");
        assert!(err.to_string().contains("yam identity send"), "{err}");
        // An undated card (an earlier Yam's) never moves a key.
        let (undated, _) = dated(1, "ann@third.example", 0);
        assert!(contacts.remember(&undated).is_err());
        // Another key from the new address is still an impersonation.
        let (impostor, _) = dated(9, "ann@new.example", 300);
        assert!(matches!(
            contacts.remember(&impostor).unwrap_err(),
            ContactsError::KeyChanged { .. }
        ));
    }

    #[test]
    fn a_card_reads_back_and_a_changed_card_is_refused() {
        let (card, key) = card(1, "ann@example.org");
        let text = card.signed_text(&key);
        assert_eq!(Card::read(text.as_bytes()).unwrap(), card);
        let forged = text.replace("name: Ann", "name: Bob");
        assert!(Card::read(forged.as_bytes()).unwrap_err() == CardError::Signature);
        let other = SigningKey::from_seed(&[2; 32]);
        let wrong_signer = card.signed_text(&other);
        assert!(Card::read(wrong_signer.as_bytes()).is_err());
        assert!(Card::read(b"YAM-CARD 1\nname: x\n").is_err());
        assert!(Card::read(b"\xff\xfe").is_err());
    }

    #[test]
    fn the_first_key_is_remembered_and_another_for_the_same_address_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut contacts = Contacts::open(dir.path()).unwrap();
        let (ann, _) = card(1, "ann@example.org");
        assert_eq!(contacts.remember(&ann).unwrap(), Remembered::New);
        assert_eq!(contacts.remember(&ann).unwrap(), Remembered::Known);
        let (impostor, _) = card(9, "ann@example.org");
        let err = contacts.remember(&impostor).unwrap_err();
        assert!(err.to_string().contains("impersonating"), "{err}");
        assert!(err.to_string().contains("yam identity forget"), "{err}");
        let reopened = Contacts::open(dir.path()).unwrap();
        assert_eq!(reopened.by_address("ANN@example.org").unwrap().name, "Ann");
        assert!(reopened.by_key(&ann.key).is_some());
    }

    /// Cards and contacts an earlier build wrote for an address with a
    /// capital beyond ASCII (`Ümit`, which it lower-cased in ASCII only)
    /// read as they are and compare in the normal form: the card's
    /// signature still holds over the address as written, a card whose
    /// ASCII letters were raised since is read against their lower case
    /// as before, and a contact filed under `Ümit@...` is the one a mail
    /// from `ümit@...` finds, written in the normal form with the next
    /// change.
    #[test]
    fn cards_and_contacts_of_an_earlier_build_read_in_the_normal_form() {
        let (old, key) = dated(3, "Ümit@player.test", 100);
        let read = Card::read(old.signed_text(&key).as_bytes()).unwrap();
        assert_eq!(read.address, "ümit@player.test");
        assert_eq!(read.issued, 100);
        let (ann, ann_key) = dated(4, "ann@player.test", 100);
        let raised = ann
            .signed_text(&ann_key)
            .replace("address: ann@", "address: Ann@");
        assert_eq!(
            Card::read(raised.as_bytes()).unwrap().address,
            "ann@player.test"
        );
        // A changed address is still a forgery, in either case.
        let moved = ann
            .signed_text(&ann_key)
            .replace("address: ann@", "address: anne@");
        assert_eq!(
            Card::read(moved.as_bytes()).unwrap_err(),
            CardError::Signature
        );

        let dir = tempfile::tempdir().unwrap();
        let earlier = format!(
            "- address: Ümit@player.test\n  name: Ümit\n  key: {}\n  fingerprint: x\n  former:\n  - Ümit@old.test\n",
            hex::encode(old.key.as_bytes())
        );
        std::fs::write(dir.path().join("contacts.yaml"), earlier).unwrap();
        let mut contacts = Contacts::open(dir.path()).unwrap();
        let found = contacts.by_address("ümit@player.test").unwrap();
        assert_eq!(found.former, vec!["ümit@old.test".to_owned()]);
        assert_eq!(contacts.remember(&read).unwrap(), Remembered::Known);
        contacts.note_answered("ÜMIT@player.test", 5).unwrap();
        let written = std::fs::read_to_string(dir.path().join("contacts.yaml")).unwrap();
        assert!(written.contains("address: ümit@player.test"), "{written}");
        assert!(!written.contains("Ümit@"), "{written}");
    }
}
