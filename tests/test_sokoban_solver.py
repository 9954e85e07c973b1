"""The Sokoban solvers on real Microban levels, their deadlock rules on hand-made boards."""

from __future__ import annotations

import csv
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import DATA, LEVELS
from webapp.games.sokoban import GAME
from webapp.games.sokoban.board import FAR, Board, cells_of
from webapp.games.sokoban.kernels import assignment
from webapp.games.sokoban.matching import assignment_cost, reassign, solve_assignment
from webapp.games.sokoban.rooms import goal_rooms, push_path
from webapp.games.sokoban.solver import (
    ALGORITHMS,
    PORTFOLIO,
    Kind,
    LowerBound,
    Setting,
    Tuning,
    _best_first,
    _best_first_reverse,
    lurd,
    run_fast,
)
from webapp.games.solving import check_solution, solve
from webapp.search import Limits, Monitor

#: The CPython forward search, with macros.
PYTHON = Setting(Kind.CPYTHON_FORWARD)
SOKOBAN = LEVELS / "sokoban"
MICROBAN = GAME.parse((SOKOBAN / "microban.xsb").read_text())
XSOKOBAN = GAME.parse((SOKOBAN / "xsokoban.xsb").read_text())
LIMITS = Limits(seconds=20, nodes=2_000_000)


def measured_moves() -> dict[int, int]:
    with open(DATA / "microban_bfs_moves_measured.csv", newline="") as handle:
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
    result = run_fast(level, GAME.start(level), monitor, (Setting(Kind.CPYTHON_BACKWARD),))
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
    # (The aimed search only ever sets off towards a backward search: not alone.)
    alone = [setting for setting in PORTFOLIO if setting.kind is not Kind.AIMED]
    for setting in (*alone, Setting(Kind.CPYTHON_FORWARD, Tuning(3, corrals=False))):
        result = run_fast(level, GAME.start(level), Monitor(LIMITS), (setting,))
        assert result.status == "unsolvable"


def test_the_portfolio_solves_goal_room_levels_one_search_alone_cannot() -> None:
    # Microban 139 fills a room of goals through one door; forwards alone times out on it
    # within this node budget, the backward search unpacks the room from the door.
    level = MICROBAN[138]
    forward = run_fast(
        level, GAME.start(level), Monitor(Limits(seconds=60, nodes=20_000)), (PYTHON,)
    )
    assert forward.status == "node-limit"
    # (The default portfolio's compiled searches spend a node budget much faster.)
    both = (PYTHON, Setting(Kind.CPYTHON_BACKWARD))
    result = run_fast(level, GAME.start(level), Monitor(Limits(seconds=60, nodes=40_000)), both)
    assert result.status == "solved"


# -- compiled bound, goal rooms, meeting in the middle ----------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(0, 9), min_size=n, max_size=n), min_size=n, max_size=n
        )
    )
)
def test_the_compiled_assignment_is_the_cheapest_perfect_matching(costs: list[list[int]]) -> None:
    # Rows of the distance table are squares; the boxes stand on squares 0..n-1 here.
    n = len(costs)
    table = np.array(costs, dtype=np.int64)
    cells = np.arange(n, dtype=np.int64)
    brute = min(sum(costs[r][c] for r, c in enumerate(perm)) for perm in permutations(range(n)))
    assert assignment(table, cells) == brute


def test_the_compiled_bound_agrees_with_the_cpython_one_on_a_large_level() -> None:
    level = XSOKOBAN[3]  # 20 boxes
    compiled = LowerBound(Board(level))
    assert compiled.compiled
    plain = LowerBound(Board(level))
    plain.compiled = False
    board_ = Board(level)
    boxes = board_.boxes_of(GAME.start(level))
    assert compiled(boxes) == plain(boxes) > 0
    # And on each child of the start, incrementally.
    region = board_.reach(level.player, boxes)
    compiled.expand(boxes)
    plain.expand(boxes)
    for box, offset, _direction in board_.pushes(boxes, region):
        child = boxes ^ (1 << box) ^ (1 << (box + offset))
        assert compiled.child(child, box, box + offset) == plain.child(child, box, box + offset)


