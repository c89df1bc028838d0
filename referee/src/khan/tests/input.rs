//! Lenient input (`khan::input`): every legal move, in random positions
//! from every start and middle position, resolves back from its long form,
//! its shortest short form and its from-to form; where a form fits several
//! legal moves it is ambiguous and lists exactly those; constructed
//! positions show each kind of disambiguation and each refusal.

use std::collections::BTreeSet;

use yam_notation::khan::MoveToken;

use super::playouts::sample;
use super::support::{board, setup, start};
use crate::khan::input::{Form, InputError, Pattern, short_form};
use crate::khan::{Action, Move, Options, Position, legal_moves, resolve_input, to_token};

fn long(pos: &Position, mv: &Move) -> MoveToken {
    to_token(pos, mv).unwrap_or_else(|e| panic!("{mv}: {e}"))
}

fn texts(tokens: &[MoveToken]) -> Vec<String> {
    tokens.iter().map(|t| t.to_string()).collect()
}

/// The canonical texts of the legal moves `keep` selects, sorted.
fn legal_where(pos: &Position, keep: impl Fn(&Move) -> bool) -> Vec<String> {
    let set: BTreeSet<String> = legal_moves(pos)
        .iter()
        .filter(|m| keep(m))
        .map(|m| long(pos, m).to_string())
        .collect();
    set.into_iter().collect()
}

fn ok(pos: &Position, text: &str) -> String {
    resolve_input(pos, text)
        .unwrap_or_else(|e| panic!("{text}: {e}\n{}", pos.to_yam()))
        .to_string()
}

fn ambiguous(pos: &Position, text: &str) -> Vec<String> {
    match resolve_input(pos, text) {
        Err(InputError::Ambiguous { candidates, .. }) => texts(&candidates),
        other => panic!("{text}: expected ambiguity, got {other:?}"),
    }
}

fn no_such_move(pos: &Position, text: &str) -> (Option<String>, Vec<String>) {
    match resolve_input(pos, text) {
        Err(InputError::NoSuchMove { why, nearest, .. }) => {
            (why.map(|w| w.to_string()), texts(&nearest))
        }
        other => panic!("{text}: expected no such move, got {other:?}"),
    }
}

