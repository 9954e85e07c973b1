"""Sliding-block levels: the value type and the text format (see docs/blocks-format.md).

Cells are numbered row by row on the grid as written, ``index = row * width + column``. A
piece's place is the index of its top-left cell; its shape is its height and width.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webapp.games.base import MAX_LEVEL_TEXT, LevelError

#: The largest board, in either direction.
MAX_SIDE = 8

HEADER = "klotski layout"
EMPTY = "."
WALL = "#"

#: Keys whose values must be whole numbers (the published optimum and position counts).
NUMBER_KEYS = ("moves_path", "moves_line", "moves_unit", "reachable")

_KEY_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9_ -]*?)\s*:\s*(.*)$")
_VERTICAL = {"top": 0.0, "middle": 0.5, "center": 0.5, "centre": 0.5, "bottom": 1.0}
_HORIZONTAL = {"left": 0.0, "middle": 0.5, "center": 0.5, "centre": 0.5, "right": 1.0}
GOAL_EXAMPLE = "goal: A 4 2 (the piece's letter, then the 1-based row and column of its top-left)"


@dataclass(frozen=True)
class Piece:
    """One piece: the letter it is drawn with and its size in cells."""

    letter: str
    height: int
    width: int

    @property
    def shape(self) -> tuple[int, int]:
        return (self.height, self.width)


@dataclass(frozen=True)
class Level:
    """A board, its pieces where they start, and the goal: piece ``goal_piece`` with its
    top-left cell on ``goal_place``. ``info`` keeps the record's other fields, in order."""

    width: int
    height: int
    walls: frozenset[int]
    pieces: tuple[Piece, ...]
    places: tuple[int, ...]
    goal_piece: int
    goal_place: int
    title: str = ""
    info: tuple[tuple[str, str], ...] = ()

    def cells(self, piece: int, place: int) -> list[int]:
        """The cells piece number ``piece`` covers when its top-left cell is ``place``."""
        shape = self.pieces[piece]
        return [
            place + dr * self.width + dc for dr in range(shape.height) for dc in range(shape.width)
        ]

    def grid(self, places: tuple[int, ...] | None = None) -> str:
        """The board as rows of letters, '.' and '#', for the start or the given places."""
        places = self.places if places is None else places
        cells = [EMPTY] * (self.width * self.height)
        for cell in self.walls:
            cells[cell] = WALL
        for index, place in enumerate(places):
            for cell in self.cells(index, place):
                cells[cell] = self.pieces[index].letter
        return "\n".join(
            "".join(cells[r * self.width : (r + 1) * self.width]) for r in range(self.height)
        )

    def goal_line(self) -> str:
        row, column = divmod(self.goal_place, self.width)
        return f"goal: {self.pieces[self.goal_piece].letter} {row + 1} {column + 1}"

    def number(self, key: str) -> int | None:
        """A whole-number field such as ``moves_path`` or ``reachable``, if the level has it."""
        for name, value in self.info:
            if name == key:
                return int(value)
        return None


@dataclass(frozen=True)
class Position:
    """Where each piece stands: the top-left cell of every piece, in the level's order."""

    places: tuple[int, ...]


def _is_comment(line: str) -> bool:
    # Grid rows may start with '#' (a wall), so a comment is '#' alone or '#' then a space.
    return line == "#" or line.startswith(("# ", "#\t"))


def _normal_key(key: str) -> str:
    return re.sub(r"[\s-]+", "_", key.strip().lower())


class _Record:
    """The lines of one layout while it is being read."""

    def __init__(self, line: int):
        self.line = line
        self.fields: dict[str, tuple[str, int, int]] = {}  # key -> (value, line, value column)
        self.order: list[str] = []
        self.rows: list[tuple[int, int, str]] = []  # (line, column of the first cell, text)
        self.grid_done = False

    def add_field(self, key: str, value: str, line: int, column: int) -> None:
        if key == "title":
            key = "name"
        if key in self.fields:
            raise LevelError(f"a second '{key}:' line in one layout", line, 1)
        self.fields[key] = (value, line, column)
        self.order.append(key)


