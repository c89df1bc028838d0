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

/// The main line's move tokens, as the record writes them.
fn moves_of(record: &str) -> Vec<String> {
    let record = yam_notation::parse_record::<yam_notation::khan::KhanGrammar>(record)
        .unwrap_or_else(|e| panic!("{e}\n{record}"));
    record
        .movetext
        .iter()
        .filter_map(|n| match n {
            yam_notation::Node::Move(m, _) => Some(m.to_string()),
            _ => None,
        })
        .collect()
}

fn stdout_of(assert: assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

fn stderr_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stderr.clone()).unwrap()
}

/// Issue #20: a generated game of every Khan game type goes out to the
/// engine's lines and comes back move for move, and the record written
/// checks. With `--exact` every game comes back whole; without it the moves
/// that would come back as others are each named in a warning.
#[test]
fn a_generated_game_of_every_game_type_comes_back_move_for_move() {
    let dir = tempfile::tempdir().unwrap();
    let mut warned = 0;
    for ruleset in [
        "basic",
        "magician",
        "power-magician",
        "rescue-general",
        "rescue-khan",
    ] {
        for seed in ["3", "11", "29"] {
            let original = dir.path().join(format!("{ruleset}-{seed}.yam"));
            yam!()
                .args(["generate", "--game-type", "khan", "--ruleset", ruleset])
                .args(["--games", "1", "--seed", seed, "-o"])
                .arg(&original)
                .assert()
                .success();
            let board = ruleset.replace('-', "");
            let lines = stdout_of(
                yam!()
                    .args(["engine", "export", "--exact"])
                    .arg(&original)
                    .assert()
                    .success(),
            );
            assert!(
                lines
                    .lines()
                    .next()
                    .unwrap()
                    .ends_with(&format!(" board {board}")),
                "{lines}"
            );
            // The standard start travels as the short FEN, siege games too.
            assert!(!lines.contains("towers="), "{lines}");
            let imported = stdout_of(
                yam!()
                    .args(["engine", "import"])
                    .write_stdin(lines.clone())
                    .assert()
                    .success(),
            );
            let text = std::fs::read_to_string(&original).unwrap();
            let want = moves_of(&text);
            assert!(want.len() > 20, "{ruleset}: a short game");
            assert_eq!(moves_of(&imported), want, "{ruleset}");
            assert!(
                imported.contains(&format!("[Ruleset \"{ruleset}\"]")),
                "{imported}"
            );
            // The standard start needs no Position tag: the ruleset's is the game's.
            assert!(!imported.contains("[Position"), "{imported}");
            let back = dir.path().join(format!("{ruleset}-{seed}-back.yam"));
            std::fs::write(&back, &imported).unwrap();
            yam!().arg("check").arg(&back).assert().success();
            yam!()
                .args(["engine", "export", "--exact"])
                .arg(&back)
                .assert()
                .success()
                .stdout(predicate::eq(lines.clone()));

            // The engine's own form: the same strings less the marks, and a
            // warning naming each move whose string is read back as another.
            let plain = yam!()
                .args(["engine", "export"])
                .arg(&original)
                .assert()
                .success();
            let err = stderr_of(&plain);
            let marked = lines
                .split(" moves ")
                .nth(1)
                .unwrap_or("")
                .split_whitespace()
                .filter(|w| w.len() > 4)
                .count();
            let named = err
                .lines()
                .filter(|l| l.starts_with("warning: move "))
                .count();
            assert_eq!(named, marked, "{ruleset}: {err}");
            warned += named;
            assert!(!stdout_of(plain).contains(['*', '>']));
        }
    }
    assert!(
        warned > 0,
        "no generated game had a move the bare string misreads"
    );
}

