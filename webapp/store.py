"""The embedded SQLite store: players' games in progress, their best results, pasted levels.

Every write is one short transaction in WAL mode, so a move the server acknowledged survives
the server process being killed right after.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    player  TEXT NOT NULL,
    game    TEXT NOT NULL,
    level   TEXT NOT NULL,
    history TEXT NOT NULL,   -- JSON list of move tokens; "!" marks a restart
    cursor  INTEGER NOT NULL,
    updated REAL NOT NULL,
    PRIMARY KEY (player, game, level)
);
CREATE TABLE IF NOT EXISTS results (
    player  TEXT NOT NULL,
    game    TEXT NOT NULL,
    level   TEXT NOT NULL,
    best    TEXT NOT NULL,   -- JSON {counter: smallest value in any win}
    solved  REAL NOT NULL,
    PRIMARY KEY (player, game, level)
);
CREATE TABLE IF NOT EXISTS levels (
    game    TEXT NOT NULL,
    id      TEXT NOT NULL,
    text    TEXT NOT NULL,   -- the canonical level text
    created REAL NOT NULL,
    PRIMARY KEY (game, id)
);
CREATE INDEX IF NOT EXISTS games_updated ON games (updated);
"""


def connect(path: str) -> sqlite3.Connection:
    """Open the database, creating the schema; WAL lets readers and a writer run together."""
    conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=10000")
    conn.executescript(SCHEMA)
    return conn


@dataclass
class SavedGame:
    history: list[str] = field(default_factory=list)
    cursor: int = 0


class Recent:
    """The games and best results this process read or wrote lately, so that a move does not
    read them back from SQLite: under load every query made the request wait its turn for
    the interpreter again, and the two reads of a move cost more than all its rendering.

    Correct while this process is the only writer of games and results (the one server
    process of docs/DEPLOY.md). Writes still go to SQLite first; a write and its copy here
    happen together under ``writing``, so the copy never runs behind the database.
    """

    def __init__(self, size: int = 20_000):
        self.size = size
        self.writing = threading.Lock()
        self._lock = threading.Lock()  # held only for dictionary work, never across a query
        self._entries: OrderedDict[tuple[str, ...], Any] = OrderedDict()
        self._writes: dict[str, int] = {}

    def get(self, key: tuple[str, ...]) -> Any:
        """What is kept for ``key``, or MISSING."""
        with self._lock:
            value = self._entries.get(key, MISSING)
            if value is not MISSING:
                self._entries.move_to_end(key)
            return value

    def writes(self, kind: str) -> int:
        """How many writes of this kind ("game", "best") were kept so far."""
        return self._writes.get(kind, 0)

    def put(self, key: tuple[str, ...], value: Any, *, read_after: int | None = None) -> None:
        """Keep ``value``, written to the database just now; or, with ``read_after`` (the
        writes count before the read), read from it: then it is kept only if no write of
        its kind came in between, as the read may be older than that write."""
        with self._lock:
            if read_after is not None:
                if key in self._entries or self._writes.get(key[0], 0) != read_after:
                    return
            else:
                self._writes[key[0]] = self._writes.get(key[0], 0) + 1
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


#: Marks a key Recent holds nothing for (None is a value: "no such game").
MISSING = object()


