"""The plan search (plan.py) and the strict corral test it runs (kernels._corral_dead)."""

from __future__ import annotations

import numpy as np

from tests.conftest import LEVELS, recorded_searches
from webapp.games.sokoban import GAME, kernels, plan, solver
from webapp.games.sokoban.board import Board
from webapp.games.sokoban.compiled import CompiledSearch, SearchConfig
from webapp.games.sokoban.packing import packing, packing_order, plan_distances
from webapp.games.sokoban.solver import BACKWARD, FORWARD, PLANNED, closest_note, lurd, run_fast
from webapp.games.solving import check_solution
from webapp.search import Limits, Monitor

XSOKOBAN = GAME.parse((LEVELS / "sokoban" / "xsokoban.xsb").read_text())
MICROBAN = GAME.parse((LEVELS / "sokoban" / "microban.xsb").read_text())
MICROBAN2 = GAME.parse((LEVELS / "sokoban" / "microban2.xsb").read_text())


def _plan_search(level, deadlocks: int = 2) -> CompiledSearch:
    board, start = Board(level), GAME.start(level)
    return CompiledSearch(
        board, start, SearchConfig(1, 256, deadlocks=deadlocks, phases=packing_order(board, start))
    )


def test_the_plan_search_fills_a_goal_room_in_its_order_at_once() -> None:
    # XSokoban 81: twelve goals in a room entered from one side, filled column by column
    # from the far wall. The plan search solves it in about 550 expansions; the portfolio's
    # forward search (g + 10 h, novelty) has not after 100 k.
    level = XSOKOBAN[81 - 1]
    start = GAME.start(level)
    budget = Limits(seconds=None, nodes=100_000, memory_mb=None)
    planned = run_fast(level, start, Monitor(budget), (PLANNED,))
    assert planned.status == "solved" and planned.expanded < 2_000
    assert check_solution(GAME, level, start, planned.moves) is None
    assert run_fast(level, start, Monitor(budget), (FORWARD,)).status == "node-limit"


def test_a_greedy_search_needs_the_strict_corral_test() -> None:
    # The same level with the quick corral test (the player getting into a corral counts as
    # opening it): the plan search walks into corrals that never open and works through all
    # that follows them.
    level = XSOKOBAN[81 - 1]
    found = {}
    for deadlocks in (2, 1):
        search = _plan_search(level, deadlocks)
        found[deadlocks] = search.run(100_000) == kernels.FOUND
        if found[deadlocks]:
            start = GAME.start(level)
            moves = lurd(search.board, start, search.solution())
            assert check_solution(GAME, level, start, moves) is None
    assert found == {2: True, 1: False}


def test_boxes_frozen_in_earlier_phases_lengthen_the_ways_to_later_goals() -> None:
    # XSokoban 62: the plan search measures the way to each goal with the boxes of the
    # phases before it, frozen there by then, as walls. They never shorten a way; the
    # first phase's goals have none, and some later goals get further or out of reach.
    level = XSOKOBAN[62 - 1]
    board = Board(level)
    phases = packing_order(board, GAME.start(level))
    plan = plan_distances(board, phases)
    columns = {goal: column for column, goal in enumerate(board.goals)}
    longer = 0
    for cell in level.floor:
        for goal, column in columns.items():
            assert plan[cell][column] >= board.distances[cell][column]
            if goal in phases[0]:
                assert plan[cell][column] == board.distances[cell][column]
            longer += plan[cell][column] > board.distances[cell][column]
    assert longer > 0


#: Three goals down a dead end: only the far one can be filled first.
DEAD_END = """\
#######
#@    #
# $$$ #
#     #
### ###
  #.#
  #.#
  #.#
  ###"""


def test_the_live_panel_says_how_many_goals_are_filled_in_order() -> None:
    search = _plan_search(GAME.parse(DEAD_END)[0])
    assert search.filled == 0
    while search.run(1) == kernels.RUNNING:
        pass
    assert closest_note([search]) == (
        "filling the goals in the order they must be filled: 2 of 3 at best so far"
    )
    level = GAME.parse(DEAD_END)[0]
    board, start = Board(level), GAME.start(level)
    phases = packing_order(board, start)
    again = CompiledSearch(board, start, SearchConfig(1, 64, deadlocks=2, phases=phases, seed=2))
    # The run's number in the solve (solver.Planned sets it): with two orders, each taking
    # its own seeds, it is not the seed.
    again.run_number = 2
    assert closest_note([again]).endswith(
        " at best so far (started over 2 times, taking the boxes in another order)"
    )


