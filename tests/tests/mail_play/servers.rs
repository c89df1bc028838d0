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
        &["--game", "castle-siege", "--ruleset", "standard"],
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

#[test]
fn rescue_khan_by_mail_through_real_smtp_and_imap() {
    let (ann, bo) = pair();
    open_game(
        &ann,
        &bo,
        "khan-mail",
        &[
            "--game",
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
            "--game",
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
