/*
 * SPDX-FileCopyrightText: 2020 Stalwart Labs LLC <hello@stalw.art>
 *
 * SPDX-License-Identifier: Apache-2.0 OR MIT
 */

use std::borrow::Cow;

use super::MessageStream;

impl<'x> MessageStream<'x> {
    pub fn seek_next_part(&mut self, boundary: &[u8]) -> bool {
        if !boundary.is_empty() {
            let mut last_ch = 0;

            self.checkpoint();

            while let Some(&ch) = self.next() {
                if ch == b'-' && last_ch == b'-' && self.try_skip(boundary) {
                    return true;
                }

                last_ch = ch;
            }

            self.restore();
        }

        false
    }

    pub fn seek_next_part_offset(&mut self, boundary: &[u8]) -> Option<usize> {
        let mut last_ch = b'\n';
        let mut offset_pos = self.offset();
        self.checkpoint();

        while let Some(&ch) = self.next() {
            if ch == b'\n' {
                offset_pos = if last_ch == b'\r' {
                    self.offset() - 2
                } else {
                    self.offset() - 1
                };
            } else if ch == b'-' && last_ch == b'-' && self.try_skip(boundary) {
                return offset_pos.into();
            }

            last_ch = ch;
        }

        self.restore();

        None
    }

    // Yam's patch (vendor/mail-parser/YAM-PATCH.md): `mime_part` and
    // `seek_part_end` find the boundary with one memchr search instead of
    // a loop over every byte of the part, which cost a Yam turn mail of
    // 220 kB about 0.1 ms. They return what the loops returned, to the
    // byte: the loops are kept in `yam_scan_reference` below, and tests
    // and a fuzz target compare the two.

    /// How far the stream moves to be past the first `--boundary` at or
    /// after its position, and where the part before it ends, as the original
    /// byte-by-byte loops found them: the loops stopped at the leftmost
    /// `--boundary` (anywhere, not only at a line's start); the part ends at
    /// the line break before its dashes (before a CR that precedes it) when
    /// the dashes begin a line or the stream's position, else at the dashes.
    fn find_boundary(&mut self, boundary: &[u8]) -> Option<(usize, usize)> {
        let start_pos = self.offset();
        let data = self.data;
        // One search built for each boundary, not for each part: a mail of
        // many small parts would otherwise pay for it at every part.
        let cached = self
            .boundary_finder
            .as_ref()
            .is_some_and(|f| f.needle().strip_prefix(b"--") == Some(boundary));
        if !cached {
            let mut needle = Vec::with_capacity(boundary.len() + 2);
            needle.extend_from_slice(b"--");
            needle.extend_from_slice(boundary);
            self.boundary_finder = Some(memchr::memmem::Finder::new(&needle).into_owned());
        }
        let finder = self.boundary_finder.as_ref()?;
        let p = start_pos + finder.find(&data[start_pos..])?;
        let end_pos = if p == start_pos {
            start_pos
        } else if data[p - 1] == b'\n' {
            let k = p - 1;
            if k > start_pos && data[k - 1] == b'\r' {
                k - 1
            } else {
                k
            }
        } else {
            p
        };
        Some((p + 2 + boundary.len() - start_pos, end_pos))
    }

    pub fn mime_part(&mut self, boundary: &[u8]) -> (usize, Cow<'x, [u8]>) {
        let start_pos = self.offset();
        self.checkpoint();
        if boundary.is_empty() {
            self.seek_end();
            return (self.offset(), self.bytes(start_pos..self.len()).into());
        }
        match self.find_boundary(boundary) {
            Some((skip, end_pos)) => {
                self.skip_bytes(skip);
                (end_pos, self.bytes(start_pos..end_pos).into())
            }
            None => {
                self.restore();
                (usize::MAX, self.bytes(start_pos..self.len()).into())
            }
        }
    }

    pub fn seek_part_end(&mut self, boundary: Option<&[u8]>) -> (usize, bool) {
        if let Some(boundary) = boundary {
            match self.find_boundary(boundary) {
                Some((skip, end_pos)) => {
                    self.skip_bytes(skip);
                    (end_pos, true)
                }
                None => {
                    self.seek_end();
                    (self.offset(), false)
                }
            }
        } else {
            self.seek_end();
            (self.offset(), true)
        }
    }

    pub fn is_multipart_end(&mut self) -> bool {
        self.checkpoint();

        match (self.next(), self.peek()) {
            (Some(b'\r'), Some(b'\n')) => {
                self.next();
                false
            }
            (Some(b'-'), Some(b'-')) => {
                self.next();
                true
            }
            (Some(b'\n'), _) => false,
            (Some(&a), _) if a.is_ascii_whitespace() => {
                self.skip_crlf();
                false
            }
            _ => {
                self.restore();
                false
            }
        }
    }

