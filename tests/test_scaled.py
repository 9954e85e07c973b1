"""The scaled mode with real servers: Redis, PostgreSQL, two gunicorn web processes and two RQ
workers (``python -m webapp.jobs.worker``), and the faults of issue #21 on them.

One cluster serves the whole module (each test is its own player); a test that kills a piece
starts a new one before it ends, so the next test finds the cluster whole.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, Server, process_gone, wait_until
from tests.postgres import PostgresServer
from tests.redis_server import RedisServer, start_worker

QUICK = "/sokoban/first-steps/3"  # solved in a moment
LONG = "/sokoban/xsokoban/5"  # bfs runs until the time limit
STATUS = re.compile(r'data-status="([^"]*)"')


class Cluster:
    def __init__(self, folder: Path):
        self.folder = folder
        self.redis = RedisServer()
        self.postgres = PostgresServer()
        self.instance = folder / "instance"
        self.instance.mkdir()
        self.web: list[Server] = []
        self.workers: list[subprocess.Popen] = []
        self.killed: list[subprocess.Popen] = []

    def settings(self) -> dict[str, str]:
        return {
            "REDIS_URL": self.redis.url,
            "DATABASE_URL": self.postgres.url,
            "SOLVE_TIME_LIMIT": "30",
            "SOLVE_ORPHAN_GRACE": "5",
            "SOLVE_PER_CLIENT_QUEUED": "2",
        }

    def start(self) -> None:
        self.redis.start()
        self.postgres.start()
        for _ in range(2):
            self.add_web()
        for _ in range(2):
            self.add_worker()

    def add_web(self) -> Server:
        server = Server(self.instance, **self.settings())
        server.start()
        self.web.append(server)
        return server

    def add_worker(self) -> subprocess.Popen:
        worker = start_worker(self.redis.url, self.folder / "workers.log")
        self.workers.append(worker)
        return worker

    def stop(self) -> None:
        for server in self.web:
            server.stop()
        for worker in self.workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
        for worker in self.workers:
            try:
                worker.wait(10)
            except subprocess.TimeoutExpired:
                pass
        for worker in self.killed + self.workers:
            try:  # the group outlives its leader: a horse left behind goes with it
                os.killpg(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            worker.wait(10)
        self.redis.remove()
        self.postgres.stop()
        self.postgres.remove()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    running = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        running.start()
        yield running
    finally:
        running.stop()


class Visitor:
    """A player whose every request opens a fresh connection, to whichever server is named."""

    def __init__(self, server: Server, path: str):
        self.path = path
        self.cookie = ""
        page = self.request(server, "GET", path)
        self.token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)

    def request(self, server: Server, method: str, path: str, **form: str) -> str:
        self.status, text = self.raw(server, method, path, **form)
        return text

    def raw(self, server: Server, method: str, path: str, **form: str) -> tuple[int, str]:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        headers = {"Connection": "close"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        body = None
        if method == "POST":
            headers["X-CSRF-Token"] = self.token
            headers["HX-Request"] = "true"
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = "&".join(f"{key}={value}" for key, value in form.items())
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            cookie = response.getheader("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";")[0]
            return response.status, response.read().decode()
        finally:
            conn.close()

    def move(self, server: Server, move: str) -> str:
        return self.request(server, "POST", self.path + "/play", action="move", moves=move)

    def solve(self, server: Server, algorithm: str = "") -> str:
        form = {"algorithm": algorithm} if algorithm else {}
        return self.request(server, "POST", self.path + "/solve", **form)

    def socket(self, server: Server, job: str):
        from simple_websocket import Client

        return Client.connect(
            f"ws://127.0.0.1:{server.port}{self.path}/solve/ws/{job}",
            headers={"Cookie": self.cookie},
        )


def job_of(panel: str) -> str:
    match = re.search(r'data-job="([^"]+)"', panel)
    assert match, panel
    return match.group(1)


def read_until(ws, predicate, timeout: float = 30.0) -> str:
    """Messages from the socket until one satisfies ``predicate``; that one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = ws.receive(timeout=1)
        if message is not None and predicate(message):
            return message
    raise AssertionError("the stream never said it")


def status_of(message: str) -> str:
    match = STATUS.search(message)
    return match.group(1) if match else ""


