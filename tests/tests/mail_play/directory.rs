//! Mail play through lettre's file transport: whole games, every refusal,
//! offers, take-backs, forfeits, backups, and no secret in any mail.

use std::path::Path;

use predicates::prelude::*;
use yam_referee::fair_play::turn::EventBody;
use yam_tests::attacker::{self, Cheater, Log};
use yam_tests::yam;

use super::{Inbox, Player, main_line, open_game};

/// Ann and Bo, each mailing into the other's inbox folder.
fn pair(root: &Path) -> (Player, Player) {
    pair_with(root, "bo@example.net")
}

/// [`pair`], Bo writing from `bo_address`.
fn pair_with(root: &Path, bo_address: &str) -> (Player, Player) {
    let inbox = |who: &str| root.join(format!("{who}-inbox"));
    let archive = |who: &str| root.join(format!("{who}-read"));
    for who in ["ann", "bo"] {
        std::fs::create_dir_all(inbox(who)).unwrap();
    }
    let outgoing = |to: &str| {
        format!(
            "outgoing:\n  directory:\n    path: {}\n",
            inbox(to).display()
        )
    };
    let ann = Player::new(
        "Ann",
        "ann@example.org",
        Inbox::Files {
            dir: inbox("ann"),
            archive: archive("ann"),
        },
        &outgoing("bo"),
    );
    let bo = Player::new(
        "Bo",
        bo_address,
        Inbox::Files {
            dir: inbox("bo"),
            archive: archive("bo"),
        },
        &outgoing("ann"),
    );
    (ann, bo)
}

/// Ann (White) and Bo play the first `moves` of the example Rescue Khan
/// game.
fn khan_after(root: &Path, moves: usize) -> (Player, Player, Vec<String>) {
    khan_after_with(root, moves, &[])
}

/// A challenge's options for Rescue Khan, the challenger seated first.
const RESCUE_KHAN_FIRST: [&str; 6] = [
    "--game-type",
    "khan",
    "--ruleset",
    "rescue-khan",
    "--seats",
    "first",
];

/// The main line of the example Rescue Khan game.
fn example_line() -> Vec<String> {
    let example = std::fs::read_to_string(
        yam_tests::workspace().join("examples/khan/signed/rescue-khan.yam"),
    )
    .unwrap();
    main_line(&example)
}

/// [`khan_after`], Ann's challenge taking `more` options too.
fn khan_after_with(root: &Path, moves: usize, more: &[&str]) -> (Player, Player, Vec<String>) {
    let (ann, bo) = pair(root);
    let mut args = RESCUE_KHAN_FIRST.to_vec();
    args.extend_from_slice(more);
    open_game(&ann, &bo, "khan-1", &args);
    let line = example_line();
    for (i, mv) in line.iter().take(moves).enumerate() {
        let (mover, other) = if i % 2 == 0 { (&ann, &bo) } else { (&bo, &ann) };
        mover.yam(&["move", "khan-1", mv]).success();
        other.read();
    }
    (ann, bo, line)
}

#[test]
fn refused_mails_change_nothing_and_stay_in_place() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    let Inbox::Files {
        dir: bo_inbox,
        archive: bo_read,
    } = bo.inbox.clone()
    else {
        unreachable!()
    };
    let read_mails = super::mail_files(&bo_read);
    let last_from_ann = read_mails.last().unwrap().clone();

    // Read again: nothing changes, and it is said.
    bo.yam(&["read", "--eml", last_from_ann.to_str().unwrap()])
        .success()
        .stdout(predicate::str::contains("read before; nothing changes"));
    // An older turn of Ann's (a late or duplicated delivery): nothing new,
    // and nothing wrong.
    let older = read_mails
        .iter()
        .rev()
        .find(|m| {
            std::fs::read_to_string(m)
                .unwrap()
                .contains("X-Yam-Game: khan-1 0")
        })
        .unwrap();
    bo.yam(&["read", "--eml", older.to_str().unwrap()])
        .success()
        .stdout(predicate::str::contains("nothing"));
    bo.yam(&["move", "khan-1", &line[3]]).success();
    ann.read();
    let bo_before = bo.record("khan-1");

    // A copy of Ann's desk, made before her third move, will sign another
    // third move with her own key: a fork.
    let copy = tempfile::tempdir().unwrap();
    copy_dir(ann.dir(), copy.path());
    let twin = Player {
        name: "Ann".into(),
        address: ann.address.clone(),
        data: copy,
        inbox: ann.inbox.clone(),
    };

    // Ann moves; the mail is then tampered with before Bo reads it.
    ann.yam(&["move", "khan-1", &line[4]]).success();
    let mail = super::mail_files(&bo_inbox).pop().unwrap();
    let raw = std::fs::read_to_string(&mail).unwrap();
    std::fs::remove_file(&mail).unwrap();

    // From a stranger's address.
    let stranger = root.path().join("stranger.eml");
    std::fs::write(
        &stranger,
        raw.replace("ann@example.org", "mallory@example.com"),
    )
    .unwrap();
    bo.yam(&["read", "--eml", stranger.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains(
            "signed by Ann <ann@example.org>, but the mail is from mallory@example.com",
        ));

    // From an address full of terminal codes: a forger who would clear
    // Bo's screen and print a fake "new event" line. The address is shown
    // with every control character replaced.
    let escapes = root.path().join("escapes.eml");
    std::fs::write(
        &escapes,
        raw.replace(
            "From: Ann <ann@example.org>",
            "From: <\"\u{1b}[2J\rgame khan-1: 1 new event(s)\u{1b}[8m\u{202e}\"@evil.example>",
        ),
    )
    .unwrap();
    let out = bo
        .yam(&["read", "--eml", escapes.to_str().unwrap()])
        .code(1);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        said.contains("but the mail is from \"\u{fffd}[2j\u{fffd}game"),
        "{said}"
    );
    assert!(!said.contains(['\u{1b}', '\r', '\u{202e}']), "{said:?}");

    // A stranger's mail of 100,000 begin lines and one end line (2.5 MB):
    // refused at once, each block read once, and the reason is the right
    // one (a new begin line before the end line, not a missing end line).
    let flood = root.path().join("flood.eml");
    std::fs::write(
        &flood,
        format!(
            "From: Eve <eve@evil.example>\r\nTo: {}\r\nSubject: hi\r\nMessage-ID: <flood@evil.example>\r\n\r\n{}-----END YAM TURN-----\r\n",
            bo.address,
            "-----BEGIN YAM TURN-----\r\n".repeat(100_000)
        ),
    )
    .unwrap();
    bo.yam(&["read", "--eml", flood.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains(
            "from eve@evil.example: the turn block is cut off: a new -----BEGIN YAM TURN----- line comes before its -----END YAM TURN----- line",
        ));

    // A forged turn: the move changed in the record, the signature kept;
    // the attachment and the block re-encoded as a forger would.
    let record = ann.record("khan-1");
    let forged_record = record.replacen(&format!(" {} ", line[4]), " Kb7-b6 ", 1);
    assert_ne!(forged_record, record);
    let forged_path = root.path().join("forged.eml");
    std::fs::write(&forged_path, compose_like(&raw, &forged_record)).unwrap();
    bo.yam(&["read", "--eml", forged_path.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains("does not verify: line "))
        .stdout(predicate::str::contains(", column "));
    assert_eq!(bo.record("khan-1"), bo_before, "refusals change nothing");
    for left in [&stranger, &escapes, &flood, &forged_path] {
        assert!(left.exists(), "a refused mail stays where it was");
    }

    // Bo's desk as it stands now, for the twin's mixed mail below.
    let bo_then = tempfile::tempdir().unwrap();
    copy_dir(bo.dir(), bo_then.path());

    // The genuine mail is taken.
    std::fs::write(&mail, &raw).unwrap();
    assert!(bo.read().contains("1 new event(s)"));
    assert_eq!(main_line(&bo.record("khan-1")).len(), 5);
    let after_third = bo.record("khan-1");

    // The twin signs another third move; Bo refuses it as a fork.
    let board = twin.yam(&["board", "khan-1"]).success();
    let board = String::from_utf8_lossy(&board.get_output().stdout).into_owned();
    let other = board
        .lines()
        .find_map(|l| l.strip_prefix("legal now ("))
        .and_then(|l| l.split_once("): "))
        .map(|(_, moves)| {
            moves
                .split_whitespace()
                .find(|m| *m != line[4])
                .unwrap()
                .to_owned()
        })
        .unwrap();
    twin.yam(&["move", "khan-1", &other]).success();
    let fork = super::mail_files(&bo_inbox).pop().unwrap();
    bo.yam(&["read", "--eml", fork.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains("a forked history"));
    assert!(fork.exists());
    assert_eq!(bo.record("khan-1"), after_third);
    // One mail carrying both: Ann's turn attached, the twin's in the text
    // (a reader whose gateway strips attachments would take the other).
    // The attached one is applied, and the other is said, to be kept.
    let block = |mail: &str| {
        let begin = mail.find("-----BEGIN YAM TURN-----").unwrap();
        let end = mail.find("-----END YAM TURN-----").unwrap();
        (begin, end)
    };
    let forked = std::fs::read_to_string(&fork).unwrap();
    let ((b1, e1), (b2, e2)) = (block(&raw), block(&forked));
    let mixed = format!("{}{}{}", &raw[..b1], &forked[b2..e2], &raw[e1..]);
    let mixed_path = root.path().join("mixed.eml");
    std::fs::write(&mixed_path, mixed).unwrap();
    let mut cmd = yam!();
    cmd.args(["read", "--eml", mixed_path.to_str().unwrap(), "--data-dir"])
        .arg(bo_then.path());
    cmd.assert()
        .success()
        .stdout(predicate::str::contains("1 new event(s) from Ann"))
        .stdout(predicate::str::contains(
            "the mail's text carries another record of game khan-1 that differs from the attached one from event #",
        ));

    // A game the reader does not have: Cy knows Ann (her card) but plays
    // no game with her, and refuses her turn of khan-1.
    let cy_out = root.path().join("cy-outbox");
    std::fs::create_dir_all(&cy_out).unwrap();
    let cy = Player::new(
        "Cy",
        "cy@example.com",
        Inbox::Files {
            dir: root.path().join("cy-inbox"),
            archive: root.path().join("cy-read"),
        },
        &format!("outgoing:\n  directory:\n    path: {}\n", cy_out.display()),
    );
    let ann_card = super::mail_files(&bo_read)
        .into_iter()
        .find(|m| {
            std::fs::read_to_string(m)
                .unwrap()
                .contains("X-Yam-Game: card 0")
        })
        .unwrap();
    cy.yam(&["read", "--eml", ann_card.to_str().unwrap()])
        .success()
        .stdout(predicate::str::contains("new contact Ann"));
    let genuine = root.path().join("genuine.eml");
    std::fs::write(&genuine, &raw).unwrap();
    cy.yam(&["read", "--eml", genuine.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains(
            "not a game of this data directory",
        ));

    // Not Bo's... it is Bo's turn now; Ann may not move.
    ann.yam(&["move", "khan-1", &line[5]])
        .code(1)
        .stderr(predicate::str::contains("it is not your move"));
    // A dry run checks and shows, and changes and sends nothing.
    let before = bo.record("khan-1");
    let sent_before = super::mail_files(&match &ann.inbox {
        Inbox::Files { dir, .. } => dir.clone(),
        _ => unreachable!(),
    })
    .len();
    bo.yam(&["move", "khan-1", &line[5], "--dry-run"])
        .success()
        .stdout(predicate::str::contains("dry run"));
    assert_eq!(bo.record("khan-1"), before);
    assert_eq!(
        super::mail_files(&match &ann.inbox {
            Inbox::Files { dir, .. } => dir.clone(),
            _ => unreachable!(),
        })
        .len(),
        sent_before
    );
    // An illegal move is refused with its reason, before anything is sent.
    bo.yam(&["move", "khan-1", "Ae7-a1"])
        .code(1)
        .stderr(predicate::str::contains("refused"));
}

/// A mail larger than Yam reads (16 MiB) is refused by its size, not read
/// whole, and left where it was: from a file, piped in, or in a mailbox.
#[test]
fn a_mail_too_large_to_read_is_said_and_left_as_it_was() {
    let root = tempfile::tempdir().unwrap();
    let (_, bo) = pair(root.path());
    // A file of 300 MB (sparse: it costs no disk): refused at once, by its
    // size, without being read whole.
    let huge = root.path().join("huge.eml");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(300 << 20).unwrap();
    bo.yam(&["read", "--eml", huge.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains(
            "unreadable: the mail is 314572800 bytes, more than the 16777216 Yam reads",
        ));
    assert_eq!(std::fs::metadata(&huge).unwrap().len(), 300 << 20);
    // Piped in, its size is not known: the refusal does not make one up.
    let mut cmd = yam!();
    cmd.args(["read", "--stdin", "--data-dir"]).arg(bo.dir());
    cmd.write_stdin(vec![b'x'; (16 << 20) + 10])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "unreadable: the mail is more than the 16777216 bytes Yam reads",
        ));
    // In a mailbox it is never fetched, and said once.
    let maildir = root.path().join("Maildir");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    let big = maildir.join("new").join("1700000000.big.host");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((16 << 20) + 1)
        .unwrap();
    bo.yam(&["read", "--maildir", maildir.to_str().unwrap()])
        .success()
        .stdout(predicate::str::contains(
            "1 mail(s) larger than 16 MiB left as they were, unread",
        ));
    assert!(big.exists(), "the mail stays where it was");
    bo.yam(&["read", "--maildir", maildir.to_str().unwrap()])
        .success()
        .stdout(predicate::str::contains("larger than").not())
        .stdout(predicate::str::contains("nothing new"));
}

fn compose_like(raw: &str, record: &str) -> Vec<u8> {
    use yam_cli::mail::compose::{TurnMail, compose};
    let incoming = yam_cli::mail::extract::read_mail(raw.as_bytes()).unwrap();
    let players = vec!["Ann".to_owned(), "Bo".to_owned()];
    compose(&TurnMail {
        from: "Ann <ann@example.org>".parse().unwrap(),
        to: vec!["bo@example.net".parse().unwrap()],
        game_name: "Khan",
        game_id: "khan-1",
        ply: 3,
        players: &players,
        body: "Your move.",
        turn: record.as_bytes(),
        record: record.as_bytes(),
        message_id: format!("forged.{}", incoming.message_id.unwrap_or_default()),
        thread: &[],
        automatic: yam_cli::mail::compose::Automatic::No,
        referee: None,
        card: None,
        reminder: None,
        picture: None,
    })
    .unwrap()
    .formatted()
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        let target = to.join(p.file_name().unwrap());
        if p.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&p).unwrap().permissions().mode();
                std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode)).unwrap();
            }
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}

/// `player` runs `yam ARGS` with the desk's clock `days` days from now
/// (`YAM_NOW`): reminders and forfeits wait for days of silence.
fn in_days(player: &Player, days: u64, args: &[&str]) -> assert_cmd::assert::Assert {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut cmd = yam!();
    cmd.args(args)
        .arg("--data-dir")
        .arg(player.dir())
        .env("YAM_NOW", (now + days * 86_400).to_string());
    cmd.assert()
}

/// `player` reads every mail in its inbox folder with the desk's clock
/// `days` days from now, then files them away.
fn read_in_days(player: &Player, days: u64) {
    let Inbox::Files { dir, archive } = player.inbox.clone() else {
        unreachable!()
    };
    for file in super::mail_files(&dir) {
        in_days(player, days, &["read", "--eml", file.to_str().unwrap()]).success();
        std::fs::create_dir_all(&archive).unwrap();
        std::fs::rename(&file, archive.join(file.file_name().unwrap())).unwrap();
    }
}

#[test]
fn a_player_who_owes_a_move_cannot_stall_a_forfeit_by_offering_draws() {
    // Attack: Bo, to move, never moves; every 35 days (inside the agreed
    // 40) he offers a draw on his move, which Ann's desk must answer, and
    // the game "changed" with each offer and each decline. Ann could never
    // claim. Now a move's silence runs from the latest turn: offers and
    // answers do not move it, and Ann's claim stands at day 40 and after.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after(root.path(), 3);
    for day in [35, 70, 105] {
        draw_offered_and_declined(&bo, &ann, day);
    }
    claims_forfeit(&ann, 106, "Bo");
}

#[test]
fn the_days_an_offer_waits_for_its_answer_are_not_counted_against_the_mover() {
    // Bo, to move, offers a draw on day 10; Ann takes 35 days to decline
    // it. Bo waited, he was not silent: on day 46 his move has been due
    // for 11 days, not 46, and Ann's claim is refused; it stands once 40
    // days of his own have passed (day 75).
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after(root.path(), 3);
    in_days(&bo, 10, &["draw", "offer", "khan-1"]).success();
    read_in_days(&ann, 10);
    in_days(&ann, 45, &["draw", "decline", "khan-1"]).success();
    read_in_days(&bo, 45);
    in_days(&ann, 46, &["forfeit", "khan-1"])
        .code(1)
        .stderr(predicate::str::contains("Bo has been silent 11 day(s)"));
    in_days(&ann, 75, &["forfeit", "khan-1"])
        .success()
        .stdout(predicate::str::contains(
            "claims a forfeit: Bo has not answered in 40 days",
        ));
}

