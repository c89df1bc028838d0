//! One grammar of flags across `yam`'s commands (README, "Flags"): the
//! whole command tree, as clap builds it from the same definitions as
//! `--help`, the completions and the man pages, is walked, and a shared
//! flag must mean and be spelled the same everywhere. Every command's help
//! has an example, whole on an 80-column terminal. And the completions and
//! man pages are generated and tried.

use std::collections::BTreeMap;

use clap::builder::ValueParser;
use predicates::prelude::*;
use yam_tests::yam;

/// Every command of the tree with its path (`["yam", "hotseat", "new"]`),
/// built (global flags propagated), without clap's `help` subcommands.
fn commands() -> Vec<(Vec<String>, clap::Command)> {
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, clap::Command)>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut path = path.clone();
            path.push(sub.get_name().to_owned());
            walk(sub, path, out);
        }
        out.push((path, cmd.clone()));
    }
    let mut root = yam_cli::command();
    root.build();
    let mut out = Vec::new();
    walk(&root, vec!["yam".to_owned()], &mut out);
    assert!(out.len() > 40, "the tree is walked: {} commands", out.len());
    out
}

fn name(path: &[String]) -> String {
    path.join(" ")
}

fn long(cmd: &clap::Command, long: &str) -> Option<clap::Arg> {
    cmd.get_arguments()
        .find(|a| a.get_long() == Some(long))
        .cloned()
}

