"""Benchmark the Sokoban solution optimizer on the default solver's solutions; prints a
markdown table.

python bench/improve.py [--set xsokoban|microban|microban2] [--levels 1-10]
    [--time-limit S] [--improve-limit S] [--metric pushes|moves] [--peer PATH]

Each level is solved by the default algorithm (its answer already went through the
optimizer for a share of the solve's time, solver.OPTIMIZE_SHARE), then its solution is
improved for ``--improve-limit`` seconds (``python -m webapp improve``'s own function); one
line per level gives pushes and moves before and after, and the optimizer's seconds, and a
total line the pushes and moves saved. A level the solver misses is listed and left out of
the totals. With ``--peer PATH`` (a YASS binary, say, run as bench/sokoban.py runs it, with
the solver's limits) the peer's pushes are given too, and the totals over the levels both
solve: ours / the peer's before `improve` and after. The project never needs the peer.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from webapp.games.sokoban import GAME  # noqa: E402
from webapp.games.solving import check_solution, solve  # noqa: E402
from webapp.search import Limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sokoban import run_peer  # noqa: E402

BENCHMARKS = REPO / "levels" / "sokoban"
SETS = {"microban": "microban.xsb", "microban2": "microban2.xsb", "xsokoban": "xsokoban.xsb"}


def numbers(spec: str, count: int) -> list[int]:
    """1-based level numbers from "1-10" or "1-5,9"."""
    found: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        found.extend(range(int(first), int(last or first) + 1))
    return [n for n in found if 1 <= n <= count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="xsokoban", choices=list(SETS))
    parser.add_argument("--levels", default="1-10")
    parser.add_argument("--time-limit", type=float, default=60.0, help="the solver's seconds")
    parser.add_argument("--improve-limit", type=float, default=60.0, help="the optimizer's")
    parser.add_argument("--metric", default="pushes", choices=list(GAME.improves))
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("--peer", type=Path, help="a YASS binary whose pushes to show beside")
    args = parser.parse_args()
    levels = GAME.parse((BENCHMARKS / SETS[args.set]).read_text())
    limits = Limits(seconds=args.time_limit, memory_mb=args.memory_mb)
    solver, optimizer = args.time_limit, args.improve_limit
    print(f"{args.set}, {args.metric}: solver {solver:g} s, optimizer {optimizer:g} s")
    print()
    peer = " peer pushes |" if args.peer else ""
    print(
        "| level | solved in s | pushes before | pushes after | moves before | moves after "
        f"| optimizer s |{peer}"
    )
    print("|---|---|---|---|---|---|---|" + ("---|" if args.peer else ""))
    totals = [0, 0, 0, 0]
    # Over the levels both solve: our pushes before, after, and the peer's.
    beside = [0, 0, 0]
    missed = []
    for number in numbers(args.levels, len(levels)):
        level = levels[number - 1]
        result = solve(GAME, level, limits=limits)
        theirs = run_peer(args.peer, level, limits) if args.peer else None
        their_cell = ""
        if theirs is not None:
            their_cell = f" {theirs.pushes} |" if theirs.solved else f" {theirs.status} |"
        if result.status != "solved" or not result.moves:
            missed.append(f"{number} ({result.status})")
            print(f"| {number} | {result.status} | | | | | |{their_cell}", flush=True)
            continue
        started = time.monotonic()
        better = GAME.improve(level, result.moves, args.metric, args.improve_limit)
        seconds = time.monotonic() - started
        problem = check_solution(GAME, level, GAME.start(level), better.moves)
        if problem is not None:  # improve replays it too; a bench that counts it checks it
            raise SystemExit(f"level {number}: the improved solution does not replay: {problem}")
        row = [better.original_pushes, better.pushes, better.original_moves, len(better.moves)]
        totals = [total + value for total, value in zip(totals, row, strict=True)]
        if theirs is not None and theirs.solved and theirs.pushes:
            beside = [beside[0] + row[0], beside[1] + row[1], beside[2] + theirs.pushes]
        cells = " | ".join(str(value) for value in row)
        print(
            f"| {number} | {result.seconds:.1f} | {cells} | {seconds:.1f} |{their_cell}", flush=True
        )
    pushes_before, pushes_after, moves_before, moves_after = totals
    if pushes_before:
        saved = 100 * (pushes_before - pushes_after) / pushes_before
        moved = 100 * (moves_before - moves_after) / moves_before
        cells = " | ".join(str(value) for value in totals)
        print(f"| total | | {cells} | |")
        print()
        print(f"pushes {saved:.1f}% fewer, moves {moved:.1f}% fewer")
    if beside[2]:
        before, after = beside[0] / beside[2], beside[1] / beside[2]
        print(
            f"pushes ours / peer's over the levels both solve: {before:.3f} before improve, "
            f"{after:.3f} after ({beside[0]} and {beside[1]} against {beside[2]})"
        )
    if missed:
        print(f"not solved (left out): {', '.join(missed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
