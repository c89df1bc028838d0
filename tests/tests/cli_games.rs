//! Castle Siege and Genghis Khan, signed, end to end: `yam hotseat` seals,
//! reveals, rolls and draws through the real protocol, `yam verify` accepts
//! the honest records with their reason and refuses a changed die face or a
//! changed card with theirs, and the director's register lists every game
//! started.

use std::path::PathBuf;

use predicates::prelude::*;
use yam_tests::{workspace, yam};

/// A scratch directory with a secrets directory.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn secrets(&self) -> PathBuf {
        self.path("secrets")
    }

    fn hotseat(&self, command: &str, file: &str, args: &[&str]) -> assert_cmd::assert::Assert {
        yam!()
            .args(["hotseat", command])
            .arg(self.path(file))
            .args(args)
            .arg("--secrets")
            .arg(self.secrets())
            .assert()
    }

    fn new_game(&self, file: &str, args: &[&str]) -> assert_cmd::assert::Assert {
        yam!()
            .args(["hotseat", "new", "--date", "2026.12.01", "--id"])
            .arg(format!("e2e-{file}"))
            .args(args)
            .arg("--out")
            .arg(self.path(file))
            .arg("--secrets")
            .arg(self.secrets())
            .assert()
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.path(file)).unwrap()
    }

    fn write(&self, file: &str, text: &str) {
        std::fs::write(self.path(file), text).unwrap();
    }

    fn verify(&self, file: &str) -> assert_cmd::assert::Assert {
        yam!().arg("verify").arg(self.path(file)).assert()
    }
}

const DEFENDER: &str = "Defender:CKAO/OACK/KCOA/AOKC";
const ATTACKER: &str = "Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK";

