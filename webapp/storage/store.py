"""The store: players' games in progress, their best results, pasted levels; one set of
queries over two engines.

SQLite (the default, a file in the instance folder) runs every write as one short
transaction in WAL mode, so a move the server acknowledged survives the server process
being killed right after. PostgreSQL (``DATABASE_URL``) is for several web processes
sharing one database; there too every write is one transaction, committed before it returns.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import psycopg
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row

# The same text creates both schemas: DOUBLE PRECISION is SQLite's REAL, and PostgreSQL's REAL
# would round a Unix time to minutes.
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    player  TEXT NOT NULL,
    game    TEXT NOT NULL,
    level   TEXT NOT NULL,
    history TEXT NOT NULL,   -- JSON list of move tokens; "!" marks a restart
    cursor  INTEGER NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, game, level)
);
CREATE TABLE IF NOT EXISTS results (
    player  TEXT NOT NULL,
    game    TEXT NOT NULL,
    level   TEXT NOT NULL,
    best    TEXT NOT NULL,   -- JSON {counter: smallest value in any win}
    solved  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, game, level)
);
CREATE TABLE IF NOT EXISTS assisted (
    player  TEXT NOT NULL,   -- levels won with a solver's solution or a replay link's moves:
    game    TEXT NOT NULL,   -- solved, but never the player's own best
    level   TEXT NOT NULL,
    solved  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, game, level)
);
CREATE TABLE IF NOT EXISTS levels (
    game    TEXT NOT NULL,
    id      TEXT NOT NULL,
    text    TEXT NOT NULL,   -- the canonical level text
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, id)
);
CREATE TABLE IF NOT EXISTS titles (
    player  TEXT NOT NULL,   -- the title a player gave a pasted level whose board someone
    game    TEXT NOT NULL,   -- pasted first under another: theirs to see, nobody else's
    id      TEXT NOT NULL,
    title   TEXT NOT NULL,
    PRIMARY KEY (player, game, id)
);
CREATE TABLE IF NOT EXISTS made (
    game    TEXT NOT NULL,   -- a generated level (its content id, or its position code):
    id      TEXT NOT NULL,   -- the difficulty and seed it was made from, and its figures
    difficulty TEXT NOT NULL,
    seed    TEXT NOT NULL,
    figures TEXT NOT NULL,   -- JSON {optimum, metric, proved, measures}
    PRIMARY KEY (game, id)
);
CREATE TABLE IF NOT EXISTS daily (
    game    TEXT NOT NULL,   -- the daily puzzle of each game and UTC date: the level it was,
    day     TEXT NOT NULL,   -- so no later day repeats it
    id      TEXT NOT NULL,
    PRIMARY KEY (game, day)
);
CREATE TABLE IF NOT EXISTS players (
    player  TEXT PRIMARY KEY, -- a player's name on leaderboards (none: anonymous) and rating
    name    TEXT,
    rating  DOUBLE PRECISION,
    rd      DOUBLE PRECISION,
    volatility DOUBLE PRECISION,
    settings TEXT            -- JSON: the page's settings (colours, motion, sound, ...)
);
CREATE TABLE IF NOT EXISTS ratings (
    game    TEXT NOT NULL,   -- a level's difficulty rating, from first unassisted attempts
    level   TEXT NOT NULL,
    rating  DOUBLE PRECISION NOT NULL,
    rd      DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    plays   INTEGER NOT NULL,
    PRIMARY KEY (game, level)
);
CREATE TABLE IF NOT EXISTS attempts (
    player  TEXT NOT NULL,   -- the levels whose first attempt moved the ratings: once each
    game    TEXT NOT NULL,
    level   TEXT NOT NULL,
    won     INTEGER NOT NULL,
    PRIMARY KEY (player, game, level)
);
CREATE TABLE IF NOT EXISTS authored (
    player  TEXT NOT NULL,   -- a level saved from the editor: who made it, under what name,
    game    TEXT NOT NULL,   -- listed on its game's page for its maker
    id      TEXT NOT NULL,
    author  TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, game, id)
);
CREATE TABLE IF NOT EXISTS shown (
    player  TEXT NOT NULL,   -- boards whose solution (or a move of it) this player was shown:
    game    TEXT NOT NULL,   -- a replay link's, the solver's, a hint's, the editor's; every
    board   TEXT NOT NULL,   -- later win on them is assisted, even retyped after a restart
    shown   DOUBLE PRECISION NOT NULL, -- (board: the content id, the same at any address)
    PRIMARY KEY (player, game, board)
);
CREATE TABLE IF NOT EXISTS paces (
    player  TEXT NOT NULL,   -- the pace of the attempt on a player's board (core/records.py):
    game    TEXT NOT NULL,   -- the moves that may still come at once, when the last came,
    level   TEXT NOT NULL,   -- and whether more came at once than a person plays
    credit  DOUBLE PRECISION NOT NULL,
    at      DOUBLE PRECISION NOT NULL,
    hasty   INTEGER NOT NULL,
    PRIMARY KEY (player, game, level)
);
CREATE TABLE IF NOT EXISTS unranked (
    player  TEXT NOT NULL,   -- wins kept but not ranked: played faster than a person could
    game    TEXT NOT NULL,
    level   TEXT NOT NULL,
    best    TEXT NOT NULL,   -- JSON {counter: smallest value in any such win}
    solved  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, game, level)
);
CREATE TABLE IF NOT EXISTS rated_by (
    client  TEXT NOT NULL,   -- how far one client (a keyed hash of its address) moved a
    day     TEXT NOT NULL,   -- level's rating on a UTC day: bounded (core/ratings.py)
    game    TEXT NOT NULL,
    level   TEXT NOT NULL,
    points  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (client, day, game, level)
);
CREATE TABLE IF NOT EXISTS names (
    name_key TEXT PRIMARY KEY, -- a display name up to confusables (core/text.py): one player
    player  TEXT NOT NULL      -- holds each
);
CREATE INDEX IF NOT EXISTS results_level ON results (game, level);
CREATE INDEX IF NOT EXISTS games_updated ON games (updated);
CREATE INDEX IF NOT EXISTS made_seed ON made (game, difficulty, seed);
"""

