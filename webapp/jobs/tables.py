"""Tables a game precomputes for a level (``Game.build_tables``), built in a child process and
kept here, most recently used last; a table that was let go is built again when asked for."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from webapp import games
from webapp.games.base import Game

#: Seconds and megabytes a table build may take.
BUILD_SECONDS = 60
BUILD_MEMORY_MB = 1024


def build(game_module: str, game_name: str, level_text: str) -> Any:
    """Build a level's tables (in the child process)."""
    games.register(game_module)
    game = games.get(game_name)
    return game.build_tables(game.parse(level_text)[0])


class Tables:
    """The built tables of the levels players look at lately.

    ``call(function, *args)`` runs a function in a child process and returns its result
    (``Runner.call``); builds run on threads of their own, one per level at a time.
    """

    def __init__(self, call: Callable[..., Any], size: int = 8):
        self.call = call
        self.size = size
        self._kept: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._building: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def get(self, game: Game, level: Any) -> tuple[Any, bool]:
        """``(tables, pending)``: the tables if built (None when the level has none), and
        whether they are being built now (a build starts if they are not)."""
        if not game.has_tables:
            return None, False
        key = (game.name, game.board_text(level))
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key], False
            if key in self._building:
                return None, True
            self._building.add(key)
        text = game.level_text(level)
        threading.Thread(target=self._build, args=(key, game, text), daemon=True).start()
        return None, True

    def _build(self, key: tuple[str, str], game: Game, text: str) -> None:
        keep, tables = True, None
        try:
            tables = self.call(
                build,
                games.module_of(game.name),
                game.name,
                text,
                timeout=BUILD_SECONDS,
                memory_mb=BUILD_MEMORY_MB,
            )
        except (TimeoutError, RuntimeError):
            pass  # too slow or too large: the page goes without them
        except Exception:  # noqa: BLE001 - the solvers unreachable: asked again next time
            keep = False
        finally:
            with self._lock:
                self._building.discard(key)
                if keep:
                    self._kept[key] = tables
                    while len(self._kept) > self.size:
                        self._kept.popitem(last=False)
