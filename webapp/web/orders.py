"""Levels being made to order, and levels made ahead: what stands between a request for a
new level and the solvers, so that no request holds a server thread waiting on them for
long. Flask-free (the making views, webapp/web/making.py, drive it).

Making a hard level is seconds of a solver's time, and the solvers are few (two on a small
machine): nine addresses asking for expert levels within their budgets once held every one
of the server's 128 threads, each waiting up to a minute for a solver, and pages timed out.
Here:

- a level is made once per (game, difficulty, seed, size): a second request for it while it
  is being made waits on the same making, and a made one is found in the store;
- at most ``max_waiting`` requests wait on makings at once, each at most a short bound; a
  request past the cap is turned away at once (503, come back in a few seconds), and one
  whose level is not made within its bound is answered "still being made", while the making
  goes on without it (its level is kept, and the page's next look finds it);
- at most ``max_making`` makings are under way at once, so the threads they hold and the
  solvers they take are bounded too (across every web process, with ``site`` permits);
- ``Pantry`` keeps a few levels of the harder bands made ahead, handed out to requests
  without a seed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")


class Permits(Protocol):
    """Makings at once across every web process (webapp.jobs.scaled.Permits, in Redis)."""

    def take(self) -> str | None: ...

    def give(self, token: str) -> None: ...


class Full(Exception):
    """Too many requests wait on makings already: this one is turned away at once."""


class Orders(Generic[T]):
    """Makings under way, one per key, and the requests waiting on them (bounded both)."""

    def __init__(self, max_waiting: int = 8, max_making: int = 16, site: Permits | None = None):
        """``site``: the permits every web process shares, when there are several (the
        scaled mode): a making takes one as well, so the cap holds for the whole site."""
        self.max_waiting = max_waiting
        self.max_making = max_making
        self.site = site
        self.waiting = 0
        self._making: dict[Hashable, Future[T]] = {}
        self._lock = threading.Lock()

    def under_way(self, key: Hashable) -> bool:
        """Whether ``key`` is being made now."""
        with self._lock:
            return key in self._making

    def making(self) -> int:
        """Makings under way now."""
        with self._lock:
            return len(self._making)

    def start(self, key: Hashable, make: Callable[[], T]) -> Future[T]:
        """The making of ``key``: the one under way, or ``make`` started now in a thread of
        its own. Full when ``max_making`` are under way."""
        with self._lock:
            return self._start(key, make)

    def _start(self, key: Hashable, make: Callable[[], T]) -> Future[T]:
        future = self._making.get(key)
        if future is not None:
            return future
        if len(self._making) >= self.max_making:
            raise Full
        permit = self.site.take() if self.site is not None else None
        if self.site is not None and permit is None:
            raise Full  # the other web processes hold every making's place
        future = self._making[key] = Future()

        def run() -> None:
            try:
                future.set_result(make())
            except BaseException as error:  # noqa: BLE001 - handed to whoever waits on it
                future.set_exception(error)
            finally:
                if permit is not None:
                    self.site.give(permit)  # type: ignore[union-attr]
                with self._lock:
                    self._making.pop(key, None)

        threading.Thread(target=run, name=f"making {key}", daemon=True).start()
        return future

    def get(self, key: Hashable, make: Callable[[], T], wait: float) -> T | None:
        """What the making of ``key`` gives, waiting at most ``wait`` seconds for it (None
        when it is not done by then: it goes on); the making's own error if it failed; Full,
        at once, when ``max_waiting`` requests wait already or too many makings are under
        way."""
        with self._lock:
            if self.waiting >= self.max_waiting:
                raise Full
            future = self._start(key, make)
            self.waiting += 1
        try:
            return future.result(timeout=wait)
        except FutureTimeout:
            return None
        finally:
            with self._lock:
                self.waiting -= 1


class Pantry:
    """Seeds whose levels are made and kept already, a few per (game, difficulty, size), each
    handed out once: a request without a seed takes one, and its level is found made."""

    def __init__(self, per_band: int = 3):
        self.per_band = per_band
        self._seeds: dict[tuple[str, str, str], list[str]] = {}
        self._lock = threading.Lock()

    def take(self, game: str, difficulty: str, size: str = "") -> str | None:
        with self._lock:
            seeds = self._seeds.get((game, difficulty, size))
            return seeds.pop(0) if seeds else None

    def put(self, game: str, difficulty: str, size: str, seed: str) -> None:
        with self._lock:
            seeds = self._seeds.setdefault((game, difficulty, size), [])
            if len(seeds) < self.per_band and seed not in seeds:
                seeds.append(seed)

    def short(self, bands: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
        """Those of ``bands`` with fewer than ``per_band`` seeds ready, emptiest first."""
        with self._lock:
            counts = {band: len(self._seeds.get(band, ())) for band in bands}
        return sorted((b for b in bands if counts[b] < self.per_band), key=lambda b: counts[b])


class Remembered:
    """The last ``most`` levels made here, by key: a level whose board another seed made
    first is kept in the store under that seed only, and would otherwise be made again at
    every request for this one."""

    def __init__(self, most: int = 10_000):
        self._kept: OrderedDict[Hashable, str] = OrderedDict()
        self._most = most
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> str | None:
        with self._lock:
            return self._kept.get(key)

    def put(self, key: Hashable, level_id: str) -> None:
        with self._lock:
            self._kept[key] = level_id
            if len(self._kept) > self._most:
                self._kept.popitem(last=False)
