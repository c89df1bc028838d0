//! Who sent a command: per-player tokens.
//!
//! pbmserv trusts a password written in clear in the subject of every mail.
//! The robot instead draws a random token for each address the first time
//! it hears from it and mails it to that address only; every later command
//! mail carries `token: XXXX`. The robot keeps only the token's SHA-256, so
//! a copy of its data directory does not let anyone play for anyone.
//!
//! No file of the robot holds a token in the clear, at any moment: the
//! token is derived from a nonce drawn for the address and the robot's
//! token key (`secrets/keys/robot-tokens.key`, HMAC-SHA256), and the plan
//! of the mail that carries it keeps only the nonce ([`Sealed`]); the token
//! is put into the mail as it is sent, so a resend after a crash carries
//! the same one. The nonce goes with the plan once it is done.
//!
//! What this defends against: a forged `From:` (the forger never saw the
//! token, which went to the real mailbox). What it does not: someone who
//! reads the player's mail (mailbox or transport) learns the token, exactly
//! as they could read a password; `docs/robot.md` says so.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::game::secrets::{SecretError, Secrets, random_32};

/// A short, stable, file-name-safe key for an address.
pub fn address_key(address: &str) -> String {
    hex::encode(Sha256::digest(
        crate::mail::address::normal(address).as_bytes(),
    ))[..16]
        .to_owned()
}

/// A player the robot knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The mail address, lower case.
    pub address: String,
    /// SHA-256 of the token, in hex.
    pub token_sha256: String,
    /// The custodial signing identity (in the robot's secrets directory).
    pub identity: String,
    /// Every game started with this player, in order: the register.
    #[serde(default)]
    pub games: Vec<String>,
    /// When the robot first heard of the address (seconds since 1970).
    pub registered: u64,
    /// Registered by another player's invitation and not heard from since
    /// (no mail with its token yet): an invitation to it is a mail to a
    /// stranger, one a day, as the first was; else a registered abuser
    /// mailed a stranger once per challenge, since the first invitation
    /// had registered her
    /// (`a_registered_player_cannot_mail_a_stranger_more_than_one_invitation_a_day`).
    /// Absent in an earlier build's file: heard from.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unheard: bool,
}

/// The robot's key for its players' tokens.
#[derive(Clone)]
pub struct TokenKey([u8; 32]);

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKey(..)")
    }
}

impl TokenKey {
    /// The name of the key in the secrets directory.
    pub const NAME: &str = "robot-tokens";

    /// The key kept in `secrets` (drawn the first time).
    pub fn open(secrets: &Secrets) -> Result<TokenKey, SecretError> {
        secrets.key(Self::NAME).map(TokenKey)
    }

    /// A key from its bytes (tests).
    #[cfg(test)]
    pub fn from_bytes(bytes: [u8; 32]) -> TokenKey {
        TokenKey(bytes)
    }

    /// The token `sealed` stands for: 64 bits in hex, short enough to
    /// copy by hand.
    pub fn token(&self, sealed: &Sealed) -> String {
        let message = format!("yam robot token\n{}\n{}", sealed.address, sealed.nonce);
        hex::encode(&hmac_sha256(&self.0, message.as_bytes())[..8])
    }
}

/// A token as a plan keeps it: the address and the nonce it was derived
/// from, never the token (which lives only in memory, for the decision
/// that drew it).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    /// The address it is for, lower case.
    pub address: String,
    /// The nonce, hex.
    pub nonce: String,
    #[serde(skip)]
    token: String,
}

impl std::fmt::Debug for Sealed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sealed({}, {})", self.address, self.nonce)
    }
}

impl Sealed {
    /// A new token for `address`.
    pub fn draw(key: &TokenKey, address: &str) -> Result<Sealed, SecretError> {
        let mut sealed = Sealed {
            address: crate::mail::address::normal(address),
            nonce: hex::encode(&random_32()?[..16]),
            token: String::new(),
        };
        sealed.token = key.token(&sealed);
        Ok(sealed)
    }

    /// The token, as drawn (empty once read back from a plan).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// What stands for the token in a plan's mail.
    pub fn mark(&self) -> String {
        format!("[yam-robot-token {}]", self.nonce)
    }
}

/// HMAC-SHA256 (RFC 2104) with a key of at most 64 bytes.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..key.len()].copy_from_slice(key);
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// The stored form of a token.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.trim().to_lowercase().as_bytes()))
}

impl Player {
    /// A new player with `token`.
    pub fn new(address: &str, token: &str, now: u64) -> Player {
        let key = address_key(address);
        Player {
            address: crate::mail::address::normal(address),
            token_sha256: token_hash(token),
            identity: format!("p-{key}"),
            games: Vec::new(),
            registered: now,
            unheard: false,
        }
    }

    /// Whether `given` is this player's token. Compared without an early
    /// exit, so the time taken says nothing about how much matched.
    pub fn accepts(&self, given: Option<&str>) -> bool {
        let Some(given) = given else {
            return false;
        };
        let a = token_hash(given);
        let b = &self.token_sha256;
        a.len() == b.len()
            && a.bytes()
                .zip(b.bytes())
                .fold(0u8, |acc, (x, y)| acc | (x ^ y))
                == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_right_token_is_accepted() {
        let key = TokenKey::from_bytes([3; 32]);
        let token = Sealed::draw(&key, "ann@example.org")
            .unwrap()
            .token()
            .to_owned();
        assert_eq!(token.len(), 16);
        let p = Player::new("Ann@Example.org", &token, 1);
        assert_eq!(p.address, "ann@example.org");
        assert!(p.accepts(Some(&token)));
        assert!(p.accepts(Some(&token.to_uppercase())));
        assert!(!p.accepts(None));
        assert!(!p.accepts(Some("0000000000000000")));
        assert!(!p.accepts(Some("")));
        assert!(!p.token_sha256.contains(&token));
        assert_eq!(
            address_key("ANN@example.org"),
            address_key("ann@example.org")
        );
    }

    #[test]
    fn a_sealed_token_is_the_same_token_again_and_names_none() {
        // RFC 4231, test case 2.
        assert_eq!(
            hex::encode(hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let key = TokenKey::from_bytes([1; 32]);
        let sealed = Sealed::draw(&key, "Ann@Example.org").unwrap();
        let token = sealed.token().to_owned();
        assert_eq!(token.len(), 16);
        let kept: Sealed =
            serde_yaml_ng::from_str(&serde_yaml_ng::to_string(&sealed).unwrap()).unwrap();
        assert_eq!(kept.token(), "");
        assert_eq!(key.token(&kept), token);
        assert!(!format!("{sealed:?}{}", sealed.mark()).contains(&token));
        assert_ne!(TokenKey::from_bytes([2; 32]).token(&kept), token);
        assert_ne!(
            Sealed::draw(&key, "ann@example.org").unwrap().token(),
            token
        );
    }
}
