"""Sokoban's editor: the palette (wall, floor, goal, box, player, erase), how each square
is drawn, and a draft written as XSB.

A draft's cells are XSB characters. Floor and the outside are both a space while drawing
(the rules tell them apart by where the player can walk); the draft's text writes them as
``-`` so that no row is dropped as empty and every square keeps its row and column.
"""

from __future__ import annotations

from webapp.games.base import Draft, DraftText, Editor, Look, Tool
from webapp.games.sokoban.level import Level

WALL, FLOOR, GOAL, BOX, BOX_ON_GOAL, PLAYER, PLAYER_ON_GOAL = "#", " ", ".", "$", "*", "@", "+"

#: A box or the player on each square with a goal under it, and the squares with a goal.
ON_GOAL = {BOX: BOX_ON_GOAL, PLAYER: PLAYER_ON_GOAL}
GOALS = (GOAL, BOX_ON_GOAL, PLAYER_ON_GOAL)


def _put(thing: str) -> dict[str, str]:
    """A box or the player put on a square: on its goal where it has one."""
    return {cell: ON_GOAL[thing] for cell in GOALS} | {"*": thing}


TOOLS = (
    Tool("w", "Wall", {"*": WALL}),
    Tool("f", "Floor", {"*": FLOOR}),
    # A goal goes under what stands on the square.
    Tool("g", "Goal", ON_GOAL | {cell: cell for cell in GOALS} | {"*": GOAL}),
    Tool("b", "Box", _put(BOX)),
    Tool("p", "Player", _put(PLAYER)),
    # Erase takes off the top thing: a box or the player first, then a goal or a wall.
    Tool("e", "Erase", {BOX_ON_GOAL: GOAL, PLAYER_ON_GOAL: GOAL, "*": FLOOR}),
)

LOOKS = {
    WALL: Look("wall", label="wall"),
    FLOOR: Look("floor", label="floor"),
    GOAL: Look("goal", label="goal"),
    BOX: Look("floor box", label="box"),
    BOX_ON_GOAL: Look("goal box", label="box on a goal"),
    PLAYER: Look("floor player", label="player"),
    PLAYER_ON_GOAL: Look("goal player", label="player on a goal"),
}

#: Boxes become goals and goals boxes; a box on a goal and the player stay as they are.
SWAP = {BOX: GOAL, GOAL: BOX}


class SokobanEditor(Editor):
    outside = FLOOR

    def tools(self) -> tuple[Tool, ...]:
        return TOOLS

    def looks(self, draft: Draft) -> dict[str, Look]:
        return LOOKS

    def actions(self) -> tuple[tuple[str, str, dict[str, str]], ...]:
        return (("swap", "Boxes ↔ goals", SWAP),)

    def blank(self, rows: int, cols: int) -> Draft:
        """A room: walls round the edge, floor inside."""
        grid = [
            [WALL if r in (0, rows - 1) or c in (0, cols - 1) else FLOOR for c in range(cols)]
            for r in range(rows)
        ]
        return Draft(grid, {"title": ""})

    def draft_of(self, level: Level) -> Draft:
        """The level's squares as XSB characters, on a grid as wide as its widest row."""
        grid = []
        for r in range(level.height):
            row = []
            for c in range(level.width):
                i = r * level.width + c
                goal = i in level.goals
                if i in level.walls:
                    row.append(WALL)
                elif i in level.boxes:
                    row.append(BOX_ON_GOAL if goal else BOX)
                elif i == level.player:
                    row.append(PLAYER_ON_GOAL if goal else PLAYER)
                else:
                    row.append(GOAL if goal else FLOOR)
            grid.append(row)
        return Draft(grid, {"title": level.title})

    def text(self, draft: Draft) -> DraftText:
        """XSB, the title first: ``Title:`` then the rows, floor written as ``-``."""
        title = " ".join(draft.fields.get("title", "").splitlines()).strip()
        head = [f"Title: {title}"] if title else []
        rows = ["".join("-" if cell == FLOOR else cell for cell in row) for row in draft.rows]
        return DraftText("\n".join(head + rows), first_line=len(head) + 1)

    def outside_squares(self, level: Level) -> frozenset[tuple[int, int]]:
        kinds = level.cell_kinds
        return frozenset(
            divmod(i, level.width) for i, kind in enumerate(kinds) if kind == "outside"
        )


EDITOR = SokobanEditor()
