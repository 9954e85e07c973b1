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
import time
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, g, request
from flask_limiter import Limiter
from limits import parse
from limits.strategies import FixedWindowRateLimiter
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


@dataclass(frozen=True)
class Allowance:
    """A budget counted by what a client's requests cost (milliseconds of the server's time,
    bytes kept), not by their number: one expensive request counts as many cheap ones."""

    name: str
    #: The setting that overrides ``default`` (e.g. BUDGET_CPU_MS).
    setting: str
    default: str
    message: str

    def _counted(self) -> tuple[Any, Any] | None:
        limits = limiter()
        if not limits.enabled:
            return None
        budget = parse(current_app.config.get(self.setting) or self.default)
        counter = current_app.extensions.get("puzzlelab.costs")
        if counter is None:
            # Fixed windows: a cost is one increment (a moving window keeps an entry per unit).
            counter = current_app.extensions["puzzlelab.costs"] = FixedWindowRateLimiter(
                limits.storage
            )
        return counter, budget

    def check(self) -> None:
        """Refuse the request (429, the message) when this client's allowance is spent."""
        counted = self._counted()
        try:
            spent = counted is not None and not counted[0].test(counted[1], self.name, client_key())
        except Exception:  # noqa: BLE001 - the counts' store is down: play goes on
            spent = False
        if spent:
            raise BadRequest(self.message, 429)

    def charge(self, cost: int) -> bool:
        """Count ``cost`` against this client; False when it did not fit (it is still spent)."""
        counted = self._counted()
        if counted is None or cost <= 0:
            return True
        try:
            return counted[0].hit(counted[1], self.name, client_key(), cost=cost)
        except Exception:  # noqa: BLE001 - the counts' store is down: play goes on
            return True


#: The server's time one client's requests may take, every request counted, pages included
#: (a replay link on a large board costs tens of milliseconds; a move, a few).
CPU = Allowance(
    "cpu",
    "BUDGET_CPU_MS",
    "20000 per minute",
    "Your network has asked a lot of the server this minute; please wait a few seconds.",
)
#: Bytes of shared levels one client may add a day, as stored (a format that stores more
#: than was pasted is counted at what it stores).
LEVEL_BYTES = Allowance(
    "level-bytes",
    "BUDGET_LEVEL_BYTES",
    "2000000 per day",
    "You have shared a lot of levels today; the rest of the site's room is kept for others.",
)
#: Bytes of pictures one client may have stored a day: the sweep then never has to make room
#: for one client by removing everyone else's.
PICTURE_BYTES = Allowance(
    "picture-bytes",
    "BUDGET_PICTURE_BYTES",
    "20000000 per day",
    "You have uploaded a lot of pictures today; the rest of the site's room is kept for others.",
)
#: New games (a level, a shuffle or a position code first played) one client may start a day:
#: each is a stored history.
NEW_GAMES = Allowance(
    "new-games",
    "BUDGET_NEW_GAMES",
    "2000 per day",
    "You have started a great many games today; finish some, or come back tomorrow.",
)


def _start_clock() -> None:
    g.cpu_started = time.thread_time()
    if request.endpoint != "static" and not _is_socket():
        CPU.check()


def _charge_clock(_error: BaseException | None) -> None:
    started = g.pop("cpu_started", None)
    if started is None or request.endpoint == "static" or _is_socket():
        return  # files are cheap and cached; a socket has caps of its own (webapp/live.py)
    CPU.charge(round((time.thread_time() - started) * 1000))


def _is_socket() -> bool:
    return request.headers.get("Upgrade", "").lower() == "websocket"


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
    app.before_request(_start_clock)
    app.teardown_request(_charge_clock)
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
