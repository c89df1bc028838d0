//! Rules and evidence together: a signed game replayed event by event.
//!
//! [`SignedReplay`] feeds every signed event to the fair-play
//! [`RecordVerifier`] (links, signatures, opening, rolls, commitments,
//! offers) and every turn's moves to the game's [`GameReplay`], with the
//! turn's chance values checked through a [`ReplayChance`]. What only the
//! two together can check is checked here:
//!
//! - the opening names this game and pins this ruleset's hash;
//! - the opening gives each seat of the game (Khan: `white`, `black`) to
//!   exactly one party, or draws them (then nobody moves before the
//!   challenger's role reveal);
//! - a roll request is made by the player the rules say is to move;
//! - moves are made by the player to move, and are legal;
//! - a turn's outcomes belong to a roll its author requested, and its moves
//!   are exactly the orders that roll declared (less the ones recorded as
//!   skipped): nobody can roll for one move and play another;
//! - the rules asked for exactly the recorded values, with the recorded
//!   purposes;
//! - nothing follows an ending made by the rules;
//! - an accepted take-back restores the game as it was after the event it
//!   names.
//!
//! Every push either succeeds and updates everything, or fails and changes
//! nothing, so a harness can try an event before it writes it.

use std::collections::BTreeMap;

use thiserror::Error;
use yam_notation::GameResult;

use crate::fair_play::chance::{Chance, ChanceError, ChanceRecord, ReplayChance};
use crate::fair_play::commit::Commitment;
use crate::fair_play::hash::Hash32;
use crate::fair_play::outcome::{ByteSource, PracticeStream};
use crate::fair_play::record::{Fault, RecordError, RecordSummary, RecordVerifier};
use crate::fair_play::roll::RollBook;
use crate::fair_play::sign::{Fingerprint, PublicKey};
use crate::fair_play::turn::{
    Challenge, EventBody, Evidence, Mode, Party, RoleChoice, SignedEvent, TurnBody,
};
use crate::replay::{GameEnd, GameReplay, LoadedRuleset, NoChance, RulesCatalog, RulesError};

use super::text::{mode_name, practice_seed_text};

/// Why an event was refused, and which.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("event #{seq}: {fault}")]
pub struct ReplayError {
    /// The event's position in the signed record, from 0.
    pub seq: u32,
    /// What is wrong.
    pub fault: ReplayFault,
}

/// What is wrong with an event, by the evidence or by the rules.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayFault {
    /// The fair-play verifier refused it.
    #[error(transparent)]
    Record(Fault),
    /// The challenge names another game.
    #[error("the signed opening is for {named:?}, but the record is a {expected} game")]
    WrongGame {
        /// The game the challenge names.
        named: String,
        /// The game being replayed.
        expected: &'static str,
    },
    /// The ruleset as loaded is not the one the opening pinned.
    #[error(
        "the signed opening pins ruleset hash {pinned}, but ruleset {name} as loaded has hash {loaded}: its text is not the text the game was begun under (a ruleset file changed since, or another version of Yam's built-in ruleset)"
    )]
    RulesetMismatch {
        /// The ruleset's name.
        name: String,
        /// The hash in the signed challenge.
        pinned: Hash32,
        /// The hash of the ruleset's text as loaded.
        loaded: Hash32,
    },
    /// The opening does not give each seat to exactly one party.
    #[error("the opening does not settle the seats: {0}")]
    Seats(String),
    /// Moves before drawn roles were revealed.
    #[error("moves before the drawn roles are revealed")]
    RolesNotSettled,
    /// A move by someone whose turn it is not.
    #[error("{author} moved, but it is {expected}'s turn")]
    NotYourTurn {
        /// The author.
        author: String,
        /// Who is to move ("nobody" once the game is over).
        expected: String,
    },
    /// The rules refused a move.
    #[error("{0}")]
    Rules(RulesError),
    /// The rules asked for chance values other than the recorded ones.
    #[error("the rules and the recorded outcomes disagree: {0}")]
    Chance(ChanceError),
    /// The turn plays other moves than the roll declared.
    #[error("roll {roll} was requested for {declared:?}, but the turn plays {played:?}")]
    UndeclaredMoves {
        /// The roll.
        roll: u64,
        /// The declared orders, less the skipped ones.
        declared: Vec<String>,
        /// The moves of the turn.
        played: Vec<String>,
    },
    /// Outcomes of a roll the author did not request.
    #[error("roll {roll} was not requested by the author of these outcomes")]
    NotYourRoll {
        /// The roll.
        roll: u64,
    },
    /// A turn with the outcomes of more than one roll.
    #[error("a turn carries the outcomes of one roll at most")]
    TwoRolls,
    /// Something after the rules ended the game.
    #[error("the game is over: {0}")]
    GameOver(String),
    /// A party without a seat (a referee) tried to resign.
    #[error("{0} has no seat in this game")]
    NoSeat(String),
}

