//! Yam referee: the rules of each game and the fair-play layer. No I/O.
pub mod autoplay;
pub mod castle_siege;
pub mod check;
pub mod fair_play;
pub mod genghis_khan;
pub mod khan;
pub mod replay;
pub mod ruleset_error;
pub mod ruleset_name;
pub mod seeded;
pub mod signed;
#[cfg(test)]
mod test_rng;
