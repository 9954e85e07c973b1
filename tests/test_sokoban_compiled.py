"""The fast solver's compiled searches (compiled.py, kernels.search)."""

from __future__ import annotations

import gc
import random
import weakref
from dataclasses import replace

import numpy as np
import pytest

from tests.conftest import LEVELS, recorded_searches
from webapp.games.sokoban import GAME, Position, kernels, solver
from webapp.games.sokoban.board import FAR, Board, lowest_cell
from webapp.games.sokoban.compiled import CompiledSearch, SearchConfig
from webapp.games.sokoban.rooms import goal_rooms
from webapp.games.sokoban.solver import (
    FORWARD,
    MOBILE,
    PLAYER_SHUT_OUT,
    PORTFOLIO,
    ROOM_PORTFOLIO,
    Kind,
    LowerBound,
    Setting,
    Tuning,
    _best_first_reverse,
    _solved,
    closest_note,
    lurd,
    portfolio,
    run_fast,
)
from webapp.games.solving import check_solution, solve
from webapp.search import Limits, Monitor, Stop

SOKOBAN = LEVELS / "sokoban"
MICROBAN = GAME.parse((SOKOBAN / "microban.xsb").read_text())
XSOKOBAN = GAME.parse((SOKOBAN / "xsokoban.xsb").read_text())
MICROBAN2 = GAME.parse((SOKOBAN / "microban2.xsb").read_text())
LIMITS = Limits(seconds=30, nodes=2_000_000)
COMPILED = Setting(Kind.FORWARD)
BACKWARD = Setting(Kind.BACKWARD)


def test_backwards_a_player_shut_out_of_the_starts_region_goes_later() -> None:
    # Microban II 76: pulled back to their start squares, the boxes can leave the player in
    # a region the start does not have; ordered after the positions that keep it there, the
    # backward search alone finds the start in 48 expansions instead of 12,469. (An option:
    # the default portfolios leave it out, see PLAYER_SHUT_OUT.)
    level = MICROBAN2[76 - 1]
    board, start = Board(level), GAME.start(level)
    found = {}
    for penalty in (PLAYER_SHUT_OUT, 0):
        search = CompiledSearch(
            board, start, SearchConfig(10, 64, reverse=True, novelty=True, penalty=penalty)
        )
        found[penalty] = search.run(1_000) == kernels.FOUND
        if found[penalty]:
            moves = lurd(board, start, search.solution())
            assert check_solution(GAME, level, start, moves) is None
    assert found == {PLAYER_SHUT_OUT: True, 0: False}


def test_the_default_portfolio_runs_its_searches_compiled() -> None:
    # The plan search first (with the strict corral test), then forwards, backwards, the
    # aimed search (with the quick corral test) and the search that opens up the floor.
    for chosen in (PORTFOLIO, ROOM_PORTFOLIO):
        assert [
            (s.kind, s.tuning.novelty, s.tuning.deadlocks, s.tuning.mobility) for s in chosen
        ] == [
            (Kind.PLAN, False, 2, 0),
            (Kind.FORWARD, True, 0, 0),
            (Kind.BACKWARD, True, 0, 0),
            (Kind.AIMED, True, 1, 0),
            (Kind.OPEN_FLOOR, True, 0, 1),
        ]


def test_floor_shut_off_from_the_player_goes_later() -> None:
    # Microban II 131: 44 boxes, each one push from a goal, and solutions of 88 pushes or
    # more, the bound swinging on plateaus of 20. Counting the free squares the player
    # cannot reach in the priority, the forward search at weight 3 solves it in about 12 k
    # expansions; without, it needs about 300 k (and weights 2 and 4 more than 500 k).
    forward = Setting(Kind.FORWARD, Tuning(3, novelty=True))
    opening = Setting(Kind.OPEN_FLOOR, replace(forward.tuning, mobility=1))
    _solved_only_with(MICROBAN2[131 - 1], 40_000, opening, forward)