/// An ending the record states: not a move, and no position makes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordEnding {
    /// The player in this seat resigned.
    Resigned(usize),
    /// Both players agreed to a draw.
    DrawAgreed,
}

/// A forfeit claim on record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The claimant's seat, if it has one.
    pub by_seat: Option<usize>,
    /// The claimant.
    pub by: PublicKey,
    /// The party claimed against.
    pub against: PublicKey,
    /// The reason given.
    pub reason: String,
    /// The event's position.
    pub seq: u32,
}

#[derive(Debug, Clone)]
struct Request {
    requester: PublicKey,
    orders: Vec<String>,
}

#[derive(Debug, Clone)]
struct Snapshot {
    game: Box<dyn GameReplay>,
    plies: u32,
}

/// A signed game replayed by its rules and its evidence; see the module
/// documentation.
#[derive(Debug, Clone)]
pub struct SignedReplay {
    game: Box<dyn GameReplay>,
    ruleset_name: String,
    ruleset_hash: Hash32,
    verifier: RecordVerifier,
    events: Vec<SignedEvent>,
    snapshots: Vec<Snapshot>,
    challenge: Option<Challenge>,
    parties: Vec<Party>,
    seats: Option<Vec<PublicKey>>,
    practice: Option<PracticeStream>,
    requests: BTreeMap<u64, Request>,
    takeback_offers: BTreeMap<Hash32, u32>,
    draw_offers: Vec<(Hash32, PublicKey)>,
    commitments: Vec<(PublicKey, Commitment)>,
    ending: Option<RecordEnding>,
    claims: Vec<Claim>,
    plies: u32,
}

impl SignedReplay {
    /// A replay of `game` from its start, under the ruleset `ruleset_name`
    /// whose text hashes to `ruleset_hash`.
    pub fn new(game: Box<dyn GameReplay>, ruleset_name: &str, ruleset_hash: Hash32) -> Self {
        SignedReplay {
            game,
            ruleset_name: ruleset_name.to_owned(),
            ruleset_hash,
            verifier: RecordVerifier::new(),
            events: Vec::new(),
            snapshots: Vec::new(),
            challenge: None,
            parties: Vec::new(),
            seats: None,
            practice: None,
            requests: BTreeMap::new(),
            takeback_offers: BTreeMap::new(),
            draw_offers: Vec::new(),
            commitments: Vec::new(),
            ending: None,
            claims: Vec::new(),
            plies: 0,
        }
    }

    /// A replay of `ruleset`'s game from its start, through `catalog`.
    pub fn start(catalog: &dyn RulesCatalog, ruleset: &LoadedRuleset) -> Result<Self, String> {
        let game = catalog.start(ruleset)?;
        Ok(SignedReplay::new(game, &ruleset.name, ruleset.hash()))
    }

    /// Checks and applies the next event; on error nothing changes.
    pub fn push(&mut self, signed: &SignedEvent) -> Result<(), ReplayError> {
        let seq = u32::try_from(self.events.len()).unwrap_or(u32::MAX);
        let mut next = self.clone();
        next.apply(signed)
            .map_err(|fault| ReplayError { seq, fault })?;
        *self = next;
        Ok(())
    }

