"""The fast solver's lower bound: the min-cost matching of boxes to goals (matching.py),
cached by box set, with the children of a position bounded one row away from it."""

from __future__ import annotations

import numpy as np

from webapp.games.sokoban.board import FAR, Board, cells_of
from webapp.games.sokoban.matching import Duals, assignment_cost, reassign, solve_assignment

#: From this many boxes on, the matching bound runs compiled (kernels.py); below it the
#: CPython one is fast enough and spares a solve the seconds numba takes to load.
COMPILED_FROM = 12


class LowerBound:
    """The min-cost box-to-goal matching, cached by box set; FAR when no matching exists.

    A position's children differ from it by one box, so after ``expand`` each child's bound
    is one row away from the parent's: in CPython one augmentation from the parent's
    matching, compiled a full matching of the changed table.
    """

    def __init__(
        self,
        board: Board,
        capacity: int = 400_000,
        distances: list[tuple[int, ...]] | None = None,
    ):
        self.distances = board.distances if distances is None else distances
        self.capacity = capacity
        self.cache: dict[int, int] = {}
        self._rows: list[tuple[int, ...]] = []
        self._index: dict[int, int] = {}
        self._duals: Duals | None = None
        self._parent = 0
        self._ready = False
        self.compiled = len(self.distances[0]) >= COMPILED_FROM if self.distances else False
        if self.compiled:
            from webapp.games.sokoban.kernels import assignment

            self._assignment = assignment
            self._table = np.array(self.distances, dtype=np.int64)
            self._cells = np.zeros(0, dtype=np.int64)

    def __call__(self, boxes: int) -> int:
        cached = self.cache.get(boxes)
        if cached is not None:
            return cached
        cells = list(cells_of(boxes))
        if self.compiled:
            value = int(self._assignment(self._table, np.array(cells, dtype=np.int64)))
        else:
            value = assignment_cost([self.distances[cell] for cell in cells])
        return self._store(boxes, value)

    def _store(self, boxes: int, value: int) -> int:
        if value >= FAR:
            value = FAR
        if len(self.cache) >= self.capacity:
            self.cache.clear()
        self.cache[boxes] = value
        return value

    def expand(self, boxes: int) -> None:
        """Get ready to bound the children of ``boxes`` (the work waits for a child that is
        not in the cache)."""
        self._parent = boxes
        self._ready = False

    def _prepare(self) -> None:
        cells = list(cells_of(self._parent))
        self._index = {cell: index for index, cell in enumerate(cells)}
        if self.compiled:
            self._cells = np.array(cells, dtype=np.int64)
        else:
            self._rows = [self.distances[cell] for cell in cells]
            self._duals = None
        self._ready = True

    def child(self, child: int, box: int, target: int) -> int:
        """The bound of ``child``: the expanded position with ``box`` pushed to ``target``."""
        cached = self.cache.get(child)
        if cached is not None:
            return cached
        if not self._ready:
            self._prepare()
        row = self._index[box]
        if self.compiled:
            cells = self._cells.copy()
            cells[row] = target
            return self._store(child, int(self._assignment(self._table, cells)))
        if self._duals is None:
            _total, self._duals = solve_assignment(self._rows)
        rows = self._rows.copy()
        rows[row] = self.distances[target]
        row_potential, column_potential, owner = self._duals
        duals = (row_potential.copy(), column_potential.copy(), owner.copy())
        return self._store(child, reassign(rows, duals, row))
