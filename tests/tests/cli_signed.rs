//! Signed records end to end: `yam hotseat` plays, `yam verify` checks,
//! `yam dispute` compares, `yam export --plain` strips; attacks on the
//! text are refused with their place and reason; secrets stay home.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use predicates::prelude::*;
use yam_notation::{Comment, CommentPart, Nag, Node, RawGrammar, parse_record, record_to_string};
use yam_tests::yam;

/// A scratch directory with a secrets directory and a game file.
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

    fn new_game(&self, file: &str, extra: &[&str]) {
        yam!()
            .args(["hotseat", "new", "--ruleset", "magician"])
            .args(["--first", "alice", "--second", "bob"])
            .args(["--date", "2026.11.30", "--id"])
            .arg(format!("test-{file}"))
            .arg("--out")
            .arg(self.path(file))
            .arg("--secrets")
            .arg(self.secrets())
            .args(extra)
            .assert()
            .success();
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

    fn play(&self, file: &str, moves: &[&str]) {
        for m in moves {
            self.hotseat("move", file, &[m]).success();
        }
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

const MOVES: [&str; 6] = ["Ng3-f3", "Ae7-f6", "Nf3-e3", "Md7-e7", "Wh3-f4", "Kb7-d5"];

#[test]
fn a_hot_seat_game_verifies() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES);
    s.hotseat(
        "move",
        "game.yam",
        &["Ag4-f3", "--comment", "A quiet move."],
    )
    .success()
    .stdout(predicate::str::contains("white (alice) played Ag4-f3"));
    s.hotseat("resign", "game.yam", &[]).success().stdout(
        predicate::str::contains("black (bob) resigns")
            .and(predicate::str::contains("game over: 1-0")),
    );
    let text = s.read("game.yam");
    assert!(text.contains("A quiet move."));
    s.verify("game.yam").code(0).stdout(
        predicate::str::contains("verified (peer mode): 10 signed events, 7 plies")
            .and(predicate::str::contains(
                "result 1-0 (white wins: black resigned)",
            ))
            .and(predicate::str::contains(
                "1 verified, 0 unverified practice, 0 failed",
            )),
    );
    // The rules checker agrees.
    yam!()
        .arg("check")
        .arg(s.path("game.yam"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("1 valid"));
    // Nothing more may be played.
    s.hotseat("move", "game.yam", &["Kd5-e4"])
        .code(1)
        .stderr(predicate::str::contains("the game is over"));
}

#[test]
fn drawn_seats_and_draws_by_agreement() {
    let s = Scratch::new();
    s.new_game("game.yam", &["--draw-seats"]);
    yam!()
        .args(["hotseat", "status"])
        .arg(s.path("game.yam"))
        .assert()
        .success()
        .stdout(predicate::str::contains("next: 1. white"));
    s.play("game.yam", &MOVES[..2]);
    s.hotseat("offer-draw", "game.yam", &[]).success();
    s.hotseat("accept-draw", "game.yam", &[])
        .success()
        .stdout(predicate::str::contains(
            "game over: 1/2-1/2 (draw by agreement)",
        ));
    s.verify("game.yam")
        .code(0)
        .stdout(predicate::str::contains(
            "result 1/2-1/2 (draw by agreement)",
        ));
}

#[test]
fn a_practice_game_is_reported_as_unverified_practice() {
    let s = Scratch::new();
    s.new_game(
        "practice.yam",
        &["--mode", "practice", "--seed", "lesson one"],
    );
    s.play("practice.yam", &MOVES[..3]);
    let text = s.read("practice.yam");
    assert!(text.contains("[Mode \"practice\"]"));
    assert!(text.contains("[PracticeSeed \"lesson one\"]"));
    s.verify("practice.yam").code(0).stdout(
        predicate::str::contains("unverified practice (open seed \"lesson one\"").and(
            predicate::str::contains("0 verified, 1 unverified practice"),
        ),
    );
}

#[test]
fn an_illegal_move_is_refused_and_nothing_is_written() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..1]);
    let before = s.read("game.yam");
    s.hotseat("move", "game.yam", &["Ae7-f4"])
        .code(1)
        .stderr(predicate::str::contains("cannot reach f4"));
    s.hotseat("move", "game.yam", &["Ae7-f6", "--dry-run"])
        .success()
        .stdout(
            predicate::str::contains("black (bob) would play Ae7-f6")
                .and(predicate::str::contains("dry run")),
        );
    assert_eq!(s.read("game.yam"), before);
}

