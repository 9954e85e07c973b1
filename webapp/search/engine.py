"""Breadth-first, A*, weighted/greedy best-first and IDA* over a small problem interface."""

from __future__ import annotations

import heapq
import os
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Generic, TypeVar

from webapp.search.heat import Heat, HeatMap

S = TypeVar("S")

#: An action is the move tokens (game notation) that take one state to the next; a push in
#: Sokoban, for instance, is the walk to the box plus the push itself.
Action = tuple[str, ...]


@dataclass(frozen=True)
class Limits:
    """When a search gives up: wall-clock seconds, expanded states, and the resident memory
    the search itself has taken (beyond what its process held when it began: a solver
    child's interpreter and libraries, or all a long-lived caller holds, are not its own;
    the child's address-space cap, webapp/jobs/child.py, adds room for them)."""

    seconds: float | None = 60.0
    nodes: int | None = 100_000_000
    memory_mb: int | None = 2048


@dataclass
class Progress:
    """A snapshot of a running search, several times a second."""

    expanded: int
    generated: int
    frontier: int
    depth: int
    elapsed: float
    rate: float
    sample: Any = None
    note: str = ""
    #: The position with the least estimate of what is left that the search has met, where
    #: the search keeps one (``Monitor.closer``), and that estimate.
    closest: Any = None
    closest_h: int | None = None
    #: The moves (tokens) from where the search started to ``closest``, where the search
    #: keeps them: a player can take over there in their own game on the same level.
    closest_moves: list[str] | None = None
    #: The moves from where the search started to ``sample``, where a search that keeps no
    #: closest position kept them when it stopped (``Monitor.stopped_here``).
    sample_moves: list[str] | None = None
    #: Where the search has looked so far (``webapp.search.heat``), where it counts.
    heat: HeatMap | None = None


#: What a Tracer says of a child of an expanded position: met for the first time (it will wait
#: to be looked at), met before by a path no longer, a dead end by the game's rules, or left
#: out by the algorithm's own rule (IDA*'s bound, say).
VERDICTS = ("new", "seen", "dead", "pruned")


class Tracer:
    """Told of each expansion a search makes, in the order it makes them, and of each child
    the search meets there (``python -m webapp trace``). A search looks for one on its
    monitor once and tests it per expansion: without one it does no other work.

    ``expand`` opens an expansion; the ``child`` calls that follow, until the next
    ``expand``, are its children in the order the search meets them. A depth-first search,
    which meets children between the expansions below them, tells them all at ``expand``."""

    def expand(self, state: Any, g: int, h: int, f: int, waiting: int) -> None:
        """The search takes ``state`` (a game state, as ``display`` gives it) whose path so
        far costs ``g``, with ``h`` the estimate of what is left and ``f`` the figure it was
        taken by; ``waiting`` positions wait to be taken after it."""

    def child(self, move: Sequence[str], state: Any, verdict: str, rule: str = "") -> None:
        """A child of the position last expanded: the move tokens from it, the game state,
        one of VERDICTS and the rule behind a ``dead`` or ``pruned`` verdict."""


