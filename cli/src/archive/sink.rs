//! Where a command that writes an archive writes it: a file put in place
//! whole at the end (a half-written file never replaces a good one), or
//! standard output.

use std::io::{self, Write};
use std::path::Path;

use crate::store::atomic::Replacing;

/// An archive being written.
pub(crate) enum Sink {
    /// A file, renamed over its target at [`Sink::finish`].
    File(Replacing),
    /// Standard output.
    Stdout(io::BufWriter<io::StdoutLock<'static>>),
}

impl Sink {
    /// To `out` (refused if it exists, unless `force`), or standard output.
    pub(crate) fn open(out: Option<&Path>, force: bool) -> io::Result<Sink> {
        Ok(match out {
            Some(path) => Sink::File(Replacing::create(path, force)?),
            None => Sink::Stdout(io::BufWriter::new(io::stdout().lock())),
        })
    }

    /// Write `bytes`.
    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Sink::File(f) => f.write_all(bytes),
            Sink::Stdout(out) => out.write_all(bytes),
        }
    }

    /// Everything written: the file put in place, standard output flushed.
    pub(crate) fn finish(self) -> io::Result<()> {
        match self {
            Sink::File(f) => f.commit(),
            Sink::Stdout(mut out) => out.flush(),
        }
    }
}
