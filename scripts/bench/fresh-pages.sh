#!/usr/bin/env bash
# What reading files into fresh memory costs a process on this machine
# (issue #22, thirtieth step): a C program reads each file named into a
# buffer of its own and exits, the buffers made four ways: malloc (glibc
# maps one of 128 kB or more on its own; what `std::fs::read` gets), an
# anonymous map populated by `mmap(MAP_POPULATE)` (what
# cli/src/store/read.rs makes), an anonymous map populated by
# `madvise(MADV_POPULATE_WRITE)`, and the file itself mapped (no read; the
# way Yam does not take, see docs/performance.md). Each way runs on the
# early files and on the late ones, all in turn, RUNS times; printed: the
# way, the first file, the median CPU (user + system) in microseconds.
#
#   scripts/bench/fresh-pages.sh RUNS EARLY_FILE... -- LATE_FILE...
#
# For the Castle Siege dry run of scripts/turn-cost.sh OUT: the record and
# the tip at each point, e.g.
#   E=OUT/castle-siege-early L=OUT/castle-siege-late
#   scripts/bench/fresh-pages.sh 200 $E/game.yam $E/S/games/*/tip -- $L/game.yam $L/S/games/*/tip
set -euo pipefail
RUNS=$1
shift
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/read.c" <<'EOF'
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
int main(int argc, char **argv) {
  int way = atoi(getenv("WAY"));
  unsigned long sum = 0;
  for (int i = 1; i < argc; i++) {
    int fd = open(argv[i], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return 2;
    long len = st.st_size, got = len;
    char *b;
    if (way == 0) {
      b = malloc(len);
    } else if (way == 1) {
      b = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    } else if (way == 2) {
      b = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      madvise(b, len, MADV_POPULATE_WRITE);
    } else {
      b = mmap(0, len, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    if (b == NULL || b == MAP_FAILED) return 3;
    if (way < 3) got = read(fd, b, len);
    for (long j = 0; j < got; j += 64) sum += (unsigned char)b[j];
    close(fd);
  }
  return sum == 1;
}
EOF
cc -O2 -o "$WORK/read" "$WORK/read.c"
python3 - "$WORK/read" "$RUNS" "$@" <<'EOF'
import os, statistics, subprocess, sys
program, runs, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cut = files.index("--")
points = [files[:cut], files[cut + 1:]]
ways = ["malloc", "MAP_POPULATE", "MADV_POPULATE_WRITE", "file mapped"]
jobs = [(w, p) for w in range(4) for p in points]
cpu = [[] for _ in jobs]
for run in range(runs):
    order = range(len(jobs)) if run % 2 == 0 else reversed(range(len(jobs)))
    for k in order:
        way, files_of = jobs[k]
        env = dict(os.environ, WAY=str(way))
        child = subprocess.Popen([program] + files_of, env=env)
        _, _, usage = os.wait4(child.pid, 0)
        cpu[k].append((usage.ru_utime + usage.ru_stime) * 1e6)
for k, (way, files_of) in enumerate(jobs):
    print(f"{ways[way]:<20} {files_of[0]:<50} {statistics.median(cpu[k]):7.0f} us")
EOF
