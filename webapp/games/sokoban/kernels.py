"""The Sokoban solver's hot loop, compiled with numba: the box-goal matching bound.

The fast solver bounds every position it generates by the cheapest one-to-one pairing of
boxes with goals (matching.py explains the method). In CPython that assignment took most of
the solver's time on levels of twenty boxes and more; here it is the same shortest
augmenting path algorithm over a numpy table of push distances, compiled to machine code.

Compiled code is cached beside this file (``cache=True``), so only the first run on a new
install pays the compile (a few seconds).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Larger than any sum of push distances the kernel can meet (FAR times 64 x 64 boxes).
INFINITE = 1 << 62


@njit(cache=True)
def assignment(distances, cells):  # pragma: no cover - compiled
    """The least total of ``distances[cells[i], j]`` over perfect matchings of boxes i to
    goals j (int64[cells, goals], int64[boxes]); O(n^3) by shortest augmenting paths."""
    n = cells.shape[0]
    row_potential = np.zeros(n + 1, np.int64)
    column_potential = np.zeros(n + 1, np.int64)
    owner = np.zeros(n + 1, np.int64)
    via = np.zeros(n + 1, np.int64)
    slack = np.empty(n + 1, np.int64)
    used = np.empty(n + 1, np.bool_)
    for row in range(1, n + 1):
        owner[0] = row
        current = 0
        slack[:] = INFINITE
        used[:] = False
        while True:
            used[current] = True
            matched = owner[current]
            cell = cells[matched - 1]
            base = row_potential[matched]
            delta = INFINITE
            nearest = 0
            for column in range(1, n + 1):
                if not used[column]:
                    reduced = distances[cell, column - 1] - base - column_potential[column]
                    if reduced < slack[column]:
                        slack[column] = reduced
                        via[column] = current
                    if slack[column] < delta:
                        delta = slack[column]
                        nearest = column
            for column in range(n + 1):
                if used[column]:
                    row_potential[owner[column]] += delta
                    column_potential[column] -= delta
                else:
                    slack[column] -= delta
            current = nearest
            if owner[current] == 0:
                break
        while current:
            previous = via[current]
            owner[current] = owner[previous]
            current = previous
    total = 0
    for column in range(1, n + 1):
        total += distances[cells[owner[column] - 1], column - 1]
    return total


def warm_up() -> None:
    """Compile (or load from the cache) the kernel here with the argument types the solver
    gives it, so a player's first solve of a big level does not wait for the compiler."""
    table = np.array([[1, 2], [2, 1], [3, 3]], dtype=np.int64)
    assert assignment(table, np.array([0, 1], dtype=np.int64)) == 2
