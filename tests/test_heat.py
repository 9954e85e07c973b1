"""The heat map of a search: where each search looked, counted where it looks (the compiled
kernels and the Python loops), and recounted here from what ``trace`` prints of the same
search, square by square."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from tests.conftest import LEVELS
from webapp import games
from webapp.games.solving import solve, traceable
from webapp.ops.cli import main
from webapp.search import (
    HeatMap,
    Limits,
    Monitor,
    Progress,
    SearchProblem,
    Tracer,
    astar,
    bfs,
    idastar,
)

#: Small levels every traceable algorithm of each game solves in about a second: the whole
#: search is traced and recounted.
TRACED = [
    ("sokoban", "sokoban/microban.xsb", 1, "bfs"),
    ("sokoban", "sokoban/microban.xsb", 1, "astar"),
    ("sokoban", "sokoban/microban.xsb", 3, "bfs"),
    ("sokoban", "sokoban/microban.xsb", 2, "moves"),
    ("sliding", "sliding/warm-up.txt", 8, "astar"),
    ("sliding", "sliding/warm-up.txt", 8, "idastar"),
    ("vexed", "vexed/00_tutorial.txt", 1, "bfs"),
    ("vexed", "vexed/01_childrens_pack.txt", 3, "bfs"),
    ("blocks", "blocks/workshop.txt", 2, "path"),
    ("blocks", "blocks/workshop.txt", 2, "line"),
    ("blocks", "blocks/workshop.txt", 2, "steps"),
]


def level_of(game: games.Game, name: str, number: int) -> Any:
    return game.parse((LEVELS / name).read_text(encoding="utf-8"))[number - 1]


def pieces_in(name: str, text: str) -> list[tuple[int, int]]:
    """The squares (row, column) that hold a counted piece in a position as the game writes
    it (``trace``'s ``position``): read from the text alone, not by the solver's code."""
    lines = text.split("\n")
    if name == "sokoban":
        return [(r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch in "$*"]
    if name == "vexed":  # a block is a letter; walls and empty cells are '#' and '_'
        return [(r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch.isalpha()]
    if name == "sliding":  # a "size: RxC" line, then the tiles row by row, 0 the hole
        rows = [line.split() for line in lines[1:]]
        return [(r, c) for r, row in enumerate(rows) for c, tile in enumerate(row) if tile == "0"]
    if name == "blocks":  # a "goal:" line, then the grid: a piece's cells are its letter
        grid = lines[1:]
        return [(r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch.isalpha()]
    raise AssertionError(name)


def as_squares(heat: HeatMap) -> Counter[tuple[int, int]]:
    return Counter(
        {divmod(i, heat.cols): n for i, n in enumerate(heat.counts) if n}  # type: ignore[misc]
    )


def test_every_traceable_algorithm_of_every_game_is_covered() -> None:
    covered = {(name, algorithm) for name, _file, _number, algorithm in TRACED}
    for name in ("sokoban", "sliding", "vexed", "blocks"):
        for algorithm in traceable(games.get(name)):
            assert (name, algorithm) in covered


@pytest.mark.parametrize(("name", "file", "number", "algorithm"), TRACED)
def test_the_heat_map_is_the_pieces_of_the_positions_trace_prints(
    capsys, name, file, number, algorithm
) -> None:
    game = games.get(name)
    level = level_of(game, file, number)
    solved = solve(game, level, algorithm, limits=Limits(seconds=30))
    assert solved.status == "solved" and solved.heat is not None
    status = main(
        ["trace", name, str(LEVELS / file), "--level", str(number), "--algorithm", algorithm]
        + ["--steps", "100000"]
    )
    assert status == 0
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    recount: Counter[tuple[int, int]] = Counter()
    for step in steps:
        recount.update(pieces_in(name, step["position"]))
    heat = solved.heat
    assert heat.positions == len(steps) == solved.expanded
    assert as_squares(heat) == recount
    assert heat.pieces == sum(recount.values())


def test_a_sokoban_heat_map_holds_as_many_boxes_as_positions_looked_at_times_boxes() -> None:
    game = games.get("sokoban")
    for number in (1, 5, 20):
        level = level_of(game, "sokoban/microban.xsb", number)
        boxes = len(game.start(level).boxes)
        for algorithm in game.algorithms():
            result = solve(game, level, algorithm, limits=Limits(seconds=30))
            heat = result.heat
            assert heat is not None, algorithm
            assert (heat.rows, heat.cols) == (level.height, level.width)
            assert heat.positions == result.expanded > 0, algorithm
            assert heat.pieces == heat.positions * boxes, algorithm
            # Boxes stand on floor only: never on a wall or outside the room.
            floor = {i for i, kind in enumerate(level.cell_kinds) if "wall" not in kind}
            assert {i for i, n in enumerate(heat.counts) if n} <= floor, algorithm


@pytest.mark.parametrize(
    "member",
    ["PLANNED", "FORWARD", "BACKWARD", "MOBILE", "FESS", "CPYTHON_FORWARD", "CPYTHON_BACKWARD"],
)
def test_each_compiled_sokoban_search_counts_the_boxes_of_each_position_it_takes(member) -> None:
    """Each member of the fast solver alone (the plan search's kernel, the best-first kernel
    forwards, backwards and on open floor; FESS and the searches in CPython, which settings
    may add), stopped by the positions limit."""
    from webapp.games.sokoban import solver
    from webapp.games.sokoban.portfolio import Kind, Setting

    game = games.get("sokoban")
    level = level_of(game, "sokoban/microban.xsb", 93)
    boxes = len(game.start(level).boxes)
    monitor = Monitor(Limits(seconds=30, nodes=5_000))
    setting = Setting(Kind[member]) if member.startswith("CPYTHON") else getattr(solver, member)
    result = solver.run_fast(level, game.start(level), monitor, (setting,))
    heat = result.heat
    assert heat is not None and heat.positions > 0
    assert heat.positions == result.expanded
    assert heat.pieces == heat.positions * boxes


def test_the_sliding_searches_count_the_hole_once_a_position() -> None:
    game = games.get("sliding")
    three = level_of(game, "sliding/warm-up.txt", 8)
    fifteen = level_of(game, "sliding/fifteen.txt", 1)
    for level in (three, fifteen):
        for algorithm in game.algorithms():
            result = solve(game, level, algorithm, limits=Limits(seconds=60))
            heat = result.heat
            assert result.status == "solved" and heat is not None, algorithm
            assert heat.positions > 0 and heat.pieces == heat.positions, algorithm
            if algorithm != "fast":  # the beam counts a layer as it takes it, below
                assert heat.positions == result.expanded, algorithm


def test_the_pattern_database_kernel_counts_where_the_hole_went() -> None:
    """Fifteen 1 of the collection is 4 moves from solved in a line: the IDA* kernel
    expands the boards on the way, each with the hole one square further."""
    from webapp.games.sliding.level import Level

    game = games.get("sliding")
    # The hole at the top left, three slides from home along the top row, then down the
    # last column: each board IDA* expands on the way has the hole one square on.
    tiles = (0, 1, 2, 3, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12)
    result = solve(game, Level(4, 4, tiles), "pdb", limits=Limits(seconds=60))
    assert result.status == "solved" and result.heat is not None
    heat = result.heat
    assert heat.positions == result.expanded == heat.pieces
    # The hole's way: (0,1), (0,2), (0,3), (1,3), (2,3); the last is solved, never expanded.
    assert as_squares(heat) == Counter({(0, 1): 1, (0, 2): 1, (0, 3): 1, (1, 3): 1, (2, 3): 1})


def test_the_compiled_vexed_search_counts_the_blocks_of_each_board_it_takes() -> None:
    game = games.get("vexed")
    level = level_of(game, "vexed/02_classic_levels.txt", 6)
    start = game.start(level)
    first = solve(game, level, "fast", limits=Limits(seconds=30, nodes=1))
    assert first.heat is not None and first.heat.positions == 1
    # One board taken: the start, settled, square for square as the game draws it.
    drawn = Counter(pieces_in("vexed", game.render_text(level, start)))
    assert as_squares(first.heat) == drawn
    whole = solve(game, level, "fast", limits=Limits(seconds=30))
    heat = whole.heat
    assert whole.status == "solved" and heat is not None
    assert heat.positions == whole.expanded
    # Blocks only vanish: each board has at least two and at most the start's.
    assert 2 * heat.positions <= heat.pieces <= heat.positions * sum(drawn.values())
    assert set(as_squares(heat)) <= {
        (r, c) for r, row in enumerate(start.rows) for c, ch in enumerate(row) if ch != "#"
    }


def test_progress_reports_carry_the_heat_map_so_far_and_the_result_all_of_it() -> None:
    game = games.get("blocks")
    level = level_of(game, "blocks/classics.txt", 1)
    reports: list[Progress] = []
    result = solve(game, level, "path", limits=Limits(seconds=30), on_progress=reports.append)
    assert result.status == "solved" and result.heat is not None
    shown = [report.heat for report in reports if report.heat is not None]
    assert shown, "no progress report carried a heat map"
    cells = 18  # ten pieces covering all but two of the 4 x 5 squares
    for heat in [*shown, result.heat]:
        assert heat.pieces == heat.positions * cells
    positions = [heat.positions for heat in shown]
    assert positions == sorted(positions) and positions[-1] <= result.heat.positions
    assert result.heat.positions == result.expanded


def test_a_search_told_not_to_count_keeps_no_heat_map() -> None:
    for name, file, number, algorithm in [
        ("sokoban", "sokoban/microban.xsb", 1, "fast"),
        ("vexed", "vexed/00_tutorial.txt", 1, "fast"),
        ("sliding", "sliding/fifteen.txt", 1, "pdb"),
        ("blocks", "blocks/workshop.txt", 2, "path"),
    ]:
        game = games.get(name)
        level = level_of(game, file, number)
        reports: list[Progress] = []
        result = solve(
            game, level, algorithm, limits=Limits(seconds=60), on_progress=reports.append,
            counting=False,
        )  # fmt: skip
        assert result.status == "solved", name
        assert result.heat is None and all(report.heat is None for report in reports), name


class Walk(SearchProblem[tuple[int, int]]):
    """A walker on an open 4 x 5 board from the top-left corner to the bottom-right one: the
    heat map counts the walker's square."""

    rows, cols = 4, 5

    def start(self) -> tuple[int, int]:
        return (0, 0)

    def is_goal(self, state: tuple[int, int]) -> bool:
        return state == (self.rows - 1, self.cols - 1)

    def successors(self, state: tuple[int, int]) -> Any:
        r, c = state
        for name, (dr, dc) in {"d": (1, 0), "r": (0, 1), "u": (-1, 0), "l": (0, -1)}.items():
            if 0 <= r + dr < self.rows and 0 <= c + dc < self.cols:
                yield (name,), (r + dr, c + dc), 1

    def h(self, state: tuple[int, int]) -> int:
        return self.rows - 1 - state[0] + self.cols - 1 - state[1]

    def board_size(self) -> tuple[int, int]:
        return self.rows, self.cols

    def pieces(self, state: tuple[int, int]) -> list[int]:
        return [state[0] * self.cols + state[1]]


class Taken(Tracer):
    def __init__(self) -> None:
        self.states: list[tuple[int, int]] = []

    def expand(self, state: Any, g: int, h: int, f: int, waiting: int) -> None:
        self.states.append(state)


@pytest.mark.parametrize("search", [bfs, astar, idastar])
def test_the_generic_searches_count_the_pieces_of_each_position_they_take(search) -> None:
    taken = Taken()
    result = search(Walk(), Monitor(Limits(seconds=10), tracer=taken))
    assert result.status == "solved" and result.heat is not None
    heat = result.heat
    assert heat.positions == result.expanded == len(taken.states)
    assert as_squares(heat) == Counter(taken.states)


def test_a_problem_without_a_board_keeps_no_heat_map() -> None:
    class Plain(Walk):
        def board_size(self) -> None:  # type: ignore[override]
            return None

    assert bfs(Plain(), Monitor(Limits(seconds=10))).heat is None
