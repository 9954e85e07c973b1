"""What a result is measured against, and where a level nobody has rated yet starts: one
policy for the win's sentence, the records, the collection pages and "a level for me".

The order of what is known, best first: a made level's own optimum (proved, or the best its
maker found); the optimum the level's own text gives (``Game.known_optimum``); a proved
optimum the app ships (``catalog``); the optimum the level's record gives in one of its counts
(``Game.recorded_optimum``); a published par; the best any other player has done.
A level with none of these is placed by the game's own quick estimate (``Game.estimate``, a
solver's lower bound at the start) until players rate it.

Finishing a game is here too: a player's game saved with its win (their own, assisted, or
too hasty to rank), the win beside its benchmark, and the first finished attempt rated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from webapp.core import catalog, ratings
from webapp.core.levels import Found, was_shown
from webapp.core.play import Play
from webapp.core.records import Benchmark, Pace, Records, Row, against, level_records, paced
from webapp.games.base import Game
from webapp.storage.store import SavedGame


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


# -- a found level's result: its benchmark, a game finished and rated ---------------------------
def made_of(found: Found) -> Mapping[str, Any] | None:
    """The store's record of a level made to order (its optimum, metric, seed), or None."""
    if not found.ref.custom_id:
        return None
    return found.store.made(found.game.name, found.ref.custom_id)


def benchmark_of(found: Found, records: Records | None = None) -> Benchmark | None:
    """``benchmark`` for a level a player found (with its leaderboard, ``records``, where
    the page has it)."""
    return benchmark(found.game, found.level, made_of(found), records.board if records else ())


def finish(found: Found, play: Play, moves: int = 0, fresh: bool = False, rater: str = "") -> None:
    """Store the player's game, and the win with its figures: their own; an assisted one
    (moves from a solver or a replay link, or on a board whose solution they were shown),
    which never becomes their best; or a hasty one (played faster than a person could), kept
    but not ranked. ``moves``: how many moves the action brought (each click one), for the
    pace; ``fresh``: the board showed none before them; ``rater``: the client a rating
    change counts against (``rate_first_attempt``). A win rates the first attempt."""
    store, player = found.store, found.player
    game, key = found.game.name, found.ref.key
    hasty, kept_pace = False, None
    if moves:
        kept = store.pace(player, game, key)
        pace = paced(Pace(*kept) if kept else None, store.clock(), moves, fresh)
        kept_pace, hasty = (pace.credit, pace.at, pace.hasty), pace.hasty
    won = play.solved and bool(play.moves)
    if won:
        if not moves:  # a win by redo: the attempt's pace as it stands
            kept = store.pace(player, game, key)
            hasty = bool(kept and kept[2])
        play.shown = play.shown or was_shown(found)
        play.unranked = "hasty" if hasty and not play.assisted else ""
    store.save_game(
        player,
        game,
        key,
        SavedGame(play.history, play.cursor),
        win=play.figures if won else None,
        assisted=play.assisted,
        expected=play.version,
        hasty=bool(play.unranked),
        pace=kept_pace,
    )
    play.version = SavedGame(list(play.history), play.cursor)
    if won:
        rate_first_attempt(found, won=not play.assisted, counts=not play.unranked, rater=rater)


def rate_first_attempt(found: Found, won: bool, counts: bool = True, rater: str = "") -> None:
    """The player's first finished attempt at a level, counted once: solved on their own is
    a win, after being shown a solution a loss; one played faster than a person could
    (``counts`` False) moves nothing. It moves the player's rating, and the level's only for
    a trusted player and within the allowance of the client (``rater``) for the day
    (webapp/core/ratings.py). A level not rated yet starts where ``predicted_rating``
    places it."""
    store, player = found.store, found.player
    level_start = ratings.new(predicted_rating(found.game, found.level, made_of(found)))
    wins, first = store.standing(player, found.game.name, found.ref.key)
    trusted = ratings.trusted(wins, first, store.clock())

    def rate(mine: Any, its: Any, moved_here: float, moved_today: float) -> Any:
        if not counts:
            return None, None, 0.0
        return ratings.first_attempt(mine, its, won, trusted, moved_here, moved_today)

    store.rate_attempt(
        player, found.game.name, found.ref.key, won, rate, level_start, ratings.new(), client=rater
    )


def result_view(found: Found, play: Play) -> dict[str, Any]:
    """After a win: the result beside the best possible (or best known), a replay of a
    shorter solution where one is known, and the counters the optimizer could shorten it in;
    nothing before a win."""
    if not play.solved:
        return {}
    records = level_records(found.store, found.game, found.ref.key, found.player)
    mark = benchmark_of(found, records)
    better = ""
    if mark is not None and mark.replay and play.figures.get(mark.metric, 0) > mark.value:
        better = f"{found.ref.path}?moves={mark.replay}"
    return {
        "benchmark": mark,
        "against": against(play.figures, mark),
        "better_url": better,
        "shortenable": [m for m in found.game.improves if could_shorten(play, m, mark)],
    }


def could_shorten(play: Play, metric: str, mark: Benchmark | None) -> bool:
    """Whether the optimizer could make this win shorter in ``metric``: not at one, and not
    at an optimum proved in that metric."""
    mine = play.figures.get(metric)
    if mine is not None and mine <= 1:
        return False
    return not (
        mark and mark.proved and mark.metric == metric and mine is not None and mine <= mark.value
    )
