"""Floods from a few abusive clients while a well-behaved player moves and solves.

    .venv/bin/python bench/abuse.py [--seconds 30]

Starts its own server (gunicorn with webapp/serving.py, as `make run` does) on a free loopback
port with a temporary instance folder. The abusers come from other loopback addresses than the
player (127.0.0.2 and up), so the per-client budgets see them as other clients, as they would
be. Every flood is bounded in count and time, sends only to this machine, and stops by itself.
Prints a markdown table: what each flood sent and how it was answered, then the player's move
latency (p50, p99) and how long the player's solve waited to start.
"""

from __future__ import annotations

import argparse
import http.client
import io
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAYER, SOLVERS, HINTERS, SLOW, UPLOADERS, PASTERS = (f"127.0.0.{n}" for n in range(1, 7))
LEVEL = "/sokoban/first-steps/3"
MOVES = "du"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Browser:
    """One cookie jar and keep-alive connection from one source address."""

    def __init__(self, port: int, source: str):
        self.port, self.source = port, source
        self.cookie = ""
        self.token = ""
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: bytes = b"", **headers: str):
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=30, source_address=(self.source, 0)
                )
            if self.cookie:
                headers["Cookie"] = self.cookie
            if self.token:
                headers["X-CSRF-Token"] = self.token
            try:
                self.conn.request(method, path, body=body or None, headers=headers)
                answer = self.conn.getresponse()
                data = answer.read()
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    return 0, b""
                continue
            cookie = answer.getheader("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";", 1)[0]
            return answer.status, data
        return 0, b""

    def open(self, path: str) -> int:
        status, data = self.request("GET", path)
        found = re.search(rb'name="csrf-token" content="([^"]*)"', data)
        self.token = found.group(1).decode() if found else ""
        return status

    def post(self, path: str, **fields: str) -> tuple[int, bytes]:
        body = urllib.parse.urlencode(fields).encode()
        return self.request(
            "POST", path, body, **{"Content-Type": "application/x-www-form-urlencoded"}
        )


def flood_asks(
    port: int, until: float, tally: Counter, source: str, what: str, collection: str, **fields: str
) -> None:
    """New cookies from ``source``, each opening a level of ``collection`` and asking for
    ``what`` (solve, hint) as fast as answers come."""
    total = {"xsokoban": 90, "microban2": 135}[collection]
    number = 0
    while time.monotonic() < until and number < 200:
        number += 1
        browser = Browser(port, source)
        level = f"/sokoban/{collection}/{number % total + 1}"
        if browser.open(level) != 200:
            tally[f"{what}s: page refused"] += 1
            continue
        status, _ = browser.post(f"{level}/{what}", **fields)
        tally[f"{what}s: {status}"] += 1


def flood_solves(port: int, until: float, tally: Counter) -> None:
    flood_asks(port, until, tally, SOLVERS, "solve", "xsokoban", algorithm="fast")


def flood_hints(port: int, until: float, tally: Counter) -> None:
    flood_asks(port, until, tally, HINTERS, "hint", "microban2")


def flood_slow(port: int, until: float, tally: Counter) -> None:
    """Connections that send one header line and then nothing, 130 at a time."""
    held: list[socket.socket] = []
    while time.monotonic() < until:
        while len(held) < 130:
            try:
                sock = socket.create_connection(
                    ("127.0.0.1", port), timeout=5, source_address=(SLOW, 0)
                )
                sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            except OSError:
                break
            held.append(sock)
            tally["slow: opened"] += 1
        time.sleep(0.5)
        still = []
        for sock in held:
            sock.setblocking(False)
            try:
                if sock.recv(1) == b"":
                    tally["slow: dropped by the server"] += 1
                    sock.close()
                    continue
            except BlockingIOError:
                pass
            except OSError:
                sock.close()
                continue
            still.append(sock)
        held = still
    for sock in held:
        sock.close()


def picture(side: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (side, side), (200, 40, 40)).save(out, format="PNG")
    return out.getvalue()


def flood_uploads(port: int, until: float, tally: Counter) -> None:
    data = picture(4096)
    boundary = "puzzlelab-bench"
    number = 0
    while time.monotonic() < until and number < 60:
        number += 1
        browser = Browser(port, UPLOADERS)
        browser.open("/sliding/p/3x3-123456708")
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="back"\r\n\r\n'
                f"/sliding/p/3x3-123456708\r\n--{boundary}\r\nContent-Disposition: form-data; "
                f'name="picture"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n'
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        status, _ = browser.request(
            "POST",
            "/sliding/picture",
            body,
            **{"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        tally[f"uploads: {status}"] += 1


def flood_pastes(port: int, until: float, tally: Counter) -> None:
    number = 0
    while time.monotonic() < until and number < 300:
        number += 1
        browser = Browser(port, PASTERS)
        browser.open("/sokoban/")
        text = "#" * (number % 40 + 6) + "\n#@$ .#\n" + "#" * 6
        status, _ = browser.post("/sokoban/new", text=text)
        tally[f"pastes: {status}"] += 1


def player(port: int, until: float, solve_at: float, report: dict) -> None:
    """A well-behaved player: a move every 100 ms, and one solve once the floods are on."""
    browser = Browser(port, PLAYER)
    browser.open(LEVEL)
    latencies: list[float] = []
    index = 0
    solve_started: float | None = None
    solve_waited: float | None = None
    while time.monotonic() < until:
        start = time.perf_counter()
        status, _ = browser.post(LEVEL + "/play", action="move", moves=MOVES[index % 2])
        latencies.append((time.perf_counter() - start) * 1000)
        report["move errors"] = report.get("move errors", 0) + (status != 200)
        index += 1
        now = time.monotonic()
        if solve_started is None and now >= solve_at:
            solve_started = now
            browser.post("/sokoban/microban/150/solve", algorithm="bfs")
        if solve_started is not None and solve_waited is None:
            _, page = browser.request("GET", "/sokoban/microban/150")
            state = re.search(rb'data-state="(\w+)"', page)
            if state and state.group(1) in (b"running", b"done"):
                solve_waited = time.monotonic() - solve_started
        time.sleep(0.1)
    report["latencies"] = latencies
    report["solve waited"] = solve_waited


def serve(folder: str, port: int) -> subprocess.Popen:
    env = {**os.environ, "PUZZLE_LAB_INSTANCE": folder, "PUZZLE_LAB_PREBUILD_TABLES": "false"}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:webapp.serving"]
        + ["--bind", f"127.0.0.1:{port}", "wsgi:app"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the floods last")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        server = serve(folder, port)
        try:
            tally: Counter = Counter()
            report: dict = {}
            start = time.monotonic()
            until = start + args.seconds
            floods = [flood_solves, flood_hints, flood_slow, flood_uploads, flood_pastes]
            threads = [
                threading.Thread(target=flood, args=(port, until, tally), daemon=True)
                for flood in floods
            ]
            threads.append(threading.Thread(target=player, args=(port, until, start + 5, report)))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(args.seconds + 60)
        finally:
            os.killpg(server.pid, 15)
            server.wait(10)
    latencies = report.get("latencies") or [float("nan")]
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    print(f"Floods for {args.seconds:g} s from other loopback addresses than the player.\n")
    print("| flood: answer | count |\n|---|---|")
    for key in sorted(tally):
        print(f"| {key} | {tally[key]} |")
    waited = report.get("solve waited")
    print("\n| the player | value |\n|---|---|")
    print(f"| moves made | {len(latencies)} |")
    print(f"| move errors | {report.get('move errors', 0)} |")
    print(f"| move p50 (ms) | {statistics.median(latencies):.1f} |")
    print(f"| move p99 (ms) | {p99:.1f} |")
    print(
        f"| solve waited to start (s) | {'never started' if waited is None else f'{waited:.2f}'} |"
    )


if __name__ == "__main__":
    main()
