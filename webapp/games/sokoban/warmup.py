"""Readying Sokoban's compiled kernels before a player's first solve needs them."""

from __future__ import annotations

import numpy as np

from webapp.games.sokoban.board import Board
from webapp.games.sokoban.compiled import CompiledSearch, SearchConfig
from webapp.games.sokoban.kernels import assignment
from webapp.games.sokoban.level import parse_collection
from webapp.games.sokoban.packing import packing_order
from webapp.games.sokoban.position import Position
from webapp.games.sokoban.solver import _start


def warm_up() -> None:
    """Compile (or load from the cache) the kernels with the argument types the solver gives
    them, so a player's first solve does not wait for the compiler."""
    table = np.array([[1, 2], [2, 1], [3, 3]], dtype=np.int64)
    assert assignment(table, np.array([0, 1], dtype=np.int64)) == 2
    # The compiled forward search, on a level small enough to solve at once.
    level = parse_collection("#######\n#.$ $.#\n#  @  #\n#######")[0]
    board = Board(level)
    start = Position(level.player, level.boxes)
    search = CompiledSearch(board, start, SearchConfig(10, memory_mb=16))
    assert _start(board, start)[2] in search  # compiles the lookup
    phases = packing_order(board, start)  # compiles the pulls
    assert phases == [sorted(level.goals)]
    plan = CompiledSearch(board, start, SearchConfig(1, memory_mb=16, deadlocks=2, phases=phases))
    for running in (search.search(), plan.search()):
        try:
            while True:
                next(running)
        except StopIteration as finished:
            assert finished.value[0]
