#!/usr/bin/env bash
# Start or stop a real SMTP server (aiosmtpd) and a real IMAP server
# (Dovecot) on loopback, for Yam's mail tests.
#
#   eval "$(scripts/mail/servers.sh start)"    # exports YAM_MAILTEST_* variables
#   scripts/mail/servers.sh stop "$YAM_MAILTEST_DIR"
#
# Mail sent over SMTP to <user>@<any domain> lands in
# $YAM_MAILTEST_DIR/home/<user>/Maildir, which Dovecot serves as <user>'s
# INBOX; any user name logs in to IMAP with the password "test", so every
# test can use mailboxes of its own. Needs python3 with venv, and Debian's
# dovecot-imapd (scripts/test.sh installs both).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

wait_for_port() {
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "port $1 did not open" >&2
  return 1
}

# Stops the servers whose pid files are in $1 and removes it.
stop_in() {
  local dir=$1 service
  for service in smtp dovecot; do
    [ -f "$dir/$service.pid" ] && kill "$(cat "$dir/$service.pid")" 2>/dev/null || true
  done
  for service in smtp dovecot; do
    for _ in $(seq 50); do
      kill -0 "$(cat "$dir/$service.pid" 2>/dev/null)" 2>/dev/null || break
      sleep 0.1
    done
  done
  rm -rf "$dir"
}

case "${1:-}" in
start)
  smtp_port=${YAM_SMTP_PORT:-2525}
  imap_port=${YAM_IMAP_PORT:-11143}
  # A port already open is another server's (one left by an earlier run
  # that was killed, say): aiosmtpd would share it (SO_REUSEPORT) and
  # half the test mail would go there.
  for port in "$smtp_port" "$imap_port"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "port $port is taken by another server (left by an earlier run? stop it, or set YAM_SMTP_PORT / YAM_IMAP_PORT)" >&2
      exit 1
    fi
  done
  dir=$(mktemp -d /tmp/yam-mail.XXXXXX)   # short: Dovecot's sockets live here
  # A start that fails stops what it started: nothing is left holding
  # the ports.
  trap 'status=$?; [ "$status" = 0 ] || stop_in "$dir"' EXIT
  chmod 755 "$dir"
  mkdir -p "$dir/run" "$dir/state" "$dir/home"
  if [ "$(id -u)" = 0 ]; then
    # Dovecot refuses to give mail access as root.
    mail_user=nobody mail_group=nogroup
    chown "$mail_user:$mail_group" "$dir/home"
    owner=(--owner "$mail_user")
  else
    mail_user=$(id -un) mail_group=$(id -gn)
    owner=()
  fi

  venv=${YAM_MAILTEST_VENV:-${HOME:-/tmp}/.cache/yam/mailtest-venv}
  if ! "$venv/bin/python" -c 'import aiosmtpd' 2>/dev/null; then
    python3 -m venv "$venv" >/dev/null
    "$venv/bin/pip" install -q 'aiosmtpd==1.4.6' >"$dir/pip.log" 2>&1
  fi
  "$venv/bin/python" "$here/smtp_sink.py" --port "$smtp_port" --root "$dir/home" \
    "${owner[@]}" --user yam --password yam-smtp </dev/null >"$dir/smtp.log" 2>&1 &
  echo $! >"$dir/smtp.pid"

  cat >"$dir/dovecot.conf" <<CONF
base_dir = $dir/run
state_dir = $dir/state
instance_name = yam-mailtest-$$
listen = 127.0.0.1
protocols = imap
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
log_path = $dir/dovecot.log
default_internal_user = $mail_user
default_internal_group = $mail_group
default_login_user = $mail_user
mail_location = maildir:~/Maildir
passdb {
  driver = static
  args = password=test
}
userdb {
  driver = static
  args = uid=$mail_user gid=$mail_group home=$dir/home/%n allow_all_users=yes
}
service imap-login {
  chroot =
  inet_listener imap {
    port = $imap_port
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
CONF
  dovecot -F -c "$dir/dovecot.conf" </dev/null >"$dir/dovecot.out" 2>&1 &
  echo $! >"$dir/dovecot.pid"

  wait_for_port "$smtp_port"
  wait_for_port "$imap_port"
  # An open port is not enough: another server may hold it. Ours must
  # still be running.
  sleep 0.3
  for service in smtp dovecot; do
    if ! kill -0 "$(cat "$dir/$service.pid")" 2>/dev/null; then
      echo "the $service server did not start (is its port taken? set YAM_SMTP_PORT / YAM_IMAP_PORT):" >&2
      tail -5 "$dir/$service.log" "$dir/$service.out" 2>/dev/null >&2 || true
      exit 1
    fi
  done
  echo "export YAM_MAILTEST_DIR=$dir YAM_MAILTEST_SMTP_PORT=$smtp_port YAM_MAILTEST_IMAP_PORT=$imap_port"
  echo "export YAM_MAILTEST_SMTP_USER=yam YAM_MAILTEST_SMTP_PASSWORD=yam-smtp YAM_MAILTEST_IMAP_PASSWORD=test"
  ;;
stop)
  stop_in "${2:?stop needs the directory that start printed}"
  ;;
*)
  echo "usage: $0 start | stop DIR" >&2
  exit 2
  ;;
esac
