//! One pass of each side of the `yam check` target's pair, for exact
//! instruction counts under callgrind (`docs/performance.md`, "Tenth
//! round"): the archive bench times the two, this counts what each does
//! for a byte of its input, which no host's load moves.
//!
//! `check_pair SIDE FILE [REPS]`, the file's bytes REPS times over (default
//! 1), read from memory as the bench reads them:
//!
//! - `yam`: `yam check`'s visitor over a Yam archive (the bench's is
//!   `notation/benches/data/khan.yam`);
//! - `validate`: pgn-reader and shakmaty, every move played, over a PGN
//!   file (the bench's is `../shared/bench/lichess_db_1000k.pgn`);
//! - `parse`: pgn-reader alone over the PGN file.
//!
//! It prints the input's size; callgrind prints the instructions.

use std::process::ExitCode;

use yam_referee::check::Checker;

#[path = "../../notation/benches/shared/peer.rs"]
#[allow(dead_code)]
mod peer;
#[path = "../benches/shared/work.rs"]
#[allow(dead_code)]
mod work;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (side, file) = match args.as_slice() {
        [side, file] | [side, file, _] => (side.as_str(), file),
        _ => {
            eprintln!("usage: check_pair yam|validate|parse FILE [REPS]");
            return ExitCode::FAILURE;
        }
    };
    let reps: usize = match args.get(2).map(|r| r.parse()) {
        None => 1,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("REPS: {e}");
            return ExitCode::FAILURE;
        }
    };
    let one = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("{file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let data = one.repeat(reps);
    match side {
        "yam" => work::read_all(&data, &mut Checker::new()),
        "validate" => peer::read_all(&data, &mut peer::Validate),
        "parse" => peer::read_all(&data, &mut peer::Nothing),
        _ => {
            eprintln!("SIDE is yam, validate or parse, not {side}");
            return ExitCode::FAILURE;
        }
    }
    println!("{} bytes", data.len());
    ExitCode::SUCCESS
}
