#!/usr/bin/env bash
# Plays the signed Castle Siege examples under examples/castle-siege/ with
# `yam hotseat`, each to its end, one for each way a siege ends:
#
#   attacker-victory-square.yam  the Attacker enters a victory square (CS-46)
#   defender-attrition.yam       the Defender wins by attrition (CS-47)
#   round-cap.yam                the siege fails at the round cap (CS-50),
#                                under the 8-round `skirmish` ruleset
#
#   scripts/make-siege-examples.sh            # writes examples/castle-siege/*.yam
#   OUT=/tmp/x scripts/make-siege-examples.sh # somewhere else
#
# The setups are fixed below and sealed with a comment each; then
# `yam hotseat auto --annotate` plays the self-play driver's declarations
# (policy `eager` or `random`, seeded), one roll per declaration through
# the real protocol. The choices are deterministic, but the dice are not:
# they come from the players' chains, drawn fresh from the operating system
# on every run (in a temporary secrets directory deleted afterwards). So a
# game may end another way than wanted; the script then plays it again
# from the start, with new chains, until it ends the way its file name
# says. Every attempt is an honest game: the retry only picks which one is
# kept as the example.
#
# Afterwards `yam verify examples/castle-siege` must report every game
# verified, and `yam check examples` every game valid.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-examples/castle-siege}
mkdir -p "$OUT"
cargo build --release --locked -q -p yam-cli
YAM=${YAM:-target/release/yam}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

DEFENDER=Defender:CKAO/OACK/KCOA/AOKC
ATTACKER=Attacker:KKRTTRKK/AA/SS/CC/CC/SS/AA/KKRTTRKK

# siege NAME RULESET POLICY SEED PATTERN: plays until the ending matches.
siege() {
  local name=$1 ruleset=$2 policy=$3 seed=$4 pattern=$5
  local file="$OUT/$name.yam"
  for attempt in $(seq 1 40); do
    local secrets="$WORK/$name-$attempt"
    # The examples show CS-P1's priority list, a whole turn per declaration
    # (hot-seat games are faithful, CS-P4, unless told otherwise).
    "$YAM" hotseat new --game-type castle-siege --ruleset "$ruleset" --turn priority-list \
      --first ann --second bo --id "example-siege-$name" \
      --date 2026.12.01 --event "Yam examples" \
      --out "$file" --force --secrets "$secrets" >/dev/null
    # CS-07: either side may seal first; here the Attacker does.
    "$YAM" hotseat move "$file" "$ATTACKER" --as bo --secrets "$secrets" \
      --comment "The Attacker seals its setup first: the record shows only Attacker:sealed, and the commitment is in the signed event; the placement stays in bo's secrets directory." >/dev/null
    "$YAM" hotseat move "$file" "$DEFENDER" --as ann --secrets "$secrets" \
      --comment "The Defender seals its own. Neither setup can change from here on, and neither is known to the other side." >/dev/null
    "$YAM" hotseat move "$file" reveal --as ann --secrets "$secrets" \
      --comment "Both are sealed, so both are revealed; each opening must hash to its commitment." >/dev/null
    "$YAM" hotseat move "$file" reveal --as bo --secrets "$secrets" >/dev/null
    "$YAM" hotseat auto "$file" --to-end --policy "$policy" --seed "$seed" \
      --annotate --secrets "$secrets" >/dev/null
    local ending
    ending=$("$YAM" hotseat status "$file" | grep '^game over')
    if grep -q -- "$pattern" <<<"$ending"; then
      echo "$file: $ending (attempt $attempt)"
      return 0
    fi
  done
  echo "$file: no game ended with $pattern in 40 attempts" >&2
  return 1
}

siege attacker-victory-square standard eager 1 'CS-46'
siege defender-attrition standard random 2 'CS-47'
siege round-cap skirmish random 3 'CS-50'

"$YAM" verify "$OUT"