T = TypeVar("T")


class StoreUnavailable(Exception):
    """The database cannot be reached (or has no connection free); nothing was written."""


class StaleGame(Exception):
    """The stored game changed since it was loaded (another tab, another web process): the
    save was refused and nothing was written; the page loads the game again."""


#: Keeps an attempt's pace (credit, at, hasty).
PACE = (
    "INSERT INTO paces (player, game, level, credit, at, hasty) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (player, game, level) DO UPDATE SET credit=excluded.credit, at=excluded.at, "
    "hasty=excluded.hasty"
)
#: ``save_game`` without an ``expected`` version: the game is written whatever is stored.
UNCHECKED: Any = object()


#: Held while this process makes a database file, so that no connection of its own opens
#: the file before the descriptor that made it is closed (see ``_create_owners_only``).
_creating = threading.Lock()


def _create_owners_only(path: str) -> None:
    """Make the database file, readable by its owner only, if it does not exist yet.

    SQLite makes a new database file 0644 (less the umask), and the -wal and -shm files
    with the mode of the database file: so the file is made here first, 0600, and SQLite
    then opens what is there. It is made only when missing (O_EXCL), never opened
    otherwise: closing any descriptor of a file drops every POSIX lock this process holds
    on it, SQLite's included ("How To Corrupt An SQLite Database File", section 2.2), and
    another process's closing connection (``sqlite3 db .backup``, a plain read) then finds
    the server's connections unlocked and deletes the -wal and -shm files under them:
    acknowledged moves lost. A file this call made is a new one no connection has open, and
    ``_creating`` keeps this process's other connect() calls from opening it until the
    descriptor is closed. Not the umask: it is the process's, shared by every thread, and
    would change every file the process makes."""
    with _creating:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            os.chmod(path, 0o600)  # a file made before (a copy, an older version): tightened
            return
        os.close(fd)


def connect(path: str) -> sqlite3.Connection:
    """Open the database, creating the schema; WAL lets readers and a writer run together.

    The file (and so its -wal and -shm files, which SQLite makes with the same mode) is
    readable by its owner only: it holds every player's games. This process never opens
    the file but through SQLite, so SQLite's locks hold and the database can be backed up
    and read by another process while the server runs (docs/DEPLOY.md). synchronous=NORMAL
    in WAL mode keeps every committed move through a killed process (the write is in the
    file before the answer), not through a power cut (the last commits may be lost, the
    database stays intact): the promise docs/SECURITY.md makes."""
    if path != ":memory:":
        _create_owners_only(path)
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
    process of docs/DEPLOY.md), so it is used with SQLite only. Writes still go to SQLite
    first; a write and its copy here happen together under ``writing``, so the copy never
    runs behind the database.
    """

    def __init__(self, size: int = 20_000, max_bytes: int = 64 * 2**20):
        self.size = size
        #: Bytes the kept games may take, estimated by their histories' length: a long game
        #: is counted by its size, not as one entry.
        self.max_bytes = max_bytes
        self.bytes = 0
        self.writing = threading.Lock()
        self._lock = threading.Lock()  # held only for dictionary work, never across a query
        self._entries: OrderedDict[tuple[str, ...], Any] = OrderedDict()
        self._sizes: dict[tuple[str, ...], int] = {}
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
            size = 256 + 64 * len(getattr(value, "history", ()))
            self.bytes += size - self._sizes.get(key, 0)
            self._sizes[key] = size
            while self._entries and (len(self._entries) > self.size or self.bytes > self.max_bytes):
                gone, _value = self._entries.popitem(last=False)
                self.bytes -= self._sizes.pop(gone, 0)

    def forget(self, key: tuple[str, ...]) -> None:
        """Drop what is kept for ``key`` (it was found out of date): the next read goes to
        the database."""
        with self._lock:
            self._entries.pop(key, None)
            self.bytes -= self._sizes.pop(key, 0)
            self._writes[key[0]] = self._writes.get(key[0], 0) + 1

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._sizes.clear()
            self.bytes = 0


#: Marks a key Recent holds nothing for (None is a value: "no such game").
MISSING = object()


class Statements(Protocol):
    """Where a store's statements run: a connection, or one transaction on it."""

    def query(self, sql: str, params: tuple = ()) -> list[Any]: ...

    def run(self, sql: str, params: tuple = ()) -> int: ...


