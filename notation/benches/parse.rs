//! Parse throughput in MB/s over an archive of Khan games.
//!
//! `cargo bench -p yam-notation`. Three depths of work: the envelope alone
//! (a visitor that does nothing), every token parsed by the Khan grammar,
//! and owned records built for every game.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use yam_notation::khan::KhanGrammar;
use yam_notation::{MoveGrammar, Reader, RecordBuilder, Span, TokenError, Visitor};

/// One annotated game; the archive repeats it with distinct ids.
const GAME: &str = include_str!("../../examples/khan/opening-lesson.yam");

fn archive(target_bytes: usize) -> Vec<u8> {
    let mut out = String::with_capacity(target_bytes + GAME.len());
    let mut i = 0;
    while out.len() < target_bytes {
        out.push_str(&GAME.replace("example-khan-opening-lesson", &format!("bench-{i}")));
        out.push('\n');
        i += 1;
    }
    out.into_bytes()
}

/// Counts games; does nothing else.
struct Envelope(u64);

impl Visitor for Envelope {
    type Output = ();
    fn end_game(&mut self) {
        self.0 += 1;
    }
}

/// Parses every move token with the Khan grammar.
struct KhanTokens(u64);

impl Visitor for KhanTokens {
    type Output = ();
    fn token(&mut self, token: &str, _span: Span) -> Result<(), TokenError> {
        black_box(KhanGrammar::parse_move(token)?);
        self.0 += 1;
        Ok(())
    }
    fn end_game(&mut self) {}
}

fn read_all<V: Visitor>(data: &[u8], visitor: &mut V) {
    let mut reader = Reader::new(data);
    while let Some(out) = reader.read_game(visitor).expect("the archive is valid") {
        black_box(out);
    }
}

fn parse(c: &mut Criterion) {
    let data = archive(8 << 20);
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(20);
    group.bench_function("envelope", |b| b.iter(|| read_all(&data, &mut Envelope(0))));
    group.bench_function("khan-tokens", |b| {
        b.iter(|| read_all(&data, &mut KhanTokens(0)))
    });
    group.bench_function("records", |b| {
        b.iter(|| read_all(&data, &mut RecordBuilder::<KhanGrammar>::new()))
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
