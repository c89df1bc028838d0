//! Castle Siege's secret setups, for every client (hot-seat, desk, robot):
//! a placement sealed with a fresh commitment and kept with its salt in
//! the secrets directory, then revealed with its opening (CS-07 to CS-10,
//! `docs/fair-play.md`, 3.7); and what a player's written moves ask for.

use yam_referee::autoplay::{self, Intent};
use yam_referee::castle_siege::game_replay::side_of;
use yam_referee::fair_play::encoding::Blob;
use yam_referee::fair_play::game_id::GameId;
use yam_referee::fair_play::turn::{Evidence, SignedEvent};
use yam_referee::signed::SignedReplay;
use yam_referee::signed::table::{self, Signer};

use super::secrets::{Identity, SealedSetup, Secrets, random_32};
use crate::error::{Error, Result};

/// Why a setup cannot be sealed: the player's own mistake, said to a
/// player who keeps the secrets (the hot-seat, the desk: her name and the
/// secrets directory) by its `Display`, and to one who does not (the
/// robot's player: no key's name, no path of the operator's disk) by
/// [`SetupRefusal::to_player`].
#[derive(Debug, thiserror::Error)]
pub enum SetupRefusal {
    /// A setup of the other side.
    #[error("refused: {written} is a setup of the {sealed}, but {player} plays the {plays}")]
    WrongSide {
        /// The setup as written.
        written: String,
        /// The side it sets up.
        sealed: String,
        /// The player's name.
        player: String,
        /// The side the player plays.
        plays: String,
    },
    /// Another setup of the player is sealed already (CS-07: it never
    /// changes).
    #[error("another setup of {player} for this game is already kept in {}; a setup never changes once chosen", dir.display())]
    AnotherKept {
        /// The player's name.
        player: String,
        /// The secrets directory that keeps it.
        dir: std::path::PathBuf,
    },
}

impl SetupRefusal {
    /// The refusal in words for a player whose secrets the robot keeps:
    /// naming neither the key's name in its store nor the store's path
    /// (`a_second_castle_siege_setup_is_refused_without_naming_the_robots_files`).
    pub fn to_player(&self) -> String {
        match self {
            SetupRefusal::WrongSide {
                written,
                sealed,
                plays,
                ..
            } => format!("{written} is a setup of the {sealed}, but you play the {plays}"),
            SetupRefusal::AnotherKept { .. } => {
                "your setup is sealed already; a setup never changes once chosen (CS-07)".into()
            }
        }
    }
}

/// Castle Siege: seals `written` for `identity`, whose secrets are in
/// `secrets` (the hot-seat's and the mail player's shared half).
pub fn seal_setup(
    replay: &mut SignedReplay,
    secrets: &Secrets,
    identity: &Identity,
    signer: &Signer<'_>,
    written: &str,
    dry_run: bool,
) -> Result<SignedEvent> {
    use yam_referee::castle_siege::Setup;
    use yam_referee::castle_siege::game_replay::sealed_token;
    use yam_referee::fair_play::commit::Salt;
    let me = signer.public_key();
    let side =
        side_of(replay.seat_of(&me).ok_or_else(|| {
            Error::invalid(format!("{} has no seat in this game", identity.name))
        })?);
    let setup =
        Setup::parse(written).map_err(|e| Error::invalid(format!("refused: {written}: {e}")))?;
    if setup.side() != side {
        return Err(SetupRefusal::WrongSide {
            written: written.to_owned(),
            sealed: setup.side().to_string(),
            player: identity.name.clone(),
            plays: side.to_string(),
        }
        .into());
    }
    let text = setup.placement().to_string();
    let game = game_id(replay)?;
    let salt = match secrets
        .setup(&game, identity)
        .map_err(|e| Error::usage(e.to_string()))?
    {
        Some(kept) if kept.setup == text => kept.salt,
        Some(_) => {
            return Err(SetupRefusal::AnotherKept {
                player: identity.name.clone(),
                dir: secrets.dir().to_path_buf(),
            }
            .into());
        }
        None => random_32().map_err(|e| Error::usage(e.to_string()))?,
    };
    let (commitment, _) = setup
        .commit(&game, &me, Salt::from_bytes(salt))
        .map_err(|e| Error::invalid(e.to_string()))?;
    let event = table::play_with(
        replay,
        &[sealed_token(side)],
        vec![Evidence::SetupCommitment(commitment)],
        signer,
    )
    .map_err(Error::Table)?;
    if !dry_run {
        // Kept before the record shows the seal, so that a sealed setup can
        // always be revealed.
        secrets
            .store_setup(&game, identity, &SealedSetup { salt, setup: text })
            .map_err(|e| Error::usage(e.to_string()))?;
    }
    Ok(event)
}

