"""Solver runs in their own processes, never in the web server's.

A ``Runner`` owns every solve of one server process: it caps how many run at once (queueing
the rest), allows one solve per board per player, forwards each child's progress to whoever
watches, and stops a child on cancel: first by a flag the search checks, then by signals.
The child sets its own address-space limit, so a search that outgrows it fails alone.
"""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
import os
import queue
import resource
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webapp.search import Limits, Progress, Result

#: Seconds between the cancel flag and SIGTERM, and between SIGTERM and SIGKILL.
STOP_GRACE = 1.5
#: Room for the interpreter and its libraries on top of the search's own memory limit.
MEMORY_HEADROOM_MB = 768
#: What the fork server imports once for all its children: the solvers, and the compiled
#: kernels made ready (``webapp.jobs.warmed``), so no child spends its first half second or more
#: importing numba and loading machine code.
PRELOAD = ["webapp.solving", "webapp.games", "webapp.jobs.warmed"]
#: A child past its time limit that has also been silent this long has stopped answering:
#: it is stopped. (A child still reporting progress, e.g. while building a table, is not.)
OVERDUE_GRACE = 10.0
#: A solve for a page waits at least this long for the page's socket to open (a loaded
#: machine may take a few seconds) before it counts as orphaned.
CONNECT_GRACE = 5.0
#: How much lower than the web server solver processes run.
SOLVER_NICENESS = 10
#: Progress points kept per solve for the live chart.
HISTORY_POINTS = 120


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
    #: "solve", or "hint": hints run in a small pool of their own, beside the solves.
    kind: str = "solve"

    @property
    def queue_key(self) -> str:
        return self.client or self.owner


@dataclass(eq=False)  # a job is itself: compared by identity, as the queue looks it up
class Job:
    """One solve, and the handle to it (python-chess's analysis handle is the model): iterate
    it for progress, ``wait`` for the result, ``stop`` it; ``with`` stops it on the way out."""

    id: str
    request: Request
    state: str = "queued"  # queued | running | done
    progress: Progress | None = None
    history: deque = field(default_factory=lambda: deque(maxlen=HISTORY_POINTS))
    result: Result | None = None
    pid: int | None = None
    created: float = field(default_factory=time.monotonic)
    finished: float | None = None
    watchers: int = 0
    orphaned_at: float | None = None
    started: float | None = None
    last_heard: float | None = None
    overdue: bool = False
    _cancel: Any = None
    _process: Any = None
    #: Set once the launcher has started the job's process (or failed to).
    _launched: Any = None
    _changed: threading.Condition = field(default_factory=threading.Condition)
    version: int = 0
    #: Where a page's playback of the solution stands (webapp.core.playback), kept for reconnects.
    playback: Any = None
    _runner: Runner | None = None

    def bump(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    def wait_change(self, seen: int, timeout: float) -> int:
        """Block until the job changes after version ``seen`` (or the timeout); the version."""
        with self._changed:
            if self.version == seen:
                self._changed.wait(timeout)
            return self.version

    # -- the handle --------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.state == "done"

    def wait(self, timeout: float | None = None) -> Result | None:
        """The result, once the solve ends within ``timeout`` seconds; else None."""
        wait_for(self, lambda job: job.done, float("inf") if timeout is None else timeout)
        return self.result

    def stop(self) -> None:
        """Cancel the solve (queued: at once; running: by flag, then signals)."""
        if self._runner is not None and not self.done:
            self._runner.cancel(self)

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


def _cap_memory(megabytes: int) -> None:
    """Cap this (child) process's address space: the search's share plus the interpreter's."""
    cap = (megabytes + MEMORY_HEADROOM_MB) * 2**20
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ValueError, OSError):
        pass  # no such limit here: the Monitor's memory check still stops the search


def _lower_priority() -> None:
    """Make this (child) process give the CPU to the web server at once.

    A niced search may still finish its time slice before a woken server thread gets the
    core; with as many solves as cores, a request can meet that wait at every step. A
    SCHED_IDLE process is preempted as soon as anything else wants to run: the solve takes
    what the server leaves."""
    os.nice(SOLVER_NICENESS)
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        pass  # not Linux: the nice level still lowers it


