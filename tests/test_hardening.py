"""The smaller doors an attacker tries: headers, cookies, bodies, stored levels, tables."""

from __future__ import annotations

import io
import re
import threading

import pytest

from tests.conftest import csrf_of
from webapp import create_app
from webapp.jobs.work import Pool


def test_the_content_security_policy_never_echoes_the_host_header(client):
    forged = "evil.example' 'unsafe-inline"
    policy = client.get("/", headers={"Host": forged}).headers["Content-Security-Policy"]
    assert "evil.example" not in policy and "connect-src 'self';" in policy


def test_over_https_the_cookie_is_secure_host_only_and_hsts_is_sent(tmp_path):
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "HTTPS": True})
    client = app.test_client()
    page = client.get("/sokoban/microban/1", base_url="https://puzzles.example")
    assert "Set-Cookie" not in page.headers  # reading makes no player
    acted = client.post(
        "/sokoban/microban/1/play",
        data={"action": "move", "moves": "d", "csrf_token": csrf_of(page.text)},
        base_url="https://puzzles.example",
    )
    cookie = acted.headers["Set-Cookie"]
    assert cookie.startswith("__Host-puzzlelab=") and "Secure" in cookie and "Path=/" in cookie
    assert page.headers["Strict-Transport-Security"].startswith("max-age=")
    plain = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "plain")})
    assert "Strict-Transport-Security" not in plain.test_client().get("/").headers


@pytest.mark.parametrize(
    "content_type",
    # What a form sends, and what <form enctype="text/plain"> sends (no form parser reads
    # that one, so nothing but the app's own limit on bodies would ever refuse it).
    ["application/x-www-form-urlencoded", "text/plain"],
)
def test_a_large_form_body_is_refused_before_it_is_read(client, content_type):
    token = csrf_of(client.get("/sokoban/").text)
    text = "#####\n#@$.#\n#####\n" + ";" * (2 * 1024 * 1024)  # a level, padded past 1 MB
    body = io.BytesIO(f"text={text}".encode())
    answer = client.post(
        "/sokoban/new",
        input_stream=body,
        content_length=len(body.getvalue()),
        content_type=content_type,
        headers={"X-CSRF-Token": token},
    )
    assert answer.status_code == 413 and "too large" in answer.text
    assert body.tell() == 0  # refused on its declared length: not a byte of it was read


def test_a_stored_level_the_parser_now_refuses_is_a_clear_page_not_a_500(app, client):
    from webapp.web.database import get_store

    with app.test_request_context():
        get_store().save_level("sokoban", "0123456789ab", "this is not a level")
    answer = client.get("/sokoban/custom/0123456789ab")
    assert answer.status_code == 410 and "cannot be played any more" in answer.text


def test_tables_let_go_are_built_again_when_asked_for():
    from webapp.games import get
    from webapp.jobs.tables import Tables

    built = []
    done = threading.Event()

    def call(function, module, name, text, **limits):
        built.append(text)
        done.set()
        return {"path_moves": {}}

    tables = Tables(call, size=1)
    game = get("blocks")
    from webapp.core import catalog

    first, second = catalog.collection("blocks", "classics").levels[:2]

    def wait_built(level):
        done.clear()
        assert tables.get(game, level) == (None, True)
        assert done.wait(5)
        for _ in range(100):
            if tables.get(game, level)[1] is False:
                return
            threading.Event().wait(0.01)

    wait_built(first)
    assert tables.get(game, first)[0] == {"path_moves": {}}
    wait_built(second)  # room for one: the first is let go
    wait_built(first)  # and built again, not "working out…" for good
    assert len(built) == 3 and tables.get(game, first) == ({"path_moves": {}}, False)


def test_a_hint_says_what_stopped_its_search():
    from webapp.search import Result
    from webapp.web.live import hint_failure

    assert "more memory" in hint_failure(Result(status="memory-limit", seconds=0.9), 5)
    assert "too large" in hint_failure(Result(status="node-limit"), 5)
    assert "within 5 s" in hint_failure(Result(status="timeout", seconds=5.0), 5)
    assert "cannot be solved" in hint_failure(Result(status="unsolvable"), 5)


def test_each_paster_sees_their_own_title_and_the_first_stays_for_everyone_else(app):
    board = "#####\n#@$.#\n#####\n"

    def paste(title: str):
        client = app.test_client()
        token = csrf_of(client.get("/sokoban/").text)
        answer = client.post(
            "/sokoban/new", data={"text": f"Title: {title}\n{board}", "csrf_token": token}
        )
        assert answer.status_code == 303
        return client, answer.headers["Location"]

    first, address = paste("Morning Walk")
    second, same = paste("Rude Words")
    assert same == address  # one board, one address
    assert ">Morning Walk</h1>" in first.get(address).text
    assert ">Rude Words</h1>" in second.get(address).text
    assert ">Morning Walk</h1>" in app.test_client().get(address).text


def test_an_overlong_title_is_refused_with_its_length_not_dropped(client):
    token = csrf_of(client.get("/sokoban/").text)
    text = "Title: " + "x" * 190_000 + "\n#####\n#@$.#\n#####\n"
    answer = client.post("/sokoban/new", data={"text": text, "csrf_token": token})
    assert answer.status_code == 400 and "190,000 characters long; the most is 200" in answer.text


def test_a_replay_link_lists_the_moves_around_its_position_and_has_a_length_limit(client):
    moves = "du" * 300  # First steps 3: down and up alternate forever
    page = client.get(f"/sokoban/first-steps/3?moves={moves}&at=300").text
    # The view's own position, start, and the move shown with forty on each side.
    assert page.count('data-position="') <= 1 + 1 + 2 * 40 + 1
    assert 'data-position="300"' in page and 'data-position="200"' not in page
    too_long = client.get("/sokoban/first-steps/3?moves=" + "du" * 10_001)
    assert too_long.status_code == 400 and "20,000 at most" in too_long.text


