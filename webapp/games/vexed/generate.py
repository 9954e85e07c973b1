"""Vexed levels of a chosen difficulty: random terrain and blocks, kept when the optimal
solver proves a par in the difficulty's range.

A board is a random floor of solid columns with a few ledges, and pairs and triples of each
colour dropped onto it; a board whose blocks would already touch their own colour, or that
has a colour with one block, is drawn again. The solver's A* (optimal when it finishes) runs
within a count of positions, so the same seed gives the same level; its proved optimum is
the level's par.
"""

from __future__ import annotations

from random import Random
from typing import Any

from webapp.games.base import Made
from webapp.games.vexed.level import COLOURS, EMPTY, SOLID, Level
from webapp.games.vexed.rules import Board, settle
from webapp.search import Limits

#: Difficulty -> (width, height, colours, blocks a colour at most, the par's range).
BANDS = {
    "easy": (6, 5, 2, 3, (4, 7)),
    "medium": (7, 6, 3, 3, (8, 11)),
    "hard": (8, 7, 4, 3, (12, 16)),
    "expert": (9, 8, 5, 3, (17, 40)),
}
#: Positions the solver may expand proving one board's par.
NODES = 400_000
#: Boards drawn before the band takes the hardest proved one it found.
TRIES = 300


def _board(rng: Random, width: int, height: int, colours: int, most: int) -> Board | None:
    """A random settled board; None when it is not a fair puzzle (a lone colour, blocks that
    would vanish at once)."""
    grid = [[EMPTY] * width for _ in range(height)]
    for column in range(width):  # the floor: each column solid up to a random height
        for row in range(height - rng.choice((1, 1, 1, 2, 2, 3)), height):
            grid[row][column] = SOLID
    for _ in range(rng.randint(0, width // 3)):  # a ledge or two
        row, column = rng.randrange(1, height - 2), rng.randrange(width)
        for cell in range(column, min(width, column + rng.randint(1, 2))):
            grid[row][cell] = SOLID
    blocks = []
    for colour in COLOURS[:colours]:
        blocks += [colour] * rng.randint(2, most)
    rng.shuffle(blocks)
    for colour in blocks:  # dropped from the top of a random open column
        columns = [c for c in range(width) if grid[0][c] == EMPTY]
        if not columns:
            return None
        column = rng.choice(columns)
        row = 0
        while row + 1 < height and grid[row + 1][column] == EMPTY:
            row += 1
        grid[row][column] = colour
    board = Board(tuple("".join(row) for row in grid))
    if settle(board) != board:
        return None  # two of a colour touch already
    return board


def generate(difficulty: str, rng: Random, title: str, game: Any) -> Made:
    from webapp.games.solving import solve

    width, height, colours, most, (low, high) = BANDS[difficulty]
    best: tuple[int, Level, list[str], int] | None = None
    boards = 0
    for _ in range(TRIES):
        board = _board(rng, width, height, colours, most)
        if board is None:
            continue
        boards += 1
        level = Level(board.rows)
        result = solve(game, level, "fast", limits=Limits(seconds=None, nodes=NODES))
        if not result.solved or not result.optimal or result.moves is None:
            continue
        par = len(result.moves)
        off = max(low - par, par - high, 0)  # how far outside the band
        if best is None or off < best[0]:
            best = (off, level, result.moves, result.expanded)
        if off == 0:
            break
    if best is None:
        raise RuntimeError(f"no {difficulty} Vexed board proved within {TRIES} tries")
    _off, level, moves, expanded = best
    par = len(moves)
    measures = {"optimum": par, "expanded": expanded, "boards": boards}
    headers = (("difficulty", difficulty), ("expanded", str(expanded)))
    made = Level(level.rows, title=title, par=par, headers=headers)
    return Made(made, list(moves), par, "moves", True, measures)
