"""The fast solver's portfolio: its searches taking turns on one level (solver.run_fast).

A member is one class (``Member``): it says what share of the compiled searches' memory it
takes (``share``), how it runs and starts over (``run``, ``again``), how near it has come in a
player's words (``note``), what it tells of a miss (``report``) and the closest position it
offers the player (``closest``). The table of members (``solver.MEMBERS``, one line each)
names the class that runs each kind of search; ``Portfolio`` asks the members and never their
kind: the shares, the two searches that meet in the middle, the turns, the notes, the closest
position and the report of a miss. docs/sokoban-solver.md describes the searches.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from webapp.games.sokoban.board import FAR, Board, cells_of, square_numbers
from webapp.games.sokoban.bound import LowerBound
from webapp.games.sokoban.compiled import MEMORY_SHARE, ArraysFull, CompiledSearch, Outcome, Pause
from webapp.games.sokoban.optimize import tokens_of
from webapp.games.sokoban.position import Position
from webapp.games.sokoban.rooms import SMALLEST_ROOM, GoalRoom, goal_rooms
from webapp.search import Monitor, Result, Stop

#: Expansions a search makes in each of its turns.
TURN = 2048

#: The positions a search has reached, for a search the other way to meet: its parent links
#: (the CPython searches) or the compiled search itself.
Table = dict | CompiledSearch


def stride(monitor: Monitor) -> int:
    """Expansions between ticks: large levels expand slowly; tick often enough that limits
    and progress stay timely."""
    return max(1, min(monitor.stride, 32))


def sampler(board: Board, player: int, boxes: int) -> Callable[[], Position]:
    return lambda: board.position(player, boxes)


#: The fast solver's order: priority = g + H_WEIGHT * h (a weighted best-first search).
H_WEIGHT = 10


class Kind(Enum):
    """What a setting searches with: each kind is run by one member class of the portfolio
    (portfolio.py, ``MEMBERS``). A kind may also be any name ``MEMBERS`` has a line for."""

    #: Compiled (compiled.py, kernels.search), weighted best-first by pushes from the start;
    #: the first one meets the first backward search.
    FORWARD = "forward"
    #: Compiled, weighted best-first by pulls from the goals back to the start.
    BACKWARD = "backward"
    #: Compiled forwards, the priority counting the floor the player cannot reach
    #: (``Tuning.mobility``); it takes MOBILE_SHARE of the compiled searches' memory and
    #: looks its children up in the backward search's table.
    OPEN_FLOOR = "open floor"
    #: Compiled forwards, bound by the pushes to the boxes of the nearest position the
    #: backward search has found rather than to the goals; it waits until that search has
    #: come within AIM_PULLS of the start, and starts again whenever it comes nearer.
    AIMED = "aimed"
    #: Compiled forwards: the plan search (plan.py), greedy on the goals filled in the
    #: packing order (packing.py) rather than by ``weight`` and ``penalty``, in runs.
    PLAN = "plan"
    #: In CPython (``_best_first``), with goal-room and tunnel macros when tuned so.
    CPYTHON_FORWARD = "cpython forward"
    #: In CPython (``_best_first_reverse``), by pulls.
    CPYTHON_BACKWARD = "cpython backward"


#: The kinds that search backwards, by pulls.
BACKWARDS = frozenset({Kind.BACKWARD, Kind.CPYTHON_BACKWARD})


@dataclass(frozen=True)
class Tuning:
    """How a search of some kind searches: the weight on h, pruning, order and turns. Each
    kind reads the fields that mean something to it."""

    weight: float = H_WEIGHT
    #: PI-corral pruning (forwards).
    corrals: bool = True
    #: CPython forwards: macro moves, filling blocks of goals in a fixed order (rooms.py) and
    #: pushing a box through a tunnel in one go; the search is then no longer a proof of
    #: unsolvability.
    macros: bool = True
    #: The fewest goals a block needs to count as a goal room.
    smallest_room: int = SMALLEST_ROOM
    #: Compiled: take children that put a box or the player somewhere new for their h first
    #: (kernels.search).
    novelty: bool = False
    #: Compiled: h units added to the priority forwards for each box on a room goal that
    #: shuts off a goal still empty (``GoalRoom.shuts``, rooms.py); backwards when the player
    #: cannot get back to the start's region.
    penalty: int = 0
    #: Turns of TURN expansions this search takes each round.
    turns: int = 1
    #: Compiled forwards: a corral that can never be opened makes a position dead
    #: (kernels._corral_dead), 1 for the quick test (the player getting into the corral
    #: counts as open), 2 for the strict one (its boxes must all get out or home).
    deadlocks: int = 0
    #: Compiled forwards: the priority counts this much for each free square the player
    #: cannot reach (kernels.search), so positions that open the floor to the player go
    #: first (the open floor, ``Kind.OPEN_FLOOR``).
    mobility: int = 0


@dataclass(frozen=True)
class Setting:
    """One member of the fast solver's portfolio: a kind of search and its tuning."""

    kind: Kind | str
    tuning: Tuning = Tuning()

    @property
    def reverse(self) -> bool:
        """Whether it searches backwards, by pulls from the goals."""
        return self.kind in BACKWARDS


