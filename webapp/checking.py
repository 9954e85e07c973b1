"""The verdict on a level as a designer draws it: solvable (with a solution, proved shortest
or not), unsolvable (with a proof), or not decided within the time allowed.

Never a false verdict: "unsolvable" comes only from a proof (the game's ``unsolvable_reason``,
or a search that went through every position), "solvable" only with a solution that replays
through the game's own rules (``webapp.games.solving.solve`` checks each one). Everything else is
"unknown". Like a solve, a check is a search: it runs in a solver child, never in the web
process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from webapp.games.base import Game
from webapp.games.solving import solve
from webapp.search import Limits, Progress

#: The share of the time the optimal search takes when a faster one can follow it: it
#: proves the shortest solution on most small levels in well under this, and leaves the
#: rest to a search that finds some solution where the optimal one runs out of time.
OPTIMAL_SHARE = 0.5
#: Every search of a check stops at this much resident memory (megabytes) ...
MEMORY_MB = 1024
#: ... and, unless the caller sets fewer, at this many expanded positions.
NODES = 100_000_000
#: Less time than this left is not worth starting another search in.
LEAST_SECONDS = 0.02


class Status(Enum):
    """What a check decided of a level (its value is the word the editor and the command
    line write)."""

    SOLVABLE = "solvable"  # with a solution that replays
    UNSOLVABLE = "unsolvable"  # with a proof
    UNKNOWN = "unknown"  # not decided within the limits, or cancelled
    INVALID = "invalid"  # not a level at all: the text breaks the game's rules of form


@dataclass
class Verdict:
    """What a check found: its ``status``; ``reason`` says why in plain words; ``squares``
    are the (row, column) cells of the level's grid the reason is about (a dead box, a lone
    block). It crosses a process boundary as itself (pickled), never as a dict."""

    status: Status
    reason: str = ""
    #: True only when ``length`` is proved shortest in ``metric``.
    optimal: bool = False
    length: int | None = None
    metric: str = "moves"
    #: The moves in the game's notation; "" when there is none.
    solution: str = ""
    #: The solver's expansions, summed over the searches run: the first measure of
    #: how hard the level is.
    expanded: int = 0
    seconds: float = 0.0
    squares: list[tuple[int, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "reason": self.reason,
            "optimal": self.optimal,
            "length": self.length,
            "metric": self.metric,
            "solution": self.solution,
            "expanded": self.expanded,
            "seconds": round(self.seconds, 4),
            "squares": [[row, column] for row, column in self.squares],
        }


def searches(game: Game, level: Any) -> list[tuple[str, float]]:
    """The searches a check runs, in order, each with its share of the time left: an
    optimal one first (the game's default when it is optimal, else the first optimal one it
    lists), then a faster one that is not (the default, or the first such listed)."""
    algorithms = game.algorithms()
    default = game.default_for(level)
    optimal = [name for name, algorithm in algorithms.items() if algorithm.optimal]
    faster = [name for name, algorithm in algorithms.items() if not algorithm.optimal]
    if default in algorithms and not algorithms[default].optimal:
        faster = [default]
    first = default if default in optimal else (optimal[0] if optimal else None)
    then = faster[0] if faster else None
    plan = []
    if first is not None:
        plan.append((first, OPTIMAL_SHARE if then is not None else 1.0))
    if then is not None:
        plan.append((then, 1.0))
    return plan


def _solvable_reason(length: int | None, metric: str, optimal: bool) -> str:
    words = metric.replace("_", " ")
    if optimal:
        return f"a solution of {length} {words}, proved shortest"
    return f"a solution of {length} {words} found, not proved shortest"


def check(
    game: Game,
    level: Any,
    seconds: float,
    *,
    node_limit: int | None = None,
    report: Callable[[Progress], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Verdict:
    """The verdict on ``level`` within ``seconds`` (and ``node_limit`` expansions in all):
    the game's quick proof of unsolvability first, then the searches of ``searches``.
    ``report`` and ``cancelled`` are passed to each search, as ``solve`` takes them."""
    started = time.monotonic()
    plan = searches(game, level)
    algorithms = game.algorithms()
    metric = algorithms[plan[0][0]].metric if plan else "moves"

    def elapsed() -> float:
        return time.monotonic() - started

    proof = game.unsolvable_reason(level)
    if proof is not None:
        reason, squares = proof
        return Verdict(
            Status.UNSOLVABLE, reason, metric=metric, seconds=elapsed(), squares=list(squares)
        )
    expanded = 0
    failures: list[str] = []
    stopped = "timeout"
    for name, share in plan:
        left = seconds - elapsed()
        nodes = (node_limit if node_limit is not None else NODES) - expanded
        if left < LEAST_SECONDS or nodes <= 0:
            break
        limits = Limits(seconds=left * share, nodes=nodes, memory_mb=MEMORY_MB)
        result = solve(game, level, name, limits=limits, on_progress=report, cancelled=cancelled)
        expanded += result.expanded
        metric = result.metric or metric
        if result.status == "solved":
            moves = result.moves or []
            optimal = bool(result.optimal)
            return Verdict(
                Status.SOLVABLE,
                _solvable_reason(result.cost, result.metric, optimal),
                optimal=optimal,
                length=result.cost,
                metric=result.metric,
                solution=game.join_moves(moves),
                expanded=expanded,
                seconds=elapsed(),
            )
        if result.status == "unsolvable":
            return Verdict(
                Status.UNSOLVABLE,
                "every position was searched",
                metric=metric,
                expanded=expanded,
                seconds=elapsed(),
            )
        if result.status == "cancelled":
            return Verdict(
                Status.UNKNOWN, "cancelled", metric=metric, expanded=expanded, seconds=elapsed()
            )
        if result.status == "error" and result.error:
            failures.append(result.error)
        else:
            stopped = result.status
    if plan and len(failures) == len(plan):
        reason = "the solver could not decide: " + "; ".join(failures)
    elif stopped == "node-limit":
        reason = f"not decided within {node_limit or NODES:,} positions"
    elif stopped == "memory-limit":
        reason = f"not decided within {MEMORY_MB} MB of memory"
    else:
        reason = f"not decided within {seconds:g} s"
    return Verdict(Status.UNKNOWN, reason, metric=metric, expanded=expanded, seconds=elapsed())
