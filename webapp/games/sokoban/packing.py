"""The packing order: the goals by phases, in the order a player fills them.

Where goals must be filled in order (a room with one door, a row of goals down a dead end),
a forward search greedy on the pushes still needed parks a box on a goal near the door early
and then works through every position behind it. Backwards the order is plain: with every
box on a goal, a box that can be pulled out, the others still on theirs, to a square some
box starts on, is one the forward solution may bring in last. ``packing_order`` works it out
so, round by round: the boxes that can get out in a round leave the board together and their
goals make one phase, the last not yet placed; goals whose boxes can never get out make the
first. The plan search (plan.py) then fills the goals in that order above all, phase by
phase: an order, not a cut. ``plan_distances`` gives it the push distances to each goal
with the boxes of earlier phases, frozen there by then, as walls.

One box's pulls (``pull_box``) are a breadth-first search over the box's square and the side
of it the player stands on, the player's reach worked out afresh at each; it runs compiled,
as the fast solver's searches do (kernels.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from webapp.games.sokoban.board import Board, square_numbers
from webapp.games.sokoban.kernels import _reach
from webapp.games.sokoban.position import Position

#: Came-from value of a start state (the box on its goal, not pulled yet).
FIRST = -2
#: Came-from value of a state not reached.
UNREACHED = -1


@njit(cache=True)
def pull_box(neighbours, occupied, start, player, came, queue, mark, stack):  # pragma: no cover
    """Pull the box on ``start`` about, every other box (``occupied``) standing still, the
    player setting off from ``player``. States are ``square * 4 + side``: the box on the
    square, the player on its neighbour ``side``. ``came[state]`` becomes the state it was
    pulled from (FIRST for a state the player reaches before any pull, UNREACHED if none);
    ``queue[:count]`` lists the states reached in order of pulls. Returns that count."""
    came[:] = UNREACHED
    occupied[start] = 1
    stamp = mark.max() + 1
    _reach(player, occupied, neighbours, mark, stamp, stack)
    count = 0
    for side in range(4):
        square = neighbours[start, side]
        if square >= 0 and mark[square] == stamp:
            came[start * 4 + side] = FIRST
            queue[count] = start * 4 + side
            count += 1
    occupied[start] = 0
    head = 0
    while head < count:
        state = queue[head]
        head += 1
        box = state >> 2
        occupied[box] = 1
        stamp += 1
        _reach(neighbours[box, state & 3], occupied, neighbours, mark, stamp, stack)
        for side in range(4):
            # The player steps from the box's side ``side`` one further; the box follows.
            stand = neighbours[box, side]
            if stand < 0 or mark[stand] != stamp:
                continue
            step = neighbours[stand, side]
            if step < 0 or occupied[step]:
                continue
            pulled = stand * 4 + side
            if came[pulled] == UNREACHED:
                came[pulled] = state
                queue[count] = pulled
                count += 1
        occupied[box] = 0
    return count


@njit(cache=True)
def region(neighbours, occupied, player, mark, stack):  # pragma: no cover - compiled
    """The lowest square of the player's region (it names the region)."""
    return _reach(player, occupied, neighbours, mark, mark.max() + 1, stack)


def packing_order(board: Board, position: Position) -> list[list[int]]:
    """The goals in the order to fill them, by phases (cells, first phase first).

    Worked out backwards from the solved boxes: each round, every box that can be pulled
    from its goal, the other boxes still on theirs, to a start square no earlier box took
    leaves the board; those goals are the last phase not yet placed. Goals whose boxes
    cannot get out form the first phase."""
    cells, index, neighbours = square_numbers(board)
    squares = len(cells)
    occupied = np.zeros(squares, np.uint8)
    came = np.empty(4 * squares, np.int64)
    queue = np.empty(4 * squares, np.int64)
    mark = np.zeros(squares, np.int64)
    stack = np.empty(squares, np.int64)
    remaining = {index[cell] for cell in board.goals}
    free = {index[cell] for cell in position.boxes}
    for goal in remaining:
        occupied[goal] = 1
    # Where the player may stand: anywhere at first (the level may end with it anywhere).
    players = {}
    for square in range(squares):
        if not occupied[square]:
            players.setdefault(int(region(neighbours, occupied, square, mark, stack)), square)
    standing = list(players.values())
    phases: list[list[int]] = []
    while remaining:
        leaving, ends = [], []
        for goal in sorted(remaining):
            occupied[goal] = 0
            best = None
            for player in standing:
                count = pull_box(neighbours, occupied, goal, player, came, queue, mark, stack)
                for state in queue[:count]:
                    if state >> 2 in free and came[state] != FIRST:
                        best = int(state)
                        break
                if best is not None:
                    break
            occupied[goal] = 1
            if best is not None:
                free.discard(best >> 2)
                leaving.append(goal)
                ends.append(int(neighbours[best >> 2, best & 3]))
        if not leaving:
            break
        for goal in leaving:
            occupied[goal] = 0
            remaining.discard(goal)
        phases.append(sorted(cells[goal] for goal in leaving))
        # Where the pulls left the player, one square for each region (the same reach).
        regions = {int(region(neighbours, occupied, end, mark, stack)): end for end in ends}
        standing = list(regions.values())
    if remaining:
        phases.append(sorted(cells[goal] for goal in remaining))
    phases.reverse()
    return phases


def plan_distances(board: Board, phases: list[list[int]]) -> list[tuple[int, ...]]:
    """For each cell, the pushes taking a lone box from there to each goal (``board.goals``
    order) when the goals of earlier phases hold boxes that are frozen there by then: those
    boxes are walls (one pass in goal order drops any that is not frozen)."""
    phase_of = {goal: number for number, phase in enumerate(phases) for goal in phase}
    columns: dict[int, tuple[int, ...]] = {}
    for number in range(len(phases)):
        earlier = [goal for goal in board.goals if phase_of.get(goal, number) < number]
        walls = 0
        for goal in earlier:
            walls |= 1 << goal
        for goal in earlier:
            if not board._frozen(walls, goal, 0, []):
                walls &= ~(1 << goal)
        table = board.distances_to(phases[number], walls)
        for column, goal in enumerate(phases[number]):
            columns[goal] = tuple(row[column] for row in table)
    size = board.width * board.level.height
    return [tuple(columns[goal][cell] for goal in board.goals) for cell in range(size)]
