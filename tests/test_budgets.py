"""Budgets follow the client (its address), not the cookie: dropping cookies buys nothing."""

from __future__ import annotations

import io
import json
import time

import pytest

from tests.conftest import csrf_of, upload_picture, wait_until
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


def test_pastes_are_counted_per_client_whatever_the_cookie(budget_app):
    app = create_app(
        {
            "TESTING": True,
            "INSTANCE_PATH": budget_app.instance_path + "2",
            "BUDGET_PASTES": "3 per hour",
        }
    )
    for _ in range(3):
        client, token = fresh(app)
        assert paste(client, token).status_code == 303
    client, token = fresh(app)  # a new cookie, the same address
    refused = paste(client, token)
    assert refused.status_code == 429 and "shared many levels this hour" in refused.text
    other, token = fresh(app, "198.51.100.1")  # another client still may
    assert paste(other, token).status_code == 303


def test_uploads_and_solves_have_budgets_per_client(tmp_path):
    settings = {"BUDGET_UPLOADS": "1 per hour", "BUDGET_SOLVES": "1 per hour"}
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), **settings})
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
    assert again.status_code == 429 and "started many solves lately" in again.text
    with app.app_context():
        from webapp.web.solvers import get_runner

        get_runner().shutdown()


def move(client, token, path="/sokoban/microban/1", moves="d"):
    return client.post(
        path + "/play",
        data={"action": "move", "moves": moves},
        headers={"X-CSRF-Token": token, "HX-Request": "true"},
    )


def test_forty_players_behind_one_address_all_read_and_play(tmp_path):
    """A class behind one NAT: reading makes nobody, and 40 first moves are within budget."""
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    for _ in range(40):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = "203.0.113.7"
        assert client.get("/").status_code == 200
        assert client.get("/sokoban/microban/1?moves=dlU").status_code == 200
        page = client.get("/sokoban/microban/1")
        assert page.status_code == 200 and client.get_cookie("puzzlelab") is None
        answer = move(client, csrf_of(page.text))
        assert answer.status_code == 200 and '<b id="count-moves">1</b>' in answer.text
        assert client.get_cookie("puzzlelab") is not None


def test_reading_is_never_refused_and_players_past_the_budget_play_unkept(tmp_path):
    """The 101st new player of an hour behind one address used to be refused every move."""
    app = app_with(tmp_path, BUDGET_NEW_PLAYERS="2 per hour")
    for _ in range(2):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = "203.0.113.7"
        assert move(client, csrf_of(client.get("/sokoban/microban/1").text)).status_code == 200
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "203.0.113.7"
    for path in ("/", "/sokoban/", "/sokoban/microban/", "/sokoban/microban/1?moves=dlU"):
        assert client.get(path).status_code == 200, path  # reading past the budget: open
    token = csrf_of(client.get("/sokoban/microban/1").text)
    answers = [move(client, token, moves=text) for text in ("d", "l", "U")]
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert '<b id="count-moves">3</b>' in answers[-1].text  # one game, in its page
    assert 'id="unkept"' in answers[-1].text and "Many new players" in answers[-1].text
    assert client.get_cookie("puzzlelab") is None  # no player made
    with app.test_request_context():
        from webapp.web import players
        from webapp.web.database import get_store

        named = players._visitor_player(token)
        stored = get_store().query("SELECT count(*) AS n FROM games WHERE player=?", (named,))
    assert named and stored[0]["n"] == 0  # nothing of it in the database
    reloaded = client.get("/sokoban/microban/1")
    assert '<b id="count-moves">0</b>' in reloaded.text  # a new page: a new game
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "198.51.100.1"  # another client is kept as ever
    kept = move(other, csrf_of(other.get("/sokoban/microban/1").text))
    assert kept.status_code == 200 and 'id="unkept"' not in kept.text
    assert other.get_cookie("puzzlelab") is not None


def test_refused_first_actions_spend_no_new_player(tmp_path):
    """A new player is counted when its first action is accepted: forty refused requests
    (here five) used to spend the budget of the players behind the address."""
    app = app_with(tmp_path, BUDGET_NEW_PLAYERS="2 per hour")
    for _ in range(5):
        client, token = fresh(app)
        refused = client.post("/sokoban/new", data={"text": "", "csrf_token": token})
        assert refused.status_code == 400 and client.get_cookie("puzzlelab") is None
    for _ in range(2):
        client, token = fresh(app)
        played = move(client, token)
        assert played.status_code == 200 and 'id="unkept"' not in played.text
        assert client.get_cookie("puzzlelab") is not None


