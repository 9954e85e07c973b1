"""The sliding puzzle's editor: a board of any size from solved, tiles that trade places
(a drag from one to the other, or two clicks), and a draft written as ``size:`` and rows of
numbers, 0 the hole."""

from __future__ import annotations

from random import Random

from webapp.games.base import Draft, DraftText, Editor, LevelError, Look, Tool
from webapp.games.sliding.level import Level, goal

#: The largest board a shuffle to an exact distance is offered on (its optimal solver must
#: prove the distance), and the most moves from solved on it; the 8-puzzle's is its diameter.
SHUFFLE_CELLS = 16
SHUFFLE_MOST = 40
DIAMETER_3X3 = 31

TOOLS = (Tool("s", "Swap two tiles", kind="swap"),)


class SlidingEditor(Editor):
    rows = (2, 8)
    cols = (2, 8)
    size = (4, 4)
    shuffle_most = SHUFFLE_MOST
    resize_keeps = "nothing"  # every tile is numbered for its size: a new size starts solved

    def __init__(self, game: object):
        self.game = game  # its optimal solver proves a shuffle's distance

    def tools(self) -> tuple[Tool, ...]:
        return TOOLS

    def looks(self, draft: Draft) -> dict[str, Look]:
        shown = {"0": Look("hole", label="the hole")}
        for tile in range(1, 64):  # every tile of the largest board: a resize needs no new looks
            shown[str(tile)] = Look("tile", str(tile), f"tile {tile}")
        return shown

    def blank(self, rows: int, cols: int) -> Draft:
        """The solved board."""
        tiles = goal(rows, cols)
        grid = [[str(t) for t in tiles[r * cols : (r + 1) * cols]] for r in range(rows)]
        return Draft(grid, {"title": ""})

    def draft_of(self, level: Level) -> Draft:
        cols = level.cols
        rows = [[str(t) for t in level.tiles[r * cols : (r + 1) * cols]] for r in range(level.rows)]
        return Draft(rows, {"title": level.title})

    def text(self, draft: Draft) -> DraftText:
        rows, cols = len(draft.rows), len(draft.rows[0]) if draft.rows else 0
        title = " ".join(draft.fields.get("title", "").splitlines()).strip()
        head = ([f"title: {title}"] if title else []) + [f"size: {rows}x{cols}"]
        width = max((len(cell) for row in draft.rows for cell in row), default=1)
        lines = [" ".join(cell.rjust(width) for cell in row) for row in draft.rows]
        return DraftText("\n".join(head + lines), len(head) + 1, width + 1)

    def shuffle(self, draft: Draft, moves: int, rng: Random) -> Draft:
        """The board set to a position exactly ``moves`` from solved, proved shortest."""
        from webapp.games.sliding.generate import position_at

        rows, cols = len(draft.rows), len(draft.rows[0])
        if rows * cols > SHUFFLE_CELLS:
            raise LevelError(
                f"A shuffle to an exact distance is offered up to 4x4, not {rows}x{cols}."
            )
        most = DIAMETER_3X3 if rows * cols == 9 else SHUFFLE_MOST
        if not 1 <= moves <= most:
            raise LevelError(f"On a {rows}x{cols} board the moves from solved are 1 to {most}.")
        tiles, _solution, _found = position_at(rows, cols, moves, rng, self.game)
        grid = [[str(t) for t in tiles[r * cols : (r + 1) * cols]] for r in range(rows)]
        return Draft(grid, dict(draft.fields))
