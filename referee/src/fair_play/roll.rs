//! Roll requests and responses, and the [`RollBook`] that takes every roll
//! through its life cycle.
//!
//! Every roll of a game has the next global index `k` (0, 1, 2, ... with no
//! gaps), and consumes exactly the next value of every chain taking part.
//!
//! 1. **Requested.** The player to move signs a [`RollRequest`]: game id,
//!    `k`, the hash of the record before it, its key, its [`Declaration`]
//!    (the orders the roll resolves, legal in the position) and, if it has a
//!    chain, its next reveal.
//! 2. **Answered.** Every other party with a chain answers with a signed
//!    [`RollResponse`]: game id, `k`, `H(request)`, the same record hash, its
//!    key and its next reveal. Signing `H(request)` binds the response to that
//!    one declaration. When the last response is in, the outcome stream (see
//!    `outcome`) is fixed by values that were all committed in advance; the
//!    requester could not foresee it (it lacked the responses' reveals) and
//!    nobody could bias it.
//! 3. **Played.** The requester's next turn plays the declared orders with
//!    the roll's values and records them as outcomes. Only then is the roll
//!    closed and may the next one be requested: a requester that could ask
//!    again while holding an answered roll would keep the outcome it
//!    prefers.
//!
//! The [`RollBook`] is both the verifier that replays a record and the guard
//! a responder consults before answering ([`RollBook::answer`]): it answers
//! only the open request the verifier accepted, and only once. Legality of
//! the declared orders is the game's to check, before the request is
//! accepted (`crate::signed::SignedReplay` does).

use std::fmt;

use thiserror::Error;

use super::chain::{ChainAnchor, ChainError, ChainValue, ChainVerifier, HashChain, Reveal};
use super::encoding::{
    Canonical, DecodeError, Decoder, Encoder, List, TAG_DECLARATION, TAG_ROLL_REQUEST,
    TAG_ROLL_RESPONSE, Text,
};
use super::game_id::GameId;
use super::hash::Hash32;
use super::outcome::{OutcomeInput, OutcomeStream};
use super::sign::{Fingerprint, PublicKey, Signature, SigningKey};
use serde::{Deserialize, Serialize};

/// What a roll resolves: the declared orders, in the order they will be
/// carried out, and an optional free-text seed (from a player without the
/// program, in robot games; empty otherwise). Both enter the outcome through
/// `H(declaration)`.
///
/// Canonical bytes: `orders (list of text) || seed (text)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Declaration {
    /// Each order as the game's canonical text.
    pub orders: List<Text>,
    /// The free-text seed, or empty.
    pub seed: Text,
}

impl Declaration {
    /// `SHA-256(tag "yam/v1/declaration" || canonical declaration)`.
    pub fn hash(&self) -> Hash32 {
        let mut enc = Encoder::tagged(TAG_DECLARATION);
        enc.put(self);
        enc.sha256()
    }
}

impl Canonical for Declaration {
    fn encode(&self, enc: &mut Encoder) {
        enc.list(&self.orders).text(&self.seed);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Declaration {
            orders: dec.list("declared orders")?,
            seed: dec.text("declaration seed")?,
        })
    }
}

/// A request for roll `index`. Its canonical bytes are exactly what the
/// requester signs and what `H(request)` hashes:
/// `tag "yam/v1/roll-request" || game id || index u64 || record hash (32) ||
/// requester key (32) || declaration || optional reveal`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RollRequest {
    /// The game.
    pub game: GameId,
    /// The global roll index.
    pub index: u64,
    /// The hash of the record before the event that carries this request.
    pub record_hash: Hash32,
    /// The player to move.
    pub requester: PublicKey,
    /// What the roll resolves.
    pub declaration: Declaration,
    /// The requester's next chain value, if it has a chain.
    pub reveal: Option<Reveal>,
}

impl RollRequest {
    /// `H(request)`: SHA-256 of the canonical (signed) bytes.
    pub fn hash(&self) -> Hash32 {
        Hash32::of(&self.to_canonical_bytes())
    }

    /// Signs the request; `key` must be the requester's.
    pub fn sign(self, key: &SigningKey) -> SignedRollRequest {
        let signature = key.sign(&self.to_canonical_bytes());
        SignedRollRequest {
            request: self,
            signature,
        }
    }
}

impl Canonical for RollRequest {
    fn encode(&self, enc: &mut Encoder) {
        enc.tag(TAG_ROLL_REQUEST)
            .put(&self.game)
            .u64(self.index)
            .put(&self.record_hash)
            .put(&self.requester)
            .put(&self.declaration)
            .option(self.reveal.as_ref());
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        dec.tag(TAG_ROLL_REQUEST)?;
        Ok(RollRequest {
            game: dec.get()?,
            index: dec.u64("roll index")?,
            record_hash: dec.get()?,
            requester: dec.get()?,
            declaration: dec.get()?,
            reveal: dec.option("requester reveal")?,
        })
    }
}

/// A request with the requester's signature over its canonical bytes.
/// Canonical bytes: `request || signature (64)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SignedRollRequest {
    /// The request.
    pub request: RollRequest,
    /// The requester's signature.
    pub signature: Signature,
}

impl Canonical for SignedRollRequest {
    fn encode(&self, enc: &mut Encoder) {
        enc.put(&self.request).put(&self.signature);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(SignedRollRequest {
            request: dec.get()?,
            signature: dec.get()?,
        })
    }
}

/// A response to roll `index`. Its canonical bytes are exactly what the
/// responder signs:
/// `tag "yam/v1/roll-response" || game id || index u64 || H(request) (32) ||
/// record hash (32) || responder key (32) || reveal`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RollResponse {
    /// The game.
    pub game: GameId,
    /// The roll index answered.
    pub index: u64,
    /// `H(request)` of the request answered: binds its declaration.
    pub request_hash: Hash32,
    /// The record hash the request named.
    pub record_hash: Hash32,
    /// The responder.
    pub responder: PublicKey,
    /// The responder's next chain value.
    pub reveal: Reveal,
}

impl RollResponse {
    /// Signs the response; `key` must be the responder's.
    pub fn sign(self, key: &SigningKey) -> SignedRollResponse {
        let signature = key.sign(&self.to_canonical_bytes());
        SignedRollResponse {
            response: self,
            signature,
        }
    }
}

