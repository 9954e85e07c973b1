"""A solution made shorter in moves or in pushes: windows of it searched again in a vicinity.

Any solution will do: the player's, the solver's, a replay link's. It is read as its pushes
(the walks between them are what a shortest walk makes of them), and windows of WINDOW pushes
along it are searched again by A*, from the position before the window to the position after
it: the same boxes, the player able to make the next push. Inside a window every box standing
in its vicinity may move (the squares its pushes touch and those within ``radius`` steps of
them, as JSoko's and YASO's vicinity searches let boxes stray a few squares), so a detour
that needs another box moved out of the way can go; the boxes outside stand still. The cost
is the chosen metric first and the other second, counted to the next push, so a way that is
cheaper in the window is cheaper in the whole. A cheaper way is spliced in and the window is
tried again from the same place. The passes (SCHEDULE) widen the windows and the vicinity,
and start again from the narrowest after any gain, until a whole round gains nothing or the
time or the node budget runs out; what was gained by then is kept.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from webapp.games.sokoban.board import FAR, Board, cells_of, lowest_cell
from webapp.games.sokoban.level import Level
from webapp.games.sokoban.position import Position, walk

if TYPE_CHECKING:
    from webapp.games.base import Game

METRICS = ("moves", "pushes")
#: One unit of the chosen metric against the other's, its tie-break: a cost is
#: ``primary * WEIGHT + secondary``, and no solution has 2**32 moves.
WEIGHT = 1 << 32
#: The passes, in order, cheapest first; after a gain the round starts again from the first.
#: ("window", W, R): windows of W pushes, a step of W / 2 apart, boxes moving within R steps
#: of the squares the window's pushes touch. ("whole", N, M, P): the whole solution at once,
#: among the positions of the solution with a box moved to one of its N nearest squares, or
#: two boxes near each other (the second among the first's P nearest squares) each moved to
#: one of its M nearest (vicinity_positions).
SCHEDULE: tuple[tuple[str | int, ...], ...] = (
    ("window", 8, 1),
    ("whole", 20, 0, 0),
    ("window", 16, 1),
    ("whole", 40, 0, 0),
    ("window", 12, 2),
    ("window", 24, 2),
    ("whole", 20, 20, 20),
    ("window", 32, 3),
)
#: Positions the whole solution's search may keep: its memory bound, as WINDOW_NODES.
WHOLE_NODES = 200_000
#: Positions one window's search may keep before it gives up on that window: the memory
#: bound, about 300 bytes a position.
WINDOW_NODES = 20_000


@dataclass(frozen=True)
class Improvement:
    """What the optimizer did: the solution it returns, and how far it got."""

    moves: list[str]
    pushes: int
    original_moves: int
    original_pushes: int
    expanded: int
    #: True when a whole round of SCHEDULE found nothing more (not stopped by a limit).
    finished: bool


def pushes_of(board: Board, start: Position, tokens: list[str]) -> list[int] | None:
    """The packed pushes (box cell << 2 | direction, as solver.py packs them) of a line of
    moves up to the first solved position, or None when the moves do not solve the level."""
    letters = [letter for letter, _ in board.directions]
    floor, goals = board.floor, board.goal_mask
    player, boxes = start.player, board.boxes_of(start)
    pushes: list[int] = []
    if boxes == goals:
        return pushes
    for token in tokens:
        if token.lower() not in letters:
            return None
        direction = letters.index(token.lower())
        target = player + board.directions[direction][1]
        if not floor >> target & 1:
            return None
        if boxes >> target & 1:
            beyond = target + board.directions[direction][1]
            if not floor >> beyond & 1 or boxes >> beyond & 1:
                return None
            boxes = boxes & ~(1 << target) | 1 << beyond
            pushes.append(target << 2 | direction)
            if boxes == goals:
                return pushes
        elif token.isupper():
            return None
        player = target
    return None


def tokens_of(board: Board, start: Position, pushes: list[int]) -> list[str]:
    """The moves of a line of pushes: a shortest walk to each, then the push."""
    tokens: list[str] = []
    player, boxes = start.player, set(start.boxes)
    for push in pushes:
        box, direction = push >> 2, push & 3
        letter, offset = board.directions[direction]
        steps = walk(board.level, Position(player, frozenset(boxes)), box - offset)
        if steps is None:
            raise ValueError(f"no walk to the push at cell {box}")
        tokens.extend(steps)
        tokens.append(letter.upper())
        boxes.remove(box)
        boxes.add(box + offset)
        player = box
    return tokens


def _states(board: Board, start: Position, pushes: list[int]) -> list[tuple[int, int]]:
    """The boxes (a bitboard) and the player's square before each push and after the last."""
    boxes, player = board.boxes_of(start), start.player
    states = [(boxes, player)]
    for push in pushes:
        box = push >> 2
        boxes = boxes & ~(1 << box) | 1 << (box + board.directions[push & 3][1])
        player = box
        states.append((boxes, player))
    return states