/// Issue #20: `yam engine import` of a Rescue General line exported from the
/// standard start used to fail with "cannot reach": the board type now names
/// the siege start, towers and all.
#[test]
fn a_siege_game_is_imported_from_its_towers() {
    let record = stdout_of(
        yam!()
            .args([
                "engine",
                "import",
                "ucinewgame board rescuegeneral",
                // e3d4 is the magician's spell silencing the manned tower
                // square d4, which it cannot reach by moving (KR-P1).
                "position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves e2e3 b6c6 e3d4",
            ])
            .assert()
            .success(),
    );
    assert!(record.contains("[Variant \"Rescue General\"]"), "{record}");
    assert!(record.contains("2. Me3*d4"), "{record}");
    assert!(!record.contains("[Position"), "{record}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("general.yam");
    std::fs::write(&path, &record).unwrap();
    yam!().arg("check").arg(&path).assert().success();
    // On the magician board there is no tower: the same string is a
    // diagonal step, which a magician cannot make.
    yam!()
        .args([
            "engine",
            "import",
            "position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves e2e3 b6c6 e3d4",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("engine move 3 (e3d4) is illegal"));
}

/// A siege position other than the standard start travels with Yam's siege
/// fields after the FEN; without them its siege state is unknown, and the
/// import says so rather than guess.
#[test]
fn a_custom_siege_start_travels_in_siege_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("custom.yam");
    let position = "wfwwa3/w1sha3/wn6/aa6/6AA/6NW/3AHS1W/3AWWFW w 0 1 \
                    towers=h5h6h7:wk,a2a3a4:bk manned=a2a3a4h5h6 gers=a1:w,h8:b";
    std::fs::write(
        &path,
        format!(
            "[Game \"Khan\"]\n[Variant \"Rescue Khan\"]\n[GameId \"custom\"]\n[Date \"????.??.??\"]\n\
             [White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n\
             [Ruleset \"rescue-khan\"]\n[Position \"{position}\"]\n\n1. Ng3-g2 *\n"
        ),
    )
    .unwrap();
    let out = yam!()
        .args(["engine", "export"])
        .arg(&path)
        .assert()
        .success();
    assert!(stderr_of(&out).contains("not the standard rescue-khan start"));
    let lines = stdout_of(out);
    assert!(
        lines.contains(&format!("position fen {position} startpos moves g3g2")),
        "{lines}"
    );
    yam!()
        .args(["engine", "import"])
        .write_stdin(lines.clone())
        .assert()
        .success()
        .stdout(
            predicate::str::contains(format!("[Position \"{position}\"]"))
                .and(predicate::str::contains("1. Ng3-g2")),
        );
    // The FEN alone, not the standard start's: refused, naming both FENs.
    let bare = lines.replace(
        " towers=h5h6h7:wk,a2a3a4:bk manned=a2a3a4h5h6 gers=a1:w,h8:b",
        "",
    );
    let bare = bare
        .replace(" w 0 1 startpos", " b 0 1 startpos")
        .replace("g3g2", "b5b4");
    yam!()
        .args(["engine", "import"])
        .write_stdin(bare)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("the rescue-khan FEN `wfwwa3/w1sha3/wn6/aa6/6AA/6NW/3AHS1W/3AWWFW b 0 1` is not the game's standard start")
                .and(predicate::str::contains("no siege fields")),
        );
}

/// The board line, both ways: export writes it from the ruleset; import maps
/// its options to the ruleset's and refuses what it cannot record.
#[test]
fn the_board_line_is_written_and_read() {
    yam!()
        .args(["engine", "export", "examples/khan/signed/rescue-khan.yam"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "ucinewgame bondsmenLeaders 1 basePromotions 1 swordsCaptureMounts 0 \
             magicianDemotesKhan 1 magicianExtendedDemotionSqs 0 board rescuekhan\n",
        ));
    let position =
        "position fen wfwwa3/wksma3/wn6/aa6/6AA/6NW/3AMSKW/3AWWFW w 0 1 startpos moves g3f3";
    // The protocol's own example line, bare `basePromotions` and all.
    yam!()
        .args([
            "engine",
            "import",
            "ucinewgame bondsmenLeaders 1 basePromotions swordsCaptureMounts 0 magicianDemotesKhan 1 magicianExtendedDemotionSqs 0 board magician",
            position,
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("[Ruleset \"magician\"]"));
    let refused = [
        (
            vec!["ucinewgame fastPlay 1 board magician", position],
            "line 1: unknown rule option `fastPlay`: expected one of bondsmenLeaders",
        ),
        (
            vec!["ucinewgame exchanges 1 board magician", position],
            "the board line's options are not those of ruleset magician: exchanges is 1 on the line and 0 in the ruleset",
        ),
        (
            vec!["ucinewgame bondsmenLeaders 2 board basic", position],
            "option `bondsmenLeaders`: expected 1, 0, true, false or nothing (on), found `2`",
        ),
        (
            vec!["ucinewgame board chess", position],
            "board type: expected one of basic, magician, powermagician, rescuegeneral, rescuekhan, found `chess`",
        ),
        (
            vec![
                "ucinewgame board basic",
                position,
                "--ruleset",
                "rescue-khan",
            ],
            "the board line says `board basic` but --ruleset rescue-khan is a rescue-khan ruleset",
        ),
        (
            vec![position, "ucinewgame board basic"],
            "line 2: a `ucinewgame` line after the `position` line",
        ),
        (
            vec!["isready", position],
            "line 1: expected `ucinewgame ...` or `position fen ...`, found `isready`",
        ),
        (vec!["ucinewgame board basic"], "no `position fen ...` line"),
        (
            vec!["ucinewgame board basic\n\nucinewgame board basic"],
            "line 3: a second `ucinewgame` line",
        ),
    ];
    for (args, want) in refused {
        yam!()
            .args(["engine", "import"])
            .args(&args)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(want));
    }
}

