"""The generic search engine on small problems whose answers are known by construction."""

from __future__ import annotations

import random

import pytest

from webapp.search import Limits, Monitor, SearchProblem, Stop, astar, best_first, bfs, idastar


class Grid(SearchProblem[tuple[int, int]]):
    """Walk on a grid from the top-left to a target, around walls; one step costs one."""

    def __init__(self, rows: list[str]):
        self.rows = rows
        self.goal = next(
            (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "G"
        )

    def start(self):
        return (0, 0)

    def is_goal(self, state):
        return state == self.goal

    def successors(self, state):
        r, c = state
        for name, (dr, dc) in {"u": (-1, 0), "d": (1, 0), "l": (0, -1), "r": (0, 1)}.items():
            nr, nc = r + dr, c + dc
            if (
                0 <= nr < len(self.rows)
                and 0 <= nc < len(self.rows[0])
                and self.rows[nr][nc] != "#"
            ):
                yield (name,), (nr, nc), 1

    def h(self, state):
        return abs(state[0] - self.goal[0]) + abs(state[1] - self.goal[1])


MAZE = Grid(
    [
        "....#....",
        ".##.#.##.",
        ".#..#..#.",
        ".#.###.#.",
        ".#.....#G",
    ]
)
SHORTEST = 24  # rrr dd l dd rrrr uu l uu rrr dddd: through the gap in the bottom row
WALLED = Grid(["..#", "###", "..G"])


def walk(problem: Grid, moves: list[str]) -> tuple[int, int]:
    state = problem.start()
    for move in moves:
        state = next(s for (a,), s, _ in problem.successors(state) if a == move)
    return state


@pytest.mark.parametrize("search", [bfs, astar, idastar])
def test_optimal_algorithms_find_the_shortest_path(search):
    result = search(MAZE, Monitor())
    assert result.status == "solved" and result.optimal
    assert len(result.moves) == result.cost == SHORTEST
    assert walk(MAZE, result.moves) == MAZE.goal
    assert result.expanded > 0 and result.generated >= result.expanded


def test_greedy_best_first_finds_a_path_but_promises_nothing():
    result = best_first(MAZE, Monitor(), g_weight=0.0, h_weight=1.0)
    assert result.status == "solved" and not result.optimal
    assert walk(MAZE, result.moves) == MAZE.goal and len(result.moves) >= SHORTEST


@pytest.mark.parametrize("search", [bfs, astar, idastar])
def test_an_exhausted_space_is_proved_unsolvable(search):
    assert search(WALLED, Monitor()).status == "unsolvable"


@pytest.mark.parametrize("search", [bfs, astar, idastar])
def test_the_node_limit_stops_a_search(search):
    monitor = Monitor(Limits(seconds=None, nodes=3, memory_mb=None))
    assert search(MAZE, monitor).status == "node-limit"


class Endless(SearchProblem[int]):
    """An infinite line of states: only a limit or a cancellation ends a search on it."""

    def start(self):
        return 0

    def is_goal(self, state):
        return False

    def successors(self, state):
        yield ("r",), state + 1, 1


@pytest.mark.parametrize("search", [bfs, astar, idastar])
def test_cancellation_and_the_time_limit_stop_a_search(search):
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 3

    assert search(Endless(), Monitor(Limits(nodes=None), cancelled=cancelled)).status == "cancelled"
    timed = Monitor(Limits(seconds=0.05, nodes=None))
    assert search(Endless(), timed).status == "timeout"


def test_progress_reports_carry_counters_and_a_sample():
    reports = []
    monitor = Monitor(Limits(seconds=0.3, nodes=None), on_progress=reports.append, interval=0.01)
    bfs(Endless(), monitor)
    assert len(reports) >= 2
    assert reports[-1].expanded >= reports[0].expanded > 0
    assert isinstance(reports[-1].sample, int) and reports[-1].rate > 0


def test_a_stopped_search_reports_the_closest_position_it_met():
    """An informed search keeps the position with the least estimate left; when its limits
    stop it, a last report carries that position (the panel offers to play on from it)."""
    from webapp.games import get
    from webapp.games.sliding.level import shuffle

    game = get("sliding")
    tiles = shuffle(4, 4, random.Random(7))  # a full shuffle: far from solved
    rows = [" ".join(map(str, tiles[r * 4 : r * 4 + 4])) for r in range(4)]
    level = game.parse("size: 4x4\n" + "\n".join(rows))[0]
    for algorithm in ("astar", "idastar"):
        reports: list = []
        monitor = Monitor(Limits(seconds=None, nodes=200), on_progress=reports.append)
        result = game.algorithms()[algorithm].run(level, game.start(level), monitor)
        assert result.status == "node-limit"
        last = reports[-1]
        assert last.closest is not None and last.closest_h == monitor.closest_h
        start_h = sum(
            abs(i // 4 - (t - 1) // 4) + abs(i % 4 - (t - 1) % 4)
            for i, t in enumerate(level.tiles)
            if t
        )
        assert last.closest_h < start_h  # nearer the goal than where it began
        assert sorted(last.closest) == list(range(16))  # a real board


def test_the_memory_limit_counts_what_the_search_takes_not_what_its_process_held():
    """A check run in a long-lived process (a test worker holding a gigabyte) was stopped at
    once by a 1,024 MB limit, having taken nothing: the limit is the search's own."""
    held = bytearray(300 * 2**20)  # the process holds 300 MB before the search begins
    held[::4096] = b"x" * len(held[::4096])  # touched: resident
    monitor = Monitor(Limits(seconds=None, nodes=None, memory_mb=200), interval=0.0)
    monitor.tick(1, 1, 1, 1, force=True)  # 300 MB resident, none of it the search's: goes on
    taken = bytearray(450 * 2**20)
    taken[::4096] = b"x" * len(taken[::4096])
    # Both touched again just before the reading: this machine's kernel reclaims pages left
    # cold (DAMON), which took part of what was held out of the reading and hid the growth.
    held[::4096] = b"y" * len(held[::4096])
    taken[::4096] = b"y" * len(taken[::4096])
    with pytest.raises(Stop) as stopped:
        monitor.tick(2, 2, 2, 2, force=True)
    assert stopped.value.reason == "memory-limit"
    del held, taken
