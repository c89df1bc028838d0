//! Yam referee.
pub mod fair_play;
pub mod khan;
