//! `yam` for the end-to-end tests: the very `main` of `yam-cli`, built as a
//! binary of this package so that cargo builds it (from the current
//! sources) before the tests run and names it in `CARGO_BIN_EXE_yam-e2e`.
//! (Named `yam` it would collide with `yam-cli`'s binary in `target/`.)

fn main() -> std::process::ExitCode {
    yam_cli::main()
}
