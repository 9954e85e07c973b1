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
import threading
import time
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, current_app, g, request, session
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
    # A page opens one socket a solve, and again after a drop; each open renders the panel.
    "live.solve_socket": ("60 per minute", "Too many solver streams opened lately."),
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

    def left(self) -> bool:
        """Whether this client's allowance is not yet spent."""
        counted = self._counted()
        try:
            return counted is None or counted[0].test(counted[1], self.name, client_key())
        except Exception:  # noqa: BLE001 - the counts' store is down: play goes on
            return True

    def check(self) -> None:
        """Refuse the request (429, the message) when this client's allowance is spent."""
        if not self.left():
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
#: (a replay link on a large board costs tens of milliseconds; a move, a few). Generous, as a
#: class may share one address: fairness under load is ``Load``'s work.
CPU = Allowance(
    "cpu",
    "BUDGET_CPU_MS",
    "40000 per minute",
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


class Load:
    """How busy this process is, and what each client's requests cost it lately.

    Per-client budgets bound one address; many addresses together can still keep the one
    server process busy, and a move then waits behind their requests. So while the process
    uses more than ``busy_share`` of a core, a request from a client that used more than
    ``light_ms`` of its time over the last seconds is refused (by ``LoadGate``, before the
    app sees it), and light clients go straight through. A client's use decays by half every
    ``half_life`` seconds: a player making ten moves a second stays near 400 ms, a flood of
    costly pages passes 1,000 within a second or two."""

    def __init__(self, busy_share: float = 0.6, light_ms: float = 1000.0, half_life: float = 5.0):
        self.busy_share = busy_share
        self.light_ms = light_ms
        self.half_life = half_life
        self._used: dict[str, tuple[float, float]] = {}  # client -> (ms, when)
        self._sampled = (time.monotonic(), time.process_time())
        self._busy = False
        self._lock = threading.Lock()

    def used(self, client: str, now: float) -> float:
        ms, when = self._used.get(client, (0.0, now))
        return ms * 0.5 ** ((now - when) / self.half_life)

    def busy(self, now: float) -> bool:
        """Whether the process used more than its share of a core since the last look (at
        most every quarter second)."""
        wall, cpu = self._sampled
        if now - wall >= 0.25:
            spent = time.process_time()
            self._busy = (spent - cpu) / (now - wall) > self.busy_share
            self._sampled = (now, spent)
        return self._busy

    def admit(self, client: str) -> bool:
        now = time.monotonic()
        with self._lock:
            return not (self.busy(now) and self.used(client, now) > self.light_ms)

    def spent(self, client: str, ms: float) -> None:
        now = time.monotonic()
        with self._lock:
            self._used[client] = (self.used(client, now) + ms, now)
            if len(self._used) > 100_000:  # forget the lightest half
                kept = sorted(self._used.items(), key=lambda item: item[1][0])[50_000:]
                self._used = dict(kept)


class LoadGate:
    """The busy server's first door, in front of the app: a heavy client's request is
    refused before Flask makes a request of it (a flood is refused hundreds of times a
    second, and each refusal must cost next to nothing). A client is the player of a cookie
    the app verified lately, else the address (a forged cookie is no player)."""

    #: Seconds a refused request waits before its answer, and how many may wait at once: a
    #: client that asks again at once (a flood does) then asks a few times a second, not
    #: hundreds, and the waiting holds no more than a few threads; past that, no wait.
    TARPIT_SECONDS = 1.0
    TARPIT_THREADS = 24
    wait = staticmethod(time.sleep)

    def __init__(self, app: Flask, wsgi_app: Any):
        self.app = app
        self.wsgi_app = wsgi_app
        self.cookie = app.config.get("SESSION_COOKIE_NAME", "session") + "="
        self.tarpit = threading.BoundedSemaphore(self.TARPIT_THREADS)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        load: Load | None = self.app.extensions.get("puzzlelab.load")
        if load is None or environ.get("PATH_INFO", "").startswith("/static/"):
            return self.wsgi_app(environ, start_response)
        key = environ["puzzlelab.load_key"] = self.client(environ)
        if load.admit(key):
            return self.wsgi_app(environ, start_response)
        if self.tarpit.acquire(blocking=False):
            try:
                self.wait(self.TARPIT_SECONDS)
            finally:
                self.tarpit.release()
        start_response(
            "429 Too Many Requests",
            [
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Retry-After", "5"),
                ("X-Content-Type-Options", "nosniff"),
            ],
        )
        return [BUSY_MESSAGE.encode()]

    def client(self, environ: dict[str, Any]) -> str:
        cookies = environ.get("HTTP_COOKIE", "")
        start = cookies.find(self.cookie)
        if start >= 0 and (start == 0 or cookies[start - 1] in " ;"):
            value = cookies[start + len(self.cookie) :].split(";", 1)[0].strip()
            player_of = getattr(self.app.session_interface, "player_of", None)
            player = player_of(self.app, value) if player_of is not None else None
            if player:
                return player
        return address_key(environ.get("REMOTE_ADDR", ""))


BUSY_MESSAGE = (
    "The server is busy, and your network has asked a lot of it in the last seconds; "
    "please wait a few seconds."
)


def _start_clock() -> Response | None:
    if request.endpoint == "static" or not limiter().enabled:
        return None  # files are cheap and cached
    # Load is shared fairly between players (many may share an address), and between
    # addresses for requests that carry no player; LoadGate has let this one in.
    client = request.environ.get("puzzlelab.load_key") or session.get("player") or client_key()
    if not CPU.left():
        return _refusal(CPU.message)
    g.cpu_started = time.thread_time()
    g.load_client = client
    return None


def _refusal(message: str) -> Response:
    """A 429 that costs next to nothing to make: the plain message (no page is rendered, as
    a flood is refused many times a second), and when to come back."""
    return Response(message, 429, mimetype="text/plain", headers={"Retry-After": "5"})


def _charge_clock(_error: BaseException | None) -> None:
    started = g.pop("cpu_started", None)
    client = g.pop("load_client", None)
    if started is None or client is None:
        return
    spent = (time.thread_time() - started) * 1000
    load: Load | None = current_app.extensions.get("puzzlelab.load")
    if load is not None:
        load.spent(client, spent)
    CPU.charge(round(spent))


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
    # Behind the proxy fix, which puts the client's address in REMOTE_ADDR first.
    app.wsgi_app = LoadGate(app, app.wsgi_app)  # type: ignore[method-assign]
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
    # Shedding load by recent use (LOAD_SHEDDING, on by default; off in the Flask test
    # client's apps, whose every player is the test process at machine speed).
    if app.config.get("LOAD_SHEDDING", not app.testing) not in (False, "false", "0", 0):
        app.extensions["puzzlelab.load"] = Load(
            float(app.config.get("LOAD_BUSY_SHARE", 0.6)),
            float(app.config.get("LOAD_LIGHT_MS", 1000)),
        )
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
