"""What one client may ask of the site, counted by its address, not by its cookie.

A cookie is free to drop, so a budget kept per cookie is no budget: here every limit is kept
per client, an IPv4 address or an IPv6 /56 (a home connection is commonly given a /56, 256
/64 networks, and can pick any address in any of them; counting /64s would give one home 256
budgets). Behind a proxy the client is the address the proxy saw, taken from
X-Forwarded-For only when ``PROXIES`` says how many proxies stand in front (werkzeug's
ProxyFix); otherwise anyone could claim any address.

A view declares its limits beside its route (``@limit``), each one a setting a deployment may
change (``BUDGET_<NAME>``); Flask-Limiter counts them, in memory by default, in Redis when
``RATELIMIT_STORAGE_URI`` (or ``REDIS_URL``) names one, so that every web process shares the
same counts.
"""

from __future__ import annotations

import io
import ipaddress
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import Flask, Response, current_app, g, request, session
from flask_limiter import Limiter
from limits import parse
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.wsgi import ClosingIterator

from webapp.core.errors import TooMany

#: Bytes of move text one client may send a minute (a move is a few bytes; this is over
#: 10,000 moves a minute).
MOVE_BYTES = "400000 per minute"
#: New players one client may start an hour (the BUDGET_NEW_PLAYERS setting): counted when a
#: visitor first acts, never for reading, so a class or an office behind one address plays.
NEW_PLAYERS = "100 per hour"


F = TypeVar("F", bound=Callable[..., Any])


def limit(name: str, default: str, message: str, **options: Any) -> Callable[[F], F]:
    """Declare, beside a route (under its route decorator), what one client may ask of it:
    ``default`` (e.g. "60 per hour"), or what the setting ``BUDGET_<NAME>`` says; ``message``
    is what the player reads once it is spent. ``options`` go to Flask-Limiter (``cost``,
    ``scope``). ``init_app`` puts every declared limit on its view."""

    def declare(view: F) -> F:
        view.__dict__.setdefault("budgets", []).append((name, default, message, options))
        return view

    return declare


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


