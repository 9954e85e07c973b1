"""Hop: a game that lives only in the tests, to prove that a new game is one package with its
templates and browser files, and no edit anywhere else.

A level is one line of cells: ``@`` the hopper, ``G`` the flag, ``.`` open ground, ``#`` a
wall. A move is ``l`` or ``r``: one cell that way. Reach the flag.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from webapp.games.base import (
    Algorithm,
    Draft,
    DraftText,
    Editor,
    Game,
    IllegalMove,
    LevelError,
    Look,
    MoveError,
    Tool,
)
from webapp.search import Monitor, Result, SearchProblem, bfs

STEPS = {"l": -1, "r": 1}


@dataclass(frozen=True)
class Line:
    cells: str
    title: str = ""

    @property
    def width(self) -> int:
        return len(self.cells)

    @property
    def height(self) -> int:
        return 1


class Hop(Game[Line, int]):
    name = "hop"
    title = "Hop"
    default_algorithm = "bfs"

    def parse(self, text: str) -> list[Line]:
        levels = []
        for number, raw in enumerate(text.splitlines(), 1):
            if not raw.strip():
                continue
            title, _, cells = raw.strip().rpartition("|")
            for column, cell in enumerate(cells, 1):
                if cell not in ".@G#":
                    raise LevelError(f"{cell!r} is not a Hop cell (. @ G #)", number, column)
            if cells.count("@") != 1 or cells.count("G") != 1:
                raise LevelError("a line needs one hopper @ and one flag G", number)
            levels.append(Line(cells, title.strip()))
        if not levels:
            raise LevelError("no level found")
        return levels

    def level_text(self, level: Line) -> str:
        return f"{level.title}|{level.cells}" if level.title else level.cells

    def board_text(self, level: Line) -> str:
        return level.cells

    def start(self, level: Line) -> int:
        return level.cells.index("@")

    def split_moves(self, moves: str) -> list[str]:
        tokens = [ch for ch in moves if not ch.isspace()]
        for index, token in enumerate(tokens, 1):
            if token not in STEPS:
                raise MoveError(f"move {index} is {token!r}: Hop moves are l and r")
        return tokens

    def join_moves(self, tokens: Iterable[str]) -> str:
        return "".join(tokens)

    def apply(self, level: Line, state: int, move: str) -> int:
        if move not in STEPS:
            raise MoveError(f"{move!r} is not a Hop move (l, r)")
        target = state + STEPS[move]
        if not 0 <= target < level.width or level.cells[target] == "#":
            raise IllegalMove("a wall or the edge is in the way")
        return target

    def legal_moves(self, level: Line, state: int) -> list[str]:
        moves = []
        for move in STEPS:
            try:
                self.apply(level, state, move)
            except IllegalMove:
                continue
            moves.append(move)
        return moves

    def is_solved(self, level: Line, state: int) -> bool:
        return level.cells[state] == "G"

    def render_text(self, level: Line, state: int) -> str:
        return "".join(
            "@" if i == state else ("." if c == "@" else c) for i, c in enumerate(level.cells)
        )

    def click(self, level: Line, state: int, row: int, column: int) -> list[str]:
        """A click on a cell hops there, if nothing is in the way."""
        if row != 0 or not 0 <= column < level.width:
            return []
        step = "r" if column > state else "l"
        path = level.cells[min(state, column) : max(state, column) + 1]
        return [] if "#" in path else [step] * abs(column - state)

    def algorithms(self) -> dict[str, Algorithm]:
        return {"bfs": Algorithm("bfs", "Breadth-first: fewest hops", "moves", True, _solve)}

    def editor(self) -> Editor:
        """Its editor alone gives Hop a page at /hop/edit."""
        return HopEditor()


class HopEditor(Editor):
    rows = (1, 1)
    cols = (3, 30)
    size = (1, 8)

    def tools(self) -> Sequence[Tool]:
        return (
            Tool("o", "Ground", {"*": "."}),
            Tool("w", "Wall", {"*": "#"}),
            Tool("h", "Hopper", {"*": "@"}),
            Tool("g", "Flag", {"*": "G"}),
        )

    def looks(self, draft: Draft) -> Mapping[str, Look]:
        return {
            ".": Look("", label="ground"),
            "#": Look("wall", label="wall"),
            "@": Look("hopper", label="hopper"),
            "G": Look("flag", label="flag"),
        }

    def blank(self, rows: int, cols: int) -> Draft:
        return Draft([["."] * cols], {"title": ""})

    def draft_of(self, level: Line) -> Draft:
        return Draft([list(level.cells)], {"title": level.title})

    def text(self, draft: Draft) -> DraftText:
        cells = "".join(draft.rows[0])
        title = " ".join(draft.fields.get("title", "").replace("|", " ").split())
        return DraftText(f"{title}|{cells}" if title else cells, 1, 1)


class _Problem(SearchProblem[int]):
    def __init__(self, level: Line, state: int):
        self.level, self.state = level, state

    def start(self) -> int:
        return self.state

    def is_goal(self, state: int) -> bool:
        return GAME.is_solved(self.level, state)

    def successors(self, state: int):
        for move in GAME.legal_moves(self.level, state):
            yield (move,), GAME.apply(self.level, state, move), 1


def _solve(level: Line, state: int, monitor: Monitor) -> Result:
    return bfs(_Problem(level, state), monitor)


GAME = Hop()
