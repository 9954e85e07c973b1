"""The scaled mode on one machine (``make cluster``): Redis, PostgreSQL, N gunicorn web
processes and M solver workers, stopped together on Ctrl+C.

    python -m webapp.cluster [--web 2] [--workers 2] [--port 5000] [--folder instance/cluster]

Redis and PostgreSQL keep their files in the folder (``redis/``, ``postgres/``) and listen on
loopback only. PostgreSQL refuses to run as root: then its folder belongs to the ``postgres``
user and its programs run as that user. docs/DEPLOY.md shows the same pieces on several hosts.
"""

from __future__ import annotations

import argparse
import glob
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REDIS_SERVER = "/usr/bin/redis-server"
#: The role the web processes connect as (made by initdb, trusted on loopback).
ROLE = "puzzlelab"


def say(message: str) -> None:
    print(f"cluster: {message}", flush=True)


def newest_postgres_bin() -> Path | None:
    """The bin folder of the newest PostgreSQL server Debian installed, or None."""
    found = sorted(
        (Path(d) for d in glob.glob("/usr/lib/postgresql/*/bin") if Path(d, "initdb").exists()),
        key=lambda d: int(re.sub(r"\D", "", d.parent.name) or 0),
    )
    return found[-1] if found else None


def postgres_bin() -> Path:
    found = newest_postgres_bin()
    if found is None:
        sys.exit("cluster: PostgreSQL is not installed (Debian package 'postgresql')")
    return found