def test_the_move_budget_counts_every_move_text_of_a_pipelined_request(tmp_path):
    settings = {"BUDGET_MOVE_BYTES": "10 per minute"}
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), **settings})
    client = app.test_client()
    page = client.get("/sokoban/first-steps/3")
    headers = {"X-CSRF-Token": csrf_of(page.text), "HX-Request": "true"}
    burst = {"action": "move", "moves": ["du"] * 6}  # 12 bytes in one request
    answer = client.post("/sokoban/first-steps/3/play", data=burst, headers=headers)
    assert answer.status_code == 429


def test_a_forwarded_host_is_never_trusted(tmp_path):
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "PROXIES": 1})

    @app.get("/host")
    def host():
        from flask import request

        return request.host

    answer = app.test_client().get(
        "/host", headers={"Host": "puzzles.example", "X-Forwarded-Host": "evil.example"}
    )
    assert answer.text == "puzzles.example"


def test_the_picture_sweep_survives_a_picture_removed_under_it(tmp_path, monkeypatch):
    from pathlib import Path

    from webapp.core import pictures

    folder = tmp_path / "pictures"
    folder.mkdir()
    for name in ("a" * 24, "b" * 24):
        (folder / f"{name}.jpg").write_bytes(b"x")
    real_stat = Path.stat

    def racing_stat(path, *args, **kwargs):
        if path.name.startswith("a"):
            raise FileNotFoundError(path)  # another process's sweep took it
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", racing_stat)
    assert pictures.sweep(folder, unused_days=30, budget_bytes=0) == 1
    assert pictures.folder_bytes(folder) == 0


def test_tables_that_failed_for_a_passing_reason_are_asked_for_again():
    from webapp.core import catalog
    from webapp.games import get
    from webapp.jobs.tables import Tables

    answers = [ConnectionError("the solvers are unreachable"), {"path_moves": {}}]
    done = threading.Event()

    def call(*args, **limits):
        answer = answers.pop(0)
        done.set()
        if isinstance(answer, Exception):
            raise answer
        return answer

    tables = Tables(call)
    game, level = get("blocks"), catalog.collection("blocks", "classics").levels[0]

    def settled() -> tuple:
        for _ in range(500):
            if not tables._building:
                break
            threading.Event().wait(0.01)
        return tables.get(game, level)

    assert tables.get(game, level) == (None, True)
    assert done.wait(5)
    # The failure is not kept as "no tables": asked again, they are built again.
    assert settled() == (None, True)
    assert settled() == ({"path_moves": {}}, False)


def test_a_solution_is_used_only_on_its_own_level(app, client):
    from tests.conftest import wait_until

    page = client.get("/sokoban/first-steps/1")
    headers = {"X-CSRF-Token": csrf_of(page.text)}
    panel = client.post("/sokoban/first-steps/1/solve", data={"algorithm": "bfs"}, headers=headers)
    job = re.search(r'data-job="([^"]+)"', panel.text).group(1)
    with app.app_context():
        from webapp.web.solvers import get_runner

        found = get_runner().jobs[job]
        assert wait_until(lambda: found.done, 20)
    client.get("/sokoban/first-steps/2")
    other = client.post("/sokoban/first-steps/2/solve/use", data={"job": job}, headers=headers)
    assert other.status_code == 404 and "another level" in other.text


def test_the_origin_is_checked_against_the_public_origin_not_the_host_header(tmp_path):
    """A browser names its page's origin with the port; behind a proxy the Host header may
    differ, so a configured public origin decides, and a forged Host buys nothing."""
    from flask import request

    from webapp.web.players import same_origin

    configured = create_app(
        {
            "TESTING": True,
            "INSTANCE_PATH": str(tmp_path / "a"),
            "PUBLIC_ORIGIN": "https://puzzles.example, http://127.0.0.1:8080",
        }
    )
    cases = [
        ("https://puzzles.example", "internal:5000", True),
        ("http://127.0.0.1:8080", "127.0.0.1", True),
        ("https://puzzles.example:8443", "puzzles.example:8443", False),
        ("https://evil.example", "evil.example", False),  # a forged Host does not help
    ]
    for origin, host, expected in cases:
        with configured.test_request_context(headers={"Origin": origin, "Host": host}):
            assert same_origin(request) is expected, (origin, host)
    default = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "b")})
    for origin, host, expected in [
        ("http://127.0.0.1:8080", "127.0.0.1:8080", True),
        ("http://127.0.0.1:8080", "127.0.0.1", False),  # a proxy that dropped the port
        ("http://evil.example", "127.0.0.1:8080", False),
    ]:
        with default.test_request_context(headers={"Origin": origin, "Host": host}):
            assert same_origin(request) is expected, (origin, host)


def test_a_hint_once_answered_is_not_kept_in_memory(app, client):
    """A hint's record (its search's progress and answer) would stay 30 minutes for a page
    that never looks it up again: it is let go once answered."""
    from tests.conftest import Player
    from webapp.web.solvers import get_runner

    me = Player(client, "/sokoban/microban/1")
    answer = client.post("/sokoban/microban/1/hint", headers={"X-CSRF-Token": me.token})
    assert "Next move:" in answer.text
    with app.app_context():
        runner = get_runner()
        try:
            assert not [job for job in runner.jobs.values() if job.request.pool is Pool.HINTS]
        finally:
            runner.shutdown()
