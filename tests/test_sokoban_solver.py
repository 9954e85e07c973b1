"""The Sokoban solvers on real Microban levels, their deadlock rules on hand-made boards."""

from __future__ import annotations

import csv
from itertools import permutations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.games.sokoban import GAME
from webapp.games.sokoban.board import FAR, Board
from webapp.games.sokoban.matching import assignment_cost, reassign, solve_assignment
from webapp.games.sokoban.solver import ALGORITHMS, PORTFOLIO, Setting, run_fast
from webapp.search import Limits, Monitor
from webapp.solving import check_solution, solve

BENCHMARKS = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "sokoban"
MICROBAN = GAME.parse((BENCHMARKS / "microban.xsb").read_text())
LIMITS = Limits(seconds=20, nodes=2_000_000)


def measured_moves() -> dict[int, int]:
    with open(BENCHMARKS / "microban_bfs_moves_measured.csv", newline="") as handle:
        return {
            int(row["level"]): int(row["moves"])
            for row in csv.DictReader(handle)
            if row["evidence"] == "both BFS peers agree"
        }


def board(text: str) -> Board:
    return Board(GAME.parse(text)[0])


def cell(b: Board, row: int, column: int) -> int:
    return row * b.width + column


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_every_algorithm_solves_small_microban_levels(algorithm: str, number: int) -> None:
    level = MICROBAN[number - 1]
    result = solve(GAME, level, algorithm, limits=LIMITS)
    assert result.status == "solved"
    assert check_solution(GAME, level, GAME.start(level), result.moves) is None
    counts = GAME.count(level, result.moves)
    assert result.extra == {"pushes": counts["pushes"], "moves": counts["moves"]}
    assert result.metric == ALGORITHMS[algorithm].metric


@pytest.mark.parametrize("number", [1, 3, 5, 6, 9, 14])
def test_bfs_and_astar_agree_on_push_count(number: int) -> None:
    level = MICROBAN[number - 1]
    bfs = solve(GAME, level, "bfs", limits=LIMITS)
    astar = solve(GAME, level, "astar", limits=LIMITS)
    fast = solve(GAME, level, "fast", limits=LIMITS)
    assert bfs.status == astar.status == fast.status == "solved"
    assert bfs.optimal and astar.optimal and not fast.optimal
    assert bfs.cost == astar.cost
    assert fast.cost >= bfs.cost


@pytest.mark.parametrize("number", [1, 2, 4, 9, 21, 30])
def test_moves_finds_the_measured_move_optimal_length(number: int) -> None:
    level = MICROBAN[number - 1]
    result = solve(GAME, level, "moves", limits=LIMITS)
    assert result.status == "solved" and result.optimal
    assert result.cost == len(result.moves) == measured_moves()[number]
    for other in ("bfs", "fast"):
        assert len(solve(GAME, level, other, limits=LIMITS).moves) >= result.cost


def test_solving_from_a_position_in_the_middle_of_a_game() -> None:
    level = MICROBAN[0]
    state = GAME.replay(level, GAME.split_moves("dlUrrrdLu"))
    for algorithm in ALGORITHMS:
        result = solve(GAME, level, algorithm, state=state, limits=LIMITS)
        assert result.status == "solved"
        assert check_solution(GAME, level, state, result.moves) is None


def test_dead_squares_are_corners_and_walls_without_goals() -> None:
    b = board("#######\n#.    #\n# $   #\n#    @#\n#######")
    # Corners away from the goal are dead; so is the whole wall-hugging bottom row and the
    # right-hand column, since the only goal is in the top-left corner.
    assert b.is_dead_square(cell(b, 1, 5))
    assert b.is_dead_square(cell(b, 3, 1))
    assert b.is_dead_square(cell(b, 3, 3))
    assert b.is_dead_square(cell(b, 2, 5))
    # Along the top wall a box can still slide to the goal; the middle is live.
    assert not b.is_dead_square(cell(b, 1, 1))
    assert not b.is_dead_square(cell(b, 1, 4))
    assert not b.is_dead_square(cell(b, 2, 3))