/// Every secret file's bytes, raw (a game's verified checkpoint and its
/// tip, kept beside its chains, are no secrets: hashes of what the record
/// holds, and its replay; nor are its lock and the rolls it answered).
fn secrets_in(dir: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for entry in walk(dir) {
        if entry.file_name().is_some_and(|n| {
            ["checkpoint", "tip", "lock", "answered"]
                .iter()
                .any(|k| n == *k)
        }) {
            continue;
        }
        let text = std::fs::read_to_string(&entry).unwrap();
        let hex_value = text
            .lines()
            .map(|l| l.rsplit(' ').next().unwrap_or(l))
            .find(|w| w.len() == 64)
            .unwrap();
        out.push(hex::decode(hex_value).unwrap());
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn secrets_stay_in_their_directory() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES);
    s.new_game("practice.yam", &["--mode", "practice", "--seed", "x"]);
    s.play("practice.yam", &MOVES[..2]);
    let secrets = secrets_in(&s.secrets());
    // Two identities, two chains.
    assert_eq!(secrets.len(), 4);
    // And, beside the chains, each game's verified checkpoint.
    let checkpoints = walk(&s.secrets())
        .into_iter()
        .filter(|f| f.file_name().is_some_and(|n| n == "checkpoint"))
        .count();
    assert_eq!(checkpoints, 2);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for file in walk(&s.secrets()) {
            let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", file.display());
        }
        let mode = std::fs::metadata(s.secrets()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
    let b64 = base64::engine::general_purpose::STANDARD;
    for file in ["game.yam", "practice.yam"] {
        let record = std::fs::read(s.path(file)).unwrap();
        let text = String::from_utf8(record.clone()).unwrap();
        // Every base64 argument decoded, to look inside the signed bytes.
        let decoded: Vec<Vec<u8>> = text
            .split(|c: char| c.is_whitespace() || c == ']' || c == '}')
            .filter(|w| w.len() >= 40)
            .filter_map(|w| b64.decode(w).ok())
            .collect();
        for secret in &secrets {
            let contains =
                |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
            assert!(!contains(&record, secret), "raw secret in {file}");
            assert!(!text.contains(&hex::encode(secret)), "hex secret in {file}");
            assert!(
                !text.contains(&hex::encode_upper(secret)),
                "HEX secret in {file}"
            );
            // Base64 at each of the three alignments a secret could have
            // inside a longer encoded string.
            for shift in 0..3 {
                let mut padded = vec![0u8; shift];
                padded.extend_from_slice(secret);
                let encoded = b64.encode(&padded);
                let core = &encoded[4..encoded.len() - 4];
                assert!(!text.contains(core), "base64 secret in {file}");
            }
            for bytes in &decoded {
                assert!(
                    !contains(bytes, secret),
                    "secret inside signed bytes of {file}"
                );
            }
        }
    }
}

#[test]
fn an_unsigned_record_is_a_failure_for_verify() {
    yam!()
        .args(["verify", "examples/khan/opening-lesson.yam"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "unsigned: the record carries no signed events",
        ))
        .stdout(predicate::str::contains("0 failed, 1 unsigned"));
    yam!().args(["verify", "no/such.yam"]).assert().code(2);
}

#[test]
fn text_attacks_are_refused_with_place_and_reason() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES);
    let good = s.read("game.yam");

    // A changed move in the movetext.
    s.write("bad.yam", &good.replacen("Nf3-e3", "Nf3-e4", 1));
    s.verify("bad.yam")
        .code(1)
        .stderr(
            predicate::str::contains("bad.yam:").and(predicate::str::contains(
                "signs Nf3-e3, but the movetext has Nf3-e4 here",
            )),
        );

    // A swapped key in the header.
    let record = parse_record::<RawGrammar>(&good).unwrap();
    let (first, second) = (
        record.tags.get("FirstKey").unwrap().to_owned(),
        record.tags.get("SecondKey").unwrap().to_owned(),
    );
    let swapped = good
        .replace(&first, "FIRST")
        .replace(&second, &first)
        .replace("FIRST", &second);
    s.write("bad.yam", &swapped);
    s.verify("bad.yam").code(1).stderr(
        predicate::str::contains("the FirstKey tag says")
            .and(predicate::str::contains("bad.yam:12:1")),
    );

    // A changed signature.
    let mut record = parse_record::<RawGrammar>(&good).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    if let Some(Node::Comment(c)) = record.movetext.last_mut()
        && let Some(CommentPart::Command(cmd)) = c.parts.last_mut()
    {
        let mut sig = b64.decode(&cmd.args[1]).unwrap();
        sig[0] ^= 0x80;
        cmd.args[1] = b64.encode(sig);
    }
    s.write("bad.yam", &record_to_string::<RawGrammar>(&record));
    s.verify("bad.yam").code(1).stderr(predicate::str::contains(
        "event #7: the signature does not verify",
    ));

    // Two turns swapped, events and all.
    let mut record = parse_record::<RawGrammar>(&good).unwrap();
    let at = |r: &yam_notation::Record<String>, token: &str| {
        r.movetext
            .iter()
            .position(|n| matches!(n, Node::Move(m, _) if m == token))
            .unwrap()
    };
    let (a, b) = (at(&record, "Ae7-f6"), at(&record, "Nf3-e3"));
    record.movetext.swap(a, b);
    record.movetext.swap(a + 1, b + 1);
    s.write("bad.yam", &record_to_string::<RawGrammar>(&record));
    s.verify("bad.yam")
        .code(1)
        .stderr(predicate::str::contains("the event says it is #4"));

    // Truncated in the middle of a turn: the last move's event is gone.
    let mut record = parse_record::<RawGrammar>(&good).unwrap();
    record.movetext.pop();
    s.write("bad.yam", &record_to_string::<RawGrammar>(&record));
    s.verify("bad.yam").code(1).stderr(
        predicate::str::contains("this move is not signed").and(predicate::str::contains("Kb7-d5")),
    );
}

