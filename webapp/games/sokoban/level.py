"""Sokoban levels: the value type and the three text dialects (XSB, letters, digits), plus RLE.

Cells are numbered row by row, ``index = row * width + column``. The outside of the walls is
not floor: ``floor`` holds only the squares inside the player's walls (or holding a box or
goal), and a level whose player can walk out of the grid is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from webapp.games.base import LevelError

#: A level larger than this in either direction is refused (the largest published ones fit).
MAX_SIDE = 64

XSB_CHARS = frozenset("# -_.$*@+")
LETTER_CHARS = frozenset("#.OXG@ ")
DIGIT_CHARS = frozenset("0123456")

# What each dialect's character means: (wall, goal, box, player).
_XSB = {
    "#": (1, 0, 0, 0),
    " ": (0, 0, 0, 0),
    "-": (0, 0, 0, 0),
    "_": (0, 0, 0, 0),
    ".": (0, 1, 0, 0),
    "$": (0, 0, 1, 0),
    "*": (0, 1, 1, 0),
    "@": (0, 0, 0, 1),
    "+": (0, 1, 0, 1),
}
_LETTERS = {
    "#": (1, 0, 0, 0),
    ".": (0, 0, 0, 0),
    " ": (0, 0, 0, 0),
    "O": (0, 0, 1, 0),
    "X": (0, 1, 0, 0),
    "G": (0, 1, 1, 0),
    "@": (0, 0, 0, 1),
}
_DIGITS = {
    "0": (0, 0, 0, 0),
    "1": (1, 0, 0, 0),
    "2": (0, 1, 0, 0),
    "3": (0, 0, 1, 0),
    "4": (0, 0, 0, 1),
    "5": (0, 1, 1, 0),
    "6": (0, 1, 0, 1),
}
DIALECTS = {"xsb": _XSB, "letters": _LETTERS, "digits": _DIGITS}

_META = re.compile(r"^([A-Za-z][A-Za-z _-]{0,30}):\s*(.*)$")
_RLE_RUN = re.compile(r"(\d+)(\D)")


@dataclass(frozen=True)
class Level:
    width: int
    height: int
    walls: frozenset[int]
    floor: frozenset[int]
    goals: frozenset[int]
    boxes: frozenset[int]
    player: int
    title: str = ""
    dialect: str = "xsb"

    @cached_property
    def cell_kinds(self) -> tuple[str, ...]:
        """Each cell's fixed kind ("wall", "floor", "floor goal" or "outside"), for drawing."""
        kinds = []
        for i in range(self.width * self.height):
            if i in self.walls:
                kinds.append("wall")
            elif i in self.floor:
                kinds.append("floor goal" if i in self.goals else "floor")
            else:
                kinds.append("outside")
        return tuple(kinds)

    def row_col(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.width)

    def xsb(self, player: int | None = None, boxes: frozenset[int] | None = None) -> str:
        """The board as XSB text, for the start or for the given position."""
        player = self.player if player is None else player
        boxes = self.boxes if boxes is None else boxes
        rows = []
        for r in range(self.height):
            row = []
            for c in range(self.width):
                i = r * self.width + c
                if i in self.walls:
                    row.append("#")
                elif i == player:
                    row.append("+" if i in self.goals else "@")
                elif i in boxes:
                    row.append("*" if i in self.goals else "$")
                elif i in self.goals:
                    row.append(".")
                else:
                    row.append(" ")
            rows.append("".join(row).rstrip())
        return "\n".join(rows)


