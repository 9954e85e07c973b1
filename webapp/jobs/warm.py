"""Compiling the solvers' numba kernels ahead of time.

``warm_all`` asks every game to ready its compiled code (``Game.warm_up``): numba compiles it
(tens of seconds on a new install) or loads it from its cache beside the source (a fraction
of a second each). ``python -m webapp warm`` calls it after installing; the solver fork
server imports ``webapp.jobs.warmed``, which calls it once, so every solver child forked from
there starts with the machine code already in memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from webapp import games


def warm_all(report: Callable[[str, float], None] | None = None) -> None:
    for game in games.all_games():
        started = time.monotonic()
        game.warm_up()
        if report is not None:
            report(game.name, time.monotonic() - started)
