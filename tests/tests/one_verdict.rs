//! One verdict: the same malformed record gets the same answer from every
//! command that reads it (`check`, `verify`, `show`, `export --plain`,
//! `engine export`), and a record every command can read is not refused by
//! one of them.

use std::path::{Path, PathBuf};

use yam_tests::yam;

/// A command's exit code and everything it printed.
fn run(args: &[&str], file: &Path) -> (i32, String) {
    let out = yam!().args(args).arg(file).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// The commands that read a record of `game`, each as its arguments.
fn readers(game: &str, signed: bool) -> Vec<Vec<&'static str>> {
    let mut commands = vec![vec!["check"], vec!["show"], vec!["export", "--plain"]];
    if signed {
        commands.push(vec!["verify"]);
    }
    if game == "Khan" {
        commands.push(vec!["engine", "export"]);
    }
    commands
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn example(path: &str) -> String {
    std::fs::read_to_string(yam_tests::workspace().join(path)).unwrap()
}

/// Every reader refuses `file` (exit 1) and says `why`.
fn all_refuse(file: &Path, game: &str, signed: bool, why: &str) {
    for args in readers(game, signed) {
        let (code, text) = run(&args, file);
        assert_eq!(code, 1, "{args:?} on {}: {text}", file.display());
        assert!(
            text.contains(why),
            "{args:?} on {} does not say {why:?}: {text}",
            file.display()
        );
    }
}

/// Every reader accepts `file` (exit 0).
fn all_accept(file: &Path, game: &str, signed: bool) {
    for args in readers(game, signed) {
        let (code, text) = run(&args, file);
        assert_eq!(code, 0, "{args:?} on {}: {text}", file.display());
    }
}

#[test]
fn a_date_the_calendar_does_not_have_is_refused_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let khan = example("examples/khan/opening-lesson.yam");
    let siege = example("examples/castle-siege/round-cap.yam");
    let date = |text: &str, value: &str| {
        let at = text.find("[Date \"").unwrap();
        let end = at + text[at..].find("\"]").unwrap() + 2;
        format!("{}[Date \"{value}\"]{}", &text[..at], &text[end..])
    };
    for (n, value) in ["yesterday", "01/12/2026", "", "2026.13.45", "2026.02.29"]
        .into_iter()
        .enumerate()
    {
        let file = write(dir.path(), &format!("khan-{n}.yam"), &date(&khan, value));
        all_refuse(&file, "Khan", false, "calendar date");
        let file = write(dir.path(), &format!("siege-{n}.yam"), &date(&siege, value));
        all_refuse(&file, "Castle Siege", true, "calendar date");
    }
    for (n, value) in ["2024.02.29", "2026.11.??", "????.??.??", "2026-11-29"]
        .into_iter()
        .enumerate()
    {
        let file = write(dir.path(), &format!("good-{n}.yam"), &date(&khan, value));
        all_accept(&file, "Khan", false);
    }
}

#[test]
fn a_file_with_carriage_returns_alone_is_refused_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let khan = example("examples/khan/opening-lesson.yam");
    let file = write(dir.path(), "mac.yam", &khan.replace('\n', "\r"));
    all_refuse(&file, "Khan", false, "carriage return");
    // CRLF is a line end like LF.
    let file = write(dir.path(), "dos.yam", &khan.replace('\n', "\r\n"));
    all_accept(&file, "Khan", false);
}

