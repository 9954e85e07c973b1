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

from dataclasses import dataclass, field

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


@dataclass
class Packing:
    """The packing order with parking: ``phases`` the targets to fill, phase by phase (cells,
    first phase first), goals and parking squares; ``release`` for each parking square the
    phase whose goal its box goes on to (from then on the square may stand empty)."""

    phases: list[list[int]]
    release: dict[int, int] = field(default_factory=dict)

    @property
    def targets(self) -> list[int]:
        """The parking squares, in the order their columns follow the goals' (plan)."""
        return sorted(self.release)


class _Backwards:
    """The solved boxes taken off the board backwards, one round at a time (``packing``)."""

    def __init__(self, board: Board, position: Position) -> None:
        cells, index, neighbours = square_numbers(board)
        self.cells, self.neighbours = cells, neighbours
        squares = len(cells)
        self.occupied = np.zeros(squares, np.uint8)
        self.came = np.empty(4 * squares, np.int64)
        self.queue = np.empty(4 * squares, np.int64)
        self.mark = np.zeros(squares, np.int64)
        self.stack = np.empty(squares, np.int64)
        self.live = {index[cell] for cell in cells if board.live >> cell & 1}
        self.goals = {index[cell] for cell in board.goals}
        #: The targets holding a box: goals, and squares boxes were parked on.
        self.remaining = set(self.goals)
        #: The start squares no box has been pulled back to yet.
        self.free = {index[cell] for cell in position.boxes}
        for goal in self.remaining:
            self.occupied[goal] = 1
        # Where the player may stand: anywhere at first (the level may end with it anywhere).
        self.standing = self._regions(range(squares))

    def _regions(self, squares) -> list[int]:
        """One square for each region of the player's among ``squares`` (free ones)."""
        players: dict[int, int] = {}
        for square in squares:
            if not self.occupied[square]:
                low = int(region(self.neighbours, self.occupied, square, self.mark, self.stack))
                players.setdefault(low, square)
        return list(players.values())

    def _pulls(self, target: int) -> list[int]:
        """The states (square * 4 + side) the box on ``target`` can be pulled to, the other
        boxes still, from any square the player may stand on; nearest first."""
        self.occupied[target] = 0
        reached: dict[int, None] = {}
        for player in self.standing:
            count = pull_box(
                self.neighbours, self.occupied, target, player, self.came, self.queue,
                self.mark, self.stack,
            )  # fmt: skip
            for state in self.queue[:count]:
                if self.came[state] != FIRST:
                    reached.setdefault(int(state))
        self.occupied[target] = 1
        return list(reached)

    def leavers(self) -> tuple[list[int], list[int]]:
        """The targets whose boxes can be pulled to a start square no earlier box took, each
        with the others still; and where each pull leaves the player."""
        leaving, ends, taken = [], [], set()
        for target in sorted(self.remaining):
            for state in self._pulls(target):
                if state >> 2 in self.free and state >> 2 not in taken:
                    taken.add(state >> 2)
                    leaving.append(target)
                    ends.append(int(self.neighbours[state >> 2, state & 3]))
                    break
        self.free -= taken
        return leaving, ends

    def leave(self, leaving: list[int], ends: list[int]) -> None:
        for target in leaving:
            self.occupied[target] = 0
            self.remaining.discard(target)
        self.standing = self._regions(ends)

    def parkings(self, target: int, far: list[int], parked: set[int]) -> list[tuple[int, int]]:
        """Where the box on ``target`` may be parked, the squares farthest from it (by the
        pushes back, ``far``) first: each a square no box stands or was parked on, and
        where the pull leaves the player."""
        squares: dict[int, int] = {}
        for state in self._pulls(target):
            square = state >> 2
            if square in self.goals or square in parked or square not in self.live:
                continue
            squares.setdefault(square, int(self.neighbours[square, state & 3]))
        ranked = sorted(squares.items(), key=lambda item: (-far[item[0]], item[0]))
        return ranked[:PARKINGS]

    def snapshot(self) -> tuple:
        return self.occupied.copy(), set(self.remaining), set(self.free), list(self.standing)

    def restore(self, saved: tuple) -> None:
        occupied, remaining, free, standing = saved
        self.occupied[:] = occupied
        self.remaining, self.free, self.standing = set(remaining), set(free), list(standing)

    def park(self, target: int, square: int, end: int) -> None:
        self.occupied[target], self.occupied[square] = 0, 1
        self.remaining.discard(target)
        self.remaining.add(square)
        self.standing = self._regions([end, *self.standing])