def test_moves_over_fresh_connections_all_count_in_order(cluster):
    a, b = cluster.web[:2]
    visitor = Visitor(a, QUICK)
    moves = "du" * 20
    for index, move in enumerate(moves):
        answer = visitor.move((a, b)[index % 2], move)
        assert visitor.status == 200
        assert f'data-moves="{index + 1}"' in answer, answer[:300]
    for server in (a, b):
        page = visitor.request(server, "GET", QUICK)
        assert f"moves={moves}" in page


def test_a_solve_started_through_one_process_is_watched_cancelled_and_played_through_another(
    cluster,
):
    a, b = cluster.web[:2]
    visitor = Visitor(a, LONG)
    job = job_of(visitor.solve(a, "bfs"))
    ws = visitor.socket(b, job)
    try:
        read_until(ws, lambda message: 'data-state="running"' in message)
        # Progress from the worker reaches the other process: the figures move.
        read_until(ws, lambda message: re.search(r'id="stat-expanded">[1-9]', message))
        panel = visitor.request(b, "POST", LONG + "/solve/cancel", job=job)
        assert "Cancelled" in panel
        assert status_of(read_until(ws, status_of)) == "cancelled"
    finally:
        ws.close()

    quick = Visitor(b, QUICK)
    job = job_of(quick.solve(b))
    ws = quick.socket(a, job)
    try:
        assert status_of(read_until(ws, status_of)) == "solved"
        ws.send(json.dumps({"action": "end"}))
        frame = read_until(ws, lambda message: 'id="playback-pos"' in message)
        position, last = map(int, re.search(r"move (\d+) of (\d+)", frame).groups())
        assert position == last > 0
    finally:
        ws.close()
    # "Use this solution" through the first process: the game is won, in the database.
    played = quick.request(a, "POST", QUICK + "/solve/use", job=job)
    assert quick.status == 200
    assert "solved" in played.lower()


def test_a_worker_killed_mid_solve_is_reported_and_the_next_solve_runs(cluster):
    a, b = cluster.web[:2]
    visitor = Visitor(a, LONG)
    job = job_of(visitor.solve(a, "bfs"))
    ws = visitor.socket(b, job)
    try:
        running = read_until(ws, lambda message: re.search(r'data-pid="\d+"', message))
        horse = int(re.search(r'data-pid="(\d+)"', running).group(1))
        with open(f"/proc/{horse}/status") as status:
            parent = int(next(line for line in status if line.startswith("PPid:")).split()[1])
        worker = next(w for w in cluster.workers if w.pid == parent)
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
        assert wait_until(lambda: process_gone(horse), 10), "the horse outlived its worker"
        ended = read_until(ws, status_of, timeout=20)
        assert status_of(ended) == "error"
        assert "solver process stopped" in ended
    finally:
        ws.close()
    cluster.workers.remove(worker)
    cluster.killed.append(worker)
    # The other worker takes the next solve; the player's caps were freed.
    job = job_of(visitor.solve(a, "bfs"))
    ws = visitor.socket(a, job)
    try:
        read_until(ws, lambda message: 'data-state="running"' in message)
        visitor.request(a, "POST", LONG + "/solve/cancel", job=job)
    finally:
        ws.close()
    cluster.add_worker()


def test_a_web_process_killed_mid_stream_loses_no_acknowledged_move(cluster):
    doomed = cluster.add_web()
    other = cluster.web[0]
    visitor = Visitor(doomed, QUICK)
    acknowledged: list[int] = []
    stop = threading.Event()

    def play() -> None:
        moves = 0
        while not stop.is_set():
            try:
                answer = visitor.move(doomed, "du"[moves % 2])
            except (OSError, http.client.HTTPException):
                return  # killed before or while it answered: not acknowledged
            if visitor.status != 200:
                return
            moves += 1
            assert f'data-moves="{moves}"' in answer
            acknowledged.append(moves)

    thread = threading.Thread(target=play)
    thread.start()
    assert wait_until(lambda: len(acknowledged) >= 15, 30)
    doomed.kill()
    stop.set()
    thread.join(30)
    cluster.web.remove(doomed)
    page = visitor.request(other, "GET", QUICK)
    stored = int(re.search(r'data-moves="(\d+)"', page).group(1))
    # Every acknowledged move is there; at most the one in flight at the kill came on top.
    assert acknowledged[-1] <= stored <= acknowledged[-1] + 1


