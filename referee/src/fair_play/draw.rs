//! Uniform draws from the cards that remain.
//!
//! A draw from `n` cards (`1 <= n <= 2^32 - 1`) takes the next four bytes of
//! the stream as a big-endian `u32` word `w`. With
//! `limit = 2^32 - (2^32 mod n)`, the largest multiple of `n` not above
//! `2^32`, a word `w < limit` gives the index `w mod n`; a word `w >= limit` is
//! discarded and the next four bytes are tried. Every draw consumes at least
//! one word, even from a single card, so the rule has no special case.
//!
//! The caller gives the cards that remain as a slice in the game's canonical
//! order (duplicates included, each copy its own entry); the index picks one
//! entry. Drawing again from what is left after removing it (with the order
//! of the others kept, as [`LazyDeck`] does) is a lazy Fisher-Yates shuffle:
//! every order of the deck is equally likely, and no order exists before the
//! cards are drawn.

use super::outcome::{ByteSource, SampleError};

/// A uniform index into `0..count`.
pub fn uniform_index(source: &mut impl ByteSource, count: usize) -> Result<usize, SampleError> {
    if count == 0 {
        return Err(SampleError::NoCards);
    }
    let n = u64::from(u32::try_from(count).map_err(|_| SampleError::TooManyCards { count })?);
    let span = 1u64 << 32;
    let limit = span - span % n;
    loop {
        let word = u64::from(source.next_u32()?);
        if word < limit {
            // word % n < n <= u32::MAX, so it fits any usize we run on.
            return usize::try_from(word % n).map_err(|_| SampleError::TooManyCards { count });
        }
    }
}

/// Draws one of `remaining` (in canonical order): its index and the card.
pub fn draw_from<'a, T>(
    source: &mut impl ByteSource,
    remaining: &'a [T],
) -> Result<(usize, &'a T), SampleError> {
    let index = uniform_index(source, remaining.len())?;
    let card = remaining.get(index).ok_or(SampleError::NoCards)?;
    Ok((index, card))
}

/// A deck drawn lazily: the cards left, in canonical order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LazyDeck<T> {
    cards: Vec<T>,
}

impl<T> LazyDeck<T> {
    /// A deck of `cards` in the game's canonical order.
    pub fn new(cards: Vec<T>) -> Self {
        LazyDeck { cards }
    }

    /// The cards left, in canonical order.
    pub fn remaining(&self) -> &[T] {
        &self.cards
    }

