//! A turn played for a player without the program: the harness's roll with
//! the player's free-text seed in the declaration.
//!
//! `yam_referee::signed::table::play` declares an empty seed; the robot's
//! players add one (`seed: ...` in their mail), and it must enter the
//! outcome, so the roll is built here through the same public pieces: the
//! request signed by the mover, each response made only through the guard
//! [`RollBook::answer`], then the moves with their outcomes, every event
//! proven against the replay before it is kept.
//!
//! [`RollBook::answer`]: yam_referee::fair_play::roll::RollBook::answer

use yam_referee::fair_play::chance::{ChanceRecord, RecordingChance};
use yam_referee::fair_play::encoding::{List, Text};
use yam_referee::fair_play::roll::{Declaration, RollRequest, TurnContext};
use yam_referee::fair_play::sign::SigningKey;
use yam_referee::fair_play::turn::{Event, EventBody, Evidence, MoveToken, SignedEvent, TurnBody};
use yam_referee::signed::SignedReplay;
use yam_referee::signed::table::{self, Prepared, Signer, TableError};

fn value(e: impl std::fmt::Display) -> TableError {
    TableError::Value(e.to_string())
}

/// Signs `body` by `key` as the next event of `replay`, and proves it.
pub fn next_event(
    replay: &mut SignedReplay,
    key: &SigningKey,
    body: EventBody,
) -> Result<SignedEvent, TableError> {
    let parent = replay
        .events()
        .last()
        .ok_or_else(|| TableError::Start("the game has no opening".into()))?;
    let signed = Event::after(&parent.event, key.public_key(), body)
        .sign(key)
        .map_err(value)?;
    replay.push(&signed).map_err(TableError::Refused)?;
    Ok(signed)
}

fn turn(
    replay: &mut SignedReplay,
    key: &SigningKey,
    moves: &[String],
    evidence: Vec<Evidence>,
) -> Result<SignedEvent, TableError> {
    let tokens = moves
        .iter()
        .map(|m| MoveToken::new(m.as_str()).map_err(value))
        .collect::<Result<Vec<_>, _>>()?;
    let body = EventBody::Turn(TurnBody {
        moves: List::new(tokens).map_err(value)?,
        evidence: List::new(evidence).map_err(value)?,
    });
    next_event(replay, key, body)
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
    let prepared = table::prepare(replay, moves, mover)?;
    let mut working = replay.clone();
    let events = match prepared {
        Prepared::Plain(moves) => vec![turn(&mut working, mover.key, &moves, Vec::new())?],
        Prepared::Roll(orders) => roll(&mut working, &orders, mover, others, seed)?,
    };
    *replay = working;
    Ok(events)
}