/// A Castle Siege game straight from its challenge, signed by the hot-seat.
fn siege_in_its_setups(dir: &Path) -> PathBuf {
    let record = dir.join("siege.yam");
    let out = yam!()
        .args([
            "hotseat",
            "new",
            "--game-type",
            "castle-siege",
            "--ruleset",
            "skirmish",
        ])
        .args(["--first", "ann", "--second", "bo", "--out"])
        .arg(&record)
        .arg("--secrets")
        .arg(dir.join("secrets"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    record
}

#[test]
fn a_castle_siege_game_in_its_setups_is_a_game_in_progress_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let record = siege_in_its_setups(dir.path());
    all_accept(&record, "Castle Siege", true);
    // A draw is no result of Castle Siege (CS-50), in its setups or later.
    let text = std::fs::read_to_string(&record).unwrap();
    let draw = text
        .replace("[Result \"*\"]", "[Result \"1/2-1/2\"]")
        .replace("\n*\n", "\n1/2-1/2\n");
    let file = write(dir.path(), "draw.yam", &draw);
    for args in [vec!["check"], vec!["verify"]] {
        let (code, text) = run(&args, &file);
        assert_eq!(code, 1, "{args:?}: {text}");
    }
    let (_, text) = run(&["check"], &file);
    assert!(text.contains("CS-50"), "{text}");
}

#[test]
fn castle_siege_move_numbers_are_held_alike_by_check_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let siege = example("examples/castle-siege/round-cap.yam");
    for (from, to) in [
        ("\n2. Move@3", "\n3. Move@3"),
        ("\n2... Move@6", "\n2. Move@6"),
    ] {
        let text = siege.replacen(from, to, 1);
        assert_ne!(text, siege, "{from}");
        let file = write(dir.path(), "numbers.yam", &text);
        for args in [vec!["check"], vec!["verify"]] {
            let (code, out) = run(&args, &file);
            assert_eq!(code, 1, "{args:?} {to:?}: {out}");
            assert!(
                out.contains("numbered wrongly") || out.contains("is wrong here"),
                "{out}"
            );
        }
    }
    // Unchanged, both accept.
    let file = write(dir.path(), "same.yam", &siege);
    all_accept(&file, "Castle Siege", true);
}

/// `text` with its result (tag and movetext) replaced by `result`.
fn with_result(text: &str, old: &str, result: &str) -> String {
    text.replace(
        &format!("[Result \"{old}\"]"),
        &format!("[Result \"{result}\"]"),
    )
    .replace(&format!("\n{old}\n"), &format!("\n{result}\n"))
    .replace(&format!(" {old}\n"), &format!(" {result}\n"))
}

#[test]
fn check_holds_each_game_to_the_results_it_can_have() {
    let dir = tempfile::tempdir().unwrap();
    // Genghis Khan: a score only when over, and never a two-player result.
    let practice = example("examples/genghis-khan/practice.yam");
    assert!(practice.contains("[Result \"90/150\"]"));
    for bad in ["89/150", "1-0", "1/2-1/2", "*"] {
        let file = write(dir.path(), "gk.yam", &with_result(&practice, "90/150", bad));
        let (code, text) = run(&["check"], &file);
        assert_eq!(code, 1, "{bad}: {text}");
        assert!(text.contains("the result must be 90/150"), "{bad}: {text}");
    }
    // Genghis Khan move numbers are its turns, as `yam verify` holds them.
    let renumbered = practice.replacen("\n2. draw:3a", "\n3. draw:3a", 1);
    assert_ne!(renumbered, practice);
    let file = write(dir.path(), "gk-number.yam", &renumbered);
    for args in [vec!["check"], vec!["verify"]] {
        let (code, text) = run(&args, &file);
        assert_eq!(code, 1, "{args:?}: {text}");
        assert!(text.contains("3."), "{args:?}: {text}");
    }
    // Genghis Khan variations are played by the rules from the move they
    // replace, with the practice seed's draws.
    for (variation, legal) in [("(pass)", true), ("(capture:M10/Tartars=3d)", false)] {
        let text = practice.replacen(
            "capture:M10/Tartars=10d",
            &format!("capture:M10/Tartars=10d {variation}"),
            1,
        );
        let file = write(dir.path(), "gk-variation.yam", &text);
        let (code, text) = run(&["check"], &file);
        assert_eq!(code, if legal { 0 } else { 1 }, "{variation}: {text}");
        if !legal {
            assert!(text.contains("is not in the hand (GK-23)"), "{text}");
        }
    }
    // Khan: a score is no result of a two-player game.
    let khan = example("examples/khan/opening-lesson.yam");
    let file = write(dir.path(), "khan.yam", &with_result(&khan, "*", "77/150"));
    let (code, text) = run(&["check"], &file);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("a score is the result of a solo game"),
        "{text}"
    );
    // Khan, unfinished: a resignation or an agreed draw is an end off the
    // board, which an unsigned record cannot show otherwise.
    for fine in ["1-0", "0-1", "1/2-1/2", "+/-", "-/-"] {
        let file = write(dir.path(), "khan.yam", &with_result(&khan, "*", fine));
        let (code, text) = run(&["check"], &file);
        assert_eq!(code, 0, "{fine}: {text}");
    }
}