#[test]
fn annotating_a_verified_game_keeps_it_verified() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES);
    let mut record = parse_record::<RawGrammar>(&s.read("game.yam")).unwrap();
    let at = record
        .movetext
        .iter()
        .position(|n| matches!(n, Node::Move(m, _) if m == "Nf3-e3"))
        .unwrap();
    let notes = [
        Node::Nag(Nag(1)),
        Node::Comment(Comment::text("Takes the centre.")),
        Node::StartVariation,
        Node::MoveNumber(2, yam_notation::Dots::One),
        Node::Move("Nf3-f5".to_owned(), Default::default()),
        Node::Comment(Comment::text("is the other plan")),
        Node::EndVariation,
    ];
    for (i, n) in notes.into_iter().enumerate() {
        record.movetext.insert(at + 1 + i, n);
    }
    s.write("annotated.yam", &record_to_string::<RawGrammar>(&record));
    let text = s.read("annotated.yam");
    assert!(text.contains("Nf3-e3! {Takes the centre.} (2. Nf3-f5"));
    s.verify("annotated.yam")
        .code(0)
        .stdout(predicate::str::contains("1 verified"));
    // And the hot seat goes on from the annotated file.
    s.play("annotated.yam", &["Ag4-f3"]);
    assert!(s.read("annotated.yam").contains("Takes the centre."));
    s.verify("annotated.yam").code(0);
}

