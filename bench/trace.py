"""What the tracer hook costs the searches that step: expansions per second of each textbook
search without a tracer, to run on a commit and on the one before the hook, and with a
tracer that does nothing (the hook's own cost when used).

    python bench/trace.py [--repeat N] [--nodes N]

Each search runs to a fixed number of expansions (``Limits.nodes``), or to the end of the
level where it finishes sooner (sliding blocks), through webapp.games.solving.solve; the best of
``--repeat`` runs is printed, per second of the process's own CPU time (a shared machine's
other work counts less than in wall-clock time).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webapp import games  # noqa: E402
from webapp.games.solving import solve  # noqa: E402
from webapp.search import Limits  # noqa: E402

#: (game, level file, level, algorithm): levels that keep these searches busy.
CASES = [
    ("sokoban", "sokoban/xsokoban.xsb", 1, "bfs"),
    ("sokoban", "sokoban/xsokoban.xsb", 1, "astar"),
    ("sliding", "sliding/fifteen.txt", 10, "astar"),
    ("sliding", "sliding/fifteen.txt", 10, "idastar"),
    ("vexed", "vexed/07_impossible_pack.txt", 20, "bfs"),
    ("blocks", "blocks/classics.txt", 1, "steps"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument(
        "--idle-tracer", action="store_true", help="run with a tracer that does nothing"
    )
    args = parser.parse_args()
    tracer = None
    if args.idle_tracer:
        from webapp.search import Tracer

        tracer = Tracer()
    print("| game | level | algorithm | expanded | best expansions per CPU second |")
    print("|---|---|---|---:|---:|")
    for name, file, number, algorithm in CASES:
        game = games.get(name)
        level = game.parse((ROOT / "levels" / file).read_text(encoding="utf-8"))[number - 1]
        best = 0.0
        expanded = 0
        for _ in range(args.repeat):
            started = time.process_time()
            limits = Limits(seconds=120, nodes=args.nodes)
            extra = {"tracer": tracer} if tracer is not None else {}
            result = solve(game, level, algorithm, limits=limits, **extra)
            seconds = time.process_time() - started
            expanded = result.expanded
            best = max(best, expanded / seconds)
        print(
            f"| {name} | {file} {number} | {algorithm} | {expanded:,} | {best:,.0f} |", flush=True
        )


if __name__ == "__main__":
    main()