def test_a_browser_without_cookies_plays_in_its_page_and_is_told_it_is_not_kept(
    monkeypatch, tmp_path
):
    from webapp.web import players

    counted = []
    real = players.count_new_player
    monkeypatch.setattr(players, "count_new_player", lambda: counted.append(1) or real())
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    client = app.test_client(use_cookies=False)
    token = csrf_of(client.get("/sokoban/microban/1").text)
    answers = [move(client, token, moves=text) for text in ("d", "l", "U")]
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert '<b id="count-moves">3</b>' in answers[-1].text  # every move on the same game
    assert 'id="unkept"' in answers[-1].text and "cookie" in answers[-1].text
    assert counted == [1]  # one new player, not one a move
    reloaded = client.get("/sokoban/microban/1")
    assert '<b id="count-moves">0</b>' in reloaded.text  # a new page: a new game


def test_moves_sent_at_once_before_the_cookie_is_back_play_one_game(tmp_path):
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    page = app.test_client()
    token = csrf_of(page.get("/sokoban/microban/1").text)
    # Two requests of the same page, neither carrying the cookie the other's answer sets.
    first, second = app.test_client(), app.test_client()
    move(first, token, moves="d")
    answer = move(second, token, moves="l")
    assert '<b id="count-moves">2</b>' in answer.text
    later = first.get("/sokoban/microban/1")
    assert '<b id="count-moves">2</b>' in later.text


def test_a_forged_or_foreign_token_makes_no_player(tmp_path):
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    client = app.test_client()
    token = csrf_of(client.get("/sokoban/microban/1").text)
    nonce = token.split(".")[1]
    for forged in ("", "v." + nonce + ".0000000000000000", "v.x.y", "a" * 32):
        refused = move(client, forged)
        assert refused.status_code == 403 and "out of date" in refused.text, forged
    assert client.get_cookie("puzzlelab") is None
    assert move(client, token).status_code == 200
    # Another page read before the first action (another tab) acts for the same player, but
    # only from this site's own pages.
    other = csrf_of(app.test_client().get("/sokoban/microban/1").text)
    for origin, status in (("https://elsewhere.example", 403), ("http://localhost", 200)):
        answer = client.post(
            "/sokoban/microban/1/play",
            data={"action": "move", "moves": "l"},
            headers={"X-CSRF-Token": other, "Origin": origin},
        )
        assert answer.status_code == status, origin


def test_an_ipv6_client_is_its_56():
    """A home is commonly given a /56: its 256 /64s are one client, not 256."""
    from webapp.web.budgets import client_key

    app = create_app({"TESTING": True, "INSTANCE_PATH": "/tmp/unused-budgets"})
    for address, key in (
        ("2001:db8:1:2:aaaa::1", "2001:db8:1::/56"),
        ("2001:db8:1:ff:ffff:ffff:ffff:ffff", "2001:db8:1::/56"),
        ("2001:db8:1:100::1", "2001:db8:1:100::/56"),
        ("::ffff:192.0.2.5", "192.0.2.5"),
        ("192.0.2.5", "192.0.2.5"),
    ):
        with app.test_request_context(environ_base={"REMOTE_ADDR": address}):
            assert client_key() == key


def test_a_homes_many_ipv6_networks_share_one_budget(tmp_path):
    app = create_app(
        {"TESTING": True, "INSTANCE_PATH": str(tmp_path), "BUDGET_PASTES": "3 per hour"}
    )
    answers = []
    for network in range(5):  # five /64s of one /56
        client, token = fresh(app, f"2001:db8:7:{network:x}::1")
        answers.append(paste(client, token).status_code)
    assert answers == [303, 303, 303, 429, 429]


def test_forwarded_addresses_count_only_behind_the_configured_proxies(tmp_path):
    from webapp.web.budgets import client_key

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


def app_with(tmp_path, **settings):
    return create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), **settings})


