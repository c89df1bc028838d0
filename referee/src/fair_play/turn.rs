//! Signed record events: the opening, turns, resignation, offers, answers and
//! forfeit claims, hash-chained to their parents.
//!
//! What is hashed and signed is the canonical encoding of an [`Event`],
//! independent of how the record is printed: comments, NAGs, variations and
//! layout are not in it, so annotating or reprinting a verified game leaves
//! every signature valid.
//!
//! ```text
//! event = tag "yam/v1/event" || game id || seq u32 || parent hash (32)
//!         || author key (32) || kind u8 || body
//! ```
//!
//! `seq` is the event's position in the signed record (the challenge is 0;
//! each event is its parent's `seq + 1`); `parent` is the hash of the
//! previous event (all zero bytes for the challenge). An event's hash is
//! SHA-256 of exactly these bytes, and its signature is over exactly these
//! bytes; the signature is not part of the hash, so a hash names content.
//!
//! Two different events by the same author on the same parent prove
//! equivocation ([`EquivocationProof`]); two events by different authors on
//! the same parent are a crossing, put in a deterministic order
//! ([`Siblings`]).

use std::fmt;

use thiserror::Error;

use super::chain::ChainAnchor;
use super::chance::ChanceRecord;
use super::commit::{Commitment, SetupOpening};
use super::encoding::{
    Blob, Canonical, DecodeError, Decoder, Encoder, List, TAG_EVENT, Text, ValueError,
};
use super::game_id::GameId;
use super::hash::Hash32;
use super::roll::{SignedRollRequest, SignedRollResponse};
use super::sign::{PublicKey, Signature, SignatureError, SigningKey};

/// A move token in the game's canonical spelling (what the game's grammar
/// writes): 1 to 256 bytes of UTF-8, no control characters (line breaks,
/// tabs), no whitespace at either end. Inner spaces are allowed because a
/// quoted name (`"Meat, Milk & Blood"`) is part of its token.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MoveToken(Text);

impl MoveToken {
    /// The longest token accepted, in bytes.
    pub const MAX_LEN: usize = 256;

    /// Checks and wraps the canonical text of a move.
    pub fn new(token: impl Into<String>) -> Result<Self, ValueError> {
        let token = token.into();
        let invalid = |reason: String| ValueError::Invalid {
            what: "move token",
            reason,
        };
        if token.is_empty() || token.len() > Self::MAX_LEN {
            return Err(invalid(format!("must be 1 to {} bytes", Self::MAX_LEN)));
        }
        if let Some(c) = token.chars().find(|c| c.is_control()) {
            return Err(invalid(format!("contains the control character {c:?}")));
        }
        if token.trim() != token {
            return Err(invalid("starts or ends with whitespace".to_owned()));
        }
        Ok(MoveToken(Text::new(token)?))
    }

    /// The token.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Display for MoveToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Canonical for MoveToken {
    fn encode(&self, enc: &mut Encoder) {
        enc.text(&self.0);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let at = dec.position();
        let text = dec.text("move token")?;
        MoveToken::new(text.as_str()).map_err(|e| dec.invalid("move token", at, e))
    }
}

/// How chance is provided, and so what a report can promise.
///
/// Kinds: 0 peer, 1 robot, 2 director, 3 practice (followed by the seed).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Both players' chains, no trusted party.
    Peer,
    /// A referee robot is a party with a chain; players without the program
    /// add free-text seeds to their declarations.
    Robot,
    /// A tournament director's chain for solo play.
    Director,
    /// An open seed: reproducible, never verified.
    Practice {
        /// The open seed.
        seed: Blob,
    },
}

impl Canonical for Mode {
    fn encode(&self, enc: &mut Encoder) {
        match self {
            Mode::Peer => enc.u8(0),
            Mode::Robot => enc.u8(1),
            Mode::Director => enc.u8(2),
            Mode::Practice { seed } => enc.u8(3).blob(seed),
        };
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(match dec.kind("mode", 4)? {
            0 => Mode::Peer,
            1 => Mode::Robot,
            2 => Mode::Director,
            _ => Mode::Practice {
                seed: dec.blob("practice seed")?,
            },
        })
    }
}