#[test]
fn offers_take_backs_reminders_forfeits_and_resignation_by_mail() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    // Offers are made on one's own move.
    bo.yam(&["draw", "offer", "khan-1"])
        .code(1)
        .stderr(predicate::str::contains("offer a draw on your own move"));
    // Ann moves and offers a draw; Bo declines by playing on.
    ann.yam(&["move", "khan-1", &line[2], "--offer-draw"])
        .success()
        .stdout(predicate::str::contains("offers a draw"));
    assert!(bo.read().contains("is to answer a draw offer"));
    bo.yam(&["move", "khan-1", &line[3]]).success();
    ann.read();
    let record = ann.record("khan-1");
    assert!(record.contains("[Result \"*\"]"));
    assert_eq!(main_line(&record).len(), 4);

    // Ann asks to take back her last move; Bo accepts: the position is the
    // one before it, and it is Ann's move again.
    ann.yam(&["takeback", "accept", "khan-1"])
        .code(1)
        .stderr(predicate::str::contains("no take-back offer"));
    // It is Ann's move: she offers.
    ann.yam(&["takeback", "offer", "khan-1"]).success();
    assert!(bo.read().contains("take-back"));
    bo.yam(&["takeback", "accept", "khan-1"]).success();
    assert!(ann.read().contains("Ann to move"));
    // The take-back returns to before Ann's move 3 (line[2]): she plays
    // that move again, which is legal only there.
    ann.yam(&["move", "khan-1", &line[2]]).success();
    bo.read();

    // Bo is silent. Ann's reminder is refused before 7 days of silence,
    // sent after them under a Message-ID and a subject of its own; a
    // forfeit is refused before the agreed 40 days, and accepted as a
    // signed claim after them.
    ann.yam(&["remind", "khan-1"])
        .code(1)
        .stderr(predicate::str::contains("a reminder may be sent after 7"));
    in_days(&ann, 8, &["remind", "khan-1"])
        .success()
        .stdout(predicate::str::contains("Reminder 1"));
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let reminder = std::fs::read_to_string(super::mail_files(&bo_inbox).pop().unwrap()).unwrap();
    assert!(
        reminder.contains("Subject: Reminder 1: [Yam]"),
        "{reminder}"
    );
    assert!(reminder.contains(".remind1@"), "{reminder}");
    let own_id = reminder
        .lines()
        .find_map(|l| l.strip_prefix("Message-ID: "))
        .unwrap();
    let parent = reminder
        .lines()
        .find_map(|l| l.strip_prefix("In-Reply-To: "))
        .unwrap();
    assert_ne!(own_id, parent, "a mail is never its own parent");
    bo.read();
    ann.yam(&["forfeit", "khan-1"])
        .code(1)
        .stderr(predicate::str::contains("after 40 days"));
    in_days(&ann, 41, &["forfeit", "khan-1"])
        .success()
        .stdout(predicate::str::contains("claims a forfeit"));
    bo.read();
    // The claim is for a director; the game goes on until Bo resigns.
    bo.yam(&["resign", "khan-1"]).success();
    ann.read();
    let record = ann.record("khan-1");
    assert_eq!(record, bo.record("khan-1"));
    assert!(record.contains("[Result \"1-0\"]"), "{record}");
    assert_eq!(ann.status("khan-1"), "over");
    let file = root.path().join("ended.yam");
    std::fs::write(&file, &record).unwrap();
    yam!()
        .args(["verify", file.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("forfeit").or(predicate::str::contains("claim")));
    // The move Ann took back stays in the main line with its signed event;
    // every command reads the game as it stands, as `yam verify` does.
    yam!()
        .args(["check", file.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 valid"));
    yam!()
        .args(["show", file.to_str().unwrap()])
        .assert()
        .success();
    yam!()
        .args(["engine", "export", file.to_str().unwrap()])
        .assert()
        .success();
    let site = root.path().join("site");
    yam!()
        .args(["export", "--html", file.to_str().unwrap(), "--out"])
        .arg(&site)
        .assert()
        .success();
    let page = std::fs::read_dir(site.join("games"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(page.contains("taken back by agreement: "), "{page}");
    yam!()
        .args(["select", "--status", "valid", file.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("[GameId \"khan-1\"]"));
    let plain = root.path().join("plain.yam");
    yam!()
        .args(["export", "--plain", file.to_str().unwrap(), "-o"])
        .arg(&plain)
        .assert()
        .success();
    let text = std::fs::read_to_string(&plain).unwrap();
    assert!(text.contains("{taken back by agreement: "), "{text}");
    assert!(text.contains("the original verified"), "{text}");
    yam!()
        .args(["check", plain.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 valid"));
}

#[test]
fn a_counter_offer_mailed_instead_of_an_answer_leaves_the_answer_owed() {
    // Bo offers a take-back on his move. Ann's client, instead of an
    // answer, mails a take-back offer of her own, then falls silent. Her
    // counter-offer answers nothing: Bo's desk still waits for Ann's
    // answer, and after the agreed days Bo's forfeit claim stands. (A
    // counter-offer once made both owe: Bo's desk waited on Ann while the
    // referee refused every claim against her, and a silent Ann held the
    // game for good.)
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    bo.yam(&["takeback", "offer", "khan-1"]).success();
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let offer_mail = super::mail_files(&ann_inbox).pop().unwrap();
    let mut log = Log::parse(&attached_record(&offer_mail));
    std::fs::remove_file(&offer_mail).unwrap();
    let ann_secrets = Cheater::from_secrets(&ann.dir().join("secrets"), "ann", "khan-1");
    // Back to before Ann's last move (the event before it).
    let events = log.events();
    let anns_last = events
        .iter()
        .rposition(|e| {
            e.event.author == ann_secrets.public_key() && matches!(e.event.body, EventBody::Turn(_))
        })
        .unwrap();
    let back_to = u32::try_from(anns_last - 1).unwrap();
    let counter = log.next(&ann_secrets, EventBody::TakebackOffer { back_to });
    log.append(&[], &counter);
    let n = u32::try_from(log.events().len()).unwrap();
    std::fs::write(
        bo_inbox.join("counter.eml"),
        attacker::mail(&ann.address, &bo.address, "khan-1", n, &log.text()),
    )
    .unwrap();
    let said = bo.read();
    assert!(
        said.contains("Ann is to answer a take-back offer"),
        "{said}"
    );
    assert_eq!(bo.status("khan-1"), "them", "Bo waits for Ann's answer");
    in_days(&bo, 41, &["forfeit", "khan-1"])
        .success()
        .stdout(predicate::str::contains(
            "claims a forfeit: Ann has not answered",
        ));
    let file = root.path().join("claimed.yam");
    std::fs::write(&file, bo.record("khan-1")).unwrap();
    yam!()
        .args(["verify", file.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(main_line(&bo.record("khan-1")), line[..3]);
}

#[test]
fn a_move_declines_every_offer_that_waits_on_the_mover() {
    // Ann's client mails her move with a draw offer and a take-back offer
    // at once. Bo plays on: his move declines both, oldest first, and the
    // game goes on (it was refused after the first decline).
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let mut log = Log::parse(&bo.record("khan-1"));
    let ann_secrets = Cheater::from_secrets(&ann.dir().join("secrets"), "ann", "khan-1");
    let back_to = u32::try_from(log.events().len() - 2).unwrap();
    let draw = log.next(&ann_secrets, EventBody::DrawOffer);
    log.append(&[], &draw);
    let takeback = log.next(&ann_secrets, EventBody::TakebackOffer { back_to });
    log.append(&[], &takeback);
    let n = u32::try_from(log.events().len()).unwrap();
    std::fs::write(
        bo_inbox.join("two-offers.eml"),
        attacker::mail(&ann.address, &bo.address, "khan-1", n, &log.text()),
    )
    .unwrap();
    let said = bo.read();
    assert!(said.contains("Bo is to answer a draw offer"), "{said}");
    bo.yam(&["move", "khan-1", &line[3]]).success();
    let record = bo.record("khan-1");
    assert_eq!(main_line(&record), line[..4]);
    assert_eq!(
        record.matches("%event").count() - log.events().len(),
        3,
        "{record}"
    );
    // Both answers are Bo's declines, then his turn.
    let events = Log::parse(&record).events();
    let bo_key = Cheater::from_secrets(&bo.dir().join("secrets"), "bo", "khan-1").public_key();
    let last: Vec<&EventBody> = events[events.len() - 3..]
        .iter()
        .map(|e| &e.event.body)
        .collect();
    assert!(
        matches!(
            last[..],
            [
                EventBody::DrawAnswer {
                    accepted: false,
                    ..
                },
                EventBody::TakebackAnswer {
                    accepted: false,
                    ..
                },
                EventBody::Turn(_)
            ]
        ),
        "{last:?}"
    );
    assert!(
        events[events.len() - 3..]
            .iter()
            .all(|e| e.event.author == bo_key)
    );
    let file = root.path().join("declined.yam");
    std::fs::write(&file, &record).unwrap();
    yam!()
        .args(["verify", file.to_str().unwrap()])
        .assert()
        .success();
}

#[test]
fn a_desk_moves_to_a_new_machine_and_the_game_goes_on() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    // The summary of the read log is a cache too (docs/mail.md): left
    // behind, never a clash on import.
    std::fs::write(ann.dir().join("read.idx"), b"a summary of the read log").unwrap();
    let bundle = root.path().join("ann-desk.yaml");
    ann.yam(&["identity", "export", "--out", bundle.to_str().unwrap()])
        .success()
        .stdout(predicate::str::contains("ONE machine"));
    // As every command that writes a file: no overwrite without --force.
    let first = std::fs::read(&bundle).unwrap();
    ann.yam(&["identity", "export", "-o", bundle.to_str().unwrap()])
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read(&bundle).unwrap(), first);
    ann.yam(&[
        "identity",
        "export",
        "-o",
        bundle.to_str().unwrap(),
        "--force",
    ])
    .success();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&bundle).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    // The new machine: an empty data directory with the same config.
    let new = tempfile::tempdir().unwrap();
    std::fs::copy(
        ann.dir().join("config.yaml"),
        new.path().join("config.yaml"),
    )
    .unwrap();
    std::fs::remove_file(new.path().join("config.yaml")).unwrap();
    let mut cmd = yam!();
    cmd.args(["identity", "import", bundle.to_str().unwrap(), "--data-dir"])
        .arg(new.path());
    cmd.assert().success();
    let moved = Player {
        name: "Ann".into(),
        address: ann.address.clone(),
        data: new,
        inbox: ann.inbox.clone(),
    };
    moved
        .yam(&["identity", "show"])
        .success()
        .stdout(predicate::str::contains(
            String::from_utf8_lossy(&ann.yam(&["identity", "show"]).get_output().stdout)
                .lines()
                .nth(1)
                .unwrap()
                .to_owned(),
        ));
    // The verified checkpoints and tips stay behind (caches): the moved
    // desk verifies the game whole once and keeps its own.
    for cache in ["checkpoint", "tip"] {
        assert!(ann.dir().join("games/khan-1").join(cache).exists());
        assert!(!moved.dir().join("games/khan-1").join(cache).exists());
    }
    assert!(!moved.dir().join("read.idx").exists());
    moved.yam(&["move", "khan-1", &line[2]]).success();
    for cache in ["checkpoint", "tip"] {
        assert!(moved.dir().join("games/khan-1").join(cache).exists());
    }
    assert!(bo.read().contains("1 new event(s)"));
    // Importing over a desk that differs is refused, and changes nothing.
    let mut cmd = yam!();
    cmd.args(["identity", "import", bundle.to_str().unwrap(), "--data-dir"])
        .arg(moved.dir());
    cmd.assert()
        .code(2)
        .stderr(predicate::str::contains("differs"));
}

#[test]
fn awkward_mails_carry_a_real_turn_into_the_game() {
    use yam_cli::mail::armor::armor;
    use yam_tests::shapes;
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    // Bo's last record (the turn Ann's reply quotes) and Ann's next turn,
    // as blocks; the mails are built around them as clients would, with no
    // attachment, so the block alone must carry the turn.
    let old = armor("khan-1", 2, bo.record("khan-1").as_bytes());
    ann.yam(&["move", "khan-1", &line[2]]).success();
    let record = ann.record("khan-1");
    let new = armor("khan-1", 3, record.as_bytes());
    let shapes: Vec<(&str, String)> = vec![
        ("thunderbird", shapes::thunderbird_reply(&new, &old)),
        ("gmail", shapes::gmail_reply(&new, &old)),
        ("html", shapes::html_only(&new, &old)),
        ("signature", shapes::signed_off(&new)),
        ("forwarded-attached", shapes::forwarded_attached(&new)),
        ("forwarded-inline", shapes::forwarded_inline(&new)),
    ];
    for (name, raw) in shapes {
        // Each on a copy of Bo's desk as it was.
        let desk = tempfile::tempdir().unwrap();
        copy_dir(bo.dir(), desk.path());
        let file = root.path().join(format!("{name}.eml"));
        std::fs::write(&file, raw).unwrap();
        let mut cmd = yam!();
        cmd.args(["read", "--eml", file.to_str().unwrap(), "--data-dir"])
            .arg(desk.path());
        cmd.assert()
            .success()
            .stdout(predicate::str::contains("1 new event(s) from Ann"))
            .stdout(predicate::str::contains("carries another record").not());
        let taken = std::fs::read_to_string(desk.path().join("games/khan-1/record.yam")).unwrap();
        assert_eq!(taken, record, "{name}: Bo holds Ann's record");
    }
    // The same turn from standard input (a mail client's filter) and
    // from an mbox file.
    let genuine = shapes::gmail_reply(&new, &old);
    for how in ["stdin", "mbox"] {
        let desk = tempfile::tempdir().unwrap();
        copy_dir(bo.dir(), desk.path());
        let mut cmd = yam!();
        cmd.arg("read").arg("--data-dir").arg(desk.path());
        if how == "stdin" {
            cmd.arg("--stdin").write_stdin(genuine.clone());
        } else {
            let mbox = root.path().join("inbox.mbox");
            std::fs::write(
                &mbox,
                format!("From ann@example.org Mon Nov 30 00:00:00 2026\n{genuine}\n"),
            )
            .unwrap();
            cmd.arg("--mbox").arg(&mbox);
        }
        cmd.assert()
            .success()
            .stdout(predicate::str::contains("1 new event(s) from Ann"));
    }
    // A block damaged in transit is refused with its reason.
    let damaged = shapes::signed_off(&new).replacen("Checksum: sha256:", "Checksum: sha256:0", 1);
    let file = root.path().join("damaged.eml");
    std::fs::write(&file, damaged).unwrap();
    bo.yam(&["read", "--eml", file.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains("refused"));
}

/// The attached record of a mail file.
fn attached_record(mail: &Path) -> String {
    let raw = std::fs::read(mail).unwrap();
    let incoming = yam_cli::mail::extract::read_mail(&raw).unwrap();
    incoming
        .turns
        .iter()
        .find_map(|t| match t {
            yam_cli::mail::extract::Turn::Attachment { bytes, .. } => {
                Some(String::from_utf8(bytes.clone()).unwrap())
            }
            _ => None,
        })
        .expect("a record is attached")
}

#[test]
fn an_attack_by_mail_is_refused_and_the_game_goes_on() {
    // Bo cheats: once Ann's desk has answered his roll request, he does not
    // play the roll but mails a second request for the same declaration,
    // to keep the better of two outcomes (best of two). Ann's desk refuses
    // it, answers nothing, and the game goes on when Bo plays the roll.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let id = "siege-cheat";
    open_game(
        &ann,
        &bo,
        id,
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            "--seats",
            "first",
        ],
    );
    let Inbox::Files {
        dir: ann_inbox,
        archive: ann_read,
    } = ann.inbox.clone()
    else {
        unreachable!()
    };
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    // Play on until Bo is to move after the setups and Ann's first turn.
    let mut seed = 11;
    for _ in 0..60 {
        if bo.status(id) == "YOU" && ann.record(id).contains("[%chance") {
            break;
        }
        let (mover, other) = match (ann.status(id).as_str(), bo.status(id).as_str()) {
            ("YOU", _) => (&ann, &bo),
            (_, "YOU") => (&bo, &ann),
            _ => {
                // A mail is still travelling.
                ann.read();
                bo.read();
                continue;
            }
        };
        seed += 1;
        mover
            .yam(&["move", id, "--auto", "eager", "--seed", &seed.to_string()])
            .success();
        other.read();
        mover.read();
    }
    assert_eq!(bo.status(id), "YOU");
    // Bo declares a turn that needs dice; Ann's desk answers it by itself.
    bo.yam(&["move", id, "--auto", "eager", "--seed", "5"])
        .success();
    let said = ann.read();
    assert!(said.contains("answered the roll request"), "{said}");
    let answer = super::mail_files(&bo_inbox)
        .pop()
        .expect("Ann's answer is in Bo's inbox");
    // Bo does not let his desk read it. He takes the record it carries and
    // signs another request with his own key and chain.
    let answered = attached_record(&answer);
    let mut log = Log::parse(&answered);
    let open_index = log.requests().last().unwrap().index;
    let bo_secrets = Cheater::from_secrets(&bo.dir().join("secrets"), "bo", id);
    let again = attacker::reroll(&log, &bo_secrets);
    log.append(&[], &again);
    let events = u32::try_from(log.events().len()).unwrap();
    let cheat = ann_inbox.join("cheat.eml");
    std::fs::write(
        &cheat,
        attacker::mail(&bo.address, &ann.address, id, events, &log.text()),
    )
    .unwrap();
    let ann_before = ann.record(id);
    let bo_mails_before = super::mail_files(&bo_inbox).len();
    let out = ann.yam(&["read", "--eml", cheat.to_str().unwrap()]);
    let output = out.get_output();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "another roll request while roll {open_index} is open"
        )),
        "{said}"
    );
    // Nothing changed, nothing was answered, the mail is where it was.
    assert!(ann.record(id) == ann_before, "Ann's record is unchanged");
    assert_eq!(super::mail_files(&bo_inbox).len(), bo_mails_before);
    assert!(cheat.exists());
    std::fs::rename(&cheat, root.path().join("cheat-kept.eml")).unwrap();
    // The other ways out of an answered roll fare no better: a draw offer
    // (Castle Siege has none), a forfeit claim against Ann (the game waits
    // for Bo), another move instead of the roll's turn.
    let base = Log::parse(&answered);
    let ann_key = Cheater::from_secrets(&ann.dir().join("secrets"), "ann", id).public_key();
    let hostile: Vec<(&str, Log)> = vec![
        ("no draw may be offered", {
            let mut l = Log::parse(&answered);
            l.append(&[], &base.next(&bo_secrets, EventBody::DrawOffer));
            l
        }),
        ("but the game waits for attacker", {
            let mut l = Log::parse(&answered);
            l.append(&[], &attacker::forfeit_claim(&base, &bo_secrets, ann_key));
            l
        }),
        ("a move while roll", {
            let mut l = Log::parse(&answered);
            l.append(
                &["End"],
                &base.next(&bo_secrets, attacker::plain_turn(&["End"])),
            );
            l
        }),
    ];
    for (reason, log) in hostile {
        let mail = ann_inbox.join("hostile.eml");
        std::fs::write(
            &mail,
            attacker::mail(&bo.address, &ann.address, id, events, &log.text()),
        )
        .unwrap();
        let out = ann.yam(&["read", "--eml", mail.to_str().unwrap()]);
        let output = out.get_output();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(1), "{said}");
        assert!(said.contains(reason), "{reason:?} not in {said}");
        assert!(ann.record(id) == ann_before, "Ann's record is unchanged");
        assert_eq!(super::mail_files(&bo_inbox).len(), bo_mails_before);
        std::fs::remove_file(&mail).unwrap();
    }
    // Bo gives up and lets his desk read Ann's answer: it plays the roll.
    let said = bo.read();
    assert!(said.contains("the turn is played"), "{said}");
    let said = ann.read();
    assert!(!said.contains("refused"), "{said}");
    assert!(
        ann.record(id) == bo.record(id),
        "both desks hold the same record"
    );
    // And the game goes on: Ann plays her next move when it comes.
    for _ in 0..20 {
        if ann.status(id) == "YOU" {
            break;
        }
        seed += 1;
        if bo.status(id) == "YOU" {
            bo.yam(&["move", id, "--auto", "eager", "--seed", &seed.to_string()])
                .success();
        }
        ann.read();
        bo.read();
    }
    assert_eq!(ann.status(id), "YOU");
    ann.yam(&["move", id, "--auto", "eager", "--seed", "99"])
        .success();
    // Her turn may need dice: Bo answers, she plays them, Bo reads that.
    bo.read();
    ann.read();
    bo.read();
    assert!(
        ann.record(id) == bo.record(id),
        "both desks hold the same record"
    );
    assert!(!super::mail_files(&ann_read).is_empty());
    yam!()
        .arg("verify")
        .arg(ann.dir().join("games").join(id).join("record.yam"))
        .assert()
        .success();
}

#[test]
fn cards_are_answered_once_and_never_answered_back() {
    // Two desks whose cards cross: an introduction is answered, the answer
    // is never answered, and reading everything again sends nothing.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    ann.yam(&["identity", "send", &bo.address]).success();
    for _ in 0..4 {
        bo.read();
        ann.read();
    }
    let sent_to_bo =
        super::mail_files(&bo_inbox).len() + super::mail_files(&root.path().join("bo-read")).len();
    let sent_to_ann = super::mail_files(&ann_inbox).len()
        + super::mail_files(&root.path().join("ann-read")).len();
    assert_eq!((sent_to_bo, sent_to_ann), (1, 1), "one card each way");
    // The answer is threaded under the introduction and marked as an
    // automatic reply.
    let answer =
        std::fs::read_to_string(&super::mail_files(&root.path().join("ann-read"))[0]).unwrap();
    assert!(answer.contains("Auto-Submitted: auto-replied"), "{answer}");
    assert!(answer.contains("In-Reply-To:"), "{answer}");
    // The introduction read once more (a duplicate delivery) sends nothing.
    let intro = super::mail_files(&root.path().join("bo-read"))[0].clone();
    bo.yam(&["read", "--eml", intro.to_str().unwrap()])
        .success();
    assert_eq!(super::mail_files(&ann_inbox).len(), 0, "no second answer");
    // Replayed under new Message-IDs (someone who would have Bo mail Ann
    // again and again): answered at most once a day.
    let text = std::fs::read_to_string(&intro).unwrap();
    let id_line = text
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("message-id:"))
        .unwrap()
        .to_owned();
    for n in 0..3 {
        let replay = root.path().join(format!("replay-{n}.eml"));
        std::fs::write(
            &replay,
            text.replace(&id_line, &format!("Message-ID: <replay-{n}@evil.example>")),
        )
        .unwrap();
        bo.yam(&["read", "--eml", replay.to_str().unwrap()])
            .success()
            .stdout(predicate::str::contains(
                "not answered again (my card went to them less than a day ago)",
            ));
    }
    assert_eq!(
        super::mail_files(&ann_inbox).len(),
        0,
        "no answer to a replay"
    );
    // A day later, a card of theirs is answered again (they may have lost
    // mine).
    let mut cmd = yam!();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    cmd.env("YAM_NOW", (now + 2 * 86_400).to_string());
    let later = root.path().join("replay-later.eml");
    std::fs::write(
        &later,
        text.replace(&id_line, "Message-ID: <replay-later@evil.example>"),
    )
    .unwrap();
    cmd.args(["read", "--eml"])
        .arg(&later)
        .arg("--data-dir")
        .arg(bo.dir());
    cmd.assert()
        .success()
        .stdout(predicate::str::contains("my card is sent in answer"));
    assert_eq!(super::mail_files(&ann_inbox).len(), 1);
}

#[test]
fn a_reply_carrying_the_old_turn_before_the_new_one_applies_the_new_one() {
    use yam_cli::mail::armor::armor;
    use yam_tests::shapes;
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let bo_old_record = bo.record("khan-1");
    let old = armor("khan-1", 2, bo_old_record.as_bytes());
    ann.yam(&["move", "khan-1", &line[2]]).success();
    let record = ann.record("khan-1");
    let new = armor("khan-1", 3, record.as_bytes());
    let other_game = armor(
        "magician",
        9,
        include_bytes!("../../../examples/khan/signed/magician.yam"),
    );
    for (name, raw) in [
        ("outlook", shapes::outlook_reply_old_first(&new, &old)),
        (
            "reattached",
            shapes::reattached_old_record(&new, &bo_old_record),
        ),
        // The new record attached, the old turn's block in the text: an
        // earlier state, not another record (decoded, since its checksum
        // differs, and found so).
        ("old-in-text", shapes::reattached_old_record(&old, &record)),
        // Another game's turn in the text, unquoted: no record of this one.
        (
            "other-game-in-text",
            shapes::reattached_old_record(&other_game, &record),
        ),
    ] {
        let desk = tempfile::tempdir().unwrap();
        copy_dir(bo.dir(), desk.path());
        let file = root.path().join(format!("{name}.eml"));
        std::fs::write(&file, raw).unwrap();
        yam!()
            .args(["read", "--eml", file.to_str().unwrap(), "--data-dir"])
            .arg(desk.path())
            .assert()
            .success()
            .stdout(predicate::str::contains("1 new event(s) from Ann"))
            .stdout(predicate::str::contains("carries another record").not());
        let taken = std::fs::read_to_string(desk.path().join("games/khan-1/record.yam")).unwrap();
        assert!(taken == record, "{name}: Bo holds Ann's new record");
    }
}

#[test]
fn an_auto_reply_quoting_a_turn_and_a_duplicate_delivery_are_silent() {
    use yam_tests::shapes;
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _line) = khan_after(root.path(), 2);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    // Bo's last turn mail, as Ann's vacation responder quotes it back.
    let bo_turn = std::fs::read_to_string(
        super::mail_files(&root.path().join("ann-read"))
            .pop()
            .unwrap(),
    )
    .unwrap();
    let vacation = root.path().join("vacation.eml");
    std::fs::write(&vacation, shapes::vacation_reply(&bo_turn)).unwrap();
    let before = bo.record("khan-1");
    bo.yam(&["read", "--eml", vacation.to_str().unwrap()])
        .success()
        .stdout(
            predicate::str::contains("ignored").and(predicate::str::contains(
                "automatic mail (Auto-Submitted: auto-replied)",
            )),
        );
    assert!(bo.record("khan-1") == before);
    // Ann's last turn delivered to Bo a second time: read before, exit 0.
    let ann_turn = super::mail_files(&root.path().join("bo-read"))
        .pop()
        .unwrap();
    let copy = bo_inbox.join("duplicate.eml");
    std::fs::copy(&ann_turn, &copy).unwrap();
    let out = bo.yam(&["read", "--eml", copy.to_str().unwrap()]);
    out.success().stdout(predicate::str::contains("nothing"));
    assert!(bo.record("khan-1") == before);
    // Nothing went to Ann for either.
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    assert!(super::mail_files(&ann_inbox).is_empty());
}

#[test]
fn the_player_sees_the_move_and_keeps_its_own_record() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    // Ann's move with her words: Bo's read says what she played, with them.
    ann.yam(&["move", "khan-1", &line[2], "--comment", "Into the centre."])
        .success();
    let said = bo.read();
    assert!(
        said.contains(&format!(
            "Ann played {}, with an unsigned comment: \u{201c}Into the centre.\u{201d}",
            line[2]
        )),
        "{said}"
    );
    bo.yam(&["board", "khan-1"])
        .success()
        .stdout(predicate::str::contains(format!(
            "last move: Ann played {}, with an unsigned comment: \u{201c}Into the centre.\u{201d}",
            line[2]
        )));
    // Bo answers with words of his own; Ann's next mail rewrites them (and
    // the unsigned tags) in the record it carries.
    bo.yam(&["move", "khan-1", &line[3], "--comment", "Mine."])
        .success();
    ann.read();
    ann.yam(&["move", "khan-1", &line[4]]).success();
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let genuine = super::mail_files(&bo_inbox).pop().unwrap();
    let raw = std::fs::read_to_string(&genuine).unwrap();
    let tampered = ann
        .record("khan-1")
        .replace("Mine.", "I resign.")
        .replace("[White \"Ann\"]", "[White \"Ann (the better player)\"]");
    assert_ne!(tampered, ann.record("khan-1"));
    let bo_before = bo.record("khan-1");
    std::fs::write(&genuine, compose_like(&raw, &tampered)).unwrap();
    let said = bo.read();
    assert!(said.contains("1 new event(s) from Ann"), "{said}");
    let kept = bo.record("khan-1");
    assert!(
        kept.contains("Mine.") && !kept.contains("I resign."),
        "{kept}"
    );
    assert!(!kept.contains("the better player"), "{kept}");
    assert!(kept.starts_with(&bo_before[..bo_before.find("[Result").unwrap()]));
    yam!()
        .arg("verify")
        .arg(bo.dir().join("games/khan-1/record.yam"))
        .assert()
        .success();
}

/// The position of the example Rescue Khan game after its first `n` moves.
fn khan_position(line: &[String], n: usize) -> yam_referee::khan::Position {
    use yam_referee::khan::{Ruleset, apply, resolve};
    let mut pos = Ruleset::builtin("rescue-khan").unwrap().start_position();
    for token in &line[..n] {
        let mv = resolve(&pos, &token.parse().unwrap()).unwrap();
        pos = apply(&pos, &mv).unwrap().position;
    }
    pos
}

#[test]
fn a_move_typed_short_or_from_to_goes_by_mail_in_long_form() {
    use yam_referee::khan::input::short_form;
    use yam_referee::khan::{Move, resolve};
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let legal = |n: usize| -> (yam_referee::khan::Position, Move) {
        let pos = khan_position(&line, n);
        let mv = resolve(&pos, &line[n].parse().unwrap()).unwrap();
        (pos, mv)
    };
    // Ann types the example's third move in its shortest short form.
    let (pos, mv) = legal(2);
    let short = short_form(&pos, &mv).unwrap();
    assert_ne!(short, line[2]);
    ann.yam(&["move", "khan-1", &short])
        .success()
        .stdout(predicate::str::contains(format!("plays {}", line[2])));
    bo.read();
    // Bo types the fourth as the engine writes it (from-to), or in its
    // short form should the from-to string fit two moves (KR-P1).
    let (pos, mv) = legal(3);
    let typed = match yam_referee::khan::resolve_input(&pos, &format!("{}{}", mv.from, mv.to)) {
        Ok(_) => format!("{}{}", mv.from, mv.to),
        Err(_) => short_form(&pos, &mv).unwrap(),
    };
    bo.yam(&["move", "khan-1", &typed]).success();
    ann.read();
    for player in [&ann, &bo] {
        assert_eq!(main_line(&player.record("khan-1")), line[..4]);
    }
    // A move the position does not allow is refused with the nearest
    // legal moves, and nothing is sent.
    ann.yam(&["move", "khan-1", "Kh8"])
        .code(1)
        .stderr(predicate::str::contains(
            "no legal move is `Kh8`; the nearest legal moves:",
        ));
    assert_eq!(main_line(&ann.record("khan-1")), line[..4]);
    yam!()
        .arg("verify")
        .arg(bo.dir().join("games/khan-1/record.yam"))
        .assert()
        .success();
}

/// The seat tags of a record, first seat first.
fn seat_names(record: &str) -> Vec<String> {
    ["White", "Black"]
        .iter()
        .map(|tag| {
            let line = record
                .lines()
                .find(|l| l.starts_with(&format!("[{tag} \"")))
                .unwrap_or_else(|| panic!("no {tag} tag: {record}"));
            line[tag.len() + 3..line.len() - 2].to_owned()
        })
        .collect()
}

/// The player goes by `new` from now on (its configuration's identity).
fn rename(player: &Player, new: &str) {
    let config = player.dir().join("config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let old = format!("  name: {}\n", player.name);
    assert!(text.contains(&old), "{text}");
    std::fs::write(&config, text.replace(&old, &format!("  name: {new}\n"))).unwrap();
}

#[test]
fn both_desks_name_the_players_once_with_the_names_of_the_challenge() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let id = "khan-drawn";
    ann.yam(&[
        "challenge",
        &bo.address,
        "--id",
        id,
        "--game-type",
        "khan",
        "--ruleset",
        "basic",
        "--seats",
        "drawn",
    ])
    .success();
    bo.read();
    ann.read();
    assert!(bo.read().contains("challenges you"));
    bo.yam(&["accept", id]).success();
    // Until the draw is revealed, nobody has a seat.
    assert_eq!(seat_names(&bo.record(id)), ["?", "?"]);
    // Bo goes by another name from now on: the game keeps the name he had
    // at the challenge, on both desks.
    rename(&bo, "Robert");
    // Ann's desk reveals the draw and names the seats; Bo's desk, which
    // only reads the reveal, names them too: the two records are one.
    ann.read();
    bo.read();
    let record = ann.record(id);
    assert_eq!(record, bo.record(id), "byte for byte");
    let seats = seat_names(&record);
    let mut names = seats.clone();
    names.sort();
    assert_eq!(names, ["Ann", "Bo"], "{record}");
    // A name once written stays: Ann too goes by another name, and both
    // play on.
    rename(&ann, "Annie");
    for seed in 0..3 {
        let (mover, other) = if ann.status(id) == "YOU" {
            (&ann, &bo)
        } else {
            (&bo, &ann)
        };
        mover
            .yam(&["move", id, "--auto", "random", "--seed", &seed.to_string()])
            .success();
        other.read();
        mover.read();
        let record = ann.record(id);
        assert_eq!(record, bo.record(id), "byte for byte");
        assert_eq!(seat_names(&record), seats, "{record}");
    }
}

#[test]
fn a_move_whose_mail_fails_is_kept_and_sent_later() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    // Ann's outgoing folder (Bo's inbox) is gone: her move is stored, and
    // she is told its mail waits.
    let away = root.path().join("away");
    std::fs::rename(&bo_inbox, &away).unwrap();
    ann.yam(&["move", "khan-1", &line[2]]).code(2).stderr(
        predicate::str::contains("the step is stored, but its mail could not be sent")
            .and(predicate::str::contains("yam send")),
    );
    assert!(ann.record("khan-1").contains(&line[2]));
    // Moving again says whose turn it is, not a mystery.
    ann.yam(&["move", "khan-1", &line[3]])
        .code(1)
        .stderr(predicate::str::contains("not your move"));
    // Back, and `yam send` sends it; Bo reads it and plays on.
    std::fs::rename(&away, &bo_inbox).unwrap();
    ann.yam(&["send"])
        .success()
        .stdout(predicate::str::contains("the waiting mail is sent"));
    ann.yam(&["send"])
        .success()
        .stdout(predicate::str::contains("no mail is waiting"));
    let said = bo.read();
    assert!(said.contains("1 new event(s) from Ann"), "{said}");
    bo.yam(&["move", "khan-1", &line[3]]).success();
}

#[test]
fn a_turn_sent_by_hand_is_read_like_any_other() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let away = root.path().join("away");
    std::fs::rename(&bo_inbox, &away).unwrap();
    ann.yam(&["move", "khan-1", &line[2]]).code(2);
    std::fs::rename(&away, &bo_inbox).unwrap();
    // The block to paste: armored, with the move in it.
    let block = ann.yam(&["turn", "khan-1"]).success();
    let block = String::from_utf8(block.get_output().stdout.clone()).unwrap();
    assert!(block.contains("-----BEGIN YAM TURN-----"), "{block}");
    assert!(block.contains("END YAM TURN"), "{block}");
    // A whole mail, written once; a second write refuses to replace it.
    let eml = root.path().join("turn.eml");
    let eml_arg = eml.to_str().unwrap();
    ann.yam(&["turn", "khan-1", "--out", eml_arg])
        .success()
        .stdout(predicate::str::contains("bo@example.net"));
    ann.yam(&["turn", "khan-1", "-o", eml_arg]).failure();
    // The old spelling, `--eml FILE`, still writes, with a warning.
    ann.yam(&["turn", "khan-1", "--eml", eml_arg, "--force"])
        .success()
        .stderr(predicate::str::contains("deprecated"));
    // Ann sends it with her own mail program; Bo reads it and plays on.
    std::fs::copy(&eml, bo_inbox.join("by-hand.eml")).unwrap();
    let said = bo.read();
    assert!(said.contains("1 new event(s) from Ann"), "{said}");
    bo.yam(&["move", "khan-1", &line[3]]).success();
}

/// The raw mail `raw` with its attachment's body replaced by what
/// `change` makes of it (the lines between the part's headers and the
/// next boundary).
fn with_attachment(raw: &str, change: impl Fn(&str) -> String) -> String {
    let at = raw.find("filename=\"khan-1.yam\"").expect("an attachment");
    let body = at + raw[at..].find("\r\n\r\n").expect("the part's body") + 4;
    let end = body + raw[body..].find("\r\n--").expect("the boundary");
    format!("{}{}{}", &raw[..body], change(&raw[body..end]), &raw[end..])
}

/// The raw mail `raw` without its attachment part.
fn without_attachment(raw: &str) -> String {
    let at = raw.find("filename=\"khan-1.yam\"").expect("an attachment");
    let start = raw[..at].rfind("\r\n--").expect("the part's boundary");
    let end = at + raw[at..].find("\r\n--").expect("the next boundary");
    format!("{}{}", &raw[..start], &raw[end..])
}

/// The raw mail `raw` with its turn block's payload cut in half.
fn with_block_cut(raw: &str) -> String {
    let begin = raw.find("-----BEGIN YAM TURN-----").expect("a block");
    let end = raw.find("-----END YAM TURN-----").expect("a block's end");
    let half = raw[..begin + (end - begin) / 2]
        .rfind("\r\n")
        .expect("a line");
    format!("{}{}", &raw[..half], &raw[end..])
}

/// Ann's turn mail to Bo after two moves, taken out of Bo's inbox as it
/// was written (CRLF), with Bo and the root the game was played in.
fn anns_third_turn(root: &Path) -> (Player, String) {
    let (ann, bo, line) = khan_after(root, 2);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    ann.yam(&["move", "khan-1", &line[2]]).success();
    let sent = super::mail_files(&bo_inbox).pop().expect("Ann's turn mail");
    let raw = std::fs::read_to_string(&sent).unwrap();
    std::fs::remove_file(&sent).unwrap();
    (bo, raw)
}

/// `mail` read by a fresh copy of Bo's desk (written as `root/NAME.eml`):
/// the exit code, what was said, and the record the copy then keeps.
fn read_on_a_copy(
    root: &Path,
    bo: &Player,
    name: &str,
    mail: String,
) -> (Option<i32>, String, String) {
    let desk = tempfile::tempdir().unwrap();
    copy_dir(bo.dir(), desk.path());
    let file = root.join(format!("{name}.eml"));
    std::fs::write(&file, mail).unwrap();
    let mut cmd = yam!();
    cmd.args(["read", "--eml", file.to_str().unwrap(), "--data-dir"])
        .arg(desk.path());
    let out = cmd.output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let kept = std::fs::read_to_string(desk.path().join("games/khan-1/record.yam")).unwrap();
    (out.status.code(), said, kept)
}

