//! Properties over positions reached by random legal play from every start
//! and middle position: the rule checker and the generator agree on every
//! conceivable move, tokens and engine strings round-trip, position texts
//! round-trip exactly.

use proptest::prelude::*;
use yam_notation::khan::{EngineMove, MoveToken};

use super::naive::{Naive, as_move};
use super::perft::{middle_position, middles};
use super::support::{play, refused, setup, sq, start};
use crate::khan::movegen::{reach, reaches};
use crate::khan::token::{resolve_general_into, resolve_plain_in_place};
use crate::khan::{
    Action, Bitboard, Captive, Event, GameType, Illegal, Kind, Move, Options, Position,
    PowerMagicianMoves, Side, Square, apply, from_engine, legal_moves, resolve, to_engine,
    to_token,
};

// A small deterministic generator, so failures can be replayed.
use crate::test_rng::Xorshift as Rng;

fn roots() -> Vec<Position> {
    let mut v: Vec<Position> = GameType::ALL.iter().map(|g| start(g.name())).collect();
    v.extend(middles().iter().map(middle_position));
    v
}

/// Every position along a random game of up to `plies` from `root`.
fn playout(root: &Position, seed: u64, plies: usize) -> Vec<Position> {
    let mut rng = Rng(seed | 1);
    let mut out = vec![*root];
    let mut pos = *root;
    for _ in 0..plies {
        let moves = legal_moves(&pos);
        if moves.is_empty() {
            break;
        }
        let mv = moves[(rng.next() % moves.len() as u64) as usize];
        pos.play_unchecked(&mv);
        out.push(pos);
    }
    out
}

/// Every position along one random game of up to `plies` from each root.
pub(super) fn sample(seed: u64, plies: usize) -> Vec<Position> {
    roots()
        .iter()
        .enumerate()
        .flat_map(|(i, r)| playout(r, seed.wrapping_add(i as u64 * 7919), plies))
        .collect()
}