impl Canonical for RollResponse {
    fn encode(&self, enc: &mut Encoder) {
        enc.tag(TAG_ROLL_RESPONSE)
            .put(&self.game)
            .u64(self.index)
            .put(&self.request_hash)
            .put(&self.record_hash)
            .put(&self.responder)
            .put(&self.reveal);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        dec.tag(TAG_ROLL_RESPONSE)?;
        Ok(RollResponse {
            game: dec.get()?,
            index: dec.u64("roll index")?,
            request_hash: dec.get()?,
            record_hash: dec.get()?,
            responder: dec.get()?,
            reveal: dec.get()?,
        })
    }
}

/// A response with the responder's signature over its canonical bytes.
/// Canonical bytes: `response || signature (64)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SignedRollResponse {
    /// The response.
    pub response: RollResponse,
    /// The responder's signature.
    pub signature: Signature,
}

impl Canonical for SignedRollResponse {
    fn encode(&self, enc: &mut Encoder) {
        enc.put(&self.response).put(&self.signature);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(SignedRollResponse {
            response: dec.get()?,
            signature: dec.get()?,
        })
    }
}

/// A participant of the game as the roll book sees it: its key and, if it
/// takes part in rolls, its chain's anchor from the signed opening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollParty {
    /// The party's key.
    pub key: PublicKey,
    /// Its chain anchor, or `None` for a player without the program.
    pub anchor: Option<ChainAnchor>,
}

/// What the rules say about the moment a request is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnContext {
    /// The hash of the record so far (before the event carrying the request).
    pub record_hash: Hash32,
    /// The player whose turn it is.
    pub player_to_move: PublicKey,
}

/// A roll with every response in: the inputs of its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletedRoll {
    /// The roll index.
    pub index: u64,
    /// `H(request)`.
    pub request_hash: Hash32,
    /// `H(declaration)`.
    pub declaration_hash: Hash32,
    /// Every party's reveal for this roll.
    pub reveals: Vec<(PublicKey, ChainValue)>,
}

impl CompletedRoll {
    /// The derivation inputs.
    pub fn outcome_input(&self, game: &GameId) -> OutcomeInput {
        OutcomeInput {
            game: game.clone(),
            roll: self.index,
            declaration: self.declaration_hash,
            reveals: self.reveals.clone(),
        }
    }

    /// The roll's outcome stream.
    pub fn stream(&self, game: &GameId) -> OutcomeStream {
        OutcomeStream::new(&self.outcome_input(game))
    }
}

/// Where an open roll stands in its life cycle (`docs/fair-play.md`, 3.3):
///
/// ```text
///   (idle) --request k--> Requested --last response--> Answered --outcome turn--> (idle, next k+1)
/// ```
///
/// A roll is open from its request until the requester's turn that plays its
/// outcomes. While it is open nobody may request another roll, and the only
/// events the record accepts are the ones that move it on (a response while
/// it is requested, the requester's outcome turn once it is answered), a
/// resignation, and a forfeit claim against whoever it waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RollStage {
    /// Requested: waiting for the responses of the other parties with a
    /// chain.
    Requested,
    /// Answered: every response is in, so the outcome is fixed (and the
    /// requester can compute it); waiting for the requester's turn that
    /// plays it.
    Answered,
}

impl fmt::Display for RollStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RollStage::Requested => "requested, waiting for its responses",
            RollStage::Answered => "answered, waiting for the turn that plays its outcomes",
        })
    }
}

/// The keys an open roll waits for, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owed(pub Vec<Fingerprint>);

impl fmt::Display for Owed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, fp) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" and ")?;
            }
            write!(f, "{fp}")?;
        }
        Ok(())
    }
}

/// A roll that is open: requested, and not yet played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenRoll {
    request: RollRequest,
    request_hash: Hash32,
    reveals: Vec<(PublicKey, ChainValue)>,
    awaiting: Vec<PublicKey>,
}

impl OpenRoll {
    /// The roll index.
    pub fn index(&self) -> u64 {
        self.request.index
    }

    /// The request, as signed.
    pub fn request(&self) -> &RollRequest {
        &self.request
    }

    /// Who asked for it, and owes the turn that plays it.
    pub fn requester(&self) -> PublicKey {
        self.request.requester
    }

    /// Where it stands.
    pub fn stage(&self) -> RollStage {
        if self.awaiting.is_empty() {
            RollStage::Answered
        } else {
            RollStage::Requested
        }
    }

    /// The parties whose responses it still waits for (none once answered).
    pub fn awaiting(&self) -> &[PublicKey] {
        &self.awaiting
    }

    /// Who owes the next event of the roll: the responders still awaited,
    /// or, once it is answered, the requester.
    pub fn owed_by(&self) -> Vec<PublicKey> {
        match self.stage() {
            RollStage::Requested => self.awaiting.clone(),
            RollStage::Answered => vec![self.request.requester],
        }
    }

    /// The inputs of its outcome, once it is answered.
    pub fn completed(&self) -> Option<CompletedRoll> {
        (self.stage() == RollStage::Answered).then(|| CompletedRoll {
            index: self.request.index,
            request_hash: self.request_hash,
            declaration_hash: self.request.declaration.hash(),
            reveals: self.reveals.clone(),
        })
    }

    fn owed(&self) -> Owed {
        Owed(self.owed_by().iter().map(PublicKey::fingerprint).collect())
    }
}

