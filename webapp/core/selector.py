"""Choosing levels by rating: a level's rating (played, or predicted where nobody has rated
it yet), "a level for me" near the player's own rating, and a collection listed by rating
or by what the player solved.

Flask-free: the store, the game and the player are arguments. Where an unrated level
starts is webapp/core/results.py's one policy (``predicted_rating``, from the same
optimum a result is measured against).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, NamedTuple

from webapp.core import catalog, ratings, results
from webapp.core.catalog import LevelRef
from webapp.core.errors import NotFound, Refused
from webapp.core.players import Asker
from webapp.core.records import collection_board
from webapp.games.base import Game
from webapp.storage.store import Store

#: How far from the player's rating "a level for me" looks, and how far "easier" and
#: "harder" move it.
BAND, SHIFT = 150.0, 200.0
SHIFTS = {"easier": -SHIFT, "harder": SHIFT}

#: How a collection page may list its levels: the orders and the filters, in the page's words.
SORTS = {"number": "in order", "easiest": "easiest first", "hardest": "hardest first"}
SHOWS = {"all": "every level", "unsolved": "unsolved only", "solved": "solved only"}

#: The ratings the store keeps for a game's levels, by level key.
Rated = Mapping[str, tuple[float, ...]]


def level_rating(game: Game, ref: LevelRef, level: Any, rated: Rated) -> float:
    """A level's rating, or where it starts when nobody has rated it yet."""
    if ref.key in rated:
        return rated[ref.key][0]
    return results.predicted_rating(game, level)


def aim(store: Store, player: str, shift: str = "") -> float:
    """The rating "a level for me" looks near: the player's own (the centre for a player
    not rated yet), moved by ``shift`` ("easier", "harder"; anything else moves nothing)."""
    mine = store.player_rating(player) if player else None
    return (mine[0] if mine else ratings.CENTRE) + SHIFTS.get(shift, 0.0)


def level_for_me(
    asker: Asker, game: Game, shift: str = "", rng: random.Random | None = None
) -> LevelRef:
    """An unsolved level of the game's collections near the player's rating, picked at
    random among those within ``BAND`` of the aim; the nearest when none is. NotFound when
    the player has solved them all."""
    store, player = asker.store, asker.player
    target = aim(store, player, shift)
    solved = store.solved(player, game.name) if player else set()
    rated = store.level_ratings(game.name)
    choices = []
    for found in catalog.collections(game.name):
        for number, level in enumerate(found.levels, 1):
            ref = LevelRef(game.name, found.slug, number)
            if ref.key not in solved:
                choices.append((abs(level_rating(game, ref, level, rated) - target), ref))
    if not choices:
        raise NotFound(f"You have solved every {game.title} level in the collections.")
    near = [ref for distance, ref in choices if distance <= BAND]
    if near:
        return (rng or random.SystemRandom()).choice(near)
    return min(choices, key=lambda choice: choice[0])[1]


class Listed(NamedTuple):
    """One level of a collection page's list."""

    number: int
    rating: int
    played: bool  # rated by players, not predicted


def collection_levels(
    store: Store, game: Game, slug: str, solved: set[str], sort: str = "number", show: str = "all"
) -> list[Listed]:
    """A collection's levels in the order (``sort``) and filter (``show``, by the level keys
    the player ``solved``) asked for, each with its rating; Refused for an order or filter
    there is not."""
    if sort not in SORTS or show not in SHOWS:
        raise Refused(
            f"A collection is listed {', '.join(SORTS)} (sort) and {', '.join(SHOWS)} (show)."
        )
    found = catalog.collection(game.name, slug)
    rated = store.level_ratings(game.name)
    entries = []
    for number, level in enumerate(found.levels if found else (), 1):
        ref = LevelRef(game.name, slug, number)
        if show != "all" and (show == "solved") != (ref.key in solved):
            continue
        entries.append((level_rating(game, ref, level, rated), number, ref.key in rated))
    if sort != "number":
        entries.sort(key=lambda entry: (entry[0] if sort == "easiest" else -entry[0], entry[1]))
    return [Listed(number, round(rating), played) for rating, number, played in entries]


def collection_view(
    asker: Asker, game: Game, slug: str, sort: str = "number", show: str = "all"
) -> dict[str, Any]:
    """What a collection page shows of the player and of everyone: the player's results,
    the levels they started and solved with help, its leaderboard, whether its levels have
    pictures, and its levels listed (``collection_levels``). NotFound for no such collection."""
    found = catalog.collection(game.name, slug)
    if found is None:
        raise NotFound(f"{game.title} has no collection called {slug!r}.")
    store, player = asker.store, asker.player
    keys = [f"{found.slug}/{n}" for n in range(1, len(found.levels) + 1)]
    mine = store.results(player, game.name, keys)
    return {
        "collection": found,
        "results": mine,
        "started": store.started(player, game.name),
        "assisted": store.assisted(player, game.name) & set(keys),
        "board": collection_board(store, game, found.slug, player),
        "sketches": bool(found.levels and game.sketch(found.levels[0]) is not None),
        "listed": collection_levels(store, game, found.slug, set(mine), sort, show),
        "sort": sort,
        "show": show,
        "sorts": SORTS,
        "shows": SHOWS,
    }
