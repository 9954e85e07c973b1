"""Benchmark the sliding-block solvers and distance tables; prints markdown tables.

    python bench/blocks.py [--time-limit S] [--levels 1-3,5] [--file PATH]

Every chosen layout is solved in all three conventions through webapp.games.solving.solve (found
against the file's moves_unit / moves_line / moves_path), then its distance tables are built.
Caches are cleared before each measurement, so every time includes building the move tables.
Times are wall-clock seconds (as the solver reports them) and CPU seconds of this process.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from webapp.games.blocks import GAME, solver  # noqa: E402
from webapp.games.solving import solve  # noqa: E402
from webapp.search import Limits  # noqa: E402

CLASSICS = REPO / "levels" / "blocks" / "classics.txt"
#: algorithm -> (metric, the field of the layout holding the known optimum)
CONVENTIONS = {
    "steps": ("steps", "moves_unit"),
    "line": ("line_moves", "moves_line"),
    "path": ("path_moves", "moves_path"),
}


def level_numbers(text: str | None, total: int) -> list[int]:
    """Parse '1-3,5' into 1-based level numbers within the file."""
    if not text:
        return list(range(1, total + 1))
    numbers: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return [n for n in numbers if 1 <= n <= total]


def clear_caches() -> None:
    solver.clear_caches()
    gc.collect()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve")
    parser.add_argument("--levels", help="1-based layouts to run, e.g. 1-3,5 (default: all)")
    parser.add_argument("--file", type=Path, default=CLASSICS, help="a layout collection")
    args = parser.parse_args(argv)

    levels = GAME.parse(args.file.read_text(encoding="utf-8"))
    chosen = level_numbers(args.levels, len(levels))
    limits = Limits(seconds=args.time_limit, nodes=None)

    print(f"Solvers (time limit {args.time_limit:g} s per solve), file {args.file.name}\n")
    header = "| # | layout |"
    rule = "|---|---|"
    for algorithm in CONVENTIONS:
        header += f" {algorithm}: found / expected | s | cpu s |"
        rule += "---|---|---|"
    print(header)
    print(rule, flush=True)
    mismatches = 0
    for number in chosen:
        level = levels[number - 1]
        row = f"| {number} | {level.title or '-'} |"
        for algorithm, (metric, field) in CONVENTIONS.items():
            clear_caches()
            cpu = time.process_time()
            result = solve(GAME, level, algorithm, limits=limits)
            cpu = time.process_time() - cpu
            expected = level.number(field)
            if result.solved:
                found = str(GAME.count(level, result.moves or [])[metric])
            else:
                found = result.status
            if expected is not None and found != str(expected):
                mismatches += 1
                found = f"**{found}**"
            row += f" {found} / {expected if expected is not None else '?'} | "
            row += f"{result.seconds:.3f} | {cpu:.3f} |"
        print(row, flush=True)

    print("\nDistance tables (whole reachable space, built from scratch)\n")
    print(
        "| # | layout | positions | expected | steps s (cpu) | line_moves s (cpu) "
        "| path_moves s (cpu) |"
    )
    print("|---|---|---|---|---|---|---|", flush=True)
    for number in chosen:
        level = levels[number - 1]
        sizes = set()
        seconds = []
        for metric in ("steps", "line_moves", "path_moves"):
            clear_caches()
            started, cpu = time.perf_counter(), time.process_time()
            table = solver.distance_table(level, metric)
            seconds.append((time.perf_counter() - started, time.process_time() - cpu))
            sizes.add(None if table is None else len(table))
        size = sizes.pop() if len(sizes) == 1 else "/".join(map(str, sorted(sizes, key=str)))
        expected = level.number("reachable")
        if expected is not None and size != expected:
            mismatches += 1
        print(
            f"| {number} | {level.title or '-'} | {size if size is not None else 'too many'} | "
            f"{expected if expected is not None else '?'} | "
            + " | ".join(f"{wall:.3f} ({cpu:.3f})" for wall, cpu in seconds)
            + " |",
            flush=True,
        )
    if mismatches:
        print(f"\n{mismatches} result(s) differ from the file (marked in bold or above).")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
