"""The sliding blocks editor: floor, wall and pieces (each a letter, painted to its shape and
size), the piece to bring out and where it must stand, and a draft written as one record of
the collection format (docs/blocks-format.md)."""

from __future__ import annotations

import string

from webapp.games.base import Draft, DraftText, EditField, Editor, Look, Tool
from webapp.games.blocks.level import EMPTY, WALL, Level

LETTERS = string.ascii_uppercase

TOOLS = (
    Tool("n", "Piece", {}, kind="piece"),
    Tool("f", "Floor", {"*": EMPTY}),
    Tool("w", "Wall", {"*": WALL}),
    Tool("x", "Remove piece", {"*": EMPTY}, kind="remove"),
)

FIELDS = (
    EditField("goal_piece", "Piece to bring out", "piece"),
    EditField("goal_row", "Its goal: row (top-left)", "number"),
    EditField("goal_col", "column", "number"),
)


class BlocksEditor(Editor):
    rows = (2, 8)
    cols = (2, 8)
    size = (5, 4)

    def tools(self) -> tuple[Tool, ...]:
        return TOOLS

    def fields(self) -> tuple[EditField, ...]:
        return FIELDS

    def looks(self, draft: Draft) -> dict[str, Look]:
        goal = draft.fields.get("goal_piece", "")
        shown = {EMPTY: Look("floor", label="floor"), WALL: Look("wall", label="wall")}
        for letter in LETTERS:
            mark = " goal-piece" if letter == goal else ""
            shown[letter] = Look(f"floor edit-piece{mark}", letter, f"piece {letter}")
        return shown

    def blank(self, rows: int, cols: int) -> Draft:
        """An empty floor (the board's edge is its wall), the goal where Klotski has it: a
        2×2 piece A at the middle of the bottom edge."""
        fields = {
            "title": "",
            "goal_piece": "A",
            "goal_row": str(max(1, rows - 1)),
            "goal_col": str(max(1, (cols - 2) // 2 + 1)),
        }
        return Draft([[EMPTY] * cols for _ in range(rows)], fields)

    def target_squares(self, draft: Draft) -> frozenset[tuple[int, int]]:
        """Where the goal puts the piece to bring out: its whole shape, or the one square
        of its top-left corner while the piece is not drawn (or the goal is off the grid)."""
        fields = draft.fields
        try:
            top, left = int(fields.get("goal_row", "")) - 1, int(fields.get("goal_col", "")) - 1
        except ValueError:
            return frozenset()
        height, width = len(draft.rows), len(draft.rows[0])
        cells = [
            (r, c)
            for r, row in enumerate(draft.rows)
            for c, v in enumerate(row)
            if v == fields.get("goal_piece")
        ]
        tall = max(r for r, _ in cells) - min(r for r, _ in cells) + 1 if cells else 1
        wide = max(c for _, c in cells) - min(c for _, c in cells) + 1 if cells else 1
        return frozenset(
            (r, c)
            for r in range(top, top + tall)
            for c in range(left, left + wide)
            if 0 <= r < height and 0 <= c < width
        )

    def draft_of(self, level: Level) -> Draft:
        row, col = divmod(level.goal_place, level.width)
        fields = {
            "title": level.title,
            "goal_piece": level.pieces[level.goal_piece].letter,
            "goal_row": str(row + 1),
            "goal_col": str(col + 1),
        }
        return Draft([list(line) for line in level.grid().split("\n")], fields)

    def text(self, draft: Draft) -> DraftText:
        fields = draft.fields
        title = " ".join(fields.get("title", "").splitlines()).strip()
        # The piece's letter, its row and its column; "?" for one not given (the parser
        # then names what is missing).
        parts = (("goal_piece", 1), ("goal_row", 3), ("goal_col", 3))
        goal = " ".join(fields.get(name, "")[:most] or "?" for name, most in parts)
        head = ["Klotski layout"] + ([f"name: {title}"] if title else [])
        head += [f"goal: {goal}", "--"]
        rows = ["".join(row) for row in draft.rows]
        return DraftText("\n".join(head + rows), first_line=len(head) + 1)


EDITOR = BlocksEditor()
