"""Additive pattern databases for the 15-puzzle, an exact table for the 8-puzzle, and the IDA*
that searches with them.

A pattern database holds, for every placement of a few tiles (the pattern), the fewest moves
of those tiles that bring them all home, the hole tracked and other tiles' moves free. The
patterns of a partition share no tile, so their values add up to a lower bound. Tables are
built with numpy, a whole breadth-first layer at a time; the search itself is plain Python.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from webapp.games.sliding.heuristics import move_table
from webapp.games.sliding.level import Level, goal
from webapp.search import Monitor, Result, Stop, no_heat, run_search

Board = tuple[int, ...]

#: The 4x4 partition: the left and right halves of the top three rows, and the bottom row.
PARTITION_4X4: tuple[tuple[int, ...], ...] = (
    (1, 2, 5, 6, 9, 10),
    (3, 4, 7, 8, 11, 12),
    (13, 14, 15),
)

#: Files carry this in their name; bump it when the format or the construction changes.
FORMAT = 2

# A placement index holds one base-16 digit per pattern tile: digit i is the cell of tile i.
BASE_BITS = 4
BASE = 1 << BASE_BITS

Progress = Callable[[str], None]


#: The folder databases are kept in, given by whoever runs the solvers (``use_folder``); with
#: none, a database is built in memory and kept there only.
_folder: Path | None = None


def use_folder(folder: Path | str | None) -> None:
    """Keep databases in ``folder`` from now on (None: in memory only)."""
    global _folder
    _folder = None if folder is None else Path(folder)


def database_path(
    rows: int, cols: int, pattern: tuple[int, ...], folder: Path | None = None
) -> Path | None:
    """The file of a database in ``folder`` (the one in use by default); None without one."""
    folder = folder or _folder
    if folder is None:
        return None
    tiles = ".".join(map(str, pattern))
    return folder / f"sliding-pdb{FORMAT}-{rows}x{cols}-{tiles}.bin"


# -- building ------------------------------------------------------------------------------

#: States expanded per numpy batch: bounds the build's memory (about 1 GB at most).
BATCH = 1 << 20


def _components(rows: int, cols: int) -> Any:
    """For each (free-cell mask << 4 | cell), the mask of free cells the hole at that cell
    can reach without moving a pattern tile."""
    import numpy as np

    n = rows * cols
    board = (1 << n) - 1
    first_col = sum(1 << (r * cols) for r in range(rows))
    last_col = sum(1 << (r * cols + cols - 1) for r in range(rows))
    key = np.arange(1 << (BASE_BITS + 16), dtype=np.int32)
    free = (key >> BASE_BITS) & board
    region = (1 << (key & (BASE - 1))) & free
    for _ in range(n):
        grown = (
            region
            | ((region & ~last_col) << 1)
            | ((region & ~first_col) >> 1)
            | (region << cols)
            | (region >> cols)
        ) & free
        if np.array_equal(grown, region):
            break
        region = grown
    return region.astype(np.uint16)


def build_database(
    rows: int, cols: int, pattern: tuple[int, ...], progress: Progress | None = None
) -> bytes:
    """The fewest pattern-tile moves to bring each placement home, one byte a placement.

    A 0-1 breadth-first search over (placement, hole): moves of other tiles cost nothing, so
    a state is a placement plus the region of free cells the hole can reach, named by its
    lowest cell. A placement's entry is its least distance over those regions, a lower bound
    on the moves of the pattern's tiles that adds across disjoint patterns.
    """
    import numpy as np

    n = rows * cols
    if n > BASE:
        raise ValueError("pattern databases are built for boards of at most 16 cells")
    k = len(pattern)
    region_of = _components(rows, cols)
    # The lowest cell of each region: the name of a state's region.
    masks = np.arange(1 << 16, dtype=np.int64)
    lowest = np.zeros(1 << 16, dtype=np.int32)
    lowest[1:] = np.log2(masks[1:] & -masks[1:]).astype(np.int32)
    anchor_of = lowest[region_of]
    board_mask = (1 << n) - 1
    first_col = sum(1 << (r * cols) for r in range(rows))
    last_col = sum(1 << (r * cols + cols - 1) for r in range(rows))
    table = np.full(BASE**k, 255, dtype=np.uint8)
    # A bit per region anchor for each placement: which states are already reached.
    seen = np.zeros(BASE**k, dtype=np.uint16)

    home = sum((tile - 1) * BASE**i for i, tile in enumerate(pattern))
    home_free = board_mask & ~sum(1 << (tile - 1) for tile in pattern)
    start_cell = int(anchor_of[home_free << BASE_BITS | (n - 1)])
    layer = np.array([home * BASE + start_cell], dtype=np.int32)
    seen[home] = 1 << start_cell
    table[home] = 0
    depth = 0
    while layer.size:
        if progress is not None:
            progress(f"moves {depth}: {layer.size:,} states")
        following = []
        for begin in range(0, layer.size, BATCH):
            states = layer[begin : begin + BATCH]
            placement = states >> BASE_BITS
            cells = [(placement >> (BASE_BITS * i)) & (BASE - 1) for i in range(k)]
            occupied = np.zeros(states.size, dtype=np.int32)
            for cell in cells:
                occupied |= 1 << cell
            free = board_mask & ~occupied
            region = region_of[(free << BASE_BITS) | (states & (BASE - 1))].astype(np.int32)
            # Per direction (L, R, U, D): the cells from which a tile steps into the region.
            entries = (
                (-1, (region << 1) & ~first_col),
                (1, (region >> 1) & ~last_col),
                (-cols, (region << cols) & board_mask),
                (cols, region >> cols),
            )
            found = []
            for i, cell in enumerate(cells):
                for step, entry in entries:
                    able = ((entry >> cell) & 1).astype(bool)
                    if not able.any():
                        continue
                    source = cell[able]
                    moved = placement[able] + (step << (BASE_BITS * i))
                    # The tile's old cell joins the free cells, and the hole stands on it.
                    moved_free = (free[able] & ~(1 << (source + step))) | (1 << source)
                    anchor = anchor_of[(moved_free << BASE_BITS) | source]
                    fresh = ((seen[moved] >> anchor) & 1) == 0
                    found.append((moved[fresh] << BASE_BITS) | anchor[fresh])
            if not found:
                continue
            reached = np.unique(np.concatenate(found))
            placement_reached = reached >> BASE_BITS
            # Sorted keys group each placement's anchors together: OR their bits per group.
            starts = np.flatnonzero(np.diff(placement_reached, prepend=-1))
            bits = (1 << (reached & (BASE - 1))).astype(np.uint16)
            unique_placements = placement_reached[starts]
            seen[unique_placements] |= np.bitwise_or.reduceat(bits, starts)
            following.append(reached)
            first = table[unique_placements] == 255
            table[unique_placements[first]] = depth + 1
        layer = np.concatenate(following) if following else np.zeros(0, dtype=np.int32)
        depth += 1
    table[table == 255] = 0
    return table.tobytes()


def _reflect_cell(cell: int, cols: int) -> int:
    """The cell's image in the board's vertical middle line."""
    return cell - cell % cols + cols - 1 - cell % cols


def _start_region(rows: int, cols: int, pattern: tuple[int, ...]) -> frozenset[int]:
    """The free cells the hole reaches in the goal, the pattern's tiles held still."""
    homes = {tile - 1 for tile in pattern}
    region = {rows * cols - 1}
    todo = [rows * cols - 1]
    while todo:
        cell = todo.pop()
        r, c = divmod(cell, cols)
        for nr, nc in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)):
            near = nr * cols + nc
            if 0 <= nr < rows and 0 <= nc < cols and near not in homes and near not in region:
                region.add(near)
                todo.append(near)
    return frozenset(region)