#[test]
fn disputes_find_the_fork_and_the_equivocation() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..4]);
    let base = s.read("game.yam");
    let dispute = |a: &str, b: &str| yam!().arg("dispute").arg(s.path(a)).arg(s.path(b)).assert();
    // Identical.
    s.write("copy.yam", &base);
    dispute("game.yam", "copy.yam")
        .code(0)
        .stdout(predicate::str::contains(
            "the logs are identical (6 signed events)",
        ));
    // One continues the other.
    s.play("game.yam", &["Wh3-f4"]);
    dispute("copy.yam", "game.yam")
        .code(0)
        .stdout(predicate::str::contains(
            "no conflict: log B is log A carried further",
        ));
    // White signs two different third moves: equivocation.
    s.play("copy.yam", &["Ag4-f3", "Kb7-c6"]);
    dispute("game.yam", "copy.yam").code(1).stdout(
        predicate::str::contains("fork at event #6")
            .and(predicate::str::contains("proof of equivocation by"))
            // The player by name and side beside the key.
            .and(
                predicate::str::is_match("verdict: alice, white \\([0-9a-f ]+\\) equivocated")
                    .unwrap(),
            )
            .and(predicate::str::contains("equivocated"))
            .and(predicate::str::contains("only branch B")),
    );
    // A branch whose fork event is forged (its signature broken) is void.
    let mut record = parse_record::<RawGrammar>(&s.read("copy.yam")).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut events = record
        .movetext
        .iter_mut()
        .filter_map(|n| match n {
            Node::Comment(c) => Some(c),
            _ => None,
        })
        .flat_map(|c| c.parts.iter_mut())
        .filter_map(|p| match p {
            CommentPart::Command(c) if c.name == "event" => Some(c),
            _ => None,
        })
        .skip(6);
    let forged = events.next().unwrap();
    let mut sig = b64.decode(&forged.args[1]).unwrap();
    sig[1] ^= 1;
    forged.args[1] = b64.encode(sig);
    s.write("forged.yam", &record_to_string::<RawGrammar>(&record));
    dispute("game.yam", "forged.yam").code(1).stdout(
        predicate::str::contains("prove nothing against anyone")
            .and(predicate::str::contains("branch B is void")),
    );
}

#[test]
fn the_plain_export_keeps_the_game_and_drops_the_evidence() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..2]);
    s.hotseat(
        "move",
        "game.yam",
        &["Nf3-e3", "--comment", "Into the centre."],
    )
    .success();
    yam!()
        .args(["export", "--plain"])
        .arg(s.path("game.yam"))
        .arg("--out")
        .arg(s.path("plain.yam"))
        .assert()
        .success();
    let plain = s.read("plain.yam");
    assert!(!plain.contains("[%event"));
    assert!(!plain.contains("FirstKey"));
    assert!(plain.contains("Into the centre."));
    assert!(plain.contains("[Evidence \"removed by yam export --plain; the original verified"));
    yam!()
        .arg("check")
        .arg(s.path("plain.yam"))
        .assert()
        .code(0);
}

