#!/usr/bin/env bash
# The `yam` binary to hand out: a release build, linked statically on
# Linux with glibc (a static-pie executable) when the C library's static
# archive is there, an ordinary release build otherwise.
#
#     scripts/dist.sh            # prints the binary's path last
#
# Why static (docs/performance.md, "The twenty-seventh step"): every `yam`
# process starts with the dynamic loader mapping libc, libm and libgcc_s,
# resolving their symbols and running libgcc_s's CPU detection; a
# static-pie binary does none of it, which takes about 0.3 ms of CPU off
# every command on the machine the figures come from (a tenth of a desk's
# whole `yam read`), and the binary runs on any Linux of its architecture
# (kernel 3.2 or later) whatever its glibc. What a static program still
# loads at run time: name lookups through /etc/nsswitch.conf modules
# other than `files` and `dns` (built into libc since glibc 2.34) load
# them from the system, which must then be of the glibc the binary was
# built with; Yam looks up only the mail servers' names. Not static: a
# build for Windows or macOS, a Linux with musl, or a glibc without
# libc.a (Fedora and RHEL ship it as glibc-static, Debian and Ubuntu in
# libc6-dev).
#
# The static build needs an explicit --target: with the host's target
# implied, Cargo would give the flag to proc-macro crates too, which
# cannot be built static ("cannot produce proc-macro ... does not support
# these crate types"); with --target it goes to the target's crates only.
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(rustc -vV | sed -n 's/^host: //p')
static_libc=$(${CC:-cc} -print-file-name=libc.a 2>/dev/null || true)

case "$host" in
  *-linux-gnu*)
    if [ "${static_libc#/}" != "$static_libc" ] && [ -f "$static_libc" ]; then
      echo "== static release build for $host ($static_libc)" >&2
      cargo build --release --locked -p yam-cli --target "$host" \
        --config "target.$host.rustflags = [\"-C\", \"target-feature=+crt-static\"]" >&2
      binary="${CARGO_TARGET_DIR:-target}/$host/release/yam"
      # A static-pie executable names no program interpreter.
      if readelf -l "$binary" 2>/dev/null | grep -q 'program interpreter'; then
        echo "$binary is not static" >&2
        exit 1
      fi
      echo "$binary"
      exit 0
    fi
    echo "== no static libc.a for $host (install glibc-static or libc6-dev): a dynamic release build" >&2
    ;;
  *)
    echo "== $host: an ordinary release build" >&2
    ;;
esac
cargo build --release --locked -p yam-cli >&2
echo "${CARGO_TARGET_DIR:-target}/release/yam"
