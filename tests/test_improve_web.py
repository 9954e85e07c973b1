"""The solution optimizer from a level page: a solution given (the solver's, the player's, a
replay's) runs as a solve in the panel and ends as the playback of a shorter one."""

from __future__ import annotations

import re

from tests.conftest import Player
from webapp.games import get
from webapp.jobs.base import wait_for
from webapp.web.solvers import get_runner

SOKOBAN = get("sokoban")
#: Microban 3's shortest solution (41 moves, 13 pushes) and one with a detour before it.
SHORTEST = "ruuLLLulDrrrrddlUruLLLddllluurRDrdLuuurDD"
DETOUR = "rlrl" + SHORTEST


def test_a_wasteful_solution_comes_back_shorter_as_a_playback(app, client):
    player = Player(client, "/sokoban/microban/3")
    won = player.act("move", moves=DETOUR).text
    assert 'id="solved"' in won and "Shorten your solution:" in won
    panel = client.post(
        "/sokoban/microban/3/solve/improve",
        data={"moves": DETOUR, "metric": "moves"},
        headers={"X-CSRF-Token": player.token, "HX-Request": "true"},
    )
    assert panel.status_code == 200 and "the solution optimizer, in moves" in panel.text
    job_id = re.search(r'data-job="([^"]+)"', panel.text).group(1)
    with app.app_context():
        job = get_runner().jobs[job_id]
        assert wait_for(job, lambda job: job.done, 60)
        assert job.result.status == "solved"
        assert len(job.result.moves) == len(SHORTEST) < len(DETOUR)
    page = client.get("/sokoban/microban/3").text
    assert "The solution given: 45 moves, 13 pushes." in page
    # The optimizer's figures in its own terms: what it was given and what it saved.
    assert '<dt>the solution given (moves)</dt><dd id="stat-given">45</dd>' in page
    saved = 45 - len(SHORTEST)
    assert f'<dt>moves saved</dt><dd id="stat-saved-moves">{saved}</dd>' in page
    assert "Use this solution" in page


def test_moves_that_do_not_solve_the_level_or_a_metric_it_lacks_are_refused(client):
    player = Player(client, "/sokoban/microban/3")
    player.act("move", moves="r")
    for fields, words in (
        ({"moves": SHORTEST[:-1], "metric": "moves"}, "do not solve this level"),
        ({"moves": "x" + SHORTEST, "metric": "moves"}, "cannot be read"),
        ({"moves": SHORTEST, "metric": "boxes"}, "shortened in: moves, pushes"),
    ):
        headers = {"X-CSRF-Token": player.token, "HX-Request": "true"}
        answer = client.post("/sokoban/microban/3/solve/improve", data=fields, headers=headers)
        assert answer.status_code == 400 and words in answer.text


def test_no_shortening_is_offered_for_a_win_that_cannot_be_shorter(client):
    """First steps 1 is one push: a win in one push and one move cannot be shortened."""
    won = Player(client, "/sokoban/first-steps/1").act("move", moves="R").text
    assert 'id="solved"' in won and "Shorten your solution" not in won