#[test]
fn a_damaged_or_removed_attachment_is_named_and_the_text_block_carries_the_turn() {
    let root = tempfile::tempdir().unwrap();
    let (bo, raw) = anns_third_turn(root.path());
    let cut = |b: &str| b[..b.len() / 2].to_owned();
    let read_copy = |name: &str, mail: String| {
        let (code, said, _) = read_on_a_copy(root.path(), &bo, name, mail);
        (code, said)
    };
    // The attachment cut on the way, the block whole: the turn is applied
    // from the block, and the reader is told the attachment was damaged.
    let (code, said) = read_copy("cut-attachment", with_attachment(&raw, cut));
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("1 new event(s) from Ann"), "{said}");
    assert!(said.contains("khan-1.yam arrived damaged"), "{said}");
    // The attachment removed by a gateway: applied from the block, said.
    let (code, said) = read_copy("no-attachment", without_attachment(&raw));
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("1 new event(s) from Ann"), "{said}");
    assert!(said.contains("khan-1.yam was removed on the way"), "{said}");
    // Both damaged: refused, in words, without the raw base64.
    let both = with_block_cut(&with_attachment(&raw, cut));
    let (code, said) = read_copy("both-cut", both);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("khan-1.yam arrived damaged"), "{said}");
    assert!(said.contains("ask Ann to send it again"), "{said}");
    let longest_word = said.split_whitespace().map(str::len).max().unwrap_or(0);
    assert!(longest_word < 60, "no raw base64 shown: {said}");
    // A damaged copy of the attachment before the whole one, no block: the
    // turn is read from the second attachment, and said so.
    let at = raw.find("filename=\"khan-1.yam\"").unwrap();
    let start = raw[..at].rfind("\r\n--").unwrap();
    let end = at + raw[at..].find("\r\n--").unwrap();
    let part = &raw[start..end];
    let body = part.find("\r\n\r\n").unwrap() + 4;
    let damaged = &part[..body + (part.len() - body) / 2];
    let begin = raw.find("-----BEGIN YAM TURN-----").unwrap();
    let block_end = raw.find("-----END YAM TURN-----").unwrap() + "-----END YAM TURN-----".len();
    assert!(
        block_end < start,
        "the block is in the text, before the attachment"
    );
    let two = format!(
        "{}{}{damaged}{}",
        &raw[..begin],
        &raw[block_end..start],
        &raw[start..]
    );
    let (code, said) = read_copy("two-attachments", two);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("1 new event(s) from Ann"), "{said}");
    assert!(
        said.contains("khan-1.yam arrived damaged (cut or altered on the way); the turn was read from another attachment, khan-1.yam"),
        "{said}"
    );
    // Both removed (a gateway that keeps only the HTML): not passed over as
    // mail not Yam's; said, with what to do.
    let begin = raw.find("-----BEGIN YAM TURN-----").unwrap();
    let end = raw.find("-----END YAM TURN-----").unwrap() + "-----END YAM TURN-----".len();
    let stripped = without_attachment(&format!("{}{}", &raw[..begin], &raw[end..]));
    let (code, said) = read_copy("stripped", stripped.clone());
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains(
            "game khan-1: the turn mail #3 from ann@example.org arrived without its turn"
        ),
        "{said}"
    );
    assert!(said.contains("(`yam resend khan-1`)"), "{said}");
    // The same from a stranger naming Bo's game is no Yam mail of his.
    let (code, said) = read_copy(
        "stripped-stranger",
        stripped.replace(
            "From: Ann <ann@example.org>",
            "From: Eve <eve@evil.example>",
        ),
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("no Yam turn in it"), "{said}");
    // The genuine mail still applies on Bo's own desk.
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    std::fs::write(bo_inbox.join("genuine.eml"), &raw).unwrap();
    assert!(bo.read().contains("1 new event(s) from Ann"));
}

/// What transports do to a text part, done to the attached record that
/// travels as its lines (7bit): each mail still brings Ann's turn, and Bo
/// keeps the same record as from the mail untouched. A change the record's
/// reader takes in its stride (line breaks, white space, a re-encoding)
/// reads from the attachment alone; one that breaks an event (a changed
/// byte, a line folded inside a signature) is refused there, and the text
/// block (base64 under a checksum) carries the turn.
#[test]
fn a_record_sent_as_its_lines_survives_what_transports_do_to_text() {
    let root = tempfile::tempdir().unwrap();
    let (bo, raw) = anns_third_turn(root.path());
    let at = raw.find("filename=\"khan-1.yam\"").unwrap();
    let part_header = &raw[at..at + raw[at..].find("\r\n\r\n").unwrap()];
    assert!(
        part_header.contains("Content-Transfer-Encoding: 7bit"),
        "{part_header}"
    );
    let read_copy = |name: &str, mail: String| read_on_a_copy(root.path(), &bo, name, mail);
    let (code, said, kept) = read_copy("untouched", raw.clone());
    assert_eq!(code, Some(0), "{said}");
    let (_, _, before) = read_copy("nothing", String::from("not a mail"));
    assert_ne!(kept, before, "the untouched mail brings the turn");
    let begin = raw.find("-----BEGIN YAM TURN-----").unwrap();
    let end = raw.find("-----END YAM TURN-----").unwrap() + "-----END YAM TURN-----".len();
    let without_block = |mail: &str| {
        let begin = mail.find("-----BEGIN YAM TURN-----").unwrap();
        let end = mail.find("-----END YAM TURN-----").unwrap() + "-----END YAM TURN-----".len();
        format!("{}{}", &mail[..begin], &mail[end..])
    };
    assert!(end < at, "the block is in the text, before the attachment");
    let _ = begin;
    // Each line broken into pieces of `width` characters by `join`.
    let broken = |body: &str, width: usize, join: &str, escape: bool| {
        body.split("\r\n")
            .map(|l| {
                let chars: Vec<char> = l.chars().collect();
                chars
                    .chunks(width)
                    .map(|c| {
                        let piece: String = c.iter().collect();
                        if escape {
                            piece.replace('=', "=3D")
                        } else {
                            piece
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(join)
            })
            .collect::<Vec<_>>()
            .join("\r\n")
    };
    // A byte of the last event changed: its signature fails.
    let flip = |body: &str| {
        let at = body.rfind("%event").expect("an event") + 20;
        let mut bytes = body.as_bytes().to_vec();
        bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
        String::from_utf8(bytes).unwrap()
    };
    let cases: [(&str, String, bool); 5] = [
        // Long lines folded at 76 characters, as a careless relay does
        // (RFC 5322 allows 998): an event's signature broken in two.
        (
            "folded",
            with_attachment(&raw, |b| broken(b, 76, "\r\n", false)),
            false,
        ),
        ("altered-event", with_attachment(&raw, flip), false),
        (
            "trailing-spaces",
            with_attachment(&raw, |b| b.replace("\r\n", " \r\n")),
            true,
        ),
        // Delivered by a Unix program that stores LF line breaks.
        ("lf-only", raw.replace("\r\n", "\n"), true),
        // Re-encoded by a relay as quoted-printable (`=` escaped, the long
        // lines broken with soft line breaks).
        (
            "quoted-printable",
            with_attachment(&raw, |b| broken(b, 72, "=\r\n", true)).replacen(
                part_header,
                &part_header.replace("7bit", "quoted-printable"),
                1,
            ),
            true,
        ),
    ];
    for (name, mail, alone) in cases {
        let (code, said, record) = read_copy(name, mail.clone());
        assert_eq!(code, Some(0), "{name}: {said}");
        assert!(said.contains("1 new event(s) from Ann"), "{name}: {said}");
        assert_eq!(record, kept, "{name}: the same record kept");
        let (code, said, record) = read_copy(name, without_block(&mail));
        if alone {
            assert_eq!(code, Some(0), "{name}, the attachment alone: {said}");
            assert_eq!(record, kept, "{name}, the attachment alone");
        } else {
            assert_eq!(code, Some(1), "{name}, the attachment alone: {said}");
            assert_eq!(record, before, "{name}, the attachment alone: nothing kept");
        }
    }
}

#[test]
fn a_player_who_moves_sends_a_signed_card_and_the_game_follows() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    // Ann's first card, as Bo read it: what a forger could replay later.
    let bo_read = root.path().join("bo-read");
    let old_card = super::mail_files(&bo_read)
        .into_iter()
        .find(|m| {
            std::fs::read_to_string(m)
                .unwrap()
                .contains("X-Yam-Game: card")
        })
        .expect("Ann's card");
    // Ann moves to a new address and plays from it: Bo refuses the turn,
    // and says who signed it and what to do.
    let config = ann.dir().join("config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace("ann@example.org", "ann@new.example")).unwrap();
    ann.yam(&["move", "khan-1", &line[2]]).success();
    let said = bo.read();
    assert!(
        said.contains("signed by Ann <ann@example.org>, but the mail is from ann@new.example"),
        "{said}"
    );
    assert!(said.contains("yam identity send"), "{said}");
    assert!(!bo.record("khan-1").contains(&line[2]));
    // Her card from the new address, signed by her known key, moves the
    // contact and the game; Bo is told.
    let later = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 60)
        .to_string();
    let mut send = yam!();
    send.args(["identity", "send", "bo@example.net", "--data-dir"])
        .arg(ann.dir())
        .env("YAM_NOW", &later)
        .assert()
        .success();
    let said = bo.read();
    assert!(
        said.contains("Ann moved from ann@example.org to ann@new.example"),
        "{said}"
    );
    assert!(
        said.contains("games khan-1 now go to the new address"),
        "{said}"
    );
    // Her turn, sent again, applies; Bo's answer goes to the new address.
    ann.yam(&["resend", "khan-1"]).success();
    let said = bo.read();
    assert!(said.contains("1 new event(s) from Ann"), "{said}");
    bo.yam(&["move", "khan-1", &line[3]]).success();
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let answer = super::mail_files(&ann_inbox).pop().unwrap();
    assert!(
        std::fs::read_to_string(&answer)
            .unwrap()
            .contains("To: ann@new.example"),
        "the answer goes to the new address"
    );
    assert!(ann.read().contains("1 new event(s) from Bo"));
    // A forger replays Ann's old card from her old address, under a new
    // Message-ID (the same mail again is known as read): refused, and the
    // game stays with the new address.
    let replayed = root.path().join("replayed.eml");
    let old = std::fs::read_to_string(&old_card).unwrap();
    assert!(old.contains("Message-ID: <"));
    std::fs::write(
        &replayed,
        old.replacen("Message-ID: <", "Message-ID: <again.", 1),
    )
    .unwrap();
    bo.yam(&["read", "--eml", replayed.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains("not newer than the one known"));
    let meta = std::fs::read_to_string(bo.dir().join("games/khan-1/mail.yaml")).unwrap();
    assert!(meta.contains("opponent: ann@new.example"), "{meta}");
    bo.yam(&["identity", "contacts"]).success().stdout(
        predicate::str::contains("<ann@new.example>")
            .and(predicate::str::contains("(formerly ann@example.org)")),
    );
}

/// Ann challenges Bo to game `id` (cards exchanged first if new); Bo has
/// read the challenge and not answered it.
fn challenged(ann: &Player, bo: &Player, id: &str) {
    challenge_rescue(ann, "bo@example.net", id).success();
    for _ in 0..2 {
        bo.read();
        ann.read();
    }
    let said = bo.read();
    let games = bo.yam(&["games"]).success();
    let listed = String::from_utf8_lossy(&games.get_output().stdout).into_owned();
    assert!(listed.contains(id), "{said}\n{listed}");
}

#[test]
fn a_challenge_is_declined_or_withdrawn_and_both_desks_agree() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    // Declined, with a reason: Bo cannot accept it after, Ann is told.
    challenged(&ann, &bo, "khan-2");
    bo.yam(&["decline", "khan-2", "--reason", "not this month\x1b[2K"])
        .success()
        .stdout(predicate::str::contains("declined by Bo"));
    bo.yam(&["accept", "khan-2"])
        .code(1)
        .stderr(predicate::str::contains("declined by Bo"));
    let said = ann.read();
    assert!(said.contains("The challenge was declined by Bo"), "{said}");
    assert!(said.contains("not this month"), "{said}");
    assert!(!said.contains('\x1b'), "{said}");
    assert_eq!(ann.status("khan-2"), "over");
    assert_eq!(bo.status("khan-2"), "over");
    ann.yam(&["withdraw", "khan-2"]).code(1);
    // Withdrawn by Ann before Bo answers: Bo cannot accept it.
    challenged(&ann, &bo, "khan-3");
    ann.yam(&["withdraw", "khan-3"])
        .success()
        .stdout(predicate::str::contains("withdrawn by Ann"));
    let said = bo.read();
    assert!(
        said.contains("The challenge was withdrawn by Ann"),
        "{said}"
    );
    bo.yam(&["accept", "khan-3"])
        .code(1)
        .stderr(predicate::str::contains("withdrawn by Ann"));
    // Crossing mails: Bo accepts while Ann withdraws. Ann signed nothing
    // after her challenge, so the withdrawal stands on both sides, and the
    // acceptance changes nothing at Ann's.
    challenged(&ann, &bo, "khan-4");
    bo.yam(&["accept", "khan-4"]).success();
    ann.yam(&["withdraw", "khan-4"]).success();
    let said = bo.read();
    assert!(said.contains("withdrawn by Ann"), "{said}");
    let said = ann.read();
    assert!(said.contains("This mail changes nothing"), "{said}");
    assert_eq!(ann.status("khan-4"), "over");
    assert_eq!(bo.status("khan-4"), "over");
    // Only the right party, and only before the game has started.
    challenged(&ann, &bo, "khan-5");
    ann.yam(&["decline", "khan-5"])
        .code(1)
        .stderr(predicate::str::contains(
            "only a challenge waiting for your acceptance",
        ));
    bo.yam(&["withdraw", "khan-5"])
        .code(1)
        .stderr(predicate::str::contains("only your own challenge"));
}

#[test]
fn a_withdrawal_signed_after_the_game_started_is_refused() {
    use yam_cli::mail::notice::{Notice, NoticeKind};
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    // Ann's own desk refuses: the game has started.
    ann.yam(&["withdraw", "khan-1"])
        .code(1)
        .stderr(predicate::str::contains("yam resign khan-1"));
    // A doctored desk signs the withdrawal anyway and mails it: Bo's desk
    // sees that Ann has played since, and the game goes on.
    let secrets = yam_cli::game::secrets::Secrets::open(&ann.dir().join("secrets")).unwrap();
    let (me, _) = secrets.identity("ann").unwrap();
    let record = bo.record("khan-1");
    let challenge = {
        let replay = yam_cli::game::record::verified_replay(
            record.as_bytes(),
            &bo.dir().join("games/khan-1/record.yam"),
            yam_referee::signed::Known::Nothing,
        )
        .unwrap();
        replay.events().first().unwrap().hash()
    };
    let notice = Notice {
        kind: NoticeKind::Withdraw,
        game: "khan-1".into(),
        challenge,
        key: me.key.public_key(),
        reason: "losing".into(),
    }
    .signed_text(&me.key);
    let block = yam_cli::mail::armor::armor("khan-1", 2, notice.as_bytes());
    let mail = format!(
        "From: Ann <ann@example.org>\r\nTo: bo@example.net\r\nSubject: withdrawn\r\nMessage-ID: <doctored@example.org>\r\n\r\n{}",
        block.replace('\n', "\r\n")
    );
    let file = root.path().join("doctored.eml");
    std::fs::write(&file, mail).unwrap();
    bo.yam(&["read", "--eml", file.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains("has played since"));
    assert_ne!(bo.status("khan-1"), "over");
    // The same notice from another address (a forger who knows Ann's
    // address but not her key cannot sign; one who resends her notice
    // from elsewhere is refused by address).
    let elsewhere = std::fs::read_to_string(&file)
        .unwrap()
        .replace("From: Ann <ann@example.org>", "From: Eve <eve@example.com>");
    std::fs::write(&file, elsewhere).unwrap();
    bo.yam(&["read", "--eml", file.to_str().unwrap()])
        .code(1)
        .stdout(predicate::str::contains("not in the game"));
    ann.yam(&["move", "khan-1", &line[2]]).success();
    assert!(bo.read().contains("1 new event(s) from Ann"));
}

/// A turn mail shows the board as a picture: its HTML side, as a mail
/// client shows it (the `cid:` picture resolved to the mail's own PNG
/// part), opened in headless Chromium, draws the board; the text side is
/// whole for plain-text readers. A screenshot goes to
/// target/test-artifacts/turn-mail.png.
#[test]
fn a_turn_mail_shows_the_board_as_a_picture() {
    use mail_parser::MimeHeaders;
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    ann.yam(&["move", "khan-1", &line[2]]).success();
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let raw = std::fs::read(super::mail_files(&bo_inbox).pop().unwrap()).unwrap();
    let mail = mail_parser::MessageParser::default().parse(&raw).unwrap();
    let text = mail.body_text(0).unwrap();
    assert!(text.contains("-----BEGIN YAM TURN-----"), "{text}");
    let html = mail.body_html(0).unwrap().into_owned();
    assert!(!html.contains("-----BEGIN YAM TURN-----"), "{html}");
    let picture = mail
        .parts
        .iter()
        .find(|p| p.content_id() == Some("board"))
        .expect("the board's picture");
    assert!(picture.is_content_type("image", "png"));
    // Bo's desk reads it as any turn.
    assert!(bo.read().contains(&format!("Ann played {}", line[2])));

    let Some(chromium) = yam_tests::browser::chromium_or_skip() else {
        return;
    };
    let page_dir = root.path().join("mail-page");
    std::fs::create_dir_all(&page_dir).unwrap();
    std::fs::write(page_dir.join("board.png"), picture.contents()).unwrap();
    // What a mail client does with `cid:`, and a probe of the picture.
    let page = html.replace("cid:board", "board.png").replace(
        "</body>",
        "<script>window.addEventListener('load', function () {\
         var i = document.images[0];\
         document.body.setAttribute('data-picture', i.complete + ' ' + i.naturalWidth + 'x' + i.naturalHeight);\
         });</script></body>",
    );
    let page_path = page_dir.join("mail.html");
    std::fs::write(&page_path, page).unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| yam_tests::workspace().join("target"));
    let artifacts = target.join("test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let shot = artifacts.join("turn-mail.png");
    let _ = std::fs::remove_file(&shot);
    let profile = tempfile::tempdir().unwrap();
    let dom = yam_tests::browser::browse(
        &chromium,
        profile.path(),
        &[
            "--dump-dom",
            &format!("--screenshot={}", shot.display()),
            "--window-size=900,1400",
        ],
        &yam_tests::browser::file_url(&page_path),
    );
    let seen = yam_tests::browser::attribute(&dom, "data-picture").expect("the probe ran");
    let (complete, size) = seen.split_once(' ').unwrap();
    assert_eq!(complete, "true", "{seen}");
    let (w, h) = size.split_once('x').unwrap();
    let (w, h): (u32, u32) = (w.parse().unwrap(), h.parse().unwrap());
    assert!(w >= 600 && h >= 600, "a board-sized picture: {seen}");
    assert!(
        std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0) > 20_000,
        "no screenshot at {}",
        shot.display()
    );
}

/// CS-P4 by mail: under `standard-faithful` every order is its own roll
/// request, answered at once by the other desk, so each move, breach and
/// attack is chosen once the dice before it are known; it costs mails, not
/// rules. A declaration listing an order after a die is refused at the
/// desk, both desks keep the same record, and it verifies and checks.
#[test]
fn a_faithful_siege_by_mail_one_roll_per_order() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let id = "siege-faithful";
    open_game(
        &ann,
        &bo,
        id,
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard-faithful",
            "--seats",
            "first",
        ],
    );
    assert!(ann.record(id).contains("[Ruleset \"standard-faithful\"]"));
    let mut moves = 0;
    let mut refused_seen = false;
    for _ in 0..400 {
        if moves >= 40 {
            break;
        }
        let (mover, other) = match (ann.status(id).as_str(), bo.status(id).as_str()) {
            ("over", "over") => break,
            ("YOU", _) => (&ann, &bo),
            (_, "YOU") => (&bo, &ann),
            _ => {
                // A mail is still travelling.
                ann.read();
                bo.read();
                continue;
            }
        };
        // Once the setups are in, the rules' turn holds at the desk too.
        let revealed = main_line(&mover.record(id))
            .iter()
            .filter(|t| t.contains(':') && !t.ends_with(":sealed"))
            .count();
        if !refused_seen && revealed == 2 {
            mover
                .yam(&["move", id, "Attack", "Cd4xKa1", "End"])
                .code(1)
                .stderr(predicate::str::contains(
                    "ends with the order that rolls its die",
                ));
            refused_seen = true;
        }
        moves += 1;
        mover
            .yam(&["move", id, "--auto", "eager", "--seed", &moves.to_string()])
            .success();
        other.read();
        mover.read();
    }
    ann.read();
    bo.read();
    assert!(refused_seen);
    let record = ann.record(id);
    assert_eq!(record, bo.record(id), "both desks hold the same record");
    // The allowance went by mail on its own, answered like any roll.
    assert!(record.contains("Move@"), "{record}");
    assert!(record.contains("[%chance"), "{record}");
    let file = root.path().join("faithful.yam");
    std::fs::write(&file, &record).unwrap();
    yam!()
        .arg("verify")
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("verified (peer mode)"));
    yam!().arg("check").arg(&file).assert().success();
}

/// Adversary: the opponent of a player who lets Yam place her units
/// (`yam move GAME --auto random`, "a quick game against a friend's
/// patience"). Attack: none but running Yam's own choice on the record he
/// holds. `--auto` seals a setup drawn from `--seed` (0 unless given) and
/// the count of the record's events, both known to the opponent, so he
/// computes her face-down setup the moment she seals it, and plays his own
/// placement against it (CS-07: both sides place in secret; the setup is
/// kept in her secrets, the record shows only `Defender:sealed`). A setup
/// Yam chooses for a player must be drawn from a secret, as her salt is.
#[test]
fn a_setup_sealed_by_auto_cannot_be_computed_by_the_opponent() {
    use yam_cli::game::autoplay::{Intent, choose};
    use yam_referee::castle_siege::Policy;
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let id = "siege-auto-setup";
    open_game(
        &ann,
        &bo,
        id,
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            "--seats",
            "first",
        ],
    );
    // Bo's copy of the record, before Ann (the Defender) seals.
    let before = bo.record(id);
    ann.yam(&["move", id, "--auto", "random"]).success();
    bo.read();
    assert!(bo.record(id).contains("Defender:sealed"), "setup");
    // What Bo computes from his copy alone, before he seals.
    let replay = yam_cli::game::record::verified_replay(
        before.as_bytes(),
        &bo.dir().join("games").join(id).join("record.yam"),
        yam_referee::signed::Known::Nothing,
    )
    .unwrap();
    let predicted = match choose(&replay, 0, Policy::Random, 0).unwrap() {
        Intent::Seal(setup) => setup,
        other => panic!("setup: {other:?}"),
    };
    // Bo seals, and both setups are revealed.
    bo.yam(&["move", id, "Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK"])
        .success();
    ann.read();
    bo.read();
    ann.read();
    let revealed = main_line(&bo.record(id))
        .into_iter()
        .find(|t| t.starts_with("Defender:") && !t.ends_with(":sealed"))
        .expect("setup: Ann's setup is revealed");
    assert_ne!(
        revealed, predicted,
        "Bo computed Ann's sealed setup from the public record before sealing his own"
    );
}

