"""Benchmark the Sokoban solvers on the shipped sets (levels/sokoban); prints a markdown table.

python bench/sokoban.py [--set microban|microban2|xsokoban|all] [--time-limit S]
    [--algorithm NAME] [--levels 1-20] [-v] [--peer PATH [--peer-kind yass|festival]]
    [--portfolio default|fess|with-fess]

With ``--peer PATH`` (a YASS binary, or with ``--peer-kind festival`` a Festival one) the
peer solves each level too, level by level right after ours, one process at a time, with the
same time and memory limits; its solution is replayed through our rules before it counts,
and one side-by-side table is printed. The project never needs the peer: it is read only from
the path given. ``--portfolio`` swaps the fast solver's settings for the run: FESS alone, or
the default portfolio with FESS as one more member.
"""

from __future__ import annotations

import argparse
import gc
import math
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from webapp.games.sokoban import GAME, solver  # noqa: E402
from webapp.games.sokoban.board import Board  # noqa: E402
from webapp.games.sokoban.level import Level  # noqa: E402
from webapp.games.sokoban.solver import LowerBound  # noqa: E402
from webapp.games.solving import check_solution, solve  # noqa: E402
from webapp.search import Limits, Progress  # noqa: E402
from webapp.search.engine import _rss_mb  # noqa: E402

BENCHMARKS = REPO / "levels" / "sokoban"
SETS = {"microban": "microban.xsb", "microban2": "microban2.xsb", "xsokoban": "xsokoban.xsb"}
#: The fast solver's settings by name (``--portfolio``): the default ones (by the level's
#: rooms, solver.portfolio), FESS alone, or the default ones with FESS beside them.
PORTFOLIOS = {
    "default": (solver.PORTFOLIO, solver.ROOM_PORTFOLIO),
    "fess": ((solver.FESS,), (solver.FESS,)),
    "with-fess": (
        (*solver.PORTFOLIO, solver.FESS),
        (*solver.ROOM_PORTFOLIO, solver.FESS),
    ),
}
#: Seconds the peer may run past the limit (to start and write its files) before it is killed.
PEER_GRACE = 5.0


def level_numbers(text: str | None, total: int) -> list[int]:
    """Parse '1-20,25,30-31' into 1-based level numbers within the set."""
    if not text:
        return list(range(1, total + 1))
    numbers: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return [n for n in numbers if 1 <= n <= total]


@dataclass
class Outcome:
    """One solver's run on one level: solved or not, seconds, pushes, and what stopped it."""

    status: str
    seconds: float
    pushes: int | None = None
    moves: int | None = None
    detail: str = ""
    figures: dict = field(default_factory=dict)

    @property
    def solved(self) -> bool:
        return self.status == "solved"


def run_ours(level: Level, algorithm: str, limits: Limits, improve: float = 0.0) -> Outcome:
    """Our solver in this process, with the figures that say what stopped it: expansions,
    the open list, the peak memory, and the bound at the start against the least bound any
    position reached forwards (and backwards, pulls short of the start). With ``improve``
    seconds, its solution then goes through the optimizer in pushes (``GAME.improve``)."""
    board = Board(level)
    start_h = LowerBound(board)(board.boxes_of(GAME.start(level)))
    seen = {"rss": 0.0, "frontier": 0}

    def watch(progress: Progress) -> None:
        seen["rss"] = max(seen["rss"], _rss_mb())
        seen["frontier"] = progress.frontier

    result = solve(GAME, level, algorithm, limits=limits, on_progress=watch)
    figures = {"expanded": result.expanded, "start h": start_h, **seen}
    figures["forwards"] = result.extra.get("closest forwards", "-")
    figures["backwards"] = result.extra.get("closest backwards", "-")
    figures["plan"] = result.extra.get("plan filled", "-")
    figures["plan runs"] = result.extra.get("plan runs", "-")
    figures["fess"] = (result.extra.get("fess packed"), result.extra.get("fess cells"))
    if not result.solved:
        return Outcome(result.status, result.seconds, detail=result.error or "", figures=figures)
    moves = result.moves or []
    if improve > 0:
        figures["pushes before improve"] = GAME.count(level, moves)["pushes"]
        moves = GAME.improve(level, moves, "pushes", improve).moves
    counts = GAME.count(level, moves)
    return Outcome("solved", result.seconds, counts["pushes"], counts["moves"], figures=figures)


SOLVED_LINE = re.compile(r"Solved:\s*(\d+)\s+Levels:\s*(\d+)\s+Time:\s*(\d+)\s*milli")