#[test]
fn engine_export_says_the_engine_plays_khan_only() {
    let out = yam!()
        .args(["engine", "export", "examples/castle-siege/round-cap.yam"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("game 1 is a Castle Siege game; the innersky engine plays Khan only"),
        "{text}"
    );
}

#[test]
fn an_illegal_move_is_refused_by_every_command_main_line_or_variation() {
    let dir = tempfile::tempdir().unwrap();
    let lesson = example("examples/khan/opening-lesson.yam");
    // In the main line: every command says the rules' reason.
    let main = lesson.replacen("\n1. Ng3-f3", "\n1. Ng3-g8", 1);
    assert_ne!(main, lesson);
    let main = write(dir.path(), "main.yam", &main);
    all_refuse(&main, "Khan", false, "cannot reach g8");
    // In a variation: the commands that show or export the main line
    // still give the game's verdict, with `yam check`'s diagnostic.
    let variation = lesson.replacen("(2. Nf3-f5", "(2. Nf3-b5", 1);
    assert_ne!(variation, lesson);
    let variation = write(dir.path(), "variation.yam", &variation);
    all_refuse(&variation, "Khan", false, "there is a black archer on b5");
    // `export --plain` keeps the game (nothing an archivist has is lost),
    // noting what is wrong with it in its `Evidence` tag.
    let (_, text) = run(&["export", "--plain"], &variation);
    assert!(text.contains("it breaks the rules at line"), "{text}");
    assert!(
        text.contains("1 game exported (1 breaking the rules), 0 skipped"),
        "{text}"
    );
}

/// A generated Castle Siege game, unsigned: its tokens carry the faces
/// rolled, so a variation's orders replay as the main line's do.
fn siege_game(dir: &Path) -> String {
    let path = dir.join("cs.yam");
    yam!()
        .args([
            "generate",
            "--game-type",
            "castle-siege",
            "--games",
            "1",
            "--seed",
            "4",
            "-o",
        ])
        .arg(&path)
        .assert()
        .code(0);
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn castle_siege_variations_are_held_to_the_rules_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let game = siege_game(dir.path());
    let with = |variation: &str| game.replacen(" Kf4-e3 ", &format!(" Kf4-e3 {variation} "), 1);
    // Legal variations, nested too, replayed from the token they replace.
    let legal = with("(Kf4-e3 Ce3-e4 Kd5-d6/skip (Kd5-d6/skip))");
    assert_ne!(legal, game);
    let legal = write(dir.path(), "legal.yam", &legal);
    all_accept(&legal, "Castle Siege", false);
    // A king does not jump across the board in a variation either.
    let far = write(dir.path(), "far.yam", &with("(Kf4-h8)"));
    all_refuse(&far, "Castle Siege", false, "in a variation");
    all_refuse(&far, "Castle Siege", false, "h8 is not adjacent to f4");
    // A variation's written outcome must be what its faces give.
    let lie = write(
        dir.path(),
        "lie.yam",
        &with("(Kf4-e3 (Kf4-e3 Ce3-e4 Ce3-e4))"),
    );
    all_refuse(&lie, "Castle Siege", false, "the referee gives Ce3-e4/skip");
}

/// `text` with the value of tag `name` replaced by `value`.
fn with_tag(text: &str, name: &str, value: &str) -> String {
    let at = text.find(&format!("[{name} \"")).unwrap();
    let end = at + text[at..].find("\"]").unwrap() + 2;
    format!("{}[{name} \"{value}\"]{}", &text[..at], &text[end..])
}

#[test]
fn a_game_dealt_from_physical_cards_gets_one_verdict_from_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let dealt = example("examples/genghis-khan/dealt-by-hand.yam");
    // Legal: every reader accepts it, and check and verify say how.
    let file = write(dir.path(), "dealt.yam", &dealt);
    all_accept(&file, "Genghis Khan", true);
    for args in [vec!["check"], vec!["verify"]] {
        let (_, text) = run(&args, &file);
        assert!(
            text.contains("rules checked from the recorded deal"),
            "{args:?}: {text}"
        );
        assert!(!text.contains("practice seed"), "{args:?}: {text}");
    }
    // The practice game's wording is another.
    let (_, text) = run(
        &["check"],
        &yam_tests::workspace().join("examples/genghis-khan/practice.yam"),
    );
    assert!(
        text.contains("rules checked from the practice seed"),
        "{text}"
    );
    assert!(!text.contains("recorded deal"), "{text}");
}