class Stop(Exception):
    """Raised inside a search when a limit is hit or the run is cancelled."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason  # "timeout" | "node-limit" | "memory-limit" | "cancelled"


@dataclass
class Result:
    """How a search ended and, when solved, the moves (tokens in the game's notation)."""

    status: str  # solved | unsolvable | timeout | node-limit | memory-limit | cancelled | error
    moves: list[str] | None = None
    expanded: int = 0
    generated: int = 0
    seconds: float = 0.0
    optimal: bool = False
    metric: str = "moves"
    cost: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    #: Where the search looked, in all (the last progress report's heat map may be older).
    heat: HeatMap | None = None

    @property
    def solved(self) -> bool:
        return self.status == "solved"


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:  # not Linux: no cheap reading, rely on the process's address-space cap
        return 0.0


class Monitor:
    """Counts work, enforces Limits and cancellation, and reports Progress at an interval.

    Algorithms call ``tick`` every few hundred expansions with their running totals; it is
    cheap, and raises Stop when the search must end.
    """

    stride = 256

    def __init__(
        self,
        limits: Limits | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        interval: float = 0.15,
        tracer: Tracer | None = None,
        counting: bool = True,
    ):
        self.limits = limits or Limits()
        #: Whether the search keeps a heat map (``heat_map``); off only to measure its cost.
        self.counting = counting
        self.heat: Heat | None = None
        self._heat: HeatMap | None = None  # the last reading of it, and when it was made
        self._heat_read = 0.0
        #: Told of each expansion by the searches that step (``Algorithm.steps``); None in
        #: every search but a traced one.
        self.tracer = tracer
        self.on_progress = on_progress
        self.cancelled = cancelled
        self.interval = interval
        self.started = time.monotonic()
        #: What the process held before the search: the memory limit counts what is added.
        self._rss_before = _rss_mb() if self.limits.memory_mb is not None else 0.0
        self._last_report = 0.0
        self.expanded = 0
        self.generated = 0
        self.frontier = 0
        self.depth = 0
        self.note = ""
        self.closest: Any = None
        self.closest_h: int | None = None
        self.closest_moves: list[str] | None = None
        #: The position a search stopped at and the moves to it (``stopped_here``).
        self.stopped_sample: Any = None
        self.sample_moves: list[str] | None = None
        if self.limits.nodes is not None:
            self.stride = max(1, min(self.stride, self.limits.nodes))

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def tick(
        self,
        expanded: int,
        generated: int,
        frontier: int = 0,
        depth: int = 0,
        sample: Callable[[], Any] | None = None,
        force: bool = False,
    ) -> None:
        """Record totals; raise Stop on a limit or cancellation; report if it is time."""
        self.expanded, self.generated, self.frontier, self.depth = (
            expanded,
            generated,
            frontier,
            depth,
        )
        now = time.monotonic()
        elapsed = now - self.started
        limits = self.limits
        if self.cancelled is not None and self.cancelled():
            raise Stop("cancelled")
        if limits.seconds is not None and elapsed > limits.seconds:
            raise Stop("timeout")
        if limits.nodes is not None and expanded >= limits.nodes:
            raise Stop("node-limit")
        if force or now - self._last_report >= self.interval:
            if limits.memory_mb is not None and _rss_mb() - self._rss_before > limits.memory_mb:
                raise Stop("memory-limit")
            if self.on_progress is not None:
                self.report(sample() if sample is not None else None)
            self._last_report = now

    def report(self, sample: Any = None) -> None:
        """Send a progress report now, whatever the interval (limits are not checked)."""
        if self.on_progress is None:
            return
        elapsed = self.elapsed
        self._last_report = time.monotonic()
        self.on_progress(
            Progress(
                expanded=self.expanded,
                generated=self.generated,
                frontier=self.frontier,
                depth=self.depth,
                elapsed=elapsed,
                rate=self.expanded / elapsed if elapsed > 0 else 0.0,
                sample=sample,
                note=self.note,
                closest=self.closest,
                closest_h=self.closest_h,
                closest_moves=self.closest_moves,
                sample_moves=self.sample_moves,
                heat=self._heat_shown(),
            )
        )

    def _heat_shown(self) -> HeatMap | None:
        """The heat map for a progress report: read again at most once an ``interval`` (a
        search that reports at every layer of a breadth-first search would otherwise pay
        for a reading each time); the result always has it whole (``result``)."""
        if self.heat is None:
            return None
        now = time.monotonic()
        if self._heat is None or now - self._heat_read >= self.interval:
            self._heat, self._heat_read = self.heat.snapshot(), now
        return self._heat

    def heat_map(self, rows: int, cols: int, squares: Sequence[int] | None = None) -> Heat | None:
        """The Heat this search counts into, for a board of ``rows`` x ``cols`` squares
        (``squares``: the board's square of each of the search's own, as ``Heat`` says); None
        when the monitor does not count. Searches of one solve that number their squares the
        same way (the members of a portfolio) share one."""
        if not self.counting:
            return None
        heat = self.heat
        wanted = len(squares) if squares is not None else rows * cols
        if heat is None or (heat.rows, heat.cols, len(heat.counts) - 1) != (rows, cols, wanted):
            heat = self.heat = Heat(rows, cols, squares)
        return heat

    def closer(
        self,
        h: int,
        display: Callable[[], Any],
        moves: Callable[[], list[str]] | None = None,
    ) -> None:
        """Keep a position the search met as the closest so far when its estimate ``h`` of
        what is left is the least yet (``display`` makes what a player sees of it, ``moves``
        the tokens that reach it from the search's start, where the search keeps them). The
        estimate only falls, so this happens a few times a search, not at each expansion."""
        if self.closest_h is None or h < self.closest_h:
            self.closest_h, self.closest = h, display()
            self.closest_moves = moves() if moves is not None else None

    def stopped_here(self, display: Callable[[], Any], moves: Callable[[], list[str]]) -> None:
        """Keep the position a search was looking at when a limit stopped it, and the moves
        from its start to there: the last report shows it, and a player can take over there
        in their own game on the same level. Called once, as the search stops (a search
        that rebuilds the moves from its parents pays for it then, not at each expansion)."""
        self.stopped_sample, self.sample_moves = display(), moves()

    def result(self, status: str, **fields: Any) -> Result:
        """A Result carrying this monitor's totals and elapsed time."""
        fields.setdefault("expanded", self.expanded)
        fields.setdefault("generated", self.generated)
        if self.heat is not None:
            fields.setdefault("heat", self.heat.snapshot())
        return Result(status=status, seconds=self.elapsed, **fields)


class SearchProblem(Generic[S]):
    """A search space: override start, is_goal and successors; h, key, display are optional."""

    def start(self) -> S:
        raise NotImplementedError

    def is_goal(self, state: S) -> bool:
        raise NotImplementedError

    def successors(self, state: S) -> Iterable[tuple[Action, S, int]]:
        """Each (action, next state, cost of the action)."""
        raise NotImplementedError

    def h(self, state: S) -> int:
        """A lower bound on the cost to a goal (admissible for the optimal algorithms)."""
        return 0

    def key(self, state: S) -> Hashable:
        """What identifies a state in the visited table (a normal form of it)."""
        return state  # type: ignore[return-value]

    def display(self, state: S) -> Any:
        """The game state a player would see for this search state (for the live view)."""
        return state

    def left_out(self, state: S) -> Iterable[tuple[Action, S, str]]:
        """The children the rules allow that ``successors`` leaves out as dead ends, each
        with the rule that condemns it: asked only when a search is traced."""
        return ()

    def board_size(self) -> tuple[int, int] | None:
        """The board's rows and columns, for a heat map (``pieces``); None: none is kept."""
        return None

    def pieces(self, state: S) -> Iterable[int]:
        """The board's squares (row * columns + column) that hold a counted piece in
        ``state``: what the heat map adds up at each expansion."""
        return ()


def _heat(problem: SearchProblem[Any], monitor: Monitor) -> Heat | None:
    """The heat map a generic search counts into, when the problem draws one."""
    size = problem.board_size()
    return None if size is None else monitor.heat_map(*size)


#: The rule of a child a problem's ``h`` calls a dead end (a negative estimate).
NO_GOAL = "no goal can be reached from it"


def _whole(f: float) -> float | int:
    """``f`` as an int when it is one (A*'s f is kept as a float for the weighted forms)."""
    return int(f) if f == int(f) else f


def _path(parents: dict[Hashable, tuple[Hashable, Action] | None], key: Hashable) -> list[str]:
    actions: list[Action] = []
    link = parents[key]
    while link is not None:
        key, action = link
        actions.append(action)
        link = parents[key]
    return [token for action in reversed(actions) for token in action]


def over_bound(f: float, bound: float) -> str:
    """The rule that prunes a child in IDA*: its f is above this iteration's bound."""
    return f"f = g + h = {_whole(f)} is above the bound {_whole(bound)}"


def run_search(search: Callable[[Monitor], Result], monitor: Monitor) -> Result:
    """Run a search, turning Stop and MemoryError into results instead of exceptions."""
    try:
        return search(monitor)
    except Stop as stop:
        if monitor.on_progress is not None and monitor.sample_moves is not None:
            monitor.report(monitor.stopped_sample)  # where it stopped, with the moves there
        elif monitor.closest is not None and monitor.on_progress is not None:
            monitor.report()  # the page shows the closest position met, however late
        return monitor.result(stop.reason)
    except MemoryError:
        return monitor.result("memory-limit")


def bfs(problem: SearchProblem[S], monitor: Monitor) -> Result:
    """Breadth-first by number of actions; optimal when every action counts one."""

    def search(monitor: Monitor) -> Result:
        start = problem.start()
        start_key = problem.key(start)
        parents: dict[Hashable, tuple[Hashable, Action] | None] = {start_key: None}
        if problem.is_goal(start):
            return monitor.result("solved", moves=[], cost=0, optimal=True)
        layer = [start]
        depth = expanded = 0
        generated = 1
        tracer = monitor.tracer
        heat = _heat(problem, monitor)
        while layer:
            depth += 1
            following: list[S] = []
            first = expanded
            for state in layer:
                expanded += 1
                if heat is not None:
                    heat.add(problem.pieces(state))
                if expanded % monitor.stride == 0:
                    monitor.tick(
                        expanded,
                        generated,
                        len(layer) + len(following),
                        depth,
                        lambda state=state: problem.display(state),
                    )
                if tracer is not None:
                    waiting = len(layer) - (expanded - first) + len(following)
                    tracer.expand(problem.display(state), depth - 1, 0, depth - 1, waiting)
                    for action, child, rule in problem.left_out(state):
                        tracer.child(action, problem.display(child), "dead", rule)
                parent_key = problem.key(state)
                for action, child, _cost in problem.successors(state):
                    child_key = problem.key(child)
                    if child_key in parents:
                        if tracer is not None:
                            tracer.child(action, problem.display(child), "seen")
                        continue
                    generated += 1
                    parents[child_key] = (parent_key, action)
                    if tracer is not None:
                        tracer.child(action, problem.display(child), "new")
                    if problem.is_goal(child):
                        monitor.tick(expanded, generated, 0, depth, force=True)
                        moves = _path(parents, child_key)
                        return monitor.result("solved", moves=moves, cost=depth, optimal=True)
                    following.append(child)
            layer = following
        monitor.tick(expanded, generated, 0, depth, force=True)
        return monitor.result("unsolvable")

    return run_search(search, monitor)


def best_first(
    problem: SearchProblem[S],
    monitor: Monitor,
    g_weight: float = 1.0,
    h_weight: float = 1.0,
) -> Result:
    """Best-first on f = g_weight*g + h_weight*h: A* at (1, 1), greedy at (0, 1).

    A state reached again by a cheaper path is re-queued, so with an admissible h and
    weights (1, 1) the first goal taken off the queue is optimal.
    """
    optimal = g_weight == 1.0 and h_weight == 1.0

    def search(monitor: Monitor) -> Result:
        start = problem.start()
        start_key = problem.key(start)
        best_g: dict[Hashable, int] = {start_key: 0}
        parents: dict[Hashable, tuple[Hashable, Action] | None] = {start_key: None}
        tie = count()
        h0 = problem.h(start)
        queue: list[tuple[float, int, int, int, S]] = [(h_weight * h0, h0, next(tie), 0, start)]
        expanded = 0
        generated = 1
        tracer = monitor.tracer
        heat = _heat(problem, monitor)
        while queue:
            _f, h, _, g, state = heapq.heappop(queue)
            key = problem.key(state)
            if g > best_g[key]:
                continue  # a stale entry: a cheaper path to this state was queued later
            if problem.is_goal(state):
                monitor.tick(expanded, generated, len(queue), g, force=True)
                moves = _path(parents, key)
                return monitor.result("solved", moves=moves, cost=g, optimal=optimal)
            expanded += 1
            if heat is not None:
                heat.add(problem.pieces(state))
            if monitor.closest_h is None or h < monitor.closest_h:
                monitor.closer(
                    h,
                    lambda state=state: problem.display(state),
                    lambda key=key: _path(parents, key),
                )
            if expanded % monitor.stride == 0:
                monitor.tick(
                    expanded,
                    generated,
                    len(queue),
                    g + h,
                    lambda state=state: problem.display(state),
                )
            if tracer is not None:
                tracer.expand(problem.display(state), g, h, _whole(_f), len(queue))
                for action, child, rule in problem.left_out(state):
                    tracer.child(action, problem.display(child), "dead", rule)
            for action, child, cost in problem.successors(state):
                child_g = g + cost
                child_key = problem.key(child)
                known = best_g.get(child_key)
                if known is not None and known <= child_g:
                    if tracer is not None:
                        tracer.child(action, problem.display(child), "seen")
                    continue
                child_h = problem.h(child)
                if child_h < 0:  # the problem's way of saying "dead end"
                    if tracer is not None:
                        tracer.child(action, problem.display(child), "dead", NO_GOAL)
                    continue
                if tracer is not None:
                    tracer.child(action, problem.display(child), "new")
                best_g[child_key] = child_g
                parents[child_key] = (key, action)
                generated += 1
                heapq.heappush(
                    queue,
                    (g_weight * child_g + h_weight * child_h, child_h, next(tie), child_g, child),
                )
        monitor.tick(expanded, generated, 0, 0, force=True)
        return monitor.result("unsolvable")

    return run_search(search, monitor)


def astar(problem: SearchProblem[S], monitor: Monitor) -> Result:
    """A*: optimal in the problem's action costs when h never overestimates."""
    return best_first(problem, monitor)


def idastar(problem: SearchProblem[S], monitor: Monitor, max_bound: int = 10_000) -> Result:
    """Iterative-deepening A*: depth-first within a rising f bound; memory linear in depth.

    States on the current path are not revisited. Progress notes each iteration's bound.
    """

    def search(monitor: Monitor) -> Result:
        start = problem.start()
        bound = start_h = problem.h(start)
        expanded = generated = 0
        tracer = monitor.tracer
        heat = _heat(problem, monitor)

        def told(state: S, g: int, h: int, on_path: set[Hashable], depth: int) -> None:
            # A depth-first search meets a position's children between the expansions below
            # them, so the tracer hears them all now, judged as the loop below will judge them.
            assert tracer is not None
            tracer.expand(problem.display(state), g, h, g + h, depth)
            for action, child, rule in problem.left_out(state):
                tracer.child(action, problem.display(child), "dead", rule)
            for action, child, cost in problem.successors(state):
                shown = problem.display(child)
                child_h = problem.h(child)
                if problem.key(child) in on_path:
                    tracer.child(action, shown, "seen")
                elif child_h < 0:
                    tracer.child(action, shown, "dead", NO_GOAL)
                elif g + cost + child_h > bound:
                    tracer.child(action, shown, "pruned", over_bound(g + cost + child_h, bound))
                else:
                    tracer.child(action, shown, "new")

        while bound <= max_bound:
            monitor.note = f"f-bound {bound}"
            monitor.tick(expanded, generated, 0, bound, force=True)
            next_bound: float = float("inf")
            on_path = {problem.key(start)}
            path: list[Action] = []
            # Each frame: (state, g, iterator over its successors).
            stack = [(start, 0, iter(problem.successors(start)))]
            if problem.is_goal(start):
                return monitor.result("solved", moves=[], cost=0, optimal=True)
            expanded += 1
            if heat is not None:
                heat.add(problem.pieces(start))
            if tracer is not None:
                told(start, 0, start_h, on_path, 0)
            while stack:
                state, g, children = stack[-1]
                step = next(children, None)
                if step is None:
                    stack.pop()
                    on_path.discard(problem.key(state))
                    if path:
                        path.pop()
                    continue
                action, child, cost = step
                child_key = problem.key(child)
                if child_key in on_path:
                    continue
                generated += 1
                child_g = g + cost
                h = problem.h(child)
                if h < 0:
                    continue
                f = child_g + h
                if f > bound:
                    next_bound = min(next_bound, f)
                    continue
                if problem.is_goal(child):
                    path.append(action)
                    moves = [token for act in path for token in act]
                    monitor.tick(expanded, generated, len(stack), bound, force=True)
                    return monitor.result("solved", moves=moves, cost=child_g, optimal=True)
                expanded += 1
                if heat is not None:
                    heat.add(problem.pieces(child))
                if monitor.closest_h is None or h < monitor.closest_h:
                    monitor.closer(
                        h,
                        lambda child=child: problem.display(child),
                        lambda done=path, act=action: [t for step in [*done, act] for t in step],
                    )
                if expanded % monitor.stride == 0:
                    monitor.tick(
                        expanded,
                        generated,
                        len(stack),
                        bound,
                        lambda child=child: problem.display(child),
                    )
                path.append(action)
                on_path.add(child_key)
                if tracer is not None:
                    told(child, child_g, h, on_path, len(stack))
                stack.append((child, child_g, iter(problem.successors(child))))
            if next_bound == float("inf"):
                return monitor.result("unsolvable")
            bound = int(next_bound)
        return monitor.result("unsolvable")

    return run_search(search, monitor)
