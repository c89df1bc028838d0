//! Die faces by rejection sampling on single bytes.
//!
//! A die with `n` sides (2 to 256) takes the next byte `b` of the roll's
//! stream. With `limit = 256 - (256 mod n)`, the largest multiple of `n` that
//! fits in a byte, a byte `b < limit` gives the face `b mod n + 1`; a byte
//! `b >= limit` is discarded and the next byte is tried, crossing into the
//! next 32-byte block when needed. For a d6 the limit is 252: bytes 252 to 255
//! are discarded, and each face has exactly 42 of the 252 accepted bytes.
//! A bare modulo would favour faces 1 to 4; rejection removes that bias.

use super::outcome::{ByteSource, SampleError};

/// The first byte value discarded for an `n`-sided die.
pub fn rejection_limit(sides: u16) -> Result<u16, SampleError> {
    if !(2..=256).contains(&sides) {
        return Err(SampleError::InvalidSides { sides });
    }
    Ok(256 - 256 % sides)
}

/// One roll of an `n`-sided die (faces `1..=n`).
pub fn die(source: &mut impl ByteSource, sides: u16) -> Result<u16, SampleError> {
    let limit = rejection_limit(sides)?;
    loop {
        let byte = u16::from(source.next_byte()?);
        if byte < limit {
            return Ok(byte % sides + 1);
        }
    }
}

/// One roll of a six-sided die (faces `1..=6`).
pub fn d6(source: &mut impl ByteSource) -> Result<u8, SampleError> {
    let face = die(source, 6)?;
    // 1..=6 always fits.
    Ok(face as u8)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fair_play::encoding::Blob;
    use crate::fair_play::game_id::GameId;
    use crate::fair_play::outcome::PracticeStream;
    use crate::fair_play::outcome::tests::Scripted;

    /// Pearson's chi-square statistic of `counts` against equal expectation.
    pub(crate) fn chi_square(counts: &[u64]) -> f64 {
        let total: u64 = counts.iter().sum();
        let expected = total as f64 / counts.len() as f64;
        counts
            .iter()
            .map(|&c| {
                let d = c as f64 - expected;
                d * d / expected
            })
            .sum()
    }

    #[test]
    fn bytes_252_to_255_are_rejected_and_the_next_byte_is_used() {
        for rejected in 252..=255u8 {
            let mut source = Scripted::new(&[rejected, 13]);
            assert_eq!(d6(&mut source), Ok(13 % 6 + 1));
            assert!(source.0.is_empty(), "both bytes consumed");
        }
        let mut source = Scripted::new(&[255, 254, 253, 252, 0]);
        assert_eq!(d6(&mut source), Ok(1));
        let mut source = Scripted::new(&[251, 0]);
        assert_eq!(d6(&mut source), Ok(6), "251 is accepted: 251 % 6 + 1 = 6");
        assert_eq!(source.0.len(), 1, "only one byte consumed");
    }

    #[test]
    fn every_accepted_byte_value_maps_to_each_face_equally() {
        let all: Vec<u8> = (0..=255).collect();
        let mut source = Scripted::new(&all);
        let mut counts = [0u32; 6];
        while let Ok(face) = d6(&mut source) {
            counts[usize::from(face) - 1] += 1;
        }
        assert_eq!(counts, [42; 6]);
    }

    #[test]
    fn rejection_crosses_into_the_next_block() {
        // Find a practice stream whose byte 31 is rejected: the die then uses
        // byte 0 of block 1.
        let game = GameId::new("g").unwrap();
        for seed in 0u32..10_000 {
            let seed = Blob::new(seed.to_be_bytes().to_vec()).unwrap();
            let mut probe = PracticeStream::new(&game, &seed);
            let bytes: Vec<u8> = (0..33).map(|_| probe.next_byte().unwrap()).collect();
            if bytes[31] >= 252 && bytes[32] < 252 {
                let mut stream = PracticeStream::new(&game, &seed);
                for _ in 0..31 {
                    stream.next_byte().unwrap();
                }
                assert_eq!(d6(&mut stream), Ok(bytes[32] % 6 + 1));
                assert_eq!(stream.bytes_used(), 33);
                return;
            }
        }
        panic!("no seed with a rejected byte at the end of block 0");
    }

    #[test]
    fn invalid_sides_are_refused() {
        let mut source = Scripted::new(&[0]);
        assert_eq!(
            die(&mut source, 1),
            Err(SampleError::InvalidSides { sides: 1 })
        );
        assert_eq!(
            die(&mut source, 257),
            Err(SampleError::InvalidSides { sides: 257 })
        );
        assert_eq!(die(&mut source, 256), Ok(1));
        assert_eq!(rejection_limit(6), Ok(252));
        assert_eq!(rejection_limit(256), Ok(256));
    }

    /// 600,000 d6 rolls from one practice stream. With 5 degrees of freedom,
    /// a fair die exceeds 20.515 with probability 0.001; the stream is fixed,
    /// so the test is deterministic.
    #[test]
    fn six_hundred_thousand_d6_pass_chi_square() {
        let game = GameId::new("chi-square").unwrap();
        let mut stream = PracticeStream::new(&game, &Blob::new(b"d6".to_vec()).unwrap());
        let mut counts = [0u64; 6];
        for _ in 0..600_000 {
            counts[usize::from(d6(&mut stream).unwrap()) - 1] += 1;
        }
        let chi = chi_square(&counts);
        assert!(chi < 20.515, "chi-square {chi} over {counts:?}");
    }
}
