"""Breadth-first solvers for sliding blocks in three move conventions, and distance tables.

Each solver runs a breadth-first search over the integer positions of ``space.Space``, one
layer per move: a unit step, a slide in one line, or a piece's whole journey along any path.
Whatever the convention, the solution is returned as unit steps in the game's notation.
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache

from webapp.games.base import Algorithm
from webapp.games.blocks.level import Level, Position, board_text, parse_collection
from webapp.games.blocks.space import METRICS, Looked, Space
from webapp.search import Heat, Monitor, Result, Stop, Tracer, run_search

#: The largest reachable space a distance table is built for.
TABLE_LIMIT = 500_000


def _space_of(level: Level) -> Space:
    return _cached_space(board_text(level))


@lru_cache(maxsize=16)
def _cached_space(board: str) -> Space:
    return Space(parse_collection(board)[0])


def search(level: Level, places: tuple[int, ...], metric: str, monitor: Monitor) -> Result:
    """Breadth-first search from ``places``, optimal in ``metric``; one layer per move."""
    space = _space_of(level)
    goal_mask, goal_value = space.goal_mask, space.goal_value

    # The position each tick shows (``at``): where a limit stops the search, the moves there
    # are rebuilt from the parents, once, for the player to take over on this level.
    at = space.encode(places)
    parents: dict[int, int | None] = {}

    def run(monitor: Monitor) -> Result:
        try:
            return layers(monitor)
        except Stop:
            monitor.stopped_here(
                lambda: Position(_followed(space, parents, places, at)),
                lambda: _unit_path(space, parents, at),
            )
            raise

    def layers(monitor: Monitor) -> Result:
        nonlocal at
        start = space.encode(places)
        parents[start] = None
        if start & goal_mask == goal_value:
            return monitor.result("solved", moves=[], cost=0, optimal=True)
        layer = [start]
        depth = expanded = 0
        generated = 1
        stride = monitor.stride
        tracer = monitor.tracer
        # Traced, each position is shown as the moves made it, same-shaped pieces unswapped.
        shown: dict[int, tuple[int, ...]] = {start: places}
        counts = monitor.heat_map(level.height, level.width)
        heat = _Occupied(space, counts) if counts is not None else None
        children = space.children(metric, heat.looked if heat is not None else None)
        while layer:
            at = layer[0]
            monitor.tick(
                expanded,
                generated,
                len(layer),
                depth,
                lambda sample=layer[0]: Position(space.decode(sample)),
                force=True,
            )
            depth += 1
            following: list[int] = []
            first = expanded
            for key in layer:
                expanded += 1
                if expanded % stride == 0:
                    if heat is not None and len(heat.looked) >= heat.BATCH:
                        heat.count()
                    at = key
                    monitor.tick(
                        expanded,
                        generated,
                        len(layer) + len(following),
                        depth,
                        lambda key=key: Position(space.decode(key)),
                    )
                if tracer is not None:
                    waiting = len(layer) - (expanded - first) + len(following)
                    here = shown.pop(key)
                    tracer.expand(Position(here), depth - 1, 0, depth - 1, waiting)
                for child in children(key):
                    if child in parents:
                        if tracer is not None:
                            _tell(tracer, space, (key, here), child, "seen")
                        continue
                    parents[child] = key
                    generated += 1
                    if tracer is not None:
                        shown[child] = _tell(tracer, space, (key, here), child, "new")
                    if child & goal_mask == goal_value:
                        monitor.tick(expanded, generated, 0, depth, force=True)
                        moves = _unit_path(space, parents, child)
                        return monitor.result(
                            "solved",
                            moves=moves,
                            cost=depth,
                            optimal=True,
                            extra={"positions": len(parents)},
                        )
                    following.append(child)
            layer = following
        monitor.tick(expanded, generated, 0, depth, force=True)
        return monitor.result("unsolvable", extra={"positions": len(parents)})

    return run_search(run, monitor)


class _Occupied:
    """The cells under a piece in each position a search looks at, for its heat map. Moves
    are found from a position's empty cells, so the search notes those (``Space.children``'s
    ``looked``: one append or one count a position); they are turned into counts per cell
    only when the heat map is read, or a batch is full. A level has few sets of empty cells
    (190 in a Klotski with two), so the counting is a lookup per set, not per position."""

    #: Positions noted before they are counted anyway (memory: a few MB at most).
    BATCH = 1 << 16

    def __init__(self, space: Space, heat: Heat):
        import numpy as np

        self.np = np
        self.heat = heat
        self.looked = Looked()
        self.bits, self.flags = space.bits, space.flags
        self.cells = space.level.width * space.level.height
        #: Each set of empty cells met (its flags) -> its row of ``under``: 1 for each cell
        #: under a piece when those cells are empty.
        self.row: dict[int, int] = {}
        self.rows: list[list[int]] = []
        self.under = np.zeros((0, self.cells), np.int64)
        heat.pending.append(self.count)

    def count(self) -> None:
        """Add the positions noted so far to the heat map: one product of the times each
        set of empty cells was met with the cells each leaves under a piece."""
        np, bits, row = self.np, self.bits, self.row
        tally = self.looked.take()
        if not tally:
            return
        for empty in tally:
            if empty not in row:
                covered = self.flags & ~empty  # floor, not empty: under a piece
                row[empty] = len(self.rows)
                self.rows.append([covered >> (bits * cell) & 1 for cell in range(self.cells)])
        if len(self.rows) != len(self.under):
            self.under = np.array(self.rows, np.int64)
        times = np.fromiter(tally.values(), np.int64, len(tally))
        which = np.fromiter((row[empty] for empty in tally), np.int64, len(tally))
        self.heat.counts[: self.cells] += times @ self.under[which]
        self.heat.counts[-1] += int(times.sum())


def _tell(
    tracer: Tracer, space: Space, parent: tuple[int, tuple[int, ...]], child: int, verdict: str
) -> tuple[int, ...]:
    """Tell ``tracer`` of a child of ``parent`` (its key and places): the unit steps to it,
    and the position they make; return that position's places."""
    key, before = parent
    after = list(space.decode(child))
    # decode places same-shaped pieces in board order; keep each where the move left it.
    for members in space.members:
        free = [after[index] for index in members]
        stay = [before[index] for index in members if before[index] in free]
        moved = [place for place in free if place not in stay]
        for index in members:
            after[index] = before[index] if before[index] in stay else moved.pop(0)
    places = tuple(after)
    tracer.child(space.unit_steps(key, child), Position(places), verdict)
    return places


