//! Whole games through the real SMTP (aiosmtpd, with AUTH) and IMAP
//! (Dovecot) servers `scripts/test.sh` starts: Ann reads by IMAP, Bo from
//! the Maildir the SMTP server delivers into.

use predicates::prelude::*;
use yam_tests::yam;

use super::{
    Inbox, Player, all_files, assert_no_secret, main_line, open_game, play_out, secrets_of,
};

use yam_tests::{fresh_user, mail_env as var};

/// Ann on IMAP, Bo on the Maildir; both send by SMTP with AUTH.
fn pair() -> (Player, Player) {
    let dir = var("YAM_MAILTEST_DIR");
    let smtp = format!(
        "outgoing:\n  smtp:\n    host: 127.0.0.1\n    port: {}\n    security: none\n    user: {}\n    password: {}\n",
        var("YAM_MAILTEST_SMTP_PORT"),
        var("YAM_MAILTEST_SMTP_USER"),
        var("YAM_MAILTEST_SMTP_PASSWORD"),
    );
    let ann_user = fresh_user("ann");
    let bo_user = fresh_user("bo");
    let ann = Player::new(
        "Ann",
        &format!("{ann_user}@example.org"),
        Inbox::Imap,
        &format!(
            "{smtp}incoming:\n  imap:\n    host: 127.0.0.1\n    port: {}\n    tls: false\n    user: {ann_user}\n    password: {}\n",
            var("YAM_MAILTEST_IMAP_PORT"),
            var("YAM_MAILTEST_IMAP_PASSWORD"),
        ),
    );
    let bo = Player::new(
        "Bo",
        &format!("{bo_user}@example.net"),
        Inbox::Maildir,
        &format!("{smtp}incoming:\n  maildir:\n    path: {dir}/home/{bo_user}/Maildir\n"),
    );
    (ann, bo)
}

fn verify(record: &str) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), record).unwrap();
    yam!()
        .args(["verify", file.path().to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("verified (peer mode)"));
}

#[test]
fn castle_siege_by_mail_through_real_smtp_and_imap() {
    let (ann, bo) = pair();
    open_game(
        &ann,
        &bo,
        "siege-mail",
        &["--game-type", "castle-siege", "--ruleset", "standard"],
    );
    play_out(&ann, &bo, "siege-mail", |turn| {
        vec![
            "--auto".into(),
            "eager".into(),
            "--seed".into(),
            (turn + 7).to_string(),
        ]
    });
    let record = ann.record("siege-mail");
    assert_eq!(record, bo.record("siege-mail"));
    assert!(
        record.contains("[%chance"),
        "the dice went through the exchange"
    );
    verify(&record);

    // Every mail either player sent, as the server stored it, holds no
    // secret of either: no signing seed, no chain seed, no unrevealed
    // chain value, in raw bytes, hex or base64, in any part.
    let mut secrets = secrets_of(&ann, "siege-mail", "ann");
    secrets.extend(secrets_of(&bo, "siege-mail", "bo"));
    let home = std::path::PathBuf::from(var("YAM_MAILTEST_DIR")).join("home");
    let mails: Vec<_> = [&ann, &bo]
        .iter()
        .flat_map(|p| {
            all_files(
                &home
                    .join(p.address.split('@').next().unwrap())
                    .join("Maildir"),
            )
        })
        .filter(|f| {
            !f.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("dovecot")
        })
        .filter(|f| f.parent().unwrap().file_name().unwrap() != "tmp")
        .collect();
    assert!(mails.len() > 20, "{} mails", mails.len());
    for mail in &mails {
        assert_no_secret(
            &std::fs::read(mail).unwrap(),
            &secrets,
            &mail.display().to_string(),
        );
    }
}

