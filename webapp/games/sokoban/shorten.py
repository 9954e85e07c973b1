"""Fewer pushes in a solution found: short stretches of it solved again, push-optimally.

The fast solver finds a solution, not the shortest one: a greedy search pushes a box one way
and later back, or takes two boxes round in an order that costs a few pushes more. Each
stretch of WINDOW pushes is searched again breadth-first by pushes, from the position before
it to the position after it (the same boxes, the player in the same region), moving only the
boxes the stretch moves (the others stand still, as walls); a shorter way in is spliced in
its place, and the next stretch starts where the splice ends. Every way found is a real
line of pushes between two positions of the solution, so the whole still solves the level.
It stops at a deadline, keeping what it has.
"""

from __future__ import annotations

import time
from collections import deque

from webapp.games.sokoban.board import Board, lowest_cell
from webapp.games.sokoban.position import Position

#: Pushes in a stretch searched again, and the stretches' step along the solution.
WINDOW = 16
STEP = 8
#: Positions one stretch's search may visit before it gives up on that stretch.
STRETCH_NODES = 3_000


def _positions(board: Board, position: Position, pushes: list[int]) -> list[tuple[int, int]]:
    """The boxes (a bitboard) and the player's square before each push and after the last."""
    boxes, player = board.boxes_of(position), position.player
    states = [(boxes, player)]
    for push in pushes:
        box, offset = push >> 2, board.directions[push & 3][1]
        boxes = boxes & ~(1 << box) | 1 << (box + offset)
        player = box
        states.append((boxes, player))
    return states


def _moved(board: Board, pushes: list[int]) -> int:
    """The squares, before the stretch, of the boxes the stretch pushes."""
    origin: dict[int, int] = {}
    moved = 0
    for push in pushes:
        box, offset = push >> 2, board.directions[push & 3][1]
        start = origin.pop(box, box)
        moved |= 1 << start
        origin[box + offset] = start
    return moved


def _stretch(board: Board, start: tuple[int, int], end: tuple[int, int], moved: int,
             most: int, deadline: float) -> list[int] | None:  # fmt: skip
    """The fewest pushes (fewer than ``most``) from ``start`` to ``end``, pushing only the
    boxes on ``moved``; None when there are none within STRETCH_NODES positions or before
    ``deadline``."""
    boxes, player = start
    fixed = boxes & ~moved
    goal_boxes, goal_player = end
    goal_low = lowest_cell(board.reach(goal_player, goal_boxes))
    first = (boxes, lowest_cell(board.reach(player, boxes)))
    parents: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {first: None}
    queue = deque([(boxes, player, 0)])
    while queue and len(parents) < STRETCH_NODES:
        boxes, player, depth = queue.popleft()
        if depth + 1 >= most or len(parents) & 255 == 0 and time.monotonic() > deadline:
            break
        key = (boxes, lowest_cell(board.reach(player, boxes)))
        for box, offset, direction in board.pushes(boxes, board.reach(player, boxes)):
            if fixed >> box & 1:
                continue
            child = boxes & ~(1 << box) | 1 << (box + offset)
            low = lowest_cell(board.reach(box, child))
            child_key = (child, low)
            if child_key in parents:
                continue
            parents[child_key] = (key, box << 2 | direction)
            if child == goal_boxes and low == goal_low:
                pushes = []
                link = parents[child_key]
                while link is not None:
                    key, push = link
                    pushes.append(push)
                    link = parents[key]
                return pushes[::-1]
            queue.append((child, box, depth + 1))
    return None


def shorten(board: Board, position: Position, pushes: list[int], deadline: float) -> list[int]:
    """``pushes`` (a solution from ``position``, packed as solver.py packs them) with
    stretches replaced by shorter ones, until the end or ``deadline`` (time.monotonic)."""
    pushes = list(pushes)
    states = _positions(board, position, pushes)
    at = 0
    while at < len(pushes) and time.monotonic() < deadline:
        stop = min(at + WINDOW, len(pushes))
        stretch = pushes[at:stop]
        moved = _moved(board, stretch)
        shorter = _stretch(board, states[at], states[stop], moved, len(stretch), deadline)
        if shorter is not None:
            pushes[at:stop] = shorter
            states = _positions(board, position, pushes)
            continue
        if stop == len(pushes):
            break
        at += STEP
    return pushes