#[test]
fn the_rule_checker_and_the_generator_agree_on_every_move() {
    let positions = sample(11, 40);
    let mut checked = 0;
    for (n, pos) in positions.iter().enumerate().filter(|(n, _)| n % 5 == 0) {
        let legal = legal_moves(pos);
        for action in [
            Action::Move,
            Action::Capture,
            Action::Spell,
            Action::Exchange,
            Action::Transfer,
        ] {
            for from in Square::all() {
                if pos.piece_at(from).is_none() {
                    continue;
                }
                for to in Square::all() {
                    let mv = Move::new(action, from, to);
                    let ok = pos.check_rules(&mv).is_ok();
                    let listed = legal.contains(&mv);
                    // A finished game lists no moves but the rules may still allow one.
                    if legal.is_empty() {
                        continue;
                    }
                    assert_eq!(
                        ok,
                        listed,
                        "#{n} {mv} in {}: {:?}",
                        pos.to_yam(),
                        pos.check_rules(&mv)
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn every_legal_move_applies_as_played_and_its_token_round_trips() {
    for pos in sample(23, 60) {
        for mv in legal_moves(&pos) {
            let applied = apply(&pos, &mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
            let mut fast = pos;
            fast.play_unchecked(&mv);
            assert_eq!(applied.position, fast);
            let token = to_token(&pos, &mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
            let text = token.to_string();
            let back = MoveToken::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(resolve(&pos, &back), Ok(mv), "{text}");
            // The promotion mark says what the events say.
            let promoted = applied.events.iter().rev().find_map(|e| match e {
                Event::Promoted { to, .. } => Some(*to),
                _ => None,
            });
            assert_eq!(token.promotion, promoted, "{text}");
        }
    }
}

#[test]
fn engine_strings_round_trip_except_the_documented_ambiguities() {
    let (mut total, mut ambiguous) = (0, 0);
    for pos in sample(37, 60) {
        for mv in legal_moves(&pos) {
            total += 1;
            let em: EngineMove = to_engine(&mv)
                .to_string()
                .parse()
                .unwrap_or_else(|e| panic!("{e}"));
            let back = from_engine(&pos, &em).unwrap_or_else(|e| panic!("{mv}: {e}"));
            if back == mv {
                continue;
            }
            ambiguous += 1;
            assert!(
                documented(&pos, &mv, &back),
                "{mv} came back as {back} in {}",
                pos.to_yam()
            );
            assert!(legal_moves(&pos).contains(&back));
        }
    }
    assert!(
        ambiguous > 0 && ambiguous * 10 < total,
        "{ambiguous} of {total}"
    );
}

/// Whether `mv` coming back from its engine string as `back` is one of the
/// cases `docs/rules/khan.md` lists under "Moves that do not survive export
/// and import" (KR-P1): a spell where the caster could also move there (a
/// capture, or a walk into a manned square), or an exchange by a carrier.
fn documented(pos: &Position, mv: &Move, back: &Move) -> bool {
    mv.from == back.from
        && mv.to == back.to
        && match (mv.action, back.action) {
            (Action::Spell, Action::Capture | Action::Move) => true,
            (Action::Exchange, Action::Transfer) => pos.carried_by(mv.from).is_some(),
            _ => false,
        }
}

/// A random game of up to `plies` from `root`: its moves.
fn random_game(root: &Position, seed: u64, plies: usize) -> Vec<Move> {
    let mut rng = Rng(seed | 1);
    let mut pos = *root;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        let mv = legal[(rng.next() % legal.len() as u64) as usize];
        pos.play_unchecked(&mv);
        moves.push(mv);
    }
    moves
}

#[test]
fn whole_games_exported_to_engine_strings_come_back_the_same_but_for_the_documented_cases() {
    use yam_notation::khan::EnginePosition;
    let (mut same, mut diverged) = (0, 0);
    for (i, root) in roots().iter().enumerate() {
        for seed in 0..6u64 {
            let game = random_game(root, seed * 104_729 + i as u64, 150);
            let strings: Vec<EngineMove> = game.iter().map(to_engine).collect();
            // Every game travels as the whole position line; a siege game's
            // state rides in the line's siege fields (Yam's extension).
            let line = EnginePosition {
                position: root.to_yam_text(),
                moves: strings.clone(),
            }
            .to_string();
            let line = EnginePosition::parse(&line).unwrap_or_else(|e| panic!("{e}"));
            let imported = crate::khan::replay_engine(&line, *root.rules()).ok();
            if let Some((moves, end)) = &imported
                && *moves == game
            {
                let mut pos = *root;
                game.iter().for_each(|mv| pos.play_unchecked(mv));
                assert_eq!(*end, pos);
                same += 1;
                continue;
            }
            // Read the strings back one by one: the game must be the same up
            // to its first documented ambiguity, where the two games part.
            let mut pos = *root;
            let mut parted = false;
            for (mv, em) in game.iter().zip(&strings) {
                let back = from_engine(&pos, em).unwrap_or_else(|e| panic!("{em}: {e}"));
                if back != *mv {
                    assert!(
                        documented(&pos, mv, &back),
                        "{mv} came back as {back} in {}",
                        pos.to_yam()
                    );
                    parted = true;
                    break;
                }
                pos.play_unchecked(mv);
            }
            assert!(
                parted,
                "a game came back the same move by move but not as a line"
            );
            diverged += 1;
        }
    }
    assert!(same > 0 && diverged > 0, "{same} same, {diverged} parted");
}

#[test]
fn whole_games_exported_with_marks_where_needed_come_back_exactly() {
    use yam_notation::khan::EnginePosition;
    let mut marked = 0;
    for (i, root) in roots().iter().enumerate() {
        for seed in 0..6u64 {
            let game = random_game(root, seed * 7_919 + i as u64, 150);
            let mut pos = *root;
            let mut strings = Vec::new();
            for mv in &game {
                let em = crate::khan::to_engine_exact(&pos, mv);
                // A mark is written exactly where the bare string misleads.
                assert_eq!(
                    em.action.is_some(),
                    crate::khan::engine_misreading(&pos, mv).is_some()
                );
                marked += usize::from(em.action.is_some());
                strings.push(em);
                pos.play_unchecked(mv);
            }
            let line = EnginePosition {
                position: root.to_yam_text(),
                moves: strings,
            }
            .to_string();
            let line = EnginePosition::parse(&line).unwrap_or_else(|e| panic!("{e}"));
            let (moves, end) =
                crate::khan::replay_engine(&line, *root.rules()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(moves, game, "{line}");
            assert_eq!(end, pos);
        }
    }
    assert!(marked > 0, "no game needed a mark");
}

#[test]
fn yam_text_round_trips_exactly_and_the_engine_fen_for_plain_games() {
    for pos in sample(41, 80) {
        let text = pos.to_yam();
        let back =
            Position::from_yam(&text, *pos.rules()).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, pos, "{text}");
        assert_eq!(back.to_yam(), text);
    }
    for game in [GameType::Basic, GameType::Magician, GameType::PowerMagician] {
        for pos in playout(&start(game.name()), 5, 120) {
            let fen = pos.fen();
            assert_eq!(Position::from_fen(&fen, *pos.rules()), Ok(pos), "{fen}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant(seed in any::<u64>(), root in 0usize..14) {
        let roots = roots();
        let root = &roots[root % roots.len()];
        for pos in playout(root, seed, 80) {
            let text = pos.to_yam();
            // Equal positions have equal kept boards (tower squares,
            // carriers, waiting khans): those of a played position are the
            // ones its text makes, and the ones it is read back with.
            prop_assert_eq!(Position::from_yam(&text, *pos.rules()), Ok(pos));
            let stored = postcard::to_allocvec(&pos).expect("a position is stored");
            prop_assert_eq!(postcard::from_bytes::<Position>(&stored), Ok(pos));
            for mv in legal_moves(&pos) {
                prop_assert!(pos.check(&mv).is_ok());
            }
        }
    }

    #[test]
    fn reading_any_text_never_panics(s in "\\PC{0,80}") {
        let rules = start("rescue-khan");
        let _ = Position::from_yam(&s, *rules.rules());
        let _ = Position::from_fen(&s, *rules.rules());
        let _ = crate::khan::Ruleset::from_yaml(&s);
        if let Ok(t) = MoveToken::parse(&s) {
            let _ = resolve(&rules, &t);
        }
    }

    #[test]
    fn resolving_any_token_never_panics(
        kind in 0usize..11, from in 0u8..64, to in 0u8..64, action in 0usize..5, seed in any::<u64>()
    ) {
        let roots = roots();
        let positions = playout(&roots[(seed % roots.len() as u64) as usize], seed, 30);
        let pos = positions[positions.len() - 1];
        let action = [Action::Move, Action::Capture, Action::Spell, Action::Exchange, Action::Transfer][action];
        let token = MoveToken {
            piece: Kind::ALL[kind],
            from: Square::from_index(from).unwrap_or(Square::A1),
            action,
            to: Square::from_index(to).unwrap_or(Square::A1),
            promotion: None,
        };
        let _ = resolve(&pos, &token);
        let _ = from_engine(&pos, &EngineMove::plain(token.from, token.to));
    }
}

/// A position is stored (a tip's replay, the history's states) as earlier
/// builds stored it, before it kept boards of its tower squares, carriers
/// and waiting khans: these bytes were written by main at 4a493a3 (issue
/// #22, sixteenth step), and read back they are the position with its
/// boards made again, which stores to the same bytes.
#[test]
fn a_position_reads_back_from_the_bytes_an_earlier_build_stored() {
    let pos = setup(
        "Fa1 fb8 md5 Ab2 kh8",
        'b',
        "towers=d4e4d5e5,h5h6h7 manned=d5h5h6 gers=a1:w,h8:b carried=b2:gen waiting=a1:wk",
        Options::default(),
    );
    let earlier = "400400000000000000000600000000000000000000000000000000000000000000000000\
                   140000000000000000000000000000000000000000000f00000000000c81048080808080\
                   818080820180808080808080808001000081808080808080800200800400008080808080\
                   010000010001808080c08103808080808090a04000000280808080809120018080808080\
                   808080800101020000010109000101000100000000808080808080c08103c08103";
    let bytes: Vec<u8> = (0..earlier.len() / 2)
        .map(|i| u8::from_str_radix(&earlier[2 * i..2 * i + 2], 16).expect("hex"))
        .collect();
    let read: Position = postcard::from_bytes(&bytes).expect("an earlier build's bytes read");
    assert_eq!(read, pos);
    assert_eq!(read.carriers(), Bitboard::from_square(sq("b2")));
    assert_eq!(read.tower_squares().count(), 7);
    assert_eq!(postcard::to_allocvec(&read).expect("stored"), bytes);
}

#[test]
fn an_engine_game_line_replays_and_exports_back() {
    use yam_notation::khan::EnginePosition;
    let line = EnginePosition::parse(
        "position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves g4f5 a5a4 h4h5",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let rules = *start("magician").rules();
    let (moves, end) = crate::khan::replay_engine(&line, rules).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        ["g4-f5", "a5-a4", "h4-h5"]
    );
    assert_eq!(
        end.fen(),
        "wfwwa3/wksma3/wn6/1a3A1A/a7/6NW/3AMSKW/3AWWFW b 3 2"
    );
    let bad = EnginePosition::parse(
        "position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 moves g4f5 g4f4",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let e = crate::khan::replay_engine(&bad, rules).unwrap_err();
    assert_eq!(
        e.to_string(),
        "engine move 2 (g4f4) is illegal: there is no piece on g4"
    );
}

#[test]
fn the_reverse_attack_lookup_finds_what_the_naive_generator_finds() {
    let mut checked = 0;
    for pos in sample(31, 60) {
        let naive = Naive::from_position(&pos);
        for target in Square::all() {
            for by in [Side::White, Side::Black] {
                let fast: Vec<Square> = pos.attackers(target, by).into_iter().collect();
                assert_eq!(
                    fast,
                    naive.attackers(target, by),
                    "{target} by {by:?} in {}",
                    pos.to_yam()
                );
                assert_eq!(pos.attacker(target, by), fast.first().copied());
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// The royal test (its early outs and the attack lookup's near-enough
/// masks) against the plain rule: after the move, either the mover has no
/// single royal leader or the naive generator finds nothing attacking it.
#[test]
fn the_royal_test_agrees_with_the_naive_lookup_after_every_move() {
    let mut checked = 0;
    let mut refused = 0;
    let mut moves = Vec::new();
    for pos in sample(37, 80) {
        moves.clear();
        pos.pseudo_moves(&mut moves);
        let us = pos.turn();
        for mv in &moves {
            let mut next = pos;
            next.play_unchecked(mv);
            let expected = match next.royal(us) {
                None => true,
                Some(royal) => Naive::from_position(&next)
                    .attackers(royal, us.opposite())
                    .is_empty(),
            };
            assert_eq!(
                pos.passes_royal_test(mv),
                expected,
                "{mv:?} in {}",
                pos.to_yam()
            );
            checked += 1;
            refused += usize::from(!expected);
        }
    }
    assert!(checked > 10_000, "{checked}");
    assert!(refused > 100, "{refused}");
}

/// The movement check's direct from-to test against the whole reach, for
/// every kind, both power-magician movements, every pair of squares and
/// the given open squares.
fn direct_reach_agrees(open: Bitboard) -> Result<(), TestCaseError> {
    for power in [PowerMagicianMoves::Warrior, PowerMagicianMoves::Orthogonal] {
        for kind in Kind::ALL {
            for from in Square::all() {
                let whole = reach(from, kind, open, power);
                for to in Square::all() {
                    prop_assert_eq!(
                        reaches(from, to, kind, open, power),
                        whole.contains(to),
                        "{:?} {}-{} {:?} open {:#x}",
                        kind,
                        from,
                        to,
                        power,
                        open.0
                    );
                }
            }
        }
    }
    Ok(())
}

/// The legality of every conceivable move (every action, from every
/// occupied square to every square) by the rule checker, whose movement
/// check, royal test and attack lookup are direct bitboard tests, against
/// the naive generator's list (which plays each move and looks at every
/// enemy piece's whole reach).
fn direct_legality_agrees(pos: &Position) -> Result<usize, TestCaseError> {
    let naive = Naive::from_position(pos);
    let listed: Vec<Move> = naive.moves().iter().map(as_move).collect();
    // A finished game lists no moves but the rules may still allow one.
    if listed.is_empty() {
        return Ok(0);
    }
    let mut accepted = 0;
    for action in [
        Action::Move,
        Action::Capture,
        Action::Spell,
        Action::Exchange,
        Action::Transfer,
    ] {
        for from in pos.occupied() {
            for to in Square::all() {
                let mv = Move::new(action, from, to);
                let ok = pos.check_rules(&mv).is_ok();
                prop_assert_eq!(
                    ok,
                    listed.contains(&mv),
                    "{} in {}: {:?}",
                    mv,
                    pos.to_yam(),
                    pos.check_rules(&mv)
                );
                accepted += usize::from(ok);
            }
        }
    }
    prop_assert_eq!(accepted, listed.len(), "in {}", pos.to_yam());
    Ok(accepted)
}

#[test]
fn the_direct_reach_test_agrees_with_the_whole_reach_in_played_positions() {
    for pos in sample(43, 40).iter().step_by(3) {
        direct_reach_agrees(pos.open()).unwrap();
    }
    direct_reach_agrees(Bitboard::FULL).unwrap();
    direct_reach_agrees(Bitboard::EMPTY).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any set of open squares, not only those of reachable positions.
    #[test]
    fn the_direct_reach_test_agrees_with_the_whole_reach(open in any::<u64>()) {
        direct_reach_agrees(Bitboard(open))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Random positions of every ruleset (each start position, and the
    /// perft suite's middle positions, played on at random): the rule
    /// checker accepts exactly the naive generator's legal moves, and the
    /// attack lookup finds exactly the naive generator's attackers.
    #[test]
    fn direct_legality_tests_agree_with_the_naive_generator(
        seed in any::<u64>(),
        root in 0usize..64,
    ) {
        let roots = roots();
        let root = &roots[root % roots.len()];
        let mut accepted = 0;
        for pos in playout(root, seed, 60).iter().step_by(4) {
            accepted += direct_legality_agrees(pos)?;
            let naive = Naive::from_position(pos);
            for target in pos.occupied() {
                for by in [Side::White, Side::Black] {
                    let fast: Vec<Square> = pos.attackers(target, by).into_iter().collect();
                    prop_assert_eq!(fast, naive.attackers(target, by), "{} in {}", target, pos.to_yam());
                }
            }
        }
        prop_assert!(accepted > 0);
    }
}

#[test]
fn direct_legality_tests_agree_with_the_naive_generator_in_every_ruleset() {
    // Every ruleset's start position explicitly, so that none is left to chance.
    for g in GameType::ALL {
        for pos in playout(&start(g.name()), 97, 60).iter().step_by(2) {
            direct_legality_agrees(pos).unwrap();
        }
    }
}

/// The moves the fast path decided, in all and of the siege kinds it takes.
#[derive(Default)]
struct Taken {
    moves: usize,
    /// By a carrier, its captive carried along.
    carrying: usize,
    /// Onto a tower square (a magician onto a manned one, any piece onto a
    /// silenced one whose tower holds no captive, a carrier onto any
    /// silenced one).
    onto_towers: usize,
    /// Onto a manned tower square by a piece that dies there (KR-7.1).
    dying: usize,
    /// Spells, that demote a piece or silence a square (KR-4, KR-7.2).
    spells: usize,
}

/// The replay's fast path against the general one, for every conceivable
/// move (every action, from every occupied square to every square): when
/// it decides, the move is legal and the position it writes is the one
/// `play` makes; `check_and_play` (which tries it first) answers as
/// `check` does and leaves the same position.
fn fast_path_agrees(pos: &Position) -> Result<Taken, TestCaseError> {
    let mut taken = Taken::default();
    for action in [
        Action::Move,
        Action::Capture,
        Action::Spell,
        Action::Exchange,
        Action::Transfer,
    ] {
        for from in pos.occupied() {
            for to in Square::all() {
                let mv = Move::new(action, from, to);
                let checked = pos.check(&mv);
                let mut played = *pos;
                played.play_unchecked(&mv);
                let mut fast = *pos;
                if let Some(promotion) = pos.play_plain_promoting(&mv, &mut fast) {
                    prop_assert_eq!(&checked, &Ok(()), "{} in {}", mv, pos.to_yam());
                    prop_assert_eq!(
                        promotion,
                        pos.promotion_of(&mv),
                        "{} in {}",
                        mv,
                        pos.to_yam()
                    );
                    prop_assert_eq!(fast, played, "{} in {}", mv, pos.to_yam());
                    // Played in place, the same; taken back, the position
                    // it was played on, exactly.
                    let plain = pos.plain_action(&mv).expect("decided once, decided again");
                    prop_assert_eq!(plain.promotion(), promotion);
                    let mut in_place = *pos;
                    in_place.write_plain(&plain);
                    prop_assert_eq!(in_place, played, "{} in {}", mv, pos.to_yam());
                    in_place.unplay_plain(&plain.take_back());
                    prop_assert_eq!(&in_place, pos, "{} taken back", mv);
                    taken.moves += 1;
                    if pos.carriers().contains(mv.from) {
                        taken.carrying += 1;
                    }
                    if pos.tower_squares().contains(mv.to) {
                        taken.onto_towers += 1;
                    }
                    if mv.action == Action::Spell {
                        taken.spells += 1;
                    } else if played.piece_at(mv.to).is_none() {
                        taken.dying += 1;
                    }
                } else {
                    prop_assert_eq!(pos.plain_action(&mv), None);
                }
                resolve_into_agrees(pos, &mv, checked.is_ok(), &played)?;
                let mut next = *pos;
                let answer = pos.check_and_play(&mv, &mut next);
                prop_assert_eq!(&answer, &checked, "{} in {}", mv, pos.to_yam());
                if answer.is_ok() {
                    prop_assert_eq!(next, played, "{} in {}", mv, pos.to_yam());
                }
            }
        }
    }
    Ok(taken)
}

/// `resolve_into` (which tries the fast path first) against `resolve` for
/// the tokens of a move: for a legal one with the right and a wrong piece
/// letter and with every promotion mark, for a refused one as written with
/// the piece there.
fn resolve_into_agrees(
    pos: &Position,
    mv: &Move,
    legal: bool,
    played: &Position,
) -> Result<(), TestCaseError> {
    let Some(piece) = pos.piece_at(mv.from) else {
        return Ok(());
    };
    let wrong = if piece.kind == Kind::Warrior {
        Kind::Archer
    } else {
        Kind::Warrior
    };
    let promotions = [
        None,
        pos.promotion_of(mv),
        Some(Kind::Khan),
        Some(Kind::Warrior),
    ];
    let variants: Vec<(Kind, Option<Kind>)> = if legal {
        [piece.kind, wrong]
            .into_iter()
            .flat_map(|k| promotions.into_iter().map(move |p| (k, p)))
            .collect()
    } else {
        vec![(piece.kind, pos.promotion_of(mv))]
    };
    for (written, promotion) in variants {
        let token = MoveToken {
            piece: written,
            from: mv.from,
            action: mv.action,
            to: mv.to,
            promotion,
        };
        let mut next = *pos;
        let fast = crate::khan::resolve_into(pos, &token, &mut next);
        prop_assert_eq!(
            &fast,
            &resolve(pos, &token),
            "{:?} in {}",
            token,
            pos.to_yam()
        );
        if fast.is_ok() {
            prop_assert_eq!(&next, played, "{:?} in {}", token, pos.to_yam());
        }
        // The checker's way: the fast path in place, else the general path
        // alone; the same answer, and the same position after the move.
        let mut in_place = *pos;
        let mut taken = None;
        let fast_path = resolve_plain_in_place(&mut in_place, &token, &mut taken);
        prop_assert_eq!(fast_path, taken.is_some());
        let answer = match taken {
            Some(plain) => {
                let mut back = in_place;
                back.unplay_plain(&plain);
                prop_assert_eq!(&back, pos, "{:?} taken back", token);
                Ok(Move::new(token.action, token.from, token.to))
            }
            None => {
                prop_assert_eq!(&in_place, pos, "{:?} declined but played", token);
                resolve_general_into(pos, &token, &mut in_place)
            }
        };
        prop_assert_eq!(&answer, &fast, "{:?} in {}", token, pos.to_yam());
        if answer.is_ok() {
            prop_assert_eq!(&in_place, played, "{:?} in {}", token, pos.to_yam());
        }
    }
    Ok(())
}

/// The checker's fast path plays a move before its royal test (KR-6.2):
/// a move the test refuses is taken back, and the position and the
/// caller's take-back of the move before it are as they were (the checker
/// then hands the move to the general path, which names the rule).
#[test]
fn a_move_the_royal_test_refuses_is_taken_back_with_the_take_back_before_it() {
    let mut refused = 0;
    let mut moves = Vec::new();
    for before in sample(41, 60) {
        // The move before: the first the fast path plays.
        moves.clear();
        before.pseudo_moves(&mut moves);
        let Some((pos, taken)) = moves.iter().find_map(|mv| {
            let token = to_token(&before, mv).ok()?;
            let (mut pos, mut taken) = (before, None);
            resolve_plain_in_place(&mut pos, &token, &mut taken).then_some((pos, taken))
        }) else {
            continue;
        };
        moves.clear();
        pos.pseudo_moves(&mut moves);
        for mv in &moves {
            // Decided by the fast path but for the royal test, which refuses it.
            if pos.plain_move(mv).is_none() || pos.plain_move_with_royal_test(mv).is_some() {
                continue;
            }
            let Some(piece) = pos.piece_at(mv.from) else {
                continue;
            };
            let token = MoveToken {
                piece: piece.kind,
                from: mv.from,
                action: mv.action,
                to: mv.to,
                promotion: pos.promotion_of(mv),
            };
            let (mut after, mut after_taken) = (pos, taken);
            assert!(!resolve_plain_in_place(
                &mut after,
                &token,
                &mut after_taken
            ));
            assert_eq!(after, pos, "{mv:?} in {}", pos.to_yam());
            assert_eq!(after_taken, taken, "{mv:?} in {}", pos.to_yam());
            // The general path refuses it, naming the rule and the attack.
            let (royal, attacker_square) = pos.royal_attacker_after(mv).expect("attacked");
            assert!(
                matches!(
                    pos.check(mv),
                    Err(Illegal::LeavesRoyalAttacked { square, attacker_square: a, .. })
                        if square == royal && a == attacker_square
                ),
                "{mv:?} in {}",
                pos.to_yam()
            );
            refused += 1;
        }
    }
    assert!(refused > 50, "{refused}");
}

/// The fast path's spell decides the royal test without playing the spell,
/// from the leader's reach (`Position::plain_spell`): a spell that silences
/// a square on the line between an enemy slider and the royal leader opens
/// an attack, so it is refused, by the general path (the fast path leaves
/// it); a spell outside that reach is taken by the fast path, played as
/// `play` plays it, and taken back exactly.
#[test]
fn a_spell_that_opens_a_line_to_the_royal_leader_is_refused_and_one_far_from_it_taken() {
    let siege = "towers=e5,a6 manned=e5a6 gers=a1:w,h8:b";
    let pos = setup("Ke4 Hc5 ne6 kb8", 'w', siege, Options::default());
    refused(&pos, "Hc5*e5", "leaves the royal khan on e4 attacked");
    let opening = Move::new(Action::Spell, sq("c5"), sq("e5"));
    assert_eq!(pos.plain_action(&opening), None);
    let far = MoveToken::parse("Hc5*a6").unwrap();
    let mut in_place = pos;
    let mut taken = None;
    assert!(resolve_plain_in_place(&mut in_place, &far, &mut taken));
    assert_eq!(in_place, play(&pos, "Hc5*a6").position);
    assert!(!in_place.manned().contains(sq("a6")));
    in_place.unplay_plain(&taken.unwrap());
    assert_eq!(in_place, pos);
    // And every other move of the position, each way.
    assert!(fast_path_agrees(&pos).unwrap().spells > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Random positions of every ruleset, as above.
    #[test]
    fn the_replay_fast_path_agrees_with_the_general_path(
        seed in any::<u64>(),
        root in 0usize..64,
    ) {
        let roots = roots();
        let root = &roots[root % roots.len()];
        for pos in playout(root, seed, 60).iter().step_by(5) {
            fast_path_agrees(pos)?;
        }
    }
}

#[test]
fn the_replay_fast_path_agrees_with_the_general_path_in_every_ruleset() {
    let mut taken = Taken::default();
    let mut roots = roots();
    roots.extend(GameType::ALL.iter().map(|g| start(g.name())));
    for (i, root) in roots.iter().enumerate() {
        for pos in playout(root, 101 + i as u64, 80).iter().step_by(3) {
            let t = fast_path_agrees(pos).unwrap();
            taken.moves += t.moves;
            taken.carrying += t.carrying;
            taken.onto_towers += t.onto_towers;
            taken.dying += t.dying;
            taken.spells += t.spells;
        }
    }
    // Most legal moves of these games take it, siege moves among them.
    assert!(taken.moves > 5_000, "{}", taken.moves);
    assert!(taken.carrying > 0, "no carrier's move was tried");
    assert!(
        taken.onto_towers > 0,
        "no move onto a tower square was tried"
    );
    assert!(taken.dying > 0, "no move to a death in a tower was tried");
    assert!(taken.spells > 0, "no spell was tried");
}

/// KR-7.1 and KR-7.7: a piece that captures on a manned tower square dies
/// there, and when that square is also the ger where a khan waits, the ger
/// is left empty and the khan appears on it. The fast path leaves such a
/// move to the general path (`Position::plain_onto_tower` asks the kept
/// board of waiting khans); a magician, which survives a manned square,
/// keeps the ger taken and is the fast path's.
#[test]
fn a_death_on_a_manned_ger_releases_the_khan_waiting_there() {
    let pos = setup(
        "Md4 Fh1 ac5 md3 kh8",
        'b',
        "towers=d4e4d5e5 manned=d4 gers=d4:w,h8:b waiting=d4:wk",
        Options::default(),
    );
    let (d4, c5, d3) = (sq("d4"), sq("c5"), sq("d3"));
    let dies = Move::new(Action::Capture, c5, d4);
    assert_eq!(pos.check(&dies), Ok(()));
    let played = apply(&pos, &dies).expect("legal").position;
    assert_eq!(played.captive(Captive::Khan(Side::White)), None);
    assert_eq!(
        played.piece_at(d4).map(|p| (p.side, p.kind)),
        Some((Side::White, Kind::Khan))
    );
    assert_eq!(pos.plain_action(&dies), None, "left to the general path");
    let survives = Move::new(Action::Capture, d3, d4);
    assert_eq!(pos.check(&survives), Ok(()));
    assert!(pos.plain_action(&survives).is_some(), "the magician's");
    fast_path_agrees(&pos).expect("the fast path agrees");
}