# A column between walls holds a box at its top; below it, a row of three boxes whose outer
# two have walls above them. The three squares of the column between are a corral. Pushed
# down, the top box lets the player in but can never get out below, where the middle box
# blocks the way; pushed up, the middle box jams under the top one; the outer boxes move only
# once the middle one has. The quick test counts the player getting in as opening it; the
# strict one, with the boxes touching the fence, sees that the top box never gets out.
COLUMN_JAM = """\
#########
#   @   #
#  #$#  #
#  # #  #
#  # #  #
#  # #  #
#  $$$  #
#  ...  #
#  .    #
#########"""


def test_the_strict_corral_test_finds_a_jam_the_quick_one_lets_through() -> None:
    level = GAME.parse(COLUMN_JAM)[0]
    board, start = Board(level), GAME.start(level)
    runs = {}
    for deadlocks in (2, 1):
        search = CompiledSearch(board, start, SearchConfig(10, 64, deadlocks=deadlocks))
        search.run(1)
        runs[deadlocks] = search.dead_corrals
    assert runs == {2: 1, 1: 0}
    # It is dead indeed: the search with no corral test runs dry.
    proof = CompiledSearch(board, start, SearchConfig(10, 64))
    assert proof.run(1_000_000) == kernels.EXHAUSTED


def test_the_corral_test_takes_the_boxes_touching_the_fence() -> None:
    level = GAME.parse(COLUMN_JAM)[0]
    search = CompiledSearch(Board(level), GAME.start(level), SearchConfig(10, 64, deadlocks=2))
    index, width = search.index, Board(level).width
    occupied = np.zeros(len(search.cells), np.uint8)
    for box in level.boxes:
        occupied[index[box]] = 1
    fence = np.array([index[2 * width + 4], index[6 * width + 4]], np.int64)
    count = kernels._touching(fence, 2, occupied, search.neighbours, search.scratch)
    group = {search.cells[square] for square in search.scratch[11][:count]}
    assert group == set(level.boxes)


def test_a_full_plan_search_leaves_the_turns_to_the_others(monkeypatch) -> None:
    # With arrays for only 4,096 positions the plan search fills them on Microban 137 before
    # it finds a solution; the portfolio goes on with the forward search, which solves it.
    level = MICROBAN[137 - 1]
    board, start = Board(level), GAME.start(level)
    small = CompiledSearch(
        board,
        start,
        SearchConfig(1, 2048, share=1e-9, deadlocks=2, phases=packing_order(board, start)),
    )
    assert small.capacity == 4096 and small.run(100_000) == kernels.FULL
    monkeypatch.setattr(solver, "PLAN_SHARE", 1e-9)
    result = run_fast(level, start, Monitor(Limits(seconds=60)), (PLANNED, FORWARD))
    assert result.status == "solved"
    assert check_solution(GAME, level, start, result.moves) is None


def test_a_plan_search_that_goes_wrong_starts_again_in_another_order() -> None:
    # XSokoban 24: in the board's order the plan search has not solved it after 400 k
    # expansions (checked here up to 100 k: more than the restarts take in all); started
    # again, each time with the pushes in another order, its third run (seed 2) solves it
    # 38 k expansions in. The first run takes its 45 k, the second, short one ends where it
    # stalls, 8.1 k in (a whole one: 128 k in all).
    level = XSOKOBAN[24 - 1]
    board, start = Board(level), GAME.start(level)
    phases = packing_order(board, start)
    first = solver.plan_run(board, start, 2048, phases)
    assert first.stall == 0 and first.run(100_000) == kernels.RUNNING
    budget = Limits(seconds=None, nodes=300_000, memory_mb=None)
    result = run_fast(level, start, Monitor(budget), (PLANNED,))
    assert result.status == "solved" and 85_000 < result.expanded < 97_000
    assert check_solution(GAME, level, start, result.moves) is None


def test_the_plan_search_is_the_same_in_slices_of_any_size() -> None:
    # A dive goes on from one slice to the next, so how the time is cut does not change
    # which positions are expanded, nor the solution.
    level = XSOKOBAN[81 - 1]
    runs = []
    for budget in (100_000, 7):
        search = _plan_search(level)
        while (status := search.run(budget)) == kernels.RUNNING:
            pass
        assert status == kernels.FOUND
        runs.append((int(search.counters[kernels.EXPANDED]), search.solution()))
    assert runs[0] == runs[1]