    fn apply(&mut self, signed: &SignedEvent) -> Result<(), ReplayFault> {
        let event = &signed.event;
        if let Some(end) = self.game.outcome() {
            return Err(ReplayFault::GameOver(end.reason));
        }
        let to_move = self.to_move_key().unwrap_or(event.author);
        self.verifier
            .push_with_turn(signed, &to_move)
            .map_err(|e: RecordError| ReplayFault::Record(e.fault))?;
        let hash = signed.hash();
        match &event.body {
            EventBody::Challenge(challenge) => self.open_challenge(challenge)?,
            EventBody::Acceptance(acceptance) => {
                self.parties.push(acceptance.party.clone());
                self.maybe_start()?;
            }
            EventBody::Turn(turn) => self.turn(signed, turn)?,
            EventBody::Resignation => {
                let seat = self
                    .seat_of(&event.author)
                    .ok_or_else(|| ReplayFault::NoSeat(self.name_of(&event.author)))?;
                self.ending = Some(RecordEnding::Resigned(seat));
            }
            EventBody::DrawOffer => self.draw_offers.push((hash, event.author)),
            EventBody::DrawAnswer { offer, accepted } => {
                self.draw_offers.retain(|(h, _)| h != offer);
                if *accepted {
                    self.ending = Some(RecordEnding::DrawAgreed);
                }
            }
            EventBody::TakebackOffer { back_to } => {
                self.takeback_offers.insert(hash, *back_to);
            }
            EventBody::TakebackAnswer { offer, accepted } => {
                let back_to = self.takeback_offers.remove(offer);
                if let (true, Some(back_to)) = (*accepted, back_to)
                    && let Some(snapshot) = usize::try_from(back_to)
                        .ok()
                        .and_then(|i| self.snapshots.get(i))
                {
                    self.game = snapshot.game.clone();
                    self.plies = snapshot.plies;
                }
            }
            EventBody::ForfeitClaim {
                against, reason, ..
            } => self.claims.push(Claim {
                by_seat: self.seat_of(&event.author),
                by: event.author,
                against: *against,
                reason: reason.as_str().to_owned(),
                seq: event.seq,
            }),
        }
        self.events.push(signed.clone());
        self.snapshots.push(Snapshot {
            game: self.game.clone(),
            plies: self.plies,
        });
        Ok(())
    }

    fn open_challenge(&mut self, challenge: &Challenge) -> Result<(), ReplayFault> {
        let expected = self.game.game().name();
        if challenge.game_name.as_str() != expected {
            return Err(ReplayFault::WrongGame {
                named: challenge.game_name.as_str().to_owned(),
                expected,
            });
        }
        if challenge.ruleset_hash != self.ruleset_hash {
            return Err(ReplayFault::RulesetMismatch {
                name: self.ruleset_name.clone(),
                pinned: challenge.ruleset_hash,
                loaded: self.ruleset_hash,
            });
        }
        self.parties.push(challenge.challenger.clone());
        self.challenge = Some(challenge.clone());
        Ok(())
    }

    /// When the last acceptance is in: the practice stream, and the seats
    /// when the challenger chose them.
    fn maybe_start(&mut self) -> Result<(), ReplayFault> {
        let Some(challenge) = &self.challenge else {
            return Ok(());
        };
        if self.parties.len() != challenge.invited.len() + 1 {
            return Ok(());
        }
        if let (Mode::Practice { seed }, Some(game)) = (&challenge.mode, self.game_id()) {
            self.practice = Some(PracticeStream::new(&game, seed));
        }
        if challenge.roles == RoleChoice::Chosen {
            let mut seats = Vec::new();
            for role in self.game.seats() {
                let holders: Vec<&Party> = self
                    .parties
                    .iter()
                    .filter(|p| {
                        p.roles
                            .iter()
                            .any(|r| r.as_str().eq_ignore_ascii_case(role))
                    })
                    .collect();
                match holders.as_slice() {
                    [one] => seats.push(one.key),
                    [] => return Err(ReplayFault::Seats(format!("nobody has the role {role}"))),
                    _ => {
                        return Err(ReplayFault::Seats(format!(
                            "{} parties have the role {role}",
                            holders.len()
                        )));
                    }
                }
            }
            self.seats = Some(seats);
        } else if self.game.seats().len() != 2 || self.parties.len() < 2 {
            return Err(ReplayFault::Seats(
                "roles can be drawn only between two players".into(),
            ));
        }
        Ok(())
    }

    fn game_id(&self) -> Option<crate::fair_play::game_id::GameId> {
        self.events.first().map(|e| e.event.game.clone())
    }

