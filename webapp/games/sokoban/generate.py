"""Sokoban levels of a chosen difficulty, made backwards from the solved position (Taylor and
Parberry's method, as gym-sokoban uses it).

A random walk carves a room; goals are drawn on its floor, the boxes stand on them, and a
breadth-first search pulls boxes away from them (a pull is a push played backwards) over
positions whose player is named by the region it can reach. The search's depth of a position
is the fewest pushes that solve it, so the start is taken at the depth the difficulty asks
for, and the forward solver then finds the solution shown (proved fewest pushes by its own
breadth-first search where the level is small enough).
"""

from __future__ import annotations

from collections import deque
from random import Random
from typing import Any

from webapp.games.base import Made
from webapp.search import Limits

#: Difficulty -> (room width, room height, boxes, floor cells, the pushes' range).
BANDS = {
    "easy": (6, 6, 2, 16, (6, 12)),
    "medium": (7, 7, 3, 22, (13, 22)),
    "hard": (8, 8, 3, 28, (23, 34)),
    "expert": (9, 9, 4, 34, (35, 120)),
}
#: Positions the backward search visits for one room; rooms drawn before taking the deepest.
PULL_STATES = 60_000
ROOMS = 40
#: Positions the forward breadth-first search may expand proving the fewest pushes.
PROOF_NODES = 400_000


def _room(rng: Random, width: int, height: int, cells: int) -> tuple[int, set[int]]:
    """A room carved by a random walk in a (width+2)×(height+2) grid of walls: its row
    length and its floor cells."""
    stride = width + 2
    row, col = rng.randrange(1, height + 1), rng.randrange(1, width + 1)
    floor = {row * stride + col}
    dr, dc = rng.choice(((0, 1), (0, -1), (1, 0), (-1, 0)))
    while len(floor) < cells:
        if rng.random() < 0.35:
            dr, dc = rng.choice(((0, 1), (0, -1), (1, 0), (-1, 0)))
        if 1 <= row + dr <= height and 1 <= col + dc <= width:
            row, col = row + dr, col + dc
            floor.add(row * stride + col)
    return stride, floor


def _region(floor: set[int], boxes: frozenset[int], start: int, steps: tuple[int, ...]) -> set[int]:
    seen = {start}
    queue = [start]
    while queue:
        cell = queue.pop()
        for step in steps:
            near = cell + step
            if near in floor and near not in boxes and near not in seen:
                seen.add(near)
                queue.append(near)
    return seen


def _pulls(
    floor: set[int], goals: frozenset[int], stride: int
) -> dict[tuple[frozenset[int], int], int]:
    """Depth (fewest pushes to solve) of positions reachable backwards from the solved one,
    each as (boxes, the lowest cell of the player's region), up to PULL_STATES of them."""
    steps = (1, -1, stride, -stride)
    depth: dict[tuple[frozenset[int], int], int] = {}
    queue: deque[tuple[frozenset[int], int]] = deque()
    free = floor - goals
    while free:  # the player may stand in any region of the solved position
        region = _region(floor, goals, min(free), steps)
        depth[(goals, min(region))] = 0
        queue.append((goals, min(region)))
        free -= region
    while queue and len(depth) < PULL_STATES:
        boxes, player = queue.popleft()
        region = _region(floor, boxes, player, steps)
        for box in boxes:
            for step in steps:
                stand, back = box + step, box + 2 * step
                if stand in region and back in floor and back not in boxes:
                    moved = boxes - {box} | {stand}
                    key = (moved, min(_region(floor, moved, back, steps)))
                    if key not in depth:
                        depth[key] = depth[(boxes, player)] + 1
                        queue.append(key)
    return depth


def _text(stride: int, floor: set[int], goals, boxes, player: int, title: str) -> str:
    """The level in XSB, trimmed to the room and one wall around it."""
    rows = []
    top, bottom = min(floor) // stride - 1, max(floor) // stride + 1
    left, right = min(c % stride for c in floor) - 1, max(c % stride for c in floor) + 1
    for row in range(top, bottom + 1):
        line = ""
        for col in range(left, right + 1):
            cell = row * stride + col
            if cell not in floor:
                line += "#"
            elif cell == player:
                line += "+" if cell in goals else "@"
            elif cell in boxes:
                line += "*" if cell in goals else "$"
            else:
                line += "." if cell in goals else " "
        rows.append(line.rstrip() or "#")
    return "\n".join(rows) + f"\nTitle: {title}\n"


def generate(difficulty: str, rng: Random, title: str, game: Any) -> Made:
    from webapp.games.solving import solve

    width, height, count, cells, (low, high) = BANDS[difficulty]
    best: tuple[int, str] | None = None
    for _ in range(ROOMS):
        stride, floor = _room(rng, width, height, cells)
        goals = frozenset(rng.sample(sorted(floor), count))
        depth = _pulls(floor, goals, stride)
        deepest = max(d for d in depth.values() if d <= high)
        if best is not None and deepest <= best[0]:
            continue
        found = sorted((sorted(b), p) for (b, p), d in depth.items() if d == deepest)
        boxes, player = rng.choice(found)
        region = sorted(_region(floor, frozenset(boxes), player, (1, -1, stride, -stride)))
        best = (deepest, _text(stride, floor, goals, set(boxes), rng.choice(region), title))
        if deepest >= (low + high) // 2 or deepest == high:
            break  # deep enough: well inside the band
    assert best is not None
    level = game.parse(best[1])[0]
    proved = solve(game, level, "bfs", limits=Limits(seconds=None, nodes=PROOF_NODES))
    fast = Limits(seconds=None, nodes=2_000_000)
    result = proved if proved.solved else solve(game, level, "fast", limits=fast)
    if not result.solved or result.moves is None:
        raise RuntimeError(f"the {difficulty} level made could not be solved")
    counts = game.count(level, result.moves)
    measures = {
        "optimum": counts["pushes"],
        "moves": counts["moves"],
        "box_changes": _box_changes(game, level, result.moves),
        "expanded": result.expanded,
    }
    # The measures go with the level (Made.measures, kept beside it), never in its title: a
    # title that says "16 fewest pushes" gives the answer away.
    return Made(level, list(result.moves), counts["pushes"], "pushes", proved.solved, measures)


def _box_changes(game, level, moves: list[str]) -> int:
    """How often a push moves another box than the push before (box changes: Jarušek and
    Pelánek's best single predictor of a person's solving time)."""
    state = game.start(level)
    last, changes = None, 0
    for move in moves:
        after = game.apply(level, state, move)
        if move.isupper():  # a push: the box stood where the player steps
            if last is not None and after.player != last:
                changes += 1
            last = after.player + (after.player - state.player)  # where that box is now
        state = after
    return changes
