"""An admissible, consistent lower bound on the moves left in a Vexed position.

Each move slides one block of one colour, so a bound per colour adds up. A colour's blocks
vanish in groups of two or more that touch at the moment they vanish; a block never rises and
never passes through solid cells. Two relaxed costs follow (docs/vexed-solver.md has proofs):
the empty columns inside a group's span, and the cheapest way for two blocks to meet if each
could walk alone along a path that only goes sideways (one move a cell) or down (free).
"""

from __future__ import annotations

from collections import deque

from webapp.games.vexed.compact import Compact

INF = 10**6
#: Colours with more blocks than this get the cheaper "everyone needs a partner" bound.
LARGE_COLOUR = 6


class Bounds:
    """Per-level tables for the lower bound, filled lazily and kept for the whole search."""

    def __init__(self, compact: Compact):
        self.compact = compact
        self.stride = compact.stride
        self.cells = compact.cells
        self.open = [False] * compact.size
        for cell in compact.cells:
            self.open[cell] = True
        self._reach: dict[int, list[int]] = {}
        self._near: dict[int, list[int]] = {}
        self._pair: dict[tuple[int, int], int] = {}
        self._colour: dict[tuple[int, ...], int] = {}
        self._by_mask: dict[bytes, int] = {}
        self._stars: dict[tuple[int, ...], int] = {}
        colours = sorted({compact.byte(ch) for row in compact.level.rows for ch in row} - {0, 1})
        self._masks = [bytes(1 if i == colour else 0 for i in range(256)) for colour in colours]

    def reach(self, start: int) -> list[int]:
        """Sideways moves a lone block at ``start`` needs to reach each cell (INF: never)."""
        known = self._reach.get(start)
        if known is not None:
            return known
        stride, open_ = self.stride, self.open
        cost = [INF] * len(open_)
        cost[start] = 0
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            here = cost[cell]
            below = cell + stride
            if open_[below] and cost[below] > here:
                cost[below] = here
                queue.appendleft(below)
            for side in (cell - 1, cell + 1):
                if open_[side] and cost[side] > here + 1:
                    cost[side] = here + 1
                    queue.append(side)
        self._reach[start] = cost
        return cost

    def near(self, start: int) -> list[int]:
        """For each cell, the cheapest way for a lone block at ``start`` to stand next to it."""
        known = self._near.get(start)
        if known is not None:
            return known
        stride = self.stride
        cost = self.reach(start)
        near = list(cost)
        for cell in self.cells:
            # Two blocks never share a cell, so touching means standing on a neighbour.
            near[cell] = min(
                cost[cell - 1], cost[cell + 1], cost[cell - stride], cost[cell + stride]
            )
        self._near[start] = near
        return near

    def pair(self, a: int, b: int) -> int:
        """The fewest moves of two lone blocks at ``a`` and ``b`` to touch (INF: never)."""
        if a > b:
            a, b = b, a
        known = self._pair.get((a, b))
        if known is not None:
            return known
        reach, near = self.reach(a), self.near(b)
        best = min(reach[cell] + near[cell] for cell in self.cells)
        best = min(best, INF)
        self._pair[(a, b)] = best
        return best

    def colour(self, cells: tuple[int, ...]) -> int:
        """A lower bound on the moves of one colour's blocks, standing on ``cells`` (sorted),
        until they have all vanished; INF when they never can."""
        known = self._colour.get(cells)
        if known is None:
            known = self._colour[cells] = self._partition(cells)
        return known

    def _group(self, cells: tuple[int, ...]) -> int:
        """A lower bound for blocks that vanish together: the larger of the empty columns
        inside their span and the cheapest cover of the group by stars."""
        stride = self.stride
        columns = sorted(cell % stride for cell in cells)
        gaps = sum(max(0, b - a - 1) for a, b in zip(columns, columns[1:], strict=False))
        return max(gaps, self._star_cover(cells))

    def _star(self, members: tuple[int, ...]) -> int:
        """The fewest moves for lone blocks to form a star: one block with all the others
        beside it."""
        if len(members) == 2:
            return self.pair(*members)
        known = self._stars.get(members)
        if known is not None:
            return known
        best = INF
        for centre in members:
            reach = self.reach(centre)
            nears = [self.near(leaf) for leaf in members if leaf != centre]
            for cell in self.cells:
                total = reach[cell]
                for near in nears:
                    total += near[cell]
                if total < best:
                    best = total
        self._stars[members] = best
        return best

    def _star_cover(self, cells: tuple[int, ...]) -> int:
        """The cheapest split of a vanishing group into stars of two to five blocks: in the
        touching group every block has a neighbour, and such a graph has a spanning forest
        of stars, none with more than four leaves on a grid."""
        count = len(cells)
        best: dict[int, int] = {0: 0}

        def cover(mask: int) -> int:
            value = best.get(mask)
            if value is not None:
                return value
            low = mask & -mask
            rest = mask ^ low
            value = INF
            sub = rest
            while sub:
                size = bin(sub).count("1") + 1
                remainder = rest ^ sub
                if size <= 5 and (remainder == 0 or remainder & (remainder - 1)):
                    members = tuple(cells[i] for i in range(count) if (low | sub) >> i & 1)
                    value = min(value, self._star(members) + cover(remainder))
                sub = (sub - 1) & rest
            best[mask] = value = min(value, INF)
            return value

        return cover((1 << count) - 1)

    def _partition(self, cells: tuple[int, ...]) -> int:
        """The cheapest split of the blocks into vanishing groups of two or more."""
        count = len(cells)
        if count == 0:
            return 0
        if count == 1:
            return INF
        if count > LARGE_COLOUR:
            # Too many splits to try on every board: each block still needs some partner.
            return min(INF, max(min(self.pair(a, b) for b in cells if b != a) for a in cells))
        full = (1 << count) - 1
        group_cost: dict[int, int] = {}
        best: dict[int, int] = {0: 0}

        def group(mask: int) -> int:
            value = group_cost.get(mask)
            if value is None:
                members = tuple(cells[i] for i in range(count) if mask >> i & 1)
                value = group_cost[mask] = self._group(members)
            return value

        def solve(mask: int) -> int:
            value = best.get(mask)
            if value is not None:
                return value
            low = mask & -mask
            rest = mask ^ low
            value = INF
            sub = rest
            # Every group holding the lowest block: ``low`` plus a non-empty subset of the rest.
            while sub:
                remainder = rest ^ sub
                if remainder == 0 or remainder & (remainder - 1):
                    value = min(value, group(low | sub) + solve(remainder))
                sub = (sub - 1) & rest
            best[mask] = value = min(value, INF)
            return value

        return solve(full)

    def estimate(self, state: bytes) -> int:
        """The sum of the colours' bounds for a board in the compact encoding."""
        total = 0
        known = self._by_mask
        for mask in self._masks:
            # One C-level pass per colour: the board with only that colour's blocks marked.
            key = state.translate(mask)
            value = known.get(key)
            if value is None:
                members = tuple(i for i, mark in enumerate(key) if mark)
                value = known[key] = self.colour(members)
            total += value
        return min(total, INF)
