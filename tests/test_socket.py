"""The solver's WebSocket against bad input: garbage, floods, oversized frames, strangers."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from http.cookiejar import CookieJar

import pytest
from simple_websocket import Client, ConnectionClosed

from tests.conftest import csrf_of
from webapp.web.live import SITE_FULL


class BrowserSocket(Client):
    """A WebSocket client that, like a browser, names the port in its Host header."""

    def handshake(self) -> None:
        self.host = f"{self.host}:{self.port}"
        super().handshake()


class Browserless:
    """A player over plain HTTP as a browser's page would be: keeps the cookie, sends the CSRF
    header, and names the page's origin (scheme, host and port) on POSTs and sockets."""

    def __init__(self, base: str):
        self.base = base
        self.origin = base.rstrip("/")
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.token = ""

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=10) as response:
            page = response.read().decode()
        self.token = csrf_of(page) if 'name="csrf-token"' in page else self.token
        return page

    def post(self, path: str, **fields: str) -> str:
        data = urllib.parse.urlencode(fields).encode()
        headers = {"X-CSRF-Token": self.token, "Origin": self.origin}
        request = urllib.request.Request(self.base + path, data=data, headers=headers)
        with self.opener.open(request, timeout=30) as response:
            return response.read().decode()

    @property
    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def socket(self, path: str, **headers: str) -> Client:
        url = self.base.replace("http://", "ws://") + path
        headers = {"Cookie": self.cookie, "Origin": self.origin, **headers}
        return BrowserSocket.connect(url, headers=headers)


@pytest.fixture
def solving(server):
    """A player with a long solve running, and the socket path of that solve."""
    player = Browserless(server.url)
    player.get("/sokoban/xsokoban/5")
    panel = player.post("/sokoban/xsokoban/5/solve", algorithm="bfs")
    path = re.search(r'ws-connect="([^"]+)"', panel).group(1)
    yield player, path
    job = path.rsplit("/", 1)[1]
    player.post("/sokoban/xsokoban/5/solve/cancel", job=job)


def closed_reason(ws: Client, within: float = 5.0) -> tuple[int, str]:
    code, message, _ = close_of(ws, within)
    return code, message


def close_of(ws: Client, within: float = 5.0) -> tuple[int, str, list[str]]:
    """Read until the server closes the socket: the close code, its reason, what came first."""
    received: list[str] = []
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline:
            message = ws.receive(timeout=0.2)
            if message is not None:
                received.append(message)
    except ConnectionClosed as closed:
        return int(closed.reason), closed.message or "", received
    raise AssertionError("the socket stayed open")


def assert_refused(ws: Client, reason: str) -> None:
    """Closed before sending anything. The close frame carries 1008 and the reason, unless
    the connection went down before the client read it (then there is no code at all)."""
    code, message, received = close_of(ws)
    assert received == []
    assert (code, message) in ((1008, reason), (1005, ""))


def test_garbage_and_unknown_actions_are_ignored_and_the_stream_goes_on(solving):
    player, path = solving
    ws = player.socket(path)
    assert 'id="solve-status"' in ws.receive(timeout=20)  # the snapshot
    ws.send("this is not json")
    ws.send(json.dumps({"action": "dance"}))
    ws.send(json.dumps(["a", "list"]))
    assert 'id="solve-stats"' in ws.receive(timeout=20)  # progress keeps coming
    ws.close()


def test_a_flood_of_messages_closes_the_socket_with_a_reason(solving):
    player, path = solving
    ws = player.socket(path)
    ws.receive(timeout=20)
    for _ in range(60):
        ws.send(json.dumps({"action": "pause"}))
    code, message = closed_reason(ws)
    assert code == 1008 and message == "too many messages"


def test_an_oversized_frame_closes_the_socket(solving):
    player, path = solving
    ws = player.socket(path)
    ws.receive(timeout=20)
    ws.send("x" * 100_000)
    code, _ = closed_reason(ws)
    assert code == 1009  # message too big