/// A participant as the opening presents it.
///
/// Canonical bytes: `key (32) || optional anchor || roles (list of text)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Party {
    /// Its signing key.
    pub key: PublicKey,
    /// Its chain anchor, if it takes part in rolls.
    pub anchor: Option<ChainAnchor>,
    /// Its roles in the game's words ("white", "attacker", "first"); empty
    /// when roles are drawn.
    pub roles: List<Text>,
}

impl Canonical for Party {
    fn encode(&self, enc: &mut Encoder) {
        enc.put(&self.key)
            .option(self.anchor.as_ref())
            .list(&self.roles);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Party {
            key: dec.get()?,
            anchor: dec.option("anchor")?,
            roles: dec.list("roles")?,
        })
    }
}

/// How roles are settled. Kinds: 0 chosen by the challenger (in the parties'
/// role lists), 1 drawn by one commit-reveal exchange (followed by the
/// challenger's commitment; see `commit::challenger_takes_first_roles`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RoleChoice {
    /// The challenger chose.
    Chosen,
    /// Drawn: the challenger's commitment to its salt.
    Drawn {
        /// The commitment.
        commitment: Commitment,
    },
}

impl Canonical for RoleChoice {
    fn encode(&self, enc: &mut Encoder) {
        match self {
            RoleChoice::Chosen => enc.u8(0),
            RoleChoice::Drawn { commitment } => enc.u8(1).put(commitment),
        };
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(match dec.kind("role choice", 2)? {
            0 => RoleChoice::Chosen,
            _ => RoleChoice::Drawn {
                commitment: dec.get()?,
            },
        })
    }
}

/// The signed challenge that opens a game.
///
/// Canonical bytes: `game name (text) || ruleset hash (32) || mode ||
/// role choice || challenger (party) || invited keys (list of 32-byte keys)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Challenge {
    /// The game's name as in the `Game` tag ("Castle Siege").
    pub game_name: Text,
    /// SHA-256 of the ruleset's content: pins what is legal.
    pub ruleset_hash: Hash32,
    /// How chance is provided.
    pub mode: Mode,
    /// How roles are settled.
    pub roles: RoleChoice,
    /// The challenger.
    pub challenger: Party,
    /// Everyone who must accept, in the order their acceptances follow.
    pub invited: List<PublicKey>,
}

impl Canonical for Challenge {
    fn encode(&self, enc: &mut Encoder) {
        enc.text(&self.game_name)
            .put(&self.ruleset_hash)
            .put(&self.mode)
            .put(&self.roles)
            .put(&self.challenger)
            .list(&self.invited);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Challenge {
            game_name: dec.text("game name")?,
            ruleset_hash: dec.get()?,
            mode: dec.get()?,
            roles: dec.get()?,
            challenger: dec.get()?,
            invited: dec.list("invited keys")?,
        })
    }
}

/// An invited party's signed acceptance.
///
/// Canonical bytes: `party || optional toss value (32)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Acceptance {
    /// The accepting party (its key must be the event's author).
    pub party: Party,
    /// Its 32 bytes for the role toss, when roles are drawn.
    pub toss: Option<[u8; 32]>,
}

impl Canonical for Acceptance {
    fn encode(&self, enc: &mut Encoder) {
        enc.put(&self.party).option(self.toss.as_ref());
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Acceptance {
            party: dec.get()?,
            toss: dec.option("toss value")?,
        })
    }
}

/// The machine-checkable evidence a turn carries.
///
/// Kinds: 0 roll request, 1 roll response, 2 outcomes (`roll u64 || list of
/// chance records`), 3 skipped order (`roll u64 || order u32`), 4 setup
/// commitment, 5 setup reveal, 8 role reveal (the challenger's opening of
/// its role-toss commitment). Kinds 6 and 7 (a new chain anchor and its
/// acknowledgement) are retired: protocol v1 has no re-anchoring
/// (`docs/fair-play.md`, 3.2), and a reader refuses them by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Evidence {
    /// The author's signed request for the next roll.
    RollRequest(SignedRollRequest),
    /// The author's signed response to the open roll.
    RollResponse(SignedRollResponse),
    /// The values a completed roll gave, in the order the rules used them.
    Outcomes {
        /// The roll index (the practice roll count in practice games).
        roll: u64,
        /// The values.
        results: List<ChanceRecord>,
    },
    /// A declared order that was not carried out, so drew nothing.
    Skipped {
        /// The roll index.
        roll: u64,
        /// The order's position in the declaration, from 0.
        order: u32,
    },
    /// The author's commitment to its secret setup.
    SetupCommitment(Commitment),
    /// The author's opening of its setup commitment.
    SetupReveal(SetupOpening),
    /// The challenger opens its role-toss commitment.
    RoleReveal(SetupOpening),
}

