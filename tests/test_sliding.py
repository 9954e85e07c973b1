"""The sliding puzzle: rules, level formats, codes, shuffles and every solver, on real boards."""

from __future__ import annotations

import itertools
import math
import random
import shutil
from collections import deque
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import DATA, LEVELS
from webapp.games.base import IllegalMove, LevelError, MoveError
from webapp.games.sliding import GAME, from_code, goal, is_solvable, position_code, shuffle
from webapp.games.sliding.level import Level
from webapp.games.solving import solve
from webapp.search import Limits

#: Where the app and the bench keep their databases.
OWN_INSTANCE = [Path(__file__).parents[1] / "instance"]


@pytest.fixture(scope="module", autouse=True)
def instance_folder(tmp_path_factory: pytest.TempPathFactory):
    """Pattern databases go to a fresh folder, so the tests build them as a user would."""
    from webapp.games.sliding import pdb

    folder = tmp_path_factory.mktemp("instance")
    pdb.use_folder(folder)
    yield folder
    pdb.use_folder(None)


KORF100 = DATA / "korf100_app.txt"
KORF24 = DATA / "korf50_24_app.txt"


def reachable(rows: int, cols: int) -> set[tuple[int, ...]]:
    """Every board a breadth-first search reaches from the goal (small boards only)."""
    start = goal(rows, cols)
    seen = {start}
    queue = deque([start])
    while queue:
        board = queue.popleft()
        level = Level(rows, cols, board)
        for move in GAME.legal_moves(level, board):
            child = GAME.apply(level, board, move)
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return seen


# -- the parity rule ------------------------------------------------------------------------


@pytest.mark.parametrize("rows,cols", [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4)])
def test_parity_rule_matches_the_reachable_boards(rows: int, cols: int) -> None:
    # Odd widths (3) and even widths (2, 4), including a hole-row term that matters.
    found = reachable(rows, cols)
    everything = list(itertools.permutations(range(rows * cols)))
    assert len(found) == len(everything) // 2
    for board in everything:
        assert is_solvable(rows, cols, board) == (board in found)


def test_parity_on_an_even_width_depends_on_the_hole_row() -> None:
    # Sliding the hole up one row on a 4-wide board changes inversions by 3 and the row by 1.
    solved = goal(4, 4)
    moved = GAME.apply(Level(4, 4, solved), solved, "D")
    assert is_solvable(4, 4, moved)
    swapped = list(moved)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert not is_solvable(4, 4, swapped)


@pytest.mark.parametrize("rows,cols", [(3, 3), (4, 4), (3, 4), (4, 3), (5, 5), (6, 6), (8, 8)])
def test_every_uniform_shuffle_is_solvable_and_unsolved(rows: int, cols: int) -> None:
    for seed in range(60):
        board = shuffle(rows, cols, random.Random(seed))
        assert sorted(board) == list(range(rows * cols))
        assert is_solvable(rows, cols, board)
        assert board != goal(rows, cols)


def test_uniform_shuffle_covers_the_8_puzzle_evenly() -> None:
    rng = random.Random(7)
    counts: dict[int, int] = {}
    for _ in range(4000):
        hole = shuffle(3, 3, rng).index(0)
        counts[hole] = counts.get(hole, 0) + 1
    assert len(counts) == 9
    assert min(counts.values()) > 4000 / 9 * 0.75


@pytest.mark.parametrize("moves", [1, 2, 7, 12, 40])
def test_random_walk_shuffles_stay_solvable(moves: int) -> None:
    for seed in range(30):
        for rows, cols in ((2, 2), (3, 3), (4, 4), (3, 5)):
            board = shuffle(rows, cols, random.Random(seed), moves=moves)
            assert is_solvable(rows, cols, board)
            assert board != goal(rows, cols)


def test_one_move_walk_is_one_move_from_the_goal() -> None:
    board = shuffle(4, 4, random.Random(1), moves=1)
    level = Level(4, 4, board)
    assert any(
        GAME.is_solved(level, GAME.apply(level, board, m))
        for m in "LRUD"
        if m in GAME.legal_moves(level, board)
    )


