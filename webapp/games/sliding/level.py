"""Sliding-puzzle levels: the value type, the parity rule, the text forms and the URL code.

A board is a tuple of tile numbers in row-major order with 0 for the hole; the goal holds the
tiles 1..N-1 in order with the hole in the last cell. Two text forms load: a grid (optionally
after ``key: value`` header lines such as ``size: 4x4``) and the benchmark form, one square
board per line, optionally followed by its known optimal length.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from random import Random

from webapp.games.base import MAX_LEVEL_TEXT, LevelError, UnsolvableLevel

MIN_SIDE = 2
MAX_SIDE = 8

#: One character per tile in position codes: URL-safe, and plain digits for small boards.
CODE_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"

_HEADER = re.compile(r"^([A-Za-z][A-Za-z _-]{0,30}):\s*(.*)$")
_SIZE = re.compile(r"^(\d+)\s*[xX×]\s*(\d+)$")


@dataclass(frozen=True)
class Level:
    """A board to solve: its size, the starting tiles, a title and, if known, the optimum."""

    rows: int
    cols: int
    tiles: tuple[int, ...]
    title: str = ""
    known_optimal: int | None = None

    @property
    def size(self) -> str:
        return f"{self.rows}x{self.cols}"


def goal(rows: int, cols: int) -> tuple[int, ...]:
    """The solved board: tiles in row-major order, the hole last."""
    return tuple(range(1, rows * cols)) + (0,)


def inversions(tiles: tuple[int, ...] | list[int]) -> int:
    """Pairs of tiles (the hole left out) that stand in the wrong order, read row by row."""
    seen = [t for t in tiles if t]
    count = 0
    # A Fenwick tree keeps this fast on 8x8 boards too.
    tree = [0] * (len(seen) + 1)
    for index, tile in enumerate(seen):
        smaller = 0
        i = tile
        while i > 0:
            smaller += tree[i]
            i -= i & -i
        count += index - smaller
        i = tile
        while i <= len(seen):
            tree[i] += 1
            i += i & -i
    return count


def is_solvable(rows: int, cols: int, tiles: tuple[int, ...] | list[int]) -> bool:
    """True when the board can reach the goal: see docs/sliding-solvers.md for the parity rule.

    Every move keeps the parity of (inversions + the hole's row distance from the bottom) when
    the width is even, and of the inversions alone when the width is odd.
    """
    parity = inversions(tiles) % 2
    if cols % 2 == 0:
        hole_row = list(tiles).index(0) // cols
        parity = (parity + (rows - 1 - hole_row)) % 2
    return parity == 0


def check_board(
    rows: int, cols: int, tiles: list[int], line: int | None = None, column: int | None = None
) -> None:
    """Raise LevelError unless ``tiles`` is a solvable rows x cols board within the limits."""
    for side, name in ((rows, "rows"), (cols, "columns")):
        if side > MAX_SIDE:
            raise LevelError(
                f"the board has {side} {name}; the largest board is {MAX_SIDE}x{MAX_SIDE}",
                line,
                column,
            )
        if side < MIN_SIDE:
            raise LevelError(
                f"the board has {side} {name}; the smallest board is {MIN_SIDE}x{MIN_SIDE}",
                line,
                column,
            )
    n = rows * cols
    if len(tiles) != n:
        raise LevelError(
            f"a {rows}x{cols} board has {n} cells but {len(tiles)} numbers were given",
            line,
            column,
        )
    seen: set[int] = set()
    for tile in tiles:
        if not 0 <= tile < n:
            raise LevelError(
                f"tile {tile} does not fit a {rows}x{cols} board: tiles are 1..{n - 1}, "
                "and 0 is the hole",
                line,
                column,
            )
        if tile in seen:
            missing = min(set(range(n)) - set(tiles))
            raise LevelError(
                f"tile {tile} appears twice (and {missing} is missing): the numbers must be "
                f"0..{n - 1}, each once",
                line,
                column,
            )
        seen.add(tile)
    if not is_solvable(rows, cols, tiles):
        rule = (
            "the number of inversions is odd, and on a board of odd width every move keeps "
            "it even or odd"
            if cols % 2
            else "on a board of even width the inversions plus the hole's row counted from "
            "the bottom must be even, and every move keeps that parity"
        )
        raise UnsolvableLevel(
            f"this board cannot be solved: {rule} (swapping two tiles would fix it)",
            line,
            column,
        )


# -- text forms ----------------------------------------------------------------------------


def _numbers(text: str, line: int) -> list[int]:
    values = []
    column = 1
    for match in re.finditer(r"\S+", text):
        word = match.group(0)
        column = match.start() + 1
        if word in ("_", ".", "-"):
            values.append(0)  # a common way to draw the hole
            continue
        if not word.isdecimal():
            raise LevelError(
                f"{word!r} is not a tile number: write the tiles as numbers, 0 for the hole",
                line,
                column,
            )
        values.append(int(word))
    return values


def _benchmark_line(numbers: list[int], line: int, title: str) -> Level:
    n = len(numbers)
    side = math.isqrt(n)
    optimal = None
    if side * side != n:
        side = math.isqrt(n - 1)
        if side * side != n - 1:
            raise LevelError(
                f"{n} numbers on one line: a board line holds a square number of tiles "
                "(9, 16, 25...), optionally followed by its optimal length",
                line,
            )
        optimal = numbers[-1]
        numbers = numbers[:-1]
    check_board(side, side, numbers, line)
    return Level(side, side, tuple(numbers), title, optimal)


def _grid(
    rows: list[tuple[int, list[int]]], size: tuple[int, int] | None, title: str, optimal: int | None
) -> Level:
    first = rows[0][0]
    width = len(rows[0][1])
    for number, values in rows:
        if len(values) != width:
            raise LevelError(
                f"this row has {len(values)} numbers but the first row has {width}: "
                "every row must be as long",
                number,
            )
    height = len(rows)
    if size is not None and size != (height, width):
        raise LevelError(
            f"the header says {size[0]}x{size[1]} but the grid is {height}x{width}", first
        )
    check_board(height, width, [v for _, values in rows for v in values], first)
    return Level(height, width, tuple(v for _, values in rows for v in values), title, optimal)


def _parse_block(block: list[tuple[int, str]], comment_title: str) -> list[Level]:
    title = comment_title
    size: tuple[int, int] | None = None
    optimal: int | None = None
    has_header = False
    body: list[tuple[int, list[int]]] = []
    for number, text in block:
        header = _HEADER.match(text.strip())
        if header and not body:
            has_header = True
            key, value = header.group(1).strip().lower(), header.group(2).strip()
            if key in ("title", "name"):
                title = value
            elif key == "size":
                found = _SIZE.match(value)
                if not found:
                    raise LevelError(
                        f"size {value!r} is not rows x columns such as 4x4", number, len(key) + 3
                    )
                size = (int(found.group(1)), int(found.group(2)))
            elif key in ("optimal", "known_optimal", "optimum"):
                if not value.isdecimal():
                    raise LevelError(f"optimal {value!r} is not a number of moves", number)
                optimal = int(value)
            continue
        body.append((number, _numbers(text, number)))
    if not body:
        raise LevelError("a header without a board: the rows of numbers are missing", block[0][0])
    if has_header or len(body) > 1 and _is_one_grid(body):
        return [_grid(body, size, title, optimal)]
    if len(body) == 1:
        return [_benchmark_line(body[0][1], body[0][0], title)]
    if len(body) > 1 and not all(_is_square_count(len(v)) for _, v in body):
        return [_grid(body, size, title, optimal)]
    levels = []
    for index, (number, values) in enumerate(body):
        try:
            levels.append(_benchmark_line(values, number, title if index == 0 else ""))
        except LevelError:
            if len({len(v) for _, v in body}) == 1 and len(body) > 1:
                return [_grid(body, size, title, optimal)]  # most likely a mistyped grid
            raise
    return levels


def _is_square_count(n: int) -> bool:
    return n >= 4 and (math.isqrt(n) ** 2 == n or math.isqrt(n - 1) ** 2 == n - 1)


def _is_one_grid(body: list[tuple[int, list[int]]]) -> bool:
    """True when the rows together hold each of 0..n-1 once: a grid, not one board a line."""
    values = [v for _, row in body for v in row]
    return len({len(row) for _, row in body}) == 1 and sorted(values) == list(range(len(values)))


def parse_collection(text: str) -> list[Level]:
    """Every board in a text: blocks separated by blank lines, ``#`` or ``;`` comment lines."""
    if len(text) > MAX_LEVEL_TEXT:
        raise LevelError(f"the text is longer than {MAX_LEVEL_TEXT} characters")
    levels: list[Level] = []
    block: list[tuple[int, str]] = []
    comment = ""
    block_comment = ""

    def finish() -> None:
        nonlocal block
        if block:
            levels.extend(_parse_block(block, block_comment))
        block = []

    for number, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        line = raw.strip()
        if not line:
            finish()
            continue
        if line[0] in "#;":
            comment = line[1:].strip()
            continue
        if not block:
            block_comment = comment if _is_title_comment(comment) else ""
            comment = ""
        block.append((number, line))
    finish()
    if not levels:
        raise LevelError("no board found: write rows of tile numbers, 0 for the hole")
    return levels


def _is_title_comment(comment: str) -> bool:
    # Benchmark files open with long explanatory comments; only a short one names a board.
    return 0 < len(comment) <= 60


def grid_text(rows: int, cols: int, tiles: tuple[int, ...]) -> str:
    width = len(str(rows * cols - 1))
    return "\n".join(
        " ".join(str(t).rjust(width) for t in tiles[r * cols : (r + 1) * cols]) for r in range(rows)
    )


def board_text(rows: int, cols: int, tiles: tuple[int, ...]) -> str:
    return f"size: {rows}x{cols}\n" + grid_text(rows, cols, tiles)


def level_text(level: Level) -> str:
    head = f"title: {level.title}\n" if level.title else ""
    if level.known_optimal is not None:
        head += f"optimal: {level.known_optimal}\n"
    return head + board_text(level.rows, level.cols, level.tiles)


# -- position codes ------------------------------------------------------------------------


def position_code(level: Level | tuple[int, int], tiles: tuple[int, ...] | None = None) -> str:
    """A short URL-safe text for a position, e.g. ``3x3-123456780``: size, then a character a
    tile (digits, then letters, then ``-`` and ``_``, enough for 8x8)."""
    if isinstance(level, Level):
        rows, cols = level.rows, level.cols
        tiles = level.tiles if tiles is None else tiles
    else:
        rows, cols = level
    if tiles is None:
        raise ValueError("position_code needs the tiles when given a size")
    return f"{rows}x{cols}-" + "".join(CODE_ALPHABET[t] for t in tiles)


def from_code(code: str) -> Level:
    """The level a position code stands for; LevelError if it is not a valid code."""
    size, sep, body = code.strip().partition("-")
    found = _SIZE.match(size)
    if not sep or not found:
        raise LevelError(f"{code!r} is not a position code such as 3x3-123456780")
    rows, cols = int(found.group(1)), int(found.group(2))
    tiles = []
    for index, ch in enumerate(body):
        value = CODE_ALPHABET.find(ch)
        if value < 0:
            raise LevelError(f"character {index + 1} of the tiles, {ch!r}, is not a tile code")
        tiles.append(value)
    check_board(rows, cols, tiles)
    return Level(rows, cols, tuple(tiles))


# -- shuffles ------------------------------------------------------------------------------


def shuffle(rows: int, cols: int, rng: Random, moves: int | None = None) -> tuple[int, ...]:
    """A random solvable board, never the solved one: uniform over all solvable boards, or,
    with ``moves``, the end of a random walk of that many moves that never steps straight back."""
    solved = goal(rows, cols)
    if moves is None:
        while True:
            tiles = list(solved)
            rng.shuffle(tiles)
            if not is_solvable(rows, cols, tiles):
                # Swapping two tiles flips the parity: a one-to-one map from the unsolvable
                # boards onto the solvable ones, so the result stays uniform.
                a, b = _two_tiles(tiles)
                tiles[a], tiles[b] = tiles[b], tiles[a]
            if tuple(tiles) != solved:
                return tuple(tiles)
    tiles = list(solved)
    hole = len(tiles) - 1
    previous = -1
    step = 0
    while step < moves or tuple(tiles) == solved:
        options = [n for n in neighbours(rows, cols, hole) if n != previous]
        cell = rng.choice(options)
        tiles[hole], tiles[cell] = tiles[cell], 0
        previous, hole = hole, cell
        step += 1
    return tuple(tiles)


def _two_tiles(tiles: list[int]) -> tuple[int, int]:
    found = [i for i, t in enumerate(tiles) if t][:2]
    return found[0], found[1]


def neighbours(rows: int, cols: int, cell: int) -> list[int]:
    r, c = divmod(cell, cols)
    found = []
    if c + 1 < cols:
        found.append(cell + 1)
    if c > 0:
        found.append(cell - 1)
    if r + 1 < rows:
        found.append(cell + cols)
    if r > 0:
        found.append(cell - cols)
    return found
