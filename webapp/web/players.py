"""Who is playing (an opaque id in the signed session cookie) and forgery protection.

Reading costs no player: a page or a replay link shown to a visitor without a cookie makes
nobody, counts against no budget and sets no cookie. A player is made when a visitor first
acts (a move, a solve, a paste), and counted against the new players one client may start
an hour once that action is accepted (a refused one spends nothing). Past that budget a
visitor still plays, unkept: the game lives in this process's memory for its page, is never
written to the database, and the page says why.

The page a visitor reads carries a *visitor token*: a random nonce, signed. The player its
first action makes is derived from that nonce, so every request of that page, even several
sent at once before the cookie is back, acts as the same player; and a browser that refuses
cookies still plays its game as long as the page is open (each of its requests names the
same player), and is told that the game is not kept.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from urllib.parse import urlsplit

from flask import Flask, Request, Response, current_app, g, request, session

from webapp.core.budgets import NEW_PLAYERS
from webapp.core.errors import Forbidden
from webapp.core.players import Asker
from webapp.web.budgets import count_new_player, new_player_left
from webapp.web.database import get_store

#: The player id of a visitor who has not acted yet: nothing is ever stored under it.
VISITOR = ""
_VISITOR_PREFIX = "v."


def player_id() -> str:
    """The player in the session cookie, or ``VISITOR`` for someone who has only read so far
    (a state-changing request has made its player before any view runs: ``check_csrf``)."""
    player = session.get("player")
    if isinstance(player, str) and len(player) == 32:
        return player
    # A visitor's first action acts as the player its page's token names: kept once the
    # action is accepted, or unkept past the new-player budget.
    return g.get("new_player") or g.get("unkept_player") or VISITOR


def asker() -> Asker:
    """This request's player and the store that keeps their things, as the core services
    that act for a player take them (made here once, so a view names neither)."""
    return Asker(get_store(), player_id())


def unkept() -> bool:
    """Whether this request's player is past its client's new-player budget: it plays, but
    its game is kept only in this process's memory, for its page."""
    return bool(g.get("unkept_player"))


def _sign(purpose: str, text: str, length: int) -> str:
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, f"{purpose}:{text}".encode(), hashlib.sha256).hexdigest()[:length]


def csrf_token() -> str:
    """The page's token: derived from the player id with the secret key, so the cookie holds
    nothing else; for a visitor, a signed nonce naming the player their first action makes
    (the same for every use within one response)."""
    if unkept():  # no cookie comes back: the page's visitor token stays its token
        return g.visitor_token
    player = player_id()
    if player:
        return _sign("csrf", player, 32)
    if "visitor_token" not in g:
        nonce = secrets.token_hex(16)
        g.visitor_token = _VISITOR_PREFIX + nonce + "." + _sign("visitor", nonce, 16)
    return g.visitor_token


def _visitor_player(token: str) -> str | None:
    """The player a genuine visitor token names, or None for anything else."""
    if not token.startswith(_VISITOR_PREFIX):
        return None
    nonce, _, signature = token[len(_VISITOR_PREFIX) :].partition(".")
    if len(nonce) != 32 or not hmac.compare_digest(signature, _sign("visitor", nonce, 16)):
        return None
    return _sign("player", nonce, 32)


class Counted:
    """Players already counted as new lately: a browser that refuses cookies sends its page's
    visitor token with every request, and is one new player, not one per move. Bounded."""

    def __init__(self, most: int = 50_000) -> None:
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._most = most
        self._lock = threading.Lock()

    def seen(self, player: str) -> bool:
        with self._lock:
            if player in self._seen:
                self._seen.move_to_end(player)
                return True
            return False

    def add(self, player: str) -> None:
        with self._lock:
            self._seen[player] = None
            if len(self._seen) > self._most:
                self._seen.popitem(last=False)


COUNTED = Counted()


def out_of_date() -> Forbidden:
    return Forbidden(
        "This page is out of date (its security token does not match). Reload it and try again.",
    )


def check_csrf() -> None:
    """A state-changing request must carry its page's token; a visitor's first one makes
    their player (counted against the new players one client may start)."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    player = player_id()
    named = _visitor_player(sent)
    if player:
        # A page read before this browser's first action elsewhere (another tab) carries a
        # visitor token: good for this player when the request comes from this site's pages.
        if hmac.compare_digest(sent, csrf_token()) or (named and same_origin(request)):
            return
        raise out_of_date()
    if named is None:
        raise out_of_date()
    if COUNTED.seen(named):
        # This page's player acted before, yet its cookie did not come back: the browser
        # keeps no cookies (or sent this request before the first answer came).
        g.cookie_refused = True
        session["player"] = named
        session.permanent = True
    elif new_player_left():
        g.new_player = named  # counted, and its cookie set, once this action is accepted
    else:
        g.unkept_player = named
        g.visitor_token = sent


def accept_new_player(response: Response) -> Response:
    """A visitor's first action was accepted: count its new player, and give it its cookie.
    A refused action (4xx, 5xx) makes no player and spends nothing of the budget."""
    named = g.get("new_player")
    if named and response.status_code < 400:
        if not COUNTED.seen(named):  # once, whatever its page sent before the cookie came back
            count_new_player()
            COUNTED.add(named)
        session["player"] = named
        session.permanent = True
    return response


def same_origin(request: Request) -> bool:
    """Whether a request comes from one of this site's own pages, or from no browser page at
    all: a browser names the page's origin (scheme, host and port) in ``Origin`` on every
    POST and WebSocket handshake. It is checked against the ``PUBLIC_ORIGIN`` setting (the
    addresses players use, comma-separated); unset, against the request's own Host, which is
    right only where nothing in front rewrites it (``make run``)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # not sent by a browser page: no cross-site page can be behind it
    configured = current_app.config.get("PUBLIC_ORIGIN") or ""
    if configured:
        allowed = {item.strip().rstrip("/").lower() for item in configured.split(",")}
        return origin.rstrip("/").lower() in allowed
    return urlsplit(origin).netloc.lower() == request.host.lower()


def cookie_refused() -> bool:
    """Whether this request's browser seems to keep no cookie: its game lives in its page."""
    return bool(g.get("cookie_refused"))


def init_app(app: Flask) -> None:
    app.before_request(check_csrf)
    app.after_request(accept_new_player)
    app.context_processor(
        lambda: {
            "cookie_refused": cookie_refused,
            "player_unkept": unkept,
            "unkept_message": NEW_PLAYERS.message,
        }
    )
