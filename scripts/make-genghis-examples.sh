#!/usr/bin/env bash
# Plays the signed Genghis Khan examples under examples/genghis-khan/ with
# `yam hotseat`: complete games against a tournament director's chain, and
# one practice game, each played to its end by the greedy player.
#
#   scripts/make-genghis-examples.sh            # writes examples/genghis-khan/*.yam
#   OUT=/tmp/x scripts/make-genghis-examples.sh # somewhere else
#
# The director (dora) opens each game for its player and answers every
# roll with its own chain: roll 0 lays out the Foe rows, and every Horde
# card is a roll of its own. Each game started in director mode is appended
# to the director's register, copied here as director-register.yam: one
# signed opening per game, so a ladder sees every game a player started,
# not only the ones reported: pat's second game, abandoned after two turns,
# is in it.
#
# The greedy player's choices are deterministic, but the cards are not:
# they come from the chains, drawn fresh from the operating system on every
# run (in a temporary secrets directory deleted afterwards). The practice
# game's cards come from its open seed, so it is the same on every run up to
# its signatures; it is reported as unverified practice.
#
# Afterwards `yam verify examples/genghis-khan` must report every game
# verified (the practice game as unverified practice), and `yam check
# examples` every game valid.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-examples/genghis-khan}
mkdir -p "$OUT"
cargo build --release --locked -q -p yam-cli
YAM=${YAM:-target/release/yam}
SECRETS=$(mktemp -d)
trap 'rm -rf "$SECRETS"' EXIT

# cards FILE PLAYER ID [options]: a greedy game to the end.
cards() {
  local file=$1 player=$2 id=$3; shift 3
  "$YAM" hotseat new --game-type genghis-khan --ruleset standard \
    --first "$player" --director dora --id "$id" \
    --date 2026.12.01 --event "Yam examples" \
    --out "$file" --force --secrets "$SECRETS" "$@" >/dev/null
  "$YAM" hotseat auto "$file" --to-end --annotate --secrets "$SECRETS" >/dev/null
  echo "$file: $("$YAM" hotseat status "$file" | grep -E '^(game over|next)')"
}

cards "$OUT/director-pat-1.yam" pat example-genghis-pat-1

# pat starts a second game and abandons it after two turns: it has no
# score, but the director's register lists it all the same.
file="$OUT/director-pat-2-abandoned.yam"
"$YAM" hotseat new --game-type genghis-khan --ruleset standard \
  --first pat --director dora --id example-genghis-pat-2 \
  --date 2026.12.02 --event "Yam examples" \
  --out "$file" --force --secrets "$SECRETS" >/dev/null
"$YAM" hotseat auto "$file" --steps 14 --annotate --secrets "$SECRETS" >/dev/null
"$YAM" hotseat resign "$file" --secrets "$SECRETS" >/dev/null
echo "$file: $("$YAM" hotseat status "$file" | grep -E '^(game over|next)')"

cards "$OUT/director-sam-1.yam" sam example-genghis-sam-1
cards "$OUT/practice.yam" pat example-genghis-practice \
  --mode practice --seed "a quiet evening on the steppe"
cp "$SECRETS/director/register.yam" "$OUT/director-register.yam"

"$YAM" verify "$OUT"
