"""The Sokoban solvers: push-optimal BFS and A*, a fast best-first solver, a move-optimal A*.

All of them search positions reached by pushes (the fast one also by pulls, backwards from
the goals), with the player normalised to its reachable region, and turn the pushes found
into the full LURD string at the end. docs/sokoban-solver.md describes the fast one.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Generator
from dataclasses import replace
from functools import cached_property
from itertools import count
from typing import TYPE_CHECKING

from webapp.games.base import Algorithm
from webapp.games.sokoban.board import FAR, Board, cells_of, lowest_cell
from webapp.games.sokoban.bound import LowerBound
from webapp.games.sokoban.compiled import (
    MEMORY_SHARE,
    CompiledSearch,
    Outcome,
    Pause,
    SearchConfig,
)
from webapp.games.sokoban.fess import Fess
from webapp.games.sokoban.level import Level
from webapp.games.sokoban.macros import Move, _pack, _pushes
from webapp.games.sokoban.optimize import optimize
from webapp.games.sokoban.portfolio import (
    BACKWARDS,
    H_WEIGHT,
    Kind,
    Member,
    Portfolio,
    Setting,
    Tuning,
    closest_note,
)
from webapp.games.sokoban.portfolio import sampler as _sampler
from webapp.games.sokoban.portfolio import stride as _stride
from webapp.games.sokoban.position import Position, walk
from webapp.games.sokoban.rooms import SMALLEST_ROOM, GoalRoom, goal_rooms
from webapp.games.sokoban.shorten import shorten
from webapp.search import Monitor, Result, Stop, Tracer, run_search

if TYPE_CHECKING:
    from webapp.games.sokoban.packing import Packing  # numba: loaded when the plan search runs

__all__ = [
    "ALGORITHMS",
    "BACKWARDS",
    "FESS",
    "H_WEIGHT",
    "Kind",
    "LowerBound",
    "MEMBERS",
    "Setting",
    "Tuning",
    "closest_note",
    "lurd",
    "run_fast",
]

#: Bits for the normalised player cell in a state key (levels are at most 64 x 64).
PLAYER_BITS = 12

#: A state's parent link: (parent key, push) where push packs (box cell, direction index),
#: or a tuple of such pushes for a macro move.
Parents = dict[int, tuple[int, int | tuple[int, ...]] | None]


def _push_path(parents: Parents, key: int) -> list[int]:
    pushes: list[int] = []
    link = parents[key]
    while link is not None:
        key, push = link
        if isinstance(push, tuple):
            pushes.extend(reversed(push))
        else:
            pushes.append(push)
        link = parents[key]
    return pushes[::-1]


def lurd(board: Board, position: Position, pushes: list[int]) -> list[str]:
    """The full move tokens for a list of packed pushes: the walk to each, then the push."""
    tokens: list[str] = []
    player, boxes = position.player, set(position.boxes)
    for push in pushes:
        box, direction = push >> 2, push & 3
        letter, offset = board.directions[direction]
        steps = walk(board.level, Position(player, frozenset(boxes)), box - offset)
        if steps is None:  # cannot happen for a push the search generated
            raise RuntimeError(f"no walk to the push at cell {box}")
        tokens.extend(steps)
        tokens.append(letter.upper())
        boxes.remove(box)
        boxes.add(box + offset)
        player = box
    return tokens


def _solved(
    monitor: Monitor, board: Board, position: Position, pushes: list[int], optimal: bool
) -> Result:
    moves = lurd(board, position, pushes)
    return monitor.result(
        "solved", moves=moves, optimal=optimal, extra={"pushes": len(pushes), "moves": len(moves)}
    )


def _start(board: Board, position: Position) -> tuple[int, int, int]:
    boxes = board.boxes_of(position)
    region = board.reach(position.player, boxes)
    return boxes, region, boxes << PLAYER_BITS | lowest_cell(region)


#: The rules of pushes the searches never make.
DEAD_SQUARE = "a box pushed onto a dead square: no goal can be reached from it"
FROZEN = "a freeze: walls and boxes hold boxes where they can never move, one off a goal"


def _told(
    tracer: Tracer,
    board: Board,
    expansion: tuple[int, int, int],
    figures: tuple[int, int, int, int],
) -> Position:
    """Tell ``tracer`` of an expansion (player, boxes, region) with its g, h, f and the
    positions waiting, and of the pushes the search leaves out there (onto dead squares)."""
    player, boxes, region = expansion
    position = board.position(player, boxes)
    tracer.expand(position, *figures)
    dead = board.dead & ~boxes
    for direction, (_, offset) in enumerate(board.directions):
        if offset > 0:
            movable = boxes & (region << offset) & (dead >> offset)
        else:
            movable = boxes & (region >> -offset) & (dead << -offset)
        for box in cells_of(movable):
            child = boxes ^ (1 << box) ^ (1 << (box + offset))
            _tell_push(tracer, board, position, box, direction, child, "dead", DEAD_SQUARE)
    return position


def _tell_push(
    tracer: Tracer,
    board: Board,
    position: Position,
    box: int,
    direction: int,
    child: int,
    verdict: str,
    rule: str = "",
) -> None:
    """Tell ``tracer`` of one push from ``position``: the walk to it and the push itself."""
    move = lurd(board, position, [_pack(box, direction)])
    tracer.child(move, board.position(box, child), verdict, rule)


# -- breadth-first ----------------------------------------------------------------------------
def run_bfs(level: Level, position: Position, monitor: Monitor) -> Result:
    """Breadth-first by pushes over box configurations; pushes onto dead squares pruned."""
    board = Board(level)

    def search(monitor: Monitor) -> Result:
        boxes, region, key = _start(board, position)
        if boxes == board.goal_mask:
            return _solved(monitor, board, position, [], True)
        if boxes & board.dead:
            return monitor.result("unsolvable")
        parents: Parents = {key: None}
        layer = [(boxes, region, key, position.player)]
        expanded, generated, depth = 0, 1, 0
        stride = _stride(monitor)
        goal = board.goal_mask
        reach = board.reach
        tracer = monitor.tracer
        shown = position
        heat = monitor.heat_map(level.height, level.width)
        while layer:
            depth += 1
            following = []
            first = expanded
            for boxes, region, key, player in layer:
                expanded += 1
                if heat is not None:
                    heat.add(cells_of(boxes))
                if expanded % stride == 0:
                    monitor.tick(
                        expanded,
                        generated,
                        len(layer) + len(following),
                        depth,
                        _sampler(board, player, boxes),
                    )
                if tracer is not None:
                    waiting = len(layer) - (expanded - first) + len(following)
                    figures = (depth - 1, 0, depth - 1, waiting)
                    shown = _told(tracer, board, (player, boxes, region), figures)
                for box, offset, direction in board.pushes(boxes, region):
                    child = boxes ^ (1 << box) ^ (1 << (box + offset))
                    child_region = reach(box, child)
                    child_key = child << PLAYER_BITS | lowest_cell(child_region)
                    if child_key in parents:
                        if tracer is not None:
                            _tell_push(tracer, board, shown, box, direction, child, "seen")
                        continue
                    generated += 1
                    parents[child_key] = (key, _pack(box, direction))
                    if tracer is not None:
                        _tell_push(tracer, board, shown, box, direction, child, "new")
                    if child == goal:
                        monitor.tick(expanded, generated, 0, depth, force=True)
                        return _solved(
                            monitor, board, position, _push_path(parents, child_key), True
                        )
                    following.append((child, child_region, child_key, box))
            layer = following
        monitor.tick(expanded, generated, 0, depth, force=True)
        return monitor.result("unsolvable")

    return run_search(search, monitor)


# -- A* ---------------------------------------------------------------------------------------
def run_astar(level: Level, position: Position, monitor: Monitor) -> Result:
    """A* by pushes; h is the sum of each box's push distance to its nearest goal."""
    board = Board(level)

    def search(monitor: Monitor) -> Result:
        boxes, region, key = _start(board, position)
        if boxes & board.dead:
            return monitor.result("unsolvable")
        nearest = board.nearest
        h = sum(nearest[cell] for cell in cells_of(boxes))
        parents: Parents = {key: None}
        best_g = {key: 0}
        tie = count()
        queue = [(h, 0, next(tie), boxes, region, key, position.player, h)]
        expanded = generated = 0
        stride = _stride(monitor)
        goal = board.goal_mask
        reach = board.reach
        tracer = monitor.tracer
        shown = position
        heat = monitor.heat_map(level.height, level.width)
        while queue:
            f, minus_g, _, boxes, region, key, player, h = heapq.heappop(queue)
            g = -minus_g
            if g > best_g[key]:
                continue
            if boxes == goal:
                monitor.tick(expanded, generated, len(queue), g, force=True)
                return _solved(monitor, board, position, _push_path(parents, key), True)
            expanded += 1
            if heat is not None:
                heat.add(cells_of(boxes))
            if monitor.closest_h is None or h < monitor.closest_h:
                # Where a player may take over if the search stops short, and the moves there.
                monitor.closer(
                    h,
                    _sampler(board, player, boxes),
                    lambda key=key: lurd(board, position, _push_path(parents, key)),
                )
            if expanded % stride == 0:
                monitor.tick(expanded, generated, len(queue), f, _sampler(board, player, boxes))
            if tracer is not None:
                figures = (g, h, f, len(queue))
                shown = _told(tracer, board, (player, boxes, region), figures)
            child_g = g + 1
            for box, offset, direction in board.pushes(boxes, region):
                target = box + offset
                child = boxes ^ (1 << box) ^ (1 << target)
                child_region = reach(box, child)
                child_key = child << PLAYER_BITS | lowest_cell(child_region)
                known = best_g.get(child_key)
                if known is not None and known <= child_g:
                    if tracer is not None:
                        _tell_push(tracer, board, shown, box, direction, child, "seen")
                    continue
                if tracer is not None:
                    _tell_push(tracer, board, shown, box, direction, child, "new")
                best_g[child_key] = child_g
                parents[child_key] = (key, _pack(box, direction))
                generated += 1
                child_h = h - nearest[box] + nearest[target]
                heapq.heappush(
                    queue,
                    (
                        child_g + child_h,
                        -child_g,
                        next(tie),
                        child,
                        child_region,
                        child_key,
                        box,
                        child_h,
                    ),
                )
        monitor.tick(expanded, generated, 0, 0, force=True)
        return monitor.result("unsolvable")

    return run_search(search, monitor)