def _child(request: Request, conn: Any, cancel: Any) -> None:
    """The solver process: cap memory, rebuild the level, search, send progress and result."""
    _lower_priority()
    _cap_memory(request.limits.memory_mb or 2048)
    from webapp import games
    from webapp.solving import solve

    if request.game_module:
        games.register(request.game_module)
    game = games.get(request.game)
    if request.tables_dir:
        game.use_disk_tables(Path(request.tables_dir))
    level = game.parse(request.level_text)[0]
    state = game.replay(level, request.moves)

    def report(progress: Progress) -> None:
        conn.send(("progress", progress))

    try:
        result = solve(game, level, request.algorithm, state, request.limits, report, cancel.is_set)
    except MemoryError:
        result = Result(status="memory-limit")
    conn.send(("result", result))
    conn.close()


def _call_child(target: Callable[..., Any], args: tuple, conn: Any, memory_mb: int) -> None:
    """A one-off computation (e.g. a distance table) in its own process, at the solvers'
    low priority."""
    _lower_priority()
    _cap_memory(memory_mb)
    try:
        conn.send(("ok", target(*args)))
    except BaseException as exc:  # reported to the parent, which decides what to say
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    conn.close()


@dataclass(frozen=True)
class Admission:
    """Who may queue what, the same in both runners (this one and webapp/jobs/scaled.py).

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


class Runner:
    """Every solve of this server process.

    The queue is fair: waiting solves start in turns across clients (the client served
    longest ago first, each client's own in order), and a client may have only
    ``per_client_queued`` waiting, so one client's flood delays only itself. Hints run in a
    pool of their own (``max_hints``), so a hint never waits behind long solves. One-off
    computations (``call``: distance tables) count within ``max_running``, ahead of the
    queued solves.
    """

    def __init__(
        self,
        max_running: int | None = None,
        keep_seconds: float = 1800.0,
        orphan_grace: float = 10.0,
        max_queued: int = 32,
        per_owner: int = 3,
        per_client_queued: int = 8,
        max_hints: int = 1,
        reserve: int = 8,
    ):
        self.max_running = max_running or os.cpu_count() or 2
        self.admission = Admission(max_queued, per_owner, per_client_queued, reserve)
        self.max_hints = max_hints
        self._turns = itertools.count()
        self._served: dict[str, int] = {}  # a client's last turn
        self._calls_running = 0  # one-off computations running
        self._calls_waiting = 0  # and waiting for a slot (they go before queued solves)
        self._slots = threading.Condition(threading.RLock())
        self.keep_seconds = keep_seconds
        self.orphan_grace = orphan_grace
        self.jobs: dict[str, Job] = {}
        self.queue: deque[Job] = deque()
        self.lock = threading.RLock()
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(PRELOAD)
        self._reaper = threading.Thread(target=self._reap_forever, daemon=True)
        self._reaper.start()
        self._launches: queue.SimpleQueue[Job] = queue.SimpleQueue()
        threading.Thread(target=self._launch_forever, name="launcher", daemon=True).start()

    # -- starting -----------------------------------------------------------------------------
    def submit(self, request: Request, page: bool = False) -> Job:
        """Queue a solve; Busy if this player already has one on this board, has too many
        going, or the queue is full. A solve for a ``page`` counts as unwatched until the
        page's socket opens: a page closed before that does not leave it running."""
        with self.lock:
            mine = [
                job
                for job in self.jobs.values()
                if job.request.owner == request.owner and job.state != "done"
            ]
            alike = [job for job in self.queue if job.request.kind == request.kind]
            self.admission.check(
                request,
                mine_going=len(mine),
                board_taken=any(job.request.board == request.board for job in mine),
                client_waiting=sum(job.request.queue_key == request.queue_key for job in alike),
                queued=len(alike),
            )
            job = Job(id=secrets.token_urlsafe(12), request=request, _runner=self)
            if page:
                job.orphaned_at = job.created + max(0.0, CONNECT_GRACE - self.orphan_grace)
            self.jobs[job.id] = job
            self.queue.append(job)
            self._start_queued()
            return job

    def queue_position(self, job: Job) -> int:
        """1 for the next to start (of its pool); 0 when not queued."""
        with self.lock:
            if job.state != "queued":
                return 0
            kind = job.request.kind
            order = [queued for queued in self._order() if queued.request.kind == kind]
            # Not list.index: on a job that is not queued it raises an error whose message is
            # the job's whole repr.
            for position, queued in enumerate(order, 1):
                if queued is job:
                    return position
            return 0

    def _order(self) -> list[Job]:
        """The queued jobs in the order they will start: in turns across clients, the one
        served longest ago (or never) first; each client's jobs in the order they came."""
        lines: dict[str, deque[Job]] = {}
        for job in self.queue:
            lines.setdefault(job.request.queue_key, deque()).append(job)
        clients = sorted(lines, key=lambda key: self._served.get(key, -1))
        order: list[Job] = []
        while clients:
            for key in list(clients):
                order.append(lines[key].popleft())
                if not lines[key]:
                    clients.remove(key)
        return order

    def running(self, kind: str = "solve") -> int:
        """Solves (or hints) running now; one-off computations count with the solves."""
        jobs = sum(1 for j in self.jobs.values() if j.state == "running" and j.request.kind == kind)
        return jobs + (self._calls_running if kind == "solve" else 0)

    def _room(self, kind: str) -> bool:
        """Whether a queued job of this kind may start: computations waiting go first."""
        if kind == "hint":
            return self.running("hint") < self.max_hints
        return self.running() + self._calls_waiting < self.max_running

    def _start_queued(self) -> None:
        with self.lock:
            started = True
            while started:
                started = False
                for job in self._order():
                    if self._room(job.request.kind):
                        self.queue.remove(job)
                        self._served[job.request.queue_key] = next(self._turns)
                        if len(self._served) > 10_000:  # forget clients with nothing waiting
                            waiting = {queued.request.queue_key for queued in self.queue}
                            for key in [k for k in self._served if k not in waiting]:
                                del self._served[key]
                        self._begin(job)
                        started = True
                        break
            for job in self.queue:
                job.bump()  # queue positions moved

    def _begin(self, job: Job) -> None:
        """Count the job as running and hand it to the launcher: starting a process through
        the fork server can take seconds on a busy machine, and under the runner's lock it
        held up every page that looked up a solve (2.7 s in bench/abuse.py)."""
        job._cancel = self.context.Event()
        job._launched = threading.Event()
        job.started = job.last_heard = time.monotonic()
        job.state = "running"
        self._launches.put(job)

    def _launch_forever(self) -> None:
        while True:
            job = self._launches.get()
            try:
                self._launch(job)
            except Exception as exc:  # noqa: BLE001 - no process: the solve ends, saying so
                self._finish(job, Result(status="error", error=f"no solver could start: {exc}"))
            finally:
                job._launched.set()

    def _launch(self, job: Job) -> None:
        receive, send = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=_child,
            args=(job.request, send, job._cancel),
            daemon=True,
            name=f"solver-{job.id}",
        )
        process.start()
        send.close()
        # The child has the level now: the job keeps only what the pages need.
        job.request = dataclasses.replace(job.request, level_text="")
        job._process = process
        job.pid = process.pid
        job.bump()
        threading.Thread(target=self._follow, args=(job, receive), daemon=True).start()

    def call(
        self, target: Callable[..., Any], *args: Any, timeout: float = 30.0, memory_mb: int = 1024
    ) -> Any:
        """Run ``target(*args)`` in a child process and return its result (it must pickle).

        For exhaustive computations the web process must not do itself. The child runs at
        the solvers' low priority and counts within ``max_running``: it waits for a slot
        (before any queued solve), and its timeout includes that wait. Raises TimeoutError
        or RuntimeError; the child is killed either way.
        """
        deadline = time.monotonic() + timeout
        with self.lock:
            self._calls_waiting += 1
        holding = False
        try:
            while not holding:
                with self.lock:
                    if self.running() < self.max_running:
                        self._calls_waiting -= 1
                        self._calls_running += 1
                        holding = True
                if not holding:
                    if time.monotonic() >= deadline:
                        raise TimeoutError(f"no free solver within {timeout:g} s")
                    time.sleep(0.1)
            return self._call(target, args, max(0.1, deadline - time.monotonic()), memory_mb)
        finally:
            with self.lock:
                if holding:
                    self._calls_running -= 1
                else:
                    self._calls_waiting -= 1
                self._start_queued()

    def _call(self, target: Callable[..., Any], args: tuple, timeout: float, memory_mb: int) -> Any:
        receive, send = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=_call_child, args=(target, args, send, memory_mb), daemon=True
        )
        process.start()
        send.close()
        try:
            if not receive.poll(timeout):
                raise TimeoutError(f"no answer within {timeout:g} s")
            kind, payload = receive.recv()
        except EOFError:
            raise RuntimeError(f"the process stopped (exit {process.exitcode})") from None
        finally:
            receive.close()
            if process.is_alive():
                process.kill()
            process.join(5)
        if kind != "ok":
            raise RuntimeError(payload)
        return payload

    # -- following ----------------------------------------------------------------------------
    def _follow(self, job: Job, receive: Any) -> None:
        """Read the child's messages until its result, or its death."""
        result: Result | None = None
        try:
            while True:
                kind, payload = receive.recv()
                job.last_heard = time.monotonic()
                if kind == "progress":
                    job.progress = payload
                    job.history.append((payload.elapsed, payload.expanded, payload.frontier))
                    job.bump()
                elif kind == "result":
                    result = payload
                    break
        except (EOFError, OSError):
            pass
        except Exception as exc:  # a message that cannot be read: the solve still ends
            result = Result(status="error", error=f"the solver's report could not be read: {exc}")
            self.cancel(job)
        finally:
            receive.close()
        process = job._process
        process.join(5)
        if result is None:
            code = process.exitcode
            if job.overdue:
                result = Result(status="timeout", error="the solver stopped answering")
            elif job._cancel.is_set():
                result = Result(status="cancelled")
            elif code is not None and code < 0 and -code == 9:
                result = Result(
                    status="error", error="the solver process was killed (out of memory?)"
                )
            else:
                result = Result(
                    status="error", error=f"the solver process stopped unexpectedly (exit {code})"
                )
        self._finish(job, result)

    def _finish(self, job: Job, result: Result) -> None:
        with self.lock:
            job.result = result
            job.state = "done"
            job.finished = time.monotonic()
            self._start_queued()
        job.bump()

    # -- stopping -----------------------------------------------------------------------------
    def cancel(self, job: Job) -> None:
        """Stop a solve: queued ones at once; running ones by flag, then SIGTERM, then SIGKILL."""
        with self.lock:
            if job.state == "queued":
                self.queue.remove(job)
                self._finish(job, Result(status="cancelled"))
                return
            if job.state != "running":
                return
            job._cancel.set()
        threading.Thread(target=self._escalate, args=(job,), daemon=True).start()

    def _escalate(self, job: Job) -> None:
        if job._launched is not None:
            job._launched.wait(60)
        process = job._process
        if process is None:
            return  # it never started
        process.join(STOP_GRACE)
        if process.is_alive():
            process.terminate()
            process.join(STOP_GRACE)
        if process.is_alive():
            process.kill()
            process.join(STOP_GRACE)

    def watch(self, job: Job) -> None:
        with self.lock:
            job.watchers += 1
            job.orphaned_at = None

    def unwatch(self, job: Job) -> None:
        """A page stopped watching; with nobody left, the solve is cancelled after a grace."""
        with self.lock:
            job.watchers = max(0, job.watchers - 1)
            if job.watchers == 0 and job.state != "done":
                job.orphaned_at = time.monotonic()

    def _reap_forever(self) -> None:
        while True:
            time.sleep(0.5)
            self.reap()

    def reap(self) -> None:
        """Cancel orphaned solves whose grace ran out; forget old finished ones."""
        now = time.monotonic()
        with self.lock:
            for job in list(self.jobs.values()):
                if (
                    job.orphaned_at is not None
                    and job.state != "done"
                    and now - job.orphaned_at > self.orphan_grace
                ):
                    job.orphaned_at = None
                    self.cancel(job)
                limit = job.request.limits.seconds
                if (
                    job.state == "running"
                    and job.started is not None
                    and limit is not None
                    and not job.overdue
                    and now - job.started > limit + OVERDUE_GRACE
                    and now - (job.last_heard or job.started) > OVERDUE_GRACE
                ):
                    job.overdue = True
                    self.cancel(job)
                if job.state == "done" and job.finished and now - job.finished > self.keep_seconds:
                    del self.jobs[job.id]

    def forget(self, job: Job) -> None:
        """Let a finished job go now rather than after ``keep_seconds`` (a hint, once its
        page has the answer: nobody looks it up again)."""
        with self.lock:
            if job.done:
                self.jobs.pop(job.id, None)

    def get(self, job_id: str, owner: str) -> Job | None:
        """The job, only for the player who started it."""
        job = self.jobs.get(job_id)
        if job is None or job.request.owner != owner:
            return None
        return job

    def latest(self, owner: str, board: str) -> Job | None:
        with self.lock:
            mine = [
                j
                for j in self.jobs.values()
                if (j.request.owner, j.request.board) == (owner, board)
            ]
        return max(mine, key=lambda j: j.created) if mine else None

    def shutdown(self) -> None:
        for job in list(self.jobs.values()):
            if job.state == "running":
                self.cancel(job)


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