fn value_names(arg: &clap::Arg) -> Vec<String> {
    arg.get_value_names()
        .unwrap_or_default()
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Where `--game TYPE`, the old spelling of `--game-type`, is still
/// accepted (hidden, with a warning) for one release.
const OLD_GAME_KIND: &[&str] = &["yam generate", "yam challenge", "yam hotseat new"];

/// The commands that read archives: each takes `-q/--quiet` and
/// `-j/--jobs`.
const READ_ARCHIVES: &[&str] = &[
    "yam check",
    "yam verify",
    "yam export",
    "yam select",
    "yam fmt",
];

#[test]
fn a_shared_flag_means_the_same_everywhere() {
    let index = ValueParser::from(clap::value_parser!(usize)).type_id();
    let mut faults = Vec::new();
    // Each long flag's short letter, wherever it appears.
    let mut shorts: BTreeMap<String, BTreeMap<Option<char>, Vec<String>>> = BTreeMap::new();
    for (path, cmd) in commands() {
        let here = name(&path);
        for arg in cmd.get_arguments() {
            let Some(flag) = arg.get_long() else { continue };
            if !arg.is_hide_set() {
                shorts
                    .entry(flag.to_owned())
                    .or_default()
                    .entry(arg.get_short())
                    .or_default()
                    .push(here.clone());
            }
            match (flag, arg.is_hide_set()) {
                // `--game` is a game's number in a file, from 1.
                ("game", false) => {
                    if value_names(arg) != ["N"] || arg.get_value_parser().type_id() != index {
                        faults.push(format!(
                            "{here}: --game takes {:?}, not an index N",
                            value_names(arg)
                        ));
                    }
                }
                ("game", true) => {
                    if !OLD_GAME_KIND.contains(&here.as_str()) || long(&cmd, "game-type").is_none()
                    {
                        faults.push(format!(
                            "{here}: a hidden --game that is no old --game TYPE"
                        ));
                    }
                }
                ("game-type", _) => {
                    if value_names(arg) != ["TYPE"] {
                        faults.push(format!("{here}: --game-type takes {:?}", value_names(arg)));
                    }
                }
                ("eml", true) if here != "yam turn" => {
                    faults.push(format!("{here}: a hidden --eml"));
                }
                _ => {}
            }
            for (short, expected) in [('o', "out"), ('q', "quiet"), ('j', "jobs")] {
                let has_short = arg.get_short() == Some(short);
                if has_short != (flag == expected) {
                    faults.push(format!(
                        "{here}: --{flag} has {:?}; -{short} is always --{expected}",
                        arg.get_short()
                    ));
                }
            }
            if flag == "jobs" && value_names(arg) != ["N"] {
                faults.push(format!("{here}: --jobs takes {:?}", value_names(arg)));
            }
            if flag == "out" && long(&cmd, "force").is_none() {
                faults.push(format!("{here}: --out writes, but there is no --force"));
            }
        }
        if READ_ARCHIVES.contains(&here.as_str()) {
            for flag in ["quiet", "jobs"] {
                if long(&cmd, flag).is_none() {
                    faults.push(format!("{here} reads archives, but has no --{flag}"));
                }
            }
        }
    }
    for (flag, by_short) in &shorts {
        if by_short.len() > 1 {
            faults.push(format!("--{flag} is spelled differently: {by_short:?}"));
        }
    }
    for old in OLD_GAME_KIND {
        assert!(
            commands()
                .iter()
                .any(|(p, c)| name(p) == *old && long(c, "game").is_some_and(|a| a.is_hide_set())),
            "{old} still accepts the old --game TYPE"
        );
    }
    assert!(
        faults.is_empty(),
        "flags out of grammar:\n{}",
        faults.join("\n")
    );
}

#[test]
fn every_command_has_an_example_kept_whole_on_an_80_column_terminal() {
    let mut faults = Vec::new();
    for (path, cmd) in commands() {
        let here = name(&path);
        let Some(after) = cmd.get_after_long_help().or(cmd.get_after_help()) else {
            faults.push(format!("{here}: no example in its help"));
            continue;
        };
        let after = after.to_string();
        if !after.contains("Example") {
            faults.push(format!("{here}: no example in its help"));
        }
        let help = cmd.clone().term_width(80).render_long_help().to_string();
        let lines: Vec<&str> = help.lines().map(str::trim_end).collect();
        for line in after.lines().map(str::trim_end) {
            if !line.is_empty() && !lines.contains(&line) {
                faults.push(format!("{here}: wrapped at 80 columns: {line:?}"));
            }
        }
    }
    assert!(
        faults.is_empty(),
        "help without whole examples:\n{}",
        faults.join("\n")
    );
}

#[test]
fn generate_still_takes_the_old_game_kind_with_a_warning_but_no_number() {
    let new = yam!()
        .args([
            "generate",
            "--game-type",
            "khan",
            "--games",
            "2",
            "--seed",
            "3",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("deprecated").not());
    let old = yam!()
        .args(["generate", "--game", "khan", "--games", "2", "--seed", "3"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "`yam generate --game khan` is deprecated",
        ))
        .stderr(predicate::str::contains("--game-type khan"));
    assert_eq!(new.get_output().stdout, old.get_output().stdout);
    yam!()
        .args(["generate", "--game", "3"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--game-type TYPE"));
    yam!()
        .args(["generate", "--game", "khan", "--game-type", "khan"])
        .assert()
        .code(2);
    yam!().args(["generate"]).assert().code(2);
}

#[test]
fn generate_refuses_to_replace_a_file_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.yam");
    std::fs::write(&out, "mine").unwrap();
    let generate = |extra: &[&str]| {
        let mut cmd = yam!();
        cmd.args([
            "generate",
            "--game-type",
            "castle-siege",
            "--games",
            "1",
            "-o",
        ])
        .arg(&out)
        .args(extra);
        cmd.assert()
    };
    generate(&[])
        .code(2)
        .stderr(predicate::str::contains("use --force to replace it"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine");
    generate(&["--force"]).success();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("[Game \"Castle Siege\"]"), "{text}");
    yam!().arg("check").arg(&out).assert().success();
}

#[test]
fn completions_for_every_shell_and_bash_completes_a_command() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        yam!()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(
                predicate::str::contains("generate").and(predicate::str::contains("--game-type")),
            );
    }
    yam!().args(["completions", "tcsh"]).assert().code(2);
    // As a shell completes `yam ch<TAB>`: the function clap generates is
    // `_yam`, called with the command, the word and the word before it.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("yam.bash");
    let out = yam!().args(["completions", "bash"]).output().unwrap();
    std::fs::write(&script, out.stdout).unwrap();
    let completed = std::process::Command::new("bash")
        .arg("-c")
        .arg(
            "source \"$1\"; COMP_WORDS=(yam ch); COMP_CWORD=1; _yam yam ch yam; \
             echo \"${COMPREPLY[@]}\"",
        )
        .arg("bash")
        .arg(&script)
        .output()
        .expect("bash runs");
    assert!(completed.status.success(), "{completed:?}");
    assert_eq!(
        String::from_utf8_lossy(&completed.stdout).trim(),
        "check challenge"
    );
}

#[test]
fn man_pages_for_every_command_and_no_silent_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let man = dir.path().join("man");
    yam!().args(["man", "--out"]).arg(&man).assert().success();
    for (path, cmd) in commands() {
        if cmd.is_hide_set() {
            continue;
        }
        let page = man.join(format!("{}.1", path.join("-")));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{page:?}: {e}"));
        assert!(text.starts_with(".ie \\n(.g .ds Aq"), "{page:?} is roff");
        assert!(text.contains(".SH NAME"), "{page:?}");
    }
    let check = std::fs::read_to_string(man.join("yam-check.1")).unwrap();
    assert!(check.contains("Examples"), "the examples are in the page");
    yam!()
        .args(["man", "-o"])
        .arg(&man)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    yam!()
        .args(["man", "-o"])
        .arg(&man)
        .arg("--force")
        .assert()
        .success();
}

#[test]
fn export_quiet_prints_only_the_summary_as_check_quiet_does() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("a.yam");
    let games = yam!()
        .args(["generate", "--game-type", "khan", "--games", "2"])
        .output()
        .unwrap()
        .stdout;
    let mut text = String::from_utf8(games).unwrap();
    text.push_str("\n[Game \"Khan\"]\n[Result \"*\"]\n\n1. {unclosed *\n");
    std::fs::write(&archive, text).unwrap();
    let loud = yam!()
        .args(["export", "--plain"])
        .arg(&archive)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let quiet = yam!()
        .args(["export", "--plain", "-q"])
        .arg(&archive)
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(loud.stdout, quiet.stdout, "the same games exported");
    let loud = String::from_utf8(loud.stderr).unwrap();
    let quiet = String::from_utf8(quiet.stderr).unwrap();
    assert!(loud.contains("game 3 skipped"), "{loud}");
    assert_eq!(
        quiet.trim(),
        "a.yam: 2 games exported, 1 skipped".replace("a.yam", &archive.display().to_string())
    );
}

