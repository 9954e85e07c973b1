"""Records: what every player's best on a level adds up to (the best by anyone, how many
solved it, the median), the leaderboards of a level and of a collection, and a player's
result set beside the best possible. Assisted wins never count: the store keeps them apart;
nor do wins played faster than a person could (``paced``): kept, but not ranked.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from webapp.games.base import Game
from webapp.storage.store import Store

#: A person's pace, the floor a real fast player never reaches: one move every 25 ms
#: sustained (40 a second, the moves budget's own rate; a key held down repeats at most 30
#: a second, and a fast player types a solution at under 10). An attempt starts with room
#: for 12 moves at once (a game's first keys, a piece dragged along its path), and the room
#: it earns back while nothing comes grows to 80: the page sends the keys that queued behind
#: a slow answer together (a two-second stall at the door, typed through at 10 keys a
#: second, is 20 of them). A page sends one key's move (or one drag) a text, so a solution
#: posted whole at the start comes as one burst beyond the 12; posted later it needs the
#: time a person at the floor would have taken.
MOVE_FLOOR_SECONDS = 0.025
BURST_MOVES = 12.0
MOST_CREDIT = 80.0

#: Rows a leaderboard shows.
BOARD_ROWS = 10
ANONYMOUS = "anonymous"


@dataclass
class Row:
    place: int
    name: str
    figures: dict[str, int]
    mine: bool = False


@dataclass
class Records:
    """One level's records in the game's counters (the first counts first)."""

    solvers: int = 0
    best: dict[str, int] = field(default_factory=dict)
    median: dict[str, float] = field(default_factory=dict)
    board: list[Row] = field(default_factory=list)


def _order(game: Game, figures: dict[str, int]) -> tuple[int, ...]:
    return tuple(figures.get(name, 1 << 30) for name in game.counters)


def level_records(store: Store, game: Game, level_key: str, player: str = "") -> Records:
    results = store.level_results(game.name, level_key)
    if not results:
        return Records()
    ranked = sorted(results, key=lambda row: (_order(game, row[2]), row[0]))
    board = [
        Row(place, name or ANONYMOUS, figures, who == player)
        for place, (who, name, figures) in enumerate(ranked, 1)
        if place <= BOARD_ROWS or who == player
    ]
    best = {n: min(r[2][n] for r in results if n in r[2]) for n in game.counters}
    median = {n: statistics.median(r[2][n] for r in results if n in r[2]) for n in game.counters}
    return Records(len(results), best, median, board)


def collection_board(store: Store, game: Game, slug: str, player: str = "") -> list[Row]:
    """Players by levels solved in a collection, then by their total in the first counter."""
    tally: dict[str, list[Any]] = {}
    first = game.counters[0]
    for who, name, figures in store.collection_results(game.name, f"{slug}/"):
        entry = tally.setdefault(who, [name, 0, 0])
        entry[1] += 1
        entry[2] += figures.get(first, 0)
    ranked = sorted(tally.items(), key=lambda item: (-item[1][1], item[1][2], item[0]))
    return [
        Row(place, name or ANONYMOUS, {"levels": solved, first: total}, who == player)
        for place, (who, (name, solved, total)) in enumerate(ranked, 1)
        if place <= BOARD_ROWS or who == player
    ]


@dataclass
class Benchmark:
    """The figure a result is measured against: the optimum (proved) or the best known."""

    value: int
    metric: str
    proved: bool
    replay: str = ""  # a solution that reaches it, as a move string, where there is one


def _count(n: int, unit: str) -> str:
    """ "1 move", "2 moves", "1 push", "1 path move" (as partials/words.html counts)."""
    if n != 1:
        return f"{n} {unit}"
    return f"{n} {unit[:-2] if unit.endswith('shes') else unit.removesuffix('s')}"


def against(figures: dict[str, int], mark: Benchmark | None) -> str:
    """A result beside the benchmark, e.g. "43 moves; the best possible is 41"."""
    if mark is None or mark.metric not in figures:
        return ""
    mine, value = figures[mark.metric], mark.value
    unit = mark.metric.replace("_", " ")
    result = _count(mine, unit)
    if mark.proved:
        if mine <= value:
            return f"{result}, the best possible."
        return f"{result}; the best possible is {value}."
    if mine < value:
        return f"{result}, better than the best known ({value})."
    if mine == value:
        return f"{result}, equal to the best known."
    return f"{result}; the best known is {value}."


@dataclass(frozen=True)
class Pace:
    """The pace of one attempt: how many moves may still come at once (``credit``: BURST_MOVES
    at the start, earned back at one per MOVE_FLOOR_SECONDS up to MOST_CREDIT), when the last
    came, and whether more came at once than a person plays (then no win of this attempt is
    ranked)."""

    credit: float
    at: float
    hasty: bool = False


def paced(before: Pace | None, now: float, moves: int, fresh: bool) -> Pace:
    """The attempt's pace after ``moves`` moves came at ``now`` (clicks count one each: the
    server works out their path). ``fresh``: the board showed no move before them, so a new
    attempt starts with a full burst."""
    if before is None or fresh:
        credit, hasty = BURST_MOVES, False
    else:
        earned = max(0.0, now - before.at) / MOVE_FLOOR_SECONDS
        credit, hasty = min(max(MOST_CREDIT, BURST_MOVES), before.credit + earned), before.hasty
    credit -= moves
    return Pace(max(0.0, credit), now, hasty or credit < 0)