# -- fast -------------------------------------------------------------------------------------
#: Backwards, how much later a position whose player cannot get back to the start's region
#: goes in the order, as a ``Tuning.penalty``: Microban II 76 backwards alone in 48
#: expansions instead of 12,469, XSokoban 81 solved; but XSokoban 9 and 49 were lost, so the
#: portfolios leave it out (the aimed search uses the same test only to pick its target).
PLAYER_SHUT_OUT = 3
BACKWARD = Setting(Kind.BACKWARD, Tuning(novelty=True))
#: The fast solver's forward search: compiled, by g + 10 h, novel children first.
FORWARD = Setting(Kind.FORWARD, Tuning(novelty=True))

#: The fast solver's third member: once the backward search has come near the start, a
#: forward search towards the nearest position it has found, where the two meet
#: (Kind.AIMED). Forwards the goals can be too far for the bound to tell positions apart
#: (XSokoban 11 and 21), while the backward search's nearest position is a few pushes away.
#: It alone tests corrals (``deadlocks``): on the forward searches that cost XSokoban 55,
#: whose room search then took another order.
AIMED = Setting(Kind.AIMED, Tuning(novelty=True, deadlocks=1))

#: The fast solver's fourth member: the plan search (plan.py), forwards, greedy on filling
#: the goals in the packing order. It solves in milliseconds or not at all, so it takes the
#: first turn and PLAN_SHARE of the memory; when its arrays are full it leaves the turns to
#: the others.
PLANNED = Setting(Kind.PLAN, Tuning(deadlocks=2))
PLAN_SHARE = 0.1
#: The plan search's turns for the others' one when its packing order parks boxes.
PARKED_TURNS = 3
#: Expansions the plan search makes before it starts again with another order, times
#: ``luby(run)`` (``Planned``).
RESTART = 45_000
#: A short run (``luby(run) == 1``) after the first ends sooner when it has made this many
#: expansions without a position filling more goals in order than any before it: it is not
#: the lucky order. The first run (the board's own order) and the long runs keep their
#: whole allowance, as many levels are solved only after such a wait (XSokoban 62 and 67 in
#: a long run; Microban II 104, 111 and 130 in the first, 36 k, 29 k and 29 k in).
STALL = 5_000


