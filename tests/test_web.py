"""The pages and the play endpoint, through the Flask test client."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, Player, csrf_of


def test_home_lists_the_games_and_their_collections(client):
    page = client.get("/")
    assert page.status_code == 200
    assert "Sokoban" in page.text
    assert 'href="/sokoban/microban/"' in page.text
    assert "155 levels" in page.text


def test_collection_page_lists_levels_and_progress(client, player):
    page = client.get("/sokoban/first-steps/")
    assert page.status_code == 200
    assert page.text.count('href="/sokoban/first-steps/') == 5
    me = player("/sokoban/first-steps/1")
    assert me.act("move", moves="r").status_code == 200
    page = client.get("/sokoban/first-steps/")
    assert "1 of 5 solved" in page.text
    assert re.search(r'class="solved">\s*<a href="/sokoban/first-steps/1"', page.text)


def test_a_move_returns_the_board_partial_with_counters(player):
    me = player("/sokoban/microban/1")
    response = me.act("move", moves="d")
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="play"')
    assert '<b id="count-moves">1</b>' in response.text
    assert "<html" not in response.text


def test_a_step_into_a_wall_changes_nothing(player):
    me = player("/sokoban/microban/1")
    quiet = me.act("move", moves="l", quiet="1")  # the box on the left has a wall behind it
    assert quiet.status_code == 204
    loud = me.act("move", moves="rrrr")
    assert loud.status_code == 200 and "wall is in the way" in loud.text
    assert '<b id="count-moves">0</b>' in loud.text


def test_a_forged_move_gets_a_clear_400(player):
    me = player("/sokoban/microban/1")
    response = me.act("move", moves="dx")
    assert response.status_code == 400
    assert "Not a move" in response.text and "'x'" in response.text
    assert me.act("dance").status_code == 400
    assert me.act("click", cell="nonsense").status_code == 400


def test_a_post_without_the_csrf_token_is_refused(client):
    client.get("/sokoban/microban/1")
    response = client.post("/sokoban/microban/1/play", data={"action": "move", "moves": "d"})
    assert response.status_code == 403
    assert "Reload" in response.text


def test_unknown_games_collections_and_levels_are_404_with_a_message(client):
    assert "no game called" in client.get("/chess/").text
    assert client.get("/sokoban/nope/").status_code == 404
    response = client.get("/sokoban/microban/999")
    assert response.status_code == 404 and "levels 1 to 155" in response.text
    assert client.get("/sokoban/custom/zzzz").status_code == 404
    assert client.get("/sokoban/custom/0123456789ab").status_code == 404


def test_players_do_not_see_each_others_games(app):
    alice, bob = app.test_client(), app.test_client()
    page = alice.get("/sokoban/microban/1")
    alice.post(
        "/sokoban/microban/1/play",
        data={"action": "move", "moves": "dl"},
        headers={"X-CSRF-Token": csrf_of(page.text)},
    )
    assert '<b id="count-moves">2</b>' in alice.get("/sokoban/microban/1").text
    assert '<b id="count-moves">0</b>' in bob.get("/sokoban/microban/1").text


def test_paste_gives_a_content_derived_url_and_titles_are_escaped(client):
    token = csrf_of(client.get("/sokoban/").text)
    text = "Title: <script>alert(1)</script>\n#####\n#@$.#\n#####"
    first = client.post("/sokoban/new", data={"text": text, "csrf_token": token})
    assert first.status_code == 303
    url = first.headers["Location"]
    assert re.fullmatch(r"/sokoban/custom/[0-9a-f]{12}", url)
    again = client.post("/sokoban/new", data={"text": "#####\n#@OX#\n#####", "csrf_token": token})
    assert again.headers["Location"] == url
    page = client.get(url)
    assert "<script>alert(1)</script>" not in page.text
    assert "&lt;script&gt;" in page.text


def test_paste_of_a_collection_lists_each_level(client):
    token = csrf_of(client.get("/sokoban/").text)
    text = "; One\n#####\n#@$.#\n#####\n\n; Two\n######\n#@$ .#\n######\n"
    page = client.post("/sokoban/new", data={"text": text, "csrf_token": token})
    assert page.status_code == 200
    assert page.text.count('href="/sokoban/custom/') == 2


def test_paste_errors_name_the_fault_and_keep_the_text(client):
    token = csrf_of(client.get("/sokoban/").text)
    page = client.post(
        "/sokoban/new", data={"text": "#####\n#@$.#\n#@  #\n#####", "csrf_token": token}
    )
    assert page.status_code == 400
    assert "line 3, column 2: a second player" in page.text
    assert "#@  #" in page.text
    empty = client.post("/sokoban/new", data={"text": "  ", "csrf_token": token})
    assert empty.status_code == 400 and "Paste a level" in empty.text
    huge = client.post("/sokoban/new", data={"text": "#" * 300_000, "csrf_token": token})
    assert huge.status_code in (400, 413)


def test_an_uploaded_file_is_read_like_pasted_text(client):
    import io

    token = csrf_of(client.get("/sokoban/").text)
    data = {"csrf_token": token, "file": (io.BytesIO(b"#####\n#@$.#\n#####\n"), "level.xsb")}
    response = client.post("/sokoban/new", data=data, content_type="multipart/form-data")
    assert response.status_code == 303
    binary = {"csrf_token": token, "file": (io.BytesIO(b"\xff\xfe\x00binary"), "x.png")}
    response = client.post("/sokoban/new", data=binary, content_type="multipart/form-data")
    assert response.status_code == 400 and "not text" in response.text


def test_a_replay_link_shows_its_moves_without_touching_the_game(client):
    response = client.get("/sokoban/microban/1?moves=dlU&at=3")
    assert response.status_code == 200 and 'id="replay"' in response.text
    assert '<b id="count-moves">3</b>' in response.text
    assert '<b id="count-pushes">1</b>' in response.text
    page = client.get("/sokoban/microban/1")
    assert '<b id="count-moves">0</b>' in page.text and 'id="replay"' not in page.text
    assert client.get("/sokoban/microban/1?moves=" + "l" * 300_000).status_code == 400


def test_the_cookie_holds_only_an_opaque_player_id(app, client):
    Player(client, "/sokoban/microban/1")
    cookie = client.get_cookie("puzzlelab")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Lax"
    session = app.session_interface.get_signing_serializer(app).loads(cookie.value)
    assert set(session) - {"_permanent"} == {"player"} and re.fullmatch(
        r"[0-9a-f]{32}", session["player"]
    )


def test_a_remembered_cookie_is_the_same_player_and_a_forged_one_is_a_new_player(app, client):
    Player(client, "/sokoban/microban/1")
    cookie = client.get_cookie("puzzlelab").value
    player = app.session_interface.get_signing_serializer(app).loads(cookie)["player"]
    for _ in range(2):  # the second time from memory
        with app.test_request_context(headers={"Cookie": f"puzzlelab={cookie}"}):
            from flask import request

            session = app.session_interface.open_session(app, request)
            assert session["player"] == player and not session.modified
            session["player"] = "changed"  # a request's session is its own
    forger = app.test_client()
    forger.set_cookie("puzzlelab", cookie[:-4] + ("AAAA" if cookie[-4:] != "AAAA" else "BBBB"))
    Player(forger, "/sokoban/microban/1")
    other = app.session_interface.get_signing_serializer(app).loads(
        forger.get_cookie("puzzlelab").value
    )
    assert other["player"] != player


def test_optional_templates_are_found_once_and_missing_ones_skipped(app, client):
    from webapp.web.pages import has_template

    with app.app_context():
        assert has_template("vexed/counters.html") and not has_template("sokoban/counters.html")
    assert client.get("/sokoban/microban/1").status_code == 200


def test_security_headers_are_set(client):
    response = client.get("/sokoban/microban/1")
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert (
        "unsafe-eval" not in policy and "'unsafe-inline'" not in policy.split("style-src-attr")[0]
    )
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Referrer-Policy"] == "same-origin"


def test_users_mistakes_never_log_a_stack_trace(client, player, caplog):
    import logging

    caplog.set_level(logging.WARNING)
    me = player("/sokoban/microban/1")
    me.act("move", moves="zz")
    me.act("click", cell="9999,1")
    me.act("teleport")
    client.get("/sokoban/microban/0")
    client.get("/sokoban/microban/\u00b9")  # a digit to str.isdigit, not to int()
    client.get("/sliding/new?size=\u00b3")
    client.get("/sokoban/microban/1?moves=%00%01")
    client.get("/sliding/p/99x99-abc")
    client.post("/sokoban/new", data={"text": "x"})
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert client.get("/sokoban/microban/\u00b9").status_code == 404


def test_a_solve_finishing_while_its_panel_renders_never_breaks_the_page(app, monkeypatch):
    from webapp.jobs.base import Job, Request
    from webapp.jobs.work import Solve
    from webapp.search import Limits, Result
    from webapp.web import watch
    from webapp.web.levels import find_level

    request = Request("sokoban", "", Solve("bfs"), Limits(), "p", "b")
    job = Job(id="j", request=request, state="running")
    real_render = watch.render_template

    def finish_then_render(*args, **context):
        # The solver's thread finishes the job after the panel's figures were gathered.
        job.result, job.state = Result(status="solved", moves=["R"]), "done"
        return real_render(*args, **context)

    monkeypatch.setattr(watch, "render_template", finish_then_render)
    with app.test_request_context("/sokoban/first-steps/1"):
        html = watch.render_stream(find_level("sokoban", "first-steps", "1"), job)
    assert 'data-state="running"' in html  # the reading it was built from; the next is fresh


def test_a_change_during_the_first_snapshot_is_sent_next(app, monkeypatch):
    import time

    from simple_websocket import ConnectionClosed

    from webapp.jobs.base import Job, Request
    from webapp.jobs.work import Solve
    from webapp.search import Limits
    from webapp.web import live
    from webapp.web.levels import find_level

    job = Job(id="j", request=Request("sokoban", "", Solve("bfs"), Limits(), "p", "b"))
    job.state = "running"
    rendered = []

    def render(found, seen_job):
        rendered.append(seen_job.state)
        if len(rendered) == 1:  # the solve finishes while its first snapshot renders
            seen_job.state = "done"
            seen_job.bump()
        return "<div id='solve-status'></div>"

    class Socket:
        def __init__(self):
            self.waits = 0

        def send(self, data):
            pass

        def receive(self, timeout=None):
            self.waits += 1
            if self.waits > 10:
                raise ConnectionClosed()
            time.sleep(0.03)
            return None

    monkeypatch.setattr(live, "render_stream", render)
    with app.test_request_context("/sokoban/first-steps/1"):
        found = find_level("sokoban", "first-steps", "1")
        with pytest.raises(ConnectionClosed):
            live.stream(Socket(), found, job)
    assert rendered == ["running", "done"]


def test_a_vexed_par_below_the_shortest_solution_says_so(client, whole_solutions):
    from webapp.games.solving import solve
    from webapp.games.vexed import GAME
    from webapp.search import Limits

    page = client.get("/vexed/panic-pack/19").text  # Nightmare Castle: par 29, shortest 30
    assert '<b id="par-value">29</b>' in page
    assert "no solution is that short" in page and '<b id="shortest">30</b>' in page
    assert "par-note" not in client.get("/vexed/panic-pack/18").text  # a par that can be met
    level = GAME.parse((ROOT / "levels" / "vexed" / "06_panic_pack.txt").read_text())[18]
    result = solve(GAME, level, "fast", limits=Limits(seconds=60))
    assert result.solved and len(result.moves) == 30
    me = Player(client, "/vexed/panic-pack/19")
    assert 'id="solved"' in me.act("move", moves=GAME.join_moves(result.moves)).text
    solved = client.get("/vexed/panic-pack/19").text
    assert '<b id="golf">+1</b><span id="best-possible">, the best possible</span>' in solved
    listing = client.get("/vexed/panic-pack/").text
    assert re.search(
        r'par 29 <span class="shortest"[^>]*>\(shortest 30\)</span>, '
        r'<span class="golf">\+1</span> \(the best possible\)',
        listing,
    )
    assert listing.count('class="shortest"') == 5


def test_a_recorded_optimum_counts_only_against_a_par_below_it():
    import dataclasses

    from webapp.core.catalog import known_optimum
    from webapp.games.vexed import GAME

    level = GAME.parse((ROOT / "levels" / "vexed" / "06_panic_pack.txt").read_text())[18]
    assert known_optimum(GAME, level) == 30  # Nightmare Castle, par 29
    assert known_optimum(GAME, dataclasses.replace(level, title="Pasted")) == 30  # the board
    assert known_optimum(GAME, dataclasses.replace(level, par=30)) is None
    assert known_optimum(GAME, dataclasses.replace(level, par=None)) is None


def test_a_running_solve_says_what_it_looks_for_and_labels_its_depth(app):
    # The status line carries the solver's note (the search within par says its cap) and the
    # algorithm in words; the last figure is the least length a solution can still have for
    # an optimal search or one that deepens a bound, and how deep it looks for another.
    from dataclasses import replace

    from webapp.jobs.base import Job, Request
    from webapp.jobs.work import Solve
    from webapp.search import Limits, Progress
    from webapp.web.levels import find_level
    from webapp.web.watch import render_stream

    job = Job(id="j", request=Request("sokoban", "", Solve("bfs"), Limits(), "p", "b"))
    job.state = "running"
    within = Progress(10, 20, 5, 12, 1.0, 10.0, note="looking for a solution of at most 33 moves")
    with app.test_request_context("/sokoban/first-steps/1"):
        found = find_level("sokoban", "first-steps", "1")
        job.progress = within
        html = render_stream(found, job)
        job.request = replace(job.request, work=Solve("fast"))
        quick = render_stream(found, job)
        job.progress = replace(within, depth=25, note="f-bound 25")
        bound = render_stream(found, job)
    searching = "Searching with <b>breadth-first (fewest pushes, proved)</b>…"
    assert searching in html and "59 s left." in html
    assert 'id="solve-caption">The position the solver is looking at now<' in html
    # The note, in the solver's words, behind a disclosure.
    assert "<summary>What it is doing</summary>looking for a solution of at most 33 moves" in html
    least = "<dt>the shortest a solution can still be (pushes)</dt>"
    assert f'{least}<dd id="stat-depth">12</dd>' in html
    assert '<dt>how deep it looks (pushes)</dt><dd id="stat-depth">12</dd>' in quick
    assert f'{least}<dd id="stat-depth">25</dd>' in bound


def test_a_nul_character_in_pasted_text_is_refused_with_its_line(client):
    token = csrf_of(client.get("/sokoban/").text)
    text = "; Title\x00here\n#####\n#@$.#\n#####"
    answer = client.post("/sokoban/new", data={"text": text, "csrf_token": token})
    assert answer.status_code == 400 and "Line 1 holds a NUL character" in answer.text


def test_the_solver_panel_says_its_time_limit_before_the_start(client):
    """The limit is shown before it hits (issue #33)."""
    page = client.get("/sokoban/microban/1").text
    assert re.search(r'id="solve-limits">Each search stops after 60 s', page), "no limit shown"
