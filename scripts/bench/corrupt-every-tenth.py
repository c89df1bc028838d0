#!/usr/bin/env python3
"""Spoil every tenth game of a `yam generate` archive, for timing `yam check`
on archives with errors (issue #19, docs/performance.md).

    corrupt-every-tenth.py < good.yam > bad.yam

Games 10, 30, 50, ... get an illegal first move (a rules error: `Ka1-h8`,
no Khan stands on a1 at the start); games 20, 40, 60, ... an undefined
escape in a comment before it (a syntax error: `{\\q}`). Everything else is
copied byte for byte. Prints the counts on standard error.
"""

import re
import sys

text = sys.stdin.read()
# A game starts at its [Game tag at the start of a line.
starts = [m.start() for m in re.finditer(r"(?m)^\[Game ", text)]
games = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
rules = syntax = 0
out = [text[: starts[0]] if starts else text]
for number, game in enumerate(games, 1):
    if number % 10 == 0:
        head, sep, moves = game.partition("\n\n1. ")
        if not sep:
            sys.exit(f"game {number}: no movetext starting with `1. `")
        first = moves.split(" ", 1)
        if (number // 10) % 2 == 1:
            game = f"{head}\n\n1. Ka1-h8 {first[1]}"
            rules += 1
        else:
            game = f"{head}\n\n1. {{\\q}} {moves}"
            syntax += 1
    out.append(game)
sys.stdout.write("".join(out))
print(
    f"{len(games)} games, {rules + syntax} spoiled ({rules} rules, {syntax} syntax)",
    file=sys.stderr,
)