def plan_run(
    board: Board,
    position: Position,
    memory_mb: int | None,
    phases: list[list[int]],
    seed: int = 0,
    deadlocks: int = PLANNED.tuning.deadlocks,
    scratch: tuple | None = None,
    stall: int | None = None,
    release: dict[int, int] | None = None,
) -> CompiledSearch:
    """One run of the plan search as run_fast starts it: PLAN_SHARE of the memory, the
    order ``seed``, the corral verdicts of ``scratch`` (an earlier run's) when given, and
    STALL for a short run in Luby's sequence after the first (``stall`` overrides it; 0
    never stalls)."""
    if stall is None:
        stall = STALL if stalls(seed) else 0
    config = SearchConfig(
        1,
        memory_mb,
        share=MEMORY_SHARE * PLAN_SHARE,
        deadlocks=deadlocks,
        phases=phases,
        release=release,
        seed=seed,
        scratch=scratch,
        stall=stall,
    )
    return CompiledSearch(board, position, config)


def stalls(run: int) -> bool:
    """Whether run_fast's plan search run ``run`` ends where it stalls (STALL): a short one
    of Luby's sequence, but not the first."""
    return run > 0 and luby(run) == 1


def luby(run: int) -> int:
    """Luby's restart sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ... (``run`` from 0):
    when nothing says how long a run needs, runs of these lengths waste at most a log factor
    against the best fixed length, and every length is tried again and again. The plan search
    solves some levels only in a short run of the right order (XSokoban 40: seed 9 in 21 k
    expansions) and others only in a long one (62: seed 2 in 80 k; no other seed up to 9
    within 100 k)."""
    term = run + 1
    while True:
        bits = term.bit_length()
        if term == (1 << bits) - 1:
            return 1 << (bits - 1)
        term -= (1 << (bits - 1)) - 1


#: The fast solver's fifth member: forwards, nearer A* (weight 3), and each free square the
#: player cannot reach counts one more in the priority (Tuning.mobility).
MOBILE = Setting(Kind.OPEN_FLOOR, Tuning(3, novelty=True, mobility=1))
MOBILE_SHARE = 0.1


#: The fast solver's portfolio, run in turns: the forward search is stuck where goals must be
#: filled in a certain order, the backward one where boxes must leave their starts in one, so
#: taking turns solves more levels than either alone (Microban 93, 139 and 146 among them).
PORTFOLIO = (
    PLANNED,
    FORWARD,
    BACKWARD,
    AIMED,
    MOBILE,
)

