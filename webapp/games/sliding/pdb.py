"""Additive pattern databases for the 15-puzzle, an exact table for the 8-puzzle, and the IDA*
that searches with them.

A pattern database holds, for every placement of a few tiles (the pattern), the fewest moves
of those tiles that bring them all home. The patterns of a partition share no tile, so their
values add up to a lower bound. Built in pure Python by a breadth-first search over bitsets
(Python's big integers): a layer is one integer with a bit per placement, and moving pattern
tile i one cell is a shift of that integer, masked to the placements where the move is legal.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from webapp.games.sliding.heuristics import move_table
from webapp.games.sliding.level import Level, goal
from webapp.search import Monitor, Result, run_search

Board = tuple[int, ...]

#: The 4x4 partition: the left and right halves of the top three rows, and the bottom row.
PARTITION_4X4: tuple[tuple[int, ...], ...] = (
    (1, 2, 5, 6, 9, 10),
    (3, 4, 7, 8, 11, 12),
    (13, 14, 15),
)

#: Files carry this in their name; bump it when the format or the construction changes.
FORMAT = 1

# A placement index holds one base-16 digit per pattern tile: digit i is the cell of tile i.
BASE_BITS = 4
BASE = 1 << BASE_BITS

Progress = Callable[[str], None]


def instance_dir() -> Path:
    """Where databases are kept: $PUZZLE_LAB_INSTANCE, else instance/ at the repository root."""
    configured = os.environ.get("PUZZLE_LAB_INSTANCE")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3] / "instance"


def database_path(rows: int, cols: int, pattern: tuple[int, ...]) -> Path:
    tiles = ".".join(map(str, pattern))
    return instance_dir() / f"sliding-pdb{FORMAT}-{rows}x{cols}-{tiles}.bin"


# -- building ------------------------------------------------------------------------------


def _mask(digits: int, involved: tuple[int, ...], allowed: Callable[..., bool]) -> int:
    """A bitset over all placements (``digits`` base-16 digits) whose bit is set where
    ``allowed(*values of the involved digits)`` holds; built from repeated byte blocks."""
    full = b"\xff"
    empty = b"\x00"

    def block(level: int, chosen: dict[int, int]) -> bytes:
        # The bytes for digits 0..level, the digits above fixed in ``chosen``.
        size = BASE ** (level + 1) // 8
        lower = [d for d in involved if d <= level]
        if not lower:
            return (full if allowed(*(chosen[d] for d in involved)) else empty) * size
        if level == 0:
            bits = 0
            for value in range(BASE):
                if allowed(*({**chosen, 0: value}[d] for d in involved)):
                    bits |= 1 << value
            return bits.to_bytes(size, "little")
        if level not in involved:
            return block(level - 1, chosen) * BASE
        return b"".join(block(level - 1, {**chosen, level: v}) for v in range(BASE))

    return int.from_bytes(block(digits - 1, {}), "little")


def build_database(
    rows: int, cols: int, pattern: tuple[int, ...], progress: Progress | None = None
) -> bytes:
    """The fewest pattern-tile moves to bring each placement home, one byte a placement.

    The hole is left out: a pattern tile may step onto any cell no other pattern tile holds.
    That relaxes the puzzle further than a database that tracks the hole, so every entry is
    still a lower bound on the moves of the pattern's tiles (other tiles' moves count 0).
    """
    if rows * cols > BASE:
        raise ValueError("pattern databases are built for boards of at most 16 cells")
    k = len(pattern)
    moves: list[tuple[int, int]] = []  # (mask of placements where the move is legal, shift)
    for i in range(k):
        for dr, dc in ((0, -1), (0, 1), (-1, 0), (1, 0)):
            step = dr * cols + dc

            def fits(cell: int, dr: int = dr, dc: int = dc) -> bool:
                r, c = divmod(cell, cols)
                return cell < rows * cols and 0 <= r + dr < rows and 0 <= c + dc < cols

            legal = _mask(k, (i,), fits)
            for j in range(k):
                if j != i:
                    legal &= _mask(k, (i, j), lambda a, b, step=step: b != a + step)
            moves.append((legal, step * BASE**i))
    home = sum((tile - 1) * BASE**i for i, tile in enumerate(pattern))
    frontier = 1 << home
    seen = frontier
    planes: list[int] = []  # bit b of each placement's distance
    depth = 0
    while frontier:
        for bit in range(max(1, depth.bit_length())):
            if len(planes) <= bit:
                planes.append(0)
            if depth >> bit & 1:
                planes[bit] |= frontier
        if progress is not None:
            progress(f"moves {depth}: {frontier.bit_count():,} placements")
        reached = 0
        for legal, shift in moves:
            moved = frontier & legal
            if moved:
                reached |= moved << shift if shift > 0 else moved >> -shift
        frontier = reached & ~seen
        seen |= frontier
        depth += 1
    return _planes_to_bytes(planes, BASE**k)


def _planes_to_bytes(planes: list[int], size: int) -> bytes:
    """Turn bit planes (plane b holds bit b of every value) into one byte per value."""
    width = size // 8
    plane_bytes = [plane.to_bytes(width, "little") for plane in planes]
    out = bytearray(size)
    for j in range(8):
        value = 0
        for b, data in enumerate(plane_bytes):
            spread = bytes(((x >> j) & 1) << b for x in range(256))
            value |= int.from_bytes(data.translate(spread), "little")
        out[j::8] = value.to_bytes(width, "little")
    return bytes(out)


_loaded: dict[Path, bytes] = {}


def load_database(
    rows: int, cols: int, pattern: tuple[int, ...], progress: Progress | None = None
) -> bytes:
    """The database for ``pattern``: from memory, from the instance folder, or built now."""
    path = database_path(rows, cols, pattern)
    table = _loaded.get(path)
    if table is not None:
        return table
    expected = BASE ** len(pattern)
    if path.exists() and path.stat().st_size == expected:
        table = path.read_bytes()
    else:
        table = build_database(rows, cols, pattern, progress)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".tmp{os.getpid()}")
        partial.write_bytes(table)
        partial.replace(path)  # atomic: a reader never sees half a database
    _loaded[path] = table
    return table


def databases_ready(rows: int = 4, cols: int = 4) -> bool:
    """True when every database of the partition is on disk or in memory."""
    return all(
        database_path(rows, cols, p) in _loaded or database_path(rows, cols, p).exists()
        for p in PARTITION_4X4
    )


def ensure_databases(progress: Progress | None = None) -> float:
    """Load or build the 4x4 databases; the seconds it took."""
    started = time.monotonic()
    for number, pattern in enumerate(PARTITION_4X4, 1):

        def report(text: str, number: int = number) -> None:
            if progress is not None:
                progress(f"pattern database {number}/{len(PARTITION_4X4)}: {text}")

        load_database(4, 4, pattern, report)
    return time.monotonic() - started


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
    while table[board]:
        expanded += 1
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
    build_seconds = ensure_databases(report)
    tables = [load_database(4, 4, p) for p in PARTITION_4X4]
    result = pdb_idastar(start, tables, monitor)
    if not ready:
        result.extra["build_seconds"] = round(build_seconds, 2)
    result.extra["search_seconds"] = round(time.monotonic() - started - build_seconds, 3)
    return result


def pdb_idastar(start: Board, tables: list[bytes], monitor: Monitor) -> Result:
    """IDA* on the 4x4 with the 6-6-3 databases, taking the max of the board's value and its
    mirror image's (the board reflected in the main diagonal, tiles relabelled to match)."""
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
    board = list(start)
    index = [0] * len(partition)
    mirror_index = [0] * len(partition)
    for cell, tile in enumerate(board):
        if tile:
            index[pattern_of[tile]] += cell * weight[tile]
            mirror_index[mirror_pattern[tile]] += transpose[cell] * mirror_weight[tile]
    table_of = [tables[pattern_of[t]] for t in range(n)]
    mirror_table_of = [tables[mirror_pattern[t]] for t in range(n)]
    # Per hole cell: (tile cell, cell step in the board, cell step in the mirror, token).
    moves = [
        tuple(
            (cell, hole - cell, transpose[hole] - transpose[cell], token) for cell, _k, token in row
        )
        for hole, row in enumerate(move_table(rows, cols))
    ]
    path: list[str] = []
    stride = monitor.stride
    counts = [0, 0]
    next_bound = 0
    bound = 0

    def dfs(hole: int, g: int, previous: int, h_plain: int, h_mirror: int) -> bool:
        nonlocal next_bound
        counts[0] += 1
        if counts[0] % stride == 0:
            monitor.tick(counts[0], counts[1], 0, bound, lambda: tuple(board))
        g1 = g + 1
        for cell, step, mirror_step, token in moves[hole]:
            if cell == previous:
                continue
            tile = board[cell]
            p = pattern_of[tile]
            old = index[p]
            new = old + step * weight[tile]
            table = table_of[tile]
            plain = h_plain - table[old] + table[new]
            f = g1 + plain
            if f > bound:
                if f < next_bound:
                    next_bound = f
                continue
            q = mirror_pattern[tile]
            mirror_old = mirror_index[q]
            mirror_new = mirror_old + mirror_step * mirror_weight[tile]
            table = mirror_table_of[tile]
            mirrored = h_mirror - table[mirror_old] + table[mirror_new]
            if mirrored > plain:
                f = g1 + mirrored
                if f > bound:
                    if f < next_bound:
                        next_bound = f
                    continue
            counts[1] += 1
            if plain == 0:
                path.append(token)
                return True
            board[hole] = tile
            board[cell] = 0
            index[p] = new
            mirror_index[q] = mirror_new
            path.append(token)
            if dfs(cell, g1, hole, plain, mirrored):
                return True
            path.pop()
            board[cell] = tile
            board[hole] = 0
            index[p] = old
            mirror_index[q] = mirror_old
        return False

    h_plain = sum(tables[p][index[p]] for p in range(len(partition)))
    h_mirror = sum(tables[p][mirror_index[p]] for p in range(len(partition)))
    if tuple(board) == goal(rows, cols):
        return monitor.result("solved", moves=[], optimal=True)
    bound = max(h_plain, h_mirror)
    hole0 = board.index(0)
    while True:
        monitor.note = f"f-bound {bound}"
        monitor.tick(counts[0], counts[1], 0, bound, lambda: tuple(board), force=True)
        next_bound = 1 << 30
        if dfs(hole0, 0, -1, h_plain, h_mirror):
            monitor.tick(counts[0], counts[1], 0, bound, force=True)
            return monitor.result("solved", moves=list(path), optimal=True, extra={"bound": bound})
        bound = next_bound
