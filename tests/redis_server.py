"""A real Redis server for the tests, from the Debian package, in a temporary folder.

No persistence: a restart loses everything, which is the harder case for the app (every
solve's record gone at once).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, free_port

REDIS_SERVER = "/usr/bin/redis-server"


class RedisServer:
    """Start, stop and start again one redis-server on a fixed loopback port."""

    def __init__(self) -> None:
        if not Path(REDIS_SERVER).exists():
            pytest.fail("the scaled tests need Redis: install the Debian package 'redis-server'")
        self.folder = Path(tempfile.mkdtemp(prefix="puzzlelab-redis-"))
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder), "--daemonize", "no"],
            stdout=(self.folder / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start within 10 s")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def start_worker(url: str, log: Path, *flags: str) -> subprocess.Popen:
    """An RQ worker of the app's (``webapp.jobs.worker``) on the Redis at ``url``, in a
    process group of its own (its work horses go with it), its errors appended to ``log``."""
    return subprocess.Popen(
        [sys.executable, "-m", "webapp.jobs.worker", "--url", url, *flags],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
        start_new_session=True,
    )