impl Canonical for Evidence {
    fn encode(&self, enc: &mut Encoder) {
        match self {
            Evidence::RollRequest(r) => enc.u8(0).put(r),
            Evidence::RollResponse(r) => enc.u8(1).put(r),
            Evidence::Outcomes { roll, results } => enc.u8(2).u64(*roll).list(results),
            Evidence::Skipped { roll, order } => enc.u8(3).u64(*roll).u32(*order),
            Evidence::SetupCommitment(c) => enc.u8(4).put(c),
            Evidence::SetupReveal(o) => enc.u8(5).put(o),
            Evidence::RoleReveal(o) => enc.u8(8).put(o),
        };
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let at = dec.position();
        Ok(match dec.kind("evidence kind", 9)? {
            0 => Evidence::RollRequest(dec.get()?),
            1 => Evidence::RollResponse(dec.get()?),
            2 => Evidence::Outcomes {
                roll: dec.u64("roll index")?,
                results: dec.list("outcomes")?,
            },
            3 => Evidence::Skipped {
                roll: dec.u64("roll index")?,
                order: dec.u32("order position")?,
            },
            4 => Evidence::SetupCommitment(dec.get()?),
            5 => Evidence::SetupReveal(dec.get()?),
            kind @ (6 | 7) => {
                return Err(DecodeError::Invalid {
                    what: "evidence kind",
                    at,
                    reason: format!(
                        "kind {kind} ({}) is retired: protocol v1 has no re-anchoring, each chain is sized for the whole game at the opening",
                        if kind == 6 {
                            "a new chain anchor"
                        } else {
                            "an anchor acknowledgement"
                        }
                    ),
                });
            }
            _ => Evidence::RoleReveal(dec.get()?),
        })
    }
}

/// A turn: moves in canonical spelling and their evidence.
///
/// Canonical bytes: `moves (list of text) || evidence (list)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TurnBody {
    /// The moves, in order.
    pub moves: List<MoveToken>,
    /// The evidence, in order.
    pub evidence: List<Evidence>,
}

impl Canonical for TurnBody {
    fn encode(&self, enc: &mut Encoder) {
        enc.list(&self.moves).list(&self.evidence);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(TurnBody {
            moves: dec.list("moves")?,
            evidence: dec.list("evidence")?,
        })
    }
}

/// What an event says. Kinds, in this order from 0: challenge, acceptance,
/// turn, resignation, draw offer, draw answer (`offer hash || accepted`),
/// take-back offer (`back_to u32`), take-back answer (`offer hash ||
/// accepted`), forfeit claim (`against key || reason text || optional robot
/// timestamp u64`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EventBody {
    /// Opens the game.
    Challenge(Challenge),
    /// Accepts it.
    Acceptance(Acceptance),
    /// Moves and evidence.
    Turn(TurnBody),
    /// The author resigns.
    Resignation,
    /// The author offers a draw.
    DrawOffer,
    /// The author answers a draw offer.
    DrawAnswer {
        /// The offer's event hash.
        offer: Hash32,
        /// Whether it is accepted.
        accepted: bool,
    },
    /// The author asks to go back to the position after event `back_to`.
    TakebackOffer {
        /// The `seq` of the event whose position is restored.
        back_to: u32,
    },
    /// The author answers a take-back offer.
    TakebackAnswer {
        /// The offer's event hash.
        offer: Hash32,
        /// Whether it is accepted.
        accepted: bool,
    },
    /// The author claims that `against` did not answer in time. Offline,
    /// time cannot be proven: a peer's claim is for a director to judge; a
    /// robot adds its signed timestamp.
    ForfeitClaim {
        /// The silent party.
        against: PublicKey,
        /// Why, in words.
        reason: Text,
        /// A robot's timestamp, seconds since 1970-01-01 UTC.
        robot_time: Option<u64>,
    },
}