    /// Draws one card uniformly and removes it; the others keep their order.
    pub fn draw(&mut self, source: &mut impl ByteSource) -> Result<T, SampleError> {
        let index = uniform_index(source, self.cards.len())?;
        if index < self.cards.len() {
            Ok(self.cards.remove(index))
        } else {
            Err(SampleError::NoCards)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair_play::dice::tests::chi_square;
    use crate::fair_play::encoding::Blob;
    use crate::fair_play::game_id::GameId;
    use crate::fair_play::outcome::PracticeStream;
    use crate::fair_play::outcome::tests::Scripted;

    fn stream(seed: &[u8]) -> PracticeStream {
        PracticeStream::new(
            &GameId::new("draws").unwrap(),
            &Blob::new(seed.to_vec()).unwrap(),
        )
    }

    #[test]
    fn words_at_or_above_the_limit_are_rejected() {
        // 2^32 mod 7 = 4, so 0xfffffffc..=0xffffffff are discarded.
        let mut source = Scripted::new(&[0xff, 0xff, 0xff, 0xfc, 0, 0, 0, 10]);
        assert_eq!(uniform_index(&mut source, 7), Ok(3));
        let mut source = Scripted::new(&[0xff, 0xff, 0xff, 0xfb]);
        assert_eq!(
            uniform_index(&mut source, 7),
            Ok((0xffff_fffbu64 % 7) as usize)
        );
        // A power of two rejects nothing; one card still consumes a word.
        let mut source = Scripted::new(&[0xff, 0xff, 0xff, 0xff, 9]);
        assert_eq!(uniform_index(&mut source, 1), Ok(0));
        assert_eq!(source.0.len(), 1);
    }

    #[test]
    fn empty_and_huge_draws_are_refused() {
        let mut source = Scripted::new(&[0; 8]);
        assert_eq!(uniform_index(&mut source, 0), Err(SampleError::NoCards));
        if let Ok(huge) = usize::try_from(1u64 << 32) {
            assert_eq!(
                uniform_index(&mut source, huge),
                Err(SampleError::TooManyCards { count: huge })
            );
        }
    }

    #[test]
    fn duplicates_are_separate_entries() {
        let mut source = Scripted::new(&[0, 0, 0, 1]);
        let cards = ["gold", "gold", "camel"];
        assert_eq!(draw_from(&mut source, &cards), Ok((1, &"gold")));
    }

    #[test]
    fn a_lazy_deck_deals_a_permutation_keeping_the_order_of_the_rest() {
        let mut deck = LazyDeck::new(vec!['a', 'b', 'c', 'd']);
        let mut source = Scripted::new(&[0, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(deck.draw(&mut source), Ok('b'));
        assert_eq!(deck.remaining(), &['a', 'c', 'd']);
        assert_eq!(deck.draw(&mut source), Ok('a'));
        let mut s = stream(b"perm");
        let mut dealt = vec![deck.draw(&mut s).unwrap(), deck.draw(&mut s).unwrap()];
        dealt.sort();
        assert_eq!(dealt, ['c', 'd']);
        assert_eq!(deck.draw(&mut s), Err(SampleError::NoCards));
    }

    /// 700,000 draws from 7 cards: with 6 degrees of freedom a fair draw
    /// exceeds 22.458 with probability 0.001.
    #[test]
    fn draws_from_seven_pass_chi_square() {
        let mut s = stream(b"n=7");
        let mut counts = [0u64; 7];
        for _ in 0..700_000 {
            counts[uniform_index(&mut s, 7).unwrap()] += 1;
        }
        let chi = chi_square(&counts);
        assert!(chi < 22.458, "chi-square {chi} over {counts:?}");
    }

    /// 1,000,000 draws from 100 cards: with 99 degrees of freedom a fair draw
    /// exceeds 148.23 with probability 0.001.
    #[test]
    fn draws_from_a_hundred_pass_chi_square() {
        let mut s = stream(b"n=100");
        let mut counts = [0u64; 100];
        for _ in 0..1_000_000 {
            counts[uniform_index(&mut s, 100).unwrap()] += 1;
        }
        let chi = chi_square(&counts);
        assert!(chi < 148.23, "chi-square {chi}");
    }

    /// Lazy Fisher-Yates over 4 cards: all 24 orders equally likely
    /// (23 degrees of freedom, 0.001 critical value 49.728).
    #[test]
    fn every_order_of_a_small_deck_is_equally_likely() {
        let mut s = stream(b"orders");
        let mut counts = [0u64; 24];
        for _ in 0..120_000 {
            let mut deck = LazyDeck::new(vec![0u8, 1, 2, 3]);
            let order: Vec<u8> = (0..4).map(|_| deck.draw(&mut s).unwrap()).collect();
            let code = permutation_rank(&order);
            counts[code] += 1;
        }
        let chi = chi_square(&counts);
        assert!(chi < 49.728, "chi-square {chi} over {counts:?}");
    }

    fn permutation_rank(order: &[u8]) -> usize {
        // Lehmer code of a permutation of 0..4.
        let mut rank = 0;
        for (i, &x) in order.iter().enumerate() {
            let smaller_after = order[i + 1..].iter().filter(|&&y| y < x).count();
            rank = rank * (order.len() - i) + smaller_after;
        }
        rank
    }
}
