#!/usr/bin/env bash
# Where the desk's `yam read` grows from the early ply to the late one, by
# function (issue #22): a time profile of RUNS reads at each of the two
# points scripts/turn-cost.sh keeps in OUT, each on a fresh copy of the
# desk, and the difference of the samples each function took, largest
# first. Needs `perf` and a kernel that lets this user profile.
#
#   scripts/bench/desk-growth.sh OUT 80 target/release/yam [LINES]
#
# Samples are of the CPU clock at 20 kHz (50 µs each); the figures are
# samples over all runs: divide by RUNS and multiply by 0.05 for ms a read.
# Kernel functions count too (page faults, copies of the files read).
set -euo pipefail
OUT=${1:?OUT}; RUNS=${2:?RUNS}; YAM=$(realpath "${3:?YAM}"); LINES=${4:-40}
COMM=$(basename "$YAM" | cut -c1-15)
PLIES=$(ls "$OUT" | sed -n 's/^desk-\([0-9]*\)\.eml$/\1/p' | sort -n)
[ "$(echo "$PLIES" | wc -l)" = 2 ] || { echo "$OUT: expected two kept desks" >&2; exit 1; }
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
for p in $PLIES; do
  perf record -q -e cpu-clock -F 20000 -o "$WORK/$p.data" -- bash -c "
    for i in \$(seq $RUNS); do
      rm -rf '$OUT/desk-$p-run'; cp -a '$OUT/desk-$p' '$OUT/desk-$p-run'
      '$YAM' read --eml '$OUT/desk-$p.eml' --data-dir '$OUT/desk-$p-run' >/dev/null
    done" 2>/dev/null
  perf script -i "$WORK/$p.data" -F comm,ip,sym 2>/dev/null |
    awk -v c="$COMM" '$1 == c { $1 = ""; $2 = ""; n[$0]++ } END { for (k in n) print n[k] "\t" k }' > "$WORK/$p.txt"
done
set -- $PLIES
python3 - "$WORK/$1.txt" "$WORK/$2.txt" "$RUNS" "$LINES" "$1" "$2" <<'PY'
import sys
early, late, runs, lines, p1, p2 = sys.argv[1:]
def load(path):
    d = {}
    for line in open(path):
        n, sym = line.rstrip("\n").split("\t", 1)
        d[sym.strip()] = d.get(sym.strip(), 0) + int(n)
    return d
a, b = load(early), load(late)
per = lambda n: n * 0.05 / int(runs)
print(f"ply {p1}: {per(sum(a.values())):.2f} ms a read; ply {p2}: {per(sum(b.values())):.2f} ms (under the profiler)")
print(f"{'growth':>7} {'ply ' + p1:>8} {'ply ' + p2:>8}  function (samples of all {runs} runs)")
rows = sorted(((b.get(k, 0) - a.get(k, 0), k) for k in set(a) | set(b)), reverse=True)
for d, k in rows[: int(lines)]:
    print(f"{d:>7} {a.get(k, 0):>8} {b.get(k, 0):>8}  {k[:100]}")
PY
