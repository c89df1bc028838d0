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

use crate::fair_play::chain::{ChainError, HashChain};
use crate::fair_play::chance::RecordingChance;
use crate::fair_play::commit::{Commitment, Salt, SetupOpening};
use crate::fair_play::encoding::{Blob, List, Text};
use crate::fair_play::game_id::GameId;
use crate::fair_play::hash::Hash32;
use crate::fair_play::roll::{Declaration, RollError, RollRequest, SignedRollRequest};
use crate::fair_play::sign::{PublicKey, SigningKey};
use crate::fair_play::turn::{
    Acceptance, Challenge, Event, EventBody, Evidence, Mode, MoveToken, Party, RoleChoice,
    SignedEvent, TurnBody,
};
use crate::replay::{LoadedRuleset, RulesCatalog, RulesError};
use crate::ruleset_error::RulesetError;

use super::replay::{OfferKind, ReplayError, SignedReplay};
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
    /// The ruleset names no ruleset that can be played.
    #[error(transparent)]
    Ruleset(#[from] RulesetError),
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
    /// A party's hash chain has no value left: no die can be rolled nor
    /// card drawn again in this game (a chain is never drawn anew,
    /// `docs/fair-play.md` 3.2), but the game can still be ended.
    #[error(
        "{who}'s chain is exhausted: all {length} of its values have been revealed, so no more dice can be rolled or cards drawn in this game (a chain is drawn once, with the game); the game can still be ended: resign, or offer a draw"
    )]
    ChainExhausted {
        /// Whose chain, by name.
        who: String,
        /// Whose chain, by key.
        owner: Box<PublicKey>,
        /// Its length.
        length: u32,
    },
    /// A party whose secrets the harness lacks had to act.
    #[error("the secrets of {0} are needed to answer the roll")]
    MissingSecret(String),
    /// No draw offer by another party is open.
    #[error("no draw offer by the other side is waiting for an answer")]
    NoDrawOffer,
    /// No take-back offer by another party is open.
    #[error("no take-back offer by the other side is waiting for an answer")]
    NoTakebackOffer,
    /// A roll is open, and this is not its next step: the roll is played
    /// before anything else (`docs/fair-play.md`, 3.3).
    #[error(
        "roll {index} is open ({stage}; owed by {owed_by}): it is played before anything else{}",
        declared.as_ref().map(|d| format!(", and its turn plays the orders it declared: {d}")).unwrap_or_default()
    )]
    RollOpen {
        /// The open roll.
        index: u64,
        /// Where it stands.
        stage: crate::fair_play::roll::RollStage,
        /// Who owes its next event, by name.
        owed_by: String,
        /// What it declared, when the mover tried to play other orders.
        declared: Option<String>,
    },
    /// The fair-play layer refused an event the harness built: a defect, or
    /// a record in a state the harness does not expect.
    #[error("the event was refused: {0}")]
    Refused(ReplayError),
}

fn text(value: &str) -> Result<Text, TableError> {
    Text::new(value).map_err(|e| TableError::Value(e.to_string()))
}

/// Signs `body` by `key` as the next event of `replay`, and proves it:
/// the one way every event of the harness is made.
pub fn next_event(
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

/// How the challenger wants the seats settled, as far as it alone decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatChoice {
    /// The challenger takes the first seat or the second.
    Chosen {
        /// Whether the challenger takes the first seat.
        challenger_first: bool,
    },
    /// Drawn: the challenger's secret salt, committed in the challenge; the
    /// acceptor's bytes come with its acceptance.
    Drawn {
        /// The challenger's secret salt.
        salt: [u8; 32],
    },
    /// A solo game refereed by the challenger.
    Refereed,
}

/// A challenge, as its author alone can make it: the invited player is
/// named by key, so the keys are exchanged first.
#[derive(Debug)]
pub struct ChallengeSpec<'a> {
    /// The game's identifier.
    pub game: GameId,
    /// The ruleset, as loaded: its hash is pinned in the challenge.
    pub ruleset: LoadedRuleset,
    /// Peer, director or practice.
    pub mode: Mode,
    /// Who challenges.
    pub challenger: Signer<'a>,
    /// Whom it invites.
    pub invited: PublicKey,
    /// How the seats are settled.
    pub seats: SeatChoice,
}

fn one_list<T>(item: T) -> Result<List<T>, TableError> {
    List::new(vec![item]).map_err(|e| TableError::Value(e.to_string()))
}