#: The portfolio where a box on a room goal can shut other goals off (rooms.py): the forward
#: search nearly A* (weight 1), such boxes put back in its order (``penalty``), and three
#: turns to the backward search's one. On Microban 153 the plain portfolio parks a box at the
#: foot of the goal column early and then searches millions of positions behind it.
ROOM_PORTFOLIO = (
    PLANNED,
    Setting(Kind.FORWARD, Tuning(1, novelty=True, penalty=40, turns=3)),
    BACKWARD,
    AIMED,
    MOBILE,
)

#: How near (in pulls, by its bound) the backward search must come before an aimed search
#: sets off towards it, and the share of the compiled searches' memory the aimed one takes.
AIM_PULLS = 10
AIM_SHARE = 0.2


def portfolio(rooms: list[GoalRoom]) -> tuple[Setting, ...]:
    """The settings ``run_fast`` uses by default, given the level's goal rooms:
    ROOM_PORTFOLIO when a box on one room goal can shut others off, else PORTFOLIO."""
    return ROOM_PORTFOLIO if any(room.shuts for room in rooms) else PORTFOLIO


#: Shortening a solution found (shorten.py, then optimize.py in pushes) takes at most this
#: share of the time the solve took, or SHORTEN_LEAST seconds if more, and stops
#: SHORTEN_MARGIN seconds before the limit (the moves are still to be made from the pushes
#: then).
SHORTEN_SHARE = 0.25
SHORTEN_LEAST = 0.5
SHORTEN_MARGIN = 0.25
#: The optimizer's part of that time: at most this share of the time the solve took, so
#: a quick solve is not held up by it (0: not at all).
OPTIMIZE_SHARE = 0.25


def _no_corrals(boxes: int, region: int) -> None:
    return None


def _weighted(
    board: Board,
    bound: LowerBound,
    roots: list[tuple[int, int, int, int]],
    weight: float,
    stride: int,
    parents: Parents,
    moves: Callable[[int, int], list[Move]],
    ends: Callable[[int, int], list[int] | None],
    frozen: Callable[[int, int], bool],
    taken: Callable[[int], None] | None = None,
) -> Generator[Pause, None, Outcome]:
    """The loop of ``_best_first`` and ``_best_first_reverse``: weighted best-first (priority
    g + weight * h, ties by h, then first come) from ``roots`` (boxes, region, key, player),
    pausing every ``stride`` expansions, over ``moves``; a child for which ``ends`` gives
    pushes ends the search with them, one ``frozen`` is dropped; ``taken`` is told the boxes
    of each position taken (the heat map)."""
    tie = count()
    queue = []
    for boxes, region, key, player in roots:
        h = bound(boxes)
        queue.append((weight * h, h, next(tie), 0, boxes, region, key, player))
    heapq.heapify(queue)
    expanded = generated = 0
    reach = board.reach
    while queue:
        if expanded % stride == 0:
            _, _, _, g, boxes, _, _, player = queue[0]
            yield expanded, generated, len(queue), g, player, boxes
        priority, _h, _, g, boxes, region, key, player = heapq.heappop(queue)
        expanded += 1
        if taken is not None:  # the boxes of the position taken, for the heat map
            taken(boxes)
        bound.expand(boxes)
        for box, target, push, walker, cost in moves(boxes, region):
            child_g = g + cost
            child = boxes ^ (1 << box) ^ (1 << target)
            child_region = reach(walker, child)
            child_key = child << PLAYER_BITS | lowest_cell(child_region)
            if child_key in parents:
                continue
            parents[child_key] = (key, push)
            generated += 1
            pushes = ends(child, child_key)
            if pushes is not None:
                return pushes, expanded, generated
            if frozen(child, target):
                continue
            child_h = bound.child(child, box, target)
            if child_h >= FAR:
                continue
            state = (child_g, child, child_region, child_key, walker)
            heapq.heappush(queue, (child_g + weight * child_h, child_h, next(tie), *state))
    return None, expanded, generated


def _best_first(
    board: Board,
    bound: LowerBound,
    position: Position,
    tuning: Tuning,
    stride: int,
    rooms: list[GoalRoom] | None = None,
    parents: Parents | None = None,
    meet: Parents | None = None,
    taken: Callable[[int], None] | None = None,
) -> Generator[Pause, None, Outcome]:
    """Weighted best-first by pushes, pausing every ``stride`` expansions; ends with the
    pushes of a solution, or None when the whole space is exhausted.

    ``parents`` (filled here) and ``meet`` (a backward search's) let the two searches see
    each other's positions: reaching one the other has seen joins their paths."""
    if not tuning.macros:
        rooms = []
    elif rooms is None:
        rooms = goal_rooms(board, sorted(position.boxes), tuning.smallest_room)
    boxes, region, key = _start(board, position)
    parents = {} if parents is None else parents
    parents[key] = None
    meet = {} if meet is None else meet
    goal = board.goal_mask
    corral = board.corral_pushes if tuning.corrals else _no_corrals
    tunnels = board.tunnels() if tuning.macros else (0, 0, 0, 0)

    def moves(boxes: int, region: int) -> list[Move]:
        return _pushes(board, rooms, corral, tunnels, boxes, region)

    def ends(child: int, child_key: int) -> list[int] | None:
        if child == goal:
            return _push_path(parents, child_key)
        if child_key in meet:
            return _push_path(parents, child_key) + _push_path(meet, child_key)[::-1]
        return None

    roots = [(boxes, region, key, position.player)]
    frozen = board.freeze_deadlock
    return (
        yield from _weighted(
            board, bound, roots, tuning.weight, stride, parents, moves, ends, frozen, taken
        )
    )