#[test]
fn a_hot_seat_siege_with_dice_through_the_real_protocol_verifies() {
    let s = Scratch::new();
    s.new_game(
        "siege.yam",
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            // CS-P1's priority list, a whole turn in one declaration.
            "--turn",
            "priority-list",
            "--first",
            "ann",
            "--second",
            "bo",
        ],
    )
    .success()
    .stdout(
        predicate::str::contains("(standard ruleset")
            .and(predicate::str::contains("secret setups")),
    );
    // CS-07: either side seals first; the record shows only the marker.
    s.hotseat("move", "siege.yam", &[ATTACKER, "--as", "bo"])
        .success()
        .stdout(predicate::str::contains(
            "attacker (bo) played Attacker:sealed",
        ));
    // Nobody reveals before both have sealed.
    s.hotseat("move", "siege.yam", &["reveal", "--as", "bo"])
        .code(1)
        .stderr(predicate::str::contains(
            "both setups are sealed before either is revealed (CS-07)",
        ));
    s.hotseat("move", "siege.yam", &[DEFENDER])
        .success()
        .stdout(predicate::str::contains("Defender:sealed"));
    let sealed = s.read("siege.yam");
    assert!(!sealed.contains("CKAO"), "a sealed setup stays secret");
    assert!(!sealed.contains("KKRTTRKK"), "a sealed setup stays secret");
    assert!(sealed.contains("[FirstCommitment \"") && sealed.contains("[SecondCommitment \""));
    // A reveal must be the setup sealed.
    s.hotseat(
        "move",
        "siege.yam",
        &["Defender:OACK/CKAO/KCOA/AOKC", "--as", "ann"],
    )
    .code(1)
    .stderr(predicate::str::contains(
        "a sealed setup cannot change (CS-07)",
    ));
    s.hotseat("move", "siege.yam", &["reveal", "--as", "ann"])
        .success();
    s.hotseat("move", "siege.yam", &["reveal", "--as", "bo"])
        .success()
        .stdout(predicate::str::contains("next: 1. defender (ann) to move"));
    // A declaration is refused before any die with its reason.
    s.hotseat("move", "siege.yam", &["Move", "Kd6-c7", "End"])
        .code(1)
        .stderr(predicate::str::contains("refused").and(predicate::str::contains("Kd6-c7")));
    // A dry run stops at the declaration: no die is drawn.
    s.hotseat(
        "move",
        "siege.yam",
        &["Move", "Kd6-c6", "Attack", "Cd4xKa1", "End", "--dry-run"],
    )
    .success()
    .stdout(
        predicate::str::contains("would request roll 0 declaring: Move Kd6-c6 Attack Cd4xKa1 End")
            .and(predicate::str::contains("not changed")),
    );
    // A whole turn in one declaration: one roll, its faces in the tokens.
    s.hotseat(
        "move",
        "siege.yam",
        &["Move", "Kd6-c6", "Attack", "Cd4xKa1", "End"],
    )
    .success()
    .stdout(
        predicate::str::contains("defender (ann) played Move@")
            .and(predicate::str::contains("Cd4xKa1"))
            .and(predicate::str::contains("(roll 0: allowance: d6 ")),
    );
    s.hotseat(
        "move",
        "siege.yam",
        &["Move", "Kb1-b2", "Attack", "Ca4xKc4", "End"],
    )
    .success()
    .stdout(predicate::str::contains("attacker (bo) played Move@"));
    // The engine plays a declaration too.
    s.hotseat("auto", "siege.yam", &["--steps", "2", "--annotate"])
        .success();
    let text = s.read("siege.yam");
    assert!(text.contains("[%chance 0 \"allowance: d6 "));
    assert!(text.contains("Defender:CKAO/OACK/KCOA/AOKC"));
    s.verify("siege.yam").code(0).stdout(
        predicate::str::contains("verified (peer mode)")
            .and(predicate::str::contains("rolls ("))
            .and(predicate::str::contains(
                "1 verified, 0 unverified practice, 0 failed",
            )),
    );
    // The rules checker replays the same movetext from its faces.
    yam!()
        .arg("check")
        .arg(s.path("siege.yam"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("1 valid"));
    yam!()
        .arg("show")
        .arg(s.path("siege.yam"))
        .args(["--move", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Round 1: the Attacker to play"));
}

/// CS-P4: at one table Castle Siege is played as its rules say by default.
/// The allowance is rolled first, and each step, breach and attack is its
/// own declaration and its own roll, chosen once the dice before it are
/// known; the record names the faithful ruleset, and `yam verify` and
/// `yam check` hold the game to it.
#[test]
fn a_hot_seat_siege_is_faithful_by_default_and_verifies_to_its_end() {
    let s = Scratch::new();
    s.new_game(
        "siege.yam",
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "skirmish",
            "--first",
            "ann",
            "--second",
            "bo",
        ],
    )
    .success()
    .stdout(predicate::str::contains("(skirmish-faithful ruleset"));
    assert!(
        s.read("siege.yam")
            .contains("[Ruleset \"skirmish-faithful\"]")
    );
    s.hotseat("move", "siege.yam", &[DEFENDER]).success();
    s.hotseat("move", "siege.yam", &[ATTACKER, "--as", "bo"])
        .success();
    s.hotseat("move", "siege.yam", &["reveal", "--as", "ann"])
        .success();
    s.hotseat("move", "siege.yam", &["reveal", "--as", "bo"])
        .success();
    // No step is listed before the allowance is known.
    s.hotseat("move", "siege.yam", &["Move", "Kd6-c6"])
        .code(1)
        .stderr(predicate::str::contains("Move is declared alone"));
    s.hotseat("move", "siege.yam", &["Kd6-c6"])
        .code(1)
        .stderr(predicate::str::contains("declare Move first"));
    // Move alone rolls the allowance, and nothing else.
    s.hotseat("move", "siege.yam", &["Move"])
        .success()
        .stdout(predicate::str::contains("defender (ann) played Move@"));
    let text = s.read("siege.yam");
    let at = text.rfind("Move@").unwrap() + "Move@".len();
    let allowance = usize::from(text.as_bytes()[at] - b'0');
    // Steps one at a time, each its own declaration, up to the allowance;
    // the next is refused with its reason.
    let steps = [
        "Kd6-c6", "Cd4-d5", "Oc5-c4", "Ke3-e4", "Ac3-d3", "Cf3-f4", "Kf5-f6",
    ];
    for (i, step) in steps[..allowance].iter().enumerate() {
        // Typed short or long alike (the first as `d6c6`).
        let typed = if i == 0 {
            step[1..].replace('-', "")
        } else {
            (*step).to_owned()
        };
        s.hotseat("move", "siege.yam", &[&typed])
            .success()
            .stdout(predicate::str::contains(format!("played {step}")));
    }
    s.hotseat("move", "siege.yam", &[steps[allowance]])
        .code(1)
        .stderr(predicate::str::contains(format!(
            "the allowance of {allowance} is used up"
        )));
    // An attack with anything after its die is refused; alone it is played.
    s.hotseat("move", "siege.yam", &["Attack", "Cf4xKh4", "End"])
        .code(1)
        .stderr(predicate::str::contains(
            "ends with the order that rolls its die",
        ));
    s.hotseat("move", "siege.yam", &["End"])
        .success()
        .stdout(predicate::str::contains("next: 1... attacker (bo) to move"));
    // The board says which turn is played, here and in its picture.
    for svg in [false, true] {
        let mut show = yam!();
        show.arg("show")
            .arg(s.path("siege.yam"))
            .args(["--move", "1"]);
        if svg {
            show.arg("--svg");
        }
        show.assert()
            .success()
            .stdout(predicate::str::contains("round cap 8, turn faithful."));
    }
    // The engine plays the rest, one order at a time.
    s.hotseat("auto", "siege.yam", &["--to-end"]).success();
    s.verify("siege.yam").code(0).stdout(
        predicate::str::contains("verified (peer mode)")
            .and(predicate::str::contains("result 1-0").or(predicate::str::contains("result 0-1")))
            .and(predicate::str::contains(
                "1 verified, 0 unverified practice, 0 failed",
            )),
    );
    yam!()
        .arg("check")
        .arg(s.path("siege.yam"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("1 valid"));
}

/// `--turn` picks the twin of the ruleset named, and the record names it;
/// only Castle Siege has the choice.
#[test]
fn hotseat_turn_picks_the_ruleset_twin_the_record_names() {
    let s = Scratch::new();
    let base = [
        "--game-type",
        "castle-siege",
        "--first",
        "ann",
        "--second",
        "bo",
    ];
    for (i, (ruleset, turn, recorded)) in [
        ("standard", None, "standard-faithful"),
        ("standard", Some("faithful"), "standard-faithful"),
        ("standard", Some("priority-list"), "standard"),
        ("standard-faithful", Some("priority-list"), "standard"),
        ("standard-faithful", None, "standard-faithful"),
        (
            "orthogonal-restricted",
            None,
            "orthogonal-restricted-faithful",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        // A game of its own each: a chain is never reused.
        let file = format!("twin-{i}.yam");
        let mut args: Vec<&str> = base.to_vec();
        args.extend(["--ruleset", ruleset]);
        if let Some(turn) = turn {
            args.extend(["--turn", turn]);
        }
        s.new_game(&file, &args).success();
        assert!(
            s.read(&file).contains(&format!("[Ruleset \"{recorded}\"]")),
            "{ruleset} {turn:?}"
        );
    }
    s.new_game(
        "khan.yam",
        &[
            "--ruleset",
            "magician",
            "--turn",
            "faithful",
            "--first",
            "ann",
            "--second",
            "bo",
        ],
    )
    .code(2)
    .stderr(predicate::str::contains(
        "only Castle Siege has a choice of turn",
    ));
}

/// The first die face in the movetext after `marker`, changed.
fn change_first_face(text: &str, marker: &str) -> (String, String) {
    // Base64 has no `@`, so the first `Move@` is a token of the movetext.
    let at = text.find(marker).unwrap() + marker.len();
    let face = text.as_bytes()[at] - b'0';
    let other = face % 6 + 1;
    let mut out = text.to_owned();
    out.replace_range(at..=at, &other.to_string());
    (out, format!("{marker}{other}"))
}

#[test]
fn verify_accepts_the_siege_examples_and_refuses_one_die_face_changed() {
    let s = Scratch::new();
    yam!()
        .args(["verify", "examples/castle-siege"])
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains(
                "result 0-1 (Attacker wins: an attacking unit entered the victory square",
            )
            .and(predicate::str::contains("(CS-47)"))
            .and(predicate::str::contains("(CS-50)"))
            // Three files and their grand total.
            .and(predicate::str::contains("0 failed").count(4))
            .and(predicate::str::contains("in 3 files")),
        );
    let honest = std::fs::read_to_string(
        workspace().join("examples/castle-siege/attacker-victory-square.yam"),
    )
    .unwrap();
    let (changed, token) = change_first_face(&honest, "Move@");
    s.write("changed.yam", &changed);
    s.verify("changed.yam")
        .code(1)
        .stdout(predicate::str::contains("not verified"))
        .stderr(
            predicate::str::contains("signs Move@")
                .and(predicate::str::contains(format!(
                    "but the movetext has {token}"
                )))
                .and(predicate::str::contains("changed.yam:")),
        );
    // The readable value changed as well: still the signed event decides.
    let chance_at = changed.find("\"allowance: d6 ").unwrap() + "\"allowance: d6 ".len();
    let mut both = changed.clone();
    both.replace_range(chance_at..=chance_at, &token[token.len() - 1..]);
    s.write("both.yam", &both);
    s.verify("both.yam")
        .code(1)
        .stderr(predicate::str::contains("signs Move@"));
    // Only the readable value changed: refused against the signed outcomes.
    let chance_at = honest.find("\"allowance: d6 ").unwrap() + "\"allowance: d6 ".len();
    let face = honest.as_bytes()[chance_at] - b'0';
    let mut readable = honest.clone();
    readable.replace_range(chance_at..=chance_at, &(face % 6 + 1).to_string());
    s.write("readable.yam", &readable);
    s.verify("readable.yam")
        .code(1)
        .stderr(predicate::str::contains("the readable outcomes say"));
}

#[test]
fn verify_accepts_the_card_examples_and_refuses_one_drawn_card_changed() {
    let s = Scratch::new();
    yam!()
        .args(["verify", "examples/genghis-khan"])
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("verified (director mode)")
                .and(predicate::str::contains("    director   "))
                .and(predicate::str::contains("unverified practice (open seed"))
                .and(predicate::str::contains("the player abandoned the game"))
                .and(predicate::str::contains("/150 (the game is over")),
        );
    let honest =
        std::fs::read_to_string(workspace().join("examples/genghis-khan/director-pat-1.yam"))
            .unwrap();
    // Base64 has no `:`, so the first `draw:` is a token of the movetext.
    let at = honest.find("draw:").unwrap();
    let end = at + honest[at..].find(" {").unwrap();
    let drawn = &honest[at..end];
    let other = if drawn.starts_with("draw:1a/") {
        "draw:1b"
    } else {
        "draw:1a"
    };
    let mut changed = honest.clone();
    changed.replace_range(at..end, other);
    s.write("changed.yam", &changed);
    s.verify("changed.yam").code(1).stderr(
        predicate::str::contains(format!("signs {drawn}"))
            .and(predicate::str::contains("but the movetext has draw:1"))
            .and(predicate::str::contains("changed.yam:")),
    );
    // The rows shown by `yam show` come from the same values.
    yam!()
        .args([
            "show",
            "examples/genghis-khan/director-pat-1.yam",
            "--move",
            "1",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Genghis Khan: turn 2 of 21")
                .and(predicate::str::contains("best still possible")),
        );
}

#[test]
fn a_director_game_is_in_the_register_and_its_draws_are_rolls() {
    let s = Scratch::new();
    let cards = [
        "--game-type",
        "genghis-khan",
        "--ruleset",
        "standard",
        "--first",
        "pat",
        "--director",
        "dora",
    ];
    // A solo game has a director, not a second player, and no peer mode.
    s.new_game("x.yam", &[&cards[..6], &["--second", "bo"]].concat())
        .code(2)
        .stderr(predicate::str::contains("solo game"));
    s.new_game("x.yam", &[&cards[..], &["--mode", "peer"]].concat())
        .code(2)
        .stderr(predicate::str::contains("--mode peer"));
    s.new_game("one.yam", &cards).success().stdout(
        predicate::str::contains("director mode")
            .and(predicate::str::contains("lists 1 game started by pat"))
            .and(predicate::str::contains("director dora")),
    );
    // The layout was roll 0; the next card is roll 1, drawn alone.
    s.hotseat("move", "one.yam", &["draw", "--dry-run"])
        .success()
        .stdout(predicate::str::contains(
            "would request roll 1 declaring: draw",
        ));
    s.hotseat("move", "one.yam", &["draw", "draw"])
        .code(1)
        .stderr(predicate::str::contains("GK-P1"));
    s.hotseat("move", "one.yam", &["draw"]).success().stdout(
        predicate::str::contains("player (pat) played draw:")
            .and(predicate::str::contains("(roll 1: turn 1 Horde: card 1: #")),
    );
    s.hotseat("auto", "one.yam", &["--steps", "4", "--annotate"])
        .success();
    s.verify("one.yam").code(0).stdout(
        predicate::str::contains("verified (director mode)")
            .and(predicate::str::contains("6 rolls")),
    );
    s.new_game("two.yam", &cards)
        .success()
        .stdout(predicate::str::contains("lists 2 games started by pat"));
    // A practice game proves nothing, and is not registered.
    s.new_game(
        "practice.yam",
        &[&cards[..], &["--mode", "practice", "--seed", "x"]].concat(),
    )
    .success()
    .stdout(
        predicate::str::contains("practice: unverified")
            .and(predicate::str::contains("register").not()),
    );
    let register = s.secrets().join("director").join("register.yam");
    yam!()
        .arg("verify")
        .arg(&register)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("2 games, 2 verified"));
}

#[test]
fn a_damaged_register_is_said_not_miscounted() {
    // Real life: the director's register, `SECRETS/director/register.yam`,
    // is there but damaged: here its first game was cut short (a restore
    // from a backup taken while a copy was half done, a disk error). The
    // next director game was appended to it without a word, and the
    // count the command prints, the register's whole point ("a ladder
    // sees every game a player started"), skipped the entry that no
    // longer parses: "lists 2 games started by pat" for a register that
    // holds three. A register that cannot be read whole must be said
    // (its file and where it fails), not miscounted.
    let s = Scratch::new();
    let cards = [
        "--game-type",
        "genghis-khan",
        "--ruleset",
        "standard",
        "--first",
        "pat",
        "--director",
        "dora",
    ];
    s.new_game("one.yam", &cards)
        .success()
        .stdout(predicate::str::contains("lists 1 game started by pat"));
    s.new_game("two.yam", &cards)
        .success()
        .stdout(predicate::str::contains("lists 2 games started by pat"));
    let register = s.secrets().join("director").join("register.yam");
    let text = std::fs::read_to_string(&register).unwrap();
    // The first game's text cut in its last third.
    let second = text
        .find("\n\n[")
        .expect("setup: two games in the register")
        + 2;
    let cut = second * 2 / 3;
    let damaged = format!("{}\n\n{}", &text[..cut], &text[second..]);
    std::fs::write(&register, &damaged).unwrap();
    let out = s.new_game("three.yam", &cards);
    let output = out.get_output();
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    // Counted right, or the damage named; never a count that leaves out
    // an entry without a word.
    assert!(
        !said.contains("lists 2 games started by pat"),
        "the damaged register was miscounted without a word: {said}"
    );
    assert!(
        said.contains("lists 3 games started by pat") || said.contains("register.yam:"),
        "{said}"
    );
}

/// Adversary: a solo player against the director's register. The
/// player opens one director game (registered once), copies its record
/// and plays the copy to the end as a scout: the hot-seat director answers
/// every roll of the copy, and since the chains were fixed in the opening
/// and every Horde roll declares the same `draw`, the scout shows the
/// whole Khan deck in the order the real game will deal it. The real
/// record is then played with every card known before any choice (GK-P1:
/// "not even their order exists before each one is needed"; the threat
/// model: "foresee it before deciding"), and the scout, the attempt the
/// register exists to show, is nowhere in it: "play many, report the
/// best" with one registered game. The director must not answer a roll of
/// a game a second time for another record (a second response at index k
/// is the director's equivocation, 3.9); it did, and the real game drew
/// exactly the cards the scout revealed, whatever the player chose.
#[test]
fn a_director_game_cannot_be_scouted_on_a_copy_of_its_record() {
    let s = Scratch::new();
    let cards = [
        "--game-type",
        "genghis-khan",
        "--ruleset",
        "standard",
        "--first",
        "pat",
        "--director",
        "dora",
    ];
    s.new_game("real.yam", &cards)
        .success()
        .stdout(predicate::str::contains("lists 1 game started by pat"));
    // The scout: the same record, under another name, played to its end.
    s.write("scout.yam", &s.read("real.yam"));
    s.hotseat("auto", "scout.yam", &["--to-end"]).success();
    let scout = s.read("scout.yam");
    let scouted: Vec<&str> = scout
        .split_whitespace()
        .filter(|w| w.starts_with("draw:"))
        .collect();
    assert_eq!(scouted.len(), 100, "the scout drew the whole Khan deck");
    // The real game draws what the scout drew while it plays as the scout
    // did (the same requests, the same answers: nothing the game would not
    // draw anyway); the scout's first choice was an attack.
    for _ in 0..5 {
        s.hotseat("move", "real.yam", &["draw"]).success();
    }
    let real = s.read("real.yam");
    let drawn: Vec<&str> = real
        .split_whitespace()
        .filter(|w| w.starts_with("draw:"))
        .collect();
    assert_eq!(drawn, scouted[..5], "the same five cards, the same answers");
    assert!(scout.contains("attack:M"), "the scout attacked");
    // Knowing the cards to come, the player passes instead: the next card
    // is roll 6, which the director answered for the scout. Answered
    // again for this record, the scout would have shown the player every
    // card before each choice (play many, report the best, with one
    // registered game): the director refuses, and nothing is written.
    s.hotseat("move", "real.yam", &["pass"]).success();
    let before = s.read("real.yam");
    s.hotseat("move", "real.yam", &["draw"])
        .code(1)
        .stderr(predicate::str::contains(
            "roll 6 of this game was answered before, for another record",
        ))
        .stdout(predicate::str::contains("played draw").not());
    assert_eq!(s.read("real.yam"), before, "nothing is written");
}

/// Adversary: real life. A player's chain file
/// (`SECRETS/games/GAME/NAME.chain`, docs/fair-play.md 9.8) is damaged on
/// disk: one byte of a kept checkpoint value changed. The hot-seat must not
/// trust it (it does not: the replay refuses the reveal it gives) and must
/// lose nothing, but it must also say what is wrong and where: the chain
/// file does not give the anchor the record's opening published, so the
/// error names that file. Today the player reads "refused: the event was
/// refused: event #6: chain of ...: the value at position 1 does not extend
/// the chain", as if a rule refused the move, with no word of the file to
/// restore from a backup.
#[test]
fn a_damaged_chain_file_is_named_as_the_fault_and_nothing_is_written() {
    let s = Scratch::new();
    new_siege(&s);
    // Both setups sealed and revealed: the Defender's first turn is a roll.
    s.hotseat("auto", "siege.yam", &["--steps", "4"]).success();
    let before = s.read("siege.yam");
    let chain = s.secrets().join("games/e2e-siege.yam/ann.chain");
    let text = std::fs::read_to_string(&chain).unwrap();
    // The first kept checkpoint value, its first hex digit changed.
    let damaged = damage_hex(&text, "checkpoint ", 1);
    assert_ne!(damaged, text);
    std::fs::write(&chain, damaged).unwrap();
    let out = s
        .hotseat("auto", "siege.yam", &["--steps", "1"])
        .failure()
        .get_output()
        .clone();
    assert_eq!(s.read("siege.yam"), before, "nothing is written");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ann.chain"),
        "the error names the damaged chain file: {stderr}"
    );
}

