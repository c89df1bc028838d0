//! Archive-scale parse throughput, Yam against pgn-reader, in one run.
//!
//! `cargo bench -p yam-notation --bench throughput`
//!
//! - Yam: generated archives of each game (plain records, no fair-play
//!   evidence: `benches/data/*.yam`, written by `yam generate`, see
//!   `docs/performance.md`), repeated to the size of the peer corpus. Two
//!   depths of work: a visitor that does nothing (`parse`), and one that
//!   parses every move token with the game's grammar (`tokens`).
//! - Peer: pgn-reader 0.29 on the lichess sample
//!   (`../shared/bench/lichess_db_1000k.pgn`, or `$YAM_PEER_PGN`) repeated
//!   100 times: a visitor that does nothing (`parse`; pgn-reader still parses
//!   every move's SAN), and shakmaty 0.30 playing every move (`validate`).
//!
//! Both readers read from memory through their `Read`-based streaming API,
//! with the same buffer-refill work as reading a file in the page cache.
//! After criterion's own report, a table gives the median MB/s and moves/s
//! of each benchmark and the ratio of each Yam figure to pgn-reader's parse.
//! `YAM_BENCH_MB` sets the input size (default: 100 copies of the sample).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::OnceLock;

use criterion::Criterion;
use yam_notation::castle_siege::CastleSiegeGrammar;
use yam_notation::genghis_khan::GenghisKhanGrammar;
use yam_notation::khan::KhanGrammar;
use yam_notation::{MoveGrammar, Span, TokenError};

// ---------------------------------------------------------------------------
// Inputs

#[path = "shared/inputs.rs"]
mod inputs;
use inputs::{Input, peer_input, repeat_to, target_bytes};
#[path = "shared/measure.rs"]
mod measure;
use measure::{SAMPLE_SIZE, bench, measured};

fn yam_input(game: &'static str) -> &'static Input {
    static INPUTS: OnceLock<std::sync::Mutex<BTreeMap<&'static str, &'static Input>>> =
        OnceLock::new();
    let map = INPUTS.get_or_init(Default::default);
    let mut map = map.lock().unwrap();
    map.entry(game).or_insert_with(|| {
        let seed = match game {
            "khan" => &include_bytes!("data/khan.yam")[..],
            "castle-siege" => &include_bytes!("data/castle-siege.yam")[..],
            "genghis-khan" => &include_bytes!("data/genghis-khan.yam")[..],
            _ => unreachable!(),
        };
        let data = repeat_to(seed, target_bytes());
        let mut count = yam::CountMoves::default();
        let mut reader = yam_notation::Reader::new(&data[..]);
        while reader
            .read_game(&mut count)
            .expect("the benchmark archive is valid")
            .is_some()
        {}
        Box::leak(Box::new(Input {
            data,
            moves: count.moves,
            games: count.games,
        }))
    })
}

// ---------------------------------------------------------------------------
// Yam visitors

mod yam {
    use super::*;
    use yam_notation::Visitor;

    /// Does nothing: the envelope alone.
    pub struct Nothing;

    impl Visitor for Nothing {
        type Output = ();
        fn end_game(&mut self) {}
    }

    /// Parses every move token with the game's grammar.
    pub struct Tokens<G>(pub std::marker::PhantomData<G>);

    impl<G: MoveGrammar> Visitor for Tokens<G> {
        type Output = ();
        fn token(&mut self, token: &str, _span: Span) -> Result<(), TokenError> {
            black_box(G::parse_move(token)?);
            Ok(())
        }
        fn end_game(&mut self) {}
    }

    #[derive(Default)]
    pub struct CountMoves {
        pub moves: u64,
        pub games: u64,
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

    pub fn read_all<V: Visitor>(data: &[u8], visitor: &mut V) {
        let mut reader = yam_notation::Reader::new(data);
        while let Some(out) = reader.read_game(visitor).expect("the archive is valid") {
            black_box(out);
        }
    }
}

// ---------------------------------------------------------------------------
// pgn-reader visitors

#[path = "shared/peer.rs"]
mod peer;

// ---------------------------------------------------------------------------
// Measurement and summary

fn throughput(c: &mut Criterion) {
    // The lazily built inputs are only built when a benchmark runs; the
    // closures below are only called by criterion when the filter matches.
    type Run = fn(&[u8]);
    let yam: [(&str, Run, Run); 3] = [
        (
            "khan",
            |d| yam::read_all(d, &mut yam::Nothing),
            |d| yam::read_all(d, &mut yam::Tokens::<KhanGrammar>(Default::default())),
        ),
        (
            "castle-siege",
            |d| yam::read_all(d, &mut yam::Nothing),
            |d| {
                yam::read_all(
                    d,
                    &mut yam::Tokens::<CastleSiegeGrammar>(Default::default()),
                )
            },
        ),
        (
            "genghis-khan",
            |d| yam::read_all(d, &mut yam::Nothing),
            |d| {
                yam::read_all(
                    d,
                    &mut yam::Tokens::<GenghisKhanGrammar>(Default::default()),
                )
            },
        ),
    ];
    for (game, parse, tokens) in yam {
        let group = format!("yam-{game}");
        if filtered_out(&group, &["parse", "tokens"]) {
            continue;
        }
        let input = yam_input(game);
        bench(c, &group, "parse", input, parse);
        bench(c, &group, "tokens", input, tokens);
    }
    if !filtered_out("pgn-reader", &["parse", "validate"])
        && let Some(input) = peer_input()
    {
        bench(c, "pgn-reader", "parse", input, |d| {
            peer::read_all(d, &mut peer::Nothing)
        });
        bench(c, "pgn-reader", "validate", input, |d| {
            peer::read_all(d, &mut peer::Validate)
        });
    }
}

/// Whether the command-line filters exclude every benchmark of `group`, so
/// that its 100 MB input need not be built. (Criterion reads a filter as a
/// regular expression; one with metacharacters is taken to match.)
fn filtered_out(group: &str, names: &[&str]) -> bool {
    const WITH_VALUE: &[&str] = &[
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--profile-time",
        "--output-format",
        "--color",
        "--plotting-backend",
        "--format",
    ];
    let mut filters = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if WITH_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            filters.push(arg);
        }
    }
    let matches = |f: &str| {
        f.contains(|c: char| "\\.*+?()[]{}|^$".contains(c))
            || names.iter().any(|n| format!("{group}/{n}").contains(f))
    };
    !filters.is_empty() && !filters.iter().any(|f| matches(f))
}

fn summary() {
    let all = measured();
    if all.is_empty() {
        return;
    }
    let peer_parse = all.get("pgn-reader/parse").map(|m| m.mb_per_sec());
    println!();
    println!("Median of {SAMPLE_SIZE} samples per benchmark:");
    println!();
    println!("| benchmark | input MB | games | moves | MB/s | Mmoves/s | x pgn-reader parse |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for m in all.values() {
        let mbs = m.mb_per_sec();
        let ratio = peer_parse.map_or("-".to_owned(), |p| format!("{:.2}", mbs / p));
        println!(
            "| {} | {:.1} | {} | {} | {mbs:.0} | {:.1} | {ratio} |",
            m.id,
            m.input.data.len() as f64 / 1e6,
            m.input.games,
            m.input.moves,
            m.moves_per_sec() / 1e6,
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    throughput(&mut c);
    c.final_summary();
    summary();
}
