//! The commands: each a room that parses its arguments, calls the shared
//! services (`game`, `archive`, `mail`, `store`, `config`, `diagnostics`,
//! `pictures`) and the libraries, and prints. A command never imports
//! another command (a test holds the rule: `tests/tests/layout.rs`).

pub mod check;
pub mod config;
pub mod dispute;
pub mod engine;
pub mod export;
pub mod fmt;
pub mod generate;
pub mod hotseat;
pub mod manual;
pub mod play;
pub mod robot;
pub mod select;
pub mod show;
pub mod verify;
