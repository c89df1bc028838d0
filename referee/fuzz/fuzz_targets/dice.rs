//! Chance for the fuzz targets: seeded values, not the fair-play stream
//! (the rules ask the door for chance the same way whatever is behind it).

use yam_referee::fair_play::chance::{Chance, ChanceError};
use yam_referee::fair_play::outcome::Assurance;
use yam_referee::seeded::SplitMix64;

/// Dice and draws from a SplitMix64: the same for every input, so that
/// an input alone decides the game it plays.
pub struct Dice(pub SplitMix64);

impl Dice {
    /// Dice seeded with `seed`.
    pub fn new(seed: u64) -> Dice {
        Dice(SplitMix64::new(seed))
    }
}

impl Chance for Dice {
    fn die(&mut self, _purpose: &str, sides: u16) -> Result<u16, ChanceError> {
        let face = self.0.below(usize::from(sides.max(1))) + 1;
        Ok(u16::try_from(face).unwrap_or(1))
    }

    fn draw(&mut self, _purpose: &str, remaining: usize) -> Result<usize, ChanceError> {
        Ok(self.0.below(remaining.max(1)))
    }

    fn assurance(&self) -> Assurance {
        Assurance::Unverified
    }
}
