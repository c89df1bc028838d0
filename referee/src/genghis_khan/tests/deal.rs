//! Games dealt from physical cards: the deal as the header records it
//! (`FoeLayout`, `KhanDeck`), replayed without any chance; a legal game
//! accepted, an illegal move and a draw off the recorded deck refused with
//! their reasons.

use yam_notation::genghis_khan::deal::{FoeLayout, KhanDeckOrder};
use yam_notation::{Dots, Node, RawGrammar, Record, parse_record, record_to_string};

use crate::check::{ChanceSource, Checker, Verdict};
use crate::fair_play::chance::PracticeChance;
use crate::fair_play::encoding::Blob;
use crate::fair_play::game_id::GameId;
use crate::genghis_khan::{Deal, Illegal, Move, Ruleset, State, play, play_dealt, setup};

const PRACTICE: &str = include_str!("../../../../examples/genghis-khan/practice.yam");
const DEALT: &str = include_str!("../../../../examples/genghis-khan/dealt-by-hand.yam");

/// The practice example's layout (from its seed) and moves.
fn practice() -> (State, Vec<Move>, Vec<yam_notation::genghis_khan::KhanCard>) {
    let record = parse_record::<RawGrammar>(PRACTICE).unwrap();
    let id = GameId::new(record.tags.get("GameId").unwrap()).unwrap();
    let seed = Blob::new(record.tags.get("PracticeSeed").unwrap().as_bytes().to_vec()).unwrap();
    let mut chance = PracticeChance::new(&id, &seed);
    let state = setup(&Ruleset::standard(), &mut chance).unwrap();
    let moves: Vec<Move> = record
        .main_line()
        .map(|(t, _)| t.parse().unwrap())
        .collect();
    let draws = moves
        .iter()
        .filter_map(|m| match m {
            Move::Draw(card) => Some(*card),
            _ => None,
        })
        .collect();
    (state, moves, draws)
}

/// The practice game as a player with a real deck would write it down:
/// its layout and deck order in the header, its moves, no evidence.
fn written_by_hand() -> String {
    let (start, moves, draws) = practice();
    let layout =
        FoeLayout::from_rows(crate::genghis_khan::FoeDeck::ALL.map(|d| start.row(d).to_vec()))
            .unwrap();
    let deck = draws.iter().map(|c| c.code()).collect::<Vec<_>>().join(" ");
    let deck = KhanDeckOrder::parse(&deck).unwrap();
    let mut record: Record<String> = Record::new(yam_notation::Tags::new());
    for (name, value) in [
        ("Game", "Genghis Khan"),
        ("Variant", "standard"),
        ("GameId", "example-genghis-dealt-by-hand"),
        ("Event", "Yam examples"),
        ("Date", "2026.12.01"),
        ("Player", "pat"),
        ("NotationVersion", "1"),
        ("Ruleset", "standard"),
        ("Annotator", "written down at the table, one card at a time"),
    ] {
        record.tags.set(name, value);
    }
    record.tags.set("FoeLayout", layout.to_string());
    record.tags.set("KhanDeck", deck.to_string());
    // Replayed to number each turn and find the score.
    let deal = Deal::new(layout, Some(deck));
    let mut state = deal.setup(&Ruleset::standard());
    let mut draws = deal.draws();
    let mut turn = 0;
    for mv in &moves {
        if state.turn() != turn {
            turn = state.turn();
            record.movetext.push(Node::MoveNumber(turn, Dots::One));
        }
        let mut text = String::new();
        mv.write(&mut text);
        record
            .movetext
            .push(Node::Move(text, yam_notation::Span::default()));
        state = play_dealt(&state, mv, &mut draws).unwrap().0;
    }
    record.tags.set("Result", state.result().to_string());
    record.result = state.result();
    record_to_string::<RawGrammar>(&record)
}

/// Checks `text` with the referee's checker: the first game's report.
fn check(text: &str) -> crate::check::GameReport {
    let mut reader = yam_notation::Reader::new(text.as_bytes());
    reader
        .read_game(&mut Checker::new())
        .expect("readable")
        .expect("a game")
}

#[test]
#[ignore = "prints the dealt example: cargo test -p yam-referee print_dealt_example -- --ignored --nocapture"]
fn print_dealt_example() {
    print!("{}", written_by_hand());
}

#[test]
fn the_dealt_example_is_the_practice_game_written_by_hand() {
    // The example is the practice game's deal and moves, with no seed:
    // its layout and deck order in the header replay every move.
    let record = parse_record::<RawGrammar>(DEALT).unwrap();
    let again = parse_record::<RawGrammar>(&written_by_hand()).unwrap();
    for tag in ["FoeLayout", "KhanDeck", "Result"] {
        assert_eq!(record.tags.get(tag), again.tags.get(tag), "{tag}");
    }
    let report = check(DEALT);
    assert_eq!(report.verdict, Verdict::Legal, "{report:?}");
    assert_eq!(report.chance, ChanceSource::RecordedDeal);
    assert!(report.plies > 100);
    // The same game replays to the same end with the seed's chance.
    let (start, moves, _) = practice();
    let deal = Deal::from_tags(record.tags.get("FoeLayout"), record.tags.get("KhanDeck"))
        .unwrap()
        .unwrap();
    let mut dealt = deal.setup(&Ruleset::standard());
    assert_eq!(dealt, start);
    let mut draws = deal.draws();
    let practice = parse_record::<RawGrammar>(PRACTICE).unwrap();
    let id = GameId::new(practice.tags.get("GameId").unwrap()).unwrap();
    let seed = Blob::new(
        practice
            .tags
            .get("PracticeSeed")
            .unwrap()
            .as_bytes()
            .to_vec(),
    )
    .unwrap();
    let mut chance = PracticeChance::new(&id, &seed);
    let mut seeded = setup(&Ruleset::standard(), &mut chance).unwrap();
    for mv in &moves {
        dealt = play_dealt(&dealt, mv, &mut draws).unwrap().0;
        seeded = play(&seeded, mv, &mut chance).unwrap().0;
        assert_eq!(dealt, seeded, "{mv}");
    }
    assert_eq!(draws.drawn(), 100);
    assert_eq!(dealt.result().to_string(), "90/150");
}

