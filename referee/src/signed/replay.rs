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
//!   skipped, or, in a game whose tokens show what chance did, all of them
//!   with exactly the recorded ones shown skipped): nobody can roll for one
//!   move and play another;
//! - a move that seals or reveals a secret setup stands with its commitment
//!   or its opening, which opens to exactly the revealed bytes, and no such
//!   evidence stands without such a move;
//! - a turn without moves plays nothing, unless the rules draw before any
//!   move (Genghis Khan's Foe layout) and it carries that roll's values;
//! - the rules asked for exactly the recorded values, with the recorded
//!   purposes;
//! - nothing follows an ending made by the rules;
//! - an accepted take-back restores the game as it was after the event it
//!   names.
//!
//! Every push either succeeds and updates everything, or fails and changes
//! nothing, so a harness can try an event before it writes it.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use thiserror::Error;
use yam_notation::GameResult;

use crate::fair_play::chance::{Chance, ChanceError, ChanceRecord, ReplayChance};
use crate::fair_play::commit::Commitment;
use crate::fair_play::hash::Hash32;
use crate::fair_play::outcome::{ByteSource, PracticeStream};
use crate::fair_play::record::{Fault, RecordError, RecordSummary, RecordVerifier};
pub use crate::fair_play::record::{OfferKind, OpenOffer};
use crate::fair_play::roll::{RollBook, RollStage};
use crate::fair_play::sign::{Fingerprint, PublicKey};
use crate::fair_play::turn::{
    Challenge, EventBody, Evidence, Mode, Party, RoleChoice, SignedEvent, TurnBody,
};
use crate::replay::{
    GameEnd, GameReplay, LoadedRuleset, NoChance, RulesCatalog, RulesError, SecretSetup,
};
use crate::ruleset_error::RulesetError;

use super::log::{EventLog, SnapshotLog};
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
    /// A take-back offered or accepted to an event of moves an earlier
    /// take-back undid.
    #[error(
        "a take-back to event #{back_to} goes back into the moves that events #{first} to #{last} took back"
    )]
    TakebackIntoTakenBack {
        /// The event asked for.
        back_to: u32,
        /// The first event the earlier take-back undid.
        first: u32,
        /// The event that accepted the earlier take-back.
        last: u32,
    },
    /// The rules refused a move.
    #[error("{0}")]
    Rules(RulesError),
    /// The rules asked for chance values other than the recorded ones.
    #[error("the rules and the recorded outcomes disagree: {0}")]
    Chance(ChanceError),
    /// A turn with no moves carries a roll's outcomes: it would close the
    /// answered roll unplayed, and its requester, who knows the outcome,
    /// could roll again for a better one (fair-play 3.3, no re-roll).
    #[error(
        "roll {roll}'s outcomes come in a turn with no moves: an answered roll is played with its declared orders, never closed unplayed and rolled again (fair-play 3.3, no re-roll)"
    )]
    OutcomesPlayNothing {
        /// The roll.
        roll: u64,
    },
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
    /// The tokens show other orders skipped than the evidence records.
    #[error(
        "roll {roll}: the moves show the orders at {shown:?} skipped, but the signed evidence records {recorded:?} (positions from 0)"
    )]
    SkipsDiffer {
        /// The roll.
        roll: u64,
        /// The positions the tokens mark skipped.
        shown: Vec<usize>,
        /// The positions the `Skipped` evidence lists.
        recorded: Vec<usize>,
    },
    /// A secret setup and its evidence do not go together.
    #[error("{0}")]
    Setup(String),
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
    /// A roll request whose declaration the rules refuse in the position:
    /// nobody answers it (`docs/fair-play.md`, 3.3).
    #[error("roll {roll} declares {declared:?}, which the rules refuse here: {error}")]
    IllegalDeclaration {
        /// The roll.
        roll: u64,
        /// The orders declared.
        declared: Vec<String>,
        /// Why the rules refuse them.
        error: RulesError,
    },
    /// A roll request for orders that draw nothing.
    #[error("roll {roll} declares {declared:?}, which draws no die and no card: it needs no roll")]
    NeedsNoRoll {
        /// The roll.
        roll: u64,
        /// The orders declared.
        declared: Vec<String>,
    },
    /// A draw offer in a game whose rules have no draw by agreement.
    #[error("no draw may be offered: {0}")]
    NoDraw(&'static str),
    /// A forfeit claim against a party that owes nothing, or by a party
    /// that owes the next event itself.
    #[error("{claimant} claims that {against} forfeited, but the game waits for {owing}")]
    ClaimNotOwed {
        /// Who claims.
        claimant: String,
        /// Against whom.
        against: String,
        /// Who owes the next event.
        owing: String,
    },
    /// An offer by a party the game gives no say in it: a seatless party
    /// where two seats play (only a solo game's director offers without
    /// a seat), or anyone before the seats are settled.
    #[error("{author} may not make an offer: {why}")]
    OfferNotYours {
        /// Who offered.
        author: String,
        /// Why not.
        why: &'static str,
    },
    /// An answer to an offer by a party it was not made to (a seatless
    /// referee or a second key answering for a player, 3.8).
    #[error("{author} answered {offerer}'s offer, which is made to {made_to}")]
    NotMadeTo {
        /// Who answered.
        author: String,
        /// Who made the offer.
        offerer: String,
        /// The party the offer is made to.
        made_to: String,
    },
}

