"""Compiling the solvers' numba kernels ahead of time.

``warm_all`` runs every kernel once on a tiny input: numba compiles it (tens of seconds on a
new install) or loads it from its cache beside the source (a fraction of a second each).
``python -m webapp warm`` calls it after installing; the solver fork server imports
``webapp.warmed``, which calls it once, so every solver child forked from there starts with
the machine code already in memory.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable

#: Modules with compiled kernels, each with a ``warm_up()``.
KERNELS = (
    "webapp.games.sokoban.kernels",
    "webapp.games.sliding.kernels",
    "webapp.games.vexed.kernels",
)


def warm_all(report: Callable[[str, float], None] | None = None) -> None:
    for name in KERNELS:
        started = time.monotonic()
        importlib.import_module(name).warm_up()
        if report is not None:
            report(name, time.monotonic() - started)
