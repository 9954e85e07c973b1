"""The sliding puzzle's solvers, by name: the table ``GAME.algorithms()`` hands out."""

from __future__ import annotations

from webapp.games.base import Algorithm
from webapp.games.sliding.fast import solve_fast as run_fast
from webapp.games.sliding.pdb import solve_with_databases as run_pdb
from webapp.games.sliding.solver import run_astar, run_idastar

ALGORITHMS: dict[str, Algorithm] = {
    "astar": Algorithm(
        "astar",
        "A* on the sum of Manhattan distances, re-queueing a board reached by a shorter path; "
        "optimal, memory-hungry beyond the 8-puzzle",
        "moves",
        True,
        run_astar,
        steps=True,
        label="A* with the tiles' distances home (fewest moves, proved)",
    ),
    "idastar": Algorithm(
        "idastar",
        "IDA* on Manhattan distance plus linear conflict; optimal, memory linear in depth",
        "moves",
        True,
        run_idastar,
        steps=True,
        label="IDA*, deepening, with the tiles' distances and conflicts (fewest moves, proved)",
    ),
    "pdb": Algorithm(
        "pdb",
        "IDA* on additive pattern databases (6-6-3, max with the mirror image) for 4x4, an "
        "exact table for 3x3; optimal; other boards of up to 12 cells are searched by IDA* "
        "with linear conflicts, larger ones are refused (use fast)",
        "moves",
        True,
        run_pdb,
        label="IDA* with pattern databases (fewest moves, proved)",
    ),
    "fast": Algorithm(
        "fast",
        "Not optimal, for any board up to 8x8: places the top rows and left columns a group "
        "at a time by bounded searches, then finishes the last small board optimally",
        "moves",
        False,
        run_fast,
        label="a few tiles at a time (quick, not the fewest)",
    ),
}