/// An ending the record states: not a move, and no position makes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecordEnding {
    /// The player in this seat resigned.
    Resigned(usize),
    /// Both players agreed to a draw.
    DrawAgreed,
}

/// A forfeit claim on record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Request {
    requester: PublicKey,
    orders: Vec<String>,
}

/// A signed game replayed by its rules and its evidence; see the module
/// documentation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SignedReplay {
    #[serde(with = "super::tip::boxed_game")]
    game: Box<dyn GameReplay>,
    /// Shared, not copied, by every push's working copy.
    ruleset_name: Arc<str>,
    ruleset_hash: Hash32,
    verifier: RecordVerifier,
    events: EventLog,
    /// A snapshot is shared with the one before when the event changed
    /// nothing in the game (a roll's responses, an offer): a tip writes it
    /// once.
    snapshots: SnapshotLog,
    /// Whether the event being applied played the game (or took it back):
    /// if not, its snapshot is the one before.
    #[serde(skip)]
    game_played: bool,
    /// Shared, not copied, by every push's working copy.
    challenge: Option<Arc<Challenge>>,
    /// Shared, not copied, by every push's working copy (they change only
    /// in the opening).
    parties: Arc<Vec<Party>>,
    /// Shared likewise: they are settled once.
    seats: Option<Arc<[PublicKey]>>,
    practice: Option<PracticeStream>,
    /// Every roll request of the game, kept to its end. Shared between a
    /// replay and the working copy each push makes, and copied only by the
    /// push that adds a request: otherwise every push would copy them all.
    requests: Arc<BTreeMap<u64, Request>>,
    /// What the push under way changed in `requests` (each key with the
    /// value it had), undone if the push fails: the map moves into the
    /// push's working copy instead of being copied (a siege or card game
    /// adds a request every turn, and copying the map at each was O(n²)
    /// over a game). Today nothing after the insertion can fail (a roll
    /// request stands alone in its event, and its checks come first); the
    /// undo keeps "on error nothing changes" true whatever comes later.
    #[serde(skip)]
    requests_undo: Vec<(u64, Option<Request>)>,
    /// The events each accepted take-back undid, in order: from the one
    /// after the event it went back to, to its acceptance. Read by the
    /// whole replay's report and the plain export, and by the take-back
    /// rule (no take-back into them), so kept in a tip (format 6): a
    /// replay restored from a tip that forgot them accepted what a whole
    /// replay refuses.
    taken_back: Vec<std::ops::RangeInclusive<u32>>,
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
            ruleset_name: Arc::from(ruleset_name),
            ruleset_hash,
            verifier: RecordVerifier::new(),
            events: EventLog::new(),
            snapshots: SnapshotLog::default(),
            game_played: false,
            challenge: None,
            parties: Arc::new(Vec::new()),
            seats: None,
            practice: None,
            requests: Arc::new(BTreeMap::new()),
            requests_undo: Vec::new(),
            taken_back: Vec::new(),
            commitments: Vec::new(),
            ending: None,
            claims: Vec::new(),
            plies: 0,
        }
    }

    /// A replay of `ruleset`'s game from its start, through `catalog`.
    pub fn start(
        catalog: &dyn RulesCatalog,
        ruleset: &LoadedRuleset,
    ) -> Result<Self, RulesetError> {
        let game = catalog.start(ruleset)?;
        Ok(SignedReplay::new(game, &ruleset.name, ruleset.hash()))
    }

    /// Whether the next events' signatures were checked before (see
    /// [`RecordVerifier::set_trusted`]).
    pub fn set_trusted(&mut self, trusted: bool) {
        self.verifier.set_trusted(trusted);
    }

    /// Checks and applies the next event; on error nothing changes.
    pub fn push(&mut self, signed: &SignedEvent) -> Result<(), ReplayError> {
        let seq = u32::try_from(self.events.len()).unwrap_or(u32::MAX);
        // The logs only grow, and only once every check has passed (the end
        // of `apply`), so they move into the working copy instead of being
        // copied: a push costs the same at event 400 as at event 4.
        let events = std::mem::take(&mut self.events);
        let snapshots = std::mem::take(&mut self.snapshots);
        let requests = std::mem::take(&mut self.requests);
        let hashes = self.verifier.take_log();
        let logged = hashes.len();
        let mut next = self.clone();
        next.events = events;
        next.snapshots = snapshots;
        next.requests = requests;
        next.requests_undo.clear();
        next.verifier.restore_log(hashes, logged);
        match next.apply(signed) {
            Ok(()) => {
                next.requests_undo.clear();
                *self = next;
                Ok(())
            }
            Err(fault) => {
                self.events = next.events;
                self.snapshots = next.snapshots;
                let mut requests = next.requests;
                if !next.requests_undo.is_empty() {
                    let map = Arc::make_mut(&mut requests);
                    for (index, was) in next.requests_undo.into_iter().rev() {
                        match was {
                            Some(request) => map.insert(index, request),
                            None => map.remove(&index),
                        };
                    }
                }
                self.requests = requests;
                self.verifier.restore_log(next.verifier.take_log(), logged);
                Err(ReplayError { seq, fault })
            }
        }
    }

    fn apply(&mut self, signed: &SignedEvent) -> Result<(), ReplayFault> {
        self.game_played = false;
        let event = &signed.event;
        if let Some(end) = self.game.outcome() {
            return Err(ReplayFault::GameOver(end.reason));
        }
        if let EventBody::ForfeitClaim { against, .. } = &event.body {
            self.check_claim(&event.author, against)?;
        }
        if let (EventBody::DrawOffer, Some(why)) = (&event.body, self.game.no_draw_by_agreement()) {
            return Err(ReplayFault::NoDraw(why));
        }
        let to_move = self.to_move_key().unwrap_or(event.author);
        // `self` is `push`'s working copy, dropped on error: the verifier
        // need not copy itself again to stay unchanged on error.
        self.verifier
            .push_in_working_copy(signed, &to_move)
            .map_err(|e: RecordError| ReplayFault::Record(e.fault))?;
        match &event.body {
            EventBody::Challenge(challenge) => self.open_challenge(challenge)?,
            EventBody::Acceptance(acceptance) => {
                Arc::make_mut(&mut self.parties).push(acceptance.party.clone());
                self.maybe_start()?;
            }
            EventBody::Turn(turn) => {
                self.plays_on(&event.author);
                self.turn(signed, turn)?;
            }
            EventBody::Resignation => {
                let seat = self
                    .seat_of(&event.author)
                    .ok_or_else(|| ReplayFault::NoSeat(self.name_of(&event.author)))?;
                self.ending = Some(RecordEnding::Resigned(seat));
            }
            // The open offers are the verifier's alone (`open_offers`): it
            // has recorded the offer, ended the ones a turn or an accepted
            // take-back ends, and closed an answered one, handing it back.
            EventBody::DrawOffer | EventBody::TakebackOffer { .. } => {
                self.may_offer(&event.author)?;
                if let EventBody::TakebackOffer { back_to } = &event.body {
                    self.outside_taken_back(*back_to)?;
                }
            }
            EventBody::DrawAnswer { accepted, .. } => {
                self.answered_by_its_party(&event.author)?;
                if *accepted {
                    self.ending = Some(RecordEnding::DrawAgreed);
                }
            }
            EventBody::TakebackAnswer { accepted, .. } => {
                // Not asked again here whether its target lies in a line
                // a take-back undid: it was asked when the offer was made,
                // and an offer open when another take-back is accepted
                // survives it only if made before the event that one goes
                // back to, so its target lies before that line too.
                let back_to = self.answered_by_its_party(&event.author)?;
                if let (true, Some(back_to)) = (*accepted, back_to)
                    && let Some((game, plies)) = usize::try_from(back_to)
                        .ok()
                        .and_then(|i| self.snapshots.get(i))
                {
                    self.game = game.boxed_clone();
                    self.plies = plies;
                    self.game_played = true;
                    self.taken_back.push(back_to.saturating_add(1)..=event.seq);
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
        self.snapshots
            .push(self.game.as_ref(), self.plies, self.game_played);
        Ok(())
    }

    /// A party that signs a turn plays on (3.8): every open offer ends,
    /// declined by play if it was made to that party (as the desk declines
    /// one explicitly before a move), withdrawn if it was that party's own
    /// (an offer accepted many moves later would undo or end a game played
    /// on since; in a solo game the director signs no move, so only this
    /// ends the player's offers), and the party's own forfeit claims are
    /// withdrawn (it plays with the party it said had gone). The offers
    /// are the fair-play verifier's, which has ended them already.
    fn plays_on(&mut self, author: &PublicKey) {
        self.claims.retain(|claim| claim.by != *author);
    }

    /// A take-back goes back to the game as it stood after an event of
    /// the line as it stands: not after an event an earlier take-back
    /// undid (from the first event it undid to the one before its
    /// acceptance; after the acceptance the game is the one it restored).
    /// Restored, such a position would bring back moves both sides took
    /// back, and the record would read three ways: the replay's game, the
    /// main line with the take-backs followed, and the plain copy.
    fn outside_taken_back(&self, back_to: u32) -> Result<(), ReplayFault> {
        match self
            .taken_back
            .iter()
            .find(|undone| *undone.start() <= back_to && back_to < *undone.end())
        {
            Some(undone) => Err(ReplayFault::TakebackIntoTakenBack {
                back_to,
                first: *undone.start(),
                last: *undone.end(),
            }),
            None => Ok(()),
        }
    }

    /// Whether `author` may make an offer (3.8): a seat, or a solo game's
    /// seatless director, once the seats are settled. A seatless party
    /// where two seats play may not: its offer would be made to both, so
    /// one seat alone could settle a draw or undo the other's move with
    /// it (a second key a player invited beside its opponent), and both
    /// would owe its answer, so the other could not claim against a
    /// stalling player.
    fn may_offer(&self, author: &PublicKey) -> Result<(), ReplayFault> {
        let why = match &self.seats {
            None => "the seats are not settled yet",
            Some(seats) if seats.contains(author) || seats.len() == 1 => return Ok(()),
            Some(_) => "only the players offer in a game of two seats, not a party without one",
        };
        Err(ReplayFault::OfferNotYours {
            author: self.name_of(author),
            why,
        })
    }

    /// The parties an offer by `by` is made to (3.8): a seat's offer to
    /// the other seats, or in a solo game to the seatless director; the
    /// director's offer to the seat (`may_offer` lets no other seatless
    /// party offer). One function for the answer check, `owing` and
    /// `next_duty`: a seatless referee or a second key invited beside the
    /// opponent must never answer for a player.
    pub fn offer_made_to(&self, by: &PublicKey) -> Vec<PublicKey> {
        let others = self.parties.iter().map(|p| p.key).filter(|k| k != by);
        let Some(seats) = &self.seats else {
            return others.collect();
        };
        let seated = |k: &PublicKey| seats.contains(k);
        if !seated(by) {
            return others.filter(seated).collect();
        }
        let other_seats: Vec<PublicKey> = others.clone().filter(seated).collect();
        if other_seats.is_empty() {
            others.collect()
        } else {
            other_seats
        }
    }

    /// An answer comes from a party the offer it answers is made to (the
    /// verifier has found the offer open, closed it and handed it back);
    /// a take-back offer's event to go back to.
    fn answered_by_its_party(&self, author: &PublicKey) -> Result<Option<u32>, ReplayFault> {
        // The verifier refuses an answer to no open offer of its kind, so
        // an answer it passed always names one.
        let Some(offer) = self.verifier.answered_offer() else {
            return Ok(None);
        };
        let by = &offer.author;
        let made_to = self.offer_made_to(by);
        if made_to.contains(author) {
            return Ok(offer.back_to);
        }
        let names: Vec<String> = made_to.iter().map(|k| self.name_of(k)).collect();
        Err(ReplayFault::NotMadeTo {
            author: self.name_of(author),
            offerer: self.name_of(by),
            made_to: names.join(" and "),
        })
    }

    /// A forfeit is claimed against a party the game waits for, by one it
    /// does not wait for. (When the agreed days have passed is a director's
    /// to judge: a record proves no time.)
    fn check_claim(&self, claimant: &PublicKey, against: &PublicKey) -> Result<(), ReplayFault> {
        let owing = self.owing();
        if owing.contains(against) && !owing.contains(claimant) {
            return Ok(());
        }
        let names: Vec<String> = owing.iter().map(|k| self.name_of(k)).collect();
        Err(ReplayFault::ClaimNotOwed {
            claimant: self.name_of(claimant),
            against: self.name_of(against),
            owing: if names.is_empty() {
                "nobody".to_owned()
            } else {
                names.join(" and ")
            },
        })
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
                name: self.ruleset_name.to_string(),
                pinned: challenge.ruleset_hash,
                loaded: self.ruleset_hash,
            });
        }
        Arc::make_mut(&mut self.parties).push(challenge.challenger.clone());
        self.challenge = Some(Arc::new(challenge.clone()));
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
            self.seats = Some(seats.into());
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
                    self.check_declaration(&author, &request.request)?;
                    let was = Arc::make_mut(&mut self.requests).insert(
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
                    self.requests_undo.push((request.request.index, was));
                }
                Evidence::SetupCommitment(c) => self.commitments.push((author, *c)),
                Evidence::RoleReveal(_) => {
                    let first = self
                        .verifier
                        .summary()
                        .and_then(|s| s.challenger_takes_first_roles);
                    if let (Some(first), [challenger, acceptor, ..]) = (first, &self.parties[..]) {
                        self.seats = Some(if first {
                            Arc::from([challenger.key, acceptor.key])
                        } else {
                            Arc::from([acceptor.key, challenger.key])
                        });
                    }
                }
                _ => {}
            }
        }
        let outcomes: Vec<(u64, &[ChanceRecord])> = turn
            .evidence
            .iter()
            .filter_map(|e| match e {
                Evidence::Outcomes { roll, results } => Some((*roll, &results[..])),
                _ => None,
            })
            .collect();
        // A turn without moves plays nothing, unless the rules draw before
        // any move (Genghis Khan's Foe layout) and this turn carries the
        // values.
        let rules_draw =
            self.seats.is_some() && self.game.setup_by_chance() && !outcomes.is_empty();
        if turn.moves.is_empty() && !rules_draw {
            check_setup_evidence(&SecretSetup::None, turn)?;
            // Values drawn for no move would be values the rules never
            // asked for.
            // And outcomes with no values would close the roll unplayed:
            // the requester, who knows the outcome once the roll is
            // answered, would roll again until it liked one (3.3). No
            // turn of Yam's is such: nothing changes between a request
            // and its outcome turn, so the first declared order is always
            // playable and the outcome turn always has moves.
            return match outcomes.first() {
                Some((_, results)) if !results.is_empty() => {
                    Err(ReplayFault::Chance(ChanceError::Unused {
                        position: 0,
                        count: results.len(),
                    }))
                }
                Some((roll, _)) => Err(ReplayFault::OutcomesPlayNothing { roll: *roll }),
                None => Ok(()),
            };
        }
        let Some(seats) = &self.seats else {
            return Err(ReplayFault::RolesNotSettled);
        };
        let seat = seats.iter().position(|k| *k == author);
        let Some(seat) = seat.filter(|s| self.game.may_play(*s)) else {
            let to_move = self.to_move_key();
            return Err(ReplayFault::NotYourTurn {
                author: self.name_of(&author),
                expected: to_move.map_or_else(|| "nobody".to_owned(), |k| self.name_of(&k)),
            });
        };
        let secret = self.game.secret_setup(&turn.moves);
        self.game_played = true;
        // Played in place: `self` is `push`'s working copy, dropped if
        // anything below fails, so the game needs no copy of its own.
        match outcomes.as_slice() {
            [] => play_watched(&mut *self.game, seat, &turn.moves, &mut NoChance)?,
            [(roll, results)] => {
                if self.practice.is_some() {
                    // No request declared the orders; the skipped evidence
                    // must still be what the tokens show.
                    if let Some(forms) = self.declared_forms(turn) {
                        let shown = shown_skips(&forms);
                        let recorded = recorded_skips(*roll, turn);
                        if shown != recorded {
                            return Err(ReplayFault::SkipsDiffer {
                                roll: *roll,
                                shown,
                                recorded,
                            });
                        }
                    }
                    if let Some(stream) = self.practice.as_mut() {
                        play_checked(&mut *self.game, seat, &turn.moves, stream, results)?;
                    }
                } else {
                    self.check_declared(*roll, author, turn)?;
                    let (Some(done), Some(id)) = (self.verifier.played_roll(*roll), self.game_id())
                    else {
                        return Err(ReplayFault::Record(Fault::NoSuchRoll { roll: *roll }));
                    };
                    play_checked(
                        &mut *self.game,
                        seat,
                        &turn.moves,
                        done.stream(&id),
                        results,
                    )?;
                }
            }
            _ => return Err(ReplayFault::TwoRolls),
        }
        // Secret setups (fair-play 3.7): the moves that seal or reveal one
        // stand with their evidence, and no evidence stands without them.
        check_setup_evidence(&secret, turn)?;
        self.plies = self
            .plies
            .saturating_add(u32::try_from(turn.moves.len()).unwrap_or(u32::MAX));
        Ok(())
    }

    /// A roll request declares, in canonical spelling, orders that are legal
    /// in the position and draw at least one value: a responder answers no
    /// other (`docs/fair-play.md`, 3.3).
    fn check_declaration(
        &self,
        author: &PublicKey,
        request: &crate::fair_play::roll::RollRequest,
    ) -> Result<(), ReplayFault> {
        let roll = request.index;
        let declared: Vec<String> = request
            .declaration
            .orders
            .iter()
            .map(|o| o.as_str().to_owned())
            .collect();
        let refuse = |index: usize, reason: String| ReplayFault::IllegalDeclaration {
            roll,
            declared: declared.clone(),
            error: RulesError {
                index,
                reason,
                position: self.game.position(),
            },
        };
        let Some(seat) = self.seat_of(author) else {
            return Err(refuse(0, format!("{} has no seat", self.name_of(author))));
        };
        for (index, order) in declared.iter().enumerate() {
            match self.game.canonical_order(order) {
                Ok(canonical) if canonical == *order => {}
                Ok(canonical) => {
                    return Err(refuse(
                        index,
                        format!("{order:?} is not in canonical spelling ({canonical:?})"),
                    ));
                }
                Err(e) => return Err(refuse(index, format!("{order:?}: {e}"))),
            }
        }
        let mut probe = Probe::default();
        match self.game.resolve(seat, &declared, &mut probe) {
            Err(error) if !probe.asked => Err(ReplayFault::IllegalDeclaration {
                roll,
                declared,
                error,
            }),
            Ok(_) if !probe.asked => Err(ReplayFault::NeedsNoRoll { roll, declared }),
            _ => Ok(()),
        }
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
        let skipped = recorded_skips(roll, turn);
        let played: Vec<String> = turn.moves.iter().map(|m| m.as_str().to_owned()).collect();
        let forms = self.declared_forms(turn);
        let undeclared = |declared: Vec<String>| ReplayFault::UndeclaredMoves {
            roll,
            declared,
            played: played.clone(),
        };
        match forms {
            // The tokens show what became of every declared order, skipped
            // ones included: they must be the declaration, order for order,
            // and the skipped evidence exactly the orders shown skipped.
            Some(forms) => {
                let orders: Vec<String> = forms.iter().map(|(o, _)| o.clone()).collect();
                let shown = shown_skips(&forms);
                if orders != request.orders {
                    return Err(undeclared(request.orders.clone()));
                }
                if shown != skipped {
                    return Err(ReplayFault::SkipsDiffer {
                        roll,
                        shown,
                        recorded: skipped,
                    });
                }
            }
            // The tokens are the orders carried out; the skipped ones are
            // left out.
            None => {
                let declared: Vec<String> = request
                    .orders
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| skipped.binary_search(i).is_err())
                    .map(|(_, o)| o.clone())
                    .collect();
                if declared != played {
                    return Err(undeclared(declared));
                }
            }
        }
        Ok(())
    }

    /// Each move of `turn` as the order it carries out and whether it shows
    /// that order skipped, for games whose tokens show it.
    fn declared_forms(&self, turn: &TurnBody) -> Option<Vec<(String, bool)>> {
        turn.moves
            .iter()
            .map(|m| self.game.declared_order(m.as_str()))
            .collect()
    }

    // ----- what the replay shows -----

    /// The events accepted so far.
    pub fn events(&self) -> &EventLog {
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

    /// The answered roll whose values are in but not yet played: its
    /// index, its requester and the orders it declared. The requester's
    /// next turn must play those orders with those values; until then the
    /// roll is open and nothing else happens (`docs/fair-play.md`, 3.3).
    pub fn pending_outcomes(&self) -> Option<(u64, PublicKey, Vec<String>)> {
        let open = self.verifier.open_roll()?;
        if open.stage() != RollStage::Answered {
            return None;
        }
        let request = self.requests.get(&open.index())?;
        Some((open.index(), request.requester, request.orders.clone()))
    }

    /// The parties the game waits for: whoever owes the next event. Until
    /// the opening is complete, the next invited party; then the challenger
    /// while drawn seats wait for its reveal; while a roll is open, whoever
    /// the roll waits for (its responders, or once answered its requester);
    /// while offers wait for their answers, the party the oldest one is
    /// made to (an offer is made on one's own move and passes the pen, as
    /// the clients' duties have it: the offerer waits for the answer, so
    /// the silent party owes it, not the offerer; a counter-offer answers
    /// nothing, so the first offer still waits on its author's opponent);
    /// otherwise every seat the rules let play (both, during Castle
    /// Siege's setups). Nobody once the game is over. A forfeit may be
    /// claimed only against one of them.
    pub fn owing(&self) -> Vec<PublicKey> {
        let Some(challenge) = &self.challenge else {
            return Vec::new();
        };
        if self.ending().is_some() {
            return Vec::new();
        }
        if !self.opening_complete() {
            let accepted = self.parties.len().saturating_sub(1);
            return challenge
                .invited
                .get(accepted)
                .copied()
                .into_iter()
                .collect();
        }
        let Some(seats) = &self.seats else {
            return vec![challenge.challenger.key];
        };
        if let Some(open) = self.verifier.open_roll() {
            return open.owed_by();
        }
        // The parties the oldest open offer is made to (`offer_made_to`:
        // the other seat; a solo game's director answers the player's
        // take-back offers).
        // Offers are answered in the order they were made, one writer at a
        // time: a counter-offer leaves the duty where the first offer put
        // it, so its author can neither claim against the one it owes an
        // answer nor, by making both owe, keep a silent party from being
        // claimed against (`next_duty` names the same party).
        if let Some(offer) = self.first_open_offer() {
            return self.offer_made_to(&offer.author);
        }
        let waiting: Vec<PublicKey> = seats
            .iter()
            .enumerate()
            .filter(|(seat, _)| self.game.may_play(*seat))
            .map(|(_, key)| *key)
            .collect();
        // Where the rules let several seats act at once (Castle Siege's
        // setups: either side may seal, then reveal, first, CS-07), the
        // game waits for the seat it names to move (the Defender, then the
        // Attacker), as every client keeps it (`table::next_duty`): the
        // side it makes wait may claim against a silent one. Owed by both,
        // a Defender who never sealed, or never revealed, could not be
        // claimed against at all, and the game never ended but by the
        // Attacker's resignation (CS-P5).
        if waiting.len() > 1
            && let Some(named) = self.to_move_key()
            && waiting.contains(&named)
        {
            return vec![named];
        }
        waiting
    }

    /// The event before `who`'s last move in the game as it stands (its
    /// latest turn with moves outside every line a take-back undid): the
    /// event a take-back of that move goes back to. A move a take-back
    /// undid is no longer on the board, and an offer back to before it
    /// would go back into the undone line, which is refused; the clients
    /// (desk and robot) offer with this.
    pub fn before_last_standing_move(&self, who: &PublicKey) -> Option<u32> {
        self.events.iter().rev().find_map(|e| match &e.event.body {
            EventBody::Turn(t)
                if e.event.author == *who
                    && !t.moves.is_empty()
                    && !self.taken_back.iter().any(|r| r.contains(&e.event.seq)) =>
            {
                e.event.seq.checked_sub(1)
            }
            _ => None,
        })
    }

    /// The open offers, oldest first: the verifier's list, the one every
    /// reading goes through. Every turn ends every offer, so they are the
    /// few made since the latest turn.
    pub fn open_offers(&self) -> &[OpenOffer] {
        self.verifier.open_offers()
    }

    /// The open offers of `kind`, oldest first.
    pub fn open_offers_of_kind(&self, kind: OfferKind) -> impl Iterator<Item = &OpenOffer> {
        self.open_offers().iter().filter(move |o| o.kind == kind)
    }

    /// The kind of an open offer `who` made, if one is open (its oldest).
    pub fn open_offer_of(&self, who: &PublicKey) -> Option<OfferKind> {
        self.open_offers()
            .iter()
            .find(|o| o.author == *who)
            .map(|o| o.kind)
    }

    /// The oldest open offer, the one the game waits on (3.8).
    pub fn first_open_offer(&self) -> Option<&OpenOffer> {
        self.open_offers().first()
    }

    /// The oldest open offer of `kind` made to `who`: offers are answered
    /// in the order they were made, so this is the one the duty names
    /// when it is `who`'s to answer.
    pub fn oldest_offer_to(&self, who: &PublicKey, kind: OfferKind) -> Option<&OpenOffer> {
        self.open_offers_of_kind(kind)
            .find(|o| self.offer_made_to(&o.author).contains(who))
    }

    /// The move number the game stood at just before event `seq` (as
    /// [`GameReplay::move_number`] gave it then), from the snapshot kept
    /// after the event before it; `None` for the first event or beyond
    /// the events.
    pub fn move_number_before(&self, seq: usize) -> Option<(u32, yam_notation::Dots)> {
        let previous = seq.checked_sub(1)?;
        self.snapshots
            .get(previous)
            .map(|(game, _)| game.move_number())
    }

    /// The roll book, for a responder's guard.
    pub fn roll_book(&self) -> Option<&RollBook> {
        self.verifier.roll_book()
    }

    /// The game's rules at the current position.
    pub fn game(&self) -> &dyn GameReplay {
        &*self.game
    }

    /// The hash of the ruleset text the replay was made under.
    pub fn ruleset_hash(&self) -> &Hash32 {
        &self.ruleset_hash
    }

    /// The ruleset's name.
    pub fn ruleset_name(&self) -> &str {
        &self.ruleset_name
    }

    /// The challenge, once read.
    pub fn challenge(&self) -> Option<&Challenge> {
        self.challenge.as_deref()
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

    /// Whether `key` may play a turn now (the player to move, or either
    /// player while the rules let both act at once).
    pub fn may_play(&self, key: &PublicKey) -> bool {
        self.ending.is_none()
            && self
                .seat_of(key)
                .is_some_and(|seat| self.game.may_play(seat))
    }

    /// The practice stream as far as it was used (practice games only).
    pub fn practice_stream(&self) -> Option<&PracticeStream> {
        self.practice.as_ref()
    }

    /// Moves played in the game as it stands (after take-backs).
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// The events each accepted take-back undid, in order: from the one
    /// after the event it went back to, to its acceptance (so the moves of
    /// the turn events among them were played, then taken back). Those
    /// replayed here: a replay restored from a tip knows the ones after it.
    pub fn taken_back(&self) -> &[std::ops::RangeInclusive<u32>] {
        &self.taken_back
    }

    /// Forfeit claims that stand: on record, and not withdrawn by their
    /// claimant playing on since.
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
            // A solo game has nobody to win it: the player abandoned it, and
            // it has no final score.
            RecordEnding::Resigned(_) if roles.len() < 2 => Some(GameEnd {
                result: GameResult::Unfinished,
                reason: "the player abandoned the game: it has no final score".into(),
            }),
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
            // A forfeit is won against the other seat only: a claim against
            // a seatless referee or a solo game's director is evidence for
            // a director, not a win over a player who did nothing wrong
            // (nor, in a solo game, a win with nobody to win it from).
            let against_a_seat = self.seat_of(&claim.against).is_some();
            let result = match claim.by_seat {
                Some(0) if against_a_seat => GameResult::FirstWinsByForfeit,
                Some(1) if against_a_seat => GameResult::SecondWinsByForfeit,
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
            for (name, key) in ["FirstKey", "SecondKey"].into_iter().zip(seats.iter()) {
                tags.push((name, hex::encode(key.as_bytes())));
            }
        }
        if let Some(r) = referee {
            tags.push(("RefereeKey", hex::encode(r.key.as_bytes())));
        }
        if let Some(seats) = &self.seats {
            for (name, key) in ["FirstAnchor", "SecondAnchor"]
                .into_iter()
                .zip(seats.iter())
            {
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
                .zip(seats.iter())
            {
                if let Some(c) = self.commitment_of(key) {
                    tags.push((name, c.hash().to_hex()));
                }
            }
        }
        if let Mode::Practice { seed } = &challenge.mode {
            tags.push(("PracticeSeed", practice_seed_text(seed)));
        }
        tags
    }

    /// The setup commitment `key` made (Castle Siege's sealed setup,
    /// CS-07), once it has made one.
    pub fn commitment_of(&self, key: &PublicKey) -> Option<&Commitment> {
        self.commitments
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, c)| c)
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
            .flat_map(|seats| seats.iter())
            .zip(roles)
            .map(|(k, r)| (*r, k.fingerprint()))
            .collect()
    }
}