impl EventBody {
    /// The kind byte.
    pub fn kind(&self) -> u8 {
        match self {
            EventBody::Challenge(_) => 0,
            EventBody::Acceptance(_) => 1,
            EventBody::Turn(_) => 2,
            EventBody::Resignation => 3,
            EventBody::DrawOffer => 4,
            EventBody::DrawAnswer { .. } => 5,
            EventBody::TakebackOffer { .. } => 6,
            EventBody::TakebackAnswer { .. } => 7,
            EventBody::ForfeitClaim { .. } => 8,
        }
    }
}

impl Canonical for EventBody {
    fn encode(&self, enc: &mut Encoder) {
        enc.u8(self.kind());
        match self {
            EventBody::Challenge(c) => {
                enc.put(c);
            }
            EventBody::Acceptance(a) => {
                enc.put(a);
            }
            EventBody::Turn(t) => {
                enc.put(t);
            }
            EventBody::Resignation | EventBody::DrawOffer => {}
            EventBody::DrawAnswer { offer, accepted }
            | EventBody::TakebackAnswer { offer, accepted } => {
                enc.put(offer).bool(*accepted);
            }
            EventBody::TakebackOffer { back_to } => {
                enc.u32(*back_to);
            }
            EventBody::ForfeitClaim {
                against,
                reason,
                robot_time,
            } => {
                enc.put(against).text(reason).option(robot_time.as_ref());
            }
        }
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(match dec.kind("event kind", 9)? {
            0 => EventBody::Challenge(dec.get()?),
            1 => EventBody::Acceptance(dec.get()?),
            2 => EventBody::Turn(dec.get()?),
            3 => EventBody::Resignation,
            4 => EventBody::DrawOffer,
            5 => EventBody::DrawAnswer {
                offer: dec.get()?,
                accepted: dec.bool("accepted")?,
            },
            6 => EventBody::TakebackOffer {
                back_to: dec.u32("take-back target")?,
            },
            7 => EventBody::TakebackAnswer {
                offer: dec.get()?,
                accepted: dec.bool("accepted")?,
            },
            _ => EventBody::ForfeitClaim {
                against: dec.get()?,
                reason: dec.text("forfeit reason")?,
                robot_time: dec.option("robot timestamp")?,
            },
        })
    }
}

/// One event of the signed record (see the module documentation for its
/// canonical bytes).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Event {
    /// The game.
    pub game: GameId,
    /// Position in the record: 0 for the challenge, parent's + 1 after.
    pub seq: u32,
    /// Hash of the previous event; [`Hash32::ZERO`] for the challenge.
    pub parent: Hash32,
    /// Who signs it.
    pub author: PublicKey,
    /// What it says.
    pub body: EventBody,
}

/// An event signed by a key that is not its author.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("the event's author is not the signing key")]
pub struct NotTheAuthor;

impl Event {
    /// The first event of a game.
    pub fn challenge(game: GameId, author: PublicKey, challenge: Challenge) -> Self {
        Event {
            game,
            seq: 0,
            parent: Hash32::ZERO,
            author,
            body: EventBody::Challenge(challenge),
        }
    }

    /// The event that follows `parent`.
    pub fn after(parent: &Event, author: PublicKey, body: EventBody) -> Self {
        Event {
            game: parent.game.clone(),
            seq: parent.seq.saturating_add(1),
            parent: parent.hash(),
            author,
            body,
        }
    }

    /// SHA-256 of the canonical bytes: the event's identity.
    pub fn hash(&self) -> Hash32 {
        Hash32::of(&self.to_canonical_bytes())
    }

    /// Signs the canonical bytes; `key` must be the author's.
    pub fn sign(self, key: &SigningKey) -> Result<SignedEvent, NotTheAuthor> {
        if key.public_key() != self.author {
            return Err(NotTheAuthor);
        }
        let signature = key.sign(&self.to_canonical_bytes());
        Ok(SignedEvent {
            event: self,
            signature,
        })
    }
}

impl Canonical for Event {
    fn encode(&self, enc: &mut Encoder) {
        enc.tag(TAG_EVENT)
            .put(&self.game)
            .u32(self.seq)
            .put(&self.parent)
            .put(&self.author)
            .put(&self.body);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        dec.tag(TAG_EVENT)?;
        Ok(Event {
            game: dec.get()?,
            seq: dec.u32("event sequence number")?,
            parent: dec.get()?,
            author: dec.get()?,
            body: dec.get()?,
        })
    }
}