#[test]
fn help_texts_show_examples() {
    for command in ["verify", "dispute", "hotseat", "export"] {
        yam!()
            .args([command, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Examples:"));
    }
    yam!()
        .args(["hotseat", "new", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--secrets"));
}

#[test]
fn the_bundled_signed_examples_verify() {
    let output = yam!()
        .args(["verify", "--quiet", "examples/khan/signed"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let report = String::from_utf8(output).unwrap();
    // One game of each of the five game types, and a practice game; then
    // the grand total.
    let (files, total) = report.trim_end().rsplit_once('\n').unwrap();
    assert_eq!(files.matches("1 game, 1 verified,").count(), 5, "{report}");
    assert_eq!(
        files.matches("1 unverified practice").count(),
        1,
        "{report}"
    );
    assert!(
        total.starts_with(
            "total: 6 games, 5 verified, 1 unverified practice, 0 failed, 0 unsigned;"
        ) && total.ends_with("in 6 files"),
        "{report}"
    );
}

#[test]
fn the_plain_export_numbers_khan_moves_as_pgn_does() {
    // With the events' comments gone, `N...` right after its move says
    // nothing and is dropped; one after a comment stays.
    let out = yam!()
        .args(["export", "--plain", "examples/khan/signed/basic.yam"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let plain = String::from_utf8(out.stdout).unwrap();
    assert!(
        plain.contains("2. Ng3-f3 Ac5-d6 3. Wh2-g4 Ad6-c6"),
        "{plain}"
    );
    assert!(
        plain.contains("signed by its player's key.} 1... Ab5-c5"),
        "{plain}"
    );
    assert!(!plain.contains("2... Ac5-d6"), "{plain}");
}

/// A checkpoint an earlier build wrote (version 1, its seal SHA-256 over
/// the same fields) is no checkpoint now: the game is verified whole once
/// and goes on, and a checkpoint of this build is written in its place.
#[test]
fn a_checkpoint_of_an_earlier_build_costs_one_whole_verification_and_is_written_anew() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..4]);
    let dir = s.secrets().join("games/test-game.yam");
    let kept = std::fs::read_to_string(dir.join("checkpoint")).unwrap();
    let field = |name: &str| {
        kept.lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap()
            .to_owned()
    };
    // The earlier build's file for the same events: its seal of SHA-256
    // over the earlier domain (the signatures read from the record).
    let record = parse_record::<RawGrammar>(&s.read("game.yam")).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    // (`Hash32::of` is SHA-256.)
    let mut sealed = b"yam/v1/checkpoint\0".to_vec();
    sealed.extend(6u32.to_be_bytes());
    sealed.extend(hex::decode(field("head ")).unwrap());
    for node in &record.movetext {
        if let Node::Comment(c) = node {
            for part in &c.parts {
                if let CommentPart::Command(cmd) = part
                    && cmd.name == "event"
                {
                    sealed.extend(b64.decode(&cmd.args[1]).unwrap());
                }
            }
        }
    }
    let earlier = format!(
        "yam-checkpoint 1\nevents 6\nhead {}\nseal {}\n",
        field("head "),
        yam_referee::fair_play::hash::Hash32::of(&sealed).to_hex()
    );
    std::fs::write(dir.join("checkpoint"), &earlier).unwrap();
    // No tip either: the record is read through the checkpoint alone.
    let _ = std::fs::remove_file(dir.join("tip"));
    s.play("game.yam", &MOVES[4..5]);
    let now = std::fs::read_to_string(dir.join("checkpoint")).unwrap();
    assert!(now.starts_with("yam-checkpoint 2\nevents 7\n"), "{now}");
    s.verify("game.yam").success();
}

/// The hot-seat's verified checkpoint (SECRETS/games/GAME/checkpoint)
/// spares a turn the signatures it checked before, and vouches for nothing
/// else: a covered event whose signature was changed in the file is
/// refused all the same, as is the record under a checkpoint copied from
/// another game; a garbled checkpoint is no checkpoint.
#[test]
fn a_checkpoint_vouches_for_nothing_but_what_was_verified() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..4]);
    let checkpoint = s.secrets().join("games/test-game.yam/checkpoint");
    let kept = std::fs::read_to_string(&checkpoint).unwrap();
    assert!(kept.starts_with("yam-checkpoint 2\nevents 6\n"), "{kept}");
    let good = s.read("game.yam");

    // A covered event (the second move's) with a changed signature.
    let mut record = parse_record::<RawGrammar>(&good).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut commands = record.movetext.iter_mut().filter_map(|n| match n {
        Node::Comment(c) => c.parts.iter_mut().find_map(|p| match p {
            CommentPart::Command(cmd) if cmd.name == "event" => Some(cmd),
            _ => None,
        }),
        _ => None,
    });
    let cmd = commands.nth(3).unwrap();
    let mut sig = b64.decode(&cmd.args[1]).unwrap();
    sig[0] ^= 0x80;
    cmd.args[1] = b64.encode(sig);
    s.write("game.yam", &record_to_string::<RawGrammar>(&record));
    s.hotseat("move", "game.yam", &["Wh3-f4", "--dry-run"])
        .code(1)
        .stderr(predicate::str::contains("the signature does not verify"));
    s.hotseat("move", "game.yam", &["Wh3-f4"])
        .code(1)
        .stderr(predicate::str::contains("the signature does not verify"));
    assert_eq!(std::fs::read_to_string(&checkpoint).unwrap(), kept);

    // The honest file back: the game goes on, the checkpoint with it.
    s.write("game.yam", &good);
    s.play("game.yam", &MOVES[4..5]);
    let moved = std::fs::read_to_string(&checkpoint).unwrap();
    assert!(moved.contains("\nevents 7\n"), "{moved}");

    // Another game's checkpoint in its place vouches for nothing: the
    // record is verified whole (and the game goes on).
    s.new_game("other.yam", &[]);
    s.play("other.yam", &MOVES[..5]);
    let other = s.secrets().join("games/test-other.yam/checkpoint");
    std::fs::copy(&other, &checkpoint).unwrap();
    s.hotseat("move", "game.yam", &["Kb7-d5", "--dry-run"])
        .success();
    // Garbled: no checkpoint, a whole verification, and a new one.
    std::fs::write(&checkpoint, "yam-checkpoint 2\nevents 7\n").unwrap();
    s.play("game.yam", &MOVES[5..]);
    assert!(
        std::fs::read_to_string(&checkpoint)
            .unwrap()
            .contains("\nevents 8\n")
    );
    s.verify("game.yam").success();
}

/// A turn that changes the header (a resignation sets the Result tag)
/// prints the whole record anew: its first bytes are no longer those the
/// restored tip's kept BLAKE3 state is of (`signed::prefix`,
/// `check_keeping`), and the tip written after it must still be one of the
/// new file, never a tip whose hash is of the old file's first bytes.
#[test]
fn a_record_printed_anew_gets_a_tip_of_its_own_bytes() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES);
    let tip = s.secrets().join("games/test-game.yam/tip");
    let before = s.read("game.yam");
    assert!(yam_tests::tip_is_of(&tip, &before), "a tip of the game");
    s.hotseat("resign", "game.yam", &[]).success();
    let after = s.read("game.yam");
    assert_ne!(before[..200], after[..200], "the header changed");
    assert!(
        yam_tests::tip_is_of(&tip, &after),
        "the tip written after the resignation is one of the new file"
    );
    s.verify("game.yam").success();
}