def _solved_only_with(level, nodes: int, setting: Setting, without: Setting) -> None:
    """Alone, within ``nodes`` expansions, ``setting`` solves the level (and the solution
    replays) and ``without`` does not."""
    budget = Limits(seconds=None, nodes=nodes, memory_mb=None)
    start = GAME.start(level)
    solved = run_fast(level, start, Monitor(budget), (setting,))
    assert solved.status == "solved"
    assert check_solution(GAME, level, start, solved.moves) is None
    assert run_fast(level, start, Monitor(budget), (without,)).status == "node-limit"


def test_a_solve_lets_go_of_its_searches_at_once(monkeypatch) -> None:
    # The portfolio and its members refer to each other, and the forward and backward
    # searches link each other: unless the solve drops them all, their arrays (up to the
    # memory limit) wait for the next cyclic collection, and a process running solve after
    # solve grows by that much in between (and 40 Microban solves took 0.6-1.2 s, not 0.15).
    made: list[weakref.ref] = []

    class Watched(CompiledSearch):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(weakref.ref(self))

    monkeypatch.setattr(solver, "CompiledSearch", Watched)
    level = MICROBAN[139 - 1]
    gc.disable()
    try:
        result = run_fast(level, GAME.start(level), Monitor(LIMITS))
        assert result.status == "solved"
        assert len(made) >= 4 and all(search() is None for search in made)
    finally:
        gc.enable()


@pytest.mark.parametrize("order", ["default", "open floor before forwards"])
def test_the_open_floor_search_meets_the_backward_one(monkeypatch, order: str) -> None:
    # It is linked to the backward search, whose table it looks each child up in, as the
    # forward search is (and the backward search still to the forward one, whichever comes
    # first); once the solve is over, no search links another, so their arrays go.
    made, partners = recorded_searches(monkeypatch)
    settings = None if order == "default" else (solver.BACKWARD, MOBILE, FORWARD)
    level = MICROBAN2[131 - 1]
    limits = Limits(seconds=None, nodes=5_000, memory_mb=None)
    assert run_fast(level, GAME.start(level), Monitor(limits), settings).status == "node-limit"
    (opening,) = [search for search in made if search.mobility]
    (backward,) = [search for search in made if search.reverse]
    (forward,) = [
        search
        for search in made
        if not (search.mobility or search.reverse or search.planned or search.aimed)
    ]
    assert partners[id(opening)] is backward
    assert partners[id(backward)] is forward and partners[id(forward)] is backward
    assert opening.mobility == 1 and opening.weight == 3
    assert all(search.partner is None for search in made)


def test_a_full_open_floor_search_leaves_the_others_searching(monkeypatch) -> None:
    # Its arrays (here 4,096 positions) fill first; no search reads its table, so it leaves
    # the portfolio at once and the forward search has the rest of the budget. It used to
    # end the solve at the memory limit (with no plan search beside it).
    made, _ = recorded_searches(monkeypatch)
    monkeypatch.setattr(solver, "MOBILE_SHARE", 1e-9)
    level = XSOKOBAN[10 - 1]
    limits = Limits(seconds=None, nodes=100_000, memory_mb=2048)
    result = run_fast(level, GAME.start(level), Monitor(limits), (FORWARD, MOBILE))
    assert result.status == "node-limit"
    (opening,) = [search for search in made if search.mobility]
    (forward,) = [search for search in made if not search.mobility]
    assert opening.capacity == 4096 and opening.full
    assert forward.counters[kernels.EXPANDED] > 90_000


def test_a_backward_search_counts_no_open_floor() -> None:
    # The count is forwards only: a backward search tuned with it is a plain one.
    level = MICROBAN[1 - 1]
    setting = Setting(Kind.BACKWARD, Tuning(novelty=True, mobility=1))
    result = run_fast(level, GAME.start(level), Monitor(LIMITS), (setting,))
    assert result.status == "solved"
    assert check_solution(GAME, level, GAME.start(level), result.moves) is None


