//! The signed games with chance and secrets, through the harness, the text
//! and the verifier: Castle Siege (setups sealed and revealed, declarations
//! resolved by rolls, every face in the tokens) and Genghis Khan (the Foe
//! layout and every Horde card by a roll of its own, against a director's
//! chain). Each honest case verifies; each attack is refused with its
//! reason.

use yam_notation::{GameKind, RawGrammar, Reader, Record, Tags, record_to_string};

use super::collect::{Collector, SignedText};
use super::log::SharedBytes;
use super::replay::{ReplayFault, SignedReplay};
use super::table::{self, Opening, Prepared, Seating, Signer, TableError};
use super::verify::{Failure, Verdict, Verified, verify_text};
use super::write::{
    AppendedInPlace, append_each_verified_in_place, append_events, append_verified_in_place,
    append_verified_to_text,
};
use crate::castle_siege::game_replay::{CastleSiegeReplay, SetupStage, sealed_token};
use crate::castle_siege::selfplay::{choose_declaration, choose_setup};
use crate::castle_siege::{Policy, Side};
use crate::check::{Checker, Verdict as CheckVerdict};
use crate::fair_play::chain::{ChainSecret, HashChain};
use crate::fair_play::commit::Salt;
use crate::fair_play::encoding::{Blob, List};
use crate::fair_play::game_id::GameId;
use crate::fair_play::sign::SigningKey;
use crate::fair_play::turn::{Event, EventBody, Evidence, Mode, SignedEvent, TurnBody};
use crate::genghis_khan::game_replay::{DRAW_ORDER, GenghisKhanReplay};
use crate::genghis_khan::{Action, greedy_action, notate};
use crate::replay::{Builtin, BuiltinReplay, RulesCatalog};
use crate::test_rng::Xorshift;
use std::sync::Arc;

struct Party {
    key: SigningKey,
    chain: HashChain,
}

impl Party {
    fn new(seed: u8, game: &GameId) -> Party {
        let key = SigningKey::from_seed(&[seed; 32]);
        let chain = HashChain::new(
            &ChainSecret::from_bytes([seed ^ 0xa5; 32]),
            game.clone(),
            key.public_key(),
            512,
        )
        .unwrap();
        Party { key, chain }
    }

    fn signer(&self) -> Signer<'_> {
        Signer {
            key: &self.key,
            chain: Some(&self.chain),
        }
    }
}

/// A game on one table: the challenger and the acceptor, the replay and the
/// record as the harness writes it.
struct Game {
    id: GameId,
    parties: [Party; 2],
    replay: SignedReplay,
    record: Record<String>,
}

