"""Where the player and the boxes stand, the four directions, and walking around the boxes."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from webapp.games.sokoban.level import Level

DIRECTIONS = {"l": (0, -1), "u": (-1, 0), "r": (0, 1), "d": (1, 0)}


@dataclass(frozen=True)
class Position:
    """Where the player and the boxes stand."""

    player: int
    boxes: frozenset[int]


def step_offset(level: Level, direction: str) -> int:
    dr, dc = DIRECTIONS[direction]
    return dr * level.width + dc


def walk(level: Level, state: Position, target: int) -> list[str] | None:
    """The steps of a shortest walk to ``target`` around the boxes, or None if none exists."""
    if target not in level.floor or target in state.boxes:
        return None
    came: dict[int, tuple[int, str] | None] = {state.player: None}
    queue = deque([state.player])
    while queue:
        cell = queue.popleft()
        if cell == target:
            path = []
            link = came[cell]
            while link is not None:
                cell, step = link
                path.append(step)
                link = came[cell]
            return path[::-1]
        for direction in DIRECTIONS:
            nxt = cell + step_offset(level, direction)
            if nxt in came or nxt not in level.floor or nxt in state.boxes:
                continue
            came[nxt] = (cell, direction)
            queue.append(nxt)
    return None
