//! One parse-only pass over a file held in memory, by Yam's reader or by
//! pgn-reader 0.29, with visitors that do nothing: the two sides of the
//! parse comparison (`cli/benches/archive.rs`) in one small binary, so
//! that each can be counted under valgrind (instructions a byte) without
//! criterion's repetitions.
//!
//! `cargo run --release -p yam-notation --example parse_only -- yam|peer FILE`

use std::hint::black_box;

use yam_notation::{Reader, Visitor};

#[path = "../benches/shared/peer.rs"]
#[allow(dead_code)]
mod peer;

/// Counts games; does nothing else (the archive bench's `Nothing`).
struct Count(u64);

impl Visitor for Count {
    type Output = ();
    fn end_game(&mut self) {
        self.0 += 1;
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(which), Some(path)) = (args.next(), args.next()) else {
        eprintln!("usage: parse_only yam|peer FILE");
        std::process::exit(2);
    };
    let data = std::fs::read(&path).expect("readable file");
    let start = std::time::Instant::now();
    let games = match which.as_str() {
        "yam" => {
            let mut count = Count(0);
            let mut reader = Reader::new(&data[..]);
            while let Some(out) = reader.read_game(&mut count).expect("a valid archive") {
                black_box(out);
            }
            Some(count.0)
        }
        "peer" => {
            // The bench's visitor, which counts nothing.
            peer::read_all(&data, &mut peer::Nothing);
            None
        }
        _ => {
            eprintln!("usage: parse_only yam|peer FILE");
            std::process::exit(2);
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let mb = data.len() as f64 / 1e6;
    println!(
        "{which} {path}: {} games, {mb:.1} MB in {secs:.3} s: {:.0} MB/s",
        games.map_or("?".to_owned(), |g| g.to_string()),
        mb / secs
    );
}
