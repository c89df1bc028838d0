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
# commands, early and late, run in turn (early, late, late, early, ...) so
# that a change in the machine's load falls on both alike; each run is on a
# fresh copy of its DIR (not measured), named DIR-run (the command names
# the copy's files as DIR-run/...). Prints "EARLY LATE RATIO FAULTS1
# FAULTS2 PAIRS SPREAD": the CPU medians in ms, their ratio, the median
# page faults of each (minor faults: a fresh page touched; a count that
# does not move with the load, where each fault's cost does, by ten times
# between machines), then the median of the RUNS ratios of each late run
# to the early run beside it and the middle half of those ratios (first
# to third quartile). Why both: on a virtual machine the speed a process
# gets drifts over a run of the script, and the medians of 30 runs moved
# by 10% between runs; a ratio taken run by run cancels the drift, and
# its spread says how far one figure can be trusted.
#   cpu_pair DIR1 COMMAND1... ++ DIR2 COMMAND2...
cpu_pair() {
  python3 - "$RUNS" "$@" <<'PY'
import resource, shutil, subprocess, sys
runs, rest = int(sys.argv[1]), sys.argv[2:]
cut = rest.index("++")
jobs = [(rest[0], rest[1:cut]), (rest[cut + 1], rest[cut + 2:])]
samples = [[], []]
faults = [[], []]
for run in range(runs):
    order = (0, 1) if run % 2 == 0 else (1, 0)
    for which in order:
        source, command = jobs[which]
        shutil.rmtree(source + "-run", ignore_errors=True)
        shutil.copytree(source, source + "-run")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed: {done.stderr.decode()}")
        samples[which].append(1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
        faults[which].append(after.ru_minflt - before.ru_minflt)
early, late = (sorted(s)[len(s) // 2] for s in samples)
f1, f2 = (sorted(f)[len(f) // 2] for f in faults)
pairs = sorted(b / a for a, b in zip(*samples))
quartile = lambda q: pairs[round(q * (len(pairs) - 1))]
print(f"{early:.2f} {late:.2f} {late / early:.2f} {f1} {f2} "
      f"{quartile(0.5):.2f} {quartile(0.25):.2f}-{quartile(0.75):.2f}")
PY
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
