"""The games, by the name used everywhere (URLs, the command line, module names)."""

from __future__ import annotations

from importlib import import_module

from webapp.games.base import Algorithm, Game, IllegalMove, LevelError, MoveError

#: Game name -> module holding ``GAME``; the order is the order shown on the home page.
_MODULES = {
    "sokoban": "webapp.games.sokoban",
    "sliding": "webapp.games.sliding",
    "vexed": "webapp.games.vexed",
    "blocks": "webapp.games.blocks",
}

_loaded: dict[str, Game] = {}


def names() -> list[str]:
    return list(_MODULES)


def get(name: str) -> Game:
    """The game called ``name``; KeyError if there is none."""
    if name not in _MODULES:
        raise KeyError(name)
    if name not in _loaded:
        _loaded[name] = import_module(_MODULES[name]).GAME
    return _loaded[name]


def all_games() -> list[Game]:
    return [get(name) for name in _MODULES]


__all__ = [
    "Algorithm",
    "Game",
    "IllegalMove",
    "LevelError",
    "MoveError",
    "all_games",
    "get",
    "names",
]
