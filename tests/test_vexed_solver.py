"""The Vexed solvers on real levels: optimal lengths against par, all shortest solutions, limits."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import DATA, LEVELS
from webapp.games.base import IllegalMove
from webapp.games.solving import check_solution, solve
from webapp.games.vexed import GAME, Board
from webapp.games.vexed.bounds import Bounds
from webapp.games.vexed.compact import Compact
from webapp.search import Limits, Progress

VEXED = LEVELS / "vexed"


def level_of(file_name: str, number: int):
    return GAME.parse((VEXED / file_name).read_text(encoding="utf-8"))[number - 1]


def assert_replays(level, moves: list[str], state=None) -> None:
    state = GAME.start(level) if state is None else state
    assert check_solution(GAME, level, state, list(moves)) is None


@pytest.mark.parametrize(
    ("file_name", "number"),
    [
        ("02_classic_levels.txt", 8),  # Drive My Car, par 10 (Palm solution 13)
        ("03_classic_ii_levels.txt", 2),  # Fort Wayne, par 27
        ("32_variety_25_pack.txt", 48),  # Dark Lord, par 25
        ("07_impossible_pack.txt", 46),  # Fiddlehead Ferns, par 47
    ],
)
def test_fast_solves_in_exactly_par_moves(file_name: str, number: int) -> None:
    level = level_of(file_name, number)
    result = solve(GAME, level, "fast", limits=Limits(seconds=60))
    assert result.status == "solved", result.error
    assert result.optimal and result.metric == "moves"
    assert len(result.moves) == result.cost == level.par
    assert result.extra["lower_bound"] <= level.par
    assert result.extra["boards"] == result.generated > 0
    assert_replays(level, result.moves)


def test_dark_lord_file_is_solved_in_25_moves_by_fast_and_bfs() -> None:
    (level,) = GAME.parse((DATA / "dark_lord.level").read_text(encoding="utf-8"))
    fast = solve(GAME, level, "fast", limits=Limits(seconds=60))
    plain = solve(GAME, level, "bfs", limits=Limits(seconds=60))
    assert fast.status == plain.status == "solved"
    assert len(fast.moves) == len(plain.moves) == 25
    # The lower bound has to pay for itself: A* looks at fewer boards than breadth-first.
    assert fast.expanded < plain.expanded
    assert plain.extra["boards"] == plain.generated


@pytest.mark.parametrize(("number", "optimum"), [(1, 4), (4, 5), (9, 5), (13, 17)])
def test_bfs_agrees_with_the_independent_bfs_check(number: int, optimum: int) -> None:
    # Classic levels whose optimum bfs_check.tsv proved with another engine.
    level = level_of("02_classic_levels.txt", number)
    result = solve(GAME, level, "bfs", limits=Limits(seconds=30))
    assert result.status == "solved"
    assert len(result.moves) == optimum == level.par
    assert result.optimal and result.extra["boards"] > 0


def every_shortest_solution(level, length: int) -> set[str]:
    """Every sequence of ``length`` moves that clears the board, by plain exhaustive search."""
    found: set[str] = set()

    def extend(board: Board, moves: list[str]) -> None:
        if len(moves) == length:
            if GAME.is_solved(level, board):
                found.add(GAME.join_moves(moves))
            return
        for move in GAME.legal_moves(level, board):
            extend(GAME.apply(level, board, move), [*moves, move])

    extend(GAME.start(level), [])
    return found


@pytest.mark.parametrize("number", [1, 5])
def test_bfs_all_lists_every_shortest_solution(number: int) -> None:
    level = level_of("01_childrens_pack.txt", number)
    result = solve(GAME, level, "bfs-all", limits=Limits(seconds=30))
    assert result.status == "solved"
    listed = result.extra["solutions"]
    assert len(listed) >= 2 and len(set(listed)) == len(listed)
    assert result.extra["solution_count"] == len(listed) and result.extra["listed_all"]
    assert result.moves == listed[0].split()
    for solution in listed:
        moves = GAME.split_moves(solution)
        assert len(moves) == level.par
        assert_replays(level, moves)
    # Nothing shorter exists, and nothing of that length is missing.
    assert not any(every_shortest_solution(level, n) for n in range(level.par))
    assert set(listed) == every_shortest_solution(level, level.par)


def test_solving_from_a_position_in_play() -> None:
    level = level_of("32_variety_25_pack.txt", 48)
    played = ["4,2>", "5,2>"]
    state = GAME.replay(level, played)
    result = solve(GAME, level, "fast", state=state, limits=Limits(seconds=60))
    assert result.status == "solved"
    assert_replays(level, result.moves, state)
    assert len(result.moves) >= level.par - len(played)


def test_unsolvable_levels_are_proved_so() -> None:
    # Two pairs locked in cells of their own: no block can ever move or meet its partner.
    (level,) = GAME.parse("#########\n#a#a#b#b#\n#########\n")
    for name in ("fast", "bfs", "bfs-all"):
        assert solve(GAME, level, name).status == "unsolvable", name
    # The a's can move, but a wall keeps them apart for ever.
    (level,) = GAME.parse("#######\n#a_#_a#\n#######\n")
    for name in ("fast", "bfs", "bfs-all"):
        assert solve(GAME, level, name).status == "unsolvable", name


def test_a_position_with_a_lone_block_is_unsolvable() -> None:
    # Classic #3: the first move 4,1> makes two of the three f's vanish; the third f is left
    # alone and can never vanish.
    level = level_of("02_classic_levels.txt", 3)
    lone = GAME.apply(level, GAME.start(level), "4,1>")
    counts = Counter(ch for row in lone.rows for ch in row if ch.isalpha())
    assert 1 in counts.values()
    for name in ("fast", "bfs", "bfs-all"):
        result = solve(GAME, level, name, state=lone, limits=Limits(seconds=10))
        assert result.status == "unsolvable", name
        assert result.expanded == 0, name


def test_limits_and_live_progress() -> None:
    level = level_of("07_impossible_pack.txt", 1)  # Kvass, par 34: far beyond 2,000 boards
    seen: list[Progress] = []
    for name in ("fast", "bfs", "bfs-all"):
        seen.clear()
        result = solve(GAME, level, name, limits=Limits(nodes=2000), on_progress=seen.append)
        assert result.status == "node-limit", name
        samples = [p.sample for p in seen if p.sample is not None]
        assert samples and all(isinstance(s, Board) for s in samples)
        assert all(s.height == level.height and s.width == level.width for s in samples)
    cancelled = solve(GAME, level, "fast", cancelled=lambda: True)
    assert cancelled.status == "cancelled"


def test_the_lower_bound_never_exceeds_the_moves_left() -> None:
    # Along an optimal solution the moves left are exact, so the bound must stay below them.
    level = level_of("32_variety_25_pack.txt", 48)
    moves = solve(GAME, level, "fast").moves
    compact = Compact(level)
    bounds = Bounds(compact)
    board = GAME.start(level)
    for done in range(len(moves) + 1):
        assert bounds.estimate(compact.encode(board)) <= len(moves) - done
        if done < len(moves):
            board = GAME.apply(level, board, moves[done])


def test_solutions_only_use_legal_moves() -> None:
    level = level_of("03_classic_ii_levels.txt", 2)
    result = solve(GAME, level, "fast")
    board = GAME.start(level)
    for move in result.moves:
        assert move in GAME.legal_moves(level, board)
        board = GAME.apply(level, board, move)
    with pytest.raises(IllegalMove):
        GAME.apply(level, board, result.moves[0])


def random_play(level, rng, most: int) -> Board:
    """The board after up to ``most`` random legal moves from the start."""
    board = GAME.start(level)
    for _ in range(rng.randint(0, most)):
        moves = GAME.legal_moves(level, board)
        if not moves:
            break
        board = GAME.apply(level, board, rng.choice(moves))
    return board


# -- the compiled search -----------------------------------------------------------------------


def test_the_compiled_bound_equals_the_reference_bound_on_played_boards() -> None:
    # kernels.estimate is bounds.Bounds.estimate rewritten for numba: on boards met in random
    # play on levels of several packs (colours of 2 to 10 blocks) the two must agree.
    import random

    import numpy as np

    from webapp.games.vexed import kernels
    from webapp.games.vexed.solver import _CompiledSearch

    rng = random.Random(3)
    levels = [
        level_of("32_variety_25_pack.txt", 48),
        level_of("07_impossible_pack.txt", 1),
        level_of("03_classic_ii_levels.txt", 2),
        *(level_of("02_classic_levels.txt", n) for n in (5, 20, 40, 59)),
    ]
    for level in levels:
        compact = Compact(level)
        bounds = Bounds(compact)
        search = _CompiledSearch(compact, bounds, 64)
        memo_keys = np.zeros(1 << 16, np.int64)
        memo_values = np.zeros(1 << 16, np.int64)
        state = np.zeros(kernels.STATE_SIZE, np.int64)
        m = search.m
        counts = np.empty(kernels.COLOUR_SLOTS, np.int64)
        starts = np.empty(kernels.COLOUR_SLOTS, np.int64)
        members = np.empty(m, np.int64)
        for _ in range(15):
            board = random_play(level, rng, 12)
            encoded = compact.encode(board)
            expected = bounds.estimate(encoded)
            got = kernels.estimate(
                search.row(encoded), memo_keys, memo_values, state, search.reach,
                search.near, search.pair, search.column, m, counts, starts, members,
            )  # fmt: skip
            assert got == expected, (level.title, board)


@pytest.mark.parametrize(("partial", "per_block"), [(False, 0), (True, 0), (True, 3)])
def test_the_search_within_a_cap_queues_exactly_the_children_within_it(
    partial: bool, per_block: int
) -> None:
    # With weight > 0, kernels.astar cuts a child whose bound is above the moves left. Most
    # children are cut before they are built: a slide that sets nothing vanishing is tried in
    # place on the parent's grid and only the colours whose blocks moved are looked up again;
    # the others get the parent's value for every colour whose cells did not change. On boards
    # from random play, for every cap around the children's bounds, one expansion must queue
    # exactly the children that the plain rules and the reference bound keep, 1 + h <= cap.
    # With partial expansion (once the pool holds DEFER_AT boards; here at once) it leaves
    # out those whose bucket 1 + 2h + per_block * blocks is above the board's own, 2 h0 +
    # per_block * blocks0, by more than DEFER, and the board waits again at the lowest of
    # their buckets.
    import random

    from webapp.games.vexed import kernels
    from webapp.games.vexed.solver import _CompiledSearch

    DEFER = kernels.DEFER  # noqa: N806
    rng = random.Random(11)
    levels = [
        level_of("32_variety_25_pack.txt", 48),
        level_of("07_impossible_pack.txt", 33),
        level_of("03_classic_ii_levels.txt", 21),
        level_of("03_classic_ii_levels.txt", 56),
        *(level_of("02_classic_levels.txt", n) for n in (5, 40, 59)),
    ]
    quiet_cut = loud_cut = kept = deferred = 0
    for level in levels:
        compact = Compact(level)
        bounds = Bounds(compact)
        for _ in range(5):
            board = random_play(level, rng, rng.randrange(12))
            encoded = compact.encode(board)
            h0 = bounds.estimate(encoded)
            if compact.has_lone_block(encoded) or h0 >= kernels.INF:
                continue  # never expanded
            blocks = compact.blocks(encoded)
            children = {}  # board: (its bound, nothing vanished)
            for _, child in compact.children(encoded):
                children[child] = (bounds.estimate(child), compact.blocks(child) == blocks)
            own = 2 * h0 + per_block * blocks

            def bucket(child: bytes, h: int, compact: Compact = compact) -> int:
                return 1 + 2 * h + per_block * compact.blocks(child)

            if compact.cleared in children:
                continue  # the expansion would stop at the cleared child
            finite = {h for h, _ in children.values() if h < kernels.INF}
            for cap in sorted({2, *(1 + h for h in finite), *(2 + h for h in finite)}):
                within = {child: h for child, (h, _) in children.items() if 1 + h <= cap}
                expected = {
                    c for c, h in within.items() if not partial or bucket(c, h) <= own + DEFER
                }
                later = sorted(bucket(c, h) for c, h in within.items() if c not in expected)
                search = _CompiledSearch(compact, bounds, 64)
                if partial:
                    search.state[kernels.DEFER_AT] = 0
                search.push_start(encoded, h0, own)
                assert search.run(1, cap, 2, per_block) == kernels.RUNNING
                boards = int(search.state[kernels.BOARDS])
                got = {search.board(i) for i in range(1, boards)}
                assert got == expected, (level.title, board, cap)
                # The board (id 0, flagged -1) waits among its children's depth, 1.
                waits_again = [int(search.entry_board[search.heads[b, 1]]) for b in later[:1]]
                assert waits_again == ([-1] if later else []), (level.title, board, cap)
                assert int(search.state[kernels.WAITING]) == len(expected) + bool(later)
                kept += len(expected)
                deferred += len(later)
                for h, quiet in children.values():
                    if 1 + h > cap:
                        quiet_cut += quiet
                        loud_cut += not quiet
    assert quiet_cut >= 200 and loud_cut >= 50 and kept >= 200, (quiet_cut, loud_cut, kept)
    assert deferred >= 50 if partial else deferred == 0, deferred


def test_the_search_within_a_cap_takes_boards_with_fewer_blocks_left_first() -> None:
    # The bounded-cost search queues a board in the bucket g + 2h + per_block * (blocks left),
    # both the children it makes and A*'s open list when it takes over (kernels.rebucket):
    # of two boards alike in g and bound, the one with fewer blocks left is taken first.
    import random

    from webapp.games.vexed import kernels
    from webapp.games.vexed.solver import _CompiledSearch

    rng = random.Random(5)
    per_block = 3
    seen_blocks: set[int] = set()
    for file_name, number in (("07_impossible_pack.txt", 15), ("03_classic_ii_levels.txt", 21)):
        level = level_of(file_name, number)
        compact = Compact(level)
        bounds = Bounds(compact)
        for _ in range(4):
            board = compact.encode(random_play(level, rng, rng.randrange(8)))
            h0 = bounds.estimate(board)
            if compact.has_lone_block(board) or h0 >= kernels.INF:
                continue
            search = _CompiledSearch(compact, bounds, 64)
            search.push_start(board, h0, 2 * h0 + per_block * compact.blocks(board))
            assert search.run(1, kernels.F_CAP // 4, 2, per_block) == kernels.RUNNING
            queued = _queued(search)
            assert len(queued) == int(search.state[kernels.BOARDS]) - 1 > 0
            for child, bucket, g in queued:
                h, blocks = bounds.estimate(child), compact.blocks(child)
                assert (g, bucket) == (1, 1 + 2 * h + per_block * blocks), level.title
                seen_blocks.add(blocks)
        # A*'s open list, handed over.
        search = _CompiledSearch(compact, bounds, 64)
        start = compact.encode(GAME.start(level))
        search.push_start(start, bounds.estimate(start))
        for _ in range(3):
            assert search.run(32, kernels.F_CAP, 0) == kernels.RUNNING
        search.rebucket(kernels.F_CAP // 4, 2, per_block)
        queued = _queued(search)
        assert len(queued) == int(search.state[kernels.WAITING]) > 0
        for board, bucket, g in queued:
            h, blocks = bounds.estimate(board), compact.blocks(board)
            assert bucket == g + 2 * h + per_block * blocks, level.title
            seen_blocks.add(blocks)
    assert len(seen_blocks) >= 3, seen_blocks  # boards of several counts were compared


def test_the_order_by_blocks_left_reaches_par_on_a_dense_level() -> None:
    # Impossible #28 Lutefisk: after half a million expansions of A*, the search within par
    # by g + 2h + PER_BLOCK * blocks finds a solution of par (36) moves within 300,000 more
    # (about 127,000 here); by g + 2h alone it had not after 3 million.
    from webapp.games.vexed import kernels
    from webapp.games.vexed.solver import PER_BLOCK, WEIGHT

    level = level_of("07_impossible_pack.txt", 28)
    compact, search = _astar_from_the_start(level, 512)
    status = kernels.RUNNING
    while status == kernels.RUNNING and search.counters()[0] < 500_000:
        status = search.run(1 << 14, kernels.F_CAP, 0)
    assert status == kernels.RUNNING  # A* has not finished: the search within par takes over
    handed_over = search.counters()[0]
    search.rebucket(level.par, WEIGHT, PER_BLOCK)
    while status == kernels.RUNNING and search.counters()[0] - handed_over < 300_000:
        status = search.run(1 << 14, level.par, WEIGHT, PER_BLOCK)
    assert status == kernels.FOUND
    boards = search.path()
    assert len(boards) - 1 == level.par == 36
    assert_replays(level, [compact.token(slide) for slide in _slides(compact, boards)])


def _astar_from_the_start(level, memory_mb: int):
    """A compiled search with the level's start queued for A*, and its Compact."""
    from webapp.games.vexed.solver import _CompiledSearch

    compact = Compact(level)
    bounds = Bounds(compact)
    start = compact.encode(GAME.start(level))
    search = _CompiledSearch(compact, bounds, memory_mb)
    search.push_start(start, bounds.estimate(start))
    return compact, search