    #[inline(always)]
    pub fn skip_crlf(&mut self) {
        while let Some(ch) = self.peek() {
            match ch {
                b'\r' | b' ' | b'\t' => {
                    self.next();
                }
                b'\n' => {
                    self.next();
                    break;
                }
                _ => break,
            }
        }
    }
}

/// The byte-by-byte boundary scans and base64 decoder of mail-parser
/// 0.11.9 as published, kept to check Yam's patch against (tests and Yam's
/// `mime_scan` fuzz target, through the `yam-scan-reference` feature).
#[cfg(any(test, feature = "yam-scan-reference"))]
#[doc(hidden)]
pub mod yam_scan_reference {
    use std::borrow::Cow;

    use super::MessageStream;
    use crate::decoders::base64::BASE64_MAP;

    impl<'x> MessageStream<'x> {
        /// `decode_base64_mime` of 0.11.9, verbatim.
        fn decode_base64_mime_bytewise(&mut self, boundary: &[u8]) -> (usize, Cow<'x, [u8]>) {
            let mut chunk: u32 = 0;
            let mut byte_count: u8 = 0;

            let mut buf = Vec::with_capacity(self.remaining() / 4 * 3);
            let mut last_ch = b'\n';
            let mut before_last_ch = 0;
            let mut end_pos = self.offset();

            self.checkpoint();

            while let Some(&ch) = self.next() {
                let val = BASE64_MAP[byte_count as usize][ch as usize];

                if val < 0x01ffffff {
                    byte_count = (byte_count + 1) & 3;

                    if byte_count == 1 {
                        chunk = val;
                    } else {
                        chunk |= val;

                        if byte_count == 0 {
                            buf.extend_from_slice(&chunk.to_le_bytes()[0..3]);
                        }
                    }
                } else {
                    match ch {
                        b'=' => match byte_count {
                            1 | 2 => {
                                buf.push(chunk.to_le_bytes()[0]);
                                byte_count = 0;
                            }
                            3 => {
                                buf.extend_from_slice(&chunk.to_le_bytes()[0..2]);
                                byte_count = 0;
                            }
                            0 => (),
                            _ => {
                                self.restore();
                                return (usize::MAX, b""[..].into());
                            }
                        },
                        b'\n' => {
                            end_pos = if last_ch == b'\r' {
                                self.offset() - 2
                            } else {
                                self.offset() - 1
                            }
                        }
                        b' ' | b'\t' | b'\r' => (),
                        b'-' => {
                            if last_ch == b'-' {
                                return if !boundary.is_empty() && self.try_skip(boundary) {
                                    buf.shrink_to_fit();
                                    (
                                        if before_last_ch == b'\n' {
                                            end_pos
                                        } else {
                                            self.offset() - boundary.len() - 2
                                        },
                                        buf.into(),
                                    )
                                } else {
                                    self.restore();
                                    (usize::MAX, b""[..].into())
                                };
                            }
                        }
                        _ => {
                            self.restore();
                            return (usize::MAX, b""[..].into());
                        }
                    }
                }

                before_last_ch = last_ch;
                last_ch = ch;
            }

            buf.shrink_to_fit();
            (
                if boundary.is_empty() {
                    self.offset()
                } else {
                    self.restore();
                    usize::MAX
                },
                buf.into(),
            )
        }

        fn mime_part_bytewise(&mut self, boundary: &[u8]) -> (usize, Cow<'x, [u8]>) {
            let mut last_ch = b'\n';
            let mut before_last_ch = 0;
            let start_pos = self.offset();
            let mut end_pos = self.offset();

            self.checkpoint();

            while let Some(&ch) = self.next() {
                if ch == b'\n' {
                    end_pos = if last_ch == b'\r' {
                        self.offset() - 2
                    } else {
                        self.offset() - 1
                    };
                } else if ch == b'-'
                    && !boundary.is_empty()
                    && last_ch == b'-'
                    && self.try_skip(boundary)
                {
                    if before_last_ch != b'\n' {
                        end_pos = self.offset() - boundary.len() - 2;
                    }
                    return (end_pos, self.bytes(start_pos..end_pos).into());
                }

                before_last_ch = last_ch;
                last_ch = ch;
            }

            (
                if boundary.is_empty() {
                    self.offset()
                } else {
                    self.restore();
                    usize::MAX
                },
                self.bytes(start_pos..self.len()).into(),
            )
        }

