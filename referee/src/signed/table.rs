//! The hot-seat harness's pure half: the events of a game played on one
//! machine between local identities, each signed by the right key, every
//! roll through the real protocol.
//!
//! The caller (the command line) holds the secrets and supplies them: signing
//! keys, chain secrets, the role-toss salt and bytes, all drawn from the
//! operating system. This module never makes randomness and never writes:
//! it builds events and proves each one against a [`SignedReplay`] before
//! handing it back, so nothing invalid is ever returned.
//!
//! A move that needs chance is played in three events, as by mail: the
//! mover's turn with its signed roll request (declaring the orders), each
//! other party's turn with its response made through the guard
//! [`RollBook::answer`](crate::fair_play::roll::RollBook::answer), and the
//! mover's turn with the moves and the outcomes. In a practice game the
//! values come from the open seed and one event carries moves and outcomes.
//! The moves are what the game's rules make of the declared orders with the
//! roll's values ([`GameReplay::resolve`](crate::replay::GameReplay::resolve)):
//! Castle Siege's `Ab5xKc5` is played as `Ab5xKc5@6`, Genghis Khan's `draw`
//! as the card drawn; orders the rules skipped are recorded as `Skipped`.
//!
//! A solo game ([`Seating::Refereed`]) is opened by its referee (a
//! tournament director) for the player, and a game whose rules draw before
//! any move (Genghis Khan's Foe layout) has that roll played as part of its
//! opening.

use std::fmt;

use thiserror::Error;

use crate::fair_play::chain::HashChain;
use crate::fair_play::chance::{Chance, ChanceError, RecordingChance};
use crate::fair_play::commit::{Commitment, Salt, SetupOpening};
use crate::fair_play::encoding::{Blob, List, Text};
use crate::fair_play::game_id::GameId;
use crate::fair_play::outcome::Assurance;
use crate::fair_play::roll::{Declaration, RollRequest, TurnContext};
use crate::fair_play::sign::{PublicKey, SigningKey};
use crate::fair_play::turn::{
    Acceptance, Challenge, Event, EventBody, Evidence, Mode, MoveToken, Party, RoleChoice,
    SignedEvent, TurnBody,
};
use crate::replay::{LoadedRuleset, RulesCatalog, RulesError};

use super::replay::{ReplayError, SignedReplay};
use super::text::mode_name;

/// One party's secrets for this game, as the harness holds them.
#[derive(Clone, Copy)]
pub struct Signer<'a> {
    /// Its signing key.
    pub key: &'a SigningKey,
    /// Its hash chain for this game (none in practice games).
    pub chain: Option<&'a HashChain>,
}

impl fmt::Debug for Signer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signer({})", self.key.public_key().fingerprint())
    }
}

impl Signer<'_> {
    /// Its public key.
    pub fn public_key(&self) -> PublicKey {
        self.key.public_key()
    }
}

/// How the seats are settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seating {
    /// The challenger takes the first seat (Khan: White) or the second.
    Chosen {
        /// Whether the challenger takes the first seat.
        challenger_first: bool,
    },
    /// One commit-reveal exchange: the challenger's salt, committed in the
    /// challenge and opened right after the acceptance, and the acceptor's
    /// 32 bytes, sent in the clear in its acceptance.
    Drawn {
        /// The challenger's secret salt.
        salt: [u8; 32],
        /// The acceptor's bytes.
        toss: [u8; 32],
    },
    /// A solo game: the challenger referees (a tournament director, whose
    /// role is the mode's name) and the acceptor takes the game's one seat.
    Refereed,
}

/// Everything a new game needs.
#[derive(Debug)]
pub struct Opening<'a> {
    /// The game's identifier.
    pub game: GameId,
    /// The ruleset, as loaded: its hash is pinned in the challenge.
    pub ruleset: LoadedRuleset,
    /// Peer (both players' chains) or practice (an open seed).
    pub mode: Mode,
    /// Who challenges.
    pub challenger: Signer<'a>,
    /// Who accepts.
    pub acceptor: Signer<'a>,
    /// How the seats are settled.
    pub seating: Seating,
}

