"""The Flask application factory: settings, the instance folder and its secret key, each web
module's init_app, the security headers. ``webapp.create_app`` names it."""

from __future__ import annotations

import os
import secrets
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, Request, Response, request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface

from webapp.web import database

ROOT = Path(__file__).resolve().parents[2]


def _secret_key(instance: Path) -> str:
    """The key that signs session cookies, made once per installation and never committed."""
    path = instance / "secret_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
    return path.read_text().strip()


class SessionCookies(SecureCookieSessionInterface):
    """Flask's signed session cookie, remembering the cookies it verified lately: a player
    sends the same cookie with every move, and verifying it each time (key derivation, HMAC,
    base64, JSON) took about 7% of the server's time under load."""

    #: Seconds a verified cookie is trusted before its signature is checked again.
    remember_seconds = 60.0
    max_remembered = 20_000

    def __init__(self) -> None:
        self._verified: dict[str, tuple[float, dict[str, Any]]] = {}

    def player_of(self, app: Flask, value: str) -> str | None:
        """The player a cookie value names, verified (and remembered as ``open_session``
        remembers it); None for no player or a forged cookie."""
        now = time.monotonic()
        known = self._verified.get(value)
        if known is None or now - known[0] >= self.remember_seconds:
            serializer = self.get_signing_serializer(app)
            if serializer is None:
                return None
            try:
                session = serializer.loads(
                    value, max_age=int(app.permanent_session_lifetime.total_seconds())
                )
            except Exception:  # noqa: BLE001 - itsdangerous' BadSignature and its kin
                return None
            if len(self._verified) >= self.max_remembered:
                self._verified.clear()
            known = self._verified[value] = (now, dict(session))
        player = known[1].get("player")
        return player if isinstance(player, str) else None

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        value = request.cookies.get(self.get_cookie_name(app))
        now = time.monotonic()
        known = self._verified.get(value) if value else None
        if known is not None and now - known[0] < self.remember_seconds:
            return self.session_class(known[1])
        session = super().open_session(app, request)
        if value and session:  # an empty session: no cookie, or one that failed the check
            if len(self._verified) >= self.max_remembered:
                self._verified.clear()
            self._verified[value] = (now, dict(session))
        return session


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    instance = Path(
        (test_config or {}).get("INSTANCE_PATH")
        or os.environ.get("PUZZLE_LAB_INSTANCE")
        or ROOT / "instance"
    ).resolve()
    instance.mkdir(parents=True, exist_ok=True)
    app = Flask(
        __name__,
        instance_path=str(instance),
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.session_interface = SessionCookies()
    app.config.from_mapping(
        DATABASE=str(instance / "puzzlelab.sqlite3"),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_NAME="puzzlelab",
        PERMANENT_SESSION_LIFETIME=timedelta(days=365),
        # The cookie only carries ids that never change: no need to re-sign it every request.
        SESSION_REFRESH_EACH_REQUEST=False,
        MAX_CONTENT_LENGTH=6 * 1024 * 1024,
        MAX_FORM_MEMORY_SIZE=1024 * 1024,
        # Global storage budgets (docs/SECURITY.md): pasted levels' text, stored pictures.
        LEVELS_BUDGET_MB=200,
        PICTURES_BUDGET_MB=500,
        PICTURES_UNUSED_DAYS=30,
    )
    app.config.from_prefixed_env("PUZZLE_LAB")  # e.g. PUZZLE_LAB_SOLVE_ORPHAN_GRACE=1
    if test_config:
        app.config.update(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(instance)
    if app.config.get("HTTPS"):
        # Served over TLS (behind the proxy): the cookie travels only over HTTPS, and its
        # __Host- name pins it to this host and path.
        app.config["SESSION_COOKIE_SECURE"] = True
        app.config["SESSION_COOKIE_NAME"] = "__Host-puzzlelab"
    if isinstance(app.config.get("GAME_PACKAGES"), str):  # from the environment: a,b,c
        app.config["GAME_PACKAGES"] = app.config["GAME_PACKAGES"].split(",")
    database.init_app(app)

    # The views, imported here: a solver process imports this package for its games and
    # needs none of them.
    from webapp.web import (
        assets,
        budgets,
        editing,
        errors,
        learning,
        live,
        making,
        pages,
        players,
        solvers,
        standing,
    )

    app.before_request(limit_body)  # first: before anything reads the form
    assets.init_app(app)
    solvers.init_app(app)
    players.init_app(app)
    pages.init_app(app)
    live.init_app(app)
    learning.init_app(app)
    making.init_app(app)
    standing.init_app(app)
    editing.init_app(app)
    budgets.init_app(app)
    errors.init_app(app)
    app.after_request(security_headers)
    return app


#: The content security policy every page satisfies: no inline script but the page's import
#: map (allowed by its own hash, filled in as ``{import_map}``), no eval. Otherwise a fixed
#: text: ``connect-src 'self'`` covers the page's own WebSocket (ws: and wss: on the same
#: host), so nothing the client sends (its Host header) is echoed into it.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' {import_map}; style-src 'self'; "
    "style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'"
)
#: Largest request body that is not a file upload: a pasted level, a move string, a form.
MAX_FORM_BODY = 1024 * 1024


def limit_body() -> None:
    """Refuse an oversized body before reading it: only uploads may send up to the app's
    MAX_CONTENT_LENGTH (werkzeug checks the declared length first, so nothing is read)."""
    if request.mimetype != "multipart/form-data":
        request.max_content_length = MAX_FORM_BODY


def security_headers(response: Response) -> Response:
    """A content security policy the pages satisfy, the usual headers against sniffing,
    framing and leaking addresses, and HSTS when the request came over HTTPS."""
    from webapp.web.assets import import_map

    response.headers.setdefault(
        "Content-Security-Policy", CONTENT_SECURITY_POLICY.format(import_map=import_map()[1])
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
    if request.is_secure:
        response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
    return response
