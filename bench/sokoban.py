"""Benchmark the Sokoban solvers on the shipped sets (levels/sokoban); prints a markdown table.

python bench/sokoban.py [--set microban|microban2|xsokoban|all] [--time-limit S]
    [--algorithm NAME] [--levels 1-20] [-v]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from webapp.games.sokoban import GAME  # noqa: E402
from webapp.search import Limits  # noqa: E402
from webapp.solving import solve  # noqa: E402

BENCHMARKS = REPO / "levels" / "sokoban"
SETS = {"microban": "microban.xsb", "microban2": "microban2.xsb", "xsokoban": "xsokoban.xsb"}


def level_numbers(text: str | None, total: int) -> list[int]:
    """Parse '1-20,25,30-31' into 1-based level numbers within the set."""
    if not text:
        return list(range(1, total + 1))
    numbers: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return [n for n in numbers if 1 <= n <= total]


def run_set(name: str, args: argparse.Namespace) -> dict:
    levels = GAME.parse((BENCHMARKS / SETS[name]).read_text())
    chosen = level_numbers(args.levels, len(levels))
    limits = Limits(seconds=args.time_limit, nodes=None, memory_mb=args.memory_mb)
    solved_times: list[float] = []
    times: list[float] = []
    pushes: list[int] = []
    moves: list[int] = []
    statuses: dict[str, int] = {}
    for number in chosen:
        result = solve(GAME, levels[number - 1], args.algorithm, limits=limits)
        gc.collect()
        statuses[result.status] = statuses.get(result.status, 0) + 1
        times.append(result.seconds)
        if result.solved:
            counts = GAME.count(levels[number - 1], result.moves or [])
            solved_times.append(result.seconds)
            pushes.append(counts["pushes"])
            moves.append(counts["moves"])
        if args.verbose:
            detail = ""
            if result.solved:
                detail = f"moves {counts['moves']} pushes {counts['pushes']}"
            elif result.error:
                detail = result.error
            print(
                f"{name} {number:3d}: {result.status:12s} {result.seconds:7.2f}s "
                f"expanded {result.expanded:9d} {detail}",
                flush=True,
            )
    return {
        "set": name,
        "levels": len(chosen),
        "solved": len(solved_times),
        "statuses": statuses,
        "median": statistics.median(times) if times else 0.0,
        "total": sum(times),
        "pushes": statistics.mean(pushes) if pushes else 0.0,
        "moves": statistics.mean(moves) if moves else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="microban", choices=[*SETS, "all"])
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per level")
    parser.add_argument("--algorithm", default=GAME.default_algorithm)
    parser.add_argument("--levels", help="1-based level numbers, e.g. 1-20 or 1-5,9")
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per level")
    args = parser.parse_args(argv)
    names = list(SETS) if args.set == "all" else [args.set]
    rows = [run_set(name, args) for name in names]
    print()
    print(f"algorithm `{args.algorithm}`, {args.time_limit:g} s per level")
    print()
    print("| set | levels | solved | median s | total s | mean pushes | mean moves | other |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for row in rows:
        other = ", ".join(f"{k} {v}" for k, v in sorted(row["statuses"].items()) if k != "solved")
        print(
            f"| {row['set']} | {row['levels']} | {row['solved']} | {row['median']:.2f} "
            f"| {row['total']:.1f} | {row['pushes']:.1f} | {row['moves']:.1f} | {other} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