#[test]
fn every_legal_move_resolves_from_its_long_short_and_engine_forms() {
    // What the sample must exercise, so that the test cannot pass vacuously.
    let mut seen: BTreeSet<&'static str> = BTreeSet::new();
    let mut total = 0;
    for pos in sample(41, 60) {
        let legal = legal_moves(&pos);
        for mv in &legal {
            total += 1;
            let token = long(&pos, mv);
            let text = token.to_string();
            let kind = token.piece;

            // The long form, as printed, in lower case, and without its
            // promotion mark.
            assert_eq!(ok(&pos, &text), text);
            assert_eq!(ok(&pos, &text.to_lowercase()), text);
            if token.promotion.is_some() {
                let bare = MoveToken {
                    promotion: None,
                    ..token
                };
                assert_eq!(ok(&pos, &bare.to_string()), text);
                seen.insert("promotion left out");
            }

            // The shortest short form resolves to the move, and is shorter.
            let short = short_form(&pos, mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
            assert_eq!(ok(&pos, &short), text, "short form {short}");
            assert!(short.len() < text.len(), "{short} for {text}");
            let p = Pattern::read(&short).unwrap_or_else(|e| panic!("{short}: {e}"));
            assert_eq!(p.form, Form::Short, "{short}");
            seen.insert(match mv.action {
                Action::Move => "move",
                Action::Capture => "capture",
                Action::Spell => "spell",
                Action::Exchange => "exchange",
                Action::Transfer => "transfer",
            });
            match (p.from_file, p.from_rank, p.action) {
                (None, None, None) => seen.insert("bare short form"),
                (Some(_), None, _) => seen.insert("origin file"),
                (None, Some(_), _) => seen.insert("origin rank"),
                (Some(_), Some(_), _) => seen.insert("origin square"),
                (None, None, Some(_)) => seen.insert("mark"),
            };

            // The bare short form, by an oracle of its own: the move when
            // no other legal move of that kind of piece goes there, else
            // ambiguous among exactly those.
            let bare = format!("{}{}", kind.letter(), mv.to);
            let rivals = legal_where(&pos, |m| {
                m.to == mv.to && pos.piece_at(m.from).is_some_and(|q| q.kind == kind)
            });
            if rivals.len() == 1 {
                assert_eq!(short, bare);
                assert_eq!(ok(&pos, &bare), text);
            } else {
                assert_eq!(ambiguous(&pos, &bare), rivals, "{bare}");
            }

            // The from-to form: the move, or ambiguous among the moves
            // with these two squares (KR-P1: a capture and a spell, a walk
            // and a silencing spell, an exchange and a transfer).
            // With the mark, it is the move.
            assert_eq!(ok(&pos, &mv.to_string()), text, "{mv}");
            let engine = format!("{}{}", mv.from, mv.to);
            let same = legal_where(&pos, |m| m.from == mv.from && m.to == mv.to);
            if same.len() == 1 {
                assert_eq!(ok(&pos, &engine), text, "{engine}");
            } else {
                assert_eq!(ambiguous(&pos, &engine), same, "{engine}");
                seen.insert("ambiguous from-to");
            }
        }
    }
    for what in [
        "move",
        "capture",
        "spell",
        "exchange",
        "transfer",
        "promotion left out",
        "bare short form",
        "origin file",
        "origin rank",
        "mark",
        "ambiguous from-to",
    ] {
        assert!(seen.contains(what), "no {what} among {total} moves");
    }
    assert!(total > 10_000, "{total}");
}

#[test]
fn the_start_takes_the_short_and_engine_forms_of_the_issue() {
    let p = start("magician");
    assert_eq!(ok(&p, "Ng3-f3"), "Ng3-f3");
    assert_eq!(ok(&p, "Nf3"), "Ng3-f3");
    assert_eq!(ok(&p, "g3f3"), "Ng3-f3");
    assert_eq!(ok(&p, "nf3"), "Ng3-f3");
    assert_eq!(ok(&p, "  N-f3 "), "Ng3-f3");
    assert_eq!(ok(&p, "Ng3f3"), "Ng3-f3");
    assert_eq!(ok(&p, "Ne3"), "Ng3-e3");
    // From-to with the mark: the long form less its piece letter.
    assert_eq!(ok(&p, "g3-f3"), "Ng3-f3");
    assert!(matches!(
        resolve_input(&p, "g3xf3"),
        Err(InputError::NoSuchMove { why: Some(_), .. })
    ));
}

#[test]
fn an_ambiguous_short_form_lists_the_candidates_and_each_disambiguation_resolves() {
    // Archers on d4, d6 and f4 all reach e5; d4 and d6 both reach d5.
    let p = board("Kh1 Fg1 Ad4 Ad6 Af4 ka8 fb8", 'w');
    assert_eq!(
        ambiguous(&p, "Ae5"),
        ["Ad4-e5", "Ad6-e5", "Af4-e5"].map(String::from)
    );
    assert_eq!(
        ambiguous(&p, "Ade5"),
        ["Ad4-e5", "Ad6-e5"].map(String::from)
    );
    assert_eq!(ok(&p, "Afe5"), "Af4-e5");
    assert_eq!(ok(&p, "A6e5"), "Ad6-e5");
    assert_eq!(ok(&p, "Ad4e5"), "Ad4-e5");
    assert_eq!(ok(&p, "A4-d5"), "Ad4-d5");
    assert_eq!(ambiguous(&p, "Ad5"), ["Ad4-d5", "Ad6-d5"].map(String::from));
    assert_eq!(
        short_form(&p, &Move::step(sq("d4"), sq("d5"))).unwrap(),
        "A4d5"
    );
    assert_eq!(
        short_form(&p, &Move::step(sq("f4"), sq("e5"))).unwrap(),
        "Afe5"
    );
    assert_eq!(
        short_form(&p, &Move::step(sq("d4"), sq("e5"))).unwrap(),
        "Ad4e5"
    );
    let message = resolve_input(&p, "Ae5").unwrap_err().to_string();
    assert!(
        message.contains("`Ae5` could be any of Ad4-e5, Ad6-e5, Af4-e5"),
        "{message}"
    );
}

fn sq(name: &str) -> crate::khan::Square {
    super::support::sq(name)
}

#[test]
fn a_capture_and_a_spell_at_one_piece_need_the_mark() {
    // KR-4.4, KR-P1: the magician on e4 may capture or curse the archer on e5.
    let p = board("Kh1 Fg1 Me4 ae5 ka8 fb8", 'w');
    assert_eq!(ambiguous(&p, "Me5"), ["Me4*e5", "Me4xe5"].map(String::from));
    assert_eq!(
        ambiguous(&p, "e4e5"),
        ["Me4*e5", "Me4xe5"].map(String::from)
    );
    assert_eq!(ok(&p, "Mxe5"), "Me4xe5");
    assert_eq!(ok(&p, "M*e5"), "Me4*e5");
    assert_eq!(ok(&p, "Me4*e5"), "Me4*e5");
    assert_eq!(ok(&p, "e4*e5"), "Me4*e5");
    assert_eq!(ok(&p, "e4xe5"), "Me4xe5");
    assert_eq!(
        short_form(&p, &Move::spell(sq("e4"), sq("e5"))).unwrap(),
        "M*e5"
    );
}

#[test]
fn exchanges_and_transfers_take_the_short_forms() {
    let pieces = "Je2 We1 Ff1 Ad1 Sd3 We4 Mc3 Wc2 Gg3 Ah3 Kh8 ka8 fb8";
    let p = setup(
        pieces,
        'w',
        "",
        Options {
            exchanges: true,
            ..Options::default()
        },
    );
    assert_eq!(ok(&p, "J<>f1"), "Je2<>f1");
    assert_eq!(ok(&p, "e2f1"), "Je2<>f1");
    assert_eq!(ok(&p, "G<>h3"), "Gg3<>h3");
}

#[test]
fn a_promotion_may_be_left_out_but_not_written_wrong() {
    let p = board("Nb5 Jc6 Ia6 Wc5 Kh1 Fg1 ke8 fd8", 'w');
    assert_eq!(ok(&p, "Nb5-b7"), "Nb5-b7=W");
    assert_eq!(ok(&p, "Nb7"), "Nb5-b7=W");
    assert_eq!(ok(&p, "Nb7=W"), "Nb5-b7=W");
    assert_eq!(ok(&p, "b5b7"), "Nb5-b7=W");
    let (why, nearest) = no_such_move(&p, "Nb5-b7=A");
    assert!(
        why.unwrap()
            .contains("promotes the assassin to a warrior, not to an archer")
    );
    assert!(nearest.contains(&"Nb5-b7=W".to_owned()), "{nearest:?}");
    assert!(matches!(
        resolve_input(&p, "Nb7=A"),
        Err(InputError::NoSuchMove { .. })
    ));
}

#[test]
fn an_impossible_input_names_the_nearest_legal_moves() {
    let p = start("magician");
    let legal = legal_where(&p, |_| true);
    // No assassin reaches f5: the assassin's own moves are offered.
    let (why, nearest) = no_such_move(&p, "Nf5");
    assert_eq!(why, None);
    assert!(nearest.contains(&"Ng3-f3".to_owned()), "{nearest:?}");
    assert!(nearest.contains(&"Ng3-e3".to_owned()), "{nearest:?}");
    assert!(nearest.iter().all(|n| legal.contains(n)), "{nearest:?}");
    // A long form names its move, so the rules' reason comes with it.
    let (why, nearest) = no_such_move(&p, "Wd2-d3");
    assert!(
        why.unwrap()
            .contains("the piece on d2 is an archer, not a warrior")
    );
    assert!(!nearest.is_empty());
    let (why, _) = no_such_move(&p, "Ad2-d5");
    assert!(why.unwrap().contains("cannot reach d5"));
    // A from-to string too.
    let (why, nearest) = no_such_move(&p, "d2d5");
    assert!(why.unwrap().contains("cannot reach d5"));
    assert!(nearest.contains(&"Ad2-d3".to_owned()), "{nearest:?}");
    // No piece of the kind at all: the moves to the square, or nearest it.
    let (_, nearest) = no_such_move(&p, "Hd3");
    assert!(nearest.contains(&"Ad2-d3".to_owned()), "{nearest:?}");
    // A wrong origin: the kind's moves elsewhere.
    let (_, nearest) = no_such_move(&p, "Naf3");
    assert!(nearest.contains(&"Ng3-f3".to_owned()), "{nearest:?}");
    let message = resolve_input(&p, "Nf5").unwrap_err().to_string();
    assert!(message.starts_with("no legal move is `Nf5`; the nearest legal moves: "));
}

#[test]
fn unreadable_input_says_what_is_expected() {
    let p = start("magician");
    for text in [
        "", "e4", "hello", "Nf9", "Nzf5", "N<f5", "Ne5=Q", "g3f3f4", "Nf5é",
    ] {
        match resolve_input(&p, text) {
            Err(InputError::Unreadable { expected, .. }) => {
                assert!(expected.contains("short form"), "{text}")
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn a_finished_game_has_no_move_and_says_why() {
    // Black has no leader left: the game is over (KR-6.3).
    let p = board("Kh1 Fg1 Ad2 sa8", 'w');
    assert!(p.outcome().is_some());
    let (why, nearest) = no_such_move(&p, "Ad3");
    assert!(why.unwrap().contains("the game is over"));
    assert!(nearest.is_empty());
    let (why, _) = no_such_move(&p, "Ad2-d3");
    assert!(why.unwrap().contains("the game is over"));
}
