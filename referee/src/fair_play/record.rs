//! Verifying a signed record event by event, without the game's rules.
//!
//! [`RecordVerifier`] checks everything that does not depend on what the
//! moves mean: the hash links and positions, signatures, replayed events,
//! the opening (challenge, then one acceptance per invited key, in order),
//! every roll request and response (through a [`RollBook`]), every recorded
//! outcome against its recomputed stream, setup commitments and their
//! reveals, re-anchoring, offers and their answers, and the rule that a
//! take-back never undoes chance. The game's replay drives it one event at a
//! time (passing whose turn it is, which only the rules know) and checks the
//! moves themselves.
//!
//! Recorded outcomes are checked blind: each record says what was asked (a die
//! of `n` sides, a draw from `n` cards), so the values can be recomputed from
//! the stream in record order. The game's replay then checks, through a
//! `ReplayChance`, that the rules asked for exactly those.

use thiserror::Error;

use super::chance::{Chance, ChanceError, ChanceRecord, ChanceResult, ReplayChance};
use super::commit::{self, CommitMismatch, Commitment};
use super::game_id::GameId;
use super::hash::Hash32;
use super::hash_log::HashLog;
use super::outcome::{Assurance, ByteSource, PracticeStream, SampleError};
use super::roll::{
    CompletedRoll, OpenRoll, Owed, RollBook, RollError, RollParty, RollStage, TurnContext,
};
use super::sign::{Fingerprint, PublicKey, SignatureError};
use super::turn::{
    Acceptance, Challenge, Event, EventBody, Evidence, Mode, RoleChoice, SignedEvent,
};
use serde::{Deserialize, Serialize};

/// Why a record was refused, and where.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("event #{position}: {fault}")]
pub struct RecordError {
    /// The event's position in the record, from 0.
    pub position: u32,
    /// What is wrong with it.
    pub fault: Fault,
}

/// What is wrong with an event.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Fault {
    /// The first event is not a challenge, or a challenge appears later.
    #[error("a record starts with exactly one challenge")]
    NotAChallenge,
    /// An event of another game.
    #[error("the event belongs to game {found}")]
    GameMismatch {
        /// The game it names.
        found: GameId,
    },
    /// The event is an exact copy of an earlier one.
    #[error("replay of event #{original}")]
    Replayed {
        /// The earlier position.
        original: u32,
    },
    /// The event's position is not the next one.
    #[error("the event says it is #{found}")]
    WrongPosition {
        /// The position it claims.
        found: u32,
    },
    /// The event does not name the previous event as its parent (events
    /// swapped, removed or inserted).
    #[error("the parent hash is {found}, but the previous event is {expected}")]
    BrokenLink {
        /// The previous event's hash.
        expected: Hash32,
        /// The parent named.
        found: Hash32,
    },
    /// The author is not a party of the game.
    #[error("the author {author} is not a party of this game")]
    UnknownAuthor {
        /// The author.
        author: Fingerprint,
    },
    /// The author's signature does not verify.
    #[error(transparent)]
    BadSignature(SignatureError),
    /// An acceptance out of order, by the wrong key, or with a party key that
    /// is not its author.
    #[error("expected the acceptance of {expected}")]
    WrongAcceptance {
        /// The key whose acceptance comes next.
        expected: Fingerprint,
    },
    /// The challenge is malformed (the challenger invited twice, ...).
    #[error("invalid challenge: {reason}")]
    InvalidChallenge {
        /// Why.
        reason: &'static str,
    },
    /// Play before every invited party accepted.
    #[error("play before the opening is complete")]
    OpeningIncomplete,
    /// Play after a resignation or an accepted draw.
    #[error("the game is over")]
    GameOver,
    /// In a peer game, every party must have a chain.
    #[error("{party} has no chain in a peer game")]
    MissingAnchor {
        /// The party.
        party: Fingerprint,
    },
    /// Evidence that only its owner can give, given by someone else.
    #[error("{what} must be given by its owner, not {author}")]
    NotTheOwner {
        /// The kind of evidence.
        what: &'static str,
        /// The event's author.
        author: Fingerprint,
    },
    /// A roll request whose record hash is not the event's parent.
    #[error("the roll request names record hash {found}, not the event's parent")]
    RequestNotAtParent {
        /// The hash named.
        found: Hash32,
    },
    /// A roll protocol violation.
    #[error(transparent)]
    Roll(RollError),
    /// An event the open roll does not allow: while a roll is open, the
    /// record takes only what moves it on (a response while it is
    /// requested, its requester's outcome turn once it is answered), a
    /// resignation, or a forfeit claim against whoever it waits for.
    #[error(
        "{what} while roll {index} is open ({stage}; owed by {owed_by}): the roll must be played first"
    )]
    RollOpen {
        /// What the event tried.
        what: &'static str,
        /// The open roll.
        index: u64,
        /// Where it stands.
        stage: RollStage,
        /// Who owes its next event.
        owed_by: Owed,
    },
    /// A roll request or response with other content in its event.
    #[error("a {what} stands alone in its event: no moves and no other evidence beside it")]
    NotAlone {
        /// A roll request or a roll response.
        what: &'static str,
    },
    /// Practice outcomes out of order, or a skipped order of a roll this
    /// turn does not play.
    #[error("no roll {roll} is played in this turn")]
    NoSuchRoll {
        /// The roll.
        roll: u64,
    },
    /// A recorded outcome differs from its recomputation.
    #[error("roll {roll}: {source}")]
    Chance {
        /// The roll.
        roll: u64,
        /// Why.
        source: ChanceError,
    },
    /// Roll requests in a practice game.
    #[error("a practice game has no roll requests or responses")]
    PracticeHasNoRolls,
    /// A second setup commitment by one player.
    #[error("{player} already committed to a setup")]
    CommittedTwice {
        /// The player.
        player: Fingerprint,
    },
    /// A setup reveal without a commitment, or a second one.
    #[error("{player} has no unrevealed setup commitment")]
    NoCommitment {
        /// The player.
        player: Fingerprint,
    },
    /// A revealed setup that does not match its commitment.
    #[error(transparent)]
    Commit(CommitMismatch),
    /// A role reveal when roles were not drawn, or twice.
    #[error("no role toss is waiting for its reveal")]
    NoRoleToss,
    /// A take-back to before the latest roll or draw.
    #[error("a take-back to event #{back_to} would undo the chance of event #{last_chance}")]
    TakebackUndoesChance {
        /// The event asked for.
        back_to: u32,
        /// The latest event with chance evidence.
        last_chance: u32,
    },
    /// A take-back to before the latest hidden setup's commitment or
    /// reveal: the commitments would stand opened for a game that waits
    /// for them again, and nobody could go on.
    #[error("a take-back to event #{back_to} would undo the hidden setup of event #{setup}")]
    TakebackUndoesSetup {
        /// The event asked for.
        back_to: u32,
        /// The latest event with a setup commitment or reveal.
        setup: u32,
    },
    /// A take-back into the opening or the future.
    #[error("cannot take back to event #{back_to}")]
    TakebackOutOfRange {
        /// The event asked for.
        back_to: u32,
    },
    /// An answer to no open offer of the other side.
    #[error("no open offer {offer} by another party to answer")]
    NoSuchOffer {
        /// The hash named.
        offer: Hash32,
    },
    /// A forfeit claim against oneself or a stranger.
    #[error("a forfeit claim must name another party")]
    InvalidClaim,
}

/// A roll still open where a record ends: what a forfeit claim or a
/// director's ruling acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenRollReport {
    /// The roll index.
    pub index: u64,
    /// Where it stands.
    pub stage: RollStage,
    /// Who owes its next event.
    pub owed_by: Vec<Fingerprint>,
    /// The event that put it where it stands (its request, or its last
    /// response).
    pub since_event: u32,
}

