//! A turn played for a player without the program: the harness's roll with
//! the player's free-text seed in the declaration.
//!
//! The robot's players add a seed (`seed: ...` in their mail), and it must
//! enter the outcome: the harness's `play_seeded` puts it in the roll's
//! declaration. The robot also opens solo games without the rules' first
//! draw (see `open_refereed`).

use yam_referee::fair_play::sign::SigningKey;
use yam_referee::fair_play::turn::{EventBody, SignedEvent};
use yam_referee::signed::SignedReplay;
use yam_referee::signed::table::{self, ChallengeSpec, SeatChoice, Signer, TableError};

/// Signs `body` by `key` as the next event of `replay`, and proves it.
pub fn next_event(
    replay: &mut SignedReplay,
    key: &SigningKey,
    body: EventBody,
) -> Result<SignedEvent, TableError> {
    table::next_event(replay, key, body)
}

/// Plays `moves` (as written) by `mover`, answering any roll with `others`,
/// with `seed` in the roll's declaration. The replay is updated only when
/// every event was proven.
pub fn play_seeded(
    replay: &mut SignedReplay,
    moves: &[String],
    mover: &Signer<'_>,
    others: &[Signer<'_>],
    seed: &str,
) -> Result<Vec<SignedEvent>, TableError> {
    table::play_seeded(replay, moves, mover, others, seed)
}

/// Opens a solo game refereed by the robot *without* the rules' own draw
/// before the first move (Genghis Khan's Foe layout): the signed challenge
/// and acceptance only, as `table::open` writes them for
/// [`Seating::Refereed`](yam_referee::signed::table::Seating::Refereed).
///
/// Why: the robot draws the chains as it opens the game; were the layout
/// drawn in the same breath, the robot could draw chains until it liked
/// the layout. Left for the player's next mail, the layout takes that
/// mail's seed, which the robot cannot know when it commits the chains.
pub fn open_refereed(
    catalog: &dyn yam_referee::replay::RulesCatalog,
    opening: &table::Opening<'_>,
) -> Result<(SignedReplay, Vec<SignedEvent>), TableError> {
    let (mut replay, challenge) = table::challenge(
        catalog,
        &ChallengeSpec {
            game: opening.game.clone(),
            ruleset: opening.ruleset.clone(),
            mode: opening.mode.clone(),
            challenger: opening.challenger,
            invited: opening.acceptor.public_key(),
            seats: SeatChoice::Refereed,
        },
    )?;
    let accepted = table::accept(&mut replay, &opening.acceptor, None)?;
    Ok((replay, vec![challenge, accepted]))
}

/// Whether the rules' own draw before the first move is still to come.
pub fn layout_pending(replay: &SignedReplay) -> bool {
    crate::autoplay::cards(replay).is_some_and(|c| c.state().is_none())
}
