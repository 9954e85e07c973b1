"""The sliding puzzle (8-puzzle, 15-puzzle and up to 8x8): slide tiles into the hole until
they stand in order. A move is the direction one tile slides: ``L R U D``."""

from __future__ import annotations

from collections.abc import Iterable

from webapp.games.base import Algorithm, Game, IllegalMove, MoveError
from webapp.games.sliding.level import (
    Level,
    board_text,
    from_code,
    goal,
    is_solvable,
    level_text,
    parse_collection,
    position_code,
    shuffle,
)

#: A move names the way the tile slides; the tile comes from the opposite side of the hole.
TOKENS = "LRUD"

Board = tuple[int, ...]


def source_cell(rows: int, cols: int, hole: int, move: str) -> int | None:
    """The cell of the tile that ``move`` slides into the hole, or None if there is none."""
    r, c = divmod(hole, cols)
    if move == "L":
        return hole + 1 if c + 1 < cols else None
    if move == "R":
        return hole - 1 if c > 0 else None
    if move == "U":
        return hole + cols if r + 1 < rows else None
    if move == "D":
        return hole - cols if r > 0 else None
    return None


def slide(rows: int, cols: int, board: Board, move: str) -> Board:
    """The board after one move; IllegalMove when no tile lies on that side of the hole."""
    hole = board.index(0)
    cell = source_cell(rows, cols, hole, move)
    if cell is None:
        raise IllegalMove(f"no tile can slide {_WORDS[move]}: the hole is at the edge")
    tiles = list(board)
    tiles[hole], tiles[cell] = tiles[cell], 0
    return tuple(tiles)


_WORDS = {"L": "left", "R": "right", "U": "up", "D": "down"}


class Sliding(Game[Level, Board]):
    name = "sliding"
    title = "Sliding puzzle"
    counters = ("moves",)
    default_algorithm = "pdb"

    def parse(self, text: str) -> list[Level]:
        return parse_collection(text)

    def default_for(self, level: Level) -> str:
        """Optimal where that is quick (pattern databases up to 4x4), fast beyond."""
        cells = level.rows * level.cols
        if (level.rows, level.cols) in ((3, 3), (4, 4)):
            return "pdb"
        return "idastar" if cells <= 12 else "fast"

    def level_text(self, level: Level) -> str:
        return level_text(level)

    def board_text(self, level: Level) -> str:
        return board_text(level.rows, level.cols, level.tiles)

    def start(self, level: Level) -> Board:
        return level.tiles

    def split_moves(self, moves: str) -> list[str]:
        tokens = [ch.upper() for ch in moves if not ch.isspace()]
        for index, ch in enumerate(tokens):
            if ch not in TOKENS:
                raise MoveError(
                    f"move {index + 1} is {ch!r}: "
                    "sliding-puzzle moves are L R U D, the way a tile slides into the hole"
                )
        return tokens

    def join_moves(self, tokens: Iterable[str]) -> str:
        return "".join(tokens)

    def apply(self, level: Level, state: Board, move: str) -> Board:
        token = move.upper()
        if len(token) != 1 or token not in TOKENS:
            raise MoveError(f"{move!r} is not a sliding-puzzle move (L R U D)")
        return slide(level.rows, level.cols, state, token)

    def normalize_move(self, level: Level, state: Board, move: str) -> str:
        return move.upper()

    def legal_moves(self, level: Level, state: Board) -> list[str]:
        hole = state.index(0)
        return [m for m in TOKENS if source_cell(level.rows, level.cols, hole, m) is not None]

    def is_solved(self, level: Level, state: Board) -> bool:
        return state == goal(level.rows, level.cols)

    def render_text(self, level: Level, state: Board) -> str:
        return board_text(level.rows, level.cols, state)

    def click(self, level: Level, state: Board, row: int, column: int) -> list[str]:
        """A tile in the hole's row or column slides, with every tile between it and the hole."""
        if not (0 <= row < level.rows and 0 <= column < level.cols):
            return []
        hole_row, hole_col = divmod(state.index(0), level.cols)
        if row == hole_row and column != hole_col:
            return ["L" if column > hole_col else "R"] * abs(column - hole_col)
        if column == hole_col and row != hole_row:
            return ["U" if row > hole_row else "D"] * abs(row - hole_row)
        return []

    def algorithms(self) -> dict[str, Algorithm]:
        from webapp.games.sliding.solver import ALGORITHMS

        return ALGORITHMS

    # -- helpers the web layer and the shuffles use ----------------------------------------
    def position_code(self, level: Level, state: Board | None = None) -> str:
        return position_code(level, state)

    def from_code(self, code: str) -> Level:
        return from_code(code)


GAME = Sliding()

__all__ = [
    "GAME",
    "Board",
    "Level",
    "Sliding",
    "from_code",
    "goal",
    "is_solvable",
    "position_code",
    "shuffle",
    "slide",
]
