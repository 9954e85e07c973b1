"""The app's door (WSGI, in front of Flask; Flask-free): each request takes its turn in
``Slots`` (webapp/core/door.py) before the app makes a request of it, and is refused at once,
cheaply, when its turn does not come."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from werkzeug.wsgi import ClosingIterator

from webapp.core.clients import address_key
from webapp.core.door import Load, Slots

BUSY_MESSAGE = (
    "The server is busy, and your network has asked a lot of it in the last seconds; "
    "please wait a few seconds."
)


class LoadGate:
    """The app's door: takes each request's turn (``Slots``) before Flask makes a request
    of it, and refuses one whose turn did not come (plain text, next to nothing to make). A
    solver socket does not take a turn for its whole life (they are capped on their own,
    webapp/web/live.py), nor does a static file."""

    #: A client whose requests cost more than this on average (ms of the server's time)
    #: takes the costly lane, unless it is light: a move costs 2-5; a replay of a long game,
    #: tens.
    COSTLY_MS = 8.0
    #: A client that asked less than this of the server lately (ms, halving every 5 s) is
    #: light: a player making ten moves a second stays near 400. Its requests wait longer
    #: for their turn and are never the ones turned away.
    LIGHT_MS = 1000.0

    def __init__(self, app: Any, wsgi_app: Any, slots: Slots):
        self.app = app
        self.wsgi_app = wsgi_app
        self.slots = slots
        self.cookie = app.config.get("SESSION_COOKIE_NAME", "session") + "="

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        key = environ["puzzlelab.load_key"] = self.client(environ)
        if (
            environ.get("PATH_INFO", "").startswith("/static/")
            or environ.get("HTTP_UPGRADE", "").lower() == "websocket"
        ):
            return self.wsgi_app(environ, start_response)
        self.read_body(environ)
        turn = self.take(environ, key)
        if turn is None:
            start_response(
                "429 Too Many Requests",
                [
                    ("Content-Type", "text/plain; charset=utf-8"),
                    ("Retry-After", "5"),
                    ("X-Content-Type-Options", "nosniff"),
                ],
            )
            return [BUSY_MESSAGE.encode()]
        environ["puzzlelab.turn"] = turn
        try:
            return ClosingIterator(self.wsgi_app(environ, start_response), turn.end)
        except BaseException:
            turn.end()
            raise

    def take(self, environ: dict[str, Any], key: str) -> Turn | None:
        """Count the request as asked, and wait for its turn; None when refused."""
        load: Load = self.app.extensions["puzzlelab.load"]
        environ["puzzlelab.estimate"] = load.asked(key)
        priority = load.used(key)
        # A light client never takes the costly lane, whatever its few requests cost: a
        # player's first page of a game costs several moves' worth, and behind a flood's
        # replays in that lane its next move waited its whole five seconds, and was refused.
        light = priority < self.LIGHT_MS
        costly = not light and load.request_ms(key) > self.COSTLY_MS
        # Pages asked for without a player's cookie share one lane, site-wide (``Slots``).
        reading = self.reading(environ)
        if not self.slots.enter(priority, costly, patient=light, reading=reading):
            return None
        return Turn(self.slots, priority, costly, reading)

    @staticmethod
    def reading(environ: dict[str, Any]) -> bool:
        """Whether a request is anonymous reading: a page asked for by no known player."""
        method = environ.get("REQUEST_METHOD")
        return method in ("GET", "HEAD") and not environ.get("puzzlelab.player")

    def read_body(self, environ: dict[str, Any]) -> None:
        """Read a request's body before it takes a turn: a slow client sending a picture
        would otherwise hold one of the few turns for as long as it likes. Only a body the
        app reads whole anyway: an upload within the app's size limit, anything else within
        the form limit (a larger one the app refuses unread)."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return
        upload = environ.get("CONTENT_TYPE", "").startswith("multipart/form-data")
        setting = "MAX_CONTENT_LENGTH" if upload else "MAX_FORM_MEMORY_SIZE"
        if not 0 < length <= (self.app.config.get(setting) or 0):
            return
        environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(length))

    def client(self, environ: dict[str, Any]) -> str:
        cookies = environ.get("HTTP_COOKIE", "")
        start = cookies.find(self.cookie)
        if start >= 0 and (start == 0 or cookies[start - 1] in " ;"):
            value = cookies[start + len(self.cookie) :].split(";", 1)[0].strip()
            player = self.app.session_interface.player_of(self.app, value)
            if player:
                environ["puzzlelab.player"] = True
                return player
        return address_key(environ.get("REMOTE_ADDR", ""))


class Turn:
    """One request's turn in ``Slots``: given back when its answer is sent, and for the time
    the request waits on a solver's child (``outside``)."""

    def __init__(self, slots: Slots, priority: float, costly: bool = False, reading: bool = False):
        self.slots = slots
        self.priority = priority
        self.costly = costly
        self.reading = reading
        self.held = True

    def end(self) -> None:
        if self.held:
            self.held = False
            self.slots.leave(self.costly, self.reading)

    @contextmanager
    def outside(self) -> Iterator[None]:
        self.end()
        try:
            yield
        finally:
            # Back in line, ahead of no one: if no turn comes, the answer is still given.
            again = self.slots.enter(self.priority, self.costly, reading=self.reading)
            self.held = again or self.held