/// The challenger's first event. Returns the replay after it and the event.
pub fn challenge(
    catalog: &dyn RulesCatalog,
    spec: &ChallengeSpec<'_>,
) -> Result<(SignedReplay, SignedEvent), TableError> {
    let mut replay = SignedReplay::start(catalog, &spec.ruleset)?;
    let seats = replay.game().seats();
    let game_name = replay.game().game().name();
    let refereed = spec.seats == SeatChoice::Refereed;
    let (first_role, second_role) = match (seats, refereed) {
        ([only], true) => (*only, mode_name(&spec.mode)),
        ([_], false) => {
            return Err(TableError::Start(format!(
                "{game_name} is a solo game: its player plays against a referee's chain (director mode) or an open seed (practice)"
            )));
        }
        ([_, _], true) => {
            return Err(TableError::Start(format!(
                "{game_name} is played between two players, not against a referee"
            )));
        }
        ([first, second], false) => (*first, *second),
        _ => {
            return Err(TableError::Start(
                "Yam's tables seat games of one or two seats".into(),
            ));
        }
    };
    let practice = matches!(spec.mode, Mode::Practice { .. });
    let (challenger_roles, role_choice) = match spec.seats {
        SeatChoice::Refereed => (one_list(text(second_role)?)?, RoleChoice::Chosen),
        SeatChoice::Chosen { challenger_first } => {
            let mine = if challenger_first {
                first_role
            } else {
                second_role
            };
            (one_list(text(mine)?)?, RoleChoice::Chosen)
        }
        SeatChoice::Drawn { salt } => {
            let secret = SetupOpening {
                salt: Salt::from_bytes(salt),
                setup: Blob::default(),
            };
            let commitment = Commitment::new(&spec.game, &spec.challenger.public_key(), &secret);
            (List::empty(), RoleChoice::Drawn { commitment })
        }
    };
    let challenge = Event::challenge(
        spec.game.clone(),
        spec.challenger.public_key(),
        Challenge {
            game_name: text(game_name)?,
            ruleset_hash: spec.ruleset.hash(),
            mode: spec.mode.clone(),
            roles: role_choice,
            challenger: Party {
                key: spec.challenger.public_key(),
                anchor: if practice {
                    None
                } else {
                    spec.challenger.chain.map(|c| c.anchor().clone())
                },
                roles: challenger_roles,
            },
            invited: one_list(spec.invited)?,
        },
    )
    .sign(spec.challenger.key)
    .map_err(|e| TableError::Value(e.to_string()))?;
    replay.push(&challenge).map_err(TableError::Refused)?;
    Ok((replay, challenge))
}

