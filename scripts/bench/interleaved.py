#!/usr/bin/env python3
"""CPU and page faults of commands run in turn, each on a fresh copy of
its directory: the measuring loop of scripts/turn-cost.sh and
scripts/bench/desk-ab.py (issue #22).

A round runs every job once, in order, and the next round in the reverse
order (early, late, late, early, ...), so that a change in the machine's
speed falls on every job alike. Before each run the job's directory DIR
is copied afresh to DIR-run (not measured), and the command names the
copy's files as DIR-run/...; so every run does the same work.

Why the run-by-run ratios: on a virtual machine the speed a process gets
drifts over a run, and the medians of 30 runs moved by 10% between runs
of a script; a ratio taken run by run (a late run against the early run
of the same round) cancels the drift, and its spread (the middle half,
first to third quartile) says how far one figure can be trusted. Page
faults are minor faults (a fresh page touched): a count that does not
move with the load, where each fault's cost does.

Why each program is run from a copy made at the start: how a binary's
pages came into the page cache changes what every process of it costs.
A binary just written (a build, a copy) maps in large pieces; one whose
pages the kernel dropped and read back when it was run again maps page
by page: on the third machine `yam read` then took about 23 page faults
and 0.1 ms more a process, at every ply alike, so two builds compared
in one run differed by their history and not their code, and a ratio
shrank by the constant it added. A fresh copy of each puts every build
in the same state (the cheaper one, so a ratio is not flattered).

As a command, for one early and one late job:

    interleaved.py RUNS DIR1 COMMAND1... ++ DIR2 COMMAND2...

prints "EARLY LATE RATIO FAULTS1 FAULTS2 PAIRS SPREAD": the CPU medians
in ms, their ratio, the median page faults of each, the median of the
run-by-run ratios and their middle half.
"""
import os
import resource
import shutil
import subprocess
import sys
import tempfile


def median(values):
    """The middle value (the upper one of an even count)."""
    return sorted(values)[len(values) // 2]


def measure(jobs, runs, order=None):
    """Runs each job (DIR, COMMAND) `runs` times, interleaved; returns,
    per job, its CPU milliseconds (user + system) and its minor page
    faults, one of each per run; each program runs from a fresh copy.
    `order(run)`, if given, is the order of the jobs (their indices) in
    round `run`; by default the jobs' order, reversed every other round."""
    with tempfile.TemporaryDirectory() as programs:
        return measure_copied(fresh_programs(jobs, programs), runs, order)


def fresh_programs(jobs, where):
    """`jobs` with each command's program replaced by a copy in `where`
    (one copy a program): see the module documentation."""
    copies = {}
    for _, command in jobs:
        program = command[0]
        if program not in copies:
            copy = os.path.join(where, f"{len(copies)}-{os.path.basename(program)}")
            shutil.copy2(shutil.which(program) or program, copy)
            copies[program] = copy
    return [(source, [copies[command[0]]] + command[1:]) for source, command in jobs]


def measure_copied(jobs, runs, order=None):
    """As `measure`, the programs run as they are."""
    cpu = [[] for _ in jobs]
    faults = [[] for _ in jobs]
    forward = list(range(len(jobs)))
    order = order or (lambda run: forward if run % 2 == 0 else forward[::-1])
    for run in range(runs):
        for which in order(run):
            source, command = jobs[which]
            shutil.rmtree(source + "-run", ignore_errors=True)
            shutil.copytree(source, source + "-run")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0:
                sys.exit(f"{' '.join(command)} failed: {done.stderr.decode()}")
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu[which].append(1000 * used)
            faults[which].append(after.ru_minflt - before.ru_minflt)
    return cpu, faults


def growth(early, late):
    """The run-by-run ratios of `late` to `early` (same rounds): their
    median and first and third quartiles."""
    ratios = sorted(b / a for a, b in zip(early, late))
    quartile = lambda q: ratios[round(q * (len(ratios) - 1))]
    return quartile(0.5), quartile(0.25), quartile(0.75)


def main():
    runs, rest = int(sys.argv[1]), sys.argv[2:]
    cut = rest.index("++")
    jobs = [(rest[0], rest[1:cut]), (rest[cut + 1], rest[cut + 2:])]
    (early, late), (f1, f2) = measure(jobs, runs)
    e, l = median(early), median(late)
    pairs, low, high = growth(early, late)
    print(f"{e:.2f} {l:.2f} {l / e:.2f} {median(f1)} {median(f2)} "
          f"{pairs:.2f} {low:.2f}-{high:.2f}")


if __name__ == "__main__":
    main()
