"""Forgery: every state-changing request of the app, sent as a cross-site page or a forger
would send it, is refused and changes nothing; the solver socket refuses other sites."""

from __future__ import annotations

import io
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.conftest import csrf_of
from webapp.jobs.base import wait_for
from webapp.web.solvers import get_runner

#: A cross-site page's origin, with a port, as a browser names it.
EVIL = "http://evil.example:8080"


def picture() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (120, 90), (30, 140, 90)).save(out, format="PNG")
    return out.getvalue()


#: A level drawn in the editor, as its page sends it.
DRAFT = json.dumps({"rows": [list("#######"), list("#@ $ .#"), list("#######")], "fields": {}})

#: Every POST route by endpoint: real path arguments, the fields a page sends (a callable of
#: the victim's jobs: the running one, the solved one), and whether the page sends its token
#: as a form field (a plain form) or a header (htmx).
ROUTES: dict[str, tuple[dict[str, str], Callable[[dict[str, str]], dict[str, Any]], str]] = {
    "web.play_action": (
        {"game_name": "sokoban", "collection": "microban", "ident": "1"},
        lambda jobs: {"action": "move", "moves": "l"},
        "header",
    ),
    "standing.settings": ({}, lambda jobs: {"name": "Forged Name"}, "field"),
    "standing.keep_settings": ({}, lambda jobs: {"theme": "dark"}, "header"),
    "web.paste": (
        {"game_name": "sokoban"},
        lambda jobs: {"text": "#######\n#@ $ .#\n#######"},
        "field",
    ),
    "web.generate": (
        {"game_name": "sliding"},
        lambda jobs: {"rows": "3", "cols": "3", "mode": "uniform"},
        "field",
    ),
    "web.upload_picture": (
        {"game_name": "sliding"},
        lambda jobs: {
            "back": "/sliding/p/3x3-123456708",
            "picture": (io.BytesIO(picture()), "a.png"),
        },
        "field",
    ),
    "live.start_solve": (
        {"game_name": "sokoban", "collection": "microban", "ident": "3"},
        lambda jobs: {"algorithm": "bfs"},
        "header",
    ),
    "live.cancel_solve": (
        {"game_name": "sokoban", "collection": "xsokoban", "ident": "5"},
        lambda jobs: {"job": jobs["running"]},
        "header",
    ),
    "live.use_solution": (
        {"game_name": "sokoban", "collection": "microban", "ident": "2"},
        lambda jobs: {"job": jobs["solved"]},
        "header",
    ),
    "live.hint": (
        {"game_name": "sokoban", "collection": "microban", "ident": "1"},
        lambda jobs: {},
        "header",
    ),
    "editing.look": ({"game_name": "sokoban"}, lambda jobs: {"draft": DRAFT}, "header"),
    "editing.verdict": ({"game_name": "sokoban"}, lambda jobs: {"draft": DRAFT}, "header"),
    "editing.shuffle": (
        {"game_name": "sliding"},
        lambda jobs: {
            "draft": json.dumps({"rows": [["1", "2"], ["3", "0"]], "fields": {}}),
            "moves": "2",
        },
        "header",
    ),
    "live.improve_solution": (
        {"game_name": "sokoban", "collection": "microban", "ident": "3"},
        lambda jobs: {"moves": "ruuLLLulDrrrrddlUruLLLddllluurRDrdLuuurDD", "metric": "pushes"},
        "header",
    ),
    "live.play_stopped": (
        {"game_name": "sokoban", "collection": "xsokoban", "ident": "5"},
        lambda jobs: {"job": jobs["running"]},
        "field",
    ),
    "editing.save": (
        {"game_name": "sokoban"},
        lambda jobs: {"draft": DRAFT, "intent": "save", "author": "Forger"},
        "field",
    ),
    "learning.start_step": (
        {"game_name": "sokoban", "collection": "microban", "ident": "1"},
        lambda jobs: {"algorithm": "bfs"},
        "field",
    ),
    "learning.go_on": (
        {"game_name": "sokoban", "collection": "microban", "ident": "2", "job_id": "none"},
        lambda jobs: {},
        "field",
    ),
    "learning.start_race": (
        {"game_name": "sokoban", "collection": "microban", "ident": "1"},
        lambda jobs: {"algorithm": ["bfs", "astar"]},
        "field",
    ),
    "learning.stop_race": (
        {"game_name": "sokoban", "collection": "microban", "ident": "1"},
        lambda jobs: {"jobs": ""},
        "field",
    ),
}


