//! Lenient input, canonical records, at the hot seat: `yam hotseat move`
//! takes a Khan move in its short form (`Nf3`) or the engine's from-to form
//! (`e7f6`) and the record stores the long form; an ambiguous short form is
//! refused with its candidates, an impossible one with the nearest legal
//! moves, and nothing is written. Castle Siege orders and Genghis Khan
//! captures take their short forms the same way. (`yam move` is in
//! `mail_play`, the robot's mails in `robot_local`.)

use std::path::PathBuf;

use predicates::prelude::*;
use yam_tests::yam;

struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch::with(&[
            "--ruleset",
            "magician",
            "--first",
            "alice",
            "--second",
            "bob",
        ])
    }

    /// A new hot-seat game `game.yam` started with `args`.
    fn with(args: &[&str]) -> Scratch {
        let s = Scratch {
            dir: tempfile::tempdir().unwrap(),
        };
        yam!()
            .args(["hotseat", "new"])
            .args(args)
            .args(["--date", "2026.12.01", "--id", "typed-1", "--out"])
            .arg(s.path("game.yam"))
            .arg("--secrets")
            .arg(s.path("secrets"))
            .assert()
            .success();
        s
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn play(&self, typed: &str) -> assert_cmd::assert::Assert {
        self.turn(&[typed])
    }

    /// `yam hotseat move game.yam ARGS`.
    fn turn(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        yam!()
            .args(["hotseat", "move"])
            .arg(self.path("game.yam"))
            .args(args)
            .arg("--secrets")
            .arg(self.path("secrets"))
            .assert()
    }

    fn main_line(&self) -> Vec<String> {
        let record = self.record();
        let parsed = yam_notation::parse_record::<yam_notation::RawGrammar>(&record).unwrap();
        parsed.main_line().map(|(t, _)| t.clone()).collect()
    }

    fn record(&self) -> String {
        std::fs::read_to_string(self.path("game.yam")).unwrap()
    }
}

