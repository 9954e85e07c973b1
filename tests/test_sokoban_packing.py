"""The packing order (packing.py); the search that fills goals in it is tested in
test_sokoban_plan.py."""

from __future__ import annotations

import numpy as np

from webapp.games.sokoban import GAME
from webapp.games.sokoban.board import Board
from webapp.games.sokoban.compiled import square_numbers
from webapp.games.sokoban.packing import FIRST, UNREACHED, packing_order, pull_box

#: Three goals down a dead end: only the far one can be filled first.
DEAD_END = """\
#######
#@    #
# $$$ #
#     #
### ###
  #.#
  #.#
  #.#
  ###"""


def test_a_dead_end_of_goals_is_filled_from_its_far_end() -> None:
    level = GAME.parse(DEAD_END)[0]
    top, middle, bottom = sorted(level.goals)
    assert packing_order(Board(level), GAME.start(level)) == [[bottom], [middle], [top]]


#: Goals on open floor: any order fills them.
OPEN_FLOOR = """\
########
#      #
# $ $  #
#  .  .#
# $ .  #
#@     #
########"""


def test_goals_any_order_fills_make_one_phase() -> None:
    level = GAME.parse(OPEN_FLOOR)[0]
    assert packing_order(Board(level), GAME.start(level)) == [sorted(level.goals)]


def test_goals_whose_boxes_can_never_get_out_come_first() -> None:
    # The corner goal's box cannot be pulled anywhere (a pull needs room behind the player):
    # it is filled first, the goal beside it after.
    level = GAME.parse("#######\n#..   #\n## $$ #\n#   @ #\n#######")[0]
    corner, beside = sorted(level.goals)
    assert packing_order(Board(level), GAME.start(level)) == [[corner], [beside]]


def test_a_box_is_pulled_only_where_the_player_can_step_back() -> None:
    level = GAME.parse("#######\n#.  $@#\n#######")[0]
    board = Board(level)
    cells, index, neighbours = square_numbers(board)
    squares = len(cells)
    came = np.empty(4 * squares, np.int64)
    queue = np.empty(4 * squares, np.int64)
    occupied = np.zeros(squares, np.uint8)
    goal, player = index[min(level.goals)], index[level.player]
    count = pull_box(
        neighbours, occupied, goal, player, came, queue, np.zeros(squares, np.int64),
        np.empty(squares, np.int64),
    )  # fmt: skip
    reached = {int(state) >> 2 for state in queue[:count]}
    # A corridor of five: the box goes from the goal up to the square before the last (the
    # player needs a square behind it to pull), never further.
    assert reached == {goal, goal + 1, goal + 2, goal + 3}
    assert came[goal * 4 + 2] == FIRST and came[(goal + 3) * 4 + 2] != UNREACHED