/// Why the harness refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TableError {
    /// The game could not be started.
    #[error("{0}")]
    Start(String),
    /// A value out of range (an over-long token, ...).
    #[error("{0}")]
    Value(String),
    /// The player named is not the one to move.
    #[error("it is not {who}'s turn{}", to_move.as_ref().map(|k| format!(": {k} is to move")).unwrap_or_else(|| ": the game is over".into()))]
    NotYourTurn {
        /// Who tried.
        who: String,
        /// Who is to move, if anyone.
        to_move: Option<String>,
    },
    /// The rules refused the move.
    #[error("{}", .0.reason)]
    Rules(RulesError),
    /// A party whose secrets the harness lacks had to act.
    #[error("the secrets of {0} are needed to answer the roll")]
    MissingSecret(String),
    /// No draw offer by another party is open.
    #[error("no draw offer by the other side is waiting for an answer")]
    NoOffer,
    /// The fair-play layer refused an event the harness built: a defect, or
    /// a record in a state the harness does not expect.
    #[error("the event was refused: {0}")]
    Refused(ReplayError),
}

fn text(value: &str) -> Result<Text, TableError> {
    Text::new(value).map_err(|e| TableError::Value(e.to_string()))
}

/// Signs `body` by `key` as the next event of `replay`, and proves it.
fn next_event(
    replay: &mut SignedReplay,
    key: &SigningKey,
    body: EventBody,
) -> Result<SignedEvent, TableError> {
    let author = key.public_key();
    let event = match replay.events().last() {
        Some(parent) => Event::after(&parent.event, author, body),
        None => {
            return Err(TableError::Start(
                "the game has no opening to continue".into(),
            ));
        }
    };
    let signed = event
        .sign(key)
        .map_err(|e| TableError::Value(e.to_string()))?;
    replay.push(&signed).map_err(TableError::Refused)?;
    Ok(signed)
}

/// Opens a game: the challenge, the acceptance, and (when the seats are
/// drawn) the challenger's role reveal. Returns the replay after them and
/// the events.
pub fn open(
    catalog: &dyn RulesCatalog,
    opening: &Opening<'_>,
) -> Result<(SignedReplay, Vec<SignedEvent>), TableError> {
    let mut replay = SignedReplay::start(catalog, &opening.ruleset).map_err(TableError::Start)?;
    let seats = replay.game().seats();
    let game_name = replay.game().game().name();
    let (first_role, second_role) = match (seats, opening.seating) {
        ([only], Seating::Refereed) => (*only, mode_name(&opening.mode)),
        ([_], _) => {
            return Err(TableError::Start(format!(
                "{game_name} is a solo game: its player plays against a referee's chain (director mode) or an open seed (practice)"
            )));
        }
        ([first, second], Seating::Refereed) => {
            let _ = (first, second);
            return Err(TableError::Start(format!(
                "{game_name} is played between two players, not against a referee"
            )));
        }
        ([first, second], _) => (*first, *second),
        _ => {
            return Err(TableError::Start(
                "the hot-seat harness plays games of one or two seats".into(),
            ));
        }
    };
    let practice = matches!(opening.mode, Mode::Practice { .. });
    let anchor = |s: &Signer<'_>| {
        if practice {
            None
        } else {
            s.chain.map(|c| c.anchor().clone())
        }
    };
    let roles =
        |role: &str| List::new(vec![text(role)?]).map_err(|e| TableError::Value(e.to_string()));
    let (challenger_roles, acceptor_roles, role_choice, reveal, toss) = match opening.seating {
        Seating::Refereed => (
            roles(second_role)?,
            roles(first_role)?,
            RoleChoice::Chosen,
            None,
            None,
        ),
        Seating::Chosen { challenger_first } => {
            let (mine, theirs) = if challenger_first {
                (first_role, second_role)
            } else {
                (second_role, first_role)
            };
            (roles(mine)?, roles(theirs)?, RoleChoice::Chosen, None, None)
        }
        Seating::Drawn { salt, toss } => {
            let secret = SetupOpening {
                salt: Salt::from_bytes(salt),
                setup: Blob::default(),
            };
            let commitment =
                Commitment::new(&opening.game, &opening.challenger.public_key(), &secret);
            (
                List::empty(),
                List::empty(),
                RoleChoice::Drawn { commitment },
                Some(secret),
                Some(toss),
            )
        }
    };
    let challenge = Event::challenge(
        opening.game.clone(),
        opening.challenger.public_key(),
        Challenge {
            game_name: text(game_name)?,
            ruleset_hash: opening.ruleset.hash(),
            mode: opening.mode.clone(),
            roles: role_choice,
            challenger: Party {
                key: opening.challenger.public_key(),
                anchor: anchor(&opening.challenger),
                roles: challenger_roles,
            },
            invited: List::new(vec![opening.acceptor.public_key()])
                .map_err(|e| TableError::Value(e.to_string()))?,
        },
    )
    .sign(opening.challenger.key)
    .map_err(|e| TableError::Value(e.to_string()))?;
    replay.push(&challenge).map_err(TableError::Refused)?;
    let mut events = vec![challenge];
    let acceptance = EventBody::Acceptance(Acceptance {
        party: Party {
            key: opening.acceptor.public_key(),
            anchor: anchor(&opening.acceptor),
            roles: acceptor_roles,
        },
        toss,
    });
    events.push(next_event(&mut replay, opening.acceptor.key, acceptance)?);
    if let Some(secret) = reveal {
        let body = EventBody::Turn(TurnBody {
            moves: List::empty(),
            evidence: List::new(vec![Evidence::RoleReveal(secret)])
                .map_err(|e| TableError::Value(e.to_string()))?,
        });
        events.push(next_event(&mut replay, opening.challenger.key, body)?);
    }
    // The rules' own draw before any move (Genghis Khan's Foe layout): a
    // roll that declares no orders, requested by the player to move.
    if replay.game().setup_by_chance() {
        let signers = [opening.challenger, opening.acceptor];
        let mover = replay
            .to_move_key()
            .and_then(|k| signers.iter().find(|s| s.public_key() == k))
            .copied()
            .ok_or_else(|| TableError::Start("nobody is to move after the opening".into()))?;
        let others: Vec<Signer<'_>> = signers
            .iter()
            .filter(|s| s.public_key() != mover.public_key())
            .copied()
            .collect();
        events.extend(chance_turn(&mut replay, &[], &mover, &others)?);
    }
    Ok((replay, events))
}