def parse_collection(text: str) -> list[Level]:
    """Every layout in a text: records separated by blank lines, '# ' comment lines."""
    if len(text) > MAX_LEVEL_TEXT:
        raise LevelError(f"the text is longer than {MAX_LEVEL_TEXT} characters")
    levels: list[Level] = []
    record: _Record | None = None
    # outside: between records; header: reading key lines; grid: reading rows; after: keys after
    # the rows (a pasted grid may be followed by its goal line).
    mode = "outside"

    def finish() -> None:
        nonlocal record, mode
        if record is not None:
            levels.append(_build(record))
        record = None
        mode = "outside"

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        indent = len(raw) - len(raw.lstrip())
        if not line:
            if mode in ("grid", "after"):
                finish()
            continue
        if _is_comment(line):
            continue
        if line.lower() == HEADER:
            if mode == "header" and record is not None and (record.fields or record.rows):
                raise LevelError(
                    "a new layout starts before the previous one has its grid", number, 1
                )
            finish()
            record = _Record(number)
            mode = "header"
            continue
        if record is None:
            record = _Record(number)
            mode = "header"
        key_line = _KEY_LINE.match(line)
        if key_line:
            if mode == "grid":
                mode = "after"
            colon = line.index(":")
            after = line[colon + 1 :]
            value_column = indent + colon + 2 + len(after) - len(after.lstrip())
            value = key_line.group(2).strip()
            record.add_field(_normal_key(key_line.group(1)), value, number, value_column)
            continue
        if line == "--":
            if mode != "header":
                raise LevelError("'--' must come before the grid rows", number, 1)
            mode = "grid"
            continue
        if mode == "after":
            raise LevelError(
                "a grid row after the layout's key lines: keep the rows together", number, 1
            )
        mode = "grid"
        record.rows.append((number, indent + 1, line))
    if mode == "header" and record is not None and not record.rows:
        raise LevelError("this layout has no grid rows", record.line, 1)
    finish()
    if not levels:
        raise LevelError(
            "no layout found: write the grid (one letter per piece, '.' empty, '#' wall) "
            "and a line such as " + GOAL_EXAMPLE
        )
    return levels


def _build(record: _Record) -> Level:
    rows = record.rows
    if not rows:
        raise LevelError("this layout has no grid rows", record.line, 1)
    first_line = rows[0][0]
    height = len(rows)
    width = len(rows[0][2])
    widest = max(len(text) for _, _, text in rows)
    if height > MAX_SIDE or widest > MAX_SIDE:
        raise LevelError(
            f"the board is {widest} wide and {height} high; "
            f"the largest board is {MAX_SIDE}×{MAX_SIDE}",
            first_line,
            1,
        )
    for line, column, text in rows:
        if len(text) != width:
            raise LevelError(
                f"this row has {len(text)} cells but the first row has {width}: "
                "the board must be a rectangle",
                line,
                column + min(len(text), width),
            )
    letters: dict[str, list[int]] = {}
    walls: set[int] = set()
    where: dict[int, tuple[int, int]] = {}  # cell -> (line, column) in the text
    for r, (line, column, text) in enumerate(rows):
        for c, ch in enumerate(text):
            cell = r * width + c
            where[cell] = (line, column + c)
            if ch == WALL:
                walls.add(cell)
            elif ch == EMPTY:
                continue
            elif ch.isascii() and ch.isalpha():
                letters.setdefault(ch, []).append(cell)
            else:
                raise LevelError(
                    f"unknown character {ch!r}: a grid holds one letter (A-Z, a-z) per piece, "
                    "'.' for an empty cell and '#' for a wall",
                    line,
                    column + c,
                )
    pieces: list[Piece] = []
    places: list[int] = []
    for letter, cells in letters.items():
        piece, place = _piece(letter, cells, width, where)
        pieces.append(piece)
        places.append(place)

    name = record.fields.get("name", ("", 0, 0))[0]
    if "goal" not in record.fields:
        raise LevelError("no goal: add a line such as " + GOAL_EXAMPLE, record.line, 1)
    info: list[tuple[str, str]] = []
    for key in record.order:
        value, line, column = record.fields[key]
        if key in ("name", "goal"):
            continue
        if key in NUMBER_KEYS and not value.isdecimal():
            raise LevelError(f"'{key}:' needs a whole number, not {value!r}", line, column)
        info.append((key, value))
    goal_piece, goal_place = _goal(record.fields["goal"], pieces, width, height, walls)
    return Level(
        width=width,
        height=height,
        walls=frozenset(walls),
        pieces=tuple(pieces),
        places=tuple(places),
        goal_piece=goal_piece,
        goal_place=goal_place,
        title=name,
        info=tuple(info),
    )


