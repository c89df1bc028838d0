//! Every command streams an archive one game at a time: `export --plain`
//! exports the good games around a bad one and says where the bad one is;
//! `show` and `engine export` find a game past a bad one, and never read
//! past the game they show; progress bars stay off when piped.

use std::io::Write;
use std::path::Path;

use predicates::prelude::PredicateBooleanExt;
use yam_tests::yam;

fn generate(games: &str, seed: &str) -> String {
    let out = yam!()
        .args([
            "generate",
            "--game-type",
            "khan",
            "--games",
            games,
            "--seed",
            seed,
        ])
        .args(["--max-plies", "60"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Six games with the third broken: a `$` with no NAG number before its
/// first move, a syntax error. Returns the text and the line and column
/// where the reader stops.
fn with_a_bad_third_game() -> (String, usize, usize) {
    let mut text = generate("6", "31");
    let third = text.match_indices("[Game ").nth(2).unwrap().0;
    let at = third + text[third..].find("\n1. ").unwrap() + 4;
    text.insert_str(at, "$ ");
    let line = text[..at].matches('\n').count() + 1;
    // The column just after the `$`.
    let column = at - text[..at].rfind('\n').unwrap() + 1;
    (text, line, column)
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn export_plain_exports_the_games_around_a_bad_one_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let (text, line, column) = with_a_bad_third_game();
    let path = write(dir.path(), "games.yam", &text);
    let out = dir.path().join("plain.yam");
    let run = yam!()
        .args(["export", "--plain", "-o"])
        .arg(&out)
        .arg(&path)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8(run.stderr).unwrap();
    // Where, what was found, what was expected: as `yam check` says it.
    assert!(
        stderr.contains(&format!(
            "games.yam:{line}:{column}: game 3: expected a NAG number"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "games.yam: game 3 skipped: syntax error at line {line}, column {column}, at \"Ng"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("games.yam: 5 games exported, 1 skipped"),
        "{stderr}"
    );
    let plain = std::fs::read_to_string(&out).unwrap();
    let ids: Vec<&str> = plain
        .lines()
        .filter_map(|l| l.strip_prefix("[GameId \""))
        .collect();
    assert_eq!(
        ids,
        [
            "gen-khan-31-0\"]",
            "gen-khan-31-1\"]",
            "gen-khan-31-3\"]",
            "gen-khan-31-4\"]",
            "gen-khan-31-5\"]"
        ]
    );
    // What was exported is a good archive.
    yam!()
        .arg("check")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains("5 games, 5 valid"));

    // To standard output, the same games and the same report.
    let run = yam!()
        .args(["export", "--plain"])
        .arg(&path)
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(String::from_utf8(run.stdout).unwrap(), plain);
}

#[test]
fn a_clean_export_says_how_many_games_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "games.yam", &generate("4", "32"));
    yam!()
        .args(["export", "--plain"])
        .arg(&path)
        .assert()
        .success()
        .stderr(predicates::str::ends_with(
            "games.yam: 4 games exported, 0 skipped\n",
        ));
}

#[test]
fn show_and_engine_export_find_a_game_past_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let (text, line, _) = with_a_bad_third_game();
    let path = write(dir.path(), "games.yam", &text);
    yam!()
        .args(["show", "--game", "4"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicates::str::contains("gen-khan-31-3 after"));
    yam!()
        .args(["engine", "export", "--game", "5"])
        .arg(&path)
        .assert()
        .success()
        .stdout(
            predicates::str::starts_with("ucinewgame ")
                .and(predicates::str::contains("\nposition fen ")),
        );
    // The bad game itself: its diagnostic, with its place in the file.
    for args in [&["show"][..], &["engine", "export"]] {
        yam!()
            .args(args)
            .args(["--game", "3"])
            .arg(&path)
            .assert()
            .code(1)
            .stderr(predicates::str::contains(format!("games.yam:{line}:")));
    }
    // Past the end: how many games there are.
    yam!()
        .args(["show", "--game", "7"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "there is no game 7 (the file holds 6)",
        ));
}

/// `show --game 1` reads game 1 and stops: here the rest of the input
/// does not even exist yet (a pipe whose writer waits, open, until the
/// command has finished), so a command that read the whole archive first
/// would never finish (the timeout below only turns such a hang into a
/// failure). Then the same with a regular file whose later part is
/// garbage of every kind.
#[cfg(unix)]
#[test]
fn show_reads_no_further_than_the_game_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    let game = generate("1", "33");
    let fifo = dir.path().join("endless.yam");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for args in [&["show"][..], &["engine", "export"]] {
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let writer = {
            let fifo = fifo.clone();
            let game = game.clone();
            std::thread::spawn(move || {
                let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
                // The first game, and the start of a second that never ends.
                let _ = pipe.write_all(game.as_bytes());
                let _ = pipe.write_all(b"\n[Game \"Khan\"]\n[GameId \"never\"]\n");
                let _ = pipe.flush();
                // Held open until the command is done.
                let _ = done_rx.recv();
            })
        };
        let run = yam!()
            .args(args)
            .args(["--game", "1"])
            .arg(&fifo)
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap();
        done_tx.send(()).unwrap();
        writer.join().unwrap();
        assert!(
            run.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }

    let mut bytes = game.into_bytes();
    bytes.extend_from_slice(b"\n[Game \"Khan\"]\n{ never closed \xff\xfe\x00 ");
    bytes.extend(std::iter::repeat_n(b'(', 200_000));
    bytes.extend((0..2_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    let path = dir.path().join("garbage.yam");
    std::fs::write(&path, &bytes).unwrap();
    yam!()
        .args(["show", "--game", "1"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicates::str::contains("gen-khan-33-0 after"));
}

#[test]
fn no_progress_is_printed_when_piped() {
    // Over a megabyte, so a terminal would get a bar.
    let out = yam!()
        .args([
            "generate",
            "--game-type",
            "khan",
            "--games",
            "1100",
            "--seed",
            "34",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(out.stdout.len() > 1 << 20, "{}", out.stdout.len());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
    assert!(
        stderr.starts_with("standard output: 1100 games, "),
        "{stderr:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yam");
    std::fs::write(&path, &out.stdout).unwrap();
    let run = yam!()
        .args(["export", "--plain", "-o"])
        .arg(dir.path().join("plain.yam"))
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8(run.stderr).unwrap(),
        format!("{}: 1100 games exported, 0 skipped\n", path.display())
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn bad_games_in_later_pieces_are_numbered_and_placed_as_check_places_them() {
    // About 1.3 MB: several pieces, so several workers.
    let mut text = generate("1100", "35");
    for n in [900, 300] {
        let start = text.match_indices("[Game ").nth(n - 1).unwrap().0;
        let at = start + text[start..].find("\n1. ").unwrap() + 4;
        text.insert_str(at, "$ ");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "big.yam", &text);
    let checked = yam!()
        .args(["check", "--jobs", "2"])
        .arg(&path)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let checked = String::from_utf8(checked.stderr).unwrap();
    let places = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter(|l| l.contains("big.yam:") && l.contains(": game "))
            .filter_map(|l| l.split("big.yam:").nth(1))
            .filter(|l| l.contains("expected"))
            .map(str::to_owned)
            .collect()
    };
    for jobs in ["1", "2"] {
        let run = yam!()
            .args(["export", "--plain", "--jobs", jobs])
            .arg(&path)
            .assert()
            .code(1)
            .get_output()
            .clone();
        let stderr = String::from_utf8(run.stderr).unwrap();
        assert_eq!(places(&stderr), places(&checked), "jobs {jobs}");
        assert_eq!(places(&stderr).len(), 2, "{stderr}");
        assert!(stderr.contains(": game 300 skipped"), "{stderr}");
        assert!(stderr.contains(": game 900 skipped"), "{stderr}");
        assert!(
            stderr.contains("big.yam: 1098 games exported, 2 skipped"),
            "{stderr}"
        );
        let plain = String::from_utf8(run.stdout).unwrap();
        assert_eq!(plain.matches("[Game ").count(), 1098);
        assert!(plain.starts_with("[Game "));
        assert!(!plain.contains("\n\n\n"));
    }
}

/// `-` is standard input for `show`, `engine export` and `dispute` as for
/// `check` and `export --plain` (`docs/notation.md`, "Rulesets of one's
/// own"): `yam select ... | yam show - --game 2` shows what `show FILE`
/// shows; before, each said "-: cannot open".
#[test]
fn show_engine_export_and_dispute_read_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let text = generate("3", "5");
    let file = write(dir.path(), "three.yam", &text);
    let file = file.to_str().unwrap();
    for args in [
        vec!["show", "--game", "2", "--move", "4"],
        vec!["engine", "export", "--game", "3"],
    ] {
        let from_file = yam!().args(&args).arg(file).output().unwrap();
        assert!(from_file.status.success(), "{args:?}");
        let piped = yam!()
            .args(&args)
            .arg("-")
            .write_stdin(text.clone())
            .output()
            .unwrap();
        assert!(
            piped.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&piped.stderr)
        );
        let (a, b) = (
            String::from_utf8_lossy(&from_file.stdout).into_owned(),
            String::from_utf8_lossy(&piped.stdout).into_owned(),
        );
        // The game's title line may name the file; the rest is the same.
        assert_eq!(
            a.lines().skip(1).collect::<Vec<_>>(),
            b.lines().skip(1).collect::<Vec<_>>(),
            "{args:?}"
        );
    }
    let signed = yam_tests::workspace().join("examples/khan/signed/rescue-general.yam");
    let record = std::fs::read_to_string(&signed).unwrap();
    yam!()
        .args(["dispute", "-"])
        .arg(&signed)
        .write_stdin(record)
        .assert()
        .success()
        .stdout(predicates::str::contains("no dispute"));
}
