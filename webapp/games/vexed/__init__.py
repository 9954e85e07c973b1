"""Vexed: slide blocks left or right so that blocks of a colour meet and vanish; clear the board.

Moves are ``R,C<`` or ``R,C>``: the 0-based row and column of a block in the grid as written
(border included) and the direction it slides, one cell. A move string joins them with spaces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from random import Random

from webapp.games.base import Algorithm, Editor, Game, Made
from webapp.games.vexed import rules
from webapp.games.vexed.level import Level, parse_collection
from webapp.games.vexed.rules import Board

#: A symbol and its name for each colour letter, drawn on the blocks so that colour is never
#: the only sign of which blocks match (as Tatham's puzzles do for colour-blind players).
SYMBOLS = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyz",
        (
            ("●", "circle"),
            ("▲", "triangle"),
            ("■", "square"),
            ("◆", "diamond"),
            ("★", "star"),
            ("✚", "cross"),
            ("♥", "heart"),
            ("⬢", "hexagon"),
            ("▼", "down triangle"),
            ("✖", "saltire"),
            ("♣", "club"),
            ("♠", "spade"),
            ("◐", "half circle"),
            ("✿", "flower"),
            ("☾", "moon"),
            ("▶", "right triangle"),
            ("◀", "left triangle"),
            ("⬟", "pentagon"),
            ("☀", "sun"),
            ("♦", "small diamond"),
            ("◼", "small square"),
            ("▰", "bar"),
            ("✦", "spark"),
            ("☘", "shamrock"),
            ("♪", "note"),
            ("⌂", "house"),
        ),
        strict=True,
    )
)


def _blocks(board: Board) -> int:
    return sum(ch not in "#_" for row in board.rows for ch in row)


class Vexed(Game[Level, Board]):
    name = "vexed"
    title = "Vexed"
    counters = ("moves",)
    heat_piece = "a block"
    typical_length = 10  # moves: where a new level's rating starts
    default_algorithm = "fast"
    order = 30
    symbols = SYMBOLS

    generates = True

    def new_level(self, settings: Mapping[str, str], rng: Random) -> Made:
        """A board whose par, proved by the optimal solver, is in the difficulty's range."""
        from webapp.games.vexed.generate import generate

        return generate(settings["difficulty"], rng, settings.get("title", ""), self)

    def editor(self) -> Editor:
        from webapp.games.vexed.edit import VexedEditor

        return VexedEditor(self.symbols)

    def parse(self, text: str) -> list[Level]:
        return parse_collection(text)

    def level_text(self, level: Level) -> str:
        return level.text()

    def board_text(self, level: Level) -> str:
        return "\n".join(level.rows)

    def start(self, level: Level) -> Board:
        """The level's board, settled: a pasted board may have loose or touching blocks."""
        return rules.settle(Board(level.rows))

    def split_moves(self, moves: str) -> list[str]:
        tokens = moves.replace(",", ", ").split()
        # Rejoin "R," and "C<" halves so that "3, 4<" reads like "3,4<".
        joined: list[str] = []
        for token in tokens:
            if joined and joined[-1].endswith(","):
                joined[-1] += token
            else:
                joined.append(token)
        for token in joined:
            rules.parse_move(token)
        return joined

    def join_moves(self, tokens: Iterable[str]) -> str:
        return " ".join(tokens)

    def apply(self, level: Level, state: Board, move: str) -> Board:
        return settle_frames(level, state, move)[-1]

    def legal_moves(self, level: Level, state: Board) -> list[str]:
        return rules.legal_moves(state)

    def is_solved(self, level: Level, state: Board) -> bool:
        return rules.is_cleared(state)

    def sketch(self, level: Level) -> list[str]:
        return [row.replace("_", ".") for row in self.start(level).rows]

    def render_text(self, level: Level, state: Board) -> str:
        return state.text()

    def count(
        self, level: Level, tokens: Sequence[str], state: Board | None = None
    ) -> dict[str, int]:
        return {"moves": len(tokens)}

    def normalize_move(self, level: Level, state: Board, move: str) -> str:
        return rules.format_move(*rules.parse_move(move))

    def describe_move(self, level: Level, state: Board, move: str) -> str:
        row, column, step = rules.parse_move(move)
        side = "left" if step < 0 else "right"
        return f"slide the block in row {row + 1}, column {column + 1} {side} ({move})"

    def move_label(self, level: Level, state: Board, move: str) -> str:
        """The block's symbol as the board draws it, and an arrow: "●→"."""
        row, column, step = rules.parse_move(move)
        symbol, _name = SYMBOLS.get(state.rows[row][column], (state.rows[row][column], ""))
        return f"{symbol}{'←' if step < 0 else '→'}"

    def click(self, level: Level, state: Board, row: int, column: int) -> list[str]:
        """Nothing: the page selects a block and then a direction itself."""
        return []

    def announce(self, level: Level, before: Board | None, after: Board, move: str | None) -> str:
        """ "Circle block moved right; 2 blocks vanished. 6 blocks left." """
        words = []
        if move is not None and before is not None:
            row, column, step = rules.parse_move(move)
            _, name = SYMBOLS.get(before.rows[row][column], ("", "the"))
            side = "left" if step < 0 else "right"
            gone = _blocks(before) - _blocks(after)
            vanished = f"; {gone} {'block' if gone == 1 else 'blocks'} vanished" if gone else ""
            words.append(f"{name.capitalize()} block moved {side}{vanished}.")
        left = _blocks(after)
        words.append(
            "Solved!" if left == 0 else f"{left} {'block' if left == 1 else 'blocks'} left."
        )
        return " ".join(words)

    def algorithms(self) -> dict[str, Algorithm]:
        from webapp.games.vexed.solver import ALGORITHMS

        return ALGORITHMS

    def par(self, level: Level) -> int | None:
        return level.par

    def frames(self, level: Level, state: Board, move: str) -> list[Board]:
        """The board after the slide, after each fall and after each vanishing."""
        return settle_frames(level, state, move)[:-1]

    def warm_up(self) -> None:
        from webapp.games.vexed.warmup import warm_up

        warm_up()

    # -- checking a level (verdict.py) ------------------------------------------------------
    def unsolvable_reason(self, level: Level) -> tuple[str, tuple[tuple[int, int], ...]] | None:
        from webapp.games.vexed.verdict import unsolvable_reason

        return unsolvable_reason(level, self.symbols)


def settle_frames(level: Level, state: Board, move: str) -> list[Board]:
    """The board after the slide, after each fall and after each vanishing, in order; the last
    is the stable board ``apply`` returns. Raises MoveError or IllegalMove like ``apply``."""
    return rules.board_frames(state, move)


GAME = Vexed()

__all__ = ["GAME", "Board", "Level", "Vexed", "settle_frames"]
