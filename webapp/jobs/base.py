"""What every job runner shares: the request, the ``Job`` handle, who may queue what, the
order queued jobs start in, and the runner interface itself.

Two transports implement ``JobRunner``: ``webapp.jobs.embedded`` (the web process's own fork
server, ``make run``) and ``webapp.jobs.scaled`` (RQ workers through Redis, ``make cluster``).
python-chess's engine protocol over UCI and XBoard is the model: the views hold a ``Job`` and
ask the runner, and never learn which transport carries it.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from webapp.search import Limits, Progress, Result

#: Seconds between the cancel flag and SIGTERM, and between SIGTERM and SIGKILL.
STOP_GRACE = 1.5
#: A solve for a page waits at least this long for the page's socket to open (a loaded
#: machine may take a few seconds) before it counts as orphaned.
CONNECT_GRACE = 5.0
#: Progress points kept per solve for the live chart, spread over the whole search.
HISTORY_POINTS = 120


class Thinned:
    """A series of points over a whole run in at most ``capacity``: when full, every other
    point goes and from then on every other point offered is kept, so what is kept spreads
    evenly from the first point to the last at any length (the live chart draws a whole
    search, never its last seconds). The point offered last is always there too."""

    def __init__(self, capacity: int = HISTORY_POINTS):
        self.capacity = max(2, capacity)
        self.kept: list[tuple] = []
        self.every = 1  # keep one point in this many
        self.offered = 0
        self.latest: tuple | None = None

    def append(self, point: tuple) -> None:
        if self.offered % self.every == 0:
            self.kept.append(point)
            if len(self.kept) >= self.capacity:
                self.kept = self.kept[::2]
                self.every *= 2
        self.offered += 1
        self.latest = point

    def extend(self, points: Iterable[tuple]) -> None:
        for point in points:
            self.append(point)

    def clear(self) -> None:
        self.kept, self.every, self.offered, self.latest = [], 1, 0, None

    def load(self, points: Iterable[tuple]) -> None:
        """Hold ``points`` as they are: a series thinned elsewhere (a worker's, by Redis)."""
        self.clear()
        self.kept = list(points)

    def __iter__(self) -> Iterator[tuple]:
        yield from self.kept
        if self.latest is not None and (not self.kept or self.kept[-1] is not self.latest):
            yield self.latest

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Busy(Exception):
    """A solve that cannot start now, with the reason to show the player."""


@dataclass
class Request:
    """What to solve: a level (as its canonical text) and the moves to the start position."""

    game: str
    level_text: str
    moves: list[str]
    algorithm: str
    limits: Limits
    owner: str  # the player's id: one solve per (owner, board)
    board: str  # the board's key: the game's name and the level's key
    #: The module holding the game's ``GAME``, for a game registered from elsewhere.
    game_module: str = ""
    #: Where solvers may keep tables on disk (the instance folder), if anywhere.
    tables_dir: str | None = None
    #: Who asked, for the queue's fairness: the client's address ("" counts as the owner).
    client: str = ""
    #: "solve", or "hint": hints run in a pool of their own, beside the solves.
    kind: str = "solve"
    #: What the child does with the level: "" searches with ``algorithm``; "check" gives the
    #: editor's verdict (``webapp.checking``), carried in the result's ``extra["verdict"]``;
    #: "improve" shortens ``solution`` with the game's optimizer, in the metric ``improve``;
    #: "trace" records the search's first expansions as ``trace`` prints them, in the
    #: result's ``extra["steps"]`` (the step-through view).
    task: str = ""
    solution: list[str] = field(default_factory=list)
    improve: str = ""

    @property
    def queue_key(self) -> str:
        return self.client or self.owner


@dataclass(eq=False)  # a job is itself: compared by identity, as the queues look it up
class Job:
    """One solve, and the handle to it (python-chess's analysis handle is the model): iterate
    it for progress, ``wait`` for the result, ``stop`` it; ``with`` stops it on the way out.

    A transport feeds it (``begin``, ``feed``, ``end``) and gives it a stop callback; the job
    knows nothing else of where its solve runs."""

    id: str
    request: Request
    state: str = "queued"  # queued | running | done
    progress: Progress | None = None
    history: Thinned = field(default_factory=Thinned)
    result: Result | None = None
    #: The solver process's id on the host that runs it, once it runs.
    pid: int | None = None
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    version: int = 0
    _stop: Callable[[Job], None] | None = None
    _changed: threading.Condition = field(default_factory=threading.Condition)

    # -- fed by the transport -----------------------------------------------------------------
    def bump(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    def begin(self, pid: int | None = None) -> None:
        """The solve runs (its process's id, once known)."""
        if self.state == "queued":
            self.state = "running"
            self.started = time.monotonic()
        if pid is not None:
            self.pid = pid
        self.bump()

    def feed(self, progress: Progress) -> None:
        self.progress = progress
        self.history.append((progress.elapsed, progress.expanded, progress.frontier))
        self.bump()

    def end(self, result: Result) -> None:
        self.result = result
        self.state = "done"
        self.finished = time.monotonic()
        self.bump()

    def wait_change(self, seen: int, timeout: float) -> int:
        """Block until the job changes after version ``seen`` (or the timeout); the version."""
        with self._changed:
            if self.version == seen:
                self._changed.wait(timeout)
            return self.version

    # -- the handle ---------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.state == "done"

    def wait(self, timeout: float | None = None) -> Result | None:
        """The result, once the solve ends within ``timeout`` seconds; else None."""
        wait_for(self, lambda job: job.done, float("inf") if timeout is None else timeout)
        return self.result

    def stop(self) -> None:
        """Cancel the solve (queued: at once; running: by flag, then signals)."""
        if self._stop is not None and not self.done:
            self._stop(self)

    def __iter__(self) -> Iterator[Progress]:
        """Each new progress report until the solve ends."""
        seen = -1
        reported = None
        while True:
            seen = self.wait_change(seen, 0.5)
            progress = self.progress
            if progress is not None and progress is not reported:
                reported = progress
                yield progress
            if self.done:
                return

    def __enter__(self) -> Job:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_for(job: Job, predicate: Callable[[Job], bool], timeout: float) -> bool:
    """Block until ``predicate(job)`` holds or the timeout passes (for tests and hints)."""
    deadline = time.monotonic() + timeout
    seen = -1
    while not predicate(job):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        seen = job.wait_change(seen, min(remaining, 0.5))
    return True


@dataclass(frozen=True)
class Admission:
    """Who may queue what, the same over every transport.

    A player has one solve per board and ``per_owner`` going; a client ``per_client_queued``
    waiting; and the last ``reserve`` places of the queue are kept for clients with nothing
    waiting, so a few clients' floods fill it only so far and a newcomer still gets in. Hints
    are counted apart from solves: a full queue of solves never refuses a hint, and a client
    has one hint waiting at most."""

    max_queued: int = 32
    per_owner: int = 3
    per_client_queued: int = 8
    reserve: int = 8

    def check(
        self,
        request: Request,
        *,
        mine_going: int,
        board_taken: bool,
        client_waiting: int,
        queued: int,
    ) -> None:
        """Busy, with what the player reads, unless ``request`` may be queued; the counts are
        of this player's unfinished jobs, this client's waiting ones of the request's kind,
        and all those queued of that kind."""
        if board_taken:
            raise Busy("A solver is already working on this board. Cancel it first, or wait.")
        if mine_going >= self.per_owner:
            raise Busy(
                f"You already have {mine_going} solves going; wait for one to finish or cancel one."
            )
        if request.kind == "hint" and client_waiting:
            raise Busy("A hint is already being worked out.")
        if client_waiting >= self.per_client_queued:
            raise Busy(
                f"{client_waiting} solves from you are waiting for a solver already: wait for "
                "one to start, or cancel one."
            )
        if queued >= self.max_queued:
            raise Busy("Every solver is busy and the queue is full: try again in a minute.")
        if client_waiting and queued >= self.max_queued - self.reserve:
            raise Busy(
                "The solver queue's last places are kept for players with nothing waiting: "
                "wait for one of yours to start."
            )


T = TypeVar("T")


def fair_order(lines: Mapping[str, Iterable[T]], served: Mapping[str, float]) -> list[T]:
    """The order queued jobs start in, given each client's line (in the order they came) and
    when each client was last served: in turns across clients, the one served longest ago
    (or never: a lower number) first."""
    queues = {client: deque(line) for client, line in lines.items()}
    clients = sorted((c for c in queues if queues[c]), key=lambda c: served.get(c, -1))
    order: list[T] = []
    while clients:
        for client in list(clients):
            order.append(queues[client].popleft())
            if not queues[client]:
                clients.remove(client)
    return order


def position_in(order: list[T], item: Hashable) -> int:
    """1-based place of ``item`` in ``order``; 0 when it is not there. (Not list.index: on
    a missing job it raises an error whose message is the job's whole repr.)"""
    for place, queued in enumerate(order, 1):
        if queued is item or queued == item:
            return place
    return 0


class JobRunner(ABC):
    """Every solve of this server, whatever carries it; what the views speak to.

    ``submit`` queues a solve (Busy when ``Admission`` refuses it); queued solves start in
    turns across clients (``fair_order``); hints run in a pool of their own, so a hint never
    waits behind solves; ``watch``/``unwatch`` count the pages following a solve, and one
    nobody follows is cancelled after ``orphan_grace``; ``call`` runs a one-off computation
    (a distance table, a picture's decoding) outside the web process."""

    #: Solves that can run at once.
    max_running: int

    def __init__(
        self,
        *,
        keep_seconds: float = 1800.0,
        orphan_grace: float = 10.0,
        max_queued: int = 32,
        per_owner: int = 3,
        per_client_queued: int = 8,
        reserve: int = 8,
    ):
        #: How long a finished solve is kept for its pages; how long one nobody follows runs.
        self.keep_seconds = keep_seconds
        self.orphan_grace = orphan_grace
        self.admission = Admission(max_queued, per_owner, per_client_queued, reserve)

    @abstractmethod
    def submit(self, request: Request, page: bool = False) -> Job:
        """Queue a solve. A solve for a ``page`` counts as unwatched until the page's socket
        opens: a page closed before that does not leave it running."""

    @abstractmethod
    def get(self, job_id: str, owner: str) -> Job | None:
        """The job, only for the player who started it."""

    @abstractmethod
    def latest(self, owner: str, board: str) -> Job | None:
        """The player's most recent solve on a board."""

    @abstractmethod
    def cancel(self, job: Job) -> None:
        """Queued: ended at once; running: by flag, then signals."""

    @abstractmethod
    def watch(self, job: Job) -> None:
        """A page follows the solve."""

    @abstractmethod
    def unwatch(self, job: Job) -> None:
        """A page stopped following; with none left, the solve stops after the grace."""

    @abstractmethod
    def queue_position(self, job: Job) -> int:
        """1 for the next to start (of its pool); 0 when not queued."""

    @abstractmethod
    def running(self, kind: str = "solve") -> int:
        """Solves (or hints) running now."""

    def call(
        self,
        target: Callable[..., Any],
        *args: Any,
        timeout: float = 30.0,
        memory_mb: int = 1024,
        client: str = "",
    ) -> Any:
        """``target(*args)`` run in a capped child, its result returned (it must pickle);
        TimeoutError or RuntimeError when it cannot be had within ``timeout`` seconds (the
        wait for a solver included).

        A call made for a ``client`` (a level made to order) is that client's work: it waits
        in the solves' queue and takes its turn in ``fair_order`` like one of the client's
        solves, so asking for levels never puts anyone's queued solve behind it. A call for
        no client (a distance table a page needs, a picture's decoding: the site's own work,
        short and few) goes before the queued solves."""
        return self._call(target, args, timeout, memory_mb, client)

    @abstractmethod
    def _call(
        self, target: Callable[..., Any], args: tuple, timeout: float, memory_mb: int, client: str
    ) -> Any:
        """``call``'s work, as the transport does it."""

    @abstractmethod
    def forget(self, job: Job) -> None:
        """Let a finished job go now (a hint, once its page has the answer)."""

    @abstractmethod
    def reap(self) -> None:
        """Cancel orphaned solves, end dead ones, forget old finished ones."""

    @abstractmethod
    def shutdown(self) -> None:
        """Stop what this process started (the embedded runner's children)."""
