#!/usr/bin/env python3
"""The desk's `yam read` early and late in a game, for two or more builds
of `yam` at once (issue #22): the question "does this build's desk grow
less than that one's" answered in one run, under one load.

    scripts/turn-cost.sh OUT 5                       # makes the desks in OUT
    scripts/bench/desk-ab.py OUT 61 YAM_A YAM_B ...  # RUNS of each, interleaved
    scripts/bench/desk-ab.py OUT 61 YAM_A YAM_B:OTHER  # YAM_B reads OTHER's

A build named as BUILD:DIR reads the desks and mails of DIR instead of
OUT's (the same plies): two builds that send different mails (each
DIR made by scripts/turn-cost.sh with its own build) compared in one run.

scripts/turn-cost.sh keeps the reader's desk and the turn mail it is
about to read at its early and late points (OUT/desk-PLY and
OUT/desk-PLY.eml); the two points are taken from those names. Every run
reads the same mail into a fresh copy of the same desk, so every build
does the same work; the jobs of a round run in turn
(scripts/bench/interleaved.py), one build alone early then late and the
next round late then early; with two builds or more, in an order drawn
anew for each round (a fixed seed), so that no build's read follows a
given read of another (whose caches it inherits) more often at one ply
than at the other. Why: what a process pays depends on the process
before it. In the fixed orders used until the twenty-first step (build
by build, early then late, the whole order reversed every other round;
then every early read and every late one), some builds' reads always
followed another build's read of the other ply at one ply only, and
the same two builds compared in either order came out 0.02 to 0.05
apart, the build named last ahead. For each build it
prints the median CPU (user + system) of both points, the ratio of the
medians, the median and middle half of the ratios taken run by run, and
the median minor page faults of each point.

With two builds or more, each build after the first is also compared
with the first round by round: in each round both builds read at both
plies under the same load, so the differences taken within a round
(this build's CPU less the first build's, at each ply, and this build's
growth from the early read to the late one less the first build's) are
free of the load's drift that moves the medians from run to run. For
each it prints the median difference in microseconds, a 95% interval of
that median (the rounds resampled 2,000 times with a fixed seed), and in
how many rounds this build was the cheaper. Why: a change of 30 to 50 us
a read, a percent of it, is within what separate medians move by between
runs (the twenty-first step kept out a change whose gain it could not
tell from that noise), but it shows in the differences of the same
rounds.
"""
import glob
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import growth, measure, median  # noqa: E402


def points(out):
    """The early and late plies whose desks scripts/turn-cost.sh kept."""
    plies = sorted(
        int(m.group(1))
        for path in glob.glob(f"{out}/desk-*.eml")
        if (m := re.fullmatch(r"desk-(\d+)\.eml", os.path.basename(path)))
    )
    if len(plies) != 2:
        sys.exit(f"{out}: expected the two desks scripts/turn-cost.sh keeps, found plies {plies}")
    return plies


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, runs, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    early_ply, late_ply = points(out)
    jobs = []
    for spec in builds:
        build, _, where = spec.partition(":")
        where = where or out
        if points(where) != [early_ply, late_ply]:
            sys.exit(f"{where}: its desks are not at plies {early_ply} and {late_ply}")
        jobs += [
            (f"{where}/desk-{ply}",
             [build, "read", "--eml", f"{where}/desk-{ply}.eml", "--data-dir", f"{where}/desk-{ply}-run"])
            for ply in (early_ply, late_ply)
        ]
    order = None
    if len(builds) > 1:
        draw = random.Random(22)
        rounds = [draw.sample(range(len(jobs)), len(jobs)) for _ in range(runs)]
        order = rounds.__getitem__
    cpu, faults = measure(jobs, runs, order)
    for i, build in enumerate(builds):
        early, late = cpu[2 * i], cpu[2 * i + 1]
        e, l = median(early), median(late)
        pairs, low, high = growth(early, late)
        print(
            f"{build}: ply {early_ply} {e:.2f} ms, ply {late_ply} {l:.2f} ms, {l / e:.2f}x "
            f"(medians of {runs}); run by run {pairs:.2f}x, middle half {low:.2f}-{high:.2f}; "
            f"page faults {median(faults[2 * i])}/{median(faults[2 * i + 1])}"
        )
    for i in range(1, len(builds)):
        base_early, base_late = cpu[0], cpu[1]
        early, late = cpu[2 * i], cpu[2 * i + 1]
        rows = [
            (f"ply {early_ply}", [b - a for a, b in zip(base_early, early)]),
            (f"ply {late_ply}", [b - a for a, b in zip(base_late, late)]),
            ("growth", [(bl - be) - (al - ae) for ae, al, be, bl in zip(base_early, base_late, early, late)]),
        ]
        said = "; ".join(
            f"{name} {1000 * median(d):+.0f} us [{1000 * low:+.0f}, {1000 * high:+.0f}], "
            f"cheaper in {sum(x < 0 for x in d)} of {len(d)}"
            for name, d in rows
            for low, high in [interval(d)]
        )
        print(f"{builds[i]} less {builds[0]}, round by round (median, 95% interval): {said}")


def interval(differences, resamples=2000):
    """A 95% interval of the median of `differences`: the 2.5th and
    97.5th percentiles of the medians of `resamples` resamplings (with
    replacement, a fixed seed)."""
    draw = random.Random(26)
    medians = sorted(
        median([draw.choice(differences) for _ in differences]) for _ in range(resamples)
    )
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


if __name__ == "__main__":
    main()
