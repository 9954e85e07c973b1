"""The command line: ``python -m webapp solve GAME FILE ...``, ``... algorithms GAME``,
``... generate GAME [--difficulty D] [--seed S] [--count N]`` (levels made to order),
``... check GAME FILE [--level N] [--time-limit S]`` (a verdict on each level, for designers),
``... improve GAME FILE --level N --solution MOVES [--metric M] [--time-limit S]`` (a
solution made shorter),
``... trace GAME FILE [--level N] [--algorithm A] [--steps K] [--time-limit S]`` (a
textbook search written out one expansion a line),
``... warm`` (compile the solvers' kernels ahead of the first solve) and ``... tables GAME
FOLDER`` (build the tables a game's solvers keep on disk).

Output is one JSON object per level, printed as soon as that level is done (see SPEC.md).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

from webapp import games
from webapp.checking import Status, Verdict, check
from webapp.games.base import DIFFICULTIES, LevelError, MoveError
from webapp.games.solving import StepWriter, solve, traceable
from webapp.generating import SEED, generate
from webapp.search import Limits

#: Statuses the CLI contract knows; the engine's others are reported as errors with a reason.
_CONTRACT_STATUSES = {"solved", "unsolvable", "timeout", "node-limit", "error"}


class UsageError(Exception):
    """Arguments or a file the command cannot use: exit status 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m webapp", description="Puzzle Lab tools")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("solve", help="solve the levels of a file and print JSON lines")
    run.add_argument("game", help=" or ".join(games.names()))
    run.add_argument("file", help="a level file or collection")
    run.add_argument("--level", type=int, help="only this level (1-based)")
    run.add_argument("--algorithm", help="solver name (see: python -m webapp algorithms GAME)")
    run.add_argument("--time-limit", type=float, default=60.0, help="seconds per level")
    run.add_argument("--node-limit", type=int, default=None, help="expanded states per level")
    run.add_argument("--memory-limit", type=int, default=4096, help="megabytes per level")
    steps = commands.add_parser(
        "trace", help="a textbook search on one level, one JSON line per position it expands"
    )
    steps.add_argument("game", help=" or ".join(games.names()))
    steps.add_argument("file", help="a level file or collection")
    steps.add_argument("--level", type=int, default=1, help="the level (1-based; default 1)")
    steps.add_argument("--algorithm", help="a solver that steps (the first such by default)")
    steps.add_argument("--steps", type=int, default=1000, help="expansions at most (1000)")
    steps.add_argument("--time-limit", type=float, default=60.0, help="seconds at most")
    listing = commands.add_parser("algorithms", help="list a game's solvers")
    listing.add_argument("game")
    commands.add_parser(
        "warm", help="compile the solvers' numba kernels now (cached beside their source)"
    )
    made = commands.add_parser("generate", help="make levels of a difficulty, in the game's format")
    made.add_argument("game")
    made.add_argument("--difficulty", default="medium", help=" | ".join(DIFFICULTIES))
    made.add_argument(
        "--seed", default=None, help="letters, digits and dashes; random if not given"
    )
    made.add_argument("--count", type=int, default=1, help="how many levels (seed, seed-2, ...)")
    made.add_argument("--size", default="", help="a board size the game offers (e.g. 3x3)")
    checking = commands.add_parser(
        "check", help="a verdict on each level of a file: solvable, unsolvable, unknown, invalid"
    )
    checking.add_argument("game", help=" or ".join(games.names()))
    checking.add_argument("file", help="a level file or collection")
    checking.add_argument("--level", type=int, help="only this level (1-based)")
    checking.add_argument("--time-limit", type=float, default=5.0, help="seconds per level")
    better = commands.add_parser(
        "improve", help="a solution made shorter in moves or pushes (games that improve them)"
    )
    better.add_argument("game")
    better.add_argument("file", help="a level file or collection")
    better.add_argument("--level", type=int, default=1, help="the level (1-based; default 1)")
    better.add_argument("--solution", required=True, help="the moves, in the game's notation")
    better.add_argument("--metric", default=None, help="what to shorten (Sokoban: moves, pushes)")
    better.add_argument("--time-limit", type=float, default=10.0, help="seconds at most")
    tables = commands.add_parser("tables", help="build the tables a game's solvers keep on disk")
    tables.add_argument("game")
    tables.add_argument("folder", type=Path, help="where to keep them (the app's instance folder)")
    return parser


#: Where the app keeps its data, and so the solvers' tables on disk.
INSTANCE = Path(__file__).resolve().parents[2] / "instance"


