"""The sliding puzzle (8-puzzle, 15-puzzle and up to 8x8): slide tiles into the hole until
they stand in order. A move is the direction one tile slides: ``L R U D``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from random import Random

from webapp.games.base import Algorithm, Editor, Game, IllegalMove, LevelError, Made, MoveError
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
    heat_piece = "the hole"
    typical_length = 30  # moves: where a new level's rating starts
    default_algorithm = "pdb"
    order = 20
    has_position_codes = True
    has_start_form = True
    uses_pictures = True
    has_disk_tables = True
    #: The board sizes the new-game form offers, rows by columns.
    sizes = ((3, 3), (4, 4), (5, 5), (6, 6), (3, 4), (4, 5), (8, 8))
    #: The longest random walk an "easy" new game may ask for.
    max_walk = 1000

    def editor(self) -> Editor:
        from webapp.games.sliding.edit import SlidingEditor

        return SlidingEditor(self)

    def parse(self, text: str) -> list[Level]:
        return parse_collection(text)

    def known_optimum(self, level: Level) -> int | None:
        return level.known_optimal

    def estimate(self, level: Level) -> int | None:
        """Each tile's distance home, added up (Manhattan): no solution is shorter."""
        from webapp.games.sliding.heuristics import manhattan

        return manhattan(level.rows, level.cols, level.tiles)

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

    def sketch(self, level: Level) -> list[str]:
        cols = level.cols
        cells = ["." if tile == 0 else "T" for tile in level.tiles]
        return ["".join(cells[r * cols : (r + 1) * cols]) for r in range(level.rows)]

    def render_text(self, level: Level, state: Board) -> str:
        return board_text(level.rows, level.cols, state)

    def announce(self, level: Level, before: Board | None, after: Board, move: str | None) -> str:
        """ "Tile 5 moved left. 10 of 15 tiles in place." """
        words = []
        if move is not None and before is not None:
            moved = before[after.index(0)]
            way = {"L": "left", "R": "right", "U": "up", "D": "down"}[move.upper()]
            words.append(f"Tile {moved} moved {way}.")
        tiles = len(after) - 1
        home = sum(tile == i + 1 for i, tile in enumerate(after))
        words.append(f"{home} of {tiles} tiles in place.")
        if self.is_solved(level, after):
            words.append("Solved!")
        return " ".join(words)

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
        from webapp.games.sliding.algorithms import ALGORITHMS

        return ALGORITHMS

    # -- optional hooks ---------------------------------------------------------------------
    def position_code(self, level: Level, state: Board | None = None) -> str:
        return position_code(level, state)

    def from_code(self, code: str) -> Level:
        return from_code(code)

    def position_title(self, level: Level) -> str:
        return f"{level.rows}×{level.cols} puzzle"

    def level_from_form(self, settings: Mapping[str, str], rng: Random) -> Level:
        """A shuffled board: ``rows`` and ``cols`` from 2 to 8; ``mode`` "moves" walks
        ``moves`` random moves from the solved board (an easy game), else fully shuffled."""
        rows, cols = _size(settings, "rows"), _size(settings, "cols")
        walk = None
        if settings.get("mode") == "moves":
            text = str(settings.get("moves", ""))
            if not text.isdecimal() or not 1 <= int(text) <= self.max_walk:
                raise LevelError(f"The number of random moves must be from 1 to {self.max_walk}.")
            walk = int(text)
        return from_code(position_code((rows, cols), shuffle(rows, cols, rng, walk)))

    generates = True
    made_sizes = ("4x4", "3x3", "5x5")

    def new_level(self, settings: Mapping[str, str], rng: Random) -> Made:
        """A position exactly as many moves from solved as the difficulty asks, proved."""
        from webapp.games.sliding.generate import generate

        size = settings.get("size") or self.made_sizes[0]
        return generate(settings["difficulty"], rng, settings.get("title", ""), self, size)

    def board_shape(self, level: Level) -> tuple[int, int]:
        return (level.rows, level.cols)

    def use_disk_tables(self, folder: Path) -> None:
        from webapp.games.sliding import pdb

        pdb.use_folder(folder)

    def disk_tables_ready(self, folder: Path) -> bool:
        from webapp.games.sliding import pdb

        return pdb.databases_ready(4, 4, folder)

    def build_disk_tables(self, folder: Path) -> bool:
        from webapp.games.sliding import pdb

        return pdb.build_databases_once(folder)

    def warm_up(self) -> None:
        from webapp.games.sliding.warmup import warm_up

        warm_up()


def _size(settings: Mapping[str, str], name: str) -> int:
    value = str(settings.get(name, ""))
    if not value.isdecimal() or not 2 <= int(value) <= 8:
        raise LevelError(f"The board's {name} must be a number from 2 to 8.")
    return int(value)


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
