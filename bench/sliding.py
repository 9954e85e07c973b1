"""Measure the sliding-puzzle solvers on Korf's boards and on 8-puzzles; prints markdown.

    python bench/sliding.py --set korf100 --algorithm pdb --time-limit 60 -v
    python bench/sliding.py --set korf24 --algorithm fast --instances 1-10
    python bench/sliding.py --set eight --algorithm idastar

Every solve goes through webapp.games.solving.solve, so each solution is replayed and checked.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webapp.games.sliding import GAME, shuffle  # noqa: E402
from webapp.games.sliding.level import Level  # noqa: E402
from webapp.games.solving import solve  # noqa: E402
from webapp.search import Limits  # noqa: E402

#: Korf's instances, shipped with the tests (tests/data/SOURCES.md).
BENCHMARKS = Path(__file__).resolve().parents[1] / "tests" / "data"
#: Where the app keeps its pattern databases: the bench shares them.
INSTANCE = Path(__file__).resolve().parents[1] / "instance"
SETS = {
    "korf100": ("korf100_app.txt", "pdb"),
    "korf24": ("korf50_24_app.txt", "fast"),
    "eight": (None, "pdb"),
}
#: The two 8-puzzle boards that need the most moves (31).
HARDEST_8 = [(8, 6, 7, 2, 5, 4, 3, 0, 1), (6, 4, 7, 8, 5, 0, 3, 2, 1)]


def eight_puzzles() -> list[Level]:
    """The two hardest 8-puzzles, then 98 uniform random ones (seeded, so repeatable)."""
    rng = random.Random(8)
    levels = [Level(3, 3, tiles, f"hardest {i + 1}", 31) for i, tiles in enumerate(HARDEST_8)]
    levels += [Level(3, 3, shuffle(3, 3, rng), f"random {i + 1}") for i in range(98)]
    return levels


def pick(levels: list[Level], spec: str | None) -> list[tuple[int, Level]]:
    numbered = list(enumerate(levels, 1))
    if not spec:
        return numbered
    chosen: set[int] = set()
    for part in spec.split(","):
        low, _, high = part.partition("-")
        chosen.update(range(int(low), int(high or low) + 1))
    return [(n, level) for n, level in numbered if n in chosen]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), default="korf100")
    parser.add_argument("--algorithm", help="default: pdb for korf100 and eight, fast for korf24")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per board")
    parser.add_argument("--instances", help="board numbers, e.g. 1-10 or 3,5,7-9")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per board")
    args = parser.parse_args(argv)

    filename, default_algorithm = SETS[args.set]
    algorithm = args.algorithm or default_algorithm
    if filename is None:
        levels = eight_puzzles()
    else:
        levels = GAME.parse((BENCHMARKS / filename).read_text())
    chosen = pick(levels, args.instances)

    build_seconds: float | str | None = None
    needs_databases = (algorithm == "pdb" and any(lv.rows == lv.cols == 4 for _, lv in chosen)) or (
        algorithm == "fast" and any(lv.rows * lv.cols >= 16 for _, lv in chosen)
    )
    if needs_databases:
        from webapp.games.sliding import pdb

        ready = pdb.databases_ready(4, 4, INSTANCE)
        seconds = pdb.ensure_databases(INSTANCE)
        build_seconds = "on disk" if ready else seconds
    elif algorithm == "pdb" and any(lv.rows == lv.cols == 3 for _, lv in chosen):
        from webapp.games.sliding import pdb

        started = time.monotonic()
        pdb.exact_table(3, 3)
        build_seconds = time.monotonic() - started

    limits = Limits(seconds=args.time_limit, nodes=None)
    if args.verbose:
        print("| # | status | length | optimum | expanded | seconds |")
        print("|---:|---|---:|---:|---:|---:|")
    rows = []
    for number, level in chosen:
        result = solve(GAME, level, algorithm, limits=limits)
        rows.append((level, result))
        if args.verbose:
            print(
                f"| {number} | {result.status} | {result.cost if result.cost is not None else '-'}"
                f" | {level.known_optimal if level.known_optimal is not None else '-'}"
                f" | {result.expanded:,} | {result.seconds:.3f} |",
                flush=True,
            )
    solved = [(lv, r) for lv, r in rows if r.solved]
    known = [(lv, r) for lv, r in solved if lv.known_optimal is not None]
    times = [r.seconds for _, r in rows]
    lengths = [r.cost or 0 for _, r in solved]
    matches = all(r.cost == lv.known_optimal for lv, r in known)
    if args.verbose:
        print()
    print(f"Sliding puzzle, set {args.set}, algorithm {algorithm}, time limit {args.time_limit} s")
    print()
    print(
        "| boards | solved | optimal lengths match | median s | mean s | max s | total s "
        "| mean length | mean optimum | ratio | expanded | PDB build s |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    mean_length = statistics.mean(lengths) if lengths else 0.0
    optimum = [lv.known_optimal for lv, _ in known]
    mean_optimum = statistics.mean(optimum) if optimum else None
    ratio = f"{sum(r.cost or 0 for _, r in known) / sum(optimum):.3f}" if optimum else "-"
    print(
        f"| {len(rows)} | {len(solved)} | "
        f"{(f'yes ({len(known)} known)' if matches else 'no') if known else '-'} | "
        f"{statistics.median(times):.3f} | {statistics.mean(times):.3f} | {max(times):.3f} | "
        f"{sum(times):.1f} | {mean_length:.2f} | "
        f"{f'{mean_optimum:.2f}' if mean_optimum is not None else '-'} | {ratio} | "
        f"{sum(r.expanded for _, r in rows):,} | "
        f"{f'{build_seconds:.1f}' if isinstance(build_seconds, float) else build_seconds or '-'} |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
