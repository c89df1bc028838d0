//! Yam referee.
pub mod check;
pub mod fair_play;
pub mod khan;
pub mod replay;
pub mod signed;