def test_another_site_and_another_player_are_refused(solving, server):
    player, path = solving
    ws = player.socket(path, Origin="http://evil.example")
    assert_refused(ws, "cross-site socket refused")
    stranger = Browserless(server.url)
    stranger.get("/sokoban/xsokoban/5")
    ws = stranger.socket(path)
    assert_refused(ws, "no such solve of this board for this player")
    # The owner's own solve, asked for on another board's address, is refused the same way.
    ws = player.socket(path.replace("/xsokoban/5/", "/xsokoban/6/"))
    assert_refused(ws, "no such solve of this board for this player")
    # The same host on another port is another site.
    ws = player.socket(path, Origin="http://127.0.0.1")
    assert_refused(ws, "cross-site socket refused")
    # The owner, from the page's own origin (with its port, as a browser sends it), is let in.
    ws = player.socket(path)
    assert 'id="solve-status"' in ws.receive(timeout=20)
    ws.close()


def test_a_server_killed_mid_stream_of_moves_loses_no_acknowledged_move(server):
    import http.client
    import sqlite3
    import threading
    import urllib.error

    from tests.conftest import wait_until

    # First steps 3: down and up are both legal from the start, so every move is played and
    # stored (the stream once sent right and left there, both refused: nothing was written).
    level = "/sokoban/first-steps/3"
    player = Browserless(server.url)
    player.get(level)
    acknowledged: list[int] = []

    def play() -> None:
        index = 0
        while True:
            try:
                page = player.post(level + "/play", action="move", moves="du"[index % 2])
            except urllib.error.HTTPError as refused:
                if refused.code != 429:  # over the moves' budget: slow down, as a page would
                    raise
                time.sleep(0.05)
                continue
            except (urllib.error.URLError, http.client.HTTPException, OSError):
                return  # the server died: a reply cut short is not an acknowledgement
            assert 'class="notice"' not in page, "a move of the stream was refused"
            acknowledged.append(int(re.search(r'id="count-moves">(\d+)<', page).group(1)))
            index += 1

    mover = threading.Thread(target=play, daemon=True)
    mover.start()
    assert wait_until(lambda: len(acknowledged) >= 30, 30)
    assert mover.is_alive()  # killed mid-stream, with moves still being sent
    server.kill()
    mover.join(10)
    last = acknowledged[-1]
    assert last > 0 and acknowledged == list(range(1, last + 1))  # every one played, in order
    server.start()
    page = player.get(level)
    stored = int(re.search(r'id="count-moves">(\d+)<', page).group(1))
    assert last <= stored <= last + 1  # at most the move in flight when it died
    database = sqlite3.connect(server.instance / "puzzlelab.sqlite3")
    assert database.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def _closed(ws: Client, timeout: float = 10.0) -> bool:
    """True once the server has closed the socket (messages before that are read away)."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ws.receive(timeout=0.5)
    except ConnectionClosed:
        return True
    return False


def test_sockets_are_capped_per_solve_and_per_player_oldest_closed_first(tmp_path):
    from tests.conftest import Server

    server = Server(tmp_path / "instance", SOCKETS_PER_JOB="2", SOCKETS_PER_PLAYER="2")
    server.start()
    player = Browserless(server.url)
    paths = []
    try:
        for level in ("/sokoban/xsokoban/5", "/sokoban/xsokoban/6"):
            player.get(level)
            panel = player.post(level + "/solve", algorithm="bfs")
            paths.append(re.search(r'ws-connect="([^"]+)"', panel).group(1))

        def opened(path: str) -> Client:
            # The snapshot comes once the server counts the socket: they count in this order.
            ws = player.socket(path)
            assert ws.receive(timeout=20) is not None
            return ws

        first = [opened(paths[0]) for _ in range(3)]
        assert _closed(first[0]), "the oldest socket on the solve stayed open"
        assert not _closed(first[1], 1.5) and not _closed(first[2], 1.5)
        other = opened(paths[1])  # a third of the player's: the oldest open goes
        assert _closed(first[1])
        assert not _closed(first[2], 1.5) and not _closed(other, 1.5)
        for ws in (*first, other):
            try:
                ws.close()
            except ConnectionClosed:
                pass  # closed by the server already
    finally:
        for level, path in zip(("/sokoban/xsokoban/5", "/sokoban/xsokoban/6"), paths, strict=False):
            player.post(level + "/solve/cancel", job=path.rsplit("/", 1)[1])
        server.stop()


def test_sockets_site_wide_are_capped_and_a_few_clients_cannot_take_them_all(tmp_path):
    """Each socket holds a server thread: they hold at most SOCKETS_SITE, and when that is
    full a newcomer takes a socket from the client holding the most, down to one each; past
    that the newcomer is told the live view is full (1013: the page retries)."""
    from tests.conftest import serving

    settings = {
        "SOCKETS_SITE": "4",
        "SOCKETS_PER_JOB": "50",
        "SOCKETS_PER_PLAYER": "50",
        "PROXIES": "1",  # each socket below claims its client address, as behind nginx
        "THREADS_PER_CLIENT": "0",
    }
    with serving(tmp_path, **settings) as server:
        player = Browserless(server.url)
        player.get("/sokoban/xsokoban/5")
        panel = player.post("/sokoban/xsokoban/5/solve", algorithm="bfs")
        path = re.search(r'ws-connect="([^"]+)"', panel).group(1)
        try:

            def opened(address: str) -> Client:
                ws = player.socket(path, **{"X-Forwarded-For": address})
                assert 'id="solve-status"' in ws.receive(timeout=20)
                return ws

            flood = [opened("198.51.100.1") for _ in range(4)]  # one client fills the site
            newcomers = [opened(f"203.0.113.{n}") for n in (1, 2, 3)]
            # Each newcomer took the flooder's oldest socket; the flooder keeps one.
            assert all(_closed(ws) for ws in flood[:3])
            assert not _closed(flood[3], 1.0)
            assert not any(_closed(ws, 0.5) for ws in newcomers)
            # Now every client holds one: the next is refused, and told why.
            late = player.socket(path, **{"X-Forwarded-For": "203.0.113.9"})
            code, message, received = close_of(late)
            # Closed before any of the stream came. The close frame says why, and the note
            # before it, unless the connection went down before the client read them (then
            # there is no code at all, as in assert_refused): the page retries either way.
            assert not any('id="solve-status"' in text for text in received)
            assert (code, message) in ((1013, SITE_FULL), (1005, ""))
            if code == 1013:
                assert any("live view is full" in text for text in received)
            for ws in (flood[3], *newcomers):
                ws.close()
        finally:
            player.post("/sokoban/xsokoban/5/solve/cancel", job=path.rsplit("/", 1)[1])


def test_the_socket_of_a_finished_solve_nobody_plays_back_closes(tmp_path):
    from tests.conftest import serving

    with serving(tmp_path, SOCKET_IDLE_SECONDS="1") as server:
        player = Browserless(server.url)
        player.get("/sokoban/microban/1")
        panel = player.post("/sokoban/microban/1/solve", algorithm="bfs")
        path = re.search(r'ws-connect="([^"]+)"', panel).group(1)
        ws = player.socket(path)
        code, message, received = close_of(ws, within=15)
        assert (code, message) == (1000, "idle")  # a normal closure: the page does not retry
        assert 'data-state="done"' in "".join(received)
        assert "any playback button picks it up again" in received[-1]
        again = player.socket(path)  # the page's next command opens it again
        assert 'data-state="done"' in again.receive(timeout=10)
        again.send('{"action": "forward"}')
        assert 'id="playback-pos"' in again.receive(timeout=10)
        again.close()
