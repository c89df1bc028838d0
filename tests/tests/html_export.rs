//! `yam export --html`: the site of all of examples/, its statuses, its
//! escaping of hostile records, and a real headless browser stepping
//! through a game of each kind from the file system.
//!
//! The browser is Debian's chromium (scripts/test.sh installs it). Without
//! it the browser test fails, saying so, unless YAM_SKIP_BROWSER=1.
//! Screenshots of one page of each game go to target/test-artifacts/.

use std::path::{Path, PathBuf};

use yam_tests::{workspace, yam};

/// Export `args` into a fresh directory; the directory and the exit code.
fn export(args: &[&str]) -> (tempfile::TempDir, i32, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = yam!()
        .args(["export", "--html"])
        .args(args)
        .arg("--out")
        .arg(dir.path())
        .output()
        .expect("yam runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (dir, out.status.code().unwrap_or(-1), stderr)
}

/// The game pages of a site, in name order.
fn pages(site: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(site.join("games"))
        .expect("games/")
        .map(|e| e.expect("entry").path())
        .collect();
    pages.sort();
    pages
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_examples_make_a_site_with_every_game() {
    let (site, code, stderr) = export(&["examples"]);
    assert_eq!(code, 0, "{stderr}");
    let index = read(&site.path().join("index.html"));
    assert!(site.path().join("style.css").is_file());
    assert!(site.path().join("site.js").is_file());
    let pages = pages(site.path());
    assert!(pages.len() >= 20, "only {} pages", pages.len());
    // Every page is listed in the index, with its game and status.
    for page in &pages {
        let name = page.file_name().and_then(|n| n.to_str()).expect("name");
        assert!(
            index.contains(&format!("href=\"games/{name}\"")),
            "{name} not in the index"
        );
        let html = read(page);
        assert!(html.contains("id=\"diagrams\""), "{name}: no diagrams");
        assert!(html.contains("id=\"frame-data\""), "{name}: no frames");
        assert!(html.contains("src=\"../lines/0.js\""), "{name}: no lines");
        for remote in [
            "src=\"http",
            "href=\"http",
            "src=\"//",
            "href=\"//",
            "@import",
        ] {
            assert!(!html.contains(remote), "{name}: fetches {remote}");
        }
    }
    // The diagram lines and search rows are data for the script, with
    // nothing to fetch either.
    for dir in ["lines", "index"] {
        for file in std::fs::read_dir(site.path().join(dir)).expect(dir) {
            let text = read(&file.expect("entry").path());
            assert!(text.starts_with("// yam export --html"), "{dir}: unmarked");
            assert!(!text.contains("href=\"http"), "{dir}: fetches");
        }
    }
    // No network and no modules in the script: it must run from file://.
    let script = read(&site.path().join("site.js"));
    for banned in ["fetch(", "XMLHttpRequest", "import ", "type=\"module\""] {
        assert!(!script.contains(banned), "site.js uses {banned}");
    }
    // Moves, NAGs, comments and variations on a game's page.
    let lesson = pages
        .iter()
        .find(|p| {
            p.to_string_lossy()
                .ends_with("-example-khan-opening-lesson.html")
        })
        .expect("the opening lesson's page");
    let lesson = read(lesson);
    assert!(
        lesson.contains("data-ply=\"1\" data-frame=\"1\">Ng3-f3</a>"),
        "main-line move"
    );
    assert!(
        lesson.contains("<span class=\"nag\" title=\"$1: good move\">!</span>"),
        "NAG"
    );
    assert!(lesson.contains("<span class=\"var\">"), "variation");
    assert!(
        lesson.contains("<a class=\"mv alt\" href=\"#frame=") && lesson.contains("\">Nf3-f5</a>"),
        "variation move with its diagram"
    );
    assert!(lesson.contains("<span class=\"prose\">"), "comment");
    // The statuses the referee gives the examples.
    assert!(index.contains(">verified<"), "no verified game");
    assert!(
        index.contains(">unverified practice game<"),
        "no practice game"
    );
    assert!(
        index.contains(">rules-checked, unsigned<"),
        "no unsigned game"
    );
    assert!(!index.contains("FAILED"), "an example failed");
    // Genghis Khan's score, as the referee counts it.
    assert!(index.contains("cards 80/100, score 90/150"), "no score");
    // The search by game, status, player and text; one page of games.
    for field in [
        "filter-game",
        "filter-status",
        "filter-player",
        "filter-text",
    ] {
        assert!(index.contains(&format!("id=\"{field}\"")), "no {field}");
    }
    assert!(index.contains("data-pages=\"1\""), "one listing page");
    assert!(site.path().join("index/1.js").is_file(), "search rows");
}

/// A record that lies about itself, one with an illegal move, one that
/// cannot be read, and one full of markup, in one archive.
const HOSTILE: &str = r#"[Game "Khan"]
[Variant "Magician"]
[GameId "liar"]
[Event "e"]
[Date "2026.01.01"]
[White "<b>Ann</b>"]
[Black "Bo & co"]
[Result "*"]
[NotationVersion "1"]
[Ruleset "magician"]
[Evidence "removed by yam export --plain; the original verified (yam verify)"]

1. Wa1-a8 *

[Game "Khan"]
[Variant "Magician"]
[GameId "markup"]
[Event "<img src=x onerror=alert(1)>"]
[Date "2026.01.01"]
[White "</td><script>alert(2)</script>"]
[Black "b"]
[Result "*"]
[NotationVersion "1"]
[Ruleset "magician"]

{</span><script>alert(3)</script> [%note "<i>x</i>"]} *

[Game "Khan"
this is not a record
"#;

#[test]
fn statuses_are_computed_and_record_text_is_escaped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = dir.path().join("hostile.yam");
    std::fs::write(&archive, HOSTILE).expect("write");
    let archive = archive.to_str().expect("UTF-8 path").to_owned();
    let (site, code, stderr) = export(&[&archive]);
    // Written, and a game failed: exit code 1, as `yam check`'s.
    assert_eq!(code, 1, "{stderr}");
    let index = read(&site.path().join("index.html"));
    let pages = pages(site.path());
    assert_eq!(pages.len(), 3, "a bad game stops no other");
    let all: String = pages.iter().map(|p| read(p)).collect::<String>() + &index;
    for raw in [
        "<script>alert",
        "<img src=x",
        "<b>Ann</b>",
        "<i>x</i>",
        "</td><script>",
    ] {
        assert!(!all.contains(raw), "unescaped {raw:?}");
    }
    assert!(all.contains("&lt;b&gt;Ann&lt;/b&gt;"));
    // The record's claim to have verified is not taken: its move is illegal.
    let liar = read(&pages[0]);
    assert!(liar.contains("class=\"status failed\""), "{liar}");
    assert!(liar.contains("illegal"), "{liar}");
    // The unreadable game has a page saying so.
    let broken = read(&pages[2]);
    assert!(broken.contains("syntax error"), "{broken}");
    // The game with no moves is rules-checked.
    assert!(read(&pages[1]).contains("Rules-checked, unsigned"));
    // The data the script reads: diagram lines are the renderer's escaped
    // SVG; search rows carry record text as JSON strings, which the search
    // puts in the page as text, never as markup (below, in a browser).
    for dir in ["lines", "index"] {
        for file in std::fs::read_dir(site.path().join(dir)).expect(dir) {
            let text = read(&file.expect("entry").path());
            assert!(!text.contains("<script>"), "{dir}: {text}");
        }
    }
    let Some(chromium) = yam_tests::browser::chromium_or_skip() else {
        return;
    };
    let profile = tempfile::tempdir().expect("profile dir");
    // A search that shows the hostile rows: their text stays text.
    let dom = browse(
        &chromium,
        profile.path(),
        &["--dump-dom", "--virtual-time-budget=10000"],
        &format!("{}#text=hostile", file_url(&site.path().join("index.html"))),
    );
    assert_eq!(attribute(&dom, "data-errors"), Some("[]"), "script errors");
    assert_eq!(
        attribute(&dom, "data-shown"),
        Some("3"),
        "every game of the archive"
    );
    let results = &dom[dom.find("id=\"results\"").expect("the results table")..];
    assert!(results.contains("&lt;b&gt;Ann&lt;/b&gt;"), "{results}");
    assert!(
        !results.contains("<b>Ann</b>"),
        "markup from a record: {results}"
    );
    assert!(results.contains("&lt;/td&gt;&lt;script&gt;"), "{results}");
    assert!(
        !results.contains("<script>alert"),
        "markup from a record: {results}"
    );
}

#[test]
fn a_tampered_signed_game_fails_whatever_its_tags_say() {
    let dir = tempfile::tempdir().expect("temp dir");
    let original = read(&workspace().join("examples/khan/signed/magician.yam"));
    // Change the first move's destination: its signature no longer fits.
    let at = original.find("\n1. ").expect("a first move") + 4;
    let end = at + original[at..].find(' ').expect("a move");
    let mut moved = original[at..end].to_owned();
    let last = moved.pop().expect("a rank");
    moved.push(if last == '3' { '4' } else { '3' });
    let tampered = format!("{}{}{}", &original[..at], moved, &original[end..]);
    assert_ne!(tampered, original);
    let path = dir.path().join("tampered.yam");
    std::fs::write(&path, tampered).expect("write");
    let (site, code, stderr) = export(&[path.to_str().expect("UTF-8")]);
    assert_eq!(code, 1, "{stderr}");
    let index = read(&site.path().join("index.html"));
    assert!(index.contains("FAILED"), "{index}");
    assert!(!index.contains("class=\"status verified\""));
}

/// The players' names are labels no signature covers (docs/fair-play.md,
/// 9.2: "Players are identified by their keys and fingerprints, which `yam
/// verify` prints"). A signed game whose header swaps the names (the loser
/// made the winner) still verifies, as it should; but its page must not
/// vouch for the names alone beside "Verified": it shows each seat's key
/// fingerprint, as `yam verify` does, so the reader can tell who played.
#[test]
fn a_verified_page_names_the_seats_by_their_keys_not_only_by_unsigned_names() {
    let dir = tempfile::tempdir().expect("temp dir");
    let original = read(&workspace().join("examples/khan/signed/basic.yam"));
    let swapped = original
        .replacen("[White \"ann\"]", "[White \"bo\"]", 1)
        .replacen("[Black \"bo\"]", "[Black \"ann\"]", 1);
    assert_ne!(swapped, original);
    let path = dir.path().join("swapped.yam");
    std::fs::write(&path, swapped).expect("write");
    let out = yam!().arg("verify").arg(&path).output().expect("yam runs");
    let verdict = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{verdict}");
    let fingerprint = |role: &str| {
        verdict
            .lines()
            .find_map(|l| l.trim_start().strip_prefix(role))
            .map(|fp| fp.trim().to_owned())
            .unwrap_or_else(|| panic!("no {role} fingerprint in {verdict}"))
    };
    let (white, black) = (fingerprint("white "), fingerprint("black "));
    let (site, code, stderr) = export(&[path.to_str().expect("UTF-8")]);
    assert_eq!(code, 0, "{stderr}");
    let page = read(&pages(site.path())[0]);
    assert!(page.contains("class=\"status verified\""), "{page}");
    assert!(
        page.contains(&white) && page.contains(&black),
        "the page says \"Verified\" beside the header's names (bo as White, ann as \
         Black: names no signature covers) and gives neither seat's key ({white}, {black})"
    );
}

#[test]
fn a_new_export_removes_its_old_pages_and_nothing_else() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().to_str().expect("UTF-8").to_owned();
    yam!()
        .args(["export", "--html", "examples/khan", "--out", &out])
        .assert()
        .code(0);
    let mine = dir.path().join("games").join("notes.html");
    std::fs::write(&mine, "my own notes").expect("write");
    assert!(pages(dir.path()).len() > 5);
    yam!()
        .args([
            "export",
            "--html",
            "examples/khan/opening-lesson.yam",
            "--out",
            &out,
        ])
        .assert()
        .code(0);
    let left: Vec<PathBuf> = pages(dir.path());
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(
        mine.is_file(),
        "a file the export did not write was removed"
    );
}

#[test]
fn export_needs_exactly_one_format() {
    yam!()
        .args(["export", "examples/khan/opening-lesson.yam"])
        .assert()
        .code(2);
    yam!()
        .args([
            "export",
            "--plain",
            "--html",
            "examples/khan/opening-lesson.yam",
            "--out",
            "x",
        ])
        .assert()
        .code(2);
    yam!()
        .args(["export", "--html", "examples"])
        .assert()
        .code(2);
}

// ---------------------------------------------------------------------------
// The browser

use yam_tests::browser::{attribute, browse, chromium, file_url};

#[test]
fn a_browser_steps_through_a_game_of_each_kind() {
    let Some(chromium) = chromium() else {
        if std::env::var("YAM_SKIP_BROWSER").as_deref() == Ok("1") {
            eprintln!("YAM_SKIP_BROWSER=1: the browser test is skipped");
            return;
        }
        panic!(
            "no chromium found (install Debian's chromium: scripts/test.sh does; \
             or set YAM_CHROMIUM=/path/to/chromium, or YAM_SKIP_BROWSER=1 to skip this test)"
        );
    };
    let (site, code, stderr) = export(&["examples"]);
    assert_eq!(code, 0, "{stderr}");
    let profile = tempfile::tempdir().expect("profile dir");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"));
    let artifacts = target.join("test-artifacts");
    std::fs::create_dir_all(&artifacts).expect("artifacts dir");
    let pages = pages(site.path());
    for (game, shot) in [
        ("Khan", "khan.png"),
        ("Castle Siege", "castle-siege.png"),
        ("Genghis Khan", "genghis-khan.png"),
    ] {
        let page = pages
            .iter()
            .find(|p| read(p).contains(&format!("<th>Game</th><td>{game}</td>")))
            .unwrap_or_else(|| panic!("no {game} page"));
        let steps = 6;
        let url = format!("{}#selftest={steps}", file_url(page));
        // One run: the DOM after the steps, and a screenshot of the page.
        let shot = artifacts.join(shot);
        let _ = std::fs::remove_file(&shot);
        let dom = browse(
            &chromium,
            profile.path(),
            &[
                "--dump-dom",
                &format!("--screenshot={}", shot.display()),
                "--window-size=1280,1500",
                "--hide-scrollbars",
            ],
            &url,
        );
        assert_eq!(
            attribute(&dom, "data-errors"),
            Some("[]"),
            "{game}: script errors on {url}"
        );
        assert_eq!(
            attribute(&dom, "data-selftest"),
            Some("done"),
            "{game}: the script did not run on {url}"
        );
        assert_eq!(
            attribute(&dom, "data-ply"),
            Some(steps.to_string().as_str()),
            "{game}: the keys did not step"
        );
        let start = attribute(&dom, "data-svg-start").expect("start picture");
        let now = attribute(&dom, "data-svg").expect("picture");
        assert!(now.contains("&lt;svg"), "{game}: nothing drawn");
        assert_ne!(start, now, "{game}: the diagram did not change");
        let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
        assert!(size > 10_000, "{game}: no screenshot at {}", shot.display());
    }
    // Into a variation of the lesson and a step along it.
    let lesson = pages
        .iter()
        .find(|p| {
            p.to_string_lossy()
                .ends_with("-example-khan-opening-lesson.html")
        })
        .expect("the opening lesson's page");
    let html = read(lesson);
    let needle = "<a class=\"mv alt\" href=\"#frame=";
    let at = html.find(needle).expect("a variation move") + needle.len();
    let frame: usize = html[at..]
        .split('"')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a frame number");
    let dom = browse(
        &chromium,
        profile.path(),
        &["--dump-dom"],
        &format!("{}#frame={frame}&selftest=1", file_url(lesson)),
    );
    assert_eq!(
        attribute(&dom, "data-errors"),
        Some("[]"),
        "lesson: script errors"
    );
    assert_eq!(
        attribute(&dom, "data-line"),
        Some("variation"),
        "not in the variation"
    );
    assert_eq!(
        attribute(&dom, "data-frame"),
        Some((frame + 1).to_string().as_str()),
        "the step did not follow the variation"
    );
    let start = attribute(&dom, "data-svg-start").expect("start picture");
    let now = attribute(&dom, "data-svg").expect("picture");
    assert!(start.contains("&lt;svg") && now.contains("&lt;svg"));
    assert_ne!(start, now, "the variation's diagram did not change");
    // The index searches by game.
    let index = site.path().join("index.html");
    let all = browse(
        &chromium,
        profile.path(),
        &["--dump-dom"],
        &file_url(&index),
    );
    assert_eq!(
        attribute(&all, "data-errors"),
        Some("[]"),
        "index: script errors"
    );
    assert!(
        attribute(&all, "data-shown").is_none(),
        "no search made, no search shown"
    );
    let total = read(&index).matches("<tr data-game=").count();
    let khan = browse(
        &chromium,
        profile.path(),
        &["--dump-dom"],
        &format!("{}#game=Khan", file_url(&index)),
    );
    let shown: usize = attribute(&khan, "data-shown")
        .and_then(|n| n.parse().ok())
        .expect("the index script ran");
    let khan_rows = read(&index).matches("<tr data-game=\"Khan\"").count();
    assert_eq!(shown, khan_rows, "filtering by game");
    assert!(shown < total);
    // And by player: the rows that name someone whose name has "ann".
    let ann = browse(
        &chromium,
        profile.path(),
        &["--dump-dom"],
        &format!("{}#player=Ann", file_url(&index)),
    );
    assert_eq!(
        attribute(&ann, "data-errors"),
        Some("[]"),
        "index: script errors"
    );
    let shown: usize = attribute(&ann, "data-shown")
        .and_then(|n| n.parse().ok())
        .expect("the index script ran");
    let ann_rows = read(&index)
        .split("data-players=\"")
        .skip(1)
        .filter(|row| {
            row.split('"')
                .next()
                .is_some_and(|p| p.lines().any(|n| n.to_lowercase().contains("ann")))
        })
        .count();
    assert!(ann_rows > 0);
    assert_eq!(shown, ann_rows, "filtering by player");
}

/// An archive of more games than a listing page holds: listing pages that
/// link up, a search over all of them in the browser, and diagrams stored
/// once per distinct line for the whole site (the 10,000-game figures are
/// in docs/performance.md; this is the small one CI runs).
#[test]
fn a_big_archive_makes_pages_of_one_size_and_searches_them_all() {
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = dir.path().join("many.yam");
    yam!()
        .args([
            "generate",
            "--game-type",
            "khan",
            "--games",
            "1100",
            "--seed",
            "5",
        ])
        .args(["--max-plies", "12", "-o"])
        .arg(&archive)
        .assert()
        .code(0);
    let (site, code, stderr) = export(&[archive.to_str().expect("UTF-8")]);
    assert_eq!(code, 0, "{stderr}");
    let site = site.path();
    assert_eq!(pages(site).len(), 1100);
    let index = read(&site.join("index.html"));
    assert!(index.contains("data-pages=\"3\""), "three listing pages");
    assert_eq!(
        index.matches("<tr data-game=").count(),
        500,
        "the first page"
    );
    assert!(index.contains("<a href=\"index/3.html\">3</a>"));
    let second = read(&site.join("index/2.html"));
    assert_eq!(second.matches("<tr data-game=").count(), 500);
    assert!(second.contains("href=\"3.html\" rel=\"next\""));
    assert!(
        second.contains("href=\"../games/501-"),
        "links to its games"
    );
    let third = read(&site.join("index/3.html"));
    assert_eq!(third.matches("<tr data-game=").count(), 100);
    assert!(
        !third.contains("rel=\"next\""),
        "the last page links to no page"
    );
    for k in 1..=3 {
        assert!(
            site.join(format!("index/{k}.js")).is_file(),
            "search rows {k}"
        );
    }
    // The pages are small: a few kilobytes of moves and frame data each,
    // the pictures' lines shared by the whole site.
    let largest = pages(site)
        .iter()
        .map(|p| std::fs::metadata(p).expect("page").len())
        .max()
        .expect("pages");
    assert!(largest < 40_000, "a page of {largest} bytes");
    let lines: u64 = std::fs::read_dir(site.join("lines"))
        .expect("lines/")
        .map(|e| e.expect("entry").metadata().expect("size").len())
        .sum();
    assert!(lines < 2_000_000, "{lines} bytes of diagram lines");

    let Some(chromium) = chromium() else {
        if std::env::var("YAM_SKIP_BROWSER").as_deref() == Ok("1") {
            return;
        }
        panic!("no chromium found (scripts/test.sh installs it; YAM_SKIP_BROWSER=1 skips)");
    };
    let profile = tempfile::tempdir().expect("profile dir");
    // A search across every page: a game id of the last page.
    let id = third
        .split("<td><a href=\"../games/")
        .nth(50)
        .and_then(|row| row.split('>').nth(1))
        .and_then(|t| t.split('<').next())
        .expect("a game id")
        .to_owned();
    let dom = browse(
        &chromium,
        profile.path(),
        &["--dump-dom", "--virtual-time-budget=20000"],
        &format!("{}#text={id}", file_url(&site.join("index.html"))),
    );
    assert_eq!(
        attribute(&dom, "data-errors"),
        Some("[]"),
        "search: script errors"
    );
    assert_eq!(attribute(&dom, "data-shown"), Some("1"), "search for {id}");
    assert!(dom.contains(&format!(">{id}</a>")), "the match is listed");
    let dom = browse(
        &chromium,
        profile.path(),
        &["--dump-dom", "--virtual-time-budget=20000"],
        &format!("{}#game=Khan", file_url(&site.join("index.html"))),
    );
    assert_eq!(
        attribute(&dom, "data-shown"),
        Some("1100"),
        "every Khan game"
    );
    assert_eq!(
        dom.matches("<tr><td>").count(),
        1000,
        "the first thousand matches shown"
    );
}

/// A Castle Siege variation is drawn too: each of its moves replays the
/// line from the start with the faces its tokens show, and gets a frame of
/// its own; a move that does not replay is listed without one.
#[test]
fn castle_siege_variations_are_drawn() {
    let dir = tempfile::tempdir().expect("temp dir");
    let game = dir.path().join("cs.yam");
    yam!()
        .args([
            "generate",
            "--game-type",
            "castle-siege",
            "--games",
            "1",
            "--seed",
            "4",
            "-o",
        ])
        .arg(&game)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&game).expect("game");
    let with = text.replacen(
        " Kf4-e3 ",
        " Kf4-e3 (Kf4-e3 Ce3-e4 Kd5-d6/skip) (Kf4-h8) ",
        1,
    );
    assert_ne!(with, text);
    std::fs::write(&game, with).expect("write");
    let (site, code, stderr) = export(&[game.to_str().expect("UTF-8")]);
    // The far king step is illegal: the game fails, its page is written.
    assert_eq!(code, 1, "{stderr}");
    let page = read(&pages(site.path())[0]);
    for drawn in ["Kf4-e3", "Ce3-e4", "Kd5-d6/skip"] {
        let with_frame = page
            .split("<a class=\"mv alt\" href=\"#frame=")
            .skip(1)
            .any(|a| {
                a.split("</a>")
                    .next()
                    .is_some_and(|t| t.ends_with(&format!(">{drawn}")))
            });
        assert!(with_frame, "{drawn} has no diagram");
    }
    assert!(
        page.contains("<span class=\"mv alt\">Kf4-h8</span>"),
        "an illegal variation move is listed without a diagram"
    );
    let alt_frames = page.matches("<a class=\"mv alt\" href=\"#frame=").count();
    assert_eq!(alt_frames, 3, "the three legal variation moves are drawn");
}

