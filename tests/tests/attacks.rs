//! The fair-play layer under attack (`docs/fair-play.md`, 3.3): a player
//! with its own real keys and chain (`yam_tests::attacker`) writes each
//! hostile record a modified client could write, and `yam verify` refuses
//! it, naming the event, where it stands in the text and the rule it
//! breaks. The attacks that arrive by mail are in `mail_play`
//! (`an_attack_by_mail_is_refused_and_the_game_goes_on`).

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use yam_referee::fair_play::chain::{ChainSecret, HashChain};
use yam_referee::fair_play::game_id::GameId;
use yam_referee::fair_play::turn::EventBody;
use yam_tests::attacker::{self, Cheater, Log};
use yam_tests::yam;

/// A scratch folder with a secrets directory, for hot-seat games.
struct Table {
    dir: tempfile::TempDir,
}

impl Table {
    fn new() -> Table {
        Table {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, file: &str) -> PathBuf {
        self.dir.path().join(file)
    }

    fn secrets(&self) -> PathBuf {
        self.path("secrets")
    }

    fn hotseat(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        yam!()
            .arg("hotseat")
            .args(args)
            .arg("--secrets")
            .arg(self.secrets())
            .assert()
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.path(file)).unwrap()
    }

    fn cheater(&self, name: &str, game: &str) -> Cheater {
        Cheater::from_secrets(&self.secrets(), name, game)
    }

    /// A Castle Siege game between ann (Defender) and bo, played by the
    /// engine through the setups and the Defender's first turn: roll 0
    /// (events #6 request, #7 response, #8 outcome turn) and roll 1 (#9,
    /// #10, #11). Bo is to move.
    fn siege(&self) -> Log {
        self.siege_named("attack-siege", "siege.yam")
    }

    /// As [`Table::siege`], with game id `id`, in `name`.
    fn siege_named(&self, id: &str, name: &str) -> Log {
        let file = self.path(name);
        self.hotseat(&[
            "new",
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            // CS-P1: the event counts below are a priority-list turn's.
            "--turn",
            "priority-list",
            "--first",
            "ann",
            "--second",
            "bo",
            "--date",
            "2026.12.01",
            "--id",
            id,
            "--out",
            file.to_str().unwrap(),
        ])
        .success();
        self.hotseat(&["auto", file.to_str().unwrap(), "--steps", "6"])
            .success();
        let log = Log::parse(&self.read(name));
        assert_eq!(log.events().len(), 12, "{}", self.read(name));
        log
    }

    /// Writes `log` to `file` and runs `yam verify` on it.
    fn verify(&self, file: &str, log: &Log) -> assert_cmd::assert::Assert {
        self.write(file, &log.text());
        yam!().arg("verify").arg(self.path(file)).assert()
    }

    fn write(&self, file: &str, text: &str) {
        std::fs::write(self.path(file), text).unwrap();
    }
}

/// `yam verify` refuses the record, and its diagnostic names the file and
/// line, the event, and each of `reasons`.
fn refused(assert: assert_cmd::assert::Assert, file: &Path, event: u32, reasons: &[&str]) {
    let out = assert.code(1).get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let located = format!("{}:", file.display());
    assert!(stderr.contains(&located), "no file:line:col in {stderr}");
    let named = format!("event #{event}");
    assert!(stderr.contains(&named), "no {named} in {stderr}");
    for reason in reasons {
        assert!(stderr.contains(reason), "no {reason:?} in {stderr}");
    }
    // The diagnostic's first lines, for whoever runs with --nocapture.
    eprintln!("{}", stderr.lines().take(2).collect::<Vec<_>>().join("\n"));
}

#[test]
fn a_second_request_for_an_answered_roll_is_refused() {
    let t = Table::new();
    let mut log = t.siege();
    let ann = t.cheater("ann", "attack-siege");
    // Ann's roll 0 is answered (#7); instead of playing it she asks again
    // for the same declaration, to keep the better of two outcomes.
    log.cut_after(7);
    let again = attacker::reroll(&log, &ann);
    log.append(&[], &again);
    refused(
        t.verify("reroll.yam", &log),
        &t.path("reroll.yam"),
        8,
        &[
            "another roll request while roll 0 is open",
            "answered, waiting for the turn that plays its outcomes",
            "the roll must be played first",
        ],
    );
}

