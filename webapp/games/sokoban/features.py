"""FESS's hot loops compiled (numba, as kernels.py): its moves (one box taken everywhere it
can be pushed, ``box_paths``) and its two floor features, the regions the boxes cut the free
floor into and the links between rooms of open floor the boxes cut (fess.py).

All are floods over square numbers (board.square_numbers), and were most of the time FESS
took per child in CPython bitboards; here a child costs a few microseconds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from webapp.games.sokoban.board import Board, cells_of, square_numbers
from webapp.games.sokoban.kernels import _reach

#: Rooms beyond this many are not told apart (their links are not counted).
MOST_ROOMS = 62


@njit(cache=True)
def regions(occupied, neighbours, mark, stack):  # pragma: no cover - compiled
    """The regions of free squares (not ``occupied``), side by side."""
    mark[:] = 0
    count = 0
    for square in range(occupied.shape[0]):
        if occupied[square] or mark[square]:
            continue
        count += 1
        mark[square] = 1
        stack[0] = square
        top = 1
        while top:
            top -= 1
            here = stack[top]
            for direction in range(4):
                there = neighbours[here, direction]
                if there >= 0 and occupied[there] == 0 and mark[there] == 0:
                    mark[there] = 1
                    stack[top] = there
                    top += 1
    return count


@njit(cache=True)
def touches(occupied, neighbours, room_of, rooms, touched, mark, done, stack):  # pragma: no cover
    """For each room, the rooms (bits) that every free part of it touches, walking through
    its own squares and the corridors (``room_of`` -1); none for a room full of boxes. A
    part touches a room when it walks next to one of its squares, a box on it or not."""
    touched[:] = -1
    mark[:] = 0
    done[:] = 0
    free = np.zeros(rooms, np.uint8)
    stamp = 0
    for start in range(occupied.shape[0]):
        room = room_of[start]
        if room < 0 or occupied[start] or done[start]:
            continue
        free[room] = 1
        stamp += 1
        seen = 0
        mark[start], done[start] = stamp, 1
        stack[0] = start
        top = 1
        while top:
            top -= 1
            here = stack[top]
            for direction in range(4):
                there = neighbours[here, direction]
                if there < 0:
                    continue
                other = room_of[there]
                if other >= 0 and other != room:
                    seen |= 1 << other
                elif occupied[there] == 0 and mark[there] != stamp:
                    mark[there] = stamp
                    if other == room:
                        done[there] = 1
                    stack[top] = there
                    top += 1
        touched[room] &= seen
    for room in range(rooms):
        if not free[room]:
            touched[room] = 0


@njit(cache=True)
def cut_links(
    occupied, neighbours, room_of, rooms, base, touched, mark, done, stack
):  # pragma: no cover
    """The links of ``base`` (pairs of rooms each touching the other in the empty level)
    that the boxes cut."""
    touches(occupied, neighbours, room_of, rooms, touched, mark, done, stack)
    cut = 0
    for one in range(rooms):
        for other in range(one + 1, rooms):
            if base[one, other] and not (touched[one] >> other & 1 and touched[other] >> one & 1):
                cut += 1
    return cut


@njit(cache=True)
def box_paths(
    neighbours,
    occupied,
    live,
    start,
    player,
    came,
    pushed,
    ends,
    lows,
    walkers,
    seen,
    stamp,
    mark,
    reached,
    stack,
):  # pragma: no cover - compiled
    """Breadth-first over the squares the box on ``start`` reaches by pushes, the other boxes
    (``occupied``, without it) still, the player setting off from ``player``. State 0 is the
    start; state i has the box on
    ``ends[i]``, the player on ``walkers[i]`` in the region whose lowest square is
    ``lows[i]``, and came from state ``came[i]`` by a push in direction ``pushed[i]``.
    ``seen[square, low] == stamp`` marks a state reached. Returns the number of states."""
    occupied[start] = 1
    step = mark.max() + 1
    ends[0], walkers[0], came[0], pushed[0] = start, player, -1, -1
    lows[0] = _reach(player, occupied, neighbours, reached, reached.max() + 1, stack)
    seen[start, lows[0]] = stamp
    occupied[start] = 0
    count, head = 1, 0
    while head < count:
        state, head = head, head + 1
        box = ends[state]
        occupied[box] = 1
        step += 1
        _reach(walkers[state], occupied, neighbours, mark, step, stack)
        for direction in range(4):
            behind, ahead = neighbours[box, (direction + 2) % 4], neighbours[box, direction]
            if behind < 0 or ahead < 0 or mark[behind] != step:
                continue
            if occupied[ahead] or not live[ahead]:
                continue
            occupied[box], occupied[ahead] = 0, 1
            low = _reach(box, occupied, neighbours, reached, reached.max() + 1, stack)
            occupied[box], occupied[ahead] = 1, 0
            if seen[ahead, low] == stamp:
                continue
            seen[ahead, low] = stamp
            ends[count], walkers[count], lows[count] = ahead, box, low
            came[count], pushed[count] = state, direction
            count += 1
        occupied[box] = 0
    return count


class Floor:
    """The level's squares for the two compiled features, and scratch arrays for them."""

    def __init__(self, board: Board, rooms: list[int]) -> None:
        cells, self.index, self.neighbours = square_numbers(board)
        size = len(cells)
        rooms = rooms if len(rooms) <= MOST_ROOMS else []
        self.rooms = len(rooms)
        self.room_of = np.full(size, -1, np.int64)
        for number, room in enumerate(rooms):
            for cell in cells_of(room):
                self.room_of[self.index[cell]] = number
        self.occupied = np.zeros(size, np.uint8)
        #: The boxes ``occupied`` holds.
        self.loaded = 0
        self.mark = np.zeros(size, np.int64)
        self.done = np.zeros(size, np.uint8)
        self.stack = np.empty(size, np.int64)
        self.touched = np.zeros(max(1, self.rooms), np.int64)
        self.base = np.zeros((max(1, self.rooms), max(1, self.rooms)), np.uint8)
        self.cells = cells
        self.live = np.array([board.live >> cell & 1 for cell in cells], np.uint8)
        self.reached = np.zeros(size, np.int64)
        self.seen = np.zeros((size, size), np.int64)
        self.stamp = 0
        self.states = [np.empty(size * size, np.int64) for _ in range(5)]
        touched = self._touched(0)
        for one in range(self.rooms):
            for other in range(self.rooms):
                mutual = touched[one] >> other & 1 and touched[other] >> one & 1
                self.base[one, other] = one != other and mutual

    def _load(self, boxes: int) -> None:
        """Put ``boxes`` on the squares: a child's boxes differ from its parent's, or from
        the parent's without the box being moved, in a square or two, so only those change."""
        occupied, index = self.occupied, self.index
        changed = boxes ^ self.loaded
        if changed.bit_count() > 4:
            occupied[:] = 0
            changed = boxes
        for cell in cells_of(changed):
            occupied[index[cell]] = boxes >> cell & 1
        self.loaded = boxes

    def _touched(self, boxes: int) -> list[int]:
        self._load(boxes)
        touches(
            self.occupied, self.neighbours, self.room_of, self.rooms, self.touched,
            self.mark, self.done, self.stack,
        )  # fmt: skip
        return [int(bits) for bits in self.touched[: self.rooms]]

    def links(self, boxes: int) -> frozenset[tuple[int, int]]:
        """Pairs of rooms linked with ``boxes`` on the floor."""
        touched = self._touched(boxes)
        return frozenset(
            (one, other)
            for one in range(self.rooms)
            for other in range(one + 1, self.rooms)
            if touched[one] >> other & 1 and touched[other] >> one & 1
        )

    def features(self, boxes: int) -> tuple[int, int]:
        """The regions of free floor, and the links of the empty level the boxes cut."""
        self._load(boxes)
        count = regions(self.occupied, self.neighbours, self.mark, self.stack)
        if self.rooms < 2:
            return count, 0
        cut = cut_links(
            self.occupied, self.neighbours, self.room_of, self.rooms, self.base,
            self.touched, self.mark, self.done, self.stack,
        )  # fmt: skip
        return count, int(cut)

    def box_paths(
        self, boxes: int, box: int, player: int
    ) -> list[tuple[int, int, int | tuple[int, ...], int, int]]:
        """Where the box on ``box`` can be pushed, the other boxes still, the player on
        ``player``: for each square and player region, (box, the square, the pushes there,
        where the player ends, the lowest cell of its region)."""
        index, cells = self.index, self.cells
        self._load(boxes & ~(1 << box))
        self.stamp += 1
        came, pushed, ends, lows, walkers = self.states
        count = box_paths(
            self.neighbours, self.occupied, self.live, index[box], index[player],
            came, pushed, ends, lows, walkers, self.seen, self.stamp, self.mark,
            self.reached, self.stack,
        )  # fmt: skip
        ends_, walkers_, lows_ = (array[:count].tolist() for array in (ends, walkers, lows))
        came_, pushed_ = came[:count].tolist(), pushed[:count].tolist()
        moves = []
        # Each state's pushes as (the pushes to the state it came from, its push): a chain
        # that ``fess.flat`` unrolls for the one move expanded, not for each of them.
        paths: list = [None]
        for state in range(1, count):
            before = came_[state]
            push = cells[ends_[before]] << 2 | pushed_[state]
            path = push if before == 0 else (paths[before], push)
            paths.append(path)
            moves.append(
                (box, cells[ends_[state]], path, cells[walkers_[state]], cells[lows_[state]])
            )
        return moves