/// Adversary: a Defender who never seals her setup (real life: a player
/// who walks away; or one who stalls a lost siege before it begins).
/// Attack: Ann (the Defender) does nothing more after the opening and
/// never seals. Bo's desk tells him it is Ann's move and refuses his own
/// seal ("it is not your move"), so he waits, as told. After the agreed
/// 40 days he claims a forfeit, as docs/mail.md ("Deadlines") and
/// fair-play 3.8 promise against a silent party; but while neither setup
/// is sealed the verifier counts both seats as owing (CS-07: either may
/// seal first), and a party that owes may not claim: the claim is
/// refused, and Bo can neither play nor claim, for ever. The party the
/// desk makes wait must be able to claim against the one it waits for
/// (or seal his own setup meanwhile).
#[test]
fn a_defender_who_never_seals_can_be_claimed_against_by_the_attacker_her_desk_made_wait() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let id = "siege-silent";
    open_game(
        &ann,
        &bo,
        id,
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            "--seats",
            "first",
        ],
    );
    assert_eq!(bo.status(id), "them", "setup: Bo waits for Ann's seal");
    // Bo tries to seal first (today his desk refuses: "it is not your
    // move"); sealed or not, he then waits for Ann.
    bo.yam(&["move", id, "Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK"]);
    // 41 days of Ann's silence.
    let games = in_days(&bo, 41, &["games"]).success();
    let listed = String::from_utf8_lossy(&games.get_output().stdout).into_owned();
    let out = in_days(&bo, 41, &["forfeit", id]);
    let output = out.get_output();
    assert!(
        output.status.success(),
        "after 41 days of Ann's silence before her seal, Bo, whom his desk made wait, cannot claim a forfeit: {}\n(yam games: {listed})",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Adversary: a Defender who stops reading once both setups are sealed
/// (real life: she goes away; or she stalls a siege she expects to lose).
/// Attack: Ann seals, Bo seals; Ann's desk would reveal her setup when
/// she reads Bo's seal, but she never runs `yam read`. Bo's desk says it
/// is Ann's move (her reveal comes first) and does not reveal his; after
/// the agreed 40 days `yam games` tells him a forfeit may be claimed, but
/// the verifier counts both unrevealed seats as owing, and a party that
/// owes may not claim: `yam forfeit` is refused, and the game can never
/// end but by Bo's resignation.
#[test]
fn a_defender_who_never_reveals_can_be_claimed_against_by_the_attacker_her_desk_made_wait() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let id = "siege-unrevealed";
    open_game(
        &ann,
        &bo,
        id,
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            "--seats",
            "first",
        ],
    );
    ann.yam(&["move", id, "Defender:CKAO/OACK/KCOA/AOKC"])
        .success();
    bo.read();
    bo.yam(&["move", id, "Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK"])
        .success();
    assert!(bo.record(id).contains("Attacker:sealed"), "setup");
    assert_eq!(bo.status(id), "them", "setup: Bo waits for Ann's reveal");
    // Ann never reads Bo's seal: 41 days of silence.
    let games = in_days(&bo, 41, &["games"]).success();
    let listed = String::from_utf8_lossy(&games.get_output().stdout).into_owned();
    let out = in_days(&bo, 41, &["forfeit", id]);
    let output = out.get_output();
    assert!(
        output.status.success(),
        "after 41 days without Ann's reveal, Bo, whom his desk made wait, cannot claim a forfeit: {}\n(yam games: {listed})",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `yam games` and `yam board` for scripts: JSON valid against their
/// published schemas (docs/json.md), saying what the human form says.
#[test]
fn games_and_board_json_are_valid_against_their_schemas() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let schema = |name: &str| {
        let text =
            std::fs::read_to_string(yam_tests::workspace().join("docs/schema").join(name)).unwrap();
        jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
    };
    let parse = |out: &[u8]| -> Vec<serde_json::Value> {
        String::from_utf8_lossy(out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let games = parse(
        &ann.yam(&["games", "--format", "json"])
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(games.len(), 1);
    assert!(schema("games-1.json").is_valid(&games[0]), "{}", games[0]);
    assert_eq!(games[0]["game_id"], "khan-1");
    assert_eq!(games[0]["turn"], "you", "Ann (White) moves third");
    let theirs = parse(
        &bo.yam(&["games", "--format", "json"])
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(theirs[0]["turn"], "them");
    assert!(schema("games-1.json").is_valid(&theirs[0]), "{}", theirs[0]);
    let board = parse(
        &ann.yam(&["board", "khan-1", "--format", "json"])
            .success()
            .get_output()
            .stdout,
    );
    assert!(schema("board-1.json").is_valid(&board[0]), "{}", board[0]);
    assert_eq!(board[0]["my_move"], true);
    let legal: Vec<&str> = board[0]["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(legal.contains(&line[2].as_str()), "{legal:?}");
    let waiting = parse(
        &bo.yam(&["board", "khan-1", "--format", "json"])
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(waiting[0]["my_move"], false);
    assert!(
        schema("board-1.json").is_valid(&waiting[0]),
        "{}",
        waiting[0]
    );
}

/// The desk trusts its store only as far as its verified checkpoint
/// vouches: a stored record changed behind its back (a covered event's
/// signature broken) is verified whole and refused, where trusting the
/// store as such would have read it; the honest record back, the game
/// goes on. A store from before checkpoints (none kept) is verified whole
/// once and gets one.
#[test]
fn a_store_changed_behind_the_desks_back_is_verified_whole() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 4);
    let game = ann.dir().join("games/khan-1");
    let checkpoint = game.join("checkpoint");
    let kept = std::fs::read_to_string(&checkpoint).unwrap();
    assert!(kept.starts_with("yam-checkpoint 2\n"), "{kept}");
    let honest = ann.record("khan-1");

    // A signature of a covered event, changed in the store.
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut record = yam_notation::parse_record::<yam_notation::RawGrammar>(&honest).unwrap();
    let cmd = record
        .movetext
        .iter_mut()
        .filter_map(|n| match n {
            yam_notation::Node::Comment(c) => c.parts.iter_mut().find_map(|p| match p {
                yam_notation::CommentPart::Command(cmd) if cmd.name == "event" => Some(cmd),
                _ => None,
            }),
            _ => None,
        })
        .nth(2)
        .unwrap();
    let mut sig = b64.decode(&cmd.args[1]).unwrap();
    sig[0] ^= 0x80;
    cmd.args[1] = b64.encode(sig);
    let forged = yam_notation::record_to_string::<yam_notation::RawGrammar>(&record);
    std::fs::write(game.join("record.yam"), &forged).unwrap();
    ann.yam(&["board", "khan-1"])
        .failure()
        .stderr(predicates::str::contains("signature does not verify"));
    ann.yam(&["move", "khan-1", &line[4]])
        .failure()
        .stderr(predicates::str::contains("signature does not verify"));
    assert_eq!(ann.record("khan-1"), forged, "nothing written");

    // The honest record back: the game goes on.
    std::fs::write(game.join("record.yam"), &honest).unwrap();
    ann.yam(&["move", "khan-1", &line[4]]).success();
    bo.read();
    assert!(bo.record("khan-1").contains(&line[4]));
    let moved = std::fs::read_to_string(&checkpoint).unwrap();
    assert_ne!(moved, kept, "the checkpoint follows the record");

    // No checkpoint and no tip (a store from an earlier build): verified
    // whole, and both written.
    let bo_checkpoint = bo.dir().join("games/khan-1/checkpoint");
    let bo_tip = bo.dir().join("games/khan-1/tip");
    std::fs::remove_file(&bo_checkpoint).unwrap();
    std::fs::remove_file(&bo_tip).unwrap();
    bo.yam(&["board", "khan-1"]).success();
    assert!(bo_checkpoint.exists());
    assert!(bo_tip.exists());
}

/// The desk keeps a tip of each game (its verified replay bound to the
/// stored record's bytes: `docs/fair-play.md`, 9.11) and reads a turn mail
/// that continues the stored record from it, walking only the mail's new
/// events and printing them after its own text. The game read so is the
/// game read whole: canonical, the sender's record byte for byte, and
/// verified; a damaged tip is no tip; a record whose stored part was
/// changed is refused as before.
#[test]
fn a_turn_mail_is_read_from_the_games_tip() {
    let canonical = |text: &str| {
        yam_notation::record_to_string::<yam_notation::RawGrammar>(
            &yam_notation::parse_record::<yam_notation::RawGrammar>(text).unwrap(),
        )
    };
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 4);
    let tip = bo.dir().join("games/khan-1/tip");
    let kept = std::fs::read(&tip).unwrap();
    assert!(kept.starts_with(b"yam-tip\0"));

    ann.yam(&["move", "khan-1", &line[4]]).success();
    bo.read();
    let read = bo.record("khan-1");
    assert!(read.contains(&line[4]));
    assert_eq!(canonical(&read), read, "printed canonically");
    assert_eq!(
        read,
        ann.record("khan-1"),
        "the sender's record, byte for byte"
    );
    assert_ne!(
        std::fs::read(&tip).unwrap(),
        kept,
        "the tip follows the record"
    );
    // The tip written from the one read is a tip of the new record: the
    // next turn is read from it too.
    assert!(
        yam_tests::tip_is_of(&tip, &read),
        "the new tip is of the new record"
    );
    bo.yam(&["board", "khan-1"]).success();

    // A damaged tip is no tip: the mail is read whole, a new tip written.
    bo.yam(&["move", "khan-1", &line[5]]).success();
    ann.read();
    ann.yam(&["move", "khan-1", &line[6]]).success();
    let mut damaged = std::fs::read(&tip).unwrap();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    std::fs::write(&tip, &damaged).unwrap();
    bo.read();
    assert!(bo.record("khan-1").contains(&line[6]));
    assert_ne!(std::fs::read(&tip).unwrap(), damaged);
    assert_eq!(bo.record("khan-1"), ann.record("khan-1"));
    yam_tests::yam!()
        .arg("verify")
        .arg(bo.dir().join("games/khan-1/record.yam"))
        .assert()
        .success();

    // The stored record damaged by another program (a byte that is no
    // UTF-8, as an editor saving in Latin-1 leaves): the turn that would
    // be appended to it in its own buffer is refused, saying why, and the
    // file, the tip and the mail stay as they were; the record mended,
    // the same mail is read.
    bo.yam(&["move", "khan-1", &line[7]]).success();
    ann.read();
    ann.yam(&["move", "khan-1", &line[8]]).success();
    let stored = bo.dir().join("games/khan-1/record.yam");
    let honest = std::fs::read(&stored).unwrap();
    let mut latin1 = honest.clone();
    let at = honest.windows(7).position(|w| w == b"[White ").unwrap() + 8;
    latin1[at] = 0xe9;
    std::fs::write(&stored, &latin1).unwrap();
    let kept_tip = std::fs::read(&tip).unwrap();
    let said = bo.read();
    assert!(said.contains("UTF-8"), "{said}");
    assert!(
        said.contains("games/khan-1/record.yam: "),
        "the file named: {said}"
    );
    assert!(
        said.contains(":5:9:") || said.contains(" 5:9: "),
        "line and column: {said}"
    );
    assert_eq!(
        std::fs::read(&stored).unwrap(),
        latin1,
        "the file as it was"
    );
    assert_eq!(std::fs::read(&tip).unwrap(), kept_tip, "the tip as it was");
    std::fs::write(&stored, &honest).unwrap();
    bo.read();
    assert!(bo.record("khan-1").contains(&line[8]));
    assert_eq!(bo.record("khan-1"), ann.record("khan-1"));
}

#[test]
fn after_a_takeback_undid_her_move_a_player_can_still_offer_to_take_back_her_last_move() {
    // Attack (a plain sequence, every step honest): Bo, on his move, asks
    // to take back his last move; that goes back past Ann's reply too.
    // Ann accepts, Bo plays again. Now Ann asks to take back her last
    // move (the one still on the board). The desk finds "her last move"
    // by scanning every event, so it picks the reply the take-back undid,
    // and offers to go back to a position inside the undone line, which
    // the referee refuses ("a take-back into a line a take-back undid").
    // What Ann loses: she cannot offer a take-back at all until she moves
    // again, though the referee accepts an offer back to before her move
    // in the line as it stands.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 4);
    ann.yam(&["move", "khan-1", &line[4]]).success();
    bo.read();
    // Bo's take-back goes back to before his move 4: Ann's move 5 goes too.
    bo.yam(&["takeback", "offer", "khan-1"]).success();
    ann.read();
    ann.yam(&["takeback", "accept", "khan-1"]).success();
    bo.read();
    // Back after Ann's move 3: Bo plays his move 4 again (legal only there).
    bo.yam(&["move", "khan-1", &line[3]]).success();
    ann.read();
    // Ann's last move on the board is line[2]: she asks to take it back.
    let out = ann.yam(&["takeback", "offer", "khan-1"]);
    let output = out.get_output();
    assert!(
        output.status.success(),
        "Ann's desk refused her take-back offer of her last move on the board (the referee would accept one back to before it): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    bo.read();
    bo.yam(&["takeback", "accept", "khan-1"]).success();
    ann.read();
    // Back to before Ann's move 3: she plays it again, legal only there.
    ann.yam(&["move", "khan-1", &line[2]]).success();
}

#[test]
fn two_offers_mailed_at_once_are_answered_oldest_first_and_the_second_stays_answerable() {
    // Attack (handled): Bo's client mails his move with a draw offer, then
    // a take-back offer of that move. Ann wants the take-back, not the
    // draw. Her desk names the draw as owed first ("Ann is to answer a
    // draw offer") and refuses to answer the take-back before it; once
    // she declines the draw, the take-back is hers to answer, she accepts
    // it, and it is her move in the restored position: nothing is lost,
    // and the desk never signs an answer out of the referee's order.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after(root.path(), 4);
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let mut log = Log::parse(&ann.record("khan-1"));
    let bo_secrets = Cheater::from_secrets(&bo.dir().join("secrets"), "bo", "khan-1");
    // Back to before Bo's move 4 (the event before his last turn).
    let back_to = u32::try_from(log.events().len() - 2).unwrap();
    let draw = log.next(&bo_secrets, EventBody::DrawOffer);
    log.append(&[], &draw);
    let takeback = log.next(&bo_secrets, EventBody::TakebackOffer { back_to });
    log.append(&[], &takeback);
    let n = u32::try_from(log.events().len()).unwrap();
    std::fs::write(
        ann_inbox.join("two-offers.eml"),
        attacker::mail(&bo.address, &ann.address, "khan-1", n, &log.text()),
    )
    .unwrap();
    let said = ann.read();
    assert!(said.contains("Ann is to answer a draw offer"), "{said}");
    ann.yam(&["takeback", "accept", "khan-1"])
        .code(1)
        .stderr(predicate::str::contains("no take-back offer waits"));
    ann.yam(&["draw", "decline", "khan-1"]).success();
    assert_eq!(ann.status("khan-1"), "YOU", "the take-back waits on Ann");
    ann.yam(&["takeback", "accept", "khan-1"]).success();
    // Back after Ann's move 3: Bo's move 4 is to be played again. (Bo's
    // own desk never signed these offers: his client did, so the game is
    // followed on Ann's side.)
    assert_eq!(ann.status("khan-1"), "them");
    let board =
        String::from_utf8_lossy(&ann.yam(&["board", "khan-1"]).get_output().stdout).into_owned();
    assert!(board.contains("Bo to move"), "{board}");
    let file = root.path().join("answered.yam");
    std::fs::write(&file, ann.record("khan-1")).unwrap();
    yam!()
        .args(["verify", file.to_str().unwrap()])
        .assert()
        .success();
}

#[test]
fn a_game_file_the_desk_cannot_read_stops_the_read_and_loses_nothing() {
    // Real life (a disk error, a permission an operator changed): Ann's
    // `mail.yaml` is there but cannot be read. The desk took any read
    // error for "no bookkeeping yet" and went on with empty bookkeeping:
    // its outbox, thread and clocks would have been written over. Now only
    // an absent file is "none yet"; any other error stops the command,
    // names the file, and leaves the mail where it was. (A directory in
    // the file's place stands for the error: the tests run as root, whom
    // no permission stops.)
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    bo.yam(&["move", "khan-1", &line[3]]).success();
    let meta = ann.dir().join("games/khan-1/mail.yaml");
    let kept = std::fs::read_to_string(&meta).unwrap();
    let aside = ann.dir().join("mail.yaml.aside");
    std::fs::rename(&meta, &aside).unwrap();
    std::fs::create_dir(&meta).unwrap();
    let Inbox::Files { dir, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let mails = super::mail_files(&dir);
    assert_eq!(mails.len(), 1, "Bo's turn waits in Ann's inbox");
    ann.yam(&["read", "--eml", mails[0].to_str().unwrap()])
        .failure()
        .stdout(predicate::str::contains(
            "left in place: ".to_owned() + &meta.display().to_string() + ": cannot be read",
        ));
    assert!(mails[0].exists(), "the mail stays where it was");
    std::fs::remove_dir(&meta).unwrap();
    std::fs::rename(&aside, &meta).unwrap();
    assert_eq!(std::fs::read_to_string(&meta).unwrap(), kept);
    ann.read();
    ann.yam(&["move", "khan-1", &line[4]]).success();
}

#[test]
fn the_days_the_mover_sits_on_an_offer_made_to_him_count_against_his_move() {
    // Attack (a player who owes a move and wants to pause his clock):
    // Ann moves with `--offer-draw`. Bo owes the answer and then his
    // move; he sits on both for 39 days and declines on day 39. Ann's
    // desk moves Bo's move clock on by the 39 days the offer waited, as
    // if Bo had been the one waiting ("the days an offer *of the mover*
    // waited for its answer are not counted against it", docs/mail.md),
    // so on day 41 Ann's claim is refused: "Bo has been silent 2
    // day(s)", though Bo has not moved for 41. What Ann loses: the
    // forfeit she is owed, for offering a draw with her move.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    in_days(&ann, 0, &["move", "khan-1", &line[2], "--offer-draw"]).success();
    read_in_days(&bo, 0);
    in_days(&bo, 39, &["draw", "decline", "khan-1"]).success();
    read_in_days(&ann, 39);
    assert_eq!(
        main_line(&ann.record("khan-1")),
        line[..3],
        "setup: Bo never moved"
    );
    claims_forfeit(&ann, 41, "Bo");
}

#[test]
fn a_mail_yaml_of_an_earlier_build_keeps_counting_a_move_from_the_last_change_across_an_offer() {
    // Attack (an old store): Ann's `mail.yaml` was written before the
    // silence fields existed; Bo has owed his move since her last
    // change (day 0). On day 35 he offers a draw and Ann declines it.
    // The offer step wrote `answer_due_since` but no `move_due_since`, so
    // at her answer the move's clock falls back to "the last change",
    // which is by then the offer: Bo's 35 days are forgotten and Ann's
    // claim on day 41 is refused ("Bo has been silent 6 day(s)").
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after(root.path(), 3);
    // `mail.yaml` as a build before the silence clock wrote it.
    let meta_path = ann.dir().join("games/khan-1/mail.yaml");
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    let old: String = meta
        .lines()
        .filter(|l| !l.contains("_due_since:"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(old, meta, "setup: the new build wrote the silence fields");
    std::fs::write(&meta_path, old).unwrap();
    draw_offered_and_declined(&bo, &ann, 35);
    claims_forfeit(&ann, 41, "Bo");
}

#[test]
fn the_first_mover_cannot_reset_her_clock_by_an_offer_before_her_first_move() {
    // Attack (a player who owes a move and wants to reset her clock): no
    // desk writes `move_due_since` before the game's first turn (the
    // opening's events are no turn), so until then the clock falls back
    // to the last change, as for a store of an earlier build. Ann, to
    // move first, never moves; on day 35 she offers a draw and Bo
    // declines it the same day. At his answer the move's clock falls
    // back to "the last change", by then her offer: her 35 days are
    // forgotten and Bo's claim on day 41 is refused ("Ann has been
    // silent 6 day(s)").
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after(root.path(), 0);
    draw_offered_and_declined(&ann, &bo, 35);
    assert!(
        main_line(&bo.record("khan-1")).is_empty(),
        "setup: Ann never moved"
    );
    claims_forfeit(&bo, 41, "Ann");
}

/// `yam challenge bo@example.net --id ID` for Rescue Khan, Ann first.
fn challenge_bo(ann: &Player, id: &str) -> assert_cmd::assert::Assert {
    challenge_rescue(ann, "bo@example.net", id)
}

/// `challenger` challenges `to` to Rescue Khan game `id`, seated first.
fn challenge_rescue(challenger: &Player, to: &str, id: &str) -> assert_cmd::assert::Assert {
    let mut args = vec!["challenge", to, "--id", id];
    args.extend_from_slice(&RESCUE_KHAN_FIRST);
    challenger.yam(&args)
}

#[test]
fn a_second_challenge_to_a_new_contact_does_not_write_over_the_first() {
    // Real life: Ann challenges Bo, whom she has never played, to a game,
    // and, before his card has come back, to a second one (a return game,
    // another ruleset). Each challenge waits for his card in
    // `pending/bo@example.net.yaml`; the second was written over the
    // first without a word, both commands said "the challenge follows by
    // itself", and when Bo's card came only the second went out: the
    // first challenge was lost. A second challenge must either be kept
    // beside the first (both sent with the card) or be refused, saying
    // that one already waits.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    challenge_bo(&ann, "khan-a")
        .success()
        .stdout(predicate::str::contains("the challenge follows by itself"));
    let second = challenge_bo(&ann, "khan-b");
    let second_kept = second.get_output().status.success();
    let second_said = String::from_utf8_lossy(&second.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&second.get_output().stderr);
    // The cards cross; the waiting challenges go out with Bo's card.
    let bo_said = bo.read();
    let ann_said = ann.read();
    let bo_said2 = bo.read();
    let listed =
        String::from_utf8_lossy(&bo.yam(&["games"]).success().get_output().stdout).into_owned();
    let context = format!(
        "second challenge said: {second_said}\nBo read: {bo_said}\nAnn read: {ann_said}\nBo read: {bo_said2}\nBo's games:\n{listed}"
    );
    assert!(
        listed.contains("khan-a"),
        "the first challenge was lost:\n{context}"
    );
    if second_kept {
        assert!(listed.contains("khan-b"), "{context}");
    }
    // The desk refuses the second, saying which challenge waits and how
    // to go on; the legal case, a challenge to a new contact with none
    // waiting, was taken above.
    assert!(
        !second_kept
            && second_said.contains(
                "a challenge to bo@example.net already waits for their card (game khan-a)"
            )
            && second_said.contains("`yam withdraw khan-a`"),
        "{context}"
    );
}

#[test]
fn a_waiting_challenge_that_cannot_be_read_is_said_not_dropped() {
    // Real life: Ann challenged Bo, a new contact; the challenge waits in
    // `pending/bo@example.net.yaml` for his card. The file is there but
    // cannot be read (a disk error; here a hand edit of its comment saved
    // in Latin-1, not UTF-8). When Bo's card comes, the desk took the
    // unreadable file for "no challenge waits": it said only "new
    // contact", answered nothing about the challenge, and never sent it,
    // leaving the file behind for ever. A damaged waiting challenge must
    // be named (file and why), not silently taken for none.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    challenge_bo(&ann, "khan-c")
        .success()
        .stdout(predicate::str::contains("the challenge follows by itself"));
    let pending = ann.dir().join("pending/bo@example.net.yaml");
    let mut bytes = std::fs::read(&pending).expect("setup: the challenge waits in pending/");
    bytes.extend_from_slice(b"# caf\xe9 au lait first\n");
    std::fs::write(&pending, &bytes).unwrap();
    // Listed as damaged, by the human listing and the JSON one alike
    // (exit 1, the file and why, valid against the schema).
    let listed = ann.yam(&["games"]).code(1);
    let text = String::from_utf8_lossy(&listed.get_output().stdout).into_owned();
    assert!(
        text.contains("a challenge waiting for bo@example.net's card cannot be read"),
        "{text}"
    );
    let json = ann.yam(&["games", "--format", "json"]).code(1);
    let line: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&json.get_output().stdout).trim()).unwrap();
    let schema_text =
        std::fs::read_to_string(yam_tests::workspace().join("docs/schema/challenge-1.json"))
            .unwrap();
    let schema = jsonschema::validator_for(&serde_json::from_str(&schema_text).unwrap()).unwrap();
    assert!(schema.is_valid(&line), "{line}");
    assert_eq!(line["opponent"], "bo@example.net");
    assert!(
        line["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{line}"
    );
    let bo_said = bo.read();
    assert!(bo_said.contains("new contact"), "setup: {bo_said}");
    let said = ann.read();
    let sent = said.contains("the waiting challenge khan-c is sent");
    let named = said.contains("pending/bo@example.net.yaml");
    assert!(
        sent || named,
        "Bo's card was read and the waiting challenge silently dropped: {said}"
    );
}

#[test]
fn yam_send_does_not_say_no_mail_waits_when_a_games_bookkeeping_cannot_be_read() {
    // Real life: Ann's move could not be mailed (her server was down), so
    // it waits in the outbox of `games/khan-1/mail.yaml`; then that file
    // cannot be read (a disk error; a directory in its place stands for
    // it, the tests running as root). `yam read` and every game command
    // now stop on such a file and name it, but `yam send`, the command
    // the desk tells her to run for a waiting mail, asked the file only
    // "does a mail wait?", took the error for "no", and answered "no
    // mail is waiting to be sent", with success: she is told her move
    // went when it never did. The same when the game's record cannot
    // be read: the game was skipped without a word.
    let root = tempfile::tempdir().unwrap();
    let ann = ann_move_left_unsent(root.path());
    let game = ann.dir().join("games/khan-1");
    let meta = game.join("mail.yaml");
    assert!(
        std::fs::read_to_string(&meta).unwrap().contains("outbox:"),
        "setup: the mail waits in the outbox"
    );
    // The bookkeeping cannot be read.
    let aside = ann.dir().join("mail.yaml.aside");
    std::fs::rename(&meta, &aside).unwrap();
    std::fs::create_dir(&meta).unwrap();
    let out = ann.yam(&["send"]);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        !said.contains("no mail is waiting to be sent") && said.contains("mail.yaml"),
        "an unreadable mail.yaml was taken for 'no mail waits': {said}"
    );
    assert!(!out.get_output().status.success(), "{said}");
    std::fs::remove_dir(&meta).unwrap();
    std::fs::rename(&aside, &meta).unwrap();
}

#[test]
fn yam_send_does_not_say_no_mail_waits_when_a_games_record_cannot_be_read() {
    // As above, with the game's record damaged instead (cut short by a
    // disk error, so it no longer verifies): `send_waiting` skipped the
    // game whose replay failed, its waiting mail with it, and `yam send`
    // said "no mail is waiting to be sent" and succeeded.
    let root = tempfile::tempdir().unwrap();
    let ann = ann_move_left_unsent(root.path());
    let record = ann.dir().join("games/khan-1/record.yam");
    let text = std::fs::read_to_string(&record).unwrap();
    // A record cut short (a disk error): it no longer verifies.
    std::fs::write(&record, &text[..text.len() * 2 / 3]).unwrap();
    let out = ann.yam(&["send"]);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        !said.contains("no mail is waiting to be sent") && said.contains("record.yam"),
        "a game whose record cannot be read was skipped without a word: {said}"
    );
    assert!(!out.get_output().status.success(), "{said}");
}

#[test]
fn an_import_over_a_file_that_cannot_be_read_writes_nothing() {
    // Real life: the new machine's data directory is not empty, and one
    // of the bundle's paths is there but cannot be read (a directory in
    // its place stands for a disk error, the tests running as root).
    // The import took the read error for "absent", planned to write the
    // file, and wrote the bundle's files one by one until that one
    // failed: half a desk, though it promises to check everything before
    // writing anything. Now only an absent file is one to write; any
    // other error stops the import before it writes.
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo, _) = khan_after(root.path(), 2);
    let bundle = root.path().join("ann-desk.yaml");
    ann.yam(&["identity", "export", "--out", bundle.to_str().unwrap()])
        .success();
    let new = tempfile::tempdir().unwrap();
    let blocked = new.path().join("games/khan-1/record.yam");
    std::fs::create_dir_all(&blocked).unwrap();
    let mut cmd = yam!();
    cmd.args(["identity", "import", bundle.to_str().unwrap(), "--data-dir"])
        .arg(new.path());
    cmd.assert()
        .code(2)
        .stderr(predicate::str::contains(blocked.display().to_string()));
    let written: Vec<_> = walkdir(new.path())
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    assert!(written.is_empty(), "nothing is written: {written:?}");
}

/// Every path under `dir`.
fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        }
        out.push(path);
    }
    out
}

#[test]
fn a_game_whose_record_cannot_be_read_is_listed_and_named_not_forgotten() {
    // Real life: a game's `record.yam` is there but cannot be read (a
    // directory in its place stands for a disk error, the tests running
    // as root). The desk listed only folders whose record is a regular
    // file: the game vanished from `yam games` ("no games yet"), its
    // commands said "no such game", and the opponent's next turn mail was
    // taken for a new challenge. Now it is listed, and every command on it
    // names the record and why.
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo, _) = khan_after(root.path(), 2);
    let record = ann.dir().join("games/khan-1/record.yam");
    let kept = std::fs::read(&record).unwrap();
    std::fs::remove_file(&record).unwrap();
    std::fs::create_dir(&record).unwrap();
    let games = ann.yam(&["games"]);
    let listed = String::from_utf8_lossy(&games.get_output().stdout).into_owned();
    assert!(listed.contains("khan-1"), "the game is listed: {listed}");
    ann.yam(&["board", "khan-1"])
        .failure()
        .stderr(predicate::str::contains(record.display().to_string()));
    std::fs::remove_dir(&record).unwrap();
    std::fs::write(&record, kept).unwrap();
    ann.yam(&["board", "khan-1"]).success();
}

/// `offerer` offers a draw in khan-1 on day `day`, `answerer` reads it and
/// declines it the same day, and `offerer` reads the answer.
fn draw_offered_and_declined(offerer: &Player, answerer: &Player, day: u64) {
    in_days(offerer, day, &["draw", "offer", "khan-1"]).success();
    read_in_days(answerer, day);
    in_days(answerer, day, &["draw", "decline", "khan-1"]).success();
    read_in_days(offerer, day);
}

/// `claimant` claims a forfeit in khan-1 on day `day` against `silent`,
/// silent all those days.
fn claims_forfeit(claimant: &Player, day: u64, silent: &str) {
    in_days(claimant, day, &["forfeit", "khan-1"])
        .success()
        .stdout(predicate::str::contains(format!(
            "claims a forfeit: {silent} has not answered in {day} days"
        )));
}

/// Ann's third move in khan-1, whose mail could not be sent (Bo's inbox
/// was away): it waits in her outbox. Ann's desk.
fn ann_move_left_unsent(root: &Path) -> Player {
    let (ann, bo, line) = khan_after(root, 2);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let away = root.join("away");
    std::fs::rename(&bo_inbox, &away).unwrap();
    ann.yam(&["move", "khan-1", &line[2]])
        .code(2)
        .stderr(predicate::str::contains("its mail could not be sent"));
    std::fs::rename(&away, &bo_inbox).unwrap();
    ann
}

/// Adversary: a hostile challenger (or anyone on the way who rewrites a
/// header: `X-Yam-Referee` is not signed). Attack: the challenge names as
/// its referee a value that holds an `@` but is no single mail address
/// (`robot@example.org, eve@evil.example`). `yam challenge --referee`
/// refuses such a value before anything is signed; the invited desk takes
/// it from the header unchecked, keeps it with the game, and every mail of
/// the game is then built with it as a Cc: none can be built, so the
/// invited player can neither accept nor decline, and the challenge sits
/// in his games for ever. The invited desk must check the referee it reads
/// as `yam challenge` checks one (refusing the challenge, or keeping no
/// such referee), so that whatever it stored can be answered.
#[test]
fn a_challenge_naming_a_referee_that_is_no_address_leaves_no_game_that_cannot_be_answered() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    ann.yam(&[
        "challenge",
        "bo@example.net",
        "--id",
        "khan-ref",
        "--game-type",
        "khan",
        "--ruleset",
        "rescue-khan",
        "--seats",
        "first",
        "--referee",
        "robot@example.org",
    ])
    .success();
    bo.read();
    let said = ann.read();
    assert!(
        said.contains("the waiting challenge khan-ref is sent"),
        "setup: {said}"
    );
    // The challenge, as it lies in Bo's inbox; its referee header rewritten.
    let mail = super::mail_files(&bo_inbox).pop().unwrap();
    let raw = std::fs::read_to_string(&mail).unwrap();
    assert!(
        raw.contains("X-Yam-Referee: robot@example.org"),
        "setup: {raw}"
    );
    std::fs::write(
        &mail,
        raw.replace(
            "X-Yam-Referee: robot@example.org",
            "X-Yam-Referee: robot@example.org, eve@evil.example",
        ),
    )
    .unwrap();
    let said = bo.read();
    let listed =
        String::from_utf8_lossy(&bo.yam(&["games"]).success().get_output().stdout).into_owned();
    if !listed.contains("khan-ref") {
        // Refused as it came: nothing stored, nothing to answer.
        return;
    }
    let before = super::mail_files(&ann_inbox).len();
    let accept = bo.yam(&["accept", "khan-ref"]);
    let out = accept.get_output();
    let accepted = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && super::mail_files(&ann_inbox).len() > before,
        "Bo's desk stored the challenge ({said}) but its acceptance cannot be mailed: {accepted}"
    );
}