def test_a_miss_says_how_far_the_plan_search_got_over_all_its_runs() -> None:
    # XSokoban 28: the first run stops at 45 k expansions with some goals filled in order;
    # the second starts from none, yet what is reported is the best of both runs.
    level = XSOKOBAN[28 - 1]
    board, start = Board(level), GAME.start(level)
    first = solver.plan_run(board, start, 2048, packing_order(board, start))
    assert first.run(solver.RESTART) == kernels.RUNNING
    budget = Limits(seconds=None, nodes=solver.RESTART + 20_000, memory_mb=None)
    result = run_fast(level, start, Monitor(budget), (PLANNED,))
    assert not result.solved
    filled, goals = map(int, result.extra["plan filled"].split("/"))
    assert result.extra["plan runs"] >= 2
    assert goals == len(level.goals) and 0 < first.filled <= filled


def test_runs_follow_lubys_sequence() -> None:
    assert [solver.luby(run) for run in range(15)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


def test_a_long_run_comes_back_among_the_short_ones() -> None:
    # XSokoban 62: only a long run solves it (seed 2, about 80 k expansions in; no seed up to
    # 9 does within 100 k in a short one), and Luby's sequence gives the third run twice the
    # length and no end where it stalls: the first run takes its RESTART, the second, short
    # one ends where it stalls, then the third solves it. A whole second run would have cost
    # RESTART, and runs growing by half each time 40 k + 60 k before it (180 k in all).
    level = XSOKOBAN[62 - 1]
    board, start = Board(level), GAME.start(level)
    phases = packing_order(board, start)
    second = solver.plan_run(board, start, 2048, phases, 1)
    assert second.run(solver.RESTART) == plan.STALLED
    stalled = int(second.counters[kernels.EXPANDED])
    assert stalled < solver.RESTART // 4
    assert solver.plan_run(board, start, 2048, phases, 2).stall == 0
    budget = Limits(seconds=None, nodes=300_000, memory_mb=None)
    result = run_fast(level, start, Monitor(budget), (PLANNED,))
    assert result.status == "solved"
    low = solver.RESTART + stalled + 75_000
    assert low < result.expanded < low + 10_000
    assert check_solution(GAME, level, start, result.moves) is None


def test_the_first_run_never_ends_where_it_stalls() -> None:
    # Microban II 130: without parking, the first dive fills 23 of its 24 goals, and every
    # seed then needs about 29 k expansions more for the last. Its packing order with parking
    # (packing.py) solves nothing in a first run of RESTART expansions; the first run without
    # parking comes next, keeps its whole allowance as well, and solves it; ended where it
    # stalls (5 k in), like the short runs after it, the level would wait for a long run.
    level = MICROBAN2[130 - 1]
    board, start = Board(level), GAME.start(level)
    phases = packing_order(board, start)
    assert packing(board, start).phases != phases
    assert solver.plan_run(board, start, 2048, phases).stall == 0
    assert solver.plan_run(board, start, 2048, phases, 1).stall == solver.STALL
    budget = Limits(seconds=None, nodes=120_000, memory_mb=None)
    result = run_fast(level, start, Monitor(budget), (PLANNED,))
    assert result.status == "solved"
    assert solver.RESTART < result.expanded < solver.RESTART + 30_000
    assert check_solution(GAME, level, start, result.moves) is None


def test_a_box_parked_on_its_way_solves_what_the_plain_order_does_not() -> None:
    # XSokoban 47: no box can leave the goal room backwards until the last twelve are all
    # gone, so without parking those twelve make one first phase, which the plan search
    # fills in any order and gets stuck. With a box parked outside the room (as YASS's
    # packing-order search does there) every phase is one to four targets, and the first run
    # solves it in about 300 expansions; the plain order has not after 20 k.
    level = XSOKOBAN[47 - 1]
    board, start = Board(level), GAME.start(level)
    parked = packing(board, start)
    assert len(parked.release) == 1
    assert max(len(phase) for phase in parked.phases) <= 4
    ((square, release),) = parked.release.items()
    phase = next(number for number, phase in enumerate(parked.phases) if square in phase)
    assert square not in level.goals and phase < release
    outcomes = {}
    for name, order in (("parked", parked), ("plain", packing(board, start, parking=False))):
        search = solver.plan_run(board, start, 256, order.phases, release=order.release)
        outcomes[name] = search.run(20_000), int(search.counters[kernels.EXPANDED])
    assert outcomes["parked"][0] == kernels.FOUND and outcomes["parked"][1] < 1_000
    assert outcomes["plain"] == (kernels.RUNNING, 20_000)


def test_a_run_stalls_where_it_has_gone_stall_expansions_without_filling_more() -> None:
    # The plan search keeps the expansions at which the most goals filled in order last rose;
    # with ``stall`` it ends STALL expansions later, and it can be made to go on from there:
    # the same positions as a run that never stalls.
    level = XSOKOBAN[40 - 1]
    board, start = Board(level), GAME.start(level)
    phases = packing_order(board, start)
    stalling = solver.plan_run(board, start, 2048, phases, stall=2_000)
    assert stalling.run(solver.RESTART) == plan.STALLED
    counters = stalling.counters
    expanded = int(counters[kernels.EXPANDED])
    assert expanded - int(counters[plan.FILLED_AT]) == 2_000 and stalling.filled > 0
    assert stalling.run(1_000) == plan.STALLED and counters[kernels.EXPANDED] == expanded
    stalling.stall = 0
    assert stalling.run(3_000) == kernels.RUNNING
    steady = solver.plan_run(board, start, 2048, phases, stall=0)
    assert steady.run(expanded + 3_000) == kernels.RUNNING
    stored = int(steady.counters[kernels.STORED])
    assert int(counters[kernels.STORED]) == stored
    assert np.array_equal(stalling.words[:stored], steady.words[:stored])


def test_a_restart_takes_over_the_corral_verdicts_and_searches_the_same() -> None:
    # A corral's verdict is a fact of the level, so a run given an earlier run's verdicts
    # expands exactly what it would alone, with fewer corral tests of its own to make.
    level = XSOKOBAN[40 - 1]
    board, start = Board(level), GAME.start(level)
    phases = packing_order(board, start)

    def second_run(scratch):
        search = solver.plan_run(board, start, 2048, phases, seed=1, scratch=scratch, stall=0)
        tests_before = int(search.scratch[-1][kernels.CORRAL_GENERATION])
        assert search.run(20_000) == kernels.RUNNING
        tests = int(search.scratch[-1][kernels.CORRAL_GENERATION]) - tests_before
        return tests, search.filled, search.words[: int(search.counters[kernels.STORED])]

    first = solver.plan_run(board, start, 2048, phases, stall=0)
    assert first.run(20_000) == kernels.RUNNING
    alone, taken_over = second_run(None), second_run(first.scratch)
    assert np.array_equal(alone[2], taken_over[2]) and alone[1] == taken_over[1]
    assert taken_over[0] < alone[0]


def test_the_plan_search_builds_its_corral_cache_once_over_its_runs(monkeypatch) -> None:
    built = []
    real = kernels.corral_scratch

    def counted(squares: int) -> tuple:
        built.append(squares)
        return real(squares)

    monkeypatch.setattr(kernels, "corral_scratch", counted)
    level = XSOKOBAN[40 - 1]
    budget = Limits(seconds=None, nodes=2 * solver.RESTART + 10_000, memory_mb=None)
    result = run_fast(level, GAME.start(level), Monitor(budget), (PLANNED,))
    assert not result.solved and result.extra["plan runs"] >= 3
    assert len(built) == 1


def test_the_plan_search_goes_on_when_the_others_have_filled_their_arrays(monkeypatch) -> None:
    # With arrays for 4,096 positions the forward and backward searches are full within
    # their first turns on XSokoban 24, and a full search no other can meet any more ends
    # its part (ArraysFull); the plan search, which starts each run in arrays of its own,
    # still has the rest of the time and solves it (about 91 k expansions). The portfolio
    # used to stop at the first such search, at the memory limit.
    level = XSOKOBAN[24 - 1]
    start = GAME.start(level)
    made, _ = recorded_searches(monkeypatch)
    monkeypatch.setattr(solver, "PLAN_SHARE", 1 - 1e-9)
    budget = Limits(seconds=120, nodes=None, memory_mb=2048)
    result = run_fast(level, start, Monitor(budget), (PLANNED, FORWARD, BACKWARD))
    assert result.status == "solved"
    assert check_solution(GAME, level, start, result.moves) is None
    others = [search for search in made if not search.planned]
    assert len(others) == 2 and all(search.capacity == 4096 and search.full for search in others)
