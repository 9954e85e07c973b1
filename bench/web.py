"""How long a move takes: in the server alone, and over HTTP with concurrent players.

    .venv/bin/python bench/web.py [--moves 300] [--players 1,10,50] [--seconds 10]
    .venv/bin/python bench/web.py --latency 0,100 --latency-only

With ``--latency``, a burst of ten keys also goes through a proxy that delays every byte
by half the given round trip each way: sent one at a time (each waiting for the last
answer), then pipelined as the page sends them (numbered, four on the way at once, what
queues behind them sent together).

Starts its own gunicorn (as `make run` does) on a free loopback port with a temporary
instance folder, drives it with simulated players (one keep-alive connection each, making
legal moves back and forth; the players spread over four processes, and all open the page
before the measured moves start), and prints a markdown table. Bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import os
import queue
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LEVEL = "/sokoban/first-steps/3"
#: Two legal moves that undo each other, so a player can alternate them forever. (The bench
#: once sent "r" and "l" here, both refused from the start position: it measured refusals.)
MOVES = "du"
#: In a move's answer only when the move was refused.
REFUSED = b'class="notice"'


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def server_time(moves: int) -> list[float]:
    """Milliseconds per move inside the app (Flask test client: no network, no threads)."""
    from webapp import create_app

    with tempfile.TemporaryDirectory() as folder:
        # One client, many moves: its budgets and the turns of a crowd are not what is measured.
        settings = {"BUDGETS": False, "BUDGET_CPU_MS": 10**12, "LOAD_SHEDDING": False}
        app = create_app({"INSTANCE_PATH": folder, **settings})
        client = app.test_client()
        page = client.get(LEVEL).text
        token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
        times = []
        for index in range(moves):
            start = time.perf_counter()
            response = client.post(
                LEVEL + "/play",
                headers={"X-CSRF-Token": token},
                data={"action": "move", "moves": MOVES[index % 2]},
            )
            times.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, response.status_code
            assert REFUSED not in response.data, "the bench's moves are refused"
        return times


def _read_response(sock: socket.socket, buffer: bytearray) -> tuple[int, bytes]:
    """Read one HTTP response off a keep-alive socket; its status code and body."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        rest += chunk
    buffer[:] = rest[length:]
    return status, rest[:length]


class Player(threading.Thread):
    """One player on one keep-alive connection: as fast as answers come (rate 0), or at
    ``rate`` moves a second like a person at the keyboard (latency from each send).

    Requests are prebuilt bytes on a raw socket: the load generator shares the machine with
    the server, so it must cost as little as it can."""

    def __init__(
        self, port: int, until: float, limit: int, rate: float = 0.0, start_at: float = 0.0
    ):
        super().__init__(daemon=True)
        self.port, self.until, self.limit, self.rate = port, until, limit, rate
        self.start_at = start_at
        self.late = False  # still opening its page when the moves started
        self.times: list[float] = []
        self.errors = 0

    def run(self) -> None:
        cookie, token = become_player(self.port, LEVEL)
        requests = []
        for move in MOVES:
            body = f"action=move&moves={move}".encode()
            requests.append(
                (
                    f"POST {LEVEL}/play HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                    f"Cookie: {cookie}\r\nX-CSRF-Token: {token}\r\nHX-Request: true\r\n"
                    "Content-Type: application/x-www-form-urlencoded\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n"
                ).encode()
                + body
            )
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        buffer = bytearray()
        index = 0
        # Everyone opens the page first; moves (what is measured) start together afterwards.
        self.late = time.monotonic() > self.start_at
        time.sleep(max(0.0, self.start_at - time.monotonic()))
        next_at = time.monotonic() + (random.random() / self.rate if self.rate else 0)
        while time.monotonic() < self.until and index < self.limit:
            if self.rate:
                time.sleep(max(0.0, next_at - time.monotonic()))
                next_at += 1.0 / self.rate
            start = time.perf_counter()
            try:
                sock.sendall(requests[index % 2])
                status, body = _read_response(sock, buffer)
                if status != 200 or REFUSED in body:
                    self.errors += 1
            except OSError:
                self.errors += 1
                sock.close()
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
                buffer.clear()
            self.times.append((time.perf_counter() - start) * 1000)
            index += 1
        sock.close()


def _crowd(
    port: int, players: int, seconds: float, limit: int, rate: float, start_at: float
) -> tuple:
    """Run ``players`` players in this process; their latencies, errors and late starters."""
    until = start_at + seconds
    crowd = [Player(port, until, limit, rate, start_at) for _ in range(players)]
    for player in crowd:
        player.start()
    for player in crowd:
        player.join(seconds + 30)
    times = [t for player in crowd for t in player.times]
    return times, sum(p.errors for p in crowd), sum(p.late for p in crowd)


