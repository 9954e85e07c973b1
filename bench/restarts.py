"""The Sokoban plan search's restarts: which runs solve a level, and what each schedule costs.

python bench/restarts.py [--levels 24,25,40,62] [--seeds 10] [--cap 100000] [--stall 5000]
    [--timed]

The plan search alone (plan.py) is the same run for the same seed, however long it is let run
(a run ends at exactly its allowance). So for each XSokoban level given, it runs seeds 0 to
SEEDS - 1 alone, each up to CAP expansions, and prints the expansions at which each solves
the level (or "-") and at which it would stall: make STALL expansions without a position
filling more goals in order than any before it (the run goes on past that to find where it
solves). A schedule then gives run ``k`` (seed ``k``) an allowance, and may end it where it
stalls; the level costs what the runs before the first that solves within its own spent,
plus that run's expansions. The second table prints that cost for the schedule run_fast
uses (RESTART times Luby's sequence, a short run after the first ending where it stalls,
solver.stalls) beside others, ">" where none of the seeds measured solves within its
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
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from webapp.games.sokoban import GAME, kernels, plan, solver  # noqa: E402
from webapp.games.sokoban.board import Board  # noqa: E402
from webapp.games.sokoban.packing import packing_order  # noqa: E402
from webapp.search import Limits, Monitor  # noqa: E402

XSOKOBAN = REPO / "levels" / "sokoban" / "xsokoban.xsb"


@dataclass(frozen=True)
class Seed:
    """One seed's run alone: the expansions at which it solves the level and at which it
    stalls (None for neither, within the cap)."""

    solved: int | None
    stalled: int | None


def solved_at(level, seeds: int, cap: int, stall: int) -> list[Seed]:
    """For each seed, where the plan search alone solves the level and where it stalls."""
    board, start = Board(level), GAME.start(level)
    phases = packing_order(board, start)
    found: list[Seed] = []
    for seed in range(seeds):
        search = solver.plan_run(board, start, 2048, phases, seed, stall=stall)
        status = search.run(cap)
        stalled = None
        if status == plan.STALLED:
            stalled = int(search.counters[kernels.EXPANDED])
            search.stall = 0  # on to where it solves, if it does within the cap
            status = search.run(cap - stalled)
        expanded = int(search.counters[kernels.EXPANDED])
        found.append(Seed(expanded if status == kernels.FOUND else None, stalled))
    return found


def growing(first: int) -> Callable[[int], int]:
    """Runs growing by half each time from ``first`` (the schedule up to commit f5f36a1)."""

    def allowance(run: int) -> int:
        length = first
        for _ in range(run):
            length += length // 2
        return length

    return allowance


#: A schedule: each run's allowance, and whether a run that stalls ends there.
Schedule = tuple[Callable[[int], int], Callable[[int], bool]]


def luby_times(unit: int) -> Callable[[int], int]:
    """Runs of ``unit`` expansions times Luby's sequence (run_fast's with RESTART)."""
    return lambda run: unit * solver.luby(run)


def never(run: int) -> bool:
    return False


def short(run: int) -> bool:
    """Luby's runs of length 1, the first too."""
    return solver.luby(run) == 1


def schedules() -> dict[str, Schedule]:
    unit = solver.RESTART // 1000
    luby = luby_times(solver.RESTART)
    ours = (luby, solver.stalls)
    return {
        f"Luby x {unit} k, short runs after the first end stalled (run_fast)": ours,
        f"Luby x {unit} k": (luby, never),
        f"Luby x {unit} k, every short run ends stalled": (luby, short),
        f"Luby x {unit} k, every run ends stalled": (luby, lambda run: True),
        "growing by half from 40 k": (growing(40_000), never),
        **{f"Luby x {u // 1000} k": (luby_times(u), never) for u in (20_000, 30_000, 40_000)},
    }


def thousands(expansions: int) -> str:
    return f"{expansions / 1000:.{0 if expansions >= 10_000 else 1}f} k"


def cost(found: list[Seed], schedule: Schedule) -> str:
    """The expansions until the first run that solves within its allowance."""
    allowance, stalls = schedule
    spent = 0
    for run, seed in enumerate(found):
        ends = allowance(run)
        if stalls(run) and seed.stalled is not None:
            ends = min(ends, seed.stalled)
        if seed.solved is not None and seed.solved <= ends:
            return thousands(spent + seed.solved)
        spent += ends
    return "> " + thousands(spent)


def seed_cell(seed: Seed) -> str:
    solved = "-" if seed.solved is None else thousands(seed.solved)
    return solved if seed.stalled is None else f"{solved} ({thousands(seed.stalled)})"


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
    parser.add_argument("--stall", type=int, default=solver.STALL, help="STALL to measure")
    parser.add_argument("--timed", action="store_true", help="seconds of run_fast's schedule")
    args = parser.parse_args(argv)
    levels = GAME.parse(XSOKOBAN.read_text())
    numbers = [int(part) for part in args.levels.split(",")]
    if args.timed:
        timed(levels, numbers)
        return 0
    rows = {}
    for number in numbers:
        rows[number] = solved_at(levels[number - 1], args.seeds, args.cap, args.stall)
        shown = " ".join(seed_cell(seed) for seed in rows[number])
        print(f"xsokoban {number:3d}: {shown}", file=sys.stderr, flush=True)
    print(
        f"Expansions at which seed k solves alone (cap {args.cap:,}), and in brackets where it"
        f" stalls ({args.stall:,} expansions without filling more goals in order):"
    )
    print()
    print("| level | " + " | ".join(str(seed) for seed in range(args.seeds)) + " |")
    print("|---:|" + "---:|" * args.seeds)
    for number, found in rows.items():
        print(f"| {number} | " + " | ".join(seed_cell(seed) for seed in found) + " |")
    print()
    named = schedules()
    print("Expansions of the plan search alone until it solves, by schedule:")
    print()
    print("| level | " + " | ".join(named) + " |")
    print("|---:|" + "---:|" * len(named))
    for number, found in rows.items():
        print(f"| {number} | " + " | ".join(cost(found, s) for s in named.values()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
