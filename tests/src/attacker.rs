//! A player who cheats, for tests: hostile records and mails built with the
//! cheater's real keys and chain.
//!
//! Yam's own clients refuse to sign anything the protocol forbids (every
//! event they make is proven against the replay first), so a cheater is a
//! modified client. This module is one: it reads a signed record, keeps
//! its events, and appends events signed with a player's own key and chain
//! secrets (from a hot-seat secrets directory or a desk's), bypassing every
//! guard. What it writes is exactly what a hostile player could mail: the
//! tests then show that `yam verify` and the honest desk refuse it, with
//! the rule it breaks.

use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use yam_notation::{Comment, CommentPart, GameResult, Node, RawGrammar, Record, Span};
use yam_referee::fair_play::chain::HashChain;
use yam_referee::fair_play::encoding::{Canonical, List, Text};
use yam_referee::fair_play::game_id::GameId;
use yam_referee::fair_play::roll::{Declaration, RollRequest, RollResponse};
use yam_referee::fair_play::sign::{PublicKey, SigningKey};
use yam_referee::fair_play::turn::{Event, EventBody, Evidence, SignedEvent, TurnBody};
use yam_referee::signed::text::{EVENT_COMMAND, decode_event, event_command};

/// A player's secrets, as its own machine holds them.
#[derive(Debug)]
pub struct Cheater {
    /// Its signing key.
    pub key: SigningKey,
    /// Its chain for the game, if it has one.
    pub chain: Option<HashChain>,
}

impl Cheater {
    /// The identity `name` and its chain for `game`, from the secrets
    /// directory `dir` (a hot-seat `--secrets` directory, or a desk's
    /// `DATA/secrets`).
    pub fn from_secrets(dir: &Path, name: &str, game: &str) -> Cheater {
        let secrets =
            yam_cli::game::secrets::Secrets::open(dir).expect("the secrets directory opens");
        let (identity, created) = secrets.identity(name).expect("the identity reads");
        assert!(!created, "{name} had no identity in {}", dir.display());
        let game = GameId::new(game).expect("a game id");
        let chain = secrets.chain(&game, &identity).expect("the chain reads");
        Cheater {
            key: identity.key,
            chain,
        }
    }

    /// The public key.
    pub fn public_key(&self) -> PublicKey {
        self.key.public_key()
    }
}

/// A signed record being tampered with: its text and its events.
#[derive(Debug)]
pub struct Log {
    record: Record<String>,
}

impl Log {
    /// Reads a signed record's text.
    pub fn parse(text: &str) -> Log {
        Log {
            record: yam_notation::parse_record::<RawGrammar>(text).expect("a readable record"),
        }
    }

    /// Every signed event of the main line, in order.
    pub fn events(&self) -> Vec<SignedEvent> {
        self.commands()
            .map(|(_, _, args)| decode_event(args).expect("a readable event"))
            .collect()
    }

    fn commands(&self) -> impl Iterator<Item = (usize, usize, &Vec<String>)> {
        self.record
            .movetext
            .iter()
            .enumerate()
            .filter_map(|(i, n)| match n {
                Node::Comment(c) => Some((i, c)),
                _ => None,
            })
            .flat_map(|(i, c)| {
                c.parts
                    .iter()
                    .enumerate()
                    .filter_map(move |(j, p)| match p {
                        CommentPart::Command(cmd) if cmd.name == EVENT_COMMAND => {
                            Some((i, j, &cmd.args))
                        }
                        _ => None,
                    })
            })
    }

    /// Keeps the events up to and including `seq`: everything after it in
    /// the text (its later commands, later moves and comments) is dropped,
    /// and the result becomes `*`.
    pub fn cut_after(&mut self, seq: usize) {
        let (node, part, _) = self
            .commands()
            .nth(seq)
            .map(|(i, j, a)| (i, j, a.clone()))
            .expect("the record has that event");
        self.record.movetext.truncate(node + 1);
        if let Some(Node::Comment(c)) = self.record.movetext.last_mut() {
            c.parts.truncate(part + 1);
        }
        self.set_unfinished();
    }

