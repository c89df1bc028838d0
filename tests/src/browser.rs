//! A headless browser for the tests that look at what Yam writes for
//! people (the HTML site, a turn mail's HTML side): Debian's chromium,
//! which scripts/test.sh installs. `YAM_CHROMIUM=/path` picks another
//! Chromium-family browser.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The chromium to drive, or why there is none.
pub fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("YAM_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let found = Command::new("which").arg(name).output().ok()?;
            let path = String::from_utf8(found.stdout).ok()?;
            let path = path.trim();
            (found.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
        })
}

/// The chromium to drive; without one the calling test fails, saying
/// how to get one, unless `YAM_SKIP_BROWSER=1` (then `None`: skip).
pub fn chromium_or_skip() -> Option<PathBuf> {
    if let Some(found) = chromium() {
        return Some(found);
    }
    if std::env::var("YAM_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("YAM_SKIP_BROWSER=1: the browser test is skipped");
        return None;
    }
    panic!(
        "no chromium found (install Debian's chromium: scripts/test.sh does; \
         or set YAM_CHROMIUM=/path/to/chromium, or YAM_SKIP_BROWSER=1 to skip this test)"
    );
}

/// Run headless chromium with `args` on `url`; its standard output. Fails
/// the test if it takes over a minute.
pub fn browse(chromium: &Path, profile: &Path, args: &[&str], url: &str) -> String {
    let mut child = Command::new(chromium)
        .args([
            "--headless=new",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--disable-extensions",
            "--allow-file-access-from-files",
            // The machine's network is closed: no background connections.
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    loop {
        match child.try_wait().expect("wait") {
            Some(_) => break,
            None if Instant::now() > deadline => {
                let _ = child.kill();
                panic!("chromium took over a minute on {url}");
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    reader.join().expect("reader")
}

/// The value of attribute `name` on the first element that has it.
pub fn attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let start = dom.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = dom[start..].find('"')?;
    Some(&dom[start..start + len])
}

/// `path` as a `file://` address.
pub fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}
