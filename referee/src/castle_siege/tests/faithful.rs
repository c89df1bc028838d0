//! The faithful turn (CS-P4): `Move` alone draws the allowance, then each
//! step, breach and attack is its own declaration, chosen once the dice
//! before it are known (CS-12, CS-19, CS-34). CS-P1's priority list is the
//! other option, and the default.

use super::support::{Dice, at, attacking, play, reason, refused, standard, tokens};
use crate::castle_siege::{
    Allowance, Declaration, Illegal, Order, Phase, Policy, Rules, Ruleset, Side, Square, State,
    Token, TurnMode, UnitKind, choose_declaration, faithful_declarations, legal_steps, play_game,
    play_game_with, replay_record, replay_turns, resolve,
};

fn faithful() -> Rules {
    Ruleset::builtin("standard-faithful")
        .expect("built in")
        .rules
}

/// The Attacker with a tower and a knight that can climb off it (CS-19,
/// CS-22), a ram and an archer, against two defending knights.
fn siege() -> State {
    attacking(faithful(), "Kc5 Kd6", "Tb3 Kb4 Rb6 Ab5", "")
}

fn sq(s: &str) -> Square {
    s.parse().expect("a square")
}

fn written(text: &str) -> Vec<Token> {
    text.split_whitespace()
        .map(|w| Token::parse(w).unwrap_or_else(|e| panic!("{w}: {e}")))
        .collect()
}

#[test]
fn the_option_and_its_rulesets() {
    assert_eq!(standard().turn, TurnMode::PriorityList);
    for name in [
        "standard",
        "orthogonal",
        "restricted",
        "orthogonal-restricted",
        "castle-wide-rocks",
        "skirmish",
    ] {
        let plain = Ruleset::builtin(name).expect("built in");
        let twin = Ruleset::builtin(&format!("{name}-faithful")).expect("built in");
        assert_eq!(plain.rules.turn, TurnMode::PriorityList, "{name}");
        assert_eq!(twin.rules.turn, TurnMode::Faithful, "{name}");
        assert_eq!(twin.name, format!("{name}-faithful"));
        // The twin differs in the turn alone.
        assert_eq!(
            Rules {
                turn: TurnMode::PriorityList,
                ..twin.rules
            },
            plain.rules,
            "{name}"
        );
    }
    for (text, mode) in [
        ("name: x\nturn: priority_list\n", TurnMode::PriorityList),
        ("name: x\nturn: priority-list\n", TurnMode::PriorityList),
        ("name: x\nturn: faithful\n", TurnMode::Faithful),
        ("name: x\n", TurnMode::PriorityList),
    ] {
        assert_eq!(Ruleset::from_yaml(text).expect(text).rules.turn, mode);
    }
    let e = Ruleset::from_yaml("name: x\nturn: eager\n").unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
}

#[test]
fn move_alone_draws_the_allowance_first() {
    let s = siege();
    let mut dice = Dice::new(&[2]);
    let r = resolve(&s, &"Move".parse::<Declaration>().unwrap(), &mut dice).unwrap();
    assert_eq!(dice.asked, ["allowance"]);
    assert_eq!(tokens(&r), "Move@2");
    assert_eq!(r.state.allowance(), Some(Allowance { face: 2, used: 0 }));
    // The Move phase goes on: the steps are still to be chosen.
    assert_eq!(r.state.phase(), Phase::Move);
    assert_eq!(r.state.turn(), Side::Attacker);
    // CS-12: one allowance a turn.
    assert_eq!(reason(&r.state, "Move"), Illegal::SecondMove);
    // The diagram tells the player what is left to choose with.
    let d = crate::castle_siege::diagram(&r.state);
    assert!(d.contains("round cap 50, turn faithful."), "{d}");
    assert!(d.contains("Move phase (allowance 2, 2 left)."), "{d}");
    assert!(!crate::castle_siege::diagram(&s).contains("allowance"));
}

#[test]
fn a_move_declaration_is_the_marker_alone_or_one_step() {
    let s = siege();
    // CS-P4: no step listed before the allowance is known.
    assert_eq!(reason(&s, "Move Tb3-b4"), Illegal::MoveNotAlone);
    assert_eq!(reason(&s, "Move End"), Illegal::MoveNotAlone);
    // No step before the allowance is drawn.
    let r = refused(&s, "Tb3-b4");
    assert_eq!(r.reason, Illegal::NoAllowance);
    assert!(r.to_string().contains("declare Move first"), "{r}");
    let s = play(&s, "Move", &[3]).state;
    // One step a declaration, each complete before the next is chosen.
    assert_eq!(reason(&s, "Tb3-b4 Kb4-c4"), Illegal::StepNotAlone);
    assert_eq!(reason(&s, "Tb3-b4 Attack Ab5xKc5"), Illegal::StepNotAlone);
    // Each step is still checked on its own: no cure from a later order.
    assert!(matches!(reason(&s, "Kb4-d4"), Illegal::NotAdjacent { .. }));
}

