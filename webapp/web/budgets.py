"""What one client may ask of the site, counted by its address, not by its cookie: the
Flask side of the budgets declared in webapp/core/budgets.py, and the door in front of the app.

A route spends a budget (``@spends``, beside its route); every route that spends one budget
counts against one counter (Flask-Limiter's shared limits, scoped by the budget's name):
before, each route counted its own, and a budget spent on two routes gave twice what its
setting said. Allowances (priced by cost) are charged by ``charge``. Flask-Limiter counts
them, in memory by default, in Redis when ``RATELIMIT_STORAGE_URI`` (or ``REDIS_URL``) names
one, so every web process shares the same counts. The client is its address
(webapp/core/clients.py); behind a proxy, the address the proxy saw, taken from
X-Forwarded-For only when ``PROXIES`` says how many proxies stand in front (werkzeug's
ProxyFix): otherwise anyone could claim any address.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from flask import Flask, Response, current_app, g, request, session
from flask_limiter import Limiter
from limits import parse
from werkzeug.middleware.proxy_fix import ProxyFix

from webapp.core.budgets import CPU, NEW_PLAYERS, Allowance, Budget
from webapp.core.clients import address_key
from webapp.core.door import Load, Slots
from webapp.core.errors import TooMany
from webapp.web.door import LoadGate, Turn

F = TypeVar("F", bound=Callable[..., Any])


def spends(
    budget: Budget, cost: Callable[[], int] | None = None, **options: Any
) -> Callable[[F], F]:
    """Declare, beside a route (under its route decorator), that it spends ``budget``:
    ``cost`` (a callable) when a request spends more than one. ``options`` go to
    Flask-Limiter (``methods``: only requests of these methods spend it). ``init_app`` puts
    every declared budget on its view, one counter a budget whatever the route."""

    def declare(view: F) -> F:
        extra = {**options, **({"cost": cost} if cost is not None else {})}
        view.__dict__.setdefault("budgets", []).append((budget, extra))
        return view

    return declare


def client_key() -> str:
    """The client a request comes from: its IPv4 address, or the /56 of its IPv6 address."""
    return address_key(request.remote_addr or "")


def move_bytes() -> int:
    """The bytes of move text a request carries (a pipelined request carries several)."""
    if request.form.get("action") != "move":
        return 0
    return sum(len(text) for text in request.form.getlist("moves"))


def _counted(allowance: Allowance) -> tuple[Any, Any] | None:
    limits = limiter()
    if not limits.enabled:
        return None
    # The limiter's own strategy, fixed windows: a cost is one increment.
    return limits.limiter, parse(current_app.config.get(allowance.setting) or allowance.default)


def left(allowance: Allowance) -> bool:
    """Whether this client's allowance is not yet spent."""
    counted = _counted(allowance)
    try:
        return counted is None or counted[0].test(counted[1], allowance.name, client_key())
    except Exception:  # noqa: BLE001 - the counts' store is down: play goes on
        return True


def check(allowance: Allowance) -> None:
    """Refuse the request (429, the message) when this client's allowance is spent."""
    if not left(allowance):
        raise TooMany(allowance.message)


def charge(allowance: Allowance, cost: int) -> bool:
    """Count ``cost`` against this client; False when it did not fit (it is still spent)."""
    counted = _counted(allowance)
    if counted is None or cost <= 0:
        return True
    try:
        return counted[0].hit(counted[1], allowance.name, client_key(), cost=cost)
    except Exception:  # noqa: BLE001 - the counts' store is down: play goes on
        return True


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


def _start_clock() -> Response | None:
    if request.endpoint == "static" or not limiter().enabled:
        return None  # files are cheap and cached
    client = request.environ.get("puzzlelab.load_key") or session.get("player") or client_key()
    if not left(CPU):
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
    charge(CPU, round(spent))


def limiter() -> Limiter:
    return current_app.extensions["puzzlelab.limiter"]


def new_player_left() -> bool:
    """Whether this client may start another new player (spending nothing: a new player is
    counted by ``count_new_player`` once its first action is accepted). With the counts'
    store unreachable (Redis down), it may."""
    limits = limiter()
    if not limits.enabled:
        return True
    try:
        budget = current_app.config.get(NEW_PLAYERS.setting) or NEW_PLAYERS.default
        return limits.limiter.test(parse(budget), "new-player", client_key())
    except Exception:  # noqa: BLE001 - any storage failure: play goes on without this count
        return True


def count_new_player() -> None:
    """Count one new player for this client: its first action was accepted."""
    limits = limiter()
    if not limits.enabled:
        return
    try:
        budget = current_app.config.get(NEW_PLAYERS.setting) or NEW_PLAYERS.default
        limits.limiter.hit(parse(budget), "new-player", client_key())
    except Exception:  # noqa: BLE001 - any storage failure: play goes on without this count
        return


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
            reading_size=int(app.config.get("LOAD_READING_SLOTS", 1)),
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
        for budget, options in getattr(view, "budgets", ()):

            def value(budget: Budget = budget) -> str:
                return current_app.config.get(budget.setting) or budget.default

            # Scoped by the budget's name, not the route: one counter, every route spending it.
            view = limits.shared_limit(
                value, scope=budget.name, error_message=budget.message, **options
            )(view)
            declared += 1
        app.view_functions[endpoint] = view
    if not declared:
        raise RuntimeError("budgets.init_app runs after the views are registered")
