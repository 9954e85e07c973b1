"""How gunicorn serves the app: ``gunicorn -c python:webapp.ops.serving wsgi:app``.

One worker process with threads (solves run in processes of their own); the settings here are
the production ones, and ``make run``, the tests' servers and the benchmarks all use them.

A client that opens a connection and sends its request slowly, or part of it and then
nothing, would hold a thread for as long as it likes: 130 such connections used to stop the
site. Here a connection has ``HEADER_SECONDS`` (5 s, or ``PUZZLE_LAB_HEADER_SECONDS``) to
send its request line and headers, counted from the moment a thread takes it up; then it is
dropped. The body, the response and a WebSocket after the handshake have no such limit. The
proxy in front (docs/DEPLOY.md) does the same for the clients it serves.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Any

from gunicorn.http.errors import LimitRequestLine
from gunicorn.workers.gthread import ThreadWorker

from webapp.core.clients import address_key

#: Seconds a connection has to send its request line and headers.
HEADER_SECONDS = float(os.environ.get("PUZZLE_LAB_HEADER_SECONDS", "5"))
#: Threads one client address may hold at once (0: no cap). A browser opens six connections
#: to a host at most, and a solve's socket holds one more; behind a proxy every request comes
#: from the proxy's address, so set it to 0 there and let the proxy cap its clients.
THREADS_PER_CLIENT = int(os.environ.get("PUZZLE_LAB_THREADS_PER_CLIENT", "16"))
#: Connections one client address may keep sending their headers piece by piece (0: no
#: cap). A browser sends a request's headers in one piece (and may hold a few connections
#: open that have sent nothing yet, which are not counted), so a client with more than a
#: few part-way holds threads on purpose: ten such addresses at 16 threads each held all 128.
#: Off with THREADS_PER_CLIENT=0: behind a proxy, which sends whole requests, every
#: connection comes from the proxy's address.
HEADER_WAITS_PER_CLIENT = int(os.environ.get("PUZZLE_LAB_HEADER_WAITS_PER_CLIENT", "4"))
#: Whether a worker renders a page of every game as it starts (PUZZLE_LAB_WARM_PAGES). A
#: game's first page reads its collections, imports its solvers and compiles its templates:
#: 0.2-0.8 s of the server's time, which the first visitor after a start used to pay, and be
#: counted a heavy client for (its next requests waited behind everyone's). The tests'
#: servers turn it off: each would spend a second or two on pages it never shows.
WARM_PAGES = os.environ.get("PUZZLE_LAB_WARM_PAGES", "true").lower() not in ("false", "0")


class HeaderTimedSocket(socket.socket):
    """A client socket whose reads stop at a deadline while its headers are awaited."""

    #: When the headers must be in, while a worker thread waits for them; else None.
    deadline: float | None = None
    #: True once the deadline passed: the connection is then closed at once.
    timed_out = False
    #: The client whose headers this connection is counted as sending piece by piece.
    awaited_for: str | None = None
    #: Called with the first piece of a request that does not hold all its headers: whether
    #: the connection may go on (the worker's count of such connections per client).
    partial: Any = None

    def recv(self, size: int, flags: int = 0) -> bytes:
        if self.deadline is None:
            return super().recv(size, flags)
        left = self.deadline - time.monotonic()
        if left > 0:
            self.settimeout(left)
            try:
                data = super().recv(size, flags)
            except TimeoutError:
                pass
            else:
                if (
                    data
                    and self.partial is not None
                    and b"\r\n\r\n" not in data
                    and not self.partial(self)
                ):
                    self.timed_out = True
                    return b""  # too many part-way from this client: dropped at once
                self.partial = None  # counted once, or whole at once: not counted
                return data
            finally:
                self.settimeout(None)
        self.timed_out = True
        return b""  # read as "the client went away": the worker ends the connection


#: What an address longer than gunicorn reads (a replay link pasted with thousands of moves)
#: gets instead of gunicorn's bare "URI Too Long": a page a player can read, and a way on.
TOO_LONG_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Address too long · Puzzle Lab</title>
<link rel="stylesheet" href="/static/css/app.css"></head>
<body><header class="top"><a class="brand" href="/">Puzzle Lab</a>
<nav aria-label="games"><a href="/">All games</a><a href="/daily">Daily</a></nav></header>
<main><h1>This address is too long</h1>
<p class="error">The address is longer than this site reads. A replay link holds at most 3,500
moves; a longer game can still be played, but not shared as a link.</p>
<p><a href="/">Back to the games</a></p></main></body></html>
""".encode()
TOO_LONG = (
    b"HTTP/1.1 414 URI Too Long\r\nContent-Type: text/html; charset=utf-8\r\n"
    b"Connection: close\r\nContent-Length: "
    + str(len(TOO_LONG_PAGE)).encode()
    + b"\r\n\r\n"
    + TOO_LONG_PAGE
)


