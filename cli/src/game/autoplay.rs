//! The engines' choices, which live in the referee
//! ([`yam_referee::autoplay`]): re-exported under their old path for the
//! rooms and tests that name them here. New code uses the referee's.

pub use yam_referee::autoplay::{AutoplayError, Intent, cards, choose, siege};