def test_the_open_floor_search_counts_the_squares_the_player_cannot_reach() -> None:
    # The children of XSokoban 1's start: each one's priority with mobility 1 is its
    # priority without, plus the free squares the player cannot reach there (by the board's
    # own reach); some children shut floor off, so the count is not always 0.
    level = XSOKOBAN[1 - 1]
    board, start = Board(level), GAME.start(level)
    priorities = {}
    for mobility in (0, 1):
        search = CompiledSearch(board, start, SearchConfig(3, 64, novelty=True, mobility=mobility))
        search.run(1)
        waiting = int(search.counters[kernels.WAITING])
        priorities[mobility] = {
            int(state): (int(key) & ~kernels.STALE) >> kernels.PRIORITY_SHIFT
            for key, state in zip(
                search.heap_keys[:waiting], search.heap_ids[:waiting], strict=True
            )
        }
    assert priorities[0].keys() == priorities[1].keys()
    shut_off = {}
    for state in priorities[1]:
        boxes = search.bitboard(state)
        player = int(search.cells[search.player[state]])
        free = board.floor & ~boxes
        shut_off[state] = bin(free & ~board.reach(player, boxes)).count("1")
        assert priorities[1][state] - priorities[0][state] == shut_off[state]
    assert any(shut_off.values())


def test_novelty_gets_off_a_plateau_the_plain_order_cannot_leave() -> None:
    # XSokoban 38 backwards: ordered by novelty first the search finds the start in about
    # 20 k expansions; ordered by g + 10 h alone it has not after 1.5 M. One search, run for
    # a fixed budget (the portfolio's turns are sized by time, so which search gets how far
    # there depends on the machine).
    level = XSOKOBAN[38 - 1]
    board, start = Board(level), GAME.start(level)
    found = {}
    for novelty in (True, False):
        search = CompiledSearch(board, start, SearchConfig(10, 256, reverse=True, novelty=novelty))
        found[novelty] = search.run(200_000) == kernels.FOUND
        if found[novelty]:
            moves = lurd(board, start, search.solution())
            assert check_solution(GAME, level, start, moves) is None
    assert found == {True: True, False: False}


#: Microban 153 cut down to eight boxes: a goal room (a column entered from below, with two
#: goals at its foot) fed through three narrow strips. Greedy on the matching bound, a search
#: parks a box on the foot's goals early and then searches every position behind it.
SMALL_153 = """\
#############
# # @#  #   #
# #$$   #   #
#.#  # $#   #
#.# $#  #  ##
#.#  # $#  #
#.# $#  # $#
#..  # $   #
#..  #  #  #
############"""


def test_boxes_on_goals_that_shut_others_off_go_to_the_back_of_the_queue() -> None:
    # With the penalty the forward search solves it in about 31 k expansions; without it,
    # it needs about 1.5 M.
    level = GAME.parse(SMALL_153)[0]
    assert portfolio(goal_rooms(Board(level), sorted(level.boxes))) == ROOM_PORTFOLIO
    forward = Setting(Kind.FORWARD, Tuning(novelty=True))
    penalised = Setting(Kind.FORWARD, replace(forward.tuning, penalty=20))
    _solved_only_with(level, 100_000, penalised, forward)


def test_only_levels_whose_goal_rooms_shut_goals_off_get_the_room_portfolio() -> None:
    # 93 has a goal room, but no box on one of its goals shuts another off.
    for number, shuts in ((1, False), (93, False), (139, False), (141, True), (153, True)):
        level = MICROBAN[number - 1]
        chosen = portfolio(goal_rooms(Board(level), sorted(level.boxes)))
        assert chosen == (ROOM_PORTFOLIO if shuts else PORTFOLIO), number
    # The room penalty is in the room portfolio only.
    assert any(setting.tuning.penalty for setting in ROOM_PORTFOLIO)
    assert not any(setting.tuning.penalty for setting in PORTFOLIO)


@pytest.mark.parametrize("setting", [COMPILED, BACKWARD])
@pytest.mark.parametrize("number", [1, 2, 6, 15, 40, 93, 100, 139])
def test_each_compiled_search_alone_finds_solutions_that_replay(
    setting: Setting, number: int
) -> None:
    level = MICROBAN[number - 1]
    result = run_fast(level, GAME.start(level), Monitor(LIMITS), (setting,))
    assert result.status == "solved"
    assert check_solution(GAME, level, GAME.start(level), result.moves) is None
    assert result.extra["pushes"] == GAME.count(level, result.moves)["pushes"]


