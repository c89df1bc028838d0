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

/// Adversary: real life, a user who edits config.yaml by hand. `yam config
/// check` is there to "say what is wrong, before a turn depends on it";
/// an identity address mistyped (`ann at example.org`, a space for the
/// `@`) was reported as a configuration with every account ok (exit 0),
/// and the first mail the desk made was then refused ("My address "ann
/// at example.org": Invalid input", naming no file). The check must say
/// the address is wrong, and fail.
#[test]
fn config_check_says_an_identity_address_no_mail_can_carry() {
    let dir = tempfile::tempdir().unwrap();
    let data = player(dir.path(), "Ann", "ann at example.org");
    yam!()
        .args(["identity", "send", "bo@example.net", "--data-dir"])
        .arg(&data)
        .assert()
        .failure()
        .stderr(predicate::str::contains("ann at example.org"));
    let out = yam!()
        .args(["config", "check", "--data-dir"])
        .arg(&data)
        .env_remove("YAM_CONFIG")
        .assert();
    let output = out.get_output();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_ne!(
        output.status.code(),
        Some(0),
        "config check passed an address no mail can carry:\n{said}"
    );
    assert!(said.contains("address"), "{said}");
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

/// Ann's desk under `root`, having read Bo's card (and answered it with
/// hers, a mail in her outgoing directory).
fn ann_knowing_bo(root: &std::path::Path) -> std::path::PathBuf {
    let ann = player(root, "Ann", "ann@example.org");
    let bo = player(root, "Bo", "bo@example.net");
    let bo_card = card_mail(&bo, "ann@example.org");
    yam!()
        .args(["read", "--eml"])
        .arg(&bo_card)
        .arg("--data-dir")
        .arg(&ann)
        .assert()
        .success();
    ann
}

/// `yam read --watch` on the desk `dir`, looking every second and
/// stopping after `seconds`: the process, and its output once it has said
/// it watches.
fn watching(
    dir: &std::path::Path,
    seconds: u32,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStdout>,
) {
    use std::io::BufRead;
    let mut watcher = std::process::Command::new(env!("CARGO_BIN_EXE_yam-e2e"))
        .args(["read", "--watch", "--every", "1", "--stop-after"])
        .arg(seconds.to_string())
        .arg("--data-dir")
        .arg(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut said = std::io::BufReader::new(watcher.stdout.take().unwrap());
    let mut first = String::new();
    said.read_line(&mut first).unwrap();
    assert!(first.starts_with("watching"), "{first}");
    (watcher, said)
}

/// `yam read --watch` in a second terminal (docs/mail.md's quick start)
/// while the first one reads a card: the watcher kept the contacts it read
/// at its start and wrote them back whole with the next card it read, so
/// the contact the other command had remembered meanwhile was gone (her
/// key forgotten: her next card, under any key, is a new contact).
#[test]
fn a_watching_desk_keeps_the_contact_another_command_remembered_meanwhile() {
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
    // Its output is kept open (read or not) for as long as it runs.
    let (mut watcher, _said) = watching(&ann, 60);
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
    let ann = ann_knowing_bo(root.path());
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

/// Adversary: real life, a nightly backup. A player keeps her backup
/// beside her desk (`cd ~/.local/share/yam; yam identity export -o
/// backup.yaml --force`, from cron). The export walks the whole data
/// directory, so each bundle carries the one before it, in base64: a third
/// larger every night (465, 1,144, 2,052, 3,260 bytes for an empty desk;
/// a desk of 1 MB of games makes a bundle of 300 MB after twenty nights),
/// and the import writes every old bundle back onto the new machine. A
/// bundle is never part of the desk: the one being written, and any
/// earlier one, must be left out.
#[test]
fn a_desk_bundle_written_into_the_data_directory_does_not_carry_the_one_before() {
    let root = tempfile::tempdir().unwrap();
    let ann = ann_knowing_bo(root.path());
    let bundle = ann.join("backup.yaml");
    let mut sizes = Vec::new();
    for _ in 0..3 {
        yam!()
            .args(["identity", "export", "--force", "--out"])
            .arg(&bundle)
            .arg("--data-dir")
            .arg(&ann)
            .assert()
            .success();
        sizes.push(std::fs::metadata(&bundle).unwrap().len());
    }
    let text = std::fs::read_to_string(&bundle).unwrap();
    assert!(
        !text.contains("path: backup.yaml"),
        "the bundle carries the bundle before it (sizes {sizes:?})"
    );
    assert_eq!(sizes[0], sizes[2], "the bundle grows at every export");
}

/// A referee robot's configuration under `root` (`root/robot.yaml`): its
/// store at `data`, a local Maildir `root/in` to read and a directory
/// `root/robot-out` to write its mail into, both made.
fn local_robot_config(root: &std::path::Path, data: &std::path::Path) -> std::path::PathBuf {
    for sub in ["in/new", "in/cur", "in/tmp", "robot-out"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    let path = root.join("robot.yaml");
    std::fs::write(
        &path,
        format!(
            "robot:\n  address: robot@yam.test\ndata: {}\noutgoing:\n  directory:\n    path: {}\nincoming:\n  maildir:\n    path: {}\n",
            data.display(),
            root.join("robot-out").display(),
            root.join("in").display()
        ),
    )
    .unwrap();
    path
}

/// A desk and a robot default to the same data directory (`$YAM_DATA_DIR`,
/// else `~/.local/share/yam`). A robot started on a player's machine
/// without `data:` took the desk's directory for its store: it made the
/// desk's files its own, removed the temporary files of the desk's writes
/// under way, and the two read each other's games. Each now refuses the
/// other's directory, naming what shows whose it is, and changes nothing.
#[test]
fn a_robot_and_a_desk_never_share_a_data_directory() {
    let root = tempfile::tempdir().unwrap();
    let ann = ann_knowing_bo(root.path());
    let robot_config = |data: &std::path::Path| local_robot_config(root.path(), data);
    let listing = |dir: &std::path::Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = listing(&ann);
    yam!()
        .args(["robot", "run", "--once", "--config"])
        .arg(robot_config(&ann))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a player's desk (contacts.yaml)"));
    assert_eq!(
        listing(&ann),
        before,
        "the robot changed nothing of the desk"
    );
    // The robot on a store of its own; then a desk pointed at that store.
    let store = root.path().join("robot-data");
    yam!()
        .args(["robot", "run", "--once", "--config"])
        .arg(robot_config(&store))
        .assert()
        .success();
    assert!(store.join("robot").is_dir());
    yam!()
        .args(["games", "--config"])
        .arg(ann.join("config.yaml"))
        .arg("--data-dir")
        .arg(&store)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a referee robot's store"));
}

/// Adversary: real life, the same default as above. On a server where a
/// referee robot runs without `data:` (its store is the default data
/// directory), its operator moves her own desk there with `yam identity
/// import desk.yaml`, which writes into the same default directory. Every
/// desk command refuses a robot's store, and the robot refuses a desk's,
/// "each saying why and changing nothing" (docs/mail.md); but the import
/// asks nothing: it wrote the desk's configuration and signing key into
/// the robot's store, said "restored", and the robot went on running on a
/// store holding the player's key and games, while her desk was nowhere.
/// The import must refuse a robot's store, naming it, and write nothing.
#[test]
fn a_desk_bundle_is_not_imported_into_a_robots_store() {
    let root = tempfile::tempdir().unwrap();
    let ann = ann_knowing_bo(root.path());
    let bundle = root.path().join("ann-desk.yaml");
    yam!()
        .args(["identity", "export", "--out"])
        .arg(&bundle)
        .arg("--data-dir")
        .arg(&ann)
        .assert()
        .success();
    let store = root.path().join("robot-data");
    let robot_config = local_robot_config(root.path(), &store);
    yam!()
        .args(["robot", "run", "--once", "--config"])
        .arg(&robot_config)
        .assert()
        .success();
    assert!(store.join("robot").is_dir());
    let said = yam!()
        .args(["identity", "import"])
        .arg(&bundle)
        .arg("--data-dir")
        .arg(&store)
        .assert();
    let output = said.get_output();
    assert!(
        !store.join("config.yaml").exists() && !store.join("secrets/identities/ann.seed").exists(),
        "the desk's configuration and signing key were written into the robot's store (exit {:?}): {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("robot"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Adversary: real life, a configuration written with an editor that
/// starts the file with a byte order mark (Windows Notepad, some web
/// editors). Every desk command reads such a `config.yaml` (the YAML
/// reader skips the mark), but the robot's test of "a desk's
/// `config.yaml` with its `identity:`" looks for a line that starts with
/// `identity:`, and the first line starts with U+FEFF: a robot started
/// without `data:` on a desk that has not read mail yet took the desk's
/// directory for its store, drew its key among the desk's secrets and
/// made `robot/`, after which every desk command refuses the directory as
/// a robot's store. The robot must refuse the desk's directory and change
/// nothing.
#[test]
fn a_robot_refuses_a_desk_whose_configuration_starts_with_a_byte_order_mark() {
    let root = tempfile::tempdir().unwrap();
    let ann = root.path().join("ann");
    std::fs::create_dir_all(&ann).unwrap();
    std::fs::write(
        ann.join("config.yaml"),
        "\u{feff}identity:\n  name: Ann\n  address: ann@example.org\n  key: ann\n",
    )
    .unwrap();
    // The desk reads it, and makes its key.
    yam!()
        .args(["identity", "show", "--data-dir"])
        .arg(&ann)
        .env_remove("YAM_CONFIG")
        .assert()
        .success()
        .stdout(predicate::str::contains("Ann <ann@example.org>"));
    let robot_config = local_robot_config(root.path(), &ann);
    let out = yam!()
        .args(["robot", "run", "--once", "--config"])
        .arg(&robot_config)
        .assert();
    let output = out.get_output();
    assert!(
        !ann.join("robot").exists(),
        "the robot took the desk's directory for its store (exit {:?})",
        output.status.code()
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("a player's desk"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Adversary: real life, a user who edits config.yaml by hand and pastes a
/// second `outgoing:` section at the end (meaning to replace the first).
/// The configuration is refused, rightly, but the error says
/// "config.yaml:1:1: duplicate field `outgoing`": the line and column
/// name the start of the file, not the key written twice, where every
/// other fault of the file is named at its own line (docs/mail.md: "an
/// error names the line and column"). It must point at the second key.
#[test]
fn a_key_written_twice_in_the_configuration_is_named_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    desk(dir.path());
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    std::fs::write(
        dir.path().join("config.yaml"),
        "identity:\n  name: Ann\n  address: ann@example.org\n  key: ann\noutgoing:\n  directory:\n    path: out\nincoming:\n  maildir:\n    path: Maildir\noutgoing:\n  sendmail:\n    program: /usr/sbin/sendmail\n",
    )
    .unwrap();
    let out = yam!()
        .args(["config", "check", "--data-dir"])
        .arg(dir.path())
        .env_remove("YAM_CONFIG")
        .assert()
        .code(2);
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(said.contains("duplicate field `outgoing`"), "{said}");
    assert!(said.contains("config.yaml:11:"), "{said}");
}

/// The `.eml` files in `dir`'s outbox.
fn outbox(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut mails: Vec<_> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    mails.sort();
    mails
}

/// Attacker tester: contacts are written under their lock and read again
/// for each change, but a watching desk still decides with the list it
/// read at its start. Ann forgets Bo's key in her first terminal (`yam
/// identity forget`: "when they really have a new one", say his old key
/// was stolen) while `yam read --watch` runs in the second; a challenge
/// signed with the forgotten key then lands in her Maildir, and the
/// watcher takes it as from a known contact ("Bo challenges you") and
/// stores the game, where any other command refuses it (no card from
/// that address is kept).
#[test]
fn a_watching_desk_does_not_trust_a_key_another_command_forgot_meanwhile() {
    use std::io::BufRead;
    let root = tempfile::tempdir().unwrap();
    let ann = player(root.path(), "Ann", "ann@example.org");
    let bo = player(root.path(), "Bo", "bo@example.net");
    let ann_card = card_mail(&ann, "bo@example.net");
    let bo_card = card_mail(&bo, "ann@example.org");
    for (desk, card) in [(&bo, &ann_card), (&ann, &bo_card)] {
        yam!()
            .args(["read", "--eml"])
            .arg(card)
            .arg("--data-dir")
            .arg(desk)
            .assert()
            .success();
    }
    let (mut watcher, mut said) = watching(&ann, 20);
    // The first terminal forgets Bo.
    yam!()
        .args(["identity", "forget", "bo@example.net", "--data-dir"])
        .arg(&ann)
        .assert()
        .success();
    // Bo's challenge, signed with the key Ann forgot, lands in her Maildir.
    let before = outbox(&bo);
    yam!()
        .args([
            "challenge",
            "ann@example.org",
            "--id",
            "khan-1",
            "--game-type",
            "khan",
            "--ruleset",
            "basic",
            "--seats",
            "first",
            "--data-dir",
        ])
        .arg(&bo)
        .assert()
        .success();
    let challenge: Vec<_> = outbox(&bo)
        .into_iter()
        .filter(|m| !before.contains(m))
        .collect();
    assert_eq!(
        challenge.len(),
        1,
        "setup: one challenge mail {challenge:?}"
    );
    std::fs::copy(&challenge[0], ann.join("Maildir/new/challenge.eml")).unwrap();
    // What the watcher says of it (it stops by itself after 20 s).
    let mut verdict = String::new();
    let mut line = String::new();
    while said.read_line(&mut line).unwrap() > 0 {
        if line.contains("khan-1") || line.contains("bo@example.net") {
            verdict.push_str(&line);
        }
        line.clear();
    }
    watcher.wait().unwrap();
    assert!(
        !verdict.contains("challenges you"),
        "the watcher took a challenge signed with a key forgotten meanwhile: {verdict}"
    );
    let games = yam!()
        .args(["games", "--data-dir"])
        .arg(&ann)
        .assert()
        .success();
    let listed = String::from_utf8_lossy(&games.get_output().stdout).into_owned();
    assert!(
        !listed.contains("khan-1"),
        "a game was stored from a forgotten contact's challenge:\n{listed}"
    );
}

/// One robot per store, from its first step: the store's lock was taken
/// only after the robot had drawn its key, so a second robot started
/// beside the first on a new store wrote into it before it learnt another
/// robot runs (two started together: one failed on a file the other had
/// just made). With the lock held, a robot now writes nothing and says so.
#[test]
fn a_second_robot_writes_nothing_in_a_store_another_robot_holds() {
    let root = tempfile::tempdir().unwrap();
    for sub in ["in/new", "in/cur", "in/tmp", "out"] {
        std::fs::create_dir_all(root.path().join(sub)).unwrap();
    }
    let data = root.path().join("data");
    let config = root.path().join("robot.yaml");
    std::fs::write(
        &config,
        format!(
            "robot:\n  address: robot@yam.test\ndata: {}\noutgoing:\n  directory:\n    path: {}\nincoming:\n  maildir:\n    path: {}\n",
            data.display(),
            root.path().join("out").display(),
            root.path().join("in").display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(data.join("robot")).unwrap();
    let lock = std::fs::File::create(data.join("robot/robot.lock")).unwrap();
    lock.lock().unwrap();
    yam!()
        .args(["robot", "run", "--once", "--config"])
        .arg(&config)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("another robot runs on this store"));
    assert!(
        !data.join("secrets").exists(),
        "the second robot drew a key in a store it does not hold"
    );
    drop(lock);
    yam!()
        .args(["robot", "run", "--once", "--config"])
        .arg(&config)
        .assert()
        .success();
    assert!(data.join("secrets").exists());
}

/// Real life: `yam identity show | head -1`, or any listing piped into a
/// reader that stops early. The commands that printed with `println!`
/// panicked with a backtrace once the reader had gone ("failed printing
/// to stdout: Broken pipe"), exit 101: what the reader did not read is no
/// fault of the command's.
#[test]
fn a_reader_that_stops_early_is_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    let data = player(dir.path(), "Ann", "ann@example.org");
    // A pipe whose reader has gone before the command writes.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_yam-e2e"))
        .args(["identity", "show", "--data-dir"])
        .arg(&data)
        .env_remove("YAM_CONFIG")
        .stdout(writer)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!said.contains("panicked"), "{said}");
    assert_ne!(out.status.code(), Some(101), "{said}");
}
