"""Floods from a few abusive clients while a well-behaved player moves and solves.

    .venv/bin/python bench/abuse.py [--seconds 30] [--floods a,b] [--web N] [--nginx]
    .venv/bin/python bench/abuse.py --backup [--seconds 10]
    .venv/bin/python bench/abuse.py --sybil [--root CHECKOUT]

Starts its own server (gunicorn with webapp/ops/serving.py, as `make run` does; with --web N
the scaled mode, as `make cluster WEB=N` does) on a free loopback port with a temporary
instance folder; with --nginx, docs/nginx.conf in front of it as docs/DEPLOY.md sets it up
(the app trusting one proxy), and every client goes through nginx. The abusers come from
other loopback addresses than the player (127.0.0.2 and up), so the per-client budgets see
them as other clients, as they would be. Every flood is bounded in count and time, sends
only to this machine, and stops by itself. Prints a markdown table: what each flood sent and
how it was answered, then the player's move latency (p50, p99) and how long the player's
solve waited to start.

With --backup, the backup run instead: a player's stream of moves while another process
backs the database up online and reads it (docs/DEPLOY.md), then the server killed with
SIGKILL mid-stream; it prints the moves acknowledged and the moves the database kept.

--sybil runs the Sybil run instead: twenty fresh cookies from one address each win a level
in one move, and twenty more each lose another (they play a replay link's moves), and the
table says where each level's rating stands after them (issue #42: from 1500 to 900 and to
2100). --root serves the app from another checkout (to measure an older commit the same way).
"""

from __future__ import annotations