/// The positions the turn's `Skipped` evidence records for `roll`, in
/// ascending order.
fn recorded_skips(roll: u64, turn: &TurnBody) -> Vec<usize> {
    let mut skipped: Vec<usize> = turn
        .evidence
        .iter()
        .filter_map(|e| match e {
            Evidence::Skipped { roll: r, order } if *r == roll => usize::try_from(*order).ok(),
            _ => None,
        })
        .collect();
    skipped.sort_unstable();
    skipped
}

/// The positions of the moves that show their order skipped.
fn shown_skips(forms: &[(String, bool)]) -> Vec<usize> {
    forms
        .iter()
        .enumerate()
        .filter(|(_, (_, skip))| *skip)
        .map(|(i, _)| i)
        .collect()
}

/// Holds a turn's setup evidence to what its moves do with a secret setup:
/// a seal carries the author's commitment, a reveal the opening of it with
/// exactly the revealed bytes, and anything else neither. (That an opening
/// opens the author's commitment is the record verifier's check.)
fn check_setup_evidence(secret: &SecretSetup, turn: &TurnBody) -> Result<(), ReplayFault> {
    let commitment = turn
        .evidence
        .iter()
        .any(|e| matches!(e, Evidence::SetupCommitment(_)));
    let opening = turn.evidence.iter().find_map(|e| match e {
        Evidence::SetupReveal(o) => Some(o),
        _ => None,
    });
    let fault = |text: &str| Err(ReplayFault::Setup(text.to_owned()));
    match secret {
        SecretSetup::None if commitment => {
            fault("a setup commitment stands only with the move that seals the setup")
        }
        SecretSetup::None if opening.is_some() => {
            fault("a setup reveal stands only with the move that reveals the setup")
        }
        SecretSetup::None => Ok(()),
        SecretSetup::Seal if !commitment => {
            fault("the move seals a setup, but the turn carries no setup commitment")
        }
        SecretSetup::Seal if opening.is_some() => {
            fault("a setup is sealed and revealed in one turn: nothing was secret")
        }
        SecretSetup::Seal => Ok(()),
        SecretSetup::Reveal(_) if commitment => {
            fault("a turn that reveals a setup cannot commit to another")
        }
        SecretSetup::Reveal(bytes) => match opening {
            None => {
                fault("the move reveals a setup, but the turn carries no opening of its commitment")
            }
            Some(o) if o.setup.as_bytes() != bytes.as_slice() => Err(ReplayFault::Setup(format!(
                "the move reveals {:?}, but the opening of the commitment holds {:?}",
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(o.setup.as_bytes())
            ))),
            Some(_) => Ok(()),
        },
    }
}

