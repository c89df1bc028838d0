#!/usr/bin/env bash
# Plays the signed Khan example games under examples/khan/signed/ with
# `yam hotseat`, one per game type, each to its end, plus one practice game.
#
#   scripts/make-khan-examples.sh            # writes examples/khan/signed/*.yam
#   OUT=/tmp/x scripts/make-khan-examples.sh # somewhere else
#
# The moves are chosen deterministically: each side takes a capture when it
# has one (the capture at a seeded pseudo-random index), otherwise a seeded
# pseudo-random legal move, so the same script always plays the same games.
# The keys and chain secrets are fresh from the operating system on every
# run (in a temporary secrets directory that is deleted afterwards), so the
# signatures differ from run to run while the moves do not. A few moves get
# comments, to show that prose lives beside the signed evidence.
#
# Afterwards `yam verify examples/khan/signed` must report every game
# verified (the practice game as unverified practice), and `yam check
# examples` every game valid. CI (.ci/run) runs this script into a scratch
# folder and compares `yam export --plain` of its records with the committed
# ones. The annotated lessons of the Rescue Khan seed are made by
# scripts/make-khan-seed-examples.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-examples/khan/signed}
mkdir -p "$OUT"
cargo build --release --locked -q -p yam-cli
YAM=${YAM:-target/release/yam}
SECRETS=$(mktemp -d)
trap 'rm -rf "$SECRETS"' EXIT

# The pieces' names, by letter (docs/rules/khan.md).
declare -A NAME=([K]=khan [J]="khan archer" [I]="khan swordsman" [F]=bondsman
  [W]=warrior [A]=archer [S]=swordsman [N]=assassin [M]=magician
  [H]="power magician" [G]="demoted magician")

# One step of a linear congruential generator.
next() { STATE=$(( (STATE * 1103515245 + 12345) % 2147483648 )); }

# play FILE SEED MAXPLIES: plays until the rules end the game, or MAXPLIES.
play() {
  local file=$1 max=$3 ply=0
  STATE=$2
  while (( ply < max )); do
    mapfile -t moves < <("$YAM" hotseat status "$file" --moves)
    (( ${#moves[@]} == 0 )) && break
    local captures=()
    for m in "${moves[@]}"; do
      [[ $m == *x* ]] && captures+=("$m")
    done
    next
    local pick comment=()
    if (( ${#captures[@]} > 0 )); then
      pick=${captures[STATE % ${#captures[@]}]}
      # Note the first few captures in words.
      if (( ply < 40 )); then
        comment=(--comment "The ${NAME[${pick:0:1}]} takes on ${pick:4:2}.")
      fi
    else
      pick=${moves[STATE % ${#moves[@]}]}
    fi
    if (( ply == 0 )); then
      comment=(--comment "The game is played by the hot-seat harness: every move below is signed by its player's key.")
    fi
    "$YAM" hotseat move "$file" "$pick" "${comment[@]}" --secrets "$SECRETS" >/dev/null
    ply=$(( ply + 1 ))
  done
}

new() {
  local ruleset=$1 file=$2 id=$3; shift 3
  "$YAM" hotseat new --game-type khan --ruleset "$ruleset" \
    --first ann --second bo --id "$id" \
    --date 2026.11.30 --event "Yam examples" \
    --out "$file" --force --secrets "$SECRETS" "$@" >/dev/null
}

for ruleset in basic magician power-magician rescue-general rescue-khan; do
  file="$OUT/$ruleset.yam"
  new "$ruleset" "$file" "example-khan-$ruleset"
  play "$file" "$(printf '%d' "'${ruleset:0:1}")${#ruleset}" 600
  if "$YAM" hotseat status "$file" | grep -q '^next:'; then
    # Not over by the rules within the limit: the side to move resigns.
    "$YAM" hotseat resign "$file" --secrets "$SECRETS" >/dev/null
  fi
  echo "$file: $("$YAM" hotseat status "$file" | grep -E '^(game over|next)')"
done

# A practice game: an open seed, reported as unverified practice; it ends
# in a draw by agreement.
file="$OUT/practice-basic.yam"
new basic "$file" example-khan-practice --mode practice --seed "the first lesson"
play "$file" 7 12
"$YAM" hotseat offer-draw "$file" --secrets "$SECRETS" >/dev/null
"$YAM" hotseat accept-draw "$file" --secrets "$SECRETS" >/dev/null
echo "$file: $("$YAM" hotseat status "$file" | grep -E '^(game over|next)')"

"$YAM" verify "$OUT"
