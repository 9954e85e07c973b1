"""Per-player rate limits, kept in memory by the one server process (see docs/DEPLOY.md)."""

from __future__ import annotations

import threading
import time
from collections import deque


class RateLimit:
    """At most ``count`` events per ``seconds`` for each key (a moving window)."""

    def __init__(self, count: int, seconds: float, max_keys: int = 100_000):
        self.count = count
        self.seconds = seconds
        self.max_keys = max_keys
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        """Record an event for ``key``; False (and nothing recorded) when over the limit."""
        now = time.monotonic()
        with self._lock:
            events = self._events.get(key)
            if events is None:
                if len(self._events) >= self.max_keys:
                    self._forget_idle(now)
                events = self._events[key] = deque()
            while events and now - events[0] > self.seconds:
                events.popleft()
            if len(events) >= self.count:
                return False
            events.append(now)
            return True

    def _forget_idle(self, now: float) -> None:
        for key in [k for k, v in self._events.items() if not v or now - v[-1] > self.seconds]:
            del self._events[key]
