"""The production front of docs/DEPLOY.md, run as written: docs/nginx.conf before the app.

Requests and the solver's socket pass through; a client that is slow to send its headers is
nginx's problem, never a thread of the app's; the app counts budgets by the address nginx saw.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from tests.conftest import ROOT, Server, csrf_of, free_port, wait_until
from tests.test_socket import Browserless

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


@pytest.fixture(scope="module")
def front(tmp_path_factory):
    """The app (trusting one proxy, leaving per-client caps to it) behind nginx."""
    if not os.path.exists(NGINX):
        pytest.fail(f"the proxy test needs nginx at {NGINX} (apt-get install nginx-light)")
    folder = tmp_path_factory.mktemp("front")
    app = Server(
        folder / "instance",
        PROXIES="1",
        THREADS_PER_CLIENT="0",
        BUDGET_NEW_PLAYERS="3 per hour",
    )
    app.start()
    port = free_port()
    config = (ROOT / "docs" / "nginx.conf").read_text()
    config = config.replace("server 127.0.0.1:5000;", f"server 127.0.0.1:{app.port};")
    config = config.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    assert f"{app.port}" in config and f"{port}" in config
    (folder / "logs").mkdir()
    (folder / "nginx.conf").write_text(config)
    settings = f"daemon off; pid {folder}/nginx.pid; error_log {folder}/error.log;"
    if os.geteuid() == 0:
        settings += " user root;"  # its workers read this test's temporary folder
    nginx = subprocess.Popen(
        [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", settings],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"

    def answering() -> bool:
        try:
            urllib.request.urlopen(url + "/", timeout=2).close()
            return True
        except OSError:
            return False

    try:
        if not wait_until(answering, 20):
            raise RuntimeError(nginx.stderr.read().decode() if nginx.poll() else "no answer")
        yield url, port, app
    finally:
        os.killpg(nginx.pid, signal.SIGQUIT)
        nginx.wait(10)
        app.stop()


def test_pages_moves_and_the_solver_socket_pass_through(front):
    url, _port, _app = front
    player = Browserless(url)
    page = player.get("/sokoban/first-steps/3")
    assert 'id="play"' in page
    answer = player.post("/sokoban/first-steps/3/play", action="move", moves="d")
    assert 'id="count-moves">1<' in answer
    player.get("/sokoban/microban/3")
    panel = player.post("/sokoban/microban/3/solve", algorithm="bfs")
    path = re.search(r'ws-connect="([^"]+)"', panel).group(1)
    ws = player.socket(path)
    assert 'id="solve-status"' in ws.receive(timeout=10)
    ws.close()


def test_silent_clients_wait_on_the_proxy_and_the_site_still_answers(front):
    url, port, app = front
    held = []
    try:
        for _ in range(30):  # more than the app's 16 threads
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            held.append(sock)
        time.sleep(0.3)
        with urllib.request.urlopen(url + "/static/favicon.svg", timeout=10) as answer:
            assert answer.status == 200
        # The app never saw them: nginx holds a request until its headers are whole, so all
        # of the app's threads are free for it.
        with urllib.request.urlopen(app.url + "/static/favicon.svg", timeout=10) as answer:
            assert answer.status == 200
    finally:
        for sock in held:
            sock.close()


def test_budgets_count_the_address_the_proxy_saw(front):
    url, port, _app = front

    def new_player(source: str, forged: str) -> str:
        """A visitor from ``source``, claiming ``forged``, reads a level and makes a move (the
        first action makes a player); "kept" when it was made a player (its cookie set),
        "unkept" when it played past the new-player budget, else the answer's status."""
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
        try:
            path = "/sokoban/first-steps/3"
            conn.request("GET", path, headers={"X-Forwarded-For": forged})
            page = conn.getresponse()
            assert page.status == 200  # reading is never refused
            token = csrf_of(page.read().decode())
            body = urllib.parse.urlencode({"action": "move", "moves": "d"})
            headers = {
                "X-Forwarded-For": forged,
                "X-CSRF-Token": token,
                "Origin": url,
                "Content-Type": "application/x-www-form-urlencoded",
            }
            conn.request("POST", path + "/play", body=body, headers=headers)
            answer = conn.getresponse()
            if answer.status != 200:
                return str(answer.status)
            return "kept" if answer.getheader("Set-Cookie") else "unkept"
        finally:
            conn.close()

    # Three new players a client may start here: a forged X-Forwarded-For buys no more (nginx
    # appends the address it saw, and the app takes that one)...
    # (past them a visitor plays, unkept)...
    answers = [new_player("127.0.0.2", f"198.51.100.{n}") for n in range(1, 6)]
    assert answers == ["kept"] * 3 + ["unkept"] * 2
    # ... and another client is another client, not everyone behind the proxy's address.
    assert new_player("127.0.0.3", "198.51.100.1") == "kept"
