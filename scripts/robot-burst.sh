#!/usr/bin/env bash
# The robot under a burst of 1,000 command mails, in a release build, on a
# local Maildir answering into a directory (no network: this measures the
# robot, not a mail server). Not part of CI.
#
#   scripts/robot-burst.sh [PLAYERS] [MAILS]
#
# PLAYERS addresses register and each starts a solo Genghis Khan game, then
# MAILS command mails arrive at once (round robin over the players: a move,
# a show, a list, in turn) and one `yam robot run --once` processes them;
# the last mail of the burst is one more move of the first player, the
# real player whose answer is timed.
# Prints mails per second, the CPU time per mail, the answer latency from
# the robot's start (of every answer, and of that last mail) and the load
# average before the run.
#
#   YAM=/path/to/yam scripts/robot-burst.sh    # another build (before/after)
#   PRE=60 scripts/robot-burst.sh              # each game 60 moves long first
#                                              # (how a command's cost grows
#                                              # with its game)
#   IMAP=1 scripts/robot-burst.sh              # the robot reads Dovecot by IMAP
#   KEEP=1 scripts/robot-burst.sh              # keep the store, mails and answers
#
# With IMAP=1 the mails are dropped into the Maildir that a Dovecot on
# loopback serves (scripts/mail/servers.sh starts it), and the robot reads
# them by IMAP (one session a look, `\Seen` set by batches); answers still
# go to a directory.
set -euo pipefail
cd "$(dirname "$0")/.."
players=${1:-50}
mails=${2:-1000}
if [ -z "${YAM:-}" ]; then
  cargo build --release --quiet -p yam-cli --bin yam
fi
yam=${YAM:-${CARGO_TARGET_DIR:-$PWD/target}/release/yam}
dir=$(mktemp -d /tmp/yam-burst.XXXXXX)
incoming="maildir: { path: $dir/in }"
own() { :; }
if [ -n "${IMAP:-}" ]; then
  export YAM_SMTP_PORT=${YAM_SMTP_PORT:-2745} YAM_IMAP_PORT=${YAM_IMAP_PORT:-11363}
  eval "$(scripts/mail/servers.sh start)"
  trap 'scripts/mail/servers.sh stop "$YAM_MAILTEST_DIR"; rm -rf "$dir"' EXIT
  user=robot$RANDOM
  rmdir "$dir" && mkdir -p "$YAM_MAILTEST_DIR/home/$user" && dir_in=$YAM_MAILTEST_DIR/home/$user/Maildir
  mkdir -p "$dir" && ln -s "$dir_in" "$dir/in"
  mkdir -p "$dir_in/new" "$dir_in/cur" "$dir_in/tmp"
  incoming="imap: { host: 127.0.0.1, port: $YAM_MAILTEST_IMAP_PORT, tls: false, user: $user, password: test }"
  # Dovecot serves the mail as its mail user.
  own() { [ "$(id -u)" != 0 ] || chown -R nobody "$YAM_MAILTEST_DIR/home/$user"; }
elif [ -z "${KEEP:-}" ]; then
  trap 'rm -rf "$dir"' EXIT
else
  echo "kept: $dir"
fi
mkdir -p "$dir/in/new" "$dir/in/cur" "$dir/in/tmp" "$dir/out"
cat >"$dir/robot.yaml" <<CONF
robot:
  address: robot@yam.test
data: $dir/data
outgoing:
  directory:
    path: $dir/out