def cmd_tables(args: argparse.Namespace) -> int:
    game = _game(args.game)
    if game.has_disk_tables:
        args.folder.mkdir(parents=True, exist_ok=True)
        if not game.build_disk_tables(args.folder):
            print(f"{game.name}: another process is building the tables in {args.folder}")
    return 0


def cmd_warm(args: argparse.Namespace) -> int:
    """Run every kernel once on a tiny input: numba compiles it (tens of seconds on a new
    install) and caches it, so a player's first solve, or a hint with a 5 s limit, does not
    spend its time in the compiler."""
    from webapp.jobs.warm import warm_all

    warm_all(lambda name, seconds: print(f"{name}: ready in {seconds:.1f} s", file=sys.stderr))
    return 0


def _game(name: str) -> games.Game:
    try:
        return games.get(name)
    except KeyError:
        raise UsageError(f"unknown game {name!r}; games: {', '.join(games.names())}") from None


def record(game: games.Game, number: int, level: Any, algorithm: str, result: Any) -> dict:
    """The JSON object of one solved (or not) level, as the contract spells it."""
    status = result.status
    error = result.error
    if status not in _CONTRACT_STATUSES:
        error = {
            "memory-limit": "stopped: the memory limit was reached",
            "cancelled": "stopped: cancelled",
        }.get(status, f"stopped: {status}")
        status = "error"
    moves = result.moves if status == "solved" else None
    out: dict[str, Any] = {
        "game": game.name,
        "level": number,
        "title": game.level_title(level),
        "algorithm": algorithm,
        "status": status,
        "solution": game.join_moves(moves) if moves is not None else None,
        "length": result.cost if moves is not None else None,
        "metric": result.metric,
        "optimal": bool(result.optimal) if moves is not None else False,
        "expanded": result.expanded,
        "generated": result.generated,
        "seconds": round(result.seconds, 4),
    }
    if moves is not None:
        out.update(game.count(level, moves))
    known = game.known_optimum(level)
    if known is not None:
        out["known_optimal"] = known
    for key, value in result.extra.items():
        out.setdefault(key, value)
    if status == "error":
        out["error"] = error or "unknown error"
    return out


#: The largest level file the command line reads (a whole collection, not one level).
MAX_FILE_BYTES = 50 * 2**20


def check_seconds(seconds: float | None) -> None:
    """A time limit that means something: finite, positive, at most a day."""
    if seconds is not None and not (math.isfinite(seconds) and 0 < seconds <= 86_400):
        raise UsageError("--time-limit must be a number of seconds between 0 and 86400")


def check_limits(args: argparse.Namespace) -> None:
    """Limits that mean something: finite, positive and within what this machine can give."""
    check_seconds(args.time_limit)
    if args.node_limit is not None and args.node_limit <= 0:
        raise UsageError("--node-limit must be positive")
    if not 64 <= args.memory_limit <= 1_048_576:
        raise UsageError("--memory-limit must be between 64 and 1048576 megabytes")
    if args.level is not None and args.level <= 0:
        raise UsageError("--level counts from 1")


def read_level_file(name: str) -> str:
    """A level file's text, read no further than the largest a level file may be."""
    try:
        with open(name, "rb") as source:
            data = source.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise UsageError(f"{name} is larger than {MAX_FILE_BYTES // 2**20} MB: not a level file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {name}: it is not UTF-8 text ({exc})") from None


def read_one_level(game: games.Game, name: str, number: int) -> Any:
    """Level ``number`` (from 1) of the file ``name``; UsageError naming what is wrong."""
    try:
        levels = game.parse(read_level_file(name))
    except LevelError as exc:
        raise UsageError(f"{name}: {exc}") from None
    if not 1 <= number <= len(levels):
        raise UsageError(f"--level {number}: the file has levels 1 to {len(levels)}")
    return levels[number - 1]