impl Game {
    fn open(game: GameKind, ruleset: &str, mode: Mode, seating: Seating) -> Game {
        let id = GameId::new(format!("games-test-{ruleset}-{}", game.name().len())).unwrap();
        let parties = [Party::new(11, &id), Party::new(12, &id)];
        let ruleset = Builtin.load_ruleset(game, ruleset).unwrap();
        let mut tags = Tags::new();
        for (name, value) in [
            ("Game", game.name()),
            ("Variant", "Test"),
            ("GameId", id.as_str()),
            ("Date", "2026.12.01"),
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
        let before = SignedReplay::start(&Builtin, &ruleset).unwrap();
        let (_, events) = table::open(
            &Builtin,
            &Opening {
                game: id.clone(),
                ruleset,
                mode,
                challenger: parties[0].signer(),
                acceptor: parties[1].signer(),
                seating,
            },
        )
        .unwrap();
        let replay = append_events(&mut record, &before, &events, None).unwrap();
        Game {
            id,
            parties,
            replay,
            record,
        }
    }

    /// Castle Siege: the challenger defends, the acceptor attacks.
    fn siege(ruleset: &str) -> Game {
        Game::open(
            GameKind::CastleSiege,
            ruleset,
            Mode::Peer,
            Seating::Chosen {
                challenger_first: true,
            },
        )
    }

    /// Genghis Khan: the challenger directs, the acceptor plays.
    fn cards(mode: Mode) -> Game {
        Game::open(GameKind::GenghisKhan, "standard", mode, Seating::Refereed)
    }

    fn party_of_seat(&self, seat: usize) -> usize {
        let key = self.replay.seats().unwrap()[seat];
        usize::from(self.parties[1].key.public_key() == key)
    }

    fn append(&mut self, before: &SignedReplay, events: &[SignedEvent]) {
        append_events(&mut self.record, before, events, None).unwrap();
    }

    /// The player in `seat` plays `orders`; the other party answers.
    fn try_play(&mut self, seat: usize, orders: &[String]) -> Result<Vec<SignedEvent>, TableError> {
        let me = self.party_of_seat(seat);
        let before = self.replay.clone();
        let events = table::play(
            &mut self.replay,
            orders,
            &self.parties[me].signer(),
            &[self.parties[1 - me].signer()],
        )?;
        self.append(&before, &events);
        Ok(events)
    }

    fn play(&mut self, orders: &[String]) -> Vec<SignedEvent> {
        let seat = self.replay.game().to_move().unwrap();
        self.try_play(seat, orders).unwrap()
    }

    fn siege_state(&self) -> &CastleSiegeReplay {
        match self.replay.game().builtin() {
            Some(BuiltinReplay::CastleSiege(siege)) => siege,
            other => panic!("not Castle Siege: {other:?}"),
        }
    }

    fn cards_state(&self) -> &GenghisKhanReplay {
        match self.replay.game().builtin() {
            Some(BuiltinReplay::GenghisKhan(cards)) => cards,
            other => panic!("not Genghis Khan: {other:?}"),
        }
    }

    /// The side in `seat` seals the setup the driver chooses from `seed`.
    fn seal(&mut self, seat: usize, seed: u64) -> crate::fair_play::commit::SetupOpening {
        let side = if seat == 0 {
            Side::Defender
        } else {
            Side::Attacker
        };
        let setup = choose_setup(side, seed).unwrap();
        let me = self.party_of_seat(seat);
        let key = self.parties[me].key.public_key();
        let (commitment, opening) = setup
            .commit(&self.id, &key, Salt::from_bytes([seed as u8; 32]))
            .unwrap();
        let before = self.replay.clone();
        let event = table::play_with(
            &mut self.replay,
            &[sealed_token(side)],
            vec![Evidence::SetupCommitment(commitment)],
            &self.parties[me].signer(),
        )
        .unwrap();
        self.append(&before, &[event]);
        opening
    }

    fn reveal(&mut self, seat: usize, opening: crate::fair_play::commit::SetupOpening) {
        let me = self.party_of_seat(seat);
        let token = String::from_utf8(opening.setup.as_bytes().to_vec()).unwrap();
        let before = self.replay.clone();
        let event = table::play_with(
            &mut self.replay,
            &[token],
            vec![Evidence::SetupReveal(opening)],
            &self.parties[me].signer(),
        )
        .unwrap();
        self.append(&before, &[event]);
    }

    /// Seals both setups (the Attacker first: CS-07 lets either go first)
    /// and reveals them.
    fn set_up(&mut self) {
        let attacker = self.seal(1, 2);
        let defender = self.seal(0, 1);
        self.reveal(1, attacker);
        self.reveal(0, defender);
    }

    /// One declaration chosen by `policy`.
    fn declare(&mut self, policy: Policy, seed: u64) -> Vec<SignedEvent> {
        let state = self.siege_state().state().unwrap().clone();
        let orders = choose_declaration(&state, policy, seed).texts();
        self.play(&orders)
    }

    fn text(&self) -> String {
        record_to_string::<RawGrammar>(&self.record)
    }
}

fn collect(text: &str) -> SignedText {
    Reader::new(text.as_bytes())
        .read_game(&mut Collector::new())
        .unwrap()
        .unwrap()
}

#[track_caller]
fn verified(text: &str) -> Box<Verified> {
    match verify_text(&collect(text), &Builtin) {
        Verdict::Verified(v) => v,
        other => panic!("expected verified, got {other:?}"),
    }
}

#[track_caller]
fn failure(text: &str) -> Box<Failure> {
    match verify_text(&collect(text), &Builtin) {
        Verdict::Failed(f) => f,
        other => panic!("expected a failure, got {other:?}"),
    }
}

fn check(text: &str) -> CheckVerdict {
    Reader::new(text.as_bytes())
        .read_game(&mut Checker::new())
        .unwrap()
        .unwrap()
        .verdict
}

/// The first token of the main line that `pick` accepts, replaced by `to`.
fn replace_token(text: &str, pick: impl Fn(&str) -> bool, to: impl Fn(&str) -> String) -> String {
    let mut record = yam_notation::parse_record::<RawGrammar>(text).unwrap();
    let node = record
        .movetext
        .iter_mut()
        .find_map(|n| match n {
            yam_notation::Node::Move(m, _) if pick(m) => Some(m),
            _ => None,
        })
        .unwrap();
    *node = to(node);
    record_to_string::<RawGrammar>(&record)
}

// ----- Castle Siege -----

#[test]
fn siege_setups_are_sealed_then_revealed_in_either_order() {
    let mut g = Game::siege("standard");
    assert_eq!(g.siege_state().setup_stage(), Some(SetupStage::Sealing));
    // Both may seal: the Attacker goes first here.
    let attacker = g.seal(1, 2);
    // Nobody reveals before both have sealed (CS-07).
    let early = g.try_play(
        1,
        &[String::from_utf8(attacker.setup.as_bytes().to_vec()).unwrap()],
    );
    assert!(
        matches!(&early, Err(TableError::NotYourTurn { .. })),
        "{early:?}"
    );
    let defender = g.seal(0, 1);
    assert_eq!(g.siege_state().setup_stage(), Some(SetupStage::Revealing));
    g.reveal(0, defender);
    g.reveal(1, attacker);
    assert!(g.siege_state().state().is_some());
    let text = g.text();
    assert!(text.contains("Attacker:sealed"), "{text}");
    assert!(text.contains("[FirstCommitment \""));
    assert!(text.contains("[SecondCommitment \""));
    let v = verified(&text);
    assert_eq!(v.summary.rolls, 0);
    assert_eq!(v.plies, 4);
}

#[test]
fn siege_declarations_roll_and_show_every_face() {
    let mut g = Game::siege("standard");
    g.set_up();
    let mut rolls = 0;
    for seed in 0..12 {
        let events = g.declare(Policy::Eager, seed);
        if events.len() == 3 {
            rolls += 1;
        }
    }
    assert!(rolls > 0);
    let text = g.text();
    let v = verified(&text);
    assert_eq!(v.summary.rolls, rolls);
    assert!(v.summary.values_checked > 0);
    // Every die shows in the movetext and in the readable values.
    assert!(text.contains("Move@"), "{text}");
    assert!(text.contains("\"allowance: d6 "), "{text}");
    // The rules checker replays the same movetext from its faces.
    assert_eq!(check(&text), CheckVerdict::Legal);
}

#[test]
fn a_siege_played_to_its_end_verifies_with_its_result() {
    let mut g = Game::siege("skirmish");
    g.set_up();
    let mut seed = 0;
    while g.replay.ending().is_none() {
        g.declare(Policy::Random, seed);
        seed += 1;
        assert!(seed < 400, "the round cap ends the game");
    }
    let end = g.replay.ending().unwrap();
    let text = g.text();
    let v = verified(&text);
    assert_eq!(v.result, end.result);
    assert_eq!(v.ending.as_ref().unwrap().reason, end.reason);
    assert_eq!(check(&text), CheckVerdict::Legal);
}

#[test]
fn a_changed_die_face_is_refused() {
    let mut g = Game::siege("standard");
    g.set_up();
    for seed in 0..4 {
        g.declare(Policy::Eager, seed);
    }
    let text = g.text();
    let changed = replace_token(
        &text,
        |t| t.starts_with("Move@"),
        |t| {
            let face = t.as_bytes()[5] - b'0';
            format!("Move@{}", face % 6 + 1)
        },
    );
    let f = failure(&changed);
    assert!(f.reason.contains("signs Move@"), "{}", f.reason);
    assert!(f.found.starts_with("Move@"));
    // The readable value changed with it is refused too.
    let chance = changed.replacen("\"allowance: d6 ", "\"allowance: d6 9", 1);
    let f = failure(&chance);
    assert!(f.reason.contains("signs Move@"), "{}", f.reason);
}

#[test]
fn setups_must_stand_with_their_evidence() {
    let mut g = Game::siege("standard");
    // A sealed token without a commitment.
    let me = g.party_of_seat(0);
    let refused = table::play_with(
        &mut g.replay.clone(),
        &[sealed_token(Side::Defender)],
        Vec::new(),
        &g.parties[me].signer(),
    );
    assert!(
        matches!(&refused, Err(TableError::Refused(e)) if matches!(&e.fault, ReplayFault::Setup(r) if r.contains("no setup commitment"))),
        "{refused:?}"
    );
    // The side seals its own setup only.
    let other = table::play_with(
        &mut g.replay.clone(),
        &[sealed_token(Side::Attacker)],
        Vec::new(),
        &g.parties[me].signer(),
    );
    assert!(
        matches!(&other, Err(TableError::Refused(e)) if e.to_string().contains("not the Defender's to play")),
        "{other:?}"
    );
    let defender = g.seal(0, 1);
    let attacker = g.seal(1, 2);
    // A reveal of another placement than the one sealed: the opening does
    // not open the commitment, or the token is not what was opened.
    let mut forged = attacker.clone();
    forged.setup = defender.setup.clone();
    let me = g.party_of_seat(1);
    let wrong = table::play_with(
        &mut g.replay.clone(),
        &[String::from_utf8(attacker.setup.as_bytes().to_vec()).unwrap()],
        vec![Evidence::SetupReveal(forged)],
        &g.parties[me].signer(),
    );
    assert!(
        matches!(&wrong, Err(TableError::Refused(e)) if matches!(e.fault, ReplayFault::Record(crate::fair_play::record::Fault::Commit(_)))),
        "{wrong:?}"
    );
    let other_placement = choose_setup(Side::Attacker, 99).unwrap();
    let mismatch = table::play_with(
        &mut g.replay.clone(),
        &[other_placement.placement().to_string()],
        vec![Evidence::SetupReveal(attacker.clone())],
        &g.parties[me].signer(),
    );
    assert!(
        matches!(&mismatch, Err(TableError::Refused(e)) if matches!(&e.fault, ReplayFault::Setup(r) if r.contains("opening of the commitment holds"))),
        "{mismatch:?}"
    );
    g.reveal(1, attacker);
    g.reveal(0, defender);
    verified(&g.text());
}

#[test]
fn declared_orders_are_checked_before_any_die() {
    let mut g = Game::siege("standard");
    g.set_up();
    let me = g.party_of_seat(0);
    // The Defender may not leave the castle (CS-17): refused before a roll.
    let refused = table::prepare(
        &g.replay,
        &["Move".into(), "Kc3-b2".into()],
        &g.parties[me].signer(),
    );
    assert!(matches!(&refused, Err(TableError::Rules(_))), "{refused:?}");
    // A face cannot be declared.
    let face = table::prepare(&g.replay, &["Move@3".into()], &g.parties[me].signer());
    assert!(
        matches!(&face, Err(TableError::Value(v)) if v.contains("nobody knows a die")),
        "{face:?}"
    );
    // Orders that need a die are a roll; a marker alone is not.
    let state = g.siege_state().state().unwrap().clone();
    let orders = choose_declaration(&state, Policy::Eager, 0).texts();
    assert!(matches!(
        table::prepare(&g.replay, &orders, &g.parties[me].signer()),
        Ok(Prepared::Roll(_))
    ));
    assert_eq!(
        table::prepare(&g.replay, &["breach".into()], &g.parties[me].signer()).unwrap(),
        Prepared::Plain(vec!["Breach".into()])
    );
}

#[test]
fn skipped_orders_must_be_the_ones_recorded() {
    let mut g = Game::siege("standard");
    g.set_up();
    // Eight steps: the allowance (at most 6) leaves some skipped.
    let state = g.siege_state().state().unwrap().clone();
    let mut orders = vec!["Move".to_owned()];
    orders.extend(
        crate::castle_siege::legal_steps(&state)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .into_iter()
            .fold(Vec::<String>::new(), |mut acc, s| {
                // Distinct units: one step per starting square.
                if !acc.iter().any(|a| a[..3] == s[..3]) {
                    acc.push(s);
                }
                acc
            })
            .into_iter()
            .take(8),
    );
    let before = g.replay.clone();
    let events = g.play(&orders);
    let last = events.last().unwrap();
    let EventBody::Turn(turn) = &last.event.body else {
        panic!("a turn")
    };
    assert!(turn.moves.iter().any(|m| m.as_str().ends_with("/skip")));
    assert!(
        turn.evidence
            .iter()
            .any(|e| matches!(e, Evidence::Skipped { .. }))
    );
    // The same turn without its skipped evidence, signed by its author.
    let mut replay = before.clone();
    for e in &events[..events.len() - 1] {
        replay.push(e).unwrap();
    }
    let evidence: Vec<Evidence> = turn
        .evidence
        .iter()
        .filter(|e| !matches!(e, Evidence::Skipped { .. }))
        .cloned()
        .collect();
    let forged = Event {
        body: EventBody::Turn(TurnBody {
            moves: turn.moves.clone(),
            evidence: List::new(evidence).unwrap(),
        }),
        ..last.event.clone()
    }
    .sign(&g.parties[g.party_of_seat(0)].key)
    .unwrap();
    let err = replay.push(&forged).unwrap_err();
    assert!(
        matches!(err.fault, ReplayFault::SkipsDiffer { .. }),
        "{err}"
    );
    verified(&g.text());
}

// ----- Genghis Khan -----

#[test]
fn a_card_game_against_a_director_verifies_to_its_score() {
    let mut g = Game::cards(Mode::Director);
    // The layout was rolled in the opening: the rows are public.
    assert!(g.cards_state().state().is_some());
    assert!(
        g.text()
            .contains("\"lay out Mongolian Unification: card 1 of 20: #")
    );
    let mut draws = 0;
    while let Some(action) = g.cards_state().state().and_then(greedy_action) {
        let state = g.cards_state().state().unwrap().clone();
        let order = match &action {
            Action::Draw => {
                draws += 1;
                DRAW_ORDER.to_owned()
            }
            other => notate(&state, other, &[]).unwrap().to_string(),
        };
        let events = g.play(&[order]);
        assert_eq!(events.len(), if action == Action::Draw { 3 } else { 1 });
    }
    let text = g.text();
    let v = verified(&text);
    assert_eq!(v.summary.rolls, draws + 1, "the layout and each draw");
    assert_eq!(v.summary.values_checked, 100 + draws as usize);
    assert!(v.referee.is_some());
    let score = g.cards_state().state().unwrap().result();
    assert_eq!(v.result, score);
    assert!(text.contains("[Mode \"director\"]"));
    assert!(text.contains("[RefereeKey \""));
    // The rules checker leaves it to `yam verify`.
    assert!(matches!(check(&text), CheckVerdict::RulesNotChecked(_)));

    // One drawn card changed is refused, where it stands.
    let changed = replace_token(
        &text,
        |t| t.starts_with("draw:"),
        |t| {
            if t.starts_with("draw:1a/") {
                "draw:1b".into()
            } else {
                "draw:1a".into()
            }
        },
    );
    let f = failure(&changed);
    assert!(f.reason.contains("signs draw:"), "{}", f.reason);
    assert!(f.found.starts_with("draw:1"));
}

#[test]
fn each_card_is_a_roll_of_its_own() {
    let mut g = Game::cards(Mode::Director);
    let two = g.try_play(0, &[DRAW_ORDER.into(), DRAW_ORDER.into()]);
    assert!(
        matches!(&two, Err(TableError::Rules(r)) if r.reason.contains("GK-P1")),
        "{two:?}"
    );
    let card = g.try_play(0, &["draw:9a".into()]);
    assert!(
        matches!(&card, Err(TableError::Value(v)) if v.contains("not known until the roll")),
        "{card:?}"
    );
    let early = g.try_play(0, &["attack:M".into()]);
    assert!(
        matches!(&early, Err(TableError::Rules(r)) if r.reason.contains("GK-04")),
        "{early:?}"
    );
    let events = g.play(&[DRAW_ORDER.into()]);
    assert_eq!(events.len(), 3);
    let text = g.text();
    assert!(text.contains("\"turn 1 Horde: card 1: #"));
    verified(&text);
}

#[test]
fn a_horde_card_cannot_be_drawn_again_by_closing_its_roll_with_no_moves() {
    // Attacker helper (fair play, 3.3 "No re-roll"): the player declares
    // `draw`, the director answers, and the player, who can now compute
    // the card, dislikes it. Instead of the turn that plays
    // `draw:<card>` it signs a turn with no moves whose only evidence is
    // the `Outcomes` of that roll with no values. The answered state takes
    // only "a turn carrying the Outcomes of roll k ... whose moves are
    // exactly the declared orders as the values resolved them" (3.3).
    // Accepted, the roll is closed unplayed and the player draws again.
    let mut g = Game::cards(Mode::Director);
    let events = g.play(&[DRAW_ORDER.into()]);
    assert_eq!(events.len(), 3);
    let outcome = &events[2];
    let EventBody::Turn(played) = &outcome.event.body else {
        panic!("a turn")
    };
    let roll = played
        .evidence
        .iter()
        .find_map(|e| match e {
            Evidence::Outcomes { roll, .. } => Some(*roll),
            _ => None,
        })
        .unwrap();
    let mut event = outcome.event.clone();
    event.body = EventBody::Turn(TurnBody {
        moves: List::empty(),
        evidence: List::new(vec![Evidence::Outcomes {
            roll,
            results: List::empty(),
        }])
        .unwrap(),
    });
    let player = g.party_of_seat(0);
    let cheat = event.sign(&g.parties[player].key).unwrap();
    let ruleset = Builtin
        .load_ruleset(GameKind::GenghisKhan, "standard")
        .unwrap();
    let mut replay = SignedReplay::start(&Builtin, &ruleset).unwrap();
    let all = g.replay.events().all();
    for e in &all[..all.len() - 1] {
        replay.push(e).unwrap();
    }
    match replay.push(&cheat) {
        Err(err) => assert!(
            matches!(
                err.fault,
                ReplayFault::OutcomesPlayNothing { roll: r } if r == roll
            ),
            "{err}"
        ),
        Ok(_) => {
            let again = table::play(
                &mut replay,
                &[DRAW_ORDER.into()],
                &g.parties[player].signer(),
                &[g.parties[1 - player].signer()],
            );
            panic!(
                "an empty outcome turn closed answered roll {roll} without drawing its card; \
                 the player draws again: {:?}",
                again.map(|e| e.len())
            );
        }
    }
    // The card is still owed: the honest outcome turn draws it.
    replay.push(outcome).unwrap();
}

#[test]
fn a_practice_card_game_is_unverified_and_checks_from_its_seed() {
    let seed = Blob::new(b"practice cards".to_vec()).unwrap();
    let mut g = Game::cards(Mode::Practice { seed });
    for _ in 0..5 {
        g.play(&[DRAW_ORDER.into()]);
    }
    g.play(&["attack:M".into()]);
    let text = g.text();
    let v = verified(&text);
    assert!(v.is_practice());
    assert_eq!(v.summary.rolls, 6);
    // The practice stream is the one the rules checker replays from the
    // seed: the layout first, then every draw.
    assert_eq!(check(&text), CheckVerdict::Legal);
}

#[test]
fn a_solo_game_abandoned_has_no_score() {
    let mut g = Game::cards(Mode::Director);
    g.play(&[DRAW_ORDER.into()]);
    let before = g.replay.clone();
    let player = g.party_of_seat(0);
    let event = table::resign(&mut g.replay, &g.parties[player].signer()).unwrap();
    g.append(&before, &[event]);
    let end = g.replay.ending().unwrap();
    assert_eq!(end.result, yam_notation::GameResult::Unfinished);
    assert!(end.reason.contains("abandoned"));
    verified(&g.text());
}

// ----- hostile tokens -----

mod hostile {
    use proptest::prelude::*;

