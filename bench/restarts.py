"""The Sokoban plan search's restarts: which runs solve a level, and what each schedule costs.

python bench/restarts.py [--levels 24,25,40,62] [--seeds 10] [--cap 100000] [--timed]

The plan search alone (plan.py) is the same run for the same seed, however long it is let run
(a run ends at exactly its allowance). So for each XSokoban level given, it runs seeds 0 to
SEEDS - 1 alone, each up to CAP expansions, and prints the expansions at which each solves
the level (or "-"). A schedule then gives run ``k`` (seed ``k``) an allowance; the level costs
the allowances of the runs before the first that solves within its own, plus that run's
expansions. The second table prints that cost for the schedule run_fast uses (RESTART times
Luby's sequence) beside others, ">" where none of the seeds measured solves within its
allowance. Expansions, not seconds: the table is the same on any machine.

With ``--timed`` it only runs the plan search alone as run_fast runs it (its restarts one
after another, each taking over the corral verdicts of the runs before it) and prints the
seconds and expansions each level takes: the one table here that depends on the machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from webapp.games.sokoban import GAME, kernels, solver  # noqa: E402
from webapp.games.sokoban.board import Board  # noqa: E402
from webapp.games.sokoban.packing import packing_order  # noqa: E402
from webapp.search import Limits, Monitor  # noqa: E402

XSOKOBAN = REPO / "levels" / "sokoban" / "xsokoban.xsb"


def solved_at(level, seeds: int, cap: int) -> list[int | None]:
    """For each seed, the expansions at which the plan search alone solves the level."""
    board, start = Board(level), GAME.start(level)
    phases = packing_order(board, start)
    found: list[int | None] = []
    for seed in range(seeds):
        search = solver.plan_run(board, start, 2048, phases, seed)
        status = search.run(cap)
        expanded = int(search.counters[kernels.EXPANDED])
        found.append(expanded if status == kernels.FOUND else None)
    return found


def growing(first: int) -> Callable[[int], int]:
    """Runs growing by half each time from ``first`` (the schedule up to commit f5f36a1)."""

    def allowance(run: int) -> int:
        length = first
        for _ in range(run):
            length += length // 2
        return length

    return allowance


def luby_times(unit: int) -> Callable[[int], int]:
    """Runs of ``unit`` expansions times Luby's sequence (run_fast's with RESTART)."""
    return lambda run: unit * solver.luby(run)


def schedules() -> dict[str, Callable[[int], int]]:
    return {
        f"Luby x {solver.RESTART // 1000} k (run_fast)": luby_times(solver.RESTART),
        "growing by half from 40 k": growing(40_000),
        **{f"Luby x {unit // 1000} k": luby_times(unit) for unit in (20_000, 30_000, 40_000)},
    }


def thousands(expansions: int) -> str:
    return f"{expansions / 1000:.{0 if expansions >= 10_000 else 1}f} k"


def cost(found: list[int | None], allowance: Callable[[int], int]) -> str:
    """The expansions until the first run that solves within its allowance."""
    spent = 0
    for run, expanded in enumerate(found):
        if expanded is not None and expanded <= allowance(run):
            return thousands(spent + expanded)
        spent += allowance(run)
    return "> " + thousands(spent)


def timed(levels, numbers: list[int]) -> None:
    """The plan search alone, restarts and all, as run_fast runs it: seconds and expansions."""
    print("| level | solved | expansions | seconds |")
    print("|---:|---|---:|---:|")
    for number in numbers:
        level = levels[number - 1]
        monitor = Monitor(Limits(seconds=600, nodes=None, memory_mb=2048))
        began = time.perf_counter()
        result = solver.run_fast(level, GAME.start(level), monitor, (solver.PLANNED,))
        seconds = time.perf_counter() - began
        print(f"| {number} | {result.status} | {result.expanded:,} | {seconds:.2f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="4,24,25,27,36,40,43,56,62,63,67,81")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--cap", type=int, default=100_000, help="expansions per seed")
    parser.add_argument("--timed", action="store_true", help="seconds of run_fast's schedule")
    args = parser.parse_args(argv)
    levels = GAME.parse(XSOKOBAN.read_text())
    numbers = [int(part) for part in args.levels.split(",")]
    if args.timed:
        timed(levels, numbers)
        return 0
    rows = {}
    for number in numbers:
        rows[number] = solved_at(levels[number - 1], args.seeds, args.cap)
        shown = " ".join("-" if e is None else str(e) for e in rows[number])
        print(f"xsokoban {number:3d}: {shown}", file=sys.stderr, flush=True)
    print(f"Expansions at which seed k solves alone (cap {args.cap:,}):")
    print()
    print("| level | " + " | ".join(str(seed) for seed in range(args.seeds)) + " |")
    print("|---:|" + "---:|" * args.seeds)
    for number, found in rows.items():
        cells = " | ".join("-" if e is None else thousands(e) for e in found)
        print(f"| {number} | {cells} |")
    print()
    named = schedules()
    print("Expansions of the plan search alone until it solves, by schedule:")
    print()
    print("| level | " + " | ".join(named) + " |")
    print("|---:|" + "---:|" * len(named))
    for number, found in rows.items():
        print(f"| {number} | " + " | ".join(cost(found, a) for a in named.values()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
