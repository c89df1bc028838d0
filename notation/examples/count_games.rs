//! Reads archives with a visitor that does nothing but count: the speed of
//! the envelope alone. `cargo run --release --example count_games -- FILE...`

use yam_notation::{Reader, Visitor};

struct Count(u64);

impl Visitor for Count {
    type Output = ();
    fn end_game(&mut self) {
        self.0 += 1;
    }
}

fn main() {
    for path in std::env::args().skip(1) {
        let start = std::time::Instant::now();
        let file = std::fs::File::open(&path).expect("readable file");
        let mut reader = Reader::new(file);
        let mut count = Count(0);
        let mut errors = 0u64;
        loop {
            match reader.read_game(&mut count) {
                Ok(Some(())) => {}
                Ok(None) => break,
                Err(_) => errors += 1,
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let mb = reader.bytes_read() as f64 / 1e6;
        println!(
            "{path}: {} games, {errors} errors, {mb:.1} MB in {secs:.3} s: {:.0} MB/s",
            count.0,
            mb / secs
        );
    }
}