def _reflection_source(rows: int, cols: int, pattern: tuple[int, ...]) -> tuple[int, ...] | None:
    """A pattern of the 4x4 partition whose mirror image (left to right) is ``pattern`` and
    whose goal state mirrors this one's, so its table, mirrored, is this pattern's table."""
    if (rows, cols) != (4, 4):
        return None
    image = tuple(sorted(_reflect_cell(tile - 1, cols) + 1 for tile in pattern))
    if image == tuple(sorted(pattern)) or image not in {tuple(sorted(p)) for p in PARTITION_4X4}:
        return None
    source = next(p for p in PARTITION_4X4 if tuple(sorted(p)) == image)
    mirrored = frozenset(_reflect_cell(c, cols) for c in _start_region(rows, cols, source))
    if mirrored != _start_region(rows, cols, pattern):
        return None
    return source


def reflect_database(
    rows: int, cols: int, source: tuple[int, ...], table: bytes, pattern: tuple[int, ...]
) -> bytes:
    """The table of ``pattern`` read off the table of its mirror image ``source``."""
    import numpy as np

    k = len(pattern)
    reflect = np.array([_reflect_cell(c, cols) if c < rows * cols else c for c in range(BASE)])
    index = np.arange(BASE**k, dtype=np.int64)
    source_index = np.zeros(BASE**k, dtype=np.int64)
    for i, tile in enumerate(pattern):
        j = source.index(_reflect_cell(tile - 1, cols) + 1)
        cell = (index >> (BASE_BITS * i)) & (BASE - 1)
        source_index += reflect[cell] << (BASE_BITS * j)
    return np.frombuffer(table, dtype=np.uint8)[source_index].tobytes()


