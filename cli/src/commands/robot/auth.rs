//! Who sent a command: per-player tokens.
//!
//! pbmserv trusts a password written in clear in the subject of every mail.
//! The robot instead draws a random token for each address the first time
//! it hears from it and mails it to that address only; every later command
//! mail carries `token: XXXX`. The robot keeps only the token's SHA-256, so
//! a copy of its data directory does not let anyone play for anyone.
//!
//! What this defends against: a forged `From:` (the forger never saw the
//! token, which went to the real mailbox). What it does not: someone who
//! reads the player's mail (mailbox or transport) learns the token, exactly
//! as they could read a password; `docs/robot.md` says so.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::game::secrets::{SecretError, random_32};

/// A short, stable, file-name-safe key for an address.
pub fn address_key(address: &str) -> String {
    hex::encode(Sha256::digest(address.trim().to_lowercase().as_bytes()))[..16].to_owned()
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
}

/// A fresh token: 64 random bits in hex, short enough to copy by hand.
pub fn new_token() -> Result<String, SecretError> {
    Ok(hex::encode(&random_32()?[..8]))
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
            address: address.trim().to_lowercase(),
            token_sha256: token_hash(token),
            identity: format!("p-{key}"),
            games: Vec::new(),
            registered: now,
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
        let token = new_token().unwrap();
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
}
