"""The moves of the CPython forward searches (solver._best_first, fess.py): the pushes the
PI-corral test leaves, with macros: a push into a goal room filled in order carried on to the
room's next goal (rooms.py), a push into a one-wide tunnel carried on to its end."""

from __future__ import annotations

from collections.abc import Callable

from webapp.games.sokoban.board import Board
from webapp.games.sokoban.rooms import GoalRoom, push_path


def _pack(box: int, direction: int) -> int:
    return box << 2 | direction


#: A move of a best-first search: the box's square, where it ends, the push (or, for a
#: macro, the pushes; a pull's record is the push that undoes it), where the player ends and
#: the pushes it makes.
Move = tuple[int, int, int | tuple[int, ...], int, int]


def _pushes(
    board: Board,
    rooms: list[GoalRoom],
    corral: Callable[[int, int], list[tuple[int, int, int]] | None],
    tunnels: tuple[int, int, int, int],
    boxes: int,
    region: int,
) -> list[Move]:
    """The moves of ``_best_first`` from ``boxes`` (the player in ``region``): the pushes
    the PI-corral test leaves, pushes into a goal room filled in order carried on to its next
    goal, pushes into a tunnel carried on to its end."""
    fixed, entering, open_rooms = _rooms_filling(rooms, boxes)
    pushes = corral(boxes, region)
    if pushes is None or (
        pushes
        and any(fixed >> box & 1 or entering >> box + offset & 1 for box, offset, _ in pushes)
    ):
        # The corral's reasoning knows nothing of goal rooms: when the rooms may veto one
        # of its pushes, look at every push instead.
        pushes = board.pushes(boxes, region)
    moves: list[Move] = []
    open_ = board.live & ~boxes
    goal = board.goal_mask
    for box, offset, direction in pushes:
        if fixed >> box & 1:
            continue
        target = box + offset
        push = _pack(box, direction)
        if entering >> target & 1:
            room, next_goal = next(pair for pair in open_rooms if pair[0].cells >> target & 1)
            entered = boxes ^ (1 << box) ^ (1 << target)
            path = push_path(board, entered, target, box, next_goal, room.cells)
            if path is None:
                continue
            if path:
                moves.append((box, next_goal, (push, *path), path[-1] >> 2, 1 + len(path)))
                continue
        elif tunnels[direction] >> target & 1 and tunnels[direction] >> box & 1:
            # A box pushed into a one-wide tunnel goes on to its end: left inside, it
            # would only block the way. It stops on a goal or before anything in the way.
            macro = [push]
            ahead = open_ & ~(1 << box) & ~entering
            while (
                tunnels[direction] >> target & 1
                and not goal >> target & 1
                and ahead >> (target + offset) & 1
            ):
                macro.append(_pack(target, direction))
                target += offset
            if len(macro) > 1:
                moves.append((box, target, tuple(macro), target - offset, len(macro)))
                continue
        moves.append((box, target, push, box, 1))
    return moves


def _rooms_filling(
    rooms: list[GoalRoom], boxes: int
) -> tuple[int, int, list[tuple[GoalRoom, int]]]:
    """Boxes in a goal room filled in order stay put (``fixed``) and pushes into such a room
    (onto ``entering``) become macros to the room's next goal (``open_rooms``: each room
    with the goal it fills next)."""
    fixed = entering = 0
    open_rooms: list[tuple[GoalRoom, int]] = []
    for room in rooms:
        filled = room.filled(boxes)
        if filled is not None:
            fixed |= room.fills[filled]
            if filled < len(room.order):
                entering |= room.cells
                open_rooms.append((room, room.order[filled]))
    return fixed, entering, open_rooms