#[test]
fn each_step_is_chosen_once_the_one_before_it_is_known() {
    let s = play(&siege(), "Move", &[2]).state;
    // CS-19: the tower moves up, then the knight on its new square climbs
    // off it at 4+ (CS-22).
    let r = play(&s, "Tb3-b4", &[]);
    assert_eq!(tokens(&r), "Tb3-b4");
    assert_eq!(r.state.allowance(), Some(Allowance { face: 2, used: 1 }));
    let mut dice = Dice::new(&[4]);
    let r = resolve(&r.state, &"Kb4-c4".parse().unwrap(), &mut dice).unwrap();
    assert_eq!(dice.asked, ["entry Kb4-c4"]);
    assert_eq!(tokens(&r), "Kb4-c4@4");
    assert_eq!(at(&r.state, Side::Attacker, UnitKind::Knight, sq("c4")), 1);
    // CS-12: a step beyond the allowance is refused, with its reason.
    let spent = refused(&r.state, "Ab5-a6");
    assert_eq!(spent.reason, Illegal::AllowanceSpent { allowance: 2 });
    assert!(spent.to_string().contains("allowance of 2 is used up"));
    assert!(legal_steps(&r.state).is_empty());
    // The turn goes on to its breaches and attacks.
    let r = play(&r.state, "Breach Rb6#c6", &[5]);
    assert_eq!(tokens(&r), "Breach Rb6#c6@5");
    assert!(r.state.is_breached(sq("c6")));
}

#[test]
fn a_failed_entry_is_known_before_the_next_move() {
    let s = play(&siege(), "Move", &[2]).state;
    // CS-24: the failed roll spends the move and a unit of the allowance.
    let r = play(&s, "Kb4-c4", &[5]);
    assert_eq!(tokens(&r), "Kb4-c4@5");
    assert_eq!(at(&r.state, Side::Attacker, UnitKind::Knight, sq("b4")), 1);
    assert_eq!(r.state.allowance(), Some(Allowance { face: 2, used: 1 }));
    assert!(matches!(
        reason(&r.state, "Kb4-c4"),
        Illegal::AlreadyMoved { .. }
    ));
    // Knowing it failed, the player moves the archer instead.
    let r = play(&r.state, "Ab5-a5", &[]);
    assert_eq!(r.state.allowance(), Some(Allowance { face: 2, used: 2 }));
}

#[test]
fn breaches_and_attacks_one_die_at_a_time() {
    let s = siege();
    // Markers may lead up to the order, but nothing follows a die.
    assert_eq!(
        reason(&s, "Breach Rb6#c6 Attack Ab5xKc5"),
        Illegal::OrderAfterDie
    );
    assert_eq!(reason(&s, "Attack Ab5xKc5 End"), Illegal::OrderAfterDie);
    // No Move: the phase is skipped and no allowance drawn.
    let r = play(&s, "Breach Rb6#c6", &[6]);
    assert_eq!(r.state.phase(), Phase::Breach);
    assert_eq!(r.state.allowance(), None);
    assert_eq!(
        reason(&r.state, "Move"),
        Illegal::PhaseOver {
            phase: Phase::Move,
            current: Phase::Breach
        }
    );
    let r = play(&r.state, "Attack Ab5xKc5", &[6]);
    assert_eq!(tokens(&r), "Attack Ab5xKc5@6");
    assert_eq!(at(&r.state, Side::Defender, UnitKind::Knight, sq("c5")), 0);
    // CS-33: one attack a unit.
    assert!(matches!(
        reason(&r.state, "Ab5xKd6"),
        Illegal::AlreadyActed { .. } | Illegal::OutOfReach { .. }
    ));
    let r = play(&r.state, "End", &[]);
    assert_eq!(r.state.turn(), Side::Defender);
    assert_eq!(r.state.allowance(), None);
    // Markers and End draw nothing and may go together.
    let r = play(&r.state, "Breach Attack End", &[]);
    assert_eq!(r.state.turn(), Side::Attacker);
}