class Store:
    """The queries, over one SQLite connection; every method is scoped to the player it is given.

    With ``recent``, games and single-level results are read from it when it has them.
    Subclasses run the same SQL (``?`` placeholders) on another engine by overriding
    ``query``, ``run`` and ``transaction``.
    """

    #: What a transaction that reads and then writes a row adds to its read, to hold the row.
    lock_row = ""

    def __init__(self, conn: sqlite3.Connection, recent: Recent | None = None):
        self.conn = conn
        self.recent = recent
        #: The time written beside games and levels (a test moves it on to age them).
        self.clock: Callable[[], float] = time.time

    # -- the engine -------------------------------------------------------------------------
    def query(self, sql: str, params: tuple = ()) -> list[Any]:
        """The rows of one statement, by column name."""
        return self.conn.execute(sql, params).fetchall()

    def run(self, sql: str, params: tuple = ()) -> int:
        """Run one statement, committed when it returns; the rows it changed."""
        return self.conn.execute(sql, params).rowcount

    def transaction(self, work: Callable[[Statements], T]) -> T:
        """Run ``work`` as one transaction, committed when it returns; BEGIN IMMEDIATE takes
        the write lock first, so two of them never read the same row and both write it."""
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            return work(self)

    # -- games ------------------------------------------------------------------------------
    def load_game(self, player: str, game: str, level: str) -> SavedGame | None:
        key = ("game", player, game, level)
        if self.recent is not None:
            kept = self.recent.get(key)
            if kept is not MISSING:
                # A copy: the caller plays moves onto its history.
                return None if kept is None else SavedGame(list(kept.history), kept.cursor)
            writes = self.recent.writes("game")
        rows = self.query(
            "SELECT history, cursor FROM games WHERE player=? AND game=? AND level=?",
            (player, game, level),
        )
        saved = SavedGame(json.loads(rows[0]["history"]), rows[0]["cursor"]) if rows else None
        if self.recent is not None:
            copy = None if saved is None else SavedGame(list(saved.history), saved.cursor)
            self.recent.put(key, copy, read_after=writes)
        return saved

    def save_game(
        self,
        player: str,
        game: str,
        level: str,
        saved: SavedGame,
        win: dict[str, int] | None = None,
        *,
        assisted: bool = False,
        expected: SavedGame | None = UNCHECKED,
        hasty: bool = False,
        pace: tuple[float, float, bool] | None = None,
    ) -> None:
        """Keep the game; with ``win`` (the figures of the win it ends in), record the win in
        the same transaction, so the game is never saved solved without its result. An
        ``assisted`` win (a solver's solution, a replay link's moves) marks the level solved
        with help and leaves the player's best as it was; a ``hasty`` one (played faster than
        a person could) is kept apart, unranked, and leaves it as it was too. ``pace``, the
        attempt's pace after this save (webapp/core/records.py), is kept with it.

        ``expected`` is the game as it was loaded (None: there was none): the save happens
        only if that is still what is stored, else StaleGame and nothing is written. So a
        save never silently overwrites moves another tab or web process made meanwhile."""
        if self.recent is None:
            self._save_game(player, game, level, saved, win, assisted, expected, hasty, pace)
            return
        with self.recent.writing:
            try:
                best = self._save_game(
                    player, game, level, saved, win, assisted, expected, hasty, pace
                )
            except StaleGame:
                self.recent.forget(("game", player, game, level))
                raise
            copy = SavedGame(list(saved.history), saved.cursor)
            self.recent.put(("game", player, game, level), copy)
            if pace is not None:
                self.recent.put(("pace", player, game, level), pace)
            if best is not None:
                self.recent.put(("best", player, game, level), dict(best))

    def _save_game(
        self,
        player: str,
        game: str,
        level: str,
        saved: SavedGame,
        win: dict[str, int] | None,
        assisted: bool = False,
        expected: SavedGame | None = UNCHECKED,
        hasty: bool = False,
        pace: tuple[float, float, bool] | None = None,
    ) -> dict[str, int] | None:
        history = json.dumps(saved.history)
        if expected is UNCHECKED:
            sql = (
                "INSERT INTO games (player, game, level, history, cursor, updated) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player, game, level) DO UPDATE SET "
                "history=excluded.history, cursor=excluded.cursor, updated=excluded.updated"
            )
            row: tuple = (player, game, level, history, saved.cursor, self.clock())
        elif expected is None:
            sql = (
                "INSERT INTO games (player, game, level, history, cursor, updated) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player, game, level) DO NOTHING"
            )
            row = (player, game, level, history, saved.cursor, self.clock())
        else:
            sql = (
                "UPDATE games SET history=?, cursor=?, updated=? WHERE player=? AND game=? "
                "AND level=? AND history=? AND cursor=?"
            )
            row = (history, saved.cursor, self.clock(), player, game, level)
            row += (json.dumps(expected.history), expected.cursor)

        def write_game(statements: Statements) -> None:
            if statements.run(sql, row) == 0 and expected is not UNCHECKED:
                raise StaleGame(f"{player}/{game}/{level} changed since it was loaded")

        if win is None and pace is None:
            write_game(self)  # one statement, its own transaction
            return None

        def save_both(statements: Statements) -> dict[str, int] | None:
            write_game(statements)
            if pace is not None:  # the common move: the game and its pace, one commit
                statements.run(PACE, (player, game, level, pace[0], pace[1], int(pace[2])))
            if win is None:
                return None
            if assisted:
                statements.run(
                    "INSERT INTO assisted (player, game, level, solved) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (player, game, level) DO NOTHING",
                    (player, game, level, self.clock()),
                )
                return None
            if hasty:
                self._merge_win(statements, player, game, level, win, "unranked")
                return None
            return self._merge_win(statements, player, game, level, win)

        return self.transaction(save_both)

    def started(self, player: str, game: str) -> set[str]:
        rows = self.query(
            "SELECT level FROM games WHERE player=? AND game=? AND cursor > 0", (player, game)
        )
        return {row["level"] for row in rows}

    # -- results ----------------------------------------------------------------------------
    def solved(self, player: str, game: str) -> set[str]:
        """The level keys this player has solved on their own (a best result)."""
        rows = self.query("SELECT level FROM results WHERE player=? AND game=?", (player, game))
        return {row["level"] for row in rows}

    def assisted(self, player: str, game: str) -> set[str]:
        """The level keys this player has solved with help only (no result of their own)."""
        rows = self.query(
            "SELECT level FROM assisted WHERE player=? AND game=? AND NOT EXISTS (SELECT 1 "
            "FROM results WHERE results.player = assisted.player AND results.game = "
            "assisted.game AND results.level = assisted.level)",
            (player, game),
        )
        return {row["level"] for row in rows}

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
        return self.transaction(
            lambda statements: self._merge_win(statements, player, game, level, figures)
        )

    def _merge_win(
        self,
        statements: Statements,
        player: str,
        game: str,
        level: str,
        figures: dict[str, int],
        table: str = "results",
    ) -> dict[str, int]:
        """Within a transaction: fold one win's figures into the best ones; the new best.
        ``table`` is ``results`` (ranked) or ``unranked`` (the same columns)."""
        key = (player, game, level)
        # The row exists before it is read, so ``lock_row`` has a row to hold.
        statements.run(
            f"INSERT INTO {table} (player, game, level, best, solved) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (player, game, level) DO NOTHING",
            (*key, "{}", self.clock()),
        )
        row = statements.query(
            f"SELECT best FROM {table} WHERE player=? AND game=? AND level=?" + self.lock_row,
            key,
        )[0]
        best = json.loads(row["best"])
        for counter, value in figures.items():
            best[counter] = min(value, best.get(counter, value))
        statements.run(
            f"UPDATE {table} SET best=? WHERE player=? AND game=? AND level=?",
            (json.dumps(best), *key),
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
            for row in self.query(
                f"SELECT level, best FROM results WHERE player=? AND game=? AND level IN ({marks})",
                (player, game, *chunk),
            ):
                found[row["level"]] = json.loads(row["best"])
        return found

    # -- expiry and pasted levels -----------------------------------------------------------
    def expire(self, older_than_days: float, now: float | None = None) -> tuple[int, int]:
        """Forget games nobody has touched for that long, and pasted levels no game uses
        that are as old (a level saved from the editor stays); the counts removed. A game
        being played is touched on every move."""
        cutoff = (now or self.clock()) - older_than_days * 86400

        def sweep(statements: Statements) -> tuple[int, int]:
            games = statements.run("DELETE FROM games WHERE updated < ?", (cutoff,))
            levels = statements.run(
                "DELETE FROM levels WHERE created < ? AND NOT EXISTS (SELECT 1 FROM games "
                "WHERE games.game = levels.game AND games.level = 'custom/' || levels.id) "
                "AND NOT EXISTS (SELECT 1 FROM daily "
                "WHERE daily.game = levels.game AND daily.id = levels.id) "
                "AND NOT EXISTS (SELECT 1 FROM authored "
                "WHERE authored.game = levels.game AND authored.id = levels.id)",
                (cutoff,),
            )
            statements.run(
                "DELETE FROM titles WHERE NOT EXISTS (SELECT 1 FROM levels "
                "WHERE levels.game = titles.game AND levels.id = titles.id)"
            )
            statements.run(
                "DELETE FROM paces WHERE NOT EXISTS (SELECT 1 FROM games WHERE games.player "
                "= paces.player AND games.game = paces.game AND games.level = paces.level)"
            )
            # A client's rating allowance counts one UTC day: older days are spent.
            yesterday = time.strftime("%Y-%m-%d", time.gmtime(self.clock() - 86400))
            statements.run("DELETE FROM rated_by WHERE day < ?", (yesterday,))
            return games, levels

        removed = self.transaction(sweep)
        if self.recent is not None:
            self.recent.clear()  # it may hold games just removed
        return removed

    def save_level(self, game: str, level_id: str, text: str) -> None:
        self.run(
            "INSERT INTO levels (game, id, text, created) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (game, id) DO NOTHING",
            (game, level_id, text, self.clock()),
        )

    def title_level(self, game: str, level_id: str, text: str) -> None:
        """Give an untitled level its first title: ``text`` is the same board, titled."""
        self.run("UPDATE levels SET text=? WHERE game=? AND id=?", (text, game, level_id))

    def save_title(self, player: str, game: str, level_id: str, title: str) -> None:
        """Keep the title this player gave a pasted level (the level's text keeps the first)."""
        self.run(
            "INSERT INTO titles (player, game, id, title) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (player, game, id) DO UPDATE SET title=excluded.title",
            (player, game, level_id, title),
        )

    def title(self, player: str, game: str, level_id: str) -> str | None:
        """The title this player gave a pasted level, if they gave one of their own."""
        rows = self.query(
            "SELECT title FROM titles WHERE player=? AND game=? AND id=?", (player, game, level_id)
        )
        return rows[0]["title"] if rows else None

    def levels_bytes(self) -> int:
        """The size of every pasted level's text together (the global budget counts it)."""
        rows = self.query("SELECT COALESCE(SUM(LENGTH(text)), 0) AS total FROM levels", ())
        return int(rows[0]["total"])

    def load_level(self, game: str, level_id: str) -> str | None:
        rows = self.query("SELECT text FROM levels WHERE game=? AND id=?", (game, level_id))
        return rows[0]["text"] if rows else None

    # -- records, names and ratings ---------------------------------------------------------
    def level_results(self, game: str, level: str) -> list[tuple[str, str, dict[str, int]]]:
        """Every player's best on one level: (player, name or "", figures)."""
        rows = self.query(
            "SELECT results.player AS player, COALESCE(players.name, '') AS name, best "
            "FROM results LEFT JOIN players ON players.player = results.player "
            "WHERE game=? AND level=?",
            (game, level),
        )
        return [(row["player"], row["name"], json.loads(row["best"])) for row in rows]

    def collection_results(self, game: str, prefix: str) -> list[tuple[str, str, dict[str, int]]]:
        """Every player's bests on the levels whose key starts with ``prefix`` (a collection's
        ``slug/``): (player, name or "", figures) a level solved."""
        rows = self.query(
            "SELECT results.player AS player, COALESCE(players.name, '') AS name, best "
            "FROM results LEFT JOIN players ON players.player = results.player "
            "WHERE game=? AND SUBSTR(level, 1, ?) = ?",
            (game, len(prefix), prefix),
        )
        return [(row["player"], row["name"], json.loads(row["best"])) for row in rows]

    def name(self, player: str) -> str:
        rows = self.query("SELECT name FROM players WHERE player=?", (player,))
        return (rows[0]["name"] or "") if rows else ""

    def set_name(self, player: str, name: str, name_key: str = "") -> bool:
        """Show ``name`` for this player; with ``name_key`` (the name up to confusables) only
        if no other player holds that key: False, and nothing changed, when one does."""

        def claim(statements: Statements) -> bool:
            if name_key:
                # Claimed first, changing nothing if it is taken: two players claiming one
                # key at once on PostgreSQL meet at the key, never both hold it.
                taken = statements.run(
                    "INSERT INTO names (name_key, player) VALUES (?, ?) "
                    "ON CONFLICT (name_key) DO NOTHING",
                    (name_key, player),
                )
                if not taken:
                    holder = statements.query(
                        "SELECT player FROM names WHERE name_key=?", (name_key,)
                    )
                    if holder and holder[0]["player"] != player:
                        return False
            statements.run("DELETE FROM names WHERE player=? AND name_key<>?", (player, name_key))
            statements.run(
                "INSERT INTO players (player, name) VALUES (?, ?) "
                "ON CONFLICT (player) DO UPDATE SET name=excluded.name",
                (player, name or None),
            )
            return True

        return self.transaction(claim)

    def preferences(self, player: str) -> dict[str, Any]:
        """The settings this player chose (colours, motion, sound...), wherever they chose
        them. Every page a player loads draws with them: kept in ``recent`` when there is
        one, so a page asks the database nothing for them."""
        key = ("prefs", player)
        if self.recent is not None:
            kept = self.recent.get(key)
            if kept is not MISSING:
                return dict(kept)
            writes = self.recent.writes("prefs")
        rows = self.query("SELECT settings FROM players WHERE player=?", (player,))
        found = json.loads(rows[0]["settings"]) if rows and rows[0]["settings"] else {}
        if self.recent is not None:
            self.recent.put(key, dict(found), read_after=writes)
        return found

    def set_preferences(self, player: str, settings: dict[str, Any]) -> None:
        sql = (
            "INSERT INTO players (player, settings) VALUES (?, ?) "
            "ON CONFLICT (player) DO UPDATE SET settings=excluded.settings"
        )
        row = (player, json.dumps(settings, sort_keys=True))
        if self.recent is None:
            self.run(sql, row)
            return
        with self.recent.writing:
            self.run(sql, row)
            self.recent.put(("prefs", player), dict(settings))

    def player_rating(self, player: str) -> tuple[float, float, float] | None:
        rows = self.query("SELECT rating, rd, volatility FROM players WHERE player=?", (player,))
        if not rows or rows[0]["rating"] is None:
            return None
        return rows[0]["rating"], rows[0]["rd"], rows[0]["volatility"]

    def level_rating(self, game: str, level: str) -> tuple[float, float, float, int] | None:
        """One level's (rating, deviation, volatility, plays); None while nobody rated it."""
        rows = self.query(
            "SELECT rating, rd, volatility, plays FROM ratings WHERE game=? AND level=?",
            (game, level),
        )
        return (
            (rows[0]["rating"], rows[0]["rd"], rows[0]["volatility"], rows[0]["plays"])
            if rows
            else None
        )

    def level_ratings(self, game: str) -> dict[str, tuple[float, float, float, int]]:
        """Every rated level of a game: (rating, deviation, volatility, plays) by level key."""
        rows = self.query(
            "SELECT level, rating, rd, volatility, plays FROM ratings WHERE game=?", (game,)
        )
        return {
            row["level"]: (row["rating"], row["rd"], row["volatility"], row["plays"])
            for row in rows
        }

    def rate_attempt(
        self,
        player: str,
        game: str,
        level: str,
        won: bool,
        rate: Callable[[Any, Any, float, float], tuple[Any, Any, float]],
        level_start: tuple[float, float, float],
        player_start: tuple[float, float, float],
        client: str = "",
    ) -> bool:
        """Count a player's first attempt at a level, once: ``rate(player's, level's, what
        the client moved this level today, what it moved in all today)`` gives the player's
        new (rating, deviation, volatility) or None, the level's or None (left as it is), and
        the points the level moved, counted against ``client`` for the UTC day. False when
        an attempt was counted before."""
        day = time.strftime("%Y-%m-%d", time.gmtime(self.clock()))

        def count(statements: Statements) -> bool:
            taken = statements.run(
                "INSERT INTO attempts (player, game, level, won) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (player, game, level) DO NOTHING",
                (player, game, level, int(won)),
            )
            if not taken:
                return False
            mine = statements.query(
                "SELECT rating, rd, volatility FROM players WHERE player=?", (player,)
            )
            theirs = statements.query(
                "SELECT rating, rd, volatility, plays FROM ratings WHERE game=? AND level=?",
                (game, level),
            )
            moved = statements.query(
                "SELECT COALESCE(SUM(points), 0) AS total, COALESCE(SUM(CASE WHEN game=? AND "
                "level=? THEN points ELSE 0 END), 0) AS here FROM rated_by WHERE client=? "
                "AND day=?",
                (game, level, client, day),
            )[0]
            me = player_start
            if mine and mine[0]["rating"] is not None:
                me = (mine[0]["rating"], mine[0]["rd"], mine[0]["volatility"])
            it = level_start
            plays = 0
            if theirs:
                row = theirs[0]
                it, plays = (row["rating"], row["rd"], row["volatility"]), row["plays"]
            new_me, new_it, points = rate(me, it, float(moved["here"]), float(moved["total"]))
            if new_me is not None:
                statements.run(
                    "INSERT INTO players (player, rating, rd, volatility) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (player) DO UPDATE SET rating=excluded.rating, "
                    "rd=excluded.rd, volatility=excluded.volatility",
                    (player, *new_me),
                )
            if new_it is not None:
                statements.run(
                    "INSERT INTO ratings (game, level, rating, rd, volatility, plays) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (game, level) DO UPDATE SET "
                    "rating=excluded.rating, rd=excluded.rd, volatility=excluded.volatility, "
                    "plays=excluded.plays",
                    (game, level, *new_it, plays + 1),
                )
            if points:
                statements.run(
                    "INSERT INTO rated_by (client, day, game, level, points) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (client, day, game, level) "
                    "DO UPDATE SET points = rated_by.points + excluded.points",
                    (client, day, game, level, points),
                )
            return True

        return self.transaction(count)

    def standing(self, player: str, game: str, level: str) -> tuple[int, float | None]:
        """How many levels other than this one the player solved on their own (ranked), and
        when the first of them was solved (None: none)."""
        rows = self.query(
            "SELECT COUNT(*) AS wins, MIN(solved) AS first FROM results WHERE player=? "
            "AND NOT (game=? AND level=?)",
            (player, game, level),
        )
        return int(rows[0]["wins"]), rows[0]["first"]

    # -- what a player was shown, and the pace of their play ----------------------------------
    def mark_shown(self, player: str, game: str, board: str) -> None:
        """This player was shown a solution of ``board`` (or a move of one)."""
        self.run(
            "INSERT INTO shown (player, game, board, shown) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (player, game, board) DO NOTHING",
            (player, game, board, self.clock()),
        )

    def was_shown(self, player: str, game: str, board: str) -> bool:
        rows = self.query(
            "SELECT 1 AS one FROM shown WHERE player=? AND game=? AND board=?",
            (player, game, board),
        )
        return bool(rows)

    def pace(self, player: str, game: str, level: str) -> tuple[float, float, bool] | None:
        """The pace of the attempt on this board: (credit, at, hasty); None before any. Read
        on every move, so kept in ``recent`` when there is one."""
        key = ("pace", player, game, level)
        if self.recent is not None:
            kept = self.recent.get(key)
            if kept is not MISSING:
                return kept
            writes = self.recent.writes("pace")
        rows = self.query(
            "SELECT credit, at, hasty FROM paces WHERE player=? AND game=? AND level=?",
            (player, game, level),
        )
        found = (rows[0]["credit"], rows[0]["at"], bool(rows[0]["hasty"])) if rows else None
        if self.recent is not None:
            self.recent.put(key, found, read_after=writes)
        return found

    def set_pace(self, player: str, game: str, level: str, pace: tuple[float, float, bool]) -> None:
        row = (player, game, level, pace[0], pace[1], int(pace[2]))
        if self.recent is None:
            self.run(PACE, row)
            return
        with self.recent.writing:
            self.run(PACE, row)
            self.recent.put(("pace", player, game, level), pace)

    def unranked_best(self, player: str, game: str, level: str) -> dict[str, int] | None:
        """The best of this player's wins kept but not ranked (played too fast), if any."""
        rows = self.query(
            "SELECT best FROM unranked WHERE player=? AND game=? AND level=?",
            (player, game, level),
        )
        return json.loads(rows[0]["best"]) if rows else None

    # -- levels made in the editor ------------------------------------------------------------
    def save_authored(self, player: str, game: str, level_id: str, author: str) -> None:
        """Remember that ``player`` saved this level from the editor, signed ``author``."""
        self.run(
            "INSERT INTO authored (player, game, id, author, created) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (player, game, id) DO UPDATE SET author=excluded.author",
            (player, game, level_id, author, self.clock()),
        )

    def authored_levels(
        self, player: str, game: str, most: int
    ) -> list[tuple[str, str, str, str | None]]:
        """The ``most`` newest levels this player saved from the editor that are still kept,
        in one query: (id, author, the level's text, the title this player gave it, if any
        of their own)."""
        rows = self.query(
            "SELECT a.id, a.author, l.text, t.title FROM authored a "
            "JOIN levels l ON l.game = a.game AND l.id = a.id "
            "LEFT JOIN titles t ON t.player = a.player AND t.game = a.game AND t.id = a.id "
            "WHERE a.player=? AND a.game=? ORDER BY a.created DESC, a.id LIMIT ?",
            (player, game, most),
        )
        return [(row["id"], row["author"], row["text"], row["title"]) for row in rows]

    def author(self, game: str, level_id: str) -> str | None:
        """The name the level's first maker signed it with, if it was made in the editor."""
        rows = self.query(
            "SELECT author FROM authored WHERE game=? AND id=? ORDER BY created LIMIT 1",
            (game, level_id),
        )
        return rows[0]["author"] if rows else None

    # -- generated levels and daily puzzles ---------------------------------------------------
    def save_made(
        self, game: str, level_id: str, difficulty: str, seed: str, figures: dict[str, Any]
    ) -> None:
        """Remember what a generated level was made from and its figures (the first wins)."""
        self.run(
            "INSERT INTO made (game, id, difficulty, seed, figures) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (game, id) DO NOTHING",
            (game, level_id, difficulty, seed, json.dumps(figures)),
        )

    def made(self, game: str, level_id: str) -> dict[str, Any] | None:
        """A generated level's difficulty, seed and figures; None for any other level."""
        rows = self.query(
            "SELECT difficulty, seed, figures FROM made WHERE game=? AND id=?", (game, level_id)
        )
        if not rows:
            return None
        return {"difficulty": rows[0]["difficulty"], "seed": rows[0]["seed"],
                **json.loads(rows[0]["figures"])}  # fmt: skip

    def made_level(self, game: str, difficulty: str, seed: str, size: str = "") -> str | None:
        """The level made before for ``difficulty``, ``seed`` and ``size`` (its id), if any:
        a level is made once, and found here ever after."""
        rows = self.query(
            "SELECT id, figures FROM made WHERE game=? AND difficulty=? AND seed=?",
            (game, difficulty, seed),
        )
        for row in rows:
            if json.loads(row["figures"]).get("size", "") == size:
                return row["id"]
        return None

    def daily(self, game: str) -> dict[str, str]:
        """Every daily puzzle of a game so far: level id by UTC date."""
        rows = self.query("SELECT day, id FROM daily WHERE game=?", (game,))
        return {row["day"]: row["id"] for row in rows}

    def save_daily(self, game: str, day: str, level_id: str) -> str:
        """Make ``level_id`` the puzzle of ``day`` unless one is set already; the day's."""
        self.run(
            "INSERT INTO daily (game, day, id) VALUES (?, ?, ?) ON CONFLICT (game, day) DO NOTHING",
            (game, day, level_id),
        )
        rows = self.query("SELECT id FROM daily WHERE game=? AND day=?", (game, day))
        return rows[0]["id"]


# -- PostgreSQL -------------------------------------------------------------------------------
#: The advisory lock that creating the schema holds: any number, the same in every process.
SCHEMA_LOCK = 7_150_021


class PostgresConnections:
    """Connections to one PostgreSQL database, shared by this process's threads: at most
    ``size`` open, each lent to one statement or transaction at a time and then given back.

    Not one per thread as with SQLite: a server has 128 threads and may run as several
    processes, more than PostgreSQL's 100 connections, while a store call holds a connection
    for well under a millisecond. Not psycopg_pool either: it waits its whole timeout for a
    server that refuses connections, where this fails at once, so the player sees the 503
    page now; connections are opened on demand and the schema is created by the first one.
    """

    def __init__(self, url: str, size: int = 8, wait: float = 10.0, connect_timeout: int = 5):
        self.url = url
        self.wait = wait
        self.connect_timeout = connect_timeout
        self._idle: list[psycopg.Connection] = []
        self._lock = threading.Lock()
        self._free = threading.BoundedSemaphore(size)
        self._schema_ready = False

    def _open(self) -> psycopg.Connection:
        try:
            conn = psycopg.connect(
                self.url,
                autocommit=True,
                row_factory=dict_row,
                connect_timeout=self.connect_timeout,
                application_name="puzzle-lab",
            )
        except psycopg.Error as error:
            raise StoreUnavailable(str(error)) from error
        if not self._schema_ready:
            try:
                with conn.transaction():
                    # Web processes starting together would race to create the same tables.
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                    conn.execute(SCHEMA)
            except BaseException:
                conn.close()
                raise
            self._schema_ready = True
        return conn

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A connection for one statement or transaction; broken ones are not given back."""
        if not self._free.acquire(timeout=self.wait):
            raise StoreUnavailable("every connection to the game store is busy")
        try:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                conn = self._open()
            try:
                yield conn
            finally:
                if conn.closed or conn.info.transaction_status != TransactionStatus.IDLE:
                    conn.close()
                else:
                    with self._lock:
                        self._idle.append(conn)
        finally:
            self._free.release()

    def forget_idle(self) -> None:
        """Close the idle connections: after one broke (a restarted server), all may have."""
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def close(self) -> None:
        self.forget_idle()


class PostgresStatements:
    """The statements of one transaction, on the connection it holds."""

    def __init__(self, conn: psycopg.Connection):
        self.conn = conn

    def query(self, sql: str, params: tuple = ()) -> list[Any]:
        return self.conn.execute(_psycopg_sql(sql), params).fetchall()

    def run(self, sql: str, params: tuple = ()) -> int:
        return self.conn.execute(_psycopg_sql(sql), params).rowcount


def _psycopg_sql(sql: str) -> str:
    """The store's SQL with psycopg's placeholders (the store's SQL holds no other ? or %)."""
    return sql.replace("?", "%s")


class PostgresStore(Store):
    """The same queries on PostgreSQL, for several web processes sharing one database.

    No ``Recent``: another process may have written any row since this one read it, so
    every read goes to the database. A statement that fails because its connection broke
    is tried once more on a new one (every write here may safely run twice: upserts, a
    min-merge, deletes by age); if that fails too, StoreUnavailable.
    """

    lock_row = " FOR UPDATE"

    def __init__(self, connections: PostgresConnections):
        # No ``conn``: every call borrows a connection from ``connections`` and gives it back.
        self.connections = connections
        self.recent = None
        self.clock = time.time

    def _retrying(self, work: Callable[[psycopg.Connection], T]) -> T:
        try:
            with self.connections.connection() as conn:
                return work(conn)
        except psycopg.OperationalError:
            self.connections.forget_idle()
        try:
            with self.connections.connection() as conn:
                return work(conn)
        except psycopg.OperationalError as error:
            self.connections.forget_idle()
            raise StoreUnavailable(str(error)) from error

    def query(self, sql: str, params: tuple = ()) -> list[Any]:
        return self._retrying(lambda conn: PostgresStatements(conn).query(sql, params))

    def run(self, sql: str, params: tuple = ()) -> int:
        return self._retrying(lambda conn: PostgresStatements(conn).run(sql, params))

    def transaction(self, work: Callable[[Statements], T]) -> T:
        def attempt(conn: psycopg.Connection) -> T:
            with conn.transaction():
                return work(PostgresStatements(conn))

        return self._retrying(attempt)
