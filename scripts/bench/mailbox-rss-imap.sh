#!/bin/bash
# As mailbox-rss.sh, with Bo reading by IMAP from Dovecot (scripts/mail/servers.sh).
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
YAM=${YAM:-$ROOT/target/release/yam}
cd "$ROOT"
export YAM_SMTP_PORT=${YAM_SMTP_PORT:-2725} YAM_IMAP_PORT=${YAM_IMAP_PORT:-11343}
eval "$(scripts/mail/servers.sh start)"
trap '"$ROOT"/scripts/mail/servers.sh stop "$YAM_MAILTEST_DIR"' EXIT
W=$(mktemp -d /tmp/rssi.XXXX)
U=bo$RANDOM
M=$YAM_MAILTEST_DIR/home/$U/Maildir
mkdir -p $M/{new,cur,tmp} $W/ann/Maildir/{new,cur,tmp}
cd $W
cat > ann/config.yaml <<END
identity: { name: Ann, address: ann@example.org, key: ann }
outgoing: { directory: { path: $M/new } }
incoming: { maildir: { path: Maildir } }
END
mkdir -p bo
cat > bo/config.yaml <<END
identity: { name: Bo, address: bo@example.net, key: bo }
outgoing: { directory: { path: ../ann/Maildir/new } }
incoming:
  imap: { host: 127.0.0.1, port: $YAM_MAILTEST_IMAP_PORT, tls: false, user: $U, password: test }
END
$YAM challenge bo@example.net --game-type khan --ruleset rescue-khan --seats first --id r-1 --data-dir ann >/dev/null
chown -R nobody $YAM_MAILTEST_DIR/home/$U
$YAM read --data-dir bo >/dev/null; $YAM read --data-dir ann >/dev/null; $YAM read --data-dir bo >/dev/null
$YAM accept r-1 --data-dir bo >/dev/null; $YAM read --data-dir ann >/dev/null
M=$M python3 - <<'PY'
import os
M=os.environ["M"]
body = ("Lorem ipsum dolor sit amet " * 40 + "\r\n") * 18
for i in range(int(os.environ.get("N","5000"))):
    with open(f"{M}/cur/1700000000.{i}.host:2,S", "w") as f:
        f.write(f"From: cy@example.com\r\nTo: bo@example.net\r\nSubject: old {i}\r\nMessage-ID: <old{i}@example.com>\r\n\r\n{body}")
big = b"A" * (30 << 20)
for i in range(10):
    with open(f"{M}/new/1700000001.big{i}.host", "wb") as f:
        f.write(b"From: cy@example.com\r\nTo: bo@example.net\r\nSubject: big\r\nMessage-ID: <big%d@example.com>\r\n\r\n" % i + big)
PY
$YAM move r-1 Ad1-c1 --data-dir ann >/dev/null
chown -R nobody $YAM_MAILTEST_DIR/home/$U
echo "IMAP N=$N first read ($N old + 10 x 30 MB + 1 turn, none known):"
/usr/bin/time -f "  peak RSS %M KB, %e s" $YAM read --data-dir bo | grep -v "^  [A-Z]"
echo "second read (nothing new):"
/usr/bin/time -f "  peak RSS %M KB, %e s" $YAM read --data-dir bo
$YAM move r-1 Fb8-c6 --data-dir bo >/dev/null; $YAM read --data-dir ann >/dev/null
$YAM move r-1 Ac1-b1 --data-dir ann >/dev/null
chown -R nobody $YAM_MAILTEST_DIR/home/$U
echo "third read (one new turn):"
/usr/bin/time -f "  peak RSS %M KB, %e s" $YAM read --data-dir bo | grep -v "^  [A-Z]"
rm -rf $W
