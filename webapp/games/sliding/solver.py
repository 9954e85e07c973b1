"""The sliding-puzzle solvers: A* with Manhattan distance, IDA* with Manhattan distance plus
linear conflict, IDA* with pattern databases, and a fast reduction solver for big boards."""

from __future__ import annotations

from collections.abc import Iterable

from webapp.games.sliding.heuristics import (
    ConflictTracker,
    manhattan,
    manhattan_steps,
    move_table,
)
from webapp.games.sliding.level import Level, goal
from webapp.search import Monitor, Result, SearchProblem, astar, over_bound, run_search

#: The rule by which IDA* never tries the move that takes back the one before.
TAKES_BACK = "it takes back the move before"

Board = tuple[int, ...]


class SlidingProblem(SearchProblem[tuple[Board, int, int]]):
    """Search states are (board, hole cell, Manhattan distance) so h updates by one step."""

    def __init__(self, level: Level, board: Board):
        self.rows, self.cols = level.rows, level.cols
        self.board = board
        self.goal = goal(level.rows, level.cols)
        self.moves = move_table(level.rows, level.cols)
        self.steps = manhattan_steps(level.rows, level.cols)
        self.n = level.rows * level.cols

    def start(self) -> tuple[Board, int, int]:
        return (self.board, self.board.index(0), manhattan(self.rows, self.cols, self.board))

    def is_goal(self, state: tuple[Board, int, int]) -> bool:
        return state[2] == 0

    def successors(
        self, state: tuple[Board, int, int]
    ) -> Iterable[tuple[tuple[str, ...], tuple[Board, int, int], int]]:
        board, hole, h = state
        n, steps = self.n, self.steps
        for cell, k, token in self.moves[hole]:
            tile = board[cell]
            tiles = list(board)
            tiles[hole], tiles[cell] = tile, 0
            yield (token,), (tuple(tiles), cell, h + steps[(tile * n + cell) * 4 + k]), 1

    def h(self, state: tuple[Board, int, int]) -> int:
        return state[2]

    def key(self, state: tuple[Board, int, int]) -> Board:
        return state[0]

    def display(self, state: tuple[Board, int, int]) -> Board:
        return state[0]

    def board_size(self) -> tuple[int, int]:
        return self.rows, self.cols

    def pieces(self, state: tuple[Board, int, int]) -> Iterable[int]:
        return (state[1],)  # the hole


def run_astar(level: Level, board: Board, monitor: Monitor) -> Result:
    return astar(SlidingProblem(level, board), monitor)


def run_idastar(level: Level, board: Board, monitor: Monitor) -> Result:
    return run_search(lambda m: idastar_conflict(level.rows, level.cols, board, m), monitor)


def idastar_conflict(rows: int, cols: int, start: Board, monitor: Monitor) -> Result:
    """IDA* on Manhattan distance plus linear conflict, both updated per move from tables."""
    n = rows * cols
    board = list(start)
    moves = move_table(rows, cols)
    steps = manhattan_steps(rows, cols)
    tracker = ConflictTracker(rows, cols)
    use_conflicts = tracker.enabled
    line_of, code_delta, tables = tracker.line, tracker.delta, tracker.tables
    shift_line, shift = tracker.shift_line, tracker.shift
    codes = tracker.codes(board)
    values = tracker.values(codes)
    path: list[str] = []
    stride = monitor.stride
    counts = [0, 0]  # expanded, generated
    next_bound = 0
    bound = 0
    tracer = monitor.tracer
    heat = monitor.heat_map(rows, cols)

    def told(hole: int, g: int, previous: int, h: int) -> None:
        # A depth-first search meets a board's children between the expansions below them,
        # so the tracer hears them all now, judged as dfs's loop will judge them.
        assert tracer is not None
        tracer.expand(tuple(board), g, h, g + h, g)
        for cell, k, token in moves[hole]:
            tile = board[cell]
            tiles = list(board)
            tiles[hole], tiles[cell] = tile, 0
            key = (tile * n + cell) * 4 + k
            nh = h + steps[key]
            line = line_of[key] if use_conflicts else -1
            if line >= 0:
                nh += tables[line][codes[line] + code_delta[key]] - values[line]
            if cell == previous:
                tracer.child((token,), tuple(tiles), "pruned", TAKES_BACK)
            elif g + 1 + nh > bound:
                tracer.child((token,), tuple(tiles), "pruned", over_bound(g + 1 + nh, bound))
            else:
                tracer.child((token,), tuple(tiles), "new")

    def dfs(hole: int, g: int, previous: int, h: int) -> bool:
        nonlocal next_bound
        counts[0] += 1
        if heat is not None:
            heat.add((hole,))
        if tracer is not None:
            told(hole, g, previous, h)
        if monitor.closest_h is None or h < monitor.closest_h:
            monitor.closer(h, lambda: tuple(board), lambda: list(path))
        if counts[0] % stride == 0:
            monitor.tick(counts[0], counts[1], 0, bound, lambda: tuple(board))
        g1 = g + 1
        for cell, k, token in moves[hole]:
            if cell == previous:
                continue
            tile = board[cell]
            key = (tile * n + cell) * 4 + k
            nh = h + steps[key]
            line = line_of[key] if use_conflicts else -1
            if line >= 0:
                old_code = codes[line]
                new_code = old_code + code_delta[key]
                old_value = values[line]
                new_value = tables[line][new_code]
                nh += new_value - old_value
            f = g1 + nh
            if f > bound:
                if f < next_bound:
                    next_bound = f
                continue
            counts[1] += 1
            board[hole] = tile
            board[cell] = 0
            path.append(token)
            if line >= 0:
                codes[line] = new_code
                values[line] = new_value
            along = shift_line[key]
            if along >= 0:
                codes[along] += shift[key]
            if nh == 0 or dfs(cell, g1, hole, nh):
                return True
            path.pop()
            board[cell] = tile
            board[hole] = 0
            if line >= 0:
                codes[line] = old_code
                values[line] = old_value
            if along >= 0:
                codes[along] -= shift[key]
        return False

    h0 = manhattan(rows, cols, board) + sum(values)
    if h0 == 0:
        return monitor.result("solved", moves=[], optimal=True)
    bound = h0
    hole0 = board.index(0)
    while True:
        monitor.note = f"f-bound {bound}"
        monitor.tick(counts[0], counts[1], 0, bound, lambda: tuple(board), force=True)
        next_bound = 1 << 30
        if dfs(hole0, 0, -1, h0):
            monitor.tick(counts[0], counts[1], 0, bound, force=True)
            return monitor.result("solved", moves=list(path), optimal=True, extra={"bound": bound})
        bound = next_bound