def test_pages_are_priced_by_the_server_time_they_take(tmp_path):
    """Reading is open to every new visitor, but not free: a client that asks for costly
    pages (here replay views) is refused once its minute's allowance of server time is spent,
    and another client is not."""
    app = app_with(tmp_path, BUDGET_CPU_MS="40 per minute")
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "203.0.113.7"
    answers = [
        client.get("/sokoban/first-steps/3?moves=" + "du" * 2000).status_code for _ in range(200)
    ]
    assert 429 in answers and answers[0] == 200
    refused = client.get("/sokoban/microban/3")
    assert refused.status_code == 429 and "asked a lot of the server" in refused.text
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "198.51.100.1"
    assert other.get("/sokoban/microban/3").status_code == 200


def test_shared_levels_are_priced_per_client_by_what_is_stored(tmp_path):
    app = app_with(tmp_path, BUDGET_LEVEL_BYTES="60 per day")
    client, token = fresh(app)
    boards = [
        f"#######\n#@{'$' * n}{' ' * (3 - n)}#\n#{'.' * n}{' ' * (4 - n)}#\n#######"
        for n in (1, 2, 3)
    ]
    assert paste_text(client, token, boards[0]).status_code == 303
    assert paste_text(client, token, boards[0]).status_code == 303  # stored already: free
    assert paste_text(client, token, boards[1]).status_code == 303
    refused = paste_text(client, token, boards[2])
    assert refused.status_code == 400 and "shared a lot of levels today" in refused.text
    other, token = fresh(app, "198.51.100.1")  # the site's room is still there for others
    assert paste_text(other, token, boards[2]).status_code == 303


def paste_text(client, token, text):
    return client.post("/sokoban/new", data={"text": text, "csrf_token": token})


def test_new_games_are_priced_per_client(tmp_path):
    app = app_with(tmp_path, BUDGET_NEW_GAMES="2 per day")
    client, token = fresh(app)
    for level in ("/sokoban/microban/1", "/sokoban/microban/2"):
        assert move(client, token, level).status_code == 200
    refused = move(client, token, "/sokoban/microban/3")
    assert refused.status_code == 429 and "started a great many games" in refused.text
    assert move(client, token, "/sokoban/microban/1", "l").status_code == 200  # games go on


def test_pictures_are_priced_per_client_by_the_bytes_kept(tmp_path):
    from PIL import Image

    from tests.conftest import upload_picture

    def picture(seed: int) -> bytes:
        image = Image.effect_noise((300, 300), 60 + seed).convert("RGB")
        out = io.BytesIO()
        image.save(out, format="PNG")
        return out.getvalue()

    app = app_with(tmp_path, BUDGET_PICTURE_BYTES="1000 per day")
    client, token = fresh(app)
    try:
        assert upload_picture(client, token, picture(1)).status_code == 303
        refused = upload_picture(client, token, picture(2))
        assert refused.status_code == 429 and "uploaded a lot of pictures" in refused.text
        other, token = fresh(app, "198.51.100.1")
        assert upload_picture(other, token, picture(3)).status_code == 303
    finally:
        with app.app_context():
            from webapp.web.solvers import get_runner

            get_runner().shutdown()


def test_requests_take_turns_the_lightest_client_first():
    """At most a few requests are worked on at once; the others wait, the client that used
    the least lately first, and a heavy one waits in vain when light ones keep coming."""
    import threading

    from webapp.core.door import Slots

    slots = Slots(size=1, max_wait=5.0, max_waiting=2)
    assert slots.enter(0.0)  # one request being worked on
    order: list[str] = []

    def wait(name: str, priority: float) -> None:
        if slots.enter(priority):
            order.append(name)
            slots.leave()
        else:
            order.append("refused " + name)

    heavy = threading.Thread(target=wait, args=("heavy", 900.0))
    heavy.start()
    assert wait_until(lambda: len(slots._waiting) == 1)
    light = threading.Thread(target=wait, args=("light", 5.0))
    light.start()
    assert wait_until(lambda: len(slots._waiting) == 2)
    lighter = threading.Thread(target=wait, args=("lighter", 1.0))  # the queue is full:
    lighter.start()  # the heaviest waiting is turned away
    assert wait_until(lambda: order == ["refused heavy"])
    slots.leave()
    for thread in (heavy, light, lighter):
        thread.join(5)
    assert order == ["refused heavy", "lighter", "light"]
    assert slots.busy == 0