fn roll(
    working: &mut SignedReplay,
    orders: &[String],
    mover: &Signer<'_>,
    others: &[Signer<'_>],
    seed: &str,
) -> Result<Vec<SignedEvent>, TableError> {
    let me = mover.public_key();
    let seat = working
        .seat_of(&me)
        .ok_or_else(|| TableError::NotYourTurn {
            who: working.name_of(&me),
            to_move: working.to_move_key().map(|k| working.name_of(&k)),
        })?;
    let (Some(book), Some(last)) = (working.roll_book(), working.events().last()) else {
        return Err(TableError::Start(
            "this game has no chains, so it cannot roll".into(),
        ));
    };
    let index = book.next_index();
    let reveal = match (book.next_reveal_position(&me), mover.chain) {
        (Some(position), Some(chain)) => {
            let position = u32::try_from(position).map_err(|_| value("the chain is exhausted"))?;
            Some(chain.reveal(position).map_err(value)?)
        }
        (Some(_), None) => return Err(TableError::MissingSecret(working.name_of(&me))),
        (None, _) => None,
    };
    let declared = orders
        .iter()
        .map(|o| Text::new(o).map_err(value))
        .collect::<Result<Vec<_>, _>>()?;
    let request = RollRequest {
        game: last.event.game.clone(),
        index,
        record_hash: last.hash(),
        requester: me,
        declaration: Declaration {
            orders: List::new(declared).map_err(value)?,
            seed: Text::new(seed).map_err(value)?,
        },
        reveal,
    }
    .sign(mover.key);
    let mut events = Vec::new();
    let body = EventBody::Turn(TurnBody {
        moves: List::empty(),
        evidence: List::new(vec![Evidence::RollRequest(request.clone())]).map_err(value)?,
    });
    events.push(next_event(working, mover.key, body)?);
    let context = TurnContext {
        record_hash: request.request.record_hash,
        player_to_move: me,
    };
    let awaiting = working
        .roll_book()
        .map(|b| b.awaiting().to_vec())
        .unwrap_or_default();
    for responder in awaiting {
        let signer = others
            .iter()
            .find(|s| s.public_key() == responder)
            .ok_or_else(|| TableError::MissingSecret(working.name_of(&responder)))?;
        let chain = signer
            .chain
            .ok_or_else(|| TableError::MissingSecret(working.name_of(&responder)))?;
        let mut book = working
            .roll_book()
            .cloned()
            .ok_or_else(|| TableError::Start("the game has no roll book".into()))?;
        let answer = book
            .answer(&request, &context, signer.key, chain)
            .map_err(|e| value(format!("the roll was not answered: {e}")))?;
        let body = EventBody::Turn(TurnBody {
            moves: List::empty(),
            evidence: List::new(vec![Evidence::RollResponse(answer.response)]).map_err(value)?,
        });
        events.push(next_event(working, signer.key, body)?);
    }
    let (Some(done), Some(game)) = (
        working.verifier().completed_roll(index).cloned(),
        working.events().first().map(|e| e.event.game.clone()),
    ) else {
        return Err(TableError::Start("the roll did not complete".into()));
    };
    let mut chance = RecordingChance::new(done.stream(&game));
    let resolved = working
        .game()
        .resolve(seat, orders, &mut chance)
        .map_err(TableError::Rules)?;
    let results: List<ChanceRecord> = chance.into_records();
    let mut evidence = vec![Evidence::Outcomes {
        roll: index,
        results,
    }];
    for order in &resolved.skipped {
        evidence.push(Evidence::Skipped {
            roll: index,
            order: u32::try_from(*order).map_err(|_| value("too many orders"))?,
        });
    }
    events.push(turn(working, mover.key, &resolved.moves, evidence)?);
    Ok(events)
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
    use yam_referee::fair_play::turn::{Acceptance, Challenge, Party, RoleChoice};
    let mut replay = SignedReplay::start(catalog, &opening.ruleset).map_err(TableError::Start)?;
    let seat = match replay.game().seats() {
        [only] => *only,
        _ => return Err(TableError::Start("a refereed game has one seat".into())),
    };
    let game_name = replay.game().game().name();
    let roles = |role: &str| List::new(vec![Text::new(role).map_err(value)?]).map_err(value);
    let anchor = |s: &Signer<'_>| s.chain.map(|c| c.anchor().clone());
    let challenge = Event::challenge(
        opening.game.clone(),
        opening.challenger.public_key(),
        Challenge {
            game_name: Text::new(game_name).map_err(value)?,
            ruleset_hash: opening.ruleset.hash(),
            mode: opening.mode.clone(),
            roles: RoleChoice::Chosen,
            challenger: Party {
                key: opening.challenger.public_key(),
                anchor: anchor(&opening.challenger),
                roles: roles(yam_referee::signed::text::mode_name(&opening.mode))?,
            },
            invited: List::new(vec![opening.acceptor.public_key()]).map_err(value)?,
        },
    )
    .sign(opening.challenger.key)
    .map_err(value)?;
    replay.push(&challenge).map_err(TableError::Refused)?;
    let acceptance = EventBody::Acceptance(Acceptance {
        party: Party {
            key: opening.acceptor.public_key(),
            anchor: anchor(&opening.acceptor),
            roles: roles(seat)?,
        },
        toss: None,
    });
    let accepted = next_event(&mut replay, opening.acceptor.key, acceptance)?;
    Ok((replay, vec![challenge, accepted]))
}

/// Whether the rules' own draw before the first move is still to come.
pub fn layout_pending(replay: &SignedReplay) -> bool {
    crate::autoplay::cards(replay).is_some_and(|c| c.state().is_none())
}