    use crate::castle_siege::game_replay::CastleSiegeReplay;
    use crate::castle_siege::{Policy, Ruleset, Setup, Side, choose_declaration, choose_setup};
    use crate::fair_play::chance::PracticeChance;
    use crate::fair_play::encoding::Blob;
    use crate::fair_play::game_id::GameId;
    use crate::fair_play::turn::MoveToken;
    use crate::genghis_khan::game_replay::GenghisKhanReplay;
    use crate::replay::{GameReplay, NoChance};

    fn chance() -> PracticeChance {
        PracticeChance::new(
            &GameId::new("hostile").unwrap(),
            &Blob::new(b"seed".to_vec()).unwrap(),
        )
    }

    /// A siege at each stage: sealing, revealing, playing.
    fn sieges() -> Vec<CastleSiegeReplay> {
        let mut game = CastleSiegeReplay::new(Ruleset::standard().rules);
        let mut out = vec![game.clone()];
        let sealed = |side| vec![MoveToken::new(super::sealed_token(side)).unwrap()];
        game.play_as(0, &sealed(Side::Defender), &mut NoChance)
            .unwrap();
        game.play_as(1, &sealed(Side::Attacker), &mut NoChance)
            .unwrap();
        out.push(game.clone());
        for (seat, side) in [(0, Side::Defender), (1, Side::Attacker)] {
            let setup: Setup = choose_setup(side, 5).unwrap();
            let token = MoveToken::new(setup.placement().to_string()).unwrap();
            game.play_as(seat, &[token], &mut NoChance).unwrap();
        }
        let state = game.state().unwrap().clone();
        let orders: Vec<MoveToken> = choose_declaration(&state, Policy::Random, 1)
            .texts()
            .into_iter()
            .map(|t| MoveToken::new(t).unwrap())
            .collect();
        out.push(game.clone());
        let _ = game.play(&orders, &mut chance());
        out.push(game);
        out
    }

    fn cards() -> Vec<GenghisKhanReplay> {
        let mut game = GenghisKhanReplay::new(crate::genghis_khan::Ruleset::standard());
        let before = game.clone();
        game.play(&[], &mut chance()).unwrap();
        vec![before, game]
    }

    fn token() -> impl Strategy<Value = String> {
        prop_oneof![
            "[ -~]{1,40}",
            "(Move|Breach|Attack|End|draw|pass|attack:M|Defender:sealed|reveal)",
            "[A-Z][a-h][1-8][-#x][A-Z]?[a-h][1-8](@[0-9]|/skip)?",
            "(draw|capture|discard):[0-9a-jA-Z/,+=\"]{0,20}",
        ]
        .prop_filter("a token", |t| MoveToken::new(t.as_str()).is_ok())
    }

