//! Yam referee.
pub mod check;
pub mod fair_play;
pub mod khan;