/// Why a request, a response or an outcome turn was refused. Each attack
/// has its own reason.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RollError {
    /// No party has a chain, so no roll can ever be answered.
    #[error("no party has a chain")]
    NoChains,
    /// A request nobody else could answer: the requester would be the only
    /// source of its own roll, and could foresee it.
    #[error("nobody but {requester} has a chain to answer its request")]
    NoResponder {
        /// The requester.
        requester: Fingerprint,
    },
    /// Two parties share a key.
    #[error("the key {key} appears twice among the parties")]
    DuplicateParty {
        /// The key.
        key: Fingerprint,
    },
    /// A message for another game.
    #[error("the message belongs to game {found}, not this one")]
    GameMismatch {
        /// The game it names.
        found: GameId,
    },
    /// A signature that does not verify under the key it names.
    #[error("bad signature by {signer}")]
    BadSignature {
        /// The key named.
        signer: Fingerprint,
    },
    /// A key that is not a party of the game.
    #[error("{key} is not a party of this game")]
    UnknownParty {
        /// The key.
        key: Fingerprint,
    },
    /// A request from a player whose turn it is not.
    #[error("request by {requester} out of turn: it is {to_move}'s turn")]
    RequestOutOfTurn {
        /// Who asked.
        requester: Fingerprint,
        /// Whose turn it is.
        to_move: Fingerprint,
    },
    /// A new request while a roll is open: requested and not yet played.
    /// Asking again for an answered roll would let the requester keep the
    /// outcome it prefers (best of N).
    #[error(
        "roll {index} is still open ({stage}; owed by {owed_by}): no new roll may be requested before it is played"
    )]
    RollStillOpen {
        /// The open roll.
        index: u64,
        /// Where it stands.
        stage: RollStage,
        /// Who owes its next event.
        owed_by: Owed,
    },
    /// A request that skips roll indices.
    #[error("roll index {found} skips ahead: the next roll is {expected}")]
    IndexSkipped {
        /// The next index.
        expected: u64,
        /// The index presented.
        found: u64,
    },
    /// A request for an index already used.
    #[error("roll index {found} was already used: the next roll is {expected}")]
    IndexReused {
        /// The next index.
        expected: u64,
        /// The index presented.
        found: u64,
    },
    /// A request or response made against another state of the record.
    #[error("the message names record hash {found}, but the record is at {expected}")]
    StaleRecordHash {
        /// The record hash in force.
        expected: Hash32,
        /// The one named.
        found: Hash32,
    },
    /// A party with a chain must reveal with its request.
    #[error("{party} has a chain but its request carries no reveal")]
    RevealMissing {
        /// The requester.
        party: Fingerprint,
    },
    /// A party without a chain sent a reveal.
    #[error("{party} has no chain but its request carries a reveal")]
    RevealUnexpected {
        /// The requester.
        party: Fingerprint,
    },
    /// Harvesting: a response to a roll that has not been requested yet.
    #[error("response for roll {index} ahead of the next request (next roll is {next})")]
    ResponseAhead {
        /// The index answered.
        index: u64,
        /// The next index that may be requested or is open.
        next: u64,
    },
    /// A response to a roll already played.
    #[error("roll {index} is already played")]
    ResponseToClosedRoll {
        /// The index answered.
        index: u64,
    },
    /// A response to a roll whose responses are all in.
    #[error("roll {index} is already answered")]
    AlreadyAnswered {
        /// The index answered.
        index: u64,
    },
    /// A response by the requester itself, or by a party without a chain.
    #[error("{responder} may not respond to this roll")]
    WrongResponder {
        /// The responder.
        responder: Fingerprint,
    },
    /// A second response by the same party to the same roll.
    #[error("{responder} already responded to roll {index}")]
    DuplicateResponse {
        /// The responder.
        responder: Fingerprint,
        /// The roll.
        index: u64,
    },
    /// The response binds another request: a different declaration (or other
    /// content) was presented under it.
    #[error(
        "the response to roll {index} binds request {bound}, not the request {presented} on record"
    )]
    DeclarationMismatch {
        /// The roll.
        index: u64,
        /// The request hash the response signed.
        bound: Hash32,
        /// The hash of the request on record.
        presented: Hash32,
    },
    /// Outcomes of a roll that was never requested.
    #[error("no roll {roll} was requested, so it has no outcomes to play")]
    NoSuchRoll {
        /// The roll named.
        roll: u64,
    },
    /// Outcomes of a roll that was played already.
    #[error("the outcomes of roll {roll} were already played")]
    OutcomesTwice {
        /// The roll named.
        roll: u64,
    },
    /// Outcomes of another roll than the open one.
    #[error("the outcomes are of roll {found}, but the open roll is {open}")]
    NotTheOpenRoll {
        /// The open roll.
        open: u64,
        /// The roll named.
        found: u64,
    },
    /// Outcomes before every response is in.
    #[error("roll {roll} is not answered yet: it waits for the response of {awaiting}")]
    NotAnswered {
        /// The roll.
        roll: u64,
        /// Who has not responded.
        awaiting: Owed,
    },
    /// Outcomes played by another party than the requester.
    #[error("roll {roll} was requested by {requester}: only its requester plays its outcomes")]
    NotTheRequester {
        /// The roll.
        roll: u64,
        /// Its requester.
        requester: Fingerprint,
    },
    /// A chain check failed for a party.
    #[error("chain of {party}: {source}")]
    Chain {
        /// Whose chain.
        party: Fingerprint,
        /// Why.
        source: ChainError,
    },
}

/// A response produced by [`RollBook::answer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The signed response to send.
    pub response: SignedRollResponse,
    /// The answered roll, if this was the last response needed.
    pub completed: Option<CompletedRoll>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PartyState {
    key: PublicKey,
    chain: Option<ChainVerifier>,
}

/// The life cycle of every roll of one game (see [`RollStage`]), replayed
/// from the record: every deviation from the protocol is refused with its
/// own [`RollError`]. Every method either succeeds and updates the book, or
/// fails and leaves it unchanged.
///
/// It is the one type through which a roll moves, whoever moves it: the
/// verifier replaying a record, and every responder, which answers only
/// through [`RollBook::answer`] on a copy of the book the verifier
/// accepted.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RollBook {
    game: GameId,
    /// Shared, not copied, by the verifier's working copy at every event:
    /// a party's state changes only when its chain reveals a value.
    parties: std::sync::Arc<Vec<PartyState>>,
    next_index: u64,
    open: Option<OpenRoll>,
    /// Signatures already checked once (a stored record Yam verified
    /// before writing it) are not checked again; everything else is.
    trusted: bool,
}

impl RollBook {
    /// Whether the signatures of what is recorded next were checked before
    /// (see [`RecordVerifier::set_trusted`](super::record::RecordVerifier::set_trusted)).
    pub fn set_trusted(&mut self, trusted: bool) {
        self.trusted = trusted;
    }

    /// A book for `game` with the parties and anchors of its signed opening.
    pub fn new(game: GameId, parties: &[RollParty]) -> Result<Self, RollError> {
        let mut states: Vec<PartyState> = Vec::with_capacity(parties.len());
        for party in parties {
            if states.iter().any(|s| s.key == party.key) {
                return Err(RollError::DuplicateParty {
                    key: party.key.fingerprint(),
                });
            }
            let chain = match &party.anchor {
                None => None,
                Some(anchor) => {
                    let reused = states
                        .iter()
                        .filter_map(|s| s.chain.as_ref())
                        .any(|c| c.anchor().value == anchor.value);
                    if reused {
                        return Err(chain_error(&party.key, ChainError::AnchorReused));
                    }
                    Some(
                        ChainVerifier::new(anchor.clone(), &game, &party.key)
                            .map_err(|e| chain_error(&party.key, e))?,
                    )
                }
            };
            states.push(PartyState {
                key: party.key,
                chain,
            });
        }
        if states.iter().all(|s| s.chain.is_none()) {
            return Err(RollError::NoChains);
        }
        Ok(RollBook {
            game,
            parties: std::sync::Arc::new(states),
            next_index: 0,
            open: None,
            trusted: false,
        })
    }

