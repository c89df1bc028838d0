//! `yam select` (every criterion, duplicates) and `yam fmt` (canonical,
//! idempotent, evidence kept: signed records verify after).

use std::path::{Path, PathBuf};

use yam_tests::{workspace, yam};

/// Run yam; stdout, stderr and the exit code.
fn run(args: &[&str]) -> (String, String, i32) {
    let out = yam!().args(args).output().expect("yam runs");
    (
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
        out.status.code().unwrap_or(-1),
    )
}

/// The GameIds of an archive's text, in order.
fn ids(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("[GameId \""))
        .map(|l| l.trim_end_matches("\"]").to_owned())
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Twelve generated games of each type, in one archive.
fn mixed(dir: &Path) -> PathBuf {
    let mut all = String::new();
    for game in ["khan", "castle-siege", "genghis-khan"] {
        let (text, stderr, code) = run(&[
            "generate",
            "--game-type",
            game,
            "--games",
            "12",
            "--seed",
            "3",
            "--max-plies",
            "60",
        ]);
        assert_eq!(code, 0, "{stderr}");
        all.push_str(&text);
        all.push('\n');
    }
    write(dir, "mixed.yam", &all)
}

#[test]
fn each_criterion_selects_what_it_says() {
    let dir = tempfile::tempdir().unwrap();
    let archive = mixed(dir.path());
    let archive = archive.to_str().unwrap();
    let all = std::fs::read_to_string(archive).unwrap();
    let select = |criteria: &[&str]| {
        let mut args = vec!["select"];
        args.extend_from_slice(criteria);
        args.push(archive);
        let (text, stderr, code) = run(&args);
        assert_eq!(code, 0, "{criteria:?}: {stderr}");
        text
    };
    // By game type: every game of the type and no other.
    let siege = select(&["--game-type", "castle-siege"]);
    assert_eq!(ids(&siege).len(), 12);
    assert!(ids(&siege).iter().all(|id| id.starts_with("gen-siege")));
    // The selection is a valid archive, its games exactly as written.
    let path = write(dir.path(), "siege.yam", &siege);
    let (summary, stderr, code) = run(&["check", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(summary.contains("12 games, 12 valid"), "{summary}");
    for game in siege.split("\n\n") {
        assert!(all.contains(game.trim()), "copied exactly: {game}");
    }
    // By ruleset, player (any case, part of a name), result, tag, length.
    assert_eq!(
        ids(&select(&[
            "--ruleset",
            "STANDARD",
            "--game-type",
            "genghis-khan"
        ]))
        .len(),
        12
    );
    let first_player = all
        .lines()
        .find_map(|l| l.strip_prefix("[White \""))
        .unwrap()
        .trim_end_matches("\"]")
        .to_owned();
    let part = first_player[1..4].to_uppercase();
    let by_player = select(&["--player", &part]);
    assert!(!ids(&by_player).is_empty());
    assert!(by_player.to_uppercase().contains(&part));
    let results: Vec<&str> = all
        .lines()
        .filter_map(|l| l.strip_prefix("[Result \""))
        .map(|l| l.trim_end_matches("\"]"))
        .collect();
    let wins = results.iter().filter(|r| **r == "1-0").count();
    assert_eq!(ids(&select(&["--result", "1-0"])).len(), wins);
    let id = ids(&all)[5].clone();
    assert_eq!(ids(&select(&["--tag", &format!("GameId={id}")])), vec![id]);
    let short = select(&["--max-plies", "20"]);
    let long = select(&["--min-plies", "21"]);
    assert_eq!(ids(&short).len() + ids(&long).len(), 36);
    // By date: the generated games are all dated 2026.01.01.
    assert_eq!(
        ids(&select(&["--since", "2026.01.01", "--until", "2026.01.01"])).len(),
        36
    );
    assert!(ids(&select(&["--since", "2026.01.02"])).is_empty());
    // A criterion that makes no sense is a usage error.
    let (_, stderr, code) = run(&["select", "--since", "yesterday", archive]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("expected a date YYYY.MM.DD"), "{stderr}");
}

#[test]
fn status_selects_by_verdict_and_the_selection_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let signed = workspace().join("examples/khan/signed");
    let lesson =
        std::fs::read_to_string(workspace().join("examples/khan/opening-lesson.yam")).unwrap();
    let illegal = write(
        dir.path(),
        "illegal.yam",
        &lesson.replacen("\n1. Ng3-f3", "\n1. Ng3-g8", 1),
    );
    let (verified, stderr, code) =
        run(&["select", "--status", "verified", signed.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let out = write(dir.path(), "verified.yam", &verified);
    let (summary, stderr, code) = run(&["verify", "-q", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(summary.contains("0 failed"), "{summary}");
    let (bad, _, _) = run(&["select", "--status", "invalid", illegal.to_str().unwrap()]);
    assert_eq!(ids(&bad), ["example-khan-opening-lesson"]);
    let (good, _, _) = run(&["select", "--status", "valid", illegal.to_str().unwrap()]);
    assert!(ids(&good).is_empty());
}

#[test]
fn duplicates_by_id_and_by_moves() {
    let dir = tempfile::tempdir().unwrap();
    let lesson =
        std::fs::read_to_string(workspace().join("examples/khan/opening-lesson.yam")).unwrap();
    // The same game again, and the same moves under another id.
    let renamed = lesson.replace("example-khan-opening-lesson", "another-id");
    let archive = write(
        dir.path(),
        "dup.yam",
        &format!("{lesson}\n{lesson}\n{renamed}"),
    );
    let archive = archive.to_str().unwrap();
    let (unique, _, code) = run(&["select", "--unique", archive]);
    assert_eq!(code, 0);
    assert_eq!(ids(&unique), ["example-khan-opening-lesson"]);
    let (repeated, stderr, code) = run(&["select", "--duplicates", archive]);
    assert_eq!(code, 0);
    assert_eq!(
        ids(&repeated),
        ["example-khan-opening-lesson", "another-id"]
    );
    assert!(
        stderr.contains("game 2 repeats") && stderr.contains("the same GameId"),
        "{stderr}"
    );
    assert!(
        stderr.contains("game 3 repeats") && stderr.contains("the same moves"),
        "{stderr}"
    );
}

/// A copy of a signed game whose text was edited (a move changed, so it no
/// longer verifies) standing before the honest copy in an archive: an
/// archivist's `select --status verified --unique` keeps one verified copy
/// of each game, so the honest one. The doctored copy, which no criterion
/// selects, must not make the honest copy a "repeat" and drop it.
#[test]
fn a_doctored_copy_that_is_not_selected_does_not_hide_the_verified_one() {
    let dir = tempfile::tempdir().unwrap();
    let honest =
        std::fs::read_to_string(workspace().join("examples/khan/signed/basic.yam")).unwrap();
    let doctored = honest.replacen("\n1... Ab5-c5 {", "\n1... Ab5-c4 {", 1);
    assert_ne!(doctored, honest);
    let archive = write(dir.path(), "copies.yam", &format!("{doctored}\n{honest}"));
    let archive = archive.to_str().unwrap();
    let (verified, _, _) = run(&["select", "--status", "verified", archive]);
    assert_eq!(ids(&verified), ["example-khan-basic"]);
    let (unique, stderr, _) = run(&["select", "--status", "verified", "--unique", archive]);
    assert_eq!(
        ids(&unique),
        ["example-khan-basic"],
        "the verified copy was dropped as a repeat of a copy not selected: {stderr}"
    );
}

#[test]
fn a_game_that_does_not_parse_is_reported_and_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let lesson =
        std::fs::read_to_string(workspace().join("examples/khan/opening-lesson.yam")).unwrap();
    let bad = lesson
        .replacen("\n1. Ng3-f3", "\n1. $ Ng3-f3", 1)
        .replace("opening-lesson", "bad");
    let archive = write(dir.path(), "some-bad.yam", &format!("{bad}\n{lesson}"));
    let (text, stderr, code) = run(&["select", archive.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(ids(&text), ["example-khan-opening-lesson"]);
    assert!(stderr.contains("some-bad.yam:15:5: game 1"), "{stderr}");
    assert!(
        stderr.contains("2 games read, 1 selected, 1 left out"),
        "{stderr}"
    );
}

/// Every example formatted: idempotent, and each signed one verifies
/// after formatting exactly as before.
#[test]
fn fmt_is_idempotent_and_keeps_every_signed_example_verified() {
    let mut files = Vec::new();
    for sub in ["khan/signed", "castle-siege", "genghis-khan"] {
        for entry in std::fs::read_dir(workspace().join("examples").join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yam") {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 10);
    for (i, file) in files.iter().enumerate() {
        let (once, stderr, code) = run(&["fmt", file.to_str().unwrap()]);
        assert_eq!(code, 0, "{}: {stderr}", file.display());
        // In a directory of its own with the example's rulesets beside
        // it, so rulesets named by path resolve alike (and no other test
        // reading examples/ sees it).
        let dir = tempfile::tempdir().unwrap();
        let rulesets = file.with_file_name("rulesets");
        if rulesets.is_dir() {
            std::fs::create_dir(dir.path().join("rulesets")).unwrap();
            for entry in std::fs::read_dir(&rulesets).unwrap() {
                let from = entry.unwrap().path();
                std::fs::copy(
                    &from,
                    dir.path().join("rulesets").join(from.file_name().unwrap()),
                )
                .unwrap();
            }
        }
        let formatted = dir.path().join(format!("formatted-{i}.yam"));
        std::fs::write(&formatted, &once).unwrap();
        let before = run(&["verify", "-q", file.to_str().unwrap()]);
        let after = run(&["verify", "-q", formatted.to_str().unwrap()]);
        let (twice, _, _) = run(&["fmt", formatted.to_str().unwrap()]);
        assert_eq!(before.2, after.2, "{}: {}", file.display(), after.1);
        assert_eq!(once, twice, "{}: not idempotent", file.display());
    }
}

/// A signed record mangled as a mail client might (lines joined and
/// broken elsewhere, blank lines between games doubled) comes back as
/// the original, which verifies.
#[test]
fn fmt_restores_a_reflowed_signed_record() {
    let dir = tempfile::tempdir().unwrap();
    let original =
        std::fs::read_to_string(workspace().join("examples/khan/signed/magician.yam")).unwrap();
    let header_end = original.find("\n\n").unwrap();
    let (header, movetext) = original.split_at(header_end);
    // Join the movetext's lines, then cut it at other spaces.
    let joined = movetext.trim().replace('\n', " ");
    let mut reflowed = String::new();
    for (i, word) in joined.split(' ').enumerate() {
        reflowed.push_str(word);
        reflowed.push(if i % 7 == 6 { '\n' } else { ' ' });
    }
    let mangled = format!("{header}\n\n\n{}\n", reflowed.trim_end());
    assert_ne!(mangled, original);
    let path = write(dir.path(), "mangled.yam", &mangled);
    let (formatted, stderr, code) = run(&["fmt", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 game, 1 reformatted"), "{stderr}");
    assert_eq!(formatted, original);
    // --check says so; --in-place fixes it, then --check is content.
    let (_, stderr, code) = run(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    let (_, _, code) = run(&["fmt", "--in-place", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    let (_, _, code) = run(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (_, _, code) = run(&["verify", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    // Standard input cannot be rewritten in place: a usage error, and no
    // file named `-` appears.
    let (_, stderr, code) = run(&["fmt", "--in-place", "-"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot be rewritten in place"), "{stderr}");
    assert!(!Path::new("-").exists());
}

#[test]
fn fmt_copies_a_game_that_does_not_parse_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let lesson =
        std::fs::read_to_string(workspace().join("examples/khan/opening-lesson.yam")).unwrap();
    let bad = lesson.replacen("\n1. Ng3-f3", "\n1. $ Ng3-f3", 1);
    let path = write(dir.path(), "bad.yam", &format!("{lesson}\n{bad}"));
    let (text, stderr, code) = run(&["fmt", path.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(text.contains("\n1. $ Ng3-f3"), "the bad game kept: {text}");
    assert!(stderr.contains("bad.yam:"), "{stderr}");
    assert!(stderr.contains("1 copied as written"), "{stderr}");
}

/// A lesson with one move in a spelling that is not canonical, so that
/// `fmt --in-place` rewrites it.
fn uncanonical_lesson() -> String {
    std::fs::read_to_string(workspace().join("examples/khan/opening-lesson.yam"))
        .unwrap()
        .replacen("1. Ng3-f3", "1. ng3-f3", 1)
}

/// Adversary: none but the user's own layout: an archive kept in one place
/// and linked from another (`current.yam -> archive/2026.yam`). Attack:
/// `yam fmt --in-place current.yam`. The rename that replaces the file
/// replaces the link with a regular file: the archive the link named is
/// left unformatted while fmt reports "1 reformatted", and the link the
/// user made is gone.
#[cfg(unix)]
#[test]
fn fmt_in_place_through_a_symbolic_link_rewrites_the_file_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let real = write(dir.path(), "real.yam", &uncanonical_lesson());
    let link = dir.path().join("link.yam");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let (_, stderr, code) = run(&["fmt", "--in-place", link.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the user's link is kept"
    );
    let (_, stderr, code) = run(&["fmt", "--check", real.to_str().unwrap()]);
    assert_eq!(code, 0, "the file the link names is formatted: {stderr}");
}

/// Adversary: anyone else on the machine. A user keeps a record readable by
/// themself only (mode 0600: private annotations, a game in progress).
/// `yam fmt --in-place` (and every command that replaces a record:
/// `hotseat move` too) writes a new file with the default mode and renames
/// it over the old one, so the record becomes 0644, readable by all.
#[cfg(unix)]
#[test]
fn fmt_in_place_keeps_the_files_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "private.yam", &uncanonical_lesson());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (_, stderr, code) = run(&["fmt", "--in-place", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 reformatted"), "{stderr}");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "a private record stays private, not {mode:o}");
}

/// The header of a short Khan game, for the round-trip tests below.
const SHORT_KHAN_HEADER: &str = "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"roundtrip\"]\n\
[Date \"2026.11.29\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n\
[NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n";

/// Adversary: none but an archivist's tools: the same annotated record
/// saved once with LF and once with CRLF line ends (both valid,
/// docs/notation.md "Encoding"), with a quoted command argument that spans
/// a line. Attack: `yam fmt` both. The canonical form has "LF line ends"
/// (docs/notation.md, section 8), so both should print the same bytes;
/// the CRLF copy keeps a carriage return inside the quoted argument, so
/// the two copies of one record format differently and the output is not
/// LF-only.
#[test]
fn fmt_of_a_crlf_record_writes_lf_line_ends_even_inside_a_quoted_argument() {
    let dir = tempfile::tempdir().unwrap();
    let lf = format!(
        "{SHORT_KHAN_HEADER}1. Ng3-f3 {{A note [%note \"first line\nsecond line\"]}} Ae7-f6 *\n"
    );
    let crlf = lf.replace('\n', "\r\n");
    let lf_path = write(dir.path(), "lf.yam", &lf);
    let crlf_path = write(dir.path(), "crlf.yam", &crlf);
    let (from_lf, stderr, code) = run(&["fmt", lf_path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let (from_crlf, stderr, code) = run(&["fmt", crlf_path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !from_crlf.contains('\r'),
        "the canonical form has LF line ends only: {from_crlf:?}"
    );
    assert_eq!(
        from_crlf, from_lf,
        "one record, saved with LF or with CRLF, formats the same"
    );
}

/// Adversary: none but an archivist's tools. Attack: a comment whose
/// prose holds a no-break space (`10\u{a0}km`), an ideographic space and a
/// narrow no-break space (French `Bien\u{202f}!`), all ordinary text in
/// their languages; `yam fmt` it. The notation's whitespace is "space,
/// tab, vertical tab, form feed, and line ends" (docs/notation.md,
/// section 3) and only whitespace runs collapse in prose (section 6), and
/// fmt "changes nothing but the layout" (README), yet the printer turns
/// every Unicode space into an ASCII space (and may then break the line
/// there), so the comment's text is altered and lost.
#[test]
fn fmt_keeps_unicode_no_break_and_ideographic_spaces_in_prose() {
    let dir = tempfile::tempdir().unwrap();
    let prose = "The march is 10\u{a0}km long. Bien\u{202f}! \u{6b21}\u{3000}\u{624b}";
    let text = format!("{SHORT_KHAN_HEADER}1. Ng3-f3 {{{prose}}} Ae7-f6 *\n");
    let path = write(dir.path(), "spaces.yam", &text);
    let (formatted, stderr, code) = run(&["fmt", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        formatted.contains(prose),
        "the comment's text is kept as written: {formatted:?}"
    );
}

/// Attacker tester: prose now splits on the notation's whitespace only
/// ("never every Unicode space", docs/notation.md, section 6), but a bare
/// command argument still ends at any Unicode space. A bare argument is
/// one with "no whitespace and none of `[ ] { } \" \\`" (section 6), and a
/// no-break space is no whitespace of the notation's, so
/// `[%note 10\u{a0}km]` is one argument, as the same text is one prose
/// word; `yam check` refuses the record ("expected a space between
/// command arguments") and `yam fmt` copies it as not parsing.
#[test]
fn a_bare_command_argument_keeps_a_no_break_space_as_prose_does() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{SHORT_KHAN_HEADER}1. Ng3-f3 {{10\u{a0}km [%note 10\u{a0}km]}} Ae7-f6 *\n");
    let path = write(dir.path(), "bare.yam", &text);
    let (_, stderr, code) = run(&["check", path.to_str().unwrap()]);
    assert_eq!(
        code, 0,
        "a no-break space is no separator of the notation's: {stderr}"
    );
    let (formatted, stderr, code) = run(&["fmt", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        formatted.contains("[%note 10\u{a0}km]") || formatted.contains("[%note \"10\u{a0}km\"]"),
        "the argument is kept whole: {formatted:?}"
    );
}

/// Attacker tester: the notation's whitespace is "space, tab, vertical
/// tab, form feed, and line ends" (docs/notation.md, section 3) and a
/// command's arguments are "separated by whitespace" (section 6); prose
/// now splits on exactly those, but a command takes only space, tab and
/// line ends between its arguments, so a record whose arguments a form
/// feed or a vertical tab separates is refused by `yam check`.
#[test]
fn command_arguments_separated_by_a_form_feed_or_a_vertical_tab_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{SHORT_KHAN_HEADER}1. Ng3-f3 {{[%note\x0cfirst\x0bsecond]}} Ae7-f6 *\n");
    let path = write(dir.path(), "ff.yam", &text);
    let (_, stderr, code) = run(&["check", path.to_str().unwrap()]);
    assert_eq!(
        code, 0,
        "a form feed and a vertical tab are whitespace: {stderr}"
    );
    let (formatted, stderr, code) = run(&["fmt", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        formatted.contains("[%note first second]"),
        "two arguments, printed with a space between: {formatted:?}"
    );
}

/// Adversary: an archive that holds, between two good games, a long run
/// of text that is no game (a pasted log, a binary blob saved by
/// mistake): 70 MB without a line that could begin a game. `yam fmt`
/// promises that "a game that does not parse is copied as written", and
/// says so in its summary (`1 copied as written`), but the piece cutter
/// hands on only the first 64 MiB of a stretch without a game start (the
/// reader's element limit) and passes over the rest without keeping it:
/// 100,000,358 bytes in, 67,109,045 out (a 512 MB file of one line: 67.1
/// MB out), and `yam fmt -o tidy.yam` leaves a copy that has silently
/// lost the tail of what it claims to have copied. Whatever fmt copies as
/// written should be there whole, or fmt should say it was not copied.
#[test]
fn fmt_copies_a_stretch_longer_than_the_element_limit_whole_or_says_it_did_not() {
    let dir = tempfile::tempdir().unwrap();
    let game = |id: &str| {
        format!(
            "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"{id}\"]\n[Event \"e\"]\n\
             [Date \"2026.01.01\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n\
             [NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n1. Ng3-f3 *\n"
        )
    };
    let blob = "x".repeat(70 << 20);
    let text = format!("{}\n{blob}\n\n{}", game("before"), game("after"));
    let input = write(dir.path(), "blob.yam", &text);
    let out = dir.path().join("tidy.yam");
    let (_, stderr, code) = run(&[
        "fmt",
        "-q",
        "-o",
        out.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    let written = std::fs::read(&out).unwrap();
    let kept = written.iter().filter(|&&b| b == b'x').count();
    // Copied whole, or said plainly that it was not (how many bytes).
    let lost = blob.len() - kept;
    let said_lost: usize = stderr
        .split(" bytes were not copied")
        .next()
        .and_then(|before| before.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let says_copied = said_lost < lost;
    assert!(
        !says_copied || kept == blob.len(),
        "fmt says it copied the stretch as written, but {kept} of its {} bytes are in the \
         output ({} bytes in, {} out): {stderr}",
        blob.len(),
        text.len(),
        written.len()
    );
    assert_eq!(ids(&String::from_utf8_lossy(&written)), ["before", "after"]);
}

/// As `fmt_copies_a_stretch_longer_than_the_element_limit_whole_or_says_it_did_not`,
/// with the stretch running to the end of the file (a log pasted after the
/// last game): the bytes the cutter passes over are counted from the
/// file's size there, and said exactly; the game before it is kept, and
/// `--in-place` leaves such a file as it was.
#[test]
fn fmt_says_exactly_what_a_stretch_to_the_end_of_the_file_lost() {
    let dir = tempfile::tempdir().unwrap();
    let game = "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"before\"]\n[Event \"e\"]\n\
                [Date \"2026.01.01\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n\
                [NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n1. Ng3-f3 *\n";
    let blob = "x".repeat(70 << 20);
    let text = format!("{game}\n{blob}\n");
    let input = write(dir.path(), "tail.yam", &text);
    let out = dir.path().join("tidy.yam");
    let (_, stderr, code) = run(&[
        "fmt",
        "-q",
        "-o",
        out.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    let written = std::fs::read(&out).unwrap();
    let kept = written.iter().filter(|&&b| b == b'x').count();
    assert!(kept < blob.len(), "setup: the stretch passes the limit");
    let said_lost: usize = stderr
        .split(" bytes were not copied")
        .next()
        .and_then(|before| before.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("fmt does not say what it did not copy: {stderr}"));
    let out_len = written.len();
    assert!(
        said_lost + kept >= blob.len() && said_lost <= text.len() - out_len + kept,
        "fmt says {said_lost} bytes were not copied; {kept} of the stretch's {} are in the output \
         ({} bytes in, {out_len} out): {stderr}",
        blob.len(),
        text.len()
    );
    assert_eq!(ids(&String::from_utf8_lossy(&written)), ["before"]);
    let (_, stderr, code) = run(&["fmt", "-q", "--in-place", input.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        text,
        "left as it was"
    );
}

/// A game whose `Ruleset` tag names a ruleset file is selected with a
/// warning to copy the file (README): every name the referee reads as a
/// file's, `.yml` and upper-case endings too (`docs/notation.md`, "Rulesets
/// of one's own").
#[test]
fn select_warns_of_every_ruleset_file_a_game_names() {
    let dir = tempfile::tempdir().unwrap();
    let ruleset =
        std::fs::read_to_string(workspace().join("examples/khan/rulesets/magician.yaml")).unwrap();
    for name in ["lesson.yaml", "lesson.yml", "LESSON.YAML"] {
        write(dir.path(), name, &ruleset);
        let game = write(
            dir.path(),
            &format!("{name}.yam"),
            &format!(
                "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"g\"]\n[Date \"????.??.??\"]\n\
                 [White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[NotationVersion \"1\"]\n\
                 [Ruleset \"{name}\"]\n\n1. Ng3-f3 *\n"
            ),
        );
        let game = game.to_str().unwrap();
        let (_, stderr, code) = run(&["check", game]);
        assert_eq!(code, 0, "{name}: {stderr}");
        let (_, stderr, code) = run(&["select", game]);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("names the ruleset file {name}")),
            "{name}: no warning to copy the ruleset file: {stderr}"
        );
    }
}
