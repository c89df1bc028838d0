//! The annotated lessons under `examples/khan/seed/` play every move the
//! Rescue Khan seed describes, and each move does what its comment says:
//! the referee's events for each move are pinned here. `yam check` and
//! `yam verify` accept every lesson, every lesson names its own ruleset
//! file, and every move carries prose.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use yam_notation::{CommentPart, Node, RawGrammar, parse_record};
use yam_referee::khan;
use yam_tests::{workspace, yam};

fn seed_dir() -> PathBuf {
    workspace().join("examples/khan/seed")
}

/// A move as written, and the referee's events for it, in words.
type Step = (&'static str, &'static [&'static str]);

/// Each lesson: its moves, and the referee's events for each.
const LESSONS: &[(&str, &[Step])] = &[
    (
        "spells-and-pickups",
        &[
            ("Hf5*h5", &["the tower archers on h5 are silenced"]),
            ("Hc5*a3", &["the tower archers on a3 are silenced"]),
            ("Wf4-h5", &["the piece on h5 picks up White's khan"]),
            ("Hc5-c3", &[]),
            ("Wh5-g4", &[]),
            ("Hc3-a3", &["the piece on a3 picks up Black's khan"]),
        ],
    ),
    (
        "enemy-captive",
        &[
            ("Ab3-a3", &["the piece on a3 picks up Black's khan"]),
            ("Wf6-h5", &["the piece on h5 picks up White's khan"]),
            (
                "Aa3-a2",
                &[
                    "the white archer dies in the manned tower square a2",
                    "Black's khan dies on a2",
                ],
            ),
            ("Wh5-f6", &[]),
        ],
    ),
    (
        "drop-offs-and-releases",
        &[
            ("Wb2-a1", &["White's khan is dropped off at a1"]),
            ("Hf7-h8", &["Black's khan is dropped off at h8"]),
            ("Wa1-c2", &["White's khan appears on a1"]),
            ("Hh8-h7", &["Black's khan appears on h8"]),
        ],
    ),
    (
        "transfers",
        &[
            ("Ae2>d1", &["White's khan passes from e2 to d1"]),
            ("Hc5>b6", &["Black's khan passes from c5 to b6"]),
            ("Wd1>e2", &["White's khan passes from d1 to e2"]),
            ("Nb6>c5", &["Black's khan passes from b6 to c5"]),
            ("Ae2>d2", &["White's khan passes from e2 to d2"]),
            ("Hc5>d5", &["Black's khan passes from c5 to d5"]),
            ("Ad2>e2", &["White's khan passes from d2 to e2"]),
            ("Ad5>c5", &["Black's khan passes from d5 to c5"]),
            ("Ae2>d3", &["White's khan passes from e2 to d3"]),
        ],
    ),
    (
        "capture-rule-1",
        &[
            (
                "Wd4xe5",
                &[
                    "the black archer on e5 is captured",
                    "Black's khan dies on e5",
                ],
            ),
            ("Fb8-c8", &[]),
        ],
    ),
    (
        "capture-rule-2",
        &[
            (
                "We5xd4",
                &[
                    "the white archer on d4 is captured",
                    "White's khan dies on d4",
                    "the piece on d4 takes over Black's khan",
                ],
            ),
            ("Fg1-f1", &[]),
        ],
    ),
    (
        "tower-deaths",
        &[
            (
                "Ag4-h5",
                &["the white archer dies in the manned tower square h5"],
            ),
            (
                "Wa6-a4",
                &["the black warrior dies in the manned tower square a4"],
            ),
            (
                "Wg7-h7",
                &["the white warrior dies in the manned tower square h7"],
            ),
            (
                "Wg5-h6",
                &["the black warrior dies in the manned tower square h6"],
            ),
        ],
    ),
];

/// Replays a lesson with the referee: each move as written, its events.
fn replay(path: &Path) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let record = parse_record::<RawGrammar>(&text).unwrap();
    let tag = record.tags.get("Ruleset").unwrap();
    let name = path.file_stem().unwrap().to_str().unwrap();
    assert_eq!(
        tag,
        format!("rulesets/{name}.yaml"),
        "{name}: each lesson names its own ruleset file"
    );
    let ruleset = yam_cli::game::rulesets::khan_ruleset(path, tag).unwrap();
    assert_eq!(ruleset.game, khan::GameType::RescueKhan, "{name}");
    assert!(record.tags.get("Position").is_none(), "{name}");
    let mut out = Vec::new();
    for ply in khan::MainLine::of(&record, &ruleset).unwrap() {
        let ply = ply.unwrap_or_else(|e| panic!("{name}: {e}"));
        out.push((
            ply.token.to_owned(),
            ply.applied.events.iter().map(ToString::to_string).collect(),
        ));
    }
    // Every move is annotated: a comment with prose follows it.
    let mut nodes = record.movetext.iter().peekable();
    while let Some(node) = nodes.next() {
        if let Node::Move(token, _) = node {
            let prose = match nodes.peek() {
                Some(Node::Comment(c)) => c
                    .parts
                    .iter()
                    .any(|p| matches!(p, CommentPart::Text(t) if !t.trim().is_empty())),
                _ => false,
            };
            assert!(prose, "{name}: {token} has no comment in words");
        }
    }
    out
}

#[test]
fn every_seed_move_is_played_and_does_what_its_comment_says() {
    for (name, expected) in LESSONS {
        let played = replay(&seed_dir().join(format!("{name}.yam")));
        let expected: Vec<(String, Vec<String>)> = expected
            .iter()
            .map(|(t, e)| ((*t).to_owned(), e.iter().map(|s| (*s).to_owned()).collect()))
            .collect();
        assert_eq!(played, expected, "{name}");
    }
    // No lesson and no ruleset file is left out.
    let mut records: Vec<String> = std::fs::read_dir(seed_dir())
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "yam").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    records.sort();
    let mut listed: Vec<String> = LESSONS.iter().map(|(n, _)| (*n).to_owned()).collect();
    listed.sort();
    assert_eq!(records, listed);
    let rulesets = std::fs::read_dir(seed_dir().join("rulesets"))
        .unwrap()
        .count();
    assert_eq!(rulesets, LESSONS.len());
}

#[test]
fn yam_check_and_yam_verify_accept_every_lesson() {
    let n = LESSONS.len();
    yam!()
        .args(["check", "examples/khan/seed"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 valid").count(n));
    yam!()
        .args(["verify", "examples/khan/seed"])
        .assert()
        .success()
        .stdout(predicate::str::contains("verified (peer mode)").count(n))
        .stdout(predicate::str::contains("1 verified").count(n));
    // And the diagram tool finds each lesson's ruleset too.
    yam!()
        .args([
            "show",
            "examples/khan/seed/drop-offs-and-releases.yam",
            "--ply",
            "0",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("W+").and(predicate::str::contains("h-")));
}
