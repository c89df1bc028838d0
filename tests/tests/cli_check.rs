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
            predicate::str::contains("after move 2 (4 plies)")
                .and(predicate::str::contains("a   b   c")),
        );
}

/// A good record of the bundled examples.
fn lesson() -> String {
    std::fs::read_to_string(yam_tests::workspace().join("examples/khan/opening-lesson.yam"))
        .unwrap()
}

/// A line of 65,536 spaces and a letter, then a good game.
fn long_line_then_a_good_game() -> String {
    format!("{}x\n\n{}", " ".repeat(65_536), lesson())
}

/// No line of a diagnostic is wider than a window of the text (the long
/// line is cut around the fault, with an ellipsis).
fn framed_around_the_column(stderr: &str) {
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains(":1:65537"), "{stderr}");
    assert!(stderr.contains('…'), "{stderr}");
    assert!(
        stderr.lines().all(|l| l.chars().count() < 200),
        "a line of the diagnostic is too wide:\n{stderr}"
    );
}

#[test]
fn a_very_long_line_is_framed_around_the_fault_by_check_verify_and_show() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.yam");
    std::fs::write(&path, long_line_then_a_good_game()).unwrap();
    let out = yam!().arg("check").arg(&path).assert().code(1);
    framed_around_the_column(&String::from_utf8_lossy(&out.get_output().stderr));
    let out = out.get_output().stdout.clone();
    assert!(
        String::from_utf8_lossy(&out).contains("2 games, 1 valid, 1 invalid (1 syntax, 0 rules)")
    );
    let out = yam!().arg("verify").arg(&path).assert().code(1);
    framed_around_the_column(&String::from_utf8_lossy(&out.get_output().stderr));
    let out = yam!().arg("show").arg(&path).assert().code(1);
    framed_around_the_column(&String::from_utf8_lossy(&out.get_output().stderr));
}

#[test]
fn verify_of_a_directory_goes_on_after_a_file_with_a_very_long_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.yam"), long_line_then_a_good_game()).unwrap();
    std::fs::copy(
        yam_tests::workspace().join("examples/khan/signed/magician.yam"),
        dir.path().join("b.yam"),
    )
    .unwrap();
    yam!()
        .arg("verify")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("b.yam: 1 game, 1 verified")
                .and(predicate::str::contains("total: 3 games, 1 verified")),
        )
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn quiet_prints_no_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yam");
    let good = lesson();
    let bad = good.replacen("Ae7-f6", "Ae7-f4", 1);
    std::fs::write(&path, format!("{bad}\n{}", long_line_then_a_good_game())).unwrap();
    for command in ["check", "verify"] {
        yam!()
            .args([command, "--quiet"])
            .arg(&path)
            .assert()
            .code(1)
            .stderr("");
    }
}

#[test]
fn a_fault_deep_in_a_large_archive_is_framed_with_its_own_line() {
    // Many pieces of work: the frame is taken from the piece that holds the
    // game, and must show the file's line at the file's line number.
    let good = lesson();
    let mut text = String::new();
    for _ in 0..2000 {
        text.push_str(&good);
        text.push('\n');
    }
    text.push_str(&good.replacen("Ae7-f6", "Ae7-f4", 1));
    assert!(text.len() > 1 << 20, "several pieces");
    let line = text[..text.find("Ae7-f4").unwrap()].matches('\n').count() + 1;
    let shown = text.lines().nth(line - 1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yam");
    std::fs::write(&path, &text).unwrap();
    yam!().arg("check").arg(&path).assert().code(1).stderr(
        predicate::str::contains(format!("big.yam:{line}:"))
            .and(predicate::str::contains(format!("{line} │ {shown}")))
            .and(predicate::str::contains("game 2001")),
    );
}

#[test]
fn variations_nested_too_deep_are_refused_with_the_limit_and_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.yam");
    let good = lesson();
    let header_end = good.find("\n\n").unwrap() + 2;
    let header = &good[..header_end];
    let line = header.matches('\n').count() + 1;
    let deep = format!("{header}1. Ng3-f3 {}\n", "(".repeat(1_000_000));
    std::fs::write(&path, format!("{deep}\n{good}")).unwrap();
    for command in ["check", "verify"] {
        yam!().arg(command).arg(&path).assert().code(1).stderr(
            predicate::str::contains("variations nest more than 256 deep")
                .and(predicate::str::contains(format!("deep.yam:{line}:267"))),
        );
    }
}