/// A door for chance that only notes whether the rules knocked.
#[derive(Debug, Default)]
struct Probe {
    asked: bool,
}

impl Chance for Probe {
    fn die(&mut self, purpose: &str, _sides: u16) -> Result<u16, ChanceError> {
        self.asked = true;
        Err(ChanceError::Missing {
            position: 0,
            purpose: purpose.to_owned(),
        })
    }
    fn draw(&mut self, purpose: &str, _remaining: usize) -> Result<usize, ChanceError> {
        self.asked = true;
        Err(ChanceError::Missing {
            position: 0,
            purpose: purpose.to_owned(),
        })
    }
    fn assurance(&self) -> Assurance {
        Assurance::Verified
    }
}

fn check_turn(replay: &SignedReplay, who: &Signer<'_>) -> Result<usize, TableError> {
    let me = who.public_key();
    match replay.seat_of(&me) {
        Some(seat) if replay.may_play(&me) => Ok(seat),
        _ => {
            let to_move = replay.to_move_key();
            Err(TableError::NotYourTurn {
                who: replay.name_of(&me),
                to_move: to_move.map(|k| replay.name_of(&k)),
            })
        }
    }
}

/// A turn checked and ready to be signed: its moves when it needs no chance,
/// or the orders a roll must resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prepared {
    /// No chance: these moves (canonical) are the turn.
    Plain(Vec<String>),
    /// Chance: these orders (canonical, as declared) go into a roll request
    /// (or, in practice, straight to the open seed).
    Roll(Vec<String>),
}

/// Checks a turn of `orders` (as written) by `mover` without signing
/// anything or drawing any value: whose turn it is, the spelling, and the
/// rules as far as they go before chance.
pub fn prepare(
    replay: &SignedReplay,
    orders: &[String],
    mover: &Signer<'_>,
) -> Result<Prepared, TableError> {
    let seat = check_turn(replay, mover)?;
    let mut canonical = Vec::with_capacity(orders.len());
    for written in orders {
        canonical.push(
            replay
                .game()
                .canonical_order(written)
                .map_err(|e| TableError::Value(format!("{written}: expected {e}")))?,
        );
    }
    // Try the turn without chance first: most moves of most games need none.
    let mut probe = Probe::default();
    match replay.game().resolve(seat, &canonical, &mut probe) {
        Ok(resolved) if resolved.skipped.is_empty() => Ok(Prepared::Plain(resolved.moves)),
        Ok(_) => Err(TableError::Value(
            "the rules skipped orders of a turn that drew nothing".into(),
        )),
        Err(e) if !probe.asked => Err(TableError::Rules(e)),
        Err(_) => Ok(Prepared::Roll(canonical)),
    }
}

