"""The scaled mode on one machine (``make cluster``): Redis, PostgreSQL, N gunicorn web
processes and M solver workers, stopped together on Ctrl+C.

    python -m webapp.ops.cluster [--web 2] [--workers 2] [--port 5000] [--folder instance/cluster]

Redis and PostgreSQL keep their files in the folder (``redis/``, ``postgres/``) and listen on
loopback only, each behind a password generated into the folder (``redis.conf``,
``postgres.password``, readable by their owner only). PostgreSQL refuses to run as root: then
its folder belongs to the ``postgres`` user and its programs run as that user; when that user
cannot reach the folder (a clone under ``/root``), PostgreSQL's files go to a folder of that
user's home instead. Stopped by Ctrl+C or SIGTERM, also when started in the background.

Nothing outlives it: every server it starts is its own child (PostgreSQL too: its postmaster
runs in the foreground, not detached by pg_ctl) and asks Linux for a signal when this process
dies (PR_SET_PDEATHSIG), so a SIGKILL of this process, or of its whole process group, stops
them as well. docs/DEPLOY.md shows the same pieces on several hosts.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import hashlib
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

ROOT = Path(__file__).resolve().parents[2]
REDIS_SERVER = "/usr/bin/redis-server"
#: The role the web processes connect as (made by initdb); the only one that may connect.
ROLE = "puzzlelab"
#: Who may connect to the cluster's PostgreSQL: its role, with its password, nobody else.
PG_HBA = f"""\
# Written by webapp/ops/cluster.py: only the cluster's role, with its password.
local   all   {ROLE}   scram-sha-256
host    all   {ROLE}   127.0.0.1/32   scram-sha-256
"""


def say(message: str) -> None:
    print(f"cluster: {message}", flush=True)


def dying_with(parent: int, death: signal.Signals) -> None:
    """In a child about to start its program: ask Linux to send it ``death`` when this
    process dies (kept through exec, and after the switch to PostgreSQL's user, which comes
    before this call); if the parent is already gone, that is now."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, death)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os.kill(os.getpid(), death)


def redis_server() -> str:
    if not Path(REDIS_SERVER).exists():
        sys.exit(
            "cluster: Redis is not installed: install the Debian package 'redis-server' "
            "('sudo apt-get install redis-server'; `make cluster` installs it when run as root)"
        )
    return REDIS_SERVER


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
        sys.exit(
            "cluster: PostgreSQL is not installed: install the Debian package 'postgresql' "
            "('sudo apt-get install postgresql'; `make cluster` installs it when run as root)"
        )
    return found


