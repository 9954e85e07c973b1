"""What the board says and does for players who do not see it or cannot use arrows: each game's
announce hook, the play partial that carries it, a tap on a box that pushes, plural words."""

from __future__ import annotations

import re

from tests.conftest import LEVELS
from webapp.games import get
from webapp.games.base import Game

SOKOBAN, VEXED, BLOCKS, SLIDING = (get(n) for n in ("sokoban", "vexed", "blocks", "sliding"))
MICROBAN_1 = SOKOBAN.parse((LEVELS / "sokoban" / "microban.xsb").read_text())[0]


def said(html: str) -> str:
    match = re.search(r"<p data-announce hidden>([^<]*)</p>", html)
    assert match, html
    return match.group(1)


def test_sokoban_tells_the_push_and_the_boxes_home():
    start = SOKOBAN.start(MICROBAN_1)
    step = SOKOBAN.apply(MICROBAN_1, start, "d")
    assert SOKOBAN.announce(MICROBAN_1, start, step, "d") == "Stepped down. 1 of 2 boxes on goals."
    left = SOKOBAN.apply(MICROBAN_1, step, "l")
    pushed = SOKOBAN.apply(MICROBAN_1, left, "U")
    assert (
        SOKOBAN.announce(MICROBAN_1, left, pushed, "U") == "Box pushed up. 0 of 2 boxes on goals."
    )
    assert SOKOBAN.announce(MICROBAN_1, None, start, None) == "1 of 2 boxes on goals."


def test_a_click_on_a_box_beside_the_player_pushes_it():
    start = SOKOBAN.start(MICROBAN_1)  # the player at 3,2; boxes at 3,1 (on a goal) and 4,3
    assert SOKOBAN.click(MICROBAN_1, start, 3, 1) == []  # a wall behind it: no push
    above = SOKOBAN.replay(MICROBAN_1, ["r"], start)  # at 3,3, over the box at 4,3: wall below
    assert SOKOBAN.click(MICROBAN_1, above, 4, 3) == []
    left_of = SOKOBAN.replay(MICROBAN_1, ["d"], start)  # at 4,2, left of the box at 4,3
    assert SOKOBAN.click(MICROBAN_1, left_of, 4, 3) == ["R"]
    assert SOKOBAN.click(MICROBAN_1, start, 4, 3) == []  # a box not next to the player
    assert SOKOBAN.click(MICROBAN_1, start, 5, 1) == ["d", "l", "d"]  # a square: walk there


def test_every_game_tells_its_moves_in_words():
    level = VEXED.parse((LEVELS / "vexed" / "01_childrens_pack.txt").read_text())[0]
    start = VEXED.start(level)
    after = VEXED.apply(level, start, "4,1>")
    assert VEXED.announce(level, start, after, "4,1>") == (
        "Star block moved right; 4 blocks vanished. 4 blocks left."
    )
    blocks = BLOCKS.parse((LEVELS / "blocks" / "workshop.txt").read_text())[0]
    first = BLOCKS.start(blocks)
    assert BLOCKS.announce(blocks, first, BLOCKS.apply(blocks, first, "2,0R"), "2,0R").startswith(
        "Piece "
    )
    puzzle = SLIDING.parse((LEVELS / "sliding" / "warm-up.txt").read_text())[0]
    board = SLIDING.start(puzzle)
    move = SLIDING.legal_moves(puzzle, board)[0]
    text = SLIDING.announce(puzzle, board, SLIDING.apply(puzzle, board, move), move)
    assert re.fullmatch(r"Tile \d+ moved (left|right|up|down)\. \d+ of 8 tiles in place\.", text)


def test_the_default_uses_the_games_words_and_tells_a_win():
    class Plain(Game):
        name = "plain"

        def parse(self, text):
            return []

        def level_text(self, level):
            return ""

        def board_text(self, level):
            return ""

        def start(self, level):
            return 0

        def split_moves(self, moves):
            return list(moves)

        def join_moves(self, tokens):
            return "".join(tokens)

        def apply(self, level, state, move):
            return state + 1

        def legal_moves(self, level, state):
            return ["+"]

        def is_solved(self, level, state):
            return state == 2

        def render_text(self, level, state):
            return str(state)

        def describe_move(self, level, state, move):
            return "add one"

    game = Plain()
    assert game.announce(None, 0, 1, "+") == "Add one."
    assert game.announce(None, 1, 2, "+") == "Add one. Solved!"
    assert game.announce(None, None, 1, None) == ""


def test_the_play_partial_carries_the_words(player):
    me = player("/sokoban/microban/1")
    assert said(me.act("move", moves="d").text) == "Stepped down. 1 of 2 boxes on goals."
    assert said(me.act("click", cell="4,3").text) == "Box pushed right. 1 of 2 boxes on goals."
    assert said(me.act("undo").text) == "Move undone. 1 of 2 boxes on goals."
    assert said(me.act("redo").text) == "Move redone. 1 of 2 boxes on goals."
    assert said(me.act("restart").text) == "Back to the start. 1 of 2 boxes on goals."
    refused = me.act("move", moves="l")  # into the wall, not quietly: the message tells it
    assert said(refused.text) == ""


def test_nothing_undone_is_never_told_as_a_move_undone(player):
    me = player("/sokoban/microban/1")
    assert said(me.act("undo").text) == "Nothing to undo. 1 of 2 boxes on goals."
    assert said(me.act("redo").text) == "Nothing to redo. 1 of 2 boxes on goals."
    assert said(me.act("restart").text) == "Already at the start. 1 of 2 boxes on goals."
    me.act("move", moves="d")
    assert said(me.act("undo").text) == "Move undone. 1 of 2 boxes on goals."
    assert said(me.act("undo").text) == "Nothing to undo. 1 of 2 boxes on goals."


def test_one_move_is_one_move(player):
    me = player("/sliding/p/3x3-123456708")  # one slide from solved
    html = me.act("move", moves="L").text
    assert "Solved!" in html
    assert "1 move." in html and "1 moves" not in html


def test_one_move_left_is_one_move(app):
    from flask import render_template_string

    with app.test_request_context():
        html = render_template_string(
            '{% include "blocks/counters.html" %}',
            game=BLOCKS,
            moves_left={"steps": 1, "line_moves": 1, "path_moves": 2},
            tables_pending=False,
        )
    assert "1</b> step ·" in html and "1</b> line move ·" in html and "2</b> path moves" in html
