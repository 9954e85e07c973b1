"""The store for each request, in the flaskr way: ``init_app(app)`` once; a view asks
``get_store`` for the request's store; a service acting for a player takes the request's
``webapp.core.players.Asker`` (web/players.py's ``asker``: the player and this store), and a
level found by web/levels.py's ``find_level`` carries it.

The engine is a setting: ``DATABASE_URL`` (``PUZZLE_LAB_DATABASE_URL``, e.g.
``postgresql://puzzlelab@127.0.0.1:5432/puzzlelab``) selects PostgreSQL; without it games
live in SQLite at ``DATABASE``, in the instance folder. SQLite connections are kept per
thread and database file (a server thread serves many requests); PostgreSQL connections are
shared by the threads (``PostgresConnections``). The sweep of old games runs on a background
thread of its own.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable

from flask import Flask, current_app, g

from webapp.storage.store import (
    PostgresConnections,
    PostgresStore,
    Recent,
    Store,
    StoreUnavailable,
    connect,
)

_connections = threading.local()

#: How often old games are swept out of the store.
EXPIRY_INTERVAL = 6 * 3600


def init_app(app: Flask) -> None:
    """Set up the engine the settings name (creating SQLite's schema up front), keep the
    app's ``Recent`` (SQLite only), answer StoreUnavailable with a 503, and start the sweep."""
    url = app.config.get("DATABASE_URL")
    if url:
        postgres = PostgresConnections(
            url,
            size=int(app.config.get("DATABASE_CONNECTIONS", 8)),
            connect_timeout=int(app.config.get("DATABASE_CONNECT_TIMEOUT", 5)),
        )
        app.extensions["puzzlelab.postgres"] = postgres

        def make_store() -> Store:
            return PostgresStore(postgres)
    else:
        connect(app.config["DATABASE"]).close()
        app.extensions["puzzlelab.recent"] = recent = Recent()
        path = app.config["DATABASE"]

        def make_store() -> Store:
            return Store(connect(path), recent)

    if not app.config.get("TESTING"):
        start_expiry(make_store, float(app.config.get("EXPIRE_DAYS", 180)), bool(url))


def start_expiry(make_store: Callable[[], Store], days: float, shared: bool = False) -> None:
    """Sweep games untouched for ``days`` now and every few hours, on a background thread;
    ``shared``: the store outlives a sweep (PostgreSQL's connections), else it is closed."""

    def sweep_forever() -> None:
        while True:
            try:
                store = make_store()
                try:
                    store.expire(days)
                finally:
                    if not shared:
                        store.conn.close()
            except (sqlite3.Error, StoreUnavailable):
                pass  # a busy, locked or unreachable database: the next sweep tries again
            except Exception:  # noqa: BLE001 - any other failure: logged; the thread lives on
                logging.getLogger(__name__).exception("sweeping old games failed")
            time.sleep(EXPIRY_INTERVAL)

    threading.Thread(target=sweep_forever, name="expire-games", daemon=True).start()


def get_store() -> Store:
    """The store for this request: on PostgreSQL, over the app's shared connections; on
    SQLite, on a connection kept per thread and database file."""
    if "store" not in g:
        postgres = current_app.extensions.get("puzzlelab.postgres")
        if postgres is not None:
            g.store = PostgresStore(postgres)
            return g.store
        path = current_app.config["DATABASE"]
        cache = getattr(_connections, "by_path", None)
        if cache is None:
            cache = _connections.by_path = {}
        if path not in cache:
            cache[path] = connect(path)
        g.store = Store(cache[path], current_app.extensions.get("puzzlelab.recent"))
    return g.store