/// What a verified record shows, for reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordSummary {
    /// The game.
    pub game: GameId,
    /// Its name, from the challenge.
    pub game_name: String,
    /// The pinned ruleset hash.
    pub ruleset_hash: Hash32,
    /// The mode.
    pub mode: Mode,
    /// Verified, or unverified practice.
    pub assurance: Assurance,
    /// Every party's key fingerprint, challenger first.
    pub parties: Vec<Fingerprint>,
    /// Events checked (each with one signature).
    pub events: u32,
    /// Rolls completed.
    pub rolls: u64,
    /// Chance values recomputed and matched.
    pub values_checked: usize,
    /// A roll still open (requested, or answered and not played) when the
    /// record ends.
    pub open_roll: Option<OpenRollReport>,
    /// When roles were drawn and revealed: whether the challenger took the
    /// first role set.
    pub challenger_takes_first_roles: Option<bool>,
}

/// What an offer proposes (3.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OfferKind {
    /// A draw by agreement.
    Draw,
    /// A take-back to an earlier position.
    Takeback,
}

/// An offer not yet answered, as the verifier keeps it: the one list of
/// open offers every reading of a record goes through (the signed replay's
/// duties, claims and answers, the clients' offers and answers), so no two
/// readings can disagree on which offers are open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenOffer {
    /// The offer event's hash, which its answer names.
    pub hash: Hash32,
    /// What it proposes.
    pub kind: OfferKind,
    /// Who made it.
    pub author: PublicKey,
    /// The offer's position: offers are answered in the order they were
    /// made, and an accepted take-back ends the offers made in the line
    /// it undoes (after the event it goes back to).
    pub seq: u32,
    /// A take-back offer's event to go back to.
    pub back_to: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Opened {
    /// Shared, not copied, by every push's working copy.
    challenge: std::sync::Arc<Challenge>,
    /// Shared likewise: they change only in the opening.
    acceptances: std::sync::Arc<Vec<Acceptance>>,
}

/// Checks a record one event at a time; see the module documentation.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RecordVerifier {
    opened: Option<Opened>,
    game: Option<GameId>,
    last_hash: Hash32,
    next_position: u32,
    /// The hash of every event checked, by position: an event met again
    /// (equal to an earlier one, so at that one's position) is named as
    /// replayed. Append-only, and moved rather than copied into a push's
    /// working copy, so a push costs the same at event 400 as at event 4.
    hashes: HashLog,
    opening_end: u32,
    rolls: Option<RollBook>,
    /// The event that put the open roll where it stands.
    open_since: u32,
    /// The roll the last event played, for the game's replay.
    played: Option<CompletedRoll>,
    /// The roll whose outcomes the event being checked carries.
    outcomes_here: Option<u64>,
    practice: Option<PracticeStream>,
    practice_rolls: u64,
    values_checked: usize,
    commitments: Vec<(PublicKey, Commitment, bool)>,
    last_chance: Option<u32>,
    /// The latest event that carries a hidden setup's commitment or
    /// reveal: no take-back goes back past it (3.8). (In tips since format 6.)
    last_setup: Option<u32>,
    /// The open offers, oldest first (answered ones leave, every turn
    /// empties it).
    offers: Vec<OpenOffer>,
    /// The offer the last event checked answered, for the replay to see
    /// who it was made to and what an accepted take-back restores.
    #[serde(skip)]
    answered: Option<OpenOffer>,
    over: bool,
    toss: Option<bool>,
    trusted: bool,
}

impl RecordVerifier {
    /// A verifier before the first event.
    pub fn new() -> Self {
        RecordVerifier::default()
    }

    /// Whether the next events' signatures (the events' own and those of
    /// the roll requests and responses they carry) were checked before:
    /// events of a stored record that Yam verified completely before
    /// writing it, met again byte for byte. Every other check (hash links,
    /// chains, commitments, outcomes, turns) still runs, so a trusted event
    /// is still placed exactly; only the costly curve arithmetic is not
    /// repeated. Off by default, and for anything new.
    pub fn set_trusted(&mut self, trusted: bool) {
        self.trusted = trusted;
        if let Some(rolls) = self.rolls.as_mut() {
            rolls.set_trusted(trusted);
        }
    }

    /// Checks the next event, taking its author to be the player to move.
    pub fn push(&mut self, signed: &SignedEvent) -> Result<(), RecordError> {
        self.push_with_turn(signed, &signed.event.author)
    }

    /// Checks the next event; `player_to_move` (from the game's rules) is
    /// whose turn it is, which roll requests must match. On error the
    /// verifier is unchanged.
    pub fn push_with_turn(
        &mut self,
        signed: &SignedEvent,
        player_to_move: &PublicKey,
    ) -> Result<(), RecordError> {
        let position = self.next_position;
        let hashes = self.take_log();
        let mut next = self.clone();
        next.hashes = hashes;
        match next.check(signed, player_to_move) {
            Ok(()) => {
                *self = next;
                Ok(())
            }
            Err(fault) => {
                // `check` appends to the log only once everything passed.
                self.hashes = next.take_log();
                Err(RecordError { position, fault })
            }
        }
    }

    /// [`RecordVerifier::push_with_turn`] for a caller that already works
    /// on a copy and throws it away on error (each push of a signed
    /// replay): the checks are the same, but the verifier makes no copy of
    /// its own, so on error it is left part-way through the event (its log
    /// of hashes untouched, as `check` appends only once everything passed).
    pub(crate) fn push_in_working_copy(
        &mut self,
        signed: &SignedEvent,
        player_to_move: &PublicKey,
    ) -> Result<(), RecordError> {
        let position = self.next_position;
        self.check(signed, player_to_move)
            .map_err(|fault| RecordError { position, fault })
    }

    /// Moves the log of event hashes out (a push's working copy takes it
    /// instead of a copy); [`RecordVerifier::restore_log`] puts it back.
    pub(crate) fn take_log(&mut self) -> HashLog {
        std::mem::take(&mut self.hashes)
    }

    /// Puts back a log taken by [`RecordVerifier::take_log`], cut to its
    /// first `len` entries (what a failed push added is dropped).
    pub(crate) fn restore_log(&mut self, mut hashes: HashLog, len: usize) {
        hashes.truncate(len);
        self.hashes = hashes;
    }

    /// Checks a whole record, taking each event's author as the player to
    /// move.
    pub fn verify(events: &[SignedEvent]) -> Result<RecordSummary, RecordError> {
        let mut verifier = RecordVerifier::new();
        for event in events {
            verifier.push(event)?;
        }
        verifier.summary().ok_or(RecordError {
            position: 0,
            fault: Fault::NotAChallenge,
        })
    }

    /// The open roll (requested and not yet played), if any.
    pub fn open_roll(&self) -> Option<&OpenRoll> {
        self.rolls.as_ref().and_then(RollBook::open_roll)
    }

    /// The roll `index` if the last event checked played it: its outcome
    /// inputs, for the game's replay to check the values against.
    pub fn played_roll(&self, index: u64) -> Option<&CompletedRoll> {
        self.played.as_ref().filter(|r| r.index == index)
    }

    /// The open offers, oldest first: made since the latest turn (every
    /// turn ends them all), not answered, and not made in a line an
    /// accepted take-back undid.
    pub fn open_offers(&self) -> &[OpenOffer] {
        &self.offers
    }

    /// The offer the last event checked answered, if it was an answer.
    pub fn answered_offer(&self) -> Option<&OpenOffer> {
        self.answered.as_ref()
    }

    /// The roll book as of the last event checked (`None` in practice games
    /// and before the opening is complete): a responder answers through a
    /// copy of it ([`RollBook::answer`]), so its guard sees exactly the
    /// record the verifier accepted.
    pub fn roll_book(&self) -> Option<&RollBook> {
        self.rolls.as_ref()
    }

    /// The hash of the last event checked (the record hash for the next).
    pub fn record_hash(&self) -> Hash32 {
        self.last_hash
    }