_loaded: dict[tuple[int, int, tuple[int, ...], Path | None], bytes] = {}

#: The file in a folder that a process building databases into it holds locked (flock): one
#: build per folder on the machine at a time, about 300 MB and a minute each. Every web
#: process starts a builder, and a solve may need the databases before they are built.
LOCK_NAME = "sliding-pdb.lock"
#: This process's builds: one thread at a time, and a build within a build (a reflection
#: made from its source) does not take the folder's lock again (a second flock of the same
#: file from one process would wait for itself).
_building_here = threading.RLock()
_depth = 0


@contextmanager
def building(folder: Path, wait: bool = True) -> Iterator[bool]:
    """Hold ``folder``'s build lock: True once held (after waiting for another process's
    build to end, when ``wait``), False at once when another process holds it and not
    ``wait``. The lock goes when the block ends, or with the process if it dies."""
    global _depth
    if not _building_here.acquire(blocking=wait):
        yield False
        return
    try:
        if _depth:
            _depth += 1
            try:
                yield True
            finally:
                _depth -= 1
            return
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            _depth = 1
            try:
                yield True
            finally:
                _depth = 0
        finally:
            os.close(fd)
    finally:
        _building_here.release()


def _on_disk(path: Path | None, size: int) -> bytes | None:
    """The database in ``path`` if it is there whole, else None."""
    if path is not None and path.exists() and path.stat().st_size == size:
        return path.read_bytes()
    return None


def _make(rows: int, cols: int, pattern: tuple[int, ...], progress: Progress | None) -> bytes:
    """The database built now: reflected from its mirror image's when that one is at hand."""
    source = _reflection_source(rows, cols, pattern)
    if source is not None and _available(rows, cols, source):
        return reflect_database(rows, cols, source, load_database(rows, cols, source), pattern)
    return build_database(rows, cols, pattern, progress)


def load_database(
    rows: int, cols: int, pattern: tuple[int, ...], progress: Progress | None = None
) -> bytes:
    """The database for ``pattern``: from memory, from the folder in use, or built now (into
    the folder, after waiting for any other process building there: its file is then read)."""
    path = database_path(rows, cols, pattern)
    key = (rows, cols, pattern, path)
    table = _loaded.get(key)
    if table is not None:
        return table
    expected = BASE ** len(pattern)
    table = _on_disk(path, expected)
    if table is None and path is None:
        table = _make(rows, cols, pattern, progress)
    elif table is None:
        assert path is not None
        with building(path.parent):
            table = _on_disk(path, expected)  # built by the process that held the lock
            if table is None:
                table = _make(rows, cols, pattern, progress)
                for left in path.parent.glob(path.with_suffix(".tmp*").name):
                    left.unlink(missing_ok=True)  # a builder killed part-way left it
                partial = path.with_suffix(f".tmp{os.getpid()}")
                partial.write_bytes(table)
                partial.replace(path)  # atomic: a reader never sees half a database
    _loaded[key] = table
    return table


