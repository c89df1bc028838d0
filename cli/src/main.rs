//! The `yam` binary.

fn main() -> std::process::ExitCode {
    yam_cli::main()
}