# -- notation and moves ---------------------------------------------------------------------


def test_move_letters_name_the_way_the_tile_slides() -> None:
    level = GAME.parse("1 2 3\n4 0 5\n6 7 8")[0]
    board = GAME.start(level)
    assert GAME.apply(level, board, "L") == (1, 2, 3, 4, 5, 0, 6, 7, 8)
    assert GAME.apply(level, board, "R") == (1, 2, 3, 0, 4, 5, 6, 7, 8)
    assert GAME.apply(level, board, "U") == (1, 2, 3, 4, 7, 5, 6, 0, 8)
    assert GAME.apply(level, board, "D") == (1, 0, 3, 4, 2, 5, 6, 7, 8)
    assert sorted(GAME.legal_moves(level, board)) == ["D", "L", "R", "U"]


def test_moves_at_the_edge_are_illegal_and_bad_letters_are_refused() -> None:
    level = Level(3, 3, goal(3, 3))
    board = GAME.start(level)
    assert sorted(GAME.legal_moves(level, board)) == ["D", "R"]
    with pytest.raises(IllegalMove):
        GAME.apply(level, board, "L")
    with pytest.raises(IllegalMove):
        GAME.apply(level, board, "U")
    with pytest.raises(MoveError):
        GAME.apply(level, board, "X")
    with pytest.raises(MoveError):
        GAME.split_moves("LLx")


def test_split_and_join_moves_ignore_whitespace() -> None:
    assert GAME.split_moves(" LL\nU r ") == ["L", "L", "U", "R"]
    assert GAME.join_moves(GAME.split_moves("LL U R")) == "LLUR"


def test_a_move_and_its_opposite_undo_each_other() -> None:
    level = GAME.parse(KORF100.read_text())[0]
    board = GAME.start(level)
    opposite = {"L": "R", "R": "L", "U": "D", "D": "U"}
    for move in GAME.legal_moves(level, board):
        assert GAME.apply(level, GAME.apply(level, board, move), opposite[move]) == board


def test_click_slides_the_whole_run() -> None:
    level = GAME.parse("1 2 3 4\n5 6 7 8\n9 10 0 11\n13 14 15 12")[0]
    board = GAME.start(level)
    assert GAME.click(level, board, 2, 0) == ["R", "R"]
    assert GAME.click(level, board, 2, 3) == ["L"]
    assert GAME.click(level, board, 0, 2) == ["D", "D"]
    assert GAME.click(level, board, 3, 2) == ["U"]
    assert GAME.click(level, board, 0, 0) == []
    assert GAME.click(level, board, 2, 2) == []
    assert GAME.click(level, board, 9, 9) == []
    after = GAME.replay(level, GAME.click(level, board, 2, 0))
    assert after[8:12] == (0, 9, 10, 11)


# -- level text ------------------------------------------------------------------------------


def test_korf_files_load_with_their_optimal_lengths() -> None:
    korf = GAME.parse(KORF100.read_text())
    assert len(korf) == 100
    assert all((lv.rows, lv.cols) == (4, 4) for lv in korf)
    assert sum(lv.known_optimal for lv in korf) == 5305  # mean 53.05 per SOURCES.md
    big = GAME.parse(KORF24.read_text())
    assert len(big) == 50 and all((lv.rows, lv.cols) == (5, 5) for lv in big)
    assert [lv.known_optimal for lv in big[:3]] == [95, 96, 97]


def test_level_text_round_trips() -> None:
    for level in GAME.parse(KORF100.read_text())[:5] + GAME.parse(KORF24.read_text())[:2]:
        again = GAME.parse(GAME.level_text(level))
        assert again == [level]
    titled = GAME.parse("title: Three by four\nsize: 3x4\n1 2 3 4\n5 6 7 8\n9 10 0 11")[0]
    assert (titled.title, titled.rows, titled.cols) == ("Three by four", 3, 4)
    assert GAME.parse(GAME.level_text(titled)) == [titled]
    assert "title" not in GAME.board_text(titled)