def test_freeze_deadlocks() -> None:
    # Two boxes side by side against a wall, off goal: neither can ever move.
    pair = board("#######\n#. $$.#\n#     #\n#@    #\n#######")
    boxes = pair.boxes_of(GAME.start(pair.level))
    assert pair.freeze_deadlock(boxes, cell(pair, 1, 4))
    # The same pair away from the wall can still be pushed apart.
    free = board("#######\n#     #\n#  $$ #\n#@  ..#\n#######")
    boxes = free.boxes_of(GAME.start(free.level))
    assert not free.freeze_deadlock(boxes, cell(free, 2, 4))
    # A 2x2 block of boxes in open floor is frozen.
    block = board("########\n#      #\n#  $$  #\n#  $$  #\n# .... #\n#@     #\n########")
    boxes = block.boxes_of(GAME.start(block.level))
    assert block.freeze_deadlock(boxes, cell(block, 2, 3))
    # Frozen boxes that all stand on goals are no deadlock.
    home = board("#######\n#  ** #\n#     #\n#@    #\n#######")
    boxes = home.boxes_of(GAME.start(home.level))
    assert not home.freeze_deadlock(boxes, cell(home, 1, 3))


def test_pi_corral_pruning_keeps_only_the_pushes_into_the_pocket() -> None:
    b = board("########\n# . #  #\n# $ $. #\n#@  #  #\n########")
    boxes = b.boxes_of(GAME.start(b.level))
    region = b.reach(b.level.player, boxes)
    assert len(list(b.pushes(boxes, region))) > 1
    door = cell(b, 2, 4)
    assert b.corral_pushes(boxes, region) == [(door, 1, 2)]
    # Seen from the right-hand room, the left room is the pocket and the door box its way in.
    region = b.reach(cell(b, 1, 6), boxes)
    assert b.corral_pushes(boxes, region) == [(door, -1, 0)]
    # With nothing left to do behind the door, the pocket gives no reason to prune.
    done = board("########\n# . #  #\n# $ *  #\n#@  #  #\n########")
    boxes = done.boxes_of(GAME.start(done.level))
    assert done.corral_pushes(boxes, done.reach(done.level.player, boxes)) is None


@pytest.mark.parametrize(
    "text",
    [
        # The player can never get behind the lower box to push it onto its goal.
        "######\n#. $@#\n# $. #\n######",
        # The box stands where no push can ever bring it to the goal.
        "#######\n#.#   #\n# #$@ #\n# #   #\n#######",
    ],
)
def test_an_unsolvable_level_is_reported_unsolvable(text: str) -> None:
    level = GAME.parse(text)[0]
    for algorithm in ALGORITHMS:
        assert solve(GAME, level, algorithm, limits=LIMITS).status == "unsolvable"


def test_a_node_limit_stops_the_search() -> None:
    level = MICROBAN[5]
    for algorithm in ALGORITHMS:
        result = solve(GAME, level, algorithm, limits=Limits(seconds=20, nodes=5))
        assert result.status == "node-limit"
        assert result.moves is None


def test_a_cancellation_flag_stops_the_search() -> None:
    level = MICROBAN[5]
    for algorithm in ALGORITHMS:
        result = solve(GAME, level, algorithm, limits=LIMITS, cancelled=lambda: True)
        assert result.status == "cancelled"


