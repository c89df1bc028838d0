//! The quick start of `docs/mail.md` ("Try it first: two desks on one
//! machine"), run exactly as written: its `sh` block, in an empty
//! directory, with `yam` on the PATH. Then a watching desk on the same
//! Maildirs reads the next turn as it lands.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The first `sh` block after the quick start's heading.
fn quick_start() -> String {
    let doc = std::fs::read_to_string(yam_tests::workspace().join("docs/mail.md")).unwrap();
    let at = doc
        .find("## Try it first: two desks on one machine")
        .expect("the quick start's heading");
    let rest = &doc[at..];
    let start = rest.find("```sh\n").expect("its sh block") + "```sh\n".len();
    let end = start + rest[start..].find("\n```").expect("the block's end");
    rest[start..=end].to_owned()
}

/// A directory holding `yam`, the binary under test.
fn bin_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(yam_tests::yam_bin!(), dir.path().join("yam")).unwrap();
    dir
}

fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

#[test]
fn the_quick_start_runs_as_written() {
    let script = quick_start();
    let bin = bin_dir();
    let work = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg("-e")
        .arg("-c")
        .arg(&script)
        .current_dir(work.path())
        .env("PATH", path_with(bin.path()))
        .env_remove("YAM_DATA_DIR")
        .env_remove("YAM_CONFIG")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let errors = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}\n{errors}");
    for step in [
        "my card is sent to them",
        "new contact Ann <ann@example.org>",
        "my card is sent in answer",
        "the waiting challenge try-1 is sent",
        "challenges you: game try-1",
        "Bo accepted the challenge",
        "Ann played Ad1-c1, with an unsigned comment: \u{201c}Let us begin.\u{201d}",
        "last move: Ann played Ad1-c1",
        "legal now",
        "YOU   try-1",
    ] {
        assert!(
            said.contains(step),
            "{step:?} missing from:\n{said}\n{errors}"
        );
    }

    // Ann watches her Maildir (a look every second); Bo moves; the
    // watcher reads it without being asked again.
    let watcher = Command::new(yam_tests::yam_bin!())
        .args(["read", "--watch", "--every", "1", "--stop-after", "10"])
        .args(["--data-dir", "ann"])
        .current_dir(work.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let moved = Command::new(yam_tests::yam_bin!())
        .args(["move", "try-1", "Fb8-c6", "--data-dir", "bo"])
        .current_dir(work.path())
        .output()
        .unwrap();
    assert!(moved.status.success(), "{moved:?}");
    let since = Instant::now();
    let games = || {
        let out = Command::new(yam_tests::yam_bin!())
            .args(["games", "--data-dir", "ann"])
            .current_dir(work.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    while !games().starts_with("YOU") && since.elapsed() < Duration::from_secs(8) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let woke = since.elapsed();
    let out = watcher.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("watching "), "{said}");
    assert!(said.contains("Bo played Fb8-c6"), "{said}");
    assert!(woke < Duration::from_secs(8), "read after {woke:?}: {said}");
    assert!(out.status.success(), "{said}");
}