/// Plays a turn, reporting a chance value the rules could not get as a
/// chance fault (a missing or mismatched outcome), not as a refused move.
fn play_watched(
    game: &mut dyn GameReplay,
    seat: usize,
    moves: &[crate::fair_play::turn::MoveToken],
    chance: &mut impl Chance,
) -> Result<(), ReplayFault> {
    let mut watch = Watch {
        inner: chance,
        error: None,
    };
    let played = game.play_as(seat, moves, &mut watch);
    if let Some(e) = watch.error.take() {
        return Err(ReplayFault::Chance(e));
    }
    played.map_err(ReplayFault::Rules)
}

/// Plays with the recorded values checked against `source`; every recorded
/// value must be used.
fn play_checked(
    game: &mut dyn GameReplay,
    seat: usize,
    moves: &[crate::fair_play::turn::MoveToken],
    source: impl ByteSource,
    results: &[ChanceRecord],
) -> Result<(), ReplayFault> {
    let mut chance = ReplayChance::new(source, results);
    play_watched(game, seat, moves, &mut chance)?;
    chance.finish().map_err(ReplayFault::Chance)
}

/// A door for chance that only notes whether the rules knocked: a turn tried
/// with it shows whether it needs chance, without drawing any value.
#[derive(Debug, Default)]
pub(crate) struct Probe {
    /// Whether the rules asked for a value.
    pub(crate) asked: bool,
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
    fn assurance(&self) -> crate::fair_play::outcome::Assurance {
        crate::fair_play::outcome::Assurance::Verified
    }
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
