"""Move tables and the Manhattan-distance and linear-conflict bounds, shared by the solvers.

Everything here is plain lists of ints indexed by cell and tile, built once per board size, so
the search loops do arithmetic and list look-ups only.
"""

from __future__ import annotations

from functools import cache

#: Linear-conflict tables are built for lines up to this long (their size grows as (n+1)^n).
MAX_CONFLICT_LINE = 6


@cache
def move_table(rows: int, cols: int) -> tuple[tuple[tuple[int, int, str], ...], ...]:
    """For each hole cell, the moves: (cell of the tile that slides in, direction index, token).

    Direction indices: 0 L (tile from the right), 1 R, 2 U (tile from below), 3 D.
    """
    table = []
    for hole in range(rows * cols):
        r, c = divmod(hole, cols)
        moves = []
        if c + 1 < cols:
            moves.append((hole + 1, 0, "L"))
        if c > 0:
            moves.append((hole - 1, 1, "R"))
        if r + 1 < rows:
            moves.append((hole + cols, 2, "U"))
        if r > 0:
            moves.append((hole - cols, 3, "D"))
        table.append(tuple(moves))
    return tuple(table)


def manhattan(rows: int, cols: int, board: tuple[int, ...] | list[int]) -> int:
    """The sum over tiles of their row and column distances from home."""
    total = 0
    for cell, tile in enumerate(board):
        if tile:
            home = tile - 1
            total += abs(cell // cols - home // cols) + abs(cell % cols - home % cols)
    return total


def _line_conflict(homes: list[int]) -> int:
    """Twice the number of tiles to lift out of a line so the rest stand in home order."""
    # Longest increasing subsequence of the home positions; the others must leave the line.
    best: list[int] = []
    for h in homes:
        lo, hi = 0, len(best)
        while lo < hi:
            mid = (lo + hi) // 2
            if best[mid] < h:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(best):
            best.append(h)
        else:
            best[lo] = h
    return 2 * (len(homes) - len(best))


@cache
def conflict_table(length: int) -> bytes:
    """Linear conflict of a line, indexed by its code: the sum over its cells of
    (home index + 1, or 0 for a tile that does not belong to the line) * (length + 1)^cell."""
    base = length + 1
    table = bytearray(base**length)
    for code in range(len(table)):
        homes = []
        x = code
        for _ in range(length):
            x, digit = divmod(x, base)
            if digit:
                homes.append(digit)
        if len(homes) > 1 and len(set(homes)) == len(homes):
            table[code] = _line_conflict(homes)
    return bytes(table)


class ConflictTracker:
    """Incremental linear conflict: per line a code, and per (tile, cell, direction) the one
    line whose code a move changes and by how much."""

    def __init__(self, rows: int, cols: int):
        n = rows * cols
        self.rows, self.cols = rows, cols
        self.enabled = rows <= MAX_CONFLICT_LINE and cols <= MAX_CONFLICT_LINE
        # Lines 0..rows-1 are rows, rows..rows+cols-1 are columns.
        self.tables = [conflict_table(cols)] * rows + [conflict_table(rows)] * cols
        line = [-1] * (n * n * 4)
        delta = [0] * (n * n * 4)
        # A tile sliding along its own home line keeps the line's order (it swaps with the
        # hole), so the conflict stays; only the code shifts.
        shift_line = [-1] * (n * n * 4)
        shift = [0] * (n * n * 4)
        for tile in range(1, n):
            home_r, home_c = divmod(tile - 1, cols)
            for cell in range(n):
                r, c = divmod(cell, cols)
                for k, (dr, dc) in enumerate(((0, -1), (0, 1), (-1, 0), (1, 0))):
                    nr, nc = r + dr, c + dc
                    if not (0 <= nr < rows and 0 <= nc < cols):
                        continue
                    key = (tile * n + cell) * 4 + k
                    if dr == 0:  # a sideways move: the tile may leave or enter its column
                        weight = (home_r + 1) * (rows + 1) ** r
                        if home_c == c:
                            line[key], delta[key] = rows + c, -weight
                        elif home_c == nc:
                            line[key], delta[key] = rows + nc, weight
                        if home_r == r:
                            shift_line[key] = r
                            shift[key] = (home_c + 1) * ((cols + 1) ** nc - (cols + 1) ** c)
                    else:
                        weight = (home_c + 1) * (cols + 1) ** c
                        if home_r == r:
                            line[key], delta[key] = r, -weight
                        elif home_r == nr:
                            line[key], delta[key] = nr, weight
                        if home_c == c:
                            shift_line[key] = rows + c
                            shift[key] = (home_r + 1) * ((rows + 1) ** nr - (rows + 1) ** r)
        self.line = line
        self.delta = delta
        self.shift_line = shift_line
        self.shift = shift

    def codes(self, board: list[int] | tuple[int, ...]) -> list[int]:
        rows, cols = self.rows, self.cols
        codes = [0] * (rows + cols)
        for cell, tile in enumerate(board):
            if not tile:
                continue
            r, c = divmod(cell, cols)
            home_r, home_c = divmod(tile - 1, cols)
            if home_r == r:
                codes[r] += (home_c + 1) * (cols + 1) ** c
            if home_c == c:
                codes[rows + c] += (home_r + 1) * (rows + 1) ** r
        return codes

    def values(self, codes: list[int]) -> list[int]:
        if not self.enabled:
            return [0] * len(codes)
        return [table[code] for table, code in zip(self.tables, codes, strict=True)]


@cache
def manhattan_steps(rows: int, cols: int) -> list[int]:
    """Change of Manhattan distance, indexed (tile * n + cell) * 4 + direction, when that tile
    leaves that cell in that direction (the direction of the tile's own step)."""
    n = rows * cols
    steps = [0] * (n * n * 4)
    for tile in range(1, n):
        home_r, home_c = divmod(tile - 1, cols)
        for cell in range(n):
            r, c = divmod(cell, cols)
            for k, (dr, dc) in enumerate(((0, -1), (0, 1), (-1, 0), (1, 0))):
                nr, nc = r + dr, c + dc
                before = abs(r - home_r) + abs(c - home_c)
                after = abs(nr - home_r) + abs(nc - home_c)
                steps[(tile * n + cell) * 4 + k] = after - before
    return steps