def run_out(search) -> tuple:
    """Run a best-first search generator to its end; its outcome."""
    while True:
        try:
            next(search)
        except StopIteration as finished:
            return finished.value


def rooms_of(level) -> list:
    return goal_rooms(Board(level), sorted(level.boxes), smallest=2)


#: The fast forward search with goal rooms of any size (the default leaves out small ones).
SMALL_ROOMS = Setting(Kind.CPYTHON_FORWARD, Tuning(smallest_room=2))


def test_a_goal_room_is_filled_from_the_far_end() -> None:
    # Microban 153: a column of goals open only at the bottom, then two goals beside it.
    level = MICROBAN[152]
    (room,) = rooms_of(level)
    assert [divmod(goal, level.width) for goal in room.order[:6]] == [(r, 1) for r in range(1, 7)]
    assert room.filled(0) == 0
    assert room.filled(room.fills[3]) == 3
    # Boxes on the room's goals out of order: the room is not being filled by the plan.
    assert room.filled(1 << room.order[1]) is None


def test_a_box_on_a_room_goal_shuts_off_the_goals_it_stands_in_front_of() -> None:
    # Microban 153: a box at the column's foot, or on the goal beside the foot, leaves no
    # way up the column; the top goal shuts nothing off; a box on the last goal of the
    # bottom row shuts off the column and the corner below it, where the player must
    # stand to push a box up.
    level = MICROBAN[152]
    (room,) = rooms_of(level)
    shuts = {divmod(goal, level.width): shut for goal, shut in room.shuts}
    column = {(row, 1) for row in range(1, 7)}

    def cells(shut: int) -> set[tuple[int, int]]:
        return {divmod(cell, level.width) for cell in cells_of(shut)}

    assert (1, 1) not in shuts
    assert cells(shuts[(3, 1)]) == {(1, 1), (2, 1)}
    assert cells(shuts[(7, 1)]) == column
    assert cells(shuts[(8, 2)]) == column | {(8, 1)}
    assert cells(shuts[(7, 2)]) == column | {(7, 1)}
    # Microban 93's room can be filled in any order a box can get in.
    assert all(not room.shuts for room in rooms_of(MICROBAN[92]))


def test_a_goal_room_order_only_uses_squares_boxes_can_come_from() -> None:
    # Microban 10: the top goal of the column can be pulled out to the right, but no box can
    # ever be pushed in from there; it must be filled first, from below.
    level = MICROBAN[9]
    (room,) = rooms_of(level)
    assert divmod(room.order[0], level.width) == (1, 7)


def test_a_box_entering_a_room_is_taken_on_to_the_next_goal() -> None:
    # The left goal can only be filled from the right: a wall stands under it.
    level = GAME.parse("########\n#..  $@#\n##  $  #\n##     #\n########")[0]
    b = Board(level)
    (room,) = rooms_of(level)
    assert room.order[0] == cell(b, 1, 1)
    boxes = b.boxes_of(GAME.start(level))
    # The box has just been pushed onto the room's first square, (1, 2), from (1, 3).
    entered = boxes ^ (1 << cell(b, 1, 5)) ^ (1 << cell(b, 1, 2))
    path = push_path(b, entered, cell(b, 1, 2), cell(b, 1, 3), room.order[0], room.cells)
    assert path == [cell(b, 1, 2) << 2 | 0]  # one more push left
    result = run_fast(level, GAME.start(level), Monitor(LIMITS), (SMALL_ROOMS,))
    assert result.status == "solved"
    assert check_solution(GAME, level, GAME.start(level), result.moves) is None


def test_strict_goal_rooms_give_up_for_plain_search_when_their_order_fails() -> None:
    # Microban 15 starts with a box on a goal of its room that must move again: the strict
    # room search runs dry, and the solver goes on without rooms and solves the level.
    level = MICROBAN[14]
    b = Board(level)
    assert rooms_of(level)
    strict = _best_first(b, LowerBound(b), GAME.start(level), SMALL_ROOMS.tuning, 64)
    assert run_out(strict)[0] is None
    result = run_fast(level, GAME.start(level), Monitor(LIMITS), (SMALL_ROOMS,))
    assert result.status == "solved"
    assert check_solution(GAME, level, GAME.start(level), result.moves) is None


