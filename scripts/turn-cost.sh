#!/usr/bin/env bash
# How a turn's cost grows with the game (issue #22): the CPU (user +
# system) of one `yam` process early in a long Khan game and late in the
# same game, for the hot-seat (a move's dry run, and a move written) and
# the desk (`yam read` of the opponent's turn mail, through the directory
# transport). Each measured run starts from a fresh copy of the game, so
# every run does the same work; early and late runs take turns, so a change
# in the machine's load falls on both; the median of RUNS runs of each,
# their ratio, and the median and middle half of the ratios taken run by
# run (each late run against the early run beside it) are printed.
#
#   scripts/turn-cost.sh [OUT] [RUNS] [YAM]   (defaults: /tmp/yam-turn-cost, 30, target/release/yam)
#
# The game is Khan, basic ruleset (random games under it run long), moves
# chosen by `--auto random` from fixed seeds; ply 10 and ply 300 of the
# same game are compared; then a Castle Siege and a Genghis Khan game in the
# hot-seat, early and late. Not in CI: a release build and a minute or two.
set -euo pipefail
OUT=${1:-/tmp/yam-turn-cost}
RUNS=${2:-30}
YAM=${3:-$(cd "$(dirname "$0")/.." && pwd)/target/release/yam}
EARLY=10
LATE=300
rm -rf "$OUT"
mkdir -p "$OUT"

# Median CPU milliseconds (user + system) of RUNS runs of each of two
# commands, early and late, run in turn, each on a fresh copy of its DIR
# named DIR-run (scripts/bench/interleaved.py says how and why). Prints
# "EARLY LATE RATIO FAULTS1 FAULTS2 PAIRS SPREAD": the CPU medians in ms,
# their ratio, the median page faults of each, then the median of the
# RUNS ratios of each late run to the early run beside it and the middle
# half of those ratios.
#   cpu_pair DIR1 COMMAND1... ++ DIR2 COMMAND2...
cpu_pair() {
  python3 "$(dirname "$0")/bench/interleaved.py" "$RUNS" "$@"
}

# Prints one case's line from cpu_pair's output.
#   report CASE EARLY_POINT LATE_POINT EARLY LATE RATIO FAULTS1 FAULTS2 PAIRS SPREAD
report() {
  echo "$1: $2 $4 ms, $3 $5 ms, ${6}x (median CPU of $RUNS, interleaved); page faults $7/$8; run by run ${9}x, middle half ${10}"
}

# --- The hot-seat --------------------------------------------------------
H=$OUT/hotseat
mkdir -p "$H"
"$YAM" hotseat new --game-type khan --ruleset basic --first alice --second bob \
  --id turn-cost --out "$H/game.yam" --secrets "$H/S" >/dev/null
"$YAM" hotseat auto "$H/game.yam" --steps "$EARLY" --seed 7 --secrets "$H/S" >/dev/null
cp -a "$H" "$OUT/hotseat-$EARLY"
"$YAM" hotseat auto "$H/game.yam" --steps $((LATE - EARLY)) --seed 7 --secrets "$H/S" >/dev/null
cp -a "$H" "$OUT/hotseat-$LATE"
G1=$OUT/hotseat-$EARLY G2=$OUT/hotseat-$LATE
m1=$("$YAM" hotseat status "$G1/game.yam" --moves | head -1)
m2=$("$YAM" hotseat status "$G2/game.yam" --moves | head -1)
set -- $(cpu_pair "$G1" "$YAM" hotseat move "$G1-run/game.yam" "$m1" --dry-run --secrets "$G1-run/S" \
  ++ "$G2" "$YAM" hotseat move "$G2-run/game.yam" "$m2" --dry-run --secrets "$G2-run/S")
report "hotseat move --dry-run" "ply $EARLY" "ply $LATE" "$@"
set -- $(cpu_pair "$G1" "$YAM" hotseat move "$G1-run/game.yam" "$m1" --secrets "$G1-run/S" \
  ++ "$G2" "$YAM" hotseat move "$G2-run/game.yam" "$m2" --secrets "$G2-run/S")
report "hotseat move (written)" "ply $EARLY" "ply $LATE" "$@"