/// The hot-seat keeps the tip of each game it writes (its verified replay,
/// bound to the file's bytes: `docs/fair-play.md`, 9.11) and plays the
/// next turn from it, reading only the file's header and printing only the
/// new events. A game played so is the game played whole: canonical
/// (printed again, every byte the same) and verified; a file changed
/// behind the tip's back is verified whole and refused; a damaged or
/// foreign tip is no tip.
#[test]
fn a_game_played_through_its_tip_is_the_game_played_whole() {
    let canonical =
        |text: &str| record_to_string::<RawGrammar>(&parse_record::<RawGrammar>(text).unwrap());
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..3]);
    let tip = s.secrets().join("games/test-game.yam/tip");
    let kept = std::fs::read(&tip).unwrap();
    assert!(kept.starts_with(b"yam-tip\0"));
    let good = s.read("game.yam");
    assert_eq!(canonical(&good), good);
    // Each move was played from the tip the one before wrote, and wrote
    // one of its own file: the next move is played from it too.
    assert!(yam_tests::tip_is_of(&tip, &good), "the tip is of the file");

    // A covered signature changed in the file: the tip is not of this
    // text, the record is verified whole and refused, the tip kept.
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut record = parse_record::<RawGrammar>(&good).unwrap();
    let cmd = record
        .movetext
        .iter_mut()
        .filter_map(|n| match n {
            Node::Comment(c) => c.parts.iter_mut().find_map(|p| match p {
                CommentPart::Command(cmd) if cmd.name == "event" => Some(cmd),
                _ => None,
            }),
            _ => None,
        })
        .nth(3)
        .unwrap();
    let mut sig = b64.decode(&cmd.args[1]).unwrap();
    sig[0] ^= 0x80;
    cmd.args[1] = b64.encode(sig);
    s.write("game.yam", &record_to_string::<RawGrammar>(&record));
    s.hotseat("move", "game.yam", &[MOVES[3]])
        .code(1)
        .stderr(predicate::str::contains("the signature does not verify"));
    assert_eq!(std::fs::read(&tip).unwrap(), kept);

    // The honest file back, and a tip damaged on disk: no tip, the game
    // goes on, a new tip is written.
    s.write("game.yam", &good);
    let mut damaged = kept.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    std::fs::write(&tip, &damaged).unwrap();
    s.play("game.yam", &MOVES[3..4]);
    assert_ne!(std::fs::read(&tip).unwrap(), damaged);

    // A file far larger than any tip of this game is not read: no tip.
    std::fs::write(&tip, vec![0u8; 4 << 20]).unwrap();
    s.hotseat("move", "game.yam", &[MOVES[4], "--dry-run"])
        .success();
    assert!(
        std::fs::metadata(&tip).unwrap().len() < 1 << 20,
        "a tip again"
    );

    // Another game's tip in its place vouches for nothing.
    s.new_game("other.yam", &[]);
    s.play("other.yam", &MOVES[..2]);
    std::fs::copy(s.secrets().join("games/test-other.yam/tip"), &tip).unwrap();
    s.play("game.yam", &MOVES[4..]);
    let played = s.read("game.yam");
    assert_eq!(canonical(&played), played, "every turn printed canonically");
    s.verify("game.yam").success();

    // Castle Siege (sealed setups, rolls, responses joining a comment) and
    // Genghis Khan (a director's draws), a turn a process, each through the
    // tip the one before kept.
    for (kind, extra) in [
        ("castle-siege", ["--second", "bob"]),
        ("genghis-khan", ["--director", "dir"]),
    ] {
        let file = format!("{kind}.yam");
        yam!()
            .args([
                "hotseat",
                "new",
                "--game-type",
                kind,
                "--ruleset",
                "standard",
            ])
            .args(["--first", "alice"])
            .args(extra)
            .args(["--date", "2026.11.30", "--id"])
            .arg(format!("test-{kind}"))
            .arg("--out")
            .arg(s.path(&file))
            .arg("--secrets")
            .arg(s.secrets())
            .assert()
            .success();
        for seed in 0..24 {
            s.hotseat(
                "auto",
                &file,
                &["--steps", "1", "--seed", &seed.to_string()],
            )
            .success();
            let text = s.read(&file);
            assert_eq!(canonical(&text), text, "{kind} after {seed}");
            let tip = s.secrets().join(format!("games/test-{kind}/tip"));
            assert!(
                yam_tests::tip_is_of(&tip, &text),
                "{kind}'s tip after {seed}"
            );
        }
        assert!(s.secrets().join(format!("games/test-{kind}/tip")).exists());
        s.verify(&file).success();
    }
}

