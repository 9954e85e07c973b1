"""The store for each request, in the flaskr way: ``init_app(app)`` once, ``get_store()`` in a view.

Connections are kept per thread and database (a server thread serves many requests); the
sweep of old games runs on a background thread of its own.
"""

from __future__ import annotations

import sqlite3
import threading
import time

from flask import Flask, current_app, g

from webapp.store import Recent, Store, connect

_connections = threading.local()

#: How often old games are swept out of the store.
EXPIRY_INTERVAL = 6 * 3600


def init_app(app: Flask) -> None:
    """Create the schema up front, keep the app's ``Recent``, and start the sweep."""
    connect(app.config["DATABASE"]).close()
    app.extensions["puzzlelab.recent"] = recent = Recent()
    if not app.config.get("TESTING"):
        start_expiry(app.config["DATABASE"], float(app.config.get("EXPIRE_DAYS", 180)), recent)


def start_expiry(database: str, days: float, recent: Recent | None = None) -> None:
    """Sweep games untouched for ``days`` now and every few hours, on a background thread."""

    def sweep_forever() -> None:
        while True:
            conn = connect(database)
            try:
                Store(conn, recent).expire(days)
            except sqlite3.Error:
                pass  # a busy or locked database: the next sweep tries again
            finally:
                conn.close()
            time.sleep(EXPIRY_INTERVAL)

    threading.Thread(target=sweep_forever, name="expire-games", daemon=True).start()


def get_store() -> Store:
    """The store for this request, on a connection kept per thread and database."""
    if "store" not in g:
        path = current_app.config["DATABASE"]
        cache = getattr(_connections, "by_path", None)
        if cache is None:
            cache = _connections.by_path = {}
        if path not in cache:
            cache[path] = connect(path)
        g.store = Store(cache[path], current_app.extensions.get("puzzlelab.recent"))
    return g.store