def _piece(
    letter: str, cells: list[int], width: int, where: dict[int, tuple[int, int]]
) -> tuple[Piece, int]:
    """The piece drawn by ``cells``, refused unless they form one filled rectangle."""
    cell_set = set(cells)
    region = {cells[0]}
    todo = [cells[0]]
    while todo:
        cell = todo.pop()
        r, c = divmod(cell, width)
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            neighbour = nr * width + nc
            if 0 <= nc < width and neighbour in cell_set and neighbour not in region:
                region.add(neighbour)
                todo.append(neighbour)
    if len(region) != len(cell_set):
        stray = min(cell_set - region)
        first_line, first_column = where[cells[0]]
        raise LevelError(
            f"letter {letter} is used in two separate places (also at line {first_line}, "
            f"column {first_column}): each piece needs its own letter",
            *where[stray],
        )
    rows = [cell // width for cell in cells]
    columns = [cell % width for cell in cells]
    top, left = min(rows), min(columns)
    height, piece_width = max(rows) - top + 1, max(columns) - left + 1
    if height * piece_width != len(cells):
        missing = next(
            (top + dr) * width + left + dc
            for dr in range(height)
            for dc in range(piece_width)
            if (top + dr) * width + left + dc not in cell_set
        )
        raise LevelError(
            f"piece {letter} is not a filled rectangle: this cell, inside its "
            f"{height}×{piece_width} outline, is not {letter}",
            *where[missing],
        )
    return Piece(letter, height, piece_width), top * width + left


def _goal(
    field: tuple[str, int, int],
    pieces: list[Piece],
    width: int,
    height: int,
    walls: set[int],
) -> tuple[int, int]:
    """The goal's piece index and place, from 'A 4 2', 'A 4,2' or 'A bottom-middle'."""
    value, line, column = field
    parts = value.replace(",", " ").split()
    if not parts:
        raise LevelError("the goal is empty: write " + GOAL_EXAMPLE, line, column)
    letter = parts[0]
    index = next((i for i, piece in enumerate(pieces) if piece.letter == letter), None)
    if index is None:
        raise LevelError(
            f"the goal names piece {letter!r}, but the board has no piece {letter!r}",
            line,
            column,
        )
    piece = pieces[index]
    if len(parts) == 3 and parts[1].isdecimal() and parts[2].isdecimal():
        row, col = int(parts[1]) - 1, int(parts[2]) - 1
    elif len(parts) == 2 and not parts[1].isdecimal():
        row, col = _named_place(parts[1], piece, width, height, walls, line, column)
    else:
        raise LevelError(
            f"cannot read the goal {value!r}: write {GOAL_EXAMPLE}, or 'goal: A bottom-middle'",
            line,
            column,
        )
    size = f"{piece.height}×{piece.width}"
    if row < 0 or col < 0 or row + piece.height > height or col + piece.width > width:
        raise LevelError(
            f"the goal puts piece {letter} ({size}) at row {row + 1}, column {col + 1}, "
            f"which runs off the {width}-wide, {height}-high board",
            line,
            column,
        )
    for dr in range(piece.height):
        for dc in range(piece.width):
            if (row + dr) * width + col + dc in walls:
                raise LevelError(
                    f"the goal puts piece {letter} ({size}) onto the wall at row "
                    f"{row + dr + 1}, column {col + dc + 1}",
                    line,
                    column,
                )
    return index, row * width + col


def _named_place(
    name: str,
    piece: Piece,
    width: int,
    height: int,
    walls: set[int],
    line: int,
    column: int,
) -> tuple[int, int]:
    """A place such as 'bottom-middle', within the rows and columns that are not all wall."""
    vertical, _, horizontal = name.lower().partition("-")
    horizontal = horizontal or "middle"
    if vertical not in _VERTICAL or horizontal not in _HORIZONTAL:
        raise LevelError(
            f"unknown goal place {name!r}: use top, middle or bottom, a dash, then left, "
            "middle or right (e.g. bottom-middle)",
            line,
            column,
        )
    open_cells = [cell for cell in range(width * height) if cell not in walls]
    if not open_cells:
        raise LevelError("the board is all wall", line, column)
    rows = [cell // width for cell in open_cells]
    columns = [cell % width for cell in open_cells]
    top, bottom, left, right = min(rows), max(rows), min(columns), max(columns)
    spare_rows = bottom - top + 1 - piece.height
    spare_columns = right - left + 1 - piece.width
    row = top + _VERTICAL[vertical] * spare_rows
    col = left + _HORIZONTAL[horizontal] * spare_columns
    if row != int(row) or col != int(col):
        raise LevelError(
            f"piece {piece.letter} cannot stand exactly at the {name} of this board: "
            "give its row and column instead",
            line,
            column,
        )
    return int(row), int(col)


def level_text(level: Level) -> str:
    """A level as one record of the collection format; parsing it gives the level back."""
    lines = ["Klotski layout"]
    if level.title:
        lines.append(f"name: {level.title}")
    lines.extend(f"{key}: {value}" for key, value in level.info)
    lines.append(level.goal_line())
    lines.append("--")
    lines.append(level.grid())
    return "\n".join(lines)


def board_text(level: Level) -> str:
    """The goal line and the starting grid: the puzzle itself, without its name or notes."""
    return level.goal_line() + "\n" + level.grid()