def post_routes(app) -> dict[str, str]:
    """Each POST route's endpoint and its address with real arguments."""
    bound = app.url_map.bind("localhost")
    return {
        rule.endpoint: bound.build(rule.endpoint, ROUTES[rule.endpoint][0])
        for rule in app.url_map.iter_rules()
        if "POST" in (rule.methods or ()) and rule.endpoint in ROUTES
    }


def snapshot(app) -> tuple:
    """What a request could change: every row of the database, the instance folder's files
    (stored pictures), and every solve the runner holds (with its state)."""
    database = sqlite3.connect(app.config["DATABASE"])
    try:
        tables = [
            row[0] for row in database.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        rows = {
            table: sorted(map(repr, database.execute(f"SELECT * FROM {table}"))) for table in tables
        }
    finally:
        database.close()
    instance = Path(app.instance_path)
    files = sorted(
        str(path.relative_to(instance))
        for path in instance.rglob("*")
        if path.is_file() and "sqlite3" not in path.name
    )
    with app.app_context():
        jobs = sorted(
            (job.id, job.request.owner, job.request.board, job.state)
            for job in get_runner().jobs.values()
        )
    return rows, files, jobs


def send(
    client, path: str, endpoint: str, fields: dict[str, Any], token: str | None, origin: str | None
):
    """The request a page of the site, or one posing as it, sends to this route."""
    _arguments, _fields, via = ROUTES[endpoint]
    headers = {"HX-Request": "true"} if via == "header" else {}
    if origin is not None:
        headers["Origin"] = origin
    if token is not None:
        if via == "header":
            headers["X-CSRF-Token"] = token
        else:
            fields = {**fields, "csrf_token": token}
    multipart = any(isinstance(value, tuple) for value in fields.values())
    return client.post(
        path,
        data=fields,
        headers=headers,
        content_type="multipart/form-data" if multipart else None,
    )


@pytest.fixture
def victim(app):
    """A player with a game, a running solve (xsokoban 5) and a solved one (microban 2): the
    browser a forged request rides in, with its cookie."""
    client = app.test_client()
    token = csrf_of(client.get("/sokoban/microban/1").text)
    headers = {"X-CSRF-Token": token, "HX-Request": "true"}
    assert (
        client.post(
            "/sokoban/microban/1/play", data={"action": "move", "moves": "d"}, headers=headers
        ).status_code
        == 200
    )
    token = csrf_of(client.get("/sokoban/microban/1").text)  # the player's own token now
    headers["X-CSRF-Token"] = token
    jobs = {}
    for name, path in (("running", "/sokoban/xsokoban/5"), ("solved", "/sokoban/microban/2")):
        panel = client.post(path + "/solve", data={"algorithm": "bfs"}, headers=headers).text
        jobs[name] = re.search(r'data-job="([^"]+)"', panel).group(1)
    with app.app_context():
        runner = get_runner()
        assert wait_for(runner.jobs[jobs["solved"]], lambda job: job.state == "done", 30)
        assert runner.jobs[jobs["solved"]].result.status == "solved"
    yield client, token, jobs
    with app.app_context():
        for job in list(get_runner().jobs.values()):
            get_runner().cancel(job)


def test_every_post_route_refuses_a_request_without_its_pages_token(app, victim):
    client, token, jobs = victim
    routes = post_routes(app)
    posting = {rule.endpoint for rule in app.url_map.iter_rules() if "POST" in (rule.methods or ())}
    assert posting == set(routes), "a POST route with no forgery case here"
    assert routes["live.use_solution"] == "/sokoban/microban/2/solve/use"

    # Another player's own token, and a genuine visitor token (any page read without a cookie).
    other = app.test_client()
    first = csrf_of(other.get("/sokoban/microban/1").text)
    other.post(
        "/sokoban/microban/1/play", data={"action": "refresh"}, headers={"X-CSRF-Token": first}
    )
    other_token = csrf_of(other.get("/sokoban/microban/1").text)
    assert not other_token.startswith("v.") and other_token != token
    visitor_token = csrf_of(app.test_client().get("/sokoban/microban/1").text)
    assert visitor_token.startswith("v.")
    nonce = visitor_token.split(".")[1]

    with_cookie = [
        ("no token", None, None),
        ("no token, the site's own origin", None, "http://localhost"),
        ("an empty token", "", None),
        ("a forged string", "0" * 32, None),
        ("a forged string from another site", "forged", EVIL),
        ("another player's token", other_token, None),
        ("another player's token from another site", other_token, EVIL),
        ("a visitor token with a forged signature", f"v.{nonce}.{'0' * 16}", None),
        ("a visitor token with no nonce", "v.x.y", None),
        ("a genuine visitor token from another site", visitor_token, EVIL),
    ]
    without_cookie = [
        ("no token", None, None),
        ("no token, from another site", None, EVIL),
        ("a forged string", "0" * 32, None),
        ("another player's token", other_token, None),
        ("the victim's token", token, None),
        ("a visitor token with a forged signature", f"v.{nonce}.{'0' * 16}", None),
    ]
    before = snapshot(app)
    for endpoint, path in routes.items():
        fields = ROUTES[endpoint][1]
        for browser, cases in ((client, with_cookie), (None, without_cookie)):
            for case, sent, origin in cases:
                stranger = browser or app.test_client()
                answer = send(stranger, path, endpoint, fields(jobs), sent, origin)
                what = f"{endpoint} ({path}) with {case}{'' if browser else ', no cookie'}"
                assert answer.status_code == 403, what
                assert "out of date" in answer.text, what
                assert "Set-Cookie" not in answer.headers, what
                assert snapshot(app) == before, what

    # The same requests with the page's own token go through: the refusals above were the
    # token's doing, not a malformed request's.
    for endpoint, path in routes.items():
        answer = send(client, path, endpoint, ROUTES[endpoint][1](jobs), token, "http://localhost")
        # A search still running has stopped nowhere, and there is no step-through to go on
        # from: those routes answer so, past the token.
        stopped = endpoint in ("live.play_stopped", "learning.go_on")
        busy = (400,) if endpoint.startswith("learning.start_") else ()
        passed = (404,) if stopped else (200, 204, 303, *busy)
        assert answer.status_code in passed, (endpoint, answer.status_code)
        if endpoint == "live.play_stopped":
            assert "did not stop short" in answer.text
        if endpoint == "learning.go_on":
            assert "not yours, is of another level, or was forgotten" in answer.text
        if endpoint.startswith("learning.start_") and answer.status_code == 400:
            # The victim's solves may still be going (three a player): refused past the token.
            assert "solves going" in answer.text, (endpoint, answer.text)
    assert snapshot(app) != before


def test_a_visitor_token_is_a_new_player_only_for_its_own_sites_pages(app):
    """A page read before this browser's first action elsewhere carries a visitor token: with
    the cookie of a player it acts as that player from the site's own pages only."""
    browser = app.test_client()
    token = csrf_of(browser.get("/sokoban/microban/1").text)
    visitor = csrf_of(browser.get("/sokoban/microban/2").text)  # another tab, read before
    headers = {"X-CSRF-Token": token, "HX-Request": "true"}
    assert (
        browser.post(
            "/sokoban/microban/1/play", data={"action": "move", "moves": "d"}, headers=headers
        ).status_code
        == 200
    )
    before = snapshot(app)
    for origin in (EVIL, "http://localhost:8080", "http://localhost.evil.example", "null"):
        answer = browser.post(
            "/sokoban/microban/2/play",
            data={"action": "move", "moves": "l"},
            headers={"X-CSRF-Token": visitor, "Origin": origin},
        )
        assert answer.status_code == 403, origin
        assert snapshot(app) == before, origin
    answer = browser.post(
        "/sokoban/microban/2/play",
        data={"action": "move", "moves": "l"},
        headers={"X-CSRF-Token": visitor, "Origin": "http://localhost"},
    )
    assert answer.status_code == 200 and snapshot(app) != before


def test_the_solver_socket_refuses_another_sites_pages(server):
    from tests.test_socket import Browserless, assert_refused

    player = Browserless(server.url)
    player.get("/sokoban/xsokoban/5")
    panel = player.post("/sokoban/xsokoban/5/solve", algorithm="bfs")
    path = re.search(r'ws-connect="([^"]+)"', panel).group(1)
    try:
        port = server.port
        for origin in (
            EVIL,
            f"http://127.0.0.1:{port + 1}",  # the same host on another port
            f"http://127.0.0.1:{port}.evil.example",  # the site's address as a prefix
            "null",  # a sandboxed frame or a file
        ):
            assert_refused(player.socket(path, Origin=origin), "cross-site socket refused")
        ws = player.socket(path)  # the page's own origin, with its port
        assert 'id="solve-status"' in ws.receive(timeout=5)
        ws.close()
    finally:
        player.post("/sokoban/xsokoban/5/solve/cancel", job=path.rsplit("/", 1)[1])