    /// The summary so far; `None` before the challenge.
    pub fn summary(&self) -> Option<RecordSummary> {
        let opened = self.opened.as_ref()?;
        let challenge = &opened.challenge;
        let mut parties = vec![challenge.challenger.key.fingerprint()];
        parties.extend(opened.acceptances.iter().map(|a| a.party.key.fingerprint()));
        let (assurance, rolls) = match &challenge.mode {
            Mode::Practice { .. } => (Assurance::Unverified, self.practice_rolls),
            _ => (
                Assurance::Verified,
                self.rolls.as_ref().map_or(0, RollBook::next_index),
            ),
        };
        Some(RecordSummary {
            game: self.game.clone()?,
            game_name: challenge.game_name.as_str().to_owned(),
            ruleset_hash: challenge.ruleset_hash,
            mode: challenge.mode.clone(),
            assurance,
            parties,
            events: self.next_position,
            rolls,
            values_checked: self.values_checked,
            open_roll: self.open_roll().map(|open| OpenRollReport {
                index: open.index(),
                stage: open.stage(),
                owed_by: open.owed_by().iter().map(PublicKey::fingerprint).collect(),
                since_event: self.open_since,
            }),
            challenger_takes_first_roles: self.toss,
        })
    }

    fn check(&mut self, signed: &SignedEvent, to_move: &PublicKey) -> Result<(), Fault> {
        let event = &signed.event;
        // The canonical bytes once, for the hash and the signature both.
        let bytes = super::encoding::Canonical::to_canonical_bytes(event);
        let hash = Hash32::of(&bytes);
        if let Some(game) = &self.game
            && event.game != *game
        {
            return Err(Fault::GameMismatch {
                found: event.game.clone(),
            });
        }
        if usize::try_from(event.seq)
            .ok()
            .and_then(|seq| self.hashes.get(seq))
            == Some(&hash)
        {
            // The position is part of the hashed event: an equal event
            // stands at the same position.
            return Err(Fault::Replayed {
                original: event.seq,
            });
        }
        if event.seq != self.next_position {
            return Err(Fault::WrongPosition { found: event.seq });
        }
        if event.parent != self.last_hash {
            return Err(Fault::BrokenLink {
                expected: self.last_hash,
                found: event.parent,
            });
        }
        match &event.body {
            EventBody::Challenge(challenge) => self.challenge(event, challenge)?,
            _ if self.opened.is_none() => return Err(Fault::NotAChallenge),
            _ => self.check_author(&event.author)?,
        }
        if !self.trusted {
            event
                .author
                .verify(&bytes, &signed.signature)
                .map_err(Fault::BadSignature)?;
        }
        self.played = None;
        self.outcomes_here = None;
        self.answered = None;
        match &event.body {
            EventBody::Challenge(_) => {}
            EventBody::Acceptance(acceptance) => self.acceptance(event, acceptance)?,
            other => {
                if !self.opening_complete() {
                    return Err(Fault::OpeningIncomplete);
                }
                if self.over {
                    return Err(Fault::GameOver);
                }
                self.life_cycle(event)?;
                let before = self.open_roll().map(|o| (o.index(), o.stage()));
                self.play(event, other, &hash, to_move)?;
                let after = self.open_roll().map(|o| (o.index(), o.stage()));
                if after.is_some() && after != before {
                    self.open_since = event.seq;
                }
            }
        }
        self.hashes.push(hash);
        self.last_hash = hash;
        self.next_position = self.next_position.saturating_add(1);
        Ok(())
    }

    /// The roll life cycle (`docs/fair-play.md`, 3.3): while a roll is open,
    /// only what moves it on, a resignation, or a forfeit claim against
    /// whoever it waits for.
    fn life_cycle(&self, event: &Event) -> Result<(), Fault> {
        let Some(open) = self.open_roll() else {
            return Ok(());
        };
        let what = match (&event.body, open.stage()) {
            (EventBody::Resignation, _) => return Ok(()),
            (EventBody::ForfeitClaim { against, .. }, _) => {
                if open.owed_by().contains(against) {
                    return Ok(());
                }
                "a forfeit claim against a party the roll does not wait for"
            }
            (EventBody::Turn(turn), RollStage::Requested) => {
                let only_responses = turn.moves.is_empty()
                    && turn
                        .evidence
                        .iter()
                        .all(|e| matches!(e, Evidence::RollResponse(_)));
                if only_responses {
                    return Ok(());
                }
                open_turn_what(turn)
            }
            (EventBody::Turn(turn), RollStage::Answered) => {
                let plays_it = event.author == open.requester()
                    && turn.evidence.iter().all(|e| match e {
                        Evidence::Outcomes { roll, .. } | Evidence::Skipped { roll, .. } => {
                            *roll == open.index()
                        }
                        _ => false,
                    })
                    && turn
                        .evidence
                        .iter()
                        .any(|e| matches!(e, Evidence::Outcomes { .. }));
                if plays_it {
                    return Ok(());
                }
                open_turn_what(turn)
            }
            (EventBody::DrawOffer, _) => "a draw offer",
            (EventBody::DrawAnswer { .. }, _) => "a draw answer",
            (EventBody::TakebackOffer { .. }, _) => "a take-back offer",
            (EventBody::TakebackAnswer { .. }, _) => "a take-back answer",
            (EventBody::Challenge(_) | EventBody::Acceptance(_), _) => "an opening event",
        };
        Err(Fault::RollOpen {
            what,
            index: open.index(),
            stage: open.stage(),
            owed_by: Owed(open.owed_by().iter().map(PublicKey::fingerprint).collect()),
        })
    }

    fn challenge(&mut self, event: &Event, challenge: &Challenge) -> Result<(), Fault> {
        if self.opened.is_some() || event.seq != 0 {
            return Err(Fault::NotAChallenge);
        }
        if challenge.challenger.key != event.author {
            return Err(Fault::InvalidChallenge {
                reason: "the challenger is not the author",
            });
        }
        let mut keys = vec![event.author];
        for key in challenge.invited.iter() {
            if keys.contains(key) {
                return Err(Fault::InvalidChallenge {
                    reason: "a key is invited twice (or is the challenger's)",
                });
            }
            keys.push(*key);
        }
        if challenge.invited.is_empty() {
            return Err(Fault::InvalidChallenge {
                reason: "nobody is invited",
            });
        }
        self.game = Some(event.game.clone());
        self.opened = Some(Opened {
            challenge: std::sync::Arc::new(challenge.clone()),
            acceptances: std::sync::Arc::new(Vec::new()),
        });
        Ok(())
    }

    fn check_author(&self, author: &PublicKey) -> Result<(), Fault> {
        let known = self.opened.as_ref().is_some_and(|o| {
            o.challenge.challenger.key == *author || o.challenge.invited.contains(author)
        });
        if known {
            Ok(())
        } else {
            Err(Fault::UnknownAuthor {
                author: author.fingerprint(),
            })
        }
    }

    fn opening_complete(&self) -> bool {
        self.opened
            .as_ref()
            .is_some_and(|o| o.acceptances.len() == o.challenge.invited.len())
    }

    fn acceptance(&mut self, event: &Event, acceptance: &Acceptance) -> Result<(), Fault> {
        let Some(opened) = self.opened.as_mut() else {
            return Err(Fault::NotAChallenge);
        };
        let Some(expected) = opened.challenge.invited.get(opened.acceptances.len()) else {
            return Err(Fault::WrongAcceptance {
                expected: event.author.fingerprint(),
            });
        };
        let drawn = matches!(opened.challenge.roles, RoleChoice::Drawn { .. });
        if event.author != *expected
            || acceptance.party.key != event.author
            || acceptance.toss.is_some() != drawn
        {
            return Err(Fault::WrongAcceptance {
                expected: expected.fingerprint(),
            });
        }
        std::sync::Arc::make_mut(&mut opened.acceptances).push(acceptance.clone());
        if self.opening_complete() {
            self.start_play()?;
        }
        Ok(())
    }

    fn start_play(&mut self) -> Result<(), Fault> {
        let (Some(opened), Some(game)) = (&self.opened, &self.game) else {
            return Err(Fault::NotAChallenge);
        };
        // The position after the last acceptance is where play starts, and
        // the earliest a take-back may return to.
        self.opening_end = self.next_position;
        let parties: Vec<RollParty> = std::iter::once(&opened.challenge.challenger)
            .chain(opened.acceptances.iter().map(|a| &a.party))
            .map(|p| RollParty {
                key: p.key,
                anchor: p.anchor.clone(),
            })
            .collect();
        match &opened.challenge.mode {
            Mode::Practice { seed } => {
                self.practice = Some(PracticeStream::new(game, seed));
            }
            mode => {
                if *mode == Mode::Peer
                    && let Some(p) = parties.iter().find(|p| p.anchor.is_none())
                {
                    return Err(Fault::MissingAnchor {
                        party: p.key.fingerprint(),
                    });
                }
                let mut book = RollBook::new(game.clone(), &parties).map_err(Fault::Roll)?;
                book.set_trusted(self.trusted);
                self.rolls = Some(book);
            }
        }
        Ok(())
    }

