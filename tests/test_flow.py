"""Players first: a link never touches a player's game, help never counts as the player's own
best, and every level page says where it stands and where to go next."""

from __future__ import annotations

import re

from tests.conftest import Player
from webapp.db import get_store
from webapp.search import Limits, Result

LEVEL = "/sokoban/microban/1"
#: A solution of Microban 1 (33 moves, 8 pushes).
SOLUTION = "dlUrrrdLullddrUluRuulDrddrruLdlUU"


def player_of(client) -> str:
    with client.session_transaction() as session:
        return session["player"]


def moves_shown(html: str) -> int:
    return int(re.search(r'<b id="count-moves">(\d+)</b>', html).group(1))


def five_moves(client) -> Player:
    me = Player(client, LEVEL)
    for move in "rlrlr":
        assert 'class="notice"' not in me.act("move", moves=move).text
    assert moves_shown(client.get(LEVEL).text) == 5
    return me


def test_a_replay_link_is_a_view_that_leaves_the_players_game_as_it_was(client):
    five_moves(client)
    view = client.get(LEVEL + "?moves=dlU")
    assert view.status_code == 200
    assert 'id="replay"' in view.text and "Your own game (5 moves) is kept" in view.text
    assert moves_shown(view.text) == 3 and 'id="replay-position">3 of 3<' in view.text
    # Stepping through it is a link per position; the game is still the player's five moves.
    back = client.get(LEVEL + "?moves=dlU&at=1")
    assert moves_shown(back.text) == 1 and 'aria-current="step">1. d<' in back.text
    assert moves_shown(client.get(LEVEL).text) == 5


def test_play_from_here_copies_the_moves_and_undo_brings_the_five_back(client):
    me = five_moves(client)
    adopted = client.post(
        LEVEL + "/play",
        data={"action": "adopt", "moves": "dlU", "at": "2", "csrf_token": me.token},
    )
    assert adopted.status_code == 303 and adopted.headers["Location"] == LEVEL
    assert moves_shown(client.get(LEVEL).text) == 2
    shown = [moves_shown(me.act("undo").text) for _ in range(3)]
    assert shown == [1, 0, 5]  # the copied moves, then the restart before them: the old game


def test_a_full_solution_link_does_not_record_the_level_as_solved(app, client):
    Player(client, LEVEL)
    view = client.get(LEVEL + "?moves=" + SOLUTION)
    assert view.status_code == 200 and 'id="replay-solved"' in view.text
    with app.test_request_context():
        assert get_store().best(player_of(client), "sokoban", "microban/1") is None
    assert "0 of 155 solved." in client.get("/sokoban/microban/").text


def test_a_win_from_a_replay_is_assisted_never_the_players_best(app, client):
    me = Player(client, LEVEL)
    client.post(
        LEVEL + "/play", data={"action": "adopt", "moves": SOLUTION, "csrf_token": me.token}
    )
    page = client.get(LEVEL).text
    assert 'id="solved"' in page and 'id="assisted"' in page and "counter best" not in page
    with app.test_request_context():
        store = get_store()
        assert store.best(player_of(client), "sokoban", "microban/1") is None
        assert store.assisted(player_of(client), "sokoban") == {"microban/1"}
    listing = client.get("/sokoban/microban/").text
    assert "0 of 155 solved (and 1 with help)." in listing and 'class="assisted"' in listing
    # Undone past the copied moves, the game is the player's own again: their win counts.
    for _ in range(len(SOLUTION)):
        me.act("undo")
    won = me.act("move", moves=SOLUTION)
    assert 'id="solved"' in won.text and 'id="assisted"' not in won.text
    with app.test_request_context():
        assert get_store().best(player_of(client), "sokoban", "microban/1") == {
            "moves": 33,
            "pushes": 8,
        }


def finished_solve(app, client, moves: list[str], job_id: str = "done1"):
    from webapp.runner import Job, Request
    from webapp.solvers import get_runner

    request = Request("sokoban", "", [], "bfs", Limits(), player_of(client), "sokoban/microban/1")
    job = Job(id=job_id, request=request, state="done")
    job.result = Result(status="solved", moves=moves)
    with app.app_context():
        get_runner().jobs[job.id] = job
    return job


def test_use_this_solution_records_an_assisted_win_that_is_not_the_players_best(app, client):
    me = Player(client, LEVEL)
    job = finished_solve(app, client, list(SOLUTION))
    used = client.post(
        LEVEL + "/solve/use", data={"job": job.id}, headers={"X-CSRF-Token": me.token}
    )
    assert used.status_code == 200 and 'id="solved"' in used.text and 'id="assisted"' in used.text
    with app.test_request_context():
        store = get_store()
        assert store.best(player_of(client), "sokoban", "microban/1") is None
        assert store.assisted(player_of(client), "sokoban") == {"microban/1"}
        assert store.solved(player_of(client), "sokoban") == set()


def test_every_level_page_links_its_neighbours_and_says_n_of_n(client):
    page = client.get("/sokoban/microban/2").text
    assert '<span id="level-number">2 of 155</span>' in page
    assert 'id="previous-level" rel="prev" href="/sokoban/microban/1"' in page
    assert 'id="next-level" rel="next" href="/sokoban/microban/3"' in page
    first, last = client.get("/sokoban/microban/1").text, client.get("/sokoban/microban/155").text
    assert 'id="previous-level"' not in first and 'id="next-level"' in first
    assert 'id="next-level"' not in last and "155 of 155" in last


def test_after_a_win_the_next_unsolved_level_is_offered(app, client):
    # First steps 1 is one push to the right; 2 is solved already, so next unsolved is 3.
    second = Player(client, "/sokoban/first-steps/2")
    with app.test_request_context():
        get_store().record_win(player_of(client), "sokoban", "first-steps/2", {"moves": 1})
    first = Player(client, "/sokoban/first-steps/1")
    won = first.act("move", moves="r").text
    assert 'id="solved"' in won
    assert 'id="next-unsolved" href="/sokoban/first-steps/3"' in won
    assert second.path != first.path


def test_progress_shows_on_the_home_game_and_collection_pages(client):
    me = Player(client, "/sokoban/first-steps/1")
    me.act("move", moves="r")
    home = client.get("/").text
    assert re.search(r'id="progress-sokoban">1 of \d+ solved', home)
    assert "1 of 5 levels solved" in home  # First steps on the game's card
    assert re.search(r'id="progress">1 of \d+ levels solved', client.get("/sokoban/").text)
    assert "1 of 5 solved." in client.get("/sokoban/first-steps/").text