    /// The game.
    pub fn game(&self) -> &GameId {
        &self.game
    }

    /// The index the next request must have; also the number of rolls
    /// played (requested, answered and played by their outcome turn).
    pub fn next_index(&self) -> u64 {
        self.next_index
    }

    /// The open roll (requested, not yet played), if any.
    pub fn open_roll(&self) -> Option<&OpenRoll> {
        self.open.as_ref()
    }

    /// The request waiting for responses, if any (not an answered one).
    pub fn open_request(&self) -> Option<&RollRequest> {
        self.open
            .as_ref()
            .filter(|o| o.stage() == RollStage::Requested)
            .map(|o| &o.request)
    }

    /// The parties whose responses the open roll still waits for.
    pub fn awaiting(&self) -> &[PublicKey] {
        self.open.as_ref().map_or(&[], |o| o.awaiting.as_slice())
    }

    /// The answered roll whose outcomes its requester owes, if any.
    pub fn answered(&self) -> Option<&OpenRoll> {
        self.open
            .as_ref()
            .filter(|o| o.stage() == RollStage::Answered)
    }

    /// The position `party`'s next reveal must have, if it has a chain.
    pub fn next_reveal_position(&self, party: &PublicKey) -> Option<u64> {
        self.party(party)
            .and_then(|p| p.chain.as_ref())
            .map(ChainVerifier::next_position)
    }

    /// Records a signed request made when the record was as `turn` says:
    /// the roll becomes open ([`RollStage::Requested`]).
    pub fn record_request(
        &mut self,
        signed: &SignedRollRequest,
        turn: &TurnContext,
    ) -> Result<(), RollError> {
        let request = &signed.request;
        self.check_game(&request.game)?;
        if !self.trusted {
            check_signature(
                &request.requester,
                &request.to_canonical_bytes(),
                &signed.signature,
            )?;
        }
        let requester = self
            .party(&request.requester)
            .ok_or_else(|| unknown(&request.requester))?;
        if let Some(open) = &self.open {
            return Err(RollError::RollStillOpen {
                index: open.index(),
                stage: open.stage(),
                owed_by: open.owed(),
            });
        }
        if request.requester != turn.player_to_move {
            return Err(RollError::RequestOutOfTurn {
                requester: request.requester.fingerprint(),
                to_move: turn.player_to_move.fingerprint(),
            });
        }
        match request.index.cmp(&self.next_index) {
            std::cmp::Ordering::Greater => {
                return Err(RollError::IndexSkipped {
                    expected: self.next_index,
                    found: request.index,
                });
            }
            std::cmp::Ordering::Less => {
                return Err(RollError::IndexReused {
                    expected: self.next_index,
                    found: request.index,
                });
            }
            std::cmp::Ordering::Equal => {}
        }
        if request.record_hash != turn.record_hash {
            return Err(RollError::StaleRecordHash {
                expected: turn.record_hash,
                found: request.record_hash,
            });
        }
        match (&requester.chain, &request.reveal) {
            (Some(_), None) => {
                return Err(RollError::RevealMissing {
                    party: request.requester.fingerprint(),
                });
            }
            (None, Some(_)) => {
                return Err(RollError::RevealUnexpected {
                    party: request.requester.fingerprint(),
                });
            }
            _ => {}
        }
        let awaiting: Vec<PublicKey> = self
            .parties
            .iter()
            .filter(|p| p.chain.is_some() && p.key != request.requester)
            .map(|p| p.key)
            .collect();
        if awaiting.is_empty() {
            return Err(RollError::NoResponder {
                requester: request.requester.fingerprint(),
            });
        }
        let mut reveals = Vec::new();
        if let Some(reveal) = &request.reveal {
            // Last fallible step, so a failure leaves the book unchanged.
            self.accept_reveal(&request.requester, reveal)?;
            reveals.push((request.requester, reveal.value));
        }
        self.open = Some(OpenRoll {
            request_hash: request.hash(),
            request: request.clone(),
            reveals,
            awaiting,
        });
        Ok(())
    }

    /// Records a signed response; returns the answered roll when it was the
    /// last response needed ([`RollStage::Answered`]). The roll stays open
    /// until [`RollBook::record_outcomes`].
    pub fn record_response(
        &mut self,
        signed: &SignedRollResponse,
    ) -> Result<Option<CompletedRoll>, RollError> {
        let response = &signed.response;
        self.check_game(&response.game)?;
        if !self.trusted {
            check_signature(
                &response.responder,
                &response.to_canonical_bytes(),
                &signed.signature,
            )?;
        }
        let open = match &self.open {
            Some(open) if open.index() == response.index => open,
            Some(open) if response.index > open.index() => {
                return Err(RollError::ResponseAhead {
                    index: response.index,
                    next: open.index(),
                });
            }
            None if response.index >= self.next_index => {
                return Err(RollError::ResponseAhead {
                    index: response.index,
                    next: self.next_index,
                });
            }
            _ => {
                return Err(RollError::ResponseToClosedRoll {
                    index: response.index,
                });
            }
        };
        let responder = self
            .party(&response.responder)
            .ok_or_else(|| unknown(&response.responder))?;
        if responder.chain.is_none() || response.responder == open.request.requester {
            return Err(RollError::WrongResponder {
                responder: response.responder.fingerprint(),
            });
        }
        if open.stage() == RollStage::Answered {
            return Err(RollError::AlreadyAnswered {
                index: response.index,
            });
        }
        if !open.awaiting.contains(&response.responder) {
            return Err(RollError::DuplicateResponse {
                responder: response.responder.fingerprint(),
                index: response.index,
            });
        }
        if response.request_hash != open.request_hash {
            return Err(RollError::DeclarationMismatch {
                index: response.index,
                bound: response.request_hash,
                presented: open.request_hash,
            });
        }
        if response.record_hash != open.request.record_hash {
            return Err(RollError::StaleRecordHash {
                expected: open.request.record_hash,
                found: response.record_hash,
            });
        }
        self.accept_reveal(&response.responder, &response.reveal)?;
        let Some(open) = self.open.as_mut() else {
            return Ok(None);
        };
        open.awaiting.retain(|k| *k != response.responder);
        open.reveals
            .push((response.responder, response.reveal.value));
        Ok(open.completed())
    }