def test_costly_requests_take_one_lane_and_cheap_ones_pass_them():
    """A client whose requests cost much each is worked on one at a time at most, so a
    cheap request never shares the interpreter with more than one of them."""
    import threading

    from webapp.core.door import Slots

    slots = Slots(size=3, costly_size=1, max_wait=5.0)
    assert slots.enter(900.0, costly=True)  # a flood's costly request in hand
    admitted: list[str] = []

    def wait(name: str, priority: float, costly: bool) -> None:
        if slots.enter(priority, costly):
            admitted.append(name)

    second = threading.Thread(target=wait, args=("costly", 800.0, True))
    second.start()
    assert wait_until(lambda: len(slots._waiting) == 1)
    cheap = threading.Thread(target=wait, args=("cheap", 950.0, False))  # heavier, but cheap
    cheap.start()
    cheap.join(5)
    assert admitted == ["cheap"] and slots.costly_busy == 1  # the costly one still waits
    slots.leave(costly=True)
    second.join(5)
    assert admitted == ["cheap", "costly"]
    slots.leave(costly=True)
    slots.leave()
    assert slots.busy == 0 and slots.costly_busy == 0


def test_a_turn_waits_only_so_long_and_is_given_up_while_waiting_elsewhere(tmp_path):
    from webapp.core.door import Slots
    from webapp.web.door import LoadGate

    slots = Slots(size=1, max_wait=0.2)
    assert slots.enter(0.0)
    assert not slots.enter(0.0)  # no turn within the wait: refused
    slots.leave()
    app = app_with(tmp_path, LOAD_SHEDDING=True)
    gate = app.wsgi_app
    assert isinstance(gate, LoadGate)
    gate.slots.size = 1
    seen = []

    @app.get("/waits")
    def waits():
        from webapp.web.budgets import waiting_elsewhere

        seen.append(gate.slots.busy)
        with waiting_elsewhere():
            seen.append(gate.slots.busy)  # given back while waiting on a child
        seen.append(gate.slots.busy)
        return "done"

    answer = app.test_client().get("/waits")
    answer.close()  # the answer sent: the turn is given back
    assert answer.status_code == 200 and seen == [1, 0, 1] and gate.slots.busy == 0
    assert app.test_client().get("/static/favicon.svg").status_code == 200


def test_a_light_client_passes_the_costly_lane_whatever_its_first_pages_cost(tmp_path):
    """A new player's first page of a game costs several moves' worth: it must not put them
    in the lane where a flood's replays wait, or their next move waits its whole time there."""
    app = app_with(tmp_path, LOAD_SHEDDING=True, LOAD_MAX_WAIT=0.05)
    gate = app.wsgi_app
    load = app.extensions["puzzlelab.load"]
    load.spent("203.0.113.7", 40.0)  # one page, 40 ms: far above a move's cost
    load.spent("198.51.100.1", 40.0)
    for _ in range(40):  # a flood asking for such pages: heavy
        load.spent("198.51.100.1", 40.0)
    gate.slots.costly_busy = gate.slots.costly_size  # a flood's costly request in hand
    gate.slots.busy = 1
    newcomer = gate.take({}, "203.0.113.7")
    assert newcomer is not None and not newcomer.costly  # in at once, in the cheap lane
    newcomer.end()
    assert gate.take({}, "198.51.100.1") is None  # the heavy one waits for the costly lane


def test_a_worker_warms_every_game_before_its_first_visitor_charged_to_no_one(tmp_path):
    """A game's first page reads its collections, imports its solvers and compiles its
    templates, tenths of a second: the worker does it as it starts, so no visitor pays for
    it (and is counted heavy for it), and it gives back every turn it took."""
    from webapp import games
    from webapp.core import catalog
    from webapp.ops.serving import warm_pages

    app = app_with(tmp_path, LOAD_SHEDDING=True)
    catalog.collections.cache_clear()
    answered = warm_pages(app)
    assert set(answered.values()) == {200}
    assert {f"/{game.name}/" for game in games.all_games()} < set(answered)
    assert catalog.collections.cache_info().currsize == len(games.all_games())
    assert app.extensions["puzzlelab.gate"].slots.busy == 0
    assert set(app.extensions["puzzlelab.load"]._used) == {"warm-up"}


def test_a_busy_site_refuses_with_a_plain_cheap_answer(tmp_path):
    app = app_with(tmp_path, LOAD_SHEDDING=True, LOAD_MAX_WAIT=0.05)
    app.wsgi_app.slots.size = 0  # nothing can be worked on
    refused = app.test_client().get("/sokoban/microban/1")
    assert refused.status_code == 429 and refused.mimetype == "text/plain"
    assert refused.headers["Retry-After"] == "5" and "server is busy" in refused.text


