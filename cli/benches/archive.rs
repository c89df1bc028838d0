//! Archive scale, in one run: Yam's parse, rules replay and signed
//! verification beside pgn-reader 0.29 and shakmaty 0.30, and the floor of
//! the cryptography `yam verify` must do.
//!
//! `cargo bench -p yam-cli --bench archive`
//!
//! - `yam-khan/parse`: the envelope alone (a visitor that does nothing) over
//!   generated plain Khan records (`notation/benches/data/khan.yam`, written
//!   by `yam generate`) repeated to the peer corpus's size.
//! - `yam-khan/check`: the same bytes through `yam check`'s visitor (every
//!   move resolved and checked against every rule, no cryptography).
//! - `pgn-reader/parse` and `pgn-reader/validate`: the lichess sample
//!   (`../shared/bench/lichess_db_1000k.pgn`, or `$YAM_PEER_PGN`) repeated
//!   100 times; `validate` plays every move with shakmaty.
//! - `yam-signed/verify`: signed Khan peer games (`yam generate --signed`,
//!   `$YAM_BENCH_SIGNED` games, default 100) through `yam verify`'s path:
//!   every signature, hash link, the ruleset hash and the rules.
//! - `yam-signed/crypto-floor`: the same number of strict ed25519
//!   verifications over the same event bytes and SHA-256 hashes of them
//!   (one per event for its hash link, one ruleset text per game), nothing
//!   else. ed25519-dalek's batch verification is not strict (it accepts
//!   signatures `verify_strict` refuses), so the floor, like `yam verify`,
//!   verifies one signature at a time.
//!
//! Every input is read from memory through the streaming `Read` API. After
//! criterion's report, a table gives the median MB/s and moves/s of each
//! benchmark and the ratios the targets in `docs/performance.md` name.
//!
//! Criterion measures each benchmark for about twelve seconds, one after
//! the other, so a change in the machine's load between two of them moves
//! their ratio. The run then ends with the three comparisons of the
//! targets (parse, check, verify) measured again side by side:
//! `$YAM_BENCH_ROUNDS` rounds (default 9; 0 skips them), each timing Yam's
//! whole input and then the other's, the order swapped every round, and
//! the median and range of the rounds' ratios. Only the pairs whose both
//! sides the run measured are compared (a filtered run compares nothing
//! it did not ask for).

use std::sync::OnceLock;

use criterion::Criterion;
use yam_notation::{Span, TokenError, Visitor};
use yam_referee::check::Checker;

// ---------------------------------------------------------------------------
// Inputs

#[path = "../../notation/benches/shared/inputs.rs"]
mod inputs;
use inputs::{Input, peer_input, repeat_to, target_bytes};
#[path = "../../notation/benches/shared/measure.rs"]
mod measure;
use measure::{SAMPLE_SIZE, bench, measured};
#[path = "shared/work.rs"]
mod work;
use work::{Nothing, SignedEvents, crypto_floor, read_all, signed_events, verify_all};

fn khan_input() -> &'static Input {
    static INPUT: OnceLock<Input> = OnceLock::new();
    INPUT.get_or_init(|| {
        let seed = include_bytes!("../../notation/benches/data/khan.yam");
        let data = repeat_to(seed, target_bytes());
        let mut count = CountMoves::default();
        let mut reader = yam_notation::Reader::new(&data[..]);
        while reader
            .read_game(&mut count)
            .expect("the benchmark archive is valid")
            .is_some()
        {}
        Input {
            data,
            moves: count.moves,
            games: count.games,
        }
    })
}

/// Signed games, and for the floor each event's key, bytes and signature.
struct Signed {
    input: Input,
    events: SignedEvents,
}

