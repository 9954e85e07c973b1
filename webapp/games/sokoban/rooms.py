"""Goal rooms: blocks of adjacent goals filled in a fixed order, one macro push at a time.

A forward search is at its weakest where goals must be filled in a certain order: a box
parked on the wrong goal first blocks the rest, and the matching bound cannot tell. For each
block of two or more adjacent goals we work the order out once, backwards: fill every goal,
then pull the boxes out one by one, each time one that can leave; filling in the reverse of
that order always leaves the next goal open. During the search, while a room holds exactly
the first k boxes of its order, a box pushed into it is taken straight on to goal k + 1 (one
macro move of several pushes), the boxes inside stay put, and no other push enters the room.

That cuts the space hard but may cut away every solution of an odd level (one where a box
must cross the room, say), so a search using goal rooms is not a proof of unsolvability.

The compiled searches use rooms more gently: for each room goal, the goals a box standing
on it shuts off (``GoalRoom.shuts``) only push such positions back in the order.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from webapp.games.sokoban.board import Board, cells_of, lowest_cell


@dataclass(frozen=True)
class GoalRoom:
    """A block of adjacent goals and the order in which to fill them."""

    #: The room's goal squares as a bitboard.
    cells: int
    #: The goal squares in filling order.
    order: tuple[int, ...]
    #: ``fills[k]``: the bitboard of the first k goals of ``order``.
    fills: tuple[int, ...]
    #: (goal, the room's goals a box on it shuts off): pairs with a goal that no box can
    #: reach any more, from outside the room, while a box stands on the first.
    shuts: tuple[tuple[int, int], ...] = ()

    def filled(self, boxes: int) -> int | None:
        """How many goals are filled, when the room holds exactly a prefix of its order."""
        inside = boxes & self.cells
        count = inside.bit_count()
        return count if self.fills[count] == inside else None


def _components(board: Board, cells: int) -> list[int]:
    width = board.width
    parts = []
    while cells:
        part = frontier = cells & -cells
        while frontier:
            grown = frontier << 1 | frontier >> 1 | frontier << width | frontier >> width
            frontier = grown & cells & ~part
            part |= frontier
        cells &= ~part
        parts.append(part)
    return parts


def _pull_out(
    board: Board, boxes: int, box: int, region: int, room: int, sources: int
) -> int | None:
    """Pull ``box`` (the other ``boxes`` fixed) until it stands outside ``room`` on one of
    the ``sources``; return the cell the player then stands on, or None when it cannot."""
    others = boxes & ~(1 << box)
    seen = {(box, lowest_cell(region))}
    queue = deque([(box, region)])
    while queue:
        cell, reach = queue.popleft()
        for pulled, offset, _direction in board.pulls(others | 1 << cell, reach):
            if pulled != cell:
                continue
            target = cell - offset
            player = target - offset
            if sources >> target & 1:
                return player
            child = others | 1 << target
            child_reach = board.reach(player, child)
            state = (target, lowest_cell(child_reach))
            if state in seen:
                continue
            seen.add(state)
            queue.append((target, child_reach))
    return None


def _shuts(board: Board, room: int, sources: int) -> tuple[tuple[int, int], ...]:
    """For each goal of ``room``, the room's other goals a box standing on it shuts off: no
    box can be pulled from them to any of the ``sources`` with that one box in the way."""
    pairs = []
    for blocker in cells_of(room):
        shut = 0
        for goal in cells_of(room & ~(1 << blocker)):
            boxes = 1 << goal | 1 << blocker
            regions = set()
            for _, offset in board.directions:
                side = goal + offset
                if board.floor >> side & 1 and not boxes >> side & 1:
                    regions.add(board.reach(side, boxes))
            if not any(
                _pull_out(board, boxes, goal, region, room, sources) is not None
                for region in regions
            ):
                shut |= 1 << goal
        if shut:
            pairs.append((blocker, shut))
    return tuple(pairs)


def _order(board: Board, room: int, sources: int) -> tuple[int, ...] | None:
    """A filling order for the goals of ``room``, or None when the boxes cannot all be pulled
    out again from any place the player may start. A box pulled out must get all the way
    back to one of the ``sources``, the squares the boxes start on: filling a goal from a
    square no box can come to would lead the search astray."""
    free = board.floor & ~room
    while free:
        start = lowest_cell(free)
        region = board.reach(start, room)
        free &= ~region
        removed: list[int] = []
        boxes = room
        while boxes:
            for box in cells_of(boxes):
                player = _pull_out(board, boxes, box, region, room, sources)
                if player is not None:
                    break
            else:
                break
            boxes &= ~(1 << box)
            removed.append(box)
            region = board.reach(player, boxes)
        if not boxes:
            return tuple(reversed(removed))
    return None


#: The fewest goals a room needs. Smaller blocks are better left to the search: a fixed
#: order there cuts away more solutions than it saves work (Microban's small rooms ran
#: slower with it).
SMALLEST_ROOM = 6


def goal_rooms(board: Board, starts: list[int], smallest: int = SMALLEST_ROOM) -> list[GoalRoom]:
    """Every block of at least ``smallest`` adjacent goals for which a filling order exists,
    the boxes coming from the ``starts`` squares."""
    rooms = []
    for part in _components(board, board.goal_mask):
        if part.bit_count() < max(2, smallest):
            continue
        sources = 0
        for start in starts:
            sources |= 1 << start
        order = _order(board, part, sources & ~part)
        if order is None:
            continue
        fills = [0]
        for goal in order:
            fills.append(fills[-1] | 1 << goal)
        rooms.append(GoalRoom(part, order, tuple(fills), _shuts(board, part, sources & ~part)))
    return rooms


def push_path(
    board: Board, boxes: int, box: int, player: int, goal: int, room: int
) -> list[int] | None:
    """The fewest pushes taking ``box`` to ``goal`` over free squares of ``room`` with the
    other ``boxes`` fixed and the player on ``player``, packed as (cell << 2 | direction);
    None when there is no way."""
    others = boxes & ~(1 << box)
    if box == goal:
        return []
    start = (box, lowest_cell(board.reach(player, boxes)))
    came: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {start: None}
    queue = deque([(box, board.reach(player, boxes))])
    open_ = room & ~others
    while queue:
        cell, reach = queue.popleft()
        state = (cell, lowest_cell(reach))
        for direction, (_, offset) in enumerate(board.directions):
            target = cell + offset
            if not (open_ >> target & 1 and reach >> (cell - offset) & 1):
                continue
            child_reach = board.reach(cell, others | 1 << target)
            child = (target, lowest_cell(child_reach))
            if child in came:
                continue
            came[child] = (state, cell << 2 | direction)
            if target == goal:
                pushes = []
                link = came[child]
                while link is not None:
                    state, push = link
                    pushes.append(push)
                    link = came[state]
                return pushes[::-1]
            queue.append((target, child_reach))
    return None
