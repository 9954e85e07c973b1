"""Vexed's editor: solid, empty and a block of each colour (with its symbol), and a draft
written in the header form (``Vexed level``, ``title:``, ``--``, the rows)."""

from __future__ import annotations

from collections.abc import Mapping

from webapp.games.base import Draft, DraftText, Editor, Look, Tool
from webapp.games.vexed.level import EMPTY, HEADER, SOLID, Level

#: The colours the palette offers, each under a digit key.
PALETTE_COLOURS = "abcdefgh"


class VexedEditor(Editor):
    rows = (3, 16)
    cols = (3, 16)
    size = (7, 8)
    resize_keeps = "inside"  # the solid border goes round the new size

    def __init__(self, symbols: Mapping[str, tuple[str, str]]):
        self.symbols = symbols

    def tools(self) -> tuple[Tool, ...]:
        symbols = self.symbols
        colours = tuple(
            Tool(str(n), f"{symbols[c][1].capitalize()} block {symbols[c][0]}", {"*": c})
            for n, c in enumerate(PALETTE_COLOURS, 1)
        )
        return (Tool("w", "Solid", {"*": SOLID}), Tool("e", "Empty", {"*": EMPTY}), *colours)

    def looks(self, draft: Draft) -> dict[str, Look]:
        shown = {SOLID: Look("wall", label="solid"), EMPTY: Look("empty", label="empty")}
        letters = set(PALETTE_COLOURS) | {cell for row in draft.rows for cell in row}
        for letter in sorted(letters & set(self.symbols)):
            symbol, name = self.symbols[letter]
            shown[letter] = Look(f"block c-{letter}", symbol, f"{name} block")
        return shown

    def blank(self, rows: int, cols: int) -> Draft:
        """Solid round the edge, empty inside."""
        grid = [
            [SOLID if r in (0, rows - 1) or c in (0, cols - 1) else EMPTY for c in range(cols)]
            for r in range(rows)
        ]
        return Draft(grid, {"title": ""})

    def draft_of(self, level: Level) -> Draft:
        return Draft([list(row) for row in level.rows], {"title": level.title})

    def text(self, draft: Draft) -> DraftText:
        title = " ".join(draft.fields.get("title", "").splitlines()).strip()
        head = [HEADER] + ([f"title: {title}"] if title else []) + ["--"]
        rows = ["".join(row) for row in draft.rows]
        return DraftText("\n".join(head + rows), first_line=len(head) + 1)