#[test]
fn a_directory_without_records_is_said_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("games.pgn"), "[Event \"?\"]\n").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/notes.txt"), "").unwrap();
    for command in ["check", "verify"] {
        yam!().arg(command).arg(dir.path()).assert().code(2).stderr(
            predicate::str::contains("no .yam record below this directory")
                .and(predicate::str::contains("skipped 2 other files"))
                .and(predicate::str::contains("games.pgn")),
        );
    }
    let site = dir.path().join("site");
    yam!()
        .args(["export", "--html", "--out"])
        .arg(&site)
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no .yam record"));
    assert!(!site.join("index.html").exists());
}

#[test]
fn the_yam_extension_counts_in_any_case_and_skipped_files_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("GAME.YAM"), lesson()).unwrap();
    std::fs::write(dir.path().join("other.pgn"), "").unwrap();
    yam!()
        .arg("check")
        .arg(dir.path())
        .assert()
        .code(0)
        .stdout(predicate::str::contains("GAME.YAM: 1 game, 1 valid").and(
            predicate::str::contains("total: 1 game, 1 valid, 0 invalid (0 syntax, 0 rules)"),
        ))
        .stdout(predicate::str::contains(
            "in 1 file; 1 other file skipped (not a .yam record)",
        ));
}

#[test]
fn a_file_without_a_game_is_said_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.yam");
    std::fs::write(&path, "\n").unwrap();
    for command in ["check", "verify"] {
        yam!()
            .arg(command)
            .arg(&path)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("empty.yam: no game in this file"));
    }
    yam!()
        .args(["export", "--html", "--out"])
        .arg(dir.path().join("site"))
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("empty.yam: no game in this file"));
}

#[test]
fn several_files_end_with_a_grand_total() {
    let dir = tempfile::tempdir().unwrap();
    let good = lesson();
    let bad = good.replacen("Ae7-f6", "Ae7-f4", 1);
    std::fs::write(dir.path().join("a.yam"), format!("{good}\n{bad}")).unwrap();
    std::fs::write(dir.path().join("b.yam"), &good).unwrap();
    yam!()
        .arg("check")
        .arg(dir.path().join("a.yam"))
        .arg(dir.path().join("b.yam"))
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("total: 3 games, 2 valid, 1 invalid (1 syntax, 0 rules)")
                .not(),
        )
        .stdout(predicate::str::contains(
            "total: 3 games, 2 valid, 1 invalid (0 syntax, 1 rules)",
        ))
        .stdout(predicate::str::contains("in 2 files"));
    // One file named: no total.
    yam!()
        .arg("check")
        .arg(dir.path().join("b.yam"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("total:").not());
}

#[test]
fn show_into_a_pipe_closed_early_does_not_panic() {
    // `true` exits at once: the diagram goes into a closed pipe.
    let bin = yam_tests::yam_bin!();
    for file in [
        "examples/khan/opening-lesson.yam",
        "examples/castle-siege/round-cap.yam",
        "examples/genghis-khan/practice.yam",
    ] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("'{}' show {file} | true", bin.display()))
            .current_dir(yam_tests::workspace())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{file}: {stderr}");
    }
}