# --- Castle Siege and Genghis Khan in the hot-seat ------------------------
# A move's dry run early and late in one game of each (a roll a turn, so
# the late game holds hundreds of events). The dice come from chains drawn
# afresh for every game, so a game may end before the late point: then
# another game is played (up to five).
other() { # other NAME LATE_STEPS hotseat-new-arguments...
  local name=$1 late=$2
  shift 2
  local H=$OUT/$name try
  for try in 1 2 3 4 5; do
    rm -rf "$H" "$H-early" "$H-late"
    mkdir -p "$H"
    "$YAM" hotseat new "$@" --id "turn-cost-$name" --out "$H/game.yam" --secrets "$H/S" >/dev/null
    "$YAM" hotseat auto "$H/game.yam" --steps "$EARLY" --seed 3 --secrets "$H/S" >/dev/null
    cp -a "$H" "$H-early"
    if "$YAM" hotseat auto "$H/game.yam" --steps "$late" --seed 3 --secrets "$H/S" >/dev/null 2>&1 &&
      "$YAM" hotseat status "$H/game.yam" --moves | grep -q .; then
      break
    fi
    [ "$try" = 5 ] && { echo "$name: five games ended before the late point" >&2; exit 1; }
  done
  cp -a "$H" "$H-late"
  local G1=$H-early G2=$H-late
  local e1 e2 m1 m2
  e1=$(grep -c '%event' "$G1/game.yam")
  e2=$(grep -c '%event' "$G2/game.yam")
  m1=$("$YAM" hotseat status "$G1/game.yam" --moves | head -1)
  m2=$("$YAM" hotseat status "$G2/game.yam" --moves | head -1)
  set -- $(cpu_pair "$G1" "$YAM" hotseat move "$G1-run/game.yam" "$m1" --dry-run --secrets "$G1-run/S" \
    ++ "$G2" "$YAM" hotseat move "$G2-run/game.yam" "$m2" --dry-run --secrets "$G2-run/S")
  report "$name move --dry-run" "$e1 events" "$e2 events" "$@"
}
other castle-siege 150 --game-type castle-siege --ruleset standard --first alice --second bob
other genghis-khan 150 --game-type genghis-khan --ruleset standard --first alice --director dir

# --- The desk --------------------------------------------------------------
D=$OUT/desk
DESKS=$D
. "$(dirname "$0")/desks.sh"
desks
read_all() {
  local who=$1 f
  for f in $(ls -tr "$D/$who-inbox"/*.eml 2>/dev/null); do
    y "$who" read --eml "$f" >/dev/null || true
    rm -f "$f"
  done
}
y ann challenge bo@example.net --game-type khan --ruleset basic --seats first --id tc-1 >/dev/null
read_all bo; read_all ann; read_all bo
y bo accept tc-1 >/dev/null
read_all ann; read_all bo
plies=0
keep() { # keep the reader's desk and the mail it is about to read
  local who=$1 f
  f=$(ls -tr "$D/$who-inbox"/*.eml | tail -1)
  rm -rf "$OUT/desk-$plies"
  cp -a "$D/$who" "$OUT/desk-$plies"
  cp "$f" "$OUT/desk-$plies.eml"
}
while [ "$plies" -lt "$LATE" ]; do
  for pair in "ann bo" "bo ann"; do
    set -- $pair
    y "$1" move tc-1 --auto random --seed "$plies" >/dev/null
    plies=$((plies + 1))
    if [ "$plies" = "$EARLY" ] || [ "$plies" = "$LATE" ]; then keep "$2"; fi
    read_all "$2"
    [ "$plies" -ge "$LATE" ] && break
  done
done
set -- $(cpu_pair "$OUT/desk-$EARLY" "$YAM" read --eml "$OUT/desk-$EARLY.eml" --data-dir "$OUT/desk-$EARLY-run" \
  ++ "$OUT/desk-$LATE" "$YAM" read --eml "$OUT/desk-$LATE.eml" --data-dir "$OUT/desk-$LATE-run")
report "desk yam read of the opponent's turn mail" "ply $EARLY" "ply $LATE" "$@"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