def peer_solution(text: str) -> str | None:
    """The LURD moves of the first solution in a YASS solutions file: the lines after a line
    starting 'Solution', up to a blank line."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.strip().startswith("Solution"):
            moves = []
            for follow in lines[index + 1 :]:
                if not follow.strip():
                    break
                moves.append(follow.strip())
            return "".join(moves) or None
    return None


def peer_seconds(output: str) -> float | None:
    """The peer's own time for the file, from its last 'Solved: N Levels: M Time: T milli
    seconds' line."""
    found = SOLVED_LINE.findall(output)
    return int(found[-1][2]) / 1000 if found else None


def peer_command(peer: Path, kind: str, limits: Limits) -> tuple[list[str], str, str]:
    """How to run the peer on ``level.xsb`` in its folder: the command, the name of the level
    file, and the pattern of the solutions file it writes. YASS takes a time and a memory
    limit and writes '… Solutions.sok'; Festival (one core) a time limit and the file named
    by -out_file, and reads the level from a .sok file."""
    seconds = str(math.ceil(limits.seconds or 60.0))
    if kind == "festival":
        command = [str(peer), "level.sok", "-cores", "1", "-time", seconds]
        return [*command, "-out_file", "solution.sok"], "level.sok", "solution.sok"
    command = [str(peer), "level.xsb", "-maxtime", seconds]
    command += ["-memory", str(limits.memory_mb or 2048), "-prompt", "no"]
    return command, "level.xsb", "*Solutions.sok"


def run_peer(peer: Path, level: Level, limits: Limits, kind: str = "yass") -> Outcome:
    """The peer on this one level, in a fresh folder: its solution is replayed through our
    rules. Its time is its own report (wall clock when it reports none, as Festival's whole
    seconds are not); past the limit it does not count."""
    seconds_limit = limits.seconds or 60.0
    with tempfile.TemporaryDirectory(prefix="sokoban-peer-") as folder:
        command, name, solutions_file = peer_command(peer, kind, limits)
        (Path(folder) / name).write_text(f"; {level.title or 'level'}\n{level.xsb()}\n")
        started = time.monotonic()
        try:
            run = subprocess.run(
                command, cwd=folder, capture_output=True, text=True, errors="replace",
                timeout=seconds_limit + PEER_GRACE, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return Outcome("timeout", time.monotonic() - started, detail="killed")
        wall = time.monotonic() - started
        seconds = peer_seconds(run.stdout)
        seconds = wall if seconds is None else seconds
        moves = None
        for solutions in Path(folder).glob(solutions_file):
            moves = peer_solution(solutions.read_text(errors="replace"))
    if moves is None:
        status = "timeout" if seconds >= seconds_limit else "unsolved"
        return Outcome(status, seconds, detail=f"exit {run.returncode}")
    try:
        tokens = GAME.split_moves(moves)
    except ValueError as exc:
        return Outcome("error", seconds, detail=str(exc))
    problem = check_solution(GAME, level, GAME.start(level), tokens)
    if problem:
        return Outcome("error", seconds, detail=f"does not replay: {problem}")
    if seconds > seconds_limit:
        return Outcome("timeout", seconds, detail="solved past the limit")
    counts = GAME.count(level, tokens)
    return Outcome("solved", seconds, counts["pushes"], counts["moves"])


def describe(outcome: Outcome) -> str:
    """One line: status, seconds, pushes or what stopped the run."""
    text = f"{outcome.status:12s} {outcome.seconds:7.2f}s"
    if outcome.solved:
        text += f" pushes {outcome.pushes:4d} moves {outcome.moves:5d}"
    elif outcome.detail:
        text += f" {outcome.detail}"
    f = outcome.figures
    if f and not outcome.solved:
        text += (
            f" expanded {f['expanded']} open {f['frontier']} peak {f['rss']:.0f} MB"
            f" h {f['start h']}->{f['forwards']} back {f['backwards']}"
            f" plan {f['plan']} in {f['plan runs']} runs"
        )
        if f.get("fess", (None,))[0] is not None:
            text += f" fess packed {f['fess'][0]} in {f['fess'][1]} cells"
    elif f:
        text += f" expanded {f['expanded']}"
    return text


def run_set(name: str, args: argparse.Namespace) -> dict:
    levels = GAME.parse((BENCHMARKS / SETS[name]).read_text())
    chosen = level_numbers(args.levels, len(levels))
    limits = Limits(seconds=args.time_limit, nodes=None, memory_mb=args.memory_mb)
    ours: dict[int, Outcome] = {}
    peers: dict[int, Outcome] = {}
    for number in chosen:
        level = levels[number - 1]
        ours[number] = run_ours(level, args.algorithm, limits, args.improve)
        gc.collect()
        if args.peer:
            peers[number] = run_peer(args.peer, level, limits, args.peer_kind)
        if args.verbose:
            line = f"{name} {number:3d}: ours {describe(ours[number])}"
            if args.peer:
                line += f" | peer {describe(peers[number])}"
            print(line, flush=True)
    return {"set": name, "levels": chosen, "ours": ours, "peer": peers}


def plain_row(row: dict) -> str:
    ours: dict[int, Outcome] = row["ours"]
    times = [o.seconds for o in ours.values()]
    solved = [o for o in ours.values() if o.solved]
    statuses: dict[str, int] = {}
    for outcome in ours.values():
        statuses[outcome.status] = statuses.get(outcome.status, 0) + 1
    other = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()) if k != "solved")
    pushes = statistics.mean(o.pushes for o in solved) if solved else 0.0
    moves = statistics.mean(o.moves for o in solved) if solved else 0.0
    median = statistics.median(times) if times else 0.0
    return (
        f"| {row['set']} | {len(ours)} | {len(solved)} | {median:.2f} "
        f"| {sum(times):.1f} | {pushes:.1f} | {moves:.1f} | {other} |"
    )


