"""The smaller doors an attacker tries: headers, cookies, bodies, stored levels, tables."""

from __future__ import annotations

import threading

from tests.conftest import csrf_of
from webapp import create_app


def test_the_content_security_policy_never_echoes_the_host_header(client):
    forged = "evil.example' 'unsafe-inline"
    policy = client.get("/", headers={"Host": forged}).headers["Content-Security-Policy"]
    assert "evil.example" not in policy and "connect-src 'self';" in policy


def test_over_https_the_cookie_is_secure_host_only_and_hsts_is_sent(tmp_path):
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "HTTPS": True})
    client = app.test_client()
    page = client.get("/sokoban/microban/1", base_url="https://puzzles.example")
    cookie = page.headers["Set-Cookie"]
    assert cookie.startswith("__Host-puzzlelab=") and "Secure" in cookie and "Path=/" in cookie
    assert page.headers["Strict-Transport-Security"].startswith("max-age=")
    plain = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "plain")})
    assert "Strict-Transport-Security" not in plain.test_client().get("/").headers


def test_a_large_form_body_is_refused_before_it_is_read(client):
    token = csrf_of(client.get("/sokoban/").text)
    body = "csrf_token=" + token + "&text=" + "x" * (3 * 1024 * 1024)
    answer = client.post(
        "/sokoban/new", data=body, content_type="application/x-www-form-urlencoded"
    )
    assert answer.status_code == 413 and "too large" in answer.text


def test_a_stored_level_the_parser_now_refuses_is_a_clear_page_not_a_500(app, client):
    from webapp.db import get_store

    with app.test_request_context():
        get_store().save_level("sokoban", "0123456789ab", "this is not a level")
    answer = client.get("/sokoban/custom/0123456789ab")
    assert answer.status_code == 410 and "cannot be played any more" in answer.text


def test_tables_let_go_are_built_again_when_asked_for():
    from webapp.games import get
    from webapp.tables import Tables

    built = []
    done = threading.Event()

    def call(function, module, name, text, **limits):
        built.append(text)
        done.set()
        return {"path_moves": {}}

    tables = Tables(call, size=1)
    game = get("blocks")
    from webapp import catalog

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
    from webapp.live import hint_failure
    from webapp.search import Result

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
    assert "<h1>Morning Walk</h1>" in first.get(address).text
    assert "<h1>Rude Words</h1>" in second.get(address).text
    assert "<h1>Morning Walk</h1>" in app.test_client().get(address).text


def test_an_overlong_title_is_refused_with_its_length_not_dropped(client):
    token = csrf_of(client.get("/sokoban/").text)
    text = "Title: " + "x" * 190_000 + "\n#####\n#@$.#\n#####\n"
    answer = client.post("/sokoban/new", data={"text": text, "csrf_token": token})
    assert answer.status_code == 400 and "190,000 characters long; the most is 200" in answer.text