/// A faithful standard siege between ann (first) and bo, in `siege.yam`.
fn new_siege(s: &Scratch) {
    s.new_game(
        "siege.yam",
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            "--first",
            "ann",
            "--second",
            "bo",
        ],
    )
    .success();
}

/// `text` with the first hex digit after `prefix` changed on its `nth`
/// line (from 1) that begins with it: a secret file damaged on disk.
fn damage_hex(text: &str, prefix: &str, nth: usize) -> String {
    let mut seen = 0;
    text.lines()
        .map(|line| match line.strip_prefix(prefix) {
            Some(hex)
                if {
                    seen += 1;
                    seen == nth
                } =>
            {
                let digit = if hex.starts_with('0') { '1' } else { '0' };
                format!("{prefix}{digit}{}\n", &hex[1..])
            }
            _ => format!("{line}\n"),
        })
        .collect()
}

/// A priority-list siege with both setups sealed and revealed: the
/// Defender's next turn is roll 0.
fn siege_at_its_first_roll(s: &Scratch) {
    s.new_game(
        "siege.yam",
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            "--turn",
            "priority-list",
            "--first",
            "ann",
            "--second",
            "bo",
        ],
    )
    .success();
    s.hotseat("move", "siege.yam", &[DEFENDER]).success();
    s.hotseat("move", "siege.yam", &[ATTACKER, "--as", "bo"])
        .success();
    s.hotseat("move", "siege.yam", &["reveal", "--as", "ann"])
        .success();
    s.hotseat("move", "siege.yam", &["reveal", "--as", "bo"])
        .success();
}

