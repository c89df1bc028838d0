//! Parses each mail named on the command line with mail-parser 0.11.9 as
//! published and with Yam's patched copy (../YAM-PATCH.md), checks that
//! both give the same message, and prints the time of a warm parse with
//! each: the fastest of 15 rounds of 200 parses, the two alternated in
//! every round so that both see the same machine.
//!
//!     cargo run --release --manifest-path vendor/mail-parser/bench/Cargo.toml -- MAIL...

use std::hint::black_box;
use std::time::Instant;

const ROUNDS: usize = 15;
const PARSES: u32 = 200;

fn main() {
    let mails: Vec<String> = std::env::args().skip(1).collect();
    if mails.is_empty() {
        eprintln!("usage: mail-parser-patch-bench MAIL...");
        std::process::exit(2);
    }
    for path in mails {
        let raw = match std::fs::read(&path) {
            Ok(raw) => raw,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        };
        let published = format!("{:?}", published::MessageParser::default().parse(&raw[..]));
        let patched = format!("{:?}", patched::MessageParser::default().parse(&raw[..]));
        if published != patched {
            eprintln!("{path}: the patched copy parses it differently");
            std::process::exit(1);
        }
        let mut fastest = [f64::MAX; 2];
        for _ in 0..ROUNDS {
            for (which, fastest) in fastest.iter_mut().enumerate() {
                let start = Instant::now();
                for _ in 0..PARSES {
                    if which == 0 {
                        black_box(published::MessageParser::default().parse(black_box(&raw[..])));
                    } else {
                        black_box(patched::MessageParser::default().parse(black_box(&raw[..])));
                    }
                }
                let us = start.elapsed().as_secs_f64() * 1e6 / f64::from(PARSES);
                *fastest = fastest.min(us);
            }
        }
        println!(
            "{path}: {} bytes; published {:.1} us, patched {:.1} us: {:.2}x as fast",
            raw.len(),
            fastest[0],
            fastest[1],
            fastest[0] / fastest[1]
        );
    }
}
