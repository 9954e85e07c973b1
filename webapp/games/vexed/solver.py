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
from webapp.games.vexed.level import Level
from webapp.games.vexed.rules import Board
from webapp.search import Monitor, Result, SearchProblem, bfs, run_search

#: bfs-all lists at most this many solutions; it still counts all of them.
MAX_LISTED = 1000

#: The visited-table entry of a board whose lower bound is infinite: never worth queueing.
DEAD: tuple[int, None] = (-1, None)


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
        while layer:
            depth += 1
            following: list[bytes] = []
            for board in layer:
                expanded += 1
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
    """A* on f = moves + the colour bound, with f buckets, deepest first within a bucket."""
    compact = Compact(level)
    bounds = Bounds(compact)
    start = compact.settle(compact.encode(state))
    goal = compact.cleared

    def search(monitor: Monitor) -> Result:
        h0 = bounds.estimate(start)
        extra: dict[str, Any] = {"lower_bound": h0}
        if start == goal:
            return monitor.result("solved", moves=[], cost=0, optimal=True, extra=extra)
        if h0 >= INF:
            extra["boards"] = 1
            return monitor.result("unsolvable", extra=extra)
        estimate = bounds.estimate
        children = compact.children
        stride = monitor.stride
        # parent[board] = (moves to reach it, the board before it).
        parent: dict[bytes, tuple[int, bytes | None]] = {start: (0, None)}
        # stacks[f - f_low][g]: boards waiting with that f and g; deepest g is taken first.
        f_low = h0
        stacks: list[list[list[bytes]]] = [[[] for _ in range(h0 + 1)]]
        stacks[0][0].append(start)
        waiting = 1
        expanded = 0
        generated = 1
        bound = h0
        while waiting:
            by_g = stacks[bound - f_low]
            while by_g and not by_g[-1]:
                by_g.pop()
            if not by_g:
                bound += 1
                if bound - f_low >= len(stacks):
                    break
                monitor.note = f"f-bound {bound}"
                continue
            g = len(by_g) - 1
            board = by_g[g].pop()
            waiting -= 1
            if parent[board][0] != g:
                continue  # reached again more cheaply after this entry was queued
            if board == goal:
                monitor.tick(expanded, generated, waiting, bound, force=True)
                extra["boards"] = generated
                moves = _replay_path(compact, parent, goal)
                return monitor.result("solved", moves=moves, cost=g, optimal=True, extra=extra)
            expanded += 1
            if expanded % stride == 0:
                monitor.tick(
                    expanded,
                    generated,
                    waiting,
                    bound,
                    lambda board=board: compact.decode(board),
                )
            child_g = g + 1
            for _slide, child in children(board):
                known = parent.get(child)
                if known is not None and known[0] <= child_g:
                    continue
                if child == goal:
                    parent[child] = (child_g, board)
                    if child_g == bound:
                        monitor.tick(expanded, generated + 1, waiting, bound, force=True)
                        extra["boards"] = generated + 1
                        moves = _replay_path(compact, parent, goal)
                        return monitor.result(
                            "solved", moves=moves, cost=child_g, optimal=True, extra=extra
                        )
                    h = 0
                else:
                    h = estimate(child)
                    if h >= INF:
                        parent[child] = DEAD  # so that it is not estimated again
                        continue
                parent[child] = (child_g, board)
                generated += 1
                f = child_g + h
                index = f - f_low
                while len(stacks) <= index:
                    stacks.append([])
                by_f = stacks[index]
                while len(by_f) <= child_g:
                    by_f.append([])
                by_f[child_g].append(child)
                waiting += 1
        monitor.tick(expanded, generated, 0, bound, force=True)
        extra["boards"] = generated
        return monitor.result("unsolvable", extra=extra)

    return run_search(search, monitor)


def _replay_path(
    compact: Compact, parent: dict[bytes, tuple[int, bytes | None]], goal: bytes
) -> list[str]:
    """The move tokens from the start to ``goal``, recovered by regenerating each step."""
    boards = [goal]
    link = parent[goal][1]
    while link is not None:
        boards.append(link)
        link = parent[link][1]
    boards.reverse()
    moves = []
    for before, after in zip(boards, boards[1:], strict=False):
        slide = next(s for s, child in compact.children(before, prune=False) if child == after)
        moves.append(compact.token(slide))
    return moves


ALGORITHMS: dict[str, Algorithm] = {
    "fast": Algorithm(
        name="fast",
        summary="A* with a per-colour lower bound (gaps and wall-aware meeting costs); optimal",
        metric="moves",
        optimal=True,
        run=solve_fast,
    ),
    "bfs": Algorithm(
        name="bfs",
        summary="breadth-first by moves, pruning boards where a colour has one block left",
        metric="moves",
        optimal=True,
        run=solve_bfs,
    ),
    "bfs-all": Algorithm(
        name="bfs-all",
        summary="breadth-first to the end of the shortest layer, listing every shortest solution",
        metric="moves",
        optimal=True,
        run=solve_bfs_all,
    ),
}
