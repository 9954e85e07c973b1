"""The time from a change in the editor to its verdict, per level: every Microban level, the
shipped Vexed levels (every Nth of all packs, as the output says) and the sliding blocks
levels, each checked by ``webapp.checking.check`` in a child process of its own.

    nice python bench/editor.py [--time-limit 5] [--vexed-every 10] [--games sokoban,vexed,blocks]

The parent loads every game's solvers and compiled kernels once, then forks a child per level,
as the solver fork server does for the editor, so a time is what a designer waits: the child's
start, the check and the answer's way back. A child still running well past the limit is
stopped and counted "over". Every shipped level is solvable, so an "unsolvable" here would be a
false verdict: the table counts them apart.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webapp import games  # noqa: E402
from webapp.checking import check  # noqa: E402

LEVELS = ROOT / "levels"
#: How long past its limit a child may run before it is stopped and counted "over".
GRACE = 10.0


def levels_of(name: str, vexed_every: int) -> tuple[list[tuple[str, Any]], str]:
    """(label, level) for each level the bench checks, and a note on the sample."""
    game = games.get(name)
    if name == "sokoban":
        path = LEVELS / "sokoban" / "microban.xsb"
        chosen = [(f"Microban {i}", lv) for i, lv in enumerate(game.parse(path.read_text()), 1)]
        return chosen, "every Microban level"
    folder = LEVELS / name
    every: list[tuple[str, Any]] = []
    for path in sorted(folder.glob("*.txt")):
        for number, level in enumerate(game.parse(path.read_text(encoding="utf-8")), 1):
            every.append((f"{path.stem} {number}", level))
    if name == "vexed" and vexed_every > 1:
        sample = every[::vexed_every]
        return sample, f"every {vexed_every}th of the {len(every)} shipped levels"
    return every, f"all {len(every)} shipped levels"


def _child(name: str, level: Any, seconds: float, answer: Any) -> None:
    verdict = check(games.get(name), level, seconds)
    answer.send(verdict.to_dict())
    answer.close()


def timed_check(name: str, level: Any, seconds: float) -> tuple[dict[str, Any] | None, float]:
    """The verdict (None when the child had to be stopped) and the seconds it took to come."""
    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe(duplex=False)
    started = time.monotonic()
    child = context.Process(target=_child, args=(name, level, seconds, theirs), daemon=True)
    child.start()
    theirs.close()
    verdict = ours.recv() if ours.poll(seconds + GRACE) else None
    waited = time.monotonic() - started
    if verdict is None:
        child.kill()
    child.join()
    return verdict, waited


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=5.0, help="the editor's limit")
    parser.add_argument("--vexed-every", type=int, default=10, help="every Nth Vexed level")
    parser.add_argument("--games", default="sokoban,vexed,blocks")
    parser.add_argument("--verbose", action="store_true", help="a line per level")
    args = parser.parse_args()
    names = args.games.split(",")
    for name in names:
        game = games.get(name)
        game.algorithms()
        game.warm_up()
    rows = []
    for name in names:
        chosen, note = levels_of(name, args.vexed_every)
        times: list[float] = []
        counts = {"solvable": 0, "optimal": 0, "unsolvable": 0, "unknown": 0, "over": 0}
        slowest = ("", 0.0)
        for label, level in chosen:
            verdict, waited = timed_check(name, level, args.time_limit)
            times.append(waited)
            if verdict is None or waited > args.time_limit + 1:
                counts["over"] += 1
            if verdict is not None:
                counts[verdict["status"]] += 1
                counts["optimal"] += bool(verdict["optimal"])
            if waited > slowest[1]:
                slowest = (label, waited)
            if args.verbose:
                status = verdict["status"] if verdict else "stopped"
                print(f"{name} {label}: {status} {waited:.2f} s", file=sys.stderr, flush=True)
        solvable = counts["solvable"]
        rows.append(
            f"| {name} | {len(chosen)} ({note}) | {solvable} | {counts['unsolvable']} "
            f"| {counts['unknown']} | {counts['over']} "
            f"| {statistics.median(times):.2f} | {percentile(times, 0.9):.2f} "
            f"| {max(times):.2f} ({slowest[0]}) "
            f"| {counts['optimal'] / solvable if solvable else 0:.0%} |"
        )
        print(f"{name}: done", file=sys.stderr, flush=True)
    print(f"Time from a change to its verdict, limit {args.time_limit:g} s, a child per check")
    print()
    print(
        "| game | levels | solvable | unsolvable | unknown | over the limit "
        "| median s | p90 s | max s | optimal share of solvable |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