import argparse
import http.client
import io
import multiprocessing
import os
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLAYER, SOLVERS, HINTERS, SLOW, UPLOADERS, PASTERS = (f"127.0.0.{n}" for n in range(1, 7))
#: Eleven addresses holding solver sockets, three asking for costly pages, three playing long
#: games, one starting new games on fresh sliding positions, ten sending slow headers.
SOCKETEERS = [f"127.0.1.{n}" for n in range(1, 12)]
GETTERS = [f"127.0.2.{n}" for n in range(1, 4)]
LONG_PLAYERS = [f"127.0.3.{n}" for n in range(1, 4)]
STARTERS = "127.0.4.1"
SLOW_ADDRESSES = [f"127.0.5.{n}" for n in range(1, 11)]
#: Nine addresses asking for expert levels (eight behind nginx, more at once), ten reading.
GENERATORS = [f"127.0.6.{n}" for n in range(1, 10)]
READERS = [f"127.0.7.{n}" for n in range(1, 11)]
#: The games that make levels, and a cheap replay link (a few moves: a page of tens of ms).
MAKERS = ("sokoban", "sliding", "vexed", "blocks")
REPLAY = "/sokoban/first-steps/3?moves=" + "du" * 10
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
        """Read a page as a browser does, keeping its token for the next actions."""
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
    """Connections that send one header line and then nothing, 130 at a time, from ten
    addresses."""
    held: list[socket.socket] = []
    while time.monotonic() < until:
        while len(held) < 130:
            try:
                source = SLOW_ADDRESSES[len(held) % len(SLOW_ADDRESSES)]
                sock = socket.create_connection(
                    ("127.0.0.1", port), timeout=5, source_address=(source, 0)
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


class _BoundSockets:
    """The socket module as simple_websocket sees it, with each new socket bound to the
    source address of the thread that makes it (its client has no source option)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(socket, name)

    def socket(self, *args: Any) -> socket.socket:
        made = socket.socket(*args)
        source = getattr(threading.current_thread(), "source", "")
        if source:
            made.bind((source, 0))
        return made


def flood_sockets(port: int, until: float, tally: Counter) -> None:
    """Eleven addresses, each solving a small level and holding twelve sockets to it (the
    per-client cap), opened again as the server closes them: an attack on the server's
    threads (the solver's slots are flood_solves' target)."""
    import simple_websocket.ws
    from simple_websocket import Client, ConnectionClosed
    from simple_websocket import ConnectionError as WebSocketError

    simple_websocket.ws.socket = _BoundSockets()  # type: ignore[assignment]

    class BrowserSocket(Client):
        def handshake(self) -> None:
            self.host = f"{self.host}:{self.port}"  # a browser names the port
            super().handshake()

    def one(source: str) -> None:
        threading.current_thread().source = source  # type: ignore[attr-defined]
        browser = Browser(port, source)
        level = "/sokoban/first-steps/3"
        browser.open(level)
        _, panel = browser.post(level + "/solve", algorithm="bfs")
        found = re.search(rb'ws-connect="([^"]+)"', panel)
        if not found:
            tally["sockets: no solve to watch"] += 1
            return
        url = f"ws://127.0.0.1:{port}{found.group(1).decode()}"
        headers = {"Cookie": browser.cookie, "Origin": f"http://127.0.0.1:{port}"}
        held: list[Any] = []
        while time.monotonic() < until:
            while len(held) < 12 and time.monotonic() < until:
                try:
                    held.append(BrowserSocket.connect(url, headers=headers))
                    tally["sockets: opened"] += 1
                except (OSError, ConnectionClosed, WebSocketError) as error:
                    tally[f"sockets: refused ({error})"] += 1
                    break
            time.sleep(0.5)
            for ws in [ws for ws in held if not ws.connected]:
                tally[f"sockets: closed by the server ({ws.close_reason})"] += 1
                held.remove(ws)
        for ws in held:
            try:
                ws.close()
            except ConnectionClosed:
                pass

    run_all(one, SOCKETEERS)


def flood_gets(port: int, until: float, tally: Counter) -> None:
    """Three addresses asking for a 4 KB replay link as fast as answers come."""
    path = LEVEL + "?moves=" + "du" * 2000

    def one(source: str) -> None:
        browser = Browser(port, source)
        while time.monotonic() < until:
            status, _ = browser.request("GET", path)
            tally[f"costly pages: {status}"] += 1

    run_all(one, GETTERS)


def flood_long_games(port: int, until: float, tally: Counter) -> None:
    """Three addresses growing a game to its cap, then undoing and redoing at its end."""

    def one(source: str) -> None:
        browser = Browser(port, source)
        browser.open(LEVEL)
        while time.monotonic() < until:
            status, _ = browser.post(LEVEL + "/play", action="move", moves="du" * 500)
            tally[f"long games, 1,000 moves: {status}"] += 1
            if status != 200:
                break
        while time.monotonic() < until:
            for action in ("undo", "redo"):
                status, _ = browser.post(LEVEL + "/play", action=action)
                tally[f"long games, undo/redo: {status}"] += 1

    run_all(one, LONG_PLAYERS)


def flood_new_games(port: int, until: float, tally: Counter) -> None:
    """One address starting a new game on a fresh sliding position at every request."""
    import random

    browser = Browser(port, STARTERS)
    shuffle = random.Random(7)
    while time.monotonic() < until:
        tiles = list("12345678") + ["0"]
        shuffle.shuffle(tiles)
        path = "/sliding/p/3x3-" + "".join(tiles)
        if browser.open(path) != 200:
            tally["new games: page refused"] += 1
            continue
        status, _ = browser.post(path + "/play", action="click", cell="0,0")
        tally[f"new games: {status}"] += 1


def asking_for_levels(
    port: int, until: float, tally: Counter, sources: list[str], at_once: int
) -> None:
    """Each of ``sources`` asking ``at_once`` requests at a time for an expert level of a
    fresh seed (each a making, unless found made), four a connection: 60 an address, inside
    the made_levels budget of 60 an hour."""
    import random

    def one(source: str) -> None:
        def connection(index: int) -> None:
            browser = Browser(port, source)
            shuffle = random.Random(f"{source}/{index}")
            for number in range(4):
                if time.monotonic() >= until:
                    return
                game = MAKERS[(index + number) % len(MAKERS)]
                seed = shuffle.randrange(10**8, 10**9)
                start = time.monotonic()
                status, said = browser.request(
                    "GET", f"/{game}/random?difficulty=expert&seed={seed}"
                )
                waited = time.monotonic() - start
                why = WHY.get(status, lambda _said: "")(said)
                tally[f"levels asked for: {status}{why}"] += 1
                tally[f"levels asked for: {status}{why}, answered within 1 s"] += waited < 1.0

        run_all(connection, list(range(at_once)))

    run_all(one, sources)


#: What a refusal said, in short: the door's (the site busy), a budget's, or the makings'.
WHY = {
    429: lambda said: " (the door)" if b"server is busy" in said else " (a budget)",
    503: lambda said: (
        " (being made)"
        if b"still being made" in said
        else " (makings full)"
        if b"being made just now" in said
        else " (not made in time)"
    ),
}


def flood_generator(port: int, until: float, tally: Counter) -> None:
    """Nine addresses, fifteen requests at once each, for expert levels of fresh seeds."""
    asking_for_levels(port, until, tally, GENERATORS, 15)


def flood_generator_wide(port: int, until: float, tally: Counter) -> None:
    """Eight addresses, thirty-two at once each (nginx's limit per client)."""
    asking_for_levels(port, until, tally, GENERATORS[:8], 32)


def flood_replays(port: int, until: float, tally: Counter) -> None:
    """Ten addresses without cookies reading a cheap replay link as fast as answers come:
    each one light on its own."""

    def one(source: str) -> None:
        browser = Browser(port, source)
        while time.monotonic() < until:
            status, _ = browser.request("GET", REPLAY)
            tally[f"replay pages: {status}"] += 1

    run_all(one, READERS)


def run_all(one: Any, sources: list[Any]) -> None:
    workers = [threading.Thread(target=one, args=(source,), daemon=True) for source in sources]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def rss_mb(port: int) -> float:
    """The resident memory of the web processes serving ``port`` (gunicorn's workers, the
    children of the master whose command line names the port), in all."""
    total = 0
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            if b"gunicorn" not in command or f":{port} ".encode() not in command + b" ":
                continue
            children = (entry / "task" / entry.name / "children").read_text().split()
            for child in children:
                status = Path(f"/proc/{child}/status").read_text()
                total += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
        except (OSError, AttributeError):
            continue
    return total / 1024 if total else float("nan")


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
    pages: list[float] = []
    index = 0
    solve_started: float | None = None
    solve_waited: float | None = None
    while time.monotonic() < until:
        start = time.perf_counter()
        status, body = browser.post(LEVEL + "/play", action="move", moves=MOVES[index % 2])
        latencies.append((time.perf_counter() - start) * 1000)
        report["move errors"] = report.get("move errors", 0) + (status != 200)
        if status != 200:  # which answers, and what they said
            report.setdefault("move answers", Counter())[(status, body[:60])] += 1
        index += 1
        if index % 5 == 0:  # a page load every half second
            start = time.perf_counter()
            status, _ = browser.request("GET", "/sokoban/microban/" + str(index % 155 + 1))
            pages.append((time.perf_counter() - start) * 1000)
            report["page errors"] = report.get("page errors", 0) + (status != 200)
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
    report["pages"] = pages
    report["solve waited"] = solve_waited


#: The Sybil run's address, and the one that reads the levels' ratings afterwards.
SYBILS, READER = "127.0.6.1", "127.0.6.2"
#: (what, level, the play request each cookie sends): one move that wins, and a replay link's
#: one move played (a loss: a win with moves the player did not find).
SYBIL_RUNS = (
    ("wins", "/sokoban/first-steps/1", {"action": "move", "moves": "r"}),
    ("losses", "/sokoban/first-steps/4", {"action": "adopt", "moves": "u"}),
)


def sybil_run(port: int, cookies: int = 20) -> list[tuple[str, str, Counter, str]]:
    """``cookies`` fresh cookies from one address each take a first attempt at a level; the
    level's rating as its page shows it afterwards."""
    rows = []
    for what, level, fields in SYBIL_RUNS:
        answers: Counter = Counter()
        for _ in range(cookies):
            browser = Browser(port, SYBILS)
            if browser.open(level) != 200:
                answers["page refused"] += 1
                continue
            status, _ = browser.post(level + "/play", **fields)
            answers[status] += 1
        _, page = Browser(port, READER).request("GET", level)
        shown = re.search(rb"this level's (\d+)", page)
        rows.append((what, level, answers, shown.group(1).decode() if shown else "not rated"))
    return rows


def serve(
    folder: str, port: int, web: int = 0, proxied: bool = False, root: Path = ROOT
) -> subprocess.Popen:
    """The app on ``port``: one gunicorn process as `make run` starts it, or with ``web``
    the scaled mode (`make cluster`: PostgreSQL, Redis, ``web`` web processes, two solver
    workers and a hint worker); ``proxied``: trusting one proxy in front, and leaving the
    connections per client to it, as docs/DEPLOY.md sets it up behind nginx."""
    env = {**os.environ, "PUZZLE_LAB_INSTANCE": folder, "PUZZLE_LAB_PREBUILD_TABLES": "false"}
    if proxied:
        env |= {"PUZZLE_LAB_PROXIES": "1", "PUZZLE_LAB_THREADS_PER_CLIENT": "0"}
    if web:
        command = ["-m", "webapp.ops.cluster", "--web", str(web), "--port", str(port)]
        command += ["--redis-port", str(free_port()), "--pg-port", str(free_port())]
        command += ["--folder", os.path.join(folder, "cluster")]
    else:
        command = ["-m", "gunicorn", "-c", "python:webapp.ops.serving"]
        command += ["--bind", f"127.0.0.1:{port}", "wsgi:app"]
    server = subprocess.Popen(
        [sys.executable, *command],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("the server did not start")


def backup_during_moves(seconds: float) -> None:
    """The backup run: a player moves every 50 ms while another process (the `sqlite3`
    program, as docs/DEPLOY.md advises, or Python's online backup where it is not installed)
    backs the database up and reads it, turn about, twice a second; after ``seconds`` the
    server is killed with SIGKILL with moves still coming, and the moves it acknowledged are
    looked up in the file it left. Prints a table."""
    program = shutil.which("sqlite3")

    def backup_command(database: str, backup: str) -> list[str]:
        if program:
            return [program, database, f".backup {backup}"]
        script = (
            "import sqlite3,sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))"
        )
        return [sys.executable, "-c", script, database, backup]

    def read_command(database: str) -> list[str]:
        if program:
            return [program, database, "SELECT count(*) FROM games"]
        script = "import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute('SELECT 1 FROM games')"
        return [sys.executable, "-c", script, database]

    with tempfile.TemporaryDirectory() as folder:
        database = os.path.join(folder, "puzzlelab.sqlite3")
        port = free_port()
        server = serve(folder, port)
        answers: Counter = Counter()
        acknowledged: list[int] = []
        stop = threading.Event()

        def play() -> None:
            browser = Browser(port, PLAYER)
            browser.open(LEVEL)
            index = 0
            while not stop.is_set():
                status, body = browser.post(LEVEL + "/play", action="move", moves=MOVES[index % 2])
                if status == 0 and stop.is_set():
                    return  # cut short by the kill: not an acknowledgement
                answers[status] += 1
                if status == 200:
                    acknowledged.append(int(re.search(rb'id="count-moves">(\d+)<', body).group(1)))
                if status != 429:  # over the moves' budget: not played, tried again
                    index += 1
                time.sleep(0.05)

        mover = threading.Thread(target=play, daemon=True)
        mover.start()
        backups: list[str] = []
        reads = 0
        started = time.monotonic()
        while len(acknowledged) < 20 and time.monotonic() < started + 60:
            time.sleep(0.1)  # some moves first, so the server's threads have their connections
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            backup = os.path.join(folder, f"backup-{len(backups)}.sqlite3")
            subprocess.run(backup_command(database, backup), capture_output=True, check=False)
            backups.append(backup)
            time.sleep(0.25)
            subprocess.run(read_command(database), capture_output=True, check=False)
            reads += 1
            time.sleep(0.25)
        stop.set()  # the move in flight, if any, is the last; a reply cut short is no answer
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(10)
        mover.join(40)
        connection = sqlite3.connect(database)
        row = connection.execute(
            "SELECT cursor FROM games WHERE game = 'sokoban' AND level = ?",
            (LEVEL.removeprefix("/sokoban/"),),
        ).fetchone()
        intact = connection.execute("PRAGMA integrity_check").fetchone()[0]
        connection.close()
        valid = 0
        for backup in backups:
            try:
                check = sqlite3.connect(backup)
                valid += check.execute("PRAGMA integrity_check").fetchone()[0] == "ok" and bool(
                    check.execute("SELECT count(*) FROM games").fetchone()[0]
                )
                check.close()
            except sqlite3.Error:
                pass
    last = acknowledged[-1] if acknowledged else 0
    kept = row[0] if row else 0
    how = "sqlite3 .backup" if program else "Connection.backup"
    print(f"Backup during moves for {seconds:g} s: a move every 50 ms; another process backs the")
    print(f"database up ({how}) and reads it, turn about, twice a second; then SIGKILL.\n")
    print("| backup during moves | value |\n|---|---|")
    for status in sorted(answers):
        print(f"| moves answered {status} | {answers[status]} |")
    print(f"| moves acknowledged (the last answer's count) | {last} |")
    print(f"| moves kept after SIGKILL | {kept} |")
    print(f"| acknowledged moves lost | {max(0, last - kept)} |")
    print(f"| database integrity after the kill | {intact} |")
    print(f"| backups taken, valid with the games table | {len(backups)}, {valid} |")
    print(f"| plain reads | {reads} |")


def front(folder: str, app_port: int) -> tuple[subprocess.Popen, int]:
    """docs/nginx.conf in front of the app on ``app_port``, as written; its port."""
    import shutil

    port = free_port()
    config = (ROOT / "docs" / "nginx.conf").read_text()
    config = config.replace("server 127.0.0.1:5000;", f"server 127.0.0.1:{app_port};")
    config = config.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    home = Path(folder) / "nginx"
    (home / "logs").mkdir(parents=True)
    (home / "nginx.conf").write_text(config)
    settings = f"daemon off; pid {home}/nginx.pid; error_log {home}/error.log;"
    if os.geteuid() == 0:
        settings += " user root;"  # its workers read this temporary folder
    nginx = subprocess.Popen(
        [
            shutil.which("nginx") or "/usr/sbin/nginx",
            "-p",
            str(home),
            "-c",
            str(home / "nginx.conf"),
        ]
        + ["-g", settings],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return nginx, port
        except OSError:
            time.sleep(0.2)
    os.killpg(nginx.pid, 9)
    raise SystemExit("nginx did not start")


FLOODS = [
    "flood_solves",
    "flood_hints",
    "flood_slow",
    "flood_uploads",
    "flood_pastes",
    "flood_sockets",
    "flood_gets",
    "flood_long_games",
    "flood_new_games",
]


def run_floods(port: int, until: float, results: Any, chosen: list[str]) -> None:
    """The chosen floods at once, in this process at a lower priority; the tally to
    ``results``."""
    os.nice(10)
    tally: Counter = Counter()
    threads = [
        threading.Thread(target=globals()[name], args=(port, until, tally), daemon=True)
        for name in chosen
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(1.0, until - time.monotonic() + 60))
    results.put(dict(tally))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the floods last")
    parser.add_argument(
        "--floods",
        default=",".join(name.removeprefix("flood_") for name in FLOODS),
        help="which floods to run, comma-separated (default: all but generator, "
        "generator_wide and replays, each run on its own; none: the player alone)",
    )
    parser.add_argument(
        "--web",
        type=int,
        default=0,
        help="serve the scaled mode with this many web processes (default: make run's one)",
    )
    parser.add_argument(
        "--backup",
        action="store_true",
        help="the backup run instead: moves while another process backs up and reads, then a kill",
    )
    parser.add_argument("--sybil", action="store_true", help="the Sybil run instead of floods")
    parser.add_argument("--root", type=Path, default=ROOT, help="serve the app from this checkout")
    parser.add_argument(
        "--nginx", action="store_true", help="put docs/nginx.conf in front, every client behind it"
    )
    args = parser.parse_args()
    if args.backup:
        backup_during_moves(args.seconds)
        return
    if args.sybil:
        sybil_main(args.root)
        return
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        server = serve(folder, port, args.web, proxied=args.nginx)
        nginx, app_port = None, port
        if args.nginx:
            nginx, port = front(folder, port)
        try:
            tally: Counter = Counter()
            report: dict = {}
            time.sleep(5)  # the worker warms its pages before its memory is read
            report["rss before"] = rss_mb(app_port)
            start = time.monotonic()
            until = start + args.seconds
            # The floods run in a process of their own at a lower priority: on this 2-core
            # machine their clients would otherwise take the cores from the server they
            # attack, which an attacker elsewhere does not.
            context = multiprocessing.get_context("fork")
            results = context.Queue()
            chosen = ["flood_" + name for name in args.floods.split(",") if name]
            floods = context.Process(target=run_floods, args=(port, until, results, chosen))
            floods.start()
            player_thread = threading.Thread(target=player, args=(port, until, start + 5, report))
            player_thread.start()
            player_thread.join(args.seconds + 60)
            tally.update(results.get(timeout=120))
            floods.join(30)
            report["rss after"] = rss_mb(app_port)
        finally:
            if nginx is not None:
                os.killpg(nginx.pid, 3)  # SIGQUIT: nginx's graceful stop
                nginx.wait(10)
            if args.web:
                server.terminate()  # the cluster stops what it started, then itself
                server.wait(60)
            else:
                os.killpg(server.pid, 15)
                server.wait(10)
    latencies = report.get("latencies") or [float("nan")]
    pages = report.get("pages") or [float("nan")]
    front_note = ", every client through docs/nginx.conf" if args.nginx else ""
    print(f"Floods ({args.floods or 'none'}) for {args.seconds:g} s from other loopback")
    print(f"addresses than the player{front_note}.\n")
    print("| flood: answer | count |\n|---|---|")
    for key in sorted(tally):
        print(f"| {key} | {tally[key]} |")
    waited = report.get("solve waited")
    print("\n| the player | value |\n|---|---|")
    print(f"| moves made | {len(latencies)} |")
    print(f"| move errors | {report.get('move errors', 0)} |")
    for (status, said), count in sorted(report.get("move answers", Counter()).items()):
        print(f"| move answered {status} ({said.decode(errors='replace')!r}) | {count} |")
    print(f"| move p50 (ms) | {statistics.median(latencies):.1f} |")
    print(f"| move p99 (ms) | {p99(latencies):.1f} |")
    print(f"| pages loaded, errors | {len(pages)}, {report.get('page errors', 0)} |")
    print(f"| page load p50 (ms) | {statistics.median(pages):.1f} |")
    print(f"| page load p99 (ms) | {p99(pages):.1f} |")
    print(
        f"| solve waited to start (s) | {'never started' if waited is None else f'{waited:.2f}'} |"
    )
    before, after = report["rss before"], report["rss after"]
    print(f"| web processes' RSS before, after (MB) | {before:.0f}, {after:.0f} |")


def sybil_main(root: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        server = serve(folder, port, root=root)
        try:
            time.sleep(3)
            started = time.monotonic()
            rows = sybil_run(port)
            took = time.monotonic() - started
        finally:
            os.killpg(server.pid, 15)
            server.wait(10)
    print(f"Sybil run: 20 fresh cookies a level from {SYBILS}, in {took:.1f} s.\n")
    print("| attempts | level | answers | the level's rating after |\n|---|---|---|---|")
    for what, level, answers, rating in rows:
        said = ", ".join(f"{count}× {status}" for status, count in sorted(answers.items()))
        print(f"| {what} | {level} | {said} | {rating} |")


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


if __name__ == "__main__":
    main()
