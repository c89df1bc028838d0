//! The robot's openings: solo games without the rules' first draw (see
//! `open_refereed`). Its players' seeds (`seed: ...` in their mail) enter
//! each roll through the harness's `table::play_seeded`.

use yam_referee::fair_play::turn::SignedEvent;
use yam_referee::signed::SignedReplay;
use yam_referee::signed::table::{self, ChallengeSpec, SeatChoice, TableError};

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
    crate::game::autoplay::cards(replay).is_some_and(|c| c.state().is_none())
}