def _available(rows: int, cols: int, pattern: tuple[int, ...]) -> bool:
    path = database_path(rows, cols, pattern)
    return (rows, cols, pattern, path) in _loaded or (path is not None and path.exists())


def databases_ready(rows: int = 4, cols: int = 4, folder: Path | None = None) -> bool:
    """True when every database of the partition is on disk (in ``folder``, or the folder in
    use) or in memory."""
    if folder is not None:
        return all(database_path(rows, cols, p, folder).exists() for p in PARTITION_4X4)
    return all(_available(rows, cols, p) for p in PARTITION_4X4)


def ensure_databases(folder: Path | None = None, progress: Progress | None = None) -> float:
    """Load or build the 4x4 databases (into ``folder`` when given); the seconds it took."""
    if folder is not None:
        use_folder(folder)
    started = time.monotonic()
    for number, pattern in enumerate(PARTITION_4X4, 1):

        def report(text: str, number: int = number) -> None:
            if progress is not None:
                progress(f"pattern database {number}/{len(PARTITION_4X4)}: {text}")

        load_database(4, 4, pattern, report)
    return time.monotonic() - started


def build_databases_once(folder: Path, progress: Progress | None = None) -> bool:
    """The builder's run: the 4x4 databases built into ``folder``, holding its lock from
    first to last; False at once, with nothing done, when another process holds it (that
    one builds them, and its files serve every process)."""
    with building(folder, wait=False) as mine:
        if mine:
            ensure_databases(folder, progress)
        return mine


# -- the 8-puzzle's complete table ----------------------------------------------------------


@lru_cache(maxsize=2)
def exact_table(rows: int, cols: int) -> dict[Board, int]:
    """The distance to the goal of every solvable board (for boards of up to 9 cells)."""
    if rows * cols > 9:
        raise ValueError("exact tables are for boards of at most 9 cells")
    moves = move_table(rows, cols)
    start = goal(rows, cols)
    distance = {start: 0}
    layer = [(start, rows * cols - 1)]
    depth = 0
    while layer:
        depth += 1
        following = []
        for board, hole in layer:
            for cell, _k, _token in moves[hole]:
                tiles = list(board)
                tiles[hole], tiles[cell] = tiles[cell], 0
                child = tuple(tiles)
                if child not in distance:
                    distance[child] = depth
                    following.append((child, cell))
        layer = following
    return distance


def _descend(level: Level, board: Board, monitor: Monitor) -> Result:
    table = exact_table(level.rows, level.cols)
    moves = move_table(level.rows, level.cols)
    path: list[str] = []
    hole = board.index(0)
    expanded = 0
    heat = monitor.heat_map(level.rows, level.cols)
    while table[board]:
        expanded += 1
        if heat is not None:
            heat.add((hole,))
        for cell, _k, token in moves[hole]:
            tiles = list(board)
            tiles[hole], tiles[cell] = tiles[cell], 0
            child = tuple(tiles)
            if table[child] < table[board]:
                board, hole = child, cell
                path.append(token)
                break
    monitor.tick(expanded, expanded * 3, 0, len(path), force=True)
    return monitor.result("solved", moves=path, optimal=True, extra={"table": len(table)})


# -- the search ------------------------------------------------------------------------------


def solve_with_databases(level: Level, board: Board, monitor: Monitor) -> Result:
    """Optimal: the exact table on 3x3, pattern databases on 4x4, idastar on other small boards."""
    rows, cols = level.rows, level.cols
    if rows * cols <= 9:
        return run_search(lambda m: _descend(level, board, m), monitor)
    if (rows, cols) != (4, 4):
        if rows * cols <= 12:
            from webapp.games.sliding.solver import run_idastar

            return run_idastar(level, board, monitor)
        return monitor.result(
            "error",
            error=f"pattern databases exist for 3x3 and 4x4 boards, not {rows}x{cols}: "
            "use the fast solver (or idastar) for this board",
        )
    return run_search(lambda m: _search(board, m), monitor)