/// Two hot-seat commands on one game at once (two players at two
/// terminals of one account): `auto --to-end` reads the record once and
/// writes every later turn over the file, so a resignation another
/// command wrote meanwhile, and reported ("game over: 1-0"), was replaced
/// without a word by `auto`'s next turn, and the game went on to another
/// result. Whatever the order, a command that said it wrote a turn must
/// find it in the record, or one of the two must refuse.
#[test]
fn a_turn_written_while_auto_plays_is_not_lost() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    let start = s.read("game.yam");
    let auto = std::process::Command::new(yam_tests::yam_bin!())
        .args(["hotseat", "auto"])
        .arg(s.path("game.yam"))
        .arg("--to-end")
        .arg("--secrets")
        .arg(s.secrets())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Once `auto` has written its first turn, the player to move resigns.
    while s.read("game.yam") == start {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let resigned = s.hotseat("resign", "game.yam", &[]).get_output().clone();
    let auto = auto.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&resigned.stdout);
    if resigned.status.success() {
        let text = s.read("game.yam");
        let verified = s.verify("game.yam").get_output().clone();
        let verdict = String::from_utf8_lossy(&verified.stdout);
        assert!(
            verdict.contains("resigned"),
            "resign said\n{said}\nand `auto` (exit {:?}) wrote over it; the record ends:\n{}\nverify: {verdict}",
            auto.status.code(),
            &text[text.len().saturating_sub(200)..]
        );
    }
}

/// Real life (a half-copied backup, a sync tool that cut the file): a
/// chain file that lost its last kept value. The chain's `length 1024` is
/// right; the file is short. The hot-seat said "a chain length must be 1
/// to 1048576, not 1024", which is false on its face and says nothing of
/// the file being damaged or what to do, where a damaged chain elsewhere is
/// named as such ("restore it from a backup").
#[test]
fn a_chain_file_cut_short_is_said_damaged_not_of_a_bad_length() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..3]);
    let before = s.read("game.yam");
    let chain = s.secrets().join("games/test-game.yam/bob.chain");
    let text = std::fs::read_to_string(&chain).unwrap();
    // The last line (a kept value) lost.
    let cut = &text[..text[..text.len() - 1].rfind('\n').unwrap() + 1];
    assert!(cut.len() < text.len() && cut.starts_with("yam chain 1\nlength "));
    std::fs::write(&chain, cut).unwrap();
    let out = s
        .hotseat("move", "game.yam", &[MOVES[3]])
        .failure()
        .get_output()
        .clone();
    assert_eq!(s.read("game.yam"), before, "nothing is written");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bob.chain"), "the file named: {stderr}");
    assert!(
        !stderr.contains("must be 1 to 1048576") && stderr.contains("damaged"),
        "the chain file is said to be damaged, not its length out of range: {stderr}"
    );
}

