"""The admission door's scheduling: what each client's requests cost the server lately, and
which request is worked on next. Flask-free; webapp/web/door.py puts it in front of the app.

The server process runs one thread of Python at a time, so the few requests worked on at once
are chosen: the client that used the least lately first, a costly client's requests in a lane
of their own, and cheap-but-many readers in a share of their own, so a player who moves is
never behind them.
"""

from __future__ import annotations

import itertools
import threading
import time


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

    Anonymous reading (pages asked for without a player's cookie) is one share of the site,
    whoever asks: at most ``reading_size`` such requests at once, and every other request
    waiting goes before them. Ten addresses each reading cheap replay pages look light one
    by one, and used to take the turns of a player who moves; now they take turns among
    themselves in their lane, and a player's move shares the interpreter with one of them
    at most.

    The others wait their turn, the client that used the least lately first. A request
    waits at most ``max_wait`` seconds, and at most ``max_waiting`` wait at once (past that
    the heaviest waiting is turned away, anonymous reading first): then it is refused, which
    also slows a flood that asks again at once."""

    def __init__(
        self,
        size: int = 2,
        costly_size: int = 1,
        max_wait: float = 1.0,
        max_waiting: int = 32,
        reading_size: int = 1,
    ):
        self.size = size
        self.costly_size = costly_size
        self.reading_size = reading_size
        self.max_wait = max_wait
        self.max_waiting = max_waiting
        self.busy = 0
        self.costly_busy = 0
        self.reading_busy = 0
        # Waiting: (reading, priority, ticket, costly), in that order: players before
        # anonymous reading, then the lightest first.
        self._waiting: list[tuple[bool, float, int, bool]] = []
        self._refused: set[int] = set()
        self._patient: set[int] = set()
        self._tickets = itertools.count()
        self._changed = threading.Condition()

    def _fits(self, costly: bool, reading: bool = False) -> bool:
        return (
            self.busy < self.size
            and (not costly or self.costly_busy < self.costly_size)
            and (not reading or self.reading_busy < self.reading_size)
        )

    def _take(self, costly: bool, reading: bool = False) -> bool:
        self.busy += 1
        self.costly_busy += costly
        self.reading_busy += reading
        return True

    def enter(
        self, priority: float, costly: bool = False, patient: bool = False, reading: bool = False
    ) -> bool:
        """Wait for a turn; False when refused (waited too long, or turned away). A
        ``patient`` request (a light client's) waits five times as long and is never the one
        turned away, unless it is anonymous ``reading`` and a player's request needs its
        place. A True must be followed by ``leave(costly, reading)``."""
        with self._changed:
            if self._fits(costly, reading) and not self._waiting:
                return self._take(costly, reading)
            ticket = (reading, priority, next(self._tickets), costly)
            if len(self._waiting) >= self.max_waiting:
                heaviest = max(
                    (
                        held
                        for held in self._waiting
                        if held[2] not in self._patient or (held[0] and not reading)
                    ),
                    default=None,
                )
                if heaviest is None or (heaviest < ticket and not patient):
                    return False
                self._waiting.remove(heaviest)
                self._refused.add(heaviest[2])
                self._changed.notify_all()
            self._waiting.append(ticket)
            self._waiting.sort()
            if patient:
                self._patient.add(ticket[2])
            try:
                return self._wait(ticket, self.max_wait * (5 if patient else 1))
            finally:
                self._patient.discard(ticket[2])

    def _wait(self, ticket: tuple[bool, float, int, bool], seconds: float) -> bool:
        """Wait in line (``enter`` holds the lock) until ``ticket``'s turn, or refusal."""
        deadline = time.monotonic() + seconds
        reading, _priority, number, costly = ticket
        while True:
            if number in self._refused:
                self._refused.discard(number)
                return False
            # The first waiting request that fits now goes first.
            first = next((held for held in self._waiting if self._fits(held[3], held[0])), None)
            if first == ticket:
                self._waiting.remove(ticket)
                self._changed.notify_all()
                return self._take(costly, reading)
            left = deadline - time.monotonic()
            if left <= 0:
                self._waiting.remove(ticket)
                self._changed.notify_all()
                return False
            self._changed.wait(left)

    def leave(self, costly: bool = False, reading: bool = False) -> None:
        with self._changed:
            self.busy -= 1
            self.costly_busy -= costly
            self.reading_busy -= reading
            self._changed.notify_all()