/// A game whose rules cannot be applied from its text alone is not called
/// valid: it says why, and the summary counts it apart.
#[test]
fn a_game_checked_for_syntax_only_is_not_counted_valid() {
    let out = yam!()
        .args(["check", "examples/genghis-khan/director-sam-1.yam"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("syntax checked; rules not checked: the Foe layout and the draws"),
        "{stderr}"
    );
    assert!(
        stdout.contains("1 game, 0 valid, 1 syntax-checked only (rules not checked), 0 invalid"),
        "{stdout}"
    );
}

#[test]
fn a_game_dealt_from_physical_cards_is_said_to_be_checked_from_its_recorded_deal() {
    let dealt = "examples/genghis-khan/dealt-by-hand.yam";
    yam!()
        .args(["check", dealt])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "1 game, 1 valid, 0 invalid (0 syntax, 0 rules), 221 plies, 1 rules-checked from a recorded deal",
        ))
        .stderr(
            predicate::str::contains(
                "game 1 (example-genghis-dealt-by-hand): rules checked from the recorded deal",
            )
            .and(predicate::str::contains("practice seed").not()),
        );
    // Under --quiet, the summary only.
    yam!()
        .args(["check", "--quiet", dealt])
        .assert()
        .code(0)
        .stderr("");
    // verify has no evidence to verify, and gives check's verdict.
    yam!().args(["verify", dealt]).assert().code(0).stdout(
        predicate::str::contains(
            "unsigned, no evidence to verify; rules checked from the recorded deal",
        )
        .and(predicate::str::contains(
            "0 failed, 0 unsigned, 1 rules-checked from a recorded deal",
        )),
    );
}

/// Adversary: a reader whose editor saved a record as "Unicode" (UTF-16
/// with a byte-order mark), or any file whose first bytes are not UTF-8.
/// docs/notation.md (Encoding): UTF-8 only, "anything else is an error with
/// its position", and section 9 lists "invalid UTF-8" among the errors;
/// the same bytes in a comment are reported as `invalid UTF-8`. At the
/// start of a file they are reported as `expected a tag pair such as [Game
/// "Khan"]` beside a line that visibly holds `[ G a m e ...`, which sends
/// the user looking for a missing tag instead of converting the file.
#[test]
fn a_utf16_record_is_said_to_be_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = vec![0xFF, 0xFE];
    for unit in lesson().encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    let path = dir.path().join("unicode.yam");
    std::fs::write(&path, bytes).unwrap();
    yam!()
        .arg("check")
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unicode.yam:1:1"))
        .stderr(predicate::str::contains("UTF-8").or(predicate::str::contains("UTF-16")));
}

/// Adversary: real life over decades. docs/notation.md: "Encoding: UTF-8,
/// with or without a byte-order mark", and section 7: "An archive is games
/// one after another". Editors on Windows save each record with a BOM, and
/// an archive is made the usual way, `cat a.yam b.yam > archive.yam`: the
/// second record's BOM then stands where its game begins. Every game after
/// the first was refused ("expected a tag pair such as [Game ...]" beside
/// a line that visibly holds one), and the resumed reading counted a third
/// game, "missing required tags: Game", out of the second's header.
#[test]
fn an_archive_of_records_saved_with_a_byte_order_mark_reads_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let first = format!("\u{feff}{}", lesson());
    let second = format!(
        "\u{feff}{}",
        lesson().replacen("example-khan-opening-lesson", "second-lesson", 1)
    );
    let path = dir.path().join("archive.yam");
    std::fs::write(&path, format!("{first}{second}")).unwrap();
    yam!()
        .arg("check")
        .arg(&path)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("2 games, 2 valid"));
}

/// Adversary: real life, as above: a record cut short (a mail client that
/// dropped its last line, an editor that crashed) joined with `cat` to a
/// record saved with a byte-order mark. docs/notation.md, section 7: a
/// line that begins with a mark then `[` and a letter is a tag line, and
/// "when the error is that a game's header began before the previous game
/// ended (missing result, unterminated comment or variation), that header
/// is where reading resumes, so the next game is read normally". The
/// movetext reader looks for `[` and a letter at the line's start only:
/// the mark is read as a bad move, reading resumes after the next game's
/// header (its first line counts as a tag line, so the lines after it
/// are not a game start), and the second game is never reported at all:
/// `yam check` says "1 game" of an archive of two (and names the mark "not
/// a valid move"), while the splitter's rule (`tag_line_start`) takes the
/// line for a game start, so a parallel reading cut there finds both.
#[test]
fn a_game_with_a_byte_order_mark_after_a_game_missing_its_result_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let first = lesson().replacen("Nb6-c6 *\n", "Nb6-c6\n", 1);
    assert_ne!(first, lesson());
    let second = format!(
        "\u{feff}{}",
        lesson().replacen("example-khan-opening-lesson", "second-lesson", 1)
    );
    let path = dir.path().join("archive.yam");
    std::fs::write(&path, format!("{first}\n{second}")).unwrap();
    let out = yam!()
        .args(["check", "--jobs", "1"])
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("2 games, 1 valid"),
        "the second game, after a game missing its result, is lost:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Adversary: whoever hands an archive to `yam show`, `export` or `fmt`