/// No re-roll by restarting (`docs/fair-play.md`, 1 and 3.3; a chain's
/// values are never used twice, 3.2): the Defender keeps a copy of the
/// record from before her roll, sees its dice, puts the copy back and
/// declares something else. The hot-seat signed a second request at roll
/// 0 and answered it with the Attacker's key, revealing the same chain
/// values again: a second throw of the dice, and a record that verifies.
/// (The same declaration again is the same events, byte for byte: a turn
/// run again after a crash is no re-roll.)
#[test]
fn a_record_put_back_from_before_a_roll_does_not_throw_the_dice_again() {
    let s = Scratch::new();
    siege_at_its_first_roll(&s);
    let before = s.read("siege.yam");
    s.hotseat(
        "move",
        "siege.yam",
        &["Move", "Kd6-c6", "Attack", "Cd4xKa1", "End"],
    )
    .success()
    .stdout(predicate::str::contains("(roll 0: allowance: d6 "));
    let rolled = s.read("siege.yam");
    // The same turn again from the copy: the same record.
    s.write("siege.yam", &before);
    s.hotseat(
        "move",
        "siege.yam",
        &["Move", "Kd6-c6", "Attack", "Cd4xKa1", "End"],
    )
    .success();
    assert_eq!(
        s.read("siege.yam"),
        rolled,
        "the same turn, the same events"
    );
    // Another declaration at the same roll: the dice are not thrown again.
    s.write("siege.yam", &before);
    let again = s
        .hotseat("move", "siege.yam", &["Move", "Kd6-c6", "End"])
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(
        !again.status.success() && !stdout.contains("(roll 0:"),
        "roll 0 was thrown a second time for another declaration, the same chain values revealed again:\n{stdout}"
    );
    assert_eq!(s.read("siege.yam"), before, "nothing is written");
}

