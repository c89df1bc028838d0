//! Measuring with criterion while keeping every sample's time, so that a
//! benchmark can end with a table of medians and ratios measured in the
//! same run. Shared by `notation/benches/throughput.rs` and
//! `cli/benches/archive.rs` (`#[path]`, beside `inputs.rs`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};

use super::inputs::Input;

/// Per-iteration times of every sample criterion took, by benchmark.
struct Samples {
    times: BTreeMap<String, Vec<Duration>>,
    inputs: BTreeMap<String, &'static Input>,
}

thread_local! {
    static SAMPLES: RefCell<Samples> = const {
        RefCell::new(Samples { times: BTreeMap::new(), inputs: BTreeMap::new() })
    };
}

pub const SAMPLE_SIZE: usize = 10;

/// Benchmark `run` over `input`, keeping criterion's per-sample times.
pub fn bench(c: &mut Criterion, group: &str, name: &str, input: &'static Input, run: fn(&[u8])) {
    let id = format!("{group}/{name}");
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Bytes(input.data.len() as u64));
    g.sample_size(SAMPLE_SIZE);
    g.warm_up_time(Duration::from_secs(2));
    g.measurement_time(Duration::from_secs(10));
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                run(black_box(&input.data));
            }
            let elapsed = start.elapsed();
            SAMPLES.with_borrow_mut(|s| {
                s.times
                    .entry(id.clone())
                    .or_default()
                    .push(elapsed / iters as u32);
                s.inputs.insert(id.clone(), input);
            });
            elapsed
        })
    });
    g.finish();
}

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }
}

/// One benchmark's median, as measured in this run.
pub struct Measured {
    pub id: String,
    pub input: &'static Input,
    pub secs: f64,
}

impl Measured {
    pub fn mb_per_sec(&self) -> f64 {
        self.input.data.len() as f64 / 1e6 / self.secs
    }
    pub fn moves_per_sec(&self) -> f64 {
        self.input.moves as f64 / self.secs
    }
}

/// Every benchmark measured in this run, by id, with its median time.
pub fn measured() -> BTreeMap<String, Measured> {
    SAMPLES.with_borrow(|s| {
        s.times
            .iter()
            .map(|(id, times)| {
                // Criterion's measurement samples are the last SAMPLE_SIZE
                // calls; the ones before them are its warm-up.
                let last = &times[times.len().saturating_sub(SAMPLE_SIZE)..];
                let m = Measured {
                    id: id.clone(),
                    input: s.inputs[id],
                    secs: median(last).as_secs_f64(),
                };
                (id.clone(), m)
            })
            .collect()
    })
}