/// Whether `text` still holds a bidirectional embedding, override or
/// isolate control (U+202A to U+202E, U+2066 to U+2069).
fn has_bidi_control(text: &str) -> bool {
    text.chars()
        .any(|c| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
}

/// Adversary: a player who loses and writes the last comment of the record
/// sent to the archivist. Attack: an unterminated RIGHT-TO-LEFT OVERRIDE
/// (U+202E) at the end of the comment before the result. The move list is
/// one paragraph (`<div id="movetext">` of inline spans), so the override
/// runs on into `<span class="result">` and a browser draws `1-0` as
/// `0-1`: the published page shows the loser as the winner. Player names
/// on the `<p class="players">` line do the same to the opponent's name
/// and the sides. Yam cleans exactly these characters out of others' text
/// elsewhere (`game::record::clean_prose`, `mail::cards::clean_text`); a
/// page must either do the same or isolate record text (`<bdi>`,
/// `unicode-bidi: isolate`) so that it cannot reorder what follows.
#[test]
fn a_comment_cannot_reorder_the_result_shown_after_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = dir.path().join("rlo.yam");
    std::fs::write(
        &archive,
        "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"rlo\"]\n[Event \"e\"]\n\
         [Date \"2026.01.01\"]\n[White \"Ann\"]\n[Black \"Mallory\u{202E}\"]\n[Result \"1-0\"]\n\
         [NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n\
         1. Ng3-f3 Ae7-f6 {Black resigns.\u{202E}} 1-0\n",
    )
    .expect("write");
    let (site, _code, stderr) = export(&[archive.to_str().expect("UTF-8 path")]);
    let pages = pages(site.path());
    assert_eq!(pages.len(), 1, "{stderr}");
    let page = read(&pages[0]);
    assert!(page.contains("<span class=\"result\">1-0</span>"), "{page}");
    let style = read(&site.path().join("style.css"));
    let isolated = page.contains("<bdi") || style.contains("unicode-bidi");
    assert!(
        !has_bidi_control(&page) || isolated,
        "a record's bidi override reaches the page unisolated and reorders the result after it: {:?}",
        page.lines()
            .filter(|l| has_bidi_control(l))
            .collect::<Vec<_>>()
    );
}