#[test]
fn an_illegal_move_of_a_dealt_game_is_refused_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let dealt = example("examples/genghis-khan/dealt-by-hand.yam");
    for (from, to, why) in [
        // GK-02: the first capture names a card under the top of its row.
        (
            "capture:M3/Karakorum=3d",
            "capture:M7/\"Army of Toghril\"=3d",
            "the top card of Mongolian Unification is Karakorum",
        ),
        // GK-12: Russia while Mongolian Unification has cards left.
        ("attack:M", "attack:R", "(GK-12)"),
        // The deck as dealt gives Feign Withdrawal first.
        (
            "draw:8g/\"Feign Withdrawal\"",
            "draw:10a/\"Master of the World\"",
            "draw 1 of the Khan deck as dealt (tag KhanDeck) is Feign Withdrawal (8g)",
        ),
        // The score must be the game's.
        ("90/150", "91/150", "the result must be 90/150"),
    ] {
        let text = dealt.replacen(from, to, 1);
        let text = if from == "90/150" {
            text.replacen(from, to, 1)
        } else {
            text
        };
        assert_ne!(text, dealt, "{from}");
        let file = write(dir.path(), "illegal.yam", &text);
        all_refuse(&file, "Genghis Khan", true, why);
    }
}

#[test]
fn a_bad_deal_is_refused_by_every_command_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let dealt = example("examples/genghis-khan/dealt-by-hand.yam");
    let layout = {
        let at = dealt.find("[FoeLayout \"").unwrap() + "[FoeLayout \"".len();
        dealt[at..at + dealt[at..].find('"').unwrap()].to_owned()
    };
    let deck = {
        let at = dealt.find("[KhanDeck \"").unwrap() + "[KhanDeck \"".len();
        dealt[at..at + dealt[at..].find('"').unwrap()].to_owned()
    };
    assert!(layout.starts_with("M7 M5 M10 M7 "), "{layout}");
    let cases: Vec<(String, &str)> = vec![
        // A card not in the deck.
        (
            with_tag(&dealt, "FoeLayout", &layout.replacen("M7", "M11", 1)),
            "tag FoeLayout, card 1 (M11): expected a Foe card's force",
        ),
        (
            with_tag(&dealt, "FoeLayout", &layout.replacen("M7", "M/Kiev", 1)),
            "tag FoeLayout, card 1 (M/Kiev): expected a Foe card name",
        ),
        // A card repeated: a third copy.
        (
            with_tag(&dealt, "FoeLayout", &layout.replacen("M5", "M7", 1)),
            "tag FoeLayout, card 4 (M7): Army of Toghril (M7) is laid a third time",
        ),
        // A wrong number of Foe cards: a short row, a missing row.
        (
            with_tag(&dealt, "FoeLayout", &layout.replacen("M7 ", "", 1)),
            "Mongolian Unification's row ends after 19 card(s)",
        ),
        (
            with_tag(&dealt, "FoeLayout", &layout[..layout.find(" J").unwrap()]),
            "tag FoeLayout: Jin Empire's row is missing",
        ),
        // A layout the deal cannot give: a card of another deck in a row.
        (
            with_tag(&dealt, "FoeLayout", &layout.replacen("M5", "R5", 1)),
            "card 2 (R5): Mongolian Unification's row ends after 1 card(s)",
        ),
        // The Khan deck: a card twice, one missing.
        (
            with_tag(&dealt, "KhanDeck", &deck.replacen("10d", "8g", 1)),
            "tag KhanDeck, card 2 (8g): Feign Withdrawal (8g) is listed twice, as card 1 and card 2",
        ),
        (
            with_tag(&dealt, "KhanDeck", deck.strip_suffix(" 2f").unwrap()),
            "tag KhanDeck: 99 card(s) listed",
        ),
        (
            with_tag(&dealt, "KhanDeck", &deck.replacen("8g", "Nobody", 1)),
            "tag KhanDeck, card 1 (Nobody): expected",
        ),
        // Tags that cannot stand together.
        (
            dealt.replacen(&format!("[FoeLayout \"{layout}\"]\n"), "", 1),
            "tag KhanDeck needs the FoeLayout tag",
        ),
        (
            dealt.replacen("[Annotator ", "[PracticeSeed \"seed\"]\n[Annotator ", 1),
            "tag PracticeSeed says the chance came from the fair-play layer",
        ),
    ];
    for (n, (text, why)) in cases.iter().enumerate() {
        let file = write(dir.path(), &format!("bad-{n}.yam"), text);
        all_refuse(&file, "Genghis Khan", true, why);
        all_refuse(&file, "Genghis Khan", true, "the recorded deal is refused");
    }
    // A Khan game has no Foe layout.
    let khan = example("examples/khan/opening-lesson.yam").replacen(
        "[Ruleset ",
        &format!("[FoeLayout \"{layout}\"]\n[Ruleset "),
        1,
    );
    let file = write(dir.path(), "khan.yam", &khan);
    all_refuse(&file, "Khan", false, "this is a Khan game");
}