class Worker(ThreadWorker):
    """gunicorn's threaded worker, with the header deadline above, and a readable page for an
    address too long to read."""

    def handle_error(self, req, client, addr, exc):  # noqa: ANN001, ANN201 - gunicorn's own
        if isinstance(exc, LimitRequestLine):
            try:
                client.sendall(TOO_LONG)
            except OSError:
                pass  # the client went away: nothing to tell
            return
        super().handle_error(req, client, addr, exc)

    def init_process(self) -> None:
        self.busy: dict[str, int] = {}
        self.awaiting: dict[str, int] = {}  # threads waiting for a client's headers
        self.busy_lock = threading.Lock()
        super().init_process()

    def handle(self, conn):  # noqa: ANN001, ANN201 - gunicorn's own signature
        address = conn.client[0] if isinstance(conn.client, tuple) else str(conn.client)
        client = address_key(address)  # an IPv6 client is its /56, as for the budgets
        with self.busy_lock:
            held = self.busy.get(client, 0)
            if THREADS_PER_CLIENT and held >= THREADS_PER_CLIENT:
                refused = True
            else:
                refused = False
                self.busy[client] = held + 1
        if refused:
            # This client already holds its share of the threads: its new connection is
            # closed at once rather than queued in front of everyone else's.
            if type(conn.sock) is socket.socket:
                plain = conn.sock
                conn.sock = HeaderTimedSocket(plain.family, plain.type, plain.proto, plain.detach())
            conn.sock.timed_out, conn.sock.deadline = True, 0.0
            return False
        try:
            return self._handle(conn, client)
        finally:
            with self.busy_lock:
                _count(self.busy, client, -1)

    def _handle(self, conn, client: str):  # noqa: ANN001, ANN201
        if not conn.initialized and type(conn.sock) is socket.socket:
            plain = conn.sock
            conn.sock = HeaderTimedSocket(plain.family, plain.type, plain.proto, plain.detach())
        timed = isinstance(conn.sock, HeaderTimedSocket)
        if timed:
            # The clock starts when a thread takes the connection up to read a request.
            conn.sock.deadline = time.monotonic() + HEADER_SECONDS
            if THREADS_PER_CLIENT and HEADER_WAITS_PER_CLIENT:
                conn.sock.partial = lambda sock: self._part_way(sock, client)
        try:
            return super().handle(conn)
        finally:
            if timed:
                self._headers_in(conn.sock)
                # A connection past its deadline keeps reading as closed: gunicorn's graceful
                # close drains it on the main thread, and must not wait there for a silent
                # client (it would stall every other connection meanwhile).
                conn.sock.deadline = 0.0 if conn.sock.timed_out else None

    def _part_way(self, sock: HeaderTimedSocket, client: str) -> bool:
        """Count ``sock`` as sending its client's headers piece by piece, if there is room."""
        with self.busy_lock:
            if self.awaiting.get(client, 0) >= HEADER_WAITS_PER_CLIENT:
                return False
            _count(self.awaiting, client, 1)
        sock.awaited_for = client
        return True

    def _headers_in(self, sock: HeaderTimedSocket) -> None:
        """No longer count ``sock`` as awaiting its client's headers."""
        if sock.awaited_for is not None:
            with self.busy_lock:
                _count(self.awaiting, sock.awaited_for, -1)
            sock.awaited_for = None

    def handle_request(self, req, conn):  # noqa: ANN001, ANN201
        if isinstance(conn.sock, HeaderTimedSocket):
            conn.sock.deadline = None  # the headers are in
            self._headers_in(conn.sock)
        return super().handle_request(req, conn)


def _count(counts: dict[str, int], client: str, change: int) -> None:
    left = counts.get(client, 0) + change
    if left > 0:
        counts[client] = left
    else:
        counts.pop(client, None)


worker_class = "webapp.ops.serving.Worker"
workers = 1
threads = int(os.environ.get("PUZZLE_LAB_THREADS", "128"))
graceful_timeout = 5
# No access log (the proxy in front keeps one): it cost a tenth of the server's time per move.
accesslog = None
# Every instance on a machine would share gunicorn's control socket; none is needed.
control_socket_disable = True


def post_worker_init(worker) -> None:  # noqa: ANN001 - gunicorn's hook
    """Warm the worker's pages in a thread of its own (``WARM_PAGES``)."""
    if WARM_PAGES:
        threading.Thread(target=warm_pages, args=(worker.wsgi,), name="warm", daemon=True).start()


def warm_pages(app: Any) -> dict[str, int]:
    """Ask for the home page and a level page of every game once, as a visitor would, from
    no client's address: their collections read, their solvers imported, their templates
    compiled. What each answered (0: it failed)."""
    from webapp import games
    from webapp.core import catalog

    paths = ["/"]
    for game in games.all_games():
        paths.append(f"/{game.name}/")
        found = catalog.collections(game.name)
        if found:
            paths.append(f"/{game.name}/{found[0].slug}/1")
    client = app.test_client()
    answered = {}
    for path in paths:
        try:
            # Buffered: the answer's iterable is closed, and its turn at the door given back.
            answer = client.get(path, environ_base={"REMOTE_ADDR": "warm-up"}, buffered=True)
            answered[path] = answer.status_code
        except Exception:  # noqa: BLE001 - a page that fails here fails for its visitor too
            app.logger.exception("warming %s", path)
            answered[path] = 0
    return answered
