"""What a job asks a solver process to do, as types: a ``Solve``, a ``Check``, an
``Improve`` or a ``Trace``. The web side builds one, either transport carries it (pickled,
through a pipe or through Redis) and the solver process dispatches on its type
(``webapp.jobs.child``); what comes back travels as itself too: a check's ``Verdict`` in a
``Checked`` result, a trace's expansions in a ``Traced`` one.

Flask-free and light: both the web processes and the solver processes import it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from webapp.checking import Verdict
from webapp.search import Result


class Pool(StrEnum):
    """Where a job waits and runs: the solves' pool, or the hints' (short answers a player
    waits on, so they never wait behind long searches). Its value names the pool's queue
    and lines in Redis."""

    SOLVES = "solve"
    HINTS = "hint"


@dataclass(frozen=True)
class Solve:
    """A search with ``algorithm`` from the position ``moves`` reach from the level's start;
    a ``hint`` is a short one, for the next move, run in the hints' pool."""

    algorithm: str
    moves: tuple[str, ...] = ()
    hint: bool = False

    @property
    def pool(self) -> Pool:
        return Pool.HINTS if self.hint else Pool.SOLVES


@dataclass(frozen=True)
class Check:
    """The editor's verdict on the level (``webapp.checking.check``) within the job's
    limits: the designer waits on it, so it runs in the hints' pool."""

    pool: ClassVar[Pool] = Pool.HINTS


@dataclass(frozen=True)
class Improve:
    """The ``solution`` made shorter in ``metric`` by the game's optimizer."""

    solution: tuple[str, ...]
    metric: str
    pool: ClassVar[Pool] = Pool.SOLVES


@dataclass(frozen=True)
class Trace:
    """A textbook search with ``algorithm`` written out one expansion at a time
    (``webapp.games.solving.StepWriter``), at most ``steps`` of them."""

    algorithm: str
    steps: int = 1000
    pool: ClassVar[Pool] = Pool.SOLVES


#: Every kind of work a job may carry.
Work = Solve | Check | Improve | Trace


@dataclass
class Checked(Result):
    """A check's result: the searches' figures as any result has them, and the verdict."""

    verdict: Verdict | None = None


@dataclass
class Traced(Result):
    """A trace's result: how the search ended, and each expansion it made, in order."""

    steps: list[dict[str, Any]] = field(default_factory=list)


def verdict_of(result: Result | None) -> Verdict | None:
    """The verdict a check's result carries; None for any other result (a check that never
    ran: cancelled while queued, its process lost)."""
    return result.verdict if isinstance(result, Checked) else None
