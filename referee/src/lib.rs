//! Yam referee.

pub mod khan;
