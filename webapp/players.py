"""Who is playing (an opaque id in the signed session cookie) and forgery protection."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import Flask, current_app, request, session

from webapp.budgets import TooManyPlayers, allow_new_player
from webapp.errors import BadRequest


def player_id() -> str:
    """The opaque id in the session cookie; a new player gets one on their first visit."""
    player = session.get("player")
    if not isinstance(player, str) or len(player) != 32:
        if not allow_new_player():
            raise TooManyPlayers()
        player = secrets.token_hex(16)
        session["player"] = player
        session.permanent = True
    return player


def csrf_token() -> str:
    """Derived from the player id with the secret key, so the cookie holds nothing else;
    empty for a visitor who cannot be made a player now (the page says why)."""
    try:
        player = player_id()
    except TooManyPlayers:
        return ""
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, b"csrf:" + player.encode(), hashlib.sha256).hexdigest()[:32]


def check_csrf() -> None:
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    if "player" not in session or not hmac.compare_digest(sent, csrf_token()):
        raise BadRequest(
            "This page is out of date (its security token does not match). "
            "Reload it and try again.",
            403,
        )


def init_app(app: Flask) -> None:
    app.before_request(check_csrf)
