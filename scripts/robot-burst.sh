#!/usr/bin/env bash
# The robot under a burst of 1,000 command mails, in a release build, on a
# local Maildir answering into a directory (no network: this measures the
# robot, not a mail server). Not part of CI.
#
#   scripts/robot-burst.sh [PLAYERS] [MAILS]
#
# PLAYERS addresses register and each starts a solo Genghis Khan game, then
# MAILS command mails arrive at once (round robin over the players: a move,
# a show, a list, in turn) and one `yam robot run --once` processes them.
# Prints mails per second and the CPU time per mail.
set -euo pipefail
cd "$(dirname "$0")/.."
players=${1:-50}
mails=${2:-1000}
cargo build --release --quiet -p yam-cli --bin yam
yam=$PWD/target/release/yam
dir=$(mktemp -d /tmp/yam-burst.XXXXXX)
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
limits:
  per_sender_per_hour: 100000
CONF
n=0
deliver() { # from subject body
  n=$((n + 1))
  printf 'From: %s\r\nTo: robot@yam.test\r\nMessage-ID: <burst%d@player.test>\r\nSubject: %s\r\n\r\n%s\r\n' \
    "$1" "$n" "$2" "$3" >"$dir/in/new/$(printf '%08d' $n).burst"
}
for p in $(seq "$players"); do deliver "p$p@player.test" help help; done
"$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
declare -A token
for f in "$dir"/out/*.eml; do
  to=$(grep -m1 '^To: ' "$f" | sed 's/^To: //; s/\r//')
  t=$(grep -m1 'Your token is:' "$f" | awk '{print $4}' | tr -d '\r')
  token[$to]=$t
done
for p in $(seq "$players"); do
  deliver "p$p@player.test" "challenge genghis-khan" "token: ${token[p$p@player.test]}"
done
"$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
for p in $(seq "$players"); do
  deliver "p$p@player.test" "move start" "token: ${token[p$p@player.test]}
seed: layout $p"
done
"$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
for i in $(seq "$mails"); do
  p=$(( (i - 1) % players + 1 ))
  case $(( (i - 1) / players % 3 )) in
    0) cmd="move draw" ;;
    1) cmd="show" ;;
    *) cmd="list" ;;
  esac
  deliver "p$p@player.test" "$cmd" "token: ${token[p$p@player.test]}
seed: burst $i"
done
before=$(ls "$dir/out" | wc -l)
/usr/bin/time -f '%e %U %S' -o "$dir/time" "$yam" robot run --config "$dir/robot.yaml" --once 2>"$dir/log"
after=$(ls "$dir/out" | wc -l)
read -r wall user sys <"$dir/time"
left=$(find "$dir/in/new" "$dir/in/cur" -type f | wc -l)
refused=$(grep -l 'Refused:' "$dir"/out/*.eml | wc -l)
echo "mails: $mails from $players players; answers sent: $((after - before)) ($refused refusing a move); left unprocessed: $left"
awk -v m="$mails" -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN {
  printf "wall %.2f s: %.1f mails/s; CPU %.2f s (user %.2f, sys %.2f): %.2f ms per mail\n",
    w, m / w, u + s, u, s, 1000 * (u + s) / m }'