    proptest! {
        #[test]
        fn no_turn_panics_any_replay(moves in proptest::collection::vec(token(), 0..6), seat in 0usize..3) {
            let tokens: Vec<MoveToken> = moves.iter().map(|m| MoveToken::new(m.as_str()).unwrap()).collect();
            let mut games: Vec<Box<dyn GameReplay>> = Vec::new();
            games.extend(sieges().into_iter().map(|g| Box::new(g) as Box<dyn GameReplay>));
            games.extend(cards().into_iter().map(|g| Box::new(g) as Box<dyn GameReplay>));
            for game in games {
                let before = game.position();
                let mut trial = game.boxed_clone();
                if trial.play_as(seat, &tokens, &mut chance()).is_err() {
                    prop_assert_eq!(trial.position(), before.clone());
                }
                let _ = game.resolve(seat, &moves, &mut chance());
                let _ = game.secret_setup(&tokens);
                for m in &moves {
                    let _ = game.declared_order(m);
                    let _ = game.canonical_order(m);
                    let _ = game.canonical_token(m);
                }
                let _ = game.legal_moves();
                let _ = game.may_play(seat);
            }
        }
    }
}

/// CS-P4 through the roll life cycle: each order of a faithful turn is its
/// own declaration, requested before its die is known, answered, then
/// played; the next is prepared only in the position the die left.
#[test]
fn a_faithful_turn_goes_through_the_roll_life_cycle_one_order_at_a_time() {
    let mut g = Game::siege("standard-faithful");
    g.set_up();
    let me = g.party_of_seat(0);
    let other = 1 - me;
    let prepare = |g: &Game, orders: &[&str]| {
        let orders: Vec<String> = orders.iter().map(|o| (*o).to_owned()).collect();
        table::prepare(&g.replay, &orders, &g.parties[me].signer())
    };
    let refused = |g: &Game, orders: &[&str], reason: &str| {
        let r = prepare(g, orders);
        assert!(
            matches!(&r, Err(TableError::Rules(e)) if e.reason.contains(reason)),
            "{orders:?}: {r:?}"
        );
    };
    // Before the allowance: no step, and no step listed with it.
    refused(&g, &["Move", "Kd6-c6"], "Move is declared alone");
    let state = g.siege_state().state().unwrap().clone();
    assert!(
        crate::castle_siege::legal_steps(&state).is_empty(),
        "no step is legal before the allowance"
    );
    assert_eq!(
        prepare(&g, &["Move"]).unwrap(),
        Prepared::Roll(vec!["Move".into()])
    );
    // Requested: the allowance is not known, and nothing else may be asked.
    let mut replay = g.replay.clone();
    let request =
        table::request_roll(&mut replay, &["Move".into()], &g.parties[me].signer(), "").unwrap();
    let before = g.replay.clone();
    g.append(&before, &[request]);
    g.replay = replay;
    assert!(g.siege_state().state().unwrap().allowance().is_none());
    let again = table::play(
        &mut g.replay.clone(),
        &["Breach".into()],
        &g.parties[me].signer(),
        &[g.parties[other].signer()],
    );
    assert!(
        matches!(again, Err(TableError::RollOpen { .. })),
        "a roll is open: nothing else is played: {again:?}"
    );
    // Answered, then played: the allowance is known.
    let mut replay = g.replay.clone();
    let response = table::respond(&mut replay, &g.parties[other].signer()).unwrap();
    let before = g.replay.clone();
    g.append(&before, &[response]);
    g.replay = replay;
    let mut replay = g.replay.clone();
    let played = table::complete_roll(&mut replay, &g.parties[me].signer()).unwrap();
    let before = g.replay.clone();
    g.append(&before, &[played]);
    g.replay = replay;
    let allowance = g.siege_state().state().unwrap().allowance().unwrap();
    assert_eq!(allowance.used, 0);
    // Each step on its own: a Defender's step draws no die (CS-17), so it
    // is a turn without a roll.
    for _ in 0..allowance.face {
        let state = g.siege_state().state().unwrap().clone();
        let steps = crate::castle_siege::legal_steps(&state);
        let step = steps.first().expect("a step").to_string();
        refused(&g, &[&step, &step], "a step is declared alone");
        assert_eq!(
            prepare(&g, &[&step]).unwrap(),
            Prepared::Plain(vec![step.clone()])
        );
        assert_eq!(g.play(&[step]).len(), 1);
    }
    // The allowance is used up: the next step is refused with its reason.
    let state = g.siege_state().state().unwrap().clone();
    let spare = state
        .units()
        .iter()
        .find(|u| u.side == Side::Defender && !u.moved)
        .expect("a unit that has not moved");
    let to = state
        .rules()
        .adjacency
        .neighbours(spare.square)
        .find(|sq| crate::castle_siege::board::is_castle(*sq))
        .unwrap();
    let step = format!("{}{}-{to}", spare.kind.letter(), spare.square);
    refused(&g, &[&step], "is used up");
    // An attack is a roll of its own, with nothing after its die.
    let attack = crate::castle_siege::legal_attacks(&state)
        .first()
        .expect("an attack")
        .to_string();
    refused(
        &g,
        &["Attack", &attack, "End"],
        "ends with the order that rolls its die",
    );
    assert_eq!(
        prepare(&g, &["Attack", &attack]).unwrap(),
        Prepared::Roll(vec!["Attack".into(), attack.clone()])
    );
    assert_eq!(g.play(&["Attack".into(), attack]).len(), 3);
    g.play(&["End".into()]);
    let text = g.text();
    let v = verified(&text);
    assert_eq!(v.summary.rolls, 2);
    assert_eq!(check(&text), CheckVerdict::Legal);
}

/// A faithful game played to its end, one order at a time, verifies with
/// its result and checks from its faces.
#[test]
fn a_faithful_siege_played_to_its_end_verifies() {
    let mut g = Game::siege("skirmish-faithful");
    g.set_up();
    let mut seed = 0;
    while g.replay.ending().is_none() {
        g.declare(Policy::Random, seed);
        seed += 1;
        assert!(seed < 4000, "the round cap ends the game");
    }
    let end = g.replay.ending().unwrap();
    let text = g.text();
    let v = verified(&text);
    assert_eq!(v.result, end.result);
    assert_eq!(check(&text), CheckVerdict::Legal);
    assert!(!text.contains("/skip"), "nothing is skipped: {text}");
}

/// Writing events a replay verified, numbered from its snapshots, gives
/// exactly the record that replaying them onto the kept game gives: for a
/// siege with sealed setups, faces and skipped orders, and a card game.
#[test]
fn events_written_from_a_verified_replay_are_the_events_appended_by_replay() {
    let same = |kept: &str, before: &SignedReplay, after: &SignedReplay| {
        let from = before.events().len();
        let to = after.events().len();
        assert!(from > 0 && to > from);
        let mut replayed = yam_notation::parse_record::<RawGrammar>(kept).unwrap();
        append_events(
            &mut replayed,
            before,
            &after.events().all()[from..],
            Some("Well played."),
        )
        .unwrap();
        let mut written = yam_notation::parse_record::<RawGrammar>(kept).unwrap();
        crate::signed::write::append_verified(&mut written, after, from..to, Some("Well played."))
            .unwrap();
        assert_eq!(
            record_to_string::<RawGrammar>(&written),
            record_to_string::<RawGrammar>(&replayed)
        );
        // One event at a time, as the desk writes them (each with its own
        // prose), the same again.
        let mut one_by_one = yam_notation::parse_record::<RawGrammar>(kept).unwrap();
        for seq in from..to {
            crate::signed::write::append_verified(&mut one_by_one, after, seq..seq + 1, None)
                .unwrap();
        }
        let mut replayed_one_by_one = yam_notation::parse_record::<RawGrammar>(kept).unwrap();
        let mut replay = before.clone();
        for event in &after.events().all()[from..] {
            replay = append_events(
                &mut replayed_one_by_one,
                &replay,
                std::slice::from_ref(event),
                None,
            )
            .unwrap();
        }
        assert_eq!(
            record_to_string::<RawGrammar>(&one_by_one),
            record_to_string::<RawGrammar>(&replayed_one_by_one)
        );
        // Nothing to number the first event from: the caller replays.
        let mut untouched = yam_notation::parse_record::<RawGrammar>(kept).unwrap();
        assert!(crate::signed::write::append_verified(&mut untouched, after, 0..1, None).is_none());
        assert!(
            crate::signed::write::append_verified(&mut untouched, after, from..to + 1, None)
                .is_none()
        );
    };

    let mut g = Game::siege("skirmish");
    g.set_up();
    for seed in 0..3 {
        g.declare(Policy::Random, seed);
    }
    let (kept, before) = (g.text(), g.replay.clone());
    let mut seed = 3;
    while g.replay.ending().is_none() && seed < 12 {
        g.declare(Policy::Random, seed);
        seed += 1;
    }
    same(&kept, &before, &g.replay);

    let mut g = Game::cards(Mode::Director);
    let (kept, before) = (g.text(), g.replay.clone());
    for _ in 0..4 {
        let Some(action) = g.cards_state().state().and_then(greedy_action) else {
            break;
        };
        let state = g.cards_state().state().unwrap().clone();
        let order = match &action {
            Action::Draw => DRAW_ORDER.to_owned(),
            other => notate(&state, other, &[]).unwrap().to_string(),
        };
        g.play(&[order]);
    }
    same(&kept, &before, &g.replay);
}

/// A Castle Siege declaration probed for its dice (every roll request a
/// replay checks) fails on the chance, and the board is not drawn for that
/// refusal, which nobody reads; a refusal by the rules still shows it.
#[test]
fn a_probed_declaration_draws_no_board() {
    let mut g = Game::siege("standard-faithful");
    g.set_up();
    let seat = 0;
    let mut probe = super::replay::Probe::default();
    let asked = g
        .replay
        .game()
        .resolve(seat, &["Move".to_owned()], &mut probe)
        .expect_err("the probe gives no die");
    assert!(probe.asked, "{asked:?}");
    assert!(asked.position.is_empty(), "{}", asked.position);
    let mut probe = super::replay::Probe::default();
    let illegal = g
        .replay
        .game()
        .resolve(seat, &["Move".to_owned(), "Kd6-c6".to_owned()], &mut probe)
        .expect_err("Move is declared alone");
    assert!(!illegal.position.is_empty(), "{illegal:?}");
}

/// Every record of `texts` (each a longer continuation of the one before,
/// as a client writes a game turn by turn) and its replay: a tip made of
/// any of them restores its replay, and the replay of any later one,
/// walked from it through the new movetext only, is the whole replay, with
/// the bounds a whole reading finds. Anything else falls back to the whole
/// replay.
/// Returns how many appends joined the comment the text ended with.
fn tips_continue_every_later_record(records: &[(String, SignedReplay)]) -> usize {
    use super::tip::{After, Bounds, Tip, replay_after, replay_continued};
    use super::verify::{Known, replay_text_knowing};
    let bounds_of = |text: &str| Bounds::of(text, &collect(text)).unwrap();
    // Two replays are the same when their serialised states are (a tip
    // less its header, 140 bytes, and its seal, 32).
    let state = |replay: &SignedReplay, text: &str| {
        let saved = Tip::save(replay, text, bounds_of(text)).unwrap();
        saved[140..saved.len() - 32].to_vec()
    };
    let whole: Vec<Vec<u8>> = records
        .iter()
        .map(|(text, _)| {
            let replay = replay_text_knowing(&collect(text), &Builtin, Known::Nothing).unwrap();
            state(&replay, text)
        })
        .collect();
    for (k, (prefix, replay)) in records.iter().enumerate() {
        assert_eq!(
            state(replay, prefix),
            whole[k],
            "the harness's replay is the whole one"
        );
        let tip = Tip::save(replay, prefix, bounds_of(prefix)).unwrap();
        let tip_bytes: SharedBytes = Arc::new(tip.clone());
        let (restored, bounds, digest) = Tip::restore(&tip_bytes, prefix, &Builtin).unwrap();
        assert_eq!(bounds, bounds_of(prefix));
        assert_eq!(state(&restored, prefix), whole[k], "restored as it was");
        assert_eq!(digest.len(), bounds.cut / 64 * 64);
        for (m, (text, _)) in records.iter().enumerate().skip(k) {
            match replay_after(text, prefix, bounds, &restored, Known::Nothing) {
                After::Replayed { replay, bounds } => {
                    assert_eq!(bounds, Some(bounds_of(text)), "{k} -> {m}");
                    assert_eq!(state(&replay, text), whole[m], "{k} -> {m}");
                    // A record that continues the text has its SHA-256
                    // finished from the tip's digest.
                    let sha: [u8; 32] =
                        <sha2::Sha256 as sha2::Digest>::digest(text.as_bytes()).into();
                    assert_eq!(digest.finish(text.as_bytes()), Some(sha), "{k} -> {m}");
                }
                After::Whole => panic!("{k} -> {m}: not continued"),
            }
        }
        // A tip is bound to its text, its version and its own bytes.
        let mut other = prefix.clone();
        other.insert(bounds.cut, ' ');
        assert!(
            Tip::restore(&tip_bytes, &other, &Builtin).is_none(),
            "another text"
        );
        // Damage anywhere: the version, the text's hash, the digest's
        // count, state and hash, the payload's first, middle and last
        // bytes, the seal.
        for at in [
            9,
            30,
            69,
            80,
            120,
            141,
            tip.len() / 2,
            tip.len() - 33,
            tip.len() - 1,
        ] {
            let mut damaged = tip.clone();
            damaged[at] ^= 1;
            assert!(
                Tip::restore(&(Arc::new(damaged) as SharedBytes), prefix, &Builtin).is_none(),
                "damaged at {at}"
            );
        }
        // Torn: the next turn's tip written over this one in place, read
        // midway or cut there by a crash (the new tip's first bytes, then
        // what is left of the old one, or nothing), restores only if it is
        // one of the two tips whole, and only for that tip's own text.
        if let Some((next, next_replay)) = records.get(k + 1) {
            let new = Tip::save(next_replay, next, bounds_of(next)).unwrap();
            for cut in [1, 60, new.len() / 2, new.len() - 1] {
                let mut over = new[..cut].to_vec();
                let cut_short = over.clone();
                over.extend_from_slice(tip.get(cut..).unwrap_or_default());
                for torn in [over, cut_short] {
                    for text in [prefix, next] {
                        let whole =
                            (torn == tip && text == prefix) || (torn == new && text == next);
                        let restored =
                            Tip::restore(&(Arc::new(torn.clone()) as SharedBytes), text, &Builtin);
                        assert_eq!(restored.is_some(), whole, "torn at {cut}");
                    }
                }
            }
        }
        // Sealed anew over a digest that is not of the text's first bytes
        // (its count, or its BLAKE3 hash of them): a tip this build could
        // not have written, no tip. (Its SHA-256 state is the writer's,
        // trusted as the replay it carries is: `signed::prefix`.)
        for at in [75, 120] {
            let mut forged = tip[..tip.len() - super::tip::SEAL].to_vec();
            forged[at] ^= 1;
            let seal = super::tip::seal(&forged);
            forged.extend_from_slice(&seal);
            assert!(
                Tip::restore(&(Arc::new(forged) as SharedBytes), prefix, &Builtin).is_none(),
                "a digest not of the text, at {at}"
            );
        }
        let mut later = tip.clone();
        later[8..12].copy_from_slice(&(Tip::VERSION + 1).to_be_bytes());
        assert!(
            Tip::restore(&(Arc::new(later) as SharedBytes), prefix, &Builtin).is_none(),
            "another version"
        );
    }
    // Each record printed from the one before by appending its new events
    // to the text is the record the whole printer gives, byte for byte
    // (with prose too), unless the header changes.
    let (mut appended, mut joined) = (0, 0);
    for pair in records.windows(2) {
        let [(text, before), (next, after)] = pair else {
            unreachable!()
        };
        let events = &after.events().all()[before.events().len()..];
        for prose in [None, Some("Well played, and { braced } prose.")] {
            let mut whole = yam_notation::parse_record::<RawGrammar>(text).unwrap();
            append_events(&mut whole, before, events, prose).unwrap();
            let whole = record_to_string::<RawGrammar>(&whole);
            if prose.is_none() {
                assert_eq!(&whole, next);
            }
            let verified =
                append_verified_to_text(text, bounds_of(text), after, before.events().len(), prose);
            // The desk's way: each event with its own prose (none), in the
            // text's own buffer.
            let mut each = text.clone();
            let each_append = append_each_verified_in_place(
                &mut each,
                bounds_of(text),
                after,
                before.events().len(),
                &|_| None,
            );
            match verified {
                Some(spliced) => {
                    assert_eq!(spliced, whole, "appended to the text");
                    // The appended text, walked from the text it continues,
                    // is the replay that played its events.
                    let After::Replayed { replay, .. } =
                        replay_after(&spliced, text, bounds_of(text), before, Known::Nothing)
                    else {
                        panic!("the appended text does not continue its text");
                    };
                    assert_eq!(state(&replay, &spliced), state(after, next));
                    // The same in the text's own buffer, read back knowing
                    // its prefix; and taken back to the text it was.
                    let mut in_place = text.clone();
                    let in_place_append = append_verified_in_place(
                        &mut in_place,
                        bounds_of(text),
                        after,
                        before.events().len(),
                        prose,
                    )
                    .expect("appended in place where appended to a copy");
                    // Read back from its new part alone to the whole
                    // replay's state (`appended` in place, the same text).
                    let reads_back = |appended: &String, how: &AppendedInPlace, what: &str| {
                        assert_eq!(appended, &spliced, "{what}: the same text");
                        let After::Replayed { replay, .. } =
                            replay_continued(appended, how, before, Known::Nothing)
                        else {
                            panic!("{what}: the text appended in place does not continue");
                        };
                        assert_eq!(state(&replay, appended), state(after, next), "{what}");
                    };
                    reads_back(&in_place, &in_place_append, "in place");
                    // A new event damaged after the append (a byte of its
                    // signed bytes) does not read back: the whole way.
                    let mut damaged = in_place.clone();
                    let command = damaged.rfind("[%event").expect("an event") + "[%event".len();
                    let payload = damaged[command..]
                        .find(|c: char| !c.is_whitespace())
                        .expect("its payload");
                    let event = command + payload + 8;
                    assert!(event > bounds_of(text).cut, "the new event");
                    let byte = damaged.as_bytes()[event];
                    let other = if byte == b'A' { "B" } else { "A" };
                    damaged.replace_range(event..=event, other);
                    assert!(
                        matches!(
                            replay_continued(&damaged, &in_place_append, before, Known::Nothing),
                            After::Whole
                        ),
                        "a damaged new event is not read from the prefix"
                    );
                    in_place_append.undo(&mut in_place);
                    assert_eq!(&in_place, text, "taken back");
                    // Each event with its own prose (none here), in place,
                    // as the desk appends a turn mail's events: the same.
                    if prose.is_none() {
                        let each_append = each_append.expect("each appended in place");
                        reads_back(&each, &each_append, "each in place");
                        each_append.undo(&mut each);
                        assert_eq!(&each, text, "taken back");
                    }
                    appended += 1;
                    let cut = bounds_of(text).cut;
                    joined += usize::from(spliced.as_bytes()[cut] != b'}');
                }
                None => {
                    assert_ne!(
                        whole.split("\n\n").next(),
                        text.split("\n\n").next(),
                        "only a changed header is printed whole"
                    );
                    // Nor in place: the text left as it was.
                    assert!(each_append.is_none());
                    assert_eq!(&each, text, "left as it was");
                }
            }
        }
    }
    assert!(appended > 0);
    // A later record whose verified part differs from the prefix, by one
    // byte anywhere, is replayed whole; so is one whose new part fails.
    let (first, replay) = &records[0];
    let bounds = bounds_of(first);
    let (last, _) = records.last().unwrap();
    for at in [bounds.movetext + 3, bounds.cut / 2, bounds.cut - 2] {
        let mut changed = last.clone().into_bytes();
        changed[at] = if changed[at] == b'A' { b'B' } else { b'A' };
        let Ok(changed) = String::from_utf8(changed) else {
            continue;
        };
        assert!(matches!(
            replay_after(&changed, first, bounds, replay, Known::Nothing),
            After::Whole
        ));
    }
    if last.len() > first.len() + 40 {
        let mut changed = last.clone().into_bytes();
        let at = bounds.cut + (last.len() - bounds.cut) / 2;
        changed[at] = if changed[at] == b'A' { b'B' } else { b'A' };
        if let Ok(changed) = String::from_utf8(changed) {
            assert!(matches!(
                replay_after(&changed, first, bounds, replay, Known::Nothing),
                After::Whole
            ));
            assert!(replay_text_knowing(&collect(&changed), &Builtin, Known::Nothing).is_err());
        }
    }
    joined
}

/// A tip restores a replay of each game exactly, and a later record is
/// walked from it through its new movetext alone to the whole replay's
/// answer: Castle Siege (sealed setups, rolls, faces), Genghis Khan
/// (against a director) and Khan.
#[test]
fn a_tip_restores_the_replay_and_a_later_record_continues_from_it() {
    let mut joined = tips_continue_every_later_record(&siege_records(0..12));
    joined += tips_continue_every_later_record(&card_records(true));
    joined += tips_continue_every_later_record(&khan_records(7, 0));
    assert!(joined > 0, "events joined the comment the text ended with");
}

// ----- hostile continuations, judged both ways -----

/// A Castle Siege, its record and replay after each turn; the declarations
/// are drawn from `seeds` (other seeds play another game between the same
/// parties under the same id).
fn siege_records(seeds: std::ops::Range<u64>) -> Vec<(String, SignedReplay)> {
    let mut siege = Game::siege("skirmish-faithful");
    siege.set_up();
    let mut records = vec![(siege.text(), siege.replay.clone())];
    for seed in seeds {
        if siege.replay.ending().is_some() {
            break;
        }
        siege.declare(Policy::Random, seed);
        records.push((siege.text(), siege.replay.clone()));
    }
    records
}

/// A card game against a director, its record and replay after each
/// action: the greedy player's, or (`greedy` false) other legal actions,
/// another game under the same id.
fn card_records(greedy: bool) -> Vec<(String, SignedReplay)> {
    let mut cards = Game::cards(Mode::Director);
    let mut records = vec![(cards.text(), cards.replay.clone())];
    for turn in 0..12 {
        let Some(state) = cards.cards_state().state().cloned() else {
            break;
        };
        let legal = crate::genghis_khan::legal_actions(&state);
        let action = if greedy {
            greedy_action(&state)
        } else {
            legal.get((turn * 5 + 3) % legal.len().max(1)).cloned()
        };
        let Some(action) = action else {
            break;
        };
        let order = match &action {
            Action::Draw => DRAW_ORDER.to_owned(),
            other => notate(&state, other, &[]).unwrap().to_string(),
        };
        cards.play(&[order]);
        records.push((cards.text(), cards.replay.clone()));
    }
    records
}

/// A Khan game of sixteen plies, its record and replay after each: the
/// legal move `(ply * stride + offset)` in the list, so that another
/// stride plays another game under the same id.
fn khan_records(stride: usize, offset: usize) -> Vec<(String, SignedReplay)> {
    let mut khan = Game::open(
        GameKind::Khan,
        "basic",
        Mode::Peer,
        Seating::Chosen {
            challenger_first: true,
        },
    );
    let mut records = vec![(khan.text(), khan.replay.clone())];
    for ply in 0..16 {
        let moves = khan.replay.game().legal_moves();
        if moves.is_empty() {
            break;
        }
        let pick = moves[(ply * stride + offset) % moves.len()].clone();
        khan.play(&[pick]);
        records.push((khan.text(), khan.replay.clone()));
    }
    records
}

/// The byte ranges of the `[%name ...]` commands in `s`.
fn commands_in(s: &[u8], name: &str) -> Vec<std::ops::Range<usize>> {
    let open = format!("[%{name}");
    let open = open.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = s[from..].windows(open.len()).position(|w| w == open) {
        let start = from + at;
        let Some(len) = s[start..].iter().position(|&b| b == b']') else {
            break;
        };
        found.push(start..start + len + 1);
        from = start + len + 1;
    }
    found
}

fn is_separator(b: u8) -> bool {
    b.is_ascii_whitespace() || b"{}()".contains(&b)
}

/// The places in `s` where a token may begin or end.
fn boundaries(s: &[u8]) -> Vec<usize> {
    (0..=s.len())
        .filter(|&i| i == 0 || i == s.len() || is_separator(s[i - 1]) || is_separator(s[i]))
        .collect()
}

/// The words of `s` outside comments (`s` starts inside the comment that
/// holds the prefix's last event): moves, numbers, the result.
fn words_outside_comments(s: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut words = Vec::new();
    let mut in_comment = true;
    let mut start = None;
    for (i, &b) in s.iter().enumerate() {
        if in_comment {
            in_comment = b != b'}';
            continue;
        }
        let ends = b.is_ascii_whitespace() || b"{()".contains(&b);
        match (start, ends) {
            (None, false) => start = Some(i),
            (Some(from), true) => {
                words.push(from..i);
                start = None;
            }
            _ => {}
        }
        in_comment = b == b'{';
    }
    if let Some(from) = start {
        words.push(from..s.len());
    }
    words
}

fn is_move_number(word: &[u8]) -> bool {
    word.first().is_some_and(u8::is_ascii_digit)
        && word.ends_with(b".")
        && word.iter().all(|&b| b.is_ascii_digit() || b == b'.')
}

fn is_result(word: &[u8]) -> bool {
    yam_notation::GameResult::parse(word).is_some()
}

/// What a hostile sender has at hand besides the text it continues: the
/// events and readable rolls of the game (to play again), and the events,
/// moves and record of another game of the same kind between the same
/// parties under the same id (a fork).
struct Arsenal {
    events: Vec<Vec<u8>>,
    chances: Vec<Vec<u8>>,
    foreign_events: Vec<Vec<u8>>,
    foreign_moves: Vec<Vec<u8>>,
    foreign_record: Vec<u8>,
}

impl Arsenal {
    fn of(records: &[(String, SignedReplay)], fork: &[(String, SignedReplay)]) -> Arsenal {
        let commands = |text: &str, name: &str| -> Vec<Vec<u8>> {
            let s = text.as_bytes();
            commands_in(s, name)
                .into_iter()
                .map(|r| s[r].to_vec())
                .collect()
        };
        let (last, _) = records.last().unwrap();
        let (foreign, _) = fork.last().unwrap();
        let movetext = foreign.find("\n\n").unwrap();
        let foreign_moves = words_outside_comments(&foreign.as_bytes()[movetext..])
            .into_iter()
            .map(|r| foreign.as_bytes()[movetext..][r].to_vec())
            .filter(|w| !is_move_number(w) && !is_result(w))
            .collect();
        Arsenal {
            events: commands(last, "event"),
            chances: commands(last, "chance"),
            foreign_events: commands(foreign, "event"),
            foreign_moves,
            foreign_record: foreign.as_bytes().to_vec(),
        }
    }
}

/// Small pieces of notation a hostile sender may slip in anywhere.
const SNIPPETS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "{ prose }",
    "} {",
    "[%chance 0 \"attack Ad3xKb1: d6 6\"]",
    "[%chance]",
    "[%",
    "]",
    "[%event]",
    "[%event AAAA]",
    "[%clk 0:01:00]",
    "$1",
    "$255",
    "!?",
    "??",
    "1.",
    "1...",
    "2.",
    "9...",
    "\r\n",
    "\r",
    "\n",
    "\0",
    "é",
    "\u{2028}",
    "\u{feff}",
    "%",
    "\n%escaped line\n",
    ";",
    "; to the line's end\n",
    "*",
    "1-0",
    "0-1",
    "1/2-1/2",
    "\"",
    "\\",
    "--",
    "Ad1-c1",
    " ",
];

