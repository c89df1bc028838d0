//! `yam show --svg`: the pictures are well-formed XML (read by a real XML
//! parser), carry a legend, escape what records supply, and one diagram of
//! each game is pinned by a golden file (tests/tests/snapshots/).

use yam_tests::{workspace, yam};

/// Run `yam show --svg` with `args`; the picture, checked to be SVG.
fn svg(args: &[&str]) -> String {
    let out = yam!()
        .arg("show")
        .arg("--svg")
        .args(args)
        .output()
        .expect("yam runs");
    assert!(
        out.status.success(),
        "yam show --svg {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    check_svg(&text);
    text
}

/// Parse `text` as XML and check it is a self-contained SVG picture.
fn check_svg(text: &str) -> roxmltree::Document<'_> {
    let doc = roxmltree::Document::parse(text)
        .unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{text}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    assert!(root.attribute("viewBox").is_some(), "no viewBox");
    assert!(
        root.children().any(|n| n.has_tag_name("title")),
        "no <title>"
    );
    // Self-contained: nothing fetched, nothing run.
    for node in doc.descendants() {
        assert!(
            !node.has_tag_name("script") && !node.has_tag_name("image"),
            "external or active content"
        );
        assert!(node.attribute("href").is_none(), "a link in the picture");
    }
    doc
}

/// All the text of a picture, in order.
fn words(doc: &roxmltree::Document<'_>) -> String {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn khan_diagram_marks_towers_gers_and_captives() {
    let text = svg(&[
        "examples/khan/seed/drop-offs-and-releases.yam",
        "--ply",
        "1",
    ]);
    let doc = check_svg(&text);
    let words = words(&doc);
    for needle in [
        "manned tower square",
        "silenced tower square",
        "Tower 1: h5 h6 h7, manned h6 h7; empty.",
        "White's ger: a1.",
        "Black's khan is carried by the black power magician on f7.",
        "White's khan waits at the ger a1 until it is empty.",
        "bk",
        "wk",
    ] {
        assert!(words.contains(needle), "missing {needle:?} in\n{words}");
    }
    insta::assert_snapshot!("khan_drop_offs_ply_1", text);
}

#[test]
fn khan_siege_board_marks_captives_held_in_towers() {
    // Both towers hold a khan, both gers stand, and each tower has manned
    // and silenced squares: every siege mark at once.
    let text = svg(&["examples/khan/seed/enemy-captive.yam", "--ply", "0"]);
    let doc = check_svg(&text);
    let words = words(&doc);
    for needle in [
        "manned tower square",
        "silenced tower square",
        "White's ger (long dashes, tag W)",
        "Black's ger (short dots, tag B)",
        "captive held in the tower",
        "Tower 1: h5 h6 h7, manned h6 h7; holds White's khan.",
        "Tower 2: a2 a3 a4, manned a2 a4; holds Black's khan.",
    ] {
        assert!(words.contains(needle), "missing {needle:?} in\n{words}");
    }
    // The captives in the towers are on the board: a tag on each tower's
    // middle square (h6, a3), not only in the legend's sentences.
    let tags: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter(|n| matches!(n.text(), Some("wk" | "bk")))
        .collect();
    assert!(tags.len() >= 2, "no captive tags on the board");
    // Nothing absent is explained: no piece carries a captive here.
    assert!(!words.contains("carried by the piece"), "{words}");
    assert!(!words.contains("waiting at the ger"), "{words}");
    insta::assert_snapshot!("khan_siege_enemy_captive_ply_0", text);
}

#[test]
fn khan_legend_omits_what_the_board_lacks() {
    let text = svg(&["examples/khan/opening-lesson.yam"]);
    let doc = check_svg(&text);
    let words = words(&doc).to_lowercase();
    for absent in ["tower", "ger", "captive", "power magician", "khan archer"] {
        assert!(!words.contains(absent), "{absent:?} in\n{words}");
    }
    assert!(words.contains("last move, from"), "{words}");
    insta::assert_snapshot!("khan_magician_opening_lesson_end", text);
}