def test_the_compiled_search_solves_a_level_from_the_middle_of_a_game() -> None:
    level = MICROBAN[9]
    first = solve(GAME, level, "bfs", limits=LIMITS)
    state = GAME.start(level)
    for move in first.moves[: len(first.moves) // 2]:
        state = GAME.apply(level, state, move)
    result = solve(GAME, level, "fast", state=state, limits=LIMITS)
    assert result.status == "solved"
    assert check_solution(GAME, level, state, result.moves) is None


@pytest.mark.parametrize(
    "text",
    [
        "######\n#. $@#\n# $. #\n######",
        "#######\n#.#   #\n# #$@ #\n# #   #\n#######",
        # Room to move, but the two boxes can only ever reach the same goal.
        "#######\n#.   .#\n#  $  #\n## @ ##\n# $   #\n#######",
    ],
)
def test_the_compiled_search_alone_proves_an_unsolvable_level(text: str) -> None:
    level = GAME.parse(text)[0]
    for setting in (COMPILED, Setting(Kind.FORWARD, Tuning(corrals=False)), BACKWARD):
        result = run_fast(level, GAME.start(level), Monitor(LIMITS), (setting,))
        assert result.status == "unsolvable"


def test_the_compiled_search_stops_at_the_node_limit_between_slices() -> None:
    level = XSOKOBAN[2]
    result = run_fast(
        level, GAME.start(level), Monitor(Limits(seconds=60, nodes=3000)), (COMPILED,)
    )
    assert result.status == "node-limit"
    assert 3000 <= result.expanded < 3000 + 64


def test_the_compiled_search_is_cancelled_between_slices() -> None:
    level = XSOKOBAN[2]
    asked = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 5

    monitor = Monitor(Limits(seconds=60, nodes=None), cancelled=cancelled)
    result = run_fast(level, GAME.start(level), monitor, (COMPILED,))
    assert result.status == "cancelled"
    assert 0 < result.expanded
    assert len(asked) == 6


def test_a_full_compiled_search_waits_for_its_partner_then_stops() -> None:
    level = XSOKOBAN[2]
    b = Board(level)
    search = CompiledSearch(b, GAME.start(level), SearchConfig(10, memory_mb=1))
    assert search.capacity < 20_000
    partner = CompiledSearch(b, GAME.start(level), SearchConfig(10, memory_mb=64, reverse=True))
    search.partner, partner.partner = partner, search
    running = search.search()
    pauses = [next(running) for _ in range(200)]
    assert search.full
    assert pauses[-1][:2] == pauses[-2][:2]
    assert search.counters[kernels.STORED] <= search.capacity
    partner.full = True
    with pytest.raises(Stop):
        next(running)


def _random_positions(level, count: int, seed: int):
    b = Board(level)
    squares = sorted(level.floor)
    chooser = random.Random(seed)
    boxes = len(level.boxes)
    for _ in range(count):
        chosen = chooser.sample(squares, boxes + 1)
        yield b, chosen[0], chosen[1:]


@pytest.mark.parametrize("number", [3, 12, 40])
def test_compiled_freeze_deadlocks_agree_with_the_board(number: int) -> None:
    level = XSOKOBAN[number - 1]
    search = CompiledSearch(Board(level), GAME.start(level), SearchConfig(10, memory_mb=64))
    dead = 1 - search.live
    frozen = 0
    for b, _player, cells in _random_positions(level, 300, number):
        boxes = sum(1 << c for c in cells)
        occupied = np.zeros(len(search.cells), np.uint8)
        for c in cells:
            occupied[search.index[c]] = 1
        assumed = np.zeros(len(search.cells), np.uint8)
        for c in cells:
            expected = b.freeze_deadlock(boxes, c)
            got = kernels._frozen(
                search.index[c], occupied, search.neighbours, dead, search.goal, assumed
            )
            assert (got > 0) == expected
            frozen += expected
    assert frozen > 0


@pytest.mark.parametrize("number", [3, 12, 40])
def test_compiled_pi_corrals_agree_with_the_board(number: int) -> None:
    level = XSOKOBAN[number - 1]
    search = CompiledSearch(Board(level), GAME.start(level), SearchConfig(10, memory_mb=64))
    squares = len(search.cells)
    boxes_count = len(level.boxes)
    mark = np.zeros(squares, np.int64)
    stack = np.empty(squares, np.int64)
    label = np.zeros(squares, np.int64)
    fence_mark = np.zeros(squares, np.int64)
    fence = np.empty(boxes_count, np.int64)
    best = np.empty(4 * boxes_count, np.int64)
    candidate = np.empty(4 * boxes_count, np.int64)
    next_label = 1
    pruned = 0
    for stamp, (b, player, cells) in enumerate(_random_positions(level, 300, number), 1):
        boxes = sum(1 << c for c in cells)
        region = b.reach(player, boxes)
        expected = b.corral_pushes(boxes, region)
        occupied = np.zeros(squares, np.uint8)
        for c in cells:
            occupied[search.index[c]] = 1
        kernels._reach(search.index[player], occupied, search.neighbours, mark, stamp, stack)
        found, next_label = kernels._corral(
            occupied, search.neighbours, search.live, search.goal, mark, stamp, label,
            fence_mark, next_label, stack, fence, best, candidate, search.index[player],
            1 - search.live, search.box_keys, search.player_keys, search.scratch, 0,
        )  # fmt: skip
        if expected is None:
            assert found == -1
            continue
        pruned += 1
        got = {(search.cells[push >> 2], push & 3) for push in best[:found].tolist()}
        assert got == {(box, direction) for box, _offset, direction in expected}
    assert pruned > 0


def _run_out(search):
    try:
        while True:
            next(search)
    except StopIteration as finished:
        return finished.value


def test_a_backward_search_meets_the_compiled_one() -> None:
    level = MICROBAN[99]
    b = Board(level)
    start = GAME.start(level)
    forward = CompiledSearch(b, start, SearchConfig(10, memory_mb=64))
    assert forward.run(100) == kernels.RUNNING
    alone = _run_out(_best_first_reverse(b, start, Tuning(), 64, {}, {}))
    pushes, expanded, _generated = _run_out(
        _best_first_reverse(b, start, Tuning(), 64, {}, forward)
    )
    assert pushes is not None and expanded < alone[1]
    result = _solved(Monitor(LIMITS), b, start, pushes, False)
    assert check_solution(GAME, level, start, result.moves) is None


def test_the_two_compiled_searches_meet_in_the_middle() -> None:
    # XSokoban 3: forwards alone does not get there within this budget; with the backward
    # search the two meet, and the joined path replays.
    level = XSOKOBAN[2]
    alone = run_fast(
        level, GAME.start(level), Monitor(Limits(seconds=60, nodes=400_000)), (COMPILED,)
    )
    assert alone.status == "node-limit"
    b = Board(level)
    start = GAME.start(level)
    forward = CompiledSearch(b, start, SearchConfig(10, memory_mb=256))
    backward = CompiledSearch(b, start, SearchConfig(10, memory_mb=256, reverse=True))
    forward.partner, backward.partner = backward, forward
    statuses = []
    for _ in range(100):  # at most 400,000 expansions in all
        statuses = [forward.run(2000), backward.run(2000)]
        if kernels.FOUND in statuses:
            break
    assert kernels.FOUND in statuses
    finder = forward if statuses[0] == kernels.FOUND else backward
    assert finder.counters[kernels.MEET] >= 0
    result = _solved(Monitor(LIMITS), b, start, finder.solution(), False)
    assert check_solution(GAME, level, start, result.moves) is None


def _walled_off(b: Board, cells: list[int]) -> bool | None:
    """The plain reference for kernels._goals_cut_off: None when no box (or every box) is
    frozen on a goal; else whether, the frozen ones as walls, no pairing of the other boxes
    with the other goals exists under push distances."""
    boxes = sum(1 << c for c in cells)
    frozen = {c for c in cells if b.goal_mask >> c & 1 and b._frozen(boxes, c, 0, [])}
    if not frozen or len(frozen) == len(cells):
        return None
    floor = set(b.level.floor) - frozen
    free_goals = [g for g in b.goals if g not in frozen]
    steps = [offset for _, offset in b.directions]
    reach: dict[int, set[int]] = {}
    for goal in free_goals:
        seen, todo = {goal}, [goal]
        while todo:
            cell = todo.pop()
            for step in steps:
                came, behind = cell + step, cell + 2 * step
                if came in floor and behind in floor and came not in seen:
                    seen.add(came)
                    todo.append(came)
        reach[goal] = seen
    movers = [c for c in cells if c not in frozen]
    owner: dict[int, int] = {}

    def take(box: int, tried: set[int]) -> bool:
        for goal in free_goals:
            if box in reach[goal] and goal not in tried:
                tried.add(goal)
                if goal not in owner or take(owner[goal], tried):
                    owner[goal] = box
                    return True
        return False

    return not all(take(box, set()) for box in movers)


@pytest.mark.parametrize(("levels", "number"), [(MICROBAN, 153), (XSOKOBAN, 3), (XSOKOBAN, 40)])
def test_compiled_walled_off_goals_agree_with_a_plain_matching(levels, number: int) -> None:
    level = levels[number - 1]
    b = Board(level)
    search = CompiledSearch(b, GAME.start(level), SearchConfig(10, memory_mb=64))
    squares = len(search.cells)
    boxes_count = len(level.boxes)
    dead = 1 - search.live
    chooser = random.Random(number)
    floor = sorted(level.floor)
    outcomes = {True: 0, False: 0}
    # One distance table for all the positions, as in a search: it must be rebuilt whenever
    # the frozen boxes change.
    table = np.empty((squares, boxes_count), np.int64)
    last = np.zeros(2, np.uint64)
    for _ in range(600):
        # Some boxes on goals, so that some stand frozen there; two positions with the same
        # boxes on goals (often the same frozen ones), the others elsewhere.
        on_goals = chooser.randint(1, boxes_count - 1)
        parked = chooser.sample(b.goals, on_goals)
        for _twice in range(2):
            others = [c for c in floor if c not in parked]
            cells = parked + chooser.sample(others, boxes_count - on_goals)
            expected = _walled_off(b, cells)
            if expected is None:
                continue
            occupied = np.zeros(squares, np.uint8)
            numbers = np.array([search.index[c] for c in cells], np.int64)
            occupied[numbers] = 1
            got = kernels._goals_cut_off(
                numbers, len(cells), occupied, search.neighbours, dead, search.goal,
                np.zeros(squares, np.uint8), search.goal_squares, np.zeros(squares, np.uint8),
                np.empty(squares, np.int64), table, last, search.box_keys,
            )  # fmt: skip
            assert got == expected
            outcomes[expected] += 1
    assert outcomes[True] > 0 and outcomes[False] > 0


def test_a_push_that_walls_off_goals_is_not_queued() -> None:
    # Microban 153: ten goals, a column of six entered from below. One box waits on
    # (2, 8) with the player beside it: pushing it left into the corner freezes it on a goal
    # and walls the column off, which the freeze test alone accepts.
    level = MICROBAN[153 - 1]
    b = Board(level)
    width = b.width
    boxes = set(level.boxes) - {2 * width + 3} | {8 * width + 2}
    position = Position(player=8 * width + 3, boxes=frozenset(boxes))
    search = CompiledSearch(b, position, SearchConfig(10, memory_mb=64))
    assert search.run(1) == kernels.RUNNING
    stored = int(search.counters[kernels.STORED])
    queued = set(search.heap_ids[: int(search.counters[kernels.WAITING])].tolist())
    corner = search.index[8 * width + 1]
    children = {
        state: search.unpack(search.words[state])[corner] == 1 for state in range(1, stored)
    }
    walled = [state for state, in_corner in children.items() if in_corner]
    assert len(walled) == 1
    assert walled[0] not in queued
    assert queued  # the other pushes go on


def test_the_solver_says_how_near_each_search_has_come() -> None:
    """The live panel's words and the bench's figures: the least bound either search has
    queued, which only falls as the searches go on."""
    level = XSOKOBAN[10 - 1]
    board = Board(level)
    start = LowerBound(board)(board.boxes_of(GAME.start(level)))
    notes: list[str] = []
    found = {}
    for nodes in (2_000, 50_000):
        result = solve(
            GAME, level, "fast", limits=Limits(seconds=60, nodes=nodes),
            on_progress=lambda progress: notes.append(progress.note),
        )  # fmt: skip
        assert result.status == "node-limit"
        found[nodes] = result.extra
        assert 0 < result.extra["closest forwards"] <= start
        assert 0 <= result.extra["closest backwards"]
    assert found[50_000]["closest forwards"] <= found[2_000]["closest forwards"]
    assert found[50_000]["closest backwards"] <= found[2_000]["closest backwards"]
    assert any("more pushes" in note and "pulls short" in note for note in notes)


def test_the_live_panel_counts_the_dead_corrals_in_a_players_words() -> None:
    level = GAME.parse(CORRAL_TRAP)[0]
    search = CompiledSearch(Board(level), GAME.start(level), SearchConfig(10, 64, deadlocks=1))
    search.run(10)
    assert closest_note([search]).endswith(
        "; 1 position dropped: boxes shut off floor the player could never get back to"
    )


def test_the_live_panel_says_how_near_the_open_floor_search_has_come() -> None:
    level = XSOKOBAN[10 - 1]
    board = Board(level)
    forward = CompiledSearch(board, GAME.start(level), SearchConfig(10, 64, novelty=True))
    opening = CompiledSearch(
        board, GAME.start(level), SearchConfig(3, 64, novelty=True, mobility=1)
    )
    forward.run(100)
    opening.run(100)
    assert 0 < opening.closest < FAR
    assert closest_note([forward, opening]) == (
        f"the nearest position found needs {forward.closest}+ more pushes; opening up the"
        f" floor for the player, {opening.closest}+ more pushes at best"
    )


def test_the_live_panel_says_where_the_aimed_search_is_heading() -> None:
    level = MICROBAN[1]
    board, start = Board(level), GAME.start(level)
    backward = CompiledSearch(board, start, SearchConfig(10, 64, reverse=True))
    backward.run(1)
    aimed = CompiledSearch(board, start, SearchConfig(10, 64, towards=backward.nearest))
    note = closest_note([backward, aimed])
    assert note.startswith("back from the goals, ") and "pulls short of this position; " in note
    assert note.endswith(f"heading for the nearest of those, {aimed.closest}+ pushes away")
    assert 0 < aimed.closest < FAR


# Top right, two goals and a square of floor are fenced off by three boxes (a corral): however
# the player pushes them, it never gets in, and the three never all reach goals. No box is
# frozen and none stands on a dead square, so only the corral test sees it at the start.
CORRAL_TRAP = """\
#########
#    $. #
#     $.#
#    $ $#
#   $  .#
#.   @ .#
#########"""


def test_a_corral_that_can_never_open_ends_the_search_at_once() -> None:
    level = GAME.parse(CORRAL_TRAP)[0]
    runs = {}
    for deadlocks in (2, 1, 0):
        search = CompiledSearch(
            Board(level), GAME.start(level), SearchConfig(10, 64, deadlocks=deadlocks)
        )
        assert search.run(100_000) == kernels.EXHAUSTED
        runs[deadlocks] = (int(search.counters[kernels.EXPANDED]), search.dead_corrals)
    # With the corral test the start itself is dead; without it the search has to try
    # every push first (about 300 positions) before it knows.
    assert runs[2] == runs[1] == (1, 1)
    assert runs[0][0] > 200 and runs[0][1] == 0


def _small_positions(count: int, boxes: int, seed: int):
    """Random positions in a 5 x 7 room: as many goals as boxes, no box on a dead square."""
    rng = random.Random(seed)
    room = [(row, column) for row in range(1, 6) for column in range(1, 8)]
    made = 0
    while made < count:
        picks = rng.sample(room, 2 * boxes + 1)
        rows = [list("#########")] + [list("#       #") for _ in range(5)] + [list("#########")]
        for row, column in picks[:boxes]:
            rows[row][column] = "."
        for row, column in picks[boxes:-1]:
            rows[row][column] = "*" if rows[row][column] == "." else "$"
        row, column = picks[-1]
        rows[row][column] = "+" if rows[row][column] == "." else "@"
        level = GAME.parse("\n".join("".join(line) for line in rows))[0]
        board = Board(level)
        if board.boxes_of(GAME.start(level)) & board.dead:
            continue
        made += 1
        yield level


@pytest.mark.parametrize("deadlocks", [1, 2])
def test_every_corral_found_dead_is_on_a_level_with_no_solution(deadlocks: int) -> None:
    # The corral test, quick or strict, must never cut a solution: each start it calls dead
    # is proved unsolvable by the search without it running dry.
    dead = 0
    for level in _small_positions(400, 5, seed=19):
        board, start = Board(level), GAME.start(level)
        with_test = CompiledSearch(board, start, SearchConfig(10, 64, deadlocks=deadlocks))
        with_test.run(1)
        if with_test.dead_corrals == 0:
            continue
        dead += 1
        proof = CompiledSearch(board, start, SearchConfig(10, 64))
        assert proof.run(1_000_000) == kernels.EXHAUSTED, level.xsb()
    assert dead >= 5


def test_the_aimed_search_meets_the_backward_one_where_the_goals_are_too_far() -> None:
    # XSokoban 21: forwards, the goals are too far for the bound to lead anywhere (the plain
    # search fills its arrays); the backward search's nearest position, 3 pulls short of the
    # start by its bound, is met by a forward search aimed at it in about 200 k expansions.
    level = XSOKOBAN[21 - 1]
    board, start = Board(level), GAME.start(level)
    backward = CompiledSearch(
        board, start, SearchConfig(10, 1024, reverse=True, novelty=True, share=0.3)
    )
    while backward.closest > 3:
        assert backward.run(50_000) == kernels.RUNNING
    found = {}
    for aimed in (True, False):
        towards = backward.nearest if aimed else None
        search = CompiledSearch(
            board,
            start,
            SearchConfig(10, 1024, novelty=True, deadlocks=1, share=0.15, towards=towards),
        )
        search.partner = backward
        status = kernels.RUNNING
        while status == kernels.RUNNING and search.counters[kernels.EXPANDED] < 400_000:
            status = search.run(50_000)
        found[aimed] = status == kernels.FOUND
        if found[aimed]:
            moves = lurd(board, start, search.solution())
            assert check_solution(GAME, level, start, moves) is None
    assert found == {True: True, False: False}


def test_the_aimed_search_is_not_sent_where_the_player_is_shut_out() -> None:
    # XSokoban 42: the backward search reaches the start's very boxes with the player walled
    # off from the start's region (0 pulls short by the bound, yet not the start). The
    # position it offers the aimed search is one pull short with the player able to get back.
    level = XSOKOBAN[42 - 1]
    board, start = Board(level), GAME.start(level)
    backward = CompiledSearch(board, start, SearchConfig(10, 256, reverse=True, novelty=True))
    for _ in range(30):
        assert backward.run(10_000) == kernels.RUNNING
    assert backward.closest == 0
    nearest = int(backward.counters[kernels.NEAREST])
    boxes = backward.bitboard(nearest)
    h = kernels.assignment(
        backward.distances, np.flatnonzero(backward.unpack(backward.words[nearest]))
    )
    assert h == backward.counters[kernels.NEAREST_H] == 1
    region = board.reach(backward.cells[int(backward.player[nearest])], boxes)
    home = lowest_cell(board.reach(start.player, board.boxes_of(start)))
    assert region >> home & 1
