"""A fast solver for any board up to 8x8, not optimal, in two stages.

First an answer that always comes quickly: peel the top row or the left column off the
unsolved region, one small group of tiles at a time, then solve the last 4x4 or 3x3 region
optimally. Each group is placed by a weighted A* over the cells of the group's tiles and the
hole (the other tiles do not matter to that goal), with the tiles already placed held still.

Then, while its time lasts, shorter answers: beam searches of growing width over whole
boards, ranked by Manhattan distance plus linear conflicts (``kernels.beam_layer``). The
shortest answer found is returned.
"""

from __future__ import annotations

import heapq
from functools import lru_cache
from itertools import count
from typing import Any

from webapp.games.sliding.heuristics import move_table
from webapp.games.sliding.level import Level, goal
from webapp.games.sliding.pdb import databases_ready
from webapp.games.sliding.solver import idastar_conflict
from webapp.search import Limits, Monitor, Result, Stop, run_search

Board = tuple[int, ...]

#: Weight on the heuristic of a group search: above 1 trades length for speed.
WEIGHT = 1.4
#: Tiles placed together on regions of up to 25 cells (2 on larger ones, to stay quick).
LINE_GROUP = 3
#: A group search that expands more states than this gives up and the group is split.
GROUP_BUDGET = 60_000
#: Expansions allowed to the optimal search of a last 4x4 region before peeling on instead.
DATABASE_BUDGET = 40_000_000
#: And at most this many seconds, so a hard last 4x4 never holds the answer up for long.
DATABASE_SECONDS = 4.0


#: The beam stage's share of a solve: it stops widening past this many seconds.
BEAM_SECONDS = 4.5
#: The first and the largest beam width; each next beam is four times wider.
BEAM_WIDTHS = (1 << 8, 1 << 18)
#: Most boards a beam's table of seen boards may hold (8 bytes each, half full at most).
SEEN_CAPACITY = 1 << 25


def solve_fast(level: Level, board: Board, monitor: Monitor) -> Result:
    return run_search(lambda m: _fast(level, board, m), monitor)


def _fast(level: Level, board: Board, monitor: Monitor) -> Result:
    """A narrow beam first (milliseconds); the reduction only if that finds nothing; then
    beams four times wider each, while the time and node limits allow another one."""
    if board == goal(level.rows, level.cols):
        return monitor.result("solved", moves=[], optimal=False)
    rows, cols = level.rows, level.cols
    warm_up_beam()
    started = monitor.elapsed
    width, widest = BEAM_WIDTHS
    depth_cap = 16 * rows * cols  # far above any beam's answer: a safety net, no more
    best = beam_search(rows, cols, board, width, depth_cap, monitor)
    extra: dict[str, Any] = {"beam_width": width}
    if best is None:
        reduced = _reduce(level, board, monitor)
        best = list(reduced.moves or [])
        extra = {"reduction_length": len(best)}
    budget = BEAM_SECONDS
    if monitor.limits.seconds is not None:
        budget = min(budget, monitor.limits.seconds * 0.8 - started)
    nodes = monitor.limits.nodes
    last_seconds = monitor.elapsed - started
    last_nodes = monitor.expanded
    width *= 4
    while (
        width <= widest
        and len(best) > 1
        and monitor.elapsed - started + 4 * last_seconds <= budget
        and (nodes is None or monitor.expanded + 4 * last_nodes <= nodes)
        and 3 * width * len(best) <= SEEN_CAPACITY // 2
    ):
        monitor.note = f"beam of width {width}: best so far {len(best)} moves"
        began, began_nodes = monitor.elapsed, monitor.expanded
        try:
            found = beam_search(rows, cols, board, width, len(best) - 1, monitor)
        except Stop as stop:
            if stop.reason == "cancelled":
                raise
            break  # out of time, nodes or memory: the best answer so far stands
        last_seconds = monitor.elapsed - began
        last_nodes = monitor.expanded - began_nodes
        if found is not None and len(found) < len(best):
            best = found
            extra["beam_width"] = width
        width *= 4
    monitor.tick(monitor.expanded, monitor.generated, 0, len(best), force=True)
    return monitor.result("solved", moves=best, optimal=False, extra=extra)