#[test]
fn a_withheld_outcome_is_reported_and_only_its_requester_may_be_claimed_against() {
    let t = Table::new();
    let mut log = t.siege();
    let (ann, bo) = (
        t.cheater("ann", "attack-siege"),
        t.cheater("bo", "attack-siege"),
    );
    // Ann's roll 0 is answered and she never plays it: the record
    // verifies, and says who owes what since when.
    log.cut_after(7);
    let withheld = log.text();
    t.write("withheld.yam", &withheld);
    yam!()
        .arg("verify")
        .arg(t.path("withheld.yam"))
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("roll 0 open").and(predicate::str::contains(
                "open roll: roll 0 is answered and waiting for its outcomes, owed by defender (",
            ))
            .and(predicate::str::contains("since event #7")),
        );
    // Bo may claim the forfeit: the game waits for Ann.
    let mut claim = Log::parse(&withheld);
    claim.append(&[], &attacker::forfeit_claim(&claim, &bo, ann.public_key()));
    t.verify("claim.yam", &claim).code(0);
    // Ann may not claim one against Bo, who owes nothing.
    let mut wrong = Log::parse(&withheld);
    wrong.append(&[], &attacker::forfeit_claim(&wrong, &ann, bo.public_key()));
    refused(
        t.verify("wrong-claim.yam", &wrong),
        &t.path("wrong-claim.yam"),
        8,
        &["claims that attacker", "but the game waits for defender"],
    );
    // Nor may she play anything but the roll: dropping its outcome turn
    // for another move is refused.
    let mut dropped = Log::parse(&withheld);
    let other = dropped.next(&ann, attacker::plain_turn(&["End"]));
    dropped.append(&["End"], &other);
    refused(
        t.verify("dropped.yam", &dropped),
        &t.path("dropped.yam"),
        8,
        &["a move while roll 0 is open"],
    );
    // The hot-seat harness will not play past it either: another move is
    // refused, and the next turn it plays is the roll's own.
    t.write("resume.yam", &withheld);
    t.hotseat(&["move", t.path("resume.yam").to_str().unwrap(), "End"])
        .code(1)
        .stderr(predicate::str::contains(
            "roll 0 is open (answered, waiting for the turn that plays its outcomes",
        ));
    t.hotseat(&["auto", t.path("resume.yam").to_str().unwrap()])
        .success();
    yam!()
        .arg("verify")
        .arg(t.path("resume.yam"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("open roll").not());
    assert_eq!(
        Log::parse(&t.read("resume.yam")).events()[8],
        Log::parse(&t.read("siege.yam")).events()[8],
        "the roll's own outcome turn, as the engine played it the first time"
    );
}

#[test]
fn a_reanchoring_while_a_roll_is_open_is_refused() {
    let t = Table::new();
    let mut log = t.siege();
    let bo = t.cheater("bo", "attack-siege");
    // Ann's request (#6) waits for Bo's response. Bo, who has seen it,
    // grinds a fresh chain until roll 0 would suit him and publishes it.
    log.cut_after(6);
    let fresh = HashChain::new(
        &ChainSecret::from_bytes([0x5e; 32]),
        GameId::new("attack-siege").unwrap(),
        bo.public_key(),
        64,
    )
    .unwrap();
    let args = attacker::reanchor(&log, &bo, &fresh);
    log.append_raw(&[], args);
    refused(
        t.verify("reanchor.yam", &log),
        &t.path("reanchor.yam"),
        7,
        &["is retired", "no re-anchoring"],
    );
}