def cmd_solve(args: argparse.Namespace) -> int:
    game = _game(args.game)
    if args.algorithm is not None and args.algorithm not in game.algorithms():
        raise UsageError(
            f"unknown algorithm {args.algorithm!r} for {game.name}; "
            f"known: {', '.join(game.algorithms())}"
        )
    check_limits(args)
    text = read_level_file(args.file)
    try:
        levels = game.parse(text)
    except LevelError as exc:
        raise UsageError(f"{args.file}: {exc}") from None
    numbers = range(1, len(levels) + 1)
    if args.level is not None:
        if not 1 <= args.level <= len(levels):
            raise UsageError(f"--level {args.level}: the file has levels 1 to {len(levels)}")
        numbers = range(args.level, args.level + 1)
    limits = Limits(seconds=args.time_limit, nodes=args.node_limit, memory_mb=args.memory_limit)
    game.use_disk_tables(INSTANCE)
    for number in numbers:
        level = levels[number - 1]
        algorithm = args.algorithm or game.default_for(level)
        result = solve(game, level, algorithm, limits=limits)
        print(
            json.dumps(record(game, number, level, algorithm, result), ensure_ascii=False),
            flush=True,
        )
    return 0


#: The most expansions ``trace`` writes out, whatever --steps asks (a line can be long).
MAX_TRACE_STEPS = 1_000_000


def cmd_trace(args: argparse.Namespace) -> int:
    """The search's expansions in order, one JSON object a line, as they are made: the same
    search ``solve`` runs with that algorithm, told to a tracer (webapp/games/solving.py)."""
    game = _game(args.game)
    stepping = traceable(game)
    if not stepping:
        raise UsageError(f"{game.name} has no algorithm that can be traced")
    algorithm = args.algorithm or stepping[0]
    if algorithm not in stepping:
        known = "unknown algorithm" if algorithm not in game.algorithms() else "cannot trace"
        raise UsageError(f"{known} {algorithm!r} for {game.name}; traceable: {', '.join(stepping)}")
    check_seconds(args.time_limit)
    if not 1 <= args.steps <= MAX_TRACE_STEPS:
        raise UsageError(f"--steps must be from 1 to {MAX_TRACE_STEPS:,}")
    if args.level <= 0:
        raise UsageError("--level counts from 1")
    level = read_one_level(game, args.file, args.level)

    def out(expansion: dict[str, Any]) -> None:
        print(json.dumps(expansion, ensure_ascii=False), flush=True)

    writer = StepWriter(game, level, out, args.steps)
    limits = Limits(seconds=args.time_limit, nodes=None, memory_mb=4096)
    result = solve(game, level, algorithm, limits=limits, tracer=writer)
    writer.close()
    # How it ended, for a reader at the terminal; standard output stays one line a step.
    ended = record(game, args.level, level, algorithm, result)
    ended["expanded"] = writer.taken  # exact, where a stopped search's count is its last tick's
    if result.status == "node-limit":
        ended["note"] = f"stopped after {writer.taken} steps (--steps)"
    print(json.dumps(ended, ensure_ascii=False), file=sys.stderr)
    return 0


def read_levels(game: games.Game, text: str) -> list[Any | LevelError]:
    """Every level of a file, or the LevelError that stops one. A file the game cannot
    parse whole is read again around the fault: the levels before the paragraph (the run of
    non-blank lines) at fault, that paragraph as one invalid level, then on after it."""
    lines = text.split("\n")
    found: list[Any | LevelError] = []
    start = 0  # lines before this are read already (blanked, so line numbers stay true)
    while "".join(lines[start:]).strip():
        try:
            found.extend(game.parse("\n" * start + "\n".join(lines[start:])))
            break
        except LevelError as exc:
            fault = (exc.line or 0) - 1
            if fault < start:  # no line to split at
                if start == 0 or exc.line is not None:
                    found.append(exc)
                break
            top = fault
            while top > start and lines[top - 1].strip():
                top -= 1
            bottom = fault
            while bottom + 1 < len(lines) and lines[bottom + 1].strip():
                bottom += 1
            if "".join(lines[start:top]).strip():
                try:
                    found.extend(game.parse("\n" * start + "\n".join(lines[start:top])))
                except LevelError as before:
                    if before.line is not None:  # not only comments: the levels do not split
                        found.append(exc)
                        break
            found.append(exc)
            start = bottom + 1
    return found


def check_record(
    game: games.Game, number: int, level: Any | LevelError, seconds: float
) -> dict[str, Any]:
    """The JSON object of one checked level, as docs/cli.md spells it."""
    if isinstance(level, LevelError):
        default = game.algorithms().get(game.default_algorithm)
        metric = default.metric if default else "moves"
        verdict = Verdict(Status.INVALID, level.message, metric=metric)
        title = ""
        errors = [{"line": level.line, "column": level.column, "message": level.message}]
    else:
        verdict = check(game, level, seconds)
        title = game.level_title(level)
        errors = []
    out = {"game": game.name, "level": number, "title": title} | verdict.to_dict()
    out["errors"] = errors
    return out


