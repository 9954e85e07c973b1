"""What a game's page shows beyond the common board and counters.

Each game may register a function giving extra template values for its level page and its
play partial (Vexed's par, the sliding-block optimum from here, drag targets). Anything that
needs a search (a distance table) is computed in a child process, never in this one.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

Extras = Callable[[Any, Any], dict[str, Any]]
_EXTRAS: dict[str, Extras] = {}
QuickHint = Callable[[Any, Any], "list[str] | None"]
_HINTS: dict[str, QuickHint] = {}


def extras_for(game_name: str) -> Extras | None:
    return _EXTRAS.get(game_name)


def quick_hint(game_name: str) -> QuickHint | None:
    """A way to give a hint without a search (from a table already built), if the game has one."""
    return _HINTS.get(game_name)


def register(game_name: str) -> Callable[[Extras], Extras]:
    def keep(function: Extras) -> Extras:
        _EXTRAS[game_name] = function
        return function

    return keep


# -- sliding blocks ------------------------------------------------------------------------------
#: Largest position space whose distance tables the web builds (in a child process).
BLOCKS_TABLE_LIMIT = 150_000
_building: set[str] = set()
_building_lock = threading.Lock()


def build_blocks_tables(level_text: str) -> dict[str, Any]:
    """Every convention's distance table for a level (runs in a child process)."""
    from webapp.games.blocks import GAME, solver

    level = GAME.parse(level_text)[0]
    return {
        metric: solver.distance_table(level, metric, BLOCKS_TABLE_LIMIT) for metric in GAME.counters
    }


def _start_table_build(level: Any, level_text: str) -> None:
    """Build the tables in the background (in a child process), once per level."""
    from webapp.games.blocks import solver
    from webapp.live import runner

    with _building_lock:
        if level_text in _building:
            return
        _building.add(level_text)
    work = runner()

    def build() -> None:
        try:
            tables = work.call(build_blocks_tables, level_text, timeout=60, memory_mb=1024)
        except (TimeoutError, RuntimeError):
            tables = {metric: None for metric in ("steps", "line_moves", "path_moves")}
        for metric, table in tables.items():
            solver.install_table(level, metric, table)

    threading.Thread(target=build, daemon=True).start()


@register("blocks")
def blocks_extras(found: Any, play: Any) -> dict[str, Any]:
    from webapp.games import blocks
    from webapp.games.blocks import solver

    level, state = found.level, play.state
    known: dict[str, int | None] = {}
    pending = False
    for metric in found.game.counters:
        if not solver.table_known(level, metric):
            pending = True
            continue
        known[metric] = blocks.moves_left(level, state, metric, build=False)
    if pending:
        _start_table_build(level, found.game.level_text(level))
    targets = {}
    for index, place in enumerate(state.places):
        row, column = divmod(place, level.width)
        routes = blocks.reachable_cells(level, state, row, column)
        targets[index] = json.dumps(
            {f"{r},{c}": " ".join(steps) for (r, c), steps in routes.items()}
        )
    return {"moves_left": known, "tables_pending": pending, "drag_targets": targets}


def blocks_hint(found: Any, play: Any) -> list[str] | None:
    """The next optimal path move from the distance table, when it is built (instant)."""
    from webapp.games import blocks

    return blocks.hint(found.level, play.state, "path_moves", build=False) or None


_HINTS["blocks"] = blocks_hint


# -- Vexed ------------------------------------------------------------------------------------
@register("vexed")
def vexed_extras(found: Any, play: Any) -> dict[str, Any]:
    """The boards between the last slide and the still board, for the page to animate, and
    the shortest solution's length where par is below it (a player cannot reach such a par)."""
    from webapp.catalog import known_optimum
    from webapp.games.vexed import settle_frames

    optimum = known_optimum(found.game, found.level)
    if not play.moves:
        return {"vexed_frames": [], "optimum": optimum}
    before = found.game.replay(found.level, play.moves[:-1])
    frames = settle_frames(found.level, before, play.moves[-1])[:-1]
    return {"vexed_frames": frames, "optimum": optimum}