def _meet_path(meet: Parents | CompiledSearch, key: int) -> list[int]:
    """The pushes from the start to ``key`` in a forward search's parent links."""
    if isinstance(meet, CompiledSearch):
        return meet.pushes_to(key)
    return _push_path(meet, key)


def _never_frozen(boxes: int, target: int) -> bool:
    return False


def _best_first_reverse(
    board: Board,
    position: Position,
    tuning: Tuning,
    stride: int,
    parents: Parents | None = None,
    meet: Parents | CompiledSearch | None = None,
    taken: Callable[[int], None] | None = None,
) -> Generator[Pause, None, Outcome]:
    """Weighted best-first by pulls from the solved boxes back to the start, pausing every
    ``stride`` expansions; ends with the forward pushes, or None when the space ran out.
    ``parents`` and ``meet`` join it with a forward search as in ``_best_first``.

    Filling a room of goals in the right order is a search forwards but comes for free
    backwards, where boxes leave the room from the door inwards.
    """
    start_boxes, _region, start_key = _start(board, position)
    starts = sorted(cells_of(start_boxes))
    bound = LowerBound(board, distances=board.distances_from(starts))
    goal = board.goal_mask
    parents = {} if parents is None else parents
    meet = {} if meet is None else meet
    if bound(goal) >= FAR:
        return None, 0, 0
    # The player may finish anywhere: each region left free around the filled goals is a
    # start of the backward search.
    roots = []
    free = board.floor & ~goal
    while free:
        region = board.reach(lowest_cell(free), goal)
        free &= ~region
        key = goal << PLAYER_BITS | lowest_cell(region)
        if key == start_key:
            return [], 0, 0
        parents[key] = None
        roots.append((goal, region, key, lowest_cell(region)))

    def moves(boxes: int, region: int) -> list[Move]:
        return [
            (box, box - offset, _pack(box - offset, direction), box - 2 * offset, 1)
            for box, offset, direction in board.pulls(boxes, region)
        ]

    def ends(child: int, child_key: int) -> list[int] | None:
        if child_key == start_key:
            return _push_path(parents, child_key)[::-1]
        if child_key in meet:
            return _meet_path(meet, child_key) + _push_path(parents, child_key)[::-1]
        return None

    return (
        yield from _weighted(
            board,
            bound,
            roots,
            tuning.weight,
            stride,
            parents,
            moves,
            ends,
            _never_frozen,
            taken,
        )  # fmt: skip
    )


def run_fast(
    level: Level,
    position: Position,
    monitor: Monitor,
    settings: tuple[Setting, ...] | None = None,
) -> Result:
    """Best-first searches with different settings taking turns until one solves the level;
    they meet where one reaches a position the other has seen. A matching bound, PI-corral
    pruning, freeze deadlocks and dead squares; by default the searches run compiled
    (compiled.py), and CPython settings may add goal-room and tunnel macros."""
    fast = Portfolio(Board(level), position, MEMBERS, _polish)
    fast.settings = portfolio(fast.rooms(SMALLEST_ROOM)) if settings is None else settings
    try:
        result = run_search(fast.solve, monitor)
        if not result.solved:
            fast.report(result)
    finally:
        fast.close()
    return result


def _polish(fast: Portfolio, pushes: list[int]) -> Result:
    """The solution a member found, shortened (shorten.py) and optimized in pushes
    (optimize.py) within their shares of the time, then turned into moves."""
    monitor = fast.monitor
    deadline = time.monotonic() + max(SHORTEN_LEAST, SHORTEN_SHARE * monitor.elapsed)
    if monitor.limits.seconds is not None:
        deadline = min(deadline, monitor.started + monitor.limits.seconds - SHORTEN_MARGIN)
    pushes = shorten(fast.board, fast.position, pushes, deadline)
    if OPTIMIZE_SHARE:
        until = min(deadline, time.monotonic() + OPTIMIZE_SHARE * monitor.elapsed)
        pushes = optimize(fast.board, fast.position, pushes, "pushes", until)
    return _solved(monitor, fast.board, fast.position, pushes, False)


