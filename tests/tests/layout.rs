//! The `yam` crate's rooms (`docs/architecture.md`): a command never
//! imports another command, and nothing below the commands (a shared
//! service) imports a command. Every path that names a module of the crate
//! (`crate::...`, `super::...`, `self::...`) in every source file of
//! `cli/src` is resolved to the module it reaches, and checked.

use std::path::{Path, PathBuf};

/// The module path of a source file: `cli/src/commands/robot/decide/witness.rs`
/// is `commands::robot::decide::witness`; `mod.rs` and `lib.rs` name their
/// directory.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).expect("under cli/src");
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_owned());
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every crate-relative module path a file names, resolved to absolute
/// segments (after `crate`), with the line it is on. Inside a `use` group
/// (`use crate::{a::b, c}`) each member is a path of its own.
fn named_paths(text: &str, module: &[String]) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (line_no, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for start in ["crate::", "super::", "self::"] {
            let mut from = 0;
            while let Some(found) = code[from..].find(start) {
                let at = from + found;
                from = at + start.len();
                // A word boundary before the path.
                if at > 0 {
                    let before = code.as_bytes()[at - 1];
                    if before.is_ascii_alphanumeric() || before == b'_' || before == b':' {
                        continue;
                    }
                }
                let rest: String = code[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let segments: Vec<&str> = rest.split("::").filter(|s| !s.is_empty()).collect();
                let mut path: Vec<String> = match segments.first() {
                    Some(&"crate") => Vec::new(),
                    Some(&"self") => module.to_vec(),
                    Some(&"super") => module.to_vec(),
                    _ => continue,
                };
                let mut rest_segments = segments.iter().skip(1).peekable();
                if segments.first() == Some(&"super") {
                    path.pop();
                    while rest_segments.peek() == Some(&&"super") {
                        rest_segments.next();
                        path.pop();
                    }
                }
                path.extend(rest_segments.map(|s| (*s).to_owned()));
                out.push((line_no + 1, path));
            }
        }
    }
    out
}

#[test]
fn commands_never_import_each_other_and_services_never_import_a_command() {
    let src = yam_tests::workspace().join("cli/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 30, "the crate's files are found");
    let mut faults = Vec::new();
    let mut checked = 0;
    for file in &files {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).expect("a source file");
        let room = match module.as_slice() {
            [first, room, ..] if first == "commands" => Some(room.clone()),
            _ => None,
        };
        for (line, path) in named_paths(&text, &module) {
            checked += 1;
            let reaches = match path.as_slice() {
                [first, other, ..] if first == "commands" => Some(other.clone()),
                _ => None,
            };
            let Some(other) = reaches else { continue };
            let allowed = match (&room, module.as_slice()) {
                // The crate root dispatches to every command.
                (None, []) => true,
                (Some(room), _) => *room == other,
                // `commands/mod.rs` declares the rooms.
                (None, [only]) if only == "commands" => true,
                (None, _) => false,
            };
            if !allowed {
                faults.push(format!(
                    "{}:{line}: {} reaches the command `{other}`",
                    file.strip_prefix(&src).unwrap().display(),
                    match &room {
                        Some(room) => format!("the command `{room}`"),
                        None => format!("the service `{}`", module.join("::")),
                    }
                ));
            }
        }
    }
    assert!(checked > 100, "module paths were read ({checked})");
    assert!(faults.is_empty(), "rooms broken:\n{}", faults.join("\n"));
}

#[test]
fn the_rule_catches_a_command_that_imports_another() {
    let module = vec![
        "commands".to_owned(),
        "robot".to_owned(),
        "decide".to_owned(),
    ];
    let paths = named_paths(
        "use crate::commands::play::incoming::adoption;\nuse super::super::play::x;\nuse super::auth; // crate::commands::show in a comment\n",
        &module,
    );
    let rooms: Vec<String> = paths.iter().map(|(_, p)| p.join("::")).collect();
    assert_eq!(
        rooms,
        [
            "commands::play::incoming::adoption",
            "commands::play::x",
            "commands::robot::auth"
        ]
    );
}
