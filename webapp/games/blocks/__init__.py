"""Sliding blocks (Klotski, Quo Vadis): slide pieces one cell at a time to bring one home.

A move token is ``R,C`` and a direction ``U D L R``: the piece covering cell (R, C) of the
grid as written (0-based) slides one cell that way, e.g. ``3,1D``.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from random import Random
from typing import Any

from webapp.games.base import Algorithm, Editor, Game, IllegalMove, Made, MoveError
from webapp.games.blocks.level import Level, Position, board_text, level_text, parse_collection

DIRECTIONS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
_NAMES = {"U": "up", "D": "down", "L": "left", "R": "right"}
#: A move's direction as the move list draws it.
_ARROWS = {"U": "↑", "D": "↓", "L": "←", "R": "→"}
_TOKEN = re.compile(r"^(\d{1,2}),(\d{1,2})([UDLRudlr])$")


def parse_move(move: str) -> tuple[int, int, str]:
    """The row, column and direction of a move token; MoveError if it is not one."""
    found = _TOKEN.match(move.strip())
    if not found:
        raise MoveError(
            f"{move!r} is not a sliding-block move: write the row and column of a cell of the "
            "piece (0-based), a comma, then U, D, L or R, e.g. 3,1D"
        )
    return int(found.group(1)), int(found.group(2)), found.group(3).upper()


def _occupant(level: Level, state: Position) -> list[int]:
    """For every cell, the number of the piece on it, -1 if empty, -2 if a wall."""
    cells = [-1] * (level.width * level.height)
    for cell in level.walls:
        cells[cell] = -2
    for index, place in enumerate(state.places):
        for cell in level.cells(index, place):
            cells[cell] = index
    return cells


def _slide(level: Level, occupant: list[int], piece: int, place: int, direction: str) -> int | None:
    """The piece's new top-left cell after one step that way, or None if it is blocked."""
    dr, dc = DIRECTIONS[direction]
    shape = level.pieces[piece]
    row, column = divmod(place, level.width)
    row, column = row + dr, column + dc
    if not (
        0 <= row
        and 0 <= column
        and row + shape.height <= level.height
        and column + shape.width <= level.width
    ):
        return None
    target = row * level.width + column
    for cell in level.cells(piece, target):
        if occupant[cell] not in (-1, piece):
            return None
    return target


def _token(level: Level, place: int, direction: str) -> str:
    row, column = divmod(place, level.width)
    return f"{row},{column}{direction}"


