"""A Sokoban level compiled for search: bitboards, dead squares, push distances, deadlocks.

Cell sets are Python ints used as bitboards (bit ``row * width + column``), so the player's
reachable region and every legal push come out of a handful of shifts and masks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import numpy as np

from webapp.games.sokoban.level import Level
from webapp.games.sokoban.position import Position

#: A distance larger than any real push count: "this box can never get there".
FAR = 1_000_000

#: Direction letters with their (row, column) steps, in LURD order.
STEPS = (("l", 0, -1), ("u", -1, 0), ("r", 0, 1), ("d", 1, 0))


def lowest_cell(bits: int) -> int:
    """The lowest set bit's cell number: the normal square of a player region, say."""
    return (bits & -bits).bit_length() - 1


def cells_of(bits: int) -> Iterator[int]:
    """The cell numbers of the set bits, lowest first."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def mask_of(cells: frozenset[int] | set[int]) -> int:
    bits = 0
    for cell in cells:
        bits |= 1 << cell
    return bits


class Board:
    """The fixed part of a level, with the tables every solver shares."""

    def __init__(self, level: Level):
        self.level = level
        width = self.width = level.width
        self.floor = mask_of(level.floor)
        self.goal_mask = mask_of(level.goals)
        self.goals = sorted(level.goals)
        #: (letter, offset) per direction, LURD order.
        self.directions = tuple((letter, dr * width + dc) for letter, dr, dc in STEPS)
        self.distances = self.distances_to(self.goals)
        self.nearest = [min(row) if row else FAR for row in self.distances]
        live = 0
        for cell, near in enumerate(self.nearest):
            if near < FAR:
                live |= 1 << cell
        #: Squares a box may stand on and still reach some goal.
        self.live = live & self.floor
        self.dead = self.floor & ~self.live
        self.walls = ((1 << (width * level.height)) - 1) & ~self.floor

    # -- tables -----------------------------------------------------------------------------
    def distances_to(self, targets: list[int], walls: int = 0) -> list[tuple[int, ...]]:
        """For each cell, the fewest pushes taking a lone box from there to each of
        ``targets`` (FAR where it cannot get there), the cells of ``walls`` walled up."""
        size = self.width * self.level.height
        floor = {cell for cell in self.level.floor if not walls >> cell & 1}
        offsets = [offset for _, offset in self.directions]
        columns: list[list[int]] = []
        for target in targets:
            distance = [FAR] * size
            distance[target] = 0
            queue = deque([target])
            while queue:
                cell = queue.popleft()
                for offset in offsets:
                    # Pulling the box one square needs floor for it and for the player behind.
                    pulled = cell + offset
                    if pulled in floor and pulled + offset in floor and distance[pulled] == FAR:
                        distance[pulled] = distance[cell] + 1
                        queue.append(pulled)
            columns.append(distance)
        return [tuple(column[cell] for column in columns) for cell in range(size)]

    def distances_from(self, starts: list[int]) -> list[tuple[int, ...]]:
        """For each cell, the fewest pushes taking a lone box from each of ``starts`` there:
        the bound a search pulling boxes back to their start squares needs."""
        size = self.width * self.level.height
        floor = self.level.floor
        offsets = [offset for _, offset in self.directions]
        columns: list[list[int]] = []
        for start in starts:
            distance = [FAR] * size
            distance[start] = 0
            queue = deque([start])
            while queue:
                cell = queue.popleft()
                for offset in offsets:
                    pushed = cell + offset
                    if pushed in floor and cell - offset in floor and distance[pushed] == FAR:
                        distance[pushed] = distance[cell] + 1
                        queue.append(pushed)
            columns.append(distance)
        return [tuple(column[cell] for column in columns) for cell in range(size)]

    def pulls(self, boxes: int, reach: int) -> Iterator[tuple[int, int, int]]:
        """Each (box cell, offset, direction index) pull from this region: the player, next
        to the box on the far side from ``offset``, steps back by ``offset`` onto free floor,
        and the box follows it one square; the box then stands at box - offset."""
        free = self.floor & ~boxes
        for direction, (_, offset) in enumerate(self.directions):
            if offset > 0:
                movable = boxes & (reach << offset) & (free << 2 * offset)
            else:
                movable = boxes & (reach >> -offset) & (free >> -2 * offset)
            while movable:
                low = movable & -movable
                yield low.bit_length() - 1, offset, direction
                movable ^= low

    # -- positions --------------------------------------------------------------------------
    def boxes_of(self, position: Position) -> int:
        return mask_of(position.boxes)

    def position(self, player: int, boxes: int) -> Position:
        return Position(player, frozenset(cells_of(boxes)))

    def reach(self, player: int, boxes: int) -> int:
        """The squares the player can walk to without pushing."""
        free = self.floor & ~boxes
        width = self.width
        region = frontier = 1 << player
        while frontier:
            grown = (frontier << 1 | frontier >> 1 | frontier << width | frontier >> width) & free
            frontier = grown & ~region
            region |= frontier
        return region

    def pushes(self, boxes: int, reach: int) -> Iterator[tuple[int, int, int]]:
        """Each (box cell, offset, direction index) push from this region onto a live free
        square."""
        open_ = self.live & ~boxes
        for direction, (_, offset) in enumerate(self.directions):
            if offset > 0:
                movable = boxes & (reach << offset) & (open_ >> offset)
            else:
                movable = boxes & (reach >> -offset) & (open_ << -offset)
            while movable:
                low = movable & -movable
                yield low.bit_length() - 1, offset, direction
                movable ^= low

    def tunnels(self) -> tuple[int, ...]:
        """Per direction (LURD), the floor squares with walls on both sides across it: a box
        there moves only along the direction, a player there cannot step round it."""
        width, walls = self.width, self.walls
        # Bit i of walls << width is the wall at i - width: the square above i.
        horizontal = self.floor & (walls << width) & (walls >> width)
        vertical = self.floor & (walls << 1) & (walls >> 1)
        return (horizontal, vertical, horizontal, vertical)

    def grow(self, cells: int) -> int:
        """The cells and their four neighbours."""
        width = self.width
        return cells | cells << 1 | cells >> 1 | cells << width | cells >> width

    def corral_pushes(self, boxes: int, reach: int) -> list[tuple[int, int, int]] | None:
        """The pushes into the smallest PI-corral, or None when there is none.

        A corral is a pocket of floor the player cannot reach, fenced by walls and boxes. When
        every push of a fence box that could ever happen before the fence is touched goes into
        the pocket (I), and the player can make each of those pushes now (P), some solution
        starts with one of them, so the search may ignore every other push. An empty list
        means the position is dead: the pocket needs a box moved and none can be.
        """
        outside = self.floor & ~boxes & ~reach
        if not outside:
            return None
        width = self.width
        live, walls, goals = self.live, self.walls, self.goal_mask
        best: list[tuple[int, int, int]] | None = None
        while outside:
            pocket = frontier = outside & -outside
            while frontier:
                grown = frontier << 1 | frontier >> 1 | frontier << width | frontier >> width
                frontier = grown & outside & ~pocket
                pocket |= frontier
            outside &= ~pocket
            fence = boxes & self.grow(pocket)
            if not (pocket & goals or fence & ~goals):
                continue  # nothing to do in there: a solution may never touch it
            stuck_target = walls | (self.floor & ~live) | fence
            stuck_source = walls | pocket | fence
            may_push_from = reach | stuck_source
            pushes: list[tuple[int, int, int]] | None = []
            for direction, (_, offset) in enumerate(self.directions):
                if offset > 0:
                    into = fence & ((pocket & live) >> offset)
                    away = fence & ~(pocket >> offset) & ~(stuck_target >> offset)
                    away &= ~(stuck_source << offset)
                    unreachable = into & ~(may_push_from << offset)
                    doable = into & (reach << offset)
                else:
                    into = fence & ((pocket & live) << -offset)
                    away = fence & ~(pocket << -offset) & ~(stuck_target << -offset)
                    away &= ~(stuck_source >> -offset)
                    unreachable = into & ~(may_push_from >> -offset)
                    doable = into & (reach >> -offset)
                if away or unreachable:
                    pushes = None
                    break
                while doable:
                    low = doable & -doable
                    doable ^= low
                    pushes.append((low.bit_length() - 1, offset, direction))
            if pushes is not None and (best is None or len(pushes) < len(best)):
                best = pushes
                if not best:
                    break
        return best

    # -- deadlocks --------------------------------------------------------------------------
    def is_dead_square(self, cell: int) -> bool:
        return bool(self.dead >> cell & 1)

    def freeze_deadlock(self, boxes: int, cell: int) -> bool:
        """True when the box on ``cell`` can never move again and it, or a box frozen with
        it, is off goal."""
        frozen: list[int] = []
        if not self._frozen(boxes, cell, 0, frozen):
            return False
        goals = self.goal_mask
        return any(not goals >> box & 1 for box in frozen)

    def _frozen(self, boxes: int, cell: int, assumed: int, out: list[int]) -> bool:
        # The box under test counts as a wall while its neighbours are examined: if they are
        # stuck given that, they hold it in place too.
        assumed |= 1 << cell
        solid = ~self.floor | assumed
        dead = self.dead
        found: list[int] = []
        for step in (1, self.width):
            before, after = cell - step, cell + step
            if solid >> before & 1 or solid >> after & 1:
                continue
            if dead >> before & 1 and dead >> after & 1:
                continue
            if boxes >> before & 1 and self._frozen(boxes, before, assumed, found):
                continue
            if boxes >> after & 1 and self._frozen(boxes, after, assumed, found):
                continue
            return False
        out.extend(found)
        out.append(cell)
        return True


def square_numbers(board: Board) -> tuple[list[int], dict[int, int], np.ndarray]:
    """The floor's cells in order, each cell's number, and each number's neighbours in the
    four directions (-1 for a wall), as the compiled code takes them."""
    cells = sorted(board.level.floor)
    index = {cell: number for number, cell in enumerate(cells)}
    neighbours = np.full((len(cells), 4), -1, np.int64)
    for number, cell in enumerate(cells):
        for direction, (_, offset) in enumerate(board.directions):
            neighbours[number, direction] = index.get(cell + offset, -1)
    return cells, index, neighbours