def _unit_path(space: Space, parents: dict[int, int | None], key: int) -> list[str]:
    chain = [key]
    parent = parents[key]
    while parent is not None:
        chain.append(parent)
        parent = parents[parent]
    chain.reverse()
    moves = zip(chain, chain[1:], strict=False)
    return [token for before, after in moves for token in space.unit_steps(before, after)]


def _followed(
    space: Space, parents: dict[int, int | None], places: tuple[int, ...], key: int
) -> tuple[int, ...]:
    """The places of position ``key`` as the moves from ``places`` leave each piece: the
    search's keys do not tell same-shaped pieces apart, a player's game does (their letters
    stay where the moves took them)."""
    chain = [key]
    while (parent := parents[chain[-1]]) is not None:
        chain.append(parent)
    followed = list(places)
    for step in reversed(chain[:-1]):
        after = set(space.decode(step))
        (left,) = set(followed) - after  # one piece moves a step
        (reached,) = after - set(followed)
        followed[followed.index(left)] = reached
    return tuple(followed)


def _runner(metric: str) -> Callable[[Level, Position, Monitor], Result]:
    def run(level: Level, state: Position, monitor: Monitor) -> Result:
        return search(level, state.places, metric, monitor)

    return run


ALGORITHMS: dict[str, Algorithm] = {
    "path": Algorithm(
        name="path",
        summary="Breadth-first, fewest path moves (a piece moved along any path counts one)",
        metric="path_moves",
        optimal=True,
        run=_runner("path_moves"),
        steps=True,
        label="breadth-first (fewest path moves, proved)",
    ),
    "line": Algorithm(
        name="line",
        summary="Breadth-first, fewest line moves (a piece slid any distance one way counts one)",
        metric="line_moves",
        optimal=True,
        run=_runner("line_moves"),
        steps=True,
        label="breadth-first (fewest line moves, proved)",
    ),
    "steps": Algorithm(
        name="steps",
        summary="Breadth-first, fewest unit steps (each one-cell slide counts one)",
        metric="steps",
        optimal=True,
        run=_runner("steps"),
        steps=True,
        label="breadth-first (fewest steps, proved)",
    ),
}


# -- distance tables -------------------------------------------------------------------------
def position_key(level: Level, places: tuple[int, ...]) -> int:
    """The key of a position in a distance table (same-shaped pieces are interchangeable)."""
    return _space_of(level).encode(places)


#: Tables kept in memory, most recently used last.
TABLES_KEPT = 8
_tables: OrderedDict[tuple[str, str, int], dict[int, int] | None] = OrderedDict()
_tables_lock = threading.Lock()