#[test]
fn castle_siege_diagram_shows_stacks_breaches_and_the_castle() {
    let text = svg(&[
        "examples/castle-siege/attacker-victory-square.yam",
        "--move",
        "3",
    ]);
    let doc = check_svg(&text);
    let words = words(&doc);
    for needle in [
        "breaches: c6.",
        "Defenders 16 of 16, attackers 23 of 28",
        "breached castle square",
        "victory square",
    ] {
        assert!(words.contains(needle), "missing {needle:?} in\n{words}");
    }
    // The castle walls: thick lines, 16 edges of the 4x4 castle's outline.
    let walls = doc
        .descendants()
        .filter(|n| n.has_tag_name("line") && n.attribute("stroke-width") == Some("5"))
        .count();
    assert_eq!(walls, 16, "castle outline");
    // Every unit is a disc of its own (16 defenders, 23 attackers), and
    // the legend has one sample of each side's.
    let discs = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert_eq!(discs, 16 + 23 + 2, "one disc per unit");
    // The Defender's turn 3 just ended: its orders are arrows, its dice
    // are on them and in a row under the board, with what each did.
    for needle in [
        "The Defender's turn of round 3 (ended): 8 dice, in the order rolled.",
        "Cc6xKa8",
        "a step this turn (solid arrow)",
        "an attack this turn (dotted arrow)",
        "the die that resolved the order, on its arrow",
        "11. Cc6xKa8@6: the cannon attacks the knight on a8: kills it (6, needs 6+)",
    ] {
        assert!(words.contains(needle), "missing {needle:?} in\n{words}");
    }
    let arrows = doc
        .descendants()
        .filter(|n| n.has_tag_name("polygon"))
        .count();
    assert!(arrows >= 8, "{arrows} arrow heads");
    // Nothing absent is explained: no breach was attempted this turn.
    assert!(!words.contains("breach attempt"), "{words}");
    insta::assert_snapshot!("castle_siege_victory_square_move_3", text);
}

#[test]
fn castle_siege_inside_a_turn_marks_its_orders_so_far() {
    let text = svg(&[
        "examples/castle-siege/attacker-victory-square.yam",
        "--ply",
        "24",
    ]);
    let doc = check_svg(&text);
    let words = words(&doc);
    for needle in [
        "The Attacker's turn of round 1, so far: 1 die.",
        "2. Kb8-b7: the knight steps from b8 to b7",
    ] {
        assert!(words.contains(needle), "missing {needle:?} in\n{words}");
    }
    // The latest order is the thicker arrow.
    assert!(
        doc.descendants()
            .any(|n| n.has_tag_name("line") && n.attribute("stroke-width") == Some("6")),
        "no thick arrow for the latest order"
    );
    // Before any breach, the legend has no breach mark.
    assert!(!words.contains("breached castle square"), "{words}");
}

#[test]
fn genghis_khan_tableau_shows_rows_hand_and_piles() {
    let text = svg(&["examples/genghis-khan/practice.yam", "--ply", "40"]);
    let doc = check_svg(&text);
    let words = words(&doc);
    for needle in [
        "M Mongolian Unification",
        "J Jin Empire",
        "Hand:",
        "Khan deck:",
        "Conquest piles",
        "best still possible",
    ] {
        assert!(words.contains(needle), "missing {needle:?} in\n{words}");
    }
    insta::assert_snapshot!("genghis_khan_practice_ply_40", text);
}