def _queued(search) -> list[tuple[bytes, int, int]]:
    """(board, bucket, g) of every entry in a compiled search's open list."""
    from webapp.games.vexed import kernels

    out = []
    for bucket in range(kernels.F_CAP):
        for g in range(int(search.top_g[bucket]) + 1):
            entry = int(search.heads[bucket, g])
            while entry >= 0:
                out.append((search.board(int(search.entry_board[entry])), bucket, g))
                entry = int(search.entry_next[entry])
    return out


def test_the_compiled_moves_give_the_boards_the_rules_give() -> None:
    # One expansion of kernels.astar puts every child of its start board into the pool (all
    # but those the lone-block prune drops): they must be the boards the plain rules give.
    import random

    from webapp.games.vexed import kernels
    from webapp.games.vexed.solver import _CompiledSearch

    rng = random.Random(5)
    two_stretches = GAME.parse(
        "Vexed level\ntitle: two stretches\n--\n"
        + "\n".join(("######", "#_c__#", "#_a__#", "#ad__#", "###__#", "#_d_c#", "######"))
    )[0]
    # Classic II #56 Oxnard: the board where a vanishing in two stretches of a column was
    # first settled wrongly (a solution then failed to replay).
    oxnard = level_of("03_classic_ii_levels.txt", 56)
    oxnard_moves = "3,8< 5,7< 2,3> 1,5< 1,6< 1,5< 5,8< 6,6> 6,7< 2,1> 2,3<".split()
    cases = [
        (two_stretches, GAME.start(two_stretches)),
        (oxnard, GAME.replay(oxnard, oxnard_moves)),
    ]
    for level in (oxnard, level_of("07_impossible_pack.txt", 1), level_of("06_panic_pack.txt", 30)):
        cases.extend((level, random_play(level, rng, 10)) for _ in range(12))
    checked = 0
    for level, board in cases:
        compact = Compact(level)
        encoded = compact.encode(board)
        if compact.has_lone_block(encoded):
            continue
        expected = {GAME.apply(level, board, move) for move in GAME.legal_moves(level, board)} - {
            board
        }
        expected = {b for b in expected if not compact.has_lone_block(compact.encode(b))}
        search = _CompiledSearch(compact, Bounds(compact), 64)
        search.push_start(encoded, 1)
        if search.run(1, kernels.F_CAP, 0) == kernels.FOUND:
            continue  # a child was cleared and the expansion stopped there
        boards = int(search.state[kernels.BOARDS])
        got = {compact.decode(search.board(i)) for i in range(1, boards)}
        assert got == expected, (level.title, board)
        checked += 1
    assert checked >= 30