/// CS-P4 through the real servers: under `standard-faithful` each order is
/// its own roll request, answered by the other desk as it reads its mail.
/// Thirty orders (several faithful turns) keep the test quick; both desks
/// hold the same record, which verifies, and no mail carries a secret.
#[test]
fn a_faithful_castle_siege_by_mail_through_real_smtp_and_imap() {
    let (ann, bo) = pair();
    let id = "siege-faithful-mail";
    open_game(
        &ann,
        &bo,
        id,
        &[
            "--game-type",
            "castle-siege",
            "--ruleset",
            "standard-faithful",
        ],
    );
    let mut moves = 0;
    for _ in 0..300 {
        if moves >= 30 {
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
        moves += 1;
        mover
            .yam(&["move", id, "--auto", "eager", "--seed", &moves.to_string()])
            .success();
        other.read();
        mover.read();
    }
    assert_eq!(moves, 30, "the game went on");
    // The last turn's mails arrive.
    for _ in 0..3 {
        ann.read();
        bo.read();
    }
    let record = ann.record(id);
    assert_eq!(record, bo.record(id), "both desks hold the same record");
    assert!(record.contains("[Ruleset \"standard-faithful\"]"));
    assert!(record.contains("Move@"), "the allowance went on its own");
    verify(&record);
    let mut secrets = secrets_of(&ann, id, "ann");
    secrets.extend(secrets_of(&bo, id, "bo"));
    let home = std::path::PathBuf::from(var("YAM_MAILTEST_DIR")).join("home");
    for p in [&ann, &bo] {
        let maildir = home
            .join(p.address.split('@').next().unwrap())
            .join("Maildir");
        for mail in all_files(&maildir) {
            let name = mail.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("dovecot") || mail.parent().unwrap().file_name().unwrap() == "tmp" {
                continue;
            }
            assert_no_secret(
                &std::fs::read(&mail).unwrap(),
                &secrets,
                &mail.display().to_string(),
            );
        }
    }
}

#[test]
fn rescue_khan_by_mail_through_real_smtp_and_imap() {
    let (ann, bo) = pair();
    open_game(
        &ann,
        &bo,
        "khan-mail",
        &[
            "--game-type",
            "khan",
            "--ruleset",
            "rescue-khan",
            "--seats",
            "first",
        ],
    );
    // A helpmate: five plies after which, by the referee's rules, White
    // has checkmated (found by a depth-first search over the referee's own
    // move generator). A short line keeps the test quick; the longer
    // example games are checked by `yam check` and `yam verify`.
    let line: Vec<String> = ["Ad1-c1", "Fb8-c6", "We1-c2", "Wa6-b7", "Wc2-d4"]
        .map(String::from)
        .to_vec();
    let mut next = line.iter();
    play_out(&ann, &bo, "khan-mail", |_| {
        vec![next.next().unwrap().clone()]
    });
    let record = ann.record("khan-mail");
    assert_eq!(record, bo.record("khan-mail"));
    assert_eq!(main_line(&record), line);
    assert!(record.contains("[Result \"1-0\"]"), "{record}");
    verify(&record);
    // A second read finds nothing new: the desk remembers what it read
    // (IMAP: it lists only the UIDs after the last it handled).
    assert_eq!(ann.read().trim(), "nothing new");
    assert_eq!(bo.read().trim(), "nothing new");
}

#[test]
fn a_watching_desk_wakes_on_imap_idle_and_reads_the_new_turn() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let (ann, bo) = pair();
    open_game(
        &ann,
        &bo,
        "khan-watch",
        &[
            "--game-type",
            "khan",
            "--ruleset",
            "rescue-khan",
            "--seats",
            "first",
        ],
    );
    ann.yam(&["move", "khan-watch", "Ad1-c1"]).success();
    assert!(bo.read().contains("1 new event(s) from Ann"));
    // Ann watches, looking by herself only every ten minutes: only the
    // server's IDLE announcement can wake her within the test.
    let watcher = Command::new(yam_tests::yam_bin!())
        .args(["read", "--watch", "--every", "600", "--stop-after", "15"])
        .arg("--data-dir")
        .arg(ann.dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    bo.yam(&["move", "khan-watch", "Fb8-c6"]).success();
    let moved = Instant::now();
    while ann.status("khan-watch") != "YOU" && moved.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let woke = moved.elapsed();
    let out = watcher.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("watching INBOX"), "{said}");
    assert!(said.contains("1 new event(s) from Bo"), "{said}");
    assert!(
        woke < Duration::from_secs(10),
        "woken after {woke:?}: {said}"
    );
    assert!(out.status.success(), "{said}");
}