#[test]
fn hotseat_new_takes_the_game_type_and_the_old_game_kind_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join("secrets");
    let new = |args: &[&str], out: &str| {
        let mut cmd = yam!();
        cmd.args(["hotseat", "new"])
            .args(args)
            .args(["--first", "ann", "--second", "bo", "-o"])
            .arg(dir.path().join(out))
            .arg("--secrets")
            .arg(&secrets);
        cmd.assert()
    };
    new(
        &["--game-type", "castle-siege", "--ruleset", "standard"],
        "a.yam",
    )
    .success()
    .stderr(predicate::str::contains("deprecated").not());
    new(
        &["--game", "castle-siege", "--ruleset", "standard"],
        "b.yam",
    )
    .success()
    .stderr(predicate::str::contains("--game-type castle-siege"));
    new(&["--game", "2", "--ruleset", "standard"], "c.yam").code(2);
    assert!(!dir.path().join("c.yam").exists());
    // Khan by default; -o refuses an existing file as --out always did.
    new(&["--ruleset", "basic"], "d.yam").success();
    new(&["--ruleset", "basic"], "d.yam")
        .code(2)
        .stderr(predicate::str::contains("--force"));
    for (file, game) in [
        ("a.yam", "Castle Siege"),
        ("b.yam", "Castle Siege"),
        ("d.yam", "Khan"),
    ] {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(
            text.contains(&format!("[Game \"{game}\"]")),
            "{file}: {text}"
        );
    }
}