/// A spell onto a piece the magician could also capture: the bare string
/// is read back as the capture, so export names the move, `--strict`
/// refuses it, and `--exact` marks it so it comes back a spell.
#[test]
fn a_spell_that_would_come_back_a_capture_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spell.yam");
    std::fs::write(
        &path,
        "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"spell\"]\n[Date \"????.??.??\"]\n\
         [White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n\
         [Ruleset \"magician\"]\n[Position \"wfwwa3/wksma3/wn6/aa6/4a1AA/4M1NW/3A1SKW/3AWWFW w 0 1\"]\n\n\
         1. Me3*e4 *\n",
    )
    .unwrap();
    let out = yam!()
        .args(["engine", "export"])
        .arg(&path)
        .assert()
        .success();
    assert_eq!(
        stderr_of(&out).lines().next().unwrap(),
        "warning: move 1. Me3*e4 written e3e4 is read back as Me3xe4, so the game read back \
         parts from this one there (--exact writes e3*e4, which Yam reads back but the engine may not)"
    );
    assert!(stdout_of(out).ends_with("startpos moves e3e4\n"));
    yam!()
        .args(["engine", "export", "--strict"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "game 1: move 1. Me3*e4 written e3e4 is read back as Me3xe4; refused (--strict); --exact writes it e3*e4",
        ));
    let exact = stdout_of(
        yam!()
            .args(["engine", "export", "--exact"])
            .arg(&path)
            .assert()
            .success()
            .stderr(predicate::str::is_empty()),
    );
    assert!(exact.ends_with("startpos moves e3*e4\n"), "{exact}");
    yam!()
        .args(["engine", "import"])
        .write_stdin(exact)
        .assert()
        .success()
        .stdout(predicate::str::contains("1. Me3*e4"));
}

/// The README's engine example runs as written: each command of the block
/// under "Trade games with the innersky Khan engine", `target/release/yam`
/// being the binary under test.
#[test]
fn the_readme_engine_example_runs_as_written() {
    let readme = std::fs::read_to_string(yam_tests::workspace().join("README.md")).unwrap();
    let at = readme
        .find("Trade games with the innersky Khan engine")
        .expect("the README's engine section");
    let block = &readme[at..];
    let start = block.find("```sh\n").expect("its sh block") + 6;
    let block = &block[start..start + block[start..].find("```").unwrap()];
    let commands = block.replace("\\\n", " ");
    let mut ran = 0;
    for command in commands.lines().filter(|l| !l.trim().is_empty()) {
        let mut input: Option<Vec<u8>> = None;
        for stage in split_unquoted(command, '|') {
            let words = shell_words(&stage);
            assert_eq!(words[0], "target/release/yam", "{command}");
            let mut cmd = yam!();
            cmd.args(&words[1..]);
            if let Some(i) = input.take() {
                cmd.write_stdin(i);
            }
            let out = cmd.assert().success();
            input = Some(out.get_output().stdout.clone());
        }
        ran += 1;
    }
    assert!(ran >= 3, "{block}");
}

/// `text` cut at each `sep` outside single quotes.
fn split_unquoted(text: &str, sep: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut quoted = false;
    for c in text.chars() {
        if c == '\'' {
            quoted = !quoted;
        }
        if c == sep && !quoted {
            parts.push(String::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    parts
}

/// A command's words: split at spaces outside single quotes, quotes removed
/// (all the README's commands need).
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            c if c.is_whitespace() && !quoted => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// What the engine's lines cannot carry besides moves is named too: a
/// result the final position does not make (here a resignation).
#[test]
fn a_result_the_lines_cannot_carry_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("resigned.yam");
    std::fs::write(
        &path,
        "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"resigned\"]\n[Date \"????.??.??\"]\n\
         [White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[NotationVersion \"1\"]\n\
         [Ruleset \"magician\"]\n\n1. Ng3-f3 1-0\n",
    )
    .unwrap();
    yam!()
        .args(["engine", "export"])
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "note: the result 1-0 is not carried: the engine's lines give the moves only, and `yam engine import` records *",
        ));
}