class BestFirst(Member):
    """A compiled weighted best-first search (kernels.search)."""

    leads = carries_on = True

    @classmethod
    def share(cls) -> float | None:
        return None

    @cached_property
    def compiled(self) -> CompiledSearch:  # type: ignore[override]
        portfolio, setting = self.portfolio, self.setting
        tuning = setting.tuning
        share = MEMORY_SHARE * self.share() if self.share() is not None else portfolio.share
        rooms = portfolio.rooms(tuning.smallest_room) if tuning.penalty and self.forwards else None
        config = SearchConfig(
            int(tuning.weight), portfolio.monitor.limits.memory_mb,
            corrals=tuning.corrals, reverse=not self.forwards, share=share,
            novelty=tuning.novelty, rooms=rooms, penalty=tuning.penalty,
            deadlocks=tuning.deadlocks, mobility=tuning.mobility,
        )  # fmt: skip
        return CompiledSearch(portfolio.board, portfolio.position, config).counting(
            portfolio.monitor
        )

    @property
    def meets(self) -> bool:  # type: ignore[override]
        portfolio = self.portfolio
        return self is portfolio.forward or self is portfolio.backward

    @property
    def table(self) -> CompiledSearch:  # type: ignore[override]
        return self.compiled

    def run(self) -> Generator[Pause, None, Outcome]:
        self.portfolio.link(self, self.compiled)
        return self.compiled.search(self.portfolio.monitor.limits.nodes)

    def report(self, result: Result) -> None:
        if self.compiled.closest < FAR:
            way = "forwards" if self.forwards else "backwards"
            result.extra.setdefault(f"closest {way}", self.compiled.closest)

    def closest(self) -> tuple[int, int, int] | None:
        search = self.compiled
        if not self.forwards or search.closest >= FAR:
            return None
        return (search.closest, *search.nearest_position)

    def closest_pushes(self) -> list[int] | None:
        search = self.compiled
        if not self.forwards or search.closest >= FAR:
            return None
        return search.nearest_pushes()


class Forward(BestFirst):
    """Forwards by pushes from the start (Kind.FORWARD)."""


class Backward(BestFirst):
    """Backwards by pulls from the goals (Kind.BACKWARD)."""

    forwards = False


class OpenFloor(BestFirst):
    """Forwards by the open floor (Kind.OPEN_FLOOR): a share of its own, and it looks its
    children up in the backward search's table too."""

    leads = False

    @classmethod
    def share(cls) -> float | None:
        return MOBILE_SHARE

    @property
    def meets(self) -> bool:  # type: ignore[override]
        return True


class Planned(Member):
    """The plan search (plan.py) in runs: a run that has made RESTART * luby(run)
    expansions, filled its arrays or (a short one after the first) stalled (STALL) without a
    solution makes way for a new one that takes the pushes of the boxes not pushed last in
    an order of its own: a greedy search that went wrong early seldom comes back, and
    another order often does not go wrong there."""

    meets = carries_on = True

    def __init__(self, portfolio: Portfolio, setting: Setting) -> None:
        super().__init__(portfolio, setting)
        self.compiled: CompiledSearch | None = None

    @classmethod
    def share(cls) -> float | None:
        return PLAN_SHARE

    def run(self) -> Generator[Pause, None, Outcome]:
        from webapp.games.sokoban.packing import packing  # numba, as compiled.py

        board, position = self.portfolio.board, self.portfolio.position
        plain, parked = packing(board, position, parking=False), packing(board, position)
        if parked.phases == plain.phases:
            return self._runs([plain])
        # Goals only a parked box gets into: the other searches seldom fill them.
        tuning = self.setting.tuning
        turns = PARKED_TURNS
        self.setting = replace(self.setting, tuning=replace(tuning, turns=turns))
        return self._runs([parked, plain])

    def _start(self, order: Packing, seed: int, stall: int) -> CompiledSearch:
        # A restart keeps the corral verdicts its runs have found so far.
        portfolio, before = self.portfolio, self.compiled
        planned = self.compiled = plan_run(
            portfolio.board, portfolio.position, portfolio.monitor.limits.memory_mb,
            order.phases, seed, self.setting.tuning.deadlocks,
            before.scratch if before is not None else None, stall, order.release,
        ).counting(portfolio.monitor)  # fmt: skip
        portfolio.link(self, planned)
        return planned

    def _runs(self, orders: list[Packing]) -> Generator[Pause, None, Outcome]:
        """Runs in Luby's sequence; with two orders (with parking, then without), the runs
        take them in turns, each order's runs taking the seeds 0, 1, 2, ..., and the first
        run of each keeping its whole allowance."""
        before = (0, 0)
        # The most targets any run of each order has filled in it.
        filled = [0] * len(orders)
        for number in count():
            allowance = RESTART * luby(number)
            order, seed = orders[number % len(orders)], number // len(orders)
            stall = STALL if stalls(number) and number >= len(orders) else 0
            planned = self._start(order, seed, stall)
            planned.run_number = number
            planned.filled_before = filled[number % len(orders)]
            run = planned.search(allowance)  # slices end there: the same run any day
            while True:
                try:
                    pause = next(run)
                except StopIteration as finished:
                    pushes, expanded, generated = finished.value
                    return pushes, before[0] + expanded, before[1] + generated
                except Stop:
                    break
                yield (before[0] + pause[0], before[1] + pause[1], *pause[2:])
                if planned.full or planned.stalled or pause[0] >= allowance:
                    break
            filled[number % len(orders)] = planned.filled
            done = planned.pause()
            before = (before[0] + done[0], before[1] + done[1])
        raise AssertionError("unreachable")

    def report(self, result: Result) -> None:
        if self.compiled is not None and self.compiled.closest < FAR:
            result.extra["plan filled"] = f"{self.compiled.filled}/{self.compiled.targets}"
            result.extra["plan runs"] = self.compiled.run_number + 1


