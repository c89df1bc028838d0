//! Yam referee.
pub mod fair_play;
pub mod genghis_khan;
pub mod khan;