def beam_search(
    rows: int, cols: int, start: Board, width: int, longest: int, monitor: Monitor
) -> list[str] | None:
    """A beam search of ``width`` boards a layer, at most ``longest`` layers deep: each layer
    keeps the children of the last with the least Manhattan distance plus linear conflicts,
    no board twice. The moves to the goal, or None if the beam found none."""
    import numpy as np

    from webapp.games.sliding import kernels

    n = rows * cols
    table = move_table(rows, cols)
    move_cell = np.zeros((n, 4), np.int64)
    move_count = np.array([len(table[h]) for h in range(n)], np.int64)
    for h in range(n):
        for j, (cell, _k, _token) in enumerate(table[h]):
            move_cell[h, j] = cell
    tokens = {(h, cell): token for h in range(n) for cell, _k, token in table[h]}
    row_cells = np.arange(n, dtype=np.int64).reshape(rows, cols)
    col_cells = np.ascontiguousarray(row_cells.T)
    home_row = np.array([0] + [(t - 1) // cols for t in range(1, n)], np.int64)
    home_col = np.array([0] + [(t - 1) % cols for t in range(1, n)], np.int64)
    cell_row, cell_col = np.divmod(np.arange(n, dtype=np.int64), cols)
    distance = np.abs(home_row[:, None] - cell_row[None, :]) + np.abs(
        home_col[:, None] - cell_col[None, :]
    )
    distance[0, :] = 0
    rng = np.random.default_rng(n)
    zobrist = rng.integers(1, 2**63, size=(n, n), dtype=np.uint64)
    zobrist[0, :] = 0
    seen = np.zeros(min(SEEN_CAPACITY, _power_of_two(8 * width * max(longest, 1))), np.uint64)

    def layer() -> tuple[Any, ...]:
        return (
            np.zeros((width, n), np.uint8),
            np.zeros(width, np.int64),
            np.zeros(width, np.int64),
            np.zeros(width, np.int64),
            np.zeros(width, np.uint64),
        )

    current, following = layer(), layer()
    boards, holes, manhattans, conflicts, keys = current
    boards[0, :] = start
    holes[0] = list(start).index(0)
    manhattans[0] = int(distance[np.array(start), np.arange(n)].sum())
    conflicts[0] = kernels._conflicts(
        boards[0], rows, cols, row_cells, col_cells, home_row, home_col
    )
    keys[0] = np.bitwise_xor.reduce(zobrist[np.array(start), np.arange(n)])
    kernels._seen_add(seen, keys[0])
    count = 1
    parents: list[Any] = []
    hole_cells: list[Any] = [holes[:1].astype(np.int32)]
    parent = np.zeros(width, np.int64)
    made = 0
    heat = monitor.heat_map(rows, cols)

    def line(at: int, depth: int) -> list[str]:
        """The moves to board ``at`` of layer ``depth``: its holes, parent by parent."""
        cells = []
        for d in range(depth, 0, -1):
            cells.append(int(hole_cells[d][at]))
            at = int(parents[d - 1][at])
        cells.append(int(hole_cells[0][0]))
        cells.reverse()
        return [tokens[a, b] for a, b in zip(cells, cells[1:], strict=False)]

    for depth in range(1, longest + 1):
        if heat is not None:  # the layer's boards, each expanded by the kernel: their holes
            np.add.at(heat.counts, current[1][:count], 1)
            heat.counts[-1] += count
        count, solved = kernels.beam_layer(
            *current, count, rows, cols, row_cells, col_cells, home_row, home_col,
            distance, zobrist, seen, move_cell, move_count, *following, parent,
        )  # fmt: skip
        made += 3 * count
        front = following[0][0]
        parents.append(parent[:count].astype(np.int32))
        hole_cells.append(following[1][:count].astype(np.int32))
        try:
            monitor.tick(
                monitor.expanded + count, monitor.generated + count, count, depth,
                lambda front=front: tuple(int(t) for t in front),
            )  # fmt: skip
        except Stop:
            if count:  # the board shown, the layer's first, and its moves, read once
                shown = tuple(int(t) for t in front)
                monitor.stopped_here(lambda s=shown: s, lambda d=depth: line(0, d))
            raise
        if count == 0 or made > len(seen) // 2:
            return None
        current, following = following, current
        if solved >= 0:
            return line(solved, depth)
    return None


@lru_cache(maxsize=1)
def warm_up_beam() -> None:
    """Load (or, on a new install, compile) the beam kernels once per process, on a tiny
    board, so the time of the first real beam predicts the next one's."""
    beam_search(2, 3, (4, 1, 3, 0, 2, 5), 4, 30, Monitor(Limits(), None))


def _power_of_two(at_least: int) -> int:
    return 1 << max(10, (at_least - 1).bit_length())


class _Run:
    """The board being reduced, the moves so far, and the search counters."""

    def __init__(self, level: Level, board: Board, monitor: Monitor):
        self.rows, self.cols = level.rows, level.cols
        self.board = list(board)
        self.moves = move_table(level.rows, level.cols)
        self.path: list[str] = []
        self.monitor = monitor
        self.expanded = 0
        self.generated = 0
        self.heat = monitor.heat_map(self.rows, self.cols)

    def fold(self, inner: Monitor, top: int, left: int) -> None:
        """Add what a search of the region from (top, left) on counted to the whole
        board's heat map."""
        if self.heat is None or inner.heat is None:
            return
        seen = inner.heat.snapshot()
        plain = self.heat.plain
        for i, n in enumerate(seen.counts):
            r, c = divmod(i, seen.cols)
            plain[(r + top) * self.cols + c + left] += n
        plain[-1] += seen.positions

    def play(self, tokens: list[str]) -> None:
        board, cols = self.board, self.cols
        hole = board.index(0)
        offset = {"L": 1, "R": -1, "U": cols, "D": -cols}
        for token in tokens:
            cell = hole + offset[token]
            board[hole], board[cell] = board[cell], 0
            hole = cell
        self.path.extend(tokens)


def _reduce(level: Level, board: Board, monitor: Monitor) -> Result:
    run = _Run(level, board, monitor)
    try:
        return _reduced(run, level, monitor)
    except Stop:
        # The board the page shows is the reduction's, reached by the moves it has made.
        monitor.stopped_here(lambda: tuple(run.board), lambda: list(run.path))
        raise


def _reduced(run: _Run, level: Level, monitor: Monitor) -> Result:
    rows, cols = level.rows, level.cols
    top = left = 0
    while rows - top > 3 or cols - left > 3:
        if (
            (rows - top, cols - left) == (4, 4)
            and databases_ready()
            and _finish_with_databases(run, top, left)
        ):
            break
        monitor.note = f"placing {'row' if rows - top >= cols - left else 'column'}"
        if rows - top >= cols - left:
            line = [top * cols + c for c in range(left, cols)]
            _place_line(run, line, top, left)
            top += 1
        else:
            line = [r * cols + left for r in range(top, rows)]
            _place_line(run, line, top, left)
            left += 1
    else:
        _finish(run, top, left)
    monitor.tick(run.expanded, run.generated, 0, len(run.path), force=True)
    return monitor.result("solved", moves=run.path, optimal=False)


def _place_line(run: _Run, line: list[int], top: int, left: int) -> None:
    """Bring home the tiles of one row or column of the region, a few at a time."""
    placed: list[int] = []
    todo = list(line)
    while todo:
        # The last two cells of a line go together: alone, the last tile cannot get in
        # without moving its neighbour.
        smallest = 2 if len(todo) == 2 else 1
        region = (run.rows - top) * (run.cols - left)
        size = min(LINE_GROUP if region <= 25 else 2, len(todo))
        if len(todo) - size == 1:
            size -= 1
        budget = GROUP_BUDGET
        while not _place_group(run, todo[:size], placed, top, left, budget):
            if size > smallest:
                size -= 1
            else:
                budget = 1 << 40  # the monitor's limits still apply
        placed += todo[:size]
        todo = todo[size:]


def _place_group(
    run: _Run, group: list[int], placed: list[int], top: int, left: int, budget: int
) -> bool:
    """Weighted A* moving the tiles whose homes are ``group`` there; False over budget."""
    rows, cols = run.rows, run.cols
    board = run.board
    tiles = [cell + 1 for cell in group]
    positions = tuple(board.index(t) for t in tiles)
    hole = board.index(0)
    if all(p == h for p, h in zip(positions, group, strict=True)):
        return True
    locked = set(placed)
    free = [
        (top <= cell // cols and left <= cell % cols and cell not in locked)
        for cell in range(rows * cols)
    ]
    homes = group
    home_rc = [divmod(h, cols) for h in homes]

    def distance(cell: int, i: int) -> int:
        r, c = divmod(cell, cols)
        return abs(r - home_rc[i][0]) + abs(c - home_rc[i][1])

    def estimate(hole: int, positions: tuple[int, ...]) -> int:
        md = 0
        near = 1 << 20
        hr, hc = divmod(hole, cols)
        for i, p in enumerate(positions):
            d = distance(p, i)
            if d:
                md += d
                r, c = divmod(p, cols)
                near = min(near, abs(r - hr) + abs(c - hc))
        return md + (near - 1 if md else 0)

    start = (hole, *positions)
    parents: dict[tuple[int, ...], tuple[tuple[int, ...], str] | None] = {start: None}
    best = {start: 0}
    tie = count()
    queue = [(WEIGHT * estimate(hole, positions), next(tie), 0, start)]
    moves = run.moves
    monitor = run.monitor
    expanded = 0
    while queue:
        _f, _t, g, state = heapq.heappop(queue)
        if g > best[state]:
            continue
        hole = state[0]
        positions = state[1:]
        if all(p == h for p, h in zip(positions, homes, strict=True)):
            tokens = []
            link = parents[state]
            while link is not None:
                state, token = link
                tokens.append(token)
                link = parents[state]
            run.play(tokens[::-1])
            return True
        expanded += 1
        run.expanded += 1
        if run.heat is not None:
            run.heat.add((hole,))
        if run.expanded % monitor.stride == 0:
            monitor.tick(
                run.expanded, run.generated, len(queue), len(run.path), lambda: tuple(run.board)
            )
        if expanded > budget:
            return False
        for cell, _k, token in moves[hole]:
            if not free[cell]:
                continue
            if cell in positions:
                i = positions.index(cell)
                child_positions = positions[:i] + (hole,) + positions[i + 1 :]
            else:
                child_positions = positions
            child = (cell, *child_positions)
            child_g = g + 1
            known = best.get(child)
            if known is not None and known <= child_g:
                continue
            best[child] = child_g
            parents[child] = (state, token)
            run.generated += 1
            heapq.heappush(
                queue,
                (child_g + WEIGHT * estimate(cell, child_positions), next(tie), child_g, child),
            )
    return False


def _sub_board(run: _Run, top: int, left: int) -> tuple[int, ...]:
    """The region from (top, left) on as a board of its own, tiles renumbered to match."""
    cols = run.cols
    cells = [r * cols + c for r in range(top, run.rows) for c in range(left, cols)]
    local = {cell: i for i, cell in enumerate(cells)}
    return tuple(local[run.board[cell] - 1] + 1 if run.board[cell] else 0 for cell in cells)


def _finish_with_databases(run: _Run, top: int, left: int) -> bool:
    """Solve a last 4x4 region optimally with the pattern databases, if that is quick."""
    from webapp.games.sliding.pdb import PARTITION_4X4, load_database, pdb_idastar

    monitor = run.monitor
    limits = monitor.limits
    remaining = DATABASE_SECONDS
    if limits.seconds is not None:
        remaining = min(remaining, max(0.1, limits.seconds - monitor.elapsed))
    inner = Monitor(
        Limits(seconds=remaining, nodes=DATABASE_BUDGET, memory_mb=limits.memory_mb),
        None,
        monitor.cancelled,
    )
    tables = [load_database(4, 4, p) for p in PARTITION_4X4]
    try:
        result = pdb_idastar(_sub_board(run, top, left), tables, inner)
    except Stop as stop:
        run.fold(inner, top, left)
        run.expanded += inner.expanded
        if stop.reason == "node-limit" or stop.reason == "timeout" and not _expired(monitor):
            return False
        raise
    run.fold(inner, top, left)
    run.expanded += result.expanded
    run.play(result.moves or [])
    return True


def _expired(monitor: Monitor) -> bool:
    seconds = monitor.limits.seconds
    return seconds is not None and monitor.elapsed > seconds


def _finish(run: _Run, top: int, left: int) -> None:
    """Solve the last region (at most 3x3) optimally, as a small board of its own."""
    sub = _sub_board(run, top, left)
    inner = Monitor(run.monitor.limits, None, run.monitor.cancelled)
    result = idastar_conflict(run.rows - top, run.cols - left, sub, inner)
    run.fold(inner, top, left)
    run.expanded += result.expanded
    run.play(result.moves or [])