class Aimed(Member):
    """The aimed search (Kind.AIMED): idle until the backward search comes near, then
    forwards towards the nearest position it has found, meeting it there; it starts again
    whenever the backward search comes nearer."""

    meets = True

    def __init__(self, portfolio: Portfolio, setting: Setting) -> None:
        super().__init__(portfolio, setting)
        self.compiled: CompiledSearch | None = None

    @classmethod
    def share(cls) -> float | None:
        return AIM_SHARE

    def _towards(self, target: int) -> CompiledSearch:
        portfolio, tuning = self.portfolio, self.setting.tuning
        config = SearchConfig(
            int(tuning.weight),
            portfolio.monitor.limits.memory_mb,
            corrals=tuning.corrals,
            share=MEMORY_SHARE * AIM_SHARE,
            novelty=tuning.novelty,
            deadlocks=tuning.deadlocks,
            towards=target,
        )
        aimed = CompiledSearch(portfolio.board, portfolio.position, config)
        self.compiled = aimed.counting(portfolio.monitor)
        portfolio.link(self, aimed)
        return aimed

    def run(self) -> Generator[Pause, None, Outcome]:
        portfolio = self.portfolio
        backward = portfolio.meeting(self)
        expanded = generated = 0
        aimed_at = AIM_PULLS + 1
        run: Generator[Pause, None, Outcome] | None = None
        position = portfolio.position
        last: Pause = (0, 0, 0, 0, position.player, portfolio.board.boxes_of(position))
        while True:
            if isinstance(backward, CompiledSearch) and backward.closest < aimed_at:
                aimed_at = backward.closest
                expanded, generated = last[0], last[1]
                run = self._towards(backward.nearest).search(portfolio.monitor.limits.nodes)
            if run is not None:
                try:
                    pause = next(run)
                    last = (expanded + pause[0], generated + pause[1], *pause[2:])
                except StopIteration as finished:
                    # A solution, or the whole space run dry: its bound orders, it never
                    # cuts, so that is a proof as for the forward search.
                    pushes, done, made = finished.value
                    return pushes, expanded + done, generated + made
                except Stop:
                    run = None  # its arrays are full: wait for a nearer target
            yield last

    def closest(self) -> tuple[int, int, int] | None:
        search = self.compiled
        if search is None or search.closest >= FAR:
            return None
        return (search.closest, *search.nearest_position)

    def closest_pushes(self) -> list[int] | None:
        search = self.compiled
        if search is None or search.closest >= FAR:
            return None
        return search.nearest_pushes()


class PythonForward(Member):
    """The CPython forward search (``_best_first``), with macros when tuned so."""

    leads = meets = True

    def __init__(self, portfolio: Portfolio, setting: Setting) -> None:
        super().__init__(portfolio, setting)
        self.table: Parents = {}

    def run(self) -> Generator[Pause, None, Outcome]:
        portfolio = self.portfolio
        self.table.clear()
        # (A CPython forward search meets only a CPython backward one.)
        meet = portfolio.meeting(self)
        tuning = self.setting.tuning
        return _best_first(
            portfolio.board, portfolio.bound, portfolio.position, tuning, portfolio.stride,
            portfolio.rooms(tuning.smallest_room), self.table,
            meet if isinstance(meet, dict) else {}, portfolio.boxes_taken(),
        )  # fmt: skip

    def again(self) -> bool:
        # Macros may have cut every solution away: go on without them.
        tuning, portfolio = self.setting.tuning, self.portfolio
        rooms = portfolio.rooms(tuning.smallest_room)
        if not (tuning.macros and (rooms or any(portfolio.board.tunnels()))):
            return False
        self.setting = replace(self.setting, tuning=replace(tuning, macros=False))
        return True


class PythonBackward(Member):
    """The CPython backward search (``_best_first_reverse``)."""

    forwards = False
    leads = meets = True

    def __init__(self, portfolio: Portfolio, setting: Setting) -> None:
        super().__init__(portfolio, setting)
        self.table: Parents = {}

    def run(self) -> Generator[Pause, None, Outcome]:
        portfolio = self.portfolio
        self.table.clear()
        meet = portfolio.meeting(self)
        return _best_first_reverse(
            portfolio.board, portfolio.position, self.setting.tuning, portfolio.stride,
            self.table, meet, portfolio.boxes_taken(),
        )  # fmt: skip


#: The member class that runs each kind of search (``Setting.kind``): one line each.
MEMBERS: dict[Kind | str, type[Member]] = {
    Kind.FORWARD: Forward,
    Kind.BACKWARD: Backward,
    Kind.OPEN_FLOOR: OpenFloor,
    Kind.PLAN: Planned,
    Kind.AIMED: Aimed,
    Kind.CPYTHON_FORWARD: PythonForward,
    Kind.CPYTHON_BACKWARD: PythonBackward,
    "fess": Fess,
}

#: FESS as a setting of the portfolio (``MEMBERS["fess"]``, fess.py).
FESS = Setting("fess")