def test_progress_samples_are_positions_of_the_level() -> None:
    level = MICROBAN[5]
    samples = []
    solve(
        GAME,
        level,
        "bfs",
        limits=LIMITS,
        on_progress=lambda progress: samples.append(progress.sample),
    )
    samples = [sample for sample in samples if sample is not None]
    assert samples
    for position in samples:
        assert len(position.boxes) == len(level.boxes)
        assert position.boxes <= level.floor and position.player in level.floor


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(0, 9), min_size=n, max_size=n), min_size=n, max_size=n
        )
    )
)
def test_assignment_cost_is_the_cheapest_perfect_matching(costs: list[list[int]]) -> None:
    n = len(costs)
    brute = min(sum(costs[r][c] for r, c in enumerate(perm)) for perm in permutations(range(n)))
    assert assignment_cost(costs) == brute


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda n: st.tuples(
            st.lists(st.lists(st.integers(0, 9), min_size=n, max_size=n), min_size=n, max_size=n),
            st.integers(0, n - 1),
            st.lists(st.integers(0, 9), min_size=n, max_size=n),
        )
    )
)
def test_reassign_after_one_row_changes_matches_a_full_solve(
    case: tuple[list[list[int]], int, list[int]],
) -> None:
    costs, row, new_line = case
    _total, duals = solve_assignment(costs)
    changed = [line[:] for line in costs]
    changed[row] = new_line
    assert reassign(changed, duals, row) == assignment_cost(changed)


def test_pulls_move_a_box_towards_the_player() -> None:
    b = board("#######\n#     #\n#     #\n# @$  #\n#     #\n#    .#\n#######")
    boxes = b.boxes_of(GAME.start(b.level))
    box = cell(b, 3, 3)
    region = b.reach(b.level.player, boxes)
    # In open floor the player can pull the box from any side it can step back from.
    assert sorted(b.pulls(boxes, region)) == [
        (box, -b.width, 1),
        (box, -1, 0),
        (box, 1, 2),
        (box, b.width, 3),
    ]
    # With a wall right behind the player there is no room to step back: no pull that way.
    tight = board("#######\n#@$   #\n#     #\n#    .#\n#######")
    boxes = tight.boxes_of(GAME.start(tight.level))
    region = tight.reach(tight.level.player, boxes)
    pulls = list(tight.pulls(boxes, region))
    assert (cell(tight, 1, 2), 1, 2) not in pulls
    assert (cell(tight, 1, 2), -1, 0) in pulls


def test_distances_from_count_pushes_out_of_the_start_squares() -> None:
    b = board("#######\n#     #\n# @$  #\n#    .#\n#######")
    (column,) = zip(*b.distances_from([cell(b, 2, 3)]), strict=True)
    assert column[cell(b, 2, 3)] == 0
    assert column[cell(b, 2, 5)] == 2
    assert column[cell(b, 1, 1)] == 3
    # The player can never get behind a box in a corner, so nothing is pushed out of one.
    corner = b.distances_from([cell(b, 1, 1)])
    assert [square for square, (d,) in enumerate(corner) if d < FAR] == [cell(b, 1, 1)]


@pytest.mark.parametrize("number", [1, 6, 93, 146])
def test_the_backward_search_alone_finds_solutions_that_replay(number: int) -> None:
    level = MICROBAN[number - 1]
    monitor = Monitor(LIMITS)
    result = run_fast(level, GAME.start(level), monitor, (Setting(reverse=True),))
    assert result.status == "solved"
    assert check_solution(GAME, level, GAME.start(level), result.moves) is None
    assert result.extra["pushes"] == GAME.count(level, result.moves)["pushes"]


@pytest.mark.parametrize(
    "text",
    [
        "######\n#. $@#\n# $. #\n######",
        "#######\n#.#   #\n# #$@ #\n# #   #\n#######",
    ],
)
def test_each_setting_alone_proves_an_unsolvable_level(text: str) -> None:
    level = GAME.parse(text)[0]
    for setting in (*PORTFOLIO, Setting(3, corrals=False)):
        result = run_fast(level, GAME.start(level), Monitor(LIMITS), (setting,))
        assert result.status == "unsolvable"


def test_the_portfolio_solves_goal_room_levels_one_search_alone_cannot() -> None:
    # Microban 139 fills a room of goals through one door; forwards alone times out on it
    # within this node budget, the backward search unpacks the room from the door.
    level = MICROBAN[138]
    forward = run_fast(
        level, GAME.start(level), Monitor(Limits(seconds=60, nodes=20_000)), (Setting(),)
    )
    assert forward.status == "node-limit"
    result = solve(GAME, level, "fast", limits=Limits(seconds=60, nodes=40_000))
    assert result.status == "solved"