    fn play(
        &mut self,
        event: &Event,
        body: &EventBody,
        hash: &Hash32,
        to_move: &PublicKey,
    ) -> Result<(), Fault> {
        match body {
            EventBody::Challenge(_) | EventBody::Acceptance(_) => Err(Fault::NotAChallenge),
            EventBody::Turn(turn) => {
                // Playing on ends every open offer (3.8): the party it is
                // made to declines it by play, its author withdraws it;
                // accepted later, it would undo or end a game played on
                // since (in a solo game the director signs no move, so
                // only the player's own turns can end its offers).
                self.offers.clear();
                let alone = turn.moves.is_empty() && turn.evidence.len() == 1;
                for evidence in turn.evidence.iter() {
                    let what = match evidence {
                        Evidence::RollRequest(_) => Some("roll request"),
                        Evidence::RollResponse(_) => Some("roll response"),
                        _ => None,
                    };
                    if let Some(what) = what
                        && !alone
                    {
                        return Err(Fault::NotAlone { what });
                    }
                    self.evidence(event, evidence, to_move)?;
                }
                Ok(())
            }
            EventBody::Resignation => {
                self.over = true;
                Ok(())
            }
            EventBody::DrawOffer => {
                self.offer(event, hash, OfferKind::Draw, None);
                Ok(())
            }
            EventBody::TakebackOffer { back_to } => {
                if *back_to < self.opening_end || *back_to >= event.seq {
                    return Err(Fault::TakebackOutOfRange { back_to: *back_to });
                }
                if let Some(last_chance) = self.last_chance
                    && *back_to < last_chance
                {
                    return Err(Fault::TakebackUndoesChance {
                        back_to: *back_to,
                        last_chance,
                    });
                }
                if let Some(setup) = self.last_setup
                    && *back_to < setup
                {
                    return Err(Fault::TakebackUndoesSetup {
                        back_to: *back_to,
                        setup,
                    });
                }
                self.offer(event, hash, OfferKind::Takeback, Some(*back_to));
                Ok(())
            }
            EventBody::DrawAnswer { offer, accepted } => {
                self.answer(event, offer, OfferKind::Draw)?;
                self.over |= *accepted;
                Ok(())
            }
            EventBody::TakebackAnswer { offer, accepted } => {
                let back_to = self.answer(event, offer, OfferKind::Takeback)?;
                if let (true, Some(back_to)) = (*accepted, back_to) {
                    // The offers made in the line this undoes were made
                    // for a position that is gone: they end with it (a
                    // draw offered in a lost position must not be
                    // accepted in the restored one, 3.8).
                    self.offers.retain(|o| o.seq <= back_to);
                }
                Ok(())
            }
            EventBody::ForfeitClaim { against, .. } => {
                if *against == event.author || self.check_author(against).is_err() {
                    return Err(Fault::InvalidClaim);
                }
                Ok(())
            }
        }
    }

    fn offer(&mut self, event: &Event, hash: &Hash32, kind: OfferKind, back_to: Option<u32>) {
        self.offers.push(OpenOffer {
            hash: *hash,
            kind,
            author: event.author,
            seq: event.seq,
            back_to,
        });
    }

    /// Closes the open offer `offer` of `kind` by another party than the
    /// answer's author (the list holds open offers only: answered ones
    /// leave it, and every turn empties it); a take-back offer's event to
    /// go back to.
    fn answer(
        &mut self,
        event: &Event,
        offer: &Hash32,
        kind: OfferKind,
    ) -> Result<Option<u32>, Fault> {
        let found = self
            .offers
            .iter()
            .position(|o| o.hash == *offer && o.kind == kind && o.author != event.author);
        match found {
            Some(i) => {
                let answered = self.offers.remove(i);
                let back_to = answered.back_to;
                self.answered = Some(answered);
                Ok(back_to)
            }
            None => Err(Fault::NoSuchOffer { offer: *offer }),
        }
    }

    fn rolls(&mut self) -> Result<&mut RollBook, Fault> {
        self.rolls.as_mut().ok_or(Fault::PracticeHasNoRolls)
    }

    fn evidence(
        &mut self,
        event: &Event,
        evidence: &Evidence,
        to_move: &PublicKey,
    ) -> Result<(), Fault> {
        let author = &event.author;
        let not_owner = |what| Fault::NotTheOwner {
            what,
            author: author.fingerprint(),
        };
        match evidence {
            Evidence::RollRequest(request) => {
                if request.request.requester != *author {
                    return Err(not_owner("a roll request"));
                }
                if request.request.record_hash != event.parent {
                    return Err(Fault::RequestNotAtParent {
                        found: request.request.record_hash,
                    });
                }
                let turn = TurnContext {
                    record_hash: event.parent,
                    player_to_move: *to_move,
                };
                self.rolls()?
                    .record_request(request, &turn)
                    .map_err(Fault::Roll)?;
                self.last_chance = Some(event.seq);
            }
            Evidence::RollResponse(response) => {
                if response.response.responder != *author {
                    return Err(not_owner("a roll response"));
                }
                self.rolls()?
                    .record_response(response)
                    .map_err(Fault::Roll)?;
                self.last_chance = Some(event.seq);
            }
            Evidence::Outcomes { roll, results } => {
                if let Some(earlier) = self.outcomes_here {
                    return Err(Fault::Roll(RollError::NotTheOpenRoll {
                        open: earlier,
                        found: *roll,
                    }));
                }
                self.outcomes(*roll, author, results)?;
                self.outcomes_here = Some(*roll);
                self.last_chance = Some(event.seq);
            }
            Evidence::Skipped { roll, .. } => {
                // A skipped order belongs to the roll this very turn plays.
                if self.outcomes_here != Some(*roll) {
                    return Err(Fault::NoSuchRoll { roll: *roll });
                }
            }
            Evidence::SetupCommitment(commitment) => {
                if self.commitments.iter().any(|(k, _, _)| k == author) {
                    return Err(Fault::CommittedTwice {
                        player: author.fingerprint(),
                    });
                }
                self.commitments.push((*author, *commitment, false));
                self.last_setup = Some(event.seq);
            }
            Evidence::SetupReveal(opening) => {
                let game = self.game.clone().ok_or(Fault::NotAChallenge)?;
                let entry = self
                    .commitments
                    .iter_mut()
                    .find(|(k, _, revealed)| k == author && !revealed)
                    .ok_or(Fault::NoCommitment {
                        player: author.fingerprint(),
                    })?;
                entry
                    .1
                    .check(&game, author, opening)
                    .map_err(Fault::Commit)?;
                entry.2 = true;
                self.last_setup = Some(event.seq);
            }
            Evidence::RoleReveal(opening) => {
                let (Some(opened), Some(game)) = (&self.opened, &self.game) else {
                    return Err(Fault::NotAChallenge);
                };
                let RoleChoice::Drawn { commitment } = &opened.challenge.roles else {
                    return Err(Fault::NoRoleToss);
                };
                if self.toss.is_some() {
                    return Err(Fault::NoRoleToss);
                }
                if *author != opened.challenge.challenger.key {
                    return Err(not_owner("the role reveal"));
                }
                let toss = opened
                    .acceptances
                    .first()
                    .and_then(|a| a.toss)
                    .ok_or(Fault::NoRoleToss)?;
                let first =
                    commit::challenger_takes_first_roles(game, author, commitment, opening, &toss)
                        .map_err(Fault::Commit)?;
                self.toss = Some(first);
            }
        }
        Ok(())
    }

