//! Tests of the Castle Siege referee, one file per concern.

mod declarations;
mod diagram;
mod faithful;
mod input;
mod properties;
mod replay;
mod rules;
mod ruleset;
mod selfplay;
mod setup;
mod support;