class Blocks(Game[Level, Position]):
    name = "blocks"
    title = "Sliding blocks"
    counters = ("steps", "line_moves", "path_moves")
    heat_piece = "a piece"
    typical_length = 40  # path moves: where a new level's rating starts
    default_algorithm = "path"
    order = 40
    has_tables = True
    #: The largest position space whose distance tables a page works out.
    table_limit = 150_000

    # -- levels ---------------------------------------------------------------------------
    generates = True

    def new_level(self, settings: Mapping[str, str], rng: Random) -> Made:
        """A layout whose start is as many path moves from a win as the difficulty asks."""
        from webapp.games.blocks.generate import generate

        return generate(settings["difficulty"], rng, settings.get("title", ""), self)

    def editor(self) -> Editor:
        from webapp.games.blocks.edit import EDITOR

        return EDITOR

    def estimate(self, level: Level) -> int | None:
        """The fewest path moves, where the level's record gives it (the classics do)."""
        return level.number("moves_path")

    def recorded_optimum(self, level: Level) -> tuple[int, str] | None:
        """The fewest path moves a record gives (the classics': a Klotski layout is known by
        its path moves, the count a made level is measured in too)."""
        fewest = level.number("moves_path")
        return (fewest, "path_moves") if fewest is not None else None

    def parse(self, text: str) -> list[Level]:
        return parse_collection(text)

    def level_text(self, level: Level) -> str:
        return level_text(level)

    def board_text(self, level: Level) -> str:
        return board_text(level)

    # -- play -----------------------------------------------------------------------------
    def start(self, level: Level) -> Position:
        return Position(level.places)

    def split_moves(self, moves: str) -> list[str]:
        tokens = []
        for index, word in enumerate(moves.split()):
            try:
                row, column, direction = parse_move(word)
            except MoveError as error:
                raise MoveError(f"move {index + 1}: {error}") from None
            tokens.append(f"{row},{column}{direction}")
        return tokens

    def join_moves(self, tokens: Iterable[str]) -> str:
        return " ".join(tokens)

    def _piece_at(self, level: Level, state: Position, move: str) -> tuple[int, str, list[int]]:
        row, column, direction = parse_move(move)
        if not (row < level.height and column < level.width):
            raise IllegalMove(
                f"there is no cell {row},{column} on this board of {level.height} rows "
                f"and {level.width} columns"
            )
        occupant = _occupant(level, state)
        piece = occupant[row * level.width + column]
        if piece == -2:
            raise IllegalMove(f"cell {row},{column} is a wall")
        if piece == -1:
            raise IllegalMove(f"cell {row},{column} is empty: there is no piece to move")
        return piece, direction, occupant

    def apply(self, level: Level, state: Position, move: str) -> Position:
        piece, direction, occupant = self._piece_at(level, state, move)
        target = _slide(level, occupant, piece, state.places[piece], direction)
        if target is None:
            letter = level.pieces[piece].letter
            raise IllegalMove(f"piece {letter} cannot move {_NAMES[direction]}: it is blocked")
        places = list(state.places)
        places[piece] = target
        return Position(tuple(places))

    def normalize_move(self, level: Level, state: Position, move: str) -> str:
        """The move written with the top-left cell of the piece it moves."""
        try:
            piece, direction, _ = self._piece_at(level, state, move)
        except ValueError:
            return move
        return _token(level, state.places[piece], direction)

    def legal_moves(self, level: Level, state: Position) -> list[str]:
        occupant = _occupant(level, state)
        moves = []
        for piece, place in enumerate(state.places):
            for direction in DIRECTIONS:
                if _slide(level, occupant, piece, place, direction) is not None:
                    moves.append(_token(level, place, direction))
        return moves

    def is_solved(self, level: Level, state: Position) -> bool:
        return state.places[level.goal_piece] == level.goal_place

    def sketch(self, level: Level) -> list[str]:
        goal = level.pieces[level.goal_piece].letter
        return [
            "".join("!" if ch == goal else (ch.lower() if ch.isalpha() else ch) for ch in row)
            for row in level.grid().split("\n")
        ]

    def render_text(self, level: Level, state: Position) -> str:
        return level.goal_line() + "\n" + level.grid(state.places)

    def count(
        self, level: Level, tokens: Sequence[str], state: Position | None = None
    ) -> dict[str, int]:
        """Unit steps; line moves (runs of one piece going one way); path moves (runs of one
        piece)."""
        if state is None:
            state = self.start(level)
        line_moves = path_moves = 0
        last: tuple[int, str] | None = None
        for token in tokens:
            piece, direction, _ = self._piece_at(level, state, token)
            if last is None or last[0] != piece:
                path_moves += 1
                line_moves += 1
            elif last[1] != direction:
                line_moves += 1
            last = (piece, direction)
            state = self.apply(level, state, token)
        return {"steps": len(tokens), "line_moves": line_moves, "path_moves": path_moves}

    def describe_move(self, level: Level, state: Position, move: str) -> str:
        piece, direction, _ = self._piece_at(level, state, move)
        return f"move piece {level.pieces[piece].letter} {_NAMES[direction]} ({move})"

    def move_label(self, level: Level, state: Position, move: str) -> str:
        """The piece's letter as the board shows it, and an arrow: "A↓"."""
        piece, direction, _ = self._piece_at(level, state, move)
        return f"{level.pieces[piece].letter}{_ARROWS[direction]}"

    def click(self, level: Level, state: Position, row: int, column: int) -> list[str]:
        return []

    def announce(
        self, level: Level, before: Position | None, after: Position, move: str | None
    ) -> str:
        """ "Piece A moved right." and, on a win, "Solved!"."""
        words = []
        if move is not None and before is not None:
            piece, direction, _ = self._piece_at(level, before, move)
            words.append(f"Piece {level.pieces[piece].letter} moved {_NAMES[direction]}.")
        if self.is_solved(level, after):
            words.append("Solved!")
        return " ".join(words)

    # -- solvers --------------------------------------------------------------------------
    def algorithms(self) -> dict[str, Algorithm]:
        from webapp.games.blocks.solver import ALGORITHMS

        return ALGORITHMS

    # -- tables and what the page shows -----------------------------------------------------
    def build_tables(self, level: Level) -> dict[str, dict[int, int] | None]:
        """A distance table in each count (None for one too large)."""
        from webapp.games.blocks import solver

        limit = self.table_limit
        return {metric: solver.build_table(level, metric, limit) for metric in self.counters}

    def page_figures(self, level: Level, state: Position, tables: Any) -> dict[str, Any]:
        """The fewest moves left in each count (once the tables are built), and where each
        piece can be dragged: cell to the unit steps of a shortest way there."""
        from webapp.games.blocks import solver

        figures: dict[str, Any] = {}
        if tables is not None:
            figures["moves_left"] = {
                metric: solver.moves_left_in(tables.get(metric), level, state.places)
                for metric in self.counters
            }
        targets = {}
        for index, place in enumerate(state.places):
            row, column = divmod(place, level.width)
            routes = reachable_cells(level, state, row, column)
            targets[index] = json.dumps(
                {f"{r},{c}": " ".join(steps) for (r, c), steps in routes.items()}
            )
        figures["drag_targets"] = targets
        return figures

    def quick_hint(self, level: Level, state: Position, tables: Any) -> list[str] | None:
        """The next path move of a shortest solution, from the path-moves table."""
        from webapp.games.blocks import solver

        if tables is None:
            return None
        return solver.hint_in(tables.get("path_moves"), level, state.places, "path_moves") or None