    fn outcomes(
        &mut self,
        roll: u64,
        author: &PublicKey,
        results: &[ChanceRecord],
    ) -> Result<(), Fault> {
        let chance_fault = |source| Fault::Chance { roll, source };
        if let Some(stream) = self.practice.as_mut() {
            if roll != self.practice_rolls {
                return Err(Fault::NoSuchRoll { roll });
            }
            replay_blind(&mut *stream, results).map_err(chance_fault)?;
            self.practice_rolls += 1;
        } else {
            let done = self
                .rolls()?
                .record_outcomes(roll, author)
                .map_err(Fault::Roll)?;
            let game = self.game.clone().ok_or(Fault::NotAChallenge)?;
            replay_blind(done.stream(&game), results).map_err(chance_fault)?;
            self.played = Some(done);
        }
        self.values_checked += results.len();
        Ok(())
    }
}

/// What a turn that an open roll does not allow tried to do.
fn open_turn_what(turn: &super::turn::TurnBody) -> &'static str {
    let has = |f: fn(&Evidence) -> bool| turn.evidence.iter().any(f);
    if has(|e| matches!(e, Evidence::RollRequest(_))) {
        "another roll request"
    } else if has(|e| matches!(e, Evidence::Outcomes { .. })) {
        "outcomes of another roll, or by another party than its requester,"
    } else if !turn.moves.is_empty() {
        "a move"
    } else {
        "a turn"
    }
}