/// What `run` gives while `siege.yam` cannot be replaced (a full disk, a
/// read-only folder): immutable where `chattr` works, even as root, else
/// its folder made read-only; made writable again before returning.
#[cfg(unix)]
fn with_the_record_unwritable<T>(s: &Scratch, run: impl FnOnce(&Scratch) -> T) -> T {
    use std::os::unix::fs::PermissionsExt;
    let record = s.path("siege.yam");
    let chattr = |flag: &str| {
        std::process::Command::new("chattr")
            .arg(flag)
            .arg(&record)
            .status()
            .is_ok_and(|st| st.success())
    };
    let immutable = chattr("+i");
    if !immutable {
        std::fs::set_permissions(s.dir.path(), std::fs::Permissions::from_mode(0o500)).unwrap();
    }
    let probe = s.path(".probe");
    let refused = std::fs::write(&probe, b"x")
        .and_then(|()| std::fs::rename(&probe, &record))
        .is_err();
    let _ = std::fs::remove_file(&probe);
    let out = refused.then(|| run(s));
    if immutable {
        assert!(chattr("-i"));
    } else {
        std::fs::set_permissions(s.dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    out.unwrap_or_else(|| panic!("setup: cannot make {} unwritable here", record.display()))
}

/// A roll's values are shown only for a turn that is written: when the
/// record cannot be replaced (a folder made read-only, a full disk, an
/// immutable file), the hot-seat printed "played ... (roll 0: d6 ...)"
/// and then failed, the record unchanged, so the mover had seen the dice
/// of a turn the record does not hold and could declare another.
#[cfg(unix)]
#[test]
fn a_turn_that_cannot_be_written_shows_no_dice() {
    let s = Scratch::new();
    siege_at_its_first_roll(&s);
    let before = s.read("siege.yam");
    let out = with_the_record_unwritable(&s, |s| {
        s.hotseat(
            "move",
            "siege.yam",
            &["Move", "Kd6-c6", "Attack", "Cd4xKa1", "End"],
        )
        .get_output()
        .clone()
    });
    assert!(!out.status.success(), "the record could not be written");
    assert_eq!(s.read("siege.yam"), before, "nothing was written");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("(roll 0:") && !stdout.contains("played Move@"),
        "the dice of a turn that was not written were shown:\n{stdout}"
    );
}

/// Real life: a turn whose record cannot be written (a full disk, a
/// read-only or immutable file) shows no dice, and the hot-seat says
/// "cannot write"; the player frees the disk and, having seen nothing,
/// declares another turn. But the answer to roll 0 was remembered in
/// `SECRETS/games/GAME/answered` before the write failed, so every other
/// declaration is refused for good ("answered before, for another record
/// ... a copy of the game, or a record put back"): no record holds roll 0
/// and no dice were shown, yet the game can go on only with the exact
/// declaration that failed, which the player must remember word for word.
/// A write that fails must not leave its answers remembered.
#[cfg(unix)]
#[test]
fn a_turn_that_could_not_be_written_does_not_bind_the_next_declaration() {
    let s = Scratch::new();
    siege_at_its_first_roll(&s);
    let before = s.read("siege.yam");
    let failed = with_the_record_unwritable(&s, |s| {
        s.hotseat(
            "move",
            "siege.yam",
            &["Move", "Kd6-c6", "Attack", "Cd4xKa1", "End"],
        )
        .get_output()
        .clone()
    });
    assert!(!failed.status.success(), "the record could not be written");
    assert_eq!(s.read("siege.yam"), before, "nothing was written");
    // The disk is free again; the Defender, who saw no dice, declares
    // another turn.
    let next = s
        .hotseat("move", "siege.yam", &["Move", "Kd6-c6", "End"])
        .get_output()
        .clone();
    assert!(
        next.status.success(),
        "a declaration after a turn that was never written (no dice shown, no record holds roll 0) is refused for good:\n{}",
        String::from_utf8_lossy(&next.stderr)
    );
}

/// Real life: `hotseat new` of a director game whose record cannot be
/// written (a folder not made yet, a full disk, a typo in `--out`) fails
/// with "cannot write", and nothing else is said; but the game was put in
/// the director's register first, so the game the player then starts is
/// counted as her second ("lists 2 games started by pat"), and a ladder
/// that reads the register sees a game started whose record never
/// existed. A game that is not started is not registered.
#[test]
fn a_game_whose_record_cannot_be_written_is_not_registered() {
    let s = Scratch::new();
    let cards = [
        "--game-type",
        "genghis-khan",
        "--ruleset",
        "standard",
        "--first",
        "pat",
        "--director",
        "dora",
    ];
    s.new_game("no-such-folder/cards.yam", &cards)
        .failure()
        .stderr(predicate::str::contains("cannot write"));
    assert!(!s.path("no-such-folder/cards.yam").exists());
    s.new_game("cards.yam", &cards)
        .success()
        .stdout(predicate::str::contains("lists 1 game started by pat"));
}

/// Real life, as `a_game_whose_record_cannot_be_written_is_not_registered`
/// with players new to the secrets directory: the record's folder does not
/// exist, `new` fails with "cannot write", and the game leaves no chain
/// and no register entry; but both identities were made (their signing
/// seeds drawn and written) before the record's file was opened, without a
/// word, so the game the player then starts never says "new identity pat
/// with key fingerprint ...": the one line that tells her a key was made
/// for her, and its fingerprint, is lost. A game that is not started
/// leaves nothing (`docs/fair-play.md`, 9.8).
#[test]
fn a_game_that_could_not_be_written_makes_no_identity_unsaid() {
    let s = Scratch::new();
    let cards = [
        "--game-type",
        "genghis-khan",
        "--ruleset",
        "standard",
        "--first",
        "pat",
        "--director",
        "dora",
    ];
    s.new_game("no-such-folder/cards.yam", &cards)
        .failure()
        .stderr(predicate::str::contains("cannot write"));
    let out = s
        .new_game("cards.yam", &cards)
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("new identity pat with key fingerprint")
            && stdout.contains("new identity dora with key fingerprint"),
        "the identities made by a game that never started were never announced:\n{stdout}"
    );
}

