//! `yam engine`: a game traded with the innersky engine survives the trip.

use predicates::prelude::*;
use yam_tests::yam;

#[test]
fn export_then_import_gives_the_same_game() {
    let out = yam!()
        .args(["engine", "export", "examples/khan/opening-lesson.yam"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let line = String::from_utf8(out).unwrap();
    assert!(
        line.starts_with(
            "ucinewgame bondsmenLeaders 1 basePromotions 1 swordsCaptureMounts 0 \
             magicianDemotesKhan 1 magicianExtendedDemotionSqs 0 board magician\n\
             position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves g3f3"
        ),
        "{line}"
    );

    let record = yam!()
        .args([
            "engine",
            "import",
            "--ruleset",
            "magician",
            "--white",
            "Ann",
            "--black",
            "Bo",
            line.trim(),
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("[Variant \"Magician\"]")
                .and(predicate::str::contains("1. Ng3-f3 Ae7-f6")),
        )
        .get_output()
        .stdout
        .clone();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("imported.yam");
    std::fs::write(&path, &record).unwrap();
    yam!().arg("check").arg(&path).assert().success();
    yam!()
        .args(["engine", "export"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::eq(line));
}

#[test]
fn an_illegal_engine_move_is_refused_with_its_number() {
    yam!()
        .args([
            "engine",
            "import",
            "position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves g3f3 e7e3",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("engine move 2 (e7e3) is illegal"));
}

#[test]
fn a_malformed_engine_line_points_at_the_fault() {
    yam!()
        .args([
            "engine",
            "import",
            "position fen wfwwa3/wksma3 w 0 1 moves g3f3",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("expected"));
}
