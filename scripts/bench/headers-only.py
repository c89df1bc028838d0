#!/usr/bin/env python3
"""Writes an archive's games with every movetext cut to its result `*`
(the Result tag set to match): what a game costs besides its moves, to
measure alone (docs/performance.md, "Eleventh round").

    python3 scripts/bench/headers-only.py IN.yam OUT.yam

Games are found as `yam generate` writes them: a blank line before each
`[Game` tag; each game's header ends at its first blank line.
"""

import re
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    text = open(sys.argv[1], encoding="utf-8").read()
    games = re.split(r"\n\n(?=\[Game )", text)
    out = []
    for game in games:
        header = game.partition("\n\n")[0]
        header = re.sub(r'\[Result "[^"]*"\]', '[Result "*"]', header)
        out.append(header + "\n\n*\n")
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    print(f"{len(out)} games", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
