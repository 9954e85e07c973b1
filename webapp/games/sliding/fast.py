"""A fast solver for any board up to 8x8, not optimal: it peels the top row or the left column
off the unsolved region, one small group of tiles at a time, then solves the last 3x3 (or
smaller) region optimally.

Each group is placed by a weighted A* over the cells of the group's tiles and the hole (the
other tiles do not matter to that goal), with the tiles already placed held still.
"""

from __future__ import annotations

import heapq
from itertools import count

from webapp.games.sliding.heuristics import move_table
from webapp.games.sliding.level import Level
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
DATABASE_BUDGET = 2_500_000
#: And at most this many seconds, so a hard last 4x4 never holds the answer up for long.
DATABASE_SECONDS = 4.0


def solve_fast(level: Level, board: Board, monitor: Monitor) -> Result:
    return run_search(lambda m: _reduce(level, board, m), monitor)


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
        run.expanded += inner.expanded
        if stop.reason == "node-limit" or stop.reason == "timeout" and not _expired(monitor):
            return False
        raise
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
    run.expanded += result.expanded
    run.play(result.moves or [])
