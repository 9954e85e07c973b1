"""Run one of a game's solvers and check its answer against the game's own rules.

This is the single door to every solver: the command line, the solver processes behind the
web page and the benchmarks all come through ``solve``. A solution that does not replay to a
win is reported as an error, never shown as a solution.

A search written out one expansion at a time (``python -m webapp trace``) comes through the
same door: the algorithm runs as ever, with a tracer on its monitor (``webapp.search.Tracer``)
that the textbook searches tell of each position they take and each child they meet there;
``StepWriter`` turns that into the game's own words (positions as the game writes them,
moves in its notation).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from typing import Any

from webapp.games.base import Game
from webapp.search import Limits, Monitor, Progress, Result, Stop, Tracer


def solve(
    game: Game,
    level: Any,
    algorithm: str | None = None,
    state: Any = None,
    limits: Limits | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    tracer: Tracer | None = None,
    counting: bool = True,
) -> Result:
    """Search from ``state`` (the level's start by default) with the named algorithm;
    ``tracer`` is told of each expansion by the algorithms that step (``Algorithm.steps``).
    The result and the progress carry where the search looked (a heat map, where the
    algorithm counts one), unless ``counting`` is off (bench/heat.py measures its cost)."""
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
    monitor = Monitor(limits, on_progress, cancelled, tracer=tracer, counting=counting)
    try:
        result = chosen.run(level, state, monitor)
    except MemoryError:
        result = monitor.result("memory-limit")
    except Exception as exc:  # a solver bug must not take the caller down
        detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return monitor.result("error", error=f"the {name} solver failed: {detail}")
    if result.heat is None and monitor.heat is not None:
        result.heat = monitor.heat.snapshot()  # a result the solver made without the monitor
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


class StepWriter(Tracer):
    """Collects each expansion as a dict (``step``, ``position``, ``g``, ``h``, ``f``,
    ``children``, ``waiting``) and hands it to ``out`` once its children are all told;
    stops the search (``node-limit``) when it would take one more than ``steps``."""

    def __init__(
        self,
        game: Game,
        level: Any,
        out: Callable[[dict[str, Any]], None],
        steps: int | None = None,
    ):
        self.game, self.level, self.out, self.steps = game, level, out, steps
        self.taken = 0
        self.open: dict[str, Any] | None = None

    def text(self, state: Any) -> str:
        return self.game.render_text(self.level, state)

    def expand(self, state: Any, g: int, h: int, f: int, waiting: int) -> None:
        self.close()
        if self.steps is not None and self.taken >= self.steps:
            raise Stop("node-limit")
        self.open = {
            "step": self.taken,
            "position": self.text(state),
            "g": g,
            "h": h,
            "f": f,
            "children": [],
            "waiting": waiting,
        }
        self.taken += 1

    def child(self, move: Sequence[str], state: Any, verdict: str, rule: str = "") -> None:
        if self.open is None:
            return
        told: dict[str, Any] = {
            "move": self.game.join_moves(move),
            "position": self.text(state),
            "verdict": verdict,
        }
        if rule:
            told["rule"] = rule
        self.open["children"].append(told)

    def close(self) -> None:
        """Hand on the expansion still open, if any (the search has moved on or ended)."""
        if self.open is not None:
            opened, self.open = self.open, None
            self.out(opened)


def traceable(game: Game) -> list[str]:
    """The names of the game's algorithms that step (those ``trace`` can follow)."""
    return [name for name, algorithm in game.algorithms().items() if algorithm.steps]