class Member:
    """One search of the portfolio, as the turns see it: a run from the start that pauses
    and then says how it ended, and what the others and the player need of it. A new kind
    of search is a subclass and a line in ``MEMBERS``."""

    #: Forwards (by pushes) rather than backwards (by pulls).
    forwards: ClassVar[bool] = True
    #: The first member of a direction with ``leads`` is the one the other direction meets.
    leads: ClassVar[bool] = False
    #: Looks its children up in the table of the first search the other way (meeting it).
    meets: bool = False
    #: A search that ends the solve at the memory limit only with the others: while one of
    #: these is left, the turns go on without a search whose arrays are full.
    carries_on: ClassVar[bool] = False
    #: The compiled search it runs now, if any.
    compiled: CompiledSearch | None = None
    #: The positions it has reached, for a search the other way to meet.
    table: Table | None = None

    def __init__(self, portfolio: Portfolio, setting: Setting) -> None:
        self.portfolio, self.setting = portfolio, setting

    @classmethod
    def share(cls) -> float | None:
        """Its part of the compiled searches' memory (of MEMORY_SHARE), or None to split
        what the fixed parts leave with the other members that say None."""
        return 0.0

    def run(self) -> Generator[Pause, None, Outcome]:
        """Its search from the start."""
        raise NotImplementedError

    def again(self) -> bool:
        """Having run dry: True when it starts over in a wider space (``run`` again), False
        when running dry proved the level unsolvable."""
        return False

    def note(self) -> str | None:
        """How near it has come, in a player's words, for the live panel."""
        return search_note(self.compiled) if self.compiled is not None else None

    def report(self, result: Result) -> None:
        """Unsolved: what it adds to the result about how near it came."""

    def closest(self) -> tuple[int, int, int] | None:
        """The position it offers as the closest so far, forwards: (pushes still needed at
        least, player, boxes), or None."""
        return None

    def closest_pushes(self) -> list[int] | None:
        """The pushes from the solve's start to the position ``closest`` offers, where the
        search keeps them (its parents), else None."""
        return None


