//! `yam generate` makes complete, legal games of every game, reproducibly,
//! and `yam check` refuses them once tampered with.

use predicates::prelude::*;
use yam_tests::yam;

fn generate(game: &str, games: &str, seed: &str) -> String {
    let out = yam!()
        .args([
            "generate",
            "--game-type",
            game,
            "--games",
            games,
            "--seed",
            seed,
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

fn check(text: &str) -> assert_cmd::assert::Assert {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.yam");
    std::fs::write(&path, text).unwrap();
    yam!().arg("check").arg(&path).assert()
}

#[test]
fn every_game_generates_legal_complete_games() {
    for game in ["khan", "castle-siege", "genghis-khan"] {
        let text = generate(game, "4", "11");
        check(&text)
            .success()
            .stdout(predicate::str::contains("4 games, 4 valid, 0 invalid"));
        assert!(
            !text.contains(" *\n"),
            "{game}: every generated game is finished"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    for game in ["khan", "castle-siege", "genghis-khan"] {
        assert_eq!(generate(game, "2", "3"), generate(game, "2", "3"), "{game}");
        assert_ne!(generate(game, "1", "3"), generate(game, "1", "4"), "{game}");
    }
}

#[test]
fn a_changed_drawn_card_is_refused() {
    let text = generate("genghis-khan", "1", "5");
    // The first Horde draw, written as another card.
    let at = text.find("1. draw:").unwrap() + "1. draw:".len();
    let end = at + text[at..].find(' ').unwrap();
    let drawn = &text[at..end];
    let other = if drawn.starts_with("10a") {
        "10b"
    } else {
        "10a"
    };
    let changed = format!("{}{other}{}", &text[..at], &text[end..]);
    check(&changed)
        .code(1)
        .stderr(predicate::str::contains("illegal"));
}

#[test]
fn a_castle_siege_game_with_a_move_out_of_turn_is_refused() {
    let text = generate("castle-siege", "1", "8");
    // Drop the first End: the Defender's turn runs into the Attacker's.
    let changed = text.replacen(" End ", " ", 1);
    check(&changed)
        .code(1)
        .stderr(predicate::str::contains("illegal"));
}

#[test]
fn parallel_checking_reports_exactly_what_one_thread_reports() {
    // Enough games for several pieces, with faults spread through them.
    let mut text = generate("khan", "1500", "21");
    for (n, at) in [(1, 300_000), (2, 1_200_000), (3, text.len() - 2_000)] {
        let i = text[..at].rfind("\n[Game").unwrap() + 1;
        let tok = text[i..].find("\n1. ").unwrap() + i + 4;
        text.replace_range(tok..tok + 1, if n == 2 { "{" } else { "Z" });
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive.yam");
    std::fs::write(&path, &text).unwrap();
    let run = |jobs: &str| {
        let out = yam!()
            .args(["check", "--jobs", jobs])
            .arg(&path)
            .assert()
            .code(1)
            .get_output()
            .clone();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let summary = stdout.split(';').next().unwrap().to_owned();
        (summary, String::from_utf8(out.stderr).unwrap())
    };
    let one = run("1");
    assert!(
        one.0.contains("1500 games, 1497 valid, 3 invalid"),
        "{}",
        one.0
    );
    assert_eq!(run("2"), one);
    assert_eq!(run("4"), one);
}

fn verify(text: &str, jobs: &str) -> assert_cmd::assert::Assert {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("signed.yam");
    std::fs::write(&path, text).unwrap();
    yam!().args(["verify", "--jobs", jobs]).arg(&path).assert()
}

fn generate_signed(games: &str, seed: &str) -> String {
    let out = yam!()
        .args([
            "generate",
            "--game-type",
            "khan",
            "--signed",
            "--max-plies",
            "40",
        ])
        .args(["--games", games, "--seed", seed])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn signed_khan_games_verify_reproducibly_and_a_changed_signature_is_refused() {
    let text = generate_signed("3", "9");
    assert_eq!(text, generate_signed("3", "9"));
    assert_ne!(text, generate_signed("3", "10"));
    for jobs in ["1", "2"] {
        verify(&text, jobs)
            .success()
            .stdout(predicate::str::contains("3 games, 3 verified,"));
    }
    // The last event's signature, one base64 letter changed: the third game fails.
    let at = text.rfind("==]").unwrap() - 3;
    let was = &text[at..at + 1];
    let changed = format!(
        "{}{}{}",
        &text[..at],
        if was == "A" { "B" } else { "A" },
        &text[at + 1..]
    );
    verify(&changed, "2")
        .code(1)
        .stdout(predicate::str::contains("3 games, 2 verified,"))
        .stdout(predicate::str::contains(
            "game 3 (gen-khan-signed-9-2): not verified",
        ));
}

#[test]
fn verify_streams_a_many_piece_archive_in_order() {
    // Plain games, unsigned: about 750 KB, three pieces; every game is
    // reported in file order, numbered across pieces, and a syntax error
    // near the end is placed on its line in the whole file.
    let some = generate("khan", "20", "12");
    let mut text = vec![some.as_str(); 30].join("\n");
    let games_before = text.matches("[Game ").count();
    let line = text.lines().count() + 3;
    text.push_str("\n[Game \"Khan\"]\n1. Ad2-d3 )\n");
    let out = verify(&text, "2").code(1).get_output().clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let numbers: Vec<usize> = stdout
        .lines()
        .filter_map(|l| l.split(": game ").nth(1))
        .filter_map(|l| l.split([' ', ':']).next())
        .filter_map(|n| n.parse().ok())
        .collect();
    assert_eq!(numbers, (1..=games_before + 1).collect::<Vec<_>>());
    assert!(
        stdout.contains(&format!(
            "{} games, 0 verified, 0 unverified practice, 1 failed, {games_before} unsigned",
            games_before + 1
        )),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(":{line}:")),
        "line {line}: {stderr}"
    );
}
