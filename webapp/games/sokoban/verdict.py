"""What can be told of a Sokoban level without a search: the squares from which a box can
never reach a goal, and a proof that the level cannot be solved (a box off goal on such a
square, or a box off goal that can never move again). The editor shows both as a designer
draws; ``webapp/checking.py`` tries the proof before any search."""

from __future__ import annotations

from webapp.games.sokoban.board import FAR, Board, cells_of, mask_of
from webapp.games.sokoban.level import Level
from webapp.games.sokoban.matching import assignment_cost

DEAD_BOX = "a box on a square from which no goal can be reached"
FROZEN_BOX = "a box off goal that can never move again (walls and boxes hold it)"


def dead_squares(level: Level) -> frozenset[tuple[int, int]]:
    """The floor squares from which a lone box can be pushed to no goal (the solvers'
    simple deadlocks: a corner, a wall with no goal along it)."""
    return frozenset(level.row_col(cell) for cell in cells_of(Board(level).dead))


def unsolvable_reason(level: Level) -> tuple[str, tuple[tuple[int, int], ...]] | None:
    """A box off goal on a dead square, else a frozen box off goal, with its squares."""
    board = Board(level)
    dead = sorted(cell for cell in level.boxes - level.goals if board.is_dead_square(cell))
    if dead:
        return DEAD_BOX, tuple(level.row_col(cell) for cell in dead)
    boxes = mask_of(level.boxes)
    frozen = sorted(
        cell for cell in level.boxes - level.goals if board.freeze_deadlock(boxes, cell)
    )
    if frozen:
        return FROZEN_BOX, tuple(level.row_col(cell) for cell in frozen)
    return None


def start_bound(level: Level) -> int | None:
    """The fewest pushes any solution takes at least: every box to a goal of its own, each by
    its fewest pushes alone (the assignment of least total); None where no assignment keeps
    every box off a dead square."""
    board = Board(level)
    costs = [list(board.distances[box]) for box in sorted(level.boxes)]
    total = assignment_cost(costs)
    return total if total < FAR else None