#[test]
fn genghis_khan_card_names_are_whole() {
    // The hand holds the longest Khan card name of all (31 characters) and
    // a 14-letter word; every name is drawn whole, never cut.
    let text = svg(&["examples/genghis-khan/director-pat-1.yam", "--ply", "39"]);
    let doc = check_svg(&text);
    let words = words(&doc);
    assert!(!words.contains('…'), "a name is cut:\n{words}");
    // Names may wrap: compare them with the lines joined.
    let joined = words.replace('\n', " ");
    for name in [
        "Enemies offer Treasure & Brides",
        "Reconnaissance in Force",
        "Hooked Lance",
        "Son Tolui",
    ] {
        assert!(joined.contains(name), "{name:?} not whole in\n{words}");
    }
    insta::assert_snapshot!("genghis_khan_longest_names_ply_39", text);
}

#[test]
fn every_example_draws_at_its_start_and_its_end() {
    let files = yam_cli::expand(&[workspace().join("examples")])
        .expect("examples")
        .files;
    assert!(files.len() >= 10);
    for file in files {
        let file = file.to_string_lossy().into_owned();
        svg(&[&file]);
        svg(&[&file, "--ply", "0"]);
    }
}

#[test]
fn record_text_is_escaped_in_the_picture() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("hostile.yam");
    std::fs::write(
        &path,
        "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"<script>alert('x')</script>&\"]\n\
         [Event \"e\"]\n[Date \"2026.01.01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\
         [NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n*\n",
    )
    .expect("write");
    let text = svg(&[path.to_str().expect("UTF-8 path")]);
    assert!(!text.contains("<script>"), "unescaped record text");
    let doc = check_svg(&text);
    let title = doc
        .descendants()
        .find(|n| n.has_tag_name("title"))
        .and_then(|n| n.text())
        .unwrap_or_default();
    assert!(title.starts_with("<script>alert('x')</script>&"), "{title}");
}

#[test]
fn a_ply_past_the_end_is_refused() {
    yam!()
        .args([
            "show",
            "--svg",
            "examples/khan/opening-lesson.yam",
            "--ply",
            "999",
        ])
        .assert()
        .code(2);
}

/// The picture's `<title>`.
fn title(text: &str) -> String {
    let doc = check_svg(text);
    doc.descendants()
        .find(|n| n.has_tag_name("title"))
        .and_then(|n| n.text())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn titles_count_plies_moves_rounds_and_turns_as_players_do() {
    for (args, want) in [
        (
            &["examples/khan/opening-lesson.yam", "--ply", "1"][..],
            "example-khan-opening-lesson after White's move 1 (1 ply)",
        ),
        (
            &["examples/khan/opening-lesson.yam", "--move", "2"][..],
            "example-khan-opening-lesson after White's move 2 (3 plies)",
        ),
        (
            &[
                "examples/castle-siege/attacker-victory-square.yam",
                "--move",
                "3",
            ][..],
            "example-siege-attacker-victory-square after round 3, the Defender's turn (103 plies)",
        ),
        (
            &[
                "examples/castle-siege/attacker-victory-square.yam",
                "--ply",
                "24",
            ][..],
            "example-siege-attacker-victory-square in round 1, 2 plies into the Attacker's turn (24 plies)",
        ),
        (
            &["examples/genghis-khan/practice.yam", "--move", "2"][..],
            "example-genghis-practice after turn 2 (21 plies)",
        ),
        (
            &["examples/genghis-khan/practice.yam", "--ply", "1"][..],
            "example-genghis-practice in turn 1, 1 ply into it (1 ply)",
        ),
    ] {
        assert_eq!(title(&svg(args)), want, "{args:?}");
    }
}

/// A Khan record whose `GameId` is `id`, two legal plies long.
fn record_with_game_id(id: &str) -> String {
    format!(
        "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"{id}\"]\n[Event \"e\"]\n\
         [Date \"2026.01.01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\
         [NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n1. Ng3-f3 Ae7-f6 *\n"
    )
}

/// Adversary: a player who writes the game's `GameId` and sends the record
/// to an archivist. Attack: the noncharacters U+FFFE and U+FFFF in the id
/// (a tag value takes any character but a quote, a backslash and a line
/// break). XML 1.0 forbids them even escaped, exactly like the control
/// characters `svg::escape` already replaces, so the picture's `<title>`
/// makes `yam show --svg` publish a file no XML reader opens.
#[test]
fn a_game_id_with_noncharacters_still_draws_well_formed_xml() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("nonchar.yam");
    std::fs::write(&path, record_with_game_id("id\u{FFFE}\u{FFFF}")).expect("write");
    // `svg` parses the picture with a real XML parser.
    let text = svg(&[path.to_str().expect("UTF-8 path")]);
    assert!(title(&text).starts_with("id"), "{text}");
}