/// The invited player's acceptance of the challenge `replay` holds: its
/// key, its chain's anchor, the seat the challenge leaves it, and (when the
/// seats are drawn) its `toss`, 32 bytes of its own randomness.
pub fn accept(
    replay: &mut SignedReplay,
    acceptor: &Signer<'_>,
    toss: Option<[u8; 32]>,
) -> Result<SignedEvent, TableError> {
    let challenge = replay
        .challenge()
        .cloned()
        .ok_or_else(|| TableError::Start("there is no challenge to accept".into()))?;
    if replay.events().len() != 1 {
        return Err(TableError::Start(
            "the challenge has been answered already".into(),
        ));
    }
    if !challenge
        .invited
        .iter()
        .any(|k| *k == acceptor.public_key())
    {
        return Err(TableError::Start(format!(
            "the challenge invites {}, not {}",
            challenge
                .invited
                .iter()
                .map(|k| k.fingerprint().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            acceptor.public_key().fingerprint()
        )));
    }
    let drawn = matches!(challenge.roles, RoleChoice::Drawn { .. });
    if drawn != toss.is_some() {
        return Err(TableError::Start(if drawn {
            "the seats are drawn: the acceptance carries the acceptor's toss (32 random bytes)"
                .into()
        } else {
            "the seats are chosen: the acceptance carries no toss".into()
        }));
    }
    let roles = if drawn {
        List::empty()
    } else {
        let taken: Vec<&str> = challenge
            .challenger
            .roles
            .iter()
            .map(|r| r.as_str())
            .collect();
        let left: Vec<Text> = replay
            .game()
            .seats()
            .iter()
            .filter(|r| !taken.contains(r))
            .map(|r| text(r))
            .collect::<Result<_, _>>()?;
        List::new(left).map_err(|e| TableError::Value(e.to_string()))?
    };
    let practice = matches!(challenge.mode, Mode::Practice { .. });
    let body = EventBody::Acceptance(Acceptance {
        party: Party {
            key: acceptor.public_key(),
            anchor: if practice {
                None
            } else {
                acceptor.chain.map(|c| c.anchor().clone())
            },
            roles,
        },
        toss,
    });
    let mut working = replay.clone();
    let event = next_event(&mut working, acceptor.key, body)?;
    *replay = working;
    Ok(event)
}

/// The challenger opens the salt it committed to, which with the
/// acceptor's toss settles who takes which seat.
pub fn reveal_seats(
    replay: &mut SignedReplay,
    challenger: &Signer<'_>,
    salt: [u8; 32],
) -> Result<SignedEvent, TableError> {
    let secret = SetupOpening {
        salt: Salt::from_bytes(salt),
        setup: Blob::default(),
    };
    let body = EventBody::Turn(TurnBody {
        moves: List::empty(),
        evidence: one_list(Evidence::RoleReveal(secret))?,
    });
    let mut working = replay.clone();
    let event = next_event(&mut working, challenger.key, body)?;
    *replay = working;
    Ok(event)
}

/// Whether the seats still wait for the challenger's reveal.
pub fn seats_await_reveal(replay: &SignedReplay) -> bool {
    replay.opening_complete()
        && replay.seats().is_none()
        && replay
            .challenge()
            .is_some_and(|c| matches!(c.roles, RoleChoice::Drawn { .. }))
}

/// Opens a game on one table: the challenge, the acceptance, and (when the
/// seats are drawn) the challenger's role reveal. Returns the replay after
/// them and the events.
pub fn open(
    catalog: &dyn RulesCatalog,
    opening: &Opening<'_>,
) -> Result<(SignedReplay, Vec<SignedEvent>), TableError> {
    let (seats, toss, salt) = match opening.seating {
        Seating::Chosen { challenger_first } => {
            (SeatChoice::Chosen { challenger_first }, None, None)
        }
        Seating::Drawn { salt, toss } => (SeatChoice::Drawn { salt }, Some(toss), Some(salt)),
        Seating::Refereed => (SeatChoice::Refereed, None, None),
    };
    let (mut replay, challenge) = challenge(
        catalog,
        &ChallengeSpec {
            game: opening.game.clone(),
            ruleset: opening.ruleset.clone(),
            mode: opening.mode.clone(),
            challenger: opening.challenger,
            invited: opening.acceptor.public_key(),
            seats,
        },
    )?;
    let mut events = vec![challenge];
    events.push(accept(&mut replay, &opening.acceptor, toss)?);
    if let Some(salt) = salt {
        events.push(reveal_seats(&mut replay, &opening.challenger, salt)?);
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
        events.extend(chance_turn(&mut replay, &[], &mover, &others, "")?);
    }
    Ok((replay, events))
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
                .map_err(|e| TableError::Value(format!("{written}: {e}")))?,
        );
    }
    // Try the turn without chance first: most moves of most games need none.
    let mut probe = super::replay::Probe::default();
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
    play_seeded(replay, moves, mover, others, "")
}