def _layers(board: Board, player: int, boxes: int) -> list[int]:
    """The squares the player walks to, by the steps it takes: layer k is k steps away."""
    free = board.floor & ~boxes
    width = board.width
    layers = [1 << player]
    region = frontier = layers[0]
    while True:
        grown = (frontier << 1 | frontier >> 1 | frontier << width | frontier >> width) & free
        frontier = grown & ~region
        if not frontier:
            return layers
        region |= frontier
        layers.append(frontier)


def _steps_to(layers: list[int], square: int) -> int:
    """How many steps the walk of ``layers`` takes to ``square`` (FAR when it cannot)."""
    for steps, layer in enumerate(layers):
        if layer >> square & 1:
            return steps
    return FAR


class Costs:
    """What a push and a walk cost in one metric, the other as its tie-break."""

    def __init__(self, metric: str) -> None:
        if metric not in METRICS:
            raise ValueError(f"the metric is moves or pushes, not {metric!r}")
        self.metric = metric
        moves = metric == "moves"
        #: A step costs this, and a push this besides its step.
        self.step = WEIGHT if moves else 1
        self.push = 1 if moves else WEIGHT

    def of(self, board: Board, start: Position, pushes: list[int]) -> int:
        return self.counted(len(pushes), len(tokens_of(board, start, pushes)))

    def counted(self, pushes: int, moves: int) -> int:
        return moves * self.step + pushes * self.push


def _pull_distances(board: Board, targets: int, area: int) -> dict[int, int]:
    """For each square of ``area``, the fewest pushes taking a lone box from there to one of
    ``targets`` without leaving ``area`` (squares it cannot do it from are left out)."""
    floor = board.floor
    offsets = [offset for _, offset in board.directions]
    distance = dict.fromkeys(cells_of(targets), 0)
    frontier = list(distance)
    steps = 0
    while frontier:
        steps += 1
        grown = []
        for cell in frontier:
            for offset in offsets:
                pulled = cell + offset
                if area >> pulled & 1 and floor >> (pulled + offset) & 1 and pulled not in distance:
                    distance[pulled] = steps
                    grown.append(pulled)
        frontier = grown
    return distance


def _vicinity(board: Board, pushes: list[int], radius: int) -> int:
    """The squares the window's pushes move boxes from and to, grown ``radius`` steps over
    the floor."""
    area = 0
    for push in pushes:
        box = push >> 2
        area |= 1 << box | 1 << (box + board.directions[push & 3][1])
    for _ in range(radius):
        area = board.grow(area) & board.floor
    return area


