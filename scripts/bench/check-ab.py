#!/usr/bin/env python3
"""`yam check` of one archive by two or more builds, alternated, and each
build's CPU against the first's taken run by run (issue #22): how the
"0.94x the CPU run by run" figures of docs/performance.md are measured.

    scripts/bench/check-ab.py RUNS FILE YAM_A YAM_B ...

Each round runs `YAM check -q --jobs 1 FILE` once with every build, in
order, and the next round in the reverse order, so that a change in the
machine's speed falls on every build alike. For each build it prints the
median CPU (user + system) of its runs, and the median and middle half
(first to third quartile) of its runs' ratios to the first build's run of
the same round.

Why run by run, and why not instructions alone: on a virtual machine the
speed a process gets drifts by 10% to 30% over minutes, which a ratio
within one round cancels; and the rules' fast path runs at about four
instructions a cycle, where one mispredicted jump every few plies costs
as much as thirty instructions ("Eighth round", "Ninth round"), so a
build with more instructions can take less time.
"""
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import growth, median  # noqa: E402


def cpu_of(command):
    """The CPU milliseconds (user + system) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed: {done.stderr.decode()}")
    return 1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    runs, archive, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    cpu = [[] for _ in builds]
    order = list(range(len(builds)))
    for run in range(runs):
        for which in order if run % 2 == 0 else reversed(order):
            command = [builds[which], "check", "-q", "--jobs", "1", archive]
            cpu[which].append(cpu_of(command))
    for which, build in enumerate(builds):
        pairs, low, high = growth(cpu[0], cpu[which])
        print(
            f"{build}: median {median(cpu[which]):.1f} ms; run by run against "
            f"{builds[0]} {pairs:.3f}x, middle half {low:.3f}-{high:.3f} ({runs} runs)"
        )


if __name__ == "__main__":
    main()
