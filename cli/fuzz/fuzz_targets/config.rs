//! A configuration file (`config.yaml` of a desk or a robot's desk part),
//! any text: a user's hand edit, a file a sync tool mangled. Reading it
//! never panics, and a refusal names a line and a column inside the text
//! (or the first, for an empty one): the line of a key written twice is
//! found by the configuration's own search, which slices lines by an
//! indentation the YAML reader gave.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yam_cli::fuzzing::{Config, ConfigError, yaml_lines};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(ConfigError::Syntax { line, column, .. }) = Config::parse(text, "config.yaml") {
        // Counted as the YAML reader counts them (a CR alone breaks a line).
        let lines = yaml_lines(text).count().max(1);
        assert!(line >= 1 && line <= lines + 1, "line {line} of {lines}");
        assert!(column >= 1, "column {column}");
    }
});
