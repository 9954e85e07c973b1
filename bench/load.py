"""A crowd on loopback: players making moves over HTTP while others watch live solves.

    .venv/bin/python bench/load.py [--players 100] [--watchers 10] [--seconds 20]

Starts its own gunicorn (as `make run` does) on a free loopback port and a temporary
instance, then runs N simulated players (each a keep-alive connection making legal moves) and
M watchers (each starts a solve and follows it over the WebSocket) for a bounded time. Prints
move throughput, p50/p99 latency, errors, and what the watchers received, as markdown.
"""

from __future__ import annotations

import argparse
import http.client
import re
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from web import over_http, percentile, serve  # noqa: E402

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
            conn.request("GET", SOLVE_LEVEL)
            response = conn.getresponse()
            page = response.read().decode()
            cookie = response.getheader("Set-Cookie").split(";")[0]
            token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
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
            panel = conn.getresponse().read().decode()
            path = re.search(r'ws-connect="([^"]+)"', panel).group(1)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--watchers", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--moves", type=int, default=2000, help="moves per player, at most")
    parser.add_argument(
        "--rate", type=float, default=5.0, help="moves a second per player (0: as fast as answered)"
    )
    args = parser.parse_args()

    with serve(SOLVE_TIME_LIMIT=str(args.seconds), SOLVE_MAX_QUEUED="64") as port:
        until = time.monotonic() + args.seconds
        watchers = [Watcher(port, until + 5) for _ in range(args.watchers)]
        for watcher in watchers:
            watcher.start()
        times, errors, elapsed = over_http(port, args.players, args.seconds, args.moves, args.rate)
        for watcher in watchers:
            watcher.join(args.seconds + 60)

    pace = f"{args.rate:g} moves/s each" if args.rate else "as fast as answered"
    print(
        f"{args.players} players making moves ({pace}), {args.watchers} watching live "
        f"solves, {args.seconds:g} s"
    )
    print()
    print("| what | count | per second | p50 ms | p99 ms | errors |")
    print("|---|---:|---:|---:|---:|---:|")
    print(
        f"| moves over HTTP | {len(times)} | {len(times) / elapsed:.0f} | "
        f"{statistics.median(times):.1f} | {percentile(times, 0.99):.1f} | {errors} |"
    )
    received = sum(w.messages for w in watchers)
    watch_errors = sum(len(w.errors) for w in watchers)
    print(
        f"| solver stream messages | {received} | {received / elapsed:.0f} | – | – | "
        f"{watch_errors} |"
    )
    outcomes: dict[str, int] = {}
    for watcher in watchers:
        outcome = watcher.outcome or "still running"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    print()
    print("Watchers' outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    for watcher in watchers:
        for error in watcher.errors:
            print(f"- watcher error: {error}")


if __name__ == "__main__":
    main()