#[test]
fn answers_out_of_turn_are_refused() {
    let t = Table::new();
    let log = t.siege();
    let (ann, bo) = (
        t.cheater("ann", "attack-siege"),
        t.cheater("bo", "attack-siege"),
    );
    // Bo is to move and has requested nothing: Ann answers roll 2 ahead of
    // its request, giving away (or harvesting) a chain value.
    let mut ahead = Log::parse(&log.text());
    ahead.append(&[], &attacker::response_ahead(&ahead, &ann, 2));
    refused(
        t.verify("ahead.yam", &ahead),
        &t.path("ahead.yam"),
        12,
        &["response for roll 2 ahead of the next request (next roll is 2)"],
    );
    // A requester answering its own request.
    let mut own = Log::parse(&log.text());
    own.cut_after(6);
    let mut response = attacker::response_ahead(&own, &ann, 0);
    // Bound to the real request, but by its own requester.
    if let EventBody::Turn(t) = &mut response.event.body
        && let Some(yam_referee::fair_play::turn::Evidence::RollResponse(r)) =
            t.evidence.first().cloned()
    {
        let mut r = r.response;
        r.request_hash = own.requests()[0].hash();
        t.evidence = yam_referee::fair_play::encoding::List::new(vec![
            yam_referee::fair_play::turn::Evidence::RollResponse(r.sign(&ann.key)),
        ])
        .unwrap();
    }
    let response = response.event.sign(&ann.key).unwrap();
    own.append(&[], &response);
    refused(
        t.verify("own.yam", &own),
        &t.path("own.yam"),
        7,
        &["may not respond to this roll"],
    );
    // Bo requesting on Ann's turn: the last turn was Ann's outcome, so cut
    // before it and let Bo ask.
    let mut early = Log::parse(&log.text());
    early.cut_after(5);
    early.append(&[], &attacker::request(&early, &bo, 0, &["Move"]));
    refused(
        t.verify("early.yam", &early),
        &t.path("early.yam"),
        6,
        &["out of turn"],
    );
}

#[test]
fn junk_and_illegal_declarations_are_refused_before_any_answer() {
    let t = Table::new();
    let log = t.siege();
    let bo = t.cheater("bo", "attack-siege");
    let mut junk = Log::parse(&log.text());
    junk.append(
        &[],
        &attacker::request(&junk, &bo, 2, &["Fly", "to", "the", "moon"]),
    );
    refused(
        t.verify("junk.yam", &junk),
        &t.path("junk.yam"),
        12,
        &["roll 2 declares", "which the rules refuse here", "\"Fly\""],
    );
    // A well-formed order the position does not allow: Bo's knight on b8
    // cannot step three squares.
    let mut illegal = Log::parse(&log.text());
    illegal.append(
        &[],
        &attacker::request(&illegal, &bo, 2, &["Move", "Kb8-b5"]),
    );
    refused(
        t.verify("illegal.yam", &illegal),
        &t.path("illegal.yam"),
        12,
        &["roll 2 declares [\"Move\", \"Kb8-b5\"], which the rules refuse here"],
    );
    // Orders that draw nothing need no roll.
    let mut idle = Log::parse(&log.text());
    idle.append(&[], &attacker::request(&idle, &bo, 2, &["End"]));
    refused(
        t.verify("idle.yam", &idle),
        &t.path("idle.yam"),
        12,
        &["it needs no roll"],
    );
}

