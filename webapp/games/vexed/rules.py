"""The rules of Vexed, written plainly: slide, fall, vanish, repeat; and the move notation.

A move slides one block one cell left or right into an empty cell. Then, until nothing changes,
every unsupported block falls as far as it can, and every block touching a block of its own
colour (up, down, left or right) vanishes, all at once. These functions are the reference the
fast solver encoding is tested against; they favour clarity over speed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webapp.games.base import IllegalMove, MoveError
from webapp.games.vexed.level import COLOURS, EMPTY, SOLID

_MOVE = re.compile(r"^(\d{1,3}),(\d{1,3})([<>])$")


@dataclass(frozen=True)
class Board:
    """A Vexed position: the rows of the grid as written, with the blocks where they are now."""

    rows: tuple[str, ...]

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    def cell(self, row: int, column: int) -> str:
        """The cell's character; outside the grid is solid."""
        if 0 <= row < self.height and 0 <= column < self.width:
            return self.rows[row][column]
        return SOLID

    def blocks(self) -> int:
        return sum(1 for row in self.rows for ch in row if ch in COLOURS)

    def text(self) -> str:
        return "\n".join(self.rows)


Grid = list[list[str]]


def parse_move(move: str) -> tuple[int, int, int]:
    """(row, column, -1 or +1) from ``R,C<`` or ``R,C>``; MoveError otherwise."""
    match = _MOVE.match(move.strip())
    if not match:
        raise MoveError(
            f"{move!r} is not a Vexed move: write the block's row and column and a direction, "
            "such as 3,4< or 3,4>"
        )
    return int(match.group(1)), int(match.group(2)), -1 if match.group(3) == "<" else 1


def format_move(row: int, column: int, step: int) -> str:
    return f"{row},{column}{'<' if step < 0 else '>'}"


def _grid(board: Board) -> Grid:
    return [list(row) for row in board.rows]


def _board(grid: Grid) -> Board:
    return Board(tuple("".join(row) for row in grid))


def _is_empty(grid: Grid, row: int, column: int) -> bool:
    return 0 <= row < len(grid) and 0 <= column < len(grid[0]) and grid[row][column] == EMPTY


def slide(board: Board, move: str) -> Board:
    """The board right after the slide, before anything falls; IllegalMove if not allowed."""
    row, column, step = parse_move(move)
    if not (0 <= row < board.height and 0 <= column < board.width):
        raise IllegalMove(f"{move}: there is no cell {row},{column} on this board")
    if board.rows[row][column] not in COLOURS:
        raise IllegalMove(f"{move}: there is no block at {row},{column}")
    grid = _grid(board)
    if not _is_empty(grid, row, column + step):
        side = "left" if step < 0 else "right"
        raise IllegalMove(f"{move}: the cell to the {side} of the block is not empty")
    grid[row][column + step] = grid[row][column]
    grid[row][column] = EMPTY
    return _board(grid)


def fall(board: Board) -> Board:
    """Every unsupported block falls until it rests on something solid or another block."""
    grid = _grid(board)
    for column in range(board.width):
        # Work upwards so each block lands on the blocks below it that have already fallen.
        for row in range(board.height - 2, -1, -1):
            if grid[row][column] not in COLOURS:
                continue
            target = row
            while _is_empty(grid, target + 1, column):
                target += 1
            if target != row:
                grid[target][column] = grid[row][column]
                grid[row][column] = EMPTY
    return _board(grid)


def vanish(board: Board) -> Board:
    """Every block touching a block of its own colour vanishes, all at the same time."""
    grid = _grid(board)
    doomed = []
    for row in range(board.height):
        for column in range(board.width):
            colour = grid[row][column]
            if colour not in COLOURS:
                continue
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if board.cell(row + dr, column + dc) == colour:
                    doomed.append((row, column))
                    break
    for row, column in doomed:
        grid[row][column] = EMPTY
    return _board(grid)


def settle_frames_from(board: Board) -> list[Board]:
    """The boards after each fall and each vanishing until the board is stable (maybe none)."""
    frames = []
    while True:
        fallen = fall(board)
        if fallen != board:
            frames.append(fallen)
            board = fallen
        cleared = vanish(board)
        if cleared == board:
            return frames
        frames.append(cleared)
        board = cleared


def settle(board: Board) -> Board:
    """The stable board that ``board`` turns into."""
    frames = settle_frames_from(board)
    return frames[-1] if frames else board


def board_frames(board: Board, move: str) -> list[Board]:
    """The board after the slide, then after each fall and each vanishing; the last is stable."""
    slid = slide(board, move)
    return [slid, *settle_frames_from(slid)]


def legal_moves(board: Board) -> list[str]:
    """Every slide allowed on this board, row by row, left before right."""
    moves = []
    for row in range(board.height):
        for column in range(board.width):
            if board.rows[row][column] not in COLOURS:
                continue
            for step in (-1, 1):
                if board.cell(row, column + step) == EMPTY:
                    moves.append(format_move(row, column, step))
    return moves


def is_cleared(board: Board) -> bool:
    return not any(ch in COLOURS for row in board.rows for ch in row)