    /// Records that `author` played the outcomes of roll `roll` in its turn:
    /// the roll must be the open one, answered, and `author` its requester.
    /// The roll is closed, and its outcome inputs returned for the replay
    /// to check the values against.
    pub fn record_outcomes(
        &mut self,
        roll: u64,
        author: &PublicKey,
    ) -> Result<CompletedRoll, RollError> {
        let Some(open) = &self.open else {
            return Err(if roll < self.next_index {
                RollError::OutcomesTwice { roll }
            } else {
                RollError::NoSuchRoll { roll }
            });
        };
        if open.index() != roll {
            return Err(if roll < open.index() {
                RollError::OutcomesTwice { roll }
            } else {
                RollError::NotTheOpenRoll {
                    open: open.index(),
                    found: roll,
                }
            });
        }
        let Some(done) = open.completed() else {
            return Err(RollError::NotAnswered {
                roll,
                awaiting: open.owed(),
            });
        };
        if open.requester() != *author {
            return Err(RollError::NotTheRequester {
                roll,
                requester: open.requester().fingerprint(),
            });
        }
        self.open = None;
        self.next_index = self.next_index.saturating_add(1);
        Ok(done)
    }

    /// The responder's side, and the only way a client answers: `request`
    /// must be the open roll's request, still waiting for this responder
    /// (the verifier, with the game's rules, accepted it at the current
    /// record: the player to move asked, for the next index, and declared
    /// orders legal in the position). Reveals `chain`'s next value, signs
    /// the response with `key` and records it. Anything else is refused, so
    /// a responder cannot be made to answer a second request for an open
    /// roll, or to harvest future values.
    pub fn answer(
        &mut self,
        request: &SignedRollRequest,
        key: &SigningKey,
        chain: &HashChain,
    ) -> Result<Answer, RollError> {
        let me = key.public_key();
        let Some(open) = &self.open else {
            return Err(if request.request.index < self.next_index {
                RollError::ResponseToClosedRoll {
                    index: request.request.index,
                }
            } else {
                RollError::ResponseAhead {
                    index: request.request.index,
                    next: self.next_index,
                }
            });
        };
        if open.request != request.request {
            // Another request than the one on record: a second request for
            // an open roll, or one the verifier never accepted.
            return Err(RollError::RollStillOpen {
                index: open.index(),
                stage: open.stage(),
                owed_by: open.owed(),
            });
        }
        let position = self
            .next_reveal_position(&me)
            .ok_or(RollError::WrongResponder {
                responder: me.fingerprint(),
            })?;
        let position = u32::try_from(position).map_err(|_| {
            chain_error(
                &me,
                ChainError::Exhausted {
                    length: chain.anchor().length,
                },
            )
        })?;
        let reveal = chain.reveal(position).map_err(|e| chain_error(&me, e))?;
        let response = RollResponse {
            game: self.game.clone(),
            index: request.request.index,
            request_hash: request.request.hash(),
            record_hash: request.request.record_hash,
            responder: me,
            reveal,
        }
        .sign(key);
        let mut book = self.clone();
        let completed = book.record_response(&response)?;
        *self = book;
        Ok(Answer {
            response,
            completed,
        })
    }

    fn check_game(&self, game: &GameId) -> Result<(), RollError> {
        if *game == self.game {
            Ok(())
        } else {
            Err(RollError::GameMismatch {
                found: game.clone(),
            })
        }
    }

    fn party(&self, key: &PublicKey) -> Option<&PartyState> {
        self.parties.iter().find(|p| p.key == *key)
    }

    fn chain_mut(&mut self, key: &PublicKey) -> Result<&mut ChainVerifier, RollError> {
        let party = std::sync::Arc::make_mut(&mut self.parties)
            .iter_mut()
            .find(|p| p.key == *key)
            .ok_or_else(|| unknown(key))?;
        party.chain.as_mut().ok_or(RollError::WrongResponder {
            responder: key.fingerprint(),
        })
    }

    fn accept_reveal(&mut self, key: &PublicKey, reveal: &Reveal) -> Result<(), RollError> {
        let chain = self.chain_mut(key)?;
        chain.accept(reveal).map_err(|e| chain_error(key, e))
    }
}

fn check_signature(
    key: &PublicKey,
    message: &[u8],
    signature: &Signature,
) -> Result<(), RollError> {
    key.verify(message, signature)
        .map_err(|e| RollError::BadSignature { signer: e.key })
}

fn unknown(key: &PublicKey) -> RollError {
    RollError::UnknownParty {
        key: key.fingerprint(),
    }
}