#[test]
fn short_and_from_to_moves_are_recorded_in_long_form() {
    let s = Scratch::new();
    s.play("Nf3")
        .success()
        .stdout(predicate::str::contains("white (alice) played Ng3-f3"));
    s.play("e7f6")
        .success()
        .stdout(predicate::str::contains("black (bob) played Ae7-f6"));
    // The long form still works, and so does a short form with its mark.
    s.play("Nf3-e3").success();
    s.play("M-e7")
        .success()
        .stdout(predicate::str::contains("black (bob) played Md7-e7"));
    assert_eq!(s.main_line(), ["Ng3-f3", "Ae7-f6", "Nf3-e3", "Md7-e7"]);
    yam!()
        .arg("verify")
        .arg(s.path("game.yam"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("4 plies"));
}

#[test]
fn an_ambiguous_or_impossible_move_is_refused_with_the_moves_it_could_be() {
    let s = Scratch::new();
    let before = s.record();
    // Both archers on g4 and h4 can step to g5.
    s.play("Ag5").code(1).stderr(predicate::str::contains(
        "`Ag5` could be any of Ag4-g5, Ah4-g5",
    ));
    // No assassin reaches f5: its own moves are offered.
    s.play("Nf5").code(1).stderr(
        predicate::str::contains("no legal move is `Nf5`; the nearest legal moves:")
            .and(predicate::str::contains("Ng3-f3"))
            .and(predicate::str::contains("Ng3-e3")),
    );
    // A long form names its move, so the rules say why.
    s.play("Wd2-d3").code(1).stderr(predicate::str::contains(
        "the piece on d2 is an archer, not a warrior",
    ));
    s.play("x9").code(1).stderr(predicate::str::contains(
        "cannot read `x9`: expected a Khan move",
    ));
    assert_eq!(s.record(), before);
    s.play("Agg5")
        .success()
        .stdout(predicate::str::contains("white (alice) played Ag4-g5"));
}

#[test]
fn castle_siege_orders_are_typed_short_and_recorded_whole() {
    let s = Scratch::with(&[
        "--game-type",
        "castle-siege",
        "--ruleset",
        "standard",
        // CS-P1: a whole turn typed as one declaration.
        "--turn",
        "priority-list",
        "--first",
        "ann",
        "--second",
        "bo",
    ]);
    for (setup, who) in [
        ("Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK", "bo"),
        ("Defender:CKAO/OACK/KCOA/AOKC", "ann"),
        ("reveal", "ann"),
        ("reveal", "bo"),
    ] {
        s.turn(&[setup, "--as", who]).success();
    }
    // The unit types come from the squares, keywords in any case.
    s.turn(&["move", "d6c6", "attack", "d4xa1", "end", "--dry-run"])
        .success()
        .stdout(predicate::str::contains(
            "would request roll 0 declaring: Move Kd6-c6 Attack Cd4xKa1 End",
        ));
    // An order several units fit is refused with them: a unit type and a
    // target that two legal orders share, found in the position.
    let state = replay_of(&s).game().builtin().and_then(|b| match b {
        yam_referee::replay::BuiltinReplay::CastleSiege(c) => c.state().cloned(),
        _ => None,
    });
    let legal = yam_referee::castle_siege::legal_orders(&state.expect("a position"));
    let short = |o: &yam_referee::castle_siege::Order| {
        let t = o.to_string();
        // `Kd6-c6` -> `K-c6`, `Cd4xKa1` -> `CxKa1`, `Rb4#c4` -> `R#c4`.
        format!("{}{}", &t[..1], &t[3..])
    };
    let typed = legal
        .iter()
        .map(short)
        .find(|t| legal.iter().filter(|o| short(o) == *t).count() > 1)
        .expect("an ambiguous short order");
    let phase = match typed.as_bytes()[1] {
        b'-' => "Move",
        b'#' => "Breach",
        _ => "Attack",
    };
    s.turn(&[phase, &typed, "End"])
        .code(1)
        .stderr(predicate::str::contains(format!(
            "`{typed}` could be any of"
        )));
    s.turn(&["move", "d6c6", "attack", "d4xa1", "end"])
        .success()
        .stdout(predicate::str::contains("defender (ann) played Move@"));
    let line = s.main_line();
    assert!(line.iter().any(|t| t == "Kd6-c6"), "{line:?}");
    assert!(line.iter().any(|t| t.starts_with("Cd4xKa1")), "{line:?}");
    yam!()
        .arg("verify")
        .arg(s.path("game.yam"))
        .assert()
        .code(0);
}

fn replay_of(s: &Scratch) -> yam_referee::signed::SignedReplay {
    let games = yam_cli::game::record::read_signed(s.record().as_bytes()).unwrap();
    let signed = games.into_iter().next().unwrap().unwrap();
    yam_referee::signed::replay_text(&signed, &yam_referee::replay::Builtin).unwrap()
}

#[test]
fn a_genghis_khan_capture_is_typed_without_its_foe_card() {
    use yam_referee::genghis_khan::greedy::cheapest_payment;
    let s = Scratch::with(&[
        "--game-type",
        "genghis-khan",
        "--ruleset",
        "standard",
        "--first",
        "pat",
        "--director",
        "dora",
    ]);
    s.play("pay:cav")
        .code(1)
        .stderr(predicate::str::contains("no Foe with cards is attacked"));
    for _ in 0..5 {
        s.play("draw").success();
    }
    // The hand and the rows, as the record shows them.
    let games = yam_cli::game::record::read_signed(s.record().as_bytes()).unwrap();
    let signed = games.into_iter().next().unwrap().unwrap();
    let replay = yam_referee::signed::replay_text(&signed, &yam_referee::replay::Builtin).unwrap();
    let state = yam_referee::autoplay::cards(&replay)
        .and_then(|c| c.state())
        .unwrap()
        .clone();
    // The Foe the greedy player attacks, its top card paid for by names.
    // (Should five cards pay for no top card, which the greedy player then
    // says by passing, there is nothing to capture.)
    let Some(yam_referee::genghis_khan::Action::Attack(deck)) =
        yam_referee::genghis_khan::greedy::greedy_action(&state)
    else {
        return;
    };
    let top = state.top(deck).unwrap();
    let payment = cheapest_payment(state.hand(), u32::from(top.force())).unwrap();
    let names: Vec<String> = payment
        .iter()
        .map(|c| format!("\"{}\"", c.name().to_lowercase()))
        .collect();
    let attack = format!("attack:{}", deck.letter());
    let pay = format!("pay:{}", names.join("+"));
    s.turn(&[&attack, &pay]).success();
    let line = s.main_line();
    let captured = line.last().unwrap();
    assert!(
        captured.starts_with(&format!("capture:{}/", top.code())),
        "{line:?}"
    );
    yam!()
        .arg("verify")
        .arg(s.path("game.yam"))
        .assert()
        .code(0);
}
