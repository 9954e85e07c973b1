"""FESS, the feature-space search (after Shoham and Schaeffer, "The FESS Algorithm: A Feature
Based Approach to Single-Agent Search", CoG 2020), as a member of the fast solver's portfolio.

A position is seen through four features (``FeatureSpace``):

- **packed**: the targets filled in the packing order (packing.py), phase by phase;
- **regions**: the floor regions the boxes cut the free floor into (the player is in one);
- **room links**: links between rooms of open floor that boxes now block;
- **out of plan**: boxes on squares from which no goal still to fill can be reached once the
  goals packed so far are walls.

Each expanded position belongs to the *cell* of the best feature vector on its path from the
start. The search cycles over the cells (every other turn it takes the cell of the best
position so far); in each it expands the most promising move of a position of that cell: the
one of least *weight*, the moves along its path no advisor suggested (``FessSearch._pick``).
At each position four *advisors* (packing, regions, room links, out of plan) each suggest the
child that improves their feature most without packing less; their moves cost nothing, every
other move costs one. So the search follows advice as far as it goes in every cell at once,
and takes an unadvised move only when advice runs out.

A move takes one box to any square it can reach by pushes, the other boxes still
(``box_moves``), as FESS's moves do: a box taken through a tunnel or into its goal room is one
move. The first push of a move is one the PI-corral test leaves; a child frozen off goal (the
freeze test) or with no matching of boxes to goals (the bound) is dead and never queued.
Single pushes are moves too, so the search loses no position and running dry is a proof.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from itertools import count
from typing import TYPE_CHECKING

from webapp.games.sokoban.board import FAR, Board, lowest_cell
from webapp.games.sokoban.bound import LowerBound
from webapp.games.sokoban.compiled import MEMORY_SHARE, PLAYER_BITS, ArraysFull, Outcome, Pause
from webapp.games.sokoban.portfolio import Member, Portfolio, Setting
from webapp.games.sokoban.position import Position
from webapp.search import Result

if TYPE_CHECKING:
    from webapp.games.sokoban.packing import Packing  # numba: loaded by whoever makes one

#: A position's score, least first: (-packed, regions, room links, out of plan, bound).
Score = tuple[int, int, int, int, int]
#: A cell: the four features of a score.
Cell = tuple[int, int, int, int]


def open_rooms(board: Board) -> list[int]:
    """The rooms of open floor: squares of 2 x 2 floor joined side by side (a lone square is
    no room), each a bitboard; a cell two rooms share at a corner belongs to neither."""
    width, floor = board.width, board.floor
    blocks = floor & floor >> 1 & floor >> width & floor >> (width + 1)
    joined = blocks & (blocks << 1 | blocks >> 1 | blocks << width | blocks >> width)
    rooms = []
    while joined:
        part = frontier = joined & -joined
        while frontier:
            grown = board.grow(frontier) & joined
            frontier = grown & ~part
            part |= frontier
        joined &= ~part
        rooms.append(part | part << 1 | part << width | part << (width + 1))
    shared = 0
    for number, room in enumerate(rooms):
        for other in rooms[number + 1 :]:
            shared |= room & other
    return [room & ~shared for room in rooms]


@dataclass
class FeatureSpace:
    """The four features of FESS for one level, given its packing order."""

    board: Board
    packing: Packing
    rooms: list[int] = field(init=False)
    links: frozenset[tuple[int, int]] = field(init=False)

    def __post_init__(self) -> None:
        from webapp.games.sokoban.features import Floor  # numba, as compiled.py

        board = self.board
        self.rooms = open_rooms(board)
        self.floor = Floor(board, self.rooms)
        self.phases = [sum(1 << cell for cell in phase) for phase in self.packing.phases]
        goals = board.goal_mask
        #: Per phase, its parking squares and the goals of the phase each one's box goes on to.
        self.parked = [
            [(1 << square, self.phases[phase] & goals) for square, phase in self._releases(n)]
            for n in range(len(self.phases))
        ]
        self._zones: dict[int, int] = {}
        self.links = self.floor.links(0)
        #: Per phase: its targets, how many, its parking squares, its goals.
        self._order = [
            (phase, phase.bit_count(), parked, phase & goals)
            for phase, parked in zip(self.phases, self.parked, strict=True)
        ]

    def _releases(self, phase: int) -> list[tuple[int, int]]:
        release = self.packing.release
        return [(cell, release[cell]) for cell in self.packing.phases[phase] if cell in release]

    @property
    def targets(self) -> int:
        """The targets of the packing order (goals and parking squares)."""
        return sum(len(phase) for phase in self.packing.phases)

    def features(self, boxes: int) -> Cell:
        """The four features of a position."""
        packed, walls = self.packed(boxes)
        regions, blocked = self.floor.features(boxes)
        return packed, regions, blocked, self.out_of_plan(boxes, walls)

    def packed(self, boxes: int) -> tuple[int, int]:
        """The targets filled in the packing order, phase by phase (a parking square counts
        once its box has gone on to a goal of its phase), and the goals of the phases filled
        whole."""
        packed = walls = 0
        for phase, size, parked, goals in self._order:
            done = (boxes & phase).bit_count()
            for square, later in parked:
                if not boxes & square and boxes & later:
                    done += 1
            packed += done
            if done < size:
                break
            walls |= goals
        return packed, walls

    def regions(self, boxes: int) -> int:
        """The regions the free floor makes with the boxes in it."""
        return self.floor.features(boxes)[0]

    def blocked(self, boxes: int) -> int:
        """The links between rooms of the empty level that the boxes cut."""
        return self.floor.features(boxes)[1]

    def out_of_plan(self, boxes: int, walls: int) -> int:
        """Boxes on squares from which no goal still to fill can be reached, the goals of
        the phases filled whole being walls."""
        zone = self._zones.get(walls)
        if zone is None:
            board = self.board
            floor = board.floor & ~walls
            # Every square some goal left is pulled back to, breadth-first from them all.
            reached = frontier = board.goal_mask & ~walls
            while frontier:
                grown = 0
                for _letter, offset in board.directions:
                    if offset > 0:
                        grown |= frontier << offset & floor & floor >> offset
                    else:
                        grown |= frontier >> -offset & floor & floor << -offset
                frontier = grown & ~reached
                reached |= frontier
            zone = self._zones[walls] = board.live & ~walls & ~reached
        return (boxes & zone).bit_count()


def box_moves(space: FeatureSpace, boxes: int, player: int) -> list[tuple]:
    """FESS's moves: each box the player can push (of those the PI-corral test leaves, when
    there is a corral) taken to every square it can reach by pushes, the other boxes still; a move
    per square and player region. Each is (box, where it ends, its pushes, where the player
    ends, the lowest cell of the player's region then). A single push is one of them, so no
    position reachable by pushes is lost."""
    board = space.board
    region = board.reach(player, boxes)
    first = board.corral_pushes(boxes, region)
    if first is None:
        first = list(board.pushes(boxes, region))
    moves = []
    for box in sorted({box for box, _offset, _direction in first}):
        moves.extend(space.floor.box_paths(boxes, box, player))
    return moves


def flat(path: int | tuple) -> list[int]:
    """The pushes of a move: one push, or a chain (the pushes before, the last push)."""
    pushes = []
    while isinstance(path, tuple):
        path, push = path
        pushes.append(push)
    pushes.append(path)
    return pushes[::-1]


#: A child of an expanded position: [weight, score, key, boxes, where the player ends, pushes].
Child = list


class Node:
    """An expanded position: its children with their weights and scores, and its place in
    the tree (the path's weight, its best score so far)."""

    __slots__ = ("boxes", "key", "parent", "push", "weight", "player", "best", "children", "depth")

    def __init__(
        self, boxes: int, key: int, parent: Node | None, push, weight: int, player: int
    ) -> None:
        self.boxes, self.key, self.parent, self.push = boxes, key, parent, push
        self.player = player
        self.weight, self.depth = weight, 0 if parent is None else parent.depth + 1
        self.best: Score = (0, 0, 0, 0, 0)
        self.children: list[Child] = []

    def pushes(self) -> list[int]:
        """The pushes from the start to this position."""
        pushes: list[int] = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            pushes.extend(reversed(flat(node.push)))
            node = node.parent
        return pushes[::-1]


#: The advisors' tests on a child's score against its parent's: packing fills a target
#: more, the others bring a feature down without packing less.
ADVISORS = (
    lambda child, base: child[0] < base[0],
    lambda child, base: child[0] <= base[0] and child[1] < base[1],
    lambda child, base: child[0] <= base[0] and child[2] < base[2],
    lambda child, base: child[0] <= base[0] and child[3] < base[3],
)
#: Roughly the bytes a position of the search takes in CPython, with its children (XSokoban
#: 16 and 29 at 10 s: 14 k positions, 70-80 MB more than the bench held before).
NODE_BYTES = 6000
#: Its share of the compiled searches' memory in the portfolio (portfolio.Fess).
SHARE = 0.2
#: Expansions between pauses (a turn of the portfolio counts pauses): an expansion here takes
#: one to ten milliseconds, so a pause lasts about a compiled search's slice (10 ms).
PAUSE = 4


def capacity(memory_mb: float | None) -> int:
    """The positions the search may keep in ``memory_mb`` (no bound without one)."""
    if memory_mb is None:
        return 1 << 62
    return max(64, int(memory_mb * (1 << 20) / NODE_BYTES))


class FessSearch:
    """The feature-space search from the start, forwards by box moves (``box_moves``);
    ``run`` pauses every ``stride`` expansions and ends with the pushes of a solution, or
    None when every position reachable by its moves has been expanded."""

    def __init__(self, board: Board, position: Position, packing: Packing, capacity: int) -> None:
        self.board, self.position, self.capacity = board, position, capacity
        self.space = FeatureSpace(board, packing)
        self.bound = LowerBound(board)
        self.expanded: dict[int, Node] = {}
        #: Told the boxes of each position expanded (the solve's heat map), if anyone asks.
        self.taken: Callable[[int], None] | None = None
        self.dead: set[int] = set()
        #: Per cell, its positions with a move left: (weight of the best one, its score, ...).
        self.cells: dict[Cell, list[tuple[int, Score, int, Node]]] = {}
        self.order: list[Cell] = []
        self.turn = 0
        self.working: Cell | None = None
        self.tie = count()
        self.generated = 0
        self.best: Node | None = None
        #: The least bound of an expanded position, with its player and boxes.
        self.nearest: tuple[int, int, int] = (FAR, 0, 0)
        self.nearest_node: Node | None = None

    def score(self, boxes: int, h: int) -> Score:
        packed, regions, links, out = self.space.features(boxes)
        return -packed, regions, links, out, h

    def run(self, stride: int) -> Generator[Pause, None, Outcome]:
        board, position = self.board, self.position
        boxes = board.boxes_of(position)
        if boxes == board.goal_mask:
            return [], 0, 0
        key = boxes << PLAYER_BITS | lowest_cell(board.reach(position.player, boxes))
        root = Node(boxes, key, None, None, 0, position.player)
        pushes = self._open(root, self.score(boxes, self.bound(boxes)))
        iteration = 0
        while pushes is None:
            iteration += 1
            picked = self._pick(iteration)
            if picked is None:
                return None, len(self.expanded), self.generated
            node, move = picked
            pushes = self._expand(node, move)
            if len(self.expanded) % stride == 0:
                yield self._pause(node)
        return pushes, len(self.expanded), self.generated

    def _pause(self, node: Node) -> Pause:
        if len(self.expanded) >= self.capacity:
            raise ArraysFull()
        frontier = sum(len(heap) for heap in self.cells.values())
        return len(self.expanded), self.generated, frontier, node.depth, node.player, node.boxes

    def _expand(self, node: Node, move: Child) -> list[int] | None:
        """Make the position ``move`` leads to, then queue ``node`` for its next move."""
        weight, score, key, boxes, walker, push = move[:6]
        child = Node(boxes, key, node, push, node.weight + weight, walker)
        pushes = self._open(child, score)
        self._queue(node)
        return pushes

    def _open(self, node: Node, score: Score) -> list[int] | None:
        """Expand ``node``: its children scored and advised; a solution's pushes if one of
        them solves the level."""
        parent = node.parent
        node.best = score if parent is None or score < parent.best else parent.best
        self.expanded[node.key] = node
        if self.taken is not None:
            self.taken(node.boxes)
        if self.best is None or node.best < self.best.best:
            self.best = node
        if score[4] < self.nearest[0]:
            self.nearest, self.nearest_node = (score[4], node.player, node.boxes), node
        pushes = self._children(node)
        if pushes is not None:
            return pushes
        self._advise(node, score)
        self._queue(node)
        return None

    def _children(self, node: Node) -> list[int] | None:
        board, bound, boxes = self.board, self.bound, node.boxes
        bound.expand(boxes)
        for box, target, push, walker, low in box_moves(self.space, boxes, node.player):
            child = boxes ^ (1 << box) ^ (1 << target)
            key = child << PLAYER_BITS | low
            if key in self.expanded or key in self.dead:
                continue
            if child == board.goal_mask:
                return node.pushes() + flat(push)
            h = FAR if board.freeze_deadlock(child, target) else bound.child(child, box, target)
            if h >= FAR:
                self.dead.add(key)
                continue
            self.generated += 1
            score = self.score(child, h)
            node.children.append([1, score, key, child, walker, push])
        return None

    @staticmethod
    def _advise(node: Node, score: Score) -> None:
        """Each advisor's move (the best child by score that passes its test) costs nothing;
        so does the first of at most two."""
        children = node.children
        for test in ADVISORS:
            advised = [child for child in children if test(child[1], score)]
            if advised:
                min(advised, key=lambda child: child[1])[0] = 0
        if 0 < len(children) <= 2:
            children[0][0] = 0

    def _move(self, node: Node) -> Child | None:
        """The move of ``node`` to take next: the least weight, then the best score, among
        children neither expanded nor dead."""
        best = None
        for child in node.children:
            if child[2] in self.expanded or child[2] in self.dead:
                continue
            if best is None or (child[0], child[1]) < (best[0], best[1]):
                best = child
        return best

    def _queue(self, node: Node) -> None:
        move = self._move(node)
        if move is None:
            return
        cell = node.best[:4]
        heap = self.cells.get(cell)
        if heap is None:
            heap = self.cells[cell] = []
            self.order.append(cell)
            self.turn = len(self.order) - 1  # a cell just opened goes next
        heapq.heappush(heap, (node.weight + move[0], move[1], next(self.tie), node))

    def _cell(self, iteration: int) -> Cell:
        """Every other turn the cell of the best position so far, else the next in turn."""
        if iteration % 2 == 0 and self.best is not None and self.cells.get(self.best.best[:4]):
            return self.best.best[:4]
        cell = self.order[self.turn % len(self.order)]
        self.turn = (self.turn + 1) % len(self.order)
        return cell

    def _pick(self, iteration: int) -> tuple[Node, Child] | None:
        """The position and move to expand next, in the cell whose turn it is (the next
        cell with a move when that one has none); None when no cell has one."""
        for _ in range(len(self.order) + 1):
            cell = self.working = self._cell(iteration)
            heap = self.cells[cell]
            while heap:
                weight, score, _, node = heapq.heappop(heap)
                move = self._move(node)
                if move is None:
                    continue
                if (node.weight + move[0], move[1]) != (weight, score):
                    heapq.heappush(heap, (node.weight + move[0], move[1], next(self.tie), node))
                    continue
                return node, move
            iteration = 1  # this cell is spent: go round the cycle
        return None

    def packed(self) -> str:
        """The most targets filled in the packing order at a position expanded, of all."""
        best = -self.best.best[0] if self.best is not None else 0
        return f"{best}/{self.space.targets}"

    def note(self) -> str:
        """The cell it works in and the cells opened, in a player's words."""
        cell = self.working
        if cell is None:
            return ""
        packed, regions, links, out = -cell[0], cell[1], cell[2], cell[3]
        opened = len(self.order)
        return (
            f"feature search: working in the cell of {packed} of {self.space.targets} targets"
            f" filled in order, {_count(regions, 'floor region')},"
            f" {_count(links, 'room link')} blocked, {_count(out, 'box', 'boxes')} out of plan"
            f" ({_count(opened, 'cell')} opened)"
        )


def _count(number: int, thing: str, things: str | None = None) -> str:
    if number == 1:
        return f"1 {thing}"
    return f"{number} {things or thing + 's'}"


class Fess(Member):
    """FESS, the feature-space search: forwards by box moves, which lose no position
    reachable by pushes, so run dry it is a proof. Its positions live in CPython, within its
    share of the memory (a full search leaves the turns to the others)."""

    def __init__(self, portfolio: Portfolio, setting: Setting) -> None:
        super().__init__(portfolio, setting)
        self.search: FessSearch | None = None

    @classmethod
    def share(cls) -> float | None:
        return SHARE

    def run(self) -> Generator[Pause, None, Outcome]:
        from webapp.games.sokoban.packing import packing  # numba, as compiled.py

        portfolio = self.portfolio
        board, position = portfolio.board, portfolio.position
        memory = portfolio.monitor.limits.memory_mb
        room = capacity(memory * MEMORY_SHARE * SHARE if memory else None)
        self.search = FessSearch(board, position, packing(board, position), room)
        self.search.taken = portfolio.boxes_taken()
        return self.search.run(PAUSE)

    def note(self) -> str | None:
        return self.search.note() if self.search is not None else None

    def report(self, result: Result) -> None:
        if self.search is not None:
            result.extra["fess cells"] = len(self.search.order)
            result.extra["fess packed"] = self.search.packed()

    def closest(self) -> tuple[int, int, int] | None:
        if self.search is None or self.search.nearest[0] >= FAR:
            return None
        return self.search.nearest

    def closest_pushes(self) -> list[int] | None:
        node = self.search.nearest_node if self.search is not None else None
        return node.pushes() if node is not None else None
