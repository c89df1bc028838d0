//! SplitMix64, the one small seeded generator of the workspace.
//!
//! It is for engines' and drivers' own choices only (which legal move a
//! random player makes, which setup the self-play driver tries, the keys of
//! a generated archive): reproducible from a seed, fast, and good enough for
//! that. It is never a protocol value: dice, draws and anything a player
//! could dispute come only from the fair-play layer (`crate::fair_play`).

/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state advanced by the
/// golden-ratio increment and mixed on the way out.
///
/// ```
/// use yam_referee::seeded::SplitMix64;
/// let mut rng = SplitMix64::new(7);
/// let first = rng.next_u64();
/// assert_eq!(SplitMix64::mix(7), first);
/// assert!(rng.below(6) < 6);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose first value is [`SplitMix64::mix`] of `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The first value of a generator seeded with `seed`: a stateless
    /// scramble of one number, for choices derived from a seed and a
    /// counter.
    pub fn mix(seed: u64) -> u64 {
        SplitMix64::new(seed).next_u64()
    }

    /// A number in `0..n`, or 0 when `n` is 0; the tiny modulo bias is of
    /// no matter for a driver's choices.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `numerator / denominator` (never when
    /// `denominator` is 0).
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        denominator > 0 && self.next_u64() % denominator < numerator
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// One of `items`, or `None` when there is none.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_splitmix64() {
        // The reference values of SplitMix64 seeded with 1234567.
        let mut rng = SplitMix64::new(1_234_567);
        assert_eq!(rng.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(rng.next_u64(), 3_203_168_211_198_807_973);
        assert_eq!(SplitMix64::mix(1_234_567), 6_457_827_717_110_365_317);
        assert_eq!(SplitMix64::new(3).below(0), 0);
        let mut items = [1, 2, 3, 4, 5];
        SplitMix64::new(9).shuffle(&mut items);
        items.sort_unstable();
        assert_eq!(items, [1, 2, 3, 4, 5]);
    }
}
