#!/usr/bin/env bash
# Makes the inputs of cli/examples/mail_cpu.rs: two desks, Ann and Bo,
# play Castle Siege (`yam move --auto eager`) through the directory
# transport; before each incoming roll request is read, the reader's desk
# and the mail are kept as OUT/pairs/N-WHO-EVENTS (the desk) and
# OUT/pairs/N-WHO-EVENTS.eml (the mail), EVENTS being the events of the
# game once the roll is answered.
#
#   scripts/mail-cpu-inputs.sh OUT [YAM]     (YAM: target/release/yam)
#   cargo run --release -p yam-cli --example mail_cpu -- OUT/pairs/18-ann-35 OUT/pairs/18-ann-35.eml 30
#
# (the dice differ from run to run, and so does who rolls when: take the
# pair whose EVENTS is 35, whatever its N and WHO).
set -euo pipefail
R=${1:?usage: $0 OUT [YAM]}
YAM=${2:-$(cd "$(dirname "$0")/.." && pwd)/target/release/yam}
rm -rf "$R"
mkdir -p "$R"/ann-read "$R"/bo-read "$R"/pairs
DESKS=$R
. "$(dirname "$0")/desks.sh"
desks
read_all() {
  local who=$1 f n out events
  for f in $(ls -tr "$R/$who-inbox"/*.eml 2>/dev/null); do
    n=$(ls "$R/pairs" | wc -l)
    rm -rf "$R/before"
    cp -a "$R/$who" "$R/before"
    out=$(y "$who" read --eml "$f" || true)
    if grep -q "answered the roll request" <<<"$out"; then
      events=$(grep -c '\[%event' "$R/$who/games/cs-1/record.yam" || true)
      mv "$R/before" "$R/pairs/$n-$who-$events"
      cp "$f" "$R/pairs/$n-$who-$events.eml"
    fi
    mv "$f" "$R/$who-read/"
  done
}
status() { y "$1" games | awk '$2=="cs-1"{print $1}'; }
y ann challenge bo@example.net --game-type castle-siege --ruleset standard --seats first --id cs-1 >/dev/null
read_all bo; read_all ann; read_all bo
y bo accept cs-1 >/dev/null
read_all ann; read_all bo
for i in $(seq 200); do
  a=$(status ann) b=$(status bo)
  [ "$a" = over ] && [ "$b" = over ] && break
  if [ "$a" = YOU ]; then y ann move cs-1 --auto eager --seed "$i" >/dev/null; read_all bo; read_all ann
  elif [ "$b" = YOU ]; then y bo move cs-1 --auto eager --seed "$i" >/dev/null; read_all ann; read_all bo
  else read_all ann; read_all bo; fi
  [ "$(ls "$R/pairs" | wc -l)" -gt 40 ] && break
done
rm -rf "$R/before"
ls "$R/pairs"
