//! The CPU one incoming turn mail costs inside Yam, without the process
//! start: `cargo run --release -p yam-cli --example mail_cpu -- DESK MAIL [N]`.
//!
//! DESK is a player's data directory (with its config.yaml), MAIL a turn
//! mail for one of its games. Each of N rounds copies DESK afresh (not
//! timed), then runs `yam read --eml MAIL` on it in this process (timed):
//! the desk opened, the mail read, verified and applied, the automatic
//! steps taken and the answer sent. CPU time is the thread's own, from
//! /proc/thread-self/schedstat (nanoseconds; Linux only).
//!
//! `scripts/mail-cpu-inputs.sh OUT` makes pairs of them: a Castle Siege
//! game played by two desks through the directory transport, each incoming
//! roll request kept with the desk that reads it.

use std::path::Path;

fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

/// The thread's user and system time so far, in clock ticks (10 ms each:
/// summed over many rounds, they split the total well enough).
fn user_system_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // The fields after the command name, which ends with the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<u64> = rest
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13
    // after the name.
    (
        fields.get(11).copied().unwrap_or(0),
        fields.get(12).copied().unwrap_or(0),
    )
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a scratch directory");
    for entry in std::fs::read_dir(from).expect("the desk").flatten() {
        let (p, t) = (entry.path(), to.join(entry.file_name()));
        if p.is_dir() {
            copy(&p, &t);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&p).map(|m| m.permissions().mode());
                if let Ok(mode) = mode {
                    let _ = std::fs::set_permissions(&t, std::fs::Permissions::from_mode(mode));
                }
            }
        } else {
            std::fs::copy(&p, &t).expect("a desk file");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(desk), Some(mail)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: mail_cpu DESK MAIL [N]");
        std::process::exit(2);
    };
    let rounds: u64 = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(20);
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let mut total = 0u64;
    let mut each = Vec::new();
    let (mut user, mut system) = (0u64, 0u64);
    for round in 0..rounds {
        let dir = scratch.path().join(round.to_string());
        copy(Path::new(desk), &dir);
        // A real desk's files were written long before the mail came: the
        // copy's dirty pages and metadata are flushed first, or the mail's
        // own fsyncs would pay for them (ext4 without a journal writes a
        // file's dirty directory blocks along with it).
        std::process::Command::new("sync")
            .status()
            .expect("sync runs");
        let start = cpu_ns();
        let ticks = user_system_ticks();
        let code = yam_cli::run([
            "yam".into(),
            "read".into(),
            "--eml".into(),
            std::ffi::OsString::from(mail),
            "--data-dir".into(),
            dir.clone().into_os_string(),
        ]);
        let spent = cpu_ns() - start;
        let after = user_system_ticks();
        user += after.0 - ticks.0;
        system += after.1 - ticks.1;
        assert_eq!(code, 0, "the mail was not applied");
        total += spent;
        each.push(spent);
    }
    each.sort_unstable();
    println!(
        "{rounds} rounds: median {:.2} ms, mean {:.2} ms of CPU per mail (desk opened, mail read, verified, applied, answered, sent)",
        each[each.len() / 2] as f64 / 1e6,
        total as f64 / rounds as f64 / 1e6
    );
    let ticks = (user + system).max(1) as f64;
    println!(
        "of which user {:.0}%, system {:.0}% (clock ticks over all rounds)",
        100.0 * user as f64 / ticks,
        100.0 * system as f64 / ticks
    );
}