/// Castle Siege: reveals the setup `identity` sealed, kept in `secrets`.
pub fn reveal_setup(
    replay: &mut SignedReplay,
    secrets: &Secrets,
    identity: &Identity,
    signer: &Signer<'_>,
    written: Option<String>,
) -> Result<SignedEvent> {
    use yam_referee::castle_siege::Setup;
    use yam_referee::fair_play::commit::{Commitment, Salt, SetupOpening};
    let game = game_id(replay)?;
    let kept = secrets
        .setup(&game, identity)
        .map_err(|e| Error::usage(e.to_string()))?
        .ok_or_else(|| {
            Error::usage(format!(
                "no sealed setup of {} for this game is kept in {}: the reveal needs the setup and the salt it was sealed with",
                identity.name,
                secrets.dir().display()
            ))
        })?;
    if let Some(written) = written {
        let setup = Setup::parse(&written)
            .map_err(|e| Error::invalid(format!("refused: {written}: {e}")))?;
        if setup.placement().to_string() != kept.setup {
            return Err(Error::invalid(format!(
                "refused: {} sealed another setup, and a sealed setup cannot change (CS-07): `reveal` reveals the one sealed",
                identity.name
            )));
        }
    }
    let opening = SetupOpening {
        salt: Salt::from_bytes(kept.salt),
        setup: Blob::new(kept.setup.clone().into_bytes())
            .map_err(|e| Error::invalid(e.to_string()))?,
    };
    // The kept setup must open the commitment the record holds: one that
    // does not (its salt damaged on disk, two players' files swapped) is
    // the file's fault, said of the file, not signed and refused by the
    // replay as if the player had revealed another setup.
    let player = signer.public_key();
    if replay
        .commitment_of(&player)
        .is_some_and(|c| *c != Commitment::new(&game, &player, &opening))
    {
        return Err(Error::usage(format!(
            "{}: this kept setup does not open the commitment {} sealed in the record: the file is damaged or another player's; restore it from a backup (nothing was written)",
            crate::diagnostics::visible_path(&secrets.setup_path(&game, identity)),
            identity.name
        )));
    }
    table::play_with(
        replay,
        &[kept.setup],
        vec![Evidence::SetupReveal(opening)],
        signer,
    )
    .map_err(Error::Table)
}

/// What the written moves ask for: orders, or (Castle Siege, before the
/// game) a setup to seal or the reveal of the kept one.
/// Orders as typed are resolved to their canonical tokens
/// ([`super::input::canonical_moves`]).
pub fn written_intent(replay: &SignedReplay, moves: &[String]) -> Result<Intent> {
    use yam_referee::castle_siege::game_replay::SetupStage;
    let Some(stage) = autoplay::siege(replay).and_then(|s| s.setup_stage()) else {
        return super::input::canonical_moves(replay, moves)
            .map(Intent::Orders)
            .map_err(|e| Error::invalid(format!("refused: {e}")));
    };
    match (stage, moves) {
        (SetupStage::Sealing, [one]) if one.eq_ignore_ascii_case("reveal") => Err(Error::invalid(
            "refused: both setups are sealed before either is revealed (CS-07)",
        )),
        (SetupStage::Sealing, [one]) => Ok(Intent::Seal(one.clone())),
        (SetupStage::Revealing, [one]) if one.eq_ignore_ascii_case("reveal") => {
            Ok(Intent::Reveal(None))
        }
        (SetupStage::Revealing, [one]) => Ok(Intent::Reveal(Some(one.clone()))),
        (SetupStage::Sealing, _) => Err(Error::usage(
            "the setups are sealed first (CS-07): give your placement as one token, such as Defender:CKAO/OACK/KCOA/AOKC; it is kept secret in the secrets directory, and the record shows only Defender:sealed with its commitment",
        )),
        (SetupStage::Revealing, _) => Err(Error::usage(
            "both setups are sealed; each is now revealed: `reveal` reveals the setup kept in the secrets directory",
        )),
    }
}

/// The game's id, from its opening.
pub fn game_id(replay: &SignedReplay) -> Result<GameId> {
    replay
        .events()
        .first()
        .map(|e| e.event.game.clone())
        .ok_or_else(|| Error::invalid("the record has no opening"))
}

/// A legal placement of `side`'s units for a player to seal, or to copy,
/// drawn from the operating system's randomness, as a setup's salt is: one
/// drawn from anything the record shows (a seed, the count of its events)
/// is the opponent's to compute the moment it is sealed (CS-07). The desk's
/// `--auto` seals one; the robot suggests one to the player who is to seal.
pub fn secret_placement(side: yam_referee::castle_siege::Side) -> Result<String> {
    let secret = random_32().map_err(|e| Error::usage(e.to_string()))?;
    let mut seed = [0u8; 8];
    seed.copy_from_slice(&secret[..8]);
    yam_referee::castle_siege::choose_setup(side, u64::from_le_bytes(seed))
        .map(|setup| setup.placement().to_string())
        .map_err(|e| Error::invalid(format!("refused: {e}")))
}