/// The bytes a single-byte insertion or replacement picks from.
const BYTES: &[u8] = b"{}()[]%$!?*.;\"\\ \n\r\t\0-/01aAzZ=+#";

/// The ways a hostile sender changes an honest continuation.
#[derive(Debug, Clone, Copy)]
enum Mutation {
    DeleteByte,
    InsertByte,
    ReplaceByte,
    DuplicateByte,
    DeleteSpan,
    DuplicateSpan,
    MoveSpan,
    Truncate,
    InsertSnippet,
    /// Words that join the comment holding the prefix's last event.
    JoinTheComment,
    /// A command without its `[`, first: it finishes one if the stored
    /// comment ends with a bracket.
    FinishABracket,
    /// The next event alone, then the result (a record cut short), with
    /// or without its `[`.
    TheNextEventAlone,
    ReplayEvent,
    ForeignEvent,
    ReplaceEventWithForeign,
    /// One character of an event's signature changed.
    ForgeASignature,
    SwapEvents,
    DropEvent,
    InsertChance,
    DropBrace,
    ChangeResult,
    DuplicateResult,
    RemoveResult,
    TextAfterResult,
    SecondGame,
    TagLine,
    LineEnds,
    Variation,
    MoveNumber,
    ReplaceMove,
}

impl Mutation {
    const ALL: [Mutation; 30] = [
        Mutation::DeleteByte,
        Mutation::InsertByte,
        Mutation::ReplaceByte,
        Mutation::DuplicateByte,
        Mutation::DeleteSpan,
        Mutation::DuplicateSpan,
        Mutation::MoveSpan,
        Mutation::Truncate,
        Mutation::InsertSnippet,
        Mutation::JoinTheComment,
        Mutation::FinishABracket,
        Mutation::TheNextEventAlone,
        Mutation::ReplayEvent,
        Mutation::ForeignEvent,
        Mutation::ReplaceEventWithForeign,
        Mutation::ForgeASignature,
        Mutation::SwapEvents,
        Mutation::DropEvent,
        Mutation::InsertChance,
        Mutation::DropBrace,
        Mutation::ChangeResult,
        Mutation::DuplicateResult,
        Mutation::RemoveResult,
        Mutation::TextAfterResult,
        Mutation::SecondGame,
        Mutation::TagLine,
        Mutation::LineEnds,
        Mutation::Variation,
        Mutation::MoveNumber,
        Mutation::ReplaceMove,
    ];

