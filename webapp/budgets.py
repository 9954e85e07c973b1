"""What one client may ask of the site, counted by its address, not by its cookie.

A cookie is free to drop, so a budget kept per cookie is no budget: here every limit is kept
per client, an IPv4 address or an IPv6 /56 (a home connection is commonly given a /56, 256
/64 networks, and can pick any address in any of them; counting /64s would give one home 256
budgets). Behind a proxy the client is the address the proxy saw, taken from
X-Forwarded-For only when ``PROXIES`` says how many proxies stand in front (werkzeug's
ProxyFix); otherwise anyone could claim any address.

The limits live in one table, ``LIMITS``, by view; Flask-Limiter counts them, in memory by
default, in Redis when ``RATELIMIT_STORAGE_URI`` (or ``REDIS_URL``) names one, so that every
web process shares the same counts.
"""

from __future__ import annotations

import ipaddress

from flask import Flask, current_app, request
from flask_limiter import Limiter
from limits import parse
from werkzeug.middleware.proxy_fix import ProxyFix

from webapp.errors import BadRequest

#: Endpoint -> (limit, what the player reads when it is spent). "per client" throughout.
LIMITS = {
    "live.start_solve": (
        "12 per minute;120 per hour",
        "You have started many solves lately; wait a minute before the next one.",
    ),
    "live.hint": ("30 per minute", "You have asked for many hints lately; wait a minute."),
    "web.paste": ("60 per hour", "You have shared many levels this hour; please wait a while."),
    "web.upload_picture": (
        "20 per hour",
        "You have uploaded many pictures this hour; please wait a while.",
    ),
    "web.generate": ("120 per hour", "You have made many new games this hour; please wait."),
    "web.play_action": (
        "40 per second;2000 per minute",
        "Too many moves at once; slow down a little.",
    ),
}
#: Bytes of move text one client may send a minute (a move is a few bytes; this is over
#: 10,000 moves a minute).
MOVE_BYTES = "400000 per minute"
#: New players one client may start an hour (the BUDGET_NEW_PLAYERS setting): counted when a
#: visitor first acts, never for reading, so a class or an office behind one address plays.
NEW_PLAYERS = "100 per hour"


#: The prefix length that makes one IPv6 client.
IPV6_CLIENT_PREFIX = 56


def client_key() -> str:
    """The client a request comes from: its IPv4 address, or the /56 of its IPv6 address."""
    return address_key(request.remote_addr or "")


def address_key(address: str) -> str:
    """The client an address belongs to: an IPv4 address itself, an IPv6 address its /56."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address or "unknown"
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_CLIENT_PREFIX), strict=False))
    return str(parsed)


def _move_bytes() -> int:
    """The bytes of move text a request carries (a pipelined request carries several)."""
    if request.form.get("action") != "move":
        return 0
    return sum(len(text) for text in request.form.getlist("moves"))


def limiter() -> Limiter:
    return current_app.extensions["puzzlelab.limiter"]


def allow_new_player() -> bool:
    """Count one new player for this client; False when its budget of new players is spent.
    With the counts' store unreachable (Redis down), the visitor is let in."""
    limits = limiter()
    if not limits.enabled:
        return True
    try:
        budget = current_app.config.get("BUDGET_NEW_PLAYERS") or NEW_PLAYERS
        return limits.limiter.hit(parse(budget), "new-player", client_key())
    except Exception:  # noqa: BLE001 - any storage failure: play goes on without this count
        return True


def init_app(app: Flask) -> None:
    proxies = int(app.config.get("PROXIES", 0) or 0)
    if proxies:
        # The address and the scheme only: the Host header is the browser's own (the socket
        # checks its Origin against it), and docs/nginx.conf passes it through unchanged.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)
    storage = app.config.get("RATELIMIT_STORAGE_URI") or app.config.get("REDIS_URL") or "memory://"
    limits = Limiter(
        client_key,
        app=app,
        storage_uri=storage,
        strategy="moving-window",
        key_prefix="puzzlelab",
        enabled=bool(app.config.get("BUDGETS", True)),
        # Redis down must not stop play (moves need only the database): the budgets fall
        # back to counting in this process until it is back.
        swallow_errors=True,
        in_memory_fallback_enabled=True,
    )
    app.extensions["puzzlelab.limiter"] = limits
    for endpoint, (limit, message) in LIMITS.items():
        view = app.view_functions[endpoint]
        view = limits.limit(limit, error_message=message)(view)
        if endpoint == "web.play_action":
            view = limits.limit(
                MOVE_BYTES,
                cost=_move_bytes,
                scope="move-bytes",
                error_message="Too many moves at once; slow down a little.",
            )(view)
        app.view_functions[endpoint] = view


class TooManyPlayers(BadRequest):
    def __init__(self) -> None:
        super().__init__(
            "Many new players have started playing from your network this hour, so this "
            "one cannot be kept; try again in a while. Reading levels and replays is open.",
            429,
        )