/// (a tournament site's upload). docs/notation.md, section 10: "A game is
/// at most 16 MiB ... the reader stops reading a game past 16 MiB of
/// header and movetext, an error naming the limit ... a game fails within
/// 64 KiB past it." Many comments adding up to 20 MB are refused so, and
/// so is a giant tag, but one comment of 17 MiB (any size up to the 64 MiB
/// element limit) is read whole and the game called valid: a 60 MB comment
/// took 391 MB for `yam export --plain` (the 16 MiB bound exists to stop
/// exactly this).
#[test]
fn one_giant_comment_does_not_pass_the_game_limit() {
    let dir = tempfile::tempdir().unwrap();
    let header = lesson().split("\n\n").next().unwrap().to_owned();
    let comment = "x".repeat(17 << 20);
    let path = dir.path().join("giant.yam");
    std::fs::write(&path, format!("{header}\n\n1. Ng3-f3 {{{comment}}} *\n")).unwrap();
    yam!()
        .args(["check", "--quiet"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("1 invalid"));
    yam!()
        .arg("check")
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("16 MiB"));
}

/// Adversary: an opponent or an archive's contributor, whose record a
/// director checks in a terminal. Attack: terminal control sequences in a
/// comment on the line of an illegal move (`{ESC]2;...BEL ESC[2J}`), which
/// the notation accepts as comment text. The diagnostic frames the line
/// around the fault and copies those bytes raw to standard error, so the
/// record can clear the screen, retitle the window or, with cursor moves,
/// paint over the verdict (an `invalid` that reads as `valid`). Control
/// characters in echoed record text must be shown escaped (or replaced).
#[test]
fn a_diagnostic_never_echoes_terminal_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = lesson().replacen(
        "{The assassin slides one square; it may slide two.} Ae7-f6",
        "{\u{1b}]2;PWNED\u{7}\u{1b}[2J\u{1b}[1A} Ae7-f4",
        1,
    );
    assert_ne!(hostile, lesson());
    let path = dir.path().join("hostile.yam");
    std::fs::write(&path, hostile).unwrap();
    let out = yam!().arg("check").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Ae7-f4"), "{stderr}");
    assert!(
        !out.stderr.iter().any(|&b| b == 0x1b || b == 0x07),
        "control characters of the record reach the terminal raw: {stderr:?}"
    );
}

/// Adversary: the same opponent, against the same director. Attack: the
/// comment on the line of the illegal move hides text in the invisible
/// characters `diagnostics::visible` does not list: the tag characters
/// U+E0001..U+E007F (drawn as nothing, whatever they spell) and U+061C
/// ARABIC LETTER MARK, a bidirectional mark like U+200F, which `visible`
/// does map. `visible` promises every character that reorders or hides
/// text replaced by U+FFFD; these reach standard error as they stand.
#[test]
fn a_diagnostic_never_echoes_tag_characters_or_the_arabic_letter_mark() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = lesson().replacen(
        "{The assassin slides one square; it may slide two.} Ae7-f6",
        "{legal\u{E0001}\u{E0020}\u{E0041}\u{E007F} \u{061C}move} Ae7-f4",
        1,
    );
    assert_ne!(hostile, lesson());
    let path = dir.path().join("hostile.yam");
    std::fs::write(&path, hostile).unwrap();
    let out = yam!().arg("check").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Ae7-f4"), "{stderr}");
    let hidden = yam_tests::tag_characters_and_letter_marks(&stderr);
    assert!(
        hidden.is_empty(),
        "invisible characters of the record reach the terminal raw: {hidden:?}\n{stderr:?}"
    );
}

