//! Khan rulesets of one's own: `yam hotseat new --ruleset-file` starts a
//! game under a ruleset file beside the record, and `check`, `verify`,
//! `show`, `dispute`, `export` and `engine export` all find it by the
//! record's `Ruleset` tag; the opening pins the file's text, so a changed
//! file no longer verifies; a bad file is reported with its line and column;
//! a record cannot name a file outside its directory.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use yam_tests::{workspace, yam};

/// A lesson ruleset: the Rescue Khan board with White's khan already carried
/// by the warrior on b2, a step from his ger.
fn lesson_ruleset() -> String {
    let standard =
        std::fs::read_to_string(workspace().join("examples/khan/rulesets/rescue-khan.yaml"))
            .unwrap();
    standard
        .replace("name: rescue-khan", "name: lesson")
        .replace(
            "start: wfwwa3/w1sha3/wn6/aa6/6AA/6NW/3AHS1W/3AWWFW w 0 1",
            "start: 1f6/8/8/8/8/8/1W6/6F1 w 0 1",
        )
        .replace("      captive: white-khan\n", "      captive: null\n")
        + "  carried:\n    - { square: b2, captive: white-khan }\n"
}

struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let s = Scratch {
            dir: tempfile::tempdir().unwrap(),
        };
        s.write("rulesets/lesson.yaml", &lesson_ruleset());
        s
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.path(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    fn new_game(&self, out: &str, ruleset_file: &Path) -> assert_cmd::assert::Assert {
        yam!()
            .args(["hotseat", "new", "--ruleset-file"])
            .arg(ruleset_file)
            .args(["--first", "ann", "--second", "bo", "--id", "lesson-1"])
            .args(["--date", "2026.12.01"])
            .args(["--comment", "White's warrior carries his khan home."])
            .arg("--out")
            .arg(self.path(out))
            .arg("--secrets")
            .arg(self.path("secrets"))
            .assert()
    }

    fn play(&self, file: &str, mv: &str) {
        yam!()
            .args(["hotseat", "move"])
            .arg(self.path(file))
            .arg(mv)
            .arg("--secrets")
            .arg(self.path("secrets"))
            .assert()
            .success();
    }

    fn run(&self, args: &[&str], file: &str) -> assert_cmd::assert::Assert {
        yam!().args(args).arg(self.path(file)).assert()
    }
}

#[test]
fn a_game_under_a_ruleset_file_is_played_checked_verified_and_shown() {
    let s = Scratch::new();
    s.new_game("game.yam", &s.path("rulesets/lesson.yaml"))
        .success()
        .stdout(predicate::str::contains("rulesets/lesson.yaml ruleset"));
    s.play("game.yam", "Wb2-a1");
    s.play("game.yam", "Fb8-c8");
    s.play("game.yam", "Wa1-c2");
    let text = s.read("game.yam");
    assert!(
        text.contains("[Ruleset \"rulesets/lesson.yaml\"]"),
        "{text}"
    );
    assert!(
        text.contains("[Variant \"Rescue Khan\"]"),
        "the variant is the file's game type: {text}"
    );
    // The introduction stands before the opening's events.
    let intro = text.find("White's warrior carries").unwrap();
    assert!(intro < text.find("[%event").unwrap(), "{text}");

    s.run(&["check"], "game.yam")
        .success()
        .stdout(predicate::str::contains("1 valid"));
    s.run(&["verify"], "game.yam")
        .success()
        .stdout(predicate::str::contains("1 verified"));
    // After the release White's khan stands on his ger.
    s.run(&["show"], "game.yam").success().stdout(
        predicate::str::contains("after White's move 2 (3 plies)")
            .and(predicate::str::contains("@K")),
    );
    s.run(&["show", "--move", "1"], "game.yam")
        .success()
        .stdout(predicate::str::contains("waits at the ger a1"));
    s.run(&["engine", "export", "--fen"], "game.yam").success();
    s.run(&["export", "--plain"], "game.yam")
        .success()
        .stdout(predicate::str::contains("the original verified"));

    // Standard input takes ruleset files from the current directory.
    yam!()
        .args(["verify", "-"])
        .current_dir(s.dir.path())
        .write_stdin(text.clone())
        .assert()
        .success();

    // Two copies in two folders: each finds the file beside itself.
    s.write("copy/game.yam", &text);
    s.write("copy/rulesets/lesson.yaml", &lesson_ruleset());
    yam!()
        .arg("dispute")
        .arg(s.path("game.yam"))
        .arg(s.path("copy/game.yam"))
        .assert()
        .success()
        .stdout(predicate::str::contains("identical"));
}