/// Real life: a club gives its final the id `club-final`, and the player
/// who opens it mistypes the date (`--date 2026.12.32`). The date is
/// checked only once the record is printed, after both chains were drawn
/// into `SECRETS/games/club-final/`: the command says "internal error: the
/// new record: the record does not parse", and the same command with the
/// date put right is refused for good ("a chain for this game already
/// exists; ... choose another game id"), though no record, no anchor of
/// those chains, was ever written. A game that is not started leaves
/// nothing (`docs/fair-play.md`, 9.8): its own flags are checked before
/// anything is drawn, and a typo is the user's, said as such.
#[test]
fn a_mistyped_date_does_not_burn_the_game_id() {
    let s = Scratch::new();
    let new = |date: &str| {
        yam!()
            .args([
                "hotseat",
                "new",
                "--game-type",
                "khan",
                "--ruleset",
                "magician",
            ])
            .args(["--first", "alice", "--second", "bob", "--id", "club-final"])
            .args(["--date", date, "--out"])
            .arg(s.path("final.yam"))
            .arg("--secrets")
            .arg(s.secrets())
            .assert()
    };
    let typo = new("2026.12.32").failure().get_output().clone();
    assert!(!s.path("final.yam").exists());
    let again = new("2026.12.31").get_output().clone();
    assert!(
        again.status.success(),
        "the game id is burnt by a date typo in a game that never started:\n{}\n(the typo was said as: {})",
        String::from_utf8_lossy(&again.stderr),
        String::from_utf8_lossy(&typo.stderr).trim()
    );
    assert!(
        !String::from_utf8_lossy(&typo.stderr).contains("internal error"),
        "a mistyped --date is said as an internal error: {}",
        String::from_utf8_lossy(&typo.stderr)
    );
}

