"""What the heat map costs the search: each game's default solver on the same levels with
and without counting, its positions looked at per CPU second, and the difference.

    python bench/heat.py [--rounds 5] [--games sokoban,sliding,vexed,blocks]

Each run is stopped by a positions limit (or ends solved), so both runs of a pair do about
the same work (the Sokoban searches take turns in slices: a few positions more or fewer).
Every progress report is pickled as the solver child pickles it to send it on, so the heat
map's reading at each report is paid for too. The runs with and without alternate, and each
figure is the best of ``--rounds`` (a shared machine only ever slows a run down); CPU time,
not wall-clock, so another process's turn is not counted. The compiled code is warmed first.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webapp import games  # noqa: E402
from webapp.games.solving import solve  # noqa: E402
from webapp.search import Limits, Progress  # noqa: E402

LEVELS = ROOT / "levels"

#: (game, file, level number from 1, positions limit): each a second or so of search.
#: "korf100" is Korf's hundred 15-puzzles as tests/data keeps them (sliding: the fifteen's
#: own levels are solved in milliseconds).
CASES = [
    ("sokoban", "sokoban/xsokoban.xsb", 29, 300_000),
    ("sokoban", "sokoban/xsokoban.xsb", 50, 200_000),
    ("sliding", "korf100", 60, 30_000_000),
    ("sliding", "korf100", 88, 30_000_000),
    ("vexed", "vexed/07_impossible_pack.txt", 6, 200_000),
    ("vexed", "vexed/05_confusion_pack.txt", 20, 200_000),
    ("blocks", "blocks/classics.txt", 1, 10_000_000),
    ("blocks", "blocks/classics.txt", 8, 10_000_000),
]


def load(game: games.Game, file: str, number: int) -> object:
    if file == "korf100":
        from webapp.games.sliding.level import Level

        lines = (ROOT / "tests" / "data" / "korf100_app.txt").read_text().splitlines()
        boards = [line.split() for line in lines if line and not line.startswith("#")]
        tiles = tuple(int(t) for t in boards[number - 1][:16])
        return Level(4, 4, tiles)
    return game.parse((LEVELS / file).read_text(encoding="utf-8"))[number - 1]


def run(game: games.Game, level: object, nodes: int, counting: bool) -> tuple[int, float]:
    """Positions looked at and CPU seconds of one solve with the default algorithm."""

    def sent(progress: Progress) -> None:
        pickle.dumps(progress)  # as the solver child sends it on

    started = time.process_time()
    result = solve(
        game, level, limits=Limits(seconds=120, nodes=nodes), on_progress=sent, counting=counting
    )
    seconds = time.process_time() - started
    if counting and result.heat is None:
        raise SystemExit(f"{game.name}: the default solver kept no heat map")
    return result.expanded, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="runs each way per level")
    parser.add_argument("--games", default="sokoban,sliding,vexed,blocks")
    args = parser.parse_args()
    wanted = args.games.split(",")
    print("| game | default solver | level | positions | without (per s) | with (per s) | cost |")
    print("|---|---|---|---:|---:|---:|---:|")
    for name, file, number, nodes in CASES:
        if name not in wanted:
            continue
        game = games.get(name)
        level = load(game, file, number)
        run(game, level, min(nodes, 1000), True)  # compiled and tables built: not timed
        best = {True: 0.0, False: 0.0}
        expanded = {True: 0, False: 0}
        for _ in range(args.rounds):
            for counting in (False, True):
                done, seconds = run(game, level, nodes, counting)
                expanded[counting] = done
                best[counting] = max(best[counting], done / max(seconds, 1e-9))
        cost = 100 * (best[False] - best[True]) / best[False]
        print(
            f"| {name} | {game.default_for(level)} | {Path(file).stem} {number} "  # type: ignore[arg-type]
            f"| {expanded[True]:,} | {best[False]:,.0f} | {best[True]:,.0f} | {cost:+.1f}% |",
            flush=True,
        )


if __name__ == "__main__":
    main()