def test_plain_grids_and_collections() -> None:
    text = "# two boards\n1 2 3\n4 5 6\n7 0 8\n\n1 2\n0 3\n"
    levels = GAME.parse(text)
    assert [(lv.rows, lv.cols) for lv in levels] == [(3, 3), (2, 2)]
    assert GAME.parse("_ 1\n3 2")[0].tiles == (0, 1, 3, 2)


@pytest.mark.parametrize(
    "text,line,words",
    [
        ("1 2 3\n4 5 6\n7 8 8", 1, "appears twice"),
        ("1 2 3\n4 5 6\n7 8", 3, "first row has 3"),
        ("1 2 3\n4 5 6\n8 7 0", 1, "cannot be solved"),
        ("1 2 3 4\n5 6 7 8\n9 10 11 12\n13 15 14 0", 1, "even width"),
        ("1 2 3\n4 x 6\n7 8 0", 2, "not a tile number"),
        ("1 2 3\n4 \u00b9 6\n7 8 0", 2, "not a tile number"),  # a digit int() refuses
        ("size: 2x2\n1 2 3\n4 5 6\n7 8 0", 2, "header says 2x2"),
        ("# comment\n1 2 3 4 5 6 7 8 0 11 12", 2, "square number"),
        ("1 2 3 9\n4 5 6 7 8 0 10 11 12 13 14 15", 2, "first row has 4"),
    ],
)
def test_bad_levels_name_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(LevelError) as error:
        GAME.parse(text)
    assert error.value.line == line
    assert words in error.value.message


def test_boards_larger_than_8x8_are_refused() -> None:
    tiles = " ".join(str(t) for t in goal(9, 9))
    with pytest.raises(LevelError) as error:
        GAME.parse(tiles)
    assert "8x8" in error.value.message


# -- position codes ---------------------------------------------------------------------------


def test_position_codes_are_short_and_round_trip() -> None:
    assert position_code((3, 3), goal(3, 3)) == "3x3-123456780"
    for rows, cols in ((3, 3), (4, 4), (3, 5), (8, 8)):
        board = shuffle(rows, cols, random.Random(rows * cols))
        code = position_code((rows, cols), board)
        assert len(code) == len(f"{rows}x{cols}-") + rows * cols
        assert all(ch.isalnum() or ch in "-_x" for ch in code)
        assert from_code(code).tiles == board
    level = GAME.parse(KORF100.read_text())[0]
    assert from_code(position_code(level)).tiles == level.tiles


def test_bad_codes_are_refused() -> None:
    for code in ("3x3", "3x3-12345678", "3x3-123456870", "3x3-12345678!", "9x9-0"):
        with pytest.raises(LevelError):
            from_code(code)


# -- solvers -----------------------------------------------------------------------------------

#: The two hardest 8-puzzle boards: 31 moves each.
HARDEST_8 = [(8, 6, 7, 2, 5, 4, 3, 0, 1), (6, 4, 7, 8, 5, 0, 3, 2, 1)]


def test_the_hardest_8_puzzles_take_31_moves() -> None:
    for tiles in HARDEST_8:
        level = Level(3, 3, tiles)
        for name in ("astar", "idastar", "pdb"):
            result = solve(GAME, level, name, limits=Limits(seconds=20))
            assert result.status == "solved" and result.optimal, name
            assert result.cost == 31, name


