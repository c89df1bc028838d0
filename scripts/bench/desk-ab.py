#!/usr/bin/env python3
"""The desk's `yam read` early and late in a game, for two or more builds
of `yam` at once (issue #22): the question "does this build's desk grow
less than that one's" answered in one run, under one load.

    scripts/turn-cost.sh OUT 5                       # makes OUT/desk-10, OUT/desk-300
    scripts/bench/desk-ab.py OUT 61 YAM_A YAM_B ...  # RUNS of each, interleaved

Every run reads the same turn mail into a fresh copy of the same desk
(OUT/desk-PLY and OUT/desk-PLY.eml, made by scripts/turn-cost.sh), so
every build does the same work. The four (or more) commands of a round
run in turn, the order reversed every other round, so a change in the
machine's speed falls on every build alike. For each build it prints the
median CPU (user + system) of ply 10 and ply 300, the ratio of the
medians, and the median and middle half of the ratios taken run by run
(each late run against the early run of the same round); then the median
minor page faults of each.
"""
import resource
import shutil
import statistics
import subprocess
import sys

EARLY, LATE = 10, 300


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, runs, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    jobs = [(build, ply) for build in builds for ply in (EARLY, LATE)]
    cpu = {job: [] for job in jobs}
    faults = {job: [] for job in jobs}
    for run in range(runs):
        for build, ply in jobs if run % 2 == 0 else reversed(jobs):
            desk = f"{out}/desk-{ply}"
            copy = f"{desk}-ab"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(desk, copy)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(
                [build, "read", "--eml", f"{desk}.eml", "--data-dir", copy],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0:
                sys.exit(f"{build} read failed: {done.stderr.decode()}")
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu[(build, ply)].append(1000 * used)
            faults[(build, ply)].append(after.ru_minflt - before.ru_minflt)
    for build in builds:
        early, late = cpu[(build, EARLY)], cpu[(build, LATE)]
        ratios = sorted(b / a for a, b in zip(early, late))
        quartile = lambda q: ratios[round(q * (len(ratios) - 1))]
        e, l = statistics.median(early), statistics.median(late)
        print(
            f"{build}: ply {EARLY} {e:.2f} ms, ply {LATE} {l:.2f} ms, {l / e:.2f}x "
            f"(medians of {runs}); run by run {quartile(0.5):.2f}x, middle half "
            f"{quartile(0.25):.2f}-{quartile(0.75):.2f}; page faults "
            f"{statistics.median(faults[(build, EARLY)]):.0f}/"
            f"{statistics.median(faults[(build, LATE)]):.0f}"
        )


if __name__ == "__main__":
    main()