        fn seek_part_end_bytewise(&mut self, boundary: Option<&[u8]>) -> (usize, bool) {
            let mut last_ch = b'\n';
            let mut before_last_ch = 0;
            let mut end_pos = self.offset();

            if let Some(boundary) = boundary {
                while let Some(&ch) = self.next() {
                    if ch == b'\n' {
                        end_pos = if last_ch == b'\r' {
                            self.offset() - 2
                        } else {
                            self.offset() - 1
                        };
                    } else if ch == b'-' && last_ch == b'-' && self.try_skip(boundary) {
                        if before_last_ch != b'\n' {
                            end_pos = self.offset() - boundary.len() - 2;
                        }
                        return (end_pos, true);
                    }

                    before_last_ch = last_ch;
                    last_ch = ch;
                }

                (self.offset(), false)
            } else {
                self.seek_end();
                (self.offset(), true)
            }
        }

        /// What a caller can see of the stream: where it is, what it yields
        /// next, and where `restore` takes it.
        fn state(&mut self) -> (usize, Option<u8>, usize) {
            (self.offset(), self.peek().map(|c| **c), self.restore_pos)
        }
    }

    /// Whether the patched scans and base64 decoder return what the
    /// original loops return on `data` from `start` with each of
    /// `boundaries`, and leave the stream in the same state; then the same
    /// for the scans one after another on one stream, in turn `mime_part`
    /// and `seek_part_end`, each with the next boundary (as the parser
    /// scans nested parts: the patched scan keeps its search for a boundary
    /// from one part to the next). `Err` says where they part.
    pub fn same_as_bytewise(
        data: &[u8],
        start: usize,
        boundaries: &[&[u8]],
    ) -> Result<(), String> {
        let at = |start: usize| {
            let mut stream = MessageStream::new(data);
            stream.skip_bytes(start.min(data.len()));
            stream
        };
        for &boundary in boundaries {
            let (mut fast, mut slow) = (at(start), at(start));
            compare_mime_part(&mut fast, &mut slow, boundary)?;
            let (mut fast, mut slow) = (at(start), at(start));
            compare_base64(&mut fast, &mut slow, boundary)?;
            for boundary in [Some(boundary), None] {
                let (mut fast, mut slow) = (at(start), at(start));
                compare_seek_part_end(&mut fast, &mut slow, boundary)?;
            }
        }
        let (mut fast, mut slow) = (at(start), at(start));
        for (i, &boundary) in boundaries.iter().enumerate() {
            if i % 2 == 0 {
                compare_mime_part(&mut fast, &mut slow, boundary)?;
            } else {
                compare_seek_part_end(&mut fast, &mut slow, Some(boundary))?;
            }
        }
        Ok(())
    }

    fn compare_mime_part(
        fast: &mut MessageStream<'_>,
        slow: &mut MessageStream<'_>,
        boundary: &[u8],
    ) -> Result<(), String> {
        let from = fast.offset();
        let (got, want) = (fast.mime_part(boundary), slow.mime_part_bytewise(boundary));
        if got != want || fast.state() != slow.state() {
            return Err(format!(
                "mime_part from {from} with {boundary:?}: {got:?} {:?}, the original {want:?} {:?}",
                fast.state(),
                slow.state()
            ));
        }
        Ok(())
    }

    fn compare_base64(
        fast: &mut MessageStream<'_>,
        slow: &mut MessageStream<'_>,
        boundary: &[u8],
    ) -> Result<(), String> {
        let from = fast.offset();
        let (got, want) = (
            fast.decode_base64_mime(boundary),
            slow.decode_base64_mime_bytewise(boundary),
        );
        if got != want || fast.state() != slow.state() {
            return Err(format!(
                "decode_base64_mime from {from} with {boundary:?}: {got:?} {:?}, the original {want:?} {:?}",
                fast.state(),
                slow.state()
            ));
        }
        Ok(())
    }

    fn compare_seek_part_end(
        fast: &mut MessageStream<'_>,
        slow: &mut MessageStream<'_>,
        boundary: Option<&[u8]>,
    ) -> Result<(), String> {
        let from = fast.offset();
        let (got, want) = (
            fast.seek_part_end(boundary),
            slow.seek_part_end_bytewise(boundary),
        );
        if got != want || fast.state() != slow.state() {
            return Err(format!(
                "seek_part_end from {from} with {boundary:?}: {got:?} {:?}, the original {want:?} {:?}",
                fast.state(),
                slow.state()
            ));
        }
        Ok(())
    }

    #[cfg(test)]
    mod tests {
        use super::same_as_bytewise;

        /// A small deterministic generator (xorshift64*), so that a
        /// failure names its case again on every run.
        struct Cases(u64);

        impl Cases {
            fn next(&mut self) -> u64 {
                self.0 ^= self.0 >> 12;
                self.0 ^= self.0 << 25;
                self.0 ^= self.0 >> 27;
                self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
            }

