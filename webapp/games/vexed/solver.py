"""The Vexed solvers: breadth-first (one or all shortest solutions) and a fast optimal A*.

All three search settled boards in the compact encoding and drop any board in which a colour
is down to a single block, since that block can never vanish.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from webapp.games.base import Algorithm
from webapp.games.vexed.bounds import INF, Bounds
from webapp.games.vexed.compact import Compact, Slide
from webapp.games.vexed.level import COLOURS, Level
from webapp.games.vexed.rules import Board
from webapp.search import Heat, Monitor, Result, SearchProblem, Stop, bfs, no_heat, run_search

#: bfs-all lists at most this many solutions; it still counts all of them.
MAX_LISTED = 1000


#: The rule of a move the searches never make.
LONE_BLOCK = "a colour left with a single block, which can never vanish"


class VexedProblem(SearchProblem[bytes]):
    """Vexed as a search problem over settled boards, one move costing one."""

    def __init__(self, level: Level, state: Board):
        self.compact = Compact(level)
        self._start = self.compact.settle(self.compact.encode(state))

    def start(self) -> bytes:
        return self._start

    def is_goal(self, state: bytes) -> bool:
        return state == self.compact.cleared

    def successors(self, state: bytes) -> Iterable[tuple[tuple[str, ...], bytes, int]]:
        token = self.compact.token
        return [((token(slide),), child, 1) for slide, child in self.compact.children(state)]

    def display(self, state: bytes) -> Board:
        return self.compact.decode(state)

    def board_size(self) -> tuple[int, int]:
        return self.compact.level.height, self.compact.level.width

    def pieces(self, state: bytes) -> Iterable[int]:
        return self.compact.blocks_at(state)

    def left_out(self, state: bytes) -> Iterable[tuple[tuple[str, ...], bytes, str]]:
        """The moves ``successors`` leaves out: those that leave a colour one block."""
        kept = {slide for slide, _child in self.compact.children(state)}
        token = self.compact.token
        return [
            ((token(slide),), child, LONE_BLOCK)
            for slide, child in self.compact.children(state, prune=False)
            if slide not in kept
        ]


def solve_bfs(level: Level, state: Board, monitor: Monitor) -> Result:
    """Breadth-first by moves through the generic engine."""
    problem = VexedProblem(level, state)
    if problem.compact.has_lone_block(problem.start()):
        return monitor.result("unsolvable", extra={"boards": 1})
    result = bfs(problem, monitor)
    result.extra["boards"] = result.generated
    return result


def solve_bfs_all(level: Level, state: Board, monitor: Monitor) -> Result:
    """Breadth-first to the end of the shortest solutions' layer, keeping every way into each
    board so that all shortest solutions can be listed."""
    problem = VexedProblem(level, state)
    compact = problem.compact

    def search(monitor: Monitor) -> Result:
        start = problem.start()
        goal = compact.cleared
        if start == goal:
            return monitor.result(
                "solved",
                moves=[],
                cost=0,
                optimal=True,
                extra={"solutions": [""], "solution_count": 1, "boards": 1},
            )
        if compact.has_lone_block(start):
            return monitor.result("unsolvable", extra={"boards": 1})
        # For every board seen: the depth it was first reached at and every (parent, slide)
        # one layer up that leads to it.
        depth_of: dict[bytes, int] = {start: 0}
        ways: dict[bytes, list[tuple[bytes, Slide]]] = {start: []}
        layer = [start]
        depth = expanded = 0
        generated = 1
        heat = monitor.heat_map(*problem.board_size())
        while layer:
            depth += 1
            following: list[bytes] = []
            for board in layer:
                expanded += 1
                if heat is not None:
                    heat.add(compact.blocks_at(board))
                if expanded % monitor.stride == 0:
                    monitor.tick(
                        expanded,
                        generated,
                        len(layer) + len(following),
                        depth,
                        lambda board=board: compact.decode(board),
                    )
                for slide, child in compact.children(board):
                    seen = depth_of.get(child)
                    if seen is None:
                        depth_of[child] = depth
                        ways[child] = [(board, slide)]
                        generated += 1
                        following.append(child)
                    elif seen == depth:
                        ways[child].append((board, slide))
            if goal in depth_of:
                monitor.tick(expanded, generated, 0, depth, force=True)
                count, listed = _all_paths(ways, start, goal, compact)
                return monitor.result(
                    "solved",
                    moves=listed[0].split(),
                    cost=depth,
                    optimal=True,
                    extra={
                        "solutions": listed,
                        "solution_count": count,
                        "listed_all": count == len(listed),
                        "boards": generated,
                    },
                )
            layer = following
        monitor.tick(expanded, generated, 0, depth, force=True)
        return monitor.result("unsolvable", extra={"boards": generated})

    return run_search(search, monitor)


def _all_paths(
    ways: dict[bytes, list[tuple[bytes, Slide]]], start: bytes, goal: bytes, compact: Compact
) -> tuple[int, list[str]]:
    """How many shortest solutions there are, and the first MAX_LISTED of them."""
    counts: dict[bytes, int] = {start: 1}

    def count(board: bytes) -> int:
        # Iterative, parents first: the layered graph is shallow but may be wide.
        stack = [board]
        while stack:
            top = stack[-1]
            if top in counts:
                stack.pop()
                continue
            missing = [parent for parent, _ in ways[top] if parent not in counts]
            if missing:
                stack.extend(missing)
                continue
            counts[top] = sum(counts[parent] for parent, _ in ways[top])
            stack.pop()
        return counts[board]

    total = count(goal)
    listed: list[str] = []
    suffix: list[str] = []

    def walk(board: bytes) -> None:
        if len(listed) >= MAX_LISTED:
            return
        if board == start:
            listed.append(" ".join(reversed(suffix)))
            return
        for parent, slide in ways[board]:
            suffix.append(compact.token(slide))
            walk(parent)
            suffix.pop()

    walk(goal)
    listed.sort()
    return total, listed


def solve_fast(level: Level, state: Board, monitor: Monitor) -> Result:
    """A* on f = moves + the colour bound, with f buckets, deepest first within a bucket; on a
    level A* cannot finish in its share of the time, a bounded-cost search for a solution of
    at most par moves.

    The search loop is ``kernels.astar`` (compiled); this builds its tables from ``Bounds``,
    sizes its pool from the memory limit and runs it in slices of ``SLICE`` expansions,
    ticking the monitor between slices. docs/vexed-solver.md says when the answer is optimal."""
    from webapp.games.vexed import kernels  # numba: only solver processes load it

    compact = Compact(level)
    bounds = Bounds(compact)
    start = compact.settle(compact.encode(state))
    goal = compact.cleared

    def search(monitor: Monitor) -> Result:
        h0 = bounds.estimate(start)
        extra: dict[str, Any] = {"lower_bound": h0}
        if start == goal:
            return monitor.result("solved", moves=[], cost=0, optimal=True, extra=extra)
        if h0 >= INF or compact.has_lone_block(start):
            extra["boards"] = 1
            return monitor.result("unsolvable", extra=extra)
        seconds = monitor.limits.seconds
        until = None if seconds is None else monitor.elapsed + ASTAR_SHARE * seconds
        heat = monitor.heat_map(compact.level.height, compact.level.width, _squares(compact))
        astar = _CompiledSearch(compact, bounds, monitor.limits.memory_mb, heat)
        astar.push_start(start, h0)
        status = _drive(astar, monitor, kernels.F_CAP, 0, until=until, hand_over=True)
        done = astar.counters()
        if status == kernels.FOUND:
            extra["boards"] = done[1]
            moves = _tokens(compact, astar.path())
            return monitor.result("solved", moves=moves, cost=len(moves), optimal=True, extra=extra)
        if status == kernels.EXHAUSTED:
            extra["boards"] = done[1]
            return monitor.result("unsolvable", extra=extra)
        # A* proved every solution has at least ``proved`` moves. Now look for one of at
        # most par moves, then (no par, or none within it) for one of any length, both by
        # moves + WEIGHT * bound + PER_BLOCK * blocks left. The first goes on from where A*
        # stopped, in its arrays (unless its pool is full): its open list is put into the
        # new buckets.
        proved = extra["lower_bound"] = done[3]
        carried = astar if status == kernels.RUNNING else None
        del astar
        # The last cap is G_CAP - 1 moves, where A* stops too (no level comes near it), so
        # no g reaches G_CAP. Blocks never come back, so a bucket is at most WEIGHT * cap +
        # per_block * blocks0: below F_CAP, unless a board has hundreds of blocks, which
        # then goes without the blocks term.
        last = kernels.G_CAP - 1
        blocks0 = compact.blocks(start)
        per_block = PER_BLOCK if WEIGHT * last + PER_BLOCK * blocks0 < kernels.F_CAP else 0
        caps = [last]
        # Par is counted from the level's start; from a position in play it says nothing.
        at_start = start == compact.settle(compact.encode(Board(level.rows)))
        if at_start and level.par is not None and proved <= level.par < last:
            caps.insert(0, level.par)
        for cap in caps:
            if carried is not None:
                bounded, carried = carried, None
                bounded.rebucket(cap, WEIGHT, per_block)
                offset = (0, 0, 0, 0)  # its counters go on from A*'s
            else:
                bounded = _CompiledSearch(compact, bounds, monitor.limits.memory_mb, heat)
                bounded.push_start(start, h0, WEIGHT * h0 + per_block * blocks0)
                offset = done
            monitor.note = (
                f"looking for a solution of at most {cap} moves (par)" if cap == level.par else ""
            )
            status = _drive(bounded, monitor, cap, WEIGHT, per_block, offset=offset)
            expanded, generated, _, _ = bounded.counters()
            expanded, generated = expanded + offset[0], generated + offset[1]
            extra["boards"] = generated
            if status == kernels.FOUND:
                moves = _tokens(compact, bounded.path())
                optimal = len(moves) <= proved
                return monitor.result(
                    "solved", moves=moves, cost=len(moves), optimal=optimal, extra=extra
                )
            # No solution within this cap: the optimum is above it.
            proved = extra["lower_bound"] = cap + 1
            done = (expanded, generated, 0, proved)
            del bounded
        return monitor.result("unsolvable", extra=extra)

    return run_search(search, monitor)


def _squares(compact: Compact) -> list[int]:
    """The board's square (row * width + column) of each open cell, in the order of
    ``compact.cells``: the kernel counts blocks by open cell."""
    width = compact.level.width
    return [
        (cell // compact.stride - 1) * width + cell % compact.stride - 1 for cell in compact.cells
    ]


def _drive(
    search: _CompiledSearch,
    monitor: Monitor,
    cap: int,
    weight: int,
    per_block: int = 0,
    until: float | None = None,
    hand_over: bool = False,
    offset: tuple[int, int, int, int] = (0, 0, 0, 0),
) -> int:
    """Run the kernel in slices, ticking the monitor between them, until it finds a solution
    or runs dry (its status), or until the monitor's clock passes ``until`` (RUNNING). A full
    pool ends the solve, unless ``hand_over`` lets another search take over (FULL). ``offset``
    holds the expanded and generated counts of earlier searches of the same solve. The
    progress shows A*'s f bound, or for the searches by bucket the moves to the board last
    expanded (a bucket means nothing to a player)."""
    from webapp.games.vexed import kernels

    try:
        return _slices(search, monitor, cap, weight, per_block, until, hand_over, offset)
    except Stop:
        # Stopped by a limit: the board last expanded is the one the page shows; its moves,
        # rebuilt from the parents once, let the player take over there on the same level.
        last = int(search.state[kernels.LAST])
        monitor.stopped_here(search.sample, lambda: _tokens(search.compact, search.path(last)))
        raise


def _slices(
    search: _CompiledSearch,
    monitor: Monitor,
    cap: int,
    weight: int,
    per_block: int,
    until: float | None,
    hand_over: bool,
    offset: tuple[int, int, int, int],
) -> int:
    """``_drive``'s loop: the kernel in slices, the monitor ticked between them."""
    from webapp.games.vexed import kernels

    limit = monitor.limits.nodes
    while True:
        budget = SLICE
        if limit is not None:
            budget = max(1, min(budget, limit - offset[0] - search.counters()[0]))
        status = search.run(budget, cap, weight, per_block)
        expanded, generated, waiting, bucket = search.counters()
        expanded += offset[0]
        generated += offset[1]
        depth = bucket if weight == 0 else search.depth()
        if status in (kernels.FOUND, kernels.EXHAUSTED):
            monitor.tick(expanded, generated, waiting, depth, force=True)
            return status
        if status == kernels.FULL:
            if hand_over:
                return status
            raise Stop("memory-limit")
        if weight == 0:
            monitor.note = f"f-bound {bucket}"
        monitor.tick(expanded, generated, waiting, depth, search.sample)
        if until is not None and monitor.elapsed >= until:
            return status