    /// Appends `moves` and then `event` (in a comment after them), as the
    /// hot-seat harness writes a turn. The result becomes `*`.
    pub fn append(&mut self, moves: &[&str], event: &SignedEvent) {
        self.append_raw(moves, event_command(event).args);
    }

    /// Appends an `[%event]` command with these arguments (base64 event
    /// bytes and signature), for events no `Event` can express.
    pub fn append_raw(&mut self, moves: &[&str], args: Vec<String>) {
        for m in moves {
            self.record
                .movetext
                .push(Node::Move((*m).to_owned(), Span::default()));
        }
        let mut comment = Comment::default();
        comment.push_command(yam_notation::Command::new(EVENT_COMMAND, args));
        self.record.movetext.push(Node::Comment(comment));
        self.set_unfinished();
    }

    fn set_unfinished(&mut self) {
        self.record.result = GameResult::Unfinished;
        self.record.tags.set("Result", "*");
    }

    /// The record's text.
    pub fn text(&self) -> String {
        yam_notation::record_to_string::<RawGrammar>(&self.record)
    }

    /// The last event.
    pub fn last(&self) -> SignedEvent {
        self.events().pop().expect("the record has events")
    }

    /// `body` by `who`, as the next event, signed.
    pub fn next(&self, who: &Cheater, body: EventBody) -> SignedEvent {
        Event::after(&self.last().event, who.public_key(), body)
            .sign(&who.key)
            .expect("the event signs")
    }

    /// The roll requests on record, oldest first.
    pub fn requests(&self) -> Vec<RollRequest> {
        self.events()
            .iter()
            .filter_map(|e| match &e.event.body {
                EventBody::Turn(t) => t.evidence.iter().find_map(|ev| match ev {
                    Evidence::RollRequest(r) => Some(r.request.clone()),
                    _ => None,
                }),
                _ => None,
            })
            .collect()
    }
}

/// The turn body of one piece of evidence and no moves.
pub fn alone(evidence: Evidence) -> EventBody {
    EventBody::Turn(TurnBody {
        moves: List::empty(),
        evidence: List::new(vec![evidence]).expect("one item"),
    })
}

/// A plain turn of `moves`, with no evidence.
pub fn plain_turn(moves: &[&str]) -> EventBody {
    EventBody::Turn(TurnBody {
        moves: List::new(
            moves
                .iter()
                .map(|m| yam_referee::fair_play::turn::MoveToken::new(*m).expect("a token"))
                .collect(),
        )
        .expect("a list"),
        evidence: List::empty(),
    })
}

/// The next value of `who`'s chain after the `used` values it revealed.
fn next_reveal(who: &Cheater, used: u32) -> yam_referee::fair_play::chain::Reveal {
    who.chain
        .as_ref()
        .expect("the cheater has a chain")
        .reveal(used + 1)
        .expect("the chain has the value")
}

/// How many values `key` revealed in `log`'s rolls.
fn revealed_by(log: &Log, key: &PublicKey) -> u32 {
    let mut n = 0;
    for e in log.events() {
        if let EventBody::Turn(t) = &e.event.body {
            for ev in t.evidence.iter() {
                match ev {
                    Evidence::RollRequest(r)
                        if r.request.requester == *key && r.request.reveal.is_some() =>
                    {
                        n += 1
                    }
                    Evidence::RollResponse(r) if r.response.responder == *key => n += 1,
                    _ => {}
                }
            }
        }
    }
    n
}

/// A request for roll `index` by `who` declaring `orders`, with `who`'s
/// next chain value, at the record as it stands.
pub fn request(log: &Log, who: &Cheater, index: u64, orders: &[&str]) -> SignedEvent {
    let last = log.last();
    let request = RollRequest {
        game: last.event.game.clone(),
        index,
        record_hash: last.hash(),
        requester: who.public_key(),
        declaration: Declaration {
            orders: List::new(
                orders
                    .iter()
                    .map(|o| Text::new(*o).expect("text"))
                    .collect(),
            )
            .expect("a list"),
            seed: Text::default(),
        },
        reveal: who
            .chain
            .as_ref()
            .map(|_| next_reveal(who, revealed_by(log, &who.public_key()))),
    }
    .sign(&who.key);
    log.next(who, alone(Evidence::RollRequest(request)))
}