            fn below(&mut self, n: usize) -> usize {
                (self.next() % n as u64) as usize
            }
        }

        const BOUNDARIES: [&[u8]; 9] = [
            b"", b"a", b"ab", b"-a", b"a-", b"--", b"\r\n", b"b-\na", b"yam-7Xq",
        ];

        #[test]
        fn the_patched_scans_find_what_the_loops_found_in_random_text() {
            let mut cases = Cases(0x9e37_79b9_7f4a_7c15);
            // Texts made of the bytes a boundary scan turns on, with the
            // boundaries themselves spliced in.
            let alphabet = b"-\r\nab7Xqy ";
            for _ in 0..200_000 {
                let boundaries: Vec<&[u8]> = (0..1 + cases.below(4))
                    .map(|_| BOUNDARIES[cases.below(BOUNDARIES.len())])
                    .collect();
                let len = cases.below(60);
                let mut data = Vec::with_capacity(len + 16);
                while data.len() < len {
                    if cases.below(6) == 0 {
                        data.extend_from_slice(b"--");
                        data.extend_from_slice(boundaries[cases.below(boundaries.len())]);
                    } else {
                        data.push(alphabet[cases.below(alphabet.len())]);
                    }
                }
                let start = cases.below(data.len() + 2);
                if let Err(e) = same_as_bytewise(&data, start, &boundaries) {
                    panic!("{e}; data {:?}", String::from_utf8_lossy(&data));
                }
            }
        }

        #[test]
        fn the_patched_base64_decoder_reads_what_the_loop_read_in_random_text() {
            let mut cases = Cases(0x2545_f491_4f6c_dd1d);
            // Base64 text as mail carries it, and as it is damaged: runs of
            // the alphabet (groups of four, and not), padding anywhere,
            // line breaks, blanks, dashes, bytes outside the alphabet, the
            // boundaries spliced in.
            let alphabet = b"QUJDwyz019+/";
            let other = b"=\r\n \t-*?\xff\x00.";
            for _ in 0..200_000 {
                let boundaries: Vec<&[u8]> = (0..1 + cases.below(3))
                    .map(|_| BOUNDARIES[cases.below(BOUNDARIES.len())])
                    .collect();
                let len = cases.below(120);
                let mut data = Vec::with_capacity(len + 16);
                while data.len() < len {
                    match cases.below(10) {
                        0 => {
                            data.extend_from_slice(b"\n--");
                            data.extend_from_slice(boundaries[cases.below(boundaries.len())]);
                        }
                        1 | 2 => data.push(other[cases.below(other.len())]),
                        3 => data.extend_from_slice(b"\r\n"),
                        _ => {
                            for _ in 0..1 + cases.below(12) {
                                data.push(alphabet[cases.below(alphabet.len())]);
                            }
                        }
                    }
                }
                let start = cases.below(data.len() + 2);
                if let Err(e) = same_as_bytewise(&data, start, &boundaries) {
                    panic!("{e}; data {:?}", String::from_utf8_lossy(&data));
                }
            }
        }

        #[test]
        fn the_patched_scans_find_what_the_loops_found_in_the_test_mails() {
            let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("resources")
                .join("eml");
            let mut mails = 0;
            for suite in std::fs::read_dir(root).unwrap() {
                for file in std::fs::read_dir(suite.unwrap().path()).unwrap() {
                    let path = file.unwrap().path();
                    if path.extension().is_none_or(|e| e != "eml") {
                        continue;
                    }
                    let raw = std::fs::read(&path).unwrap();
                    mails += 1;
                    // Every boundary the mail declares, from the start and
                    // from every line's start.
                    let text = String::from_utf8_lossy(&raw);
                    let mut declared: Vec<&[u8]> = text
                        .split("boundary=")
                        .skip(1)
                        .map(|rest| {
                            rest.trim_start_matches('"')
                                .split(['"', ';', '\r', '\n'])
                                .next()
                                .unwrap_or_default()
                                .as_bytes()
                        })
                        .collect();
                    // Nested boundaries, scanned in turn as the parser
                    // does: the inner one, then the outer one again.
                    if let Some(&outer) = declared.first() {
                        declared.push(outer);
                    }
                    let starts = std::iter::once(0).chain(
                        raw.iter()
                            .enumerate()
                            .filter(|(_, c)| **c == b'\n')
                            .map(|(i, _)| i + 1),
                    );
                    for start in starts {
                        if let Err(e) = same_as_bytewise(&raw, start, &declared) {
                            panic!("{}: {e}", path.display());
                        }
                    }
                }
            }
            assert!(mails >= 100, "the test mails are missing: {mails} read");
        }
    }
}
