"""Sliding-block layouts of a chosen difficulty, made as Klotski's own were found: a set of
pieces on the 4×5 board with the 2×2 piece to bring out at the bottom middle, and the start
taken far from the goal in the graph of every position the pieces can reach.

A random placement of a random piece set gives a component of the position graph (every
position reachable from it). A breadth-first search in path moves from all its goal
positions at once gives each position's exact distance from a win, so the start is picked
at the distance the difficulty asks for, and that distance is the proved optimum.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from random import Random
from typing import Any

from webapp.games.base import Made
from webapp.games.blocks.level import Level, level_text, parse_collection
from webapp.games.blocks.space import Space

WIDTH, HEIGHT = 4, 5
#: Difficulty -> the path moves a start may be from a win (inclusive range).
BANDS = {"easy": (8, 20), "medium": (21, 40), "hard": (41, 65), "expert": (66, 200)}
#: Layouts tried before a band gives up on its range and takes the farthest start found.
TRIES = 400


def _layout(rng: Random) -> str | None:
    """A random board: the 2×2 piece ``A`` and others (tall, wide, single) on 18 cells, two
    left empty; None when the pieces drawn did not fit."""
    tall = rng.randint(1, 4)
    wide = rng.randint(0, 7 - tall)
    singles = 14 - 2 * tall - 2 * wide
    shapes = [(2, 2)] + [(2, 1)] * tall + [(1, 2)] * wide + [(1, 1)] * singles
    grid = [["."] * WIDTH for _ in range(HEIGHT)]
    letters = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    for height, width in shapes:
        free = [
            (r, c)
            for r in range(HEIGHT - height + 1)
            for c in range(WIDTH - width + 1)
            if all(grid[r + i][c + j] == "." for i in range(height) for j in range(width))
        ]
        if not free:
            return None
        row, col = rng.choice(free)
        letter = next(letters)
        for i in range(height):
            for j in range(width):
                grid[row + i][col + j] = letter
    return "goal: A bottom-middle\n" + "\n".join("".join(row) for row in grid)


def distances(space: Space, start: int) -> dict[int, int]:
    """Path-move distance to the nearest win of every position reachable from ``start``."""
    steps = space.children("steps")
    seen = {start}
    queue = deque([start])
    while queue:
        for child in steps(queue.popleft()):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    paths = space.children("path_moves")
    far = {key: 0 for key in seen if space.is_goal(key)}
    frontier = deque(far)
    while frontier:
        key = frontier.popleft()
        for child in paths(key):
            if child not in far:
                far[child] = far[key] + 1
                frontier.append(child)
    return far


def generate(difficulty: str, rng: Random, title: str, game: Any) -> Made:
    from webapp.games.solving import solve
    from webapp.search import Limits

    low, high = BANDS[difficulty]
    best: tuple[int, Level, int] | None = None
    layouts = 0
    for _ in range(TRIES):
        layouts += 1
        text = _layout(rng)
        if text is None:
            continue
        level = parse_collection(text)[0]
        space = Space(level)
        far = distances(space, space.encode(level.places))
        if not far:
            continue  # the goal piece can never come out
        within = sorted(key for key, d in far.items() if low <= d <= high)
        if within:
            key = rng.choice(within)
            chosen = (far[key], level, key)
            break
        top = max(far, key=lambda k: (far[k], k))
        if best is None or far[top] > best[0]:
            best = (far[top], level, top)
    else:
        assert best is not None
        chosen = best
    distance, level, key = chosen
    places = Space(level).decode(key)
    info = (("moves_path", str(distance)), ("difficulty", difficulty))
    # Parsed from its own text: the pieces named again in board order, as a pasted copy is.
    made = parse_collection(level_text(dataclasses.replace(level, places=places)))[0]
    made = dataclasses.replace(made, title=title, info=info)
    result = solve(game, made, "path", limits=Limits(seconds=None, nodes=None))
    assert result.solved and result.moves is not None, (result, game.level_text(made))
    counts = game.count(made, result.moves)
    measures = {"optimum": distance, "layouts": layouts, "steps": counts.get("steps", 0)}
    return Made(made, list(result.moves), distance, "path_moves", True, measures)