/// The bytes that let a terminal be driven (ESC, BEL): none may reach it
/// from a name the user did not choose (an archive unpacked from mail).
fn raw_control(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| b == 0x1b || b == 0x07)
}

#[test]
fn a_file_name_with_an_escape_sequence_is_not_echoed_raw_in_the_frame() {
    // docs/notation.md: what a diagnostic echoes is made safe for a
    // terminal. The diagnostic's title shows the file name with control
    // pictures (`esc␛]2;PWNED␇.yam:1:12`), but its frame label
    // (`╭─[esc\x1b]2;PWNED\x07.yam:1:12]`) and the summary line print it
    // raw: the escape retitles the window.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("esc\u{1b}]2;PWNED\u{7}.yam");
    std::fs::write(&path, lesson().replacen("Ae7-f6", "Ae7-f4", 1)).unwrap();
    for command in ["check", "verify", "show", "fmt", "select"] {
        let out = yam!().arg(command).arg(&path).output().unwrap();
        // `fmt` and `select` read the moves' syntax only: the illegal move
        // is no fault of theirs, but their summaries name the file too.
        if !matches!(command, "fmt" | "select") {
            assert_eq!(out.status.code(), Some(1), "{command}");
        }
        // `verify` says what it found of an unsigned record on standard
        // output; the others' diagnostics go to standard error.
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // (`select` names no file when all goes well.)
        assert!(
            command == "select" || said.contains("PWNED"),
            "{command}: {said}"
        );
        assert!(
            !raw_control(&out.stderr) && (command == "fmt" || !raw_control(&out.stdout)),
            "{command}: the file name reaches the terminal raw: {said:?}"
        );
    }
    let out = yam!().arg("check").arg(&path).output().unwrap();
    assert!(
        !raw_control(&out.stdout),
        "check's summary prints the file name raw: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn warnings_and_io_errors_do_not_echo_control_characters_of_a_path() {
    // A path that cannot be opened, and a file without a game: the
    // message names the path, but with its escape sequence and line break
    // made visible, not sent raw to the terminal (the diagnostics' rule,
    // docs/notation.md, applies to every message that echoes a name).
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gone\u{1b}[2J.yam");
    let empty = dir.path().join("empty\u{1b}[2J\nwarning: all good.yam");
    std::fs::write(&empty, "").unwrap();
    for command in ["check", "verify", "show", "fmt", "select"] {
        let out = yam!().arg(command).arg(&missing).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("gone"), "{command}: {stderr}");
        assert!(
            !raw_control(&out.stderr),
            "{command}: an unopenable path is echoed raw: {stderr:?}"
        );
    }
    for command in ["check", "verify"] {
        let out = yam!().arg(command).arg(&empty).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !raw_control(&out.stderr) && !stderr.contains("\nwarning: all good"),
            "{command}: the warning echoes the path raw (ESC, a forged line): {stderr:?}"
        );
    }
}

#[test]
fn hotseat_status_of_invalid_utf8_is_invalid_input_with_its_place() {
    // `check`, `show`, `dispute` call a record with bytes that are not
    // UTF-8 invalid (exit 1) at `file:1:12`; `hotseat status` of the same
    // file says "cannot read: stream did not contain valid UTF-8" and
    // exits 2 as if the disk had failed, with no line or column, though a
    // syntax error in the same command is exit 1 with its place
    // (cli/src/error.rs: 1 for invalid input, 2 for usage or I/O).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yam");
    std::fs::write(&path, b"[Game \"Khan\xff\"]\n").unwrap();
    let check = yam!().arg("check").arg(&path).output().unwrap();
    assert_eq!(check.status.code(), Some(1));
    let out = yam!()
        .args(["hotseat", "status"])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("bad.yam:1:12"), "{stderr}");
}
