"""One gesture, one undo: a walk or a drag is taken back and replayed whole
(webapp.core.play), and games stored before gestures were kept still undo step by step."""

from __future__ import annotations

from webapp.core.play import ASSIST, END, GESTURE, Play
from webapp.games import get

GAME = get("sokoban")
LEVEL = GAME.parse("#########\n#@   $ .#\n#########")[0]


def test_a_gesture_is_undone_and_redone_whole():
    play = Play(GAME, LEVEL)
    play.play(["r"])
    play.play(["r", "r"], gesture=True)  # a click that walks up to the box
    play.play(["r"])  # a push, on its own
    assert play.history == ["r", GESTURE, "r", "r", END, "R"]
    assert play.moves == ["r", "r", "r", "R"]
    assert play.undo() and play.moves == ["r", "r", "r"]
    assert play.undo() and play.moves == ["r"]  # the whole walk at once
    assert play.redo() and play.moves == ["r", "r", "r"]
    assert play.redo() and play.moves == ["r", "r", "r", "R"] and not play.can_redo
    assert play.figures == {"moves": 4, "pushes": 1}


def test_a_gesture_of_one_step_is_a_plain_move_and_a_new_move_drops_a_gesture_undone():
    play = Play(GAME, LEVEL)
    play.play(["r"], gesture=True)
    assert play.history == ["r"]
    play.play(["r", "r"], gesture=True)
    play.undo()
    play.play(["l"])
    assert play.history == ["r", "l"] and play.moves == ["r", "l"]


def test_an_assisted_gesture_goes_with_its_mark():
    play = Play(GAME, LEVEL)
    play.play(["r", "r"], assisted=True, gesture=True)
    assert play.history == [ASSIST, GESTURE, "r", "r", END] and play.assisted
    assert play.undo() and play.cursor == 0 and not play.assisted
    assert play.redo() and play.moves == ["r", "r"] and play.assisted


def test_a_game_stored_before_gestures_undoes_step_by_step():
    play = Play(GAME, LEVEL, ["r", "r", "r"], 3)
    assert play.undo() and play.moves == ["r", "r"]
    play.play(["r", "r"], gesture=True)
    fresh = Play(GAME, LEVEL, list(play.history), play.cursor)  # as loaded again
    assert fresh.undo() and fresh.moves == ["r", "r"]
    assert fresh.undo() and fresh.moves == ["r"]


def test_a_walk_by_click_and_a_text_of_moves_are_one_undo_each_over_http(player):
    walker = player("/sokoban/microban/1")
    assert 'id="count-moves">3<' in walker.act("click", cell="4,4").text  # r r d
    assert 'id="count-moves">4<' in walker.act("move", moves="l").text
    assert 'id="count-moves">6<' in walker.act("move", moves="ur").text  # one drag's steps
    assert 'id="count-moves">4<' in walker.act("undo").text
    assert 'id="count-moves">3<' in walker.act("undo").text
    assert 'id="count-moves">0<' in walker.act("undo").text
    assert 'id="count-moves">3<' in walker.act("redo").text