    fn turn(&mut self, signed: &SignedEvent, turn: &TurnBody) -> Result<(), ReplayFault> {
        let author = signed.event.author;
        for evidence in turn.evidence.iter() {
            match evidence {
                Evidence::RollRequest(request) => {
                    self.requests.insert(
                        request.request.index,
                        Request {
                            requester: author,
                            orders: request
                                .request
                                .declaration
                                .orders
                                .iter()
                                .map(|o| o.as_str().to_owned())
                                .collect(),
                        },
                    );
                }
                Evidence::SetupCommitment(c) => self.commitments.push((author, *c)),
                Evidence::RoleReveal(_) => {
                    let first = self
                        .verifier
                        .summary()
                        .and_then(|s| s.challenger_takes_first_roles);
                    if let (Some(first), [challenger, acceptor, ..]) = (first, &self.parties[..]) {
                        self.seats = Some(if first {
                            vec![challenger.key, acceptor.key]
                        } else {
                            vec![acceptor.key, challenger.key]
                        });
                    }
                }
                _ => {}
            }
        }
        if turn.moves.is_empty() {
            // Values drawn for no move would be values the rules never
            // asked for.
            return match turn.evidence.iter().find_map(|e| match e {
                Evidence::Outcomes { results, .. } => Some(results.len()),
                _ => None,
            }) {
                Some(count) if count > 0 => Err(ReplayFault::Chance(ChanceError::Unused {
                    position: 0,
                    count,
                })),
                _ => Ok(()),
            };
        }
        let Some(seats) = &self.seats else {
            return Err(ReplayFault::RolesNotSettled);
        };
        let to_move = self.game.to_move().and_then(|s| seats.get(s)).copied();
        if to_move != Some(author) {
            return Err(ReplayFault::NotYourTurn {
                author: self.name_of(&author),
                expected: to_move.map_or_else(|| "nobody".to_owned(), |k| self.name_of(&k)),
            });
        }
        let outcomes: Vec<(u64, &[ChanceRecord])> = turn
            .evidence
            .iter()
            .filter_map(|e| match e {
                Evidence::Outcomes { roll, results } => Some((*roll, &results[..])),
                _ => None,
            })
            .collect();
        let mut game = self.game.clone();
        match outcomes.as_slice() {
            [] => play_watched(&mut *game, &turn.moves, &mut NoChance)?,
            [(roll, results)] => {
                if let Some(stream) = self.practice.as_mut() {
                    play_checked(&mut *game, &turn.moves, stream, results)?;
                } else {
                    self.check_declared(*roll, author, turn)?;
                    let (Some(done), Some(id)) =
                        (self.verifier.completed_roll(*roll), self.game_id())
                    else {
                        return Err(ReplayFault::Record(Fault::NoSuchRoll { roll: *roll }));
                    };
                    play_checked(&mut *game, &turn.moves, done.stream(&id), results)?;
                }
            }
            _ => return Err(ReplayFault::TwoRolls),
        }
        self.game = game;
        self.plies = self
            .plies
            .saturating_add(u32::try_from(turn.moves.len()).unwrap_or(u32::MAX));
        Ok(())
    }

    /// The moves must be the roll's declared orders, less the skipped ones.
    fn check_declared(
        &self,
        roll: u64,
        author: PublicKey,
        turn: &TurnBody,
    ) -> Result<(), ReplayFault> {
        let Some(request) = self.requests.get(&roll) else {
            return Err(ReplayFault::Record(Fault::NoSuchRoll { roll }));
        };
        if request.requester != author {
            return Err(ReplayFault::NotYourRoll { roll });
        }
        let skipped: Vec<usize> = turn
            .evidence
            .iter()
            .filter_map(|e| match e {
                Evidence::Skipped { roll: r, order } if *r == roll => usize::try_from(*order).ok(),
                _ => None,
            })
            .collect();
        let declared: Vec<String> = request
            .orders
            .iter()
            .enumerate()
            .filter(|(i, _)| !skipped.contains(i))
            .map(|(_, o)| o.clone())
            .collect();
        let played: Vec<String> = turn.moves.iter().map(|m| m.as_str().to_owned()).collect();
        if declared != played {
            return Err(ReplayFault::UndeclaredMoves {
                roll,
                declared,
                played,
            });
        }
        Ok(())
    }

    // ----- what the replay shows -----

    /// The events accepted so far.
    pub fn events(&self) -> &[SignedEvent] {
        &self.events
    }

    /// The fair-play summary; `None` before the challenge.
    pub fn summary(&self) -> Option<RecordSummary> {
        self.verifier.summary()
    }

    /// The fair-play verifier's state.
    pub fn verifier(&self) -> &RecordVerifier {
        &self.verifier
    }