def move_bytes() -> int:
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
        # The limiter's own strategy, fixed windows: a cost is one increment.
        return limits.limiter, parse(current_app.config.get(self.setting) or self.default)

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
            raise TooMany(self.message)

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
    """What each client's requests cost this process lately: milliseconds of its time in
    all, decaying by half every ``half_life`` seconds, and a request's cost on average. A
    client is the player of a verified cookie, else the address (many players may share
    one)."""

    def __init__(self, half_life: float = 5.0):
        self.half_life = half_life
        self._used: dict[str, tuple[float, float, float]] = {}  # client -> (ms, when, mean)
        self._lock = threading.Lock()

    def used(self, client: str, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        ms, when, _mean = self._used.get(client, (0.0, now, 0.0))
        return ms * 0.5 ** ((now - when) / self.half_life)

    def request_ms(self, client: str) -> float:
        """What one of this client's requests has cost lately, on average."""
        return self._used.get(client, (0.0, 0.0, 0.0))[2]

    def asked(self, client: str) -> float:
        """Count a request as it arrives, at what this client's requests usually cost (1 ms
        at least), so what a client asks counts whether or not it is served: a flood
        that is mostly refused is not lighter than a player who is served. The estimate."""
        estimate = max(1.0, self.request_ms(client))
        now = time.monotonic()
        with self._lock:
            _ms, _when, mean = self._used.get(client, (0.0, now, 0.0))
            self._used[client] = (self.used(client, now) + estimate, now, mean)
            self._forget()
        return estimate

    def spent(self, client: str, ms: float, estimate: float = 0.0) -> None:
        """Count what a served request cost (less what ``asked`` counted for it)."""
        now = time.monotonic()
        with self._lock:
            used, _when, mean = self._used.get(client, (0.0, now, ms))
            mean = ms if mean == 0.0 else 0.8 * mean + 0.2 * ms
            self._used[client] = (self.used(client, now) + ms - estimate, now, mean)
            self._forget()

    def _forget(self) -> None:
        if len(self._used) > 100_000:  # forget the lightest half
            kept = sorted(self._used.items(), key=lambda item: item[1][0])[50_000:]
            self._used = dict(kept)


class Slots:
    """Requests the app works on at once, and who goes next.

    The server process runs one thread of Python at a time: with a dozen requests in hand,
    a move's few milliseconds of work take a dozen times as long. So at most ``size``
    requests are worked on at once, and of them at most ``costly_size`` from clients whose
    requests cost much each (a move costs a few milliseconds; a flood's replay of a long
    game, tens): a cheap request then shares the interpreter with one costly one at most.
    The others wait their turn, the client that used the least lately first. A request
    waits at most ``max_wait`` seconds, and at most ``max_waiting`` wait at once (past that
    the heaviest waiting is turned away): then it is refused, which also slows a flood that
    asks again at once."""

    def __init__(
        self, size: int = 2, costly_size: int = 1, max_wait: float = 1.0, max_waiting: int = 32
    ):
        self.size = size
        self.costly_size = costly_size
        self.max_wait = max_wait
        self.max_waiting = max_waiting
        self.busy = 0
        self.costly_busy = 0
        self._waiting: list[tuple[float, int, bool]] = []  # (priority, ticket, costly)
        self._refused: set[int] = set()
        self._patient: set[int] = set()
        self._tickets = itertools.count()
        self._changed = threading.Condition()

    def _fits(self, costly: bool) -> bool:
        return self.busy < self.size and (not costly or self.costly_busy < self.costly_size)

    def _take(self, costly: bool) -> bool:
        self.busy += 1
        self.costly_busy += costly
        return True

    def enter(self, priority: float, costly: bool = False, patient: bool = False) -> bool:
        """Wait for a turn; False when refused (waited too long, or turned away). A
        ``patient`` request (a light client's) waits five times as long and is never the one
        turned away. A True must be followed by ``leave(costly)``."""
        with self._changed:
            if self._fits(costly) and not self._waiting:
                return self._take(costly)
            ticket = (priority, next(self._tickets), costly)
            if len(self._waiting) >= self.max_waiting:
                heaviest = max(
                    (held for held in self._waiting if held[1] not in self._patient),
                    default=None,
                )
                if heaviest is None or (heaviest < ticket and not patient):
                    return False
                self._waiting.remove(heaviest)
                self._refused.add(heaviest[1])
                self._changed.notify_all()
            self._waiting.append(ticket)
            self._waiting.sort()
            if patient:
                self._patient.add(ticket[1])
            try:
                return self._wait(ticket, costly, self.max_wait * (5 if patient else 1))
            finally:
                self._patient.discard(ticket[1])

    def _wait(self, ticket: tuple[float, int, bool], costly: bool, seconds: float) -> bool:
        """Wait in line (``enter`` holds the lock) until ``ticket``'s turn, or refusal."""
        deadline = time.monotonic() + seconds
        while True:
            if ticket[1] in self._refused:
                self._refused.discard(ticket[1])
                return False
            # The lightest waiting request that fits now goes first.
            first = next((held for held in self._waiting if self._fits(held[2])), None)
            if first == ticket:
                self._waiting.remove(ticket)
                self._changed.notify_all()
                return self._take(costly)
            left = deadline - time.monotonic()
            if left <= 0:
                self._waiting.remove(ticket)
                self._changed.notify_all()
                return False
            self._changed.wait(left)

    def leave(self, costly: bool = False) -> None:
        with self._changed:
            self.busy -= 1
            self.costly_busy -= costly
            self._changed.notify_all()


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

    def __init__(self, app: Flask, wsgi_app: Any, slots: Slots):
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
        if not self.slots.enter(priority, costly, patient=light):
            return None
        return Turn(self.slots, priority, costly)

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
                return player
        return address_key(environ.get("REMOTE_ADDR", ""))


class Turn:
    """One request's turn in ``Slots``: given back when its answer is sent, and for the time
    the request waits on a solver's child (``outside``)."""

    def __init__(self, slots: Slots, priority: float, costly: bool = False):
        self.slots = slots
        self.priority = priority
        self.costly = costly
        self.held = True

    def end(self) -> None:
        if self.held:
            self.held = False
            self.slots.leave(self.costly)

    @contextmanager
    def outside(self) -> Iterator[None]:
        self.end()
        try:
            yield
        finally:
            # Back in line, ahead of no one: if no turn comes, the answer is still given.
            self.held = self.slots.enter(self.priority, self.costly) or self.held


@contextmanager
def socket_turn() -> Iterator[bool]:
    """A turn for a solver socket's opening work (its snapshot: a socket is not counted in
    turns for its whole life): yields False, doing nothing, when the site is too busy. The
    opening is charged as the turn ends, the stream when the socket closes: a flood of
    openings whose streams were closed by the caps used to look as light as a new player,
    and went before every player at the door."""
    gate: LoadGate | None = current_app.extensions.get("puzzlelab.gate")
    if gate is None:
        yield True
        return
    turn = gate.take(request.environ, request.environ.get("puzzlelab.load_key") or client_key())
    if turn is None:
        yield False
        return
    try:
        yield True
    finally:
        turn.end()
        charge_so_far()


@contextmanager
def waiting_elsewhere() -> Iterator[None]:
    """Give up this request's turn while it waits on something that is not this process
    (a solver's child, a worker): others are worked on meanwhile."""
    turn: Turn | None = request.environ.get("puzzlelab.turn")
    if turn is None or not turn.held:
        yield
        return
    with turn.outside():
        yield


BUSY_MESSAGE = (
    "The server is busy, and your network has asked a lot of it in the last seconds; "
    "please wait a few seconds."
)


def _start_clock() -> Response | None:
    if request.endpoint == "static" or not limiter().enabled:
        return None  # files are cheap and cached
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
    charge_so_far()
    g.pop("cpu_started", None)


def charge_so_far() -> None:
    """Charge this request's client the server time it took until now, and count on from
    here (a socket's opening is charged as it opens, its stream when it closes)."""
    started = g.get("cpu_started")
    client = g.get("load_client")
    if started is None or client is None:
        return
    now = time.thread_time()
    g.cpu_started = now
    spent = (now - started) * 1000
    # What the door counted for the request as it came is taken off its first charge only.
    estimate = request.environ.pop("puzzlelab.estimate", 0.0)
    current_app.extensions["puzzlelab.load"].spent(client, spent, estimate)
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
    # Behind the proxy fix, which puts the client's address in REMOTE_ADDR first. Turns
    # (LOAD_SHEDDING, on by default) are off in the Flask test client's apps, whose every
    # player is the test process at machine speed.
    app.extensions["puzzlelab.load"] = Load()
    if app.config.get("LOAD_SHEDDING", not app.testing) not in (False, "false", "0", 0):
        slots = Slots(
            int(app.config.get("LOAD_SLOTS", 2)),
            int(app.config.get("LOAD_COSTLY_SLOTS", 1)),
            float(app.config.get("LOAD_MAX_WAIT", 1.0)),
        )
        gate = app.extensions["puzzlelab.gate"] = LoadGate(app, app.wsgi_app, slots)
        app.wsgi_app = gate  # type: ignore[method-assign]
    if proxies:
        # The address and the scheme only: the Host header is the browser's own (the socket
        # checks its Origin against it), and docs/nginx.conf passes it through unchanged.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)
    storage = app.config.get("RATELIMIT_STORAGE_URI") or app.config.get("REDIS_URL") or "memory://"
    limits = Limiter(
        client_key,
        app=app,
        storage_uri=storage,
        # One counter a limit and window: a moving window keeps an entry
        # per unit, so counting move bytes kept up to 400,000 per client, and expiring them
        # took a seventh of the server's time under a flood of long moves.
        strategy="fixed-window",
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
    # After the views: every limit declared beside a route goes on its view.
    declared = 0
    for endpoint, view in list(app.view_functions.items()):
        for name, default, message, options in getattr(view, "budgets", ()):
            setting = f"BUDGET_{name.upper()}"

            def value(setting: str = setting, default: str = default) -> str:
                return current_app.config.get(setting) or default

            view = limits.limit(value, error_message=message, **options)(view)
            declared += 1
        app.view_functions[endpoint] = view
    if not declared:
        raise RuntimeError("budgets.init_app runs after the views are registered")


class TooManyPlayers(TooMany):
    def __init__(self) -> None:
        super().__init__(
            "Many new players have started playing from your network this hour, so this "
            "one cannot be kept; try again in a while. Reading levels and replays is open."
        )
