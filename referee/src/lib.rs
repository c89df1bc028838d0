//! Yam referee.
pub mod fair_play;
