"""Solve the shipped Vexed packs and print a markdown table per pack, plus the Dark Lord time.

    python bench/vexed.py [--packs 0-48 | 2,7,32 | "Classic Levels"] [--time-limit S]
                          [--memory-limit MB] [--node-limit N]
                          [--algorithm NAME] [--levels 1-10] [--verbose]

The limits default to the solver's own (``Limits``): the table of record uses those.

Every solve goes through webapp.games.solving.solve, so every solution is replayed by the rules.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webapp.games.solving import solve  # noqa: E402
from webapp.games.vexed import GAME  # noqa: E402
from webapp.search import Limits  # noqa: E402

LEVELS = ROOT / "levels" / "vexed"
DARK_LORD = ("32_variety_25_pack.txt", 48)


def pack_files() -> list[tuple[str, str]]:
    """(file name, pack name) for every pack, in packs.tsv order."""
    with open(LEVELS / "packs.tsv", newline="", encoding="utf-8") as index:
        return [(row["file"], row["pack"]) for row in csv.DictReader(index, delimiter="\t")]


def parse_numbers(text: str) -> list[int]:
    """Numbers from '3', '0-48' or '1,4,7-9'."""
    chosen: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        chosen.extend(range(int(low), int(high or low) + 1))
    return chosen


def select_packs(spec: str, packs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    if any(ch.isalpha() for ch in spec):
        names = [name.strip().lower() for name in spec.split(",")]
        chosen = [p for p in packs if p[1].lower() in names or p[0].lower() in names]
        if len(chosen) != len(names):
            raise SystemExit(f"unknown pack among {spec!r}; see levels/vexed/packs.tsv")
        return chosen
    chosen = parse_numbers(spec)
    if any(not 0 <= i < len(packs) for i in chosen):
        raise SystemExit(f"packs are numbered 0-{len(packs) - 1}")
    return [packs[i] for i in chosen]


def run_level(level, algorithm: str, limits: Limits):
    """The result, wall-clock seconds and CPU seconds (the machine may be shared)."""
    started, cpu = time.perf_counter(), time.process_time()
    result = solve(GAME, level, algorithm, limits=limits)
    return result, time.perf_counter() - started, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", default="0-48", help="pack numbers (0-48) or names")
    parser.add_argument("--levels", default=None, help="level numbers within each pack, 1-based")
    parser.add_argument(
        "--time-limit", type=float, default=Limits.seconds, help="seconds per level"
    )
    parser.add_argument(
        "--memory-limit", type=int, default=Limits.memory_mb, help="megabytes per level"
    )
    parser.add_argument(
        "--node-limit", type=int, default=Limits.nodes, help="expanded boards per level"
    )
    parser.add_argument("--algorithm", default="fast")
    parser.add_argument("--verbose", action="store_true", help="one line per level on stderr")
    args = parser.parse_args(argv)

    packs = select_packs(args.packs, pack_files())
    limits = Limits(seconds=args.time_limit, nodes=args.node_limit, memory_mb=args.memory_limit)
    print(
        f"Vexed, algorithm `{args.algorithm}`, limits per level: {args.time_limit:g} s, "
        f"{args.memory_limit} MB, {args.node_limit:,} boards expanded\n"
    )
    print(
        "| pack | levels | solved | at par | under par | proved optimal | total s | cpu s "
        "| max s | slowest level |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    totals = [0, 0, 0, 0, 0, 0.0, 0.0]
    misses: list[str] = []
    for file_name, pack in packs:
        levels = GAME.parse((LEVELS / file_name).read_text(encoding="utf-8"))
        numbers = list(range(1, len(levels) + 1))
        if args.levels:
            numbers = [n for n in parse_numbers(args.levels) if 1 <= n <= len(levels)]
        solved = at_par = under_par = proved = 0
        total = cpu_total = slowest = 0.0
        slowest_name = ""
        for number in numbers:
            level = levels[number - 1]
            result, seconds, cpu = run_level(level, args.algorithm, limits)
            total += seconds
            cpu_total += cpu
            if seconds > slowest:
                slowest, slowest_name = seconds, f"#{number} {level.title}"
            length = len(result.moves or []) if result.solved else None
            if result.solved:
                solved += 1
                if length == level.par:
                    at_par += 1
                elif level.par is not None and length < level.par:
                    under_par += 1
                if result.optimal:
                    proved += 1
            if not result.solved or length != level.par:
                misses.append(
                    f"{pack} #{number} {level.title}: {result.status}, length {length}, "
                    f"par {level.par}, {seconds:.1f} s, "
                    f"{'proved optimal' if result.optimal else 'not proved optimal'} "
                    f"{result.error or ''}".rstrip()
                )
            if args.verbose:
                print(
                    f"{pack} #{number} {level.title}: {result.status} {length}/{level.par} "
                    f"{seconds:.2f} s ({cpu:.2f} s cpu), {result.expanded} expanded",
                    file=sys.stderr,
                    flush=True,
                )
        count = len(numbers)
        print(
            f"| {pack} | {count} | {solved} | {at_par} | {under_par} | {proved} | {total:.1f} "
            f"| {cpu_total:.1f} | "
            f"{slowest:.2f} | "
            f"{slowest_name} |",
            flush=True,
        )
        totals[0] += count
        totals[1] += solved
        totals[2] += at_par
        totals[3] += under_par
        totals[4] += proved
        totals[5] += total
        totals[6] += cpu_total
    print(
        f"| **all** | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} | {totals[4]} "
        f"| {totals[5]:.1f} | {totals[6]:.1f} | | |"
    )
    file_name, number = DARK_LORD
    dark_lord = GAME.parse((LEVELS / file_name).read_text(encoding="utf-8"))[number - 1]
    times, cpus = [], []
    for _ in range(3):
        result, seconds, cpu = run_level(dark_lord, args.algorithm, limits)
        times.append(seconds)
        cpus.append(cpu)
    length = len(result.moves or []) if result.solved else None
    print(
        f"\nDark Lord (Variety 25 #48, par {dark_lord.par}): {result.status}, {length} moves, "
        f"best of 3 {min(times):.3f} s wall, {min(cpus):.3f} s cpu, "
        f"{result.expanded} boards expanded"
    )
    if misses:
        print("\nNot solved at par:")
        for line in misses:
            print(f"- {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
