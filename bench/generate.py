"""Levels made to order: how long each game and band takes to make a level, what the levels
measure, whether any repeats, and how the bands sit beside the shipped collections.

    python bench/generate.py [--seeds 50] [--games sokoban,sliding,vexed,blocks]
                             [--difficulties easy,medium,hard,expert]

One process, one level at a time (as a solver child makes them for the site), seeds 1..N.
Prints a markdown table per game: a row per band with the time to make a level (median and
max), the optimum's distribution (min, median, max), the medians of the other measures, and
the duplicates; then the shipped collections' optimum on the same scale.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webapp import games  # noqa: E402
from webapp.games.base import DIFFICULTIES  # noqa: E402
from webapp.games.solving import solve  # noqa: E402
from webapp.generating import generate  # noqa: E402
from webapp.search import Limits  # noqa: E402

LEVELS = ROOT / "levels"


def band_row(game_name: str, difficulty: str, seeds: int) -> str:
    game = games.get(game_name)
    times, optima, texts = [], [], set()
    measures: dict[str, list[float]] = {}
    for seed in range(1, seeds + 1):
        started = time.perf_counter()
        made = generate(game, difficulty, str(seed))
        times.append(time.perf_counter() - started)
        optima.append(made.optimum)
        texts.add(game.board_text(made.level))
        for key, value in made.measures.items():
            if key != "optimum":
                measures.setdefault(key, []).append(value)
    others = ", ".join(f"{key} {statistics.median(v):g}" for key, v in sorted(measures.items()))
    proved = "proved" if made.proved else "best known"
    return (
        f"| {difficulty} | {statistics.median(times):.2f} / {max(times):.2f} | "
        f"{min(optima)} / {statistics.median(optima):g} / {max(optima)} ({made.metric}, "
        f"{proved}) | {others} | {seeds - len(texts)} |"
    )


def shipped(game_name: str) -> str:
    """The optimum of a shipped collection on the bands' scale, where it is known or cheap."""
    game = games.get(game_name)
    if game_name == "sokoban":  # Microban's first 30, fewest pushes by breadth-first search
        levels = game.parse((LEVELS / "sokoban" / "microban.xsb").read_text())[:30]
        found = [
            solve(game, level, "bfs", limits=Limits(seconds=20, nodes=2_000_000))
            for level in levels
        ]
        pushes = [r.cost for r in found if r.solved and r.cost is not None]
        middle, low, high = statistics.median(pushes), min(pushes), max(pushes)
        return (
            f"Microban 1-30 (fewest pushes, {len(pushes)} proved): median {middle:g}, {low}-{high}"
        )
    if game_name == "vexed":
        parts = []
        for name in ("01_childrens_pack.txt", "02_classic_levels.txt", "07_impossible_pack.txt"):
            pars = [lv.par for lv in game.parse((LEVELS / "vexed" / name).read_text()) if lv.par]
            parts.append(f"{name.split('_', 1)[1][:-4]} par median {statistics.median(pars):g}")
        return "; ".join(parts)
    if game_name == "blocks":
        levels = game.parse((LEVELS / "blocks" / "classics.txt").read_text())
        paths = [lv.number("moves_path") for lv in levels if lv.number("moves_path")]
        middle, low, high = statistics.median(paths), min(paths), max(paths)
        return f"classics (path moves): median {middle:g}, range {low}-{high}"
    return "Korf's 100 15-puzzles: median optimum 52.5 moves (published figures)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--games", default="sokoban,sliding,vexed,blocks")
    parser.add_argument("--difficulties", default=",".join(DIFFICULTIES))
    args = parser.parse_args()
    for game_name in args.games.split(","):
        print(f"\n### {game_name}, {args.seeds} seeds a band\n")
        print(
            "| band | seconds a level (median / max) | optimum (min / median / max) "
            "| other measures (median) | duplicates |"
        )
        print("|---|---|---|---|---|")
        for difficulty in args.difficulties.split(","):
            print(band_row(game_name, difficulty, args.seeds), flush=True)
        print(f"\nShipped: {shipped(game_name)}", flush=True)


if __name__ == "__main__":
    main()
