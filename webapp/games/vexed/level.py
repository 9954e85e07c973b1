"""Vexed levels: the value type and its two text forms (header plus rows, and the framed picture).

The header form is ``Vexed level``, ``key: value`` lines (``title``, ``par`` and any others), a
``--`` line, then one row per line: ``_`` empty, ``#`` solid, a lower-case letter a block of that
colour. The framed picture puts the rows between ``|`` borders under a row of ``_`` and over a
row of ``=``, with spaces as empty cells; the frame becomes the wall around the grid, so the
picture's rows and columns are the grid's. A file holds any number of levels separated by blank
lines. Outside the grid counts as solid.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from webapp.games.base import MAX_LEVEL_TEXT, LevelError, UnsolvableLevel

#: A board larger than this in either direction is refused (the published ones are at most 12).
MAX_SIDE = 32

EMPTY = "_"
SOLID = "#"
COLOURS = "abcdefghijklmnopqrstuvwxyz"
HEADER = "Vexed level"

_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_ -]{0,30}):\s*(.*)$")
_ROW_CHARS = frozenset(EMPTY + SOLID + COLOURS)


@dataclass(frozen=True)
class Level:
    """A board as written (rows of ``_``, ``#`` and colour letters) with its header."""

    rows: tuple[str, ...]
    title: str = ""
    par: int | None = None
    #: The other ``key: value`` header lines, in file order.
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    def header(self, key: str) -> str | None:
        """The value of a header line such as ``pack`` or ``level``, if present."""
        key = key.lower()
        return next((value for k, value in self.headers if k.lower() == key), None)

    def text(self) -> str:
        """The canonical header form of this level."""
        lines = [HEADER]
        if self.title:
            lines.append(f"title: {self.title}")
        if self.par is not None:
            lines.append(f"par: {self.par}")
        lines.extend(f"{key}: {value}" for key, value in self.headers)
        lines.append("--")
        lines.extend(self.rows)
        return "\n".join(lines)


def _split_blocks(text: str) -> list[list[tuple[int, str]]]:
    """Runs of non-blank lines, each line as (1-based line number, text without trailing
    whitespace)."""
    blocks: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip()
        if line:
            current.append((number, line))
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def parse_collection(text: str) -> list[Level]:
    """Every level in a file or pasted text; raise LevelError naming line and column."""
    if len(text) > MAX_LEVEL_TEXT:
        raise LevelError(f"the text is too long: at most {MAX_LEVEL_TEXT} characters")
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    levels = [_parse_block(block) for block in _split_blocks(text)]
    if not levels:
        raise LevelError(
            "no level found: a level starts with a 'Vexed level' line, or is a picture of rows"
        )
    return levels


def _parse_block(block: list[tuple[int, str]]) -> Level:
    first_number, first = block[0]
    if first.strip().lower() != HEADER.lower():
        if _KEY.match(first.strip()):
            raise LevelError(
                f"a level starts with a '{HEADER}' line before its 'key: value' lines",
                first_number,
                1,
            )
        return _parse_picture(block, "", None, ())
    title = ""
    par: int | None = None
    seen: set[str] = set()
    headers: list[tuple[str, str]] = []
    for index, (number, line) in enumerate(block[1:], 1):
        if line.strip() == "--":
            rows = block[index + 1 :]
            if not rows:
                raise LevelError("the level has no rows after its '--' line", number, 1)
            return _parse_picture(rows, title, par, tuple(headers))
        match = _KEY.match(line.strip())
        if not match:
            raise LevelError(
                f"expected a 'key: value' header line or '--', found {line.strip()!r}",
                number,
                1,
            )
        key, value = match.group(1).strip(), match.group(2).strip()
        lowered = key.lower()
        if lowered in seen:
            raise LevelError(f"the header '{key}' is given twice", number, 1)
        seen.add(lowered)
        if lowered == "title":
            title = value
        elif lowered == "par":
            if not value.isdecimal():
                raise LevelError(
                    f"par must be a whole number of moves, found {value!r}",
                    number,
                    line.index(value) + 1 if value else len(line) + 1,
                )
            par = int(value)
        else:
            headers.append((key, value))
    last_number = block[-1][0]
    raise LevelError("the header has no '--' line before the rows", last_number, 1)


def _parse_picture(
    rows: list[tuple[int, str]],
    title: str,
    par: int | None,
    headers: tuple[tuple[str, str], ...],
) -> Level:
    if any("|" in text for _, text in rows):
        rows = _unframe(rows)
    first_number = rows[0][0]
    if len(rows) > MAX_SIDE:
        raise LevelError(
            f"the board has {len(rows)} rows; a board may have at most {MAX_SIDE}",
            rows[MAX_SIDE][0],
            1,
        )
    width = len(rows[0][1])
    if width > MAX_SIDE:
        raise LevelError(
            f"the board is {width} cells wide; a board may be at most {MAX_SIDE} wide",
            first_number,
            MAX_SIDE + 1,
        )
    blocks: Counter[str] = Counter()
    where: dict[str, tuple[int, int]] = {}
    for number, text in rows:
        if len(text) != width:
            raise LevelError(
                f"this row is {len(text)} cells wide but the first row is {width}: "
                "every row must be as wide as the first",
                number,
                min(len(text), width) + 1,
            )
        for column, ch in enumerate(text, 1):
            if ch not in _ROW_CHARS:
                raise LevelError(
                    f"unknown character {ch!r}: a row holds '_' (empty), '#' (solid) "
                    "and lower-case letters (blocks)",
                    number,
                    column,
                )
            if ch in COLOURS:
                blocks[ch] += 1
                where.setdefault(ch, (number, column))
    if not blocks:
        raise LevelError("the board has no blocks: there is nothing to clear", first_number)
    for colour in sorted(blocks, key=lambda c: where[c]):
        if blocks[colour] == 1:
            number, column = where[colour]
            raise UnsolvableLevel(
                f"colour {colour!r} has only one block, so it can never vanish",
                number,
                column,
            )
    return Level(tuple(text for _, text in rows), title, par, headers)


def _unframe(rows: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Turn the framed picture into plain rows: the frame becomes solid cells, spaces empty."""
    if len(rows) < 3:
        number = rows[0][0]
        raise LevelError(
            "a framed board needs a top row of '_', rows between '|' and a bottom row of '='",
            number,
            1,
        )
    (top_number, top), *middle, (bottom_number, bottom) = rows
    inner = [(number, text) for number, text in middle]
    width = len(inner[0][1])
    if set(top.strip()) != {"_"}:
        raise LevelError("the top of a framed board is a row of '_'", top_number, 1)
    if set(bottom.strip()) != {"="}:
        raise LevelError("the bottom of a framed board is a row of '='", bottom_number, 1)
    plain = [(top_number, SOLID * width)]
    for number, text in inner:
        if not text.startswith("|"):
            raise LevelError("a framed row starts with '|'", number, 1)
        if len(text) < 2 or not text.endswith("|"):
            raise LevelError("a framed row ends with '|'", number, len(text) + 1)
        body = text[1:-1]
        if "|" in body:
            raise LevelError("'|' only frames a row", number, body.index("|") + 2)
        body = body.replace(" ", EMPTY)
        plain.append((number, SOLID + body + SOLID))
    plain.append((bottom_number, SOLID * width))
    return plain