incoming:
  $incoming
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
own; "$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
declare -A token
for f in "$dir"/out/*.eml; do
  to=$(grep -m1 '^To: ' "$f" | sed 's/^To: //; s/\r//')
  t=$(grep -m1 'Your token is:' "$f" | awk '{print $4}' | tr -d '\r')
  token[$to]=$t
done
for p in $(seq "$players"); do
  deliver "p$p@player.test" "challenge genghis-khan" "token: ${token[p$p@player.test]}"
done
own; "$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
for p in $(seq "$players"); do
  deliver "p$p@player.test" "move start" "token: ${token[p$p@player.test]}
seed: layout $p"
done
own; "$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
# Games made long before the burst (not timed): PRE rounds in which each
# player sends back the move the robot's last answer to them suggests
# (its "Reply: move ID MOVE #PLY" line), so every game goes on legally.
suggested() { # the suggested reply line of each player's newest answer
  python3 - "$dir/out" "$dir/round" <<'PY'
import email, email.policy, glob, os, re, sys
newest = {}
# Only the answers of the last round (newer than its marker), if any.
since = os.path.getmtime(sys.argv[2]) if os.path.exists(sys.argv[2]) else 0
paths = [p for p in glob.glob(os.path.join(sys.argv[1], "*.eml")) if os.path.getmtime(p) >= since]
for path in sorted(paths, key=os.path.getmtime):
    mail = email.message_from_binary_file(open(path, "rb"), policy=email.policy.default)
    body = mail.get_body(preferencelist=("plain",))
    text = body.get_content() if body else ""
    found = re.findall(r"^Reply: (move \S+ .*#\d+)$", text, re.M)
    if found:
        newest[mail["To"]] = found[-1]
for to, line in newest.items():
    print(f"{to}\t{line}")
PY
}
for r in $(seq "${PRE:-0}"); do
  while IFS=$'\t' read -r to line; do
    deliver "$to" "$line" "token: ${token[$to]}
seed: pre $r"
  done < <(suggested)
  touch "$dir/round"
  own; "$yam" robot run --config "$dir/robot.yaml" --once 2>/dev/null
done
if [ "${PRE:-0}" -gt 0 ]; then
  events=$(for f in "$dir"/data/games/*/record.yam; do grep -c '\[%event' "$f"; done |
    awk '{s += $1} END {printf "%.0f", s / NR}')
  echo "games made long first: $PRE rounds, $events signed events a game on average"
fi
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
n=$((n + 1))
printf 'From: p1@player.test\r\nTo: robot@yam.test\r\nMessage-ID: <late@player.test>\r\nSubject: move draw\r\n\r\ntoken: %s\r\nseed: late\r\n' \
  "${token[p1@player.test]}" >"$dir/in/new/$(printf '%08d' $n).burst"
mails=$((mails + 1))
before=$(ls "$dir/out" | wc -l)
own
touch "$dir/start"
load=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(stat -c %.6Y "$dir/start")
/usr/bin/time -f '%e %U %S' -o "$dir/time" "$yam" robot run --config "$dir/robot.yaml" --once 2>"$dir/log"
after=$(ls "$dir/out" | wc -l)
read -r wall user sys <"$dir/time"
left=$( (ls "$dir/in/new"; ls "$dir/in/cur" | grep -v ':2,.*S' || true) | wc -l)
refused=$( (grep -l 'Refused:' "$dir"/out/*.eml || true) | wc -l)
late=$(grep -l 'In-Reply-To: <late@player.test>' "$dir"/out/*.eml | head -1)
late=$(echo "$(stat -c %.6Y "$late") - $start" | bc)
lat=$(find "$dir/out" -newer "$dir/start" -name '*.eml' -printf '%T@\n' | awk -v s="$start" '{print $1 - s}' | sort -n)
median=$(echo "$lat" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
worst=$(echo "$lat" | tail -1)
echo "mails: $mails from $players players; answers sent: $((after - before)) ($refused refusing a move); left unprocessed: $left"
awk -v m="$mails" -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN {
  printf "wall %.2f s: %.1f mails/s; CPU %.2f s (user %.2f, sys %.2f): %.2f ms per mail\n",
    w, m / w, u + s, u, s, 1000 * (u + s) / m }'
echo "answer latency from the robot's start: median $median s, last $worst s; the burst's last mail (a real move): $late s"
echo "load average before the run: $load"