def test_use_is_counted_per_client_and_decays():
    from webapp.core.door import Load

    load = Load(half_life=1.0)
    load.spent("a", 400)
    now = time.monotonic()
    assert 390 < load.used("a", now) <= 400 and load.used("b", now) == 0
    assert 95 < load.used("a", now + 2) < 105  # two half-lives later


def test_players_behind_one_address_are_each_their_own_client_at_the_door(tmp_path):
    app = app_with(tmp_path, LOAD_SHEDDING=True)
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "203.0.113.7"
    token = csrf_of(client.get("/sokoban/microban/1").text)
    assert move(client, token).status_code == 200
    cookie = client.get_cookie("puzzlelab").value
    player = app.session_interface.player_of(app, cookie)
    environ = {"HTTP_COOKIE": f"puzzlelab={cookie}", "REMOTE_ADDR": "203.0.113.7"}
    assert app.wsgi_app.client(environ) == player
    forged = {"HTTP_COOKIE": f"puzzlelab={cookie[:-3]}xyz", "REMOTE_ADDR": "203.0.113.7"}
    assert app.wsgi_app.client(forged) == "203.0.113.7"
    assert app.extensions["puzzlelab.load"].used("203.0.113.7") > 0  # the visitor's reading


def test_what_a_client_asks_counts_whether_or_not_it_is_served():
    """A flood that is mostly refused must not look lighter than a player who is served."""
    from webapp.core.door import Load

    load = Load()
    load.spent("flood", 30.0)  # its requests cost 30 ms
    for _ in range(20):  # twenty more asked and refused: each counted at its usual cost
        load.asked("flood")
    estimate = load.asked("player")
    load.spent("player", 4.0, estimate)  # served: its real cost replaces the estimate
    assert load.used("flood") > 500 > 10 > load.used("player") > 3


def test_a_socket_takes_a_turn_for_its_snapshot(tmp_path):
    from webapp.web.budgets import socket_turn

    app = app_with(tmp_path, LOAD_SHEDDING=True, LOAD_MAX_WAIT=0.05)
    slots = app.extensions["puzzlelab.gate"].slots
    with app.test_request_context(environ_base={"REMOTE_ADDR": "203.0.113.7"}):
        with socket_turn() as turned:
            assert turned and slots.busy == 1
        assert slots.busy == 0
        slots.size = 0  # the site is too busy: no snapshot is drawn, the page retries
        with socket_turn() as turned:
            assert not turned


def test_a_sockets_opening_is_charged_as_it_opens_not_when_it_closes(tmp_path):
    """A flood of socket openings, each closed by the caps, must not look as light as a new
    player at the door: what an opening costs counts at once."""
    from webapp.web.budgets import socket_turn

    app = app_with(tmp_path, LOAD_SHEDDING=True)
    load = app.extensions["puzzlelab.load"]
    with app.test_request_context(environ_base={"REMOTE_ADDR": "203.0.113.7"}):
        app.preprocess_request()  # the clock starts, as for every request
        with socket_turn() as turned:
            assert turned
            started = time.thread_time()
            while time.thread_time() - started < 0.03:  # the snapshot: 30 ms of work
                pass
        assert load.used("203.0.113.7") >= 25  # charged while the socket is still open
        streamed = load.used("203.0.113.7")
    assert load.used("203.0.113.7") <= streamed + 5  # and not charged again at its close


def test_a_light_clients_request_is_never_the_one_turned_away():
    import threading

    from webapp.core.door import Slots

    slots = Slots(size=1, max_wait=5.0, max_waiting=1)
    assert slots.enter(0.0)
    answers: list[str] = []
    player = threading.Thread(
        target=lambda: answers.append(f"player {slots.enter(300.0, patient=True)}")
    )
    player.start()
    assert wait_until(lambda: len(slots._waiting) == 1)
    assert not slots.enter(200.0)  # lighter, but the queue is full of patient requests
    slots.leave()
    player.join(5)
    assert answers == ["player True"]
    slots.leave()