    /// The roll book, for a responder's guard.
    pub fn roll_book(&self) -> Option<&RollBook> {
        self.verifier.roll_book()
    }

    /// The game's rules at the current position.
    pub fn game(&self) -> &dyn GameReplay {
        &*self.game
    }

    /// The ruleset's name.
    pub fn ruleset_name(&self) -> &str {
        &self.ruleset_name
    }

    /// The challenge, once read.
    pub fn challenge(&self) -> Option<&Challenge> {
        self.challenge.as_ref()
    }

    /// Every party, challenger first.
    pub fn parties(&self) -> &[Party] {
        &self.parties
    }

    /// The key of each seat, once settled.
    pub fn seats(&self) -> Option<&[PublicKey]> {
        self.seats.as_deref()
    }

    /// The seat of `key`, if it has one.
    pub fn seat_of(&self, key: &PublicKey) -> Option<usize> {
        self.seats.as_ref()?.iter().position(|k| k == key)
    }

    /// Whether the opening (every acceptance) is complete.
    pub fn opening_complete(&self) -> bool {
        self.challenge
            .as_ref()
            .is_some_and(|c| self.parties.len() == c.invited.len() + 1)
    }

    /// The key of the player to move, if the seats are settled and the game
    /// goes on.
    pub fn to_move_key(&self) -> Option<PublicKey> {
        if self.ending.is_some() {
            return None;
        }
        let seat = self.game.to_move()?;
        self.seats.as_ref()?.get(seat).copied()
    }

    /// The practice stream as far as it was used (practice games only).
    pub fn practice_stream(&self) -> Option<&PracticeStream> {
        self.practice.as_ref()
    }

    /// Draw offers not yet answered, oldest first: (offer hash, offerer).
    pub fn open_draw_offers(&self) -> &[(Hash32, PublicKey)] {
        &self.draw_offers
    }

    /// Moves played in the game as it stands (after take-backs).
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// Forfeit claims on record.
    pub fn claims(&self) -> &[Claim] {
        &self.claims
    }

    /// The ending the record states, if any.
    pub fn record_ending(&self) -> Option<RecordEnding> {
        self.ending
    }

    /// A party's name for messages: its role and fingerprint.
    pub fn name_of(&self, key: &PublicKey) -> String {
        match self.seat_of(key).and_then(|s| self.game.seats().get(s)) {
            Some(role) => format!("{role} ({})", key.fingerprint()),
            None => key.fingerprint().to_string(),
        }
    }

    /// How the game ended, by the rules or by the record, if it did.
    pub fn ending(&self) -> Option<GameEnd> {
        if let Some(end) = self.game.outcome() {
            return Some(end);
        }
        let roles = self.game.seats();
        match self.ending? {
            RecordEnding::Resigned(seat) => {
                let winner = if seat == 0 { 1 } else { 0 };
                let result = if winner == 0 {
                    GameResult::FirstWins
                } else {
                    GameResult::SecondWins
                };
                let role = |s: usize| roles.get(s).copied().unwrap_or("a player");
                Some(GameEnd {
                    result,
                    reason: format!("{} wins: {} resigned", role(winner), role(seat)),
                })
            }
            RecordEnding::DrawAgreed => Some(GameEnd {
                result: GameResult::Draw,
                reason: "draw by agreement".into(),
            }),
        }
    }

    /// The results the record may end with, and why.
    pub fn allowed_results(&self) -> (Vec<GameResult>, String) {
        if let Some(end) = self.ending() {
            return (vec![end.result], end.reason);
        }
        let mut allowed = vec![GameResult::Unfinished];
        let mut why = "the game is not over".to_owned();
        for claim in &self.claims {
            let result = match claim.by_seat {
                Some(0) => GameResult::FirstWinsByForfeit,
                Some(1) => GameResult::SecondWinsByForfeit,
                _ => continue,
            };
            if !allowed.contains(&result) {
                allowed.push(result);
                why = format!(
                    "the game is not over, but {} claimed a forfeit ({})",
                    self.name_of(&claim.by),
                    claim.reason
                );
            }
        }
        (allowed, why)
    }

