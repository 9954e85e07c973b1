"""The games, by the name used everywhere (URLs, the command line, module names).

Every package under ``webapp/games/`` that exports ``GAME`` is a game. A game kept elsewhere
joins with ``register("its.module")`` (the app's ``GAME_PACKAGES`` setting does that), so a
new game is one package plus its templates and browser files, and no edit here.
"""

from __future__ import annotations

import pkgutil
import threading
from importlib import import_module

from webapp.games.base import Algorithm, Game, IllegalMove, LevelError, MoveError

#: Game name -> the module holding its ``GAME``.
_modules: dict[str, str] = {}
_loaded: dict[str, Game] = {}
_lock = threading.Lock()


def register(module_name: str) -> Game:
    """Make the ``GAME`` of ``module_name`` known by its name; the game, once registered."""
    game = import_module(module_name).GAME
    if not isinstance(game, Game):
        raise TypeError(f"{module_name}.GAME is not a Game")
    with _lock:
        known = _modules.get(game.name)
        if known is not None and known != module_name:
            raise ValueError(f"two games are called {game.name!r}: {known} and {module_name}")
        _modules[game.name] = module_name
        _loaded[game.name] = game
    return game


def _discover() -> None:
    for found in pkgutil.iter_modules(__path__):
        if found.ispkg:
            register(f"{__name__}.{found.name}")


def names() -> list[str]:
    """The games' names, in the order lists show them."""
    return [game.name for game in all_games()]


def get(name: str) -> Game:
    """The game called ``name``; KeyError if there is none."""
    return _loaded[name]


def module_of(name: str) -> str:
    """The module that holds the game's ``GAME`` (a solver process imports it by this)."""
    return _modules[name]


def all_games() -> list[Game]:
    return sorted(_loaded.values(), key=lambda game: (game.order, game.name))


_discover()

__all__ = [
    "Algorithm",
    "Game",
    "IllegalMove",
    "LevelError",
    "MoveError",
    "all_games",
    "get",
    "module_of",
    "names",
    "register",
]
