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
