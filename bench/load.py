"""A crowd on loopback: players making moves over HTTP while others watch live solves.

    .venv/bin/python bench/load.py [--players 100] [--watchers 10] [--seconds 20]
        [--modes run,cluster:1,cluster:2] [--workers 2]

For each mode, one after the other in the same run: starts the app on a free loopback port
and a temporary folder — ``run`` as `make run` does (one gunicorn process, solver children of
its own), ``cluster:N`` as `make cluster WEB=N` does (Redis, PostgreSQL, N gunicorn web
processes, ``--workers`` solver workers) — then runs the simulated players (each a keep-alive
connection making legal moves) and watchers (each starts a solve and follows it over the
WebSocket) for a bounded time. Prints, as markdown, one row per mode: move throughput, p50/p99
latency, errors, what the watchers received, and the CPU the server side spent per move
(every process of the mode: web, Redis, PostgreSQL, workers).
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import shutil
import signal
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
sys.path.insert(0, str(ROOT / "bench"))

from web import become_player, over_http, percentile, serve  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def _tree(roots: list[int]) -> list[int]:
    """The processes under ``roots`` (the roots included), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], list(roots)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


#: Which tier a process belongs to, by its command line.
TIERS = (
    ("redis-server", "redis"),
    ("postgres", "database"),
    ("webapp.jobs.worker", "workers"),
    ("rq:worker", "workers"),  # a running worker, as RQ names it where setproctitle is installed
)


def cpu_seconds(roots: list[int]) -> dict[str, float]:
    """CPU time of the processes under ``roots``, with that of their waited-for children, per
    tier (web, database, redis, workers, and the cluster command itself under "other")."""
    totals: dict[str, float] = {}
    for pid in _tree(roots):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue
        tier = "web" if "gunicorn" in command else "other"
        for needle, name in TIERS:
            if needle in command:
                tier = name
        ticks = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
        totals[tier] = totals.get(tier, 0.0) + ticks / TICKS
    return totals


@contextmanager
def serve_cluster(web: int, workers: int, **settings: str) -> Iterator[tuple[int, list[int]]]:
    """`make cluster` on free loopback ports in a temporary folder; its port and the roots of
    its processes (the cluster command and PostgreSQL's server, which detaches)."""
    folder = Path(tempfile.mkdtemp(prefix="puzzlelab-bench-"))
    folder.chmod(0o755)  # PostgreSQL runs as its own user when this runs as root
    ports = []
    for _ in range(3):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            ports.append(probe.getsockname()[1])
    env = {**os.environ, "PUZZLE_LAB_INSTANCE": str(folder / "instance")}
    env["PUZZLE_LAB_PREBUILD_TABLES"] = "false"
    env.update({f"PUZZLE_LAB_{name}": value for name, value in settings.items()})
    log = folder / "cluster.log"
    command = [sys.executable, "-m", "webapp.ops.cluster", "--web", str(web), "--workers",
               str(workers), "--port", str(ports[0]), "--redis-port", str(ports[1]),
               "--pg-port", str(ports[2]), "--folder", str(folder / "cluster")]  # fmt: skip
    cluster = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 120
        while "serving on" not in log.read_text():
            if cluster.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the cluster did not start:\n" + log.read_text())
            time.sleep(0.2)
        pid_file = folder / "cluster" / "postgres" / "data" / "postmaster.pid"
        postmaster = int(pid_file.read_text().split()[0])
        yield ports[0], [cluster.pid, postmaster]
    finally:
        cluster.send_signal(signal.SIGINT)
        try:
            cluster.wait(60)
        except subprocess.TimeoutExpired:
            cluster.kill()
            cluster.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def serve_mode(mode: str, workers: int, **settings: str) -> Iterator[tuple[int, list[int]]]:
    if mode == "run":
        with serve(**settings) as port:
            # serve() starts gunicorn as its child: its process tree is the server side.
            mine = os.getpid()
            roots = [pid for pid in _tree([mine]) if pid != mine and _is_gunicorn(pid)]
            yield port, roots[:1]
    elif mode.startswith("cluster:"):
        with serve_cluster(int(mode.split(":")[1]), workers, **settings) as served:
            yield served
    else:
        raise SystemExit(f"unknown mode {mode!r}: run or cluster:N")


