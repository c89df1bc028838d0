//! The test vectors of `docs/fair-play.md`, recomputed.
//!
//! Every vector in the document's `yam-vectors` blocks must be computed here
//! with the same value, and every vector computed here must be in the
//! document, so the two cannot drift apart.

use std::collections::BTreeMap;

use super::chain::{ChainSecret, HashChain};
use super::chance::{Chance, ChanceRecord, RecordingChance};
use super::commit::{Commitment, Salt, SetupOpening};
use super::dice;
use super::draw::LazyDeck;
use super::encoding::{Blob, Canonical, Encoder, List, TAG_CHAIN, Text};
use super::game_id::GameId;
use super::outcome::{ByteSource, OutcomeStream, PracticeStream};
use super::roll::{Declaration, RollRequest, RollResponse};
use super::sign::SigningKey;
use super::turn::{
    Acceptance, Challenge, Event, EventBody, Evidence, Mode, MoveToken, Party, RoleChoice, TurnBody,
};

/// 32 bytes counting up from `start`.
fn counting(start: u8) -> [u8; 32] {
    std::array::from_fn(|i| start.wrapping_add(i as u8))
}

fn text(s: &str) -> Text {
    Text::new(s).expect("short text")
}

/// Every vector, by name.
fn compute() -> BTreeMap<String, String> {
    let mut v = BTreeMap::new();
    let mut put = |name: &str, value: String| {
        v.insert(name.to_owned(), value);
    };
    fn hex(bytes: impl AsRef<[u8]>) -> String {
        hex::encode(bytes)
    }

    // Inputs.
    let game = GameId::new("yam-test-vectors").expect("valid id");
    let alice = SigningKey::from_seed(&counting(0x00));
    let bob = SigningKey::from_seed(&counting(0x20));
    let (pa, pb) = (alice.public_key(), bob.public_key());
    let alice_chain = HashChain::new(
        &ChainSecret::from_bytes(counting(0x40)),
        game.clone(),
        pa,
        4,
    )
    .expect("valid chain");
    let bob_chain = HashChain::new(
        &ChainSecret::from_bytes(counting(0x60)),
        game.clone(),
        pb,
        4,
    )
    .expect("valid chain");

    // Encoding.
    put(
        "encoding.tag.chain",
        hex(Encoder::tagged(TAG_CHAIN).into_bytes()),
    );
    put("encoding.game-id", hex(game.to_canonical_bytes()));

    // Keys.
    put("key.alice.public", hex(pa.as_bytes()));
    put("key.bob.public", hex(pb.as_bytes()));
    put("key.alice.fingerprint", pa.fingerprint().to_string());
    put("key.bob.fingerprint", pb.fingerprint().to_string());

    // Chains.
    for k in (0..=4).rev() {
        let value = if k == 0 {
            alice_chain.anchor().value
        } else {
            alice_chain.reveal(k).expect("within length").value
        };
        put(&format!("chain.alice.x{k}"), hex(value.as_bytes()));
    }
    put(
        "chain.alice.anchor",
        hex(alice_chain.anchor().to_canonical_bytes()),
    );
    put("chain.bob.x0", hex(bob_chain.anchor().value.as_bytes()));
    put(
        "chain.bob.x1",
        hex(bob_chain.reveal(1).expect("within length").value.as_bytes()),
    );

    // The opening.
    let challenge = Event::challenge(
        game.clone(),
        pa,
        Challenge {
            game_name: text("Castle Siege"),
            ruleset_hash: super::hash::Hash32::of(b"castle-siege ruleset v1"),
            mode: Mode::Peer,
            roles: RoleChoice::Chosen,
            challenger: Party {
                key: pa,
                anchor: Some(alice_chain.anchor().clone()),
                roles: List::new(vec![text("attacker"), text("first")]).expect("short"),
            },
            invited: List::new(vec![pb]).expect("short"),
        },
    );
    put("event.challenge.bytes", hex(challenge.to_canonical_bytes()));
    put("event.challenge.hash", challenge.hash().to_hex());
    let signed = challenge.clone().sign(&alice).expect("author");
    put(
        "event.challenge.signature",
        hex(signed.signature.to_bytes()),
    );
    let mut record = vec![signed];
    let acceptance = Event::after(
        &challenge,
        pb,
        EventBody::Acceptance(Acceptance {
            party: Party {
                key: pb,
                anchor: Some(bob_chain.anchor().clone()),
                roles: List::new(vec![text("defender")]).expect("short"),
            },
            toss: None,
        }),
    );
    put(
        "event.acceptance.bytes",
        hex(acceptance.to_canonical_bytes()),
    );
    put("event.acceptance.hash", acceptance.hash().to_hex());
    let signed = acceptance.clone().sign(&bob).expect("author");
    put(
        "event.acceptance.signature",
        hex(signed.signature.to_bytes()),
    );
    record.push(signed);

    // Roll 0: Alice's request, Bob's response.
    let declaration = Declaration {
        orders: List::new(vec![text("A1xB2"), text("A3xB2")]).expect("short"),
        seed: Text::default(),
    };
    put("roll0.declaration.hash", declaration.hash().to_hex());
    let request = RollRequest {
        game: game.clone(),
        index: 0,
        record_hash: acceptance.hash(),
        requester: pa,
        declaration: declaration.clone(),
        reveal: Some(alice_chain.reveal(1).expect("within length")),
    };
    put("roll0.request.bytes", hex(request.to_canonical_bytes()));
    put("roll0.request.hash", request.hash().to_hex());
    let signed_request = request.clone().sign(&alice);
    put(
        "roll0.request.signature",
        hex(signed_request.signature.to_bytes()),
    );
    let request_turn = Event::after(
        &acceptance,
        pa,
        EventBody::Turn(TurnBody {
            moves: List::empty(),
            evidence: List::new(vec![Evidence::RollRequest(signed_request)]).expect("short"),
        }),
    );
    put(
        "event.request-turn.bytes",
        hex(request_turn.to_canonical_bytes()),
    );
    put("event.request-turn.hash", request_turn.hash().to_hex());
    let signed = request_turn.clone().sign(&alice).expect("author");
    put(
        "event.request-turn.signature",
        hex(signed.signature.to_bytes()),
    );
    record.push(signed);
    let response = RollResponse {
        game: game.clone(),
        index: 0,
        request_hash: request.hash(),
        record_hash: request.record_hash,
        responder: pb,
        reveal: bob_chain.reveal(1).expect("within length"),
    };
    put("roll0.response.bytes", hex(response.to_canonical_bytes()));
    let signed_response = response.clone().sign(&bob);
    put(
        "roll0.response.signature",
        hex(signed_response.signature.to_bytes()),
    );
    let response_turn = Event::after(
        &request_turn,
        pb,
        EventBody::Turn(TurnBody {
            moves: List::empty(),
            evidence: List::new(vec![Evidence::RollResponse(signed_response)]).expect("short"),
        }),
    );
    put(
        "event.response-turn.bytes",
        hex(response_turn.to_canonical_bytes()),
    );
    put("event.response-turn.hash", response_turn.hash().to_hex());
    let signed = response_turn.clone().sign(&bob).expect("author");
    put(
        "event.response-turn.signature",
        hex(signed.signature.to_bytes()),
    );
    record.push(signed);

    // Roll 0: the outcome stream and what it gives.
    let roll0 = super::outcome::OutcomeInput {
        game: game.clone(),
        roll: 0,
        declaration: declaration.hash(),
        reveals: vec![
            (pa, alice_chain.reveal(1).expect("within length").value),
            (pb, bob_chain.reveal(1).expect("within length").value),
        ],
    };
    let mut stream = OutcomeStream::new(&roll0);
    let blocks: Vec<u8> = (0..64)
        .map(|_| stream.next_byte().expect("stream"))
        .collect();
    put("roll0.stream.block0", hex(&blocks[..32]));
    put("roll0.stream.block1", hex(&blocks[32..]));
    let mut stream = OutcomeStream::new(&roll0);
    let faces: Vec<String> = (0..100)
        .map(|_| dice::d6(&mut stream).expect("stream").to_string())
        .collect();
    put("roll0.d6.first-100", faces.join(""));
    put(
        "roll0.d6.first-100.bytes-used",
        stream.bytes_used().to_string(),
    );
    let mut stream = OutcomeStream::new(&roll0);
    let rejected: Vec<String> = (0..128)
        .filter_map(|offset| match stream.next_byte() {
            Ok(byte) if byte >= 252 => Some(format!("{offset}:{byte:02x}")),
            _ => None,
        })
        .collect();
    put("roll0.rejected-bytes-in-first-128", rejected.join(" "));
    let mut stream = OutcomeStream::new(&roll0);
    let mut deck = LazyDeck::new(vec!['A', 'B', 'C', 'D', 'E', 'F', 'G']);
    let dealt: String = (0..7)
        .map(|_| deck.draw(&mut stream).expect("stream"))
        .collect();
    put("roll0.deal-7.order", dealt);
    let mut chance = RecordingChance::new(OutcomeStream::new(&roll0));
    chance.d6("A1xB2").expect("stream");
    chance.d6("A3xB2").expect("stream");
    chance.draw("reinforcement", 5).expect("stream");
    let records: Vec<ChanceRecord> = chance.records().to_vec();
    put(
        "roll0.chance",
        records
            .iter()
            .map(|r| match r.result {
                super::chance::ChanceResult::Die { sides, face } => {
                    format!("{}: d{sides} {face}", r.purpose)
                }
                super::chance::ChanceResult::Draw { remaining, index } => {
                    format!("{}: index {index} of {remaining}", r.purpose)
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
    );
    let outcome_turn = Event::after(
        &response_turn,
        pa,
        EventBody::Turn(TurnBody {
            moves: List::new(vec![
                MoveToken::new("A1xB2").expect("token"),
                MoveToken::new("A3xB2").expect("token"),
            ])
            .expect("short"),
            evidence: List::new(vec![Evidence::Outcomes {
                roll: 0,
                results: List::new(records).expect("short"),
            }])
            .expect("short"),
        }),
    );
    put(
        "event.outcome-turn.bytes",
        hex(outcome_turn.to_canonical_bytes()),
    );
    put("event.outcome-turn.hash", outcome_turn.hash().to_hex());
    let signed = outcome_turn.sign(&alice).expect("author");
    put(
        "event.outcome-turn.signature",
        hex(signed.signature.to_bytes()),
    );

    // The roll's life cycle through the record verifier: after the
    // response (event #3) roll 0 is answered and owed by Alice; her
    // outcome turn (#4) plays it. A second request in its place, for roll
    // 1 with her next chain value, is refused.
    let answered = super::record::RecordVerifier::verify(&record).expect("verifies");
    let open = answered.open_roll.expect("roll 0 is open");
    put(
        "lifecycle.after-response",
        format!(
            "roll {} {}, owed by {}, since event #{}",
            open.index,
            open.stage,
            open.owed_by
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            open.since_event
        ),
    );
    let rerequest = RollRequest {
        game: game.clone(),
        index: 1,
        record_hash: response_turn.hash(),
        requester: pa,
        declaration: declaration.clone(),
        reveal: Some(alice_chain.reveal(2).expect("within length")),
    }
    .sign(&alice);
    let rerequest_turn = Event::after(
        &response_turn,
        pa,
        EventBody::Turn(TurnBody {
            moves: List::empty(),
            evidence: List::new(vec![Evidence::RollRequest(rerequest)]).expect("short"),
        }),
    );
    put(
        "event.rerequest-turn.bytes",
        hex(rerequest_turn.to_canonical_bytes()),
    );
    let mut refused = record.clone();
    refused.push(rerequest_turn.sign(&alice).expect("author"));
    put(
        "lifecycle.rerequest",
        super::record::RecordVerifier::verify(&refused)
            .expect_err("refused")
            .to_string(),
    );
    record.push(signed);
    let played = super::record::RecordVerifier::verify(&record).expect("verifies");
    put(
        "lifecycle.after-outcome-turn",
        format!(
            "{} events, {} roll played, {} values recomputed, open roll: {}",
            played.events,
            played.rolls,
            played.values_checked,
            if played.open_roll.is_none() {
                "none"
            } else {
                "yes"
            }
        ),
    );

    // Die mapping on crafted bytes.
    let mut crafted = Crafted(vec![0xfc, 0xfd, 0xfe, 0xff, 0x0d].into());
    put(
        "d6.crafted.fcfdfeff0d",
        dice::d6(&mut crafted).expect("bytes").to_string(),
    );

    // Commitment.
    let opening = SetupOpening {
        salt: Salt::from_bytes(counting(0x80)),
        setup: Blob::new(b"K@c3 R@a1".to_vec()).expect("short"),
    };
    put(
        "commit.bob.setup",
        Commitment::new(&game, &pb, &opening).hash().to_hex(),
    );

    // Practice.
    let seed = Blob::new(b"practice".to_vec()).expect("short");
    let mut practice = PracticeStream::new(&game, &seed);
    let block: Vec<u8> = (0..32)
        .map(|_| practice.next_byte().expect("stream"))
        .collect();
    put("practice.stream.block0", hex(block));
    let mut practice = super::chance::PracticeChance::new(&game, &seed);
    let faces: Vec<String> = (0..10)
        .map(|i| {
            practice
                .d6(&format!("die {i}"))
                .expect("stream")
                .to_string()
        })
        .collect();
    put("practice.d6.first-10", faces.join(" "));
    v
}

#[derive(Debug)]
struct Crafted(std::collections::VecDeque<u8>);

impl ByteSource for Crafted {
    fn next_byte(&mut self) -> Result<u8, super::outcome::SampleError> {
        self.0
            .pop_front()
            .ok_or(super::outcome::SampleError::StreamExhausted)
    }
    fn assurance(&self) -> super::outcome::Assurance {
        super::outcome::Assurance::Unverified
    }
}

/// The vectors as the document prints them: `name = value`, long hex values
/// wrapped at 64 digits on indented continuation lines.
fn render(vectors: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    for (name, value) in vectors {
        let wrap = value.len() > 64 && value.bytes().all(|b| b.is_ascii_hexdigit());
        if wrap {
            out.push_str(&format!("{name} =\n"));
            for chunk in value.as_bytes().chunks(64) {
                out.push_str("    ");
                out.push_str(&String::from_utf8_lossy(chunk));
                out.push('\n');
            }
        } else {
            out.push_str(&format!("{name} = {value}\n"));
        }
    }
    out
}

/// Reads every `yam-vectors` block of the document.
fn parse(doc: &str) -> Result<BTreeMap<String, String>, String> {
    let mut vectors = BTreeMap::new();
    let mut inside = false;
    let mut current: Option<String> = None;
    for (n, line) in doc.lines().enumerate() {
        let trimmed = line.trim();
        if !inside {
            inside = trimmed == "```yam-vectors";
            continue;
        }
        if trimmed == "```" {
            inside = false;
            current = None;
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if line.starts_with(' ') {
            let name = current
                .as_ref()
                .ok_or(format!("line {}: continuation without a name", n + 1))?;
            if let Some(value) = vectors.get_mut(name) {
                let value: &mut String = value;
                value.push_str(trimmed);
            }
            continue;
        }
        let (name, value) = trimmed
            .split_once(" =")
            .ok_or(format!("line {}: expected `name = value`", n + 1))?;
        let name = name.trim().to_owned();
        if vectors
            .insert(name.clone(), value.trim().to_owned())
            .is_some()
        {
            return Err(format!("line {}: {name} appears twice", n + 1));
        }
        current = Some(name);
    }
    Ok(vectors)
}

const DOC: &str = include_str!("../../../docs/fair-play.md");

#[test]
fn the_document_holds_exactly_the_computed_vectors() {
    let computed = compute();
    let documented = parse(DOC).expect("the vector blocks parse");
    assert!(
        documented == computed,
        "docs/fair-play.md and the code disagree. The vectors computed now are:\n\n{}",
        render(&computed)
    );
}

#[test]
fn the_document_names_every_tag() {
    for tag in super::encoding::ALL_TAGS {
        assert!(
            DOC.contains(&format!("`{tag}`")),
            "docs/fair-play.md does not name the tag {tag}"
        );
    }
}

#[test]
fn the_document_signatures_verify() {
    let computed = compute();
    let alice = SigningKey::from_seed(&counting(0));
    let challenge_bytes = hex::decode(&computed["event.challenge.bytes"]).expect("hex");
    let signature: [u8; 64] = hex::decode(&computed["event.challenge.signature"])
        .expect("hex")
        .try_into()
        .expect("64 bytes");
    let signature = super::sign::Signature::from_bytes(signature);
    assert_eq!(
        alice.public_key().verify(&challenge_bytes, &signature),
        Ok(())
    );
    // And the documented bytes decode to an event that re-encodes identically.
    let event = Event::from_canonical_bytes(&challenge_bytes).expect("decodes");
    assert_eq!(event.to_canonical_bytes(), challenge_bytes);
}