/// CS-P4: in a faithful game (the hot-seat's default) a modified client
/// that declares a step with the allowance, or a whole turn in one roll, to
/// save mails or to commit a priority list, is refused by `yam verify`
/// before anyone answers: the record's ruleset holds it to the faithful turn.
#[test]
fn a_priority_list_in_a_faithful_game_is_refused_before_any_answer() {
    let t = Table::new();
    let file = t.path("faithful.yam");
    t.hotseat(&[
        "new",
        "--game-type",
        "castle-siege",
        "--ruleset",
        "standard",
        "--first",
        "ann",
        "--second",
        "bo",
        "--date",
        "2026.12.01",
        "--id",
        "attack-faithful",
        "--out",
        file.to_str().unwrap(),
    ])
    .success();
    // The setups: the Defender is to move, with roll 0 to come.
    t.hotseat(&["auto", file.to_str().unwrap(), "--steps", "4"])
        .success();
    let log = Log::parse(&t.read("faithful.yam"));
    assert!(log.text().contains("[Ruleset \"standard-faithful\"]"));
    let ann = t.cheater("ann", "attack-faithful");
    let event = u32::try_from(log.events().len()).unwrap();
    for (orders, reason) in [
        (
            &["Move", "Kd6-c6"][..],
            "(Move): under the faithful turn Move is declared alone",
        ),
        (
            &["Move", "Kd6-c6", "Attack", "Cd4xKa1", "End"][..],
            "(Move): under the faithful turn Move is declared alone",
        ),
        (
            &["Kd6-c6"][..],
            "(Kd6-c6): no allowance has been drawn this turn: declare Move first",
        ),
        (
            &["Attack", "Cd4xKa1", "Cd3xKa1"][..],
            "(Cd4xKa1): under the faithful turn a declaration ends with the order that rolls its die",
        ),
    ] {
        let mut cheat = Log::parse(&log.text());
        cheat.append(&[], &attacker::request(&cheat, &ann, 0, orders));
        let out = t.verify("cheat.yam", &cheat).code(1).get_output().clone();
        // The report wraps its lines; read it as one.
        let said = String::from_utf8_lossy(&out.stderr).replace('│', " ");
        let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
        for needed in [
            format!("event #{event}: roll 0 declares"),
            "which the rules refuse here".to_owned(),
            reason.to_owned(),
        ] {
            assert!(said.contains(&needed), "no {needed:?} in {said}");
        }
    }
    // The honest request, the allowance alone, is accepted as an open roll.
    let mut honest = Log::parse(&log.text());
    honest.append(&[], &attacker::request(&honest, &ann, 0, &["Move"]));
    t.verify("honest.yam", &honest).code(0);
}

#[test]
fn forfeit_claims_and_draws_follow_the_game() {
    let t = Table::new();
    let log = t.siege();
    let (ann, bo) = (
        t.cheater("ann", "attack-siege"),
        t.cheater("bo", "attack-siege"),
    );
    // Bo is to move: he cannot claim that Ann forfeited.
    let mut wrong = Log::parse(&log.text());
    wrong.append(&[], &attacker::forfeit_claim(&wrong, &bo, ann.public_key()));
    refused(
        t.verify("claim.yam", &wrong),
        &t.path("claim.yam"),
        12,
        &["claims that defender", "but the game waits for attacker"],
    );
    // Ann can.
    let mut right = Log::parse(&log.text());
    right.append(&[], &attacker::forfeit_claim(&right, &ann, bo.public_key()));
    t.verify("right.yam", &right).code(0);
    // Castle Siege has no draws (CS-50).
    let mut draw = Log::parse(&log.text());
    draw.append(&[], &draw.next(&bo, EventBody::DrawOffer));
    refused(
        t.verify("draw.yam", &draw),
        &t.path("draw.yam"),
        12,
        &["no draw may be offered", "CS-50"],
    );
}

#[test]
fn a_solo_game_has_no_draw_and_no_second_draw_of_a_card() {
    let t = Table::new();
    let file = t.path("cards.yam");
    t.hotseat(&[
        "new",
        "--game-type",
        "genghis-khan",
        "--ruleset",
        "standard",
        "--first",
        "pat",
        "--director",
        "dora",
        "--date",
        "2026.12.01",
        "--id",
        "attack-cards",
        "--out",
        file.to_str().unwrap(),
    ])
    .success();
    t.hotseat(&["move", file.to_str().unwrap(), "draw"])
        .success();
    let log = Log::parse(&t.read("cards.yam"));
    let pat = t.cheater("pat", "attack-cards");
    let mut draw = Log::parse(&log.text());
    draw.append(&[], &draw.next(&pat, EventBody::DrawOffer));
    refused(
        t.verify("draw.yam", &draw),
        &t.path("draw.yam"),
        u32::try_from(log.events().len()).unwrap(),
        &["no draw may be offered", "GK-19"],
    );
    // Director mode, best of two: the card of roll 1 is answered; Pat asks
    // for another before playing it.
    let n = log.events().len();
    let mut again = Log::parse(&log.text());
    again.cut_after(n - 2);
    again.append(&[], &attacker::reroll(&again, &pat));
    refused(
        t.verify("again.yam", &again),
        &t.path("again.yam"),
        u32::try_from(n - 1).unwrap(),
        &["another roll request while roll 1 is open"],
    );
}

