#!/usr/bin/env bash
# Peak memory of one look of the robot at a Maildir holding ten unread 30 MB
# mails and ARCHIVED (default 20,000) mails it read before, plus a real
# player's move; under a memory limit (ulimit -v, default 400 MB). Release
# build; not part of CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
archived=${ARCHIVED:-20000}
limit_mb=${LIMIT_MB:-400}
cargo build --release --quiet -p yam-cli --bin yam
yam=$PWD/target/release/yam
dir=$(mktemp -d /tmp/yam-robot-rss.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/in/new" "$dir/in/cur" "$dir/in/tmp" "$dir/out"
cat >"$dir/robot.yaml" <<CONF
robot:
  address: robot@yam.test
data: $dir/data
outgoing:
  directory:
    path: $dir/out
incoming:
  maildir:
    path: $dir/in
CONF
printf 'From: ann@player.test\r\nTo: robot@yam.test\r\nMessage-ID: <reg@player.test>\r\nSubject: help\r\n\r\nhelp\r\n' >"$dir/in/new/0.reg"
"$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
token=$(grep -h -m1 'Your token is:' "$dir"/out/*.eml | awk '{print $4}' | tr -d '\r')
ARCHIVED=$archived DIR=$dir python3 - <<'PY'
import os
d = os.environ["DIR"]
body = ("Lorem ipsum dolor sit amet " * 40 + "\r\n") * 18
for i in range(int(os.environ["ARCHIVED"])):
    with open(f"{d}/in/cur/1700000000.{i}.host:2,S", "w") as f:
        f.write(f"From: cy@example.com\r\nTo: robot@yam.test\r\nSubject: old {i}\r\nMessage-ID: <old{i}@example.com>\r\n\r\n{body}")
big = b"A" * (30 << 20)
for i in range(10):
    with open(f"{d}/in/new/1700000001.big{i}.host", "wb") as f:
        f.write(b"From: cy@example.com\r\nTo: robot@yam.test\r\nSubject: big\r\nMessage-ID: <big%d@example.com>\r\n\r\n" % i + big)
PY
printf 'From: ann@player.test\r\nTo: robot@yam.test\r\nMessage-ID: <go@player.test>\r\nSubject: challenge genghis-khan\r\n\r\ntoken: %s\r\n' "$token" >"$dir/in/new/9.go"
du -sh "$dir/in" | sed 's/^/mailbox: /'
( ulimit -v $((limit_mb * 1024)); /usr/bin/time -f 'first look: peak RSS %M KB, %e s' "$yam" robot run --config "$dir/robot.yaml" --once 2>&1 | grep -v '^yam robot' ) || echo "the robot failed under ${limit_mb} MB"
grep -l 'New Genghis Khan game' "$dir"/out/*.eml >/dev/null && echo "the real player's challenge is answered"
( ulimit -v $((limit_mb * 1024)); /usr/bin/time -f 'second look (nothing new): peak RSS %M KB, %e s' "$yam" robot run --config "$dir/robot.yaml" --once 2>&1 | grep -v '^yam robot' )
