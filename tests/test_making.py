"""Levels made to order without holding the server's threads (issue #42): a level is made
once per (game, difficulty, seed, size) and found again; only so many requests wait on
makings, each a short while; the harder bands are made ahead."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import wait_until
from webapp import create_app, games
from webapp.generating import make_level
from webapp.web import making
from webapp.web.orders import Full

EXPERT = "/blocks/random?difficulty=expert&seed="


def made_app(tmp_path, **settings: Any):
    return create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), **settings})


class Solvers:
    """The app's runner's ``call``, replaced: each making counted, held until ``release``,
    then made for real in this process (the generator is pure) or refused."""

    def __init__(self, app, monkeypatch, hold: bool = False, fail: bool = False):
        from webapp.web.solvers import get_runner

        with app.app_context():
            self.runner = get_runner()
        self.real: Callable[..., Any] = self.runner.call
        self.calls: list[tuple] = []
        self.released = threading.Event()
        if not hold:
            self.released.set()
        self.fail = fail
        monkeypatch.setattr(self.runner, "call", self.call)

    def call(self, target: Callable[..., Any], *args: Any, **options: Any) -> Any:
        self.calls.append(args)
        self.released.wait(30)
        if self.fail:
            raise RuntimeError("no solver in this test")
        assert target is make_level and options["client"]  # a client's turn in the queue
        return target(*args)


def test_a_second_request_for_the_same_seed_is_served_without_a_solver(tmp_path, monkeypatch):
    app = made_app(tmp_path)
    solvers = Solvers(app, monkeypatch)
    first = app.test_client().get(EXPERT + "11")
    assert first.status_code == 303 and len(solvers.calls) == 1
    again = app.test_client().get(EXPERT + "11")
    assert again.status_code == 303 and again.location == first.location
    assert len(solvers.calls) == 1  # found made: no solver ran
    # Another process (a restart, another web process) finds it in the store.
    other = made_app(tmp_path)
    others = Solvers(other, monkeypatch)
    found = other.test_client().get(EXPERT + "11")
    assert found.status_code == 303 and found.location == first.location and not others.calls
    # Another size or seed is another level.
    assert other.test_client().get(EXPERT + "12").status_code == 303 and len(others.calls) == 1


def test_requests_past_the_cap_on_waiting_are_answered_at_once_with_503(tmp_path, monkeypatch):
    app = made_app(tmp_path, MAKE_MAX_WAITING=1, MAKE_AT_ONCE=4)
    solvers = Solvers(app, monkeypatch, hold=True, fail=True)
    answers: list = []
    waiting = threading.Thread(target=lambda: answers.append(app.test_client().get(EXPERT + "1")))
    waiting.start()
    orders = app.extensions["puzzlelab.orders"]
    assert wait_until(lambda: orders.waiting == 1 and solvers.calls)
    turned = app.test_client().get(EXPERT + "2")  # the one place to wait is taken
    assert turned.status_code == 503 and turned.headers["Retry-After"] == "5"
    assert "Many levels are being made just now" in turned.text and "<html" in turned.text
    assert len(solvers.calls) == 1  # it made no second making: it was answered at once
    quiet = app.test_client().get("/blocks/")
    assert quiet.status_code == 200  # the rest of the site is untouched
    solvers.released.set()
    waiting.join(30)
    assert answers[0].status_code == 503 and "could not be made" in answers[0].text


def test_a_level_not_made_in_time_is_still_made_and_found_next_time(tmp_path, monkeypatch):
    app = made_app(tmp_path, MAKE_WAIT=0.1)
    solvers = Solvers(app, monkeypatch, hold=True)
    early = app.test_client().get(EXPERT + "3")
    assert early.status_code == 503 and early.headers["Retry-After"] == "3"
    assert "still being made" in early.text and 'http-equiv="refresh" content="3"' in early.text
    again = app.test_client().get(EXPERT + "3")  # waits on the same making, not a new one
    assert again.status_code == 503 and len(solvers.calls) == 1
    solvers.released.set()
    orders = app.extensions["puzzlelab.orders"]
    assert wait_until(lambda: orders.making() == 0, 30)
    made = app.test_client().get(EXPERT + "3")
    assert made.status_code == 303 and "/blocks/" in made.location and len(solvers.calls) == 1


def test_a_request_without_a_seed_is_handed_a_level_made_ahead(tmp_path, monkeypatch):
    from webapp.web import making

    app = made_app(tmp_path)
    solvers = Solvers(app, monkeypatch)
    monkeypatch.setattr(solvers.runner, "running", lambda kind="solve": 1)
    assert making.make_one_ahead(app) is None and not solvers.calls  # a solver is busy
    monkeypatch.setattr(solvers.runner, "running", lambda kind="solve": 0)
    game, band, _size = making.make_one_ahead(app)
    assert band in ("hard", "expert") and len(solvers.calls) == 1
    handed = app.test_client().get(f"/{game}/random?difficulty={band}")
    assert handed.status_code == 302 and "seed=" in handed.location
    found = app.test_client().get(handed.location)
    assert found.status_code == 303 and f"/{game}/" in found.location
    assert len(solvers.calls) == 1  # made once, ahead: the request found it made
    other = app.test_client().get(f"/{game}/random?difficulty={band}")  # each handed out once
    assert other.status_code == 302 and other.location != handed.location


def test_makings_under_way_are_capped_so_a_flood_holds_one_solver_at_most(tmp_path, monkeypatch):
    """Nine addresses asking for expert levels each took a solver in turn with the players'
    solves: a player's solve waited behind them. One making at a time (MAKE_AT_ONCE)."""
    app = made_app(tmp_path, MAKE_AT_ONCE=1)
    solvers = Solvers(app, monkeypatch, hold=True)
    answers: list = []
    first = threading.Thread(target=lambda: answers.append(app.test_client().get(EXPERT + "5")))
    first.start()
    assert wait_until(lambda: solvers.calls)
    other = app.test_client().get("/sokoban/random?difficulty=expert&seed=6")
    assert other.status_code == 503 and other.headers["Retry-After"] == "5"
    assert len(solvers.calls) == 1  # no second solver asked for
    same = threading.Thread(target=lambda: answers.append(app.test_client().get(EXPERT + "5")))
    same.start()  # the same level waits on the making under way
    orders = app.extensions["puzzlelab.orders"]
    assert wait_until(lambda: orders.waiting == 2)
    solvers.released.set()
    first.join(30), same.join(30)
    assert [answer.status_code for answer in answers] == [303, 303]
    assert answers[0].location == answers[1].location and len(solvers.calls) == 1