def distance_table(level: Level, metric: str, limit: int = TABLE_LIMIT) -> dict[int, int] | None:
    """Moves to the goal from every position reachable from the level's start that can reach
    it, keyed by ``position_key``; None when more than ``limit`` positions are reachable."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")
    cache_key = (board_text(level), metric, limit)
    with _tables_lock:
        if cache_key in _tables:
            _tables.move_to_end(cache_key)
            return _tables[cache_key]
    table = _build_table(cache_key[0], metric, limit)
    with _tables_lock:
        _tables[cache_key] = table
        while len(_tables) > TABLES_KEPT:
            _tables.popitem(last=False)
    return table


def cached_distance_table(
    level: Level, metric: str, limit: int = TABLE_LIMIT
) -> dict[int, int] | None:
    """The table if it is already built in this process, else None; never builds it."""
    with _tables_lock:
        return _tables.get((board_text(level), metric, limit))


def table_known(level: Level, metric: str, limit: int = TABLE_LIMIT) -> bool:
    """True when this process has the table, or knows the space is too large for one."""
    with _tables_lock:
        return (board_text(level), metric, limit) in _tables


def install_table(
    level: Level, metric: str, table: dict[int, int] | None, limit: int = TABLE_LIMIT
) -> None:
    """Keep a table built elsewhere (in another process) as if it had been built here."""
    with _tables_lock:
        _tables[(board_text(level), metric, limit)] = table
        while len(_tables) > TABLES_KEPT:
            _tables.popitem(last=False)


def clear_caches() -> None:
    """Forget every table and move table (for measurements)."""
    with _tables_lock:
        _tables.clear()
    _cached_space.cache_clear()


def _build_table(board: str, metric: str, limit: int) -> dict[int, int] | None:
    level = parse_collection(board)[0]
    space = _cached_space(board)
    children = space.children(metric)
    start = space.encode(level.places)
    # Enumerate the reachable positions breadth-first, keeping the move graph as flat arrays
    # (neighbours of position i are targets[ends[i-1]:ends[i]]) so that the second search,
    # backwards from the goals, needs no move generation at all.
    index = {start: 0}
    keys = [start]
    targets = array("i")
    ends = array("i")
    i = 0
    while i < len(keys):
        for child in children(keys[i]):
            j = index.get(child)
            if j is None:
                j = index[child] = len(keys)
                keys.append(child)
                if j >= limit:
                    return None
            targets.append(j)
        ends.append(len(targets))
        i += 1
    goal_mask, goal_value = space.goal_mask, space.goal_value
    distance = array("i", [-1]) * len(keys)
    layer = [j for j, key in enumerate(keys) if key & goal_mask == goal_value]
    for j in layer:
        distance[j] = 0
    depth = 0
    while layer:
        depth += 1
        following = []
        for j in layer:
            for t in targets[ends[j - 1] if j else 0 : ends[j]]:
                if distance[t] < 0:
                    distance[t] = depth
                    following.append(t)
        layer = following
    return {key: distance[j] for j, key in enumerate(keys) if distance[j] >= 0}


def _table(level: Level, metric: str, build: bool) -> dict[int, int] | None:
    return distance_table(level, metric) if build else cached_distance_table(level, metric)


def build_table(level: Level, metric: str, limit: int = TABLE_LIMIT) -> dict[int, int] | None:
    """A distance table built now and not kept here (for a caller that keeps its own)."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")
    return _build_table(board_text(level), metric, limit)


def moves_left(
    level: Level, places: tuple[int, ...], metric: str, build: bool = True
) -> int | None:
    """The fewest moves (in ``metric``) from this position to the goal; None when unknown:
    the space is too large for a table, the goal cannot be reached from here, or (with
    ``build=False``) the table has not been built in this process yet."""
    return moves_left_in(_table(level, metric, build), level, places)


def moves_left_in(
    table: dict[int, int] | None, level: Level, places: tuple[int, ...]
) -> int | None:
    """The fewest moves to the goal by ``table``; None without a table or a way to the goal."""
    if table is None:
        return None
    return table.get(position_key(level, places))


def hint(
    level: Level, places: tuple[int, ...], metric: str, build: bool = True
) -> list[str] | None:
    """The unit steps of the next move of a shortest solution; [] when solved, None when
    unknown (no table, or no solution from here)."""
    return hint_in(_table(level, metric, build), level, places, metric)


def hint_in(
    table: dict[int, int] | None, level: Level, places: tuple[int, ...], metric: str
) -> list[str] | None:
    """The next move of a shortest solution by ``table`` (a table in ``metric``)."""
    if table is None:
        return None
    space = _space_of(level)
    key = space.encode(places)
    left = table.get(key)
    if left is None:
        return None
    if left == 0:
        return []
    for tokens, child in space.successors(key, metric):
        if table.get(child) == left - 1:
            return tokens
    return None