def _counted(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _expand_rle(line: str) -> str:
    return _RLE_RUN.sub(lambda m: m.group(2) * min(int(m.group(1)), MAX_SIDE + 1), line)


def _detect_dialect(rows: list[tuple[int, str]]) -> str:
    """Name the dialect from characters only one dialect uses; refuse mixtures."""
    chars = set("".join(text for _, text in rows))
    if chars and chars <= DIGIT_CHARS:
        return "digits"
    xsb_marks = chars & set("$*+-_")
    letter_marks = chars & set("OXG")
    if xsb_marks and letter_marks:
        line, text = next((n, text) for n, text in rows if set(text) & letter_marks)
        column = next(c for c, ch in enumerate(text, 1) if ch in letter_marks)
        raise LevelError(
            "the level mixes XSB characters ("
            + " ".join(sorted(xsb_marks))
            + ") with letters-dialect characters ("
            + " ".join(sorted(letter_marks))
            + "); use one dialect",
            line,
            column,
        )
    return "letters" if letter_marks else "xsb"


def parse_board(rows: list[tuple[int, str]], title: str = "") -> Level:
    """Build a Level from its rows, each (1-based line number in the file, text)."""
    first_line = rows[0][0]
    if len(rows) > MAX_SIDE:
        raise LevelError(
            f"the level has {len(rows)} rows; the most a level may have is {MAX_SIDE}",
            first_line,
        )
    expanded: list[tuple[int, str]] = []
    rle = any(re.search(r"\d\D", text) or "|" in text for _, text in rows) and not all(
        set(text) <= DIGIT_CHARS for _, text in rows
    )
    for number, text in rows:
        if rle:
            for part in _expand_rle(text).split("|"):
                expanded.append((number, part))
        else:
            expanded.append((number, text))
    rows = [(n, t.rstrip()) for n, t in expanded]
    # A run-length row separator at either end ("...#|") adds no row of the board.
    while len(rows) > 1 and not rows[-1][1]:
        rows.pop()
    while len(rows) > 1 and not rows[0][1]:
        rows.pop(0)
    dialect = _detect_dialect(rows)
    meaning = DIALECTS[dialect]
    height = len(rows)
    width = max((len(text) for _, text in rows), default=0)
    if height > MAX_SIDE or width > MAX_SIDE:
        raise LevelError(
            f"the level is {width} wide and {height} high; "
            f"the most a level may have is {MAX_SIDE} by {MAX_SIDE}",
            first_line,
        )
    walls: set[int] = set()
    goals: set[int] = set()
    boxes: set[int] = set()
    players: list[int] = []
    present: set[int] = set()
    for r, (number, text) in enumerate(rows):
        for c, ch in enumerate(text):
            if ch not in meaning:
                raise LevelError(f"unknown character {ch!r} in a {dialect} level", number, c + 1)
            wall, goal, box, player = meaning[ch]
            i = r * width + c
            present.add(i)
            if wall:
                walls.add(i)
            if goal:
                goals.add(i)
            if box:
                boxes.add(i)
            if player:
                if players:
                    raise LevelError(
                        "a second player: a level has exactly one player", number, c + 1
                    )
                players.append(i)
    if not players:
        raise LevelError("no player: a level needs exactly one player (@ or +)", first_line)
    if not boxes:
        raise LevelError("no box: a level needs at least one box", first_line)
    if len(boxes) != len(goals):
        raise LevelError(
            f"{_counted(len(boxes), 'box', 'boxes')} but {_counted(len(goals), 'goal', 'goals')}:"
            " a level needs as many of each",
            first_line,
        )
    player = players[0]
    # Flood the player's region (boxes may move, so they do not block it).
    region = {player}
    todo = [player]
    while todo:
        cell = todo.pop()
        r, c = divmod(cell, width)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            n = nr * width + nc
            if not (0 <= nr < height and 0 <= nc < width) or n not in present:
                line = rows[r][0]
                raise LevelError(
                    "the player can walk off the board here: the walls must close the level",
                    line,
                    c + 1,
                )
            if n in walls or n in region:
                continue
            region.add(n)
            todo.append(n)
    floor = frozenset(region | boxes | goals)
    return Level(
        width=width,
        height=height,
        walls=frozenset(walls),
        floor=floor,
        goals=frozenset(goals),
        boxes=frozenset(boxes),
        player=player,
        title=title,
        dialect=dialect,
    )


def _is_board_line(text: str) -> bool:
    stripped = text.strip()
    if not stripped:
        return False
    if "#" in stripped or "|" in stripped:
        return True
    return set(stripped) <= DIGIT_CHARS


def parse_collection(text: str) -> list[Level]:
    """Every level in a file: levels are blocks of board rows; titles come from a
    ``Title:`` line or from the comment or text line right before the board."""
    levels: list[Level] = []
    pending_title = ""
    board: list[tuple[int, str]] = []
    board_title = ""

    def finish() -> None:
        nonlocal board, board_title
        if board:
            levels.append(parse_board(board, board_title))
        board = []
        board_title = ""

    for number, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        line = raw.rstrip()
        if board and _is_board_line(line):
            board.append((number, line))
            continue
        if board:
            finish()
        if not line.strip():
            continue
        if line.lstrip().startswith(";"):
            pending_title = line.lstrip()[1:].strip()
            continue
        meta = _META.match(line.strip())
        if meta:
            key, value = meta.group(1).strip().lower(), meta.group(2).strip()
            if key in ("title", "name"):
                if levels and not board and not pending_title and _title_follows_board(levels):
                    # "Title:" after a board names that board (the common .sok layout).
                    levels[-1] = _retitle(levels[-1], value)
                else:
                    pending_title = value
            continue
        if _is_board_line(line):
            board = [(number, line)]
            board_title = pending_title
            pending_title = ""
            continue
        pending_title = line.strip()
    finish()
    if not levels:
        raise LevelError("no level found: a level is a block of rows such as '#####'")
    return levels


def _title_follows_board(levels: list[Level]) -> bool:
    return not levels[-1].title


def _retitle(level: Level, title: str) -> Level:
    return Level(**{**level.__dict__, "title": title})
