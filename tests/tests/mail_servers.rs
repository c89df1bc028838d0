//! Turn mails through real servers: sent by SMTP (aiosmtpd, with AUTH) and
//! read back by IMAP (Dovecot) and straight from the Maildir the SMTP
//! server delivered into. `scripts/test.sh` starts both servers on loopback
//! and says where through the `YAM_MAILTEST_*` variables.

use yam_tests::fresh_user;

use yam_cli::mail::compose::{TurnMail, compose};
use yam_cli::mail::extract::{Turn, read_mail};
use yam_cli::mail::imap::{ImapAccount, fetch_unseen, mark_seen};
use yam_cli::mail::maildir::read_maildir;
use yam_cli::mail::transport::{Outgoing, Security, send};

use yam_tests::mail_servers as servers;

#[test]
fn a_turn_mail_travels_through_smtp_and_comes_back_by_imap_and_maildir() {
    let s = servers();
    let bo = fresh_user("bo");
    let players = vec!["Ann".to_owned(), "Bo".to_owned()];
    let record = "[Game \"Khan\"]\n\n1. Ng3-f3 {é ✓} *\n".repeat(50);
    let turn = b"1. Ng3-f3 {[%event AAAA BBBB]}".to_vec();
    let mail = TurnMail {
        from: "Ann <ann@example.org>".parse().unwrap(),
        to: vec![format!("Bo <{bo}@example.net>").parse().unwrap()],
        game_name: "Khan",
        game_id: "g-mail-1",
        ply: 1,
        players: &players,
        body: "Your move, Bo.\n\n(board here)",
        turn: &turn,
        record: record.as_bytes(),
        message_id: format!("yam.g-mail-1.1.{bo}@example.org"),
        thread: &[],
        automatic: yam_cli::mail::compose::Automatic::No,
        referee: None,
        card: None,
        reminder: None,
        picture: None,
    };
    let outgoing = Outgoing::Smtp {
        host: "127.0.0.1".into(),
        port: s.smtp_port,
        security: Security::None,
        auth: Some((s.smtp_user.clone(), s.smtp_password.clone())),
    };
    send(&outgoing, &compose(&mail).unwrap()).unwrap();

    let expected = vec![
        Turn::Attachment {
            name: "g-mail-1.yam".into(),
            bytes: record.clone().into_bytes(),
        },
        Turn::Block(yam_cli::mail::armor::Block {
            game: "g-mail-1".into(),
            ply: 1,
            payload: turn.clone(),
        }),
    ];

    // Straight from the Maildir the SMTP server delivered into.
    let maildir = std::path::Path::new(&s.dir)
        .join("home")
        .join(&bo)
        .join("Maildir");
    let local = read_maildir(&maildir).unwrap();
    assert_eq!(local.len(), 1);
    assert_eq!(read_mail(&local[0].raw).unwrap().turns, expected);

    // And over IMAP.
    let account = ImapAccount {
        host: "127.0.0.1".into(),
        port: s.imap_port,
        tls: false,
        user: bo.clone(),
        password: s.imap_password.clone(),
        mailbox: "INBOX".into(),
    };
    let fetched = fetch_unseen(&account).unwrap();
    assert_eq!(fetched.len(), 1);
    let incoming = read_mail(&fetched[0].raw).unwrap();
    assert_eq!(incoming.turns, expected);
    assert_eq!(incoming.from.as_deref(), Some("ann@example.org"));
    // Fetching did not mark it seen; marking does.
    assert_eq!(fetch_unseen(&account).unwrap().len(), 1);
    mark_seen(&account, &[fetched[0].uid]).unwrap();
    assert!(fetch_unseen(&account).unwrap().is_empty());
}

#[test]
fn smtp_without_the_right_password_is_refused() {
    let s = servers();
    let players = vec!["Ann".to_owned(), "Bo".to_owned()];
    let mail = TurnMail {
        from: "ann@example.org".parse().unwrap(),
        to: vec!["bo@example.net".parse().unwrap()],
        game_name: "Khan",
        game_id: "g",
        ply: 1,
        players: &players,
        body: "",
        turn: b"x",
        record: b"x",
        message_id: "yam.g.1@example.org".into(),
        thread: &[],
        automatic: yam_cli::mail::compose::Automatic::No,
        referee: None,
        card: None,
        reminder: None,
        picture: None,
    };
    let outgoing = Outgoing::Smtp {
        host: "127.0.0.1".into(),
        port: s.smtp_port,
        security: Security::None,
        auth: Some((s.smtp_user, "wrong".into())),
    };
    let err = send(&outgoing, &compose(&mail).unwrap()).unwrap_err();
    assert!(
        err.to_string().contains("535") || err.to_string().to_lowercase().contains("auth"),
        "{err}"
    );
}

#[test]
fn imap_with_a_wrong_password_is_refused() {
    let s = servers();
    let account = ImapAccount {
        host: "127.0.0.1".into(),
        port: s.imap_port,
        tls: false,
        user: fresh_user("x"),
        password: "wrong".into(),
        mailbox: "INBOX".into(),
    };
    assert!(fetch_unseen(&account).is_err());
}

#[test]
fn config_check_tries_each_account_against_the_real_servers() {
    use predicates::prelude::*;
    let s = servers();
    let dir = tempfile::tempdir().unwrap();
    let user = fresh_user("cfg");
    let good = format!(
        "identity:\n  name: Ann\n  address: ann@example.org\n  key: ann\n\
         outgoing:\n  smtp:\n    host: 127.0.0.1\n    port: {}\n    security: none\n    user: {}\n    password: {}\n\
         incoming:\n  imap:\n    host: 127.0.0.1\n    port: {}\n    tls: false\n    user: {user}\n    password_command: echo {}\n",
        s.smtp_port, s.smtp_user, s.smtp_password, s.imap_port, s.imap_password
    );
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, &good).unwrap();
    yam_tests::yam!()
        .args(["config", "check", "--config"])
        .arg(&path)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("ok      outgoing")
                .and(predicate::str::contains("ok      incoming")),
        );

    let bad = good.replace(&format!("password: {}", s.smtp_password), "password: wrong");
    std::fs::write(&path, bad).unwrap();
    yam_tests::yam!()
        .args(["config", "check", "--config"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("FAILED  outgoing")
                .and(predicate::str::contains("ok      incoming")),
        );

    std::fs::write(&path, good.replace("security: none", "security: maybe")).unwrap();
    yam_tests::yam!()
        .args(["config", "check", "--config"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("config.yaml:9:"));
}