class Store:
    """Queries over one connection; every method is scoped to the player it is given.

    With ``recent``, games and single-level results are read from it when it has them.
    """

    def __init__(self, conn: sqlite3.Connection, recent: Recent | None = None):
        self.conn = conn
        self.recent = recent

    def load_game(self, player: str, game: str, level: str) -> SavedGame | None:
        key = ("game", player, game, level)
        if self.recent is not None:
            kept = self.recent.get(key)
            if kept is not MISSING:
                # A copy: the caller plays moves onto its history.
                return None if kept is None else SavedGame(list(kept.history), kept.cursor)
            writes = self.recent.writes("game")
        row = self.conn.execute(
            "SELECT history, cursor FROM games WHERE player=? AND game=? AND level=?",
            (player, game, level),
        ).fetchone()
        saved = None if row is None else SavedGame(json.loads(row["history"]), row["cursor"])
        if self.recent is not None:
            copy = None if saved is None else SavedGame(list(saved.history), saved.cursor)
            self.recent.put(key, copy, read_after=writes)
        return saved

    def save_game(self, player: str, game: str, level: str, saved: SavedGame) -> None:
        if self.recent is None:
            self._save_game(player, game, level, saved)
            return
        with self.recent.writing:
            self._save_game(player, game, level, saved)
            copy = SavedGame(list(saved.history), saved.cursor)
            self.recent.put(("game", player, game, level), copy)

    def _save_game(self, player: str, game: str, level: str, saved: SavedGame) -> None:
        self.conn.execute(
            "INSERT INTO games (player, game, level, history, cursor, updated) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player, game, level) DO UPDATE SET "
            "history=excluded.history, cursor=excluded.cursor, updated=excluded.updated",
            (player, game, level, json.dumps(saved.history), saved.cursor, time.time()),
        )

    def record_win(self, player: str, game: str, level: str, figures: dict[str, int]) -> None:
        """Keep, for each counter, the smallest value of any win."""
        if self.recent is None:
            self._record_win(player, game, level, figures)
            return
        with self.recent.writing:
            best = self._record_win(player, game, level, figures)
            self.recent.put(("best", player, game, level), dict(best))

    def _record_win(
        self, player: str, game: str, level: str, figures: dict[str, int]
    ) -> dict[str, int]:
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            row = self.conn.execute(
                "SELECT best FROM results WHERE player=? AND game=? AND level=?",
                (player, game, level),
            ).fetchone()
            best = json.loads(row["best"]) if row else {}
            for counter, value in figures.items():
                best[counter] = min(value, best.get(counter, value))
            self.conn.execute(
                "INSERT INTO results (player, game, level, best, solved) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (player, game, level) DO UPDATE SET best=excluded.best",
                (player, game, level, json.dumps(best), time.time()),
            )
        return best

    def best(self, player: str, game: str, level: str) -> dict[str, int] | None:
        """This player's best figures on one level, or None if they have not solved it."""
        key = ("best", player, game, level)
        if self.recent is not None:
            kept = self.recent.get(key)
            if kept is not MISSING:
                return None if kept is None else dict(kept)
            writes = self.recent.writes("best")
        found = self.results(player, game, [level]).get(level)
        if self.recent is not None:
            self.recent.put(key, None if found is None else dict(found), read_after=writes)
        return found

    def results(self, player: str, game: str, levels: Iterable[str]) -> dict[str, dict]:
        """Best figures by level key, for the levels this player has solved."""
        wanted = list(levels)
        found: dict[str, dict] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(
                f"SELECT level, best FROM results WHERE player=? AND game=? AND level IN ({marks})",
                (player, game, *chunk),
            ):
                found[row["level"]] = json.loads(row["best"])
        return found

    def started(self, player: str, game: str) -> set[str]:
        rows = self.conn.execute(
            "SELECT level FROM games WHERE player=? AND game=? AND cursor > 0", (player, game)
        )
        return {row["level"] for row in rows}

    def expire(self, older_than_days: float, now: float | None = None) -> tuple[int, int]:
        """Forget games nobody has touched for that long, and pasted levels no game uses
        that are as old; the counts removed. A game being played is touched on every move."""
        cutoff = (now or time.time()) - older_than_days * 86400
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            games = self.conn.execute("DELETE FROM games WHERE updated < ?", (cutoff,)).rowcount
            levels = self.conn.execute(
                "DELETE FROM levels WHERE created < ? AND NOT EXISTS (SELECT 1 FROM games "
                "WHERE games.game = levels.game AND games.level = 'custom/' || levels.id)",
                (cutoff,),
            ).rowcount
        if self.recent is not None:
            self.recent.clear()  # it may hold games just removed
        return games, levels

    def save_level(self, game: str, level_id: str, text: str) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO levels (game, id, text, created) VALUES (?, ?, ?, ?)",
            (game, level_id, text, time.time()),
        )

    def load_level(self, game: str, level_id: str) -> str | None:
        row = self.conn.execute(
            "SELECT text FROM levels WHERE game=? AND id=?", (game, level_id)
        ).fetchone()
        return row["text"] if row else None