def test_the_table_of_boards_grows_without_changing_the_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from webapp.games.vexed import solver

    level = level_of("32_variety_25_pack.txt", 48)  # Dark Lord: 8,685 boards
    roomy = solve(GAME, level, "fast")
    monkeypatch.setattr(solver, "TABLE_START", 1 << 8)  # doubles six times on the way
    grown = solve(GAME, level, "fast")
    assert grown.moves == roomy.moves and grown.cost == 25
    assert (grown.expanded, grown.generated) == (roomy.expanded, roomy.generated)


def test_a_full_pool_is_reported_as_the_memory_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp.games.vexed import solver

    monkeypatch.setattr(solver, "POOL_SHARE", 0)  # the smallest pool: 4,096 boards
    result = solve(GAME, level_of("32_variety_25_pack.txt", 48), "fast")
    assert result.status == "memory-limit"


def test_a_par_below_the_optimum_is_a_fact_of_the_data() -> None:
    # Panic Pack #19 lists par 29; breadth-first search (no bound involved) and the A* both
    # prove 30, the length of the level's original Palm solution. bench/RESULTS.md lists it.
    level = level_of("06_panic_pack.txt", 19)
    assert (level.par, level.title) == (29, "Nightmare Castle")
    plain = solve(GAME, level, "bfs", limits=Limits(seconds=120))
    fast = solve(GAME, level, "fast", limits=Limits(seconds=60))
    assert plain.status == fast.status == "solved"
    assert plain.cost == fast.cost == 30
    assert_replays(level, fast.moves)


