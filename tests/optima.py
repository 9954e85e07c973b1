"""An optimum a test pins, proved again by an optimal search of the game's own, through the
one door (webapp/games/solving.py, so the solution found replays): a figure on a page is checked
against the search, not only against the generator or the page that printed it."""

from __future__ import annotations

from typing import Any

from webapp.games.base import Game
from webapp.games.solving import solve
from webapp.search import Limits

#: The optimal search that proves a metric in each game: where it can, another search than
#: the one that made the figure (a generated Sokoban level's "fewest pushes" comes from
#: breadth-first, so A* proves it). Vexed's breadth-first takes over a minute on an expert
#: level, so its fast search proves it, which says whether it proved (``optimal``).
PROVER = {
    ("sokoban", "pushes"): "astar",
    ("sokoban", "moves"): "moves",
    ("sliding", "moves"): "idastar",
    ("vexed", "moves"): "fast",
    ("blocks", "path_moves"): "path",
    ("blocks", "line_moves"): "line",
    ("blocks", "steps"): "steps",
}


def proved_optimum(
    game: Game, level: Any, metric: str, seconds: float = 60, nodes: int = 5_000_000
) -> int:
    """The fewest ``metric`` that solve ``level``, proved by an optimal search within
    ``seconds`` and ``nodes`` (a search that does not finish fails the test: small levels
    only)."""
    name = PROVER[(game.name, metric)]
    result = solve(game, level, name, limits=Limits(seconds=seconds, nodes=nodes))
    assert result.solved and result.optimal, (name, result.status, result.error)
    assert result.metric == metric and result.cost is not None
    return result.cost
