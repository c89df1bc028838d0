#!/usr/bin/env bash
# Yam's whole test suite, on a fresh machine or a developer's.
#
# It installs what the tests need (Debian's Dovecot for IMAP, aiosmtpd from
# the Python package index for SMTP, Debian's chromium for the browser test
# of the HTML export, jq for the docs' JSON examples), starts both servers
# on loopback, runs
# every test of the workspace and of the vendored mail-parser, and stops
# the servers. CI (.ci/run) calls
# exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages, when missing (as root: CI and fresh machines).
if ! command -v dovecot >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing dovecot-imapd and python3-venv"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      dovecot-imapd python3-venv >/dev/null
  else
    echo "Dovecot or python3-venv is missing; install dovecot-imapd and python3-venv (as root)." >&2
    exit 1
  fi
fi

# A headless browser for tests/tests/html_export.rs (which fails without
# one unless YAM_SKIP_BROWSER=1).
if ! command -v chromium >/dev/null 2>&1 && [ "${YAM_SKIP_BROWSER:-}" != 1 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      chromium >/dev/null
  else
    echo "chromium is missing; install it (as root), or set YAM_SKIP_BROWSER=1 to skip the browser test." >&2
    exit 1
  fi
fi

# jq, for the docs' JSON examples that tests/tests/docs_commands.rs runs.
if ! command -v jq >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing jq"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends jq >/dev/null
  else
    echo "jq is missing; install it (as root): the docs test runs the JSON examples with it." >&2
    exit 1
  fi
fi

echo "== starting the mail servers"
eval "$(scripts/mail/servers.sh start)"
trap 'scripts/mail/servers.sh stop "$YAM_MAILTEST_DIR"' EXIT

echo "== cargo test --workspace"
cargo test --workspace --locked

# The mail-parser Yam builds with is a patched copy (vendor/mail-parser,
# YAM-PATCH.md): its own tests, upstream's corpus of mails with their
# expected parses and the comparison of the patched scans with the
# original loops.
echo "== cargo test of vendor/mail-parser"
cargo test --manifest-path vendor/mail-parser/Cargo.toml --locked --features serde,full_encoding