/// A personal mail, as a friend would send it.
fn personal(to: &str, subject: &str) -> String {
    format!(
        "From: Cy <cy@example.com>\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{subject}.{}@example.com>\r\nDate: Tue, 01 Dec 2026 10:00:00 +0000\r\n\r\nSee you at ten.\r\n",
        subject.len()
    )
}

#[test]
fn a_shared_inbox_keeps_personal_mail_as_it_was_and_reads_opened_turns() {
    use yam_cli::mail::imap::{ImapAccount, fetch_unseen, mark_seen};
    let (ann, bo) = pair();
    let dir = std::path::PathBuf::from(var("YAM_MAILTEST_DIR"));
    let user = |p: &Player| p.address.split('@').next().unwrap().to_owned();
    let maildir = |p: &Player| dir.join("home").join(user(p)).join("Maildir");
    open_game(
        &ann,
        &bo,
        "khan-shared",
        &[
            "--game-type",
            "khan",
            "--ruleset",
            "rescue-khan",
            "--seats",
            "first",
        ],
    );
    // Personal mail in both inboxes, unread.
    for (p, name) in [(&ann, "meeting"), (&bo, "lunch")] {
        let new = maildir(p).join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(
            new.join(format!("1700000000.{name}.host")),
            personal(&p.address, name),
        )
        .unwrap();
    }
    let ann_account = ImapAccount {
        host: "127.0.0.1".into(),
        port: var("YAM_MAILTEST_IMAP_PORT").parse().unwrap(),
        tls: false,
        user: user(&ann),
        password: var("YAM_MAILTEST_IMAP_PASSWORD"),
        mailbox: "INBOX".into(),
    };
    let is_personal = |raw: &[u8]| String::from_utf8_lossy(raw).contains("From: Cy");
    assert!(
        fetch_unseen(&ann_account)
            .unwrap()
            .iter()
            .any(|m| is_personal(&m.raw)),
        "the personal mail arrived unread"
    );

    // Ann moves; Bo's mail client opens the turn mail first (Maildir: the
    // file moves to cur/ with the Seen flag), then Yam reads.
    ann.yam(&["move", "khan-shared", "Ad1-c1"]).success();
    let bo_new = maildir(&bo).join("new");
    for entry in std::fs::read_dir(&bo_new).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("X-Yam-Game") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            std::fs::rename(&path, maildir(&bo).join("cur").join(format!("{name}:2,S"))).unwrap();
        }
    }
    let said = bo.read();
    assert!(said.contains("1 new event(s) from Ann"), "{said}");
    assert!(
        bo_new.join("1700000000.lunch.host").is_file(),
        "Bo's personal mail is still new and unflagged"
    );

    // Bo moves; Ann's client opens the turn mail (IMAP \Seen), then Yam
    // reads it all the same; her personal mail stays unread.
    bo.yam(&["move", "khan-shared", "Fb8-c6"]).success();
    let turn = fetch_unseen(&ann_account)
        .unwrap()
        .into_iter()
        .find(|m| String::from_utf8_lossy(&m.raw).contains("X-Yam-Game"))
        .expect("Bo's turn mail");
    mark_seen(&ann_account, &[turn.uid]).unwrap();
    let said = ann.read();
    assert!(said.contains("1 new event(s) from Bo"), "{said}");
    let unread = fetch_unseen(&ann_account).unwrap();
    assert!(
        unread.iter().any(|m| is_personal(&m.raw)),
        "Ann's personal mail is still unread"
    );
    assert!(
        unread.iter().all(|m| is_personal(&m.raw)),
        "only the personal mail is unread"
    );
    // Nothing new on a second look, in either inbox.
    assert_eq!(ann.read().trim(), "nothing new");
    assert_eq!(bo.read().trim(), "nothing new");
}