/// Adversary: a player (or anyone submitting a record to a tournament
/// site that publishes with `yam export --html`). Attack: a long record
/// with a variation after every move, `1. Ng3-f3 (Ng3-f2) Ae7-f6
/// (Ae7-f5) 2. ...`. Drawing the variations (`pictures::positions::tree`)
/// clones the whole main line so far at every `(`, so the work grows with
/// the square of the record's length: a 3 MB record (80,000 numbered
/// moves, each with two variations) takes 18 s of the exporter (debug
/// build), 40 times what an eighth of it takes, where `yam check` reads it
/// in about a second; a few more megabytes hold an export for minutes.
/// Eight times the record should cost about eight times the CPU time,
/// not sixty-four.
#[cfg(target_os = "linux")]
#[test]
fn exporting_a_record_with_a_variation_after_every_move_takes_linear_time() {
    fn record(pairs: usize) -> String {
        let mut text = String::from(
            "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"long\"]\n[Event \"e\"]\n\
             [Date \"2026.01.01\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n\
             [NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n",
        );
        for i in 1..=pairs {
            text.push_str(&format!("{i}. Ng3-f3 (Ng3-f2) Ae7-f6 (Ae7-f5)\n"));
        }
        text.push_str("*\n");
        text
    }
    let dir = tempfile::tempdir().expect("temp dir");
    // CPU time, not the clock's: a CI run beside other builds made the
    // clock's ratio 16.1 once, on linear work.
    let ticks = |pairs: usize| {
        let archive = dir.path().join(format!("long-{pairs}.yam"));
        std::fs::write(&archive, record(pairs)).expect("write");
        let site = dir.path().join(format!("site-{pairs}"));
        let ticks = yam_tests::cpu_ticks(
            yam_tests::yam_bin!().as_ref(),
            &[
                "export".as_ref(),
                "--html".as_ref(),
                archive.as_os_str(),
                "--out".as_ref(),
                site.as_os_str(),
            ],
        );
        assert_eq!(pages(&site).len(), 1);
        ticks.max(1)
    };
    // The smaller export is measured twice and the smaller figure kept, so
    // that start-up noise weighs little.
    let small = ticks(10_000).min(ticks(10_000));
    let large = ticks(80_000);
    let ratio = large as f64 / small as f64;
    assert!(
        ratio < 16.0,
        "8x the record took {ratio:.1}x the CPU time ({small} then {large} ticks of 10 ms): quadratic"
    );
}

