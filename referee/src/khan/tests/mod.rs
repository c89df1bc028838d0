//! Tests of the Khan referee, one file per concern.

mod naive;
mod perft;
mod rules;
mod ruleset;
mod seed;
mod source_counts;
mod support;