def test_an_unsolvable_level_with_a_goal_room_is_still_proved_unsolvable() -> None:
    level = GAME.parse("########\n#..$$ @#\n########")[0]
    assert rooms_of(level)
    result = run_fast(level, GAME.start(level), Monitor(LIMITS), (SMALL_ROOMS,))
    assert result.status == "unsolvable"


def test_goal_rooms_cut_the_search_on_a_room_level() -> None:
    level = XSOKOBAN[6]
    limits = Limits(seconds=60, nodes=20_000)
    with_rooms = run_fast(level, GAME.start(level), Monitor(limits), (PYTHON,))
    without = run_fast(
        level,
        GAME.start(level),
        Monitor(limits),
        (Setting(Kind.CPYTHON_FORWARD, Tuning(macros=False)),),
    )
    assert with_rooms.status == "solved"
    assert check_solution(GAME, level, GAME.start(level), with_rooms.moves) is None
    assert without.status == "node-limit"


def test_a_forward_search_meeting_the_backward_one_joins_their_paths() -> None:
    level = MICROBAN[99]
    b = Board(level)
    start = GAME.start(level)
    backward: dict = {}
    reverse = _best_first_reverse(b, start, Tuning(), 1, backward, {})
    for _ in range(500):
        next(reverse)
    alone = run_out(_best_first(b, LowerBound(b), start, Tuning(), 64))
    joined = run_out(_best_first(b, LowerBound(b), start, Tuning(), 64, None, {}, backward))
    pushes, expanded, _generated = joined
    assert pushes is not None and expanded < alone[1]
    moves = lurd(b, start, pushes)
    assert check_solution(GAME, level, start, moves) is None


def test_a_box_pushed_into_a_tunnel_goes_on_to_its_end() -> None:
    level = GAME.parse("##########\n#    #####\n# @$    .#\n##########")[0]
    b = Board(level)
    horizontal = b.tunnels()[0]
    assert [c for c in range(1, 9) if horizontal >> cell(b, 2, c) & 1] == [5, 6, 7, 8]
    start = GAME.start(level)
    macros: dict = {}
    pushes, _expanded, _generated = run_out(
        _best_first(b, LowerBound(b), start, Tuning(), 64, None, macros)
    )
    # From the tunnel's mouth the box goes on to the goal in one move of three pushes.
    assert (cell(b, 2, 5) << 2 | 2, cell(b, 2, 6) << 2 | 2, cell(b, 2, 7) << 2 | 2) in [
        link[1] for link in macros.values() if link
    ]
    assert check_solution(GAME, level, start, lurd(b, start, pushes)) is None
    plain: dict = {}
    run_out(_best_first(b, LowerBound(b), start, Tuning(macros=False), 64, None, plain))
    assert not any(isinstance(link[1], tuple) for link in plain.values() if link)


def test_a_solve_stopped_short_keeps_the_forward_position_nearest_a_solution() -> None:
    """The fast solver, out of states on XSokoban 29, reports the position its forward searches
    queued with the fewest pushes still needed at least: a real position of the level, nearer
    than the start (the solver panel offers to play on from it)."""
    GAME.warm_up()  # the compiled code loaded first: the time is the search's
    level = XSOKOBAN[28]
    start = GAME.start(level)
    reports: list = []
    # Every tick reports (not every 0.15 s): on a fast machine the whole search fits in a few.
    monitor = Monitor(Limits(seconds=None, nodes=50_000), on_progress=reports.append, interval=0.0)
    result = GAME.algorithms()["fast"].run(level, start, monitor)
    assert result.status == "node-limit"
    bounds = [report.closest_h for report in reports if report.closest_h is not None]
    # Never worse than the start's own bound. (It was "better than the first report": true
    # only when a slow machine reported before the search got that close.)
    assert bounds and reports[-1].closest_h == min(bounds) <= GAME.estimate(level)
    closest = reports[-1].closest
    assert len(closest.boxes) == len(start.boxes) and closest != start
    assert GAME.parse(GAME.render_text(level, closest))[0]  # a level of its own to play on
