"""The database backed up and read by another process while the server runs loses nothing:
SQLite's locks hold only while the server never opens a second descriptor of the database
file (closing any descriptor drops all of the process's POSIX locks on it, SQLite's too)."""

from __future__ import annotations

import http.client
import re
import sqlite3
import threading
import time
import urllib.error
from collections import Counter

from tests.conftest import wait_until
from tests.test_socket import Browserless

# Down and up are both legal from the start of First steps 3: every move is played and stored.
LEVEL = "/sokoban/first-steps/3"
KEY = ("sokoban", "first-steps/3")


def stored_moves(database: str) -> int:
    """The player's stored undo cursor (the moves made) on the level, read from the file."""
    connection = sqlite3.connect(database)
    try:
        row = connection.execute(
            "SELECT cursor FROM games WHERE game = ? AND level = ?", KEY
        ).fetchone()
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        connection.close()
    return row[0] if row else 0


def test_an_online_backup_and_reads_while_moves_stream_in_lose_no_acknowledged_move(
    server, tmp_path
):
    database = str(server.instance / "puzzlelab.sqlite3")
    player = Browserless(server.url)
    player.get(LEVEL)
    acknowledged: list[int] = []
    answers: Counter = Counter()
    stop = threading.Event()

    def play() -> None:
        index = 0
        while not stop.is_set():
            try:
                page = player.post(LEVEL + "/play", action="move", moves="du"[index % 2])
            except urllib.error.HTTPError as refused:
                if refused.code == 429:  # over the moves' budget: slow down, as a page would
                    time.sleep(0.05)
                    continue
                answers[refused.code] += 1  # a 500 "database disk image is malformed"
                index += 1
                continue
            except (urllib.error.URLError, http.client.HTTPException, OSError):
                return  # the server died: a reply cut short is not an acknowledgement
            answers[200] += 1
            acknowledged.append(int(re.search(r'id="count-moves">(\d+)<', page).group(1)))
            index += 1

    mover = threading.Thread(target=play, daemon=True)
    mover.start()
    backups = []
    try:
        assert wait_until(lambda: len(acknowledged) >= 20, 30)  # every server thread has played
        # Another process (this one) backs the database up online, as docs/DEPLOY.md says,
        # and reads it plainly, each closing its connection: SQLite's close checkpoints and
        # deletes the -wal and -shm files when it finds no other process holding a lock.
        for number in range(6):
            backup = str(tmp_path / f"backup-{number}.sqlite3")
            source, target = sqlite3.connect(database), sqlite3.connect(backup)
            source.backup(target)
            source.close()
            target.close()
            backups.append(backup)
            reader = sqlite3.connect(database)
            reader.execute("SELECT count(*) FROM games").fetchone()
            reader.close()
            goal = sum(answers.values()) + 5  # a few more moves before the next backup
            assert wait_until(lambda goal=goal: sum(answers.values()) >= goal, 30)
        assert mover.is_alive()  # killed mid-stream, with moves still being sent
    finally:
        server.kill()
        stop.set()
        mover.join(30)
    assert answers == Counter({200: answers[200]}), f"moves answered {dict(answers)}"
    last = acknowledged[-1]
    assert acknowledged == list(range(1, last + 1))  # every one played, in order
    assert last <= stored_moves(database) <= last + 1  # at most the move in flight when killed
    # Each backup is a whole database, as far as the moves it was taken after.
    for backup in backups:
        assert 20 <= stored_moves(backup) <= last