def over_http(
    port: int, players: int, seconds: float, limit: int, rate: float = 0.0
) -> tuple[list[float], int, float]:
    """Players split over four processes, so the load generator is not one GIL."""
    from concurrent.futures import ProcessPoolExecutor

    shares = [players // 4 + (1 if i < players % 4 else 0) for i in range(4)]
    # One start for all four processes (the monotonic clock is the machine's), with time for
    # every player's first page: moves that met page loads measured the loads too.
    start_at = time.monotonic() + 2.0 + players * 0.03
    with ProcessPoolExecutor(max_workers=4) as pool:
        futures = [
            pool.submit(_crowd, port, share, seconds, limit, rate, start_at)
            for share in shares
            if share
        ]
        results = [future.result() for future in futures]
    elapsed = min(time.monotonic() - start_at, seconds)  # the window in which players moved
    late = sum(part[2] for part in results)
    if late:
        print(f"warning: {late} players were still opening their page when the moves began")
    times = [t for part in results for t in part[0]]
    return times, sum(part[1] for part in results), elapsed


@contextmanager
def serve(**settings: str) -> Iterator[int]:
    """gunicorn as `make run` starts it, on a free loopback port with a temporary instance."""
    with tempfile.TemporaryDirectory() as folder:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        env = {**os.environ, "PUZZLE_LAB_INSTANCE": folder, "PUZZLE_LAB_PREBUILD_TABLES": "false"}
        # Every simulated player comes from 127.0.0.1: lift the per-client budgets and caps.
        env.update(PUZZLE_LAB_BUDGETS="false", PUZZLE_LAB_THREADS_PER_CLIENT="0")
        env.update({f"PUZZLE_LAB_{name}": value for name, value in settings.items()})
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                "python:webapp.ops.serving",
                "--bind",
                f"127.0.0.1:{port}",
                "wsgi:app",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/")
                    break
                except OSError:
                    time.sleep(0.1)
            yield port
        finally:
            server.terminate()
            server.wait(10)


# -- added latency: a delaying proxy, and a burst of keys sent as the page sends them --------
class DelayingProxy:
    """Forwards loopback connections to ``port``, every chunk ``delay`` seconds late each way."""

    def __init__(self, port: int, delay: float):
        self.port, self.delay = port, delay
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.port))
            for end in (client, upstream):  # no Nagle wait on top of the delay measured
                end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for source, sink in ((client, upstream), (upstream, client)):
                self._pipe(source, sink)

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        due: queue.Queue = queue.Queue()

        def read() -> None:
            while True:
                try:
                    data = source.recv(65536)
                except OSError:
                    data = b""
                due.put((time.monotonic() + self.delay, data))
                if not data:
                    return

        def write() -> None:
            while True:
                at, data = due.get()
                time.sleep(max(0.0, at - time.monotonic()))
                try:
                    if not data:
                        sink.shutdown(socket.SHUT_WR)
                        return
                    sink.sendall(data)
                except OSError:
                    return

        threading.Thread(target=read, daemon=True).start()
        threading.Thread(target=write, daemon=True).start()

    def close(self) -> None:
        self.listener.close()


def become_player(port: int, path: str) -> tuple[str, str]:
    """Open a level's page as a new visitor and act once, as a browser does: reading makes
    no player; the first action does, and its answer sets the cookie. The cookie and the
    page's token, for the player's next requests."""
    for attempt in range(20):  # a crowd arriving at once meets the server's turns (503): again
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", path)
            answer = conn.getresponse()
            page = answer.read().decode()
            found = re.search(r'name="csrf-token" content="([^"]+)"', page)
            if answer.status != 200 or found is None:
                time.sleep(0.1 * (attempt + 1))
                continue
            token = found.group(1)
            conn.request(
                "POST",
                path + "/play",
                body="action=refresh",
                headers={
                    "X-CSRF-Token": token,
                    "HX-Request": "true",
                    "Content-Type": "application/x-www-form-urlencoded",
                },
            )
            response = conn.getresponse()
            response.read()
            cookie = response.getheader("Set-Cookie")
            if response.status == 200 and cookie:
                return cookie.split(";")[0], token
        finally:
            conn.close()
        time.sleep(0.1 * (attempt + 1))
    raise RuntimeError(f"no player could start on {path}")


def _session(port: int) -> tuple[str, str]:
    return become_player(port, LEVEL)