/// As [`play`], with `seed` (a player's free text, such as a robot's
/// player adds to a mail) in the roll's declaration, so that it enters the
/// outcome.
pub fn play_seeded(
    replay: &mut SignedReplay,
    moves: &[String],
    mover: &Signer<'_>,
    others: &[Signer<'_>],
    seed: &str,
) -> Result<Vec<SignedEvent>, TableError> {
    if replay.verifier().open_roll().is_some() {
        return finish_open_roll(replay, moves, mover, others);
    }
    let prepared = prepare(replay, moves, mover)?;
    let mut working = replay.clone();
    let events = match prepared {
        Prepared::Plain(moves) => {
            vec![turn_event(&mut working, mover, &moves, Vec::new())?]
        }
        Prepared::Roll(orders) => chance_turn(&mut working, &orders, mover, others, seed)?,
    };
    *replay = working;
    Ok(events)
}

/// A turn while a roll is open belongs to that roll: its requester, with
/// the other parties' secrets at hand, gets the responses still awaited
/// and plays the outcome turn. The moves, if given, must be the orders the
/// roll declared; nothing else may be played before it (`docs/fair-play.md`,
/// 3.3).
fn finish_open_roll(
    replay: &mut SignedReplay,
    moves: &[String],
    mover: &Signer<'_>,
    others: &[Signer<'_>],
) -> Result<Vec<SignedEvent>, TableError> {
    let Some(open) = replay.verifier().open_roll().cloned() else {
        return Ok(Vec::new());
    };
    let me = mover.public_key();
    let declared: Vec<String> = open
        .request()
        .declaration
        .orders
        .iter()
        .map(|o| o.as_str().to_owned())
        .collect();
    let written: Vec<String> = moves
        .iter()
        .map(|m| {
            replay
                .game()
                .canonical_order(m)
                .unwrap_or_else(|_| m.clone())
        })
        .collect();
    let refuse = |declared: Option<String>| TableError::RollOpen {
        index: open.index(),
        stage: open.stage(),
        owed_by: open
            .owed_by()
            .iter()
            .map(|k| replay.name_of(k))
            .collect::<Vec<_>>()
            .join(" and "),
        declared,
    };
    if open.requester() != me {
        return Err(refuse(None));
    }
    if !written.is_empty() && written != declared {
        return Err(refuse(Some(if declared.is_empty() {
            "no orders".to_owned()
        } else {
            declared.join(" ")
        })));
    }
    let mut working = replay.clone();
    let mut events = Vec::new();
    let awaiting: Vec<PublicKey> = open.awaiting().to_vec();
    for responder in awaiting {
        let signer = others
            .iter()
            .find(|s| s.public_key() == responder)
            .ok_or_else(|| TableError::MissingSecret(working.name_of(&responder)))?;
        events.push(respond(&mut working, signer)?);
    }
    events.push(complete_roll(&mut working, mover)?);
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
    seed: &str,
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
    roll(working, orders, mover, others, seed)
}

/// The three steps of a roll on one table: request, responses, moves with
/// outcomes.
fn roll(
    working: &mut SignedReplay,
    orders: &[String],
    mover: &Signer<'_>,
    others: &[Signer<'_>],
    seed: &str,
) -> Result<Vec<SignedEvent>, TableError> {
    let mut events = vec![request_roll(working, orders, mover, seed)?];
    let awaiting: Vec<PublicKey> = working
        .roll_book()
        .map(|b| b.awaiting().to_vec())
        .unwrap_or_default();
    for responder in awaiting {
        let signer = others
            .iter()
            .find(|s| s.public_key() == responder)
            .ok_or_else(|| TableError::MissingSecret(working.name_of(&responder)))?;
        events.push(respond(working, signer)?);
    }
    events.push(complete_roll(working, mover)?);
    Ok(events)
}

/// The mover's first step of a roll: the signed request declaring
/// `orders` (canonical, as [`prepare`] returned them in
/// [`Prepared::Roll`]) and `seed` (free text of the mover's, often empty),
/// with the next value of its own chain.
pub fn request_roll(
    replay: &mut SignedReplay,
    orders: &[String],
    mover: &Signer<'_>,
    seed: &str,
) -> Result<SignedEvent, TableError> {
    check_turn(replay, mover)?;
    let me = mover.public_key();
    let (Some(book), Some(last)) = (replay.roll_book(), replay.events().last()) else {
        return Err(TableError::Start("the game has no roll book".into()));
    };
    let index = book.next_index();
    let reveal = match (book.next_reveal_position(&me), mover.chain) {
        (Some(position), Some(chain)) => {
            let exhausted = || TableError::ChainExhausted {
                who: replay.name_of(&me),
                owner: Box::new(me),
                length: chain.anchor().length,
            };
            let position = u32::try_from(position).map_err(|_| exhausted())?;
            Some(chain.reveal(position).map_err(|e| match e {
                ChainError::Exhausted { .. } => exhausted(),
                e => TableError::Value(e.to_string()),
            })?)
        }
        (Some(_), None) => return Err(TableError::MissingSecret(replay.name_of(&me))),
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
            seed: text(seed)?,
        },
        reveal,
    }
    .sign(mover.key);
    let body = EventBody::Turn(TurnBody {
        moves: List::empty(),
        evidence: one_list(Evidence::RollRequest(request))?,
    });
    let mut working = replay.clone();
    let event = next_event(&mut working, mover.key, body)?;
    *replay = working;
    Ok(event)
}

/// The open roll request, as signed, while it waits for responses.
fn open_request(replay: &SignedReplay) -> Option<SignedRollRequest> {
    let open = replay.roll_book()?.open_request()?.clone();
    replay
        .events()
        .iter()
        .rev()
        .find_map(|e| match &e.event.body {
            EventBody::Turn(turn) => turn.evidence.iter().find_map(|ev| match ev {
                Evidence::RollRequest(r) if r.request == open => Some(r.clone()),
                _ => None,
            }),
            _ => None,
        })
}

/// A responder's answer to the open roll request: the next value of its
/// chain, signed over the request. Made only through the guard
/// [`RollBook::answer`](crate::fair_play::roll::RollBook::answer), on a
/// copy of the book the verifier accepted.
pub fn respond(
    replay: &mut SignedReplay,
    responder: &Signer<'_>,
) -> Result<SignedEvent, TableError> {
    let me = responder.public_key();
    let request = open_request(replay)
        .ok_or_else(|| TableError::Value("no roll request waits for an answer".into()))?;
    if !replay
        .roll_book()
        .is_some_and(|b| b.awaiting().contains(&me))
    {
        return Err(TableError::Value(format!(
            "the open roll does not wait for {}",
            replay.name_of(&me)
        )));
    }
    let chain = responder
        .chain
        .ok_or_else(|| TableError::MissingSecret(replay.name_of(&me)))?;
    let mut book = replay
        .roll_book()
        .cloned()
        .ok_or_else(|| TableError::Start("the game has no roll book".into()))?;
    let answer = book
        .answer(&request, responder.key, chain)
        .map_err(|e| match e {
            RollError::Chain {
                source: ChainError::Exhausted { length },
                ..
            } => TableError::ChainExhausted {
                who: replay.name_of(&me),
                owner: Box::new(me),
                length,
            },
            e => TableError::Value(format!("the roll was not answered: {e}")),
        })?;
    let body = EventBody::Turn(TurnBody {
        moves: List::empty(),
        evidence: one_list(Evidence::RollResponse(answer.response))?,
    });
    let mut working = replay.clone();
    let event = next_event(&mut working, responder.key, body)?;
    *replay = working;
    Ok(event)
}

/// The mover's last step of a roll: the orders it declared, resolved by the
/// rules with the roll's values, and the outcomes as evidence.
pub fn complete_roll(
    replay: &mut SignedReplay,
    mover: &Signer<'_>,
) -> Result<SignedEvent, TableError> {
    let me = mover.public_key();
    let (index, requester, orders) = replay
        .pending_outcomes()
        .ok_or_else(|| TableError::Value("no completed roll waits for its turn".into()))?;
    if requester != me {
        return Err(TableError::NotYourTurn {
            who: replay.name_of(&me),
            to_move: Some(replay.name_of(&requester)),
        });
    }
    let seat = replay
        .seat_of(&me)
        .ok_or_else(|| TableError::Value(format!("{} has no seat", replay.name_of(&me))))?;
    let (Some(done), Some(game_id)) = (
        replay.verifier().open_roll().and_then(|o| o.completed()),
        replay.events().first().map(|e| e.event.game.clone()),
    ) else {
        return Err(TableError::Start("the roll did not complete".into()));
    };
    let mut chance = RecordingChance::new(done.stream(&game_id));
    let resolved = replay
        .game()
        .resolve(seat, &orders, &mut chance)
        .map_err(TableError::Rules)?;
    let evidence = outcome_evidence(index, chance.into_records(), &resolved.skipped)?;
    let mut working = replay.clone();
    let event = turn_event(&mut working, mover, &resolved.moves, evidence)?;
    *replay = working;
    Ok(event)
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

/// `who` answers the oldest open draw offer made to it (offers are
/// answered in the order they were made, 3.8).
pub fn answer_draw(
    replay: &mut SignedReplay,
    who: &Signer<'_>,
    accepted: bool,
) -> Result<SignedEvent, TableError> {
    let offer = replay
        .oldest_offer_to(&who.public_key(), OfferKind::Draw)
        .map(|offer| offer.hash)
        .ok_or(TableError::NoDrawOffer)?;
    let mut working = replay.clone();
    let event = next_event(
        &mut working,
        who.key,
        EventBody::DrawAnswer { offer, accepted },
    )?;
    *replay = working;
    Ok(event)
}

/// `who` offers to take the game back to the position after event
/// `back_to` (never past a roll: the verifier refuses that).
pub fn offer_takeback(
    replay: &mut SignedReplay,
    who: &Signer<'_>,
    back_to: u32,
) -> Result<SignedEvent, TableError> {
    let mut working = replay.clone();
    let event = next_event(&mut working, who.key, EventBody::TakebackOffer { back_to })?;
    *replay = working;
    Ok(event)
}

/// The oldest open take-back offer made to `who`: its hash
/// and the event it goes back to.
pub fn open_takeback(replay: &SignedReplay, who: &PublicKey) -> Option<(Hash32, u32)> {
    let offer = replay.oldest_offer_to(who, OfferKind::Takeback)?;
    Some((offer.hash, offer.back_to?))
}

/// `who` answers the oldest open take-back offer made to it.
pub fn answer_takeback(
    replay: &mut SignedReplay,
    who: &Signer<'_>,
    accepted: bool,
) -> Result<SignedEvent, TableError> {
    let (offer, _) = open_takeback(replay, &who.public_key()).ok_or(TableError::NoTakebackOffer)?;
    let mut working = replay.clone();
    let event = next_event(
        &mut working,
        who.key,
        EventBody::TakebackAnswer { offer, accepted },
    )?;
    *replay = working;
    Ok(event)
}

/// `who` claims that `against` has not answered in time, with `reason`.
/// Offline, time cannot be proven: a peer's claim is evidence for a
/// director; a robot adds `robot_time`, its signed clock.
pub fn claim_forfeit(
    replay: &mut SignedReplay,
    who: &Signer<'_>,
    against: PublicKey,
    reason: &str,
    robot_time: Option<u64>,
) -> Result<SignedEvent, TableError> {
    let body = EventBody::ForfeitClaim {
        against,
        reason: text(reason)?,
        robot_time,
    };
    let mut working = replay.clone();
    let event = next_event(&mut working, who.key, body)?;
    *replay = working;
    Ok(event)
}

/// What the game waits for, and from whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Duty {
    /// The invited player's acceptance.
    Accept(PublicKey),
    /// The challenger's reveal of the salt that draws the seats.
    RevealSeats(PublicKey),
    /// An answer to an open draw offer.
    AnswerDraw(PublicKey),
    /// An answer to an open take-back offer.
    AnswerTakeback(PublicKey),
    /// A response to the open roll request.
    Respond(PublicKey),
    /// The requester's turn that uses a completed roll's values.
    CompleteRoll(PublicKey),
    /// A move.
    Move(PublicKey),
}

impl Duty {
    /// Whose duty it is.
    pub fn who(&self) -> PublicKey {
        match self {
            Duty::Accept(k)
            | Duty::RevealSeats(k)
            | Duty::AnswerDraw(k)
            | Duty::AnswerTakeback(k)
            | Duty::Respond(k)
            | Duty::CompleteRoll(k)
            | Duty::Move(k) => *k,
        }
    }
}

/// Who must act next, and how; `None` when the game is over (or nobody can
/// act). Played by mail, only this party writes the next event, so two
/// parties never sign events on the same parent and histories never fork
/// in normal play.
pub fn next_duty(replay: &SignedReplay) -> Option<Duty> {
    if replay.ending().is_some() {
        return None;
    }
    let challenge = replay.challenge()?;
    if !replay.opening_complete() {
        let accepted = replay.parties().len().saturating_sub(1);
        return challenge.invited.get(accepted).copied().map(Duty::Accept);
    }
    if seats_await_reveal(replay) {
        return Some(Duty::RevealSeats(challenge.challenger.key));
    }
    // An open roll comes before everything: nothing else may happen until
    // it is played (`docs/fair-play.md`, 3.3).
    if let Some(open) = replay.verifier().open_roll() {
        return match open.awaiting().first() {
            Some(responder) => Some(Duty::Respond(*responder)),
            None => Some(Duty::CompleteRoll(open.requester())),
        };
    }
    // Offers are answered in the order they were made: the oldest one's
    // answer is due, from the party `SignedReplay::owing` names (3.8).
    if let Some(offer) = replay.first_open_offer() {
        let other = replay.offer_made_to(&offer.author).first().copied();
        return other.map(match offer.kind {
            OfferKind::Draw => Duty::AnswerDraw,
            OfferKind::Takeback => Duty::AnswerTakeback,
        });
    }
    replay.to_move_key().map(Duty::Move)
}