/// Ann, who knows Carol, challenges Bo, a new contact, to game `try-1`
/// (the challenge waits for his card); Carol challenges Ann under the same
/// id and Ann's desk reads it; then Bo's card comes and Ann reads it.
/// Returns Ann and what her two reads of Bo's card said.
fn waiting_challenge_whose_id_is_taken(root: &Path) -> (Player, String, String) {
    let (ann, bo) = pair(root);
    let carol_inbox = root.join("carol-inbox");
    std::fs::create_dir_all(&carol_inbox).unwrap();
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let carol = Player::new(
        "Carol",
        "carol@example.com",
        Inbox::Files {
            dir: carol_inbox.clone(),
            archive: root.join("carol-read"),
        },
        &format!(
            "outgoing:\n  directory:\n    path: {}\n",
            ann_inbox.display()
        ),
    );
    // Ann and Carol know each other already (Ann's answer goes to Bo's
    // folder, her only outgoing one: handed on to Carol's).
    carol
        .yam(&["identity", "send", "ann@example.org"])
        .success();
    ann.read();
    for m in super::mail_files(&bo_inbox) {
        std::fs::rename(&m, carol_inbox.join(m.file_name().unwrap())).unwrap();
    }
    carol.read();
    // Ann challenges Bo, a new contact: the challenge waits for his card.
    challenge_bo(&ann, "try-1")
        .success()
        .stdout(predicate::str::contains("the challenge follows by itself"));
    // Carol challenges Ann under the same id; Ann's desk reads it.
    challenge_rescue(&carol, "ann@example.org", "try-1").success();
    let said = ann.read();
    assert!(said.contains("challenges you: game try-1"), "setup: {said}");
    assert!(
        ann.dir().join("pending/bo@example.net.yaml").exists(),
        "setup: Ann's challenge to Bo waits"
    );
    // Bo's card comes, and Ann's desk reads it (twice: the mail again).
    let said = bo.read();
    assert!(said.contains("my card is sent in answer"), "setup: {said}");
    let Inbox::Files { dir, archive } = ann.inbox.clone() else {
        unreachable!()
    };
    let card = super::mail_files(&dir).pop().expect("setup: Bo's card");
    let first = ann.read();
    let card = if card.exists() {
        card
    } else {
        archive.join(card.file_name().unwrap())
    };
    let again = ann.yam(&["read", "--eml", card.to_str().unwrap()]);
    let again = String::from_utf8_lossy(&again.get_output().stdout).into_owned();
    (ann, first, again)
}

/// Adversary: a player who knows (or guesses) the id of a challenge that
/// waits for a new contact's card (ids given with `--id` are words like
/// `try-1`), or plain bad luck. Attack: Carol, whom Ann knows, challenges
/// Ann under that same id before Bo's card comes. When Bo's card arrives
/// the desk takes the waiting challenge out of `pending/` before it is
/// signed (`take_pending` in `incoming::card`); signing it fails (the id is
/// taken), and the refusal is then lost too: a card mail carries the card
/// twice (attached and in the text), and the second copy, now a known key
/// with nothing waiting, reads as "the key is the one known", so the mail
/// is taken as read. Ann's challenge to Bo is gone without a word. A
/// waiting challenge that cannot go out when the card comes must stay
/// waiting, and be said.
#[test]
fn a_waiting_challenge_that_cannot_be_sent_when_the_card_comes_is_said_and_kept() {
    let root = tempfile::tempdir().unwrap();
    let (ann, first, again) = waiting_challenge_whose_id_is_taken(root.path());
    let pending = ann.dir().join("pending/bo@example.net.yaml");
    assert!(
        pending.exists() || first.contains("the waiting challenge try-1 is sent"),
        "Ann's challenge to Bo was dropped without a word when his card came:\nfirst read: {first}\nread again: {again}"
    );
}

/// Adversary: the same (a challenger who takes the id of Ann's waiting
/// challenge). Attack: as above; when Bo's card comes, Ann's desk draws a
/// chain for `try-1` and writes it into her secrets (`act::challenge` draws
/// the chain before `create_game` finds the id taken), then fails. The
/// chain stays, and Carol's challenge `try-1`, which Ann had not answered
/// yet, can no longer be accepted: "a chain for this game already exists".
/// A challenge that fails must leave nothing behind that blocks another
/// game: Ann can still accept Carol's.
#[test]
fn a_challenge_that_fails_on_a_taken_id_leaves_no_chain_that_blocks_the_game_of_that_id() {
    let root = tempfile::tempdir().unwrap();
    let (ann, _, _) = waiting_challenge_whose_id_is_taken(root.path());
    let accept = ann.yam(&["accept", "try-1"]);
    let out = accept.get_output();
    assert!(
        out.status.success(),
        "Carol's challenge can no longer be accepted: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Adversary: real life (a player who moved, and her mail client). Attack:
/// Ann moved to a new address and played from it; Bo's desk refused the
/// turn and asked for her card from the new address, then the turn again.
/// She selects the two mails in her client (her card, her turn) and
/// forwards them to Bo in one mail, each as an attached message, which Yam
/// reads ("forwarded messages are searched too"). Bo's desk reads the card
/// (the game moves to her new address) and stops there: the card decided
/// the mail, the turn beside it is never applied, and the mail is marked
/// dealt with, so reading it again does nothing. Both desks then wait for
/// each other. A mail must not be consumed while a turn it carries, which
/// the same mail made acceptable, goes unread: the turn applies (or the
/// mail is left in place to be read again).
#[test]
fn a_mail_forwarding_a_players_new_card_and_her_turn_applies_the_turn() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    // Ann moves and plays from her new address; Bo's desk refuses it.
    let config = ann.dir().join("config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace("ann@example.org", "ann@new.example")).unwrap();
    ann.yam(&["move", "khan-1", &line[2]]).success();
    let turn_mail = super::mail_files(&bo_inbox).pop().unwrap();
    let turn = std::fs::read_to_string(&turn_mail).unwrap();
    let said = bo.read();
    assert!(
        said.contains("but the mail is from ann@new.example"),
        "setup: {said}"
    );
    // Her card from the new address (dated later than the first).
    let later = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 60)
        .to_string();
    let mut send = yam!();
    send.args(["identity", "send", "bo@example.net", "--data-dir"])
        .arg(ann.dir())
        .env("YAM_NOW", &later)
        .assert()
        .success();
    let card_mail = super::mail_files(&bo_inbox).pop().unwrap();
    let card = std::fs::read_to_string(&card_mail).unwrap();
    std::fs::remove_file(&card_mail).unwrap();
    // Both forwarded in one mail, as attached messages.
    let forward = root.path().join("forward.eml");
    std::fs::write(
        &forward,
        format!(
            "From: Ann <ann@new.example>\r\nTo: bo@example.net\r\nSubject: Fwd: my card and my turn\r\nMessage-ID: <fwd-1@new.example>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"fwd\"\r\n\r\n--fwd\r\nContent-Type: text/plain\r\n\r\nBo, my card from my new address and my move, as your Yam asked.\r\n--fwd\r\nContent-Type: message/rfc822\r\nContent-Disposition: attachment\r\n\r\n{card}\r\n--fwd\r\nContent-Type: message/rfc822\r\nContent-Disposition: attachment\r\n\r\n{turn}\r\n--fwd--\r\n"
        ),
    )
    .unwrap();
    let first = bo.yam(&["read", "--eml", forward.to_str().unwrap()]);
    let first = String::from_utf8_lossy(&first.get_output().stdout).into_owned();
    assert!(
        first.contains("Ann moved from ann@example.org to ann@new.example"),
        "setup: {first}"
    );
    let again = bo.yam(&["read", "--eml", forward.to_str().unwrap()]);
    let again = String::from_utf8_lossy(&again.get_output().stdout).into_owned();
    assert!(
        bo.record("khan-1").contains(&line[2]),
        "the turn forwarded beside the card was never applied:\nfirst read: {first}\nagain: {again}\nBo: {}",
        bo.status("khan-1")
    );
}

/// Adversary: the hostile opponent, who knows the id of a game Ann
/// challenged him to. Attack: Ann challenges Bo with the seats drawn; her
/// desk keeps the draw's salt among her secrets as the setup of a game
/// named `ID.seat-draw` (`act::seat_salt_id`). Bo, before answering,
/// challenges Ann to Castle Siege under exactly that id, a valid game id
/// like any other. Ann accepts; when her sealed setup is due, her desk
/// finds "another setup of ann for this game is already kept" (the salt of
/// the other game) and refuses every setup: she cannot play the game at all,
/// and Bo may claim a forfeit once the agreed days have passed. A game id
/// another player chooses must not reach the secrets of another game: Ann
/// seals her setup.
#[test]
fn a_game_named_after_another_games_seat_draw_does_not_share_its_secrets() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    ann.yam(&[
        "challenge",
        "bo@example.net",
        "--id",
        "khan-drawn",
        "--game-type",
        "khan",
        "--ruleset",
        "rescue-khan",
        "--seats",
        "drawn",
    ])
    .success();
    for _ in 0..2 {
        bo.read();
        ann.read();
    }
    bo.read();
    assert_eq!(
        bo.status("khan-drawn"),
        "YOU",
        "setup: Bo holds the challenge"
    );
    // Bo's challenge, named after the draw of Ann's.
    bo.yam(&[
        "challenge",
        "ann@example.org",
        "--id",
        "khan-drawn.seat-draw",
        "--game-type",
        "castle-siege",
        "--ruleset",
        "standard",
        "--seats",
        "first",
    ])
    .success();
    let said = ann.read();
    assert!(
        said.contains("challenges you: game khan-drawn.seat-draw"),
        "setup: {said}"
    );
    ann.yam(&["accept", "khan-drawn.seat-draw"]).success();
    bo.read();
    // Both seal their setups, in turn.
    let id = "khan-drawn.seat-draw";
    let mut anns_turns = Vec::new();
    for round in 0..8 {
        let (mover, other) = match (ann.status(id).as_str(), bo.status(id).as_str()) {
            ("YOU", _) => (&ann, &bo),
            (_, "YOU") => (&bo, &ann),
            _ => {
                ann.read();
                bo.read();
                continue;
            }
        };
        let out = mover.yam(&["move", id, "--auto", "eager", "--seed", &round.to_string()]);
        let output = out.get_output();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        if std::ptr::eq(mover, &ann) {
            assert!(
                output.status.success(),
                "Ann cannot play her turn of {id}: {said}"
            );
            anns_turns.push(said);
        }
        other.read();
        mover.read();
    }
    assert!(!anns_turns.is_empty(), "setup: Ann never had a turn");
}

#[test]
fn the_forfeit_days_agreed_in_the_challenge_hold_on_the_invited_players_desk_too() {
    // Adversary: a player who wants to claim a forfeit he is not owed.
    // Attack: Ann challenges Bo with `--forfeit-days 90` (a slow game, a
    // summer away); Bo accepts. The agreed days never reach Bo's desk:
    // the challenge carries them nowhere, and the invited desk stores
    // every game with the default 40 (`act::store_challenge`,
    // `forfeit_days: DEFAULT_FORFEIT_DAYS`). So on day 41 of Ann's
    // silence Bo's desk signs and mails a forfeit claim the agreement
    // does not allow, while Ann's own desk says she has until day 90; the
    // two desks name different forfeit days for one game. The invited
    // desk must count the days the challenge agreed (or the challenge must
    // not pretend they are agreed).
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after_with(root.path(), 2, &["--forfeit-days", "90"]);
    // Ann, to move, is silent; her own desk knows the agreed 90 days.
    assert_eq!(ann.status("khan-1"), "YOU");
    // Bo's claim on day 41 is refused: the agreed days are 90.
    in_days(&bo, 41, &["forfeit", "khan-1"])
        .code(1)
        .stderr(predicate::str::contains(
            "a forfeit may be claimed after 90 days",
        ));
}

#[test]

fn a_forfeit_claim_that_crosses_the_opponents_move_in_the_mail_leaves_both_desks_on_one_record() {
    // Adversary: real life (a mail late on the way). Bo, to move, moves on
    // day 39, inside the agreed 40 days; his mail is slow. On day 41
    // Ann's desk, which has not seen it, lets her claim a forfeit: a
    // claim is the one event besides a resignation that the party who
    // does not hold the pen may sign, so it sits on the same parent as
    // Bo's move. Each desk then refuses the other's mail as "a forked
    // history" (`incoming::continue_game`, `Adoption::Fork`): Bo's move,
    // made in time, never reaches Ann's record, Ann's claim never reaches
    // Bo's, and neither can play on (each desk waits for the other for
    // good). Docs promise "two mails never cross with events on the same
    // parent, and a fork of the history is always someone's error or
    // fraud" (docs/mail.md, "One writer at a time"); here nobody erred.
    // The desks must settle on one record and the game must go on.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    // Bo's move, in time; it waits in Ann's inbox unread.
    in_days(&bo, 39, &["move", "khan-1", &line[3]]).success();
    // Ann's desk has not read it: to her Bo has been silent 41 days.
    in_days(&ann, 41, &["forfeit", "khan-1"])
        .success()
        .stdout(predicate::str::contains("claims a forfeit"));
    // Both mails arrive.
    let said_ann = ann.read();
    let said_bo = bo.read();
    assert!(
        !said_ann.contains("forked history") && !said_bo.contains("forked history"),
        "a claim crossing a move forks the game for good:\nAnn: {said_ann}\nBo: {said_bo}"
    );
    // Each desk says what became of the claim (docs/fair-play.md, 3.10).
    assert!(
        said_ann.contains("crossed this step in the mail")
            && said_ann.contains("yam forfeit khan-1"),
        "{said_ann}"
    );
    assert!(
        said_bo.contains("crossed your step in the mail"),
        "{said_bo}"
    );
    ann.read();
    bo.read();
    assert_eq!(ann.record("khan-1"), bo.record("khan-1"));
    assert!(main_line(&ann.record("khan-1")).contains(&line[3]));
    assert_eq!(ann.status("khan-1"), "YOU", "the game goes on");
    // The void claim is kept on both desks as evidence, signed as it was.
    for desk in [&ann, &bo] {
        let kept = desk
            .dir()
            .join("games")
            .join("khan-1")
            .join("crossed-5.yam");
        let text = std::fs::read_to_string(&kept).unwrap();
        assert!(!text.contains(&line[3]), "the void branch, not the game");
        yam!().arg("verify").arg(&kept).assert().success();
    }
    // A director handed the void claim and the record that stands reads
    // the same rule (`yam dispute`).
    let game_dir = ann.dir().join("games").join("khan-1");
    yam!()
        .arg("dispute")
        .arg(game_dir.join("crossed-5.yam"))
        .arg(game_dir.join("record.yam"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "by the crossing rule branch B stands",
        ));
    // And the game plays on from the record that stands.
    ann.yam(&["move", "khan-1", &line[4]]).success();
    bo.read();
    assert_eq!(ann.record("khan-1"), bo.record("khan-1"));
    yam!()
        .arg("verify")
        .arg(bo.dir().join("games").join("khan-1").join("record.yam"))
        .assert()
        .success();
}

#[test]

fn a_resignation_that_crosses_the_opponents_move_in_the_mail_ends_the_game_on_both_desks() {
    // Adversary: real life (mails crossing). Bo, to move, mails his move;
    // before it arrives Ann, seeing her position lost, resigns (a desk
    // lets a player resign when it is not her move). The resignation and
    // the move have the same parent. Ann's desk says the game is over;
    // Bo's desk refuses her resignation as "a forked history" and waits
    // on Ann for good (and will offer Bo a forfeit claim on day 40 that
    // Ann's desk refuses as well): the two desks disagree on the result.
    // Both must end on one record with one result.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    bo.yam(&["move", "khan-1", &line[3]]).success();
    ann.yam(&["resign", "khan-1"]).success();
    let said_ann = ann.read();
    let said_bo = bo.read();
    assert!(
        !said_ann.contains("forked history") && !said_bo.contains("forked history"),
        "a resignation crossing a move forks the game for good:\nAnn: {said_ann}\nBo: {said_bo}"
    );
    assert!(
        said_ann.contains("signed again after the step it crossed"),
        "{said_ann}"
    );
    assert!(
        said_bo.contains("signs the resignation again after it"),
        "{said_bo}"
    );
    ann.read();
    bo.read();
    assert_eq!(ann.status("khan-1"), "over");
    assert_eq!(
        bo.status("khan-1"),
        "over",
        "Bo's desk agrees the game ended"
    );
    assert_eq!(ann.record("khan-1"), bo.record("khan-1"));
    // Bo's move stands, then Ann's resignation: Bo wins.
    let record = bo.record("khan-1");
    assert!(main_line(&record).contains(&line[3]), "{record}");
    assert!(record.contains("[Result \"0-1\"]") || record.contains("[Result \"1-0\"]"));
    let verified = yam!()
        .arg("verify")
        .arg(bo.dir().join("games").join("khan-1").join("record.yam"))
        .assert()
        .success();
    let said = String::from_utf8_lossy(&verified.get_output().stdout).into_owned();
    assert!(said.contains("resign"), "{said}");
    // Ann's first resignation, void, is kept on both desks.
    for desk in [&ann, &bo] {
        let kept = desk
            .dir()
            .join("games")
            .join("khan-1")
            .join("crossed-5.yam");
        yam!().arg("verify").arg(&kept).assert().success();
    }
}

#[test]
fn a_forfeit_against_a_silent_invited_player_is_claimed_or_refused_with_its_remedy() {
    // Adversary: a silent invited player (or a lost acceptance on the way).
    // Ann challenges Bo; Bo never accepts. On day 41 Ann's `yam games`
    // says "waiting 41 day(s); a forfeit may be claimed from ..." and
    // docs/fair-play.md 3.8 says a claim lies "until the opening is
    // complete [against] the next invited party" (`SignedReplay::owing`,
    // `check_claim` agree). But `yam forfeit` then fails inside the record
    // verifier ("refused: the event was refused: event #1: play before the
    // opening is complete", `RecordVerifier::push`, which refuses every
    // non-acceptance event before the opening is complete): the desk
    // offers a claim the protocol refuses, and its reason names neither
    // the rule nor the remedy. Mature: the claim is signed as 3.8 says, or
    // it is refused up front, saying the challenge is unaccepted and may
    // be withdrawn (`yam withdraw khan-1`).
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    challenge_bo(&ann, "khan-1").success();
    bo.read();
    ann.read();
    assert!(
        bo.read().contains("challenges you"),
        "setup: Bo has the challenge"
    );
    let games = in_days(&ann, 41, &["games"]).success();
    let listed = String::from_utf8_lossy(&games.get_output().stdout).into_owned();
    // No forfeit is promised: the listing names the remedy.
    assert!(!listed.contains("a forfeit may be claimed"), "{listed}");
    assert!(listed.contains("`yam withdraw khan-1`"), "{listed}");
    let out = in_days(&ann, 41, &["forfeit", "khan-1"]);
    let output = out.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("yam withdraw khan-1"),
        "`yam forfeit` against an unaccepted challenge: {stderr}"
    );
    assert!(!stderr.contains("event #1"), "{stderr}");
}

/// Adversary: real life, a bundle cut short (the copy to a USB stick that
/// filled up, a download or a mail attachment that stopped midway).
/// Attack: Ann's export is cut between two entries, just before its first
/// secret (every entry before the cut whole), and imported on the new
/// machine. The bundle carries no count, end marker nor checksum, so the
/// cut file reads as a smaller desk: the import says it restored the
/// files and succeeds, and the new desk holds the game, its config and
/// contacts without the signing key or the chain they need (the next
/// command silently draws a new key in its place). A whole bundle must be
/// told from a cut one, and a cut one refused with nothing written.
#[test]
fn a_bundle_cut_short_is_refused_and_writes_nothing() {
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo, _) = khan_after(root.path(), 2);
    let bundle = root.path().join("ann-desk.yaml");
    ann.yam(&["identity", "export", "--out", bundle.to_str().unwrap()])
        .success();
    let text = std::fs::read_to_string(&bundle).unwrap();
    let cut_at = text
        .find("- path: secrets/")
        .expect("the bundle holds the secrets");
    let cut = root.path().join("ann-desk-cut.yaml");
    std::fs::write(&cut, &text[..cut_at]).unwrap();
    let new = tempfile::tempdir().unwrap();
    let mut cmd = yam!();
    cmd.args(["identity", "import", cut.to_str().unwrap(), "--data-dir"])
        .arg(new.path());
    let out = cmd.assert();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.get_output().stdout),
        String::from_utf8_lossy(&out.get_output().stderr)
    );
    let written: Vec<_> = walkdir(new.path())
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    assert!(
        !out.get_output().status.success() && written.is_empty(),
        "a bundle cut short before its secrets was imported as a whole desk: {said}; written: {written:?}"
    );
}

/// Adversary: an edited bundle (two backups merged by hand, a tool that
/// appended an entry). Attack: the bundle names `config.yaml` twice, with
/// different bytes. The import checks each entry against the disk only,
/// never against the entries before it, so both are planned; it then
/// writes the first, fails on the second ("the file exists (use --force
/// to replace it)", a flag import does not have) and leaves what it wrote
/// so far: half a desk from a bundle it should have refused whole, though
/// it promises to check every file before it writes any (docs/mail.md,
/// "Moving to a new machine, backups").
#[test]
fn a_bundle_naming_a_file_twice_is_refused_before_anything_is_written() {
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo, _) = khan_after(root.path(), 2);
    let bundle = root.path().join("ann-desk.yaml");
    ann.yam(&["identity", "export", "--out", bundle.to_str().unwrap()])
        .success();
    let text = std::fs::read_to_string(&bundle).unwrap();
    // A second entry for config.yaml, right after the first.
    let first = text.find("- path: config.yaml\n").expect("config entry");
    let next = first + 1 + text[first + 1..].find("- path: ").expect("a next entry");
    let twin = "- path: config.yaml\n  secret: false\n  base64: aWRlbnRpdHk6IHt9Cg==\n";
    let edited = format!("{}{twin}{}", &text[..next], &text[next..]);
    let file = root.path().join("ann-desk-edited.yaml");
    std::fs::write(&file, edited).unwrap();
    let new = tempfile::tempdir().unwrap();
    let mut cmd = yam!();
    cmd.args(["identity", "import", file.to_str().unwrap(), "--data-dir"])
        .arg(new.path());
    let out = cmd.assert();
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let written: Vec<_> = walkdir(new.path())
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    assert!(
        !out.get_output().status.success() && written.is_empty(),
        "a bundle naming a file twice was half written: {said}; written: {written:?}"
    );
}

/// Adversary: another user of the new machine (a shared family computer,
/// a university login server). Attack: Ann keeps her config.yaml, which
/// may hold her mail password (`password: "..."`, docs/mail.md), readable
/// by herself only (0600), and moves her desk with `yam identity export`
/// / `import`. The bundle records no mode and the import writes every
/// file outside secrets/ with the default mode (0644 under the usual
/// umask): on the new machine her configuration, password included, is
/// readable by every local user. A move must not widen who can read a
/// file.
#[cfg(unix)]
#[test]
fn an_import_keeps_a_private_config_private() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo, _) = khan_after(root.path(), 2);
    let config = ann.dir().join("config.yaml");
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    let bundle = root.path().join("ann-desk.yaml");
    ann.yam(&["identity", "export", "--out", bundle.to_str().unwrap()])
        .success();
    let new = tempfile::tempdir().unwrap();
    let mut cmd = yam!();
    cmd.args(["identity", "import", bundle.to_str().unwrap(), "--data-dir"])
        .arg(new.path());
    cmd.assert().success();
    let mode = std::fs::metadata(new.path().join("config.yaml"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(
        mode & 0o077,
        0,
        "Ann's private config.yaml is readable by others after the move: mode {mode:o}"
    );
}

/// Adversary: another user of the new machine. Attack: the desk keeps
/// its secrets directory readable by its owner only (mode 0700, every
/// directory under it too: cli/src/store/mod.rs, cli/src/game/secrets.rs),
/// but the import creates `secrets/` and `secrets/games/` with the
/// default mode and sets 0700 only on the last directory of each secret
/// file: on the new machine anyone may list the secrets directory and
/// every game Ann holds a chain for (and `Secrets::open` leaves an
/// existing directory as it is, so the desk never tightens it).
#[cfg(unix)]
#[test]
fn an_imported_secrets_directory_is_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo, _) = khan_after(root.path(), 2);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&ann.dir().join("secrets")), 0o700, "the desk's own");
    assert_eq!(
        mode(&ann.dir().join("secrets/games")),
        0o700,
        "the desk's own"
    );
    let bundle = root.path().join("ann-desk.yaml");
    ann.yam(&["identity", "export", "--out", bundle.to_str().unwrap()])
        .success();
    let new = tempfile::tempdir().unwrap();
    let mut cmd = yam!();
    cmd.args(["identity", "import", bundle.to_str().unwrap(), "--data-dir"])
        .arg(new.path());
    cmd.assert().success();
    for dir in ["secrets", "secrets/games"] {
        assert_eq!(
            format!("{:o}", mode(&new.path().join(dir))),
            "700",
            "{dir} after the import"
        );
    }
}

/// Adversary: real life, a disk that fills up during the import (or the
/// import killed, the machine losing power). Attack: Ann imports her
/// bundle on the new machine; the disk is full when the import reaches
/// the game's last mail (`ulimit -f` stands for the full disk here). The
/// import writes the bundle's files one by one in the order of their
/// paths and leaves what it wrote when a write fails: config.yaml and
/// contacts.yaml are there, her secrets (which come last) are not. Ann
/// frees some room and looks at her desk (`yam games`): the desk, finding
/// a configuration but no seed, silently draws a NEW signing key; the
/// import run again is then refused ("exists and differs") on that seed,
/// and her own key, the one her games and her opponent know, cannot come
/// back without her finding and removing the new one by hand. A failed
/// import must leave nothing that changes what the next one does: run
/// again with room, it restores Ann's desk and key.
#[cfg(unix)]
#[test]
fn an_import_cut_by_a_full_disk_can_be_run_again_and_restores_the_key() {
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo, _) = khan_after(root.path(), 2);
    let bundle = root.path().join("ann-desk.yaml");
    ann.yam(&["identity", "export", "--out", bundle.to_str().unwrap()])
        .success();
    let new = tempfile::tempdir().unwrap();
    // The disk full: no file of more than a few kB can be written (the
    // game's last mail is about 90 kB), and the write fails (EFBIG)
    // rather than killing the process.
    let full = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 8; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_yam-e2e"))
        .args(["identity", "import"])
        .arg(&bundle)
        .arg("--data-dir")
        .arg(new.path())
        .current_dir(yam_tests::workspace())
        .output()
        .unwrap();
    assert!(
        !full.status.success(),
        "the import on a full disk failed: {}",
        String::from_utf8_lossy(&full.stdout)
    );
    // Room again; Ann looks at what she has, then imports once more.
    let moved = Player {
        name: "Ann".into(),
        address: ann.address.clone(),
        data: new,
        inbox: ann.inbox.clone(),
    };
    let _ = moved.yam(&["games"]);
    let mut again = yam!();
    again
        .args(["identity", "import", bundle.to_str().unwrap(), "--data-dir"])
        .arg(moved.dir());
    let out = again.assert();
    assert!(
        out.get_output().status.success(),
        "the import run again after the full disk was refused: {}",
        String::from_utf8_lossy(&out.get_output().stderr)
    );
    let key = |p: &Player| {
        String::from_utf8_lossy(&p.yam(&["identity", "show"]).get_output().stdout)
            .lines()
            .nth(1)
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(
        key(&moved),
        key(&ann),
        "the moved desk signs with Ann's key"
    );
}