/// Adversary: a player who writes the `GameId` of a record a site
/// publishes. Attack: a 1 MB id on an ordinary game of about 125 plies.
/// The id is every diagram's caption (`frames::encode` draws each frame
/// with `entry.title()`), so each ply escapes, splits and hashes the whole
/// id once more into the `LineBook`: the work is the id's length times the
/// game's plies, 5.7 s (debug build) for a record `yam check` reads in
/// 0.04 s, and a 10 MB id on a long game holds the export for many
/// minutes. The id's cost should not depend on how many plies follow it.
#[test]
fn a_long_game_id_costs_the_same_whatever_the_games_length() {
    let dir = tempfile::tempdir().expect("temp dir");
    let generated = dir.path().join("generated.yam");
    yam!()
        .args([
            "generate",
            "--game-type",
            "khan",
            "--games",
            "1",
            "--seed",
            "3",
        ])
        .args(["--max-plies", "400", "-o"])
        .arg(&generated)
        .assert()
        .code(0);
    let text = read(&generated);
    let (header, movetext) = text.split_once("\n\n").expect("a header");
    let header: String = header
        .lines()
        .map(|line| {
            if line.starts_with("[GameId ") {
                format!("[GameId \"{}\"]\n", "x".repeat(1_000_000))
            } else if line.starts_with("[Result ") {
                "[Result \"*\"]\n".to_owned()
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    let tokens: Vec<&str> = movetext
        .split_whitespace()
        .filter(|t| !t.ends_with('.') && !matches!(*t, "1-0" | "0-1" | "1/2-1/2" | "*"))
        .collect();
    assert!(tokens.len() > 100, "a long game: {}", tokens.len());
    let time = |name: &str, plies: usize| {
        let mut record = header.clone() + "\n";
        for (i, pair) in tokens[..plies].chunks(2).enumerate() {
            record.push_str(&format!("{}. {} ", i + 1, pair.join(" ")));
        }
        record.push_str("*\n");
        let archive = dir.path().join(name);
        std::fs::write(&archive, record).expect("write");
        let start = std::time::Instant::now();
        let (site, code, stderr) = export(&[archive.to_str().expect("UTF-8 path")]);
        let took = start.elapsed();
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(pages(site.path()).len(), 1, "{stderr}");
        took
    };
    let short = time("short.yam", 2);
    // All but the last ply, which ends the game (its result is not `*`).
    let plies = tokens.len() - 1;
    let long = time("long.yam", plies);
    let ratio = long.as_secs_f64() / short.as_secs_f64();
    assert!(
        ratio < 5.0,
        "the same 1 MB GameId on {} plies took {ratio:.1}x the time it takes on 2 \
         ({short:?} then {long:?})",
        plies
    );
}

/// Adversary: the player who writes the last comment of a record an
/// archivist publishes (or, in real life, an honest annotator who writes
/// in Arabic). Attack: the comment before the result ends in Arabic text,
/// or, invisibly, in an ARABIC LETTER MARK (U+061C), which the page's
/// escaping keeps (it cleans U+202A to U+202E and U+2066 to U+2069 only).
/// The move list is one paragraph of inline spans and nothing isolates a
/// comment, so by the Unicode bidi algorithm the digits after it become
/// Arabic numbers and the run `1-0` is laid out right to left: the page
/// shows `0-1`, the loser as the winner, exactly what the fix for the
/// override (`a_comment_cannot_reorder_the_result_shown_after_it`) was
/// meant to rule out. The browser is asked where it draws each character
/// of the result: read left to right it must still say `1-0`.
#[test]
fn an_arabic_comment_cannot_reorder_the_result_shown_after_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = dir.path().join("arabic.yam");
    let game = |id: &str, comment: &str| {
        format!(
            "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"{id}\"]\n[Event \"e\"]\n\
             [Date \"2026.01.01\"]\n[White \"Ann\"]\n[Black \"Mallory\"]\n[Result \"1-0\"]\n\
             [NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n\
             1. Ng3-f3 Ae7-f6 {{{comment}}} 1-0\n\n"
        )
    };
    std::fs::write(
        &archive,
        game("arabic", "Black resigns. \u{627}\u{633}\u{62A}\u{633}\u{644}\u{645} \u{627}\u{644}\u{623}\u{633}\u{648}\u{62F}")
            + &game("alm", "Black resigns.\u{061C}"),
    )
    .expect("write");
    let (site, _code, stderr) = export(&[archive.to_str().expect("UTF-8 path")]);
    let pages = pages(site.path());
    assert_eq!(pages.len(), 2, "{stderr}");
    let Some(chromium) = yam_tests::browser::chromium_or_skip() else {
        return;
    };
    let profile = tempfile::tempdir().expect("profile dir");
    // The result's characters, ordered as the browser lays them out.
    let probe = "<script>(function () {\n\
        var t = document.querySelector('#movetext .result').firstChild;\n\
        var seen = [];\n\
        for (var i = 0; i < t.length; i++) {\n\
          var r = document.createRange(); r.setStart(t, i); r.setEnd(t, i + 1);\n\
          seen.push([r.getBoundingClientRect().left, t.data[i]]);\n\
        }\n\
        seen.sort(function (a, b) { return a[0] - b[0]; });\n\
        document.documentElement.setAttribute('data-result-seen', seen.map(function (s) { return s[1]; }).join(''));\n\
        }());</script>\n</body>";
    let mut seen = Vec::new();
    for page in &pages {
        let html = read(page).replace("</body>", probe);
        let probed = page.with_file_name("probe.html");
        std::fs::write(&probed, html).expect("write the probe");
        let dom = browse(
            &chromium,
            profile.path(),
            &["--dump-dom"],
            &file_url(&probed),
        );
        let name = page
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_owned();
        seen.push((name, attribute(&dom, "data-result-seen").map(str::to_owned)));
    }
    assert!(
        seen.iter().all(|(_, s)| s.as_deref() == Some("1-0")),
        "the result 1-0 after a comment, read left to right on the page: {seen:?}"
    );
}

/// Adversary: whoever sends a reader a link into a published site, or
/// just a reader who writes one by hand (`#text=100%`, a percent sign in
/// a player's name) or a mail client that cuts a link after a `%`. Attack:
/// a fragment that is not a valid percent-encoding. `site.js` decodes
/// every fragment value with `decodeURIComponent`, which throws a
/// `URIError` on a lone `%`; nothing catches it, so the script stops
/// before it shows the search form (the front page has no search at all)
/// or before it draws the first diagram (the game page shows an empty
/// board). A link should never break the page: a value that does not
/// decode can be taken as written, or ignored.
#[test]
fn a_link_with_a_stray_percent_sign_still_searches_and_draws() {
    let (site, code, stderr) = export(&["examples/khan/opening-lesson.yam"]);
    assert_eq!(code, 0, "{stderr}");
    let Some(chromium) = yam_tests::browser::chromium_or_skip() else {
        return;
    };
    let profile = tempfile::tempdir().expect("profile dir");
    let index = browse(
        &chromium,
        profile.path(),
        &["--dump-dom"],
        &format!("{}#text=100%", file_url(&site.path().join("index.html"))),
    );
    let page = &pages(site.path())[0];
    let game = browse(
        &chromium,
        profile.path(),
        &["--dump-dom"],
        &format!("{}#ply=%E2%86", file_url(page)),
    );
    let outcome = [
        (
            "index.html#text=100%",
            attribute(&index, "data-errors"),
            attribute(&index, "data-shown").is_some(),
        ),
        (
            "game page #ply=%E2%86",
            attribute(&game, "data-errors"),
            drawn(&game),
        ),
    ];
    assert!(
        outcome
            .iter()
            .all(|(_, errors, worked)| *errors == Some("[]") && *worked),
        "(link, script errors, searched or drew): {outcome:?}"
    );
}

/// Adversary: none needed; a reader follows a link to a position
/// (`#frame=K`, the `href` of a variation's move) made before the record
/// was re-exported with fewer variations, or a link with a mistyped
/// number. Attack: `#frame=` beyond the game's frames. `go()` returns
/// without drawing anything, so the page opens with no diagram at all,
/// no move marked and no word of why; `#ply=` past the end is clamped to
/// the last position, `#frame=` should open somewhere too (the start, or
/// the end of the main line).
#[test]
fn a_link_to_a_frame_that_does_not_exist_still_draws_the_board() {
    let (site, code, stderr) = export(&["examples/khan/opening-lesson.yam"]);
    assert_eq!(code, 0, "{stderr}");
    let Some(chromium) = yam_tests::browser::chromium_or_skip() else {
        return;
    };
    let profile = tempfile::tempdir().expect("profile dir");
    let page = &pages(site.path())[0];
    let dom = browse(
        &chromium,
        profile.path(),
        &["--dump-dom"],
        &format!("{}#frame=100000", file_url(page)),
    );
    assert_eq!(attribute(&dom, "data-errors"), Some("[]"), "script errors");
    let figure = &dom[dom.find("id=\"picture\"").expect("the figure")..];
    assert!(
        drawn(&dom),
        "#frame=100000 opened the page with no diagram: {}",
        &figure[..figure.len().min(200)]
    );
}

/// Whether a game page's dumped DOM has a diagram in its figure.
fn drawn(dom: &str) -> bool {
    dom.find("id=\"picture\"")
        .and_then(|at| dom[at..].split("</figure>").next())
        .is_some_and(|figure| figure.contains("<svg"))
}

/// Adversary: whoever sends a reader a link into a published site.
/// Attack: `#selftest=N` with a huge N. The browser test's hook is live on
/// every published page: it presses `→` N times, synchronously, while the
/// page loads, whatever N is (past the end of the game each press does
/// nothing, but it is still dispatched). `#selftest=2000000000` freezes
/// the reader's tab (the page never finishes loading; the browser offers
/// to kill it). A game has no more moves than its frames: stepping past
/// them is wasted, and N should be bounded by them (or the hook kept out
/// of published pages). The page must load in seconds.
#[test]
fn a_huge_selftest_number_in_a_link_does_not_freeze_the_page() {
    let (site, code, stderr) = export(&["examples/khan/opening-lesson.yam"]);
    assert_eq!(code, 0, "{stderr}");
    let Some(chromium) = yam_tests::browser::chromium_or_skip() else {
        return;
    };
    let profile = tempfile::tempdir().expect("profile dir");
    let page = &pages(site.path())[0];
    // A modest probe first: how long a page takes to load here.
    let start = std::time::Instant::now();
    let plain = browse(
        &chromium,
        profile.path(),
        &["--dump-dom"],
        &format!("{}#selftest=6", file_url(page)),
    );
    let normal = start.elapsed();
    assert_eq!(attribute(&plain, "data-selftest"), Some("done"));
    // The attack, given 20 seconds more than a normal load (browse() fails
    // the test after a minute; a frozen page is killed here sooner).
    let mut child = std::process::Command::new(&chromium)
        .args([
            "--headless=new",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--disable-extensions",
            "--allow-file-access-from-files",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("{}#selftest=2000000000", file_url(page)))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromium starts");
    let deadline = std::time::Instant::now() + normal + std::time::Duration::from_secs(20);
    let finished = loop {
        if child.try_wait().expect("wait").is_some() {
            break true;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(
        finished,
        "a page opened with #selftest=2000000000 had not loaded after {:?} (a normal load: {normal:?})",
        normal + std::time::Duration::from_secs(20)
    );
}

/// Adversary: a player who enters a tournament under a right-to-left
/// name, against another. The fix that made record text a bidi isolate
/// (`an_arabic_comment_cannot_reorder_the_result_shown_after_it`) put each
/// player's name in the index's listing in a `<bdi>` (docs/export.md:
/// "players' names ... are `<bdi>` elements"), but the index's search
/// results, drawn by `site.js` from the same rows, join the names as plain
/// text (`White – Black`): two Arabic names and the dash between them are
/// one right-to-left run, so the search shows Black's name where the
/// listing shows White's, the seats swapped for whoever reads the page
/// left to right. The browser is asked where it draws each name: White's
/// must come first in the search results as in the listing.
#[test]
fn a_search_result_does_not_swap_right_to_left_players() {
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = dir.path().join("rtl.yam");
    let white = "\u{623}\u{62D}\u{645}\u{62F}";
    let black = "\u{633}\u{639}\u{64A}\u{62F}";
    std::fs::write(
        &archive,
        format!(
            "[Game \"Khan\"]\n[Variant \"Magician\"]\n[GameId \"rtl\"]\n[Event \"e\"]\n\
             [Date \"2026.01.01\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"1-0\"]\n\
             [NotationVersion \"1\"]\n[Ruleset \"magician\"]\n\n1. Ng3-f3 1-0\n\n"
        ),
    )
    .expect("write");
    let (site, code, stderr) = export(&[archive.to_str().expect("UTF-8 path")]);
    assert_eq!(code, 0, "{stderr}");
    let Some(chromium) = yam_tests::browser::chromium_or_skip() else {
        return;
    };
    let profile = tempfile::tempdir().expect("profile dir");
    // Which name the browser draws further left, in the players cell of
    // the first row shown (the search results when a search is made).
    let probe = format!(
        "<script>window.addEventListener('load', function () {{\n\
         var shown = document.getElementById('results').hidden ? 'listing' : 'results';\n\
         var td = document.querySelector('#' + shown + ' td.players');\n\
         var walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);\n\
         var at = 0, white = [], black = [], n;\n\
         while ((n = walk.nextNode())) {{\n\
           for (var i = 0; i < n.length; i++, at++) {{\n\
             var r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);\n\
             var x = r.getBoundingClientRect().left;\n\
             if (at < {w}) {{ white.push(x); }} else if (at >= {w} + 3) {{ black.push(x); }}\n\
           }}\n\
         }}\n\
         document.documentElement.setAttribute('data-first-drawn', shown + ':' +\n\
           (Math.max.apply(null, white) < Math.min.apply(null, black) ? 'white' : 'black'));\n\
         }});</script>\n</body>",
        w = white.chars().count()
    );
    let index = site.path().join("index.html");
    let html = read(&index).replace("</body>", &probe);
    let probed = site.path().join("probe.html");
    std::fs::write(&probed, html).expect("write the probe");
    let mut seen = Vec::new();
    for fragment in ["", "#text=2026"] {
        let dom = browse(
            &chromium,
            profile.path(),
            &["--dump-dom"],
            &format!("{}{fragment}", file_url(&probed)),
        );
        seen.push(attribute(&dom, "data-first-drawn").map(str::to_owned));
    }
    assert_eq!(
        seen,
        [
            Some("listing:white".to_owned()),
            Some("results:white".to_owned())
        ],
        "which player's name is drawn first (left), in the listing and in the search results"
    );
}