/// A signed game's variations are moves no signature covers: `yam
/// verify` holds them to the rules with `yam check`'s checker, so the two
/// agree; a legal variation leaves the game verified.
#[test]
fn verify_holds_a_signed_game_s_variations_to_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let signed = example("examples/khan/signed/magician.yam");
    let first = signed.find("\n1. Kg2-f3").expect("the first move") + "\n1. Kg2-f3".len();
    let with = |variation: &str| format!("{}{variation}{}", &signed[..first], &signed[first..]);
    let illegal = write(dir.path(), "illegal.yam", &with(" (1. Wa1-a8)"));
    all_refuse(&illegal, "Khan", true, "there is no piece on a1");
    let (_, text) = run(&["verify"], &illegal);
    assert!(
        text.contains("its signatures hold, but a move beside them breaks the rules"),
        "{text}"
    );
    let legal = write(dir.path(), "legal.yam", &with(" (1. Ng3-f3)"));
    let (code, text) = run(&["check"], &legal);
    assert_eq!(code, 0, "the variation is legal: {text}");
    all_accept(&legal, "Khan", true);
}

/// A Genghis Khan practice game (signed, open seed) with a variation the
/// rules refuse: every command, `verify` included, refuses it alike.
#[test]
fn a_genghis_khan_variation_gets_one_verdict_from_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let practice = example("examples/genghis-khan/practice.yam");
    let first = "1. draw:8g/\"Feign Withdrawal\" ";
    let bad = practice.replacen(first, &format!("{first}(capture:M10/Tartars=3d) "), 1);
    assert_ne!(bad, practice);
    let bad = write(dir.path(), "variation.yam", &bad);
    all_refuse(&bad, "Genghis Khan", true, "5 more card(s) to draw (GK-04)");
    let off_stream = practice.replacen(first, &format!("{first}(draw:10d/Stirrups) "), 1);
    let off_stream = write(dir.path(), "off-stream.yam", &off_stream);
    let (code, text) = run(&["check"], &off_stream);
    assert_eq!(code, 1, "a draw that is not the stream's next card: {text}");
}