#: Expansions per kernel call: a few milliseconds between monitor ticks.
SLICE = 1 << 14
#: Slots in the table of boards at first; it doubles whenever it is 3/4 full.
TABLE_START = 1 << 16
#: The share of the memory limit the board pool may take.
POOL_SHARE = 0.75
#: The search within par leaves children for later (``kernels.DEFER``) once the pool is this
#: full.
DEFER_FROM = 0.75
#: A level with at most this many colours packs two cells a byte in the pool (values 2-15).
NIBBLE_COLOURS = 14
#: The share of the time limit A* has before the bounded-cost search takes over.
ASTAR_SHARE = 0.25
#: The bounded-cost searches take boards by moves + WEIGHT * bound + PER_BLOCK * the blocks
#: left on the board (docs/vexed-solver.md, "When A* runs long").
WEIGHT = 2
PER_BLOCK = 3


class _CompiledSearch:
    """The arrays of one ``kernels.astar`` run and the conversions to and from them."""

    def __init__(
        self, compact: Compact, bounds: Bounds, memory_mb: int | None, heat: Heat | None = None
    ):
        import numpy as np

        from webapp.games.vexed import kernels  # numba: only solver processes load it

        self.kernels = kernels
        self.compact = compact
        cells = compact.cells
        m = self.m = len(cells)
        self.cell_at = np.array(cells, np.int64)
        reach = np.full((m, m), INF, np.int64)
        near = np.full((m, m), INF, np.int64)
        for i, cell in enumerate(cells):
            r, n = bounds.reach(cell), bounds.near(cell)
            reach[i] = [r[c] for c in cells]
            near[i] = [n[c] for c in cells]
        pair = np.minimum((reach[:, None, :] + near[None, :, :]).min(axis=2), INF)
        self.reach, self.near, self.pair = reach, near, pair
        self.column = np.array([cell % compact.stride for cell in cells], np.int64)
        # The kernel numbers the level's colours from 2 (0 empty, 1 solid): with at most
        # NIBBLE_COLOURS of them a pool row takes half a byte a cell (kernels._pack).
        letters = sorted({ch for row in compact.level.rows for ch in row if ch in COLOURS})
        self.to_kernel = np.arange(256, dtype=np.uint8)
        self.from_kernel = np.arange(256, dtype=np.uint8)
        for code, letter in enumerate(letters, 2):
            self.to_kernel[Compact.byte(letter)] = code
            self.from_kernel[code] = Compact.byte(letter)
        self.width = (m + 1) // 2 if len(letters) <= NIBBLE_COLOURS else m
        # The pool row, g and parent (8 bytes), one and a half open-list entries (12: a board
        # is queued again when it is reached more cheaply, about one in eight on the
        # Impossible Pack, or when it waits again for children it left out) and up to 2 2/3
        # slots of the table (11: it is between 3/8 and 3/4 full; the fingerprints in its
        # slots keep long probes cheap). Whichever runs out first ends the search as FULL.
        per_board = self.width + 31
        budget = (memory_mb or 2048) * POOL_SHARE * 2**20
        capacity = max(1 << 12, int(budget // per_board))
        self.pool = np.zeros((capacity, self.width), np.uint8)
        # np.zeros and np.empty take pages from the system only as the search fills them.
        self.g_of = np.empty(capacity, np.int32)
        self.parent = np.empty(capacity, np.int32)
        self.table = np.zeros(TABLE_START, np.int32)
        self.heads = np.full((kernels.F_CAP, kernels.G_CAP), -1, np.int32)
        self.top_g = np.full(kernels.F_CAP, -1, np.int64)
        self.entry_board = np.zeros(capacity + capacity // 2, np.int32)
        self.entry_next = np.zeros(capacity + capacity // 2, np.int32)
        self.walls = np.frombuffer(compact.cleared, np.uint8).copy()
        self.memo_keys = np.zeros(TABLE_START, np.int64)
        self.memo_values = np.zeros(TABLE_START, np.int64)
        self.state = np.zeros(kernels.STATE_SIZE, np.int64)
        self.state[kernels.DEFER_AT] = int(capacity * DEFER_FROM)
        self.heat = heat
        self.heat_counts = heat.counts if heat is not None else no_heat()

    def row(self, board: bytes) -> Any:
        """A board as the kernel sees it: a byte a cell, in the kernel's colours."""
        import numpy as np

        return self.to_kernel[np.frombuffer(board, np.uint8)[self.cell_at]]

    def packed(self, board: bytes) -> Any:
        """A board as a pool row (``kernels._pack``)."""
        import numpy as np

        packed = np.zeros((1, self.width), np.uint8)
        self.kernels._pack(self.row(board), self.m, packed, 0)
        return packed[0]

    def board(self, board_id: int) -> bytes:
        import numpy as np

        row = np.empty(self.m, np.uint8)
        self.kernels._unpack(self.pool, board_id, self.m, row)
        grid = bytearray(self.compact.cleared)
        for cell, value in zip(self.compact.cells, self.from_kernel[row].tolist(), strict=True):
            grid[cell] = value
        return bytes(grid)

    def push_start(self, start: bytes, h0: int, bucket: int | None = None) -> None:
        kernels = self.kernels
        state = self.state
        rows = self.packed(start).reshape(1, -1)
        kernels._find_or_add(self.pool, self.table, rows, 0, self.width, state)
        self.g_of[0] = 0
        self.parent[0] = -1
        self.entry_board[0] = 0
        self.entry_next[0] = -1
        bucket = h0 if bucket is None else bucket
        self.heads[bucket, 0] = 0
        self.top_g[bucket] = 0
        state[kernels.ENTRIES] = 1
        state[kernels.WAITING] = 1
        state[kernels.GENERATED] = 1
        state[kernels.BOUND] = bucket

    def rebucket(self, cap: int, weight: int, per_block: int = 0) -> None:
        """Turn the arrays of an unfinished A* into those of a bounded-cost search that goes
        on from its open list (see ``kernels.rebucket``). The boards A* expanded keep their
        g, which is the least (the bound is consistent), so none is expanded again."""
        import numpy as np

        kernels = self.kernels
        heads = np.full((kernels.F_CAP, kernels.G_CAP), -1, np.int32)
        top_g = np.full(kernels.F_CAP, -1, np.int64)
        kernels.rebucket(
            self.heads, self.top_g, self.entry_board, self.entry_next, self.g_of, heads, top_g,
            self.state, cap, weight, per_block, self.pool, self.m,
        )  # fmt: skip
        self.heads, self.top_g = heads, top_g

    def run(self, budget: int, cap: int, weight: int, per_block: int = 0) -> int:
        import numpy as np

        kernels = self.kernels
        while True:
            status = kernels.astar(
                self.pool, self.g_of, self.parent, self.table, self.heads, self.top_g,
                self.entry_board, self.entry_next, self.walls, self.cell_at,
                self.compact.stride, self.memo_keys, self.memo_values, self.reach, self.near,
                self.pair, self.column, self.state, budget, cap, weight, per_block,
                self.heat_counts, self.heat is not None,
            )  # fmt: skip
            if status != kernels.GROW:
                return status
            boards = int(self.state[kernels.BOARDS])
            if boards + 4 * self.m > len(self.table) // 4 * 3:
                self.table = np.zeros(2 * len(self.table), np.int32)
                kernels.rehash(self.pool, boards, self.table, self.width)
            if (
                int(self.state[kernels.MEMO]) + kernels.COLOUR_SLOTS * 2 * self.m
                > len(self.memo_keys) // 2
            ):
                keys = np.zeros(2 * len(self.memo_keys), np.int64)
                values = np.zeros(2 * len(self.memo_keys), np.int64)
                kernels.memo_rehash(self.memo_keys, self.memo_values, keys, values)
                self.memo_keys, self.memo_values = keys, values

    def counters(self) -> tuple[int, int, int, int]:
        kernels, state = self.kernels, self.state
        return (
            int(state[kernels.EXPANDED]),
            int(state[kernels.GENERATED]),
            int(state[kernels.WAITING]),
            int(state[kernels.BOUND]),
        )

    def depth(self) -> int:
        """The moves to the board last expanded."""
        return int(self.g_of[int(self.state[self.kernels.LAST])])

    def sample(self) -> Board:
        return self.compact.decode(self.board(int(self.state[self.kernels.LAST])))

    def path(self, at: int | None = None) -> list[bytes]:
        """The boards from the start to board ``at`` (the goal found, by default), by the
        parent each board keeps."""
        boards = []
        at = int(self.state[self.kernels.GOAL]) if at is None else at
        while at >= 0:
            boards.append(self.board(at))
            at = int(self.parent[at])
        boards.reverse()
        return boards


def _tokens(compact: Compact, boards: list[bytes]) -> list[str]:
    """The move tokens along a path of boards, recovered by regenerating each step."""
    moves = []
    for before, after in zip(boards, boards[1:], strict=False):
        slide = next(s for s, child in compact.children(before, prune=False) if child == after)
        moves.append(compact.token(slide))
    return moves


ALGORITHMS: dict[str, Algorithm] = {
    "fast": Algorithm(
        name="fast",
        summary=(
            "A* with a per-colour lower bound (gaps and wall-aware meeting costs); optimal when "
            "it finishes, else a solution within par, and the result says which"
        ),
        metric="moves",
        optimal=True,
        run=solve_fast,
        label="A* with a bound per colour (fewest moves when it finishes)",
    ),
    "bfs": Algorithm(
        name="bfs",
        summary="breadth-first by moves, pruning boards where a colour has one block left",
        metric="moves",
        optimal=True,
        run=solve_bfs,
        steps=True,
        label="breadth-first (fewest moves, proved)",
    ),
    "bfs-all": Algorithm(
        name="bfs-all",
        summary="breadth-first to the end of the shortest layer, listing every shortest solution",
        metric="moves",
        optimal=True,
        run=solve_bfs_all,
        label="breadth-first, listing every shortest solution (fewest moves, proved)",
    ),
}
