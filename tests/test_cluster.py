"""`make cluster` names or installs what it needs, and nothing it started outlives it: killed as
a group (SIGTERM to the group and SIGKILL to its leader at once, as a supervisor giving up
would), it leaves no Redis, PostgreSQL, worker or web process running."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conftest import ROOT, free_port, process_gone, wait_until


def descendants(root: int, folder: Path) -> dict[int, str]:
    """Every living process below ``root``, or naming ``folder`` in its command line (a
    server that detached itself), with its command line."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (
                (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            )
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found = {
        pid: line
        for pid, line in commands.items()
        if str(folder) in line and pid != root and not process_gone(pid)
    }
    frontier = [root, *found]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found and not process_gone(child):
                found[child] = commands.get(child, "")
                frontier.append(child)
    return found


def answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def test_make_cluster_installs_what_it_needs_first():
    planned = subprocess.run(
        ["make", "-n", "cluster"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    needs = planned[: planned.index("webapp.ops.cluster")]
    assert "/usr/bin/redis-server:redis-server" in needs and "initdb:postgresql" in needs
    assert "apt-get install" in needs


def test_the_cluster_without_redis_says_which_package_to_install(tmp_path):
    script = (
        "import sys, webapp.ops.cluster as cluster; "
        "cluster.REDIS_SERVER = sys.argv[1] + '/redis-server'; "
        "sys.argv[1:] = ['--folder', sys.argv[1]]; cluster.main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in said, said
    assert "install the Debian package 'redis-server'" in said, said


def test_the_cluster_killed_as_a_group_leaves_nothing_running(tmp_path):
    # Somewhere PostgreSQL's own user can reach when the tests run as root.
    folder = Path(tempfile.mkdtemp(prefix="puzzlelab-cluster-"))
    folder.chmod(0o755)
    ports = {"web": free_port(), "redis": free_port(), "postgres": free_port()}
    command = [
        sys.executable, "-m", "webapp.ops.cluster", "--web", "2", "--workers", "1",
        "--port", str(ports["web"]), "--redis-port", str(ports["redis"]),
        "--pg-port", str(ports["postgres"]), "--folder", str(folder), "--threads", "8",
    ]  # fmt: skip
    log = tmp_path / "cluster.log"
    cluster = subprocess.Popen(
        command, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True
    )
    started: dict[int, str] = {}
    try:
        wait_until(lambda: "serving on" in log.read_text() or cluster.poll() is not None, 120)
        assert "serving on" in log.read_text(), log.read_text()
        started = descendants(cluster.pid, folder)
        # A solver worker is named by RQ once it runs ("rq:worker:…", where setproctitle is
        # installed, as the test tools install it), by its command line before.
        for pieces in ("redis-server", "postgres", ("webapp.jobs.worker", "rq:worker"), "gunicorn"):
            names = (pieces,) if isinstance(pieces, str) else pieces
            found = any(name in line for name in names for line in started.values())
            assert found, (pieces, started)
        os.killpg(cluster.pid, signal.SIGTERM)
        os.kill(cluster.pid, signal.SIGKILL)  # no time to stop anything itself
        cluster.wait(10)
        for pid, line in started.items():
            assert wait_until(lambda pid=pid: process_gone(pid), 30), f"{line} still runs"
        for piece, port in ports.items():
            assert not answers(port), f"the {piece} port still answers"
    finally:
        if cluster.poll() is None:
            os.killpg(cluster.pid, signal.SIGKILL)
            cluster.wait(10)
        for pid in started:
            if not process_gone(pid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)