/// Recomputes `records` in order from `source`, asking for what each says.
fn replay_blind(source: impl ByteSource, records: &[ChanceRecord]) -> Result<(), ChanceError> {
    let mut replay = ReplayChance::new(source, records);
    for record in records {
        match record.result {
            ChanceResult::Die { sides, .. } => {
                replay.die(record.purpose.as_str(), sides)?;
            }
            ChanceResult::Draw { remaining, .. } => {
                let remaining = usize::try_from(remaining)
                    .map_err(|_| SampleError::TooManyCards { count: usize::MAX })?;
                replay.draw(record.purpose.as_str(), remaining)?;
            }
        }
    }
    replay.finish()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fair_play::chain::{ChainSecret, HashChain};
    use crate::fair_play::chance::RecordingChance;
    use crate::fair_play::commit::{Salt, SetupOpening};
    use crate::fair_play::encoding::{Blob, List, Text};
    use crate::fair_play::roll::{Declaration, RollRequest, RollResponse};
    use crate::fair_play::sign::SigningKey;
    use crate::fair_play::sign::tests::key;
    use crate::fair_play::turn::tests::moves;
    use crate::fair_play::turn::{Party, TurnBody};

    /// A two-player game written event by event with honest signatures.
    pub(crate) struct Script {
        pub(crate) game: GameId,
        pub(crate) alice: SigningKey,
        pub(crate) bob: SigningKey,
        pub(crate) alice_chain: HashChain,
        pub(crate) bob_chain: HashChain,
        pub(crate) events: Vec<SignedEvent>,
    }

    pub(crate) fn text(s: &str) -> Text {
        Text::new(s).unwrap()
    }

    impl Script {
        /// Challenge and acceptance of a peer game.
        pub(crate) fn peer() -> Self {
            Self::opened(Mode::Peer, true)
        }

        pub(crate) fn opened(mode: Mode, alice_has_chain: bool) -> Self {
            let game = GameId::new("siege-2026-001").unwrap();
            let (alice, bob) = (key(1), key(2));
            let chain = |byte, owner: &SigningKey| {
                HashChain::new(
                    &ChainSecret::from_bytes([byte; 32]),
                    game.clone(),
                    owner.public_key(),
                    16,
                )
                .unwrap()
            };
            let alice_chain = chain(0xa1, &alice);
            let bob_chain = chain(0xb0, &bob);
            let practice = matches!(mode, Mode::Practice { .. });
            let challenge = Event::challenge(
                game.clone(),
                alice.public_key(),
                Challenge {
                    game_name: text("Castle Siege"),
                    ruleset_hash: Hash32::from_bytes([0x5e; 32]),
                    mode,
                    roles: RoleChoice::Chosen,
                    challenger: Party {
                        key: alice.public_key(),
                        anchor: (alice_has_chain && !practice)
                            .then(|| alice_chain.anchor().clone()),
                        roles: List::new(vec![text("attacker")]).unwrap(),
                    },
                    invited: List::new(vec![bob.public_key()]).unwrap(),
                },
            );
            let mut script = Script {
                game,
                alice,
                bob,
                alice_chain,
                bob_chain,
                events: Vec::new(),
            };
            script.events.push(challenge.sign(&script.alice).unwrap());
            let acceptance = EventBody::Acceptance(Acceptance {
                party: Party {
                    key: script.bob.public_key(),
                    anchor: (!practice).then(|| script.bob_chain.anchor().clone()),
                    roles: List::new(vec![text("defender")]).unwrap(),
                },
                toss: None,
            });
            script.add(2, acceptance);
            script
        }

        pub(crate) fn signer(&self, who: u8) -> &SigningKey {
            if who == 1 { &self.alice } else { &self.bob }
        }

        /// Appends an honestly signed event by `who` (1 Alice, 2 Bob).
        pub(crate) fn add(&mut self, who: u8, body: EventBody) -> &SignedEvent {
            let parent = &self.events.last().unwrap().event;
            let event = Event::after(parent, self.signer(who).public_key(), body)
                .sign(self.signer(who))
                .unwrap();
            self.events.push(event);
            self.events.last().unwrap()
        }

        pub(crate) fn turn(
            &mut self,
            who: u8,
            tokens: &[&str],
            evidence: Vec<Evidence>,
        ) -> &SignedEvent {
            let body = EventBody::Turn(TurnBody {
                moves: moves(tokens),
                evidence: List::new(evidence).unwrap(),
            });
            self.add(who, body)
        }

        pub(crate) fn record_hash(&self) -> Hash32 {
            self.events.last().unwrap().hash()
        }

        /// Alice declares an attack; Bob answers; Alice moves with the
        /// outcomes (two d6 and a draw from 7). Returns the outcome records.
        pub(crate) fn attack(&mut self, roll: u64) -> List<ChanceRecord> {
            let position = roll as u32 + 1;
            let request = RollRequest {
                game: self.game.clone(),
                index: roll,
                record_hash: self.record_hash(),
                requester: self.alice.public_key(),
                declaration: Declaration {
                    orders: List::new(vec![text("A1xB2"), text("A3xB2")]).unwrap(),
                    seed: Text::default(),
                },
                reveal: Some(self.alice_chain.reveal(position).unwrap()),
            }
            .sign(&self.alice);
            self.turn(1, &[], vec![Evidence::RollRequest(request.clone())]);
            let response = RollResponse {
                game: self.game.clone(),
                index: roll,
                request_hash: request.request.hash(),
                record_hash: request.request.record_hash,
                responder: self.bob.public_key(),
                reveal: self.bob_chain.reveal(position).unwrap(),
            }
            .sign(&self.bob);
            self.turn(2, &[], vec![Evidence::RollResponse(response)]);
            let mut verifier = RecordVerifier::new();
            for e in &self.events {
                verifier.push(e).unwrap();
            }
            let done = verifier.open_roll().unwrap().completed().unwrap();
            let mut chance = RecordingChance::new(done.stream(&self.game));
            chance.d6("A1xB2").unwrap();
            chance.d6("A3xB2").unwrap();
            chance.draw("reinforcement", 7).unwrap();
            let results = chance.into_records();
            self.turn(
                1,
                &["A1xB2", "A3xB2"],
                vec![Evidence::Outcomes {
                    roll,
                    results: results.clone(),
                }],
            );
            results
        }
    }

    fn fault(events: &[SignedEvent]) -> RecordError {
        RecordVerifier::verify(events).unwrap_err()
    }

    /// Replaces event `i`'s body and re-signs it with its author's key (what
    /// a cheating author can do to its own event).
    fn resign(script: &Script, i: usize, edit: impl FnOnce(&mut Event)) -> Vec<SignedEvent> {
        let mut events = script.events.clone();
        let mut event = events[i].event.clone();
        edit(&mut event);
        let who = if event.author == script.alice.public_key() {
            1
        } else {
            2
        };
        events[i] = event.sign(script.signer(who)).unwrap();
        events
    }

    #[test]
    fn an_honest_peer_game_verifies() {
        let mut s = Script::peer();
        s.attack(0);
        s.turn(2, &["B2-C2"], vec![]);
        s.attack(1);
        let summary = RecordVerifier::verify(&s.events).unwrap();
        assert_eq!(summary.assurance, Assurance::Verified);
        assert_eq!(summary.rolls, 2);
        assert_eq!(summary.values_checked, 6);
        assert_eq!(summary.events, s.events.len() as u32);
        assert_eq!(summary.open_roll, None);
        assert_eq!(
            summary.parties,
            vec![
                s.alice.public_key().fingerprint(),
                s.bob.public_key().fingerprint()
            ]
        );
    }

    #[test]
    fn a_changed_face_is_refused() {
        let mut s = Script::peer();
        s.attack(0);
        let last = s.events.len() - 1;
        // Alice re-signs her own turn with a better face.
        let events = resign(&s, last, |e| {
            let EventBody::Turn(turn) = &mut e.body else {
                panic!()
            };
            let mut evidence = turn.evidence.clone().into_vec();
            let Evidence::Outcomes { results, .. } = &mut evidence[0] else {
                panic!()
            };
            let mut values = results.clone().into_vec();
            let ChanceResult::Die { face, .. } = values[1].result else {
                panic!()
            };
            values[1].result = ChanceResult::Die {
                sides: 6,
                face: face % 6 + 1,
            };
            *results = List::new(values).unwrap();
            turn.evidence = List::new(evidence).unwrap();
        });
        assert!(matches!(
            fault(&events),
            RecordError {
                fault: Fault::Chance {
                    roll: 0,
                    source: ChanceError::Mismatch { position: 1, .. }
                },
                ..
            }
        ));
        // Without re-signing, the signature already fails.
        let mut forged = s.events.clone();
        forged[last].event = events[last].event.clone();
        assert!(matches!(fault(&forged).fault, Fault::BadSignature(_)));
    }

    #[test]
    fn a_changed_reveal_or_declaration_is_refused() {
        let mut s = Script::peer();
        s.attack(0);
        // Alice's request turn is event 2; changing it breaks Bob's link...
        let events = resign(&s, 2, |e| {
            let EventBody::Turn(turn) = &mut e.body else {
                panic!()
            };
            let Evidence::RollRequest(signed) = &turn.evidence[0] else {
                panic!()
            };
            let mut request = signed.request.clone();
            request.declaration.seed = text("another seed");
            turn.evidence = List::new(vec![Evidence::RollRequest(request.sign(&s.alice))]).unwrap();
        });
        assert!(matches!(
            fault(&events),
            RecordError {
                position: 3,
                fault: Fault::BrokenLink { .. }
            }
        ));
        // ...and even re-linked, Bob's response binds the original request.
        let mut s = Script::peer();
        let parent = s.record_hash();
        let mut request = RollRequest {
            game: s.game.clone(),
            index: 0,
            record_hash: parent,
            requester: s.alice.public_key(),
            declaration: Declaration {
                orders: List::new(vec![text("A1xB2")]).unwrap(),
                seed: Text::default(),
            },
            reveal: Some(s.alice_chain.reveal(1).unwrap()),
        };
        let bound = request.hash();
        request.declaration.orders = List::new(vec![text("A1xB3")]).unwrap();
        s.turn(
            1,
            &[],
            vec![Evidence::RollRequest(request.clone().sign(&s.alice))],
        );
        let response = RollResponse {
            game: s.game.clone(),
            index: 0,
            request_hash: bound,
            record_hash: parent,
            responder: s.bob.public_key(),
            reveal: s.bob_chain.reveal(1).unwrap(),
        }
        .sign(&s.bob);
        s.turn(2, &[], vec![Evidence::RollResponse(response)]);
        assert!(matches!(
            fault(&s.events).fault,
            Fault::Roll(RollError::DeclarationMismatch { .. })
        ));
        // A reveal that is not the next chain value.
        let mut s = Script::peer();
        let mut request = RollRequest {
            game: s.game.clone(),
            index: 0,
            record_hash: s.record_hash(),
            requester: s.alice.public_key(),
            declaration: Declaration::default(),
            reveal: Some(s.alice_chain.reveal(2).unwrap()),
        };
        s.turn(
            1,
            &[],
            vec![Evidence::RollRequest(request.clone().sign(&s.alice))],
        );
        assert!(matches!(
            fault(&s.events).fault,
            Fault::Roll(RollError::Chain { .. })
        ));
        request.reveal = Some(s.alice_chain.reveal(1).unwrap());
        request.record_hash = Hash32::ZERO;
        let mut s = Script::peer();
        s.turn(1, &[], vec![Evidence::RollRequest(request.sign(&s.alice))]);
        assert!(matches!(
            fault(&s.events).fault,
            Fault::RequestNotAtParent { .. }
        ));
    }

    #[test]
    fn swapped_replayed_and_removed_turns_are_refused() {
        let mut s = Script::peer();
        s.turn(1, &["a"], vec![]);
        s.turn(2, &["b"], vec![]);
        s.turn(1, &["c"], vec![]);
        let mut swapped = s.events.clone();
        swapped.swap(2, 3);
        assert!(matches!(
            fault(&swapped),
            RecordError {
                position: 2,
                fault: Fault::WrongPosition { found: 3 }
            }
        ));
        let mut replayed = s.events.clone();
        replayed.push(s.events[3].clone());
        assert!(matches!(
            fault(&replayed),
            RecordError {
                position: 5,
                fault: Fault::Replayed { original: 3 }
            }
        ));
        let mut removed = s.events.clone();
        removed.remove(3);
        assert!(matches!(fault(&removed).fault, Fault::WrongPosition { .. }));
    }

    #[test]
    fn a_changed_ruleset_or_swapped_key_is_refused() {
        let s = Script::peer();
        let events = resign(&s, 0, |e| {
            let EventBody::Challenge(c) = &mut e.body else {
                panic!()
            };
            c.ruleset_hash = Hash32::from_bytes([0x5f; 32]);
        });
        assert!(matches!(
            fault(&events),
            RecordError {
                position: 1,
                fault: Fault::BrokenLink { .. }
            }
        ));
        // Mallory answers in Bob's place.
        let mallory = key(9);
        let mut events = s.events.clone();
        let mut acceptance = events[1].event.clone();
        acceptance.author = mallory.public_key();
        let EventBody::Acceptance(a) = &mut acceptance.body else {
            panic!()
        };
        a.party.key = mallory.public_key();
        events[1] = acceptance.sign(&mallory).unwrap();
        assert!(matches!(fault(&events).fault, Fault::UnknownAuthor { .. }));
        // Inviting Mallory needs Alice's signature on a new challenge.
        let mut events = s.events.clone();
        let mut challenge = events[0].event.clone();
        let EventBody::Challenge(c) = &mut challenge.body else {
            panic!()
        };
        c.invited = List::new(vec![mallory.public_key()]).unwrap();
        events[0].event = challenge;
        assert!(matches!(
            fault(&events),
            RecordError {
                position: 0,
                fault: Fault::BadSignature(_)
            }
        ));
    }

    #[test]
    fn a_changed_committed_setup_is_refused() {
        let mut s = Script::peer();
        let game = s.game.clone();
        let opening = |setup: &[u8]| SetupOpening {
            salt: Salt::from_bytes([3; 32]),
            setup: Blob::new(setup.to_vec()).unwrap(),
        };
        let commitment = Commitment::new(&game, &s.bob.public_key(), &opening(b"K@c3"));
        s.turn(2, &[], vec![Evidence::SetupCommitment(commitment)]);
        let mut honest = Script::peer();
        honest.turn(2, &[], vec![Evidence::SetupCommitment(commitment)]);
        honest.turn(2, &[], vec![Evidence::SetupReveal(opening(b"K@c3"))]);
        assert!(RecordVerifier::verify(&honest.events).is_ok());
        s.turn(2, &[], vec![Evidence::SetupReveal(opening(b"K@d4"))]);
        assert!(matches!(fault(&s.events).fault, Fault::Commit(_)));
        let mut twice = Script::peer();
        twice.turn(1, &[], vec![Evidence::SetupReveal(opening(b"x"))]);
        assert!(matches!(
            fault(&twice.events).fault,
            Fault::NoCommitment { .. }
        ));
    }

    #[test]
    fn a_takeback_never_undoes_chance() {
        let mut s = Script::peer();
        s.turn(1, &["a"], vec![]);
        s.attack(0);
        let last_chance = s.events.last().unwrap().event.seq;
        s.turn(2, &["b"], vec![]);
        let mut early = Script {
            events: s.events.clone(),
            ..Script::peer()
        };
        early.add(
            2,
            EventBody::TakebackOffer {
                back_to: last_chance - 1,
            },
        );
        assert_eq!(
            fault(&early.events).fault,
            Fault::TakebackUndoesChance {
                back_to: last_chance - 1,
                last_chance
            }
        );
        let offer = s
            .add(
                2,
                EventBody::TakebackOffer {
                    back_to: last_chance,
                },
            )
            .hash();
        s.add(
            1,
            EventBody::TakebackAnswer {
                offer,
                accepted: true,
            },
        );
        assert!(RecordVerifier::verify(&s.events).is_ok());
        let mut opening = Script::peer();
        opening.add(1, EventBody::TakebackOffer { back_to: 0 });
        assert_eq!(
            fault(&opening.events).fault,
            Fault::TakebackOutOfRange { back_to: 0 }
        );
    }

    #[test]
    fn a_takeback_offered_before_a_roll_cannot_be_accepted_after_it() {
        // The attack: seat 1 offers a take-back; seat 2 leaves it open,
        // rolls, dislikes the roll, and accepts the old offer to roll again.
        // The roll's events are turns, and any turn ends every open offer:
        // the offer has lapsed.
        let mut s = Script::peer();
        s.turn(1, &["a"], vec![]);
        s.attack(0);
        let first_chance = s.events.last().unwrap().event.seq;
        s.turn(2, &["b"], vec![]);
        let offer = s
            .add(
                1,
                EventBody::TakebackOffer {
                    back_to: first_chance,
                },
            )
            .hash();
        let mut honest = Script {
            events: s.events.clone(),
            ..Script::peer()
        };
        s.attack(1);
        s.add(
            2,
            EventBody::TakebackAnswer {
                offer,
                accepted: true,
            },
        );
        assert_eq!(fault(&s.events).fault, Fault::NoSuchOffer { offer });
        // Answered before the roll, the same offer stands.
        honest.add(
            2,
            EventBody::TakebackAnswer {
                offer,
                accepted: true,
            },
        );
        assert!(RecordVerifier::verify(&honest.events).is_ok());

        // A practice roll is the roller's alone: seat 1 offers, rolls, and
        // seat 2, who signed nothing since, accepts. The roller's own turn
        // withdrew the offer: every roll and setup is carried by a turn,
        // so no offer outlives one.
        let seed = Blob::new(b"practice seed".to_vec()).unwrap();
        let mut p = Script::opened(Mode::Practice { seed: seed.clone() }, false);
        let mut chance = crate::fair_play::chance::PracticeChance::new(&p.game, &seed);
        chance.d6("A1xB2").unwrap();
        let first = chance.take_records();
        p.turn(
            1,
            &["A1xB2"],
            vec![Evidence::Outcomes {
                roll: 0,
                results: first,
            }],
        );
        let first_chance = p.events.last().unwrap().event.seq;
        let offer = p
            .add(
                1,
                EventBody::TakebackOffer {
                    back_to: first_chance,
                },
            )
            .hash();
        chance.d6("A3xB2").unwrap();
        let second = chance.take_records();
        p.turn(
            1,
            &["A3xB2"],
            vec![Evidence::Outcomes {
                roll: 1,
                results: second,
            }],
        );
        p.add(
            2,
            EventBody::TakebackAnswer {
                offer,
                accepted: true,
            },
        );
        assert_eq!(fault(&p.events).fault, Fault::NoSuchOffer { offer });
    }

    #[test]
    fn an_offer_lapses_when_either_party_plays_on() {
        let mut s = Script::peer();
        s.turn(1, &["a"], vec![]);
        let after_a = s.events.last().unwrap().event.seq;
        let draw = s.add(1, EventBody::DrawOffer).hash();
        let takeback = s
            .add(1, EventBody::TakebackOffer { back_to: after_a })
            .hash();
        // The offerer playing on withdraws them.
        let mut own = Script {
            events: s.events.clone(),
            ..Script::peer()
        };
        own.turn(1, &["c"], vec![]);
        own.add(
            2,
            EventBody::DrawAnswer {
                offer: draw,
                accepted: true,
            },
        );
        assert_eq!(fault(&own.events).fault, Fault::NoSuchOffer { offer: draw });
        // Answered before play goes on, an offer stands.
        let mut answered = Script {
            events: s.events.clone(),
            ..Script::peer()
        };
        answered.add(
            2,
            EventBody::DrawAnswer {
                offer: draw,
                accepted: false,
            },
        );
        assert!(RecordVerifier::verify(&answered.events).is_ok());
        // The party they are made to plays on: both lapse.
        s.turn(2, &["b"], vec![]);
        for body in [
            EventBody::DrawAnswer {
                offer: draw,
                accepted: true,
            },
            EventBody::TakebackAnswer {
                offer: takeback,
                accepted: true,
            },
        ] {
            let mut late = Script {
                events: s.events.clone(),
                ..Script::peer()
            };
            let offer = match &body {
                EventBody::DrawAnswer { offer, .. } | EventBody::TakebackAnswer { offer, .. } => {
                    *offer
                }
                _ => unreachable!(),
            };
            late.add(2, body);
            assert_eq!(fault(&late.events).fault, Fault::NoSuchOffer { offer });
        }
    }

    #[test]
    fn offers_answers_and_the_end_of_the_game() {
        let mut s = Script::peer();
        let offer = s.add(1, EventBody::DrawOffer).hash();
        let mut own = Script {
            events: s.events.clone(),
            ..Script::peer()
        };
        own.add(
            1,
            EventBody::DrawAnswer {
                offer,
                accepted: true,
            },
        );
        assert!(matches!(
            fault(&own.events).fault,
            Fault::NoSuchOffer { .. }
        ));
        s.add(
            2,
            EventBody::DrawAnswer {
                offer,
                accepted: true,
            },
        );
        assert!(RecordVerifier::verify(&s.events).is_ok());
        s.turn(1, &["a"], vec![]);
        assert_eq!(fault(&s.events).fault, Fault::GameOver);
        let mut claim = Script::peer();
        claim.add(
            1,
            EventBody::ForfeitClaim {
                against: key(1).public_key(),
                reason: text("x"),
                robot_time: None,
            },
        );
        assert_eq!(fault(&claim.events).fault, Fault::InvalidClaim);
    }

    #[test]
    fn evidence_by_the_wrong_party_is_refused() {
        let mut s = Script::peer();
        let request = RollRequest {
            game: s.game.clone(),
            index: 0,
            record_hash: s.record_hash(),
            requester: s.alice.public_key(),
            declaration: Declaration::default(),
            reveal: Some(s.alice_chain.reveal(1).unwrap()),
        }
        .sign(&s.alice);
        // Bob relays Alice's request in his own turn.
        s.turn(2, &[], vec![Evidence::RollRequest(request)]);
        assert!(matches!(fault(&s.events).fault, Fault::NotTheOwner { .. }));
    }

    #[test]
    fn a_request_out_of_turn_is_refused_when_the_rules_say_so() {
        let mut s = Script::peer();
        s.attack(0);
        let mut verifier = RecordVerifier::new();
        for e in &s.events[..2] {
            verifier.push(e).unwrap();
        }
        let err = verifier
            .push_with_turn(&s.events[2], &s.bob.public_key())
            .unwrap_err();
        assert!(matches!(
            err.fault,
            Fault::Roll(RollError::RequestOutOfTurn { .. })
        ));
        // The verifier is unchanged and accepts the right context.
        verifier
            .push_with_turn(&s.events[2], &s.alice.public_key())
            .unwrap();
    }

    #[test]
    fn retired_reanchoring_is_refused_by_name() {
        // Evidence kind 6 (a new anchor) as an old draft wrote it: the
        // kind byte, then an anchor.
        let s = Script::peer();
        let fresh = HashChain::new(
            &ChainSecret::from_bytes([0xa2; 32]),
            s.game.clone(),
            s.alice.public_key(),
            4,
        )
        .unwrap();
        let mut enc = crate::fair_play::encoding::Encoder::new();
        enc.u32(0).u32(1).u8(6).put(fresh.anchor());
        let err = <TurnBody as crate::fair_play::encoding::Canonical>::from_canonical_bytes(
            &enc.into_bytes(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("retired"), "{err}");
        assert!(err.to_string().contains("re-anchoring"), "{err}");
    }

    #[test]
    fn the_open_roll_allows_only_what_moves_it_on() {
        // Requested: Alice may not move, ask again or offer a draw; Bob may
        // only respond.
        let mut s = Script::peer();
        let request = RollRequest {
            game: s.game.clone(),
            index: 0,
            record_hash: s.record_hash(),
            requester: s.alice.public_key(),
            declaration: Declaration {
                orders: List::new(vec![text("A1xB2")]).unwrap(),
                seed: Text::default(),
            },
            reveal: Some(s.alice_chain.reveal(1).unwrap()),
        }
        .sign(&s.alice);
        s.turn(1, &[], vec![Evidence::RollRequest(request.clone())]);
        let mut moving = Script::peer();
        moving.events = s.events.clone();
        moving.turn(2, &["B2-B3"], vec![]);
        assert!(matches!(
            fault(&moving.events).fault,
            Fault::RollOpen {
                what: "a move",
                index: 0,
                stage: RollStage::Requested,
                ..
            }
        ));
        let mut offering = Script::peer();
        offering.events = s.events.clone();
        offering.add(1, EventBody::DrawOffer);
        assert!(matches!(
            fault(&offering.events).fault,
            Fault::RollOpen {
                what: "a draw offer",
                ..
            }
        ));
        // A forfeit claim against the responder the roll waits for stands;
        // one against the requester does not.
        let mut claim = Script::peer();
        claim.events = s.events.clone();
        claim.add(
            1,
            EventBody::ForfeitClaim {
                against: s.bob.public_key(),
                reason: text("no response in 40 days"),
                robot_time: None,
            },
        );
        assert!(RecordVerifier::verify(&claim.events).is_ok());
        let mut wrong = Script::peer();
        wrong.events = s.events.clone();
        wrong.add(
            2,
            EventBody::ForfeitClaim {
                against: s.alice.public_key(),
                reason: text("no move"),
                robot_time: None,
            },
        );
        assert!(matches!(fault(&wrong.events).fault, Fault::RollOpen { .. }));
        // A request shares its event with nothing.
        let mut crowded = Script::peer();
        let request = RollRequest {
            record_hash: crowded.record_hash(),
            ..request.request.clone()
        }
        .sign(&crowded.alice);
        crowded.turn(1, &["A1xB2"], vec![Evidence::RollRequest(request)]);
        assert_eq!(
            fault(&crowded.events).fault,
            Fault::NotAlone {
                what: "roll request"
            }
        );
    }

    #[test]
    fn an_answered_roll_waits_for_its_outcome_turn() {
        let mut s = Script::peer();
        let results = s.attack(0);
        let honest = s.events.clone();
        let summary = RecordVerifier::verify(&honest).unwrap();
        assert_eq!(summary.open_roll, None);
        assert_eq!(summary.rolls, 1);
        // Without the outcome turn, the roll is reported open, owed by
        // Alice since Bob's response (event #3).
        let cut = &honest[..honest.len() - 1];
        let summary = RecordVerifier::verify(cut).unwrap();
        assert_eq!(
            summary.open_roll,
            Some(OpenRollReport {
                index: 0,
                stage: RollStage::Answered,
                owed_by: vec![s.alice.public_key().fingerprint()],
                since_event: 3,
            })
        );
        // Best of two: instead of playing roll 0, Alice asks for roll 1.
        let mut again = Script::peer();
        again.events = cut.to_vec();
        let request = RollRequest {
            game: again.game.clone(),
            index: 1,
            record_hash: again.record_hash(),
            requester: again.alice.public_key(),
            declaration: Declaration {
                orders: List::new(vec![text("A1xB2"), text("A3xB2")]).unwrap(),
                seed: Text::default(),
            },
            reveal: Some(again.alice_chain.reveal(2).unwrap()),
        }
        .sign(&again.alice);
        again.turn(1, &[], vec![Evidence::RollRequest(request)]);
        let err = fault(&again.events);
        assert_eq!(err.position, 4);
        assert!(matches!(
            err.fault,
            Fault::RollOpen {
                what: "another roll request",
                index: 0,
                stage: RollStage::Answered,
                ..
            }
        ));
        // Bob cannot play Alice's roll, nor move meanwhile.
        let mut bob = Script::peer();
        bob.events = cut.to_vec();
        bob.turn(2, &["B1-B2"], vec![]);
        assert!(matches!(fault(&bob.events).fault, Fault::RollOpen { .. }));
        let mut bob_plays = Script::peer();
        bob_plays.events = cut.to_vec();
        bob_plays.turn(
            2,
            &["A1xB2", "A3xB2"],
            vec![Evidence::Outcomes { roll: 0, results }],
        );
        assert!(matches!(
            fault(&bob_plays.events).fault,
            Fault::RollOpen { .. }
        ));
    }

    #[test]
    fn a_practice_game_verifies_as_unverified() {
        let seed = Blob::new(b"practice seed".to_vec()).unwrap();
        let mut s = Script::opened(Mode::Practice { seed: seed.clone() }, false);
        let mut chance = crate::fair_play::chance::PracticeChance::new(&s.game, &seed);
        chance.d6("A1xB2").unwrap();
        let first = chance.take_records();
        s.turn(
            1,
            &["A1xB2"],
            vec![Evidence::Outcomes {
                roll: 0,
                results: first,
            }],
        );
        chance.draw("card", 30).unwrap();
        let second = chance.take_records();
        s.turn(
            1,
            &["draw"],
            vec![Evidence::Outcomes {
                roll: 1,
                results: second.clone(),
            }],
        );
        let summary = RecordVerifier::verify(&s.events).unwrap();
        assert_eq!(summary.assurance, Assurance::Unverified);
        assert_eq!(summary.rolls, 2);
        // Out of order practice outcomes are refused.
        let mut wrong = Script::opened(Mode::Practice { seed }, false);
        wrong.turn(
            1,
            &["draw"],
            vec![Evidence::Outcomes {
                roll: 0,
                results: second,
            }],
        );
        assert!(matches!(fault(&wrong.events).fault, Fault::Chance { .. }));
    }

    #[test]
    fn a_peer_game_needs_both_chains() {
        let s = Script::opened(Mode::Peer, false);
        assert!(matches!(
            fault(&s.events),
            RecordError {
                position: 1,
                fault: Fault::MissingAnchor { .. }
            }
        ));
        let robot = Script::opened(Mode::Robot, false);
        assert!(RecordVerifier::verify(&robot.events).is_ok());
    }

    #[test]
    fn outcomes_must_follow_a_completed_roll_once() {
        let mut s = Script::peer();
        let results = s.attack(0);
        s.turn(
            1,
            &[],
            vec![Evidence::Outcomes {
                roll: 0,
                results: results.clone(),
            }],
        );
        assert_eq!(
            fault(&s.events).fault,
            Fault::Roll(RollError::OutcomesTwice { roll: 0 })
        );
        let mut early = Script::peer();
        early.turn(1, &[], vec![Evidence::Outcomes { roll: 0, results }]);
        assert_eq!(
            fault(&early.events).fault,
            Fault::Roll(RollError::NoSuchRoll { roll: 0 })
        );
    }
}