fn signed_input() -> &'static Signed {
    static INPUT: OnceLock<Signed> = OnceLock::new();
    INPUT.get_or_init(|| {
        let games = std::env::var("YAM_BENCH_SIGNED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(100);
        let dir = std::env::temp_dir().join(format!("yam-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let path = dir.join("signed.yam");
        let code = yam_cli::run([
            "yam".into(),
            "generate".into(),
            "--game-type".into(),
            "khan".into(),
            "--games".into(),
            std::ffi::OsString::from(games.to_string()),
            "--seed".into(),
            "1".into(),
            "--max-plies".into(),
            "600".into(),
            "--signed".into(),
            "-o".into(),
            path.clone().into_os_string(),
        ]);
        assert_eq!(code, 0, "yam generate --signed");
        let data = std::fs::read(&path).expect("the signed archive");
        let _ = std::fs::remove_dir_all(&dir);
        let events = signed_events(&data);
        Signed {
            input: Input {
                data,
                moves: events.moves,
                games: events.games,
            },
            events,
        }
    })
}

// ---------------------------------------------------------------------------
// Yam's work

#[derive(Default)]
struct CountMoves {
    moves: u64,
    games: u64,
}

impl Visitor for CountMoves {
    type Output = ();
    fn token(&mut self, _token: &str, _span: Span) -> Result<(), TokenError> {
        self.moves += 1;
        Ok(())
    }
    fn end_game(&mut self) {
        self.games += 1;
    }
}

// ---------------------------------------------------------------------------
// pgn-reader

#[path = "../../notation/benches/shared/peer.rs"]
mod peer;

// ---------------------------------------------------------------------------
// Measurement and summary

fn archive(c: &mut Criterion) {
    let khan = khan_input();
    bench(c, "yam-khan", "parse", khan, |d| read_all(d, &mut Nothing));
    bench(c, "yam-khan", "check", khan, |d| {
        read_all(d, &mut Checker::new())
    });
    if let Some(peer) = peer_input() {
        bench(c, "pgn-reader", "parse", peer, |d| {
            peer::read_all(d, &mut peer::Nothing)
        });
        bench(c, "pgn-reader", "validate", peer, |d| {
            peer::read_all(d, &mut peer::Validate)
        });
    }
    let signed = signed_input();
    bench(c, "yam-signed", "verify", &signed.input, verify_all);
    bench(c, "yam-signed", "crypto-floor", &signed.input, |_| {
        crypto_floor(&signed_input().events)
    });
}

fn summary() {
    let all = measured();
    if all.is_empty() {
        return;
    }
    println!();
    println!("Median of {SAMPLE_SIZE} samples per benchmark:");
    println!();
    println!("| benchmark | input MB | games | moves | s | MB/s | Mmoves/s |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for m in all.values() {
        println!(
            "| {} | {:.1} | {} | {} | {:.3} | {:.1} | {:.2} |",
            m.id,
            m.input.data.len() as f64 / 1e6,
            m.input.games,
            m.input.moves,
            m.secs,
            m.mb_per_sec(),
            m.moves_per_sec() / 1e6,
        );
    }
    println!();
    let ratio = |a: &str, b: &str| match (all.get(a), all.get(b)) {
        (Some(a), Some(b)) => format!(
            "{:.2}x MB/s, {:.2}x moves/s",
            a.mb_per_sec() / b.mb_per_sec(),
            a.moves_per_sec() / b.moves_per_sec()
        ),
        _ => "-".to_owned(),
    };
    println!(
        "yam parse / pgn-reader parse: {}",
        ratio("yam-khan/parse", "pgn-reader/parse")
    );
    println!(
        "yam check / pgn-reader+shakmaty validate: {}",
        ratio("yam-khan/check", "pgn-reader/validate")
    );
    if let (Some(v), Some(f)) = (
        all.get("yam-signed/verify"),
        all.get("yam-signed/crypto-floor"),
    ) {
        println!(
            "yam verify time / crypto floor time: {:.2}x ({} events)",
            v.secs / f.secs,
            signed_input().events.events.len()
        );
    }
}

/// Seconds one call of `run` takes.
fn seconds(run: impl FnOnce()) -> f64 {
    let start = std::time::Instant::now();
    run();
    start.elapsed().as_secs_f64()
}

/// The median and the range of `ratios` (not empty), as text.
fn spread(ratios: &mut [f64]) -> String {
    ratios.sort_by(f64::total_cmp);
    let n = ratios.len();
    let median = if n % 2 == 1 {
        ratios[n / 2]
    } else {
        (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0
    };
    format!(
        "median {median:.2}x (from {:.2}x to {:.2}x over {n} rounds)",
        ratios[0],
        ratios[n - 1]
    )
}

/// The seconds `yam` and `other` take, round by round, both in each
/// round, the order swapped every round.
fn in_turns(rounds: usize, yam: impl Fn(), other: impl Fn()) -> Vec<(f64, f64)> {
    (0..rounds)
        .map(|round| {
            if round % 2 == 0 {
                let y = seconds(&yam);
                (y, seconds(&other))
            } else {
                let o = seconds(&other);
                (seconds(&yam), o)
            }
        })
        .collect()
}

/// Yam's work on the Khan input against the peer's on the lichess sample,
/// side by side for `rounds` rounds: the line giving the ratios of their
/// MB/s, when the peer's sample is there.
fn against_peer(
    rounds: usize,
    label: &str,
    yam: impl Fn(&[u8]),
    other: impl Fn(&[u8]),
) -> Option<String> {
    let peer = peer_input()?;
    let khan = khan_input();
    let mb = |input: &Input, secs: f64| input.data.len() as f64 / secs;
    let mut ratios: Vec<f64> = in_turns(rounds, || yam(&khan.data), || other(&peer.data))
        .into_iter()
        .map(|(yam, other)| mb(khan, yam) / mb(peer, other))
        .collect();
    Some(format!("{label}, MB/s: {}", spread(&mut ratios)))
}

/// The targets' three comparisons timed side by side, round by round (see
/// the module's documentation): each round's ratio has both sides under
/// the same load.
fn alternated() {
    let rounds: usize = std::env::var("YAM_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    if rounds == 0 {
        return;
    }
    let all = measured();
    let has = |id: &str| all.contains_key(id);
    let mut lines = Vec::new();
    if has("yam-khan/parse") && has("pgn-reader/parse") {
        lines.extend(against_peer(
            rounds,
            "yam parse / pgn-reader parse",
            |d| read_all(d, &mut Nothing),
            |d| peer::read_all(d, &mut peer::Nothing),
        ));
    }
    if has("yam-khan/check") && has("pgn-reader/validate") {
        lines.extend(against_peer(
            rounds,
            "yam check / pgn-reader+shakmaty validate",
            |d| read_all(d, &mut Checker::new()),
            |d| peer::read_all(d, &mut peer::Validate),
        ));
    }
    if has("yam-signed/verify") && has("yam-signed/crypto-floor") {
        let signed = signed_input();
        let mut ratios: Vec<f64> = in_turns(
            rounds,
            || verify_all(&signed.input.data),
            || crypto_floor(&signed.events),
        )
        .into_iter()
        .map(|(verify, floor)| verify / floor)
        .collect();
        lines.push(format!(
            "yam verify time / crypto floor time: {}",
            spread(&mut ratios)
        ));
    }
    if !lines.is_empty() {
        println!();
        println!("Side by side, each round both sides in turn (the order swapped every round):");
        println!();
        for line in lines {
            println!("{line}");
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    archive(&mut c);
    c.final_summary();
    summary();
    alternated();
}