def test_in_the_scaled_mode_the_cap_on_makings_is_the_whole_sites(tmp_path):
    """Each web process counted its own makings: four processes made four levels at once,
    and took every solver from the players. In Redis, the cap holds across them."""
    from tests.redis_server import RedisServer
    from webapp.jobs.scaled import Permits
    from webapp.web.orders import Orders

    server = RedisServer()
    server.start()
    try:
        one = Orders(max_making=4, site=Permits(server.url, "making", 1, 60))
        two = Orders(max_making=4, site=Permits(server.url, "making", 1, 60))
        held = threading.Event()
        making = one.start("a", lambda: held.wait(30))
        with pytest.raises(Full):
            two.start("b", lambda: True)  # another process: the site's one place is taken
        held.set()
        making.result(10)
        assert wait_until(lambda: one.making() == 0)
        assert two.get("b", lambda: "made", wait=10) == "made"  # given back: the next goes
        lapsed = Permits(server.url, "lapsing", 1, 0.5)
        assert lapsed.take() is not None and lapsed.take() is None
        assert wait_until(lambda: lapsed.take() is not None, 5)  # a dead holder's lapses
    finally:
        server.remove()


def test_only_asking_for_a_new_making_spends_the_made_levels_budget(tmp_path, monkeypatch):
    """A page that looks again while its level is made, or a link to a level made before,
    used to spend the budget at every look."""
    app = made_app(tmp_path, BUDGET_MADE_LEVELS="2 per hour")
    solvers = Solvers(app, monkeypatch)
    client = app.test_client()
    assert client.get(EXPERT + "21").status_code == 303  # made: spent
    for _ in range(5):
        assert client.get(EXPERT + "21").status_code == 303  # found made: free
        assert client.get("/blocks/random?difficulty=expert").status_code == 302  # a seed: free
    assert client.get(EXPERT + "22").status_code == 303  # made: spent
    refused = client.get(EXPERT + "23")
    assert refused.status_code == 429 and "many new levels" in refused.text
    assert len(solvers.calls) == 2


def test_the_days_puzzles_are_made_before_the_first_visitor_asks(tmp_path, monkeypatch):
    """/daily's first view of the day waited for every game's level to be made (1.4 s to the
    first byte): once the harder bands are stocked, the idle solvers make today's and
    tomorrow's puzzles, and the day's first visitor finds them made."""
    app = made_app(tmp_path)
    solvers = Solvers(app, monkeypatch)
    monkeypatch.setattr(solvers.runner, "running", lambda kind="solve": 0)
    monkeypatch.setattr(app.extensions["puzzlelab.pantry"], "short", lambda bands: [])
    made: list = []

    def one_more() -> bool:
        """One round of making ahead; False once there is nothing left to make."""
        try:
            one = making.make_one_ahead(app)
        except Full:  # the last making is still letting go of its place: try again
            return True
        if one is not None:
            made.append(one)
        return one is not None

    assert wait_until(lambda: not one_more(), 300, 0.05)  # every making awaited in turn
    generating = [game.name for game in games.all_games() if game.generates]
    days = {making.today().isoformat(), (making.today() + datetime.timedelta(days=1)).isoformat()}
    assert sorted(made) == sorted((name, "medium", day) for name in generating for day in days)
    calls = len(solvers.calls)
    page = app.test_client().get("/daily")
    assert page.status_code == 200 and len(solvers.calls) == calls  # nothing made on the visit
