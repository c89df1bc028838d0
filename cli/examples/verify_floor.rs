//! `yam verify`'s path against its cryptography floor, for profiles and
//! for timings steadier than one bench run on a shared machine
//! (`docs/performance.md`, "Verify within 1.15x of its floor").
//!
//! `verify_floor FILE MODE [REPS]`, FILE a signed archive (`yam generate
//! --signed`):
//!
//! - `verify`: the archive bench's `verify_all`;
//! - `floor`: its `crypto_floor` over the same events, after loading them;
//! - `load`: the loading alone (subtract it from `floor`'s count);
//! - `both`: each REPS times, back to back, and the ratios;
//! - `check`: `yam check`'s visitor, then the parse alone, in MB/s.

use std::hint::black_box;
use yam_referee::fair_play::hash::Hash32;
use yam_referee::replay::Builtin;
use yam_referee::signed::collect::Item;
use yam_referee::signed::text::decode_event;
use yam_referee::signed::{Collector, Verdict, verify_text};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data = std::fs::read(&args[1]).unwrap();
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    if args[2] == "check" {
        #[derive(Default)]
        struct Nothing;
        impl yam_notation::Visitor for Nothing {
            type Output = ();
            fn end_game(&mut self) {}
        }
        let t = std::time::Instant::now();
        for _ in 0..reps {
            let mut reader = yam_notation::Reader::new(&data[..]);
            let mut checker = yam_referee::check::Checker::new();
            while let Some(out) = reader.read_game(&mut checker).expect("valid") {
                black_box(out);
            }
        }
        let c = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        for _ in 0..reps {
            let mut reader = yam_notation::Reader::new(&data[..]);
            while let Some(out) = reader.read_game(&mut Nothing).expect("valid") {
                black_box(out);
            }
        }
        let p = t.elapsed().as_secs_f64();
        eprintln!(
            "check {:.1} MB/s, parse {:.1} MB/s",
            data.len() as f64 * reps as f64 / c / 1e6,
            data.len() as f64 * reps as f64 / p / 1e6
        );
        return;
    }
    if args[2] == "verify" {
        for _ in 0..reps {
            let mut reader = yam_notation::Reader::new(&data[..]);
            let mut collector = Collector::new();
            while let Some(text) = reader.read_game(&mut collector).expect("valid") {
                let verdict = verify_text(&text, &Builtin);
                assert!(matches!(verdict, Verdict::Verified(_)), "{verdict:?}");
            }
        }
    } else {
        let mut events = Vec::new();
        let mut games = 0;
        let mut reader = yam_notation::Reader::new(&data[..]);
        let mut collector = Collector::new();
        while let Some(text) = reader.read_game(&mut collector).expect("valid") {
            games += 1;
            for item in &text.items {
                if let Item::Event { args, .. } = item {
                    let signed = decode_event(args).expect("a valid event");
                    let bytes = yam_referee::fair_play::encoding::Canonical::to_canonical_bytes(
                        &signed.event,
                    );
                    events.push((signed.event.author, bytes, signed.signature));
                }
            }
        }
        let ruleset = yam_referee::khan::ruleset::BUILTIN
            .iter()
            .find(|(name, _)| *name == "rescue-khan")
            .map_or("", |(_, text)| text);
        eprintln!("{} events {} games", events.len(), games);
        if args[2] == "both" {
            let mut ratios = Vec::new();
            let (mut vmin, mut fmin) = (f64::MAX, f64::MAX);
            for _ in 0..reps {
                let t = std::time::Instant::now();
                let mut reader = yam_notation::Reader::new(&data[..]);
                let mut collector = Collector::new();
                while let Some(text) = reader.read_game(&mut collector).expect("valid") {
                    let verdict = verify_text(&text, &Builtin);
                    assert!(matches!(verdict, Verdict::Verified(_)), "{verdict:?}");
                }
                let v = t.elapsed().as_secs_f64();
                let t = std::time::Instant::now();
                for (key, bytes, signature) in &events {
                    key.verify(bytes, signature).expect("a valid signature");
                    black_box(Hash32::of(bytes));
                }
                for _ in 0..games {
                    black_box(Hash32::of(ruleset.as_bytes()));
                }
                let f = t.elapsed().as_secs_f64();
                vmin = vmin.min(v);
                fmin = fmin.min(f);
                ratios.push(v / f);
            }
            ratios.sort_by(|a, b| a.partial_cmp(b).unwrap());
            println!(
                "min verify {vmin:.4} s, min floor {fmin:.4} s, ratio of mins {:.3}, median ratio {:.3}",
                vmin / fmin,
                ratios[ratios.len() / 2]
            );
        }
        if args[2] == "floor" {
            for _ in 0..reps {
                for (key, bytes, signature) in &events {
                    key.verify(bytes, signature).expect("a valid signature");
                    black_box(Hash32::of(bytes));
                }
                for _ in 0..games {
                    black_box(Hash32::of(ruleset.as_bytes()));
                }
            }
        }
    }
}
