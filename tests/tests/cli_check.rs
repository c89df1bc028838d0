//! `yam check` end to end: exit codes, summaries, errors with positions.

use predicates::prelude::*;
use yam_tests::yam;

#[test]
fn version_and_help() {
    yam!()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("yam "));
    yam!()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("check").and(predicate::str::contains("Exit codes")));
}

#[test]
fn the_bundled_examples_are_valid() {
    yam!()
        .args(["check", "examples"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("0 invalid"));
}

#[test]
fn an_illegal_move_is_named_with_its_place_and_reason() {
    let dir = tempfile::tempdir().unwrap();
    let good =
        std::fs::read_to_string(yam_tests::workspace().join("examples/khan/opening-lesson.yam"))
            .unwrap();
    let bad = good.replacen("Ae7-f6", "Ae7-f4", 1);
    let path = dir.path().join("bad.yam");
    std::fs::write(&path, format!("{good}\n{bad}\n{good}")).unwrap();
    yam!()
        .arg("check")
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "3 games, 2 valid, 1 invalid (0 syntax, 1 rules)",
        ))
        .stderr(
            predicate::str::contains("bad.yam:34:63")
                .and(predicate::str::contains("game 2"))
                .and(predicate::str::contains("Ae7-f4"))
                .and(predicate::str::contains("cannot reach f4"))
                .and(predicate::str::contains("position before it:")),
        );
}

#[test]
fn a_syntax_error_does_not_stop_the_archive() {
    let dir = tempfile::tempdir().unwrap();
    let good =
        std::fs::read_to_string(yam_tests::workspace().join("examples/khan/opening-lesson.yam"))
            .unwrap();
    let bad = good.replacen("{The assassin", "{\\q The assassin", 1);
    let path = dir.path().join("bad.yam");
    std::fs::write(&path, format!("{bad}\n{good}")).unwrap();
    yam!()
        .arg("check")
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "2 games, 1 valid, 1 invalid (1 syntax, 0 rules)",
        ))
        .stderr(
            predicate::str::contains("bad escape").and(predicate::str::contains("bad.yam:15:12")),
        );
}

#[test]
fn a_missing_file_is_a_usage_error() {
    yam!()
        .args(["check", "no/such/file.yam"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot open"));
}

#[test]
fn show_draws_the_position_after_a_move() {
    yam!()
        .args(["show", "examples/khan/opening-lesson.yam", "--move", "2..."])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("after 4 moves").and(predicate::str::contains("a   b   c")),
        );
}