/// Adversary: real life, a desk process killed while it wrote (a crash,
/// a power cut, `kill`), which leaves its temporary file beside the game
/// (`.record.yam.tmp-PID`, the name cli/src/store/atomic.rs gives it).
/// Attack: Ann exports her desk afterwards. The export means to leave
/// temporaries behind, but tests for names starting with `.tmp`, which no
/// temporary has (they start with the target's name): the half-written
/// file travels in the bundle, is written on the new machine where no
/// desk ever removes it, and makes any later import of a bundle holding
/// another copy of it a clash that refuses the whole import.
#[test]
fn an_export_leaves_a_killed_writes_temporary_file_behind() {
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo, _) = khan_after(root.path(), 2);
    let record = std::fs::read(ann.dir().join("games/khan-1/record.yam")).unwrap();
    let temporary = ann.dir().join("games/khan-1/.record.yam.tmp-4242");
    std::fs::write(&temporary, &record[..record.len() / 2]).unwrap();
    let bundle = root.path().join("ann-desk.yaml");
    ann.yam(&["identity", "export", "--out", bundle.to_str().unwrap()])
        .success();
    let text = std::fs::read_to_string(&bundle).unwrap();
    assert!(
        !text.contains(".record.yam.tmp-4242"),
        "a killed write's half-written temporary is in the bundle"
    );
}

/// Adversary: whoever hands Ann a "backup" to import (a bundle sent as
/// help, a file found on a shared disk), or a bundle damaged into this
/// shape. Attack: a bundle of 1.3 MB whose first entry's base64 is a YAML
/// anchor of 1 MB and whose 4,000 other entries are aliases of it. The
/// import parses the whole bundle into owned strings before it checks
/// anything, each alias a fresh 1 MB copy: 4 GB asked for, and the
/// process dies on the allocation (here under a 2 GB address-space limit,
/// which stands for the machine's memory) instead of refusing the file.
/// "No input may panic or exhaust memory": it must be a clear error, with
/// nothing written.
#[cfg(unix)]
#[test]
fn a_bundle_of_aliases_is_refused_without_exhausting_memory() {
    let root = tempfile::tempdir().unwrap();
    let mut text = String::from("format: yam-desk-1\nfiles:\n");
    text.push_str("- path: a0\n  secret: false\n  base64: &a ");
    text.push_str(&"QUFB".repeat(250_000));
    text.push('\n');
    for i in 1..4_000 {
        text.push_str(&format!("- path: a{i}\n  secret: false\n  base64: *a\n"));
    }
    import_refused_within_2_gb(root.path(), &text, "");
}

/// Imports the bundle `text` (written under `root`) into a new directory
/// with 2 GB of address space: it must be refused (exit 2), nothing
/// written, not die on an allocation. `how` names the bundle's shape in
/// the failure.
#[cfg(unix)]
fn import_refused_within_2_gb(root: &Path, text: &str, how: &str) {
    let bundle = root.join("help.yaml");
    std::fs::write(&bundle, text).unwrap();
    let new = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2000000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_yam-e2e"))
        .args(["identity", "import"])
        .arg(&bundle)
        .arg("--data-dir")
        .arg(new.path())
        .current_dir(yam_tests::workspace())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a bundle of aliases{how} is a clear refusal, not a crash: {}",
        said.lines().next().unwrap_or_default()
    );
    assert!(walkdir(new.path()).into_iter().all(|p| !p.is_file()));
}

/// Adversary: the same as above, whoever hands Ann a "backup" to import.
/// Attack: the same bundle of one 1 MB anchor and 4,000 aliases of it,
/// written in YAML's flow style (`- {path: a1, secret: false, base64:
/// *a}`), which is as much YAML as the block style. The guard against
/// aliases looks only at a line's value after its first `: `, here
/// `a1, secret: ...`, so it lets the bundle through: the import parses it
/// into 4 GB of copies and dies on the allocation under a 2 GB limit
/// (without one it took 3.9 GB and wrote 4,000 files of 750 kB, 3 GB of
/// disk). It must be the same clear refusal, with nothing written.
#[cfg(unix)]
#[test]
fn a_bundle_of_aliases_in_flow_style_is_refused_without_exhausting_memory() {
    let root = tempfile::tempdir().unwrap();
    let mut text = String::from("format: yam-desk-1\nfiles:\n");
    text.push_str("- {path: a0, secret: false, base64: &a ");
    text.push_str(&"QUFB".repeat(250_000));
    text.push_str("}\n");
    for i in 1..4_000 {
        text.push_str(&format!("- {{path: a{i}, secret: false, base64: *a}}\n"));
    }
    import_refused_within_2_gb(root.path(), &text, " in flow style");
}

/// The output of `yam read --mbox FILE` on Bo's desk (stdout and stderr).
fn read_mbox(bo: &Player, mbox: &Path) -> String {
    let out = bo.yam(&["read", "--mbox", mbox.to_str().unwrap()]);
    let output = out.get_output();
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Adversary: real life, the MTA. A local delivery agent appends a mail to
/// the mbox in several writes (under the mbox lock, which `yam read` does
/// not take), and `yam read --watch` (or a cron `yam read`) looks at the
/// file in between: it lists the half-written last mail, reads it (only
/// its headers so far: "arrived without its turn"), and remembers its
/// place, `mbox:OFFSET`. Once the delivery is complete, the whole turn
/// sits at that same offset and every later run passes it over by place:
/// Ann's move is never read, though it is in Bo's mailbox in full.
#[test]
fn a_turn_mail_the_mta_was_still_appending_to_an_mbox_is_read_once_it_is_complete() {
    let root = tempfile::tempdir().unwrap();
    let (bo, raw) = anns_third_turn(root.path());
    let mbox = root.path().join("bo.mbox");
    let from_line = "From ann@example.org Mon Nov 30 00:00:00 2026\n";
    // The delivery so far: the mail's header block; its body is still
    // being written.
    let headers_end = raw.find("\r\n\r\n").expect("a header block") + 4;
    let (written, rest) = raw.split_at(headers_end);
    std::fs::write(&mbox, format!("{from_line}{written}")).unwrap();
    let first = read_mbox(&bo, &mbox);
    assert!(!first.contains("1 new event(s)"), "{first}");
    // The MTA finishes the delivery.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&mbox)
        .unwrap();
    std::io::Write::write_all(&mut file, format!("{rest}\n").as_bytes()).unwrap();
    drop(file);
    let second = read_mbox(&bo, &mbox);
    assert!(
        second.contains("1 new event(s) from Ann"),
        "the whole turn mail now in the mbox is never read:\nfirst run: {first}\nsecond run: {second}"
    );
}

/// Adversary: real life, the player's own mail client. An mbox inbox (a
/// spool such as /var/mail/bo) is rewritten by the client that reads it:
/// `mail`, mutt or Thunderbird's movemail take the messages out once read
/// (to ~/mbox) and leave the spool empty, or delete a message. Yam
/// remembers an mbox mail by its byte offset alone, so the next mail
/// delivered at an offset a mail it read before once had (offset 0 after
/// the spool was emptied) is taken for that old mail and passed over:
/// Ann's turn is never read.
#[test]
fn a_turn_mail_delivered_after_a_mail_client_emptied_the_mbox_is_read() {
    let root = tempfile::tempdir().unwrap();
    let (bo, raw) = anns_third_turn(root.path());
    let mbox = root.path().join("bo.mbox");
    // A personal mail, which Bo's desk reads and leaves alone.
    std::fs::write(
        &mbox,
        "From carol@example.com Mon Nov 30 00:00:00 2026\nFrom: carol@example.com\nTo: bo@example.net\nSubject: lunch\nMessage-ID: <lunch@example.com>\n\nLunch on Friday?\n\n",
    )
    .unwrap();
    let first = read_mbox(&bo, &mbox);
    assert!(first.contains("1 other mail(s)"), "{first}");
    // Bo's mail client moves the mail he read to ~/mbox: the spool is
    // empty. Then Ann's turn is delivered into it.
    std::fs::write(&mbox, "").unwrap();
    std::fs::write(
        &mbox,
        format!("From ann@example.org Mon Nov 30 00:00:01 2026\n{raw}\n"),
    )
    .unwrap();
    let second = read_mbox(&bo, &mbox);
    assert!(
        second.contains("1 new event(s) from Ann"),
        "Ann's turn, delivered where an old mail once was, is passed over: {second}"
    );
}

/// Adversary: real life, the player's own mail client, as in the test
/// above: a spool emptied by every read (movemail, `mail`, mutt moving
/// read mail to ~/mbox), so every mail is delivered at offset 0. Yam
/// remembers an mbox mail by offset and length, and two Yam mails of one
/// kind are of one length (two challenges whose ids are as long: same
/// headers, same-sized signatures and record; 79,306 bytes each here).
/// Attack: none needed. Ann challenges Bo twice; the first challenge is
/// read, the spool emptied, the second delivered at offset 0: its place
/// (`mbox:0:LENGTH`) is the first one's, so it is passed over ("nothing
/// new") and never read.
#[test]
fn a_second_mail_of_the_same_length_delivered_into_an_emptied_mbox_is_read() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after(root.path(), 0);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    challenge_bo(&ann, "kh-2").success();
    challenge_bo(&ann, "kh-3").success();
    let sent = super::mail_files(&bo_inbox);
    assert_eq!(sent.len(), 2, "two challenge mails: {sent:?}");
    let raws: Vec<String> = sent
        .iter()
        .map(|m| std::fs::read_to_string(m).unwrap())
        .collect();
    assert_eq!(
        raws[0].len(),
        raws[1].len(),
        "the two challenge mails are of one length"
    );
    let mbox = root.path().join("bo.mbox");
    for (i, raw) in raws.iter().enumerate() {
        // The spool, emptied by the mail client since the last read, then
        // the next delivery.
        std::fs::write(
            &mbox,
            format!("From ann@example.org Mon Nov 30 00:00:0{i} 2026\n{raw}\n"),
        )
        .unwrap();
        let id = if raw.contains("X-Yam-Game: kh-2") {
            "kh-2"
        } else {
            "kh-3"
        };
        let said = read_mbox(&bo, &mbox);
        assert!(
            said.contains(&format!("challenges you: game {id}")),
            "delivery {i}, Ann's challenge {id}, is never read: {said}"
        );
    }
}

/// Adversary: real life, the player's own mail client. An mbox inbox is
/// rewritten when a mail in it is deleted (mutt, `mail`): every mail after
/// it moves up by the deleted mail's length. Yam remembers an mbox mail
/// by offset and length, so each of them is a new place: the next `yam
/// read` reads every mail after the deleted one again, whole, and writes
/// a line for each into `read.log`, which is read at every later run.
/// Measured with 16,000 personal mails (54 MB): one deletion at the top
/// costs 0.36 s of CPU (the first read's cost again) and 15,991 lines
/// (1.7 MB) of `read.log`; a player who deletes one old mail a day adds
/// the whole mailbox to the memory every day. Mails read before, moved
/// but unchanged, must cost nothing and add nothing to the memory.
#[test]
fn deleting_an_old_mail_from_an_mbox_does_not_read_the_rest_again() {
    let root = tempfile::tempdir().unwrap();
    let (_ann, bo) = pair(root.path());
    let mail = |i: usize| {
        format!(
            "From carol@example.com Mon Nov 30 00:00:00 2026\nFrom: carol@example.com\nTo: bo@example.net\nSubject: note {i}\nMessage-ID: <note-{i}@example.com>\n\nNote number {i}.\n\n"
        )
    };
    let mbox = root.path().join("bo.mbox");
    let all: String = (0..50).map(mail).collect();
    std::fs::write(&mbox, &all).unwrap();
    let first = read_mbox(&bo, &mbox);
    assert!(first.contains("50 other mail(s)"), "{first}");
    let log = bo.dir().join("read.log");
    let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().count();
    let before = lines(&log);
    // Bo deletes the oldest mail in his mail client, which rewrites the
    // mbox without it.
    std::fs::write(&mbox, &all[mail(0).len()..]).unwrap();
    let second = read_mbox(&bo, &mbox);
    let after = lines(&log);
    assert!(
        second.contains("nothing new") && after == before,
        "49 mails read before were read again and remembered again ({} lines added to read.log): {second}",
        after - before
    );
}

/// Adversary: real life, a player's own scripts. A mail named on the
/// command line (`yam read --eml`, or piped in with `--stdin` by a mail
/// filter that runs again over mail it passed before) is remembered by its
/// content alone (place `-`); read again, it changes nothing and says so,
/// but every run writes the same line (`- KEY S`) into `read.log` once
/// more: the memory, read at every run of the desk, grows with every time
/// a mail is named rather than with the mails read. A mail read before
/// and named again must add nothing to it.
#[test]
fn a_mail_named_again_adds_nothing_to_the_read_log() {
    let root = tempfile::tempdir().unwrap();
    let (_ann, bo, _) = khan_after(root.path(), 1);
    let Inbox::Files { archive, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let turn = super::mail_files(&archive).pop().expect("Ann's turn, read");
    let log = bo.dir().join("read.log");
    let before = std::fs::read_to_string(&log).unwrap();
    for _ in 0..3 {
        bo.yam(&["read", "--eml", turn.to_str().unwrap()])
            .success()
            .stdout(predicate::str::contains("read before; nothing changes"));
    }
    let after = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        after.lines().count(),
        before.lines().count(),
        "a turn read before and named three times more grew read.log by:\n{}",
        &after[before.len()..]
    );
}

