"""The 15-puzzle's pattern databases are built by one process per machine (about 300 MB and a
minute each): every web process starts a builder, the ones that find another at work stop at
once, a solve that needs them waits for the builder's files, and no builder outlives the
web process that started it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, process_gone, wait_until
from webapp.games.sliding import pdb

SMALL = (13, 14, 15)  # the bottom row's pattern: 4 KB, built in a moment


def builders_of(folder: Path) -> list[int]:
    """The pids of the processes running `python -m webapp tables` on ``folder``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"tables" in command and str(folder).encode() in command and entry.name.isdigit():
            if not process_gone(int(entry.name)):
                found.append(int(entry.name))
    return found


def waiting_for_a_lock(pid: int) -> bool:
    """Whether ``pid`` waits for a file lock (a blocked request is listed with "->")."""
    with open("/proc/locks") as locks:
        return any("->" in line and f" {pid} " in line for line in locks)


def test_a_second_builder_finds_the_first_at_work_and_stops_at_once(tmp_path):
    with pdb.building(tmp_path) as mine:  # this process is the builder at work
        assert mine
        done = subprocess.run(
            [sys.executable, "-m", "webapp", "tables", "sliding", str(tmp_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert "another process is building the tables" in done.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == [pdb.LOCK_NAME]  # built nothing


def test_a_solve_needing_a_database_waits_for_the_builder_and_reads_its_file(tmp_path):
    script = (
        "import sys; from webapp.games.sliding import pdb; pdb.use_folder(sys.argv[1]); "
        f"print(pdb.load_database(4, 4, {SMALL!r}).hex())"
    )
    path = pdb.database_path(4, 4, SMALL, tmp_path)
    # The builder's file: not what a build makes, so a table read from it is told apart.
    theirs = b"\x07" * 16 ** len(SMALL)
    with pdb.building(tmp_path):
        solve = subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert wait_until(lambda: waiting_for_a_lock(solve.pid), 60), "it did not wait"
            path.write_bytes(theirs)  # the builder's work, done while the lock is held
        except BaseException:
            solve.kill()
            raise
    out, _ = solve.communicate(timeout=60)
    assert bytes.fromhex(out.strip()) == theirs


def test_the_builder_dies_with_the_web_process_that_started_it(tmp_path):
    script = (
        "import sys, time; from pathlib import Path; "
        "from webapp.web.solvers import prebuild_disk_tables; "
        "prebuild_disk_tables(Path(sys.argv[1])); time.sleep(120)"
    )
    web = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT)
    try:
        assert wait_until(lambda: builders_of(tmp_path), 60), "no builder started"
        (builder,) = builders_of(tmp_path)
        os.kill(web.pid, signal.SIGKILL)
        web.wait(10)
        assert wait_until(lambda: process_gone(builder), 10), "the builder outlived its parent"
    finally:
        web.kill()
        for pid in builders_of(tmp_path):
            os.kill(pid, signal.SIGKILL)
