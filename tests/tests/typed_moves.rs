//! Lenient input, canonical records, at the hot seat: `yam hotseat move`
//! takes a Khan move in its short form (`Nf3`) or the engine's from-to form
//! (`e7f6`) and the record stores the long form; an ambiguous short form is
//! refused with its candidates, an impossible one with the nearest legal
//! moves, and nothing is written. (`yam move` is in `mail_play`, the
//! robot's mails in `robot_local`.)

use std::path::PathBuf;

use predicates::prelude::*;
use yam_tests::yam;

struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let s = Scratch {
            dir: tempfile::tempdir().unwrap(),
        };
        yam!()
            .args(["hotseat", "new", "--ruleset", "magician"])
            .args(["--first", "alice", "--second", "bob"])
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
        yam!()
            .args(["hotseat", "move"])
            .arg(self.path("game.yam"))
            .arg(typed)
            .arg("--secrets")
            .arg(self.path("secrets"))
            .assert()
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
    let record = s.record();
    let parsed = yam_notation::parse_record::<yam_notation::RawGrammar>(&record).unwrap();
    let line: Vec<&str> = parsed.main_line().map(|(t, _)| t.as_str()).collect();
    assert_eq!(line, ["Ng3-f3", "Ae7-f6", "Nf3-e3", "Md7-e7"]);
    yam!()
        .arg("verify")
        .arg(s.path("game.yam"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("4 moves"));
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