#[test]
fn yams_own_mails_are_filed_into_a_folder_when_asked() {
    use yam_cli::mail::imap::{ImapAccount, fetch_unseen};
    let (ann, bo) = pair();
    let dir = std::path::PathBuf::from(var("YAM_MAILTEST_DIR"));
    let user = |p: &Player| p.address.split('@').next().unwrap().to_owned();
    let maildir = |p: &Player| dir.join("home").join(user(p)).join("Maildir");
    // Ann files into the IMAP folder "Yam"; Bo into the Maildir ".Yam".
    let add = |p: &Player, line: &str| {
        let config = p.dir().join("config.yaml");
        let text = std::fs::read_to_string(&config).unwrap();
        std::fs::write(&config, format!("{text}{line}")).unwrap();
    };
    add(&ann, "    file_into: Yam\n");
    let bo_folder = maildir(&bo).join(".Yam");
    add(&bo, &format!("    file_into: {}\n", bo_folder.display()));
    for (p, name) in [(&ann, "meeting"), (&bo, "lunch")] {
        let new = maildir(p).join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(
            new.join(format!("1700000000.{name}.host")),
            personal(&p.address, name),
        )
        .unwrap();
    }
    open_game(
        &ann,
        &bo,
        "khan-filed",
        &[
            "--game-type",
            "khan",
            "--ruleset",
            "rescue-khan",
            "--seats",
            "first",
        ],
    );
    ann.yam(&["move", "khan-filed", "Ad1-c1"]).success();
    assert!(bo.read().contains("1 new event(s) from Ann"));
    bo.yam(&["move", "khan-filed", "Fb8-c6"]).success();
    assert!(ann.read().contains("1 new event(s) from Bo"));
    // Ann's INBOX holds only her personal mail, unread; Yam's are in Yam.
    let account = |mailbox: &str| ImapAccount {
        host: "127.0.0.1".into(),
        port: var("YAM_MAILTEST_IMAP_PORT").parse().unwrap(),
        tls: false,
        user: user(&ann),
        password: var("YAM_MAILTEST_IMAP_PASSWORD"),
        mailbox: mailbox.into(),
    };
    let inbox = fetch_unseen(&account("INBOX")).unwrap();
    assert_eq!(inbox.len(), 1, "only the personal mail is left, unread");
    assert!(String::from_utf8_lossy(&inbox[0].raw).contains("From: Cy"));
    assert_eq!(
        yam_cli::mail::imap::check(&account("INBOX")).unwrap(),
        1,
        "the INBOX holds one mail"
    );
    assert!(yam_cli::mail::imap::check(&account("Yam")).unwrap() >= 3);
    assert!(
        fetch_unseen(&account("Yam")).unwrap().is_empty(),
        "filed as read"
    );
    // Bo's Maildir: the personal mail untouched in new/, Yam's in .Yam/cur.
    let names = |d: std::path::PathBuf| -> Vec<String> {
        std::fs::read_dir(d)
            .map(|e| {
                e.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        names(maildir(&bo).join("new")),
        vec!["1700000000.lunch.host"]
    );
    assert!(names(maildir(&bo).join("cur")).is_empty());
    let filed = names(bo_folder.join("cur"));
    assert!(filed.len() >= 3, "{filed:?}");
    assert!(filed.iter().all(|n| n.ends_with(":2,S")), "{filed:?}");
    assert_eq!(ann.read().trim(), "nothing new");
    assert_eq!(bo.read().trim(), "nothing new");
}