#[test]
fn move_numbers_are_held_to_the_game() {
    let t = Table::new();
    let file = t.path("khan.yam");
    t.hotseat(&[
        "new",
        "--ruleset",
        "magician",
        "--first",
        "ann",
        "--second",
        "bo",
        "--date",
        "2026.12.01",
        "--id",
        "attack-numbers",
        "--out",
        file.to_str().unwrap(),
    ])
    .success();
    for m in ["Ng3-f3", "Ae7-f6", "Nf3-e3"] {
        t.hotseat(&["move", file.to_str().unwrap(), m]).success();
    }
    let honest = t.read("khan.yam");
    assert!(honest.contains("2. Nf3-e3"), "{honest}");
    t.write("shifted.yam", &honest.replace("2. Nf3-e3", "2... Nf3-e3"));
    let out = yam!()
        .arg("verify")
        .arg(t.path("shifted.yam"))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the move number 2... is wrong here: this is move 2."),
        "{stderr}"
    );
    // `yam check` says the same of the same text.
    yam!()
        .arg("check")
        .arg(t.path("shifted.yam"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("numbered wrongly"));
}

#[test]
fn a_changed_outcome_is_named_a_bad_signature_not_a_copy_mismatch() {
    let t = Table::new();
    let log = t.siege();
    let text = log.text();
    // Change the die face inside Ann's signed outcome turn (#8) and in its
    // readable copy alike: what fails is the signature.
    let outcome = log.events()[8].clone();
    let mut event = outcome.event.clone();
    if let EventBody::Turn(turn) = &mut event.body
        && let Some(yam_referee::fair_play::turn::Evidence::Outcomes { results, .. }) =
            turn.evidence.first()
    {
        let mut values: Vec<_> = results.iter().cloned().collect();
        if let yam_referee::fair_play::chance::ChanceResult::Die { sides, face } = values[0].result
        {
            values[0].result = yam_referee::fair_play::chance::ChanceResult::Die {
                sides,
                face: face % sides + 1,
            };
        }
        let mut evidence: Vec<_> = turn.evidence.iter().cloned().collect();
        evidence[0] = yam_referee::fair_play::turn::Evidence::Outcomes {
            roll: 0,
            results: yam_referee::fair_play::encoding::List::new(values).unwrap(),
        };
        turn.evidence = yam_referee::fair_play::encoding::List::new(evidence).unwrap();
    }
    let forged = yam_referee::fair_play::turn::SignedEvent {
        event,
        signature: outcome.signature,
    };
    let old = yam_referee::signed::text::event_command(&outcome).args;
    let new = yam_referee::signed::text::event_command(&forged).args;
    let tampered = text.replace(&old[0], &new[0]);
    assert_ne!(tampered, text);
    t.write("forged.yam", &tampered);
    refused(
        yam!().arg("verify").arg(t.path("forged.yam")).assert(),
        &t.path("forged.yam"),
        8,
        &["signature"],
    );
}

#[test]
fn an_event_spliced_from_another_game_is_named_as_such() {
    let t = Table::new();
    let log = t.siege();
    let other = t.siege_named("attack-other", "other.yam");
    let text = log.text();
    let mine = yam_referee::signed::text::event_command(&log.events()[8]).args;
    let theirs = yam_referee::signed::text::event_command(&other.events()[8]).args;
    let spliced = text
        .replace(&mine[0], &theirs[0])
        .replace(&mine[1], &theirs[1]);
    t.write("spliced.yam", &spliced);
    refused(
        yam!().arg("verify").arg(t.path("spliced.yam")).assert(),
        &t.path("spliced.yam"),
        8,
        &["the event belongs to game attack-other"],
    );
}