/// Real life, as `a_damaged_chain_file_is_named_as_the_fault_and_nothing_is_written`
/// but one kept value further up: the chain file's second checkpoint
/// (`x_64`, from which positions 33 to 64 are hashed down) damaged on
/// disk. The anchor is computed from the first kept value, so the file
/// passes the anchor check, the game plays 32 rolls, and at roll 33 the
/// player reads "refused: the event was refused: event #125: chain of
/// ...: the value at position 33 does not extend the chain", as if a rule
/// refused the move, with no word of the file (which could be mended from
/// its own intact secret). A kept value is checked against the one below
/// it before it is used, and a damaged one is named as the fault.
#[test]
fn a_chain_file_damaged_above_its_first_kept_value_is_named_as_the_fault() {
    let s = Scratch::new();
    new_siege(&s);
    s.hotseat("auto", "siege.yam", &["--steps", "4"]).success();
    let chain = s.secrets().join("games/e2e-siege.yam/ann.chain");
    let text = std::fs::read_to_string(&chain).unwrap();
    // The second kept checkpoint value, its first hex digit changed.
    let damaged = damage_hex(&text, "checkpoint ", 2);
    assert_ne!(damaged, text);
    std::fs::write(&chain, damaged).unwrap();
    let out = s
        .hotseat("auto", "siege.yam", &["--to-end"])
        .failure()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ann.chain"),
        "the error names the damaged chain file: {stderr}"
    );
}