fn chain_error(key: &PublicKey, source: ChainError) -> RollError {
    RollError::Chain {
        party: key.fingerprint(),
        source,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fair_play::chain::ChainSecret;
    use crate::fair_play::sign::tests::key;

    /// Two players with chains, plus helpers to play rolls honestly.
    pub(crate) struct Table {
        pub(crate) game: GameId,
        pub(crate) alice: SigningKey,
        pub(crate) bob: SigningKey,
        pub(crate) alice_chain: HashChain,
        pub(crate) bob_chain: HashChain,
        pub(crate) book: RollBook,
    }

    impl Table {
        pub(crate) fn new() -> Self {
            let game = GameId::new("siege-7").unwrap();
            let (alice, bob) = (key(1), key(2));
            let alice_chain = HashChain::new(
                &ChainSecret::from_bytes([0xa1; 32]),
                game.clone(),
                alice.public_key(),
                8,
            )
            .unwrap();
            let bob_chain = HashChain::new(
                &ChainSecret::from_bytes([0xb0; 32]),
                game.clone(),
                bob.public_key(),
                8,
            )
            .unwrap();
            let book = RollBook::new(
                game.clone(),
                &[
                    RollParty {
                        key: alice.public_key(),
                        anchor: Some(alice_chain.anchor().clone()),
                    },
                    RollParty {
                        key: bob.public_key(),
                        anchor: Some(bob_chain.anchor().clone()),
                    },
                ],
            )
            .unwrap();
            Table {
                game,
                alice,
                bob,
                alice_chain,
                bob_chain,
                book,
            }
        }

        pub(crate) fn turn(&self, record: u8) -> TurnContext {
            TurnContext {
                record_hash: Hash32::from_bytes([record; 32]),
                player_to_move: self.alice.public_key(),
            }
        }

        pub(crate) fn declaration(orders: &[&str]) -> Declaration {
            Declaration {
                orders: List::new(orders.iter().map(|o| Text::new(*o).unwrap()).collect()).unwrap(),
                seed: Text::default(),
            }
        }

        /// Alice's request for `index`, revealing her chain at `position`.
        pub(crate) fn request(
            &self,
            index: u64,
            position: u32,
            record: u8,
            orders: &[&str],
        ) -> SignedRollRequest {
            RollRequest {
                game: self.game.clone(),
                index,
                record_hash: Hash32::from_bytes([record; 32]),
                requester: self.alice.public_key(),
                declaration: Self::declaration(orders),
                reveal: Some(self.alice_chain.reveal(position).unwrap()),
            }
            .sign(&self.alice)
        }

        /// Bob's response to `request`, revealing his chain at `position`.
        pub(crate) fn response(&self, request: &RollRequest, position: u32) -> SignedRollResponse {
            RollResponse {
                game: self.game.clone(),
                index: request.index,
                request_hash: request.hash(),
                record_hash: request.record_hash,
                responder: self.bob.public_key(),
                reveal: self.bob_chain.reveal(position).unwrap(),
            }
            .sign(&self.bob)
        }

        /// Requests and answers roll `index` honestly at record `record`;
        /// the roll is left answered, not played.
        pub(crate) fn answer(&mut self, index: u64, record: u8) -> CompletedRoll {
            let position = index as u32 + 1;
            let request = self.request(index, position, record, &["A attacks B"]);
            self.book
                .record_request(&request, &self.turn(record))
                .unwrap();
            let response = self.response(&request.request, position);
            self.book.record_response(&response).unwrap().unwrap()
        }

        /// Plays roll `index` honestly at record `record`: request,
        /// response, and Alice's turn with its outcomes.
        pub(crate) fn play(&mut self, index: u64, record: u8) -> CompletedRoll {
            let answered = self.answer(index, record);
            let played = self
                .book
                .record_outcomes(index, &self.alice.public_key())
                .unwrap();
            assert_eq!(answered, played);
            played
        }
    }

    fn chain_reason(err: RollError) -> ChainError {
        match err {
            RollError::Chain { source, .. } => source,
            other => panic!("expected a chain error, got {other:?}"),
        }
    }

    #[test]
    fn honest_rolls_complete_in_sequence() {
        let mut t = Table::new();
        for k in 0..3 {
            let done = t.play(k, k as u8);
            assert_eq!(done.index, k);
            assert_eq!(done.reveals.len(), 2);
        }
        assert_eq!(t.book.next_index(), 3);
    }

    #[test]
    fn wrong_index_is_refused_as_gap_or_reuse() {
        let mut t = Table::new();
        t.play(0, 0);
        let skip = t.request(2, 2, 1, &["x"]);
        assert_eq!(
            t.book.record_request(&skip, &t.turn(1)),
            Err(RollError::IndexSkipped {
                expected: 1,
                found: 2
            })
        );
        let again = t.request(0, 2, 1, &["x"]);
        assert_eq!(
            t.book.record_request(&again, &t.turn(1)),
            Err(RollError::IndexReused {
                expected: 1,
                found: 0
            })
        );
    }

    #[test]
    fn reused_and_skipped_chain_values_are_refused() {
        let mut t = Table::new();
        t.play(0, 0);
        let reused = t.request(1, 1, 1, &["x"]);
        assert_eq!(
            chain_reason(t.book.record_request(&reused, &t.turn(1)).unwrap_err()),
            ChainError::Reused {
                expected: 2,
                found: 1
            }
        );
        let gap = t.request(1, 4, 1, &["x"]);
        assert_eq!(
            chain_reason(t.book.record_request(&gap, &t.turn(1)).unwrap_err()),
            ChainError::Gap {
                expected: 2,
                found: 4
            }
        );
        // The responder's chain is held to the same rule.
        let honest = t.request(1, 2, 1, &["x"]);
        t.book.record_request(&honest, &t.turn(1)).unwrap();
        let bob_gap = t.response(&honest.request, 3);
        assert_eq!(
            chain_reason(t.book.record_response(&bob_gap).unwrap_err()),
            ChainError::Gap {
                expected: 2,
                found: 3
            }
        );
    }

    #[test]
    fn a_request_out_of_turn_is_refused() {
        let mut t = Table::new();
        let mut turn = t.turn(0);
        turn.player_to_move = t.bob.public_key();
        let request = t.request(0, 1, 0, &["x"]);
        assert_eq!(
            t.book.record_request(&request, &turn),
            Err(RollError::RequestOutOfTurn {
                requester: t.alice.public_key().fingerprint(),
                to_move: t.bob.public_key().fingerprint(),
            })
        );
    }

    #[test]
    fn a_response_by_the_wrong_player_is_refused() {
        let mut t = Table::new();
        let request = t.request(0, 1, 0, &["x"]);
        t.book.record_request(&request, &t.turn(0)).unwrap();
        // Alice answering her own request.
        let mut own = t.response(&request.request, 1).response;
        own.responder = t.alice.public_key();
        own.reveal = t.alice_chain.reveal(2).unwrap();
        assert_eq!(
            t.book.record_response(&own.sign(&t.alice)),
            Err(RollError::WrongResponder {
                responder: t.alice.public_key().fingerprint()
            })
        );
        // A stranger.
        let stranger = key(9);
        let mut other = t.response(&request.request, 1).response;
        other.responder = stranger.public_key();
        assert_eq!(
            t.book.record_response(&other.sign(&stranger)),
            Err(RollError::UnknownParty {
                key: stranger.public_key().fingerprint()
            })
        );
    }

    #[test]
    fn harvesting_ahead_of_the_next_index_is_refused() {
        let mut t = Table::new();
        // No request yet: a response for roll 0 would give away Bob's value.
        let phantom = t.request(0, 1, 0, &["x"]);
        let early = t.response(&phantom.request, 1);
        assert_eq!(
            t.book.record_response(&early),
            Err(RollError::ResponseAhead { index: 0, next: 0 })
        );
        t.book.record_request(&phantom, &t.turn(0)).unwrap();
        let ahead = t.request(1, 2, 0, &["x"]);
        assert_eq!(
            t.book.record_response(&t.response(&ahead.request, 1)),
            Err(RollError::ResponseAhead { index: 1, next: 0 })
        );
        // And the responder's own guard refuses to produce one: it answers
        // only the request on record.
        let mut bob_book = Table::new().book;
        assert_eq!(
            bob_book.answer(&ahead, &t.bob, &t.bob_chain).unwrap_err(),
            RollError::ResponseAhead { index: 1, next: 0 }
        );
        assert!(matches!(
            t.book.clone().answer(&ahead, &t.bob, &t.bob_chain),
            Err(RollError::RollStillOpen { index: 0, .. })
        ));
    }

    #[test]
    fn the_responder_answers_once_and_only_the_next_value() {
        let t = Table::new();
        let mut bob_book = t.book.clone();
        let request = t.request(0, 1, 0, &["x"]);
        // Only a request the verifier accepted is answered.
        assert_eq!(
            bob_book.answer(&request, &t.bob, &t.bob_chain).unwrap_err(),
            RollError::ResponseAhead { index: 0, next: 0 }
        );
        bob_book.record_request(&request, &t.turn(0)).unwrap();
        let answer = bob_book.answer(&request, &t.bob, &t.bob_chain).unwrap();
        assert_eq!(
            answer.response.response.reveal,
            t.bob_chain.reveal(1).unwrap()
        );
        assert!(answer.completed.is_some());
        assert_eq!(
            bob_book.answer(&request, &t.bob, &t.bob_chain).unwrap_err(),
            RollError::AlreadyAnswered { index: 0 }
        );
        // The verifier's copy accepts what the responder produced.
        let mut verifier = t.book.clone();
        verifier.record_request(&request, &t.turn(0)).unwrap();
        assert!(
            verifier
                .record_response(&answer.response)
                .unwrap()
                .is_some()
        );
        // A second response to the same open roll is a duplicate.
        let mut three = RollBook::new(
            t.game.clone(),
            &[
                RollParty {
                    key: t.alice.public_key(),
                    anchor: Some(t.alice_chain.anchor().clone()),
                },
                RollParty {
                    key: t.bob.public_key(),
                    anchor: Some(t.bob_chain.anchor().clone()),
                },
                RollParty {
                    key: key(3).public_key(),
                    anchor: Some(
                        HashChain::new(
                            &ChainSecret::from_bytes([3; 32]),
                            t.game.clone(),
                            key(3).public_key(),
                            4,
                        )
                        .unwrap()
                        .anchor()
                        .clone(),
                    ),
                },
            ],
        )
        .unwrap();
        three.record_request(&request, &t.turn(0)).unwrap();
        assert_eq!(
            three.record_response(&t.response(&request.request, 1)),
            Ok(None)
        );
        assert_eq!(
            three.record_response(&t.response(&request.request, 2)),
            Err(RollError::DuplicateResponse {
                responder: t.bob.public_key().fingerprint(),
                index: 0
            })
        );
    }

    #[test]
    fn a_different_declaration_under_an_existing_response_is_refused() {
        let mut t = Table::new();
        let honest = t.request(0, 1, 0, &["A attacks B"]);
        let response = t.response(&honest.request, 1);
        // Alice holds Bob's response and presents another declaration at
        // index 0 under it.
        let swapped = t.request(0, 1, 0, &["A attacks C"]);
        t.book.record_request(&swapped, &t.turn(0)).unwrap();
        assert_eq!(
            t.book.record_response(&response),
            Err(RollError::DeclarationMismatch {
                index: 0,
                bound: honest.request.hash(),
                presented: swapped.request.hash(),
            })
        );
    }

    #[test]
    fn bad_signatures_are_refused() {
        let mut t = Table::new();
        let mut request = t.request(0, 1, 0, &["x"]);
        let mut sig = request.signature.to_bytes();
        sig[5] ^= 1;
        request.signature = Signature::from_bytes(sig);
        assert_eq!(
            t.book.record_request(&request, &t.turn(0)),
            Err(RollError::BadSignature {
                signer: t.alice.public_key().fingerprint()
            })
        );
        let request = t.request(0, 1, 0, &["x"]);
        t.book.record_request(&request, &t.turn(0)).unwrap();
        // Bob's response signed by Alice.
        let forged = t.response(&request.request, 1).response.sign(&t.alice);
        assert_eq!(
            t.book.record_response(&forged),
            Err(RollError::BadSignature {
                signer: t.bob.public_key().fingerprint()
            })
        );
    }

    #[test]
    fn a_roll_stays_open_until_its_requester_plays_it() {
        let mut t = Table::new();
        let answered = t.answer(0, 0);
        let open = t.book.open_roll().unwrap();
        assert_eq!(open.stage(), RollStage::Answered);
        assert_eq!(open.owed_by(), vec![t.alice.public_key()]);
        assert_eq!(t.book.answered().map(OpenRoll::index), Some(0));
        assert_eq!(t.book.open_request(), None);
        // Best of two: Alice holds the answered roll 0 and asks again.
        let again = t.request(1, 2, 1, &["A attacks B"]);
        assert_eq!(
            t.book.record_request(&again, &t.turn(1)),
            Err(RollError::RollStillOpen {
                index: 0,
                stage: RollStage::Answered,
                owed_by: Owed(vec![t.alice.public_key().fingerprint()]),
            })
        );
        // Nobody but its requester plays it, and only it.
        assert_eq!(
            t.book.record_outcomes(0, &t.bob.public_key()),
            Err(RollError::NotTheRequester {
                roll: 0,
                requester: t.alice.public_key().fingerprint(),
            })
        );
        assert_eq!(
            t.book.record_outcomes(1, &t.alice.public_key()),
            Err(RollError::NotTheOpenRoll { open: 0, found: 1 })
        );
        assert_eq!(
            t.book.record_outcomes(0, &t.alice.public_key()),
            Ok(answered)
        );
        assert_eq!(
            t.book.record_outcomes(0, &t.alice.public_key()),
            Err(RollError::OutcomesTwice { roll: 0 })
        );
        // Played: the next roll may be requested.
        assert!(t.book.open_roll().is_none());
        t.book.record_request(&again, &t.turn(1)).unwrap();
        // Outcomes before the responses are in.
        assert_eq!(
            t.book.record_outcomes(1, &t.alice.public_key()),
            Err(RollError::NotAnswered {
                roll: 1,
                awaiting: Owed(vec![t.bob.public_key().fingerprint()]),
            })
        );
        assert_eq!(
            t.book.record_outcomes(7, &t.alice.public_key()),
            Err(RollError::NotTheOpenRoll { open: 1, found: 7 })
        );
    }

    #[test]
    fn chains_from_another_game_or_player_are_refused() {
        let t = Table::new();
        let other_game = GameId::new("siege-8").unwrap();
        let foreign = HashChain::new(
            &ChainSecret::from_bytes([0xa1; 32]),
            other_game.clone(),
            t.alice.public_key(),
            8,
        )
        .unwrap();
        let parties = |alice_anchor: ChainAnchor| {
            [
                RollParty {
                    key: t.alice.public_key(),
                    anchor: Some(alice_anchor),
                },
                RollParty {
                    key: t.bob.public_key(),
                    anchor: Some(t.bob_chain.anchor().clone()),
                },
            ]
        };
        assert!(matches!(
            chain_reason(
                RollBook::new(t.game.clone(), &parties(foreign.anchor().clone())).unwrap_err()
            ),
            ChainError::BoundElsewhere { .. }
        ));
        // Bob's anchor presented as Alice's.
        assert!(matches!(
            RollBook::new(t.game.clone(), &parties(t.bob_chain.anchor().clone())).unwrap_err(),
            RollError::Chain {
                source: ChainError::BoundElsewhere { .. },
                ..
            }
        ));
        // A re-anchor to another game's chain.
        let mut book = t.book.clone();
        // Reveals from another game's chain do not extend this one.
        let mut request = t.request(0, 1, 0, &["x"]).request;
        request.reveal = Some(foreign.reveal(1).unwrap());
        assert_eq!(
            chain_reason(
                book.record_request(&request.sign(&t.alice), &t.turn(0))
                    .unwrap_err()
            ),
            ChainError::Mismatch { position: 1 }
        );
        // A request for another game.
        let mut request = t.request(0, 1, 0, &["x"]).request;
        request.game = other_game.clone();
        assert_eq!(
            book.record_request(&request.sign(&t.alice), &t.turn(0)),
            Err(RollError::GameMismatch { found: other_game })
        );
    }

    #[test]
    fn a_stale_record_hash_and_an_open_roll_are_refused() {
        let mut t = Table::new();
        let request = t.request(0, 1, 0, &["x"]);
        assert!(matches!(
            t.book.record_request(&request, &t.turn(1)),
            Err(RollError::StaleRecordHash { .. })
        ));
        t.book.record_request(&request, &t.turn(0)).unwrap();
        let next = t.request(1, 2, 0, &["x"]);
        assert_eq!(
            t.book.record_request(&next, &t.turn(0)),
            Err(RollError::RollStillOpen {
                index: 0,
                stage: RollStage::Requested,
                owed_by: Owed(vec![t.bob.public_key().fingerprint()]),
            })
        );
    }

    #[test]
    fn a_player_without_a_chain_is_answered_by_the_robot_alone() {
        // Robot mode by plain mail: Alice has no program (no chain, a free
        // seed in her declaration); Bob stands for the robot.
        let t = Table::new();
        let plain = RollParty {
            key: t.alice.public_key(),
            anchor: None,
        };
        let robot = RollParty {
            key: t.bob.public_key(),
            anchor: Some(t.bob_chain.anchor().clone()),
        };
        let mut book = RollBook::new(t.game.clone(), &[plain.clone(), robot.clone()]).unwrap();
        let mut request = t.request(0, 1, 0, &["attack"]).request;
        request.declaration.seed = Text::new("my lucky words").unwrap();
        request.reveal = None;
        let request = request.sign(&t.alice);
        book.record_request(&request, &t.turn(0)).unwrap();
        let done = book
            .record_response(&t.response(&request.request, 1))
            .unwrap()
            .unwrap();
        assert_eq!(done.reveals.len(), 1);
        book.record_outcomes(0, &t.alice.public_key()).unwrap();
        // With a reveal she has no chain for, or the robot asking itself:
        let with_reveal = t.request(1, 1, 0, &["x"]).request.sign(&t.alice);
        assert_eq!(
            book.record_request(&with_reveal, &t.turn(0)),
            Err(RollError::RevealUnexpected {
                party: t.alice.public_key().fingerprint()
            })
        );
        let own = RollRequest {
            game: t.game.clone(),
            index: 1,
            record_hash: Hash32::from_bytes([0; 32]),
            requester: t.bob.public_key(),
            declaration: Declaration::default(),
            reveal: Some(t.bob_chain.reveal(2).unwrap()),
        }
        .sign(&t.bob);
        let mut turn = t.turn(0);
        turn.player_to_move = t.bob.public_key();
        assert_eq!(
            book.record_request(&own, &turn),
            Err(RollError::NoResponder {
                requester: t.bob.public_key().fingerprint()
            })
        );
        // A missing reveal from a player who has a chain.
        let mut missing = t.request(0, 1, 0, &["x"]).request;
        missing.reveal = None;
        assert_eq!(
            t.book
                .clone()
                .record_request(&missing.sign(&t.alice), &t.turn(0)),
            Err(RollError::RevealMissing {
                party: t.alice.public_key().fingerprint()
            })
        );
    }

    #[test]
    fn a_book_needs_a_chain_and_distinct_parties() {
        let t = Table::new();
        let alice = RollParty {
            key: t.alice.public_key(),
            anchor: Some(t.alice_chain.anchor().clone()),
        };
        let plain = RollParty {
            key: t.bob.public_key(),
            anchor: None,
        };
        let plain_alice = RollParty {
            key: t.alice.public_key(),
            anchor: None,
        };
        assert_eq!(
            RollBook::new(t.game.clone(), &[plain_alice, plain]).unwrap_err(),
            RollError::NoChains
        );
        assert_eq!(
            RollBook::new(t.game.clone(), &[alice.clone(), alice]).unwrap_err(),
            RollError::DuplicateParty {
                key: t.alice.public_key().fingerprint()
            }
        );
    }

    #[test]
    fn failures_leave_the_book_unchanged() {
        let mut t = Table::new();
        let request = t.request(0, 1, 0, &["x"]);
        t.book.record_request(&request, &t.turn(0)).unwrap();
        let bad = t.response(&request.request, 2);
        assert!(t.book.record_response(&bad).is_err());
        assert!(
            t.book
                .record_response(&t.response(&request.request, 1))
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn requests_and_responses_round_trip() {
        let t = Table::new();
        let request = t.request(0, 1, 0, &["A attacks B", "C moves"]);
        let response = t.response(&request.request, 1);
        assert_eq!(
            SignedRollRequest::from_canonical_bytes(&request.to_canonical_bytes()),
            Ok(request.clone())
        );
        assert_eq!(
            SignedRollResponse::from_canonical_bytes(&response.to_canonical_bytes()),
            Ok(response)
        );
        let bytes = request.to_canonical_bytes();
        for cut in 0..bytes.len() {
            assert!(SignedRollRequest::from_canonical_bytes(&bytes[..cut]).is_err());
        }
    }
}

super::encoding::serde_as_canonical!(
    Declaration,
    RollRequest,
    SignedRollRequest,
    RollResponse,
    SignedRollResponse
);