def cmd_check(args: argparse.Namespace) -> int:
    """A verdict on each level: solvable (proved shortest or not), unsolvable (with the
    proof's reason), unknown within the time limit, or invalid (where the text is wrong)."""
    game = _game(args.game)
    seconds = args.time_limit
    check_seconds(seconds)
    if args.level is not None and args.level <= 0:
        raise UsageError("--level counts from 1")
    levels = read_levels(game, read_level_file(args.file))
    numbers = range(1, len(levels) + 1)
    if args.level is not None:
        if not 1 <= args.level <= len(levels):
            raise UsageError(f"--level {args.level}: the file has levels 1 to {len(levels)}")
        numbers = range(args.level, args.level + 1)
    game.use_disk_tables(INSTANCE)
    game.warm_up()  # as in a solver child: the time limit is the search's, not the compiler's
    for number in numbers:
        out = check_record(game, number, levels[number - 1], seconds)
        print(json.dumps(out, ensure_ascii=False), flush=True)
    return 0


def cmd_improve(args: argparse.Namespace) -> int:
    """A solution made no longer in the metric, shorter where the game's optimizer finds a way
    within the time limit: one JSON object, as ``solve`` prints them."""
    game = _game(args.game)
    metrics = game.improves
    if not metrics:
        raise UsageError(f"{game.name} has no solution optimizer")
    metric = args.metric or metrics[0]
    if metric not in metrics:
        raise UsageError(f"--metric is one of {', '.join(metrics)}")
    seconds = args.time_limit
    check_seconds(seconds)
    level = read_one_level(game, args.file, args.level)
    try:
        moves = game.split_moves(args.solution)
    except MoveError as exc:
        raise UsageError(f"--solution: {exc}") from None
    started = time.monotonic()
    try:
        better = game.improve(level, moves, metric, seconds)
    except ValueError as exc:
        raise UsageError(f"--solution does not solve level {args.level}: {exc}") from None
    counted = game.count(level, better.moves)
    out: dict[str, Any] = {
        "game": game.name,
        "level": args.level,
        "title": game.level_title(level),
        "algorithm": "improve",
        "status": "solved",
        "solution": game.join_moves(better.moves),
        "length": counted[metric],
        "metric": metric,
        "optimal": False,
        "original_length": game.count(level, moves)[metric],
        "expanded": better.expanded,
        "finished": better.finished,
        "seconds": round(time.monotonic() - started, 4),
    }
    out.update(counted)
    print(json.dumps(out, ensure_ascii=False), flush=True)
    return 0


def cmd_algorithms(args: argparse.Namespace) -> int:
    game = _game(args.game)
    for name, algorithm in game.algorithms().items():
        default = " (default)" if name == game.default_algorithm else ""
        optimal = f"optimal in {algorithm.metric}" if algorithm.optimal else "not optimal"
        print(f"{name}{default}: {algorithm.summary} [{optimal}]")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    """Levels made to order, in the game's own file format, one after another with a blank
    line between: each titled with its difficulty and seed, its measures in its key lines."""
    game = _game(args.game)
    if not game.generates:
        raise UsageError(f"{game.name} makes no levels of its own")
    if args.difficulty not in DIFFICULTIES:
        raise UsageError(f"--difficulty is one of {', '.join(DIFFICULTIES)}")
    if not 1 <= args.count <= 1000:
        raise UsageError("--count is from 1 to 1000")
    seed = args.seed or str(random.SystemRandom().randrange(10**6, 10**7))
    if not SEED.fullmatch(seed):
        raise UsageError("--seed is 1 to 40 letters, digits or dashes")
    if args.size and args.size not in game.made_sizes:
        raise UsageError(f"--size is one of: {', '.join(game.made_sizes) or 'none for this game'}")
    for number in range(1, args.count + 1):
        made = generate(
            game, args.difficulty, seed if number == 1 else f"{seed}-{number}", args.size
        )
        print(game.level_text(made.level).rstrip("\n") + "\n", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return 2 if exit_.code not in (0, None) else 0
    try:
        if args.command == "solve":
            return cmd_solve(args)
        if args.command == "warm":
            return cmd_warm(args)
        if args.command == "tables":
            return cmd_tables(args)
        if args.command == "generate":
            return cmd_generate(args)
        if args.command == "check":
            return cmd_check(args)
        if args.command == "improve":
            return cmd_improve(args)
        if args.command == "trace":
            return cmd_trace(args)
        return cmd_algorithms(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
