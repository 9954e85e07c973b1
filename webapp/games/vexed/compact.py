"""A compact board encoding for the solvers: one byte per cell of the grid with a solid ring.

Byte values: 0 empty, 1 solid, 2 + letter index for a block. The ring means neighbour lookups
never leave the array. A settled board is all a search needs to store, and a move only
disturbs the two columns it touches, so settling works from the cells that moved instead of
rescanning the grid.
"""

from __future__ import annotations

from webapp.games.vexed.level import COLOURS, EMPTY, SOLID, Level
from webapp.games.vexed.rules import Board, format_move

EMPTY_BYTE = 0
SOLID_BYTE = 1
_TO_BYTE = {EMPTY: 0, SOLID: 1, **{ch: i + 2 for i, ch in enumerate(COLOURS)}}
_TO_CHAR = {value: ch for ch, value in _TO_BYTE.items()}

#: A move in the encoding: (cell index, -1 or +1).
Slide = tuple[int, int]


class Compact:
    """The encoding of one level's boards, with settling and move generation on it."""

    def __init__(self, level: Level):
        self.level = level
        self.height = level.height
        self.width = level.width
        self.stride = stride = level.width + 2
        self.size = stride * (level.height + 2)
        walls = bytearray([SOLID_BYTE]) * self.size
        for r, row in enumerate(level.rows):
            for c, ch in enumerate(row):
                if ch != SOLID:
                    walls[(r + 1) * stride + c + 1] = EMPTY_BYTE
        #: The board with every block gone: the goal.
        self.cleared = bytes(walls)
        #: Every cell a block can ever occupy, top row first.
        self.cells = tuple(i for i in range(self.size) if walls[i] == EMPTY_BYTE)

    # -- conversion -------------------------------------------------------------------------
    def encode(self, board: Board) -> bytes:
        grid = bytearray(self.cleared)
        stride = self.stride
        for r, row in enumerate(board.rows):
            for c, ch in enumerate(row):
                if ch in COLOURS:
                    grid[(r + 1) * stride + c + 1] = _TO_BYTE[ch]
        return bytes(grid)

    def decode(self, state: bytes) -> Board:
        stride = self.stride
        rows = []
        for r in range(self.height):
            start = (r + 1) * stride + 1
            rows.append("".join(_TO_CHAR[v] for v in state[start : start + self.width]))
        return Board(tuple(rows))

    @staticmethod
    def byte(ch: str) -> int:
        """The byte for a cell character."""
        return _TO_BYTE[ch]

    def token(self, slide: Slide) -> str:
        cell, step = slide
        row, column = divmod(cell, self.stride)
        return format_move(row - 1, column - 1, step)

    def row_col(self, cell: int) -> tuple[int, int]:
        row, column = divmod(cell, self.stride)
        return row - 1, column - 1

    # -- rules --------------------------------------------------------------------------------
    def children(self, state: bytes, prune: bool = True) -> list[tuple[Slide, bytes]]:
        """Every (slide, settled board) from a settled board. With ``prune``, boards where a
        colour is down to exactly one block are left out: that block can never vanish."""
        stride = self.stride
        out = []
        for cell in self.cells:
            colour = state[cell]
            if colour < 2:
                continue
            for target in (cell - 1, cell + 1):
                if state[target]:
                    continue
                grid = bytearray(state)
                grid[cell] = 0
                land = target
                while not grid[land + stride]:
                    land += stride
                grid[land] = colour
                # On a settled board the cell above an empty one is empty or solid, so the
                # landed block can only meet its colour beside or below it.
                contact = (
                    grid[land - 1] == colour
                    or grid[land + 1] == colour
                    or grid[land + stride] == colour
                )
                moved = [land]
                above = cell - stride
                if grid[above] > 1:
                    # The stack resting on the block drops one cell into the gap it leaves.
                    below = cell
                    while grid[above] > 1:
                        here = grid[below] = grid[above]
                        grid[above] = 0
                        moved.append(below)
                        if not contact and (
                            grid[below - 1] == here
                            or grid[below + 1] == here
                            or grid[below + stride] == here
                        ):
                            contact = True
                        below = above
                        above -= stride
                if not contact or self._resolve(grid, moved, prune):
                    out.append(((cell, target - cell), bytes(grid)))
        return out

    def _resolve(self, grid: bytearray, moved: list[int], prune: bool) -> bool:
        """Settle ``grid`` in place after the cells in ``moved`` received blocks; False when
        pruning and a colour is left with a single block."""
        stride = self.stride
        while True:
            doomed = set()
            # On a stable board no two blocks of a colour touch, so every new contact
            # involves a block that has just moved.
            for cell in moved:
                colour = grid[cell]
                for other in (cell - 1, cell + 1, cell - stride, cell + stride):
                    if grid[other] == colour:
                        doomed.add(cell)
                        doomed.add(other)
            if not doomed:
                return True
            colours = {grid[cell] for cell in doomed}
            for cell in doomed:
                grid[cell] = 0
            if prune:
                for colour in colours:
                    if grid.count(colour) == 1:
                        return False
            moved = []
            done: set[int] = set()
            for gap in sorted(doomed, reverse=True):
                # Lowest gaps first: compact the blocks above the gap, up to the next solid
                # cell. A column may hold several stretches between solid cells; each one
                # with a gap in it is compacted once.
                if gap in done:
                    continue
                free = gap
                cell = gap - stride
                while grid[cell] != 1:
                    done.add(cell)
                    colour = grid[cell]
                    if colour:
                        grid[free] = colour
                        grid[cell] = 0
                        moved.append(free)
                        free -= stride
                    cell -= stride

    def settle(self, state: bytes) -> bytes:
        """Settle any board (a pasted one may start unstable) with the plain rules."""
        from webapp.games.vexed.rules import settle

        return self.encode(settle(self.decode(state)))

    def has_lone_block(self, state: bytes) -> bool:
        """True when some colour has exactly one block: such a board can never be cleared."""
        return any(state.count(colour) == 1 for colour in set(state) - {0, 1})

    def blocks(self, state: bytes) -> int:
        return sum(1 for cell in self.cells if state[cell] > 1)

    def blocks_at(self, state: bytes) -> list[int]:
        """The board's squares (row * width + column) that hold a block: a heat map's count."""
        stride, width = self.stride, self.width
        return [
            (cell // stride - 1) * width + cell % stride - 1
            for cell in self.cells
            if state[cell] > 1
        ]