/// Real life, as for a damaged chain file: a sealed setup kept in the
/// secrets directory (`SECRETS/games/GAME/NAME.setup`) that no longer
/// opens the commitment the record holds (its salt damaged on disk, or
/// the two players' files swapped by a hand tidying the folder). The
/// hot-seat signed the reveal and the replay refused it: "the revealed
/// setup of 6fb8 ... does not match its commitment ...", as if the
/// player had cheated, with no word of the file. The kept setup is
/// checked against the record's commitment before it is revealed, and a
/// file that does not open it is named as the fault.
#[test]
fn a_kept_setup_that_does_not_open_its_commitment_is_named_as_the_fault() {
    let s = Scratch::new();
    new_siege(&s);
    s.hotseat("move", "siege.yam", &[DEFENDER]).success();
    s.hotseat("move", "siege.yam", &[ATTACKER, "--as", "bo"])
        .success();
    let before = s.read("siege.yam");
    let kept = s.secrets().join("games/e2e-siege.yam/ann.setup");
    let text = std::fs::read_to_string(&kept).unwrap();
    // The salt's first hex digit changed.
    let damaged = damage_hex(&text, "salt ", 1);
    assert_ne!(damaged, text);
    std::fs::write(&kept, damaged).unwrap();
    let out = s
        .hotseat("move", "siege.yam", &["reveal", "--as", "ann"])
        .failure()
        .get_output()
        .clone();
    assert_eq!(s.read("siege.yam"), before, "nothing is written");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ann.setup"),
        "the error names the kept setup's file: {stderr}"
    );
}

/// A chain is never re-anchored, so "the opening sizes each chain for the
/// whole game" (`docs/fair-play.md`, 3.2: a chain that runs out is a
/// client's defect). At one table a siege is played faithfully (CS-P4),
/// every allowance, breach and attack its own roll, and every roll takes
/// a value of both chains: the self-play driver's games of the standard
/// ruleset took 58 to 218 rolls (seeds 1 to 25), 193 of them in a game of
/// 17 rounds and 208 in one of 13, and the round cap is 50. The hot-seat
/// still drew chains of 256 values (its `--chain-length` default, for
/// every game), where the desk draws at least 1,024, and eight a round of
/// the cap (`commands/play/act.rs`, `chain_length`), for a game of the
/// same rules: a siege at one table that lasts some 20 rounds stops,
/// "exhausted", before its end, and cannot be finished.
#[test]
fn a_hot_seat_siege_draws_chains_for_its_whole_game() {
    let s = Scratch::new();
    new_siege(&s);
    for name in ["ann", "bo"] {
        let chain = s
            .secrets()
            .join(format!("games/e2e-siege.yam/{name}.chain"));
        let text = std::fs::read_to_string(&chain).unwrap();
        let length: u32 = text
            .lines()
            .find_map(|l| l.strip_prefix("length "))
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            length >= 1024,
            "{name}'s chain has {length} values for a faithful siege of up to 50 rounds"
        );
    }
}

/// Real life: a player starts a siege at one table with `--chain-length 0`
/// (or a length past 2^20, a typo of an extra digit). The command fails,
/// "cannot build the chain", but only after it made both identities
/// (`SECRETS/identities/ann.seed`, `bo.seed`) without a word. The same
/// command put right then plays under those keys and never says "new
/// identity ... with key fingerprint": the players never learn the
/// fingerprints their opponents are to check. A game that is not started
/// leaves nothing, "no identity made without its new identity line"
/// (`docs/fair-play.md`, 9.8): the length is one of `new`'s own flags, and
/// can be checked with the date and the event, before anything is made.
#[test]
fn a_chain_length_out_of_range_makes_no_identity_unsaid() {
    let s = Scratch::new();
    let siege = |file: &str, extra: &[&str]| {
        let mut args = vec![
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            "--first",
            "ann",
            "--second",
            "bo",
        ];
        args.extend_from_slice(extra);
        s.new_game(file, &args)
    };
    siege("bad.yam", &["--chain-length", "0"])
        .failure()
        .stderr(predicate::str::contains("chain length"));
    assert!(!s.path("bad.yam").exists());
    let out = siege("siege.yam", &[]).success().get_output().clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("new identity ann with key fingerprint")
            && stdout.contains("new identity bo with key fingerprint"),
        "the identities made by a game that never started were never announced:\n{stdout}"
    );
}

/// A hot-seat siege whose chains run out (`--chain-length` chosen too
/// short: "`--chain-length N` still chooses", `docs/fair-play.md` 9.8) stops
/// at the next roll with "refused: the chain is exhausted: all 3 values
/// have been revealed": not whose chain, not that it was the length chosen
/// at `new`, not what the players can still do. No roll can ever be made
/// again in this game (a chain is never re-anchored, 3.2), yet the game is
/// not over: the players can still end it by `resign` or a draw by
/// agreement (they can; it works), and declarations that draw no die.
/// An error that ends what a game can do must say what ran out and what
/// is left to do.
#[test]
fn a_chain_that_runs_out_names_whose_it_is_and_what_is_left() {
    let s = Scratch::new();
    s.new_game(
        "siege.yam",
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard-faithful",
            "--first",
            "ann",
            "--second",
            "bo",
            "--chain-length",
            "3",
        ],
    )
    .success();
    let out = s
        .hotseat("auto", "siege.yam", &["--to-end"])
        .failure()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("exhausted"),
        "the chains of 3 values run out before the end: {stderr}"
    );
    let named = stderr
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| word == "ann" || word == "bo");
    assert!(
        named && stderr.contains("--chain-length") && stderr.contains("resign"),
        "the error names whose chain ran out, the length chosen for it and \
         what the players can still do (resign, offer a draw):\n{stderr}"
    );
    // What the error leaves out is true: the game can still be ended.
    s.hotseat("resign", "siege.yam", &[]).success();
    s.verify("siege.yam").success();
}
