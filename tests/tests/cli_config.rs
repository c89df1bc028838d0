//! `yam config check` finds the configuration where every mail command
//! does: `--config`, else `$YAM_CONFIG`, else `config.yaml` in the data
//! directory (`--data-dir`, else `$YAM_DATA_DIR`, ...).

use predicates::prelude::*;
use yam_tests::yam;

fn desk(dir: &std::path::Path) {
    let maildir = dir.join("Maildir");
    assert!(!std::path::Path::new("Maildir").exists());
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    std::fs::write(
        dir.join("config.yaml"),
        // A path relative to the configuration file, not to where yam runs.
        "identity:\n  name: Ann\n  address: ann@example.org\n  key: ann\nincoming:\n  maildir:\n    path: Maildir\n",
    )
    .unwrap();
}

#[test]
fn config_check_reads_the_data_directory_like_every_mail_command() {
    let dir = tempfile::tempdir().unwrap();
    desk(dir.path());
    // By --data-dir.
    yam!()
        .args(["config", "check", "--data-dir"])
        .arg(dir.path())
        .env_remove("YAM_CONFIG")
        .assert()
        .code(1) // no outgoing account
        .stdout(
            predicate::str::contains("identity Ann <ann@example.org>")
                .and(predicate::str::contains("ok      incoming: Maildir"))
                .and(predicate::str::contains("FAILED  outgoing")),
        );
    // By $YAM_DATA_DIR, as `yam games` reads it.
    yam!()
        .args(["config", "check"])
        .env("YAM_DATA_DIR", dir.path())
        .env_remove("YAM_CONFIG")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("identity Ann <ann@example.org>"));
    yam!()
        .args(["games"])
        .env("YAM_DATA_DIR", dir.path())
        .env_remove("YAM_CONFIG")
        .assert()
        .success();
    // Nothing there: said, with where it looked.
    let empty = tempfile::tempdir().unwrap();
    yam!()
        .args(["config", "check", "--data-dir"])
        .arg(empty.path())
        .env_remove("YAM_CONFIG")
        .env("XDG_CONFIG_HOME", empty.path().join("none"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("config.yaml"));
}

/// A desk `name` under `root` with a Maildir and an outbox: its data
/// directory.
fn player(root: &std::path::Path, name: &str, address: &str) -> std::path::PathBuf {
    let dir = root.join(name.to_ascii_lowercase());
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(dir.join("Maildir").join(sub)).unwrap();
    }
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(
        dir.join("config.yaml"),
        format!(
            "identity: {{ name: {name}, address: {address}, key: {key} }}\noutgoing: {{ directory: {{ path: out }} }}\nincoming: {{ maildir: {{ path: Maildir }} }}\n",
            key = name.to_ascii_lowercase()
        ),
    )
    .unwrap();
    dir
}

