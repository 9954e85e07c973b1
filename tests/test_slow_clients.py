"""Slow clients cannot hold the server's threads: a connection that does not finish its
headers in time is dropped, and everyone else is still served."""

from __future__ import annotations

import socket
import time
import urllib.request

import pytest

from tests.conftest import Server, serving


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory):
    # 16 threads, as every test server; a 1 s header deadline keeps the test short.
    with serving(tmp_path_factory.mktemp("slow"), HEADER_SECONDS="1") as running:
        yield running


def silent_clients(server: Server, count: int) -> list[socket.socket]:
    """Connections that send one header line and then nothing, from other addresses than the
    tests' own (each may keep 4 threads waiting for its headers)."""
    held = []
    for n in range(count):
        source = (f"127.0.0.{2 + n // 4}", 0)
        sock = socket.create_connection(
            ("127.0.0.1", server.port), timeout=10, source_address=source
        )
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        held.append(sock)
    return held


def test_silent_clients_are_dropped_and_the_site_still_answers(quick_server):
    held = silent_clients(quick_server, 24)  # more than the 16 threads
    try:
        time.sleep(0.5)
        with urllib.request.urlopen(quick_server.url + "/", timeout=20) as answer:
            assert answer.status == 200
        # The server closes silent connections: a read gets end-of-file, not a wait.
        for sock in held[:3]:
            sock.settimeout(10)
            assert sock.recv(100) == b""
    finally:
        for sock in held:
            sock.close()
    log = quick_server.log.read_text(errors="replace")
    assert "Traceback" not in log


def test_a_whole_request_sent_slowly_but_in_time_is_served(quick_server):
    sock = socket.create_connection(("127.0.0.1", quick_server.port), timeout=10)
    try:
        for part in (b"GET / HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n", b"Connection: close\r\n\r\n"):
            sock.sendall(part)
            time.sleep(0.2)
        assert sock.recv(20).startswith(b"HTTP/1.1 200")
    finally:
        sock.close()


@pytest.fixture(scope="module")
def capped_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("capped")
    with serving(folder, HEADER_SECONDS="30", THREADS_PER_CLIENT="4") as running:
        yield running


def test_one_client_holds_at_most_its_share_of_the_threads(capped_server):
    held = []
    try:
        for _ in range(10):
            sock = socket.create_connection(
                ("127.0.0.1", capped_server.port), timeout=10, source_address=("127.0.0.2", 0)
            )
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            held.append(sock)
        closed = 0
        for sock in held:
            sock.settimeout(2)
            try:
                closed += sock.recv(100) == b""
            except TimeoutError:
                pass  # still held open, waiting for its headers
        assert closed == 6  # four threads held; the rest closed at once, not queued
        # Another client is served meanwhile.
        with urllib.request.urlopen(capped_server.url + "/", timeout=10) as answer:
            assert answer.status == 200
    finally:
        for sock in held:
            sock.close()


def still_open(sock: socket.socket) -> bool:
    """Whether the server still holds this connection open (nothing to read, no end)."""
    sock.setblocking(False)
    try:
        sock.recv(1)  # an answer or the end: the server let it go
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def test_slow_headers_from_several_addresses_cannot_hold_every_thread(tmp_path):
    """Each client may keep only a few threads waiting for its headers: five addresses with
    four silent connections each (more than the 16 threads) leave threads for everyone else."""
    with serving(tmp_path, HEADER_SECONDS="30", HEADER_WAITS_PER_CLIENT="2") as server:
        held = []
        try:
            for n in range(2, 7):
                for _ in range(4):
                    sock = socket.create_connection(
                        ("127.0.0.1", server.port), timeout=10, source_address=(f"127.0.0.{n}", 0)
                    )
                    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                    held.append(sock)
            time.sleep(0.5)
            with urllib.request.urlopen(server.url + "/", timeout=60) as answer:
                assert answer.status == 200
            # Served while each address still held its two connections waiting for headers:
            # not once the 30 s deadline had let them go.
            assert sum(map(still_open, held)) == 5 * 2
        finally:
            for sock in held:
                sock.close()


def test_a_browsers_idle_connections_are_not_counted_as_slow_headers(tmp_path):
    """A browser opens connections ahead of need and sends nothing on them for a while:
    they are not sending headers piece by piece, and its requests still go through."""
    with serving(tmp_path, HEADER_SECONDS="30", HEADER_WAITS_PER_CLIENT="2") as server:
        idle = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(6)]
        try:
            time.sleep(0.3)
            for _ in range(3):
                with urllib.request.urlopen(server.url + "/", timeout=10) as answer:
                    assert answer.status == 200
        finally:
            for sock in idle:
                sock.close()