    /// Changes `s`, the text after the prefix's cut.
    fn apply(self, s: &mut Vec<u8>, rng: &mut Xorshift, arsenal: &Arsenal) {
        let anywhere = rng.below(s.len() + 1);
        let boundary = *rng.pick(&boundaries(s));
        let span = {
            let start = rng.below(s.len() + 1);
            start..start + rng.below(s.len() - start + 1).min(1 + rng.below(300))
        };
        let events = commands_in(s, "event");
        let event = rng.choose(&events);
        // Where an event may stand: after the prefix's last one, or before
        // or after one of the new ones.
        let mut event_places = vec![0];
        event_places.extend(events.iter().flat_map(|r| [r.start, r.end]));
        let event_place = *rng.pick(&event_places);
        let words = words_outside_comments(s);
        let result = words
            .last()
            .filter(|w| is_result(&s[(*w).clone()]))
            .cloned();
        let moves: Vec<_> = words
            .iter()
            .filter(|w| !is_move_number(&s[(*w).clone()]) && !is_result(&s[(*w).clone()]))
            .cloned()
            .collect();
        let numbers: Vec<_> = words
            .iter()
            .filter(|w| is_move_number(&s[(*w).clone()]))
            .cloned()
            .collect();
        let insert = |s: &mut Vec<u8>, at: usize, bytes: &[u8]| {
            s.splice(at..at, bytes.iter().copied());
        };
        match self {
            Mutation::DeleteByte => {
                if anywhere < s.len() {
                    s.remove(anywhere);
                }
            }
            Mutation::InsertByte => s.insert(anywhere, *rng.pick(BYTES)),
            Mutation::ReplaceByte => {
                if anywhere < s.len() {
                    s[anywhere] = *rng.pick(BYTES);
                }
            }
            Mutation::DuplicateByte => {
                if anywhere < s.len() {
                    s.insert(anywhere, s[anywhere]);
                }
            }
            Mutation::DeleteSpan => {
                s.drain(span);
            }
            Mutation::DuplicateSpan => {
                let copy = s[span].to_vec();
                insert(s, boundary, &copy);
            }
            Mutation::MoveSpan => {
                let taken: Vec<u8> = s.drain(span).collect();
                let at = rng.below(s.len() + 1);
                insert(s, at, &taken);
            }
            Mutation::Truncate => {
                s.truncate(anywhere);
                let end = *rng.pick(&["", "}", " *", "} *", "}\n*\n"]);
                s.extend_from_slice(end.as_bytes());
            }
            Mutation::InsertSnippet => {
                let at = if rng.below(3) == 0 {
                    anywhere
                } else {
                    boundary
                };
                insert(s, at, rng.pick(SNIPPETS).as_bytes());
            }
            Mutation::JoinTheComment => {
                let words = *rng.pick(&[
                    " Well played.",
                    " prose [%clk 0:01]",
                    "\n",
                    "} {",
                    "}{",
                    "} { prose } {",
                    " [%chance 0 \"x: d6 1\"]",
                    " {",
                    " (",
                    " )",
                ]);
                insert(s, 0, words.as_bytes());
            }
            Mutation::FinishABracket => {
                let command = match rng.choose(&arsenal.events) {
                    Some(event) if rng.below(2) == 0 => event,
                    _ => b"[%clk 0:01:00]".to_vec(),
                };
                insert(s, 0, &command[1..]);
            }
            Mutation::TheNextEventAlone => {
                if let Some(next) = events.first() {
                    let from = if rng.below(2) == 0 {
                        next.start + 1
                    } else {
                        next.start
                    };
                    let mut alone = if from == next.start {
                        b" ".to_vec()
                    } else {
                        Vec::new()
                    };
                    alone.extend_from_slice(&s[from..next.end]);
                    alone.extend_from_slice(b"}\n*\n");
                    *s = alone;
                }
            }
            Mutation::ReplayEvent | Mutation::ForeignEvent => {
                let pool = match self {
                    Mutation::ReplayEvent => &arsenal.events,
                    _ => &arsenal.foreign_events,
                };
                let Some(copy) = rng.choose(pool) else {
                    return;
                };
                if rng.below(3) == 0 {
                    // In a comment of its own, after a move or not.
                    let mut wrapped = b" {".to_vec();
                    wrapped.extend_from_slice(&copy);
                    wrapped.extend_from_slice(b"} ");
                    insert(s, boundary, &wrapped);
                } else {
                    let mut spaced = b" ".to_vec();
                    spaced.extend_from_slice(&copy);
                    insert(s, event_place, &spaced);
                }
            }
            Mutation::ReplaceEventWithForeign => {
                if let (Some(event), Some(foreign)) = (event, rng.choose(&arsenal.foreign_events)) {
                    s.splice(event, foreign);
                }
            }
            Mutation::ForgeASignature => {
                // The signature is the event's last argument.
                if let Some(event) = event {
                    let command = &s[event.clone()];
                    let last = command
                        .iter()
                        .rposition(u8::is_ascii_whitespace)
                        .unwrap_or(0);
                    let at =
                        event.start + last + 1 + rng.below(command.len().saturating_sub(last + 3));
                    s[at] = if s[at] == b'A' { b'B' } else { b'A' };
                }
            }
            Mutation::SwapEvents => {
                if events.len() >= 2 {
                    let (a, b) = (rng.below(events.len()), rng.below(events.len()));
                    let (first, second) = (events[a.min(b)].clone(), events[a.max(b)].clone());
                    let (one, other) = (s[first.clone()].to_vec(), s[second.clone()].to_vec());
                    s.splice(second, one);
                    s.splice(first, other);
                }
            }
            Mutation::DropEvent => {
                if let Some(event) = event {
                    s.drain(event);
                }
            }
            Mutation::InsertChance => {
                let chance = match rng.choose(&arsenal.chances) {
                    Some(chance) if rng.below(2) == 0 => chance,
                    _ => b"[%chance 0 \"attack Ad3xKb1: d6 6\"]".to_vec(),
                };
                let mut spaced = chance;
                spaced.push(b' ');
                insert(s, event_place, &spaced);
            }
            Mutation::DropBrace => {
                let braces: Vec<usize> = (0..s.len()).filter(|&i| s[i] == b'}').collect();
                // The brace at the cut most often: it closes the prefix's
                // comment.
                let at = if rng.below(2) == 0 {
                    braces.first().copied()
                } else {
                    rng.choose(&braces)
                };
                if let Some(at) = at {
                    s.remove(at);
                }
            }
            Mutation::ChangeResult => {
                if let Some(result) = result {
                    let others: Vec<&str> = ["*", "1-0", "0-1", "1/2-1/2"]
                        .into_iter()
                        .filter(|other| other.as_bytes() != &s[result.clone()])
                        .collect();
                    let other = *rng.pick(&others);
                    s.splice(result, other.bytes());
                }
            }
            Mutation::DuplicateResult => {
                if let Some(result) = result {
                    let mut again = b" ".to_vec();
                    again.extend_from_slice(&s[result.clone()]);
                    insert(s, result.end, &again);
                }
            }
            Mutation::RemoveResult => {
                if let Some(result) = result {
                    s.drain(result);
                }
            }
            Mutation::TextAfterResult => {
                let after = *rng.pick(&[
                    " junk",
                    " {after the result}",
                    " 1. Ad1-c1 *",
                    "\n\n",
                    " *",
                    "\n1-0\n",
                    " (",
                    " $1",
                    " [%event AAAA]",
                ]);
                s.extend_from_slice(after.as_bytes());
            }
            Mutation::SecondGame => {
                s.extend_from_slice(b"\n\n");
                match rng.below(3) {
                    0 => s.extend_from_slice(&arsenal.foreign_record),
                    1 => s.extend_from_slice(b"[Game \"Khan\"]\n\n*\n"),
                    _ => s.extend_from_slice(b"[Game \"Khan\"]\n[Result \"1-0\"]\n"),
                }
            }
            Mutation::TagLine => {
                let mut line_starts = vec![0];
                line_starts.extend((1..=s.len()).filter(|&i| s[i - 1] == b'\n'));
                // The first line most often: it follows the stored text's.
                let at = if rng.below(2) == 0 {
                    0
                } else {
                    *rng.pick(&line_starts)
                };
                let line = *rng.pick(&[
                    "[Result \"1-0\"]\n",
                    "[Game \"Khan\"]\n",
                    "[Ruleset \"basic\"]\n",
                    "[GameId \"games-test-basic-4\"]\n",
                    "[Termination \"abandoned\"]\n",
                    "\n\n[Game \"Khan\"]\n",
                ]);
                insert(s, at, line.as_bytes());
            }
            Mutation::LineEnds => {
                let newlines: Vec<usize> = (0..s.len()).filter(|&i| s[i] == b'\n').collect();
                match (rng.below(4), rng.choose(&newlines)) {
                    (0, _) => {
                        let crlf: Vec<u8> = s
                            .iter()
                            .flat_map(|&b| {
                                if b == b'\n' {
                                    vec![b'\r', b'\n']
                                } else {
                                    vec![b]
                                }
                            })
                            .collect();
                        *s = crlf;
                    }
                    (1, Some(at)) => s.insert(at, b'\r'),
                    (2, Some(at)) => s[at] = b'\r',
                    _ => s.insert(boundary, b'\r'),
                }
            }
            Mutation::Variation => match (rng.below(4), event) {
                (0, Some(event)) => {
                    // The comment holding an event, and the move before it,
                    // in a variation.
                    let open = s[..event.start]
                        .iter()
                        .rposition(|&b| b == b'{')
                        .unwrap_or(0);
                    let open = moves
                        .iter()
                        .rfind(|m| m.end <= open)
                        .map_or(open, |m| m.start);
                    let close = s[event.end..]
                        .iter()
                        .position(|&b| b == b'}')
                        .map_or(s.len(), |at| event.end + at + 1);
                    insert(s, close, b")");
                    insert(s, open, b"(");
                }
                (1, _) => {
                    let (a, b) = (boundary, *rng.pick(&boundaries(s)));
                    insert(s, a.max(b), b")");
                    insert(s, a.min(b), b"(");
                }
                _ => {
                    let mut copy = b" (".to_vec();
                    copy.extend_from_slice(&s[span]);
                    copy.extend_from_slice(b") ");
                    insert(s, boundary, &copy);
                }
            },
            Mutation::MoveNumber => match (rng.below(4), rng.choose(&numbers)) {
                (0, Some(number)) => {
                    s.drain(number);
                }
                (1, Some(number)) => {
                    // Three dots for one, or one for three.
                    let word = s[number.clone()].to_vec();
                    let digits: Vec<u8> = word.iter().copied().filter(u8::is_ascii_digit).collect();
                    let dots: &[u8] = if word.ends_with(b"...") { b"." } else { b"..." };
                    s.splice(number, digits.into_iter().chain(dots.iter().copied()));
                }
                (2, Some(number)) => {
                    let digit = number.start;
                    s[digit] = if s[digit] == b'9' { b'1' } else { s[digit] + 1 };
                }
                _ => {
                    if let Some(before) = rng.choose(&moves) {
                        let number = format!("{}{} ", rng.below(20), rng.pick(&[".", "..."]));
                        insert(s, before.start, number.as_bytes());
                    }
                }
            },
            Mutation::ReplaceMove => {
                let Some(target) = rng.choose(&moves) else {
                    return;
                };
                let other = match rng.choose(&moves) {
                    Some(other) if rng.below(2) == 0 => s[other].to_vec(),
                    _ => rng.choose(&arsenal.foreign_moves).unwrap_or_default(),
                };
                s.splice(target, other);
            }
        }
    }
}

/// The signed view of `text` read whole as a game's record is read: one
/// game and nothing after it (a desk refuses a turn mail's record of more).
fn read_whole(text: &str) -> Option<SignedText> {
    let mut reader = Reader::new(text.as_bytes());
    let view = reader.read_game(&mut Collector::new()).ok()??;
    let alone = matches!(reader.read_game(&mut Collector::new()), Ok(None));
    alone.then_some(view)
}

/// How a whole reading judges `text`: its replay and bounds, or `None` if
/// it does not read or does not verify.
fn judged_whole(text: &str) -> Option<(SignedReplay, Option<super::tip::Bounds>)> {
    use super::tip::Bounds;
    use super::verify::{Known, replay_text_knowing};
    let view = read_whole(text)?;
    let replay = replay_text_knowing(&view, &Builtin, Known::Nothing).ok()?;
    let bounds = Bounds::of(text, &view);
    Some((replay, bounds))
}

/// How many hostile texts were tried, and how the shortcut answered them.
#[derive(Debug, Default)]
struct Tally {
    tried: usize,
    replayed: usize,
    /// Sent the whole way although the whole record verifies (only slower).
    whole_but_verifies: usize,
    /// Sent the whole way, and the whole record is refused.
    whole_and_refused: usize,
}