/// An event with its author's signature. Canonical bytes: `event ||
/// signature (64)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SignedEvent {
    /// The event.
    pub event: Event,
    /// The author's signature over the event's canonical bytes.
    pub signature: Signature,
}

impl SignedEvent {
    /// The event's hash (the signature is not part of it).
    pub fn hash(&self) -> Hash32 {
        self.event.hash()
    }

    /// Strictly verifies the author's signature.
    pub fn verify(&self) -> Result<(), SignatureError> {
        self.event
            .author
            .verify(&self.event.to_canonical_bytes(), &self.signature)
    }
}

impl Canonical for SignedEvent {
    fn encode(&self, enc: &mut Encoder) {
        enc.put(&self.event).put(&self.signature);
    }
    fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(SignedEvent {
            event: dec.get()?,
            signature: dec.get()?,
        })
    }
}

/// Why two events are not a proof of equivocation.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NotEquivocation {
    /// They are of different games.
    #[error("the events belong to different games")]
    DifferentGames,
    /// They do not share a parent (and position).
    #[error("the events do not share a parent")]
    DifferentParents,
    /// They are by different authors: a crossing, not equivocation.
    #[error("the events are by different authors")]
    DifferentAuthors,
    /// They are the same event.
    #[error("the events are identical")]
    SameContent,
    /// A signature does not verify, so nothing is proven against its author.
    #[error("a signature does not verify: {0}")]
    BadSignature(SignatureError),
}

/// Proof that one key signed two different successors of the same event.
/// Anyone can check it with [`EquivocationProof::verify`] and nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EquivocationProof {
    first: SignedEvent,
    second: SignedEvent,
}

impl EquivocationProof {
    /// Builds the proof, ordering the two events by hash so that the same
    /// pair always gives the same proof.
    pub fn new(a: SignedEvent, b: SignedEvent) -> Result<Self, NotEquivocation> {
        let (first, second) = if a.hash() <= b.hash() { (a, b) } else { (b, a) };
        let proof = EquivocationProof { first, second };
        proof.verify()?;
        Ok(proof)
    }

    /// Checks the proof: same game, same parent and position, same author,
    /// different content, both signatures valid.
    pub fn verify(&self) -> Result<(), NotEquivocation> {
        let (a, b) = (&self.first.event, &self.second.event);
        if a.game != b.game {
            return Err(NotEquivocation::DifferentGames);
        }
        if a.parent != b.parent || a.seq != b.seq {
            return Err(NotEquivocation::DifferentParents);
        }
        if a.author != b.author {
            return Err(NotEquivocation::DifferentAuthors);
        }
        if a.hash() == b.hash() {
            return Err(NotEquivocation::SameContent);
        }
        self.first.verify().map_err(NotEquivocation::BadSignature)?;
        self.second
            .verify()
            .map_err(NotEquivocation::BadSignature)?;
        Ok(())
    }

    /// The author who equivocated.
    pub fn culprit(&self) -> &PublicKey {
        &self.first.event.author
    }

    /// The two events, in hash order.
    pub fn events(&self) -> (&SignedEvent, &SignedEvent) {
        (&self.first, &self.second)
    }
}

/// How two validly signed events on the same parent relate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Siblings {
    /// The same event (perhaps copied twice).
    Same,
    /// Different authors on the same parent: legitimate crossing messages
    /// (simultaneous setups, crossing offers). The deterministic order is by
    /// ascending author key bytes.
    Crossing {
        /// The event whose author's key sorts first.
        first: SignedEvent,
        /// The other.
        second: SignedEvent,
    },
    /// Same author, different content.
    Equivocation(EquivocationProof),
}