class Window:
    """One window's search: A* from the position before it to the one after it, by the
    cost of ``costs``, boxes moving inside the vicinity only."""

    def __init__(
        self,
        board: Board,
        costs: Costs,
        before: tuple[int, int],
        after: tuple[int, int],
        following: int | None,
        area: int,
        allowed: set[int] | None = None,
    ) -> None:
        self.board, self.costs = board, costs
        #: When given, the only boxes a position may have (the vicinity of a whole solution).
        self.allowed = allowed
        self.before, self.after = before, after
        #: The square the player must reach after the window for the next push, if any.
        self.following = following
        self.area = area
        self.open_squares = board.live & area
        self.distance = _pull_distances(board, after[0] & area, area)
        #: Positions told apart by the player's region, not its square: fewer of them, and the
        #: tie-break (the walks) kept only as the first way found to each makes it.
        self.regions = costs.metric == "pushes"
        self.expanded = 0

    def _bound(self, boxes: int) -> int:
        """Pushes still needed at least: each box in the vicinity to its nearest target."""
        distance = self.distance
        total = 0
        for cell in cells_of(boxes & self.area):
            near = distance.get(cell)
            if near is None:
                return FAR
            total += near
        return total

    def search(self, most: int, deadline: float, nodes: int) -> list[int] | None:
        """The pushes of a way cheaper than ``most``, or None when there is none within
        ``nodes`` positions or before ``deadline``."""
        board, costs = self.board, self.costs
        area, open_squares, distance = self.area, self.open_squares, self.distance
        goal_boxes, following = self.after[0], self.following
        unit = costs.push + costs.step  # a push is at least one step and one push
        directions = board.directions
        boxes, player = self.before
        bound = self._bound(boxes)
        if bound >= FAR:
            return None
        regions, allowed = self.regions, self.allowed
        first = (boxes, lowest_cell(board.reach(player, boxes)) if regions else player)
        cost = {first: 0}
        parents: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {first: None}
        # Ties go to the deeper position: nearer the end of the window.
        heap = [(bound * unit, 0, bound, boxes, player, first)]
        best, found = most, None
        while heap:
            f, minus_g, h, boxes, player, key = heapq.heappop(heap)
            g = -minus_g
            if f >= best:
                break
            if cost[key] < g:
                continue
            self.expanded += 1
            if self.expanded & 255 == 0 and time.monotonic() > deadline or len(cost) > nodes:
                break
            layers = _layers(board, player, boxes)
            if boxes == goal_boxes:
                walked = 0 if following is None else _steps_to(layers, following)
                if walked < FAR and g + walked * costs.step < best:
                    best, found = g + walked * costs.step, key
                continue
            region = 0
            for layer in layers:
                region |= layer
            free = open_squares & ~boxes
            movable = boxes & area
            for direction, (_, offset) in enumerate(directions):
                if offset > 0:
                    pushable = movable & (region << offset) & (free >> offset)
                else:
                    pushable = movable & (region >> -offset) & (free << -offset)
                while pushable:
                    low = pushable & -pushable
                    pushable ^= low
                    box = low.bit_length() - 1
                    near = distance.get(box + offset)
                    if near is None:
                        continue
                    steps = _steps_to(layers, box - offset)
                    child_g = g + steps * costs.step + costs.push + costs.step
                    child_h = h - distance[box] + near
                    if child_g + child_h * unit >= best:
                        continue
                    child_boxes = low ^ boxes | 1 << (box + offset)
                    if allowed is not None and child_boxes not in allowed:
                        continue
                    if regions:
                        child = (child_boxes, lowest_cell(board.reach(box, child_boxes)))
                    else:
                        child = (child_boxes, box)
                    if cost.get(child, FAR * WEIGHT) <= child_g:
                        continue
                    cost[child] = child_g
                    parents[child] = (key, box << 2 | direction)
                    entry = (child_g + child_h * unit, -child_g, child_h, child_boxes, box, child)
                    heapq.heappush(heap, entry)
        if found is None:
            return None
        pushes = []
        link = parents[found]
        while link is not None:
            key, push = link
            pushes.append(push)
            link = parents[key]
        return pushes[::-1]