/// Adversary: a player who writes the game's `GameId`, shown by an
/// archivist or a tournament director with `yam show` in a terminal.
/// Attack: terminal escape sequences in the id (ESC `]0;…BEL` retitles the
/// window, ESC `[2J` clears the screen; others rewrite what was printed
/// above). The text diagram's first line is the id as it stands, while the
/// rest of Yam (`mail::cards::is_unprintable`, `game::record::clean_prose`)
/// keeps such characters from ever reaching a terminal.
#[test]
fn yam_show_never_prints_a_records_control_characters_to_the_terminal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("escapes.yam");
    std::fs::write(&path, record_with_game_id("x\u{1b}]0;pwned\u{7}\u{1b}[2Jy")).expect("write");
    let out = yam!().arg("show").arg(&path).output().expect("yam runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.contains("after move 1"), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "a record's escape sequence reaches the terminal: {text:?}"
    );
}

/// Adversary: a player who writes the game's `GameId`, shown by an
/// archivist with `yam show`. Attack: the id `game-7` followed by tag
/// characters (U+E0001..U+E007F, drawn as nothing) and U+061C ARABIC
/// LETTER MARK (a bidirectional mark). The title line cleans the id with
/// `cards::clean_text`, which promises the invisible characters that hide
/// or reorder text replaced by U+FFFD, but its list stops at U+200B..U+200F,
/// the bidi embeddings and isolates, U+2060..U+2064 and U+FEFF: these go
/// through, and two different ids print alike.
#[test]
fn yam_show_never_prints_a_records_invisible_tag_characters() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tags.yam");
    std::fs::write(
        &path,
        record_with_game_id("game-7\u{E0001}\u{E0065}\u{E0076}\u{E007F}\u{061C}"),
    )
    .expect("write");
    let out = yam!().arg("show").arg(&path).output().expect("yam runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.contains("after move 1"), "{text}");
    let hidden = yam_tests::tag_characters_and_letter_marks(&text);
    assert!(
        hidden.is_empty(),
        "a record's invisible characters reach the terminal: {hidden:?}\n{text:?}"
    );
}

/// Adversary: a player who writes the record's `Ruleset` tag, shown by an
/// archivist with `yam show`. Attack: the tag names a ruleset file whose
/// path holds a right-to-left override (U+202E) and a zero-width space:
/// `RulesetName::parse` refuses control characters in such a path, not the
/// invisible ones, and the file not being there, the error prints the path
/// as it stands (`RulesetError`'s "ruleset file {}" message, the
/// path's `display()`), so the override
/// reorders the rest of the line on the archivist's terminal. Every other
/// path Yam prints goes through `diagnostics::visible_path`.
#[test]
fn yam_show_never_prints_a_ruleset_paths_bidi_override() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("override.yam");
    let record = record_with_game_id("game-8").replace(
        "[Ruleset \"magician\"]",
        "[Ruleset \"rulesets/\u{202E}\u{200B}lmay.cigam.yaml\"]",
    );
    assert!(record.contains('\u{202E}'));
    std::fs::write(&path, record).expect("write");
    let out = yam!().arg("show").arg(&path).output().expect("yam runs");
    assert!(
        !out.status.success(),
        "a missing ruleset file is no diagram"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rulesets"), "{err}");
    assert!(
        !err.contains('\u{202E}') && !err.contains('\u{200B}'),
        "a record's bidi override reaches the terminal: {err:?}"
    );
}
