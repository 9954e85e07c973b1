"""Generic search: problems, limits, progress, and the classic algorithms over them.

A game's solver describes its search space as a ``SearchProblem`` and hands it to one of the
algorithms here; each reports progress through a ``Monitor``, which also enforces the limits
and the cancellation flag. Game knowledge (deadlocks, pattern databases) stays with the game.
"""

from webapp.search.engine import (
    Limits,
    Monitor,
    Progress,
    Result,
    SearchProblem,
    Stop,
    astar,
    best_first,
    bfs,
    idastar,
    run_search,
)

__all__ = [
    "Limits",
    "Monitor",
    "Progress",
    "Result",
    "SearchProblem",
    "Stop",
    "astar",
    "best_first",
    "bfs",
    "idastar",
    "run_search",
]
