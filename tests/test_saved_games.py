"""A stored game is the player's: a history the rules no longer accept is kept, never cleared
or saved over, and the player restarts on purpose; a bug in the rules is an error, not a
refused move."""

from __future__ import annotations

import pytest

from tests.conftest import Player
from webapp.core.play import END, GESTURE
from webapp.storage.store import SavedGame
from webapp.web.database import get_store

LEVEL = "/sokoban/microban/1"
KEY = ("sokoban", "microban/1")


def stored(app, player_id: str, key: tuple[str, str] = KEY) -> SavedGame | None:
    with app.test_request_context():
        return get_store().load_game(player_id, *key)


def break_the_game(app, client) -> tuple[Player, str, SavedGame]:
    """A player with four legal moves, then ones the level refuses (as if it had changed):
    after r, r, d, u on Microban 1 a wall is to the right."""
    me = Player(client, LEVEL)
    for move in ("r", "r", "d", "u"):
        assert 'class="notice"' not in me.act("move", moves=move).text
    with client.session_transaction() as session:
        player_id = session["player"]
    broken = SavedGame(["r", "r", "d", "u", "r", "r", "l", "l"], 8)
    with app.test_request_context():
        get_store().save_game(player_id, *KEY, broken)
    return me, player_id, broken


def test_a_history_that_no_longer_replays_is_kept_and_shown_up_to_its_last_legal_move(app, client):
    me, player_id, broken = break_the_game(app, client)
    page = client.get(LEVEL)
    assert page.status_code == 200
    assert "no longer replays" in page.text and "move 5 (r)" in page.text
    assert 'id="count-moves">4<' in page.text  # the position before the refused move
    # Moves, undo and redo are refused with the reason; nothing is written over the game.
    for action, fields in (("move", {"moves": "d"}), ("undo", {}), ("redo", {})):
        answer = me.act(action, **fields)
        assert answer.status_code == 200 and "no longer replays" in answer.text
        assert stored(app, player_id) == broken
    client.get(LEVEL + "?moves=d")  # a replay link does not overwrite it either
    assert stored(app, player_id) == broken


def test_the_player_restarts_a_broken_game_on_purpose_and_can_undo_back_to_it(app, client):
    me, player_id, broken = break_the_game(app, client)
    assert "no longer replays" not in me.act("restart").text
    after = stored(app, player_id)
    assert after.history[:-1] == broken.history and after.history[-1] == "!"
    assert 'id="count-moves">1<' in me.act("move", moves="r").text
    me.act("undo")
    assert "no longer replays" in me.act("undo").text  # the old game, still there


def test_a_rules_bug_is_a_server_error_and_never_touches_the_stored_game(app, client, monkeypatch):
    from webapp.games import get

    me = Player(client, LEVEL)
    me.act("move", moves="l")
    with client.session_transaction() as session:
        player_id = session["player"]
    before = stored(app, player_id)
    game = type(get("sokoban"))

    def broken_apply(self, level, state, move):
        raise ValueError("a bug, not a refused move")

    monkeypatch.setattr(game, "apply", broken_apply)
    from webapp.web.levels import STATES

    STATES.clear()
    app.config["PROPAGATE_EXCEPTIONS"] = False
    assert me.act("move", moves="u").status_code == 500
    monkeypatch.undo()
    assert stored(app, player_id) == before


@pytest.mark.parametrize("action", ["move", "click"])
def test_a_refused_move_is_a_message_not_an_error(player, action):
    me = player(LEVEL)
    fields = {"moves": "uuuu"} if action == "move" else {"cell": "0,0"}
    answer = me.act(action, **fields)
    assert answer.status_code in (200, 204)


def test_two_tabs_playing_at_once_keep_every_acknowledged_move(tmp_path):
    """Two tabs of one player send moves at the same time (two threads, one cookie): every
    move the server acknowledged is in the stored game."""
    import threading

    from webapp import create_app

    # Budgets off: two tabs this eager would spend the moves' budget (40 a second).
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "BUDGETS": False})
    first = app.test_client()
    tab_a = Player(first, "/sokoban/first-steps/3")
    second = app.test_client()
    second.set_cookie("puzzlelab", first.get_cookie("puzzlelab").value)
    tab_b = Player(second, "/sokoban/first-steps/3")
    acknowledged = []

    def play(tab: Player) -> None:
        for _ in range(40):
            # Down and back up in one request: legal whenever the game is as it was.
            answer = tab.act("move", moves="du")
            if answer.status_code == 200 and 'class="notice"' not in answer.text:
                acknowledged.append(2)

    threads = [threading.Thread(target=play, args=(tab,)) for tab in (tab_a, tab_b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    with first.session_transaction() as session:
        player_id = session["player"]
    saved = stored(app, player_id, ("sokoban", "first-steps/3"))
    moves = [token for token in saved.history if token not in (GESTURE, END)]  # each "du"
    assert sum(acknowledged) == 160 and len(moves) == 160