def run_postgres(
    folder: Path,
    program: str,
    args: list[str],
    cwd: Path,
    user: str | None,
    timeout: float,
    password: str | None = None,
) -> subprocess.CompletedProcess:
    """Run one of PostgreSQL's programs as the server's user (it refuses to run as root),
    with the role's ``password`` for a client program."""
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    if password is not None:
        env["PGPASSWORD"] = password
    return subprocess.run(
        [str(folder / program), *args],
        cwd=cwd,
        user=user,
        group=user,
        extra_groups=[] if user else None,
        env=env,
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
        self.redis_server = redis_server()
        self.pg_bin = postgres_bin()
        self.pg_user: str | None = None
        if os.geteuid() == 0:
            pwd.getpwnam("postgres")  # KeyError: no user to run PostgreSQL as
            self.pg_user = "postgres"
        self.pg_folder = self._postgres_folder()
        # Redis carries the workers' jobs (pickles), PostgreSQL every player's games: each
        # has a password, kept in a file only this user reads, so no other user of the
        # machine can queue work for the workers or read and change the games.
        self.redis_password = self._secret("redis.conf", "requirepass {}").split()[1]
        self.redis_url = f"redis://:{self.redis_password}@127.0.0.1:{args.redis_port}/0"
        self.pg_password = self._secret("postgres.password", "{}")
        self.database_url = (
            f"postgresql://{ROLE}:{self.pg_password}@127.0.0.1:{args.pg_port}/{ROLE}"
        )

    def _secret(self, name: str, line: str) -> str:
        """The content of a file of the folder made once with a new password, mode 0600."""
        path = self.folder / name
        if not path.exists():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(line.format(secrets.token_hex(24)) + "\n")
        return path.read_text().strip()

    def _postgres_folder(self) -> Path:
        """PostgreSQL's folder: ``postgres/`` in the cluster's folder, unless PostgreSQL runs
        as its own user (as root) and that user cannot reach it (the folder is under one only
        root may enter, like /root): then one in that user's home, named after the folder."""
        inside = self.folder / "postgres"
        if self.pg_user is None or self._reachable(self.folder):
            return inside
        home = Path(pwd.getpwnam(self.pg_user).pw_dir)
        name = hashlib.sha256(str(self.folder).encode()).hexdigest()[:12]
        outside = home / "puzzlelab-clusters" / name
        say(
            f"the {self.pg_user} user cannot reach {self.folder}: PostgreSQL's files go to "
            f"{outside}"
        )
        return outside

    def _reachable(self, folder: Path) -> bool:
        """Whether PostgreSQL's user may enter ``folder`` (every folder on the way to it)."""
        done = subprocess.run(
            ["test", "-x", str(folder)], user=self.pg_user, group=self.pg_user, extra_groups=[]
        )
        return done.returncode == 0

    def log(self, name: str):
        return (self.folder / f"{name}.log").open("ab")

    #: The signal each server gets when this process dies, and on a stop: Redis and gunicorn
    #: stop on SIGTERM (gunicorn's workers within its graceful timeout); PostgreSQL's fast
    #: shutdown is SIGINT (SIGTERM would wait for every client to leave); a solver worker
    #: has nothing to keep (its horse dies with it, and its job is reported lost), so SIGKILL.
    DEATHS = {"redis": signal.SIGTERM, "postgres": signal.SIGINT, "web": signal.SIGTERM}

    def spawn(
        self,
        name: str,
        command: list[str],
        env: dict[str, str] | None = None,
        user: str | None = None,
        cwd: Path = ROOT,
    ) -> None:
        self.commands[name] = (command, env)
        death = self.DEATHS.get(name, signal.SIGKILL)
        parent = os.getpid()
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.log(name),
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl+C reaches this script only: it stops them in order
            user=user,
            group=user,
            extra_groups=[] if user else None,
            preexec_fn=lambda: dying_with(parent, death),
        )
        self.processes.append((name, process))

    def _pg(self, program: str, *args: str) -> None:
        done = run_postgres(
            self.pg_bin, program, list(args), self.pg_folder, self.pg_user, 120, self.pg_password
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {done.stdout}{done.stderr}")

    def _as_pg_user(self, path: Path) -> None:
        if self.pg_user:
            shutil.chown(path, self.pg_user, self.pg_user)

    def start_postgres(self) -> None:
        data = self.pg_folder / "data"
        if not data.exists():
            for folder in reversed([self.pg_folder, *self.pg_folder.parents]):
                if not folder.exists():
                    folder.mkdir(mode=0o700)
                    self._as_pg_user(folder)
            say(f"creating the PostgreSQL data folder {data}")
            # initdb reads the password from a file its user can read: a copy, removed after.
            given = self.pg_folder / "password"
            fd = os.open(given, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(self.pg_password + "\n")
            self._as_pg_user(given)
            try:
                self._pg("initdb", "-D", str(data), "-U", ROLE, f"--pwfile={given}",
                         "--auth=scram-sha-256", "-E", "UTF8", "--locale=C")  # fmt: skip
            finally:
                given.unlink()
            (data / "pg_hba.conf").write_text(PG_HBA)
        rules = (data / "pg_hba.conf").read_text().splitlines()
        trusted = any(rule.split()[-1:] == ["trust"] for rule in rules if rule[:1] != "#")
        # In the foreground, a child of this process (pg_ctl would detach it into a session
        # of its own, where nothing stops it if this process is killed).
        self.spawn(
            "postgres",
            [str(self.pg_bin / "postgres"), "-D", str(data), "-p", str(self.args.pg_port),
             "-c", "listen_addresses=127.0.0.1", "-k", str(self.pg_folder),
             "-c", "max_connections=200"],
            {"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
            user=self.pg_user,
            cwd=self.pg_folder,
        )  # fmt: skip
        self._wait_postgres(self.processes[-1][1], 60)
        if trusted:
            self._stop_trusting(data)
        try:
            self._pg("createdb", "-h", "127.0.0.1", "-p", str(self.args.pg_port), "-U", ROLE, ROLE)
        except RuntimeError as error:
            if "already exists" not in str(error):
                raise

    def _wait_postgres(self, server: subprocess.Popen, seconds: float) -> None:
        """Wait until PostgreSQL accepts connections (pg_isready), as `pg_ctl start -w` did."""
        deadline = time.monotonic() + seconds
        ready = ["-q", "-h", "127.0.0.1", "-p", str(self.args.pg_port)]
        while run_postgres(
            self.pg_bin, "pg_isready", ready, self.pg_folder, self.pg_user, 10
        ).returncode:
            if server.poll() is not None or time.monotonic() > deadline:
                log = self.folder / "postgres.log"
                raise RuntimeError(f"PostgreSQL did not start within {seconds:g} s: see {log}")
            time.sleep(0.2)

    def _stop_trusting(self, data: Path) -> None:
        """A data folder made when the cluster trusted every local connection: give the role
        its password (while that trust still lets this in), then let only the role in, with
        it."""
        say("PostgreSQL trusted every local connection: the role gets a password instead")
        import psycopg

        address = f"postgresql://{ROLE}@127.0.0.1:{self.args.pg_port}/postgres"
        with psycopg.connect(address, autocommit=True) as connection:
            connection.execute(f"ALTER ROLE {ROLE} PASSWORD '{self.pg_password}'")  # hex
        (data / "pg_hba.conf").write_text(PG_HBA)
        self._pg("pg_ctl", "reload", "-D", str(data))

    def start(self) -> None:
        args = self.args
        redis_folder = self.folder / "redis"
        redis_folder.mkdir(exist_ok=True)
        redis = [self.redis_server, str(self.folder / "redis.conf"), "--port", str(args.redis_port),
                 "--bind", "127.0.0.1", "--dir", str(redis_folder), "--save", "",
                 "--appendonly", "no"]  # fmt: skip
        self.spawn("redis", redis)
        wait_port(args.redis_port, 10, "Redis")
        say(f"Redis on 127.0.0.1:{args.redis_port} (its password in {self.folder / 'redis.conf'})")
        self.start_postgres()
        say(
            f"PostgreSQL on postgresql://{ROLE}@127.0.0.1:{args.pg_port}/{ROLE} (its password "
            f"in {self.folder / 'postgres.password'})"
        )
        env = {
            **os.environ,
            "PUZZLE_LAB_REDIS_URL": self.redis_url,
            "PUZZLE_LAB_DATABASE_URL": self.database_url,
        }
        for number in range(args.workers):
            self.spawn(f"worker-{number + 1}", [sys.executable, "-m", "webapp.jobs.worker"], env)
        # The hint pool: one worker for hints alone, so a hint never waits behind solves.
        self.spawn("worker-hints", [sys.executable, "-m", "webapp.jobs.worker", "--hints"], env)
        self.spawn(
            "web",
            [sys.executable, "-m", "gunicorn", "-c", "python:webapp.ops.serving", "--workers",
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
        say(
            f"{args.web} web processes, {args.workers} solver workers and a hint worker "
            f"serving on {url}"
        )

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
        for name, process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, self.DEATHS.get(name, signal.SIGTERM))
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
    # Stopped (in order, as by Ctrl+C) when whoever started it dies, `make` say.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass

    cluster = Cluster(args)
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            raise KeyboardInterrupt

    # Both set here, not left to Python: a background job of a shell without job control
    # starts with SIGINT ignored, and Python then keeps ignoring it.
    signal.signal(signal.SIGINT, stop)
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