/// Where the shortcut and the whole reading disagreed: for each kind of
/// disagreement and layout of the stored text, how often, and the first
/// case.
#[derive(Debug, Default)]
struct Disagreements(std::collections::BTreeMap<(&'static str, &'static str), (usize, String)>);

impl Disagreements {
    fn note(&mut self, kind: &'static str, stored: &Stored, case: &dyn Fn() -> String) {
        self.0
            .entry((kind, stored.layout))
            .and_modify(|(count, _)| *count += 1)
            .or_insert_with(|| (1, case()));
    }
}

/// Holds the shortcut's answer for `text` to the whole reading's: a text
/// continued from the tip verifies whole, to the same state and bounds; a
/// text the whole reading refuses goes the whole way.
fn judge_both_ways(
    text: &str,
    stored: &Stored,
    tally: &mut Tally,
    disagreements: &mut Disagreements,
    case: &dyn Fn() -> String,
) {
    use super::tip::{After, Tip, replay_after};
    use super::verify::Known;
    // Two replays are the same when their serialised states are (a tip
    // less its header, 68 bytes, and its seal, 32); the header binds a
    // text, any one the bounds hold for.
    let state = |replay: &SignedReplay| {
        let saved = Tip::save(replay, &stored.text, stored.bounds).unwrap();
        saved[68..saved.len() - 32].to_vec()
    };
    tally.tried += 1;
    let shortcut = replay_after(
        text,
        &stored.text,
        stored.bounds,
        &stored.replay,
        Known::Nothing,
    );
    match (shortcut, judged_whole(text)) {
        (After::Replayed { replay, bounds }, Some((whole, whole_bounds))) => {
            tally.replayed += 1;
            if state(&replay) != state(&whole) {
                disagreements.note(
                    "continued to another state than the whole replay's",
                    stored,
                    case,
                );
            }
            if bounds != whole_bounds {
                let case = || format!("{} (bounds {bounds:?}, whole {whole_bounds:?})", case());
                disagreements.note(
                    "continued with other bounds than the whole text's",
                    stored,
                    &case,
                );
            }
        }
        (After::Replayed { .. }, None) => {
            tally.replayed += 1;
            let kind = if read_whole(text).is_some() {
                "continued, but the whole record does not verify"
            } else {
                "continued, but the whole record does not read"
            };
            disagreements.note(kind, stored, case);
        }
        (After::Whole, Some(_)) => tally.whole_but_verifies += 1,
        (After::Whole, None) => tally.whole_and_refused += 1,
    }
}

/// A text a client keeps a tip of, its replay restored from that tip, and
/// the honest new parts that continue it (what the later records hold
/// after its cut).
struct Stored {
    name: String,
    /// How it is laid out: as Yam prints it, or how otherwise.
    layout: &'static str,
    text: String,
    bounds: super::tip::Bounds,
    replay: SignedReplay,
    new_parts: Vec<Vec<u8>>,
}

impl Stored {
    /// `text`, which verifies, stored and its tip restored.
    fn kept(name: String, layout: &'static str, text: String, new_parts: Vec<Vec<u8>>) -> Stored {
        use super::tip::{Bounds, Tip};
        let (replay, bounds) = judged_whole(&text).unwrap_or_else(|| panic!("{name} verifies"));
        let bounds = bounds.unwrap_or_else(|| panic!("{name} can be continued"));
        let tip: SharedBytes = Arc::new(Tip::save(&replay, &text, bounds).unwrap());
        let (replay, restored_bounds, _) = Tip::restore(&tip, &text, &Builtin).unwrap();
        assert_eq!(restored_bounds, bounds);
        assert_eq!(Bounds::of(&text, &collect(&text)), Some(bounds));
        Stored {
            name,
            layout,
            text,
            bounds,
            replay,
            new_parts,
        }
    }
}

/// The records a hostile sender continues: the first (the opening alone),
/// the first whose own last events joined the comment before them, the
/// first whose next events join its last comment, one in the middle and
/// the last but one.
fn prefixes_to_attack(records: &[(String, SignedReplay)]) -> Vec<usize> {
    use super::tip::Bounds;
    let joins = |k: usize| {
        let (text, _) = &records[k];
        let cut = Bounds::of(text, &collect(text)).unwrap().cut;
        records
            .get(k + 1)
            .is_some_and(|(next, _)| next.as_bytes()[cut] != b'}')
    };
    let last = records.len() - 1;
    let joined = (0..last).find(|&k| joins(k));
    let mut prefixes = vec![0, last / 2, last.saturating_sub(1)];
    prefixes.extend(joined);
    prefixes.extend(joined.map(|k| k + 1));
    prefixes.sort_unstable();
    prefixes.dedup();
    prefixes
}

/// `text` laid out otherwise than Yam prints it, each way verifying as
/// Yam's own does: a client keeps a tip of the text it stores as it is
/// (`docs/fair-play.md`, 9.11: a text laid out by hand is continued as it
/// is).
fn laid_by_hand(text: &str, cut: usize) -> Vec<(&'static str, String)> {
    let (before, after) = text.split_at(cut);
    vec![
        (
            "prose ending with a bracket before the brace",
            format!("{before} see [{after}"),
        ),
        (
            "the brace on a line of its own",
            format!("{before}\n{after}"),
        ),
        (
            "escaped braces before the brace",
            format!("{before} well \\{{ played \\}}{after}"),
        ),
        (
            "a comment of prose after the last event's",
            format!("{before}}} {{prose{after}"),
        ),
        ("CRLF line ends", text.replace('\n', "\r\n")),
    ]
}

/// The layout of a stored text Yam printed.
const AS_PRINTED: &str = "as Yam prints it";

/// The texts of `records` a hostile sender continues: those of
/// [`prefixes_to_attack`], as Yam prints them, and two of them laid out
/// by hand.
fn stored_texts(records: &[(String, SignedReplay)]) -> Vec<Stored> {
    use super::tip::Bounds;
    let prefixes = prefixes_to_attack(records);
    let mut stored = Vec::new();
    for (n, &k) in prefixes.iter().enumerate() {
        let (text, _) = &records[k];
        let cut = Bounds::of(text, &collect(text)).unwrap().cut;
        let new_parts: Vec<Vec<u8>> = records[k..]
            .iter()
            .map(|(later, _)| later.as_bytes()[cut..].to_vec())
            .collect();
        stored.push(Stored::kept(
            format!("record {k}"),
            AS_PRINTED,
            text.clone(),
            new_parts.clone(),
        ));
        if n == 1 || n + 1 == prefixes.len() {
            for (how, laid) in laid_by_hand(text, cut) {
                let name = format!("record {k}, {how}");
                stored.push(Stored::kept(name, how, laid, new_parts.clone()));
            }
        }
    }
    stored
}

/// Attacks the tip of `stored` with `count` hostile continuations, each an
/// honest new part changed by one to three mutations: first each mutation
/// alone on the next record's new part, then any; now and then one byte
/// of the stored part is changed too (the text then continues no tip).
fn attack_the_tip(
    game: &str,
    stored: &Stored,
    arsenal: &Arsenal,
    count: usize,
    rng: &mut Xorshift,
    tally: &mut Tally,
    disagreements: &mut Disagreements,
) {
    let cut = stored.bounds.cut;
    for attempt in 0..count {
        let mut verified = stored.text.as_bytes()[..cut].to_vec();
        let changed = (attempt % 16 == 15).then(|| {
            let at = rng.below(cut);
            verified[at] = *rng.pick(BYTES);
            at
        });
        let (mut new_part, mutations) = match Mutation::ALL.get(attempt) {
            Some(&each) => {
                let next = stored.new_parts.get(1).unwrap_or(&stored.new_parts[0]);
                (next.clone(), vec![each])
            }
            None => {
                let any = (0..[1, 1, 1, 2, 3][rng.below(5)])
                    .map(|_| *rng.pick(&Mutation::ALL))
                    .collect();
                (rng.pick(&stored.new_parts).clone(), any)
            }
        };
        for mutation in &mutations {
            mutation.apply(&mut new_part, rng, arsenal);
        }
        let Ok(text) = String::from_utf8([verified, new_part.clone()].concat()) else {
            continue;
        };
        let case = || {
            let shown: String = String::from_utf8_lossy(&new_part)
                .chars()
                .take(600)
                .collect();
            format!(
                "{game}, {}, attempt {attempt}, {mutations:?}, the stored part changed at {changed:?}, new part {shown:?}",
                stored.name
            )
        };
        judge_both_ways(&text, stored, tally, disagreements, &case);
    }
}

/// A hostile continuation of `stored` (with a long movetext) made only of
/// blanks after the brace, as many as make the whole text longer than the
/// reader reads as one game, while the new part alone is not.
fn attack_with_a_text_too_long(
    stored: &Stored,
    tally: &mut Tally,
    disagreements: &mut Disagreements,
) {
    let cut = stored.bounds.cut;
    // The reader checks the limit only when it fills its buffer (64 KiB at
    // a time), so a text up to 64 KiB past it may still be read: one byte
    // more. The new part alone is shorter by the stored movetext.
    let length = yam_notation::reader::DEFAULT_MAX_GAME as usize + (64 << 10) + 1;
    let mut text = String::with_capacity(length);
    text.push_str(&stored.text[..cut]);
    text.push('}');
    text.extend(std::iter::repeat_n(' ', length - cut - 4));
    text.push_str("\n*\n");
    let case = || {
        format!(
            "{}, then blanks to {} bytes, and the result",
            stored.name,
            text.len()
        )
    };
    judge_both_ways(&text, stored, tally, disagreements, &case);
}

/// A hostile sender continues a stored game's text with a new part made to
/// fool the tip's shortcut: bytes and spans deleted, inserted, replaced,
/// duplicated and moved; brackets, braces, readable rolls, NAGs, glyphs,
/// move numbers, variations, tag pairs, a second game, other line ends,
/// NUL and characters beyond ASCII; events played again, taken from a fork
/// of the game, swapped and dropped; the result changed, doubled, removed
/// or followed by more; a text too long to read whole. The stored texts
/// are records of the three games as Yam prints them, at the opening and
/// after events that joined a comment, and some laid out by hand. Whenever
/// the shortcut continues the tip, the whole record verifies to the same
/// state and bounds; whenever the whole record is refused, the shortcut
/// sends it the whole way.
#[test]
fn a_hostile_continuation_is_judged_as_the_whole_record_judges_it() {
    let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
    let mut tally = Tally::default();
    let mut disagreements = Disagreements::default();
    let games = [
        (
            "Castle Siege",
            siege_records(0..12),
            siege_records(100..112),
        ),
        ("Genghis Khan", card_records(true), card_records(false)),
        ("Khan", khan_records(7, 0), khan_records(5, 3)),
    ];
    let mut longest: Option<Stored> = None;
    for (game, records, fork) in &games {
        let arsenal = Arsenal::of(records, fork);
        for stored in stored_texts(records) {
            // Yam's own prints most; those laid out by hand fewer each.
            let count = if stored.layout == AS_PRINTED { 150 } else { 50 };
            attack_the_tip(
                game,
                &stored,
                &arsenal,
                count,
                &mut rng,
                &mut tally,
                &mut disagreements,
            );
            // The longest movetext Yam printed makes the widest gap between
            // the whole text's length and its new part's.
            let movetext = |s: &Stored| s.bounds.cut - s.bounds.movetext;
            let longer = longest
                .as_ref()
                .is_none_or(|l| movetext(&stored) > movetext(l));
            if stored.layout == AS_PRINTED && longer {
                longest = Some(stored);
            }
        }
    }
    attack_with_a_text_too_long(&longest.unwrap(), &mut tally, &mut disagreements);
    let whole = tally.whole_but_verifies + tally.whole_and_refused;
    assert!(tally.replayed >= tally.tried / 10, "{tally:?}");
    assert!(whole >= tally.tried / 10, "{tally:?}");
    assert!(tally.whole_and_refused >= tally.tried / 10, "{tally:?}");
    let report: Vec<String> = disagreements
        .0
        .iter()
        .map(|((kind, layout), (count, first))| {
            format!("{kind} (stored {layout}): {count} times; the first: {first}")
        })
        .collect();
    assert!(report.is_empty(), "{tally:?}\n{}", report.join("\n"));
}

