"""A small picture of a level's board, as SVG: what a collection page shows for each level.

A game draws its board in a few shared kinds of cell (``Game.sketch``); this turns the rows
into rectangles, one per run of equal cells in a row, so even a large board is a few
kilobytes. Pictures are kept by board (most recently used), as the same board draws the same.
"""

from __future__ import annotations

from functools import lru_cache

#: What each kind of cell looks like. Letters a to z are colours of their own.
PALETTE = {
    "#": "#4a4e5a",  # wall, solid
    ".": "#ece6d8",  # floor, empty
    "+": "#d9644a",  # goal
    "$": "#e0a83a",  # box, piece, tile
    "*": "#5a9e5a",  # box on its goal
    "@": "#2c5aa0",  # player
    "!": "#c0392b",  # the piece to bring out
    "=": "#8e6c4a",  # another piece
    "T": "#d8c9a8",  # a tile
}
COLOURS = ["#d9534f", "#2a7ab0", "#e0a83a", "#5a9e5a", "#8e44ad", "#16a085", "#d35400", "#34495e"]
CELL = 8


def colour_of(kind: str) -> str | None:
    if kind in PALETTE:
        return PALETTE[kind]
    if "a" <= kind <= "z":
        return COLOURS[(ord(kind) - ord("a")) % len(COLOURS)]
    return None  # outside the board: nothing drawn


@lru_cache(maxsize=4096)
def svg(rows: tuple[str, ...]) -> str:
    """The picture of ``rows`` (one character a cell, a kind of PALETTE or a colour letter;
    a space is outside the board)."""
    width = max((len(row) for row in rows), default=0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width * CELL} {len(rows) * CELL}"'
        f' width="{width * CELL}" height="{len(rows) * CELL}" shape-rendering="crispEdges">'
    ]
    for r, row in enumerate(rows):
        c = 0
        while c < len(row):
            kind = row[c]
            run = 1
            while c + run < len(row) and row[c + run] == kind:
                run += 1
            colour = colour_of(kind)
            if colour is not None:
                parts.append(
                    f'<rect x="{c * CELL}" y="{r * CELL}" width="{run * CELL}" height="{CELL}"'
                    f' fill="{colour}"/>'
                )
            c += run
    parts.append("</svg>")
    return "".join(parts)
