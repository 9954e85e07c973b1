"""How gunicorn serves the app: ``gunicorn -c python:webapp.serving wsgi:app``.

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
import time

from gunicorn.workers.gthread import ThreadWorker

#: Seconds a connection has to send its request line and headers.
HEADER_SECONDS = float(os.environ.get("PUZZLE_LAB_HEADER_SECONDS", "5"))


class HeaderTimedSocket(socket.socket):
    """A client socket whose reads stop at a deadline while its headers are awaited."""

    deadline: float | None = None

    def setblocking(self, flag: bool) -> None:
        # The worker sets a connection blocking each time a thread takes it up to read a
        # request: that is when the clock starts.
        super().setblocking(flag)
        self.deadline = time.monotonic() + HEADER_SECONDS if flag else None

    def recv(self, size: int, flags: int = 0) -> bytes:
        if self.deadline is None:
            return super().recv(size, flags)
        left = self.deadline - time.monotonic()
        if left <= 0:
            return b""  # read as "the client went away": the worker closes the connection
        self.settimeout(left)
        try:
            return super().recv(size, flags)
        except TimeoutError:
            return b""
        finally:
            self.settimeout(None)

    def headers_read(self) -> None:
        self.deadline = None


class Worker(ThreadWorker):
    """gunicorn's threaded worker, with the header deadline above."""

    def handle(self, conn):  # noqa: ANN001, ANN201 - gunicorn's own signature
        if not conn.initialized and type(conn.sock) is socket.socket:
            plain = conn.sock
            conn.sock = HeaderTimedSocket(plain.family, plain.type, plain.proto, plain.detach())
        return super().handle(conn)

    def handle_request(self, req, conn):  # noqa: ANN001, ANN201
        if isinstance(conn.sock, HeaderTimedSocket):
            conn.sock.headers_read()
        return super().handle_request(req, conn)


worker_class = "webapp.serving.Worker"
workers = 1
threads = int(os.environ.get("PUZZLE_LAB_THREADS", "128"))
graceful_timeout = 5
# No access log (the proxy in front keeps one): it cost a tenth of the server's time per move.
accesslog = None
# Every instance on a machine would share gunicorn's control socket; none is needed.
control_socket_disable = True
