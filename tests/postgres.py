"""A real PostgreSQL server for the tests, from the Debian binaries, in a temporary folder.

PostgreSQL refuses to run as root, and CI runs as root: then the server runs as Debian's
``postgres`` user, which owns the folder. fsync is off: the tests stop the server only
with its own shutdown or an immediate stop, which keeps what the kernel was given.
"""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port
from webapp.ops.cluster import ROLE, newest_postgres_bin, run_postgres


def server_binaries() -> Path:
    """The newest installed server's bin folder; fails the test run if there is none."""
    found = newest_postgres_bin()
    if found is None:
        pytest.fail(
            "the store tests need a PostgreSQL server: install the Debian package 'postgresql' "
            "(make test installs it as root)"
        )
    return found


class PostgresServer:
    """initdb once, then start and stop the server on a free loopback port."""

    def __init__(self) -> None:
        self.bin = server_binaries()
        self.user: str | None = None
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                pytest.fail("PostgreSQL will not run as root, and there is no 'postgres' user")
            self.user = "postgres"
        self.folder = Path(tempfile.mkdtemp(prefix="puzzlelab-pg-"))
        if self.user:
            shutil.chown(self.folder, self.user, self.user)
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.port = free_port()
        self.url = f"postgresql://{ROLE}@127.0.0.1:{self.port}/postgres"
        self._run("initdb", "-D", self.data, "-U", ROLE, "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync")  # fmt: skip

    def _run(self, program: str, *args: Any) -> None:
        """Run a server program as the server's user; its output becomes the failure message."""
        done = run_postgres(
            self.bin, program, [str(arg) for arg in args], self.folder, self.user, 60
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            pytest.fail(f"{program} failed:\n{done.stdout}{done.stderr}{log[-3000:]}")

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} "
            "-c fsync=off -c full_page_writes=off -c max_connections=200"
        )
        self._run("pg_ctl", "start", "-w", "-t", "30", "-D", self.data, "-l", self.log,
                  "-o", options)  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """Stop the server; ``immediate`` is a crash (no checkpoint: recovery replays the WAL)."""
        self._run("pg_ctl", "stop", "-w", "-D", self.data, "-m", mode)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
