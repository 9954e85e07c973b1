"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2012), as lichess rates its
puzzles: a player and a level are two rated sides, and a player's first unassisted attempt at
a level is one game between them (a win for the player when they solve it on their own, a
loss when they were shown a solution: the solver's, a replay's, a hint's move).

A level's rating is moved only by players with a history (``trusted``) and by no client (an
address) more than a bounded amount a day (``first_attempt``): twenty fresh cookies from one
address moved a level from 1500 to 900 in seconds, and ratings order the collections and
"a level for me".

Written out here against the paper's worked example (tests/test_records.py): the update is
sixty lines, and the one package that offers it wraps it in mutable player objects.
"""

from __future__ import annotations

import math
from typing import Any

#: The scale's centre and the factor between Glicko's scale and Glicko-2's (the paper's 173.7178).
CENTRE, SCALE = 1500.0, 173.7178
#: A new side: deviation 350, volatility 0.06; the system constant tau (the paper's 0.5).
NEW_RD, NEW_VOLATILITY, TAU = 350.0, 0.06, 0.5
#: The least deviation kept (lichess keeps its puzzle ratings movable the same way), and the
#: most a rating moves on one attempt.
MIN_RD, MOST_CHANGE = 45.0, 300.0

#: A player moves levels' ratings once they solved this many other levels on their own, the
#: first at least this long ago: a fresh cookie moves only its own rating.
TRUSTED_WINS, TRUSTED_SECONDS = 3, 86400.0
#: The most one client (an address) moves one level's rating, and all levels' together, in
#: a UTC day (a whole school behind one address still moves a level, by this much).
CLIENT_LEVEL_POINTS, CLIENT_DAY_POINTS = 100.0, 400.0

Rating = tuple[float, float, float]  # rating, deviation, volatility


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(side: Rating, games: list[tuple[Rating, float]]) -> Rating:
    """``side``'s rating after one rating period of ``games`` (opponent, score 1/0.5/0),
    by the paper's steps 2 to 8."""
    rating, rd, sigma = side
    mu, phi = (rating - CENTRE) / SCALE, rd / SCALE
    if not games:  # step 6 alone: the deviation grows
        return rating, min(NEW_RD, SCALE * math.sqrt(phi**2 + sigma**2)), sigma
    opponents = [((r - CENTRE) / SCALE, d / SCALE, s) for (r, d, _v), s in games]
    v = 1 / sum(
        _g(phi_j) ** 2 * _expected(mu, mu_j, phi_j) * (1 - _expected(mu, mu_j, phi_j))
        for mu_j, phi_j, _s in opponents
    )
    gain = sum(_g(phi_j) * (s - _expected(mu, mu_j, phi_j)) for mu_j, phi_j, s in opponents)
    delta = v * gain
    sigma = _volatility(delta, phi, v, sigma)
    phi_star = math.sqrt(phi**2 + sigma**2)
    phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu = mu + phi**2 * gain
    return SCALE * mu + CENTRE, SCALE * phi, sigma


def _volatility(delta: float, phi: float, v: float, sigma: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm (the paper's iteration)."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / TAU**2

    low = a
    if delta**2 > phi**2 + v:
        high = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        high = a - k * TAU
    f_low, f_high = f(low), f(high)
    while abs(high - low) > 1e-6:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2
        high, f_high = c, f_c
    return math.exp(low / 2)


def attempt(player: Rating, level: Rating, solved: bool) -> tuple[Rating, Rating]:
    """Both sides after one first attempt (a game between them), each change bounded."""
    score = 1.0 if solved else 0.0
    return (
        _bounded(player, update(player, [(level, score)])),
        _bounded(level, update(level, [(player, 1.0 - score)])),
    )


def trusted(wins: int, first_win: float | None, now: float) -> bool:
    """Whether a player's first attempts move levels' ratings: TRUSTED_WINS levels solved on
    their own (other than this one), the first TRUSTED_SECONDS ago or more."""
    return wins >= TRUSTED_WINS and first_win is not None and now - first_win >= TRUSTED_SECONDS


def first_attempt(
    player: Rating,
    level: Rating,
    solved: bool,
    trusted: bool,
    moved_here: float = 0.0,
    moved_today: float = 0.0,
) -> tuple[Rating, Rating | None, float]:
    """One first attempt: the player's new rating; the level's, or None when this attempt
    leaves it as it is (an untrusted player, a client whose allowance for the day is spent);
    and the points the level moved (counted against the client). ``moved_here`` and
    ``moved_today``: what the client moved this level, and all levels, today."""
    mine, its = attempt(player, level, solved)
    allowance = min(CLIENT_LEVEL_POINTS - moved_here, CLIENT_DAY_POINTS - moved_today)
    if not trusted or allowance <= 0:
        return mine, None, 0.0
    change = max(-allowance, min(allowance, its[0] - level[0]))
    return mine, (level[0] + change, its[1], its[2]), abs(change)


def _bounded(before: Rating, after: Rating) -> Rating:
    change = max(-MOST_CHANGE, min(MOST_CHANGE, after[0] - before[0]))
    return before[0] + change, max(MIN_RD, after[1]), after[2]


def new(rating: float = CENTRE) -> Rating:
    return rating, NEW_RD, NEW_VOLATILITY


def predicted(game: Any, optimum: int | None) -> float:
    """Where a level nobody has tried yet starts: a solution twice the game's typical length
    is 400 points harder; a level with no known optimum starts at the centre."""
    if not optimum:
        return CENTRE
    rating = CENTRE + 400 * math.log2(optimum / game.typical_length)
    return max(CENTRE - 700, min(CENTRE + 900, rating))