#[test]
fn a_faithful_turn_replays_declaration_by_declaration() {
    let s = siege();
    let turn = "Move@2 Tb3-b4 Kb4-c4@4 Breach Rb6#c6@5 Attack Ab5xKc5@3 End";
    let ranges: Vec<_> = faithful_declarations(&written(turn))
        .into_iter()
        .map(|r| (r.start, r.end))
        .collect();
    assert_eq!(ranges, [(0, 1), (1, 2), (2, 3), (3, 5), (5, 7), (7, 8)]);
    let done = replay_turns(&s, &written(turn)).expect("replays");
    assert_eq!(done.dice, 4);
    assert_eq!(done.state.turn(), Side::Defender);
    assert!(done.state.is_breached(sq("c6")));
    // A third step is beyond the allowance: refused, not skipped.
    let e = replay_turns(&s, &written("Move@2 Tb3-b4 Kb4-c4@4 Ab5-a5 End")).unwrap_err();
    assert_eq!(e.index(), Some(3), "{e}");
    assert!(e.to_string().contains("allowance of 2 is used up"), "{e}");
    // A priority list's skip is not a faithful record.
    assert!(replay_turns(&s, &written("Move@1 Tb3-b4 Kb4-c4/skip End")).is_err());
    // The same turn is read as one priority list under CS-P1.
    let p = attacking(standard(), "Kc5 Kd6", "Tb3 Kb4 Rb6 Ab5", "");
    let done = replay_turns(&p, &written("Move@1 Tb3-b4 Kb4-c4/skip End")).expect("CS-P1");
    assert_eq!(done.dice, 1);
    assert!(replay_turns(&p, &written("Move@2 End")).is_err());
}

#[test]
fn the_chooser_plays_one_order_at_a_time() {
    let s = siege();
    for policy in [Policy::Random, Policy::Eager] {
        let mut state = s.clone();
        let mut faces = std::iter::repeat([4u8, 6, 2, 5, 1, 3]).flatten();
        let mut declarations = 0;
        while state.turn() == Side::Attacker {
            let d = choose_declaration(&state, policy, declarations);
            let dice_orders = d
                .orders()
                .iter()
                .filter(|o| !matches!(o, Order::Phase(Phase::Breach | Phase::Attack) | Order::End))
                .count();
            assert!(dice_orders <= 1, "{:?}", d.texts());
            let mut dice = Dice::new(&faces.by_ref().take(1).collect::<Vec<_>>());
            state = resolve(&state, &d, &mut dice)
                .unwrap_or_else(|e| panic!("{:?}: {e}", d.texts()))
                .state;
            declarations += 1;
            assert!(declarations < 60, "the turn ends");
        }
    }
    let d = choose_declaration(&s, Policy::Eager, 0);
    assert_eq!(d.texts(), ["Move"]);
}

#[test]
fn faithful_self_play_ends_and_replays() {
    for name in [
        "standard-faithful",
        "skirmish-faithful",
        "orthogonal-restricted-faithful",
    ] {
        let ruleset = Ruleset::builtin(name).expect("built in");
        for seed in 0..6 {
            for g in [
                play_game(seed, &ruleset),
                play_game_with(seed, &ruleset, Policy::Eager),
            ] {
                let g = g.unwrap_or_else(|e| panic!("{name} {seed}: {e}"));
                // No order is ever skipped: each is chosen in the position
                // it is carried out in.
                assert_eq!(g.skipped, 0, "{name} {seed}");
                let r = replay_record(ruleset.rules, &g.movetext)
                    .unwrap_or_else(|e| panic!("{name} {seed}: {e}"));
                assert_eq!(r.state.outcome(), Some(g.outcome), "{name} {seed}");
                assert_eq!(r.dice, g.dice, "{name} {seed}");
            }
        }
    }
}

#[test]
fn a_typed_step_is_read_whatever_the_allowance_and_judged_by_the_check() {
    use crate::castle_siege::input::resolve_declaration;
    let s = siege();
    let typed = |t: &str| -> Vec<String> { t.split_whitespace().map(str::to_owned).collect() };
    // Read as the step it means, then refused with the faithful reason.
    let read = resolve_declaration(&s, &typed("b3b4")).expect("read");
    assert_eq!(read, ["Tb3-b4"]);
    assert_eq!(reason(&s, &read.join(" ")), Illegal::NoAllowance);
    let read = resolve_declaration(&s, &typed("move b3b4")).expect("read");
    assert_eq!(reason(&s, &read.join(" ")), Illegal::MoveNotAlone);
    let s = play(&s, "Move", &[1]).state;
    let read = resolve_declaration(&s, &typed("b3b4")).expect("read");
    let s = play(&s, &read.join(" "), &[]).state;
    let read = resolve_declaration(&s, &typed("Ab5-a5")).expect("read");
    assert_eq!(
        reason(&s, &read.join(" ")),
        Illegal::AllowanceSpent { allowance: 1 }
    );
}
