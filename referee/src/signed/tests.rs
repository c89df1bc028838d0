//! Signed records end to end inside the referee: games opened and played
//! through the harness, written as text, read back and verified; every
//! documented attack at record level refused with its reason; disputes.
//!
//! Khan has no dice, so the roll protocol is exercised with a toy dice
//! race behind the same [`GameReplay`] door (standing in for a dice game;
//! it borrows Castle Siege's `Game` tag and an invented ruleset).

use yam_notation::{
    Comment, GameKind, GameResult, Nag, Node, RawGrammar, Reader, Record, Tags, parse_record,
    record_to_string,
};

use super::collect::{Collector, SignedText};
use super::dispute::{Relation, dispute};
use super::replay::{OfferKind, SignedReplay};
use super::table::{self, Opening, Seating, Signer};
use super::verify::{Verdict, verify_text};
use super::write::{append_events, plain};
use crate::fair_play::chain::{ChainSecret, HashChain};
use crate::fair_play::chance::Chance;
use crate::fair_play::encoding::{Blob, List};
use crate::fair_play::game_id::GameId;
use crate::fair_play::sign::SigningKey;
use crate::fair_play::turn::{
    Event, EventBody, Evidence, Mode, MoveToken, Siblings, SignedEvent, TurnBody,
};
use crate::replay::{
    Builtin, GameEnd, GameReplay, LoadedRuleset, RulesCatalog, RulesError, SpellingError,
};
use crate::ruleset_error::RulesetError;

// ----- a toy dice game -----

/// Two runners race to 12: `Roll` moves one d6, `Double` two, `Pass` none.
#[derive(Debug, Clone, Default)]
struct DiceRace {
    at: [u32; 2],
    turn: usize,
}

const GOAL: u32 = 12;

impl GameReplay for DiceRace {
    fn game(&self) -> GameKind {
        GameKind::CastleSiege
    }
    fn seats(&self) -> &'static [&'static str] {
        &["defender", "attacker"]
    }
    fn to_move(&self) -> Option<usize> {
        self.outcome().is_none().then_some(self.turn)
    }
    fn move_number(&self) -> (u32, yam_notation::Dots) {
        (1, yam_notation::Dots::One)
    }
    fn canonical_token(&self, written: &str) -> Result<String, SpellingError> {
        ["Roll", "Double", "Pass"]
            .into_iter()
            .find(|t| t.eq_ignore_ascii_case(written))
            .map(str::to_owned)
            .ok_or_else(|| SpellingError {
                expected: "Roll, Double or Pass".to_owned(),
            })
    }
    fn play(&mut self, moves: &[MoveToken], chance: &mut dyn Chance) -> Result<(), RulesError> {
        let refuse = |reason: String| RulesError {
            index: 0,
            reason,
            position: format!("{:?}", self.at),
        };
        let [token] = moves else {
            return Err(refuse("one move a turn".into()));
        };
        let dice = match token.as_str() {
            "Roll" => 1,
            "Double" => 2,
            "Pass" => 0,
            other => return Err(refuse(format!("no such move {other}"))),
        };
        let mut step = 0;
        for i in 0..dice {
            let face = chance
                .d6(&format!("die {i}"))
                .map_err(|e| refuse(e.to_string()))?;
            step += u32::from(face);
        }
        self.at[self.turn] += step;
        self.turn = 1 - self.turn;
        Ok(())
    }
    fn outcome(&self) -> Option<GameEnd> {
        if self.at[0] >= GOAL {
            Some(GameEnd {
                result: GameResult::FirstWins,
                reason: "the defender arrived".into(),
            })
        } else if self.at[1] >= GOAL {
            Some(GameEnd {
                result: GameResult::SecondWins,
                reason: "the attacker arrived".into(),
            })
        } else {
            None
        }
    }
    fn position(&self) -> String {
        format!("{:?}", self.at)
    }
    fn legal_moves(&self) -> Vec<String> {
        vec!["Roll".into(), "Double".into(), "Pass".into()]
    }
    fn boxed_clone(&self) -> Box<dyn GameReplay> {
        Box::new(self.clone())
    }
}

/// Khan from the built-in rulesets, and the toy race under Castle Siege.
struct Catalog;

impl RulesCatalog for Catalog {
    fn load_ruleset(&self, game: GameKind, name: &str) -> Result<LoadedRuleset, RulesetError> {
        match game {
            GameKind::CastleSiege if name == "race" => Ok(LoadedRuleset {
                game,
                name: name.into(),
                text: "a race to 12\n".into(),
            }),
            _ => Builtin.load_ruleset(game, name),
        }
    }
    fn start(&self, ruleset: &LoadedRuleset) -> Result<Box<dyn GameReplay>, RulesetError> {
        match ruleset.game {
            GameKind::CastleSiege => Ok(Box::new(DiceRace::default())),
            _ => Builtin.start(ruleset),
        }
    }
}

// ----- a table of two local players -----

struct Player {
    key: SigningKey,
    chain: HashChain,
}

impl Player {
    fn new(seed: u8, game: &GameId) -> Player {
        let key = SigningKey::from_seed(&[seed; 32]);
        let chain = HashChain::new(
            &ChainSecret::from_bytes([seed ^ 0x5a; 32]),
            game.clone(),
            key.public_key(),
            64,
        )
        .unwrap();
        Player { key, chain }
    }

    fn signer(&self) -> Signer<'_> {
        Signer {
            key: &self.key,
            chain: Some(&self.chain),
        }
    }
}

struct Table {
    alice: Player,
    bob: Player,
    replay: SignedReplay,
    record: Record<String>,
}

impl Table {
    fn open(game: GameKind, ruleset: &str, mode: Mode, seating: Seating) -> Table {
        let id = GameId::new(format!("test-{}", ruleset)).unwrap();
        let alice = Player::new(1, &id);
        let bob = Player::new(2, &id);
        let ruleset = Catalog.load_ruleset(game, ruleset).unwrap();
        let mut tags = Tags::new();
        for (name, value) in [
            ("Game", game.name()),
            ("Variant", "Test"),
            ("GameId", id.as_str()),
            ("Date", "2026.11.30"),
            ("Result", "*"),
            ("NotationVersion", "1"),
            ("Ruleset", ruleset.name.as_str()),
        ] {
            tags.set(name, value);
        }
        for player in game.player_tags() {
            tags.set(player, *player);
        }
        let mut record = Record::new(tags);
        let before = SignedReplay::start(&Catalog, &ruleset).unwrap();
        let (_, events) = table::open(
            &Catalog,
            &Opening {
                game: id,
                ruleset,
                mode,
                challenger: alice.signer(),
                acceptor: bob.signer(),
                seating,
            },
        )
        .unwrap();
        let replay = append_events(&mut record, &before, &events, None).unwrap();
        Table {
            alice,
            bob,
            replay,
            record,
        }
    }

    fn khan() -> Table {
        Table::open(
            GameKind::Khan,
            "magician",
            Mode::Peer,
            Seating::Chosen {
                challenger_first: true,
            },
        )
    }

    fn race(mode: Mode) -> Table {
        Table::open(
            GameKind::CastleSiege,
            "race",
            mode,
            Seating::Chosen {
                challenger_first: true,
            },
        )
    }

    /// The player to move plays `moves`, the other answers any roll.
    fn play(&mut self, moves: &[&str], prose: Option<&str>) -> Vec<SignedEvent> {
        let to_move = self.replay.to_move_key().unwrap();
        let (mover, other) = if to_move == self.alice.key.public_key() {
            (&self.alice, &self.bob)
        } else {
            (&self.bob, &self.alice)
        };
        let before = self.replay.clone();
        let moves: Vec<String> = moves.iter().map(|m| (*m).to_owned()).collect();
        let events =
            table::play(&mut self.replay, &moves, &mover.signer(), &[other.signer()]).unwrap();
        append_events(&mut self.record, &before, &events, prose).unwrap();
        events
    }

    fn text(&self) -> String {
        record_to_string::<RawGrammar>(&self.record)
    }
}

/// Parses `text`, edits the record, prints it again.
fn edit(text: &str, f: impl FnOnce(&mut Record<String>)) -> String {
    let mut record = parse_record::<RawGrammar>(text).unwrap();
    f(&mut record);
    record_to_string::<RawGrammar>(&record)
}