#[test]
fn a_takeback_never_undoes_a_hidden_setup() {
    // Both setups sealed, then revealed, no roll yet. Taken back to "both
    // sealed", the rules would wait for the reveals again while the
    // fair-play verifier holds both commitments opened: neither side could
    // reveal, nobody could claim a forfeit, only a resignation would end
    // it. So the offer is refused with its reason, and play goes on.
    let mut g = Game::siege("standard");
    let attacker = g.seal(1, 2);
    let defender = g.seal(0, 1);
    let both_sealed = g.replay.events().len() as u32 - 1;
    g.reveal(1, attacker);
    g.reveal(0, defender);
    let last_reveal = g.replay.events().len() as u32 - 1;
    let a = g.party_of_seat(1);
    let refused = table::offer_takeback(&mut g.replay.clone(), &g.parties[a].signer(), both_sealed)
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains(&format!(
            "a take-back to event #{both_sealed} would undo the hidden setup of event #{last_reveal}"
        )),
        "{refused}"
    );
    // To the position the reveals made: offered as ever.
    assert!(
        table::offer_takeback(&mut g.replay.clone(), &g.parties[a].signer(), last_reveal).is_ok()
    );
    verified(&g.text());
}

/// The greedy player's next action in a card game, and its order.
fn greedy_order(g: &Game) -> (Action, String) {
    let state = g.cards_state().state().unwrap().clone();
    let action = greedy_action(&state).unwrap();
    let order = match &action {
        Action::Draw => DRAW_ORDER.to_owned(),
        other => notate(&state, other, &[]).unwrap().to_string(),
    };
    (action, order)
}

/// A solo Genghis Khan game under a director, played greedily until the
/// player makes a move that needs no card.
fn solo_after_a_move_without_a_card() -> Game {
    let mut g = Game::cards(Mode::Director);
    loop {
        let (action, order) = greedy_order(&g);
        g.play(&[order]);
        if action != Action::Draw {
            return g;
        }
    }
}

#[test]
fn a_solo_players_takeback_offer_is_owed_by_the_director_and_ends_with_its_next_turn() {
    // The director answers the player's take-back offers: it owes the
    // answer (the player may claim against a silent director, not the
    // director against the waiting player), and the player's next turn
    // ends the offer, so the director cannot accept it moves later.
    use super::table::{Duty, next_duty};
    let mut g = solo_after_a_move_without_a_card();
    let player = g.party_of_seat(0);
    let director = 1 - player;
    let (pk, dk) = (
        g.parties[player].key.public_key(),
        g.parties[director].key.public_key(),
    );
    let back_to = g.replay.events().len() as u32 - 2;
    let before = g.replay.clone();
    let offer = table::offer_takeback(&mut g.replay, &g.parties[player].signer(), back_to).unwrap();
    g.append(&before, &[offer]);
    assert_eq!(next_duty(&g.replay), Some(Duty::AnswerTakeback(dk)));
    assert_eq!(g.replay.owing(), vec![dk]);
    let (p_signer, d_signer) = (g.parties[player].signer(), g.parties[director].signer());
    assert!(table::claim_forfeit(&mut g.replay.clone(), &d_signer, pk, "x", None).is_err());
    assert!(table::claim_forfeit(&mut g.replay.clone(), &p_signer, dk, "x", None).is_ok());
    // The player plays on: the offer is withdrawn.
    let (_, order) = greedy_order(&g);
    g.play(&[order]);
    let d_signer = g.parties[director].signer();
    assert!(table::answer_takeback(&mut g.replay.clone(), &d_signer, true).is_err());
    verified(&g.text());
}

// ----- attacks on offers, duties and claims (the thirty-third step) -----

#[test]
fn a_solo_player_cannot_win_by_forfeit_against_its_director() {
    // Attack: in a solo Genghis Khan game, the player offers a take-back
    // (which passes the pen to the director, who answers the player's
    // take-backs) and at once claims a forfeit against the director. The
    // claim is accepted (by design: a silent director may be claimed
    // against), but allowed_results turns any claim by seat 0 into
    // "1-0 by forfeit" (`+/-`), so the solo game verifies as a *win* of
    // the player, though a solo game has nobody to win it (a resignation
    // there is "abandoned, no score"). What the director (and the
    // register, "play many, report the best") loses: a bad solo game can
    // be closed as a forfeit win instead of a score or an abandonment.
    let mut g = solo_after_a_move_without_a_card();
    let player = g.party_of_seat(0);
    let director = 1 - player;
    let dk = g.parties[director].key.public_key();
    let back_to = g.replay.events().len() as u32 - 1;
    let before = g.replay.clone();
    let offer = table::offer_takeback(&mut g.replay, &g.parties[player].signer(), back_to).unwrap();
    g.append(&before, &[offer]);
    let before = g.replay.clone();
    let claim = table::claim_forfeit(
        &mut g.replay,
        &g.parties[player].signer(),
        dk,
        "no answer in 15 days",
        None,
    )
    .unwrap();
    g.append(&before, &[claim]);
    let (allowed, why) = g.replay.allowed_results();
    let mut record = yam_notation::parse_record::<RawGrammar>(&g.text()).unwrap();
    record.set_result(yam_notation::GameResult::FirstWinsByForfeit);
    let text = record_to_string::<RawGrammar>(&record);
    let verdict = verify_text(&collect(&text), &Builtin);
    assert!(
        !matches!(verdict, Verdict::Verified(_)),
        "a solo game verifies with the player winning by forfeit (+/-) against its director: allowed results {allowed:?} ({why})"
    );
}

/// CS-P5: while both sides may seal, and then reveal (CS-07), the game
/// waits for the one it names, the Defender first, as every client makes
/// the Attacker wait: the Attacker may claim against a Defender who never
/// seals, or never reveals, and the Defender may not claim against the
/// Attacker it goes before. (Owed by both, such a Defender could never be
/// claimed against: an attacker helper's finding, thirty-eighth session.)
#[test]
fn a_defender_silent_before_her_seal_or_her_reveal_may_be_claimed_against() {
    let claim = |g: &Game, by: usize, against: usize| {
        table::claim_forfeit(
            &mut g.replay.clone(),
            &g.parties[by].signer(),
            g.parties[against].key.public_key(),
            "silent",
            None,
        )
    };
    let mut g = Game::siege("standard");
    let (d, a) = (g.party_of_seat(0), g.party_of_seat(1));
    assert!(
        claim(&g, a, d).is_ok(),
        "neither sealed: the Attacker claims"
    );
    assert!(claim(&g, d, a).is_err(), "the Defender goes first");
    let defender = g.seal(0, 1);
    assert!(claim(&g, d, a).is_ok(), "the Defender sealed: she claims");
    assert!(claim(&g, a, d).is_err());
    let attacker = g.seal(1, 2);
    assert!(
        claim(&g, a, d).is_ok(),
        "both sealed: the Defender reveals first"
    );
    assert!(claim(&g, d, a).is_err());
    g.reveal(0, defender);
    assert!(claim(&g, d, a).is_ok(), "the Defender revealed: she claims");
    g.reveal(1, attacker);
    verified(&g.text());
}

#[test]
fn siege_setups_with_takeback_offers_keep_one_writer_owed() {
    // Castle Siege's setups, where both seats may play (CS-07) but the
    // game waits for the Defender first (CS-P5), combined with take-back
    // offers that undo nothing (the only ones the setup rule leaves): at
    // each step the clients' one writer is a party owing() names, the
    // offer's answer is owed by its author's opponent alone, and a seal
    // (a turn) ends the offer. The record verifies.
    let mut g = Game::siege("standard");
    let (d, a) = (g.party_of_seat(0), g.party_of_seat(1));
    super::tests::assert_duty_is_owed(&g.replay, "both seats to seal");
    assert_eq!(g.replay.owing(), vec![g.parties[d].key.public_key()]);
    let back_to = g.replay.events().len() as u32 - 1;
    let before = g.replay.clone();
    let offer = table::offer_takeback(&mut g.replay, &g.parties[a].signer(), back_to).unwrap();
    g.append(&before, &[offer]);
    super::tests::assert_duty_is_owed(&g.replay, "the Attacker's offer before any seal");
    assert_eq!(
        g.replay.owing(),
        vec![g.parties[d].key.public_key()],
        "the Defender owes the answer, alone"
    );
    // The Defender, owing the answer, may not claim against the Attacker.
    assert!(
        table::claim_forfeit(
            &mut g.replay.clone(),
            &g.parties[d].signer(),
            g.parties[a].key.public_key(),
            "x",
            None
        )
        .is_err()
    );
    // The Defender seals instead of answering: the offer ends.
    let defender = g.seal(0, 1);
    assert!(g.replay.first_open_offer().is_none());
    super::tests::assert_duty_is_owed(&g.replay, "the Defender sealed");
    assert_eq!(g.replay.owing(), vec![g.parties[a].key.public_key()]);
    // The Defender (waiting) offers a take-back to its seal; the Attacker
    // declines; the Attacker owes its seal again.
    let back_to = g.replay.events().len() as u32 - 1;
    let before = g.replay.clone();
    let offer = table::offer_takeback(&mut g.replay, &g.parties[d].signer(), back_to).unwrap();
    g.append(&before, &[offer]);
    super::tests::assert_duty_is_owed(&g.replay, "the Defender's offer after its seal");
    let before = g.replay.clone();
    let answer = table::answer_takeback(&mut g.replay, &g.parties[a].signer(), false).unwrap();
    g.append(&before, &[answer]);
    super::tests::assert_duty_is_owed(&g.replay, "the Attacker declined");
    let attacker = g.seal(1, 2);
    g.reveal(1, attacker);
    g.reveal(0, defender);
    super::tests::assert_duty_is_owed(&g.replay, "both revealed");
    verified(&g.text());
}

#[test]
fn a_directors_own_takeback_offer_is_owed_by_the_player_and_ends_with_its_turn() {
    // The director (no seat, signs no move) offers a take-back of the
    // player's move: the player owes the answer, alone, and is the one
    // writer; the director may claim against it (the player owes), but a
    // claim by the seatless director allows no result; the player's next
    // turn ends the offer. Correctly handled.
    let mut g = solo_after_a_move_without_a_card();
    let player = g.party_of_seat(0);
    let director = 1 - player;
    let pk = g.parties[player].key.public_key();
    let back_to = g.replay.events().len() as u32 - 2;
    let before = g.replay.clone();
    let offer =
        table::offer_takeback(&mut g.replay, &g.parties[director].signer(), back_to).unwrap();
    g.append(&before, &[offer]);
    super::tests::assert_duty_is_owed(&g.replay, "the director's offer");
    assert_eq!(g.replay.owing(), vec![pk]);
    let mut r = g.replay.clone();
    table::claim_forfeit(&mut r, &g.parties[director].signer(), pk, "x", None).unwrap();
    assert_eq!(
        r.allowed_results().0,
        [yam_notation::GameResult::Unfinished]
    );
    let (_, order) = greedy_order(&g);
    g.play(&[order]);
    assert!(g.replay.first_open_offer().is_none());
    super::tests::assert_duty_is_owed(&g.replay, "the player played on");
    verified(&g.text());
}
