//! Reading a file whole into memory whose pages are mapped in one call.
//!
//! Why: a turn late in a long game reads a few hundred kilobytes (the
//! game's tip, the opponent's turn mail), and on the virtual machine the
//! figures come from the reading cost less than the memory it went into. A
//! buffer fresh from the allocator has no pages yet: the kernel's copy
//! into it stops at every 4 kB page to fault one in, and on a guest each
//! such fault costs about 1.7 us more than the same page mapped with the
//! others in one `mmap(MAP_POPULATE)` call (`docs/performance.md`, "The
//! thirtieth step"). So a file of [`POPULATE_FROM`] bytes or more is read
//! into an anonymous map populated when it is made; a smaller one into a
//! plain vector, where a map's own two system calls would cost more than
//! the faults they spare.
//!
//! What is read is the file's bytes as `std::fs::read` gives them: the map
//! is private and anonymous (no file is mapped, so a file cut or changed
//! by another program while it is read changes nothing already read, and
//! cannot fault the reader), and a file that grows while it is read is
//! read to its end as it is then.

use std::io::{self, Read};
use std::ops::Deref;

/// From how many bytes a file is read into a populated map rather than a
/// vector.
pub const POPULATE_FROM: u64 = 32 << 10;

/// A file's bytes; see the module documentation.
pub struct FileBytes(Held);

enum Held {
    Vec(Vec<u8>),
    Map { map: memmap2::MmapMut, len: usize },
}

impl Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Held::Vec(v) => v,
            Held::Map { map, len } => &map[..*len],
        }
    }
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl std::fmt::Debug for FileBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.0 {
            Held::Vec(_) => "vec",
            Held::Map { .. } => "populated map",
        };
        write!(f, "FileBytes({} bytes, {kind})", self.len())
    }
}

/// What [`read_up_to`] found.
#[derive(Debug)]
pub enum ReadUpTo {
    /// The whole input, no more than the limit.
    Whole(FileBytes),
    /// More than the limit: nothing kept.
    Larger,
}

/// All of `input`, if it is no more than `limit` bytes; `size`, when
/// known (a file's length), says how much room to make first. Never more
/// than `limit` + 1 bytes are read.
pub fn read_up_to(input: &mut impl Read, size: Option<u64>, limit: u64) -> io::Result<ReadUpTo> {
    let mut input = input.take(limit.saturating_add(1));
    // A file over the limit is not given a populated map of the limit's
    // size (16 MB of memory for a mail to be refused): it is read into a
    // vector, which holds only what is read until the limit is passed.
    let expected = size.filter(|&size| size <= limit).unwrap_or(0);
    // A map that cannot be made (the system refuses the mapping) is no
    // reason to refuse the file: it is read into a vector as before.
    let map = (expected >= POPULATE_FROM)
        .then(|| populated_map(expected))
        .and_then(Result::ok);
    let bytes = match map {
        Some(map) => read_into_map(&mut input, map)?,
        None => {
            // One byte past the end: the read that finds the end needs
            // room. (A size over the limit sizes nothing: the vector
            // grows as read.)
            let mut v = Vec::with_capacity(usize::try_from(expected + 1).unwrap_or(0));
            input.read_to_end(&mut v)?;
            FileBytes(Held::Vec(v))
        }
    };
    Ok(if bytes.len() as u64 > limit {
        ReadUpTo::Larger
    } else {
        ReadUpTo::Whole(bytes)
    })
}

/// An anonymous map of `expected` bytes and one more (to see the end),
/// its pages mapped now.
fn populated_map(expected: u64) -> io::Result<memmap2::MmapMut> {
    let room = usize::try_from(expected)
        .ok()
        .and_then(|n| n.checked_add(1))
        .ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))?;
    memmap2::MmapOptions::new().len(room).populate().map_anon()
}

/// `input` read into `map`; an input longer than the map goes on into a
/// vector.
fn read_into_map(input: &mut impl Read, mut map: memmap2::MmapMut) -> io::Result<FileBytes> {
    let room = map.len();
    let mut len = 0;
    while len < room {
        match input.read(&mut map[len..]) {
            Ok(0) => return Ok(FileBytes(Held::Map { map, len })),
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    // Longer than it was when its size was taken: the rest as it is now.
    let mut v = map[..len].to_vec();
    input.read_to_end(&mut v)?;
    Ok(FileBytes(Held::Vec(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(r: ReadUpTo) -> FileBytes {
        match r {
            ReadUpTo::Whole(b) => b,
            ReadUpTo::Larger => panic!("larger"),
        }
    }

    fn data(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    #[test]
    fn small_and_large_inputs_read_back_exactly() {
        for n in [
            0,
            1,
            4095,
            POPULATE_FROM as usize - 1,
            POPULATE_FROM as usize,
            200_000,
        ] {
            let d = data(n);
            let bytes = whole(read_up_to(&mut &d[..], Some(n as u64), u64::MAX).unwrap());
            assert_eq!(&*bytes, &d[..], "{n} bytes");
            let mapped = format!("{bytes:?}").contains("map");
            assert_eq!(mapped, n as u64 >= POPULATE_FROM, "{bytes:?}");
            assert_eq!(bytes.to_vec(), d);
        }
    }

    #[test]
    fn an_input_longer_or_shorter_than_its_size_is_read_as_it_is() {
        let d = data(150_000);
        // Grew after its size was taken.
        let grew = whole(read_up_to(&mut &d[..], Some(100_000), u64::MAX).unwrap());
        assert_eq!(&*grew, &d[..]);
        // Cut after its size was taken.
        let cut = whole(read_up_to(&mut &d[..50_000], Some(100_000), u64::MAX).unwrap());
        assert_eq!(&*cut, &d[..50_000]);
        // No size known.
        let unknown = whole(read_up_to(&mut &d[..], None, u64::MAX).unwrap());
        assert_eq!(&*unknown, &d[..]);
    }

    #[test]
    fn an_input_over_the_limit_is_refused_after_one_byte_past_it() {
        let d = data(100_000);
        for size in [Some(100_000), Some(10), None] {
            assert!(matches!(
                read_up_to(&mut &d[..], size, 99_999).unwrap(),
                ReadUpTo::Larger
            ));
            let exact = whole(read_up_to(&mut &d[..], size, 100_000).unwrap());
            assert_eq!(&*exact, &d[..]);
        }
        // A size over the limit gives no map of the limit's size.
        let over = read_up_to(&mut &d[..40_000], Some(1 << 40), 1 << 30).unwrap();
        assert!(format!("{:?}", whole(over)).contains("vec"));
        // Never more than the limit and one byte is taken from the input.
        let mut input = &d[..];
        assert!(matches!(
            read_up_to(&mut input, Some(100_000), 40_000).unwrap(),
            ReadUpTo::Larger
        ));
        assert_eq!(input.len(), 100_000 - 40_001);
    }

    /// The file at `path` as the tip's reader reads it.
    fn read_file(path: &std::path::Path) -> io::Result<FileBytes> {
        let mut file = std::fs::File::open(path)?;
        let size = file.metadata()?.len();
        Ok(whole(read_up_to(&mut file, Some(size), u64::MAX)?))
    }

    #[test]
    fn a_file_reads_as_std_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        for n in [0, 100, 300_000] {
            let path = dir.path().join(format!("f{n}"));
            std::fs::write(&path, data(n)).unwrap();
            assert_eq!(
                &*read_file(&path).unwrap(),
                &std::fs::read(&path).unwrap()[..]
            );
        }
        assert!(read_file(&dir.path().join("missing")).is_err());
    }
}