/// Every command of the main line, mutably, in order.
fn commands(record: &mut Record<String>) -> Vec<&mut yam_notation::Command> {
    record
        .movetext
        .iter_mut()
        .filter_map(|n| match n {
            Node::Comment(c) => Some(c),
            _ => None,
        })
        .flat_map(|c| c.parts.iter_mut())
        .filter_map(|p| match p {
            yam_notation::CommentPart::Command(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// Appends a numbered move and the comment with its event.
fn push_move(record: &mut Record<String>, token: &str, event: &SignedEvent) {
    record
        .movetext
        .push(Node::Move(token.to_owned(), Default::default()));
    let mut comment = Comment::default();
    comment.push_command(super::text::event_command(event));
    record.movetext.push(Node::Comment(comment));
}

fn collect(text: &str) -> SignedText {
    Reader::new(text.as_bytes())
        .read_game(&mut Collector::new())
        .unwrap()
        .unwrap()
}

fn verdict(text: &str) -> Verdict {
    verify_text(&collect(text), &Catalog)
}

#[track_caller]
fn verified(text: &str) -> Box<super::verify::Verified> {
    match verdict(text) {
        Verdict::Verified(v) => v,
        other => panic!("expected verified, got {other:?}\n{text}"),
    }
}

#[track_caller]
fn failure(text: &str) -> Box<super::verify::Failure> {
    match verdict(text) {
        Verdict::Failed(f) => f,
        other => panic!("expected a failure, got {other:?}\n{text}"),
    }
}

const OPENING: [&str; 4] = ["Ng3-f3", "Ae7-f6", "Nf3-e3", "Md7-e7"];

fn khan_game() -> Table {
    let mut t = Table::khan();
    t.play(&[OPENING[0]], Some("The assassin slides."));
    for m in &OPENING[1..] {
        t.play(&[m], None);
    }
    t
}

// ----- honest games -----

#[test]
fn a_khan_hot_seat_game_verifies() {
    let mut t = khan_game();
    let black = t.bob.signer();
    let before = t.replay.clone();
    let resign = table::resign(&mut t.replay, &black).unwrap();
    append_events(&mut t.record, &before, &[resign], None).unwrap();
    let text = t.text();
    assert!(text.contains("[Result \"1-0\"]"), "{text}");
    assert!(text.contains("[Mode \"peer\"]"));
    assert!(
        text.contains("1. Ng3-f3 {The assassin slides. [%event"),
        "{text}"
    );
    let v = verified(&text);
    assert!(!v.is_practice());
    assert_eq!(v.plies, 4);
    assert_eq!(v.summary.events, 7);
    assert_eq!(v.result, GameResult::FirstWins);
    assert_eq!(v.ending.unwrap().reason, "white wins: black resigned");
    assert_eq!(
        v.seats,
        vec![
            ("white", t.alice.key.public_key().fingerprint()),
            ("black", t.bob.key.public_key().fingerprint())
        ]
    );
    // The text is canonical: printing what was read changes nothing.
    let reread = parse_record::<RawGrammar>(&text).unwrap();
    assert_eq!(record_to_string::<RawGrammar>(&reread), text);
}

#[test]
fn annotating_a_verified_game_leaves_it_verified() {
    let t = khan_game();
    let mut record = parse_record::<RawGrammar>(&t.text()).unwrap();
    // A comment, a NAG and a variation after the second move, and a long
    // comment before the first.
    let at = record
        .movetext
        .iter()
        .position(|n| matches!(n, Node::Move(m, _) if m == "Ae7-f6"))
        .unwrap();
    // Another legal first move for Black.
    let mut game =
        crate::replay::start(&Catalog.load_ruleset(GameKind::Khan, "magician").unwrap()).unwrap();
    game.play(
        &[MoveToken::new("Ng3-f3").unwrap()],
        &mut crate::replay::NoChance,
    )
    .unwrap();
    let other = game
        .legal_moves()
        .into_iter()
        .find(|m| m != "Ae7-f6")
        .unwrap();
    let variation = [
        Node::Nag(Nag(6)),
        Node::Comment(Comment::text("Early, but sound {really} [sic].")),
        Node::StartVariation,
        Node::MoveNumber(1, yam_notation::Dots::Three),
        Node::Move(other.clone(), Default::default()),
        Node::Comment(Comment::text("is the other plan")),
        Node::EndVariation,
    ];
    for (i, node) in variation.into_iter().enumerate() {
        record.movetext.insert(at + 1 + i, node);
    }
    record.movetext.insert(
        0,
        Node::Comment(Comment::text(&"A long introduction. ".repeat(20))),
    );
    let annotated = record_to_string::<RawGrammar>(&record);
    assert!(
        annotated.contains(&format!("(1... {other} {{is the other")),
        "{annotated}"
    );
    let v = verified(&annotated);
    assert_eq!(v.plies, 4);
    // And the rules checker agrees the annotated record is legal.
    let report = Reader::new(annotated.as_bytes())
        .read_game(&mut crate::check::Checker::new())
        .unwrap()
        .unwrap();
    assert_eq!(report.verdict, crate::check::Verdict::Legal);
}

#[test]
fn drawn_seats_are_revealed_before_play() {
    let mut t = Table::open(
        GameKind::Khan,
        "basic",
        Mode::Peer,
        Seating::Drawn {
            salt: [3; 32],
            toss: [4; 32],
        },
    );
    let white = t.replay.seats().unwrap()[0];
    assert!(white == t.alice.key.public_key() || white == t.bob.key.public_key());
    t.play(&["Ng3-f3"], None);
    let v = verified(&t.text());
    assert_eq!(v.seats[0].1, white.fingerprint());
    assert!(v.summary.challenger_takes_first_roles.is_some());
}

#[test]
fn dice_go_through_the_roll_protocol_and_verify() {
    let mut t = Table::race(Mode::Peer);
    let events = t.play(&["Roll"], None);
    // Request, response, and the move with its outcome.
    assert_eq!(events.len(), 3);
    assert_eq!(events[1].event.author, t.bob.key.public_key());
    t.play(&["Pass"], None);
    t.play(&["double"], Some("Two dice."));
    let text = t.text();
    assert!(text.contains("[%chance 0 \"die 0: d6"), "{text}");
    assert!(text.contains("[%chance 1 \"die 0: d6"), "{text}");
    let v = verified(&text);
    assert_eq!(v.summary.rolls, 2);
    assert_eq!(v.summary.values_checked, 3);
    // Played to the end.
    while t.replay.ending().is_none() {
        t.play(&["Double"], None);
    }
    let v = verified(&t.text());
    assert!(v.result.is_finished());
    assert_eq!(v.result, t.replay.ending().unwrap().result);
}

#[test]
fn a_practice_game_verifies_as_unverified_practice() {
    let seed = Blob::new(b"open seed".to_vec()).unwrap();
    let mut t = Table::race(Mode::Practice { seed });
    let events = t.play(&["Roll"], None);
    assert_eq!(events.len(), 1);
    t.play(&["Double"], None);
    let text = t.text();
    assert!(text.contains("[PracticeSeed \"open seed\"]"));
    assert!(!text.contains("FirstAnchor"));
    let v = verified(&text);
    assert!(v.is_practice());
    assert_eq!(v.summary.rolls, 2);
    let khan = Table::open(
        GameKind::Khan,
        "rescue-khan",
        Mode::Practice {
            seed: Blob::new(b"k".to_vec()).unwrap(),
        },
        Seating::Chosen {
            challenger_first: false,
        },
    );
    let v = verified(&khan.text());
    assert!(v.is_practice());
    assert_eq!(v.seats[0].1, khan.bob.key.public_key().fingerprint());
}

#[test]
fn an_unsigned_record_is_reported_unsigned() {
    let text = include_str!("../../../examples/khan/opening-lesson.yam");
    assert!(matches!(verdict(text), Verdict::Unsigned));
}

#[test]
fn the_plain_export_keeps_prose_and_drops_evidence() {
    let mut t = Table::race(Mode::Peer);
    t.play(&["Roll"], Some("Off we go."));
    let out =
        record_to_string::<RawGrammar>(&plain(&t.record, "removed; the original verified", &[]));
    assert!(!out.contains("[%event"));
    assert!(!out.contains("FirstKey"));
    assert!(out.contains("Off we go."));
    assert!(out.contains("[%chance 0"));
    assert!(out.contains("[Evidence \"removed; the original verified\"]"));
    assert!(parse_record::<RawGrammar>(&out).is_ok());
    assert!(matches!(verdict(&out), Verdict::Unsigned));
}

// ----- attacks at record level -----

#[test]
fn a_changed_move_in_the_text_is_refused() {
    let text = khan_game().text();
    let f = failure(&text.replacen("Ae7-f6", "Ae7-e6", 1));
    assert_eq!(f.found, "Ae7-e6");
    assert!(
        f.reason
            .contains("signed event #3 signs Ae7-f6, but the movetext has Ae7-e6 here"),
        "{}",
        f.reason
    );
    // The same move spelled otherwise is the same move.
    let v = verified(&text.replacen("Ae7-f6", "ae7-F6", 1));
    assert_eq!(v.plies, 4);
}

#[test]
fn a_changed_signature_is_refused() {
    let text = khan_game().text();
    let forged = edit(&text, |r| {
        let mut cmds = commands(r);
        let event = &mut cmds[4];
        let mut sig = base64_decode(&event.args[1]);
        sig[5] ^= 1;
        event.args[1] = base64_encode(&sig);
    });
    assert_ne!(forged, text);
    let f = failure(&forged);
    assert_eq!(f.event, Some(4));
    assert_eq!(f.found, "[%event");
    assert!(
        f.reason.contains("signature does not verify"),
        "{}",
        f.reason
    );
}

#[test]
fn a_swapped_key_in_the_header_is_refused() {
    let t = khan_game();
    let text = t.text();
    let alice = hex::encode(t.alice.key.public_key().as_bytes());
    let bob = hex::encode(t.bob.key.public_key().as_bytes());
    let swapped = text
        .replace(&alice, "ALICE")
        .replace(&bob, &alice)
        .replace("ALICE", &bob);
    let f = failure(&swapped);
    assert_eq!(f.found, "FirstKey");
    assert!(f.reason.contains("the FirstKey tag says"), "{}", f.reason);
    // A missing tag, or one no event backs, is refused too.
    let f = failure(&text.replace(&format!("[FirstKey \"{alice}\"]\n"), ""));
    assert!(f.reason.contains("lacks the FirstKey tag"), "{}", f.reason);
    let f = failure(&text.replace(
        "[Mode \"peer\"]\n",
        "[Mode \"peer\"]\n[RefereeKey \"00\"]\n",
    ));
    assert!(f.reason.contains("not backed"), "{}", f.reason);
}

#[test]
fn a_changed_game_id_ruleset_or_start_is_refused() {
    let text = khan_game().text();
    let f = failure(&text.replace("[GameId \"test-magician\"]", "[GameId \"other\"]"));
    assert!(f.reason.contains("the GameId tag says"), "{}", f.reason);
    let f = failure(&text.replace("[Ruleset \"magician\"]", "[Ruleset \"basic\"]"));
    assert!(f.reason.contains("pins ruleset hash"), "{}", f.reason);
    let f = failure(&text.replace(
        "[Ruleset \"magician\"]",
        "[Ruleset \"magician\"]\n[Position \"8/8/8/8/8/8/8/8 w 0 1\"]",
    ));
    assert!(
        f.reason.contains("Position tag is not signed"),
        "{}",
        f.reason
    );
}

/// Where move `token` stands in the movetext.
fn find_move(record: &Record<String>, token: &str) -> usize {
    record
        .movetext
        .iter()
        .position(|n| matches!(n, Node::Move(m, _) if m == token))
        .unwrap()
}

#[test]
fn two_turns_swapped_are_refused() {
    let text = khan_game().text();
    // Swap Black's first move with White's second, events and all.
    let swapped = edit(&text, |r| {
        let (b1, w2) = (find_move(r, "Ae7-f6"), find_move(r, "Nf3-e3"));
        for i in 0..2 {
            r.movetext.swap(b1 + i, w2 + i);
        }
    });
    let f = failure(&swapped);
    assert_eq!(f.event, Some(3));
    assert!(f.reason.contains("the event says it is #4"), "{}", f.reason);
}

#[test]
fn a_truncated_record_is_refused() {
    let text = khan_game().text();
    // The last move kept, its event lost: the record ends in mid-turn.
    let cut = edit(&text, |r| {
        r.movetext.pop();
    });
    let f = failure(&cut);
    assert_eq!(f.found, "Md7-e7");
    assert!(f.reason.contains("not signed"), "{}", f.reason);
    // Cut in the middle of an event's text: the reader refuses it.
    let half = &text[..text.len() * 2 / 3];
    assert!(
        Reader::new(half.as_bytes())
            .read_game(&mut Collector::new())
            .is_err()
    );
}

#[test]
fn a_result_the_events_do_not_make_is_refused() {
    let text = edit(&khan_game().text(), |r| r.set_result(GameResult::FirstWins));
    let f = failure(&text);
    assert!(f.reason.contains("must be *"), "{}", f.reason);
}

#[test]
fn a_move_out_of_turn_or_illegal_is_refused_at_its_token() {
    let t = Table::khan();
    let parent = t.replay.events().last().unwrap().event.clone();
    let turn = |token: &str| {
        EventBody::Turn(TurnBody {
            moves: List::new(vec![MoveToken::new(token).unwrap()]).unwrap(),
            evidence: List::empty(),
        })
    };
    // Bob signs a turn that makes White's first move.
    let bob = &t.bob.key;
    let forged = Event::after(&parent, bob.public_key(), turn("Ng3-f3"))
        .sign(bob)
        .unwrap();
    let text = edit(&t.text(), |r| push_move(r, "Ng3-f3", &forged));
    let f = failure(&text);
    assert_eq!(f.found, "Ng3-f3");
    assert!(f.reason.contains("but it is white"), "{}", f.reason);
    // An illegal move signed by the right player.
    let alice = &t.alice.key;
    let bad = Event::after(&parent, alice.public_key(), turn("Ng3-f5"))
        .sign(alice)
        .unwrap();
    let text = edit(&t.text(), |r| push_move(r, "Ng3-f5", &bad));
    let f = failure(&text);
    assert_eq!(f.found, "Ng3-f5");
    assert!(f.reason.contains("illegal"), "{}", f.reason);
    assert!(f.help.unwrap().starts_with("position before it:"));
}

// ----- dice attacks -----

/// Changes the face of the first `[%chance]` value.
fn other_face(item: &mut String) {
    let face = item.pop().and_then(|c| c.to_digit(10)).unwrap();
    item.push_str(&(face % 6 + 1).to_string());
}

#[test]
fn a_changed_face_is_refused() {
    let mut t = Table::race(Mode::Peer);
    t.play(&["Roll"], None);
    let text = t.text();
    // In the readable values only.
    let changed = edit(&text, |r| {
        let mut cmds = commands(r);
        let chance = cmds.iter_mut().find(|c| c.name == "chance").unwrap();
        other_face(&mut chance.args[1]);
    });
    let f = failure(&changed);
    assert_eq!(f.found, "[%chance");
    assert!(
        f.reason.contains("the readable outcomes say"),
        "{}",
        f.reason
    );
    // In the signed outcomes too, re-signed by the mover, with the readable
    // value to match.
    let outcome = t.replay.events().last().unwrap().clone();
    let mut event = outcome.event.clone();
    let EventBody::Turn(turn) = &mut event.body else {
        panic!("a turn")
    };
    let mut evidence = turn.evidence.clone().into_vec();
    let Evidence::Outcomes { results, .. } = &mut evidence[0] else {
        panic!("outcomes")
    };
    let mut values = results.clone().into_vec();
    let crate::fair_play::chance::ChanceResult::Die { face, .. } = values[0].result else {
        panic!("a die")
    };
    values[0].result = crate::fair_play::chance::ChanceResult::Die {
        sides: 6,
        face: face % 6 + 1,
    };
    *results = List::new(values).unwrap();
    turn.evidence = List::new(evidence).unwrap();
    let cheat = event.sign(&t.alice.key).unwrap();
    let cheated = edit(&text, |r| {
        let mut cmds = commands(r);
        let chance = cmds.iter_mut().find(|c| c.name == "chance").unwrap();
        other_face(&mut chance.args[1]);
        let last = cmds.last_mut().unwrap();
        **last = super::text::event_command(&cheat);
    });
    let f = failure(&cheated);
    assert_eq!(f.event, Some(4));
    assert!(
        f.reason.contains("is recorded as a d6 showing ")
            && f.reason.contains("but the evidence gives a d6 showing ")
            && !f.reason.contains('{'),
        "{}",
        f.reason
    );
}

#[test]
fn outcomes_used_for_undeclared_moves_are_refused() {
    // Alice requests a roll for `Roll`, sees the outcome, and plays
    // `Double` with it instead.
    let mut t = Table::race(Mode::Peer);
    let events = t.play(&["Roll"], None);
    let outcome = &events[2];
    let mut event = outcome.event.clone();
    let EventBody::Turn(turn) = &mut event.body else {
        panic!("a turn")
    };
    turn.moves = List::new(vec![MoveToken::new("Double").unwrap()]).unwrap();
    let cheat = event.sign(&t.alice.key).unwrap();
    let mut replay = SignedReplay::start(
        &Catalog,
        &Catalog.load_ruleset(GameKind::CastleSiege, "race").unwrap(),
    )
    .unwrap();
    for e in &t.replay.events().all()[..t.replay.events().len() - 1] {
        replay.push(e).unwrap();
    }
    let err = replay.push(&cheat).unwrap_err();
    assert!(
        matches!(
            err.fault,
            super::replay::ReplayFault::UndeclaredMoves { .. }
        ),
        "{err}"
    );
    // And outcomes left out of a move: the answered roll is still open, so
    // no other move may come.
    let mut event = outcome.event.clone();
    let EventBody::Turn(turn) = &mut event.body else {
        panic!("a turn")
    };
    turn.evidence = List::empty();
    let cheat = event.sign(&t.alice.key).unwrap();
    let err = replay.push(&cheat).unwrap_err();
    assert!(
        matches!(
            err.fault,
            super::replay::ReplayFault::Record(crate::fair_play::record::Fault::RollOpen {
                what: "a move",
                ..
            })
        ),
        "{err}"
    );
}

#[test]
fn an_answered_roll_cannot_be_closed_by_an_empty_outcome_turn_and_rolled_again() {
    // Attacker helper (fair play, 3.3 "No re-roll"): Alice requests a roll
    // for `Roll`, Bob answers, and Alice, who can now compute the face,
    // dislikes it. Instead of the turn that plays `Roll` with it she signs
    // a turn with no moves whose only evidence is `Outcomes` of roll 0 with
    // no values. The answered state accepts "a turn carrying the Outcomes
    // of roll k ... whose moves are exactly the declared orders as the
    // values resolved them" (3.3): no moves are not the declared `Roll`.
    // Accepted, it closes roll 0 unplayed, Alice is still to move, and she
    // rolls again: best of N.
    let mut t = Table::race(Mode::Peer);
    let events = t.play(&["Roll"], None);
    let outcome = &events[2];
    let mut event = outcome.event.clone();
    let EventBody::Turn(turn) = &mut event.body else {
        panic!("a turn")
    };
    turn.moves = List::empty();
    turn.evidence = List::new(vec![Evidence::Outcomes {
        roll: 0,
        results: List::empty(),
    }])
    .unwrap();
    let cheat = event.sign(&t.alice.key).unwrap();
    let mut replay = SignedReplay::start(
        &Catalog,
        &Catalog.load_ruleset(GameKind::CastleSiege, "race").unwrap(),
    )
    .unwrap();
    for e in &t.replay.events().all()[..t.replay.events().len() - 1] {
        replay.push(e).unwrap();
    }
    match replay.push(&cheat) {
        Err(err) => assert!(
            matches!(
                err.fault,
                super::replay::ReplayFault::OutcomesPlayNothing { roll: 0 }
            ),
            "{err}"
        ),
        Ok(_) => {
            let open = replay.verifier().open_roll().map(|o| o.index());
            let again = table::play(
                &mut replay,
                &["Roll".to_owned()],
                &t.alice.signer(),
                &[t.bob.signer()],
            );
            panic!(
                "an empty outcome turn closed answered roll 0 without playing it \
                 (open roll now: {open:?}); Alice rolls again: {:?}",
                again.map(|e| e.len())
            );
        }
    }
    // The roll is still open, answered: the honest outcome turn plays on.
    replay.push(outcome).unwrap();
}

// ----- disputes -----

fn dispute_of(a: &str, b: &str) -> super::dispute::Dispute {
    dispute(&collect(a), &collect(b), &Catalog)
}

#[test]
fn identical_logs_and_prefixes_are_no_dispute() {
    let mut t = khan_game();
    let shorter = t.text();
    let d = dispute_of(&shorter, &shorter);
    assert!(matches!(d.relation, Relation::Identical { events: 6 }));
    assert!(!d.conflict, "{}", d.verdict);
    // The same events under a text that says otherwise.
    let lying = shorter.replacen("Ae7-f6", "Ae7-e6", 1);
    let d = dispute_of(&shorter, &lying);
    assert!(matches!(d.relation, Relation::Identical { .. }));
    assert!(d.conflict);
    assert!(d.verdict.contains("log B does not verify"), "{}", d.verdict);
    t.play(&["Wh3-f4"], None);
    let d = dispute_of(&shorter, &t.text());
    assert!(matches!(
        d.relation,
        Relation::Prefix {
            a_is_shorter: true,
            common: 6
        }
    ));
    assert!(!d.conflict);
    assert!(
        d.verdict.contains("log B is log A carried further"),
        "{}",
        d.verdict
    );
}

#[test]
fn equivocation_is_proven_and_named() {
    let base = khan_game();
    let mut a = Table {
        alice: Player::new(1, &GameId::new("test-magician").unwrap()),
        bob: Player::new(2, &GameId::new("test-magician").unwrap()),
        replay: base.replay.clone(),
        record: base.record.clone(),
    };
    let mut b = Table {
        alice: Player::new(1, &GameId::new("test-magician").unwrap()),
        bob: Player::new(2, &GameId::new("test-magician").unwrap()),
        replay: base.replay.clone(),
        record: base.record.clone(),
    };
    // White signs two different third moves; Black answers only one.
    a.play(&["Wh3-f4"], None);
    a.play(&["Kb7-c6"], None);
    b.play(&["Ag4-f3"], None);
    let d = dispute_of(&a.text(), &b.text());
    let Relation::Fork(fork) = &d.relation else {
        panic!("a fork: {}", d.verdict)
    };
    assert_eq!(fork.seq, 6);
    let proof = fork.proof().expect("a proof of equivocation");
    assert_eq!(proof.culprit(), &a.alice.key.public_key());
    assert_eq!(proof.verify(), Ok(()));
    assert!(d.conflict);
    let white = a.alice.key.public_key().fingerprint().to_string();
    assert!(
        d.verdict
            .starts_with(&format!("white ({white}) equivocated")),
        "{}",
        d.verdict
    );
    assert!(d.verdict.contains("only branch A"), "{}", d.verdict);
}

/// Adversary: the equivocator himself, handing the director his own log.
/// White signed two different third moves; Black answered only the one of
/// log A. White's log B carries his other move, then Black's genuine
/// answer copied from branch A (its signature is Black's, its parent is
/// branch A's move, so it links to nothing in branch B) and an event he
/// signed with a throw-away key that is no party of the game. Neither is a
/// signature of the other side on branch B, yet the dispute counts both as
/// signers of branch B ("black signed branch B", "the other side
/// acknowledged only branch B"): the verdict must still say that the other
/// side acknowledged only branch A, and name no one as a signer of branch
/// B but the equivocator.
#[test]
fn events_that_do_not_belong_to_a_branch_do_not_count_as_acknowledging_it() {
    let base = khan_game();
    let fresh = || Table {
        alice: Player::new(1, &GameId::new("test-magician").unwrap()),
        bob: Player::new(2, &GameId::new("test-magician").unwrap()),
        replay: base.replay.clone(),
        record: base.record.clone(),
    };
    let (mut a, mut b) = (fresh(), fresh());
    a.play(&["Wh3-f4"], None);
    let black_answer = a.play(&["Kb7-c6"], None).remove(0);
    let white_other = b.play(&["Ag4-f3"], None).remove(0);
    let stranger = SigningKey::from_seed(&[0x77; 32]);
    let strangers = Event::after(
        &white_other.event,
        stranger.public_key(),
        EventBody::Turn(TurnBody {
            moves: List::new(vec![MoveToken::new("Kb7-c6").unwrap()]).unwrap(),
            evidence: List::empty(),
        }),
    )
    .sign(&stranger)
    .unwrap();
    let b_text = edit(&b.text(), |r| {
        push_move(r, "Kb7-c6", &black_answer);
        push_move(r, "Kb7-c6", &strangers);
    });
    let d = dispute_of(&a.text(), &b_text);
    let Relation::Fork(fork) = &d.relation else {
        panic!("a fork: {}", d.verdict)
    };
    assert_eq!(
        fork.proof().map(|p| *p.culprit()),
        Some(a.alice.key.public_key())
    );
    assert!(
        d.verdict.contains("acknowledged only branch A"),
        "{}\n{:#?}",
        d.verdict,
        d.reasons
    );
    let black = a.bob.key.public_key().fingerprint().to_string();
    assert!(
        !d.reasons
            .iter()
            .any(|r| r.contains(&black) && r.contains("signed branch B")),
        "Black signed nothing in branch B: {:#?}",
        d.reasons
    );
}

#[test]
fn a_forged_branch_is_void() {
    let base = khan_game();
    let mut a = Table {
        alice: Player::new(1, &GameId::new("test-magician").unwrap()),
        bob: Player::new(2, &GameId::new("test-magician").unwrap()),
        replay: base.replay.clone(),
        record: base.record.clone(),
    };
    a.play(&["Wh3-f4"], None);
    // Mallory writes a White move in Alice's name and signs it herself.
    let mallory = SigningKey::from_seed(&[9; 32]);
    let parent = base.replay.events().last().unwrap().event.clone();
    let mut event = Event::after(
        &parent,
        a.alice.key.public_key(),
        EventBody::Turn(TurnBody {
            moves: List::new(vec![MoveToken::new("Ag4-f3").unwrap()]).unwrap(),
            evidence: List::empty(),
        }),
    );
    event.author = mallory.public_key();
    let mut forged = event.sign(&mallory).unwrap();
    forged.event.author = a.alice.key.public_key();
    let b_text = edit(&base.text(), |r| push_move(r, "Ag4-f3", &forged));
    let d = dispute_of(&a.text(), &b_text);
    let Relation::Fork(fork) = &d.relation else {
        panic!("a fork")
    };
    assert!(fork.proof().is_none());
    assert!(fork.siblings.is_err());
    assert!(d.b.failure().is_some());
    assert!(d.verdict.contains("branch B is void"), "{}", d.verdict);
}

#[test]
fn crossing_messages_are_not_equivocation() {
    let base = khan_game();
    let mut a = Table {
        alice: Player::new(1, &GameId::new("test-magician").unwrap()),
        bob: Player::new(2, &GameId::new("test-magician").unwrap()),
        replay: base.replay.clone(),
        record: base.record.clone(),
    };
    // White moves while Black, at the same time, offers a draw.
    a.play(&["Wh3-f4"], None);
    let mut b_replay = base.replay.clone();
    let offer = table::offer_draw(&mut b_replay, &a.bob.signer()).unwrap();
    let mut b_record = base.record.clone();
    append_events(&mut b_record, &base.replay, &[offer], None).unwrap();
    let d = dispute_of(&a.text(), &record_to_string::<RawGrammar>(&b_record));
    let Relation::Fork(fork) = &d.relation else {
        panic!("a fork")
    };
    assert!(matches!(fork.siblings, Ok(Siblings::Crossing { .. })));
    assert!(
        d.verdict.contains("crossing messages, both valid"),
        "{}",
        d.verdict
    );
}

#[test]
fn draws_are_offered_and_accepted_through_the_harness() {
    let mut t = khan_game();
    let before = t.replay.clone();
    let alice = t.alice.signer();
    let bob = t.bob.signer();
    let offer = table::offer_draw(&mut t.replay, &alice).unwrap();
    assert_eq!(
        table::answer_draw(&mut t.replay.clone(), &alice, true),
        Err(table::TableError::NoDrawOffer)
    );
    let answer = table::answer_draw(&mut t.replay, &bob, true).unwrap();
    append_events(&mut t.record, &before, &[offer, answer], None).unwrap();
    let v = verified(&t.text());
    assert_eq!(v.result, GameResult::Draw);
    assert!(matches!(
        table::play(&mut t.replay, &["Wh3-f4".into()], &alice, &[bob]),
        Err(table::TableError::NotYourTurn { .. })
    ));
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

fn base64_encode(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

#[test]
fn hostile_text_never_panics_the_verifier_or_the_dispute() {
    use proptest::prelude::*;
    let mut race = Table::race(Mode::Peer);
    race.play(&["Roll"], Some("go"));
    let texts = [khan_game().text(), race.text()];
    proptest!(ProptestConfig::with_cases(48), |(
        which in 0usize..2,
        cut in 0.0f64..1.0,
        flips in proptest::collection::vec((0.0f64..1.0, any::<u8>()), 0..4),
    )| {
        let mut bytes = texts[which].clone().into_bytes();
        for (at, byte) in flips {
            let i = ((bytes.len() as f64) * at) as usize;
            if let Some(b) = bytes.get_mut(i) {
                *b = byte;
            }
        }
        let keep = ((bytes.len() as f64) * (0.5 + cut / 2.0)) as usize;
        bytes.truncate(keep);
        let mut reader = Reader::new(&bytes[..]);
        if let Ok(Some(text)) = reader.read_game(&mut Collector::new()) {
            let _ = verify_text(&text, &Catalog);
            let _ = dispute(&text, &collect(&texts[which]), &Catalog);
        }
    });
}

#[test]
fn an_accepted_takeback_restores_the_game() {
    let mut t = khan_game();
    // White asks to go back to the position after Black's first move
    // (event #3); Black agrees; White plays another second move.
    let sign_next = |replay: &SignedReplay, key: &SigningKey, body: EventBody| {
        let parent = replay.events().last().unwrap().event.clone();
        Event::after(&parent, key.public_key(), body)
            .sign(key)
            .unwrap()
    };
    let before = t.replay.clone();
    let offer = sign_next(
        &t.replay,
        &t.alice.key,
        EventBody::TakebackOffer { back_to: 3 },
    );
    t.replay.push(&offer).unwrap();
    let answer = sign_next(
        &t.replay,
        &t.bob.key,
        EventBody::TakebackAnswer {
            offer: offer.hash(),
            accepted: true,
        },
    );
    t.replay.push(&answer).unwrap();
    append_events(&mut t.record, &before, &[offer, answer], None).unwrap();
    assert_eq!(t.replay.plies(), 2);
    assert_eq!(t.replay.to_move_key(), Some(t.alice.key.public_key()));
    t.play(&["Wh3-f4"], None);
    let v = verified(&t.text());
    assert_eq!(v.plies, 3);
    // A take-back into the opening is refused by the fair-play layer.
    let mut replay = t.replay.clone();
    let bad = sign_next(&replay, &t.bob.key, EventBody::TakebackOffer { back_to: 0 });
    assert!(replay.push(&bad).is_err());
}

// ----- the per-party steps, as two machines take them by mail -----

#[test]
fn each_party_signs_only_its_own_steps_and_the_duty_says_whose() {
    use super::table::{ChallengeSpec, Duty, SeatChoice, next_duty};
    let id = GameId::new("test-steps").unwrap();
    let (alice, bob, mallory) = (
        Player::new(1, &id),
        Player::new(2, &id),
        Player::new(3, &id),
    );
    let ruleset = Catalog.load_ruleset(GameKind::CastleSiege, "race").unwrap();
    let (mut replay, _) = table::challenge(
        &Catalog,
        &ChallengeSpec {
            game: id.clone(),
            ruleset,
            mode: Mode::Peer,
            challenger: alice.signer(),
            invited: bob.key.public_key(),
            seats: SeatChoice::Drawn { salt: [9; 32] },
        },
    )
    .unwrap();
    let (a, b) = (alice.key.public_key(), bob.key.public_key());
    assert_eq!(next_duty(&replay), Some(Duty::Accept(b)));
    // Only the invited player accepts, and a drawn seat needs its toss.
    let refused = table::accept(&mut replay.clone(), &mallory.signer(), Some([1; 32]));
    assert!(refused.unwrap_err().to_string().contains("invites"));
    let refused = table::accept(&mut replay.clone(), &bob.signer(), None);
    assert!(refused.unwrap_err().to_string().contains("toss"));
    table::accept(&mut replay, &bob.signer(), Some([1; 32])).unwrap();
    assert_eq!(next_duty(&replay), Some(Duty::RevealSeats(a)));
    // Another salt than the committed one is refused by the verifier.
    assert!(table::reveal_seats(&mut replay.clone(), &alice.signer(), [8; 32]).is_err());
    table::reveal_seats(&mut replay, &alice.signer(), [9; 32]).unwrap();
    let mover = next_duty(&replay).unwrap();
    let Duty::Move(first) = mover else {
        panic!("{mover:?}")
    };
    let (m, o) = if first == a {
        (&alice, &bob)
    } else {
        (&bob, &alice)
    };
    // The mover requests; the other party alone may respond; then the
    // mover alone completes, with the orders it declared.
    let orders = match table::prepare(&replay, &["Roll".to_owned()], &m.signer()).unwrap() {
        table::Prepared::Roll(orders) => orders,
        other => panic!("{other:?}"),
    };
    assert!(table::request_roll(&mut replay.clone(), &orders, &o.signer(), "").is_err());
    table::request_roll(&mut replay, &orders, &m.signer(), "").unwrap();
    assert_eq!(next_duty(&replay), Some(Duty::Respond(o.key.public_key())));
    assert!(table::respond(&mut replay.clone(), &m.signer()).is_err());
    assert!(table::complete_roll(&mut replay.clone(), &m.signer()).is_err());
    table::respond(&mut replay, &o.signer()).unwrap();
    assert_eq!(
        next_duty(&replay),
        Some(Duty::CompleteRoll(m.key.public_key()))
    );
    let refused = table::complete_roll(&mut replay.clone(), &o.signer()).unwrap_err();
    assert!(refused.to_string().contains("turn"), "{refused}");
    let done = table::complete_roll(&mut replay, &m.signer()).unwrap();
    let EventBody::Turn(turn) = &done.event.body else {
        panic!()
    };
    assert_eq!(turn.moves.len(), 1);
    assert!(turn.moves[0].as_str().starts_with("Roll"));
    assert_eq!(next_duty(&replay), Some(Duty::Move(o.key.public_key())));
}

#[test]
fn take_backs_answer_the_latest_offer_and_never_pass_a_roll() {
    use super::table::{Duty, next_duty};
    let mut t = Table::khan();
    t.play(&["Ng3-f3"], None);
    t.play(&["Ae7-f6"], None);
    let white = t.replay.to_move_key().unwrap();
    let (w, b) = if white == t.alice.key.public_key() {
        (&t.alice, &t.bob)
    } else {
        (&t.bob, &t.alice)
    };
    let before_white = t.replay.events().len() as u32 - 3;
    table::offer_takeback(&mut t.replay, &w.signer(), before_white).unwrap();
    assert_eq!(
        next_duty(&t.replay),
        Some(Duty::AnswerTakeback(b.key.public_key()))
    );
    // The offerer cannot answer its own offer.
    assert_eq!(
        table::answer_takeback(&mut t.replay.clone(), &w.signer(), true),
        Err(table::TableError::NoTakebackOffer)
    );
    table::answer_takeback(&mut t.replay, &b.signer(), true).unwrap();
    assert_eq!(next_duty(&t.replay), Some(Duty::Move(white)));
    assert!(t.replay.game().legal_moves().contains(&"Ng3-f3".to_owned()));

    // The record: the taken-back move stays in the main line with its
    // event, the other move follows; read literally it is misnumbered,
    // read as its events have it, it is the game as it stands.
    let mut t = Table::khan();
    t.play(&["Ng3-f3"], None);
    t.play(&["Ae7-f6"], Some("Black's reply."));
    t.play(&["Nf3-e3"], None);
    let white = t.replay.to_move_key().unwrap();
    let alice_white = white == t.alice.key.public_key();
    let back_to = t.replay.events().len() as u32 - 3;
    let (white, black) = if alice_white {
        (t.alice.signer(), t.bob.signer())
    } else {
        (t.bob.signer(), t.alice.signer())
    };
    let before = t.replay.clone();
    let offer = table::offer_takeback(&mut t.replay, &black, back_to).unwrap();
    append_events(&mut t.record, &before, &[offer], None).unwrap();
    let before = t.replay.clone();
    let accepted = table::answer_takeback(&mut t.replay, &white, true).unwrap();
    append_events(&mut t.record, &before, &[accepted], None).unwrap();
    t.play(&["Ae7-e6"], None);
    let text = t.text();
    assert!(text.contains("1... Ae7-f6"), "{text}");
    let v = verified(&text);
    let last = t.replay.events().len() as u32 - 2;
    assert_eq!(v.taken_back, [back_to + 1..=last]);
    assert_eq!(v.plies, 2);
    let mut report = Reader::new(text.as_bytes())
        .read_game(&mut crate::check::Checker::new())
        .unwrap()
        .unwrap();
    let crate::check::Verdict::Illegal(literal) = &report.verdict else {
        panic!("read literally, the main line breaks the rules: {report:?}")
    };
    assert_eq!(literal.token, "Ae7-e6");
    super::verify::follow_takebacks(&mut report, &v, 0);
    assert_eq!(report.verdict, crate::check::Verdict::Legal);
    assert_eq!(report.plies, 2);
    // With variations, the literal reading cannot place them: not checked.
    let mut report = Reader::new(text.as_bytes())
        .read_game(&mut crate::check::Checker::new())
        .unwrap()
        .unwrap();
    super::verify::follow_takebacks(&mut report, &v, 1);
    assert!(matches!(
        report.verdict,
        crate::check::Verdict::RulesNotChecked(_)
    ));
    // The plain copy writes the taken-back move, and its prose, as a comment
    // where it was played; its main line is the game as it stands.
    let out = record_to_string::<RawGrammar>(&plain(&t.record, "plain", &v.taken_back));
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("1. Ng3-f3 {taken back by agreement: 1... Ae7-f6 Black's reply. 2. Nf3-e3} 1... Ae7-e6 *"),
        "{out}"
    );
    let report = Reader::new(out.as_bytes())
        .read_game(&mut crate::check::Checker::new())
        .unwrap()
        .unwrap();
    assert_eq!(report.verdict, crate::check::Verdict::Legal);
    assert_eq!(report.plies, 2);
    // The game as it stands (what show and the pages give) has the plain
    // copy's main line; with nothing taken back it is the record itself.
    let standing = super::write::standing(&t.record, &v.taken_back);
    assert!(matches!(standing, std::borrow::Cow::Owned(_)));
    assert_eq!(
        standing.movetext,
        plain(&t.record, "plain", &v.taken_back).movetext
    );
    assert!(matches!(
        super::write::standing(&t.record, &[]),
        std::borrow::Cow::Borrowed(r) if std::ptr::eq(r, &t.record)
    ));

    // In the dice race, a take-back to before a roll is refused.
    let mut r = Table::race(Mode::Peer);
    r.play(&["Roll"], None);
    let mover = r.replay.to_move_key().unwrap();
    let m = if mover == r.alice.key.public_key() {
        &r.alice
    } else {
        &r.bob
    };
    let refused = table::offer_takeback(&mut r.replay.clone(), &m.signer(), 2).unwrap_err();
    assert!(
        refused.to_string().contains("roll") || refused.to_string().contains("chance"),
        "{refused}"
    );
}

#[test]
fn known_events_skip_only_their_own_signatures() {
    use super::verify::{Known, Rejected, replay_text_knowing};
    let mut t = Table::race(Mode::Peer);
    t.play(&["Roll"], None);
    t.play(&["Pass"], None);
    let before = t.replay.events().to_vec();
    t.play(&["Double"], None);
    let text = t.text();
    let all = t.replay.events().to_vec();
    // The stored prefix known, the new events checked: the same replay.
    let known = replay_text_knowing(&collect(&text), &Catalog, Known::Events(&before)).unwrap();
    assert_eq!(known.events(), &all[..]);

    // A new event with a broken signature is refused, known prefix or not.
    let last = all.last().unwrap();
    let mut forged = last.clone();
    let mut sig = forged.signature.to_bytes();
    sig[5] ^= 1;
    forged.signature = crate::fair_play::sign::Signature::from_bytes(sig);
    let bad = text.replace(
        &super::text::event_command(last).args[1],
        &super::text::event_command(&forged).args[1],
    );
    assert_ne!(bad, text);
    let refused = |known| match replay_text_knowing(&collect(&bad), &Catalog, known) {
        Err(Rejected::Failed(f)) => f.reason,
        other => panic!("{other:?}"),
    };
    assert!(refused(Known::Events(&before)).contains("signature"));
    // Known events must match signature and all: a stored copy with the
    // original signature does not vouch for a changed one.
    assert!(refused(Known::Events(&all)).contains("signature"));
    // Only a record Yam wrote itself is trusted whole (its signatures
    // unchecked, all else checked).
    assert!(replay_text_knowing(&collect(&bad), &Catalog, Known::Everything).is_ok());
}

/// A replay with a checkpoint: the covered events' signatures unchecked,
/// the answer always the one a replay from nothing gives.
#[test]
fn a_checkpoint_vouches_only_for_the_events_it_was_made_of() {
    use super::checkpoint::Checkpoint;
    use super::verify::{Known, Rejected, replay_text_knowing};
    let mut t = Table::race(Mode::Peer);
    t.play(&["Roll"], None);
    t.play(&["Pass"], None);
    let before = t.replay.events().to_vec();
    let checkpoint = Checkpoint::of_events(&before).unwrap();
    assert!(checkpoint.matches(&before));
    assert_eq!(Checkpoint::of(&t.replay), Some(checkpoint));
    t.play(&["Double"], None);
    let text = t.text();
    let all = t.replay.events().to_vec();
    assert!(checkpoint.matches(&all), "a longer record keeps the prefix");
    let replayed =
        replay_text_knowing(&collect(&text), &Catalog, Known::Checkpoint(&checkpoint)).unwrap();
    assert_eq!(replayed.events(), &all[..]);

    // Any changed signature, covered or new, is refused: a covered one
    // fails the seal and the record is verified whole.
    let refused = |text: &str, known| match replay_text_knowing(&collect(text), &Catalog, known) {
        Err(Rejected::Failed(f)) => f,
        other => panic!("{other:?}"),
    };
    for seq in [1, before.len() - 1, all.len() - 1] {
        let mut forged = all[seq].clone();
        let mut sig = forged.signature.to_bytes();
        sig[5] ^= 1;
        forged.signature = crate::fair_play::sign::Signature::from_bytes(sig);
        let bad = text.replace(
            &super::text::event_command(&all[seq]).args[1],
            &super::text::event_command(&forged).args[1],
        );
        assert_ne!(bad, text);
        let mut changed = all.clone();
        changed[seq] = forged;
        assert_eq!(checkpoint.matches(&changed), seq >= before.len());
        let f = refused(&bad, Known::Checkpoint(&checkpoint));
        assert!(f.reason.contains("signature"), "{}", f.reason);
        assert_eq!(f.event, Some(u32::try_from(seq).unwrap()));
    }

    // Another game's checkpoint vouches for nothing here, and the record
    // still verifies (from nothing).
    let foreign = Checkpoint::of(&khan_game().replay).unwrap();
    assert!(!foreign.matches(&all));
    assert!(replay_text_knowing(&collect(&text), &Catalog, Known::Checkpoint(&foreign)).is_ok());

    // A record cut before the checkpoint's end does not match it.
    assert!(!checkpoint.matches(&all[..before.len() - 1]));
    let covers: Vec<bool> = (0..all.len()).map(|i| checkpoint.covers(i)).collect();
    assert_eq!(covers.iter().filter(|c| **c).count(), before.len());
}

/// A record that continues a replayed prefix (a record about to be
/// written) gets the verdict a replay of it from nothing gives, and only
/// its new items are walked.
#[test]
fn a_continued_record_gets_the_verdict_of_a_whole_replay() {
    use super::verify::{Known, Rejected, replay_text, replay_text_continuing};
    let mut t = Table::race(Mode::Peer);
    t.play(&["Roll"], None);
    t.play(&["Pass"], None);
    let prefix_text = t.text();
    let prefix = collect(&prefix_text);
    let before = replay_text(&prefix, &Catalog).unwrap();
    t.play(&["Double"], None);
    let text = t.text();
    let all = t.replay.events().to_vec();
    let verdict = |result: Result<SignedReplay, Rejected>| match result {
        Ok(replay) => Ok(replay.events().to_vec()),
        Err(Rejected::Failed(f)) => Err((f.reason, f.span, f.event)),
        Err(Rejected::Unsigned) => Err(("unsigned".to_owned(), Default::default(), None)),
    };
    let both = |text: &str| {
        let signed = collect(text);
        let whole = verdict(replay_text(&signed, &Catalog));
        let continued = verdict(replay_text_continuing(
            &signed,
            &Catalog,
            Known::Nothing,
            &prefix,
            &before,
        ));
        assert_eq!(continued, whole, "{text}");
        whole
    };
    assert_eq!(both(&text), Ok(all.clone()));

    // A new event's signature forged; a prefix event's (the prefix no
    // longer the one replayed: the record is replayed whole); the GameId
    // changed; the result claimed; a new move's copy changed.
    let forged_signature = |event: &SignedEvent| {
        let mut forged = event.clone();
        let mut sig = forged.signature.to_bytes();
        sig[5] ^= 1;
        forged.signature = crate::fair_play::sign::Signature::from_bytes(sig);
        super::text::event_command(&forged).args[1].clone()
    };
    let forge = |seq: usize| {
        text.replace(
            &super::text::event_command(&all[seq]).args[1],
            &forged_signature(&all[seq]),
        )
    };
    let id = all[0].event.game.as_str().to_owned();
    let spoiled = [
        forge(all.len() - 1),
        forge(1),
        text.replacen(&format!("[GameId \"{id}\"]"), "[GameId \"other\"]", 1),
        {
            // Another result claimed.
            let body = text.trim_end();
            let last = &body[body.rfind('\n').unwrap() + 1..];
            let other = if last == "0-1" { "1-0" } else { "0-1" };
            format!("{}{other}\n", &body[..body.len() - last.len()]).replacen(
                &format!("[Result \"{last}\"]"),
                &format!("[Result \"{other}\"]"),
                1,
            )
        },
        {
            let at = text.rfind("Double").unwrap();
            format!("{}Pass{}", &text[..at], &text[at + 6..])
        },
    ];
    for bad in &spoiled {
        assert_ne!(bad, &text);
        assert!(both(bad).is_err(), "{bad}");
    }

    // The prefix is taken as replayed, not walked again: a prefix replayed
    // trusting a forged signature (a caller's promise broken) continues,
    // which shows that only the new items are walked.
    let forged = collect(&forge(1));
    let cut = collect(&prefix_text.replace(
        &super::text::event_command(&all[1]).args[1],
        &forged_signature(&all[1]),
    ));
    assert!(replay_text(&cut, &Catalog).is_err());
    let at_prefix = super::verify::replay_text_knowing(&cut, &Catalog, Known::Everything).unwrap();
    assert!(replay_text_continuing(&forged, &Catalog, Known::Nothing, &cut, &at_prefix).is_ok());
    assert!(replay_text(&forged, &Catalog).is_err());
}

/// The seats of a Khan table: (White's signer, Black's signer).
macro_rules! khan_sides {
    ($t:expr) => {{
        let white = $t.replay.seats().unwrap()[0];
        if white == $t.alice.key.public_key() {
            ($t.alice.signer(), $t.bob.signer())
        } else {
            ($t.bob.signer(), $t.alice.signer())
        }
    }};
}

/// The player to move plays the first legal move.
fn play_any(t: &mut Table) {
    let m = t.replay.game().legal_moves()[0].clone();
    t.play(&[&m], None);
}

/// `table::$act` by `$who` with `$arg` on `$t`'s replay, its event
/// appended to `$t`'s record.
macro_rules! act_and_append {
    ($t:expr, $act:ident, $who:expr) => {{
        let before = $t.replay.clone();
        let event = table::$act(&mut $t.replay, $who).unwrap();
        append_events(&mut $t.record, &before, &[event], None).unwrap();
    }};
    ($t:expr, $act:ident, $who:expr, $arg:expr) => {{
        let before = $t.replay.clone();
        let event = table::$act(&mut $t.replay, $who, $arg).unwrap();
        append_events(&mut $t.record, &before, &[event], None).unwrap();
    }};
}

/// Four Khan moves, then two crossing take-back offers, White's to `x`
/// (after Black's first move) and Black's to `y` (after White's first),
/// and White accepting Black's: the game is back at `y`, White's offer
/// still open. Returns the table, `x` and `y`.
fn crossing_takebacks_once_accepted() -> (Table, u32, u32) {
    let mut t = Table::khan();
    for m in ["Ng3-f3", "Ae7-f6", "Nf3-e3", "Af6-e5"] {
        t.play(&[m], None);
    }
    let n = t.replay.events().len() as u32;
    let (x, y) = (n - 2, n - 4);
    let (w, b) = khan_sides!(t);
    act_and_append!(t, offer_takeback, &w, x);
    act_and_append!(t, offer_takeback, &b, y);
    act_and_append!(t, answer_takeback, &w, true);
    (t, x, y)
}

/// A hand-signed acceptance of the take-back offer at event `offer_at`,
/// by `who`, pushed on a copy of the replay: what the replay says.
fn accept_by_hand(replay: &SignedReplay, who: &Signer<'_>, offer_at: usize) -> String {
    let offer = replay.events().get(offer_at).unwrap().hash();
    let body = EventBody::TakebackAnswer {
        offer,
        accepted: true,
    };
    table::next_event(&mut replay.clone(), who.key, body)
        .unwrap_err()
        .to_string()
}

#[test]
fn a_takeback_never_brings_back_moves_an_earlier_one_undid() {
    // Two crossing offers, both accepted one after the other: the second
    // would restore a position of the line the first undid, and the record
    // would read three ways (the replay's game, the main line with the
    // take-backs followed, the plain copy). The second offer was made in
    // the line the first acceptance undid, so it ended with that line (no
    // offer to accept, by the harness or by a hand-signed answer); a new
    // offer into the line is refused with its reason; play goes on and
    // the readings agree.
    let (mut t, x, y) = crossing_takebacks_once_accepted();
    let (_, b) = khan_sides!(t);
    let accepted_at = t.replay.events().len() as u32 - 1;
    let undone = y + 1..=accepted_at;
    assert_eq!(t.replay.taken_back(), std::slice::from_ref(&undone));
    // The stale offer to x (White's, event accepted_at - 2): ended.
    assert_eq!(table::open_takeback(&t.replay, &b.public_key()), None);
    assert_eq!(
        table::answer_takeback(&mut t.replay.clone(), &b, true),
        Err(table::TableError::NoTakebackOffer)
    );
    let refused = accept_by_hand(&t.replay, &b, accepted_at as usize - 2);
    assert!(refused.contains("no open offer"), "{refused}");
    // A new offer into the undone line (to x, or to any event of it):
    // refused when it is made.
    for into in [x, y + 1] {
        let err = table::offer_takeback(&mut t.replay.clone(), &b, into).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&format!(
                "a take-back to event #{into} goes back into the moves that events #{} to #{accepted_at} took back",
                y + 1
            )),
            "{text}"
        );
    }
    // To the acceptance itself (the restored game) or before the undone
    // line: offered as ever.
    assert!(table::offer_takeback(&mut t.replay.clone(), &b, accepted_at).is_ok());
    assert!(table::offer_takeback(&mut t.replay.clone(), &b, y).is_ok());
    // Play goes on and the three readings agree.
    t.play(&["Ae7-e6"], None);
    let text = t.text();
    let v = verified(&text);
    assert_eq!(v.taken_back, [undone]);
    assert_eq!(v.plies, 2);
    let mut report = Reader::new(text.as_bytes())
        .read_game(&mut crate::check::Checker::new())
        .unwrap()
        .unwrap();
    super::verify::follow_takebacks(&mut report, &v, 0);
    assert_eq!(report.verdict, crate::check::Verdict::Legal);
    assert_eq!(report.plies, 2);
    let out = record_to_string::<RawGrammar>(&plain(&t.record, "plain", &v.taken_back));
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("1... Ae7-e6 *"), "{out}");
}

#[test]
fn a_tip_remembers_what_take_backs_undid() {
    // The crossing offers of
    // `a_takeback_never_brings_back_moves_an_earlier_one_undid`, with the
    // game stored (a tip written) after the first acceptance, as a desk,
    // the robot and the hot-seat store every turn: the replay restored
    // from the tip refuses a take-back into the undone line and the stale
    // acceptance as a whole replay does (a tip of format 5 forgot the
    // take-backs, and took it).
    use super::tip::{Bounds, Tip};
    let (t, x, _) = crossing_takebacks_once_accepted();
    let (_, b) = khan_sides!(t);
    let stored = t.text();
    let bounds = Bounds::of(&stored, &collect(&stored)).unwrap();
    let tip = Tip::save(&t.replay, &stored, bounds).unwrap();
    let tip: super::log::SharedBytes = std::sync::Arc::new(tip);
    let (restored, _, _) = Tip::restore(&tip, &stored, &Catalog).unwrap();
    assert_eq!(restored.taken_back(), t.replay.taken_back());
    let stale = t.replay.events().len() - 3;
    assert_eq!(
        accept_by_hand(&restored, &b, stale),
        accept_by_hand(&t.replay, &b, stale)
    );
    let refused = table::offer_takeback(&mut restored.clone(), &b, x)
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("goes back into the moves that events"),
        "{refused}"
    );
}

#[test]
fn an_offer_passes_the_pen_so_the_silent_party_owes_the_answer() {
    // White offers on its own move and Black stays silent: the duty is
    // Black's answer, so Black owes the next event. Until the thirty-second
    // step the replay said White owed it: White's desk could not move (the
    // answer was awaited) nor claim, and Black could claim a forfeit
    // against the player it kept waiting.
    use super::table::{Duty, next_duty};
    for takeback in [false, true] {
        let mut t = khan_game();
        let (w, b) = khan_sides!(t);
        let (wk, bk) = (w.public_key(), b.public_key());
        if takeback {
            let back_to = t.replay.events().len() as u32 - 3;
            table::offer_takeback(&mut t.replay, &w, back_to).unwrap();
            assert_eq!(next_duty(&t.replay), Some(Duty::AnswerTakeback(bk)));
        } else {
            table::offer_draw(&mut t.replay, &w).unwrap();
            assert_eq!(next_duty(&t.replay), Some(Duty::AnswerDraw(bk)));
        }
        assert_eq!(t.replay.owing(), vec![bk]);
        let refused =
            table::claim_forfeit(&mut t.replay.clone(), &b, wk, "no move in 15 days", None);
        assert!(refused.is_err());
        table::claim_forfeit(&mut t.replay, &w, bk, "no answer in 15 days", None).unwrap();
        let (allowed, _) = t.replay.allowed_results();
        let white_wins = if t.replay.seats().unwrap()[0] == wk {
            GameResult::FirstWinsByForfeit
        } else {
            GameResult::SecondWinsByForfeit
        };
        assert_eq!(allowed, [GameResult::Unfinished, white_wins]);
    }
}

#[test]
fn an_offer_answered_after_the_other_side_played_on_is_refused() {
    // White offers a draw (or a take-back); Black plays on and, many moves
    // later in a lost position, accepts. Playing on declined the offer.
    for takeback in [false, true] {
        let mut t = khan_game();
        let (w, _) = khan_sides!(t);
        let before = t.replay.clone();
        let offer = if takeback {
            let back_to = t.replay.events().len() as u32 - 3;
            table::offer_takeback(&mut t.replay, &w, back_to).unwrap()
        } else {
            table::offer_draw(&mut t.replay, &w).unwrap()
        };
        append_events(&mut t.record, &before, &[offer], None).unwrap();
        for _ in 0..10 {
            play_any(&mut t);
        }
        let (_, b) = khan_sides!(t);
        let late = if takeback {
            table::answer_takeback(&mut t.replay.clone(), &b, true)
        } else {
            table::answer_draw(&mut t.replay.clone(), &b, true)
        };
        assert!(late.is_err(), "{late:?}");
        assert!(
            t.replay
                .open_offers_of_kind(OfferKind::Draw)
                .next()
                .is_none()
        );
        assert_eq!(table::open_takeback(&t.replay, &b.public_key()), None);
        assert_eq!(verified(&t.text()).result, GameResult::Unfinished);
    }
}

#[test]
fn a_forfeit_claim_is_withdrawn_when_its_claimant_plays_on() {
    // Black claims a forfeit the moment White is to move (a record proves
    // no time); White moves, and Black plays on: Black played with the
    // party it said had gone, and may not write the forfeit result later.
    let mut t = khan_game();
    let (w, b) = khan_sides!(t);
    let wk = w.public_key();
    let before = t.replay.clone();
    let claim = table::claim_forfeit(&mut t.replay, &b, wk, "no move in 15 days", None).unwrap();
    append_events(&mut t.record, &before, &[claim], None).unwrap();
    assert_eq!(t.replay.claims().len(), 1);
    // White's own move does not withdraw Black's claim: a director judges it.
    play_any(&mut t);
    assert_eq!(t.replay.claims().len(), 1);
    play_any(&mut t);
    assert!(t.replay.claims().is_empty());
    let black_wins = if t.replay.seats().unwrap()[0] == wk {
        GameResult::SecondWinsByForfeit
    } else {
        GameResult::FirstWinsByForfeit
    };
    let text = edit(&t.text(), |r| r.set_result(black_wins));
    assert!(
        matches!(verdict(&text), Verdict::Failed(_)),
        "{:?}",
        verdict(&text)
    );
}

/// `$who` offers a draw, or a take-back to event `$back_to`, on the
/// table and in its record.
macro_rules! offer {
    ($t:expr, $who:expr, $draw:expr, $back_to:expr) => {
        if $draw {
            act_and_append!($t, offer_draw, $who);
        } else {
            act_and_append!($t, offer_takeback, $who, $back_to);
        }
    };
}

/// `$who` declines the draw, or the take-back, offered by the other side.
macro_rules! decline {
    ($t:expr, $who:expr, $draw:expr) => {
        if $draw {
            act_and_append!($t, answer_draw, $who, false);
        } else {
            act_and_append!($t, answer_takeback, $who, false);
        }
    };
}

#[test]
fn a_counter_offer_leaves_the_first_offer_owed() {
    // White offers, so Black owes the answer; Black answers with an offer
    // of its own instead. The first offer still waits on Black: Black
    // owes, it is the one writer the clients' duty names, White may claim
    // against a silent Black, and Black may not turn its own duty into a
    // claim against White (nor leave both owing, so that neither could
    // claim and a silent Black held White for good). Once Black answers,
    // its offer waits on White, and the roles turn. Every pair of kinds.
    use super::table::{Duty, next_duty};
    let answer_of = |draw: bool, k| {
        if draw {
            Duty::AnswerDraw(k)
        } else {
            Duty::AnswerTakeback(k)
        }
    };
    for (first_is_draw, counter_is_draw) in
        [(true, true), (true, false), (false, true), (false, false)]
    {
        let case = format!("first a draw: {first_is_draw}, counter a draw: {counter_is_draw}");
        let mut t = khan_game();
        let (w, b) = khan_sides!(t);
        let (wk, bk) = (w.public_key(), b.public_key());
        let n = t.replay.events().len() as u32;
        offer!(t, &w, first_is_draw, n - 3);
        assert_eq!(t.replay.owing(), vec![bk], "{case}");
        offer!(t, &b, counter_is_draw, n - 2);
        assert_eq!(t.replay.owing(), vec![bk], "{case}");
        assert_eq!(
            next_duty(&t.replay),
            Some(answer_of(first_is_draw, bk)),
            "{case}"
        );
        assert!(table::claim_forfeit(&mut t.replay.clone(), &w, bk, "x", None).is_ok());
        assert!(table::claim_forfeit(&mut t.replay.clone(), &b, wk, "x", None).is_err());
        decline!(t, &b, first_is_draw);
        assert_eq!(t.replay.owing(), vec![wk], "{case}");
        assert_eq!(
            next_duty(&t.replay),
            Some(answer_of(counter_is_draw, wk)),
            "{case}"
        );
        assert!(table::claim_forfeit(&mut t.replay.clone(), &b, wk, "x", None).is_ok());
        assert!(table::claim_forfeit(&mut t.replay.clone(), &w, bk, "x", None).is_err());
        decline!(t, &w, counter_is_draw);
        assert_eq!(next_duty(&t.replay), Some(Duty::Move(wk)), "{case}");
        verified(&t.text());
    }
}

// ----- attacks on offers, duties and claims (the thirty-third step's
// attacker: each found hole closed, with the test that failed before) -----

/// The clients' one writer is a party the replay says owes the next
/// event; while an offer waits, the one the replay says owes, alone.
#[track_caller]
pub(super) fn assert_duty_is_owed(replay: &SignedReplay, case: &str) {
    use super::table::next_duty;
    let owing = replay.owing();
    match next_duty(replay) {
        None => assert!(
            replay.ending().is_some(),
            "{case}: next_duty names nobody, but the game is not over (owing: {owing:?})"
        ),
        Some(duty) => {
            assert!(
                owing.contains(&duty.who()),
                "{case}: next_duty names {duty:?}, who is not among those owing(): {owing:?}"
            );
            if replay.first_open_offer().is_some() {
                assert_eq!(
                    owing,
                    vec![duty.who()],
                    "{case}: while an offer waits, owing() must be the one writer next_duty names, alone"
                );
            }
        }
    }
}

/// A Khan game between White and Black with a third party that holds no
/// seat (a referee witnessing the game, as the protocol allows: the
/// challenge may invite several keys, and a party without a role is the
/// game's referee, `RefereeKey`). `third_challenges`: the seatless party
/// is the challenger (a director inviting both players), else it is the
/// last invited. Three moves are played: Black is to move.
struct Three {
    white: Player,
    black: Player,
    third: Player,
    replay: SignedReplay,
    record: Record<String>,
}

impl Three {
    fn open(third_challenges: bool) -> Three {
        use crate::fair_play::encoding::Text;
        use crate::fair_play::turn::{Acceptance, Challenge, Party, RoleChoice};
        let id = GameId::new("test-three-parties").unwrap();
        let (white, black, third) = (
            Player::new(21, &id),
            Player::new(22, &id),
            Player::new(23, &id),
        );
        let ruleset = Catalog.load_ruleset(GameKind::Khan, "magician").unwrap();
        let mut tags = Tags::new();
        for (name, value) in [
            ("Game", GameKind::Khan.name()),
            ("Variant", "Test"),
            ("GameId", id.as_str()),
            ("Date", "2026.12.06"),
            ("Result", "*"),
            ("NotationVersion", "1"),
            ("Ruleset", ruleset.name.as_str()),
        ] {
            tags.set(name, value);
        }
        for player in GameKind::Khan.player_tags() {
            tags.set(player, *player);
        }
        let mut record = Record::new(tags);
        let before = SignedReplay::start(&Catalog, &ruleset).unwrap();
        let mut replay = before.clone();
        let party = |p: &Player, role: Option<&str>| Party {
            key: p.key.public_key(),
            anchor: Some(p.chain.anchor().clone()),
            roles: List::new(role.map(|r| Text::new(r).unwrap()).into_iter().collect()).unwrap(),
        };
        let seats = replay.game().seats();
        let (w_role, b_role) = (seats[0], seats[1]);
        // The parties in the opening's order, the challenger first.
        let order: [(&Player, Option<&str>); 3] = if third_challenges {
            [
                (&third, None),
                (&white, Some(w_role)),
                (&black, Some(b_role)),
            ]
        } else {
            [
                (&white, Some(w_role)),
                (&black, Some(b_role)),
                (&third, None),
            ]
        };
        let (&(challenger, challenger_role), invited) = order.split_first().unwrap();
        let challenge = Event::challenge(
            id.clone(),
            challenger.key.public_key(),
            Challenge {
                game_name: Text::new(replay.game().game().name()).unwrap(),
                ruleset_hash: ruleset.hash(),
                mode: Mode::Peer,
                roles: RoleChoice::Chosen,
                challenger: party(challenger, challenger_role),
                invited: List::new(invited.iter().map(|(p, _)| p.key.public_key()).collect())
                    .unwrap(),
            },
        )
        .sign(&challenger.key)
        .unwrap();
        replay.push(&challenge).unwrap();
        let mut events = vec![challenge];
        for (p, role) in invited {
            events.push(
                table::next_event(
                    &mut replay,
                    &p.key,
                    EventBody::Acceptance(Acceptance {
                        party: party(p, *role),
                        toss: None,
                    }),
                )
                .unwrap(),
            );
        }
        let replay = append_events(&mut record, &before, &events, None).unwrap();
        let mut three = Three {
            white,
            black,
            third,
            replay,
            record,
        };
        assert_eq!(
            three.replay.seats().unwrap(),
            [three.white.key.public_key(), three.black.key.public_key()]
        );
        for m in ["Ng3-f3", "Ae7-f6", "Nf3-e3"] {
            three.play(m);
        }
        three
    }

    fn play(&mut self, m: &str) {
        let to_move = self.replay.to_move_key().unwrap();
        let mover = if to_move == self.white.key.public_key() {
            &self.white
        } else {
            &self.black
        };
        let before = self.replay.clone();
        let events = table::play(
            &mut self.replay,
            &[m.to_owned()],
            &mover.signer(),
            &[self.third.signer()],
        )
        .unwrap();
        append_events(&mut self.record, &before, &events, None).unwrap();
    }

    fn text(&self) -> String {
        record_to_string::<RawGrammar>(&self.record)
    }
}

#[test]
fn a_three_party_opening_verifies_so_the_attacks_below_are_on_valid_records() {
    // Not an attack: the setting of the next tests is a record that
    // `yam verify` accepts (a two-seat game with a seatless referee).
    for third_challenges in [false, true] {
        let t = Three::open(third_challenges);
        let v = verified(&t.text());
        assert!(v.referee.is_some(), "the third party is the game's referee");
        assert_eq!(v.plies, 3);
    }
}

#[test]
fn a_seatless_party_cannot_answer_an_offer_made_to_a_player() {
    // Attack: a two-seat game with a third, seatless party (a referee
    // witness or a director; or a sockpuppet key the challenger invited
    // beside its opponent). White, losing, offers a draw to Black, or a
    // take-back of its blunder, and the seatless party accepts it. The
    // verifier checked only that the answer's author was not the offerer:
    // Black lost a won game, or the blunder it was about to punish, in a
    // record `yam verify` accepted. Now the offer is made to Black alone
    // (`offer_made_to`): the harness finds no offer for the third party,
    // a hand-signed answer is refused with its reason, Black's stands.
    for third_challenges in [false, true] {
        for draw in [true, false] {
            let case = format!("third party challenges: {third_challenges}, a draw: {draw}");
            let mut t = Three::open(third_challenges);
            let (white, black, third) = (t.white.signer(), t.black.signer(), t.third.signer());
            let back_to = t.replay.events().len() as u32 - 2;
            offer!(t, &white, draw, back_to);
            let by_harness = if draw {
                table::answer_draw(&mut t.replay.clone(), &third, true)
            } else {
                table::answer_takeback(&mut t.replay.clone(), &third, true)
            };
            let expected = if draw {
                table::TableError::NoDrawOffer
            } else {
                table::TableError::NoTakebackOffer
            };
            assert_eq!(by_harness, Err(expected), "{case}");
            let offer = t.replay.events().last().unwrap().hash();
            let body = if draw {
                EventBody::DrawAnswer {
                    offer,
                    accepted: true,
                }
            } else {
                EventBody::TakebackAnswer {
                    offer,
                    accepted: true,
                }
            };
            let refused = table::next_event(&mut t.replay.clone(), third.key, body)
                .unwrap_err()
                .to_string();
            assert!(
                refused.contains("answered") && refused.contains("which is made to"),
                "{case}: {refused}"
            );
            if draw {
                act_and_append!(t, answer_draw, &black, true);
            } else {
                act_and_append!(t, answer_takeback, &black, true);
            }
            verified(&t.text());
        }
    }
}

#[test]
fn with_a_seatless_party_the_offer_is_owed_by_the_opponent_alone() {
    // Attack: in the same three-party game, Black offers a draw. The new
    // rule says the party the oldest offer is made to owes the next event,
    // alone, and the clients' one writer is that party. owing() lists
    // every party but the offerer (the seatless one too), and next_duty
    // names the first of them in the parties' order: when the seatless
    // party challenged, the "one writer" is the referee, not White.
    // What an honest party loses: White's desk is told it is not its turn
    // to write (the referee's is), while White may be claimed against.
    use super::table::next_duty;
    let mut wrong = Vec::new();
    for third_challenges in [false, true] {
        let mut t = Three::open(third_challenges);
        let black = t.black.signer();
        act_and_append!(t, offer_draw, &black);
        let wk = t.white.key.public_key();
        let duty = next_duty(&t.replay);
        let owing = t.replay.owing();
        if duty.as_ref().map(|d| d.who()) != Some(wk) || owing != vec![wk] {
            wrong.push(format!(
                "third party challenges: {third_challenges}: Black's draw offer is made to White, but next_duty is {:?} (White is {}, the referee {}) and owing() is {:?}",
                duty.map(|d| (format!("{d:?}").split('(').next().unwrap_or("").to_owned(), d.who().fingerprint().to_string())),
                wk.fingerprint(),
                t.third.key.public_key().fingerprint(),
                owing.iter().map(|k| k.fingerprint().to_string()).collect::<Vec<_>>()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_forfeit_claim_against_a_seatless_party_for_an_answer_it_does_not_owe() {
    // Attack: Black offers a draw to White and at once claims a forfeit
    // against the seatless referee, who owes no answer (the offer is made
    // to White). The claim stands, and "Black wins by forfeit" becomes a
    // result the record allows. What White loses: a forfeit result is
    // allowed against White's game though nobody claimed White forfeited.
    let mut wrong = Vec::new();
    for third_challenges in [false, true] {
        let mut t = Three::open(third_challenges);
        let (black, third) = (t.black.signer(), t.third.signer());
        act_and_append!(t, offer_draw, &black);
        let mut r = t.replay.clone();
        if table::claim_forfeit(&mut r, &black, third.public_key(), "x", None).is_ok() {
            wrong.push(format!(
                "third party challenges: {third_challenges}: Black's claim against the seatless referee was accepted; allowed results now {:?}",
                r.allowed_results().0
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_takeback_answered_is_the_one_the_duty_names() {
    // Attack: White offers two take-backs, to x (two moves back) and then
    // to y (one move back). The duty (next_duty, owing) is the oldest
    // offer's answer: offers are answered in the order they were made.
    // table::answer_takeback answers the latest offer by the other side
    // instead. What Black loses: accepting "the take-back it owes an
    // answer to" through the harness (the desk's and robot's path)
    // restores another position than the offer the duty named.
    let mut t = khan_game();
    let (w, b) = khan_sides!(t);
    let n = t.replay.events().len() as u32;
    act_and_append!(t, offer_takeback, &w, n - 3);
    let first = t.replay.events().last().unwrap().hash();
    act_and_append!(t, offer_takeback, &w, n - 2);
    assert_duty_is_owed(&t.replay, "two take-backs by White");
    let before = t.replay.clone();
    let event = table::answer_takeback(&mut t.replay, &b, false).unwrap();
    append_events(&mut t.record, &before, std::slice::from_ref(&event), None).unwrap();
    let answered = match &event.event.body {
        EventBody::TakebackAnswer { offer, .. } => *offer,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        answered, first,
        "the duty named White's first take-back offer (the oldest), but table::answer_takeback answered its second"
    );
}

// Attacks refused as they should be (each checks the rule holds):

#[test]
fn offers_made_by_both_sides_in_every_order_keep_the_duty_owed() {
    // Several offers by both parties, answered in every order the harness
    // can make (each answer by whoever may answer one): at every step the
    // clients' one writer is the one party owing() names, nobody is left
    // owing nothing, and the record verifies.
    let kinds = [true, false];
    for a in kinds {
        for b in kinds {
            for c in kinds {
                let case = format!("W {a}, B {b}, W {c}");
                let mut t = khan_game();
                let (w, bl) = khan_sides!(t);
                let n = t.replay.events().len() as u32;
                offer!(t, &w, a, n - 1);
                assert_duty_is_owed(&t.replay, &case);
                offer!(t, &bl, b, n - 1);
                assert_duty_is_owed(&t.replay, &case);
                offer!(t, &w, c, n - 1);
                assert_duty_is_owed(&t.replay, &case);
                // Whoever next_duty names declines the offer it names,
                // until the duty is a move again.
                while let Some(duty) = table::next_duty(&t.replay) {
                    use super::table::Duty;
                    let who = if duty.who() == w.public_key() {
                        &w
                    } else {
                        &bl
                    };
                    match duty {
                        Duty::AnswerDraw(_) => decline!(t, who, true),
                        Duty::AnswerTakeback(_) => decline!(t, who, false),
                        Duty::Move(_) => break,
                        other => panic!("{case}: {other:?}"),
                    }
                    assert_duty_is_owed(&t.replay, &case);
                }
                assert!(t.replay.first_open_offer().is_none(), "{case}");
                verified(&t.text());
            }
        }
    }
}

#[test]
fn a_counter_offerer_cannot_claim_after_the_other_answers_its_counter() {
    // White offers a draw (Black owes); Black counters with a take-back;
    // White declines Black's counter out of order. White's draw still
    // waits on Black: Black may not claim against White, White may claim
    // against Black, and the duty agrees.
    let mut t = khan_game();
    let (w, b) = khan_sides!(t);
    let n = t.replay.events().len() as u32;
    act_and_append!(t, offer_draw, &w);
    act_and_append!(t, offer_takeback, &b, n - 1);
    act_and_append!(t, answer_takeback, &w, false);
    assert_eq!(t.replay.owing(), vec![b.public_key()]);
    assert_duty_is_owed(&t.replay, "after White declined Black's counter");
    assert!(table::claim_forfeit(&mut t.replay.clone(), &b, w.public_key(), "x", None).is_err());
    assert!(table::claim_forfeit(&mut t.replay.clone(), &w, b.public_key(), "x", None).is_ok());
    verified(&t.text());
}

#[test]
fn a_draw_offer_made_before_the_position_a_takeback_restores_stays_owed() {
    // White offers a draw; Black offers a take-back to that very offer
    // (undoing nothing); White accepts it. White's draw offer was made at
    // or before the restored position, so it stands, Black still owes its
    // answer, and the duty agrees at every step; White's move then ends
    // it. The record verifies.
    let mut t = khan_game();
    let (w, b) = khan_sides!(t);
    act_and_append!(t, offer_draw, &w);
    let offer_at = t.replay.events().len() as u32 - 1;
    act_and_append!(t, offer_takeback, &b, offer_at);
    act_and_append!(t, answer_takeback, &w, true);
    assert_eq!(t.replay.open_offers_of_kind(OfferKind::Draw).count(), 1);
    assert_eq!(t.replay.owing(), vec![b.public_key()]);
    assert_duty_is_owed(&t.replay, "after the take-back");
    act_and_append!(t, answer_draw, &b, false);
    assert_duty_is_owed(&t.replay, "after the draw was declined");
    play_any(&mut t);
    assert_duty_is_owed(&t.replay, "after a move");
    let v = verified(&t.text());
    assert_eq!(v.taken_back.len(), 1);
}

#[test]
fn a_draw_offer_made_in_a_line_a_takeback_undid_does_not_outlive_it() {
    // Attack: White, in a bad position, offers a draw. Black, instead of
    // answering, offers a take-back to before White's last move (its
    // blunder, say). White accepts gladly; the position White offered a
    // draw in is gone, taken back by agreement, but White's offer still
    // stands (only a turn ends offers, and White cannot withdraw it
    // without a turn, which would also end Black's take-back offer). Black
    // then accepts the draw White offered for the position that no longer
    // exists, in the restored position White may be winning. What White
    // loses: the game, drawn on an offer made in a line both sides took
    // back. (The offer's event is among those `taken_back` lists, so the
    // plain copy shows it "taken back by agreement" while the result rests
    // on it.)
    let mut t = khan_game();
    let (w, b) = khan_sides!(t);
    let n = t.replay.events().len() as u32;
    act_and_append!(t, offer_draw, &w);
    let offer_at = n;
    act_and_append!(t, offer_takeback, &b, n - 2);
    act_and_append!(t, answer_takeback, &w, true);
    let undone = t.replay.taken_back().last().unwrap().clone();
    assert!(
        undone.contains(&offer_at),
        "the draw offer is in the undone line"
    );
    let before = t.replay.clone();
    if let Ok(event) = table::answer_draw(&mut t.replay, &b, true) {
        append_events(&mut t.record, &before, &[event], None).unwrap();
        let v = verified(&t.text());
        panic!(
            "White's draw offer (event #{offer_at}) was in the line events #{}..=#{} took back, yet Black accepted it after the take-back: the record verifies with {:?} ({:?})",
            undone.start(),
            undone.end(),
            v.result,
            v.ending.map(|e| e.reason)
        );
    }
    // Signed by hand, naming the offer: no open offer, for the verifier
    // and the replay alike.
    let body = EventBody::DrawAnswer {
        offer: t.replay.events().get(offer_at as usize).unwrap().hash(),
        accepted: true,
    };
    let refused = table::next_event(&mut t.replay.clone(), b.key, body)
        .unwrap_err()
        .to_string();
    assert!(refused.contains("no open offer"), "{refused}");
}

#[test]
fn a_tip_restored_with_mixed_offers_open_reads_as_the_whole_replay() {
    // A game stored (tip written) while White's take-back, Black's draw
    // and White's draw wait: the restored replay names the same oldest
    // offer, the same owing party, the same duty, takes the same claims,
    // and makes the same answer with the same duty after it.
    use super::table::next_duty;
    use super::tip::{Bounds, Tip};
    let mut t = khan_game();
    let (w, b) = khan_sides!(t);
    let n = t.replay.events().len() as u32;
    act_and_append!(t, offer_takeback, &w, n - 1);
    act_and_append!(t, offer_draw, &b);
    act_and_append!(t, offer_draw, &w);
    let stored = t.text();
    let bounds = Bounds::of(&stored, &collect(&stored)).unwrap();
    let tip = Tip::save(&t.replay, &stored, bounds).unwrap();
    let tip: super::log::SharedBytes = std::sync::Arc::new(tip);
    let (mut restored, _, _) = Tip::restore(&tip, &stored, &Catalog).unwrap();
    assert_eq!(restored.first_open_offer(), t.replay.first_open_offer());
    assert_eq!(restored.owing(), t.replay.owing());
    assert_eq!(next_duty(&restored), next_duty(&t.replay));
    for (claimant, against) in [(&w, &b), (&b, &w)] {
        assert_eq!(
            table::claim_forfeit(
                &mut restored.clone(),
                claimant,
                against.public_key(),
                "x",
                None
            )
            .is_ok(),
            table::claim_forfeit(
                &mut t.replay.clone(),
                claimant,
                against.public_key(),
                "x",
                None
            )
            .is_ok()
        );
    }
    // Black declines the take-back on both; then White owes (Black's draw
    // is the oldest).
    let on_whole = table::answer_takeback(&mut t.replay, &b, false).unwrap();
    let on_tip = table::answer_takeback(&mut restored, &b, false).unwrap();
    assert_eq!(on_whole, on_tip);
    assert_eq!(restored.owing(), vec![w.public_key()]);
    assert_eq!(restored.owing(), t.replay.owing());
    assert_eq!(next_duty(&restored), next_duty(&t.replay));
}

// ----- the thirty-third step's second attacker: offers made to a party
// (`offer_made_to`), take-backs ending the offers of the line they undo -----

#[test]
fn a_seatless_party_may_not_offer_where_two_seats_play() {
    // Attack: a seatless party (a witness referee, a director, or a
    // sockpuppet key White invited beside Black) offers a draw, or a
    // take-back of Black's strong move. Made "to the seats", White alone
    // could accept it: a draw Black never agreed to, Black's move undone
    // without Black; and both seats owed its answer, so Black could not
    // claim against a stalling White while the sockpuppet renewed it.
    // Now only the players offer where two seats play (a solo game's
    // director still offers to its player): refused with its reason, by
    // the harness and by hand alike; the players' own offers stand.
    for third_challenges in [false, true] {
        for draw in [true, false] {
            let case = format!("third party challenges: {third_challenges}, a draw: {draw}");
            let mut t = Three::open(third_challenges);
            t.play("Md7-e7");
            let back_to = t.replay.events().len() as u32 - 2;
            let (white, third) = (t.white.signer(), t.third.signer());
            let by_harness = if draw {
                table::offer_draw(&mut t.replay.clone(), &third)
            } else {
                table::offer_takeback(&mut t.replay.clone(), &third, back_to)
            };
            let refused = by_harness.unwrap_err().to_string();
            assert!(
                refused.contains("may not make an offer: only the players offer"),
                "{case}: {refused}"
            );
            offer!(t, &white, draw, back_to);
            verified(&t.text());
        }
    }
}

#[test]
fn nobody_offers_before_the_seats_are_settled() {
    // With drawn seats, between the acceptor's toss and the challenger's
    // reveal nobody has a seat, so an offer would be made to "every other
    // party": refused until the seats exist.
    use super::table::{ChallengeSpec, SeatChoice};
    let id = GameId::new("test-drawn-offer").unwrap();
    let (alice, bob) = (Player::new(31, &id), Player::new(32, &id));
    let (mut replay, _) = table::challenge(
        &Catalog,
        &ChallengeSpec {
            game: id.clone(),
            ruleset: Catalog.load_ruleset(GameKind::Khan, "magician").unwrap(),
            mode: Mode::Peer,
            challenger: alice.signer(),
            invited: bob.key.public_key(),
            seats: SeatChoice::Drawn { salt: [7; 32] },
        },
    )
    .unwrap();
    table::accept(&mut replay, &bob.signer(), Some([8; 32])).unwrap();
    for who in [alice.signer(), bob.signer()] {
        let refused = table::offer_draw(&mut replay.clone(), &who)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("the seats are not settled yet"),
            "{refused}"
        );
    }
}

#[test]
fn random_offers_answers_and_takebacks_keep_every_reading_in_step() {
    // Attacks refused, explored at random (a fixed seed): draw and
    // take-back offers by both seats to every target (the offers' own
    // events, earlier acceptances, before and after other offers' targets),
    // hand-signed answers to any earlier offer by either seat, in any
    // order, several acceptances in a row, now and then a move. At every
    // step the replay made whole and the one restored from a tip of the
    // record before the step take or refuse the event alike and then name
    // the same oldest offer, owing party and duty; the duty is owed (and
    // its answer, declining, is taken: nobody is stuck on an offer the
    // verifier forgot); no accepted take-back goes back into a line an
    // earlier one undid; and at the end the plain copy, the main line
    // with the take-backs followed and the replay count the same plies.
    use super::table::{Duty, next_duty};
    use super::tip::{Bounds, Tip};
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut accepted_takebacks = 0;
    for round in 0..300 {
        let mut t = khan_game();
        let base = t.replay.events().len() as u32 - 4;
        let mut steps = Vec::new();
        for _ in 0..10 {
            let (w, b) = khan_sides!(t);
            let who = if rnd(2) == 0 { &w } else { &b };
            let seq = t.replay.events().len() as u32;
            let body = match rnd(7) {
                0 => EventBody::DrawOffer,
                1 | 2 => EventBody::TakebackOffer {
                    back_to: base + rnd((seq - base) as usize) as u32,
                },
                6 if rnd(3) == 0 => {
                    let before = t.replay.clone();
                    let m = t.replay.game().legal_moves()[0].clone();
                    let mover = if t.replay.to_move_key() == Some(w.public_key()) {
                        &w
                    } else {
                        &b
                    };
                    let events = table::play(&mut t.replay, &[m], mover, &[]).unwrap();
                    append_events(&mut t.record, &before, &events, None).unwrap();
                    steps.push("move".to_owned());
                    continue;
                }
                _ => {
                    let offers: Vec<(usize, bool)> = t
                        .replay
                        .events()
                        .iter()
                        .enumerate()
                        .filter_map(|(i, e)| match e.event.body {
                            EventBody::DrawOffer => Some((i, true)),
                            EventBody::TakebackOffer { .. } => Some((i, false)),
                            _ => None,
                        })
                        .collect();
                    if offers.is_empty() {
                        continue;
                    }
                    let (i, draw) = offers[rnd(offers.len())];
                    let offer = t.replay.events().get(i).unwrap().hash();
                    // Mostly accept take-backs, rarely draws (a draw ends
                    // the exploration).
                    let accepted = if draw { rnd(6) == 0 } else { rnd(3) != 0 };
                    if draw {
                        EventBody::DrawAnswer { offer, accepted }
                    } else {
                        EventBody::TakebackAnswer { offer, accepted }
                    }
                }
            };
            let case = format!("round {round}, steps {steps:?}, now {body:?}");
            let stored = t.text();
            let bounds = Bounds::of(&stored, &collect(&stored)).unwrap();
            let tip: super::log::SharedBytes =
                std::sync::Arc::new(Tip::save(&t.replay, &stored, bounds).unwrap());
            let (mut restored, _, _) = Tip::restore(&tip, &stored, &Catalog).unwrap();
            let before = t.replay.clone();
            let on_whole = table::next_event(&mut t.replay, who.key, body.clone());
            let on_tip = table::next_event(&mut restored, who.key, body.clone());
            assert_eq!(
                on_whole.as_ref().map_err(|e| e.to_string()),
                on_tip.as_ref().map_err(|e| e.to_string()),
                "{case}: the whole replay and the tip-restored one disagree"
            );
            let Ok(event) = on_whole else { continue };
            append_events(&mut t.record, &before, &[event], None).unwrap();
            steps.push(format!("{body:?}"));
            assert_eq!(
                restored.first_open_offer(),
                t.replay.first_open_offer(),
                "{case}"
            );
            assert_eq!(restored.owing(), t.replay.owing(), "{case}");
            assert_eq!(next_duty(&restored), next_duty(&t.replay), "{case}");
            assert_duty_is_owed(&t.replay, &case);
            if let EventBody::TakebackAnswer { accepted: true, .. } = body {
                let ranges = t.replay.taken_back();
                let (last, earlier) = ranges.split_last().unwrap();
                let back_to = last.start() - 1;
                accepted_takebacks += 1;
                for r in earlier {
                    assert!(
                        !(*r.start() <= back_to && back_to < *r.end()),
                        "{case}: a take-back to #{back_to} went back into the line {r:?} undid"
                    );
                }
            }
            if t.replay.ending().is_some() {
                break;
            }
            // Nobody is stuck on an offer the verifier forgot.
            let (w, b) = khan_sides!(t);
            match next_duty(&t.replay) {
                Some(Duty::AnswerDraw(k)) => {
                    let s = if k == w.public_key() { &w } else { &b };
                    assert!(
                        table::answer_draw(&mut t.replay.clone(), s, false).is_ok(),
                        "{case}: the duty's draw answer is refused"
                    );
                }
                Some(Duty::AnswerTakeback(k)) => {
                    let s = if k == w.public_key() { &w } else { &b };
                    let r = table::answer_takeback(&mut t.replay.clone(), s, false);
                    assert!(
                        r.is_ok(),
                        "{case}: the duty's take-back answer is refused: {r:?}"
                    );
                }
                _ => {}
            }
        }
        if t.replay.ending().is_none() {
            play_any(&mut t);
        }
        let text = t.text();
        let v = verified(&text);
        assert_eq!(v.plies, t.replay.plies(), "round {round}: {steps:?}");
        if !v.taken_back.is_empty() {
            let mut report = Reader::new(text.as_bytes())
                .read_game(&mut crate::check::Checker::new())
                .unwrap()
                .unwrap();
            super::verify::follow_takebacks(&mut report, &v, 0);
            assert_eq!(
                report.verdict,
                crate::check::Verdict::Legal,
                "round {round}: {steps:?}"
            );
            let out = record_to_string::<RawGrammar>(&plain(&t.record, "plain", &v.taken_back));
            let plain_report = Reader::new(out.as_bytes())
                .read_game(&mut crate::check::Checker::new())
                .unwrap()
                .unwrap();
            assert_eq!(
                plain_report.verdict,
                crate::check::Verdict::Legal,
                "round {round}: the plain copy reads otherwise: {steps:?}\n{out}"
            );
            assert_eq!(
                plain_report.plies, v.plies,
                "round {round}: {steps:?}\n{out}"
            );
        }
    }
    assert!(
        accepted_takebacks > 20,
        "the exploration accepted only {accepted_takebacks} take-backs"
    );
}

// ----- attacks on `yam dispute` by a player handing the director a log -----

/// The same event, signed again by its own author with another nonce: an
/// Ed25519 signature is deterministic only by convention (RFC 8032 derives
/// the nonce from the key), and any nonce `r` gives a signature that
/// `verify_strict` accepts. Only the key's owner can do this, and the event
/// (its canonical bytes, so its hash) is unchanged.
fn signed_again(event: &SignedEvent, seed: u8, r: u64) -> SignedEvent {
    use crate::fair_play::encoding::Canonical;
    use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
    use curve25519_dalek::scalar::Scalar;
    use sha2::{Digest, Sha512};
    let a = crate::fair_play::sign::tests::secret_scalar(seed);
    let message = event.event.to_canonical_bytes();
    let r = Scalar::from(r);
    let r_bytes = (ED25519_BASEPOINT_POINT * r).compress().to_bytes();
    let k = Scalar::from_bytes_mod_order_wide(
        &Sha512::new()
            .chain_update(r_bytes)
            .chain_update(event.event.author.as_bytes())
            .chain_update(&message)
            .finalize()
            .into(),
    );
    let mut sig = [0u8; 64];
    sig[..32].copy_from_slice(&r_bytes);
    sig[32..].copy_from_slice(&(r + k * a).to_bytes());
    let again = SignedEvent {
        event: event.event.clone(),
        signature: crate::fair_play::sign::Signature::from_bytes(sig),
    };
    assert_eq!(again.verify(), Ok(()), "the second signature verifies");
    assert_ne!(again.signature, event.signature, "and it is another one");
    assert_eq!(again.hash(), event.hash(), "of the very same event");
    again
}

/// Adversary: the equivocator, handing the director his own log. White
/// signed two different third moves (#6); Black answered only the one of
/// log A. In his log B White also signs his own challenge (#0) once more,
/// with another nonce: the same event, the same hash, so every link of his
/// log still holds and it verifies. `yam dispute` compares the logs event
/// by event *with their signatures*, so it finds them parting at #0 on two
/// copies of one event ("the logs agree"), and never reaches #6: the fork
/// point is named wrongly and the proof of equivocation is lost. Two copies
/// of one event are one event (3.8: "a hash names content"); the fork is at
/// #6, and White equivocated there.
#[test]
fn an_event_signed_again_with_another_nonce_does_not_hide_an_equivocation() {
    let base = khan_game();
    let fresh = || Table {
        alice: Player::new(1, &GameId::new("test-magician").unwrap()),
        bob: Player::new(2, &GameId::new("test-magician").unwrap()),
        replay: base.replay.clone(),
        record: base.record.clone(),
    };
    let (mut a, mut b) = (fresh(), fresh());
    a.play(&["Wh3-f4"], None);
    a.play(&["Kb7-c6"], None);
    b.play(&["Ag4-f3"], None);
    let challenge = b.replay.events().get(0).unwrap().clone();
    assert_eq!(challenge.event.author, b.alice.key.public_key());
    let again = signed_again(&challenge, 1, 4242);
    let b_text = edit(&b.text(), |r| {
        let mut commands = commands(r);
        commands[0].args = super::text::event_command(&again).args;
    });
    assert!(
        matches!(verdict(&b_text), Verdict::Verified(_)),
        "White's log verifies: {:?}",
        verdict(&b_text)
    );
    let d = dispute_of(&a.text(), &b_text);
    let Relation::Fork(fork) = &d.relation else {
        panic!("a fork: {}\n{:#?}", d.verdict, d.reasons)
    };
    assert_eq!(
        fork.seq, 6,
        "the logs part at White's two third moves, not at the challenge both hold: {}\n{:#?}",
        d.verdict, d.reasons
    );
    assert_eq!(
        fork.proof().map(|p| *p.culprit()),
        Some(a.alice.key.public_key()),
        "{}\n{:#?}",
        d.verdict,
        d.reasons
    );
    assert!(d.verdict.contains("equivocated"), "{}", d.verdict);
}

/// The same: two logs whose events are one and the same, one of them with
/// an event signed again by its author with another nonce, are identical
/// logs ("the logs are identical", no conflict), not a fork at that event
/// that is "the logs agree" and a conflict at once (exit 1).
#[test]
fn a_log_differing_only_by_a_second_signature_of_an_event_is_the_same_log() {
    let t = khan_game();
    let text = t.text();
    let again = signed_again(t.replay.events().get(2).unwrap(), 1, 777);
    let other = edit(&text, |r| {
        let mut commands = commands(r);
        commands[2].args = super::text::event_command(&again).args;
    });
    assert!(matches!(verdict(&other), Verdict::Verified(_)));
    let d = dispute_of(&text, &other);
    assert!(
        matches!(d.relation, Relation::Identical { events: 6 }),
        "{:?}: {}\n{:#?}",
        d.relation,
        d.verdict,
        d.reasons
    );
    assert!(!d.conflict, "{}", d.verdict);
}

/// Adversary: a claimant who played on. Black claims a forfeit (White to
/// move), White moves, and Black plays on: by 3.8 the claim is withdrawn,
/// and "the forfeit result is no longer among those the record allows".
/// Black, losing later, hands the director his log cut at his claim, its
/// result his forfeit win (that log verifies on its own); White hands the
/// whole log. `yam dispute` says "no conflict: log B is log A carried
/// further, and both verify" (exit 0) and never says that log A's result,
/// Black's win, rests on a claim log B shows its claimant withdrew. The
/// logs conflict on the result: the dispute must say so.
#[test]
fn a_log_cut_at_a_withdrawn_forfeit_claim_does_not_pass_for_no_conflict() {
    let mut t = khan_game();
    let (w, b) = khan_sides!(t);
    let wk = w.public_key();
    let before = t.replay.clone();
    let claim = table::claim_forfeit(&mut t.replay, &b, wk, "no move in 15 days", None).unwrap();
    append_events(&mut t.record, &before, &[claim], None).unwrap();
    let black_wins = if t.replay.seats().unwrap()[0] == wk {
        GameResult::SecondWinsByForfeit
    } else {
        GameResult::FirstWinsByForfeit
    };
    let cut = edit(&t.text(), |r| r.set_result(black_wins));
    assert!(
        matches!(verdict(&cut), Verdict::Verified(_)),
        "Black's cut log verifies on its own: {:?}",
        verdict(&cut)
    );
    // White moves; Black plays on, which withdraws his claim.
    play_any(&mut t);
    play_any(&mut t);
    assert!(t.replay.claims().is_empty());
    let whole = t.text();
    assert!(matches!(verdict(&whole), Verdict::Verified(_)));
    let d = dispute_of(&cut, &whole);
    assert!(
        matches!(
            d.relation,
            Relation::Prefix {
                a_is_shorter: true,
                ..
            }
        ),
        "{:?}",
        d.relation
    );
    assert!(
        d.conflict,
        "log A claims Black won by forfeit, log B shows Black withdrew the claim by playing on; yet: {}\n{:#?}",
        d.verdict, d.reasons
    );
    assert!(
        d.verdict.contains("log B stands") && d.verdict.contains("log A's result does not stand"),
        "{}",
        d.verdict
    );
}

#[test]
fn a_forfeit_claim_the_accused_answered_late_still_stands_in_the_longer_log() {
    // Attacker tester: only the claimant's own turn withdraws a forfeit
    // claim (3.8, `plays_on`). Black claims White forfeited; White, the
    // accused, then sends a late move. The claim still stands in White's
    // longer log (its events allow Black's forfeit win), yet comparing
    // Black's log, cut at his claim, with White's, which reads `*`, calls
    // it a conflict and tells the director that Black's result "does not
    // stand (the game went on after it)": the accused voids the claim
    // against him just by moving late.
    let mut t = khan_game();
    let (w, b) = khan_sides!(t);
    let wk = w.public_key();
    let before = t.replay.clone();
    let claim = table::claim_forfeit(&mut t.replay, &b, wk, "no move in 15 days", None).unwrap();
    append_events(&mut t.record, &before, &[claim], None).unwrap();
    let black_wins = if t.replay.seats().unwrap()[0] == wk {
        GameResult::SecondWinsByForfeit
    } else {
        GameResult::FirstWinsByForfeit
    };
    let cut = edit(&t.text(), |r| r.set_result(black_wins));
    assert!(matches!(verdict(&cut), Verdict::Verified(_)));
    // White, the accused, moves late; Black has not played on.
    play_any(&mut t);
    assert_eq!(t.replay.claims().len(), 1, "Black's claim still stands");
    let whole = t.text();
    assert!(matches!(verdict(&whole), Verdict::Verified(_)));
    // White's longer log allows Black's forfeit win itself.
    let black_wins_too = edit(&whole, |r| r.set_result(black_wins));
    assert!(
        matches!(verdict(&black_wins_too), Verdict::Verified(_)),
        "setup: the longer log's events allow Black's forfeit win"
    );
    let d = dispute_of(&cut, &whole);
    assert!(
        !d.verdict.contains("log A's result does not stand"),
        "Black's claim stands in log B too (only his own turn withdraws it), yet: {}\n{:#?}",
        d.verdict,
        d.reasons
    );
    assert!(
        !d.conflict,
        "log B's events allow log A's result, and log B states nothing against it (`*`): {}\n{:#?}",
        d.verdict, d.reasons
    );
}