def _search(start: Board, monitor: Monitor) -> Result:
    started = time.monotonic()

    def report(text: str) -> None:
        monitor.note = text
        monitor.tick(0, 0, 0, 0, force=True)

    ready = databases_ready()
    limits = monitor.limits
    if not ready:
        # The build is done once for every later solve, so it is not charged to this one's
        # time limit (a timeout would throw it away); cancellation still stops it.
        monitor.limits = replace(limits, seconds=None)
    try:
        build_seconds = ensure_databases(progress=report)
    finally:
        monitor.limits = limits
    if not ready:
        monitor.started += build_seconds
    tables = [load_database(4, 4, p) for p in PARTITION_4X4]
    result = pdb_idastar(start, tables, monitor)
    if not ready:
        result.extra["build_seconds"] = round(build_seconds, 2)
    result.extra["search_seconds"] = round(time.monotonic() - started - build_seconds, 3)
    return result


def pdb_idastar(start: Board, tables: list[bytes], monitor: Monitor) -> Result:
    """IDA* on the 4x4 with the 6-6-3 databases, taking the max of the board's value and its
    mirror image's (the board reflected in the main diagonal, tiles relabelled to match).

    The search loop is ``kernels.pdb_ida`` (compiled); this sets up its arrays and runs it
    in slices of ``SLICE`` nodes, ticking the monitor between slices."""
    import numpy as np

    from webapp.games.sliding import kernels

    rows = cols = 4
    n = rows * cols
    partition = PARTITION_4X4
    # Tile t of a board plays tile mirror[t] of the mirrored board, in the mirrored cell.
    transpose = [(c % cols) * cols + c // cols for c in range(n)]
    mirror = [0] + [transpose[t - 1] + 1 for t in range(1, n)]
    pattern_of = [0] * n
    weight = [0] * n
    for p, pattern in enumerate(partition):
        for i, tile in enumerate(pattern):
            pattern_of[tile] = p
            weight[tile] = BASE**i
    mirror_pattern = [pattern_of[mirror[t]] for t in range(n)]
    mirror_weight = [weight[mirror[t]] for t in range(n)]
    index = [0] * len(partition)
    mirror_index = [0] * len(partition)
    for cell, tile in enumerate(start):
        if tile:
            index[pattern_of[tile]] += cell * weight[tile]
            mirror_index[mirror_pattern[tile]] += transpose[cell] * mirror_weight[tile]
    # Per tile and direction k (move_table's numbering): the change of the tile's placement
    # index in its pattern, and of its mirror's index in the mirrored pattern.
    board_step = (-1, 1, -cols, cols)  # the hole's cell minus the tile's cell
    mirror_step = (-cols, cols, -1, 1)
    shift = [board_step[k] * weight[t] for t in range(n) for k in range(4)]
    mirror_shift = [mirror_step[k] * mirror_weight[t] for t in range(n) for k in range(4)]
    flat, offsets = _joined(tables)
    value = [int(flat[offsets[p] + index[p]]) for p in range(len(partition))]
    mirror_value = [int(flat[offsets[p] + mirror_index[p]]) for p in range(len(partition))]
    table = move_table(rows, cols)
    move_cell = np.zeros((n, 4), np.int64)
    move_dir = np.zeros((n, 4), np.int64)
    move_count = np.array([len(table[h]) for h in range(n)], np.int64)
    for h in range(n):
        for j, (cell, k, _token) in enumerate(table[h]):
            move_cell[h, j] = cell
            move_dir[h, j] = k
    tokens = {(h, cell): token for h in range(n) for cell, _k, token in table[h]}

    def ints(values: list[int]) -> Any:
        return np.array(values, np.int64)

    board = np.array(start, np.uint8)
    index_a, value_a = ints(index), ints(value)
    mirror_index_a, mirror_value_a = ints(mirror_index), ints(mirror_value)
    pattern_a, shift_a = ints(pattern_of), ints(shift)
    mirror_pattern_a, mirror_shift_a = ints(mirror_pattern), ints(mirror_shift)
    depth_cap = kernels.MAX_DEPTH
    holes = np.zeros(depth_cap, np.int64)
    slot = np.zeros(depth_cap, np.int64)
    h_plain = np.zeros(depth_cap, np.int64)
    h_mirror = np.zeros(depth_cap, np.int64)
    undo = np.zeros((depth_cap, 4), np.int64)
    state = np.zeros(kernels.STATE_SIZE, np.int64)
    if tuple(start) == goal(rows, cols):
        return monitor.result("solved", moves=[], optimal=True)
    bound = max(sum(value), sum(mirror_value))
    holes[0] = list(start).index(0)
    h_plain[0] = sum(value)
    h_mirror[0] = sum(mirror_value)
    limit = monitor.limits.nodes
    heat = monitor.heat_map(rows, cols)
    counts = heat.counts if heat is not None else no_heat()

    def sample() -> Board:
        return tuple(int(t) for t in board)

    def path() -> list[str]:
        """The moves to the board the search is at: its hole's cells down the current line."""
        cells = [int(c) for c in holes[: int(state[kernels.DEPTH]) + 1]]
        return [tokens[a, b] for a, b in zip(cells, cells[1:], strict=False)]

    try:
        while True:
            if bound >= depth_cap:
                return monitor.result("error", error=f"no solution within {depth_cap} moves")
            state[kernels.DEPTH] = 0
            state[kernels.BOUND] = bound
            state[kernels.NEXT_BOUND] = 1 << 30
            slot[0] = 0
            monitor.note = f"f-bound {bound}"
            monitor.tick(
                int(state[kernels.EXPANDED]),
                int(state[kernels.GENERATED]),
                0,
                bound,
                sample,
                force=True,
            )
            while True:
                budget = SLICE
                if limit is not None:
                    budget = max(1, min(budget, limit - int(state[kernels.EXPANDED])))
                status = kernels.pdb_ida(
                    board, flat, offsets, pattern_a, shift_a, mirror_pattern_a,
                    mirror_shift_a, move_cell, move_dir, move_count, index_a, value_a,
                    mirror_index_a, mirror_value_a, holes, slot, h_plain, h_mirror, undo, state,
                    budget, counts, heat is not None,
                )  # fmt: skip
                expanded, generated = int(state[kernels.EXPANDED]), int(state[kernels.GENERATED])
                if status == kernels.FOUND:
                    monitor.tick(expanded, generated, 0, bound, force=True)
                    depth = int(state[kernels.DEPTH])
                    cells = [int(c) for c in holes[: depth + 1]]
                    path = [tokens[a, b] for a, b in zip(cells, cells[1:], strict=False)]
                    return monitor.result(
                        "solved", moves=path, optimal=True, extra={"bound": bound}
                    )
                monitor.tick(expanded, generated, 0, bound, sample)
                if status == kernels.EXHAUSTED:
                    break
            bound = int(state[kernels.NEXT_BOUND])
    except Stop:
        # Stopped by a limit: the board shown and the line of moves to it, read once.
        monitor.stopped_here(sample, path)
        raise


#: Nodes per kernel call: a few milliseconds of search between monitor ticks.
SLICE = 1 << 16


def _joined(tables: list[bytes]) -> tuple[Any, Any]:
    """The tables laid end to end in one numpy array, and where each starts (kept per process:
    the 6-6-3 tables are 32 MB)."""
    import numpy as np

    key = tuple(id(t) for t in tables)
    cached = _joined_cache.get(key)
    if cached is None:
        offsets = np.cumsum([0] + [len(t) for t in tables[:-1]]).astype(np.int64)
        flat = np.frombuffer(b"".join(tables), np.uint8)
        _joined_cache.clear()
        cached = _joined_cache[key] = (flat, offsets, tables)
    return cached[0], cached[1]


_joined_cache: dict[tuple[int, ...], tuple[Any, Any, list[bytes]]] = {}


def forget_joined() -> None:
    """Drop the tables joined for the compiled search (a warm-up's are not worth keeping)."""
    _joined_cache.clear()