#[test]
fn a_changed_ruleset_file_no_longer_verifies() {
    let s = Scratch::new();
    s.new_game("game.yam", &s.path("rulesets/lesson.yaml"))
        .success();
    s.play("game.yam", "Wb2-a1");
    // Someone turns on exchanges after the game began.
    s.write(
        "rulesets/lesson.yaml",
        &lesson_ruleset().replace("exchanges: false", "exchanges: true "),
    );
    s.run(&["verify"], "game.yam")
        .code(1)
        .stdout(predicate::str::contains(
            "but ruleset rulesets/lesson.yaml as loaded has hash",
        ))
        .stdout(predicate::str::contains(
            "its text is not the text the game was begun under",
        ));
    s.run(&["check"], "game.yam").code(1).stderr(
        predicate::str::contains("[RulesetHash").and(predicate::str::contains("changed since")),
    );
    // And the harness will not continue it.
    yam!()
        .args(["hotseat", "move"])
        .arg(s.path("game.yam"))
        .arg("Fb8-c8")
        .arg("--secrets")
        .arg(s.path("secrets"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("as loaded has hash"));
    // A missing file is named.
    std::fs::remove_file(s.path("rulesets/lesson.yaml")).unwrap();
    s.run(&["verify"], "game.yam").code(1).stdout(
        predicate::str::contains("rulesets/lesson.yaml")
            .and(predicate::str::contains("cannot open")),
    );
}

#[test]
fn a_bad_ruleset_file_is_reported_with_its_line_and_column() {
    let s = Scratch::new();
    let bad = lesson_ruleset().replace("  exchanges: false", "  exchange: false ");
    let line = bad
        .lines()
        .position(|l| l.starts_with("  exchange:"))
        .unwrap()
        + 1;
    s.write("rulesets/bad.yaml", &bad);
    let at = format!("line {line}, column 3");
    s.new_game("game.yam", &s.path("rulesets/bad.yaml"))
        .code(2)
        .stderr(
            predicate::str::contains("--ruleset-file")
                .and(predicate::str::contains("bad.yaml"))
                .and(predicate::str::contains(at.clone()))
                .and(predicate::str::contains("unknown field `exchange`")),
        );
    // A record naming it: check and verify say the same, at the tag.
    s.write(
        "bad.yam",
        "[Game \"Khan\"]\n[Variant \"Rescue Khan\"]\n[GameId \"b\"]\n[Date \"2026.12.01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"rulesets/bad.yaml\"]\n\n1. Wb2-a1 *\n",
    );
    s.run(&["check"], "bad.yam")
        .code(1)
        .stderr(predicate::str::contains(at).and(predicate::str::contains("bad.yaml")));
    s.run(&["show"], "bad.yam")
        .code(1)
        .stderr(predicate::str::contains("unknown field `exchange`"));
}

#[test]
fn a_record_cannot_name_a_ruleset_file_outside_its_directory() {
    let s = Scratch::new();
    // The harness refuses a file the record could not name.
    s.write("elsewhere/lesson.yaml", &lesson_ruleset());
    std::fs::create_dir(s.path("games")).unwrap();
    s.new_game("games/game.yam", &s.path("elsewhere/lesson.yaml"))
        .code(2)
        .stderr(predicate::str::contains("or below it"));
    s.write("rulesets/lesson.txt", &lesson_ruleset());
    s.new_game("game.yam", &s.path("rulesets/lesson.txt"))
        .code(2)
        .stderr(predicate::str::contains(".yaml or .yml"));
    // A hostile record naming ../ is refused before anything is read.
    s.write(
        "games/hostile.yam",
        "[Game \"Khan\"]\n[Variant \"Rescue Khan\"]\n[GameId \"h\"]\n[Date \"2026.12.01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"../rulesets/lesson.yaml\"]\n\n1. Wb2-a1 *\n",
    );
    s.run(&["check"], "games/hostile.yam")
        .code(1)
        .stderr(predicate::str::contains("contains . or .."));
    s.run(&["verify"], "games/hostile.yam").code(1);
}

/// `yam check`'s report, as words (it is wrapped to the terminal's width),
/// of a Rescue Khan record under a JSON ruleset whose first line carries
/// `first_line_more` and whose start carries White's khan on an empty c3;
/// and the report as printed.
fn flow_style_fault(first_line_more: &str) -> (String, String) {
    let s = Scratch::new();
    s.write(
        "rulesets/flow.yaml",
        &format!(
            "{{\"name\": \"flow\", \"game\": \"rescue-khan\"{first_line_more},\n\
             \"start\": \"1f6/8/8/8/8/8/1W6/6F1 w 0 1\",\n\
             \"camps\": {{\"white\": [\"a7\", \"a8\", \"b7\", \"b8\"], \"black\": [\"g1\", \"g2\", \"h1\", \"h2\"]}},\n\
             \"siege\": {{\"towers\": [{{\"squares\": [\"h5\", \"h6\", \"h7\"], \"manned\": [\"h5\", \"h6\", \"h7\"]}}],\n\
             \"gers\": {{\"white\": [\"a1\"], \"black\": [\"h8\"]}},\n\
             \"carried\": [{{\"square\": \"c3\", \"captive\": \"white-khan\"}}]}}}}\n"
        ),
    );
    s.write(
        "flow.yam",
        "[Game \"Khan\"]\n[Variant \"Rescue Khan\"]\n[GameId \"f\"]\n[Date \"2026.12.01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n[Ruleset \"rulesets/flow.yaml\"]\n\n1. Wb2-a1 *\n",
    );
    let out = s.run(&["check"], "flow.yam").code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let words = err
        .split_whitespace()
        .filter(|w| *w != "│")
        .collect::<Vec<_>>()
        .join(" ");
    (words, err)
}

/// A ruleset file in YAML's flow style (JSON, as a script writes it, is
/// YAML too) whose start position breaks the rules is reported with the
/// line and column, as the same fault in block style is (docs/rules/khan.md,
/// "Rulesets": "reports the line and column: ... a captive carried on an
/// empty square").
#[test]
fn a_bad_start_in_a_flow_style_ruleset_is_reported_with_its_line_and_column() {
    let (words, err) = flow_style_fault("");
    assert!(words.contains("carried on c3"), "{err}");
    assert!(
        err.contains("line ") && err.contains("column "),
        "the fault is reported with no line or column: {err}"
    );
}

/// As `a_bad_start_in_a_flow_style_ruleset_is_reported_with_its_line_and_column`,
/// with a description whose prose holds the key's name after a comma ("A
/// rescue lesson, siege: ..."): the flow-style locator took the words
/// inside the string for the key and placed the fault at line 1, column
/// 74, inside the description, where the `siege` section is line 4,
/// column 1 (docs/rules/khan.md, "Rulesets": the fault "is placed at its
/// section's key ... at the key written `siege`, `\"siege\"` or `'siege'`
/// where a key stands"; a quoted string is no place a key stands).
#[test]
fn a_key_named_inside_a_flow_style_string_does_not_misplace_the_fault() {
    let (words, err) =
        flow_style_fault(", \"description\": \"A rescue lesson, siege: a khan carried home\"");
    assert!(words.contains("carried on c3"), "{err}");
    assert!(
        words.contains("line 4, column 1:"),
        "the fault is placed inside the description string, not at the siege key (line 4, column 1): {err}"
    );
}
