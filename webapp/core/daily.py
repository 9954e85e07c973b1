"""The daily puzzle's rules, Flask-free: the seed of a day, the level a day gets, and a streak.

The seed is an HMAC of the date under a key derived from the instance's secret: with the
date alone as the seed, today's and tomorrow's optimal solutions came from the public source
in 0.2 s, and a fresh player posted one and ranked first. The level a day got is stored, so
the day's address stays the same whatever the key does later, and the archive keeps it.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
from collections.abc import Callable, Collection, Mapping

#: Seeds tried for one day before giving up: a seed whose level an earlier day had takes the
#: next one.
ATTEMPTS = 20
ONE_DAY = datetime.timedelta(days=1)


def seed(secret: str | bytes, day: datetime.date, attempt: int = 1) -> str:
    """The ``attempt``-th seed of ``day`` (20 hex digits): unknown without the secret."""
    key = secret.encode() if isinstance(secret, str) else secret
    # A key of its own, derived from the secret: the secret itself also signs cookies.
    daily_key = hmac.new(key, b"puzzle-lab daily seed", hashlib.sha256).digest()
    message = f"{day.isoformat()}#{attempt}".encode()
    return hmac.new(daily_key, message, hashlib.sha256).hexdigest()[:20]


def pick(
    secret: str | bytes,
    day: datetime.date,
    known: Mapping[str, str],
    make: Callable[[str], str],
) -> str | None:
    """The level id of ``day``: the one stored (``known``: level id by ISO date), else the
    first that ``make(seed)`` gives from the day's seeds which no other day had; None when
    every attempt repeated one."""
    stamp = day.isoformat()
    if stamp in known:
        return known[stamp]
    others = {level for other, level in known.items() if other != stamp}
    for attempt in range(1, ATTEMPTS + 1):
        level = make(seed(secret, day, attempt))
        if level not in others:
            return level
    return None


def streak(
    today: datetime.date, puzzles: Mapping[datetime.date, str], solved: Collection[str]
) -> int:
    """Days in a row, ending today (or yesterday, while today's is not solved yet), whose
    puzzle (``puzzles``: level key by date) the player solved on their own (``solved``). A
    day with no puzzle, or one not solved, ends it."""
    day = today if puzzles.get(today) in solved else today - ONE_DAY
    count = 0
    while day in puzzles and puzzles[day] in solved:
        count += 1
        day -= ONE_DAY
    return count
