"""Budgets follow the client (its address), not the cookie: dropping cookies buys nothing."""

from __future__ import annotations

import pytest

from tests.conftest import csrf_of, upload_picture
from webapp import create_app

LEVEL = "#####\n#@$.#\n#####"


@pytest.fixture
def budget_app(tmp_path):
    return create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance")})


def fresh(app, address: str = "203.0.113.7", **headers: str):
    """A new browser (no cookies) at ``address``: a new player, the same client."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    page = client.get("/sokoban/", headers=headers)
    return client, (csrf_of(page.text) if page.status_code == 200 else "")


def paste(client, token, **headers):
    return client.post("/sokoban/new", data={"text": LEVEL, "csrf_token": token}, headers=headers)


def test_pastes_are_counted_per_client_whatever_the_cookie(budget_app, monkeypatch):
    from webapp import budgets

    monkeypatch.setitem(budgets.LIMITS, "web.paste", ("3 per hour", "Too many pastes."))
    app = create_app({"TESTING": True, "INSTANCE_PATH": budget_app.instance_path + "2"})
    for _ in range(3):
        client, token = fresh(app)
        assert paste(client, token).status_code == 303
    client, token = fresh(app)  # a new cookie, the same address
    refused = paste(client, token)
    assert refused.status_code == 429 and "Too many pastes." in refused.text
    other, token = fresh(app, "198.51.100.1")  # another client still may
    assert paste(other, token).status_code == 303


def test_uploads_and_solves_have_budgets_per_client(monkeypatch, tmp_path):
    from webapp import budgets

    monkeypatch.setitem(budgets.LIMITS, "web.upload_picture", ("1 per hour", "Too many pictures."))
    monkeypatch.setitem(budgets.LIMITS, "live.start_solve", ("1 per hour", "Too many solves."))
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    client, token = fresh(app)

    def upload():
        return upload_picture(client, token, b"not a picture")

    assert upload().status_code == 400  # counted, and refused for what it is
    assert upload().status_code == 429
    level = "/sokoban/first-steps/1"
    client.get(level)
    solve = client.post(level + "/solve", data={"algorithm": "bfs", "csrf_token": token})
    assert solve.status_code == 200
    client, token = fresh(app)
    client.get(level)
    again = client.post(level + "/solve", data={"algorithm": "bfs", "csrf_token": token})
    assert again.status_code == 429 and "Too many solves." in again.text
    with app.app_context():
        from webapp.solvers import get_runner

        get_runner().shutdown()


def test_new_players_from_one_client_are_budgeted(monkeypatch, tmp_path):
    from webapp import budgets

    monkeypatch.setattr(budgets, "NEW_PLAYERS", "2 per hour")
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    for _ in range(2):
        assert fresh(app)[1]
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "203.0.113.7"
    page = client.get("/sokoban/microban/1")
    assert page.status_code == 429 and "new players" in page.text
    assert client.get("/sokoban/microban/1", headers={"HX-Request": "1"}).mimetype == "text/plain"


def test_an_ipv6_client_is_its_64():
    from webapp.budgets import client_key

    app = create_app({"TESTING": True, "INSTANCE_PATH": "/tmp/unused-budgets"})
    for address, key in (
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("::ffff:192.0.2.5", "192.0.2.5"),
        ("192.0.2.5", "192.0.2.5"),
    ):
        with app.test_request_context(environ_base={"REMOTE_ADDR": address}):
            assert client_key() == key


def test_forwarded_addresses_count_only_behind_the_configured_proxies(tmp_path):
    from webapp.budgets import client_key

    forwarded = {"X-Forwarded-For": "198.51.100.9"}
    direct = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "a")})
    proxied = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "b"), "PROXIES": 1})
    seen = []
    for app in (direct, proxied):

        @app.get("/whoami")
        def whoami():
            return client_key()

        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = "127.0.0.1"
        seen.append(client.get("/whoami", headers=forwarded).text)
    assert seen == ["127.0.0.1", "198.51.100.9"]


def test_budgets_kept_in_an_unreachable_redis_never_stop_play(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "INSTANCE_PATH": str(tmp_path),
            "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:9/0",  # nothing listens there
        }
    )
    client, token = fresh(app)
    page = client.get("/sokoban/microban/1")
    assert page.status_code == 200
    move = client.post(
        "/sokoban/microban/1/play",
        data={"action": "move", "moves": "r"},
        headers={"X-CSRF-Token": csrf_of(page.text), "HX-Request": "true"},
    )
    assert move.status_code == 200 and 'id="count-moves">1<' in move.text
