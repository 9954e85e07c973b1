"""The heat map of a search: how often each square of the board held a counted piece (a
box, a hole, a block: each game says which, ``Game.heat_piece``) across the positions the
search has looked at so far.

A search counts where it looks at its positions: a compiled kernel adds to ``Heat.counts``
in place, one per piece on each square of the position it expands, and one to the last slot
(the positions counted); a search in Python calls ``Heat.add``. Squares are numbered the
search's own way (a padded grid, the open cells, ...); ``squares`` maps each to the board's
square as the game draws it, read only when a progress report is made, so the count itself
stays one add per piece.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HeatMap:
    """A heat map as the page gets it: ``counts`` row by row over the board's ``rows`` x
    ``cols`` squares, and the ``positions`` whose pieces were counted. The sum of ``counts``
    is the pieces counted over those positions: ``positions`` x boxes where boxes never
    vanish."""

    rows: int
    cols: int
    counts: tuple[int, ...]
    positions: int

    @property
    def pieces(self) -> int:
        return sum(self.counts)

    @property
    def hottest(self) -> int:
        return max(self.counts, default=0)


class Heat:
    """The counts a running search adds to: ``counts[i]`` for the search's square ``i``,
    ``counts[-1]`` the positions counted (an int64 numpy array, which a kernel takes as it
    is). ``squares[i]`` is the board's square (row * cols + column) of the search's square
    ``i``, or -1 for one the board does not show."""

    def __init__(self, rows: int, cols: int, squares: Sequence[int] | None = None):
        import numpy as np  # only a search process makes one: the web server never does

        self.np = np
        self.rows, self.cols = rows, cols
        where = list(range(rows * cols)) if squares is None else list(squares)
        self.squares = np.array(where, np.int64)
        self.shown = self.squares >= 0
        self.counts = np.zeros(len(where) + 1, np.int64)
        #: What a search in Python adds (a list: a numpy element costs more to add to).
        self.plain = [0] * (len(where) + 1)
        #: Called before the counts are read: a search that notes its positions and counts
        #: them in batches adds the batch it holds.
        self.pending: list[Callable[[], None]] = []

    def add(self, squares: Iterable[int]) -> None:
        """One position looked at, with a piece on each of ``squares`` (the search's own
        numbering)."""
        plain = self.plain
        for square in squares:
            plain[square] += 1
        plain[-1] += 1

    def snapshot(self) -> HeatMap:
        for count in self.pending:
            count()
        counts = self.counts
        positions = int(counts[-1]) + self.plain[-1]
        if self.plain[-1]:
            counts = counts + self.np.array(self.plain, self.np.int64)
        # Each of the search's squares is a different square of the board: one assignment.
        board = self.np.zeros(self.rows * self.cols, self.np.int64)
        board[self.squares[self.shown]] = counts[:-1][self.shown]
        return HeatMap(self.rows, self.cols, tuple(board.tolist()), positions)


#: What a kernel takes when nothing is counted: a search without a heat map passes this and
#: ``False``, and its loop adds nothing.
def no_heat() -> Any:
    import numpy as np

    return np.zeros(1, np.int64)