def test_astar_and_idastar_agree_on_8_puzzles() -> None:
    rng = random.Random(11)
    for _ in range(12):
        level = Level(3, 3, shuffle(3, 3, rng))
        lengths = {
            name: solve(GAME, level, name, limits=Limits(seconds=20)).cost
            for name in ("astar", "idastar", "pdb")
        }
        assert len(set(lengths.values())) == 1, lengths
        fast = solve(GAME, level, "fast", limits=Limits(seconds=20))
        assert fast.status == "solved" and not fast.optimal
        assert fast.cost is not None and fast.cost >= lengths["astar"]


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10**6), st.sampled_from([(2, 2), (2, 3), (3, 2), (3, 3)]))
def test_every_solver_solution_replays(seed: int, size: tuple[int, int]) -> None:
    rows, cols = size
    level = Level(rows, cols, shuffle(rows, cols, random.Random(seed)))
    lengths = set()
    for name in GAME.algorithms():
        result = solve(GAME, level, name, limits=Limits(seconds=20))
        assert result.status == "solved", (name, result.error)
        assert GAME.is_solved(level, GAME.replay(level, result.moves or []))
        if result.optimal:
            lengths.add(result.cost)
    assert len(lengths) == 1


def test_solving_from_a_played_position() -> None:
    level = GAME.parse(KORF100.read_text())[11]
    state = GAME.replay(level, GAME.split_moves("UL"))
    result = solve(GAME, level, "idastar", state=state, limits=Limits(seconds=30))
    assert result.status == "solved"
    assert GAME.is_solved(level, GAME.replay(level, result.moves or [], state))


def test_korf_instance_by_idastar() -> None:
    # Korf's #12 needs the fewest nodes with Manhattan distance alone (546,344).
    level = GAME.parse(KORF100.read_text())[11]
    result = solve(GAME, level, "idastar", limits=Limits(seconds=40))
    assert result.status == "solved"
    assert result.cost == level.known_optimal


def test_pdb_is_refused_on_large_boards_with_a_clear_message() -> None:
    level = GAME.parse(KORF24.read_text())[0]
    result = solve(GAME, level, "pdb")
    assert result.status == "error"
    assert "fast" in (result.error or "")


def test_limits_stop_a_search() -> None:
    level = GAME.parse(KORF100.read_text())[2]  # 59 moves: far beyond a 2,000-node budget
    for name in ("astar", "idastar"):
        result = solve(GAME, level, name, limits=Limits(seconds=20, nodes=2_000))
        assert result.status == "node-limit", name


def test_idastar_reports_each_bound() -> None:
    notes: list[str] = []
    level = Level(3, 3, HARDEST_8[0])
    solve(GAME, level, "idastar", on_progress=lambda p: notes.append(p.note))
    bounds = [int(n.split()[-1]) for n in notes if n.startswith("f-bound")]
    assert bounds and bounds == sorted(bounds) and bounds[-1] == 31


@pytest.mark.parametrize("size", [6, 8])
def test_fast_solves_big_shuffles(size: int) -> None:
    level = Level(size, size, shuffle(size, size, random.Random(size)))
    result = solve(GAME, level, "fast", limits=Limits(seconds=40))
    assert result.status == "solved", result.error
    assert GAME.is_solved(level, GAME.replay(level, result.moves or []))


def test_fast_on_a_korf_24_puzzle() -> None:
    level = GAME.parse(KORF24.read_text())[0]
    result = solve(GAME, level, "fast", limits=Limits(seconds=40))
    assert result.status == "solved"
    assert result.cost is not None and result.cost >= level.known_optimal


def test_a_wide_beam_comes_near_the_optimum_on_24_puzzles() -> None:
    # The reduction alone averages 1.53 times the optimum on Korf's 24-puzzles; the issue
    # asks for at most 1.3. A beam of 4,096 boards gets there on its own, deterministically.
    from webapp.games.sliding.fast import beam_search
    from webapp.search import Monitor

    total = optimum = 0
    for level in GAME.parse(KORF24.read_text())[:3]:
        monitor = Monitor(Limits(seconds=60, nodes=None), None)
        moves = beam_search(5, 5, level.tiles, 4096, 300, monitor)
        assert moves is not None
        assert GAME.is_solved(level, GAME.replay(level, moves))
        total += len(moves)
        optimum += level.known_optimal
    assert optimum <= total <= 1.3 * optimum