/// The card mail `from` sends to `to`: the one file it writes into its
/// outbox.
fn card_mail(from: &std::path::Path, to: &str) -> std::path::PathBuf {
    yam!()
        .args(["identity", "send", to, "--data-dir"])
        .arg(from)
        .assert()
        .success();
    let mut mails: Vec<_> = std::fs::read_dir(from.join("out"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    assert_eq!(mails.len(), 1, "{mails:?}");
    mails.pop().unwrap()
}

/// `yam read --watch` in a second terminal (docs/mail.md's quick start)
/// while the first one reads a card: the watcher kept the contacts it read
/// at its start and wrote them back whole with the next card it read, so
/// the contact the other command had remembered meanwhile was gone (her
/// key forgotten: her next card, under any key, is a new contact).
#[test]
fn a_watching_desk_keeps_the_contact_another_command_remembered_meanwhile() {
    use std::io::BufRead;
    let root = tempfile::tempdir().unwrap();
    let ann = player(root.path(), "Ann", "ann@example.org");
    let bo = player(root.path(), "Bo", "bo@example.net");
    let cy = player(root.path(), "Cy", "cy@example.com");
    let bo_card = card_mail(&bo, "ann@example.org");
    let cy_card = card_mail(&cy, "ann@example.org");
    // Ann's key is drawn before the watcher starts.
    yam!()
        .args(["identity", "show", "--data-dir"])
        .arg(&ann)
        .assert()
        .success();
    let mut watcher = std::process::Command::new(env!("CARGO_BIN_EXE_yam-e2e"))
        .args([
            "read",
            "--watch",
            "--every",
            "1",
            "--stop-after",
            "60",
            "--data-dir",
        ])
        .arg(&ann)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut said = std::io::BufReader::new(watcher.stdout.take().unwrap());
    let mut first = String::new();
    said.read_line(&mut first).unwrap();
    assert!(first.starts_with("watching"), "{first}");
    // The first terminal reads Bo's card from a file.
    yam!()
        .args(["read", "--eml"])
        .arg(&bo_card)
        .arg("--data-dir")
        .arg(&ann)
        .assert()
        .success()
        .stdout(predicate::str::contains("new contact Bo"));
    // Cy's card lands in the Maildir the watcher reads.
    std::fs::copy(&cy_card, ann.join("Maildir/new/cy-card.eml")).unwrap();
    let contacts = ann.join("contacts.yaml");
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&contacts).is_ok_and(|t| t.contains("cy@example.com")) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(50),
            "the watcher never read Cy's card"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    watcher.kill().unwrap();
    watcher.wait().unwrap();
    let known = std::fs::read_to_string(&contacts).unwrap();
    assert!(
        known.contains("bo@example.net"),
        "Bo, remembered by the other command, is still a contact:\n{known}"
    );
    yam!()
        .args(["identity", "contacts", "--data-dir"])
        .arg(&ann)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("bo@example.net")
                .and(predicate::str::contains("cy@example.com")),
        );
}

/// The quick start's desk keeps its Maildir and its outgoing directory
/// inside the data directory. `yam identity export` walked the whole data
/// directory, so the bundle of secrets carried every mail of the inbox, a
/// player's personal mail with it (and a mailbox of gigabytes made a
/// bundle of gigabytes). The configured mailboxes are mail, not the desk:
/// left out, and said so; the desk itself moves whole.
#[test]
fn a_desk_bundle_leaves_the_configured_mailboxes_out() {
    let root = tempfile::tempdir().unwrap();
    let ann = player(root.path(), "Ann", "ann@example.org");
    let bo = player(root.path(), "Bo", "bo@example.net");
    let bo_card = card_mail(&bo, "ann@example.org");
    yam!()
        .args(["read", "--eml"])
        .arg(&bo_card)
        .arg("--data-dir")
        .arg(&ann)
        .assert()
        .success();
    std::fs::write(
        ann.join("Maildir/new/1.personal"),
        "From: Mum <mum@example.org>\r\nSubject: dinner\r\n\r\nSunday at noon, my secret recipe.\r\n",
    )
    .unwrap();
    // Reading Bo's card answered it with Ann's: a mail in her outgoing
    // directory.
    assert!(std::fs::read_dir(ann.join("out")).unwrap().next().is_some());
    let bundle = root.path().join("ann-desk.yaml");
    let said = yam!()
        .args(["identity", "export", "--out"])
        .arg(&bundle)
        .arg("--data-dir")
        .arg(&ann)
        .assert()
        .success();
    let said = String::from_utf8_lossy(&said.get_output().stdout).into_owned();
    assert!(
        said.contains("left out: Maildir") && said.contains("left out: out"),
        "{said}"
    );
    let text = std::fs::read_to_string(&bundle).unwrap();
    assert!(
        !text.contains("Maildir/") && !text.contains("out/"),
        "the bundle carries the mailboxes:\n{text}"
    );
    assert!(text.contains("contacts.yaml") && text.contains("config.yaml"));
    // The new machine gets the desk whole: its key and its contacts.
    let new = root.path().join("new");
    yam!()
        .args(["identity", "import"])
        .arg(&bundle)
        .arg("--data-dir")
        .arg(&new)
        .assert()
        .success();
    let show = |dir: &std::path::Path| {
        let out = yam!()
            .args(["identity", "show", "--data-dir"])
            .arg(dir)
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    assert_eq!(show(&new), show(&ann));
    assert!(
        std::fs::read_to_string(new.join("contacts.yaml"))
            .unwrap()
            .contains("bo@example.net")
    );
}
