"""A solution made shorter in moves or in pushes: searched again near its own positions.

Any solution will do: the player's, the solver's, a replay link's. It is read as its pushes
(the walks between them are what a shortest walk makes of them) and searched again by A*,
the chosen metric first and the other second, counted to the next push, so a way that is
cheaper in a part is cheaper in the whole. Two kinds of search take turns (SCHEDULE):

- near the whole solution: from the start to the solved position through positions with at
  most a few boxes off the squares of one of the solution's own, each a few steps from where
  it should be (Nearness), as JSoko's and YASO's vicinity searches do. A box taken home
  directly instead of parked, two boxes' turns swapped: the gains in pushes come from here.
- windows of W pushes along it, from the position before the window to the one after it,
  every box in the window's vicinity free to move there: a detour that needs another box
  moved out of the way can go, and walks are made shorter.

A gain in the chosen metric starts the round again from its cheapest search, until a whole
round gains nothing or the time or the node budget runs out; what was gained by then is kept.
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
#: The searches, in order, cheapest first; after a gain in the chosen metric the round
#: starts again from the first. ("near", C, R, S): the whole solution, through positions
#: with at most C boxes off the squares of one of its own, each within R steps of a square
#: they left, that position within S pushes of the one the last push was near (Nearness).
#: ("window", W, R): windows of W pushes, a step of W / 2 apart, boxes moving within R steps
#: of the squares the window's pushes touch. ("walks", W, R): the same, a position told
#: apart by the player's square, not its region, so in the pushes metric the tie-break, the
#: walks, is searched exactly too. Measured on XSokoban 1-9 (bench/RESULTS.md, 2026-11-26):
#: the near searches gave the pushes, one box before two (cheaper, and most of the gain).
#: Three boxes come last: on Microban II 77 only they take 14 pushes to YASS's 12, and on
#: XSokoban they reach the node bound without a gain.
SCHEDULE: tuple[tuple[str | int, ...], ...] = (
    ("near", 1, 4, 10),
    ("near", 1, 8, 20),
    ("window", 8, 1),
    ("near", 2, 2, 8),
    ("near", 2, 4, 6),
    ("walks", 8, 1),
    ("window", 16, 1),
    ("near", 3, 3, 10),
)
#: Positions a search near the whole solution may keep: its memory bound, as WINDOW_NODES.
NEAR_NODES = 200_000
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
        near: Nearness | None = None,
        exact: bool = False,
    ) -> None:
        self.board, self.costs = board, costs
        #: When given, which positions are near enough the solution's own (Nearness).
        self.near = near
        self.before, self.after = before, after
        #: The square the player must reach after the window for the next push, if any.
        self.following = following
        self.area = area
        self.open_squares = board.live & area
        self.distance = _pull_distances(board, after[0] & area, area)
        #: Positions told apart by the player's region, not its square: fewer of them, and the
        #: tie-break (the walks) kept only as the first way found to each makes it.
        self.regions = costs.metric == "pushes" and not exact
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
        regions = self.regions
        first = (boxes, lowest_cell(board.reach(player, boxes)) if regions else player)
        cost = {first: 0}
        parents: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {first: None}
        nearness = self.near
        anchors = {first: 0}
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
            if nearness is not None:
                candidates = nearness.candidates(boxes, anchors[key])
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
                    child_h = h - distance[box] + near
                    # The walk to the push is counted after the cheaper tests.
                    child_g = g + costs.push + costs.step
                    if child_g + child_h * unit >= best:
                        continue
                    child_boxes = low ^ boxes | 1 << (box + offset)
                    if nearness is not None:
                        anchor = nearness.anchor(child_boxes, candidates)
                        if anchor is None:
                            continue
                    child_g += _steps_to(layers, box - offset) * costs.step
                    if child_g + child_h * unit >= best:
                        continue
                    if regions:
                        child = (child_boxes, lowest_cell(board.reach(box, child_boxes)))
                    else:
                        child = (child_boxes, box)
                    if cost.get(child, FAR * WEIGHT) <= child_g:
                        continue
                    cost[child] = child_g
                    parents[child] = (key, box << 2 | direction)
                    if nearness is not None:
                        anchors[child] = anchor
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
        self,
        board: Board,
        start: Position,
        metric: str,
        deadline: float,
        nodes: int | None,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.board, self.start = board, start
        self.costs = Costs(metric)
        self.deadline = deadline
        self.nodes = nodes
        self.expanded = 0
        #: Told the solution's length in the metric and the positions expanded at each gain.
        self.progress = progress

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

    def _pass(self, pushes: list[int], window: int, radius: int, exact: bool = False) -> bool:
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
            search = Window(
                board, self.costs, states[at], states[stop], following, area, exact=exact
            )
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

    def _walks(self, pushes: list[int], window: int, radius: int) -> bool:
        """A pass of windows whose positions are told apart by the player's square."""
        return self._pass(pushes, window, radius, exact=True)

    def _near(self, pushes: list[int], count: int, radius: int, span: int) -> bool:
        """The whole solution searched again among the positions Nearness allows; True when
        it gained (``pushes`` is changed in place)."""
        board = self.board
        states = _states(board, self.start, pushes)
        old = self._segment(states, pushes, 0, len(pushes))
        near = Nearness(board, states, count, radius, span)
        search = Window(board, self.costs, states[0], states[-1], None, board.live, near=near)
        nodes = NEAR_NODES
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

    def _cost(self, pushes: list[int]) -> int:
        return self._segment(_states(self.board, self.start, pushes), pushes, 0, len(pushes))

    def run(self, pushes: list[int]) -> tuple[list[int], bool]:
        """The cheaper pushes, and whether a whole round found nothing more to gain.

        A gain in the chosen metric starts the round again from its cheapest step; a gain in
        the tie-break alone goes on to the next step, so a search that keeps finding a few
        moves cheaper is not run over and over before the wider ones get their turn."""
        pushes = list(pushes)
        steps = {
            "near": self._near,
            "window": self._pass,
            "walks": self._walks,
        }
        cost = self._cost(pushes)
        at = idle = 0
        while not self._spent():
            kind, *sizes = SCHEDULE[at]
            steps[kind](pushes, *sizes)
            now = self._cost(pushes)
            if now < cost and self.progress is not None:
                self.progress(now // WEIGHT, self.expanded)
            if now // WEIGHT < cost // WEIGHT:
                at = idle = 0
            else:
                idle = 0 if now < cost else idle + 1
                at = (at + 1) % len(SCHEDULE)
            cost = now
            if idle == len(SCHEDULE):
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
    progress: Callable[[int, int], None] | None = None,
) -> Improvement:
    """A solution (moves in LURD) made no longer in ``metric``, shorter where a vicinity
    search finds a way within ``seconds`` and ``nodes`` expanded positions. The result is
    replayed through ``rules`` (the game's own moves) before it is returned. ValueError when
    the moves do not solve the level. ``progress`` is told the length in ``metric`` and the
    positions expanded so far at each gain."""
    deadline = time.monotonic() + seconds
    board = Board(level)
    start = rules.start(level)
    problem, original_pushes = _replay(rules, level, start, tokens)
    pushes = pushes_of(board, start, tokens)
    if problem is not None or pushes is None:
        raise ValueError(problem or "the moves do not solve the level")
    costs = Costs(metric)
    original = costs.counted(original_pushes, len(tokens))
    optimizer = Optimizer(board, start, metric, deadline, nodes, progress)
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