/// Best of two: the requester of the last (answered, unplayed) roll asks
/// again for the same declaration at the next index.
pub fn reroll(log: &Log, who: &Cheater) -> SignedEvent {
    let last = log.requests().pop().expect("a roll was requested");
    let orders: Vec<String> = last
        .declaration
        .orders
        .iter()
        .map(|o| o.as_str().to_owned())
        .collect();
    let orders: Vec<&str> = orders.iter().map(String::as_str).collect();
    request(log, who, last.index + 1, &orders)
}

/// A response by `who` to roll `index` that nobody requested (harvesting
/// a value ahead of the next request), bound to a made-up request.
pub fn response_ahead(log: &Log, who: &Cheater, index: u64) -> SignedEvent {
    let last = log.last();
    let phantom = RollRequest {
        game: last.event.game.clone(),
        index,
        record_hash: last.hash(),
        requester: who.public_key(),
        declaration: Declaration::default(),
        reveal: None,
    };
    let response = RollResponse {
        game: last.event.game.clone(),
        index,
        request_hash: phantom.hash(),
        record_hash: last.hash(),
        responder: who.public_key(),
        reveal: next_reveal(who, revealed_by(log, &who.public_key())),
    }
    .sign(&who.key);
    log.next(who, alone(Evidence::RollResponse(response)))
}

/// A re-anchoring by `who`: a turn carrying evidence of kind 6 (a new
/// chain anchor, `fresh`), which protocol v1 retired. No `Evidence` can
/// express it, so the event's bytes are written by hand: an empty turn's
/// canonical bytes with its evidence list replaced. Returns the
/// `[%event]` arguments.
pub fn reanchor(log: &Log, who: &Cheater, fresh: &HashChain) -> Vec<String> {
    let empty = Event::after(&log.last().event, who.public_key(), alone_empty());
    let mut bytes = empty.to_canonical_bytes();
    // The empty turn ends with its evidence count, 0 as a u32.
    bytes.truncate(bytes.len() - 4);
    bytes.extend_from_slice(&1u32.to_be_bytes());
    bytes.push(6);
    bytes.extend_from_slice(&fresh.anchor().to_canonical_bytes());
    let signature = who.key.sign(&bytes);
    vec![
        STANDARD.encode(&bytes),
        STANDARD.encode(signature.to_bytes()),
    ]
}

fn alone_empty() -> EventBody {
    EventBody::Turn(TurnBody::default())
}

/// A forfeit claim by `who` against `against`.
pub fn forfeit_claim(log: &Log, who: &Cheater, against: PublicKey) -> SignedEvent {
    log.next(
        who,
        EventBody::ForfeitClaim {
            against,
            reason: Text::new("no answer in 40 days").expect("text"),
            robot_time: None,
        },
    )
}

/// A raw mail from `from` to `to` carrying `record` as the attached
/// `GAME.yam`, as a cheater writes it by hand: no Yam composed it.
pub fn mail(from: &str, to: &str, game: &str, ply: u32, record: &str) -> Vec<u8> {
    let encoded = STANDARD.encode(record.as_bytes());
    let lines: Vec<&str> = encoded
        .as_bytes()
        .chunks(76)
        .map(|c| std::str::from_utf8(c).expect("base64 is ASCII"))
        .collect();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: [Yam] {game} #{ply}\r\nMessage-ID: <cheat.{nanos}@example.net>\r\nX-Yam-Game: {game} {ply}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nMy turn.\r\n--b\r\nContent-Type: application/x-yam\r\nContent-Disposition: attachment; filename=\"{game}.yam\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{}\r\n--b--\r\n",
        lines.join("\r\n")
    )
    .into_bytes()
}
