"""The embedded SQLite store: players' games in progress, their best results, pasted levels.

Every write is one short transaction in WAL mode, so a move the server acknowledged survives
the server process being killed right after.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

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


class Store:
    """Queries over one connection; every method is scoped to the player it is given."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def load_game(self, player: str, game: str, level: str) -> SavedGame | None:
        row = self.conn.execute(
            "SELECT history, cursor FROM games WHERE player=? AND game=? AND level=?",
            (player, game, level),
        ).fetchone()
        if row is None:
            return None
        return SavedGame(json.loads(row["history"]), row["cursor"])

    def save_game(self, player: str, game: str, level: str, saved: SavedGame) -> None:
        self.conn.execute(
            "INSERT INTO games (player, game, level, history, cursor, updated) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player, game, level) DO UPDATE SET "
            "history=excluded.history, cursor=excluded.cursor, updated=excluded.updated",
            (player, game, level, json.dumps(saved.history), saved.cursor, time.time()),
        )

    def record_win(self, player: str, game: str, level: str, figures: dict[str, int]) -> None:
        """Keep, for each counter, the smallest value of any win."""
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
