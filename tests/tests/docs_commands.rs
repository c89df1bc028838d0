//! The docs stay true: every ```sh block of README.md and docs/*.md runs
//! as written and succeeds, in a scratch directory holding a copy of
//! `examples/`, with `yam` (and `target/release/yam`) the binary under
//! test and `cargo build --release` / `cargo run --release -- ARGS`
//! standing for it. A block that cannot run offline says why on the line
//! before its fence: `<!-- not run: REASON -->` (a mail account, a
//! benchmark, a tool the machine need not have).

use std::path::{Path, PathBuf};
use std::process::Command;

use yam_tests::workspace;

/// One block: where it is, and its text.
struct Block {
    file: PathBuf,
    line: usize,
    text: String,
    not_run: Option<String>,
}

fn blocks_of(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() == "```sh" {
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && !lines[end].starts_with("```") {
                end += 1;
            }
            let not_run = (i > 0)
                .then(|| lines[i - 1].trim())
                .and_then(|l| l.strip_prefix("<!-- not run: "))
                .map(|l| l.trim_end_matches("-->").trim().to_owned());
            blocks.push(Block {
                file: file.to_path_buf(),
                line: i + 1,
                text: lines[start..end].join("\n"),
                not_run,
            });
            i = end;
        }
        i += 1;
    }
    blocks
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn every_offline_command_block_of_the_docs_runs_as_written() {
    let root = workspace();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    // The tests' build of the `yam` command line (the same `yam_cli::main`).
    let yam = PathBuf::from(env!("CARGO_BIN_EXE_yam-e2e"));
    let mut ran = 0;
    let mut failures = Vec::new();
    for block in files.iter().flat_map(|f| blocks_of(f)) {
        let at = format!(
            "{}:{}",
            block
                .file
                .strip_prefix(root)
                .unwrap_or(&block.file)
                .display(),
            block.line
        );
        if let Some(why) = &block.not_run {
            assert!(!why.is_empty(), "{at}: say why the block is not run");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&root.join("examples"), &dir.path().join("examples"));
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(dir.path().join("target/release")).unwrap();
        std::os::unix::fs::symlink(&yam, bin.join("yam")).unwrap();
        std::os::unix::fs::symlink(&yam, dir.path().join("target/release/yam")).unwrap();
        // `cargo build --release` has been done; `cargo run --release --`
        // is the binary; anything else is not for this test.
        std::fs::write(
            bin.join("cargo"),
            format!(
                "#!/bin/sh\ncase \"$1 $2\" in\n  'build --release') exit 0 ;;\n  'run --release') shift 2; [ \"$1\" = -- ] && shift; exec {} \"$@\" ;;\nesac\necho \"docs test: cargo $* is not run here\" >&2; exit 99\n",
                yam.display()
            ),
        )
        .unwrap();
        let mut perms = std::fs::metadata(bin.join("cargo")).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(bin.join("cargo"), perms).unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("set -eo pipefail\n{}", block.text))
            .current_dir(dir.path())
            .env("PATH", path)
            .env("HOME", dir.path())
            .env_remove("YAM_DATA_DIR")
            .output()
            .unwrap();
        ran += 1;
        if !out.status.success() {
            failures.push(format!(
                "{at}: exit {:?}\n{}\n--- stderr:\n{}",
                out.status.code(),
                block.text,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} blocks failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(ran >= 8, "only {ran} blocks ran");
}

/// A scratch directory as the test above makes one for each block: a copy
/// of `examples/`, `yam` on the `PATH` and as `target/release/yam`, and
/// `cargo build --release` / `cargo run --release --` standing for it.
fn scratch() -> (tempfile::TempDir, String) {
    let root = workspace();
    let yam = PathBuf::from(env!("CARGO_BIN_EXE_yam-e2e"));
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root.join("examples"), &dir.path().join("examples"));
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(dir.path().join("target/release")).unwrap();
    std::os::unix::fs::symlink(&yam, bin.join("yam")).unwrap();
    std::os::unix::fs::symlink(&yam, dir.path().join("target/release/yam")).unwrap();
    std::fs::write(
        bin.join("cargo"),
        format!(
            "#!/bin/sh\ncase \"$1 $2\" in\n  'build --release') exit 0 ;;\n  'run --release') shift 2; [ \"$1\" = -- ] && shift; exec {} \"$@\" ;;\nesac\necho \"docs test: cargo $* is not run here\" >&2; exit 99\n",
            yam.display()
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(bin.join("cargo")).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(bin.join("cargo"), perms).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (dir, path)
}

fn run_in(dir: &Path, path: &str, script: &str) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("set -eo pipefail\n{script}"))
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", dir)
        .env_remove("YAM_DATA_DIR")
        .output()
        .unwrap()
}

/// A new user follows the README's tour from the top, in one directory, as
/// it is written: one block after the other. The test above runs each
/// block in a fresh directory, so it never sees a block trip over a file
/// an earlier block made (the tour's `generate ... -o siege.yam` and, later,
/// `hotseat new ... --out siege.yam`, which refuses to overwrite: exit 2).
#[test]
fn the_readme_tour_runs_in_order_in_one_directory() {
    let root = workspace();
    let (dir, path) = scratch();
    let mut failures = Vec::new();
    for block in blocks_of(&root.join("README.md")) {
        if block.not_run.is_some() {
            continue;
        }
        let out = run_in(dir.path(), &path, &block.text);
        if !out.status.success() {
            failures.push(format!(
                "README.md:{}: exit {:?}\n{}\n--- stderr:\n{}",
                block.line,
                out.status.code(),
                block.text,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "the README's tour, run in order in one directory, fails:\n\n{}",
        failures.join("\n\n")
    );
}

/// A block the test does not run is still run by a reader, as written, in
/// order (a benchmark's reproduction). `yam` refuses to overwrite an
/// output without `--force` (README, "Flags": exit 2), so a block whose
/// `yam ... -o FILE` names a file an earlier line of the same block wrote
/// stops there under `set -e`, or, without it, measures the earlier file.
#[test]
fn no_doc_block_has_yam_overwrite_without_force_a_file_it_wrote_before() {
    let root = workspace();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut faults = Vec::new();
    for block in files.iter().flat_map(|f| blocks_of(f)) {
        // Each output file of the block, with the block's line that wrote it.
        let mut written: Vec<(String, usize)> = Vec::new();
        for (i, line) in block.text.lines().enumerate() {
            let code = line.split(" #").next().unwrap_or("").trim();
            if code.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = code.split_whitespace().collect();
            let at = block.line + 1 + i;
            if words.iter().any(|w| *w == "yam" || w.ends_with("/yam")) {
                for pair in words.windows(2) {
                    if pair[0] == "-o" || pair[0] == "--out" {
                        let file = pair[1].to_owned();
                        if let Some((_, first)) = written.iter().find(|(f, _)| *f == file) {
                            if !words.contains(&"--force") {
                                faults.push(format!(
                                    "{}:{at}: `{code}` writes {file}, which line {first} of the same block wrote: refused without --force",
                                    block.file.strip_prefix(root).unwrap_or(&block.file).display()
                                ));
                            }
                        } else {
                            written.push((file, at));
                        }
                    }
                }
            }
            for pair in words.windows(2) {
                if pair[0] == ">" && !written.iter().any(|(f, _)| f == pair[1]) {
                    written.push((pair[1].to_owned(), at));
                }
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The README's tour: "Change `Ae7-f6` into `Ae7-f4` and check again: Yam
/// names the file, line and column ..." and quotes what it prints. The
/// quoted place must be the one `yam check` names.
#[test]
fn the_readme_diagnostic_of_the_changed_move_names_the_place_check_names() {
    let root = workspace();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let quoted = readme
        .lines()
        .find_map(|l| {
            l.trim_start()
                .strip_prefix("× examples/khan/opening-lesson.yam:")
        })
        .expect("the README quotes the diagnostic");
    let place = quoted.split(": ").next().unwrap();
    let (dir, path) = scratch();
    let out = run_in(
        dir.path(),
        &path,
        "sed -i 's/Ae7-f6/Ae7-f4/' examples/khan/opening-lesson.yam\n\
         target/release/yam check examples/khan/opening-lesson.yam || test $? = 1",
    );
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("illegal: Ae7-f4: the black archer on e7 cannot reach f4"),
        "{stderr}"
    );
    let named = format!("examples/khan/opening-lesson.yam:{place}:");
    assert!(
        stderr.contains(&named),
        "the README says `yam check` names {named} ; it prints:\n{stderr}"
    );
}
