"""Generic search: problems, limits, progress, and the classic algorithms over them.

A game's solver describes its search space as a ``SearchProblem`` and hands it to one of the
algorithms here; each reports progress through a ``Monitor``, which also enforces the limits
and the cancellation flag. Game knowledge (deadlocks, pattern databases) stays with the game.
"""

from webapp.search.engine import (
    NO_GOAL,
    VERDICTS,
    Limits,
    Monitor,
    Progress,
    Result,
    SearchProblem,
    Stop,
    Tracer,
    astar,
    best_first,
    bfs,
    idastar,
    over_bound,
    run_search,
)
from webapp.search.heat import Heat, HeatMap, no_heat

__all__ = [
    "Limits",
    "Monitor",
    "Progress",
    "Result",
    "SearchProblem",
    "Stop",
    "Tracer",
    "Heat",
    "HeatMap",
    "no_heat",
    "NO_GOAL",
    "VERDICTS",
    "astar",
    "best_first",
    "bfs",
    "idastar",
    "over_bound",
    "run_search",
]