# -- move-optimal -----------------------------------------------------------------------------
def run_moves(level: Level, position: Position, monitor: Monitor) -> Result:
    """A* over positions after each push, costing the walk plus the push; move-optimal."""
    board = Board(level)

    def search(monitor: Monitor) -> Result:
        boxes = board.boxes_of(position)
        if boxes == board.goal_mask:
            return _solved(monitor, board, position, [], True)
        if boxes & board.dead:
            return monitor.result("unsolvable")
        nearest = board.nearest
        h = sum(nearest[cell] for cell in cells_of(boxes))
        key = boxes << PLAYER_BITS | position.player
        parents: Parents = {key: None}
        best_g = {key: 0}
        tie = count()
        queue = [(h, 0, next(tie), boxes, position.player, h)]
        expanded = generated = 0
        stride = _stride(monitor)
        goal = board.goal_mask
        floor = board.floor
        width = board.width
        freeze = board.freeze_deadlock
        directions = board.directions
        live = board.live
        tracer = monitor.tracer
        shown = position
        heat = monitor.heat_map(level.height, level.width)
        while queue:
            f, minus_g, _, boxes, player, h = heapq.heappop(queue)
            g = -minus_g
            key = boxes << PLAYER_BITS | player
            if g > best_g[key]:
                continue
            if boxes == goal:
                monitor.tick(expanded, generated, len(queue), g, force=True)
                return _solved(monitor, board, position, _push_path(parents, key), True)
            expanded += 1
            if heat is not None:
                heat.add(cells_of(boxes))
            if monitor.closest_h is None or h < monitor.closest_h:
                monitor.closer(
                    h,
                    _sampler(board, player, boxes),
                    lambda key=key: lurd(board, position, _push_path(parents, key)),
                )
            if expanded % stride == 0:
                monitor.tick(expanded, generated, len(queue), f, _sampler(board, player, boxes))
            if tracer is not None:
                region = board.reach(player, boxes)
                shown = _told(tracer, board, (player, boxes, region), (g, h, f, len(queue)))
            # Walk outwards ring by ring: a push from a square in ring k costs k + 1 moves.
            free = floor & ~boxes
            open_ = live & ~boxes
            seen = ring = 1 << player
            steps = 0
            while ring:
                for direction, (_, offset) in enumerate(directions):
                    if offset > 0:
                        movable = boxes & (ring << offset) & (open_ >> offset)
                    else:
                        movable = boxes & (ring >> -offset) & (open_ << -offset)
                    while movable:
                        low = movable & -movable
                        movable ^= low
                        box = low.bit_length() - 1
                        target = box + offset
                        child = boxes ^ low ^ (1 << target)
                        child_g = g + steps + 1
                        child_key = child << PLAYER_BITS | box
                        known = best_g.get(child_key)
                        if known is not None and known <= child_g:
                            if tracer is not None:
                                _tell_push(tracer, board, shown, box, direction, child, "seen")
                            continue
                        if freeze(child, target):
                            if tracer is not None:
                                _tell_push(
                                    tracer, board, shown, box, direction, child, "dead", FROZEN
                                )
                            continue
                        if tracer is not None:
                            _tell_push(tracer, board, shown, box, direction, child, "new")
                        best_g[child_key] = child_g
                        parents[child_key] = (key, _pack(box, direction))
                        generated += 1
                        child_h = h - nearest[box] + nearest[target]
                        heapq.heappush(
                            queue,
                            (child_g + child_h, -child_g, next(tie), child, box, child_h),
                        )
                grown = (ring << 1 | ring >> 1 | ring << width | ring >> width) & free
                ring = grown & ~seen
                seen |= ring
                steps += 1
        monitor.tick(expanded, generated, 0, 0, force=True)
        return monitor.result("unsolvable")

    return run_search(search, monitor)


ALGORITHMS: dict[str, Algorithm] = {
    "bfs": Algorithm(
        "bfs",
        "Breadth-first over box configurations, pushes onto dead squares pruned; fewest pushes.",
        "pushes",
        True,
        run_bfs,
        steps=True,
        label="breadth-first (fewest pushes, proved)",
    ),
    "astar": Algorithm(
        "astar",
        "A* by pushes, h = each box's push distance to its nearest goal; fewest pushes.",
        "pushes",
        True,
        run_astar,
        steps=True,
        label="A* with the distance to the nearest goal (fewest pushes, proved)",
    ),
    "fast": Algorithm(
        "fast",
        "Weighted best-first by pushes forwards and by pulls backwards from the goals, "
        "compiled, in turns, meeting in the middle, with a box-goal matching bound, PI-corral "
        "pruning, freeze deadlocks and dead squares; built for speed, not "
        "optimal.",
        "pushes",
        False,
        run_fast,
        label="from both ends at once, with the box–goal matching bound (quick, not the fewest)",
    ),
    "moves": Algorithm(
        "moves",
        "A* where every step costs one, for small levels; fewest moves.",
        "moves",
        True,
        run_moves,
        label="A* counting every step (fewest moves, proved)",
        steps=True,
    ),
}
