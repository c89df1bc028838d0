//! Yam referee.