    /// The fair-play header tags the signed events imply, in canonical
    /// order, each with its value; tags whose facts are not known yet (keys
    /// before drawn roles are revealed) are left out.
    pub fn expected_tags(&self) -> Vec<(&'static str, String)> {
        let mut tags = Vec::new();
        let Some(challenge) = &self.challenge else {
            return tags;
        };
        tags.push(("RulesetHash", challenge.ruleset_hash.to_hex()));
        tags.push(("Mode", mode_name(&challenge.mode).to_owned()));
        let referee = self.referee();
        if let Some(seats) = &self.seats {
            for (name, key) in ["FirstKey", "SecondKey"].into_iter().zip(seats) {
                tags.push((name, hex::encode(key.as_bytes())));
            }
        }
        if let Some(r) = referee {
            tags.push(("RefereeKey", hex::encode(r.key.as_bytes())));
        }
        if let Some(seats) = &self.seats {
            for (name, key) in ["FirstAnchor", "SecondAnchor"].into_iter().zip(seats) {
                if let Some(anchor) = self.party(key).and_then(|p| p.anchor.as_ref()) {
                    tags.push((name, hex::encode(anchor.value.as_bytes())));
                }
            }
        }
        if let Some(anchor) = referee.and_then(|r| r.anchor.as_ref()) {
            tags.push(("RefereeAnchor", hex::encode(anchor.value.as_bytes())));
        }
        if let Some(seats) = &self.seats {
            for (name, key) in ["FirstCommitment", "SecondCommitment"]
                .into_iter()
                .zip(seats)
            {
                if let Some((_, c)) = self.commitments.iter().find(|(k, _)| k == key) {
                    tags.push((name, c.hash().to_hex()));
                }
            }
        }
        if let Mode::Practice { seed } = &challenge.mode {
            tags.push(("PracticeSeed", practice_seed_text(seed)));
        }
        tags
    }

    fn party(&self, key: &PublicKey) -> Option<&Party> {
        self.parties.iter().find(|p| p.key == *key)
    }

    /// The party without a seat (a robot or director), once the seats are
    /// settled.
    pub fn referee(&self) -> Option<&Party> {
        let seats = self.seats.as_ref()?;
        self.parties.iter().find(|p| !seats.contains(&p.key))
    }

    /// Fingerprints of the seats' keys, for reports.
    pub fn seat_fingerprints(&self) -> Vec<(&'static str, Fingerprint)> {
        let roles = self.game.seats();
        self.seats
            .iter()
            .flatten()
            .zip(roles)
            .map(|(k, r)| (*r, k.fingerprint()))
            .collect()
    }
}

/// Plays a turn, reporting a chance value the rules could not get as a
/// chance fault (a missing or mismatched outcome), not as a refused move.
fn play_watched(
    game: &mut dyn GameReplay,
    moves: &[crate::fair_play::turn::MoveToken],
    chance: &mut impl Chance,
) -> Result<(), ReplayFault> {
    let mut watch = Watch {
        inner: chance,
        error: None,
    };
    let played = game.play(moves, &mut watch);
    if let Some(e) = watch.error.take() {
        return Err(ReplayFault::Chance(e));
    }
    played.map_err(ReplayFault::Rules)
}

/// Plays with the recorded values checked against `source`; every recorded
/// value must be used.
fn play_checked(
    game: &mut dyn GameReplay,
    moves: &[crate::fair_play::turn::MoveToken],
    source: impl ByteSource,
    results: &[ChanceRecord],
) -> Result<(), ReplayFault> {
    let mut chance = ReplayChance::new(source, results);
    play_watched(game, moves, &mut chance)?;
    chance.finish().map_err(ReplayFault::Chance)
}

/// Remembers the first chance error, so that a game that turns it into a
/// refused move is still reported as a chance mismatch.
struct Watch<C> {
    inner: C,
    error: Option<ChanceError>,
}

impl<C: Chance> Chance for Watch<&mut C> {
    fn die(&mut self, purpose: &str, sides: u16) -> Result<u16, ChanceError> {
        self.inner.die(purpose, sides).inspect_err(|e| {
            self.error.get_or_insert_with(|| e.clone());
        })
    }
    fn draw(&mut self, purpose: &str, remaining: usize) -> Result<usize, ChanceError> {
        self.inner.draw(purpose, remaining).inspect_err(|e| {
            self.error.get_or_insert_with(|| e.clone());
        })
    }
    fn assurance(&self) -> crate::fair_play::outcome::Assurance {
        self.inner.assurance()
    }
}
