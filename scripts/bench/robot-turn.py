#!/usr/bin/env python3
"""How a robot's command costs as its game grows: one `yam robot run
--once` that answers one move, on a copy of a kept store, short game
against long game, alternated. Not part of CI.

    KEEP=1 PRE=0 scripts/robot-burst.sh 1 3     # prints "kept: DIR_SHORT"
    KEEP=1 PRE=140 scripts/robot-burst.sh 1 3   # prints "kept: DIR_LONG"
    scripts/bench/robot-turn.py ROUNDS DIR_SHORT DIR_LONG YAM [YAM_B]

Each round copies each kept directory afresh, drops into its Maildir the
move its newest answer suggests ("Reply: move ID MOVE #PLY", with the
player's token), and times the robot's one look by the CPU the child used
(user + system, from getrusage). With two builds, each runs on each store
in turn, and the ratios of both are printed. The first look of a run is
what a robot started by a timer pays for every mail: the game read from
its store, nothing kept from an earlier look.
"""
import email
import email.policy
import glob
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile


def newest_reply(out):
    paths = sorted(glob.glob(os.path.join(out, "*.eml")), key=os.path.getmtime)
    token = None
    reply = None
    for path in paths:
        with open(path, "rb") as f:
            mail = email.message_from_binary_file(f, policy=email.policy.default)
        body = mail.get_body(preferencelist=("plain",))
        text = body.get_content() if body else ""
        found = re.search(r"Your token is:\s+(\S+)", text)
        if found:
            token = found.group(1)
        for line in re.findall(r"^Reply: (move \S+ .*#(\d+))$", text, re.M):
            # The move the game is at: the highest ply suggested (answers
            # written within one second have no order by time).
            if reply is None or int(line[1]) > reply[2]:
                reply = (str(mail["To"]), line[0], int(line[1]))
    return token, reply


def one_look(yam, kept, scratch):
    work = os.path.join(scratch, "w")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(kept, work, symlinks=True)
    conf = open(os.path.join(kept, "robot.yaml")).read().replace(kept, work)
    with open(os.path.join(work, "robot.yaml"), "w") as f:
        f.write(conf)
    token, (to, line, _) = newest_reply(os.path.join(work, "out"))
    mail = (
        f"From: {to}\r\nTo: robot@yam.test\r\nMessage-ID: <turn@player.test>\r\n"
        f"Subject: {line}\r\n\r\ntoken: {token}\r\nseed: turn\r\n"
    )
    with open(os.path.join(work, "in", "new", "99999999.turn"), "w") as f:
        f.write(mail)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [yam, "robot", "run", "--config", os.path.join(work, "robot.yaml"), "--once"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    answered = [
        p
        for p in glob.glob(os.path.join(work, "out", "*.eml"))
        if "In-Reply-To: <turn@player.test>" in open(p, errors="replace").read()
    ]
    if not answered or "Refused:" in open(answered[0], errors="replace").read():
        sys.exit(f"the move was not played in {kept}: {line}")
    return 1000 * (
        (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    )


def main():
    rounds, short, long_ = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    builds = sys.argv[4:]
    events = {}
    for d in (short, long_):
        records = glob.glob(os.path.join(d, "data", "games", "*", "record.yam"))
        events[d] = sum(open(r).read().count("[%event") for r in records) / len(records)
    times = {(b, d): [] for b in builds for d in (short, long_)}
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(rounds):
            order = [(b, d) for b in builds for d in (short, long_)]
            if r % 2:
                order.reverse()
            for b, d in order:
                times[(b, d)].append(one_look(b, d, scratch))
    for b in builds:
        s = statistics.median(times[(b, short)])
        l = statistics.median(times[(b, long_)])
        print(
            f"{b}: {events[short]:.0f} events {s:.2f} ms, {events[long_]:.0f} events {l:.2f} ms: {l / s:.2f}x"
        )


if __name__ == "__main__":
    main()