/// Classifies two events that claim the same parent.
pub fn classify_siblings(a: SignedEvent, b: SignedEvent) -> Result<Siblings, NotEquivocation> {
    if a.event.game != b.event.game {
        return Err(NotEquivocation::DifferentGames);
    }
    if a.event.parent != b.event.parent || a.event.seq != b.event.seq {
        return Err(NotEquivocation::DifferentParents);
    }
    a.verify().map_err(NotEquivocation::BadSignature)?;
    b.verify().map_err(NotEquivocation::BadSignature)?;
    if a.event.author != b.event.author {
        let (first, second) = if a.event.author < b.event.author {
            (a, b)
        } else {
            (b, a)
        };
        return Ok(Siblings::Crossing { first, second });
    }
    if a.hash() == b.hash() {
        return Ok(Siblings::Same);
    }
    EquivocationProof::new(a, b).map(Siblings::Equivocation)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fair_play::sign::tests::key;

    fn text(s: &str) -> Text {
        Text::new(s).unwrap()
    }

    pub(crate) fn moves(tokens: &[&str]) -> List<MoveToken> {
        List::new(tokens.iter().map(|t| MoveToken::new(*t).unwrap()).collect()).unwrap()
    }

    fn opening() -> Event {
        let game = GameId::new("khan-3").unwrap();
        let challenger = key(1).public_key();
        Event::challenge(
            game,
            challenger,
            Challenge {
                game_name: text("Khan"),
                ruleset_hash: Hash32::from_bytes([0x5e; 32]),
                mode: Mode::Peer,
                roles: RoleChoice::Chosen,
                challenger: Party {
                    key: challenger,
                    anchor: None,
                    roles: List::new(vec![text("white")]).unwrap(),
                },
                invited: List::new(vec![key(2).public_key()]).unwrap(),
            },
        )
    }

    fn turn(parent: &Event, author: u8, tokens: &[&str]) -> SignedEvent {
        Event::after(
            parent,
            key(author).public_key(),
            EventBody::Turn(TurnBody {
                moves: moves(tokens),
                evidence: List::empty(),
            }),
        )
        .sign(&key(author))
        .unwrap()
    }

    #[test]
    fn move_tokens_refuse_control_characters_edges_and_emptiness() {
        assert!(MoveToken::new("Ke2-e4").is_ok());
        assert!(MoveToken::new("\"Meat, Milk & Blood\"").is_ok());
        assert!(MoveToken::new(" e4").is_err());
        assert!(MoveToken::new("e4\n").is_err());
        assert!(MoveToken::new("").is_err());
        assert!(MoveToken::new("a\u{7}").is_err());
        assert!(MoveToken::new("x".repeat(257)).is_err());
    }

    #[test]
    fn events_round_trip_and_sign() {
        let open = opening();
        let signed = open.clone().sign(&key(1)).unwrap();
        assert_eq!(signed.verify(), Ok(()));
        assert_eq!(
            SignedEvent::from_canonical_bytes(&signed.to_canonical_bytes()),
            Ok(signed)
        );
        assert_eq!(open.clone().sign(&key(2)), Err(NotTheAuthor));
        let next = turn(&open, 2, &["e4"]);
        assert_eq!(next.event.seq, 1);
        assert_eq!(next.event.parent, open.hash());
    }

    #[test]
    fn every_body_kind_round_trips() {
        let open = opening();
        let bodies = [
            EventBody::Resignation,
            EventBody::DrawOffer,
            EventBody::DrawAnswer {
                offer: Hash32::from_bytes([1; 32]),
                accepted: true,
            },
            EventBody::TakebackOffer { back_to: 3 },
            EventBody::TakebackAnswer {
                offer: Hash32::from_bytes([2; 32]),
                accepted: false,
            },
            EventBody::ForfeitClaim {
                against: key(1).public_key(),
                reason: text("silent 14 days"),
                robot_time: Some(1_780_000_000),
            },
            EventBody::Acceptance(Acceptance {
                party: Party {
                    key: key(2).public_key(),
                    anchor: None,
                    roles: List::empty(),
                },
                toss: Some([9; 32]),
            }),
            EventBody::Turn(TurnBody {
                moves: moves(&["a", "b"]),
                evidence: List::new(vec![
                    Evidence::Skipped { roll: 4, order: 1 },
                    Evidence::SetupCommitment(Commitment::from_hash(Hash32::from_bytes([3; 32]))),
                ])
                .unwrap(),
            }),
        ];
        for body in bodies {
            let event = Event::after(&open, key(2).public_key(), body);
            assert_eq!(
                Event::from_canonical_bytes(&event.to_canonical_bytes()),
                Ok(event)
            );
        }
    }

    #[test]
    fn a_truncated_event_is_refused() {
        let signed = turn(&opening(), 2, &["e4", "e5"]);
        let bytes = signed.to_canonical_bytes();
        for cut in 0..bytes.len() {
            assert!(
                SignedEvent::from_canonical_bytes(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn two_successors_by_one_key_prove_equivocation() {
        let open = opening();
        let a = turn(&open, 2, &["e4"]);
        let b = turn(&open, 2, &["d4"]);
        let Siblings::Equivocation(proof) = classify_siblings(a.clone(), b.clone()).unwrap() else {
            panic!("expected equivocation");
        };
        assert_eq!(proof.culprit(), &key(2).public_key());
        assert_eq!(proof.verify(), Ok(()));
        // Order of discovery does not change the proof.
        assert_eq!(EquivocationProof::new(b.clone(), a.clone()), Ok(proof));
        assert_eq!(classify_siblings(a.clone(), a.clone()), Ok(Siblings::Same));
        // A forged second event proves nothing.
        let mut forged = b;
        forged.signature = a.signature;
        assert!(matches!(
            classify_siblings(a, forged),
            Err(NotEquivocation::BadSignature(_))
        ));
    }

    #[test]
    fn crossing_messages_are_ordered_not_accused() {
        let open = opening();
        let a = turn(&open, 1, &["setup-a"]);
        let b = turn(&open, 2, &["setup-b"]);
        let one = classify_siblings(a.clone(), b.clone()).unwrap();
        let two = classify_siblings(b, a).unwrap();
        assert_eq!(one, two);
        assert!(matches!(one, Siblings::Crossing { .. }));
        let other_parent = turn(&turn(&open, 1, &["x"]).event, 2, &["y"]);
        assert_eq!(
            classify_siblings(turn(&open, 2, &["e4"]), other_parent),
            Err(NotEquivocation::DifferentParents)
        );
    }

    #[test]
    fn arbitrary_turns_round_trip() {
        use crate::fair_play::roll::{Declaration, RollRequest};
        use proptest::prelude::*;
        let open = opening();
        // Signing is slow in unoptimised test builds; 64 cases cover the
        // encoding paths.
        proptest!(ProptestConfig::with_cases(64), |(
            tokens in proptest::collection::vec("[^\\p{Cc}\\s][^\\p{Cc}]{0,20}[^\\p{Cc}\\s]", 0..6),
            orders in proptest::collection::vec(".{0,30}", 0..5),
            seed in ".{0,30}",
            index: u64,
            seq: u32,
            accepted: bool,
            parent: [u8; 32],
        )| {
            let request = RollRequest {
                game: open.game.clone(),
                index,
                record_hash: Hash32::from_bytes(parent),
                requester: key(1).public_key(),
                declaration: Declaration {
                    orders: List::new(orders.into_iter().map(|o| text(&o)).collect()).unwrap(),
                    seed: text(&seed),
                },
                reveal: None,
            }
            .sign(&key(1));
            let turn = Event {
                game: open.game.clone(),
                seq,
                parent: Hash32::from_bytes(parent),
                author: key(1).public_key(),
                body: EventBody::Turn(TurnBody {
                    moves: List::new(tokens.iter().map(|t| MoveToken::new(t.as_str()).unwrap()).collect()).unwrap(),
                    evidence: List::new(vec![
                        Evidence::RollRequest(request),
                        Evidence::Skipped { roll: index, order: seq },
                    ])
                    .unwrap(),
                }),
            };
            let signed = turn.sign(&key(1)).unwrap();
            let bytes = signed.to_canonical_bytes();
            prop_assert_eq!(SignedEvent::from_canonical_bytes(&bytes), Ok(signed.clone()));
            prop_assert!(signed.verify().is_ok());
            let answer = Event { body: EventBody::DrawAnswer { offer: Hash32::from_bytes(parent), accepted }, ..signed.event };
            prop_assert_eq!(Event::from_canonical_bytes(&answer.to_canonical_bytes()), Ok(answer));
        });
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics() {
        use proptest::prelude::*;
        let valid = turn(&opening(), 2, &["e4"]).to_canonical_bytes();
        proptest!(|(flip in 0..valid.len(), xor in 1u8..=255, junk in proptest::collection::vec(any::<u8>(), 0..300))| {
            let mut bytes = valid.clone();
            bytes[flip] ^= xor;
            let _ = SignedEvent::from_canonical_bytes(&bytes);
            let _ = SignedEvent::from_canonical_bytes(&junk);
            let _ = Evidence::from_canonical_bytes(&junk);
        });
    }
}

super::encoding::serde_as_canonical!(Party, Challenge, Acceptance, SignedEvent, MoveToken);
