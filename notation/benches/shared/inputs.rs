//! The inputs both benchmarks measure on: the lichess sample (the peer
//! corpus) and every input repeated to one size. Shared by
//! `notation/benches/throughput.rs` and `cli/benches/archive.rs` (`#[path]`;
//! both crates sit one level below the workspace, so the sample's relative
//! path is the same for both).

use std::path::PathBuf;
use std::sync::OnceLock;

const SAMPLE_COPIES: usize = 100;

pub fn peer_path() -> PathBuf {
    match std::env::var_os("YAM_PEER_PGN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/bench/lichess_db_1000k.pgn"),
    }
}

pub fn peer_sample() -> Option<&'static [u8]> {
    static SAMPLE: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    SAMPLE
        .get_or_init(|| match std::fs::read(peer_path()) {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                eprintln!(
                    "peer corpus {} not readable ({e}); set YAM_PEER_PGN. Skipping pgn-reader.",
                    peer_path().display()
                );
                None
            }
        })
        .as_deref()
}

/// The size every input is repeated to.
pub fn target_bytes() -> usize {
    if let Some(mb) = std::env::var("YAM_BENCH_MB")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        return mb * 1_000_000;
    }
    peer_sample().map_or(100_000_000, |s| s.len() * SAMPLE_COPIES)
}

/// `seed` repeated (whole) until it is at least `target` bytes long.
pub fn repeat_to(seed: &[u8], target: usize) -> Vec<u8> {
    let copies = target.div_ceil(seed.len()).max(1);
    let mut out = Vec::with_capacity(copies * (seed.len() + 1));
    for _ in 0..copies {
        out.extend_from_slice(seed);
        if !seed.ends_with(b"\n\n") {
            out.push(b'\n');
        }
    }
    out
}

/// One benchmark input, built on first use (so that a filtered run builds
/// only what it measures), with the number of moves it holds.
pub struct Input {
    pub data: Vec<u8>,
    pub moves: u64,
    pub games: u64,
}

/// The lichess sample repeated to the benchmarks' size, with its games and
/// moves counted by pgn-reader (`super::peer`: both benchmarks include it).
pub fn peer_input() -> Option<&'static Input> {
    static INPUT: OnceLock<Option<Input>> = OnceLock::new();
    INPUT
        .get_or_init(|| {
            let sample = peer_sample()?;
            let data = repeat_to(sample, target_bytes());
            let mut count = super::peer::CountMoves::default();
            let mut reader = pgn_reader::Reader::new(&data[..]);
            while reader.read_game(&mut count).expect("in memory").is_some() {}
            Some(Input {
                data,
                moves: count.moves,
                games: count.games,
            })
        })
        .as_ref()
}