/// Real life (a sync tool or a hand that made a folder of the name): a
/// directory where the hot-seat keeps its tip. The cache cannot be kept,
/// and every turn warns; the warning must say which file is in the way,
/// since it is the one thing the player can mend. It said "cannot keep the
/// verified checkpoint (Is a directory ...)", naming neither the tip nor
/// its path, while the checkpoint itself was kept.
#[test]
fn a_tip_that_cannot_be_kept_is_named_in_the_warning() {
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..2]);
    let tip = s.secrets().join("games/test-game.yam/tip");
    std::fs::remove_file(&tip).unwrap();
    std::fs::create_dir(&tip).unwrap();
    let out = s
        .hotseat("move", "game.yam", &[MOVES[2]])
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning"), "{stderr}");
    assert!(
        stderr.contains(&tip.display().to_string()),
        "the warning names the file in the way ({}): {stderr}",
        tip.display()
    );
    s.verify("game.yam").success();
}

#[test]
fn a_dispute_never_prints_the_equivocators_seat_name_raw() {
    // The seat names are labels no signature covers: the equivocator
    // writes his own into the log he hands the director. The reasons and
    // the verdict are shown safe; the proof's line must be too, or an
    // escape sequence retitles the terminal, erases the line and moves
    // the cursor, and a right-to-left override reorders the culprit's name.
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..4]);
    let base = s.read("game.yam");
    s.write("copy.yam", &base);
    s.play("game.yam", &["Wh3-f4"]);
    s.play("copy.yam", &["Ag4-f3", "Kb7-c6"]);
    let hostile = "[White \"alice\x1b]0;bob equivocated\x07\x1b[2K\x1b[1G\u{202E}\"]";
    for file in ["game.yam", "copy.yam"] {
        let text = s.read(file).replace("[White \"alice\"]", hostile);
        assert!(text.contains(hostile));
        s.write(file, &text);
    }
    let out = yam!()
        .arg("dispute")
        .arg(s.path("game.yam"))
        .arg(s.path("copy.yam"))
        .assert()
        .code(1);
    let shown = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(shown.contains("proof of equivocation by"), "{shown}");
    assert!(
        !shown.contains(['\x1b', '\x07', '\u{202E}']),
        "`yam dispute` printed a seat name's control characters raw: {shown:?}"
    );
}

#[test]
fn verify_never_prints_a_records_game_id_raw() {
    // `yam show` and `yam check` clean the GameId they print; `yam verify`
    // prints it in every game's label, on standard output. An unsigned
    // game, or a signed one whose GameId tag was changed, holds any text
    // there: an escape sequence clears the director's screen, retitles the
    // window, or moves the cursor to paint a verdict over the line.
    let s = Scratch::new();
    s.new_game("game.yam", &[]);
    s.play("game.yam", &MOVES[..2]);
    let hostile = "test-game.yam\x1b]0;verified\x07\x1b[2J\x1b[1G\u{202E}";
    let text = s.read("game.yam").replace(
        "[GameId \"test-game.yam\"]",
        &format!("[GameId \"{hostile}\"]"),
    );
    assert!(text.contains(hostile));
    s.write("changed.yam", &text);
    s.write(
        "unsigned.yam",
        &format!(
            "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"{hostile}\"]\n[Date \"2026.11.30\"]\n\
             [White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n\
             [Ruleset \"magician\"]\n\n1. Ng3-f3 *\n"
        ),
    );
    for file in ["changed.yam", "unsigned.yam"] {
        let out = s.verify(file);
        let output = out.get_output();
        let shown = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(shown.contains("game 1 (test-game.yam"), "{shown}");
        assert!(
            !shown.contains(['\x1b', '\x07', '\u{202E}']),
            "`yam verify {file}` printed the GameId's control characters raw: {shown:?}"
        );
    }
}