class Portfolio:
    """The fast solver's searches taking turns on one level (solver.run_fast): one member per
    setting, the compiled searches' memory shared out between them, the searches that meet
    linked, the turns, and how near the searches came.

    ``members`` names the class that runs each kind of search; ``polish`` makes the result
    of the pushes a member found (shortened, optimized, checked); ``settings`` are set by
    the caller before ``solve``."""

    def __init__(
        self,
        board: Board,
        position: Position,
        members: Mapping[Kind | str, type[Member]],
        polish: Callable[[Portfolio, list[int]], Result],
    ) -> None:
        self.board, self.position = board, position
        self.kinds, self.polish = members, polish
        self.bound = LowerBound(board)
        self._rooms: dict[int, list[GoalRoom]] = {}
        self.settings: tuple[Setting, ...] = ()
        self.members: list[Member] = []
        #: The first search of each direction: the two that meet in the middle.
        self.forward: Member | None = None
        self.backward: Member | None = None

    def boxes_taken(self) -> Callable[[int], None] | None:
        """What a member in CPython tells of each position it takes (its boxes, a bit set of
        cells): counted into the solve's heat map with the squares numbered as the compiled
        members number them, so that they all share one; None when nothing is counted."""
        board = self.board
        cells, index, _ = square_numbers(board)
        heat = self.monitor.heat_map(board.level.height, board.level.width, cells)
        if heat is None:
            return None
        add = heat.add
        return lambda boxes: add([index[cell] for cell in cells_of(boxes)])

    def rooms(self, size: int) -> list[GoalRoom]:
        """The level's goal rooms of at least ``size`` goals."""
        if size not in self._rooms:
            self._rooms[size] = goal_rooms(self.board, sorted(self.position.boxes), size)
        return self._rooms[size]

    @staticmethod
    def _shares(classes: list[type[Member]]) -> float:
        """The memory each member that states no share of its own gets: what the fixed
        shares leave, split between them."""
        shares = [member.share() for member in classes]
        fixed = sum(share for share in shares if share is not None)
        return MEMORY_SHARE * (1 - fixed) / max(1, shares.count(None))

    def meeting(self, member: Member) -> Table | None:
        """The table ``member`` looks its children up in: the first search the other way's."""
        other = self.backward if member.forwards else self.forward
        if not member.meets or other is None or other is member:
            return None
        return other.table

    def link(self, member: Member, search: CompiledSearch) -> None:
        """Hand a compiled search of ``member`` the compiled table it meets, if any."""
        other = self.meeting(member)
        if isinstance(other, CompiledSearch):
            search.partner = other

    def searches(self) -> list[CompiledSearch]:
        """The compiled searches running now, in the portfolio's order."""
        return [member.compiled for member in self.members if member.compiled is not None]

    def close(self) -> None:
        """Let go of the searches. Searches that meet link each other both ways, and each
        member refers to the portfolio: unlinked and dropped, their arrays (up to the memory
        limit) go at once, not at the next cyclic collection (kept until then, 40 Microban
        solves took 0.6-1.2 s instead of 0.15 s, in fresh pages of memory)."""
        for search in self.searches():
            search.partner = None
        self.members, self.runs = [], []
        self.forward = self.backward = None

    def _join(self) -> None:
        """Make the members, share out the memory, and pick the two that meet."""
        classes = [self.kinds[setting.kind] for setting in self.settings]
        self.share = self._shares(classes)
        members = self.members = [
            member(self, setting) for member, setting in zip(classes, self.settings, strict=True)
        ]
        self.forward = next((m for m in members if m.leads and m.forwards), None)
        self.backward = next((m for m in members if m.leads and not m.forwards), None)

    def solve(self, monitor: Monitor) -> Result:
        """The turns, until a search solves the level or proves it unsolvable."""
        board, position = self.board, self.position
        boxes = board.boxes_of(position)
        self.monitor, self.stride = monitor, stride(monitor)
        if boxes == board.goal_mask:
            return self.polish(self, [])
        if boxes & board.dead or self.bound(boxes) >= FAR:
            return monitor.result("unsolvable")
        self._join()
        self.runs = [member.run() for member in self.members]
        # Work done by each member, including runs it finished before starting over.
        self.done = [(0, 0)] * len(self.members)
        self.totals = [(0, 0)] * len(self.members)
        # Members whose arrays are full, with none left to meet them: they take no turns.
        self.spent: set[int] = set()
        pauses = max(1, TURN // self.stride)
        self.closest_pushes: list[int] | None = None
        try:
            while True:
                for index, member in enumerate(self.members):
                    if index not in self.spent:
                        result = self._turn(index, pauses * member.setting.tuning.turns)
                        if result is not None:
                            return result
        except Stop:
            self._moves_to_closest()
            raise

    def _turn(self, index: int, pauses: int) -> Result | None:
        """One turn of member ``index``: a result when the solve ends with it."""
        for _ in range(pauses):
            try:
                expanded, generated, frontier, depth, player, boxes = next(self.runs[index])
            except ArraysFull:
                self._retire(index)
                return None
            except StopIteration as finished:
                return self._finish(index, finished.value)
            done = self.done[index]
            self.totals[index] = (done[0] + expanded, done[1] + generated)
            expanded, generated = map(sum, zip(*self.totals, strict=True))
            self.monitor.note = self.note()
            self._offer_closest()
            sample = sampler(self.board, player, boxes)
            self.monitor.tick(expanded, generated, frontier, depth, sample)
        return None

    def note(self) -> str:
        """How near the members have come, and how many positions the corral test dropped."""
        parts = [note for note in (member.note() for member in self.members) if note]
        dropped = sum(search.dead_corrals for search in self.searches())
        if dropped:
            parts.append(dropped_note(dropped))
        return "; ".join(parts)

    def _offer_closest(self) -> None:
        """The position a forward search has queued with the fewest pushes still needed at
        least (its matching bound), kept as the closest so far: where a player may take
        over when the solve stops short."""
        offers = [
            (offer, member) for member in self.members if (offer := member.closest()) is not None
        ]
        if not offers:
            return
        (best, player, boxes), member = min(offers, key=lambda pair: pair[0][0])
        if self.monitor.closest_h is None or best < self.monitor.closest_h:
            self.monitor.closer(best, sampler(self.board, player, boxes))
            # The pushes there, read from the member's parents now (the estimate only
            # falls, so a few times a solve): its arrays may start over before the stop.
            self.closest_pushes = member.closest_pushes()

    def _moves_to_closest(self) -> None:
        """As the solve stops: the moves from its start to the closest position kept, a
        walk to each push, so a player can take over there on the same level."""
        if self.closest_pushes is None or self.monitor.closest is None:
            return
        try:
            tokens = tokens_of(self.board, self.position, self.closest_pushes)
        except ValueError:  # pushes that do not lead there: no moves offered
            return
        self.monitor.closest_moves = tokens

    def _retire(self, index: int) -> None:
        """Member ``index`` has filled its arrays and none is left to meet it: the others go
        on while one that carries on is left (the plan search starts new runs in arrays of
        its own; beside a full open-floor search, a tenth of the memory, the rest have the
        time), else the solve ends at the memory limit."""
        self.spent.add(index)
        members = self.members
        if not any(members[i].carries_on for i in range(len(members)) if i not in self.spent):
            raise ArraysFull()

    def _finish(self, index: int, outcome: Outcome) -> Result | None:
        """Member ``index`` has ended: a solution, a proof, or (macros) a start over."""
        pushes, expanded, generated = outcome
        done = self.done[index]
        self.done[index] = self.totals[index] = (done[0] + expanded, done[1] + generated)
        self.monitor.tick(*map(sum, zip(*self.totals, strict=True)), force=True)
        if pushes is not None:
            return self.polish(self, pushes)
        member = self.members[index]
        if not member.again():
            # Without macros every kind searches the same space soundly: one exhausted
            # search proves there is no solution.
            return self.monitor.result("unsolvable")
        self.runs[index] = member.run()
        return None

    def report(self, result: Result) -> None:
        """Unsolved: how near each member came (what the bench reports for a miss)."""
        for member in self.members:
            member.report(result)


def search_note(search: CompiledSearch) -> str | None:
    """How near one compiled search has come, in a player's words: forwards the fewest
    pushes any position found still needs at least (its matching bound), backwards the
    fewest pulls any position found is still from the start, and the same for the search
    that opens up the floor, the plan search and the aimed one."""
    if search.closest >= FAR:
        return None
    if search.planned:
        again = ""
        if search.run_number:
            number = search.run_number
            times = "once" if number == 1 else f"{number} times"
            again = f" (started over {times}, taking the boxes in another order)"
        return (
            f"filling the goals in the order they must be filled: {search.filled} of"
            f" {search.targets} at best so far{again}"
        )
    if search.aimed:
        return f"heading for the nearest of those, {search.closest}+ pushes away"
    if search.reverse:
        return f"back from the goals, {search.closest}+ pulls short of this position"
    if search.mobility:
        return f"opening up the floor for the player, {search.closest}+ more pushes at best"
    return f"the nearest position found needs {search.closest}+ more pushes"


def dropped_note(dropped: int) -> str:
    """The positions the corral test dropped, in a player's words."""
    return (
        f"{dropped:,} position{'s' if dropped > 1 else ''} dropped: boxes shut off floor"
        " the player could never get back to"
    )


def closest_note(searches: Iterable[CompiledSearch]) -> str:
    """How near the compiled searches have come (``search_note``, in their order), and how
    many positions the corral test dropped."""
    searches = list(searches)
    parts = [note for note in map(search_note, searches) if note]
    dropped = sum(search.dead_corrals for search in searches)
    if dropped:
        parts.append(dropped_note(dropped))
    return "; ".join(parts)