def test_a_slow_upload_holds_no_turn_while_its_body_comes_in(tmp_path):
    """A client sending a picture slowly must not hold one of the few turns meanwhile: its
    body is read before it takes one."""
    import threading

    from werkzeug.test import EnvironBuilder

    app = app_with(tmp_path, LOAD_SHEDDING=True)
    gate = app.extensions["puzzlelab.gate"]
    reading, release = threading.Event(), threading.Event()
    body = (
        b'--x\r\nContent-Disposition: form-data; name="back"\r\n\r\n/sliding/p/3x3-1\r\n--x--\r\n'
    )

    class Trickle:
        """A body that comes in only when released, as from a slow phone."""

        def read(self, size: int = -1) -> bytes:
            reading.set()
            release.wait(10)
            return body

    environ = EnvironBuilder(
        path="/sliding/picture",
        method="POST",
        content_type="multipart/form-data; boundary=x",
        content_length=len(body),
    ).get_environ()
    environ["wsgi.input"] = Trickle()
    statuses: list[str] = []
    sender = threading.Thread(
        target=lambda: b"".join(gate(environ, lambda status, headers: statuses.append(status)))
    )
    sender.start()
    assert reading.wait(10)
    assert gate.slots.busy == 0  # the body is still coming in: no turn is taken
    release.set()
    sender.join(10)
    assert statuses and statuses[0].startswith("403")  # on to the app (which wants a token)


# -- one budget, one counter, whatever the route (issue #43) ------------------------------------
def test_editor_saves_and_pastes_spend_one_budget(tmp_path):
    """docs/SECURITY.md: a level saved from the editor counts as a paste. Each route used to
    keep its own counter, so a client had the budget twice over."""
    app = app_with(tmp_path, BUDGET_PASTES="2 per hour")
    client, token = fresh(app)
    assert paste(client, token).status_code == 303
    headers = {"X-CSRF-Token": token, "HX-Request": "true"}
    rows = ["#######", "#@ $ .#", "#######"]
    draft = json.dumps({"rows": [list(row) for row in rows], "fields": {"title": "Mine"}})
    saved = client.post(
        "/sokoban/edit/save", data={"draft": draft, "intent": "save"}, headers=headers
    )
    assert saved.status_code == 303  # the second of two
    for again in (
        paste(client, token),
        client.post("/sokoban/edit/save", data={"draft": draft, "intent": "save"}, headers=headers),
    ):
        assert again.status_code == 429 and "shared many levels this hour" in again.text


def test_solves_from_both_routes_spend_one_budget(tmp_path):
    """A search started and a solution shortened are both solves."""
    app = app_with(tmp_path, BUDGET_SOLVES="1 per hour")
    client, token = fresh(app)
    level = "/sokoban/microban/3"
    client.get(level)
    headers = {"X-CSRF-Token": token, "HX-Request": "true"}
    solve = client.post(level + "/solve", data={"algorithm": "bfs"}, headers=headers)
    assert solve.status_code == 200
    shorter = client.post(
        level + "/solve/improve", data={"moves": "rl", "metric": "moves"}, headers=headers
    )
    assert shorter.status_code == 429 and "started many solves lately" in shorter.text
    with app.app_context():
        from webapp.web.solvers import get_runner

        get_runner().shutdown()


def test_a_stopped_searchs_position_spends_moves_not_new_levels(tmp_path):
    """Playing on from where a search stopped moves the player's game on its own level and
    makes no level: it spends the moves budget, not the new levels' (a start form's new game
    spends that one)."""
    app = app_with(tmp_path, BUDGET_NEW_LEVELS="1 per hour", BUDGET_MOVES="1 per hour")
    client, token = fresh(app)
    made = client.post(
        "/sliding/generate", data={"csrf_token": token, "rows": "3", "cols": "3", "mode": "uniform"}
    )
    assert made.status_code == 303
    again = client.post(
        "/sliding/generate", data={"csrf_token": token, "rows": "3", "cols": "3", "mode": "uniform"}
    )
    assert again.status_code == 429 and "made many new games this hour" in again.text
    stopped = client.post("/sokoban/microban/3/solve/stopped", data={"csrf_token": token})
    assert stopped.status_code != 429  # no search to play on from: refused, but not counted out
    stopped = client.post("/sokoban/microban/3/solve/stopped", data={"csrf_token": token})
    assert stopped.status_code == 429 and "Too many moves" in stopped.text


