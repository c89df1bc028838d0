# Two desks, Ann (ann@example.org) and Bo (bo@example.net), that mail each
# other through directories (DESKS/ann-inbox and DESKS/bo-inbox): for the
# scripts that play mail games without a server. Sourced, not run:
#
#   DESKS=/tmp/x YAM=target/release/yam; . scripts/desks.sh; desks
#   y ann challenge bo@example.net ...     # `yam ... --data-dir DESKS/ann`

# desk KEY NAME ADDRESS OPPONENT: a data directory whose mail goes to the
# opponent's inbox.
desk() {
  mkdir -p "$DESKS/$1"
  printf 'identity:\n  name: %s\n  address: %s\n  key: %s\noutgoing:\n  directory:\n    path: %s\n' \
    "$2" "$3" "$1" "$DESKS/$4-inbox" >"$DESKS/$1/config.yaml"
}

desks() {
  mkdir -p "$DESKS"/ann-inbox "$DESKS"/bo-inbox
  desk ann Ann ann@example.org bo
  desk bo Bo bo@example.net ann
}

# y WHO ARGS...: yam with WHO's data directory.
y() {
  local who=$1
  shift
  "$YAM" "$@" --data-dir "$DESKS/$who"
}