class Optimizer:
    """A solution's pushes made cheaper window by window, within a deadline and a budget of
    expanded positions."""

    def __init__(
        self, board: Board, start: Position, metric: str, deadline: float, nodes: int | None
    ) -> None:
        self.board, self.start = board, start
        self.costs = Costs(metric)
        self.deadline = deadline
        self.nodes = nodes
        self.expanded = 0

    def _spent(self) -> bool:
        over = self.nodes is not None and self.expanded >= self.nodes
        return over or time.monotonic() > self.deadline

    def _segment(self, states: list[tuple[int, int]], pushes: list[int], at: int, stop: int) -> int:
        """The cost of pushes ``at`` to ``stop`` (exclusive) and the walk to the next."""
        board, costs = self.board, self.costs
        total = 0
        for index in range(at, stop + 1):
            boxes, player = states[index]
            if index == len(pushes):
                break
            push = pushes[index]
            target = (push >> 2) - board.directions[push & 3][1]
            steps = _steps_to(_layers(board, player, boxes), target)
            total += steps * costs.step + (costs.push + costs.step if index < stop else 0)
        return total

    def _pass(self, pushes: list[int], window: int, radius: int) -> bool:
        """One pass of windows along the solution, splicing in every cheaper way found
        (``pushes`` is changed in place); True when it gained."""
        board = self.board
        states = _states(board, self.start, pushes)
        gained = False
        at = 0
        while at < len(pushes) and not self._spent():
            stop = min(at + window, len(pushes))
            old = self._segment(states, pushes, at, stop)
            following = None
            if stop < len(pushes):
                push = pushes[stop]
                following = (push >> 2) - board.directions[push & 3][1]
            area = _vicinity(board, pushes[at:stop], radius)
            search = Window(board, self.costs, states[at], states[stop], following, area)
            nodes = WINDOW_NODES
            if self.nodes is not None:
                nodes = min(nodes, max(1, self.nodes - self.expanded))
            better = search.search(old, self.deadline, nodes)
            self.expanded += search.expanded
            if better is not None:
                trial = pushes[:at] + better + pushes[stop:]
                trial_states = _states(board, self.start, trial)
                # The search's own count is exact in the metric; the tie-break is checked.
                if self._segment(trial_states, trial, at, at + len(better)) < old:
                    pushes[:] = trial
                    states = trial_states
                    gained = True
                    continue
            if stop == len(pushes):
                break
            at += max(1, window // 2)
        return gained

    def _whole(self, pushes: list[int], first: int, second: int, partners: int) -> bool:
        """The whole solution searched again among the positions near its own
        (vicinity_positions); True when it gained (``pushes`` is changed in place)."""
        board = self.board
        states = _states(board, self.start, pushes)
        old = self._segment(states, pushes, 0, len(pushes))
        allowed = vicinity_positions(board, states, first, second, partners)
        search = Window(board, self.costs, states[0], states[-1], None, board.live, allowed)
        nodes = WHOLE_NODES
        if self.nodes is not None:
            nodes = min(nodes, max(1, self.nodes - self.expanded))
        better = search.search(old, self.deadline, nodes)
        self.expanded += search.expanded
        if better is None:
            return False
        if self._segment(_states(board, self.start, better), better, 0, len(better)) >= old:
            return False
        pushes[:] = better
        return True

    def run(self, pushes: list[int]) -> tuple[list[int], bool]:
        """The cheaper pushes, and whether a whole round found nothing more to gain."""
        pushes = list(pushes)
        while not self._spent():
            gained = False
            for kind, *sizes in SCHEDULE:
                if self._spent():
                    return pushes, False
                if self._whole(pushes, *sizes) if kind == "whole" else self._pass(pushes, *sizes):
                    gained = True
                    break
            if not gained:
                return pushes, not self._spent()
        return pushes, False


def optimize(
    board: Board,
    start: Position,
    pushes: list[int],
    metric: str,
    deadline: float,
    nodes: int | None = None,
) -> list[int]:
    """``pushes`` (a solution from ``start``) made no costlier in ``metric`` (the other
    metric the tie-break), cheaper where the windows' searches find a way, until ``deadline``
    (time.monotonic) or ``nodes`` expanded positions."""
    return Optimizer(board, start, metric, deadline, nodes).run(pushes)[0]


def improve(
    rules: Game,
    level: Level,
    tokens: list[str],
    metric: str = "moves",
    seconds: float = 10.0,
    nodes: int | None = None,
    on_pass: Callable[[int], None] | None = None,
) -> Improvement:
    """A solution (moves in LURD) made no longer in ``metric``, shorter where a vicinity
    search finds a way within ``seconds`` and ``nodes`` expanded positions. The result is
    replayed through ``rules`` (the game's own moves) before it is returned. ValueError when
    the moves do not solve the level."""
    deadline = time.monotonic() + seconds
    board = Board(level)
    start = rules.start(level)
    problem, original_pushes = _replay(rules, level, start, tokens)
    pushes = pushes_of(board, start, tokens)
    if problem is not None or pushes is None:
        raise ValueError(problem or "the moves do not solve the level")
    costs = Costs(metric)
    original = costs.counted(original_pushes, len(tokens))
    optimizer = Optimizer(board, start, metric, deadline, nodes)
    better, finished = optimizer.run(pushes)
    moves = tokens_of(board, start, better)
    problem, pushed = _replay(rules, level, start, moves)
    if problem is not None:  # the searches' pushes are checked here, not trusted
        raise RuntimeError(f"the optimized solution does not replay: {problem}")
    if costs.counted(len(better), len(moves)) > original:
        moves, pushed = list(tokens), original_pushes  # cannot happen; kept as a guard
    return Improvement(
        moves=moves,
        pushes=pushed,
        original_moves=len(tokens),
        original_pushes=original_pushes,
        expanded=optimizer.expanded,
        finished=finished,
    )


def _replay(
    rules: Game, level: Level, start: Position, tokens: list[str]
) -> tuple[str | None, int]:
    """Whether ``tokens`` take ``start`` to a win by the game's own rules (None, or what goes
    wrong), and how many of them push a box."""
    state, pushed = start, 0
    for index, token in enumerate(tokens):
        try:
            after = rules.apply(level, state, token)
        except ValueError as exc:
            return f"move {index + 1} ({token}) is not allowed: {exc}", pushed
        pushed += after.boxes != state.boxes
        state = after
    if not rules.is_solved(level, state):
        return "the moves end on a board that is not solved", pushed
    return None, pushed


def _near_squares(board: Board, square: int, count: int) -> list[int]:
    """The ``count`` live squares nearest ``square`` by steps over the floor (boxes aside)."""
    width = board.width
    seen = frontier = 1 << square
    found: list[int] = []
    while frontier and len(found) < count:
        grown = frontier << 1 | frontier >> 1 | frontier << width | frontier >> width
        frontier = grown & board.floor & ~seen
        seen |= frontier
        found.extend(cell for cell in cells_of(frontier & board.live))
    return found[:count]


def vicinity_positions(
    board: Board, states: list[tuple[int, int]], first: int, second: int, partners: int
) -> set[int]:
    """The boxes of every position of a solution, and of each with one box moved to one of
    its ``first`` nearest squares, or two boxes, the second on one of the first's
    ``partners`` nearest squares, moved each to one of its ``second`` nearest."""
    near: dict[int, list[int]] = {}

    def nearest(square: int, count: int) -> list[int]:
        if square not in near:
            near[square] = _near_squares(board, square, max(first, second))
        return near[square][:count]

    allowed: set[int] = set()
    for boxes, _ in states:
        if boxes in allowed:
            continue
        allowed.add(boxes)
        squares = list(cells_of(boxes))
        for box in squares:
            without = boxes & ~(1 << box)
            for square in nearest(box, first):
                if not without >> square & 1:
                    allowed.add(without | 1 << square)
        if not second:
            continue
        for index, box in enumerate(squares):
            close = set(nearest(box, partners))
            for other in squares[index + 1 :]:
                if other not in close:
                    continue
                without = boxes & ~(1 << box) & ~(1 << other)
                for square in nearest(box, second):
                    if without >> square & 1:
                        continue
                    moved = without | 1 << square
                    for square2 in nearest(other, second):
                        if not moved >> square2 & 1:
                            allowed.add(moved | 1 << square2)
    return allowed
