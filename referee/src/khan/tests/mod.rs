//! Tests of the Khan referee, one file per concern.

mod naive;
mod perft;
mod source_counts;
mod support;