# -- when A* runs long: the search within par ---------------------------------------------------


def hurried(monkeypatch: pytest.MonkeyPatch) -> None:
    """A* hands over after its first slice of 256 expansions."""
    from webapp.games.vexed import solver

    monkeypatch.setattr(solver, "SLICE", 256)
    monkeypatch.setattr(solver, "ASTAR_SHARE", 0.0)


def test_a_long_search_hands_over_to_a_search_within_par(monkeypatch: pytest.MonkeyPatch) -> None:
    level = level_of("03_classic_ii_levels.txt", 2)  # Fort Wayne, par 27
    optimal = solve(GAME, level, "fast", limits=Limits(seconds=60))
    hurried(monkeypatch)
    result = solve(GAME, level, "fast", limits=Limits(seconds=60))
    assert result.status == "solved"
    assert len(result.moves) == result.cost <= level.par
    # A* stopped early: the bound it proved is below par, so the answer is not claimed optimal
    # unless it meets that bound.
    assert result.extra["lower_bound"] < level.par
    assert result.optimal == (result.cost <= result.extra["lower_bound"])
    assert optimal.optimal and optimal.cost == 27 and optimal.extra["lower_bound"] == 20
    assert result.expanded > 256  # A*'s slice, then the search within par
    assert_replays(level, result.moves)