def numbers_text(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers)) or "—"


def side_by_side_row(row: dict, time_limit: float) -> tuple[str, list[str]]:
    """The table row, and the lines naming the levels only one side solved."""
    ours: dict[int, Outcome] = row["ours"]
    peers: dict[int, Outcome] = row["peer"]
    mine = {n for n, o in ours.items() if o.solved}
    theirs = {n for n, o in peers.items() if o.solved}
    both = sorted(mine & theirs)
    median_ours = statistics.median(ours[n].seconds for n in both) if both else 0.0
    median_peer = statistics.median(peers[n].seconds for n in both) if both else 0.0
    ratio = (
        sum(ours[n].pushes or 0 for n in both) / sum(peers[n].pushes or 0 for n in both)
        if both and sum(peers[n].pushes or 0 for n in both)
        else 0.0
    )
    text = (
        f"| {row['set']} | {time_limit:g} s | {len(ours)} | {len(theirs)} | {len(mine)} "
        f"| {len(both)} | {len(theirs - mine)} | {len(mine - theirs)} "
        f"| {median_peer:.3f} | {median_ours:.3f} | {ratio:.3f} |"
    )
    notes = [
        f"{row['set']}: peer alone {numbers_text(sorted(theirs - mine))}; "
        f"ours alone {numbers_text(sorted(mine - theirs))}; "
        f"neither {numbers_text(sorted(set(ours) - mine - theirs))}",
    ]
    errors = [n for n, o in peers.items() if o.status == "error"]
    if errors:
        notes.append(f"{row['set']}: peer solutions that did not replay: {numbers_text(errors)}")
    return text, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="microban", choices=[*SETS, "all"])
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per level")
    parser.add_argument("--algorithm", default=GAME.default_algorithm)
    parser.add_argument("--levels", help="1-based level numbers, e.g. 1-20 or 1-5,9")
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per level")
    parser.add_argument(
        "--peer", type=Path, help="a YASS binary to run side by side with ours, level by level"
    )
    parser.add_argument(
        "--peer-kind", default="yass", choices=["yass", "festival"], help="how the peer is run"
    )
    parser.add_argument(
        "--portfolio", default="default", choices=list(PORTFOLIOS), help="our fast settings"
    )
    parser.add_argument(
        "--improve",
        type=float,
        default=0.0,
        help="seconds for the optimizer on each of our solutions (pushes), before counting",
    )
    args = parser.parse_args(argv)
    solver.PORTFOLIO, solver.ROOM_PORTFOLIO = PORTFOLIOS[args.portfolio]
    names = list(SETS) if args.set == "all" else [args.set]
    rows = [run_set(name, args) for name in names]
    print()
    improved = f", then `improve` in pushes for {args.improve:g} s" if args.improve else ""
    chosen = f" (portfolio `{args.portfolio}`)" if args.portfolio != "default" else ""
    print(f"algorithm `{args.algorithm}`{chosen}, {args.time_limit:g} s per level{improved}")
    print()
    if not args.peer:
        print("| set | levels | solved | median s | total s | mean pushes | mean moves | other |")
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        for row in rows:
            print(plain_row(row))
        return 0
    print(
        f"peer `{args.peer.name}`. Median seconds and pushes are over the levels both solve; "
        "pushes is ours / the peer's, summed over them."
    )
    print()
    print(
        "| set | limit | levels | peer solved | ours solved | both | peer alone | ours alone "
        "| peer median s | our median s | pushes ours / peer |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    notes: list[str] = []
    for row in rows:
        text, more = side_by_side_row(row, args.time_limit)
        print(text)
        notes.extend(more)
    print()
    for note in notes:
        print(f"- {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