def _is_gunicorn(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return b"gunicorn" in cmdline.read()
    except OSError:
        return False


SOLVE_LEVEL = "/sokoban/xsokoban/5"  # a search that runs until its time limit


class Watcher(threading.Thread):
    """Starts a solve and reads its stream until the outcome or the end of the run."""

    def __init__(self, port: int, until: float):
        super().__init__(daemon=True)
        self.port, self.until = port, until
        self.messages = 0
        self.errors: list[str] = []
        self.outcome = ""

    def run(self) -> None:
        from simple_websocket import Client, ConnectionClosed

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            cookie, token = become_player(self.port, SOLVE_LEVEL)
            found = None
            for attempt in range(10):  # the server's turns may shed a crowd's solves (503)
                conn.request(
                    "POST",
                    SOLVE_LEVEL + "/solve",
                    body="algorithm=bfs",
                    headers={
                        "Cookie": cookie,
                        "X-CSRF-Token": token,
                        "Content-Type": "application/x-www-form-urlencoded",
                    },
                )
                answer = conn.getresponse()
                panel = answer.read().decode()
                found = re.search(r'ws-connect="([^"]+)"', panel)
                if found or answer.status != 503:
                    break
                time.sleep(0.2 * (attempt + 1))
            if found is None:
                raise RuntimeError(f"no solve started: {panel[:120]!r}")
            path = found.group(1)
            ws = Client.connect(f"ws://127.0.0.1:{self.port}{path}", headers={"Cookie": cookie})
        except Exception as exc:  # noqa: BLE001 - counted, not raised
            self.errors.append(f"start: {exc}")
            return
        try:
            while time.monotonic() < self.until:
                message = ws.receive(timeout=1)
                if message is None:
                    continue
                self.messages += 1
                status = re.search(r'data-status="([^"]*)"', message)
                if status and status.group(1):
                    self.outcome = status.group(1)
                    break
        except ConnectionClosed as closed:
            self.errors.append(f"closed: {closed.reason}")
        finally:
            ws.close()
            conn.close()


def run_mode(mode: str, args: argparse.Namespace) -> dict:
    """One mode's crowd: its figures for the table."""
    settings = {"SOLVE_TIME_LIMIT": str(args.seconds), "SOLVE_MAX_QUEUED": "64"}
    # Every simulated player comes from 127.0.0.1: one client address, whose caps and budgets
    # would otherwise refuse the watchers past the first few and the players past the sixtieth.
    settings.update(
        SOLVE_PER_CLIENT_QUEUED="64",
        SOCKETS_PER_CLIENT="1000",
        BUDGETS="false",
        THREADS_PER_CLIENT="0",
    )
    with serve_mode(mode, args.workers, **settings) as (port, roots):
        cpu_before = cpu_seconds(roots)
        until = time.monotonic() + args.seconds
        watchers = [Watcher(port, until + 5) for _ in range(args.watchers)]
        for watcher in watchers:
            watcher.start()
        times, errors, elapsed = over_http(port, args.players, args.seconds, args.moves, args.rate)
        cpu_after = cpu_seconds(roots)
        cpu = {tier: cpu_after[tier] - cpu_before.get(tier, 0.0) for tier in cpu_after}
        for watcher in watchers:
            watcher.join(args.seconds + 60)
    outcomes: dict[str, int] = {}
    for watcher in watchers:
        outcome = watcher.outcome or "still running"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return {
        "mode": mode,
        "times": times,
        "errors": errors,
        "elapsed": elapsed,
        "cpu": cpu,
        "received": sum(w.messages for w in watchers),
        "watch_errors": [error for w in watchers for error in w.errors],
        "outcomes": outcomes,
    }


MODE_NAMES = {"run": "`make run`"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--watchers", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--moves", type=int, default=2000, help="moves per player, at most")
    parser.add_argument(
        "--rate", type=float, default=5.0, help="moves a second per player (0: as fast as answered)"
    )
    parser.add_argument("--modes", default="run", help="run, cluster:N (N web processes), ...")
    parser.add_argument("--workers", type=int, default=2, help="solver workers in cluster modes")
    args = parser.parse_args()

    rows = [run_mode(mode, args) for mode in args.modes.split(",")]

    pace = f"{args.rate:g} moves/s each" if args.rate else "as fast as answered"
    print(
        f"{args.players} players making moves ({pace}), {args.watchers} watching live "
        f"solves, {args.seconds:g} s"
    )
    print()
    print(
        "| mode | moves | moves/s | p50 ms | p99 ms | errors | server CPU ms/move "
        "| stream messages | stream errors | watchers' outcomes |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for row in rows:
        times = row["times"]
        mode = row["mode"]
        name = MODE_NAMES.get(mode) or f"`make cluster WEB={mode.split(':')[1]}`"
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(row["outcomes"].items())) or "–"
        print(
            f"| {name} | {len(times)} | {len(times) / row['elapsed']:.0f} | "
            f"{statistics.median(times):.1f} | {percentile(times, 0.99):.1f} | {row['errors']} | "
            f"{sum(row['cpu'].values()) * 1000 / max(1, len(times)):.2f} | {row['received']} | "
            f"{len(row['watch_errors'])} | {outcomes} |"
        )
    print()
    print("Server CPU per move by tier (ms; solves included when watchers run):")
    print()
    for row in rows:
        moves = max(1, len(row["times"]))
        tiers = ", ".join(
            f"{tier} {seconds * 1000 / moves:.2f}" for tier, seconds in sorted(row["cpu"].items())
        )
        print(f"- {row['mode']}: {tiers}")
    for row in rows:
        for error in row["watch_errors"]:
            print(f"- {row['mode']} watcher error: {error}")


if __name__ == "__main__":
    main()