def test_redis_restarted_pages_play_and_solves_say_unavailable_until_it_is_back(cluster):
    a, b = cluster.web[:2]
    visitor = Visitor(a, QUICK)
    cluster.redis.stop()
    try:
        page = visitor.request(b, "GET", QUICK)
        assert visitor.status == 200 and 'id="play"' in page
        answer = visitor.move(a, "d")
        assert visitor.status == 200 and 'data-moves="1"' in answer
        panel = visitor.solve(b)
        assert visitor.status == 200
        assert "solver is unavailable" in panel
    finally:
        cluster.redis.start()

    def solved() -> bool:
        panel = visitor.solve(a)
        return "data-job=" in panel

    assert wait_until(solved, 20, 0.5), "solves did not come back with Redis"
    page = visitor.request(a, "GET", QUICK)
    job = job_of(page)
    ws = visitor.socket(b, job)
    try:
        assert status_of(read_until(ws, status_of)) == "solved"
    finally:
        ws.close()


def test_the_cluster_command_serves_and_ctrl_c_stops_everything(tmp_path):
    from tests.conftest import free_port

    # Somewhere PostgreSQL's own user can reach when the tests run as root (pytest's folders
    # are private to root).
    folder = Path(tempfile.mkdtemp(prefix="puzzlelab-cluster-"))
    folder.chmod(0o755)
    port = free_port()
    command = [
        sys.executable, "-m", "webapp.ops.cluster", "--web", "2", "--workers", "1",
        "--port", str(port), "--redis-port", str(free_port()), "--pg-port", str(free_port()),
        "--folder", str(folder), "--threads", "8",
    ]  # fmt: skip
    log = tmp_path / "cluster.log"
    cluster = subprocess.Popen(
        command, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        wait_until(lambda: "serving on" in log.read_text() or cluster.poll() is not None, 90)
        assert "serving on" in log.read_text(), log.read_text()
        visitor = Visitor(_At(port), QUICK)
        assert 'data-moves="1"' in visitor.move(_At(port), "d")
        # A solver worker that dies is started again, as systemd would.
        worker = subprocess.run(
            # (RQ names a running worker "rq:worker:…" where setproctitle is installed.)
            ["pgrep", "-P", str(cluster.pid), "-f", "webapp.jobs.worker|rq:worker"],
            capture_output=True,
            text=True,
        ).stdout.split()[0]
        os.kill(int(worker), signal.SIGKILL)
        assert wait_until(
            lambda: "worker-1 stopped (exit -9): starting it again" in log.read_text(), 10
        )
        children = [
            pid
            for pid in subprocess.run(
                ["pgrep", "-P", str(cluster.pid)], capture_output=True, text=True
            ).stdout.split()
        ]
        # Redis, PostgreSQL (in the foreground), the worker again, the hint worker, gunicorn.
        assert len(children) == 5
        cluster.send_signal(signal.SIGINT)
        cluster.wait(60)
        assert "stopped" in log.read_text()
        for pid in map(int, children):
            assert wait_until(lambda pid=pid: process_gone(pid), 10), log.read_text()
    finally:
        if cluster.poll() is None:
            os.killpg(cluster.pid, signal.SIGKILL)
            cluster.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


class _At:
    """Where a request goes: only a port, for a server this test did not start itself."""

    def __init__(self, port: int):
        self.port = port


def test_one_client_keeps_only_a_few_solves_waiting_across_web_processes(cluster):
    a, b = cluster.web[:2]
    players = [Visitor((a, b)[n % 2], LONG) for n in range(5)]  # five cookies, one address
    jobs = []
    try:
        for n, visitor in enumerate(players[:2]):  # both workers busy
            jobs.append((visitor, job_of(visitor.solve((a, b)[n % 2], "bfs"))))

            def running(visitor=visitor) -> bool:
                return 'data-state="running"' in visitor.request(a, "GET", LONG)

            assert wait_until(running, 20)
        for n, visitor in enumerate(players[2:4]):  # two waiting: the cap
            panel = visitor.solve((b, a)[n % 2], "bfs")
            assert 'data-state="queued"' in panel
            jobs.append((visitor, job_of(panel)))
        refused = players[4].solve(a, "bfs")
        assert "2 solves from you are waiting for a solver already" in refused
    finally:
        for visitor, job in jobs:
            visitor.request(a, "POST", LONG + "/solve/cancel", job=job)


def test_a_hint_is_worked_out_by_a_worker(cluster):
    a = cluster.web[0]
    visitor = Visitor(a, QUICK)
    hint = visitor.request(a, "POST", QUICK + "/hint")
    assert visitor.status == 200
    assert "Next move:" in hint, hint


def busy_workers(cluster, a: Server, b: Server) -> list:
    """Both solve workers busy with watched solves: (visitor, job, socket) each."""
    watched = []
    for n in range(2):
        visitor = Visitor((a, b)[n], LONG)
        job = job_of(visitor.solve((a, b)[n], "bfs"))
        ws = visitor.socket((a, b)[n], job)
        read_until(ws, lambda message: 'data-state="running"' in message)
        watched.append((visitor, job, ws))
    return watched


def test_a_queued_solve_whose_token_is_lost_still_runs(cluster):
    """RQ carries one token per queued solve; one lost (a worker that died before taking
    its solve) is made again, so the solve still starts when a worker is free."""
    from rq import Queue

    from webapp.jobs.scaled import QUEUE, connect

    a, b = cluster.web[:2]
    watched = busy_workers(cluster, a, b)
    waiting = Visitor(b, LONG)
    job = job_of(waiting.solve(b, "bfs"))
    ws = waiting.socket(b, job)
    try:
        queue = Queue(QUEUE, connection=connect(cluster.redis.url))
        assert wait_until(lambda: queue.count == 1, 30)
        queue.empty()  # the token is lost
        assert wait_until(lambda: queue.count == 1, 5), "the lost token was not made again"
        first, first_job, _ = watched[0]
        first.request(a, "POST", LONG + "/solve/cancel", job=first_job)
        read_until(ws, lambda message: 'data-state="running"' in message, timeout=20)
    finally:
        ws.close()
        waiting.request(b, "POST", LONG + "/solve/cancel", job=job)
        for visitor, other, other_ws in watched:
            other_ws.close()
            visitor.request(a, "POST", LONG + "/solve/cancel", job=other)


def test_a_solve_watched_from_a_killed_web_process_stops_within_seconds(cluster):
    """Pages keep a heartbeat in the solve's watch set; a web process killed outright
    stops renewing it, so its solves stop within seconds, not at their time limit."""
    doomed = cluster.add_web()
    other = cluster.web[0]
    visitor = Visitor(doomed, LONG)
    job = job_of(visitor.solve(doomed, "bfs"))
    ws = visitor.socket(doomed, job)
    read_until(ws, lambda message: 'data-state="running"' in message)
    doomed.kill()
    cluster.web.remove(doomed)

    def ended() -> bool:
        page = visitor.request(other, "GET", LONG)
        return "Cancelled" in page or "Stopped by the time limit" in page

    # Waited for however it ends: cancelled for its lost heartbeat, not stopped by its
    # 30 s time limit (SOLVE_TIME_LIMIT), which is what a solve nobody stops comes to.
    assert wait_until(ended, 120), "the solve never ended"
    page = visitor.request(other, "GET", LONG)
    assert "Cancelled" in page and "Stopped by the time limit" not in page


def test_a_queued_solve_whose_page_never_watches_is_reaped_before_it_runs(cluster):
    """As in the embedded mode: a solve whose page never opened its socket does not sit in
    the shared queue until a worker is free, keeping others out."""
    a, b = cluster.web[:2]
    watched = []
    try:
        for n in range(2):  # both workers busy with watched solves
            visitor = Visitor((a, b)[n], LONG)
            job = job_of(visitor.solve((a, b)[n], "bfs"))
            ws = visitor.socket((a, b)[n], job)
            read_until(ws, lambda message: 'data-state="running"' in message)
            watched.append((visitor, job, ws))
        left = Visitor(a, LONG)
        panel = left.solve(a, "bfs")
        assert 'data-state="queued"' in panel
        job = job_of(panel)

        def cancelled() -> bool:
            return "Cancelled" in left.request(b, "GET", LONG)

        assert wait_until(cancelled, 20), "the unwatched queued solve stayed in the queue"
        for visitor, _job, _ws in watched:  # the watched ones run on
            assert 'data-state="running"' in visitor.request(a, "GET", LONG)
    finally:
        for visitor, job, ws in watched:
            ws.close()
            visitor.request(a, "POST", LONG + "/solve/cancel", job=job)
