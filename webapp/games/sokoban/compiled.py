"""The fast solver's searches run as compiled code (``kernels.search``), forwards by pushes
and backwards by pulls, meeting in the middle.

The search loop — player reach, pushes or pulls, the transposition table, PI-corrals and
freeze deadlocks, the matching bound, the open list — runs in numba over numpy arrays; this
module builds the level's tables, sizes the arrays from the memory limit, runs the kernel in
slices of a few milliseconds and converts positions and pushes to and from the bitboards of
``board.py``.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Sequence
from dataclasses import KW_ONLY, dataclass

import numpy as np

from webapp.games.sokoban.board import FAR, Board, cells_of, lowest_cell, square_numbers
from webapp.games.sokoban.position import Position
from webapp.games.sokoban.rooms import GoalRoom
from webapp.search import Heat, Monitor, Stop, no_heat

#: The share of the memory limit the compiled searches' arrays may take, all together.
MEMORY_SHARE = 0.75
#: Values of h the novelty test tells apart (larger ones share the last band).
NOVELTY_BANDS = 2048
#: Slots in the transposition table at first; it doubles whenever a slice could fill half.
TABLE_START = 1 << 16
#: How long one kernel call should run: short enough for timely ticks and cancellation.
SLICE_SECONDS = 0.01
#: Bits for the player square in a solver.py state key (kept in step with PLAYER_BITS).
PLAYER_BITS = 12

#: What the search reports at each pause (solver.Pause) and how it ends (solver.Outcome).
Pause = tuple[int, int, int, int, int, int]
Outcome = tuple[list[int] | None, int, int]


class ArraysFull(Stop):
    """A compiled search's arrays are full and no partner of it is running that could still
    meet it: it can do no more, though searches beside it may."""

    def __init__(self) -> None:
        super().__init__("memory-limit")


def padded(rows: list, index: dict[int, int]) -> np.ndarray:
    """Rows of cells as rows of square numbers, padded with -1 (at least one column)."""
    table = np.full((len(rows), max((len(row) for row in rows), default=1)), -1, np.int64)
    for number, row in enumerate(rows):
        table[number, : len(row)] = [index[cell] for cell in row]
    return table


@dataclass(frozen=True)
class SearchConfig:
    """What one compiled search searches and in how much memory: the weight on h and the
    memory limit, then by name whatever else it needs (a direction, an order, a target, the
    plan search's phases and run)."""

    weight: int
    memory_mb: int | None
    _: KW_ONLY
    #: PI-corral pruning (forwards).
    corrals: bool = True
    #: Backwards, by pulls from the goals to the start.
    reverse: bool = False
    #: The share of ``memory_mb`` its arrays may take.
    share: float = MEMORY_SHARE
    #: Novel children first (kernels.search, ``seen``).
    novelty: bool = False
    #: Goal rooms whose boxes on a goal shut others off count ``penalty`` more forwards.
    rooms: Sequence[GoalRoom] | None = None
    penalty: int = 0
    #: The corral test: 0 none, 1 quick, 2 strict (forwards, with PI-corrals).
    deadlocks: int = 0
    #: Forwards, bound by the pushes to these boxes (a bitboard) instead of to the goals.
    towards: int | None = None
    #: The packing order's phases, the first first: the plan search (plan.py); and the
    #: phase each parking square among them is released in (packing.Packing).
    phases: list[list[int]] | None = None
    release: dict[int, int] | None = None
    #: The plan search's order of pushes (0 the board's own) and its stall (0 never).
    seed: int = 0
    stall: int = 0
    #: Corral verdicts an earlier search of the same level and test found.
    scratch: tuple | None = None
    #: Forwards, what each free square the player cannot reach adds to the priority.
    mobility: int = 0


class CompiledSearch:
    """One run of ``kernels.search`` on a level, forwards from ``position`` to the goals or
    backwards (``reverse``) from the goals to ``position``: its arrays, and the conversions.

    Two runs on the same level and position meet when ``partner`` links them. A forward one
    is also a stand-in for the forward search's parent links: ``key in search`` and
    ``search.pushes_to(key)`` let a CPython backward search meet it (keys as in solver.py).
    """

    def __init__(self, board: Board, position: Position, config: SearchConfig):
        from webapp.games.sokoban import kernels  # numba: loaded only when this search runs

        self.config = config
        self.kernels = kernels
        self.board = board
        cells, index, self.neighbours = square_numbers(board)
        self.cells, self.index = cells, index
        self.live = np.array([board.live >> cell & 1 for cell in cells], np.uint8)
        self.goal = np.array([board.goal_mask >> cell & 1 for cell in cells], np.uint8)
        self.reverse = config.reverse
        #: Bound by the pushes to a position the backward search found (``towards``).
        self.aimed = config.towards is not None
        self._bound(board.boxes_of(position))
        self._orders(board)
        self._plan(board)
        self._corral_test()
        self._arrays(len(position.boxes))
        self._roots(board, position)
        self.heat: Heat | None = None
        self.heat_counts = no_heat()

    def counting(self, monitor: Monitor) -> CompiledSearch:
        """Count the boxes of each position expanded into the monitor's heat map (the same
        one for every search of the level: squares are numbered the same way)."""
        level = self.board.level
        self.heat = monitor.heat_map(level.height, level.width, self.cells)
        if self.heat is not None:
            self.heat_counts = self.heat.counts
        return self

    def _bound(self, start: int) -> None:
        """The push distances the bound matches boxes to: backwards to the start squares,
        aimed to the target's squares, else to the goals (one column each)."""
        board, config, cells, index = self.board, self.config, self.cells, self.index
        if self.reverse:
            table = board.distances_from(sorted(cells_of(start)))
        elif config.towards is not None:
            # Forwards, bound by the pushes to these boxes' squares (a position the backward
            # search has reached) instead of to the goals.
            table = board.distances_to(sorted(cells_of(config.towards)))
        else:
            table = board.distances
        self.distances = np.array([table[cell] for cell in cells], np.int64)
        if config.towards is not None:
            # A box that cannot reach the target's squares may still be on the way to some
            # other position the backward search has seen: it costs more, it is not cut.
            self.distances[self.distances >= FAR] = 4 * len(cells)
        # The goal of each column of the forward table.
        self.goal_squares = np.array([index[goal] for goal in board.goals], np.int64)

    def _orders(self, board: Board) -> None:
        """What orders the weighted search besides the bound: novelty, goal rooms that shut
        goals off (or, backwards, the player shut out), the open floor, the weight."""
        config, index, squares = self.config, self.index, len(self.cells)
        # Novelty (kernels.search): per h, the squares a box or the player has stood on.
        self.seen = np.zeros((NOVELTY_BANDS, squares) if config.novelty else (1, 1), np.uint8)
        # Goal rooms (kernels.search): each room goal that shuts others off, then those.
        pairs = [
            (goal, *cells_of(shut)) for room in config.rooms or [] for goal, shut in room.shuts
        ]
        self.shuts = padded(pairs, index)
        # Backwards for the player shut out of the start's region, forwards for boxes on room
        # goals that shut others off.
        self.penalty = int(config.penalty) if pairs or self.reverse else 0
        #: Forwards: the priority counts this much for each free square the player cannot
        #: reach (kernels.search).
        self.mobility = 0 if self.reverse else int(config.mobility)
        self.weight = int(config.weight)
        random = np.random.default_rng(0x50C0BA)
        self.box_keys = random.integers(0, 2**64, squares, dtype=np.uint64)
        self.player_keys = random.integers(0, 2**64, squares, dtype=np.uint64)

    def _plan(self, board: Board) -> None:
        """Forwards, given the packing order's phases (packing.py, the first first): the plan
        search (plan.py), ``plan`` the push distances to each goal with the boxes of earlier
        phases frozen there as walls."""
        config, index, phases = self.config, self.index, self.config.phases
        self.planned = bool(phases) and not self.reverse
        if self.planned:
            from webapp.games.sokoban.packing import plan_distances

            assert phases is not None
            release = config.release or {}
            parking = sorted(release)
            table = plan_distances(board, phases, parking)
            self.plan = np.array([table[cell] for cell in self.cells], np.int64)
            self.column_of = np.full(len(self.cells), -1, np.int64)
            for column, target in enumerate([*board.goals, *parking]):
                self.column_of[index[target]] = column
            self.release = np.full(len(self.cells), -1, np.int64)
            for square, phase in release.items():
                self.release[index[square]] = phase
        self.phases = padded(phases if self.planned else [], index)
        #: The plan search: its targets (goals and parking squares), and which of the
        #: solve's runs it is (solver.Planned).
        self.targets = int((self.phases >= 0).sum()) if self.planned else 0
        self.run_number = 0
        #: The plan search: 0 takes the pushes in the board's order (the box pushed last
        #: first), any other seed in an order of its own (a restart, solver.run_fast).
        self.seed = int(config.seed)
        #: The plan search: the most goals the runs before this one filled (solver.run_fast).
        self.filled_before = 0
        #: The plan search: stop (``stalled``) after this many expansions without a position
        #: filling more goals in order than any before it; 0 never (plan.plan_search).
        self.stall = int(config.stall)
        self.stalled = False

    def _corral_test(self) -> None:
        """Corral deadlocks (forwards, with PI-corrals): the test's arrays and verdict cache,
        ``scratch`` when given (an earlier search of the same level with the same test, whose
        verdicts hold here too)."""
        config = self.config
        self.corrals = corrals = config.corrals
        self.deadlocks = int(config.deadlocks) if corrals and not self.reverse else 0
        scratch = config.scratch
        if scratch is None:
            scratch = self.kernels.corral_scratch(len(self.cells) if self.deadlocks else 1)
        self.scratch = scratch
        self.partner: CompiledSearch | None = None
        #: Set when the arrays are full: the search expands no more.
        self.full = False

    def _arrays(self, boxes: int) -> None:
        """The positions' arrays, sized from the memory share; np.empty takes pages from the
        system only as the search fills them."""
        config, kernels = self.config, self.kernels
        width = self.width = (len(self.cells) + 63) // 64
        # Bytes per stored position: its words, player, parent, push and depth, its hash,
        # one open-list entry (a heap's key and id, or the plan search's cost and bucket
        # link) and (at most) four table slots.
        per_state = 8 * width + 4 * 4 + 8 + (8 if self.planned else 12) + 16
        budget = (config.memory_mb or 2048) * config.share * 2**20
        capacity = self.capacity = max(4096, int(budget // per_state))
        self.words = np.empty((capacity, width), np.uint64)
        self.player = np.empty(capacity, np.int32)
        self.parent = np.empty(capacity, np.int32)
        self.push = np.empty(capacity, np.int32)
        self.depth = np.empty(capacity, np.int32)
        self.hashes = np.empty(capacity, np.uint64)
        heap = 1 if self.planned else capacity
        self.heap_keys = np.empty(heap, np.int64)
        self.heap_ids = np.empty(heap, np.int32)
        if self.planned:
            from webapp.games.sokoban import plan

            self.plan_kernels = plan
            self.cost = np.empty(capacity, np.int32)
            self.links = np.empty(capacity, np.int32)
            self.heads = np.zeros(plan.PLAN_BUCKETS, np.int32)
        self.table = np.zeros(TABLE_START, np.int32)
        self.counters = np.zeros(kernels.COUNTERS, np.int64)
        self.counters[kernels.MEET] = -1
        self.counters[kernels.CLOSEST] = FAR
        self.counters[kernels.NEAREST_H] = FAR
        self.most_children = 4 * boxes
        self.empty = (
            np.zeros((1, width), np.uint64),
            np.zeros(1, np.int32),
            np.zeros(1, np.uint64),
            np.zeros(1, np.int32),
        )

    def _roots(self, board: Board, position: Position) -> None:
        """Where the search starts (backwards, every region around the solved boxes), and
        (backwards) the position it looks for."""
        index, start = self.index, board.boxes_of(position)
        region = board.reach(position.player, start)
        self.target_words = self.query(start)
        self.target_player = index[lowest_cell(region)]
        self.target_hash = self.key_hash(self.target_words, self.target_player)
        if self.reverse:
            roots = []
            free = board.floor & ~board.goal_mask
            while free:
                region = board.reach(lowest_cell(free), board.goal_mask)
                free &= ~region
                roots.append((board.goal_mask, region))
        else:
            roots = [(start, board.reach(position.player, start))]
        for boxes_at, region in roots:
            self._add_root(boxes_at, index[lowest_cell(region)])

    def key_hash(self, query: np.ndarray, low: int) -> np.uint64:
        return self.kernels.box_hash(query, self.box_keys) ^ self.player_keys[low]

    def _add_root(self, boxes: int, low: int) -> None:
        kernels, counters = self.kernels, self.counters
        query = self.query(boxes)
        state = int(counters[kernels.STORED])
        self.words[state] = query
        self.player[state] = low
        self.parent[state] = -1
        self.push[state] = 0
        self.depth[state] = 0
        self.hashes[state] = self.key_hash(query, low)
        counters[kernels.STORED] = state + 1
        counters[kernels.GENERATED] += 1
        self.table[:] = 0
        kernels.rehash(self.hashes, state + 1, self.table)
        h = int(kernels.assignment(self.distances, np.flatnonzero(self.unpack(query))))
        if h < FAR:
            if h < int(counters[kernels.CLOSEST]):
                counters[kernels.CLOSEST] = h
            if h < int(counters[kernels.NEAREST_H]):
                counters[kernels.NEAREST_H] = h
                counters[kernels.NEAREST] = state
            waiting = int(counters[kernels.WAITING])
            if self.planned:
                # The plan search's root waits in the last bucket, where the rover starts.
                plan = self.plan_kernels
                self.cost[state] = 0
                bucket = plan.PLAN_BUCKETS - 1
                counters[plan.LOWEST] = counters[plan.ROVER] = bucket
                plan._put(self.heads, self.links, counters, state, bucket)
                return
            self.heap_keys[waiting] = self.weight * h << kernels.PRIORITY_SHIFT | h
            self.heap_ids[waiting] = state
            counters[kernels.WAITING] = waiting + 1
            # Roots all have depth 0: sorting by key keeps the array a heap.
            order = np.lexsort((self.heap_ids[: waiting + 1], self.heap_keys[: waiting + 1]))
            self.heap_keys[: waiting + 1] = self.heap_keys[: waiting + 1][order]
            self.heap_ids[: waiting + 1] = self.heap_ids[: waiting + 1][order]

    # -- conversions ------------------------------------------------------------------------
    def query(self, boxes: int) -> np.ndarray:
        """The kernel's bit set for a bitboard of boxes."""
        bits = 0
        index = self.index
        for cell in cells_of(boxes):
            bits |= 1 << index[cell]
        mask = (1 << 64) - 1
        return np.array([bits >> 64 * word & mask for word in range(self.width)], np.uint64)

    def unpack(self, words: np.ndarray) -> np.ndarray:
        """One byte per square: 1 where a box stands."""
        return np.unpackbits(words.view(np.uint8), bitorder="little")[: len(self.cells)]

    def bitboard(self, state: int) -> int:
        boxes = 0
        for number in np.flatnonzero(self.unpack(self.words[state])):
            boxes |= 1 << self.cells[number]
        return boxes

    def _state_of(self, key: int) -> int:
        boxes, low = key >> PLAYER_BITS, key & ((1 << PLAYER_BITS) - 1)
        number = self.index.get(low)
        if number is None:
            return -1
        return int(
            self.kernels.lookup(
                self.words, self.player, self.hashes, self.table, self.box_keys,
                self.player_keys, self.query(boxes), number,
            )
        )  # fmt: skip

    def __contains__(self, key: int) -> bool:
        return self._state_of(key) >= 0

    def pushes_to(self, key: int) -> list[int]:
        """The pushes (packed as solver.py packs them) from the start to the state ``key``."""
        return self._pushes(self._state_of(key))

    def _pushes(self, state: int) -> list[int]:
        """The pushes from the start to ``state`` (forwards) or from ``state`` to the start
        (backwards)."""
        pushes = []
        while self.parent[state] >= 0:
            push = int(self.push[state])
            pushes.append(self.cells[push >> 2] << 2 | push & 3)
            state = int(self.parent[state])
        return pushes if self.reverse else pushes[::-1]

    def solution(self) -> list[int]:
        """The pushes of the solution the last run FOUND."""
        kernels, counters = self.kernels, self.counters
        mine = self._pushes(int(counters[kernels.GOAL]))
        met = int(counters[kernels.MEET])
        if met < 0:
            return mine
        assert self.partner is not None
        theirs = self.partner._pushes(met)
        return theirs + mine if self.reverse else mine + theirs

    # -- running ----------------------------------------------------------------------------
    def run(self, budget: int) -> int:
        """At most ``budget`` expansions; the kernel's status."""
        kernels, counters = self.kernels, self.counters
        need = int(counters[kernels.STORED]) + budget * self.most_children
        if need * 2 > len(self.table):
            size = len(self.table)
            while need * 2 > size:
                size *= 2
            self.table = np.zeros(size, np.int32)
            kernels.rehash(self.hashes, int(counters[kernels.STORED]), self.table)
        other = self.empty
        if self.partner is not None:
            partner = self.partner
            other = (partner.words, partner.player, partner.hashes, partner.table)
        if self.planned:
            return int(
                self.plan_kernels.plan_search(
                    self.neighbours, self.live, self.goal, self.distances, self.box_keys,
                    self.player_keys, self.goal_squares, self.phases, self.release,
                    self.column_of, self.plan,
                    self.words, self.player, self.parent, self.push, self.depth, self.cost,
                    self.hashes, self.table, self.heads, self.links, counters, *other,
                    self.scratch, self.deadlocks, self.seed, self.stall, budget,
                    self.heat_counts, self.heat is not None,
                )
            )  # fmt: skip
        return int(
            kernels.search(
                self.neighbours, self.live, self.goal, self.distances, self.box_keys,
                self.player_keys, self.goal_squares, self.seen, self.shuts, self.penalty,
                self.weight, self.corrals, self.reverse, self.words, self.player,
                self.parent, self.push, self.depth, self.hashes, self.table, self.heap_keys,
                self.heap_ids, counters, *other, self.target_words, self.target_player,
                self.target_hash, self.scratch, self.deadlocks, self.mobility, budget,
                self.heat_counts, self.heat is not None,
            )
        )  # fmt: skip

    @property
    def filled(self) -> int:
        """The plan search: the most goals any position queued so far, in this run or one
        before it, has filled in the packing order (phase by phase)."""
        return max(self.filled_before, int(self.counters[self.kernels.FILLED]))

    @property
    def closest(self) -> int:
        """The least bound of any position queued so far (FAR before any): forwards the
        pushes still needed at least, backwards the pulls back to the start."""
        return int(self.counters[self.kernels.CLOSEST])

    @property
    def nearest(self) -> int:
        """The boxes (a bitboard) of the position queued so far with the least bound, a
        player shut out of the start's region counting SHUT_OUT more (backwards)."""
        return self.bitboard(int(self.counters[self.kernels.NEAREST]))

    @property
    def nearest_position(self) -> tuple[int, int]:
        """The player's square and the boxes (a bitboard) of the position queued so far
        with the least bound: forwards, the one that looks nearest a solution."""
        node = int(self.counters[self.kernels.NEAREST])
        return self.cells[int(self.player[node])], self.bitboard(node)

    def nearest_pushes(self) -> list[int]:
        """The pushes from the start to ``nearest_position`` (forwards), by the parent each
        stored position keeps: read when the nearest changes, never at an expansion."""
        return self._pushes(int(self.counters[self.kernels.NEAREST]))

    @property
    def dead_corrals(self) -> int:
        """How many corrals the search has found that can never be opened."""
        return int(self.scratch[-1][self.kernels.CORRAL_DEAD])

    def pause(self) -> Pause:
        kernels, counters = self.kernels, self.counters
        last = int(counters[kernels.LAST])
        return (
            int(counters[kernels.EXPANDED]),
            int(counters[kernels.GENERATED]),
            int(counters[kernels.WAITING]),
            int(counters[kernels.DEPTH]),
            self.cells[int(self.player[last])],
            self.bitboard(last),
        )

    def search(self, node_limit: int | None = None) -> Generator[Pause, None, Outcome]:
        """Run in slices of about SLICE_SECONDS, pausing after each; ends with the pushes of a
        solution, or None when the whole space is exhausted. When the arrays are full it
        stops expanding but keeps pausing while a partner linked back to it runs, which can
        still meet it; else it raises ArraysFull (a Stop("memory-limit")). A plan search
        that stalls (``stall``) sets ``stalled`` and pauses without expanding more."""
        kernels = self.kernels
        budget = 64
        while True:
            if node_limit is not None:
                budget = max(1, min(budget, node_limit - int(self.counters[kernels.EXPANDED])))
            started = time.perf_counter()
            status = self.run(budget)
            spent = time.perf_counter() - started
            expanded, generated = self.pause()[:2]
            if status == kernels.FOUND:
                return self.solution(), expanded, generated
            if status == kernels.EXHAUSTED:
                return None, expanded, generated
            if self.planned and status == self.plan_kernels.STALLED:
                # The caller ends the run (solver.run_fast); called again, it stays so.
                self.stalled = True
            elif status == kernels.FULL:
                self.full = True
                # A partner linked back reads this table: it may still meet this search.
                partner = self.partner
                while partner is not None and partner.partner is self and not partner.full:
                    yield self.pause()
                raise ArraysFull()
            if spent > 0:
                budget = int(min(max(budget * SLICE_SECONDS / spent, 16), budget * 4, 1 << 16))
            yield self.pause()
