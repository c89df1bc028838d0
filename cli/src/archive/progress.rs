//! Progress bars for long commands, on standard error. indicatif draws
//! nothing when standard error is not a terminal, so a piped or redirected
//! run prints no progress at all.

use indicatif::{ProgressBar, ProgressStyle};

/// Inputs smaller than this get no bar: they are done before one is seen.
const SMALL: u64 = 1 << 20;

/// A bar over `size` bytes of input (hidden for a small or unknown size).
pub(crate) fn bytes_bar(size: Option<u64>) -> ProgressBar {
    let bar = match size {
        Some(total) if total > SMALL => ProgressBar::new(total),
        _ => return ProgressBar::hidden(),
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// A bar over `count` items named `what` (`games`), hidden for a handful.
pub(crate) fn count_bar(count: u64, what: &str) -> ProgressBar {
    if count < 100 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(count);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{human_pos}}/{{human_len}} {what} {{eta}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