def test_viewing_settings_is_free_and_only_a_change_spends_the_name_budget(tmp_path):
    """Thirty views of /settings used to lock everyone behind the address out of it."""
    app = app_with(tmp_path, BUDGET_NAMES="2 per hour")
    client, token = fresh(app)
    for _ in range(10):
        assert client.get("/settings").status_code == 200
    for name in ("Ann", "Bea"):
        changed = client.post("/settings", data={"name": name, "csrf_token": token})
        assert changed.status_code == 303
    refused = client.post("/settings", data={"name": "Cid", "csrf_token": token})
    assert refused.status_code == 429 and "changed your name many times" in refused.text
    neighbour, _ = fresh(app)
    assert neighbour.get("/settings").status_code == 200  # still open to look at


def test_anonymous_reading_is_one_lane_and_a_player_who_moves_goes_first():
    """Ten addresses reading cheap replay pages each look light; together they took the
    turns of a player who moves. Anonymous reading is one share, whoever asks: one request
    of it at a time, and every other request waiting goes before it."""
    import threading

    from webapp.core.door import Slots

    slots = Slots(size=2, reading_size=1, max_wait=5.0)
    assert slots.enter(0.0, reading=True)  # a reader's page in hand
    admitted: list[str] = []

    def wait(name: str, priority: float, reading: bool) -> None:
        if slots.enter(priority, reading=reading):
            admitted.append(name)

    other = threading.Thread(target=wait, args=("reader", 0.0, True))  # as light as can be
    other.start()
    assert wait_until(lambda: len(slots._waiting) == 1)  # the lane is taken: it waits
    wait("move", 500.0, False)  # a player's move, heavier: in at once, the other slot
    assert admitted == ["move"] and slots.busy == 2
    later = threading.Thread(target=wait, args=("next move", 600.0, False))
    later.start()
    assert wait_until(lambda: len(slots._waiting) == 2)
    slots.leave()  # the move is answered: the next move goes before the waiting reader
    later.join(5)
    assert admitted == ["move", "next move"] and len(slots._waiting) == 1
    slots.leave(reading=True)  # the first page is answered: the reader's turn
    other.join(5)
    assert admitted == ["move", "next move", "reader"]
    slots.leave(reading=True)
    slots.leave()
    assert slots.busy == 0 and slots.reading_busy == 0


def test_a_page_without_a_players_cookie_is_anonymous_reading(tmp_path):
    app = app_with(tmp_path, LOAD_SHEDDING=True)
    gate = app.wsgi_app
    client = app.test_client()
    page = client.get("/sokoban/microban/1")
    page.close()  # the answer sent: its turn given back
    played = move(client, csrf_of(page.text))
    played.close()
    assert played.status_code == 200 and gate.slots.busy == 0
    cookie = client.get_cookie("puzzlelab").value
    anonymous = {"REQUEST_METHOD": "GET", "REMOTE_ADDR": "203.0.113.7"}
    gate.client(anonymous)
    assert gate.reading(anonymous)
    known = {**anonymous, "HTTP_COOKIE": f"puzzlelab={cookie}"}
    gate.client(known)
    assert not gate.reading(known)  # a player's page goes with the players
    assert not gate.reading({**anonymous, "REQUEST_METHOD": "POST"})  # an action is no reading
    turn = gate.take(anonymous, "203.0.113.7")
    assert turn is not None and turn.reading and gate.slots.reading_busy == 1
    turn.end()
    assert gate.slots.reading_busy == 0


def test_the_editors_looks_verdicts_and_shuffles_have_their_budgets(tmp_path):
    """Deleting the editor's look, verdict or shuffle limit changed no test: each is spent
    by its own route, and past it the client is told to wait."""
    app = app_with(
        tmp_path,
        BUDGET_EDIT_LOOKS="2 per minute",
        BUDGET_EDIT_VERDICTS="2 per minute",
        BUDGET_EDIT_SHUFFLES="1 per minute",
    )
    client, token = fresh(app)
    headers = {"X-CSRF-Token": token, "HX-Request": "true"}
    unread = {"draft": "not a draft"}  # refused before any search: the budget is still spent
    for route, allowed, told in (
        ("look", 2, "checking a lot just now"),
        ("verdict", 2, "checked many drafts lately"),
        ("shuffle", 1, "shuffled many boards lately"),
    ):
        for _ in range(allowed):
            answer = client.post(f"/sliding/edit/{route}", data=unread, headers=headers)
            assert answer.status_code == 400, answer.text
        refused = client.post(f"/sliding/edit/{route}", data=unread, headers=headers)
        assert refused.status_code == 429 and told in refused.text, (route, refused.text)