/// Adversary: real life, an archivist's plain copy of a hand-written game.
/// docs/export.md, "The reader's text copy": an unsigned game that breaks
/// the rules is "exported all the same, with '; it breaks the rules at
/// line L: move: why' added to its `Evidence` tag, so that an archivist
/// loses nothing and no reader mistakes it for a good game". A wrong
/// move number (`7...` for Black's first move, which the referee refuses:
/// docs/notation.md, section 3) was dropped from the plain copy as a
/// "redundant" `N...` whatever its number: the copy read `1. Ng3-f3
/// Ae7-f6`, lost what the record said, and `yam check` called it valid
/// while its own `Evidence` tag said it broke the rules.
#[test]
fn a_plain_copy_keeps_a_wrong_move_number_and_stays_refused() {
    let dir = tempfile::tempdir().unwrap();
    let lesson = example("examples/khan/opening-lesson.yam");
    let wrong = lesson.replacen(
        "Ng3-f3 {The assassin",
        "Ng3-f3 7... Ae7-f6 {The assassin",
        1,
    );
    let wrong = wrong.replacen("} Ae7-f6 2. Nf3-e3!", "} 2. Nf3-e3!", 1);
    assert_ne!(wrong, lesson);
    let original = write(dir.path(), "wrong.yam", &wrong);
    let (code, text) = run(&["check"], &original);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("numbered wrongly"), "{text}");

    let out = yam!()
        .args(["export", "--plain"])
        .arg(&original)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let plain = String::from_utf8(out.stdout).unwrap();
    assert!(plain.contains("it breaks the rules at line"), "{plain}");
    // The copy holds the move number the record holds ...
    assert!(
        plain.contains("7... Ae7-f6"),
        "the wrong number was dropped:\n{plain}"
    );
    // ... so that the copy, read on its own, is not a good game.
    let copy = write(dir.path(), "plain.yam", &plain);
    let (code, text) = run(&["check"], &copy);
    assert_eq!(
        code, 1,
        "the plain copy of a refused game checks valid: {text}"
    );
}

/// As above, with the right number in the wrong place: `3... Ag4-f3`
/// where White's move 4 stands (after Black's `Kb7-d5`, which the
/// referee refuses as "numbered wrongly: it is White's move 4."). The
/// number is the one of the `3.` before it, so `drop_redundant_numbers`
/// takes it for the redundant `N...` of Black's move and drops it,
/// although two moves, not one, stand between them: the copy reads
/// `3. Wh3-f4 ... Kb7-d5 $6 Ag4-f3`, and `yam check` calls the copy of a
/// refused game valid (docs/export.md: only "a `N...` right after its
/// move", "when N is the number of the `N.` before it", is left out).
#[test]
fn a_plain_copy_keeps_a_black_number_before_a_white_move_and_stays_refused() {
    let dir = tempfile::tempdir().unwrap();
    let lesson = example("examples/khan/opening-lesson.yam");
    let wrong = lesson.replacen(
        "Kb7-d5 $6 {The khan steps out\nearly.} 4. Ag4-f3",
        "Kb7-d5 $6 3... Ag4-f3",
        1,
    );
    assert_ne!(wrong, lesson);
    let original = write(dir.path(), "wrong.yam", &wrong);
    let (code, text) = run(&["check"], &original);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("numbered wrongly"), "{text}");

    let out = yam!()
        .args(["export", "--plain"])
        .arg(&original)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let plain = String::from_utf8(out.stdout).unwrap();
    let copy = write(dir.path(), "plain.yam", &plain);
    let (code, text) = run(&["check"], &copy);
    assert_eq!(
        code, 1,
        "the plain copy of a refused game checks valid (the `3...` before White's move 4 was dropped): {text}\n{plain}"
    );
}