def reachable_cells(
    level: Level, state: Position, row: int, column: int
) -> dict[tuple[int, int], list[str]]:
    """Where the piece covering (row, column) can go, as its new (top, left) with the unit
    steps of a shortest way there; empty when no piece covers that cell."""
    if not (0 <= row < level.height and 0 <= column < level.width):
        return {}
    occupant = _occupant(level, state)
    piece = occupant[row * level.width + column]
    if piece < 0:
        return {}
    start = state.places[piece]
    came: dict[int, tuple[int, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        place = queue.popleft()
        for direction in DIRECTIONS:
            target = _slide(level, occupant, piece, place, direction)
            if target is not None and target not in came:
                came[target] = (place, direction)
                queue.append(target)
    routes: dict[tuple[int, int], list[str]] = {}
    for place in came:
        if place == start:
            continue
        steps = []
        here = place
        link = came[here]
        while link is not None:
            here, direction = link
            steps.append(_token(level, here, direction))
            link = came[here]
        routes[divmod(place, level.width)] = steps[::-1]
    return routes


def distance_table(level: Level, metric: str) -> dict[int, int] | None:
    """Moves to the goal (in ``metric``) from every reachable position, keyed by
    ``position_key``; None when the space is too large. Built once, then cached."""
    from webapp.games.blocks import solver

    return solver.distance_table(level, metric)


def position_key(level: Level, state: Position) -> int:
    """The key of a position in ``distance_table``."""
    from webapp.games.blocks import solver

    return solver.position_key(level, state.places)


def moves_left(level: Level, state: Position, metric: str, build: bool = True) -> int | None:
    """The fewest moves to the goal from here; None when unknown or unreachable. With
    ``build=False`` only an already built table is used (never a wait)."""
    from webapp.games.blocks import solver

    return solver.moves_left(level, state.places, metric, build)


def hint(level: Level, state: Position, metric: str, build: bool = True) -> list[str] | None:
    """The unit steps of the next move of a shortest solution ([] when solved)."""
    from webapp.games.blocks import solver

    return solver.hint(level, state.places, metric, build)


GAME = Blocks()
