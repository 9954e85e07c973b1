"""Run one of a game's solvers and check its answer against the game's own rules.

This is the single door to every solver: the command line, the solver processes behind the
web page and the benchmarks all come through ``solve``. A solution that does not replay to a
win is reported as an error, never shown as a solution.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from webapp.games.base import Game
from webapp.search import Limits, Monitor, Progress, Result


def solve(
    game: Game,
    level: Any,
    algorithm: str | None = None,
    state: Any = None,
    limits: Limits | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Result:
    """Search from ``state`` (the level's start by default) with the named algorithm."""
    algorithms = game.algorithms()
    name = algorithm or game.default_for(level)
    if name not in algorithms:
        known = ", ".join(algorithms) or "none"
        return Result(
            status="error", error=f"no algorithm {name!r} for {game.name}; known: {known}"
        )
    chosen = algorithms[name]
    if state is None:
        state = game.start(level)
    monitor = Monitor(limits, on_progress, cancelled)
    try:
        result = chosen.run(level, state, monitor)
    except MemoryError:
        result = monitor.result("memory-limit")
    except Exception as exc:  # a solver bug must not take the caller down
        detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return monitor.result("error", error=f"the {name} solver failed: {detail}")
    result.metric = chosen.metric
    result.optimal = bool(result.optimal and chosen.optimal)
    if result.status == "solved":
        problem = check_solution(game, level, state, result.moves or [])
        if problem:
            return Result(
                status="error",
                expanded=result.expanded,
                generated=result.generated,
                seconds=result.seconds,
                metric=chosen.metric,
                error=f"the {name} solver returned a solution that does not replay: {problem}",
            )
        moves = result.moves or []
        result.cost = game.count(level, moves, state).get(chosen.metric, len(moves))
    return result


def check_solution(game: Game, level: Any, state: Any, tokens: list[str]) -> str | None:
    """None when ``tokens`` take ``state`` to a win; otherwise what goes wrong."""
    for index, token in enumerate(tokens):
        try:
            state = game.apply(level, state, token)
        except ValueError as exc:
            return f"move {index + 1} ({token}) is not allowed: {exc}"
    if not game.is_solved(level, state):
        return "the moves end on a board that is not solved"
    return None