def _move_request(port: int, cookie: str, token: str, moves: list[str], number: int) -> bytes:
    fields = [("action", "move"), *(("moves", move) for move in moves)]
    fields += [("page", "bench0001"), ("seq", str(number))] if number else []
    body = "&".join(f"{name}={value}" for name, value in fields).encode()
    return (
        f"POST {LEVEL}/play HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Cookie: {cookie}\r\nX-CSRF-Token: {token}\r\nHX-Request: true\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def latency_row(port: int, latency_ms: int, bursts: int = 5, keys: int = 10) -> tuple:
    """One move's round trip (median), and how long a burst of ``keys`` keys takes to land
    sent one at a time and pipelined (medians over ``bursts`` bursts), through the proxy."""
    proxy = DelayingProxy(port, latency_ms / 2000)
    try:
        cookie, token = _session(port)
        number = 0
        single, serial, pipelined = [], [], []
        for _ in range(bursts):
            sock = socket.create_connection(("127.0.0.1", proxy.address), timeout=10)
            buffer = bytearray()
            start = time.perf_counter()
            for index in range(keys):
                sent = time.perf_counter()
                sock.sendall(_move_request(port, cookie, token, [MOVES[index % 2]], 0))
                status, body = _read_response(sock, buffer)
                assert status == 200 and REFUSED not in body, status
                single.append((time.perf_counter() - sent) * 1000)
            serial.append((time.perf_counter() - start) * 1000)
            sock.close()
            # As the page sends them: four on their way at once, the rest together after.
            window = [socket.create_connection(("127.0.0.1", proxy.address)) for _ in range(4)]
            buffers = [bytearray() for _ in window]
            start = time.perf_counter()
            for index, conn in enumerate(window):
                number += 1
                conn.sendall(_move_request(port, cookie, token, [MOVES[index % 2]], number))
            _read_response(window[0], buffers[0])
            number += 1
            rest = [MOVES[index % 2] for index in range(len(window), keys)]
            window[0].sendall(_move_request(port, cookie, token, rest, number))
            for conn, buffer in zip(window[1:], buffers[1:], strict=True):
                assert _read_response(conn, buffer)[0] == 200
            status, body = _read_response(window[0], buffers[0])
            assert status == 200 and REFUSED not in body, status
            pipelined.append((time.perf_counter() - start) * 1000)
            for conn in window:
                conn.close()
        return (
            latency_ms,
            statistics.median(single),
            statistics.median(serial),
            statistics.median(pipelined),
        )
    finally:
        proxy.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=300, help="moves per player (at most)")
    parser.add_argument("--players", default="1,10,50")
    parser.add_argument("--seconds", type=float, default=10.0, help="per scenario (at most)")
    parser.add_argument(
        "--rate",
        type=float,
        default=5.0,
        help="moves a second per player in the paced rows (a fast human)",
    )
    parser.add_argument(
        "--latency", default="", help="added round trips in ms for the burst rows, e.g. 0,100"
    )
    parser.add_argument("--latency-only", action="store_true", help="only the burst rows")
    args = parser.parse_args()
    if args.latency:
        with serve() as port:
            rows = [latency_row(port, int(ms)) for ms in args.latency.split(",")]
        print(
            "| added round trip | one move, p50 ms | 10 keys one at a time, ms "
            "| 10 keys pipelined, ms |"
        )
        print("|---:|---:|---:|---:|")
        for latency, one, serial, pipelined in rows:
            print(f"| {latency} ms | {one:.1f} | {serial:.0f} | {pipelined:.0f} |")
        if args.latency_only:
            return

    rows = []
    times = server_time(args.moves)
    rows.append(
        (
            "server only (test client)",
            len(times),
            len(times) / (sum(times) / 1000),
            statistics.median(times),
            percentile(times, 0.99),
            0,
        )
    )

    with serve() as port:
        for players in (int(n) for n in args.players.split(",")):
            for rate in (args.rate, 0.0):
                times, errors, elapsed = over_http(port, players, args.seconds, args.moves, rate)
                pace = f"{rate:g} moves/s each" if rate else "as fast as answered"
                rows.append(
                    (
                        f"HTTP, {players} players, {pace}",
                        len(times),
                        len(times) / elapsed,
                        statistics.median(times),
                        percentile(times, 0.99),
                        errors,
                    )
                )

    print("| scenario | moves | moves/s | p50 ms | p99 ms | errors |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, count, rate, p50, p99, errors in rows:
        print(f"| {name} | {count} | {rate:.0f} | {p50:.1f} | {p99:.1f} | {errors} |")


if __name__ == "__main__":
    main()
