"""Shortening a solution found (shorten.py): stretches solved again push-optimally."""

from __future__ import annotations

import time

from webapp.games.sokoban import GAME
from webapp.games.sokoban.board import Board
from webapp.games.sokoban.shorten import shorten
from webapp.games.sokoban.solver import lurd
from webapp.games.solving import check_solution

OPEN_ROOM = """\
#########
#       #
#       #
#@  $  .#
#       #
#       #
#########"""


def _pushes(board: Board, player: int, steps: str) -> list[int]:
    """The packed pushes of a line of moves (upper case pushes) from ``player``."""
    letters = [letter for letter, _ in board.directions]
    pushes = []
    for step in steps:
        direction = letters.index(step.lower())
        offset = board.directions[direction][1]
        if step.isupper():
            pushes.append((player + offset) << 2 | direction)
        player += offset
    return pushes


def test_a_box_pushed_off_its_way_and_back_goes_straight() -> None:
    # Up and back down again before the three pushes home: five pushes where three do.
    level = GAME.parse(OPEN_ROOM)[0]
    board, start = Board(level), GAME.start(level)
    wasteful = _pushes(board, start.player, "drrrUluurDldRRR")
    assert check_solution(GAME, level, start, lurd(board, start, wasteful)) is None
    assert len(wasteful) == 5
    shorter = shorten(board, start, wasteful, time.monotonic() + 60)
    assert len(shorter) == 3
    assert check_solution(GAME, level, start, lurd(board, start, shorter)) is None


def test_past_its_deadline_the_solution_is_kept_as_it_is() -> None:
    level = GAME.parse(OPEN_ROOM)[0]
    board, start = Board(level), GAME.start(level)
    wasteful = _pushes(board, start.player, "drrrUluurDldRRR")
    assert shorten(board, start, wasteful, time.monotonic() - 1) == wasteful