/// Plays one turn of `moves` (as written; spelled canonically here) by
/// `mover`; `others` are the other parties' secrets, for answering rolls.
/// Returns the events, each proven against `replay`, which is updated.
pub fn play(
    replay: &mut SignedReplay,
    moves: &[String],
    mover: &Signer<'_>,
    others: &[Signer<'_>],
) -> Result<Vec<SignedEvent>, TableError> {
    let prepared = prepare(replay, moves, mover)?;
    let mut working = replay.clone();
    let events = match prepared {
        Prepared::Plain(moves) => {
            vec![turn_event(&mut working, mover, &moves, Vec::new())?]
        }
        Prepared::Roll(orders) => chance_turn(&mut working, &orders, mover, others)?,
    };
    *replay = working;
    Ok(events)
}

/// Plays one turn of `moves` (canonical, needing no chance) by `mover`
/// with `evidence` beside them: a secret setup sealed with its commitment
/// or revealed with its opening (Castle Siege). Returns the event, proven
/// against `replay`, which is updated.
pub fn play_with(
    replay: &mut SignedReplay,
    moves: &[String],
    evidence: Vec<Evidence>,
    mover: &Signer<'_>,
) -> Result<SignedEvent, TableError> {
    check_turn(replay, mover)?;
    let mut working = replay.clone();
    let event = turn_event(&mut working, mover, moves, evidence)?;
    *replay = working;
    Ok(event)
}

/// Signs and proves a turn of `moves` with `evidence`.
fn turn_event(
    working: &mut SignedReplay,
    mover: &Signer<'_>,
    moves: &[String],
    evidence: Vec<Evidence>,
) -> Result<SignedEvent, TableError> {
    let tokens = moves
        .iter()
        .map(|m| MoveToken::new(m.as_str()).map_err(|e| TableError::Value(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let body = EventBody::Turn(TurnBody {
        moves: List::new(tokens).map_err(|e| TableError::Value(e.to_string()))?,
        evidence: List::new(evidence).map_err(|e| TableError::Value(e.to_string()))?,
    });
    next_event(working, mover.key, body)
}

/// The evidence of a resolved turn: its outcomes, then each skipped order.
fn outcome_evidence(
    roll: u64,
    results: List<crate::fair_play::chance::ChanceRecord>,
    skipped: &[usize],
) -> Result<Vec<Evidence>, TableError> {
    let mut evidence = vec![Evidence::Outcomes { roll, results }];
    for order in skipped {
        evidence.push(Evidence::Skipped {
            roll,
            order: u32::try_from(*order)
                .map_err(|_| TableError::Value("too many orders in one turn".into()))?,
        });
    }
    Ok(evidence)
}

/// A turn that needs chance: from the open seed in practice, else through
/// a roll's three steps.
fn chance_turn(
    working: &mut SignedReplay,
    orders: &[String],
    mover: &Signer<'_>,
    others: &[Signer<'_>],
) -> Result<Vec<SignedEvent>, TableError> {
    let seat = check_turn(working, mover)?;
    if let Some(stream) = working.practice_stream() {
        let mut stream = stream.clone();
        let roll = working.summary().map_or(0, |s| s.rolls);
        let mut chance = RecordingChance::new(&mut stream);
        let resolved = working
            .game()
            .resolve(seat, orders, &mut chance)
            .map_err(TableError::Rules)?;
        let evidence = outcome_evidence(roll, chance.into_records(), &resolved.skipped)?;
        return Ok(vec![turn_event(working, mover, &resolved.moves, evidence)?]);
    }
    roll(working, seat, orders, mover, others)
}

/// The three steps of a roll: request, responses, moves with outcomes.
fn roll(
    working: &mut SignedReplay,
    seat: usize,
    orders: &[String],
    mover: &Signer<'_>,
    others: &[Signer<'_>],
) -> Result<Vec<SignedEvent>, TableError> {
    let me = mover.public_key();
    let (Some(book), Some(last)) = (working.roll_book(), working.events().last()) else {
        return Err(TableError::Start("the game has no roll book".into()));
    };
    let index = book.next_index();
    let reveal = match (book.next_reveal_position(&me), mover.chain) {
        (Some(position), Some(chain)) => {
            let position = u32::try_from(position)
                .map_err(|_| TableError::Value("the chain is exhausted".into()))?;
            Some(
                chain
                    .reveal(position)
                    .map_err(|e| TableError::Value(e.to_string()))?,
            )
        }
        (Some(_), None) => return Err(TableError::MissingSecret(working.name_of(&me))),
        (None, _) => None,
    };
    let declared = orders
        .iter()
        .map(|o| text(o))
        .collect::<Result<Vec<_>, _>>()?;
    let request = RollRequest {
        game: last.event.game.clone(),
        index,
        record_hash: last.hash(),
        requester: me,
        declaration: Declaration {
            orders: List::new(declared).map_err(|e| TableError::Value(e.to_string()))?,
            seed: Text::default(),
        },
        reveal,
    }
    .sign(mover.key);
    let mut events = Vec::new();
    let body = EventBody::Turn(TurnBody {
        moves: List::empty(),
        evidence: List::new(vec![Evidence::RollRequest(request.clone())])
            .map_err(|e| TableError::Value(e.to_string()))?,
    });
    events.push(next_event(working, mover.key, body)?);
    let turn = TurnContext {
        record_hash: request.request.record_hash,
        player_to_move: me,
    };
    let awaiting: Vec<PublicKey> = working
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
        // The responder answers only through the guard, on a copy of the
        // book the verifier accepted.
        let mut book = working
            .roll_book()
            .cloned()
            .ok_or_else(|| TableError::Start("the game has no roll book".into()))?;
        let answer = book
            .answer(&request, &turn, signer.key, chain)
            .map_err(|e| TableError::Value(format!("the roll was not answered: {e}")))?;
        let body = EventBody::Turn(TurnBody {
            moves: List::empty(),
            evidence: List::new(vec![Evidence::RollResponse(answer.response)])
                .map_err(|e| TableError::Value(e.to_string()))?,
        });
        events.push(next_event(working, signer.key, body)?);
    }
    let (Some(done), Some(game_id)) = (
        working.verifier().completed_roll(index).cloned(),
        working.events().first().map(|e| e.event.game.clone()),
    ) else {
        return Err(TableError::Start("the roll did not complete".into()));
    };
    let mut chance = RecordingChance::new(done.stream(&game_id));
    let resolved = working
        .game()
        .resolve(seat, orders, &mut chance)
        .map_err(TableError::Rules)?;
    let evidence = outcome_evidence(index, chance.into_records(), &resolved.skipped)?;
    events.push(turn_event(working, mover, &resolved.moves, evidence)?);
    Ok(events)
}

/// `who` resigns.
pub fn resign(replay: &mut SignedReplay, who: &Signer<'_>) -> Result<SignedEvent, TableError> {
    let mut working = replay.clone();
    let event = next_event(&mut working, who.key, EventBody::Resignation)?;
    *replay = working;
    Ok(event)
}

/// `who` offers a draw.
pub fn offer_draw(replay: &mut SignedReplay, who: &Signer<'_>) -> Result<SignedEvent, TableError> {
    let mut working = replay.clone();
    let event = next_event(&mut working, who.key, EventBody::DrawOffer)?;
    *replay = working;
    Ok(event)
}

/// `who` answers the latest open draw offer by another party.
pub fn answer_draw(
    replay: &mut SignedReplay,
    who: &Signer<'_>,
    accepted: bool,
) -> Result<SignedEvent, TableError> {
    let me = who.public_key();
    let offer = replay
        .open_draw_offers()
        .iter()
        .rev()
        .find(|(_, by)| *by != me)
        .map(|(hash, _)| *hash)
        .ok_or(TableError::NoOffer)?;
    let mut working = replay.clone();
    let event = next_event(
        &mut working,
        who.key,
        EventBody::DrawAnswer { offer, accepted },
    )?;
    *replay = working;
    Ok(event)
}
