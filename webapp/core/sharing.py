"""Saving new levels, pasted, uploaded or generated, under their content addresses: the one
door every view that makes a level goes through (the paste form, the generator, the editor,
a level made to order, a stopped search's closest position played on its own).

``share_level`` gives one new level its address: a game that names its positions by a code
(``Game.has_position_codes``) needs nothing stored, every other game's level is saved.

A level's address is its content id (``catalog.content_id``), so the same board pasted twice
is one level. What a view needs checked first is checked here: the titles' length, the
site's storage budget for shared levels, and the client's own budget of bytes stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.core import catalog
from webapp.core.catalog import CUSTOM, POSITION, LevelRef
from webapp.core.errors import Refused, TooMany
from webapp.core.players import Asker
from webapp.core.text import check_text
from webapp.games.base import Game
from webapp.storage.store import Store

#: Longest title a pasted level may carry.
MAX_TITLE = 200
#: Most levels one paste keeps (a whole collection file may hold more).
MAX_LEVELS = 100
FULL = "The site holds as many shared levels as it can just now; try later."


@dataclass
class Shelf:
    """Where new levels go and what they may cost: the asker (the player who brings them,
    a pasted title kept for them, and their store), the site's budget in bytes, and
    ``charge(bytes)``, the client's own budget, which says False once it is spent (with
    ``spent``, what to say)."""

    asker: Asker
    budget_bytes: int
    charge: Callable[[int], bool]
    spent: str

    @property
    def store(self) -> Store:
        return self.asker.store

    @property
    def player(self) -> str:
        return self.asker.player


def check_titles(game: Game, levels: Sequence[Any]) -> None:
    """Refused, naming the level, when a title is too long to keep or holds a character no
    title may (webapp/core/text.py)."""
    for number, level in enumerate(levels[:MAX_LEVELS], 1):
        title = game.level_title(level)
        check_text(title, f"title of level {number}")
        if len(title) > MAX_TITLE:
            raise Refused(
                f"Level {number}'s title is {len(title):,} characters long; the most is "
                f"{MAX_TITLE}. Shorten it and paste again."
            )


def save_levels(shelf: Shelf, game: Game, levels: Sequence[Any]) -> list[tuple[LevelRef, str]]:
    """Keep the first ``MAX_LEVELS`` of ``levels``; each one's address and title. A board
    pasted before under another title keeps its first title for everyone else, and this
    player sees theirs; one kept without a title takes the first title given. TooMany when
    a budget is spent: nothing is saved then."""
    store = shelf.store
    if store.levels_bytes() > shelf.budget_bytes:
        raise TooMany(FULL)
    check_titles(game, levels)
    kept = [(catalog.content_id(game, level), game.level_text(level)) for level in levels]
    kept = kept[:MAX_LEVELS]
    # Priced by what is stored (a format may store more than was pasted), new levels only.
    adding = sum(
        len(text.encode())
        for level_id, text in kept
        if store.load_level(game.name, level_id) is None
    )
    if not shelf.charge(adding):
        raise TooMany(shelf.spent)
    saved = []
    for level, (level_id, canonical) in zip(levels, kept, strict=False):
        store.save_level(game.name, level_id, canonical)
        title = game.level_title(level)
        stored = store.load_level(game.name, level_id)
        if title and stored is not None and stored != canonical:
            if game.level_title(game.parse(stored)[0]):
                store.save_title(shelf.player, game.name, level_id, title)
            else:  # kept untitled so far (a test-play from the editor): the first title given
                store.title_level(game.name, level_id, canonical)
        saved.append((LevelRef(game.name, CUSTOM, custom_id=level_id), title))
    return saved


def share_level(shelf: Shelf, game: Game, level: Any) -> LevelRef:
    """The address of one new level: its position code, for a game whose positions have one
    (nothing is stored, nothing spent), else its content address, saved through
    ``save_levels`` (and its budgets)."""
    if game.has_position_codes:
        return LevelRef(game.name, POSITION, custom_id=game.position_code(level))
    return save_levels(shelf, game, [level])[0][0]


def address(game: Game, level_id: str) -> LevelRef:
    """The address of a level shared before, from the id ``share_level`` gave it."""
    return LevelRef(game.name, POSITION if game.has_position_codes else CUSTOM, custom_id=level_id)