#: Parking squares tried per box (the farthest from its goal first), and the parkings a
#: packing order's search may try in all before it settles for none.
PARKINGS = 2
PARK_TRIES = 200


class _Plan:
    """The rounds of ``packing``, backwards: each the targets emptied in it, and for each
    parking square the round its box was parked in."""

    def __init__(self, board: Board, position: Position) -> None:
        self.board = board
        self.backwards = _Backwards(board, position)
        self.rounds: list[list[int]] = []
        self.parked_in: dict[int, int] = {}
        self.tries = PARK_TRIES
        self.far: dict[int, list[int]] = {}

    def clear(self) -> bool:
        """Rounds until no box can get out; True when every box has."""
        backwards = self.backwards
        while backwards.remaining:
            leaving, ends = backwards.leavers()
            if not leaving:
                return False
            backwards.leave(leaving, ends)
            self.rounds.append(leaving)
        return True

    def search(self) -> bool:
        """Rounds and, where no box can get out, a box parked (depth first, the goals in
        turn, at most PARK_TRIES parkings in all), until every box has left the board."""
        if self.clear():
            return True
        backwards = self.backwards
        for target in sorted(backwards.remaining & backwards.goals):
            for square, end in backwards.parkings(target, self._far(target), set(self.parked_in)):
                if self.tries <= 0:
                    return False
                self.tries -= 1
                saved, rounds = backwards.snapshot(), len(self.rounds)
                backwards.park(target, square, end)
                self.rounds.append([target])
                self.parked_in[square] = rounds
                if self.search():
                    return True
                backwards.restore(saved)
                del self.rounds[rounds:]
                del self.parked_in[square]
        return False

    def _far(self, target: int) -> list[int]:
        """The pushes on an empty board from each square to ``target`` (square numbers)."""
        if target not in self.far:
            cells = self.backwards.cells
            table = self.board.distances_to([cells[target]])
            self.far[target] = [table[cell][0] for cell in cells]
        return self.far[target]


def packing(board: Board, position: Position, parking: bool = True) -> Packing:
    """The targets in the order to fill them, by phases, worked out backwards from the solved
    boxes: each round, every box that can be pulled from its target, the other boxes still,
    to a start square no earlier box took leaves the board; those targets are the last phase
    not yet placed. Where no box can, and ``parking``, a box is pulled off its goal to a
    parking square, as far from the goal as it goes (a depth-first search over which box
    and where, until every box has left): forwards, that box is brought to the parking
    square first and goes on to its goal in the phase the goal is filled (``release``).
    Without parking, or when no parking gets every box out, targets whose boxes cannot get
    out form the first phase."""
    plan = _Plan(board, position)
    if not (parking and plan.search()):
        plan = _Plan(board, position)
        plan.clear()
    cells, rounds = plan.backwards.cells, plan.rounds
    lump = sorted(plan.backwards.remaining)
    first = 1 if lump else 0
    phases = [sorted(cells[target] for target in targets) for targets in reversed(rounds)]
    if lump:
        phases.insert(0, sorted(cells[target] for target in lump))
    release = {
        cells[square]: first + len(rounds) - 1 - number for square, number in plan.parked_in.items()
    }
    return Packing(phases, release)


def packing_order(board: Board, position: Position) -> list[list[int]]:
    """The goals in the order to fill them, by phases (cells, first phase first), without
    parking (``packing``)."""
    return packing(board, position, parking=False).phases


def plan_distances(
    board: Board, phases: list[list[int]], parking: list[int] | None = None
) -> list[tuple[int, ...]]:
    """For each cell, the pushes taking a lone box from there to each goal (``board.goals``
    order, then the ``parking`` squares) when the goals of earlier phases hold boxes that are
    frozen there by then: those boxes are walls (one pass in goal order drops any that is
    not frozen)."""
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
    targets = [*board.goals, *(parking or [])]
    return [tuple(columns[target][cell] for target in targets) for cell in range(size)]
