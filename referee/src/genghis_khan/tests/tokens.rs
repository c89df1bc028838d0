//! Written moves against the game: resolving, playing, writing; a whole game
//! recorded, printed as a record, read back and replayed against its
//! evidence; a changed card refused.

use yam_notation::{Dots, GameResult, Node, Record, Span, Tags, parse_record, record_to_string};

use super::support::{Script, act, draw, draw_rest, foe, khan, khans, standard};
use crate::fair_play::chance::{
    ChanceError, ChanceRecord, ChanceResult, PracticeChance, ReplayChance,
};
use crate::fair_play::outcome::PracticeStream;
use crate::fair_play::{encoding::Blob, game_id::GameId};
use crate::genghis_khan::greedy::play_greedy;
use crate::genghis_khan::{
    Action, FoeDeck, GenghisKhanGrammar, Illegal, Move, State, notate, play, resolve, setup,
};

const M: FoeDeck = FoeDeck::MongolianUnification;

fn mv(text: &str) -> Move {
    Move::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn written_moves_resolve_to_actions() {
    let s = setup(&standard(), &mut Script::default()).unwrap();
    assert_eq!(resolve(&s, &mv("draw:Temujin")), Ok(Action::Draw));
    assert_eq!(
        resolve(&s, &mv("attack:M")),
        Err(Illegal::MustDraw { remaining: 5 })
    );
    let s = draw(
        &s,
        &["Temujin", "Cavalry", "Tricks", "Son Tolui", "Merciless"],
    );
    assert_eq!(resolve(&s, &mv("draw:Archery")), Err(Illegal::NoDrawDue));
    assert_eq!(resolve(&s, &mv("attack:m")), Ok(Action::Attack(M)));
    assert_eq!(resolve(&s, &mv("pass")), Ok(Action::Pass));
    let s = act(&s, Action::Attack(M)).0;
    // The top card is the second Buryats (index 0 laid the row in order).
    assert_eq!(
        resolve(&s, &mv("capture:M5=Cavalry")),
        Ok(Action::Capture(khans(&["Cavalry"])))
    );
    assert_eq!(
        resolve(&s, &mv("capture:M/Tartars=Cavalry")),
        Err(Illegal::NotTop {
            deck: M,
            top: foe(M, "Buryats"),
            written: foe(M, "Tartars")
        })
    );
    assert!(matches!(
        resolve(&s, &mv("capture:M5=Tricks")),
        Err(Illegal::Insufficient { paid: 4, .. })
    ));
    assert_eq!(
        resolve(&s, &mv("capture:M5=Archery")),
        Err(Illegal::NotInHand(khan("Archery")))
    );
}

#[test]
fn a_draw_must_show_the_card_drawn() {
    let s = setup(&standard(), &mut Script::default()).unwrap();
    // Index 0 gives Temujin, the first card listed.
    let (next, _) = play(&s, &mv("draw:2a"), &mut Script::default()).unwrap();
    assert_eq!(next.hand(), khans(&["Temujin"]).as_slice());
    let e = play(&s, &mv("draw:\"Cruel Genius\""), &mut Script::default()).unwrap_err();
    assert_eq!(
        e,
        Illegal::DrawMismatch {
            written: khan("Cruel Genius"),
            drawn: khan("Temujin")
        }
    );
    assert_eq!(
        e.to_string(),
        "the card drawn is Temujin (2a), but the move says Cruel Genius (10j)"
    );
}

#[test]
fn actions_are_written_with_what_they_did() {
    let s = draw_rest(&setup(&standard(), &mut Script::default()).unwrap());
    let before = setup(&standard(), &mut Script::default()).unwrap();
    let (after, events) =
        crate::genghis_khan::apply(&before, &Action::Draw, &mut Script::default()).unwrap();
    assert_eq!(
        notate(&before, &Action::Draw, &events).map(|m| m.to_string()),
        Ok("draw:2a/Temujin".to_owned())
    );
    assert_eq!(after.hand().len(), 1);
    let s = act(&s, Action::Attack(M)).0;
    let pay = Action::Capture(khans(&["Ordained by Tengri", "Great Destiny"]));
    let (_, events) = act(&s, pay.clone());
    assert_eq!(
        notate(&s, &pay, &events).map(|m| m.to_string()),
        Ok("capture:M5/Buryats=9a,1a".replace(',', "+"))
    );
}

const GAME_ID: &str = "genghis-khan-practice-7";
const SEED: &[u8] = b"seven";

fn ids() -> (GameId, Blob) {
    (
        GameId::new(GAME_ID).unwrap(),
        Blob::new(SEED.to_vec()).unwrap(),
    )
}

/// A greedy practice game: its moves and the chance values it used.
fn recorded_game() -> (State, Vec<Move>, Vec<ChanceRecord>) {
    let (game, seed) = ids();
    let mut chance = PracticeChance::new(&game, &seed);
    let played = play_greedy(&standard(), &mut chance).unwrap();
    (played.state, played.moves, chance.records().to_vec())
}

/// Replays written moves against recorded chance values, as a verifier
/// does, and builds the record (a move number at each turn).
fn replay(moves: &[Move], evidence: &[ChanceRecord]) -> Result<(State, Record<Move>), Illegal> {
    let (game, seed) = ids();
    let mut chance = ReplayChance::new(PracticeStream::new(&game, &seed), evidence);
    let mut state = setup(&standard(), &mut chance)?;
    let mut tags = Tags::new();
    for (name, value) in [
        ("Game", "Genghis Khan"),
        ("Variant", "Standard"),
        ("GameId", GAME_ID),
        ("Date", "2026.06.01"),
        ("Player", "Greedy"),
        ("NotationVersion", "1"),
        ("Ruleset", "standard"),
        ("Mode", "practice"),
        ("PracticeSeed", "seven"),
    ] {
        tags.set(name, value);
    }
    let mut record = Record::new(tags);
    let mut turn = 0;
    for m in moves {
        if state.turn() != turn {
            turn = state.turn();
            record.movetext.push(Node::MoveNumber(turn, Dots::One));
        }
        state = play(&state, m, &mut chance)?.0;
        record.movetext.push(Node::Move(m.clone(), Span::default()));
    }
    chance.finish()?;
    record.set_result(state.result());
    Ok((state, record))
}

#[test]
fn a_recorded_game_replays_against_its_evidence_and_reads_back() {
    let (end, moves, evidence) = recorded_game();
    // 100 cards laid, 100 drawn: the standard game draws its whole deck.
    assert_eq!(evidence.len(), 200);
    let (state, record) = replay(&moves, &evidence).unwrap();
    assert_eq!(state, end);
    let GameResult::Score { points, max: 150 } = record.result else {
        panic!("a score")
    };
    assert_eq!(points, end.score().points());
    let text = record_to_string::<GenghisKhanGrammar>(&record);
    assert!(text.contains("\n1. draw:"), "{text}");
    assert!(text.contains(" 21. "), "{text}");
    let back = parse_record::<GenghisKhanGrammar>(&text).unwrap();
    let read: Vec<Move> = back.main_line().map(|(m, _)| m.clone()).collect();
    assert_eq!(read, moves);
    assert_eq!(back.result, record.result);
}

#[test]
fn a_changed_card_or_value_is_refused() {
    let (_, moves, evidence) = recorded_game();
    // A draw written as another card.
    let mut changed = moves.clone();
    let (at, was) = changed
        .iter()
        .enumerate()
        .skip(40)
        .find_map(|(i, m)| match m {
            Move::Draw(c) => Some((i, *c)),
            _ => None,
        })
        .unwrap();
    let other = if was == khan("Temujin") {
        khan("Cruel Genius")
    } else {
        khan("Temujin")
    };
    changed[at] = Move::Draw(other);
    let e = replay(&changed, &evidence).unwrap_err();
    assert!(
        matches!(e, Illegal::DrawMismatch { drawn, .. } if drawn == was)
            || matches!(e, Illegal::NotInDeck(c) if c == other),
        "{e}"
    );
    // A recorded value changed: the evidence gives another index.
    let mut forged = evidence.clone();
    let ChanceResult::Draw { remaining, index } = forged[150].result else {
        panic!("a draw")
    };
    forged[150].result = ChanceResult::Draw {
        remaining,
        index: (index + 1) % remaining,
    };
    let e = replay(&moves, &forged).unwrap_err();
    assert!(
        matches!(
            e,
            Illegal::Chance(ChanceError::Mismatch { position: 150, .. })
        ),
        "{e}"
    );
    // A move left out at the end leaves evidence unused.
    let e = replay(&moves[..moves.len() - 1], &evidence);
    assert!(e.is_ok() || matches!(e, Err(Illegal::Chance(ChanceError::Unused { .. }))));
}
