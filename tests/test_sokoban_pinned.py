"""The fast solver's searches pinned by their expansions on cheap levels.

How the searches are put together (the portfolio, its members, the compiled search's
configuration) may change; what they search must not. Each count here was measured on the
code before a change that was meant to search the same positions, so a refactor that drifts
fails here rather than in a benchmark weeks later. A count that changes on purpose (a new
bound, a new order) is measured again and updated with the change that explains it.
"""

from __future__ import annotations

import pytest

from tests.conftest import LEVELS
from webapp.games.sokoban import GAME, compiled, solver
from webapp.games.sokoban.solver import (
    BACKWARD,
    FORWARD,
    MOBILE,
    PLANNED,
    Kind,
    Setting,
    Tuning,
    run_fast,
)
from webapp.games.solving import check_solution
from webapp.search import Limits, Monitor

MICROBAN = GAME.parse((LEVELS / "sokoban" / "microban.xsb").read_text())
MICROBAN2 = GAME.parse((LEVELS / "sokoban" / "microban2.xsb").read_text())
LIMITS = Limits(seconds=60, nodes=None, memory_mb=2048)


class Ticks:
    """A clock that moves one second each time it is read: every slice of a compiled search
    then seems to take SLICE_SECONDS, so slices keep their first size and the turns of a
    portfolio do not depend on how fast the machine is."""

    now = 0.0

    @classmethod
    def perf_counter(cls) -> float:
        cls.now += 1.0
        return cls.now


@pytest.fixture(autouse=True)
def fixed_slices(monkeypatch) -> None:
    monkeypatch.setattr(compiled, "time", Ticks)
    monkeypatch.setattr(compiled, "SLICE_SECONDS", 1.0)
    # Shortening the solution found (shorten.py) goes to its end however slow the machine,
    # so that the pushes pinned do not depend on it.
    monkeypatch.setattr(solver, "SHORTEN_LEAST", 60.0)
    # The optimizer after it (optimize.py) runs for a share of the time taken: not here.
    monkeypatch.setattr(solver, "OPTIMIZE_SHARE", 0.0)


def _solve(level, settings) -> tuple[int, int, int]:
    start = GAME.start(level)
    result = run_fast(level, start, Monitor(LIMITS), settings)
    assert result.status == "solved"
    assert check_solution(GAME, level, start, result.moves) is None
    return result.expanded, result.generated, result.extra["pushes"]


@pytest.mark.parametrize(
    ("number", "pinned"),
    [
        (93, (2615, 8530, 52)),
        (114, (586, 1533, 66)),  # ROOM_PORTFOLIO
        (139, (23910, 38072, 126)),  # the aimed search sets off
        (141, (283, 401, 56)),  # ROOM_PORTFOLIO
        (145, (4134, 12109, 18)),
        (150, (66, 263, 45)),  # parked: solved in the plan search's first run (packing.py)
    ],
)
def test_the_default_portfolio_searches_as_pinned_on_microban(number: int, pinned) -> None:
    assert _solve(MICROBAN[number - 1], None) == pinned


@pytest.mark.parametrize(("number", "pinned"), [(76, (588, 3200, 40)), (120, (6813, 22541, 100))])
def test_the_default_portfolio_searches_as_pinned_on_microban_ii(number: int, pinned) -> None:
    assert _solve(MICROBAN2[number - 1], None) == pinned


SETTINGS = {
    "forward": (FORWARD,),
    "backward": (BACKWARD,),
    "plan": (PLANNED,),
    "open floor": (MOBILE,),
    "forward and backward": (FORWARD, BACKWARD),
    "cpython forward": (Setting(Kind.CPYTHON_FORWARD),),
    "cpython backward": (Setting(Kind.CPYTHON_BACKWARD),),
    "cpython both": (
        Setting(Kind.CPYTHON_FORWARD, Tuning(macros=False)),
        Setting(Kind.CPYTHON_BACKWARD),
    ),
}


@pytest.mark.parametrize("name", list(SETTINGS))
def test_each_kind_of_search_searches_as_pinned(name: str) -> None:
    found = {number: _solve(MICROBAN[number - 1], SETTINGS[name]) for number in PINNED[name]}
    assert found == PINNED[name]


#: Microban levels and (expanded, generated, pushes) for each setting above. The pushes are
#: those left after shortening (shorten.py, commit of 2026-11-26): the plan search's 29 on
#: Microban 13 come down to 21, the CPython backward search's 10 on Microban 5 to 6.
PINNED: dict[str, dict[int, tuple[int, int, int]]] = {
    "forward": {5: (7, 52, 6), 8: (56, 66, 32), 13: (25, 52, 21)},
    "backward": {8: (87, 111, 34), 13: (177, 241, 27), 93: (918, 2472, 38)},
    "plan": {8: (54, 62, 34), 13: (33, 64, 21), 93: (2615, 8530, 52)},
    "open floor": {5: (7, 52, 6), 8: (63, 70, 34), 13: (66, 104, 21)},
    "forward and backward": {8: (56, 66, 32), 13: (25, 52, 21), 93: (5010, 14501, 42)},
    "cpython forward": {5: (6, 42, 6), 8: (41, 50, 32), 13: (26, 52, 21)},
    "cpython backward": {5: (38, 115, 6), 8: (84, 103, 32), 13: (65, 118, 27)},
    "cpython both": {5: (6, 42, 6), 8: (68, 77, 32), 13: (26, 52, 21)},
}