def test_a_beam_no_deeper_than_the_answer_finds_nothing() -> None:
    from webapp.games.sliding.fast import beam_search
    from webapp.search import Monitor

    level = Level(3, 3, HARDEST_8[0])  # 31 moves at the least
    assert beam_search(3, 3, level.tiles, 64, 30, Monitor(Limits(), None)) is None
    moves = beam_search(3, 3, level.tiles, 1 << 12, 40, Monitor(Limits(), None))
    assert moves is not None and GAME.is_solved(level, GAME.replay(level, moves))


# -- pattern databases -----------------------------------------------------------------------


def easiest_korf(count: int) -> list[int]:
    """Korf's instances needing the fewest nodes with Manhattan distance (0-based)."""
    nodes = {}
    for line in (DATA / "korf100_ida_md_nodes.txt").read_text().split("\n"):
        if line.strip():
            number, generated = line.split()
            nodes[int(number) - 1] = int(generated)
    return sorted(nodes, key=nodes.get)[:count]


def hole_tracking_distances(
    rows: int, cols: int, pattern: tuple[int, ...]
) -> dict[tuple[int, ...], int]:
    """The fewest moves of the pattern's tiles home from every placement, by a plain 0-1
    breadth-first search over (cells of the pattern's tiles, hole)."""
    n = rows * cols
    neighbours = [
        [m for m in range(n) if abs(m // cols - c // cols) + abs(m % cols - c % cols) == 1]
        for c in range(n)
    ]
    start = (tuple(t - 1 for t in pattern), n - 1)
    cost = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        cells, hole = state
        for m in neighbours[hole]:
            if m in cells:
                moved = tuple(hole if c == m else c for c in cells)
                child, step = (moved, m), 1
            else:
                child, step = (cells, m), 0
            if child not in cost or cost[child] > cost[state] + step:
                cost[child] = cost[state] + step
                (queue.appendleft if step == 0 else queue.append)(child)
    best: dict[tuple[int, ...], int] = {}
    for (cells, _hole), d in cost.items():
        best[cells] = min(d, best.get(cells, d))
    return best


def placement_index(cells: tuple[int, ...]) -> int:
    return sum(cell << 4 * i for i, cell in enumerate(cells))


@pytest.mark.parametrize(
    "rows,cols,pattern",
    [
        (3, 3, (1, 2, 3, 4)),
        (3, 3, (5, 6, 7, 8)),
        (2, 4, (1, 2, 5)),
        (2, 4, (3, 4, 6, 7)),
        (4, 4, (13, 14, 15)),
        (4, 4, (1, 6, 11)),
    ],
)
def test_databases_equal_an_exact_hole_tracking_search(
    rows: int, cols: int, pattern: tuple[int, ...]
) -> None:
    from webapp.games.sliding import pdb

    progress: list[str] = []
    table = pdb.build_database(rows, cols, pattern, progress.append)
    assert progress[0] == "moves 0: 1 states"
    exact = hole_tracking_distances(rows, cols, pattern)
    assert len(exact) == math.perm(rows * cols, len(pattern))
    assert {cells: table[placement_index(cells)] for cells in exact} == exact


def test_disjoint_databases_add_up_to_a_lower_bound_on_every_8_puzzle() -> None:
    from webapp.games.sliding import pdb

    partition = ((1, 2, 3, 4), (5, 6, 7, 8))
    tables = [pdb.build_database(3, 3, pattern) for pattern in partition]
    exact = pdb.exact_table(3, 3)
    tight = 0
    for board, distance in exact.items():
        bound = 0
        for pattern, table in zip(partition, tables, strict=True):
            bound += table[placement_index(tuple(board.index(t) for t in pattern))]
        assert bound <= distance, board
        tight += bound == distance
    # Exact on about 14% of the boards (Manhattan distance: about 1%).
    assert tight > len(exact) * 0.1


def test_a_mirror_image_table_is_read_off_its_twin() -> None:
    from webapp.games.sliding import pdb

    left, right = (1, 2, 5), (4, 3, 8)
    built = pdb.build_database(4, 4, right)
    assert pdb.reflect_database(4, 4, left, pdb.build_database(4, 4, left), right) == built
    halves = pdb.PARTITION_4X4[:2]
    assert pdb._reflection_source(4, 4, halves[1]) == halves[0]
    assert pdb._reflection_source(4, 4, pdb.PARTITION_4X4[2]) is None


def test_databases_are_kept_in_the_instance_folder(instance_folder: Path) -> None:
    from webapp.games.sliding import pdb

    pattern = (13, 14, 15)
    table = pdb.load_database(4, 4, pattern)
    path = pdb.database_path(4, 4, pattern)
    assert path.parent == instance_folder and "pdb2" in path.name
    assert path.read_bytes() == table and len(table) == 16**3
    pdb._loaded.clear()
    path.write_bytes(b"\x07" * 16**3)  # read back from disk, not built again
    assert pdb.load_database(4, 4, pattern) == b"\x07" * 16**3
    pdb._loaded.clear()
    path.unlink()


@pytest.fixture(scope="module")
def cached_databases(instance_folder: Path) -> None:
    """The 4x4 databases: copied from an instance folder a bench run or the app filled, or
    else built here exactly as a first solve builds them (about a minute)."""
    from webapp.games.sliding import pdb

    for folder in OWN_INSTANCE:
        names = [pdb.database_path(4, 4, p).name for p in pdb.PARTITION_4X4]
        if all((folder / name).exists() for name in names):
            for name in names:
                shutil.copy(folder / name, instance_folder / name)
            return
    pdb.ensure_databases()
    assert pdb.databases_ready(4, 4)


def test_pdb_finds_korf_optima_on_harder_instances(cached_databases: None) -> None:
    # #3 and #10 take 3.2 and 1.4 million expansions: seconds compiled, minutes in CPython.
    levels = GAME.parse(KORF100.read_text())
    for number in (3, 10):
        result = solve(GAME, levels[number - 1], "pdb", limits=Limits(seconds=120, nodes=None))
        assert result.status == "solved" and result.optimal
        assert result.cost == levels[number - 1].known_optimal, number
        assert GAME.is_solved(levels[number - 1], GAME.replay(levels[number - 1], result.moves))


def test_the_compiled_search_resumes_exactly_between_slices(
    cached_databases: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webapp.games.sliding import pdb

    level = GAME.parse(KORF100.read_text())[7]  # 50 moves, 155,000 expansions
    whole = solve(GAME, level, "pdb", limits=Limits(seconds=60, nodes=None))
    monkeypatch.setattr(pdb, "SLICE", 97)  # stop and resume every 97 expansions
    ticks: list[int] = []
    sliced = solve(GAME, level, "pdb", limits=Limits(seconds=60, nodes=None),
                   on_progress=lambda p: ticks.append(p.expanded))  # fmt: skip
    assert sliced.moves == whole.moves and sliced.cost == level.known_optimal
    assert sliced.expanded == whole.expanded


def test_the_compiled_search_obeys_node_limits_and_cancellation(cached_databases: None) -> None:
    level = GAME.parse(KORF100.read_text())[2]  # 3.2 million expansions
    limited = solve(GAME, level, "pdb", limits=Limits(seconds=60, nodes=50_000))
    assert limited.status == "node-limit"
    assert 50_000 <= limited.expanded < 50_000 + (1 << 16)
    calls = iter(range(1_000_000))
    cancelled = solve(GAME, level, "pdb", limits=Limits(seconds=60, nodes=None),
                      cancelled=lambda: next(calls) > 3)  # fmt: skip
    assert cancelled.status == "cancelled"
    assert cancelled.expanded < 3_000_000


def test_the_compiled_search_stopped_keeps_the_moves_to_the_board_it_shows(
    cached_databases: None,
) -> None:
    """Stopped by its limit, the pattern-database IDA* hands on the board it was at and the
    moves to it (its line of holes), so a player can take over there on the same level."""
    level = GAME.parse(KORF100.read_text())[2]
    reports: list = []
    stopped = solve(GAME, level, "pdb", limits=Limits(seconds=60, nodes=50_000),
                    on_progress=reports.append)  # fmt: skip
    assert stopped.status == "node-limit"
    last = reports[-1]
    assert last.sample_moves and last.sample != GAME.start(level)
    reached = GAME.replay(level, last.sample_moves)
    assert GAME.render_text(level, reached) == GAME.render_text(level, last.sample)


@pytest.mark.parametrize("nodes", [3_000, 30_000])
def test_the_fast_solver_stopped_keeps_the_moves_to_the_board_it_shows(nodes: int) -> None:
    """Stopped in its beam (the layer's first board) or in its reduction (the board reduced
    so far), the fast solver hands on the board it shows and the moves that reach it."""
    level = GAME.parse((LEVELS / "sliding" / "large.txt").read_text())[2]
    reports: list = []
    stopped = solve(GAME, level, "fast", limits=Limits(seconds=60, nodes=nodes),
                    on_progress=reports.append)  # fmt: skip
    assert stopped.status == "node-limit"
    last = reports[-1]
    assert last.sample_moves
    reached = GAME.replay(level, last.sample_moves)
    assert GAME.render_text(level, reached) == GAME.render_text(level, last.sample)


def test_the_reduction_stopped_keeps_the_moves_to_the_board_it_has_reduced() -> None:
    """The reduction (run when the first beam finds nothing), stopped by its limit, hands on
    the board reduced so far and the moves it made."""
    from webapp.games.sliding.fast import _reduce
    from webapp.search import Monitor, run_search

    level = GAME.parse((LEVELS / "sliding" / "large.txt").read_text())[2]
    reports: list = []
    monitor = Monitor(Limits(seconds=60, nodes=2_000), reports.append)
    stopped = run_search(lambda m: _reduce(level, GAME.start(level), m), monitor)
    assert stopped.status == "node-limit"
    last = reports[-1]
    assert last.sample_moves
    reached = GAME.replay(level, last.sample_moves)
    assert GAME.render_text(level, reached) == GAME.render_text(level, last.sample)


def test_pdb_finds_korf_optima_on_the_easiest_instances(cached_databases: None) -> None:
    levels = GAME.parse(KORF100.read_text())
    for index in easiest_korf(5):
        result = solve(GAME, levels[index], "pdb", limits=Limits(seconds=60))
        assert result.status == "solved" and result.optimal
        assert result.cost == levels[index].known_optimal, index + 1


def test_compiled_linear_conflicts_equal_a_brute_force_count() -> None:
    # Per line: twice the home tiles outside a longest increasing run of home places, the
    # run found here by trying every subset.
    import numpy as np

    from webapp.games.sliding import kernels

    def longest_run(places: list[int]) -> int:
        return max(
            size
            for size in range(len(places) + 1)
            for chosen in itertools.combinations(places, size)
            if list(chosen) == sorted(chosen)
        )

    def brute(board: list[int], rows: int, cols: int) -> int:
        total = 0
        for r in range(rows):
            line = [board[r * cols + c] for c in range(cols)]
            places = [(t - 1) % cols for t in line if t and (t - 1) // cols == r]
            total += 2 * (len(places) - longest_run(places))
        for c in range(cols):
            line = [board[r * cols + c] for r in range(rows)]
            places = [(t - 1) // cols for t in line if t and (t - 1) % cols == c]
            total += 2 * (len(places) - longest_run(places))
        return total

    rng = random.Random(5)
    for _ in range(200):
        rows, cols = rng.randint(2, 8), rng.randint(2, 8)
        n = rows * cols
        board = list(range(n))
        rng.shuffle(board)
        cells = np.arange(n, dtype=np.int64).reshape(rows, cols)
        home_row = np.array([0] + [(t - 1) // cols for t in range(1, n)], np.int64)
        home_col = np.array([0] + [(t - 1) % cols for t in range(1, n)], np.int64)
        got = kernels._conflicts(
            np.array(board, np.uint8), rows, cols, cells, cells.T.copy(), home_row, home_col
        )
        assert got == brute(board, rows, cols), (rows, cols, board)
