#!/usr/bin/env bash
# The robot under a flood: FORGED mails in the players' names and from
# strangers (no token), with one real move of each of PLAYERS players
# interleaved, on a local Maildir answering into a directory, in a release
# build. Not part of CI.
#
#   scripts/robot-flood.sh [PLAYERS] [FORGED]
#
# Prints, for the real moves: how many were applied and answered, and the
# answer latency (from the robot's start to each answer's file) at the
# median and at the worst; then how long the whole queue took, and how many
# mails the robot sent to each victim.
#
#   YAM=/path/to/yam scripts/robot-flood.sh    # another build (before/after)
set -euo pipefail
cd "$(dirname "$0")/.."
players=${1:-50}
forged=${2:-1000}
if [ -z "${YAM:-}" ]; then
  cargo build --release --quiet -p yam-cli --bin yam
fi
yam=${YAM:-${CARGO_TARGET_DIR:-$PWD/target}/release/yam}
dir=$(mktemp -d /tmp/yam-flood.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$dir"' EXIT; echo "in $dir" >&2
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
n=0
deliver() { # id from subject body
  n=$((n + 1))
  printf 'From: %s\r\nTo: robot@yam.test\r\nMessage-ID: <%s@player.test>\r\nSubject: %s\r\n\r\n%s\r\n' \
    "$2" "$1" "$3" "$4" >"$dir/in/new/$(printf '%08d' $n).flood"
}
for p in $(seq "$players"); do deliver "reg$p" "p$p@player.test" help help; done
"$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
declare -A token
for f in "$dir"/out/*.eml; do
  to=$(grep -m1 '^To: ' "$f" | sed 's/^To: //; s/\r//')
  t=$(grep -m1 'Your token is:' "$f" | awk '{print $4}' | tr -d '\r')
  token[$to]=$t
done
for p in $(seq "$players"); do
  deliver "ch$p" "p$p@player.test" "challenge genghis-khan" "token: ${token[p$p@player.test]}"
done
"$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
for p in $(seq "$players"); do
  deliver "st$p" "p$p@player.test" "move start" "token: ${token[p$p@player.test]}
seed: layout $p"
done
"$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
rm -f "$dir"/out/*.eml
# The flood: forged mails in the players' names (resign, no token) and
# from strangers (help); one real move of each player, spread through it.
every=$((forged / players))
f=0
for p in $(seq "$players"); do
  for _ in $(seq "$every"); do
    f=$((f + 1))
    if ((f % 2)); then
      deliver "forged$f" "p$(( (f % players) + 1 ))@player.test" "resign" "please"
    else
      deliver "forged$f" "stranger$f@example.com" "help" "help"
    fi
  done
  deliver "real$p" "p$p@player.test" "move draw" "token: ${token[p$p@player.test]}
seed: flood $p"
done
start=$(date +%s.%N)
/usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$yam" robot run --config "$dir/robot.yaml" --once 2>"$dir/log" || true
passes=1
while [ "$(find "$dir/in/new" -type f | wc -l)" -gt 0 ] && [ $passes -lt 100 ]; do
  "$yam" robot run --config "$dir/robot.yaml" --once 2>>"$dir/log" || true
  passes=$((passes + 1))
done
end=$(date +%s.%N)
read -r wall user sys rss <"$dir/time"
answered=0
lat=()
for p in $(seq "$players"); do
  a=$(grep -l "In-Reply-To: <real$p@player.test>" "$dir"/out/*.eml 2>/dev/null | head -1 || true)
  if [ -n "$a" ] && ! grep -q '^Refused' "$a"; then
    answered=$((answered + 1))
    lat+=("$(echo "$(stat -c %.6Y "$a") - $start" | bc)")
  fi
done
sorted=$(printf '%s\n' "${lat[@]}" | sort -n)
median=$(echo "$sorted" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
worst=$(echo "$sorted" | tail -1)
to_victims=$(grep -l '^To: p[0-9]*@player.test' "$dir"/out/*.eml | xargs grep -L 'In-Reply-To: <real' | wc -l)
echo "real moves: $players, applied and answered: $answered; answer latency from the robot's start: median ${median} s, worst ${worst} s"
echo "forged mails: $forged; the first look took ${wall} s (CPU ${user}+${sys} s, peak RSS ${rss} KB); the whole queue $(echo "$end - $start" | bc) s over $passes look(s)"
echo "mails to the victims besides their answers: $to_victims; answers to strangers: $(grep -l '^To: stranger' "$dir"/out/*.eml | wc -l)"