/// Adversary: real life, ordinary mail. A personal mail reaches Bo's
/// Maildir twice (sent to him and to a group alias he is on, or to him
/// and Cc a list that adds nothing): the two files differ only in their
/// trace headers. `yam read` finds the first not Yam's and leaves it; the
/// second has the same content key (Message-ID, sender, body), so the desk
/// takes it for "a second delivery of a mail read before", counts it as
/// dealt with, and marks it read: it is renamed out of `new/` into `cur/`
/// with the S flag, and Bo's mail client shows a mail he never opened as
/// read (with `file_into`, it is even moved out of his inbox). A mail not
/// Yam's must be left exactly as it was, its duplicate too.
#[test]
fn a_personal_mail_delivered_twice_into_a_shared_maildir_is_left_unread_both_times() {
    let root = tempfile::tempdir().unwrap();
    let (_ann, bo) = pair(root.path());
    let maildir = root.path().join("Maildir");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    let personal = "From: Carol <carol@example.com>\nTo: bo@example.net, team@example.net\nSubject: lunch\nMessage-ID: <lunch-42@example.com>\nDate: Mon, 30 Nov 2026 12:00:00 +0000\n\nLunch on Friday?\n";
    let names = ["1764500000.M1P1.host", "1764500001.M2P2.host"];
    for (name, to) in names.iter().zip(["bo@example.net", "team@example.net"]) {
        std::fs::write(
            maildir.join("new").join(name),
            format!("Delivered-To: {to}\nReceived: by mx.example.net; Mon, 30 Nov 2026 12:00:01 +0000\n{personal}"),
        )
        .unwrap();
    }
    let said = bo.yam(&["read", "--maildir", maildir.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&said.get_output().stdout).into_owned();
    let mut new: Vec<String> = std::fs::read_dir(maildir.join("new"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    new.sort();
    let cur: Vec<String> = std::fs::read_dir(maildir.join("cur"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        (new, cur),
        (names.map(String::from).to_vec(), Vec::<String>::new()),
        "both copies of Carol's mail stay unread in new/ (yam said: {said})"
    );
}

/// Adversary: real life, the quickstart of docs/mail.md. Each desk's
/// `outgoing: directory` points straight at the other's `Maildir/new`, and
/// lettre's file transport writes a mail there in place (`fs::write`:
/// the file is created empty, then filled), not in `tmp/` and renamed as
/// a Maildir delivery must. Bo's `yam read --watch` that looks in the
/// instant between lists the new file, empty or half written, reads it
/// ("not Yam's"), and remembers it by its name; once Ann's desk has
/// written the whole turn into that same file, every later look passes it
/// over by name. Ann's move is in Bo's inbox, and never read.
#[test]
fn a_turn_file_the_senders_desk_was_still_writing_into_the_maildir_is_read_once_complete() {
    let root = tempfile::tempdir().unwrap();
    let (bo, raw) = anns_third_turn(root.path());
    let maildir = root.path().join("bo-Maildir");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    // Where lettre's FileTransport writes: `<uuid>.eml`, created empty
    // first.
    let file = maildir
        .join("new")
        .join("5b0e1f7c-3d55-4f6e-9a51-2f8f0c2d9e11.eml");
    std::fs::write(&file, "").unwrap();
    let look = || {
        let out = bo.yam(&["read", "--maildir", maildir.to_str().unwrap()]);
        let output = out.get_output();
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    let first = look();
    assert!(!first.contains("1 new event(s)"), "{first}");
    // Ann's desk finishes writing the file.
    std::fs::write(&file, &raw).unwrap();
    let second = look();
    assert!(
        second.contains("1 new event(s) from Ann"),
        "the whole turn file is never read:\nfirst look: {first}\nsecond look: {second}"
    );
}

#[test]
fn a_crossing_read_in_the_other_order_or_read_again_settles_on_the_same_record() {
    // The pen-holder's desk reads the crossing resignation before the
    // resigner's desk reads the move (docs/fair-play.md, 3.10): the same
    // record results. A copy of the void resignation delivered again
    // later (a slow relay, a replay) changes nothing and is not refused.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    bo.yam(&["move", "khan-1", &line[3]]).success();
    ann.yam(&["resign", "khan-1"]).success();
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let void_mail = std::fs::read(&super::mail_files(&bo_inbox)[0]).unwrap();
    let said_bo = bo.read();
    assert!(
        said_bo.contains("crossed your step in the mail"),
        "{said_bo}"
    );
    assert_eq!(bo.status("khan-1"), "them", "Bo waits for Ann's step");
    let said_ann = ann.read();
    assert!(
        said_ann.contains("signed again after the step it crossed"),
        "{said_ann}"
    );
    bo.read();
    assert_eq!(bo.status("khan-1"), "over");
    assert_eq!(ann.status("khan-1"), "over");
    let record = bo.record("khan-1");
    assert_eq!(ann.record("khan-1"), record);
    let again = root.path().join("again.eml");
    std::fs::write(&again, &void_mail).unwrap();
    bo.yam(&["read", "--eml", again.to_str().unwrap()])
        .success();
    assert_eq!(bo.record("khan-1"), record, "nothing changes");
    let kept: Vec<_> = std::fs::read_dir(bo.dir().join("games").join("khan-1"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("crossed-"))
        .collect();
    assert_eq!(kept.len(), 1, "the void record is kept once");
}

#[test]
fn the_unsent_mail_of_a_void_claim_is_never_sent_with_the_record_that_stands() {
    // Ann's claim is stored but its mail could not go out (Bo's inbox was
    // away); Bo's move, made in time, crosses it. The outbox keeps only
    // the claim's words, and a later `yam send` would have mailed them
    // with the record that stands ("Ann claims a forfeit" over Bo's own
    // move). The void event's mail is dropped, and Ann is told.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    in_days(&bo, 39, &["move", "khan-1", &line[3]]).success();
    let away = root.path().join("away");
    std::fs::rename(&bo_inbox, &away).unwrap();
    in_days(&ann, 41, &["forfeit", "khan-1"])
        .code(2)
        .stderr(predicate::str::contains("its mail could not be sent"));
    // Still away while Ann reads Bo's move (`yam read` tries the waiting
    // mail first, and fails again).
    let said = ann.read();
    assert!(
        said.contains("the mail of your void forfeit claim, not sent yet, is not sent"),
        "{said}"
    );
    std::fs::rename(&away, &bo_inbox).unwrap();
    ann.yam(&["send"]).success();
    assert!(
        super::mail_files(&bo_inbox).is_empty(),
        "nothing of the void claim reaches Bo"
    );
    assert_eq!(ann.status("khan-1"), "YOU");
}

#[test]
fn a_resignation_that_crosses_a_roll_request_ends_the_game_on_both_desks() {
    // Adversary: real life (mails crossing). In Castle Siege Bo, to move,
    // declares a turn that needs dice (a roll request); before it arrives
    // Ann resigns. The request stands, Ann's resignation is signed again
    // after it, and both desks end on one record.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let id = "siege-cross";
    open_game(
        &ann,
        &bo,
        id,
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard",
            "--seats",
            "first",
        ],
    );
    let mut seed = 11;
    for _ in 0..60 {
        if bo.status(id) == "YOU" && ann.record(id).contains("[%chance") {
            break;
        }
        let (mover, other) = match (ann.status(id).as_str(), bo.status(id).as_str()) {
            ("YOU", _) => (&ann, &bo),
            (_, "YOU") => (&bo, &ann),
            _ => {
                ann.read();
                bo.read();
                continue;
            }
        };
        seed += 1;
        mover
            .yam(&["move", id, "--auto", "eager", "--seed", &seed.to_string()])
            .success();
        other.read();
        mover.read();
    }
    assert_eq!(bo.status(id), "YOU");
    bo.yam(&["move", id, "--auto", "eager", "--seed", "5"])
        .success();
    ann.yam(&["resign", id]).success();
    let said_ann = ann.read();
    let said_bo = bo.read();
    assert!(
        !said_ann.contains("forked history") && !said_bo.contains("forked history"),
        "Ann: {said_ann}\nBo: {said_bo}"
    );
    assert!(
        said_ann.contains("signed again after the step it crossed"),
        "{said_ann}"
    );
    for _ in 0..3 {
        ann.read();
        bo.read();
    }
    assert_eq!(ann.status(id), "over", "{said_ann}");
    assert_eq!(bo.status(id), "over", "{said_bo}");
    assert_eq!(ann.record(id), bo.record(id));
}

#[test]
fn a_resignation_that_crosses_a_draw_offer_ends_the_game_on_both_desks() {
    // Adversary: real life. Bo, to move, offers a draw (on his own move);
    // Ann, meanwhile, resigns. The offer stands; Ann's resignation is
    // signed again after it.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _line) = khan_after(root.path(), 3);
    bo.yam(&["draw", "offer", "khan-1"]).success();
    ann.yam(&["resign", "khan-1"]).success();
    let said_ann = ann.read();
    let said_bo = bo.read();
    assert!(
        said_ann.contains("signed again after the step it crossed"),
        "Ann: {said_ann}\nBo: {said_bo}"
    );
    ann.read();
    bo.read();
    assert_eq!(ann.status("khan-1"), "over");
    assert_eq!(bo.status("khan-1"), "over");
    assert_eq!(ann.record("khan-1"), bo.record("khan-1"));
}

#[test]
fn a_void_resignation_is_not_taken_back_by_playing_on_after_the_crossed_step() {
    // Adversary: the resigner (a hostile client). Bo, to move, mails his
    // move; Ann resigns before it arrives, so her resignation crosses it
    // and is void (docs/fair-play.md, 3.10). Bo's desk reads the void
    // resignation first: his move stands, and he is told Ann's desk signs
    // the resignation again after it ("a resignation is not taken back by
    // crossing"). Ann's client instead plays a move on Bo's: the crossing
    // would let a resigner take her signed resignation back. Bo's desk
    // must not take that move as if she had never resigned.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    let id = "khan-1";
    bo.yam(&["move", id, &line[3]]).success();
    ann.yam(&["resign", id]).success();
    let said_bo = bo.read();
    assert!(
        said_bo.contains("signs the resignation again after it"),
        "{said_bo}"
    );
    // Ann does not let her desk read Bo's move: her client signs a move on it.
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let bo_mail = super::mail_files(&ann_inbox).pop().expect("Bo's move");
    let mut log = Log::parse(&attached_record(&bo_mail));
    let ann_secrets = Cheater::from_secrets(&ann.dir().join("secrets"), "ann", id);
    let played_on = log.next(&ann_secrets, attacker::plain_turn(&[line[4].as_str()]));
    log.append(&[line[4].as_str()], &played_on);
    let events = u32::try_from(log.events().len()).unwrap();
    std::fs::remove_file(&bo_mail).unwrap();
    let mail = bo_inbox.join("played-on.eml");
    std::fs::write(
        &mail,
        attacker::mail(&ann.address, &bo.address, id, events, &log.text()),
    )
    .unwrap();
    let said = bo.read();
    assert!(
        bo.status(id) != "YOU" || said.contains("resign"),
        "Ann's signed resignation, kept by Bo's desk as evidence, is taken back by a move: Bo's desk plays on without a word:\n{said}\nstatus: {}",
        bo.status(id)
    );
}

#[test]
fn a_forfeit_claim_that_crosses_the_opponents_resignation_is_not_to_be_made_again() {
    // Adversary: real life. Bo, to move, resigns on day 39; his mail is
    // slow. On day 41 Ann claims a forfeit. Bo's resignation stands (3.10):
    // the game is over, Ann won. Her desk must not tell her to claim
    // again with `yam forfeit` (which refuses: the game is over), nor send
    // her to a director over a step that came late.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _line) = khan_after(root.path(), 3);
    in_days(&bo, 39, &["resign", "khan-1"]).success();
    in_days(&ann, 41, &["forfeit", "khan-1"])
        .success()
        .stdout(predicate::str::contains("claims a forfeit"));
    let said_ann = ann.read();
    let said_bo = bo.read();
    ann.read();
    bo.read();
    assert_eq!(
        ann.status("khan-1"),
        "over",
        "Ann: {said_ann}\nBo: {said_bo}"
    );
    assert_eq!(
        bo.status("khan-1"),
        "over",
        "Ann: {said_ann}\nBo: {said_bo}"
    );
    assert_eq!(ann.record("khan-1"), bo.record("khan-1"));
    in_days(&ann, 42, &["forfeit", "khan-1"]).failure();
    assert!(
        !said_ann.contains("yam forfeit khan-1"),
        "Ann is told to claim again in a game her opponent resigned:\n{said_ann}"
    );
}

#[test]
fn yam_dispute_names_a_void_resignation_taken_back_by_a_move() {
    // Adversary: the resigner (a hostile client), as in
    // `a_void_resignation_is_not_taken_back_by_playing_on_after_the_crossed_step`:
    // a director handed the void resignation and the record in which the
    // resigner played on after the step it crossed must hear that the
    // resignation was not signed again, not only that the other branch
    // stands.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 3);
    let id = "khan-1";
    bo.yam(&["move", id, &line[3]]).success();
    ann.yam(&["resign", id]).success();
    bo.read();
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let bo_mail = super::mail_files(&ann_inbox).pop().expect("Bo's move");
    let mut log = Log::parse(&attached_record(&bo_mail));
    let ann_secrets = Cheater::from_secrets(&ann.dir().join("secrets"), "ann", id);
    let played_on = log.next(&ann_secrets, attacker::plain_turn(&[line[4].as_str()]));
    log.append(&[line[4].as_str()], &played_on);
    let hostile = root.path().join("played-on.yam");
    std::fs::write(&hostile, log.text()).unwrap();
    let out = yam!()
        .arg("dispute")
        .arg(bo.dir().join("games").join(id).join("crossed-5.yam"))
        .arg(&hostile)
        .assert();
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        !said.contains("a resignation in it is signed again after the step")
            || said.contains("not signed again"),
        "yam dispute lets the resigner's move stand over her signed resignation without a word:\n{said}"
    );
}

/// Ann's card from her new address, sent a minute after `ann`'s desk last
/// signed one (a card must be newer to move her).
fn ann_sends_her_card_from(ann: &Player, address: &str, to: &str) {
    let config = ann.dir().join("config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace(&ann.address, address)).unwrap();
    in_days_secs(ann, 60, &["identity", "send", to]).success();
}

/// `player` runs `yam ARGS` with the desk's clock `secs` seconds from now.
fn in_days_secs(player: &Player, secs: u64, args: &[&str]) -> assert_cmd::assert::Assert {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut cmd = yam!();
    cmd.args(args)
        .arg("--data-dir")
        .arg(player.dir())
        .env("YAM_NOW", (now + secs).to_string());
    cmd.assert()
}

#[test]
fn a_move_card_refused_over_a_damaged_game_still_moves_the_games_once_it_is_mended() {
    // Adversary: real life (a disk error in one game, an opponent who
    // moves). Bo keeps a game he cannot read (its record a directory, as
    // in `a_game_whose_record_cannot_be_read_is_listed_and_named_not_forgotten`)
    // beside khan-1 with Ann. Ann moves to ann@new.example and sends her
    // card. Bo's desk moved the contact first (saved), then failed on the
    // damaged game while moving the games, and refused the card, leaving
    // it in place. Bo mends the damaged game and reads the card again: it
    // is now "the key is the one known", and khan-1 is never moved: Ann's
    // turns from her new address are refused for ever ("the game is
    // played with ann@example.org"), with no remedy (her card, sent
    // again, is known). What Bo loses: the game with Ann.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let damaged = bo.dir().join("games/aaa-1");
    std::fs::create_dir_all(damaged.join("record.yam")).unwrap();
    ann_sends_her_card_from(&ann, "ann@new.example", "bo@example.net");
    let first = bo.read();
    // Bo mends his desk (the damaged game removed) and reads the mail
    // that was left in place.
    std::fs::remove_dir_all(&damaged).unwrap();
    let second = bo.read();
    let meta = std::fs::read_to_string(bo.dir().join("games/khan-1/mail.yaml")).unwrap();
    assert!(
        meta.contains("opponent: ann@new.example"),
        "khan-1 stays with Ann's old address once the card was read:\nfirst read: {first}\nsecond read: {second}\n{meta}"
    );
    ann.yam(&["move", "khan-1", &line[2]]).success();
    let said = bo.read();
    assert!(said.contains("1 new event(s) from Ann"), "{said}");
}

#[test]
fn a_key_name_the_secrets_do_not_hold_is_said_not_drawn_silently_over_a_desk_with_games() {
    // Adversary: the user's own mistake. Bo's `identity: key` is edited
    // from `bo` to `Bo` (a typo, a config copied from a note). Every
    // command, `yam games` first, silently draws a new signing key `Bo`
    // (only `yam identity show` ever says a key was made): `yam games`
    // then lists khan-1 as waiting for "them" with "a forfeit may be
    // claimed from ...", naming Bo's own key's fingerprint as the silent
    // party, and `yam move` refuses "it is not your move: <Bo's own
    // fingerprint> to move", never naming the configuration. A card Bo's
    // desk answers meanwhile carries the stray key, which the new
    // contact then trusts for Bo's address (and refuses Bo's real key as
    // an impersonation afterwards).
    let root = tempfile::tempdir().unwrap();
    let (_ann, bo, line) = khan_after(root.path(), 1);
    let config = bo.dir().join("config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("key: bo"), "{text}");
    std::fs::write(&config, text.replace("key: bo", "key: Bo")).unwrap();
    let games = bo.yam(&["games"]);
    let listed = String::from_utf8_lossy(&games.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&games.get_output().stderr);
    let out = bo.yam(&["move", "khan-1", &line[1]]);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    let drawn = bo.dir().join("secrets/identities/Bo.seed").exists();
    assert!(
        !drawn && said.contains("identity"),
        "a new key was drawn silently ({drawn}) and the refusal does not name the configured key:\nyam games: {listed}\nyam move: {said}"
    );
}

#[test]
fn a_turn_from_a_forgotten_opponent_is_refused_with_what_to_do() {
    // Adversary: the user's own mistake (or a remedy followed too early):
    // Bo runs `yam identity forget ann@example.org` while khan-1 goes on.
    // Ann's next turn, from the very address the game is played with, is
    // refused as "an address not in the game (no card from it was ever
    // read)": false on both counts, and no remedy (ask Ann for her card:
    // `yam identity send`). Ann's honest turn waits with no way on that
    // the message names.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    bo.yam(&["identity", "forget", "ann@example.org"]).success();
    ann.yam(&["move", "khan-1", &line[2]]).success();
    let said = bo.read();
    assert!(
        !said.contains("no card from it was ever read") && said.contains("yam identity send"),
        "{said}"
    );
}

#[test]
fn a_challenge_to_my_own_address_is_refused_not_kept_waiting_for_ever() {
    // Adversary: the user's own mistake (a typo, or a copied command):
    // Ann challenges her own address. It is taken as a new contact: her
    // card is mailed to herself and the challenge kept waiting for the
    // card, which her own `yam read` passes over as "my own mail". The
    // challenge waits for ever, and `yam games` does not show it.
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo) = pair(root.path());
    let out = ann.yam(&[
        "challenge",
        "Ann@Example.org",
        "--game-type",
        "khan",
        "--ruleset",
        "rescue-khan",
    ]);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        !out.get_output().status.success(),
        "a challenge to my own address is accepted: {said}"
    );
    assert!(!ann.dir().join("pending").exists(), "{said}");
}

#[test]
#[ignore = "left open (docs/mail.md, \"The agreed days, and crossing mails\"): a game an earlier build stored keeps the days its desk kept; reconciling them with the unsigned tag its player never saw is a decision not yet made"]
fn an_invited_desk_of_an_earlier_build_counts_the_days_the_challenge_agreed() {
    // Adversary: real life (two builds): Ann's desk, of this build,
    // challenged with `--forfeit-days 10`, which her challenge carries
    // (`ForfeitDays`). Bo's desk read it before the thirty-fifth step and
    // kept its own default in `mail.yaml` (`forfeit_days: 40`); he then
    // upgrades. The record both desks hold says 10, Ann's desk counts 10,
    // and Bo's goes on counting 40: when Ann falls silent, Bo's claim on
    // day 11 is refused ("a forfeit may be claimed after 40 days") and
    // `yam games` names a date a month later than Ann's desk does. The
    // earlier build's value is read as it is, never reconciled with the
    // record it was wrong about.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after_with(root.path(), 2, &["--forfeit-days", "10"]);
    assert!(
        ann.record("khan-1").contains("[ForfeitDays \"10\"]"),
        "setup: the challenge carries the days"
    );
    let meta_path = bo.dir().join("games/khan-1/mail.yaml");
    let meta = std::fs::read_to_string(&meta_path).unwrap();
    assert!(meta.contains("forfeit_days: 10"), "{meta}");
    // As the earlier build wrote it.
    std::fs::write(
        &meta_path,
        meta.replace("forfeit_days: 10", "forfeit_days: 40"),
    )
    .unwrap();
    claims_forfeit(&bo, 11, "Ann");
}

#[test]
fn a_challenge_waiting_for_a_card_is_listed_with_its_remedies() {
    // Ann challenges Bo, whose card she has never read: the challenge
    // waits for his card. Before, `yam games` said "no games yet" and
    // showed it nowhere: a card lost on the way left it waiting unseen.
    // Listed now, with what sends it and what drops it; gone once sent.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    challenge_bo(&ann, "khan-1").success();
    let listed = ann.yam(&["games"]).success();
    let text = String::from_utf8_lossy(&listed.get_output().stdout).into_owned();
    assert!(!text.contains("no games yet"), "{text}");
    assert!(
        text.contains("card  khan-1  a challenge to bo@example.net")
            && text.contains("`yam identity send bo@example.net`")
            && text.contains("`yam withdraw khan-1`"),
        "{text}"
    );
    assert_eq!(ann.status("khan-1"), "card");
    // Scripts see it too: a `yam-challenge/1` line before the games,
    // valid against its published schema.
    let json = ann.yam(&["games", "--format", "json"]).success();
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&json.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let schema_text =
        std::fs::read_to_string(yam_tests::workspace().join("docs/schema/challenge-1.json"))
            .unwrap();
    let schema = jsonschema::validator_for(&serde_json::from_str(&schema_text).unwrap()).unwrap();
    assert!(schema.is_valid(&lines[0]), "{}", lines[0]);
    assert_eq!(lines[0]["schema"], "yam-challenge/1");
    assert_eq!(lines[0]["opponent"], "bo@example.net");
    assert_eq!(lines[0]["game_id"], "khan-1");
    assert_eq!(lines[0]["waiting_for"], "card");
    // Bo's card comes: the challenge goes, and the game is listed instead.
    bo.read();
    ann.read();
    assert_eq!(ann.status("khan-1"), "them");
    let listed = ann.yam(&["games"]).success();
    let text = String::from_utf8_lossy(&listed.get_output().stdout).into_owned();
    assert!(!text.contains("waits for their card"), "{text}");
    let json = ann.yam(&["games", "--format", "json"]).success();
    let text = String::from_utf8_lossy(&json.get_output().stdout).into_owned();
    assert!(!text.contains("yam-challenge/1"), "{text}");
}

/// Adversary: real life, a shared inbox. Ann answers Bo's turn mail with a
/// few personal words ("Nice move; dinner on Friday?") from her ordinary
/// mail client, not from Yam: no `X-Yam-Game`, nothing new for the game.
/// Her client carries Bo's turn along, as clients do: Outlook leaves the
/// original below the reply unquoted, and an HTML-only client puts it in
/// a `<blockquote>` (which the mail parser renders without `>`). Bo's desk
/// finds Bo's own earlier record in it, "already known", counts the mail
/// as Yam's and marks it read (or, with `file_into`, moves it out of the
/// inbox): Ann's personal words are gone from Bo's sight before he saw
/// them. docs/mail.md, "Living in a shared mailbox": "a mail that is not
/// Yam's (personal mail, lists, auto-replies, bounces) is never changed:
/// its flags stay as they were, it stays where it was"; a Gmail reply,
/// which quotes with `>`, is left so already. Found by an attacker helper
/// (real mail clients and the hostile mailbox).
#[test]
fn a_personal_reply_carrying_an_old_turn_is_left_unread_in_a_shared_maildir() {
    use yam_cli::mail::armor::armor;
    use yam_tests::shapes;
    let root = tempfile::tempdir().unwrap();
    let (_ann, bo, _line) = khan_after(root.path(), 2);
    let bo_turn = armor("khan-1", 2, bo.record("khan-1").as_bytes());
    let before = bo.record("khan-1");
    let maildir = root.path().join("Maildir");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    let words = "Nice move! I will answer tomorrow. Dinner on Friday?";
    let outlook = format!(
        "{}\r\n{words}\r\n\r\nAnn\r\n\r\n________________________________\r\nFrom: Bo <bo@example.net>\r\n\
         Sent: Sunday, November 29, 2026 10:02\r\nTo: Ann <ann@example.org>\r\nSubject: [Yam] Khan khan-1 #2: Ann vs Bo\r\n\r\n\
         Your move, Ann.\r\n\r\n{}",
        shapes::headers(
            "text/plain; charset=UTF-8",
            "X-Mailer: Microsoft Outlook 16.0\r\n"
        ),
        bo_turn.replace('\n', "\r\n")
    );
    let html = format!(
        "{}\r\n<html><body><div>{words}</div><div><br></div>\
         <blockquote type=\"cite\">Your move, Ann.<br><br>{}</blockquote></body></html>\r\n",
        shapes::headers("text/html; charset=UTF-8", "").replace("reply-1@", "reply-2@"),
        bo_turn.replace('\n', "<br>\r\n")
    );
    let names = ["1764500000.M1P1.host", "1764500001.M2P2.host"];
    for (name, mail) in names.iter().zip([outlook, html]) {
        std::fs::write(maildir.join("new").join(name), mail).unwrap();
    }
    let out = bo.yam(&["read", "--maildir", maildir.to_str().unwrap()]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.get_output().stdout),
        String::from_utf8_lossy(&out.get_output().stderr)
    );
    assert!(bo.record("khan-1") == before, "nothing new for the game");
    let mut new: Vec<String> = std::fs::read_dir(maildir.join("new"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    new.sort();
    let cur: Vec<String> = std::fs::read_dir(maildir.join("cur"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        (new, cur),
        (names.map(String::from).to_vec(), Vec::<String>::new()),
        "Ann's personal replies stay unread in new/ (yam said: {said})"
    );
}

/// Real life (a disk error, a sync tool that rewrote a byte): one byte of
/// the desk's `read.log` (a file of some 20,000 lines after a few years)
/// is no longer UTF-8. Every `yam read` then stops with "read.log: cannot
/// read: stream did not contain valid UTF-8": no line named among the
/// thousands, and no word of what to do, while no mail can be read until
/// the player finds the byte alone. The error names the line.
#[test]
fn a_read_log_with_a_damaged_byte_names_the_line() {
    let root = tempfile::tempdir().unwrap();
    let (ann, _bo) = pair(root.path());
    let log = ann.dir().join("read.log");
    let mut bytes = Vec::new();
    for n in 0..3 {
        bytes.extend_from_slice(format!("maildir:{n} b3:{:064x} I\n", n).as_bytes());
    }
    bytes.extend_from_slice(b"maildir:\xe93 - I\n");
    std::fs::write(&log, &bytes).unwrap();
    let out = yam!()
        .args(["read", "--stdin", "--data-dir"])
        .arg(ann.dir())
        .write_stdin("Subject: hello\n\nnot a turn\n")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(std::fs::read(&log).unwrap(), bytes, "the log as it was");
    assert!(
        out.status.success() || stderr.contains("line 4"),
        "the damaged line is named: {stderr}"
    );
}

/// The output of `yam ARGS` run by `player` with the desk's clock at
/// `secs` seconds since 1970 (`YAM_NOW`), stdout then stderr, and whether
/// it succeeded.
fn at_time(player: &Player, secs: u64, args: &[&str]) -> (bool, String) {
    let mut cmd = yam!();
    cmd.args(args)
        .arg("--data-dir")
        .arg(player.dir())
        .env("YAM_NOW", secs.to_string());
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn a_move_mailed_late_is_not_counted_against_the_opponent_from_before_it_went() {
    // Real life (or a cheat: an SMTP setting broken on purpose): Ann
    // moves on day 0, but her mail cannot be sent and waits in her
    // outbox. Her server is back on day 30: `yam send` mails the move,
    // and Bo reads it that day. Bo has owed the move for 11 days on day
    // 41, yet Ann's desk counts his silence from when she signed the
    // move, not from when its mail went out, and signs and mails a
    // forfeit claim "Bo has not answered in 41 days" (docs/mail.md,
    // Deadlines: the silence of a move is counted from the turn; Bo
    // could not answer a turn that was still in Ann's outbox).
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let away = root.path().join("away");
    std::fs::rename(&bo_inbox, &away).unwrap();
    ann.yam(&["move", "khan-1", &line[2]])
        .code(2)
        .stderr(predicate::str::contains("its mail could not be sent"));
    std::fs::rename(&away, &bo_inbox).unwrap();
    in_days(&ann, 30, &["send"]).success();
    read_in_days(&bo, 30);
    assert_eq!(bo.status("khan-1"), "YOU", "setup: Bo has Ann's move");
    let out = in_days(&ann, 41, &["forfeit", "khan-1"]);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        !out.get_output().status.success(),
        "Ann's desk claimed a forfeit 11 days after her move reached Bo (it sat 30 days in her outbox): {said}"
    );
}

#[test]
fn a_decline_mailed_late_does_not_count_the_movers_silence_from_before_it_went() {
    // Real life (or a cheat: an SMTP setting broken on purpose), as the
    // late move above, with an answer: Bo, to move, offers a draw on day
    // 10, and waits for Ann's answer (docs/mail.md: the mover waits, he
    // is not silent). Ann declines on day 11, but her mail cannot be sent
    // and waits in her outbox until day 41, when `yam send` mails it and
    // Bo reads it. Bo could not move on before he had her answer: on day
    // 45 he has been silent 10 days before the offer and 4 since the
    // decline reached him. Ann's desk counts his silence as if the decline
    // had gone on day 11 (44 days) and signs and mails a forfeit claim
    // ("a silence starts when its mail goes out": `MailMeta::sent_late`
    // moves only a silence that starts at the last change, and the
    // mover's resumes from an earlier start).
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after(root.path(), 3);
    in_days(&bo, 10, &["draw", "offer", "khan-1"]).success();
    read_in_days(&ann, 10);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let away = root.path().join("away");
    std::fs::rename(&bo_inbox, &away).unwrap();
    in_days(&ann, 11, &["draw", "decline", "khan-1"])
        .code(2)
        .stderr(predicate::str::contains("its mail could not be sent"));
    std::fs::rename(&away, &bo_inbox).unwrap();
    in_days(&ann, 41, &["send"]).success();
    read_in_days(&bo, 41);
    assert_eq!(bo.status("khan-1"), "YOU", "setup: Bo has Ann's decline");
    let out = in_days(&ann, 45, &["forfeit", "khan-1"]);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        !out.get_output().status.success(),
        "Ann's desk claimed a forfeit 4 days after her decline reached Bo (it sat 30 days in her outbox; Bo was silent 10 days before his offer): {said}"
    );
}

#[test]
fn no_forfeit_is_claimed_against_a_move_still_waiting_in_the_claimants_outbox() {
    // As above, but Ann never sends the waiting mail: on day 41 her desk
    // signs a forfeit claim against Bo for a move he has never received,
    // and mails the move and the claim together.
    let root = tempfile::tempdir().unwrap();
    let ann = ann_move_left_unsent(root.path());
    let out = in_days(&ann, 41, &["forfeit", "khan-1"]);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        !out.get_output().status.success(),
        "Ann's desk claimed a forfeit against Bo for a move that never left her outbox: {said}"
    );
}

#[test]
fn a_challenge_with_zero_forfeit_days_leaves_both_desks_on_the_same_days() {
    // Adversary: a challenger who wants to win on time. `yam challenge
    // --forfeit-days 0` is taken, and Ann's desk keeps 0: she may claim a
    // forfeit the moment Bo owes a move. Bo's desk reads the tag
    // `ForfeitDays: 0`, drops it as no number of days
    // (`agreed_forfeit_days` keeps only days > 0) and counts the default
    // 40. The two desks name different forfeit days for one game, which
    // docs/mail.md ("The agreed days, and crossing mails") says the tag
    // was made to end. Either 0 is refused by `yam challenge`, or both
    // desks count the same days.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let out = ann.yam(&[
        "challenge",
        "bo@example.net",
        "--id",
        "khan-1",
        "--game-type",
        "khan",
        "--ruleset",
        "rescue-khan",
        "--seats",
        "first",
        "--forfeit-days",
        "0",
    ]);
    if !out.get_output().status.success() {
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(stderr.contains("forfeit"), "{stderr}");
        return;
    }
    bo.read();
    ann.read();
    assert!(bo.read().contains("challenges you"), "setup");
    bo.yam(&["accept", "khan-1"]).success();
    ann.read();
    bo.read();
    let days = |p: &Player| {
        std::fs::read_to_string(p.dir().join("games/khan-1/mail.yaml"))
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("forfeit_days: ").map(str::to_owned))
            .unwrap()
    };
    assert_eq!(
        days(&ann),
        days(&bo),
        "Ann's desk and Bo's count different forfeit days for one game"
    );
}

#[test]
fn the_invited_player_is_shown_the_agreed_forfeit_days_before_accepting() {
    // Adversary: a challenger who wants to win on time. Ann challenges
    // with `--forfeit-days 3`; Bo's desk counts the 3 days too, and Ann's
    // claim after 3 days of his silence stands. docs/mail.md says the tag
    // need not be signed because "the invited player reads the days
    // before accepting", but nothing Bo's desk shows him names them:
    // not `yam read` ("Ann challenges you: game khan-1. Accept with ..."),
    // not `yam board khan-1`, not `yam games`, not the challenge mail's
    // text. He accepts a 3-day game believing it is the usual 40.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    ann.yam(&[
        "challenge",
        "bo@example.net",
        "--id",
        "khan-1",
        "--game-type",
        "khan",
        "--ruleset",
        "rescue-khan",
        "--seats",
        "first",
        "--forfeit-days",
        "3",
    ])
    .success();
    bo.read();
    ann.read();
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let mails: String = super::mail_files(&bo_inbox)
        .iter()
        .map(|m| std::fs::read_to_string(m).unwrap())
        .collect();
    let said = bo.read();
    assert!(said.contains("challenges you"), "setup: {said}");
    let board = bo.yam(&["board", "khan-1"]).success();
    let games = bo.yam(&["games"]).success();
    let shown = format!(
        "{said}\n{}\n{}",
        String::from_utf8_lossy(&board.get_output().stdout),
        String::from_utf8_lossy(&games.get_output().stdout)
    );
    let told = |text: &str| {
        text.lines().any(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("forfeit") && (l.contains("3 day") || l.contains("3 days"))
        })
    };
    assert!(
        told(&shown) || told(&mails),
        "Bo is never told the challenge's 3 forfeit days before he accepts:\n{shown}"
    );
}

#[test]
fn a_move_signed_while_the_desks_clock_was_a_year_behind_does_not_open_a_forfeit_the_next_day() {
    // Real life: Ann's laptop boots with its clock a year behind (a dead
    // RTC battery, a virtual machine restored from a snapshot) and she
    // moves before it is set right. Her desk read Bo's last move at the
    // right time, so it knows the clock went back, yet it starts Bo's
    // silence a year ago: the next day, with the clock right again,
    // `yam games` says Bo has waited 366 days and `yam forfeit` signs
    // and mails a claim "Bo has not answered in 366 days" against a
    // move he received yesterday.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let (moved, said) = at_time(&ann, now - 365 * 86_400, &["move", "khan-1", &line[2]]);
    assert!(moved, "setup: {said}");
    bo.read();
    assert_eq!(bo.status("khan-1"), "YOU", "setup: Bo has Ann's move");
    let (claimed, said) = in_days_output(&ann, 1, &["forfeit", "khan-1"]);
    assert!(
        !claimed,
        "a day after her move, Ann's desk claims a forfeit against Bo: {said}"
    );
}

/// [`in_days`], its output (stdout then stderr) and whether it succeeded.
fn in_days_output(player: &Player, days: u64, args: &[&str]) -> (bool, String) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    at_time(player, now + days * 86_400, args)
}

#[test]
fn on_the_day_yam_games_names_for_a_forfeit_the_claim_is_not_refused() {
    // Real life: Ann moves at 18:00 UTC. `yam games` tells her "a forfeit
    // may be claimed from" a date, 40 days on (docs/mail.md: `yam games`
    // says "when a forfeit may be claimed"). On that date, in the
    // morning, `yam forfeit` refuses: "Bo has been silent 39 day(s)". The
    // date named is the day the 40 days end, not the first day a claim
    // lies (and it is a UTC date, though nothing says so).
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    // 18:00 UTC, two days on.
    let moved_at = (now / 86_400 + 2) * 86_400 + 18 * 3600;
    let (moved, said) = at_time(&ann, moved_at, &["move", "khan-1", &line[2]]);
    assert!(moved, "setup: {said}");
    bo.read();
    let (_, listed) = at_time(&ann, moved_at, &["games"]);
    let mut named = listed
        .split("a forfeit may be claimed from ")
        .nth(1)
        .unwrap_or_else(|| panic!("setup: {listed}"))
        .split_whitespace();
    let date = named.next().unwrap().to_owned();
    let ymd: Vec<i64> = date.split('.').map(|p| p.parse().unwrap()).collect();
    let [y, m, d] = ymd[..] else { panic!("{date}") };
    // Days from 1970-01-01 of the named (UTC) date.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    // An hour into the named day, or at the time named with it, if any.
    let mut at = u64::try_from(days).unwrap() * 86_400 + 3600;
    if let Some((h, mi)) = named.next().and_then(|t| t.split_once(':'))
        && let (Ok(h), Ok(mi)) = (h.parse::<u64>(), mi.parse::<u64>())
    {
        at = u64::try_from(days).unwrap() * 86_400 + h * 3600 + mi * 60;
    }
    let (ok, said) = at_time(&ann, at, &["forfeit", "khan-1"]);
    assert!(
        ok,
        "`yam games` said a forfeit may be claimed from {date}; then: {said}"
    );
}
#[test]
fn a_turn_read_a_month_after_it_came_is_not_shown_as_waiting_zero_days() {
    // Real life: Bo's laptop sleeps for a month (a holiday). Ann moved on
    // day 0; her desk counts Bo's silence from then and offers her the
    // forfeit on day 40. Bo reads the move on day 30, and `yam games`
    // (docs/mail.md: "how long each has waited and when a forfeit may be
    // claimed") tells him the game has waited for him 0 days: his desk
    // counts from its own reading, though the mail's Date says day 0, so
    // he believes he has 40 days left when Ann may claim in 10.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    ann.yam(&["move", "khan-1", &line[2]]).success();
    read_in_days(&bo, 30);
    let (_, listed) = in_days_output(&bo, 30, &["games"]);
    let game = listed
        .lines()
        .find(|l| l.contains("khan-1"))
        .unwrap_or_default()
        .to_owned();
    assert!(game.starts_with("YOU"), "setup: {listed}");
    assert!(
        !game.contains("waiting for you 0 day(s)"),
        "a move that came 30 days ago is listed as waiting 0 days: {game}"
    );
}

#[test]
fn a_draw_offer_dated_back_does_not_wipe_the_silence_of_the_move_it_was_made_on() {
    // Attack: Bo owes a move from day 0 and stays silent. On day 39, one
    // day before Ann may claim, he offers a draw on his move from a desk
    // whose mail says it was sent in 2001 (a `Date` is the sender's
    // word). Ann reads it and declines it that same day. Her desk takes
    // the offer's answer as owed from the `Date` (bounded by her own last
    // change, day 0), so the decline credits Bo with 39 days of
    // "waiting for an answer" and restarts his move's silence on day 39:
    // on day 41 Ann's claim is refused ("silent 2 days"), and an offer
    // every 39 days stalls the forfeit for ever. docs/mail.md, Deadlines:
    // offers and answers never start a move's silence again, and a false
    // `Date` "only makes the reader's own wait look longer".
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, _) = khan_after(root.path(), 3);
    in_days(&bo, 39, &["draw", "offer", "khan-1"]).success();
    let Inbox::Files { dir, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    for file in super::mail_files(&dir) {
        let text = std::fs::read_to_string(&file).unwrap();
        let forged: String = text
            .split_inclusive('\n')
            .map(|line| {
                if line.starts_with("Date:") {
                    let end = if line.ends_with("\r\n") { "\r\n" } else { "\n" };
                    format!("Date: Mon, 01 Jan 2001 00:00:00 +0000{end}")
                } else {
                    line.to_owned()
                }
            })
            .collect();
        assert_ne!(forged, text, "setup: the mail has a Date");
        std::fs::write(&file, forged).unwrap();
    }
    read_in_days(&ann, 39);
    in_days(&ann, 39, &["draw", "decline", "khan-1"]).success();
    read_in_days(&bo, 39);
    let out = in_days(&ann, 41, &["forfeit", "khan-1"]);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        out.get_output().status.success() && said.contains("claims a forfeit"),
        "Bo, silent on his move 39 days, reset his clock with one draw offer whose Date was set back: {said}"
    );
}

/// The read(2) calls one `yam ARGS --data-dir DIR` makes, from the
/// kernel's accounting of the shell that ran it and waited for it (a
/// reaped child's reads are added to its parent's `/proc/PID/io`): a
/// count the machine's load does not move. The run must succeed.
#[cfg(target_os = "linux")]
fn read_calls(dir: &Path, args: &[&str]) -> u64 {
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    all.extend(["--data-dir".as_ref(), dir.as_os_str()]);
    yam_tests::read_calls(yam_tests::yam_bin!().as_ref(), &all, &[])
}

/// A desk of a player who has played for years keeps hundreds of games;
/// one turn mail for one of them is read with the same work whatever the
/// other games: `yam read` looked for mail waiting to be sent by opening,
/// locking and parsing the bookkeeping of every game the desk keeps (and
/// listed every game's folder to tell whether the mail's game is kept),
/// so a turn's read grew by two read(2) calls, a lock and a YAML parse a
/// game: at 301 games 642 read calls and 302 locks against 42 and 2 at
/// one game. `yam send` the same.
#[cfg(target_os = "linux")]
#[test]
fn a_turn_mail_is_read_without_reading_every_other_game_of_the_desk() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 2);
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    // Ann's third move, kept aside: Bo reads it at the end, once with one
    // game on his desk and once with seven.
    ann.yam(&["move", "khan-1", &line[2]]).success();
    let mail = super::mail_files(&bo_inbox).pop().unwrap();
    let turn = root.path().join("turn.eml");
    std::fs::rename(&mail, &turn).unwrap();
    let turn = turn.to_str().unwrap().to_owned();
    let reads_on_a_copy = |args: &[&str]| {
        let copy = tempfile::tempdir().unwrap();
        copy_dir(bo.dir(), copy.path());
        read_calls(copy.path(), args)
    };
    let one_game = reads_on_a_copy(&["read", "--eml", &turn]);
    let send_one_game = reads_on_a_copy(&["send"]);

    // Six other games between the same two, each opened and one move in.
    for n in 0..6 {
        let id = format!("other-{n}");
        ann.yam(&[
            "challenge",
            bo.address.as_str(),
            "--id",
            &id,
            "--game-type",
            "khan",
            "--ruleset",
            "rescue-khan",
            "--seats",
            "first",
        ])
        .success();
        bo.read();
        bo.yam(&["accept", &id]).success();
        ann.read();
        bo.read();
        ann.yam(&["move", &id, &line[0]]).success();
        bo.read();
    }
    assert_eq!(
        std::fs::read_dir(bo.dir().join("games"))
            .unwrap()
            .flatten()
            .filter(|e| e.path().join("record.yam").exists())
            .count(),
        7
    );
    let seven_games = reads_on_a_copy(&["read", "--eml", &turn]);
    let send_seven_games = reads_on_a_copy(&["send"]);
    // A few calls of slack (the read log is longer by the other games'
    // mails); a game's bookkeeping alone is two.
    assert!(
        seven_games <= one_game + 3 && send_seven_games <= send_one_game + 3,
        "one turn mail's `yam read` made {one_game} read calls with one game on the desk and {seven_games} with six other games beside it; `yam send` with nothing waiting {send_one_game} and {send_seven_games}"
    );
}