#[test]
fn without_a_deck_order_the_draws_are_as_written() {
    // A player who never wrote the deck down: the draw tokens are the
    // draws as they happened.
    let text = DEALT
        .lines()
        .filter(|l| !l.starts_with("[KhanDeck "))
        .collect::<Vec<_>>()
        .join("\n");
    let report = check(&text);
    assert_eq!(report.verdict, Verdict::Legal, "{report:?}");
    assert_eq!(report.chance, ChanceSource::RecordedDeal);
}

/// The reason `text` is refused for, by the checker.
fn refused(text: &str) -> String {
    match check(text).verdict {
        Verdict::Illegal(v) => format!("{} {}: {}", v.move_number, v.token, v.reason),
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn an_illegal_move_is_refused_with_its_reason() {
    // The first capture names a card that is not the top of the row as
    // laid (GK-02).
    let (start, _, _) = practice();
    let m = start.row(crate::genghis_khan::FoeDeck::MongolianUnification);
    let top = m.last().unwrap().code();
    let first_capture = DEALT.find(&format!("capture:{top}/")).unwrap();
    let other = m.iter().find(|c| c.code() != top).unwrap();
    let mut text = DEALT.to_owned();
    let end = first_capture + DEALT[first_capture..].find('=').unwrap();
    text.replace_range(
        first_capture..end,
        &format!("capture:{}/{}", other.code(), quoted(other.name())),
    );
    let why = refused(&text);
    assert!(
        why.contains("GK-02") && why.contains("the top card of Mongolian Unification is"),
        "{why}"
    );
    // A draw of a card already drawn (GK-03): the second draw repeats the first.
    let draws = draw_tokens();
    let text = DEALT.replacen(&draws[1], &draws[0], 1);
    let why = refused(&text);
    assert!(
        why.contains("cannot be drawn: it is not in the Khan deck (GK-03)"),
        "{why}"
    );
    // A wrong score.
    let text = DEALT.replace("90/150", "91/150");
    let why = refused(&text);
    assert!(
        why.contains("the game is over, so the result must be 90/150"),
        "{why}"
    );
}

/// The example's draw tokens, in order, as written.
fn draw_tokens() -> Vec<String> {
    let record = parse_record::<RawGrammar>(DEALT).unwrap();
    record
        .main_line()
        .map(|(t, _)| t.clone())
        .filter(|t| t.starts_with("draw:"))
        .collect()
}

fn quoted(name: &str) -> String {
    let mut out = String::new();
    yam_notation::quote::write_name(name, &mut out);
    out
}

#[test]
fn a_draw_off_the_recorded_deck_is_refused() {
    // Two draws swapped: each card is still in the deck, but not where
    // the deck as dealt has it.
    let draws = draw_tokens();
    let text = DEALT
        .replacen(&draws[0], "@first@", 1)
        .replacen(&draws[1], &draws[0], 1)
        .replacen("@first@", &draws[1], 1);
    let why = refused(&text);
    assert!(
        why.contains("draw 1 of the Khan deck as dealt (tag KhanDeck) is"),
        "{why}"
    );
    // Without the KhanDeck tag the same moves are legal: the draws are as
    // written.
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("[KhanDeck "))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(check(&without).verdict, Verdict::Legal);
}

#[test]
fn the_illegal_play_of_a_dealt_game_is_the_rules_own() {
    // play_dealt refuses what play refuses, with the same reasons.
    let (start, moves, _) = practice();
    let deal = Deal::new(
        FoeLayout::from_rows(crate::genghis_khan::FoeDeck::ALL.map(|d| start.row(d).to_vec()))
            .unwrap(),
        None,
    );
    let state = deal.setup(&Ruleset::standard());
    let mut draws = deal.draws();
    let attack = Move::Attack(crate::genghis_khan::FoeDeck::Russia);
    assert!(matches!(
        play_dealt(&state, &attack, &mut draws),
        Err(Illegal::MustDraw { remaining: 5 })
    ));
    assert_eq!(draws.drawn(), 0);
    let first = moves[0].clone();
    let state = play_dealt(&state, &first, &mut draws).unwrap().0;
    assert_eq!(draws.drawn(), 1);
    assert!(matches!(
        play_dealt(&state, &first, &mut draws),
        Err(Illegal::NotInDeck(_))
    ));
}
