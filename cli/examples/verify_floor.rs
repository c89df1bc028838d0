//! `yam verify`'s path against its cryptography floor, for profiles and
//! for timings steadier than one bench run on a shared machine
//! (`docs/performance.md`, "Verify within 1.15x of its floor"). The work
//! measured is the archive bench's own (`benches/shared/work.rs`).
//!
//! `verify_floor FILE MODE [REPS]`, FILE a signed archive (`yam generate
//! --signed`):
//!
//! - `verify`: the archive bench's `verify_all`;
//! - `floor`: its `crypto_floor` over the same events, after loading them;
//! - `load`: the loading alone (subtract it from `floor`'s count);
//! - `both`: each REPS times, back to back, and the ratios;
//! - `check`: `yam check`'s visitor, then the parse alone, in MB/s.

use std::time::Instant;

#[path = "../benches/shared/work.rs"]
mod work;
use work::{Nothing, crypto_floor, read_all, signed_events, verify_all};

/// Seconds `f` takes `reps` times.
fn timed(reps: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(mode)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: verify_floor FILE verify|floor|load|both|check [REPS]");
        std::process::exit(2);
    };
    let data = std::fs::read(file).expect("the signed archive");
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    match mode.as_str() {
        "check" => {
            let c = timed(reps, || {
                read_all(&data, &mut yam_referee::check::Checker::new())
            });
            let p = timed(reps, || read_all(&data, &mut Nothing));
            let mb = data.len() as f64 * reps as f64 / 1e6;
            eprintln!("check {:.1} MB/s, parse {:.1} MB/s", mb / c, mb / p);
        }
        "verify" => {
            timed(reps, || verify_all(&data));
        }
        _ => {
            let signed = signed_events(&data);
            eprintln!("{} events {} games", signed.events.len(), signed.games);
            match mode.as_str() {
                "both" => {
                    let mut ratios = Vec::new();
                    let (mut vmin, mut fmin) = (f64::MAX, f64::MAX);
                    for _ in 0..reps {
                        let v = timed(1, || verify_all(&data));
                        let f = timed(1, || crypto_floor(&signed));
                        vmin = vmin.min(v);
                        fmin = fmin.min(f);
                        ratios.push(v / f);
                    }
                    ratios.sort_by(f64::total_cmp);
                    println!(
                        "min verify {vmin:.4} s, min floor {fmin:.4} s, ratio of mins {:.3}, median ratio {:.3}",
                        vmin / fmin,
                        ratios[ratios.len() / 2]
                    );
                }
                "floor" => {
                    timed(reps, || crypto_floor(&signed));
                }
                // `load`: the events decoded, nothing more.
                _ => {}
            }
        }
    }
}