/// A position with siege state but no tower (a khan carried home, the gers)
/// is a siege position: export must write its siege fields, or say it
/// cannot. Written as the bare FEN, the import gives another game, whose
/// khan is never carried, dropped off or released, and nothing is said.
#[test]
fn a_carried_khan_without_a_tower_survives_export_and_import() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("carried.yam");
    let position = "1f6/8/8/8/8/8/1W6/6F1 w 0 1 gers=a1:w,h8:b carried=b2:wk";
    std::fs::write(
        &path,
        format!(
            "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"carried\"]\n[Date \"????.??.??\"]\n\
             [White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n\
             [Ruleset \"magician\"]\n[Position \"{position}\"]\n\n1. Wb2-a1 Fb8-c8 2. Wa1-c2 *\n"
        ),
    )
    .unwrap();
    yam!().arg("check").arg(&path).assert().success();
    let out = yam!()
        .args(["engine", "export"])
        .arg(&path)
        .assert()
        .success();
    let err = stderr_of(&out);
    let lines = stdout_of(out);
    let imported = yam!()
        .args(["engine", "import"])
        .write_stdin(lines.clone())
        .assert();
    let imported = stdout_of(imported);
    assert!(
        imported.contains(&format!("[Position \"{position}\"]")),
        "export then import lost White's carried khan and the gers without a word:\n\
         lines: {lines}stderr: {err:?}\nimported:\n{imported}"
    );
    // `--fen` after the drop-off: White's khan waits at a1.
    let first = dir.path().join("first.yam");
    std::fs::write(
        &first,
        std::fs::read_to_string(&path)
            .unwrap()
            .replace("1. Wb2-a1 Fb8-c8 2. Wa1-c2 *", "1. Wb2-a1 *"),
    )
    .unwrap();
    let fen = stdout_of(
        yam!()
            .args(["engine", "export", "--fen"])
            .arg(&first)
            .assert()
            .success(),
    );
    assert!(
        fen.contains("waiting=a1:wk"),
        "--fen dropped the khan waiting at a1: {fen}"
    );
}

/// Adversary: whoever hands `yam engine import` its lines (an engine's
/// log, a pasted or downloaded file piped to it). Attack: one line of a
/// megabyte. The import reads standard input whole, and its refusal
/// quotes the offending line whole (a position line, followed by as many
/// spaces as the fault's column; or an unknown first word): a 100 MB line
/// took 312 MB of memory (release build) and wrote a 100 MB error to the
/// terminal. Every other command shows a long line as a window of 120
/// characters around the fault (docs/notation.md, section 9); the error
/// should name the place without echoing a megabyte.
#[test]
fn a_megabyte_engine_line_is_refused_in_a_short_message() {
    let long = "x".repeat(1 << 20);
    for input in [format!("position fen {long}\n"), format!("{long}\n")] {
        let out = yam!()
            .args(["engine", "import"])
            .write_stdin(input)
            .assert()
            .failure();
        let said = stderr_of(&out);
        assert!(
            said.len() < 4096,
            "a 1 MB engine line was refused in a message of {} bytes: {}…",
            said.len(),
            &said[..200.min(said.len())]
        );
    }
}

/// Adversary: real life, an engine log in UTF-8 (a player's name, a
/// comment with an accent) piped whole to `yam engine import`. Attack:
/// more than the 4 MiB an import reads, cut by the limit in the middle of
/// a character. The refusal must say the input is too long, as it does
/// for ASCII; cut mid-character it said the stream "did not contain valid
/// UTF-8", though it was UTF-8 throughout, sending the user after an
/// encoding fault that is not there.
#[test]
fn standard_input_over_the_limit_is_refused_as_too_long_even_cut_mid_character() {
    let input = format!("position fen a{}\n", "é".repeat(3 << 20));
    let out = yam!()
        .args(["engine", "import"])
        .write_stdin(input)
        .assert()
        .failure();
    let said = stderr_of(&out);
    assert!(
        said.contains("more than 4194304 bytes"),
        "6 MiB of UTF-8 on standard input was refused as: {said}"
    );
}
