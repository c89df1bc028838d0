#!/usr/bin/env bash
# Yam's whole test suite, on a fresh machine or a developer's.
#
# It installs and starts whatever the tests need, runs every test of the
# workspace, and stops what it started. CI (.ci/run) calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Rust tests: unit, property, golden and end-to-end tests of every crate.
cargo test --workspace --locked