def run_postgres(
    folder: Path, program: str, args: list[str], cwd: Path, user: str | None, timeout: float
) -> subprocess.CompletedProcess:
    """Run one of PostgreSQL's programs as the server's user (it refuses to run as root)."""
    return subprocess.run(
        [str(folder / program), *args],
        cwd=cwd,
        user=user,
        group=user,
        extra_groups=[] if user else None,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def wait_port(port: int, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not start listening on port {port} within {seconds:g} s")


class Cluster:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.folder = Path(args.folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.processes: list[tuple[str, subprocess.Popen]] = []
        self.commands: dict[str, tuple[list[str], dict[str, str] | None]] = {}
        self.pg_bin = postgres_bin()
        self.pg_user: str | None = None
        if os.geteuid() == 0:
            pwd.getpwnam("postgres")  # KeyError: no user to run PostgreSQL as
            self.pg_user = "postgres"
        self.pg_folder = self.folder / "postgres"
        # Redis carries the workers' jobs (pickles): a password, kept in a file only this
        # user reads, so no other user of the machine can queue work for them.
        self.redis_password = self._redis_password()
        self.redis_url = f"redis://:{self.redis_password}@127.0.0.1:{args.redis_port}/0"
        self.database_url = f"postgresql://{ROLE}@127.0.0.1:{args.pg_port}/{ROLE}"

    def _redis_password(self) -> str:
        path = self.folder / "redis.conf"
        if not path.exists():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(f"requirepass {secrets.token_hex(24)}\n")
        return path.read_text().split()[1]

    def log(self, name: str):
        return (self.folder / f"{name}.log").open("ab")

    def spawn(self, name: str, command: list[str], env: dict[str, str] | None = None) -> None:
        self.commands[name] = (command, env)
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.log(name),
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl+C reaches this script only: it stops them in order
        )
        self.processes.append((name, process))

    def _pg(self, program: str, *args: str) -> None:
        done = run_postgres(self.pg_bin, program, list(args), self.pg_folder, self.pg_user, 120)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {done.stdout}{done.stderr}")

    def start_postgres(self) -> None:
        data = self.pg_folder / "data"
        if not data.exists():
            self.pg_folder.mkdir(exist_ok=True)
            if self.pg_user:
                shutil.chown(self.pg_folder, self.pg_user, self.pg_user)
            say(f"creating the PostgreSQL data folder {data}")
            self._pg("initdb", "-D", str(data), "-U", ROLE, "--auth=trust", "-E", "UTF8",
                     "--locale=C")  # fmt: skip
        options = (
            f"-p {self.args.pg_port} -c listen_addresses=127.0.0.1 -k {self.pg_folder} "
            "-c max_connections=200"
        )
        self._pg("pg_ctl", "start", "-w", "-t", "60", "-D", str(data),
                 "-l", str(self.pg_folder / "server.log"), "-o", options)  # fmt: skip
        self.postgres_started = True
        try:
            self._pg("createdb", "-h", "127.0.0.1", "-p", str(self.args.pg_port), "-U", ROLE, ROLE)
        except RuntimeError as error:
            if "already exists" not in str(error):
                raise

    def stop_postgres(self) -> None:
        if getattr(self, "postgres_started", False):
            self._pg("pg_ctl", "stop", "-w", "-D", str(self.pg_folder / "data"), "-m", "fast")
            self.postgres_started = False

    def start(self) -> None:
        args = self.args
        redis_folder = self.folder / "redis"
        redis_folder.mkdir(exist_ok=True)
        redis = [REDIS_SERVER, str(self.folder / "redis.conf"), "--port", str(args.redis_port),
                 "--bind", "127.0.0.1", "--dir", str(redis_folder), "--save", "",
                 "--appendonly", "no"]  # fmt: skip
        self.spawn("redis", redis)
        wait_port(args.redis_port, 10, "Redis")
        say(f"Redis on 127.0.0.1:{args.redis_port} (its password in {self.folder / 'redis.conf'})")
        self.start_postgres()
        say(f"PostgreSQL on {self.database_url}")
        env = {
            **os.environ,
            "PUZZLE_LAB_REDIS_URL": self.redis_url,
            "PUZZLE_LAB_DATABASE_URL": self.database_url,
        }
        for number in range(args.workers):
            self.spawn(f"worker-{number + 1}", [sys.executable, "-m", "webapp.worker"], env)
        self.spawn(
            "web",
            [sys.executable, "-m", "gunicorn", "-c", "python:webapp.serving", "--workers",
             str(args.web), "--threads", str(args.threads), "--bind", f"{args.host}:{args.port}",
             "wsgi:app"],
            env,
        )  # fmt: skip
        url = f"http://{args.host}:{args.port}/"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url, timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.processes[-1][1].poll() is not None:
                    log = self.folder / "web.log"
                    raise RuntimeError(f"the web processes did not start: see {log}") from None
                time.sleep(0.2)
        say(f"{args.web} web processes and {args.workers} solver workers serving on {url}")

    def watch(self) -> str:
        """Start again a solver worker or Redis that stopped (as systemd's Restart=always
        would); return the name of a web or database process that stopped, which ends all."""
        while True:
            time.sleep(0.5)
            for index, (name, process) in enumerate(self.processes):
                if process.poll() is None:
                    continue
                if not (name.startswith("worker") or name == "redis"):
                    return name
                say(f"{name} stopped (exit {process.returncode}): starting it again")
                if self._group_alive(process):  # a horse left behind goes with its worker
                    os.killpg(process.pid, signal.SIGKILL)
                command, env = self.commands[name]
                self.processes.pop(index)
                self.spawn(name, command, env)
                break

    @staticmethod
    def _group_alive(process: subprocess.Popen) -> bool:
        try:
            os.killpg(process.pid, 0)
            return True
        except ProcessLookupError:
            return False

    def stop(self) -> None:
        for _name, process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for name, process in reversed(self.processes):
            try:
                process.wait(8)
            except subprocess.TimeoutExpired:
                say(f"{name} did not stop: killed")
        for _name, process in self.processes:
            try:  # the whole group: a worker's horse, gunicorn's workers
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(5)
        self.processes.clear()
        self.stop_postgres()
        say("stopped")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--web", type=int, default=2, help="gunicorn web processes")
    parser.add_argument("--workers", type=int, default=2, help="solver workers")
    parser.add_argument("--threads", type=int, default=128, help="threads per web process")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--redis-port", type=int, default=6379)
    parser.add_argument("--pg-port", type=int, default=5432)
    parser.add_argument("--folder", default=str(ROOT / "instance" / "cluster"))
    args = parser.parse_args()

    cluster = Cluster(args)
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        cluster.start()
        say("Ctrl+C stops everything")
        stopped = cluster.watch()
        say(f"{stopped} stopped: stopping the rest (logs in {cluster.folder})")
    except KeyboardInterrupt:
        pass
    except (RuntimeError, KeyError) as error:
        say(str(error))
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        cluster.stop()


if __name__ == "__main__":
    main()
