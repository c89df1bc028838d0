//! Tests of the Khan referee, one file per concern.

mod diagram;
mod docs;
mod input;
mod naive;
mod perft;
mod playouts;
mod rules;
mod ruleset;
mod seed;
mod source_counts;
mod support;