class Nearness:
    """The positions near a solution's own: at most ``count`` boxes off the squares of one of
    its positions, each within ``radius`` steps of a square those boxes left. Which of the
    solution's positions is looked at follows the search: within ``span`` pushes of the one
    the parent position was near (its anchor), so a box order may change a little at a time
    along the whole solution without every position near every other being allowed."""

    def __init__(
        self, board: Board, states: list[tuple[int, int]], count: int, radius: int, span: int
    ) -> None:
        self.boxes = [boxes for boxes, _ in states]
        self.count, self.span = count, span
        #: Per square, the floor squares within ``radius`` steps of it (walls between, boxes
        #: not): a list, looked up for every child.
        self.around = [0] * (board.width * board.level.height)
        for square in cells_of(board.floor):
            found = 1 << square
            for _ in range(radius):
                found = board.grow(found) & board.floor
            self.around[square] = found

    def candidates(self, boxes: int, around: int) -> list[int]:
        """The positions of the solution within ``span`` of ``around``, latest first, that a
        position one push from ``boxes`` may be near: a push takes one box off its square
        and puts it on another, so it changes the difference by two at most."""
        solution = self.boxes
        low = max(0, around - self.span)
        high = min(len(solution) - 1, around + self.span)
        # Boxes off their squares, counted twice: once where they stand, once where they left.
        most = 2 * self.count + 2
        return [
            index
            for index in range(high, low - 1, -1)
            if (boxes ^ solution[index]).bit_count() <= most
        ]

    def anchor(self, boxes: int, candidates: list[int]) -> int | None:
        """The first of ``candidates`` (positions of the solution) that ``boxes`` is near, or
        None when none is."""
        solution, most, around = self.boxes, 2 * self.count, self.around
        for index in candidates:
            own = solution[index]
            if own == boxes:
                return index
            if (boxes ^ own).bit_count() > most:
                continue
            lost = own & ~boxes
            left = 0
            while lost:
                low = lost & -lost
                left |= around[low.bit_length() - 1]
                lost ^= low
            if not boxes & ~own & ~left:
                return index
        return None
