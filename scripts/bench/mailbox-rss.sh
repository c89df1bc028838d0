#!/bin/bash
# Peak RSS of `yam read` (release build: cargo build --release -p yam-cli) on a
# Maildir holding N (default 5,000) old mails, ten 30 MB
# mails and one new turn; then again with nothing new.
set -e
YAM=${YAM:-$(cd "$(dirname "$0")/../.." && pwd)/target/release/yam}
W=$(mktemp -d /tmp/rss.XXXX)
cd $W
mkdir -p ann/Maildir/{new,cur,tmp} bo/Maildir/{new,cur,tmp}
cat > ann/config.yaml <<'END'
identity: { name: Ann, address: ann@example.org, key: ann }
outgoing: { directory: { path: ../bo/Maildir/new } }
incoming: { maildir: { path: Maildir } }
END
cat > bo/config.yaml <<'END'
identity: { name: Bo, address: bo@example.net, key: bo }
outgoing: { directory: { path: ../ann/Maildir/new } }
incoming: { maildir: { path: Maildir } }
END
$YAM challenge bo@example.net --game-type khan --ruleset rescue-khan --seats first --id r-1 --data-dir ann >/dev/null
$YAM read --data-dir bo >/dev/null; $YAM read --data-dir ann >/dev/null; $YAM read --data-dir bo >/dev/null
$YAM accept r-1 --data-dir bo >/dev/null; $YAM read --data-dir ann >/dev/null
# 5,000 old personal mails (about 20 KB each) and ten 30 MB mails in Bo's inbox.
python3 - <<'PY'
import os
body = ("Lorem ipsum dolor sit amet " * 40 + "\r\n") * 18
for i in range(int(os.environ.get("N","5000"))):
    with open(f"bo/Maildir/cur/1700000000.{i}.host:2,S", "w") as f:
        f.write(f"From: cy@example.com\r\nTo: bo@example.net\r\nSubject: old {i}\r\nMessage-ID: <old{i}@example.com>\r\n\r\n{body}")
big = b"A" * (30 << 20)
for i in range(10):
    with open(f"bo/Maildir/new/1700000001.big{i}.host", "wb") as f:
        f.write(b"From: cy@example.com\r\nTo: bo@example.net\r\nSubject: big\r\nMessage-ID: <big%d@example.com>\r\n\r\n" % i + big)
PY
du -sh bo/Maildir
$YAM move r-1 Ad1-c1 --data-dir ann >/dev/null
echo "N=$N first read ($N old + 10 x 30 MB + 1 turn, none known):"
/usr/bin/time -f "  peak RSS %M KB, %e s" $YAM read --data-dir bo | tail -3
echo "second read (nothing new):"
/usr/bin/time -f "  peak RSS %M KB, %e s" $YAM read --data-dir bo | tail -2
echo "a third read after one more turn:"
$YAM move r-1 Fb8-c6 --data-dir bo >/dev/null; $YAM read --data-dir ann >/dev/null
$YAM move r-1 Ac1-b1 --data-dir ann >/dev/null
/usr/bin/time -f "  peak RSS %M KB, %e s" $YAM read --data-dir bo | tail -2
rm -rf $W
