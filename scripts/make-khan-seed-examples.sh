#!/usr/bin/env bash
# Plays the annotated lessons under examples/khan/seed/: every move the
# Rescue Khan seed text describes (shared/seeds/khan-siege-rescue-khan.txt),
# each from a lesson start of its own (examples/khan/seed/rulesets/*.yaml,
# Khan ruleset files that the records name by their relative path), with
# comments that explain each rule as it happens.
#
#   scripts/make-khan-seed-examples.sh            # writes examples/khan/seed/*.yam
#   OUT=/tmp/x scripts/make-khan-seed-examples.sh # somewhere else (the rulesets are copied along)
#
# The moves and the comments are fixed here, so every run plays the same
# records. The games are signed by the hot-seat harness (`yam hotseat`),
# with keys and chain secrets fresh from the operating system on every run
# (in a temporary secrets directory deleted afterwards): the signatures
# differ from run to run, nothing else does. `yam export --plain` of two
# runs' records is byte for byte the same, and CI (.ci/run) checks that.
#
# Afterwards `yam check` and `yam verify` must accept every record.
set -euo pipefail
cd "$(dirname "$0")/.."

SRC=examples/khan/seed
OUT=${OUT:-$SRC}
mkdir -p "$OUT/rulesets"
if [[ $(cd "$OUT" && pwd -P) != $(cd "$SRC" && pwd -P) ]]; then
  cp "$SRC"/rulesets/*.yaml "$OUT/rulesets/"
fi
if [[ -z ${YAM:-} ]]; then
  cargo build --release --locked -q -p yam-cli
  YAM=target/release/yam
fi
SECRETS=$(mktemp -d)
trap 'rm -rf "$SECRETS"' EXIT

FILE=
# lesson NAME INTRO: starts $OUT/NAME.yam under $OUT/rulesets/NAME.yaml.
lesson() {
  FILE="$OUT/$1.yam"
  "$YAM" hotseat new --game-type khan --ruleset-file "$OUT/rulesets/$1.yaml" \
    --first ann --second bo --id "seed-$1" \
    --date 2026.12.01 --event "Yam examples: the Rescue Khan seed" \
    --comment "$2" --out "$FILE" --force --secrets "$SECRETS" >/dev/null
}
# m MOVE [COMMENT]: the player to move plays MOVE, signed.
m() {
  local comment=()
  if (( $# > 1 )); then comment=(--comment "$2"); fi
  "$YAM" hotseat move "$FILE" "$1" "${comment[@]}" --secrets "$SECRETS" >/dev/null
}

lesson spells-and-pickups "The seed's first lesson: \"Undermine the tower first\", then \
\"Rescue the prisoner\". Both khans are held in Sung towers whose archers kill any \
piece but a magician that enters a manned square (KR-7.1). Each side is led by its \
bondsman until its khan is back (KR-8)."
m Hf5*h5 "White's power magician casts at h5, a manned tower square two squares away: \
a spell reaches king distance 2 and needs no line of sight (KR-4.1). Aimed at an empty \
manned square, it silences the archers there for the rest of the game (KR-7.2). The \
caster stays where it is; the spell is the whole move."
m Hc5*a3 "Black answers in kind: from c5, a3 in the west tower is two squares away, \
and now it is silenced too."
m Wf4-h5 "The warrior makes two king steps, through g4 or g5, onto the silenced square, \
and picks up White's khan (KR-7.3): a piece that carries nothing and ends its move on a \
silenced square of a tower takes its captive. One move earlier the same step would have \
been the warrior's death (KR-7.1)."
m Hc5-c3 "Black's power magician moves like a warrior (KR-3.5); it steps down to c3."
m Wh5-g4 "A carrier moves and captures as usual (KR-7.4); the warrior heads for White's \
ger on a1, where his khan can recover (KR-7.7)."
m Hc3-a3 "The seed's pickup c3-a3: the power magician steps onto a3, silenced by its own \
spell, and takes Black's khan. Both khans are out of their towers; the race to the gers \
begins."

lesson enemy-captive "The seed's \"Picking up an enemy captive\". Any piece may pick up \
any captive, the enemy's khan included: it keeps him from his own side. Here a3 and h5 \
are silenced already (KR-7.2), so both towers can be entered there."
m Ab3-a3 "White's archer steps onto a3 and picks up Black's khan (KR-7.3). Black cannot \
get him back without capturing the archer."
m Wf6-h5 "Black does the same: the warrior makes two king steps, through g5 or g6, and \
picks up White's khan on h5. Each side now guards the other's khan."
m Aa3-a2 "White chooses to kill the captive: the archer walks into a2, still manned, and \
dies there with the khan it carries (KR-7.1). White sacrifices a piece; Black's khan is \
gone for good, and Black plays on led by his bondsman (KR-6.2). A captive's death resets \
the count of the 100-ply rule (KR-P14)."
m Wh5-f6 "Black keeps his hostage. He must take care never to carry White's khan onto \
White's ger a1: a carrier that brings the enemy's khan to that khan's own ger drops him \
off there, and he returns to White's army (KR-P12)."

lesson drop-offs-and-releases "The seed's \"Transport the captive to safety\" and \
\"Release the captive\". White's warrior on b2 carries White's khan, Black's power \
magician on f7 carries Black's; their gers are a1 and h8."
m Wb2-a1 "The drop-off b2-a1: a carrier that ends its move on its captive khan's own ger \
leaves him there to recover (KR-7.7). The khan waits at the ger; the warrior still \
stands on it."
m Hf7-h8 "The drop-off f7-h8 by the power magician: its knight-shaped step, two king \
steps through g7 or g8, is a warrior's move (KR-3.5), and h8 is Black's ger."
m Wa1-c2 "The release a1-c2: the warrior leaves the ger, and at the end of the move \
White's khan appears on a1 as a khan again (KR-7.7, KR-P12). White has two leaders once \
more, so neither is royal (KR-6.2)."
m Hh8-h7 "The release h8-h7: Black's khan appears on h8. The magician steps onto h7, a \
manned tower square, unharmed: the archers kill any piece but a magician (KR-7.1). Both \
khans are back; from here on the game is won like any game of Khan (KR-8)."

lesson transfers "The seed's \"Siege transfer\": a carrier may pass its captive to a \
friendly piece on a neighbouring square that carries none; the transfer is the whole \
move (KR-7.5). White's archer on e2 carries White's khan, Black's power magician on c5 \
carries Black's."
m "Ae2>d1" "The transfer e2 to d1: the warrior on d1 takes White's khan. Nothing moves; \
a transfer never picks up, drops off or releases a captive (KR-P10)."
m "Hc5>b6" "The transfer c5 to b6: Black's assassin takes Black's khan."
m "Wd1>e2" "Back to the archer on e2, so that it can show the other two transfers."
m "Nb6>c5" "And Black's khan goes back to the power magician on c5."
m "Ae2>d2" "The transfer e2 to d2, to the archer there."
m "Hc5>d5" "The transfer c5 to d5, to Black's archer."
m "Ad2>e2" "Back to e2 once more."
m "Ad5>c5" "Black's khan returns to c5."
m "Ae2>d3" "The transfer e2 to d3: even a swordsman may carry a khan. A carrier may pass \
on its own khan or the enemy's alike."

lesson capture-rule-1 "The seed's \"Capturing an enemy captive\", rule 1: if a piece \
holding its own captive captures a piece holding its own captive, the enemy captive \
dies. White's warrior on d4 holds White's khan; Black's archer on e5 holds Black's."
m Wd4xe5 "Rule 1: the warrior takes the archer. The captured piece carried the capturer's \
enemy's khan, so that khan dies (KR-7.6); the warrior keeps White's khan. The capture \
and the captive's death reset the 100-ply count (KR-P14)."
m Fb8-c8 "Black's khan is gone for good; Black plays on, led by his bondsman alone, who \
is therefore royal (KR-6.2)."

lesson capture-rule-2 "The seed's \"Capturing an enemy captive\", rule 2: if a piece \
holding the enemy's captive captures a piece holding its own side's captive, it takes \
its own captive over, and the enemy captive it held dies. Black's warrior on e5 holds \
White's khan; White's archer on d4 holds Black's. Black is to move."
m We5xd4 "Rule 2: the warrior takes the archer. The captured piece carried Black's own \
khan, so the warrior takes him over, and White's khan, which it was holding, dies \
(KR-7.6: a piece carries at most one captive)."
m Fg1-f1 "White's khan is gone for good; White plays on, led by his bondsman alone, who \
is therefore royal (KR-6.2)."

lesson tower-deaths "The seed's \"Walking into the enemy tower\": any piece but a \
magician that ends its move on a manned tower square dies there (KR-7.1). The archers \
shoot whoever comes, even a piece of the side whose khan the tower holds."
m Ag4-h5 "From g4: White's archer steps onto h5, manned, and dies. The tower still holds \
White's khan, and h5 stays manned."
m Wa6-a4 "From a6: Black's warrior makes two steps down the a-file, through a5, onto a4, \
and dies. Its path through a5 was open; a manned square on the way would have blocked \
it like a piece (KR-3)."
m Wg7-h7 "From g7: White's warrior steps onto h7 and dies."
m Wg5-h6 "From g5: Black's warrior steps onto h6 and dies. Each death resets the count \
of the 100-ply rule (KR-P14). Only a spell silences a tower square (KR-7.2)."

"$YAM" check "$OUT"
"$YAM" verify --quiet "$OUT"
