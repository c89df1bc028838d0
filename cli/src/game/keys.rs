//! The parties' secrets for one game: each party's identity (signing key)
//! and chain, as a secrets directory holds them. The hot-seat harness holds
//! some or all of a game's parties; the robot holds all of its games'.

use yam_notation::GameKind;
use yam_referee::fair_play::chain::HashChain;
use yam_referee::fair_play::game_id::GameId;
use yam_referee::fair_play::sign::PublicKey;
use yam_referee::replay::LoadedRuleset;
use yam_referee::signed::SignedReplay;
use yam_referee::signed::table::Signer;

use super::secrets::{Identity, SecretError, Secrets};

/// The identities and chains of the parties of one game whose secrets are
/// at hand, in the opening's order.
#[derive(Debug)]
pub struct Keys {
    parties: Vec<(Identity, Option<HashChain>)>,
}

impl Keys {
    /// The parties of `replay`'s game whose identities `secrets` holds,
    /// with their chains for the game.
    pub fn load(secrets: &Secrets, replay: &SignedReplay) -> Result<Keys, SecretError> {
        let Some(game) = game_of(replay) else {
            return Ok(Keys {
                parties: Vec::new(),
            });
        };
        let mut parties = Vec::new();
        for party in replay.parties() {
            if let Some(identity) = secrets.identity_for(&party.key)? {
                let chain = secrets.chain(&game, &identity)?;
                // A chain file damaged on disk (its lowest kept value) or
                // of another game gives another anchor than the one the
                // opening published: said of the file, not left for the
                // replay to refuse the first reveal as if a rule had.
                if let (Some(chain), Some(published)) = (&chain, &party.anchor)
                    && chain.anchor() != published
                {
                    return Err(SecretError(format!(
                        "{}: this chain does not give the anchor the game's opening published for {}: the file is damaged or of another game; restore it from a backup (nothing was written)",
                        secrets.chain_path(&game, &identity).display(),
                        identity.name
                    )));
                }
                parties.push((identity, chain));
            }
        }
        Ok(Keys { parties })
    }

    /// The first party whose chain file is damaged above its lowest kept
    /// value (which still gives the published anchor), said of its file:
    /// asked once a reveal was refused, since it hashes the whole chain.
    pub fn damaged_chain(&self, secrets: &Secrets, replay: &SignedReplay) -> Option<SecretError> {
        let game = game_of(replay)?;
        self.parties.iter().find_map(|(identity, chain)| {
            let at = chain.as_ref()?.damaged_at()?;
            Some(SecretError(format!(
                "{}: this chain file is damaged (its kept value for position {at} does not hash down to the one below it), so {}'s rolls from there cannot be revealed; restore it from a backup (nothing was written)",
                crate::diagnostics::visible_path(&secrets.chain_path(&game, identity)),
                identity.name
            )))
        })
    }

    /// Whether every party of `replay` is at hand.
    pub fn all_of(&self, replay: &SignedReplay) -> bool {
        replay
            .parties()
            .iter()
            .all(|p| self.identity(&p.key).is_some())
    }

    /// Each party's key and name, for messages.
    pub fn names(&self) -> Vec<(PublicKey, String)> {
        self.parties
            .iter()
            .map(|(i, _)| (i.key.public_key(), i.name.clone()))
            .collect()
    }

    /// The signer of `key`, if its secrets are at hand.
    pub fn signer(&self, key: &PublicKey) -> Option<Signer<'_>> {
        self.parties
            .iter()
            .find(|(i, _)| i.key.public_key() == *key)
            .map(|(i, c)| Signer {
                key: &i.key,
                chain: c.as_ref(),
            })
    }

    /// The signer of the identity called `name`, if it is a party here.
    pub fn by_name(&self, name: &str) -> Option<Signer<'_>> {
        self.parties
            .iter()
            .find(|(i, _)| i.name == name)
            .map(|(i, c)| Signer {
                key: &i.key,
                chain: c.as_ref(),
            })
    }

    /// The identity of `key`, if its secrets are at hand.
    pub fn identity(&self, key: &PublicKey) -> Option<&Identity> {
        self.parties
            .iter()
            .map(|(i, _)| i)
            .find(|i| i.key.public_key() == *key)
    }

    /// The signers of every other party at hand, to answer rolls.
    pub fn others(&self, me: &PublicKey) -> Vec<Signer<'_>> {
        self.parties
            .iter()
            .filter(|(i, _)| i.key.public_key() != *me)
            .map(|(i, c)| Signer {
                key: &i.key,
                chain: c.as_ref(),
            })
            .collect()
    }
}

/// The game id of a replay, from its opening.
pub fn game_of(replay: &SignedReplay) -> Option<GameId> {
    replay.events().first().map(|e| e.event.game.clone())
}

/// How long a new chain is, at the least: more rolls than a game of Khan or
/// Genghis Khan can need (Genghis Khan's Foe layout and its 100 cards are
/// 101 rolls; Khan rolls only to draw seats). A chain is never anchored
/// again (`docs/fair-play.md`, 3.2), so the opening sizes it for the whole
/// game.
pub const CHAIN_LENGTH: u32 = 1024;

/// Rolls a Castle Siege round can ask for: each allowance, breach and
/// attack may be a roll of its own (the faithful turn, CS-P4, and a
/// priority-list turn declared one order at a time, CS-P2): the
/// Attacker's turn an allowance, and a breach and an attack for each of
/// its 28 units at the most (CS-08), the Defender's an allowance and an
/// attack for each of its 16: 74, rounded up.
const ROLLS_A_ROUND: u32 = 80;

/// The chain length for a game of `ruleset`: [`CHAIN_LENGTH`], or more for
/// a Castle Siege ruleset whose round cap could need more
/// ([`ROLLS_A_ROUND`] a round). The hot-seat drew 256 for every game, and a
/// faithful siege at one table of some twenty rounds (the self-play
/// driver's took 11 to 16 rolls a round) would have run out before its
/// end; the robot drew 512; the desk eight a round, which a priority-list
/// turn declared order by order passes too.
pub fn chain_length(kind: GameKind, ruleset: &LoadedRuleset) -> u32 {
    if kind != GameKind::CastleSiege {
        return CHAIN_LENGTH;
    }
    yam_referee::castle_siege::Ruleset::from_yaml(&ruleset.text)
        .map(|r| {
            r.rules.round_cap.saturating_mul(ROLLS_A_ROUND).clamp(
                CHAIN_LENGTH,
                yam_referee::fair_play::chain::MAX_CHAIN_LENGTH,
            )
        })
        .unwrap_or(CHAIN_LENGTH)
}
