"""What a result is measured against, and where a level nobody has rated yet starts: one
policy for the win's sentence, the records, the collection pages and "a level for me".

The order of what is known, best first: a made level's own optimum (proved, or the best its
maker found); the optimum the level's own text gives (``Game.known_optimum``); a proved
optimum the app ships (``catalog``); the optimum the level's record gives in one of its counts
(``Game.recorded_optimum``); a published par; the best any other player has done.
A level with none of these is placed by the game's own quick estimate (``Game.estimate``, a
solver's lower bound at the start) until players rate it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from webapp.core import catalog, ratings
from webapp.core.records import Benchmark, Row
from webapp.games.base import Game


def benchmark(
    game: Game, level: Any, made: Mapping[str, Any] | None = None, board: Sequence[Row] = ()
) -> Benchmark | None:
    """What a result on ``level`` is measured against (``made``: the store's record of a
    made level; ``board``: the level's leaderboard, in order), or None where nothing is
    known."""
    if made is not None:
        return Benchmark(made["optimum"], made["metric"], made["proved"], made.get("solution", ""))
    first = game.counters[0]
    proved = game.known_optimum(level) or catalog.known_optimum(game, level)
    if proved is not None:
        return Benchmark(proved, first, True)
    recorded = game.recorded_optimum(level)
    if recorded is not None:  # e.g. a Klotski classic's path moves: known before anyone plays
        return Benchmark(recorded[0], recorded[1], True)
    par = game.par(level)
    if par is not None:
        return Benchmark(par, first, False)
    others = [row for row in board if not row.mine]
    if others:  # the best any other player has done
        return Benchmark(others[0].figures[first], first, False)
    return None


def predicted_rating(game: Game, level: Any, made: Mapping[str, Any] | None = None) -> float:
    """Where a level nobody has rated yet starts: by its known length (``benchmark`` without
    players), else by the game's quick estimate of it."""
    mark = benchmark(game, level, made)
    return ratings.predicted(game, mark.value if mark is not None else _estimate(game, level))


@lru_cache(maxsize=8192)
def _estimate(game: Game, level: Any) -> int | None:
    """``game.estimate``, worked out once a process: a collection page asks it of every
    level (a few milliseconds each for Sokoban)."""
    return game.estimate(level)