def test_the_search_within_par_reports_its_cap_and_the_moves_it_has_reached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A player watching sees A*'s f bound, then what the search within par looks for and the
    # moves to the board it last expanded (never its bucket, g + 2h + 3 blocks).
    level = level_of("03_classic_ii_levels.txt", 2)  # Fort Wayne, par 27
    hurried(monkeypatch)
    seen: list[Progress] = []
    result = solve(GAME, level, "fast", limits=Limits(seconds=60), on_progress=seen.append)
    assert result.status == "solved"
    astar = [p for p in seen if p.note.startswith("f-bound")]
    within = [p for p in seen if p.note == "looking for a solution of at most 27 moves (par)"]
    assert astar and within and len(astar) + len(within) == len(seen)
    assert all(p.depth == int(p.note.split()[1]) for p in astar)
    assert all(0 <= p.depth <= 27 for p in within)


def test_a_board_whose_blocks_would_overflow_the_buckets_goes_without_the_blocks_term(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Buckets hold g + 2h + PER_BLOCK * blocks below F_CAP. With a block weighing 1,000,
    # Fort Wayne's start alone would be past it; the search within par then orders by g + 2h
    # (else it would drop every board, and wrongly prove that none is within par).
    from webapp.games.vexed import kernels, solver

    level = level_of("03_classic_ii_levels.txt", 2)  # Fort Wayne, par 27
    compact = Compact(level)
    assert 1000 * compact.blocks(compact.encode(GAME.start(level))) > kernels.F_CAP
    hurried(monkeypatch)
    monkeypatch.setattr(solver, "PER_BLOCK", 1000)
    result = solve(GAME, level, "fast", limits=Limits(seconds=60))
    assert result.status == "solved" and result.cost <= 27
    assert_replays(level, result.moves)


def test_without_par_the_last_search_finds_some_solution(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    level = replace(level_of("03_classic_ii_levels.txt", 2), par=None)
    hurried(monkeypatch)
    result = solve(GAME, level, "fast", limits=Limits(seconds=60))
    assert result.status == "solved" and result.cost >= 27
    assert result.extra["lower_bound"] < 27
    assert_replays(level, result.moves)


def test_a_par_below_the_optimum_is_proved_so_on_the_way(monkeypatch: pytest.MonkeyPatch) -> None:
    # Panic Pack #19: par 29, optimum 30. The search within 29 moves runs dry, which proves
    # at least 30; the last search then finds a solution of 30 or more.
    level = level_of("06_panic_pack.txt", 19)
    hurried(monkeypatch)
    result = solve(GAME, level, "fast", limits=Limits(seconds=60))
    assert result.status == "solved"
    assert result.extra["lower_bound"] == 30 <= result.cost
    assert result.optimal == (result.cost == 30)
    assert_replays(level, result.moves)


@pytest.mark.parametrize("partial", [False, True])
@pytest.mark.parametrize(
    ("file_name", "number", "optimum"),
    [("32_variety_25_pack.txt", 48, 25), ("06_panic_pack.txt", 19, 30)],  # Dark Lord, Nightmare
)
def test_a_search_within_a_cap_goes_on_from_where_astar_stopped(
    file_name: str, number: int, optimum: int, partial: bool
) -> None:
    # The search within par takes over A*'s arrays: its open list is put into buckets by
    # g + 2h (kernels.rebucket) and the boards A* expanded are not expanded again. Stopped
    # anywhere, it must still find a solution within a cap at the optimum, and run dry (a
    # proof) within one below it; with partial expansion too (boards waiting again for the
    # children they left out).
    from webapp.games.vexed import kernels
    from webapp.games.vexed.solver import _CompiledSearch

    level = level_of(file_name, number)
    compact = Compact(level)
    bounds = Bounds(compact)
    start = compact.encode(GAME.start(level))
    for slices in (1, 3, 10, 30):
        for cap, expected in ((optimum, kernels.FOUND), (optimum - 1, kernels.EXHAUSTED)):
            search = _CompiledSearch(compact, bounds, 256)
            if partial:
                search.state[kernels.DEFER_AT] = 0
            search.push_start(start, bounds.estimate(start))
            for _ in range(slices):
                assert search.run(64, kernels.F_CAP, 0) == kernels.RUNNING
            before = search.counters()[0]
            search.rebucket(cap, 2)
            status = kernels.RUNNING
            while status == kernels.RUNNING:
                status = search.run(1 << 14, cap, 2)
            assert status == expected, (slices, cap)
            assert search.counters()[0] > before
            if status == kernels.FOUND:
                boards = search.path()
                assert boards[0] == start and boards[-1] == compact.cleared
                assert len(boards) - 1 <= cap
                moves = [compact.token(slide) for slide in _slides(compact, boards)]
                assert_replays(level, moves)


def _slides(compact: Compact, boards: list[bytes]) -> list:
    return [
        next(s for s, child in compact.children(before, prune=False) if child == after)
        for before, after in zip(boards, boards[1:], strict=False)
    ]


def test_only_boards_that_are_queued_are_kept() -> None:
    # Children cut by the bound are not stored: the pool holds the start and the boards queued.
    from webapp.games.vexed import kernels

    level = level_of("32_variety_25_pack.txt", 48)
    compact, search = _astar_from_the_start(level, 256)
    while search.run(1 << 14, kernels.F_CAP, 0) == kernels.RUNNING:
        pass
    expanded, generated, _, _ = search.counters()
    assert int(search.state[kernels.BOARDS]) <= generated + 1
    assert expanded > 1000


def test_the_table_of_boards_finds_every_board_whatever_its_fingerprint() -> None:
    # A slot of the table holds a board's id and, above it, a fingerprint of its hash: a slot
    # whose fingerprint differs is passed over without reading the board. With few bits of
    # fingerprint (29 bits of id leave 2; 31 leave none) most occupied slots match it, and
    # the rows themselves must tell the boards apart.
    import numpy as np

    from webapp.games.vexed import kernels

    rng = np.random.default_rng(7)
    rows = np.unique(rng.integers(0, 16, size=(3000, 9), dtype=np.uint8), axis=0)
    rng.shuffle(rows)
    stored, absent = range(2000), range(2000, len(rows))
    for bits in (13, 29, 31):
        pool = np.zeros((4096, 9), np.uint8)
        table = np.zeros(1 << 12, np.int32)  # half full: long runs of occupied slots
        state = np.zeros(kernels.STATE_SIZE, np.int64)
        for i in stored:
            known, slot, tag = kernels._find(
                pool, table, rows, i, 9, bits, np.uint64(kernels._hash(rows, i, 9))
            )
            assert known == -1
            assert kernels._add(pool, table, slot, tag, rows, i, 9, state) == i
        for i in stored:
            assert (
                kernels._find(pool, table, rows, i, 9, bits, np.uint64(kernels._hash(rows, i, 9)))[
                    0
                ]
                == i
            )
        for i in absent:
            assert (
                kernels._find(pool, table, rows, i, 9, bits, np.uint64(kernels._hash(rows, i, 9)))[
                    0
                ]
                == -1
            )


@pytest.mark.parametrize(
    ("letters", "half_a_byte"),
    [("abcdefghijklmn", True), ("mnopqrstuvwxyz", True), ("abcdefghijklmno", False)],
)
def test_pool_rows_take_half_a_byte_a_cell_for_up_to_14_colours(
    letters: str, half_a_byte: bool
) -> None:
    # The kernel numbers a level's colours from 2, so up to 14 of them (any letters) fit half
    # a byte a cell in the pool; a level with more keeps a byte a cell. Either way the search
    # reads back the boards it stored: here one pair of each colour, one move apart.
    from webapp.games.vexed.solver import _CompiledSearch

    wall = "#" * 29  # seven pairs a shelf, a board being at most 32 cells wide
    shelves = [letters[i : i + 7] for i in range(0, len(letters), 7)]
    rows = [wall]
    for shelf in shelves:
        rows += ["#" + "".join(f"{c}_{c}#" for c in shelf).ljust(28, "#"), wall]
    text = "Vexed level\ntitle: pairs\n--\n" + "\n".join(rows) + "\n"
    level = GAME.parse(text)[0]
    compact = Compact(level)
    search = _CompiledSearch(compact, Bounds(compact), 64)
    assert search.width == ((search.m + 1) // 2 if half_a_byte else search.m)
    result = solve(GAME, level, "fast", limits=Limits(seconds=60))
    assert result.status == "solved" and result.cost == len(letters) and result.optimal
    assert_replays(level, result.moves)


def test_the_recorded_optima_are_above_par_and_proved() -> None:
    """levels/vexed/optima.tsv tells players where par cannot be met: each row must be a
    level whose par is below the shortest solution, and the solver must prove that length."""
    import csv

    shipped = Path(__file__).resolve().parents[1] / "levels" / "vexed"
    with open(shipped / "optima.tsv", newline="", encoding="utf-8") as index:
        rows = list(csv.DictReader(index, delimiter="\t"))
    assert len(rows) == 5
    for row in rows:
        level = level_of(row["file"], int(row["level"]))
        assert level.title == row["title"] and level.par == int(row["par"])
        optimum = int(row["optimum"])
        assert optimum > level.par
        result = solve(GAME, level, "fast", limits=Limits(seconds=60))
        assert result.solved and result.optimal, row
        assert len(result.moves) == optimum, row
        assert_replays(level, result.moves)
