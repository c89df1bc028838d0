//! The tests' deterministic generator, so that a failure is found again
//! from its seed.

/// Marsaglia's xorshift (13, 7, 17). The seed must not be 0.
pub(crate) struct Xorshift(pub(crate) u64);

impl Xorshift {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when there is none).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next() % n as u64) as usize
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// One of `items`, or `None` if there is none.
    pub(crate) fn choose<T: Clone>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| self.pick(items).clone())
    }
}
