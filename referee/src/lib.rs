//! Yam referee.
pub mod castle_siege;
pub mod fair_play;
pub mod khan;
