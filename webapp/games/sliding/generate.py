"""Sliding puzzles of a chosen difficulty: a position exactly the asked number of moves from
solved, proved by the optimal solver.

A random walk from the solved board lands somewhere; the optimal solver gives its shortest
way home; every position on a shortest way is itself that many moves from home as are left
on it, so the position with exactly ``distance`` moves left is taken from the path. If the
walk landed too close, it walks on and tries again.
"""

from __future__ import annotations

from random import Random

from webapp.games.base import Made
from webapp.games.sliding.level import Level, goal, neighbours
from webapp.search import Limits

#: Board size -> difficulty -> the exact optimal distance. The 15-puzzle's board is the
#: default: the 8-puzzle has few positions at any one distance, so its seeds may meet.
BANDS = {
    "4x4": {"easy": 12, "medium": 20, "hard": 30, "expert": 40},
    "3x3": {"easy": 10, "medium": 16, "hard": 22, "expert": 28},
    "5x5": {"easy": 12, "medium": 18, "hard": 24, "expert": 30},
}
#: The optimal solver's budget, in positions expanded, for one walk's end.
NODES = 20_000_000


def walk(rows: int, cols: int, tiles: tuple[int, ...], steps: int, rng: Random) -> tuple[int, ...]:
    """``steps`` random moves of the hole, never straight back."""
    board = list(tiles)
    hole = board.index(0)
    previous = -1
    for _ in range(steps):
        cell = rng.choice([n for n in neighbours(rows, cols, hole) if n != previous])
        board[hole], board[cell] = board[cell], 0
        previous, hole = hole, cell
    return tuple(board)


def position_at(
    rows: int, cols: int, distance: int, rng: Random, game: object
) -> tuple[tuple[int, ...], list[str], dict[str, float]]:
    """A position exactly ``distance`` moves from solved, proved by the optimal solver: its
    tiles, a shortest solution, and what finding it took."""
    from webapp.games.solving import solve

    tiles = goal(rows, cols)
    while True:
        tiles = walk(rows, cols, tiles, distance + 6, rng)
        level = Level(rows, cols, tiles)
        result = solve(game, level, "idastar", limits=Limits(seconds=None, nodes=NODES))  # type: ignore[arg-type]
        if not result.solved or result.moves is None or len(result.moves) < distance:
            continue  # too close to home (or too hard to prove): walk on
        state = tiles
        for move in result.moves[: len(result.moves) - distance]:
            state = game.apply(level, state, move)  # type: ignore[attr-defined]
        solution = result.moves[len(result.moves) - distance :]
        return state, solution, {"expanded": result.expanded, "walked": len(result.moves)}


def generate(difficulty: str, rng: Random, title: str, game: object, size: str = "4x4") -> Made:
    rows, cols = (int(side) for side in size.split("x"))
    distance = BANDS[size][difficulty]
    state, solution, found = position_at(rows, cols, distance, rng, game)
    made = Level(rows, cols, state, title=title, known_optimal=distance)
    measures = {"optimum": distance, **found}
    return Made(made, solution, distance, "moves", True, measures)
