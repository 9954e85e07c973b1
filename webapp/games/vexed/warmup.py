"""Readying Vexed's compiled kernels before a player's first solve needs them."""

from __future__ import annotations

from webapp.games.vexed.level import parse_collection
from webapp.games.vexed.rules import Board, settle
from webapp.games.vexed.solver import solve_fast
from webapp.search import Limits, Monitor


def warm_up() -> None:
    """Compile (or load from the cache) every kernel through the solver that calls them, on a
    small real level, so a player's first solve does not wait for the compiler."""
    rows = ["#######", "#a___a#", "#######"]  # two blocks three cells apart: 3 moves
    level = parse_collection("Vexed level\ntitle: warm-up\n--\n" + "\n".join(rows) + "\n")[0]
    result = solve_fast(level, settle(Board(level.rows)), Monitor(Limits(), None))
    assert result.status == "solved", result