/// Holds the lock file `path` (created if need be) while the value lives,
/// as the command that takes it would: the races below are lined up on it.
fn hold_lock(path: &Path) -> std::fs::File {
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap();
    lock.lock().unwrap();
    lock
}

/// `yam ARGS --data-dir DIR` started, its output piped (and its standard
/// input, given `stdin`, written and closed).
fn spawn_yam(dir: &Path, args: &[&std::ffi::OsStr], stdin: Option<&[u8]>) -> std::process::Child {
    let mut child = std::process::Command::new(yam_tests::yam_bin!())
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .stdin(if stdin.is_some() {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        })
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    child
}

/// What a finished command said: its exit code, then its output.
fn said_by(out: &std::process::Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Real life: a cron job runs `yam read` every five minutes while the
/// player, who has just seen Bo's card come in, types `yam read` in a
/// terminal (or `yam read --watch` runs beside the cron job, as
/// docs/mail.md allows: "Other commands may run beside a watching desk").
/// Ann challenged Bo, a new contact, without `--id`: the challenge waits in
/// `pending/` for his card. Both reads take the card; each finds the
/// waiting challenge and signs it under an id drawn at random, so Bo
/// receives two challenges from one `yam challenge`, two games and two
/// chains are made, and the second read then says the waiting file is
/// gone ("remove it by hand, or it is sent again"). The two reads are
/// lined up deterministically: the test holds the contacts' lock
/// (`.contacts.lock`, taken while a card is remembered) while both start,
/// then lets them go; the first signs the challenge (a chain drawn and
/// written, a record and its bookkeeping written durably, the mail
/// written) while the second only reads that the contact is known and
/// looks at `pending/`. One waiting challenge must be sent once, whoever
/// reads the card.
#[test]
fn two_reads_of_the_card_a_challenge_waits_for_send_the_challenge_once() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    ann.yam(&[
        "challenge",
        "bo@example.net",
        "--game-type",
        "khan",
        "--ruleset",
        "rescue-khan",
        "--seats",
        "first",
    ])
    .success()
    .stdout(predicate::str::contains("the challenge follows by itself"));
    let said = bo.read();
    assert!(said.contains("my card is sent in answer"), "setup: {said}");
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let card = super::mail_files(&ann_inbox)
        .pop()
        .expect("setup: Bo's card");
    assert!(
        super::mail_files(&bo_inbox).is_empty(),
        "setup: Bo has read everything"
    );
    // Both reads start while a card is being remembered elsewhere (the
    // contacts' lock held), then run together.
    let lock = hold_lock(&ann.dir().join(".contacts.lock"));
    let reads: Vec<std::process::Child> = (0..2)
        .map(|_| {
            spawn_yam(
                ann.dir(),
                &["read".as_ref(), "--eml".as_ref(), card.as_os_str()],
                None,
            )
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    drop(lock);
    let said: Vec<String> = reads
        .into_iter()
        .map(|r| said_by(&r.wait_with_output().unwrap()))
        .collect();
    let games: Vec<String> = std::fs::read_dir(ann.dir().join("games"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("record.yam").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let challenges = super::mail_files(&bo_inbox).len();
    assert!(
        games.len() == 1 && challenges == 1,
        "one `yam challenge` made {} games ({games:?}) and mailed Bo {challenges} challenge(s); the two reads said:\n{}\n---\n{}",
        games.len(),
        said[0],
        said[1]
    );
}

/// Real life: the player's mail client has the Maildir open while `yam
/// read` (cron, or a watching desk) reads it; the client moves every mail
/// it shows from `new/` to `cur/` (marking it seen), as Maildir clients
/// do, and docs/mail.md says a turn mail the player already opened in a
/// mail client is still read. A second `yam read` filing what it read
/// (`file_into`, or its own mark as seen) moves mails the same way. Here
/// `yam read` lists two mails, Bo's turn and a personal mail after it;
/// while it applies the turn (held up on the game's lock, as it would be
/// behind a `yam move` in another terminal) the client marks the personal
/// mail seen. The read applied Bo's turn, then failed whole on the mail
/// that was no longer where the listing saw it ("No such file or
/// directory", exit 2): every later mail of the listing is left for the
/// next run, the turn it applied is not marked read, and cron mails the
/// player an error for a mailbox that is fine. A mail moved away since
/// the listing is found at its new place at the next look: it must be
/// passed over, not fail the read.
#[test]
fn a_mail_moved_by_a_mail_client_during_a_read_does_not_fail_the_read() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo, line) = khan_after(root.path(), 1);
    bo.yam(&["move", "khan-1", &line[1]]).success();
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let turn = super::mail_files(&ann_inbox)
        .pop()
        .expect("setup: Bo's turn");
    let maildir = root.path().join("Maildir");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    std::fs::rename(&turn, maildir.join("new/1764500000.M1P1.host")).unwrap();
    let personal = maildir.join("new/1764500001.M2P2.host");
    std::fs::write(
        &personal,
        "From: Carol <carol@example.com>\nTo: ann@example.org\nSubject: lunch\nMessage-ID: <lunch-42@example.com>\nDate: Mon, 30 Nov 2026 12:00:00 +0000\n\nLunch on Friday?\n",
    )
    .unwrap();
    // Another command holds the game while the read starts.
    let lock = hold_lock(&ann.dir().join("games/khan-1/.lock"));
    let read = spawn_yam(
        ann.dir(),
        &["read".as_ref(), "--maildir".as_ref(), maildir.as_os_str()],
        None,
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // The mail client shows the personal mail: seen, in `cur/`.
    std::fs::rename(&personal, maildir.join("cur/1764500001.M2P2.host:2,S")).unwrap();
    drop(lock);
    let out = read.wait_with_output().unwrap();
    let said = said_by(&out);
    assert!(
        ann.record("khan-1").contains(&line[1]),
        "setup: Bo's turn is applied: {said}"
    );
    assert!(
        out.status.success() && !said.contains("No such file"),
        "a mail moved since the listing failed the read:\n{said}"
    );
}

/// Real life: docs/mail.md has a mail filter hand each incoming mail to
/// `yam read --stdin` (a procmail, maildrop or Sieve `pipe` rule); a
/// challenge addressed to Bo and to a list or alias he is on arrives
/// twice, and the filter runs one `yam read --stdin` for each copy at the
/// same moment (procmail runs a pipe per delivery, unlocked unless the
/// recipe asks). Read one after the other, the second copy is "read
/// before", exit 0
/// (`an_auto_reply_quoting_a_turn_and_a_duplicate_delivery_are_silent`).
/// Read together, both find no game of that id, both verify the
/// challenge, and the one that comes second to store it is told "the game
/// ... exists already": it says the challenge was refused and exits 1
/// (which a filter with procmail's `w` flag takes for a failed delivery),
/// and the read log remembers the mail as refused. The reads are lined
/// up deterministically: the test holds the new game's lock while both
/// start, as the first reader holds it while it writes the record.
#[test]
fn a_challenge_delivered_twice_and_read_by_two_filters_at_once_is_not_refused() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    challenge_bo(&ann, "khan-twice")
        .success()
        .stdout(predicate::str::contains("the challenge follows by itself"));
    let said = bo.read();
    assert!(said.contains("my card is sent in answer"), "setup: {said}");
    let said = ann.read();
    assert!(
        said.contains("the waiting challenge khan-twice is sent"),
        "setup: {said}"
    );
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let challenge = super::mail_files(&bo_inbox)
        .pop()
        .expect("setup: the challenge");
    let raw = std::fs::read(&challenge).unwrap();
    // The first reader to store it holds the new game while it writes.
    let game = bo.dir().join("games/khan-twice");
    std::fs::create_dir_all(&game).unwrap();
    let lock = hold_lock(&game.join(".lock"));
    let reads: Vec<std::process::Child> = (0..2)
        .map(|_| spawn_yam(bo.dir(), &["read".as_ref(), "--stdin".as_ref()], Some(&raw)))
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    drop(lock);
    let outs: Vec<std::process::Output> = reads
        .into_iter()
        .map(|r| r.wait_with_output().unwrap())
        .collect();
    let said: Vec<String> = outs.iter().map(said_by).collect();
    assert!(
        bo.record("khan-twice").contains("khan-twice"),
        "setup: the challenge is stored: {said:?}"
    );
    assert!(
        outs.iter().all(|o| o.status.success()) && !said.iter().any(|s| s.contains("refused")),
        "one copy of the challenge was refused because the other was being stored:\n{}\n---\n{}",
        said[0],
        said[1]
    );
}

/// Real life: a cron job's `yam read` takes Bo's card while Ann, in a
/// terminal, changes her mind and withdraws the challenge that waited
/// for it. The read has taken the waiting challenge out of `pending/`
/// and is signing it (a chain drawn, the game created, the mail
/// composed); `yam withdraw` finds no game of that id yet, removes the
/// waiting file and tells Ann "was never sent: it is dropped", exit 0.
/// Then the read sends it: Bo holds a challenge Ann was told was never
/// sent, which he may accept, and a game Ann believes she dropped runs
/// its forfeit clock against her. The read's window (here stretched by
/// the test holding the new game's lock, as the read takes it to store
/// the game) is real: `pending/` is read, signed and removed under no
/// lock that `yam withdraw` takes. A withdrawal must either drop the
/// challenge before it goes, or say that it went (and withdraw the
/// game).
#[test]
fn a_challenge_withdrawn_while_a_read_sends_it_is_not_said_dropped_and_sent() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    challenge_bo(&ann, "khan-late")
        .success()
        .stdout(predicate::str::contains("the challenge follows by itself"));
    let said = bo.read();
    assert!(said.contains("my card is sent in answer"), "setup: {said}");
    let Inbox::Files { dir: ann_inbox, .. } = ann.inbox.clone() else {
        unreachable!()
    };
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    let card = super::mail_files(&ann_inbox)
        .pop()
        .expect("setup: Bo's card");
    let game = ann.dir().join("games/khan-late");
    std::fs::create_dir_all(&game).unwrap();
    let lock = hold_lock(&game.join(".lock"));
    let read = spawn_yam(
        ann.dir(),
        &["read".as_ref(), "--eml".as_ref(), card.as_os_str()],
        None,
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // The withdrawal may wait for the read (it does, once the two share a
    // lock), so it runs beside it too, and the game is let go.
    let withdraw = spawn_yam(
        ann.dir(),
        &["withdraw".as_ref(), "khan-late".as_ref()],
        None,
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    drop(lock);
    let withdrawn = withdraw.wait_with_output().unwrap();
    let read = read.wait_with_output().unwrap();
    let withdraw_said = said_by(&withdrawn);
    let read_said = said_by(&read);
    let sent = super::mail_files(&bo_inbox)
        .iter()
        .any(|m| std::fs::read_to_string(m).is_ok_and(|t| t.contains("khan-late")));
    assert!(
        !(withdraw_said.contains("never sent") && sent),
        "`yam withdraw` said the challenge was dropped, never sent, and the read sent it to Bo:\nwithdraw: {withdraw_said}\nread: {read_said}"
    );
    // Sent, it is withdrawn as a challenge sent: Bo is told.
    assert!(sent, "read: {read_said}");
    assert!(
        withdrawn.status.success() && withdraw_said.contains("is told by mail"),
        "withdraw: {withdraw_said}"
    );
}

/// Real life: Bo's address begins with a capital beyond ASCII
/// (`Öd@example.net`, as his configuration and Ann's challenge write it).
/// The desk lower-cased addresses in ASCII only (its own, a card's, a
/// contact's, the name of a challenge waiting for a card) while the mail
/// reader lower-cases a `From` whole: Bo's card named `Öd@...`, his mail
/// came from `öd@...`, and the card was refused as naming another
/// address, so the challenge never went. One normal form for addresses
/// (`mail::address`) mends it; a challenge an earlier build kept under
/// its ASCII-only name is still sent when his card comes.
#[test]
fn a_new_contact_whose_address_has_a_capital_beyond_ascii_gets_the_challenge_and_plays() {
    for earlier_build in [false, true] {
        let root = tempfile::tempdir().unwrap();
        let (ann, bo) = pair_with(root.path(), "Öd@example.net");
        let args = RESCUE_KHAN_FIRST;
        if earlier_build {
            challenge_rescue(&ann, "Öd@example.net", "khan-1").success();
            let pending = ann.dir().join("pending");
            std::fs::rename(
                pending.join("öd@example.net.yaml"),
                pending.join("Öd@example.net.yaml"),
            )
            .expect("setup: the challenge waits under the normal form");
            assert!(bo.read().contains("my card is sent in answer"));
            let said = ann.read();
            assert!(
                said.contains("the waiting challenge khan-1 is sent"),
                "earlier build: {said}"
            );
            assert!(bo.read().contains("challenges you"));
            bo.yam(&["accept", "khan-1"]).success();
            ann.read();
            bo.read();
        } else {
            open_game(&ann, &bo, "khan-1", &args);
        }
        assert_eq!(
            ann.status("khan-1"),
            "YOU",
            "earlier build: {earlier_build}"
        );
        assert_eq!(
            bo.status("khan-1"),
            "them",
            "earlier build: {earlier_build}"
        );
        let line = example_line();
        ann.yam(&["move", "khan-1", &line[0]]).success();
        let said = bo.read();
        assert_eq!(bo.status("khan-1"), "YOU", "{said}");
        bo.yam(&["move", "khan-1", &line[1]]).success();
        let said = ann.read();
        assert_eq!(ann.status("khan-1"), "YOU", "{said}");
    }
}

/// Adversary: a stranger who knows a game's id (it is in every turn
/// mail's subject, and a published record's header). Attack: one mail of
/// thousands of tiny attachments, each `[GameId "khan-1"]` and nothing
/// else. Every candidate of a mail is considered, and each one that
/// claims a stored game opens and parses that game from disk again
/// (`incoming::record_once`: `Stored::open`, then `events()` in
/// `verified_whole`) before its own few bytes fail to read: the work is
/// the number of attachments times the stored game's size. On the
/// release build, against a desk at ply 300 (an 80 kB record): 1,000
/// such attachments (147 kB) take 0.63 s of CPU, 10,000 (1.5 MB) 5.6 s,
/// 28,000 (1.6 MB in the compact form below) 16.4 s, where the same mail
/// naming an unknown game takes 0.17 s; a 16 MiB mail holds `yam read`
/// for about three minutes, and since a refused mail is left in place it
/// does so again at every read. The stored game should be read once a
/// mail (or once a game), not once a candidate. Measured in read(2)
/// calls, which no machine's load moves.
#[cfg(target_os = "linux")]
#[test]
fn a_mail_of_many_tiny_attachments_does_not_read_the_stored_game_again_for_each() {
    let root = tempfile::tempdir().unwrap();
    let (_ann, bo, _line) = khan_after(root.path(), 2);
    let mail = |id: &str, n: usize| {
        let mut text = String::from(
            "From: Eve <eve@example.com>\r\nTo: bo@example.net\r\nSubject: hello\r\n\
             Message-ID: <eve.1@example.com>\r\nMIME-Version: 1.0\r\n\
             Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n",
        );
        for _ in 0..n {
            text.push_str(&format!(
                "--B\r\nContent-Type: application/x-yam\r\n\r\n[GameId \"{id}\"]\r\n"
            ));
        }
        text.push_str("--B--\r\n");
        let path = root.path().join(format!("{id}-{n}.eml"));
        std::fs::write(&path, text).unwrap();
        path
    };
    // read(2) calls of `yam read --eml MAIL` on a copy of Bo's desk,
    // whatever its exit status (each mail is refused).
    let reads = |mail: &Path| -> u64 {
        let copy = tempfile::tempdir().unwrap();
        copy_dir(bo.dir(), copy.path());
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(r#""$0" "$@" >/dev/null 2>&1; grep '^syscr:' /proc/$$/io"#)
            .arg(yam_tests::yam_bin!())
            .args(["read", "--eml"])
            .arg(mail)
            .arg("--data-dir")
            .arg(copy.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .strip_prefix("syscr:")
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    // At most `MAX_TURNS` (16) records are read from one mail: the work
    // is bounded by that many readings of the stored game, whatever the
    // mail holds.
    let n = 400;
    let unknown = reads(&mail("no-such-game", n));
    let few = reads(&mail("khan-1", 16));
    let claiming = reads(&mail("khan-1", n));
    assert!(
        claiming <= few + 40,
        "a stranger's mail of {n} one-line attachments naming Bo's game made {claiming} read calls, \
         one of 16 {few}, the same mail naming no game of his {unknown}: the stored game is read again \
         for every attachment"
    );
    // Nothing changed: the game is as it was.
    assert_eq!(bo.status("khan-1"), "them");
}

#[test]
fn a_challenge_that_invites_another_key_beside_me_is_not_taken_unseen() {
    // Attack (a sybil responder): Ann wants a die she can escape. She
    // challenges Bo to Castle Siege, but signs a challenge that invites a
    // second key of hers, X, after Bo. X takes no seat (the record calls
    // it the game's referee), yet it would hold a chain, so every roll,
    // Bo's and Ann's, would wait for X's response too (docs/fair-play.md,
    // 3.3: "every other party with a chain"), and X, answering last,
    // would know each outcome before answering and could stay silent on
    // the bad ones, where a claim against a seatless party "is evidence
    // for a director, not a forfeit result" (3.8). Bo's desk plays
    // two-player games and its own challenges invite one key; it should
    // refuse this one, or at least name the other key before Bo accepts.
    // It says "Ann challenges you" and nothing more, and `yam accept`
    // signs Bo into the three-party game. Only then is X named ("Waiting
    // for d86c ... to accept"), and Bo is trapped: X's acceptance can
    // never reach his desk (a mail is taken only from the opponent's
    // address, and its new events only when signed by the sender), and
    // every way out the desk names is refused and names another:
    // `yam resign` ("play before the opening is complete"), `yam forfeit`
    // (which says `yam withdraw` takes the challenge back), `yam withdraw`
    // ("only your own challenge"), `yam decline` ("once a game has
    // started, `yam resign`").
    use yam_notation::{CommentPart, Node, RawGrammar, parse_record, record_to_string};
    use yam_referee::fair_play::encoding::List;
    use yam_referee::fair_play::sign::SigningKey;
    use yam_referee::fair_play::turn::Event;
    use yam_referee::signed::text::{EVENT_COMMAND, decode_event, event_command};
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let id = "siege-sybil";
    ann.yam(&[
        "challenge",
        &bo.address,
        "--id",
        id,
        "--game-type",
        "castle-siege",
        "--ruleset",
        "standard",
        "--seats",
        "first",
    ])
    .success();
    let said = bo.read();
    assert!(said.contains("my card is sent in answer"), "{said}");
    let said = ann.read();
    assert!(
        said.contains(&format!("the waiting challenge {id} is sent")),
        "{said}"
    );
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    // Ann's desk mailed an honest challenge; she keeps it from Bo and
    // signs the same challenge again, with X invited after him.
    let honest_mail = super::mail_files(&bo_inbox)
        .pop()
        .expect("the challenge mail");
    let honest = attached_record(&honest_mail);
    std::fs::remove_file(&honest_mail).unwrap();
    let ann_key = Cheater::from_secrets(&ann.dir().join("secrets"), "ann", id);
    let x = SigningKey::from_seed(&[7; 32]);
    let x_fingerprint = x.public_key().fingerprint().to_string();
    let mut record = parse_record::<RawGrammar>(&honest).unwrap();
    let mut replaced = false;
    for node in &mut record.movetext {
        let Node::Comment(c) = node else { continue };
        for part in &mut c.parts {
            let CommentPart::Command(cmd) = part else {
                continue;
            };
            if cmd.name != EVENT_COMMAND || replaced {
                continue;
            }
            let event = decode_event(&cmd.args).unwrap().event;
            let EventBody::Challenge(mut challenge) = event.body else {
                panic!("the first event is the challenge")
            };
            let mut invited: Vec<_> = challenge.invited.to_vec();
            invited.push(x.public_key());
            challenge.invited = List::new(invited).unwrap();
            let resigned = Event::challenge(event.game, ann_key.public_key(), challenge)
                .sign(&ann_key.key)
                .unwrap();
            cmd.args = event_command(&resigned).args;
            replaced = true;
        }
    }
    assert!(replaced, "the challenge event was found");
    let text = record_to_string::<RawGrammar>(&record);
    let sybil = bo_inbox.join("sybil.eml");
    std::fs::write(
        &sybil,
        attacker::mail(&ann.address, &bo.address, id, 0, &text),
    )
    .unwrap();
    let said = bo.read();
    let accepted = bo.yam(&["accept", id]);
    let accept_said = String::from_utf8_lossy(&accepted.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&accepted.get_output().stderr);
    let signed_in = accepted.get_output().status.success();
    assert!(
        said.contains(&x_fingerprint) || !signed_in,
        "Bo's desk took a challenge that invites a third key ({x_fingerprint}) beside him without naming it, and `yam accept` signed him into it.\nread: {said}\naccept: {accept_said}"
    );
}

/// Ann challenges Bo, whose desk writes `bos_identity`, typing his
/// address as `anns_typing`, another form of the same mailbox: Bo's card
/// in answer must bring out the challenge that waits for it.
/// docs/mail.md, "One normal form for an address": every comparison of
/// two addresses uses the normal form, and every name something is filed
/// under (a challenge waiting in `pending/`).
fn challenge_in_another_form(bos_identity: &str, anns_typing: &str) {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair_with(root.path(), bos_identity);
    challenge_rescue(&ann, anns_typing, "khan-1").success();
    let said = bo.read();
    assert!(
        said.contains("my card is sent in answer"),
        "Bo ({bos_identity}), challenged as {anns_typing:?}: {said}"
    );
    let said = ann.read();
    assert!(
        said.contains("the waiting challenge khan-1 is sent"),
        "Bo's card (he is {bos_identity:?}) did not bring out the challenge Ann typed as {anns_typing:?}:\n{said}"
    );
}

/// Real life: Bo's address is in an internationalized domain, and Ann
/// types it in the other form. A domain in Unicode (`bücher.example`) and
/// in its ASCII form (`xn--bcher-kva.example`, RFC 5890) are one domain to
/// DNS and to every mail server: a mail to either reaches Bo, and mail
/// programs write either (the address bar of a site, a mail program
/// without SMTPUTF8 and lettre's own refusal without it push a player to
/// the ASCII form). The normal form only trims and lower-cases, so Bo's
/// card, from his own address, names another address than the challenge
/// waits for: the challenge never goes, Bo is told nothing, Ann waits for
/// ever.
#[test]
fn a_challenge_to_the_other_form_of_an_international_domain_is_sent_when_its_card_comes() {
    challenge_in_another_form("bo@bücher.example", "bo@xn--bcher-kva.example");
    challenge_in_another_form("bo@xn--bcher-kva.example", "bo@bücher.example");
}

/// Real life: `ü` written as one code point (NFC) or as `u` and a
/// combining diaeresis (NFD: a text copied from a macOS file name, some
/// input methods) is one address to a person, and RFC 6532 (3.1) asks for
/// NFC. Ann copies Ümit's address in NFD; Ümit's desk writes NFC. The
/// normal form does not normalize: the card is refused as for another
/// address and the challenge never goes.
#[test]
fn a_challenge_to_an_address_typed_in_nfd_is_sent_when_its_nfc_card_comes() {
    challenge_in_another_form("ümit@example.net", "u\u{308}mit@example.net");
}

/// Real life: Nikos's address is `νικος.π@example.net` (a word-final
/// sigma, `ς`), and Ann copies it from his business card, in capitals:
/// `ΝΙΚΟΣ.Π@example.net`. docs/mail.md: the case of an address never
/// matters. But `to_lowercase` turns that `Σ`, followed by a dot and a
/// letter, into `σ`, not `ς`: the upper-case form of his address lowers
/// to another address than his own (Unicode case folding maps both
/// sigmas to one), and the challenge never goes.
#[test]
fn a_challenge_to_an_address_typed_in_greek_capitals_is_sent_when_its_card_comes() {
    challenge_in_another_form("νικος.π@example.net", "ΝΙΚΟΣ.Π@example.net");
}

/// Real life: Ann and Bo play under a referee robot whose address is not
/// ASCII (`schiri@bücher.example`, an internationalized domain; a local
/// part like `schiedsrichter-jürgen@...` alike). `yam challenge
/// --referee` takes the address (lettre reads it), and the desk names the
/// referee in `X-Yam-Referee`; lettre writes a header value that is not
/// ASCII as RFC 2047 encoded words (`=?utf-8?b?...?=`), and the mail
/// reader takes the header raw, undecoded (`extract::read_mail`,
/// `referee`), and drops it as holding no `@`. Bo's desk takes the
/// challenge as a game without referee, without a word: its mails are
/// never copied to the robot, and the robot, comparing the raw header
/// with its own address, never witnesses the game (`NotTaken::NotNamed`):
/// a robot at such an address cannot referee at all.
#[test]
fn a_challenge_refereed_by_a_robot_at_an_address_beyond_ascii_reaches_the_invited() {
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let mut args = vec![
        "challenge",
        "bo@example.net",
        "--id",
        "khan-1",
        "--referee",
        "schiri@bücher.example",
    ];
    args.extend_from_slice(&RESCUE_KHAN_FIRST);
    ann.yam(&args).success();
    let said = bo.read();
    assert!(said.contains("my card is sent in answer"), "{said}");
    let said = ann.read();
    assert!(
        said.contains("the waiting challenge khan-1 is sent"),
        "{said}"
    );
    let said = bo.read();
    assert!(
        said.contains("challenges you") && said.contains("refereed by schiri@bücher.example"),
        "Bo's desk did not take a challenge refereed by schiri@bücher.example:\n{said}"
    );
}

#[test]
fn a_challengers_header_cannot_put_escape_codes_on_the_invited_players_terminal() {
    // Ann's header is no part of what she signs: her challenge's seat
    // names and Variant are hers to write. Bo's desk keeps the challenge's
    // text as it came, and `yam games` and `yam board` print its tags.
    let root = tempfile::tempdir().unwrap();
    let (ann, bo) = pair(root.path());
    let Inbox::Files { dir: bo_inbox, .. } = bo.inbox.clone() else {
        unreachable!()
    };
    challenge_bo(&ann, "khan-1").success();
    bo.read();
    ann.read();
    let sent = super::mail_files(&bo_inbox).pop().expect("Ann's challenge");
    let raw = std::fs::read_to_string(&sent).unwrap();
    std::fs::remove_file(&sent).unwrap();
    let hostile = "Rescue Khan\x1b]0;you won\x07\x1b[2K\x1b[1G\u{202E}";
    let record = ann
        .record("khan-1")
        .replace(
            "[Variant \"Rescue Khan\"]",
            &format!("[Variant \"{hostile}\"]"),
        )
        .replace("[White \"?\"]", &format!("[White \"Ann{hostile}\"]"));
    assert!(
        record.contains(&format!("[Variant \"{hostile}\"]"))
            && record.contains(&format!("[White \"Ann{hostile}\"]")),
        "{}",
        ann.record("khan-1")
    );
    std::fs::write(&sent, compose_like(&raw, &record)).unwrap();
    let said = bo.read();
    assert!(said.contains("challenges you"), "{said}");
    for args in [&["games"][..], &["board", "khan-1"][..]] {
        let out = bo.yam(args).success();
        let shown = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(
            !shown.contains(['\x1b', '\x07', '\u{202E}']),
            "`yam {}` printed the challenger's control characters raw: {shown:?}",
            args.join(" ")
        );
    }
}
