"""The embedded transport: solver runs in child processes of this server's fork server.

A ``Runner`` owns every solve of one server process (``make run``): it caps how many run at
once (queueing the rest in turns across clients), allows one solve per board per player,
forwards each child's progress to its ``Job``, and stops a child on cancel: first by a flag
the search checks, then by signals. The child runs ``webapp.jobs.child.run_request`` and
sets its own address-space limit, so a search that outgrows it fails alone.
"""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
import os
import queue
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webapp.jobs import base
from webapp.jobs.base import CONNECT_GRACE, STOP_GRACE, Job, JobRunner, Request
from webapp.jobs.child import confine, run_request
from webapp.jobs.work import Pool
from webapp.search import Progress, Result

#: What the fork server imports once for all its children: the solvers, and the compiled
#: kernels made ready (``webapp.jobs.warmed``), so no child spends its first half second or
#: more importing numba and loading machine code.
PRELOAD = ["webapp.games.solving", "webapp.games", "webapp.jobs.warmed"]
#: A child past its time limit that has also been silent this long has stopped answering:
#: it is stopped. (A child still reporting progress, e.g. while building a table, is not.)
OVERDUE_GRACE = 10.0


def _child(request: Request, conn: Any, cancel: Any) -> None:
    """The solver process: the shared solve body, its progress and result sent up the pipe."""
    confine(request.limits.memory_mb or 2048)

    def report(progress: Progress) -> None:
        conn.send(("progress", progress))

    conn.send(("result", run_request(request, report, cancel.is_set)))
    conn.close()


def _call_child(target: Callable[..., Any], args: tuple, conn: Any, memory_mb: int) -> None:
    """A one-off computation (e.g. a distance table) in its own process, at the solvers'
    low priority."""
    confine(memory_mb)
    try:
        conn.send(("ok", target(*args)))
    except BaseException as exc:  # reported to the parent, which decides what to say
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    conn.close()


@dataclass
class Child:
    """What this transport keeps of a job beside the handle: its process, its cancel flag,
    the pages following it and when it was last heard from."""

    cancel: Any = None
    process: Any = None
    #: Set once the launcher has started the job's process (or failed to).
    launched: threading.Event | None = None
    watchers: int = 0
    orphaned_at: float | None = None
    last_heard: float | None = None
    overdue: bool = False


@dataclass(eq=False)  # a ticket is itself: looked up by identity in the line
class Ticket:
    """A call made for a client (``JobRunner.call``), waiting its turn among the queued
    solves: granted a slot in ``fair_order``'s order, as one of that client's solves."""

    client: str
    created: float = field(default_factory=time.monotonic)
    granted: threading.Event = field(default_factory=threading.Event)


def _line_of(item: Job | Ticket) -> str:
    return item.client if isinstance(item, Ticket) else item.request.queue_key


def _pool_of(item: Job | Ticket) -> Pool:
    return Pool.SOLVES if isinstance(item, Ticket) else item.request.pool


class Runner(JobRunner):
    """Every solve of this server process.

    The queue is fair: waiting solves start in turns across clients (the client served
    longest ago first, each client's own in order), and a client may have only
    ``per_client_queued`` waiting, so one client's flood delays only itself. Hints run in a
    pool of their own (``max_hints``), so a hint never waits behind long solves. One-off
    computations count within ``max_running``: those for a client (a level made to order)
    take their turns with the queued solves; the site's own (distance tables) go ahead.
    """

    def __init__(self, max_running: int | None = None, max_hints: int = 1, **rules: Any):
        """``rules``: JobRunner's (the grace, the admission's counts)."""
        super().__init__(**rules)
        self.max_running = max_running or os.cpu_count() or 2
        self.max_hints = max_hints
        self._turns = itertools.count()
        self._served: dict[str, int] = {}  # a client's last turn
        self._calls_running = 0  # one-off computations running
        self._calls_waiting = 0  # the site's own waiting for a slot (before queued solves)
        self._tickets: list[Ticket] = []  # clients' calls waiting their turn
        self._slots = threading.Condition(threading.RLock())
        self.jobs: dict[str, Job] = {}
        self.children: dict[str, Child] = {}
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
            alike = [job for job in self.queue if job.request.pool is request.pool]
            self.admission.check(
                request,
                mine_going=len(mine),
                board_taken=any(job.request.board == request.board for job in mine),
                client_waiting=sum(job.request.queue_key == request.queue_key for job in alike),
                queued=len(alike),
            )
            job = Job(id=secrets.token_urlsafe(12), request=request, _stop=self.cancel)
            child = self.children[job.id] = Child()
            if page:
                child.orphaned_at = job.created + max(0.0, CONNECT_GRACE - self.orphan_grace)
            self.jobs[job.id] = job
            self.queue.append(job)
            self._start_queued()
            return job

    def queue_position(self, job: Job) -> int:
        """1 for the next to start (of its pool); 0 when not queued."""
        with self.lock:
            if job.state != "queued":
                return 0
            pool = job.request.pool
            order = [queued for queued in self._order() if _pool_of(queued) is pool]
            return base.position_in(order, job)

    def _order(self) -> list[Job | Ticket]:
        """The queued jobs and clients' calls in the order they will start: in turns across
        clients, the one served longest ago (or never) first; each client's own in the order
        they came."""
        lines: dict[str, list[Job | Ticket]] = {}
        waiting: list[Job | Ticket] = [*self.queue, *self._tickets]
        for item in sorted(waiting, key=lambda item: item.created):
            lines.setdefault(_line_of(item), []).append(item)
        return base.fair_order(lines, self._served)

    def running(self, pool: Pool = Pool.SOLVES) -> int:
        """Jobs of the pool running now; one-off computations count with the solves."""
        jobs = sum(1 for j in self.jobs.values() if j.state == "running" and j.request.pool is pool)
        return jobs + (self._calls_running if pool is Pool.SOLVES else 0)

    def _room(self, pool: Pool) -> bool:
        """Whether a queued job of this pool may start: computations waiting go first."""
        if pool is Pool.HINTS:
            return self.running(Pool.HINTS) < self.max_hints
        return self.running() + self._calls_waiting < self.max_running

    def _start_queued(self) -> None:
        with self.lock:
            started = True
            while started:
                started = False
                for item in self._order():
                    if self._room(_pool_of(item)):
                        self._served[_line_of(item)] = next(self._turns)
                        if len(self._served) > 10_000:  # forget clients with nothing waiting
                            waiting = {_line_of(queued) for queued in self._order()}
                            for key in [k for k in self._served if k not in waiting]:
                                del self._served[key]
                        if isinstance(item, Ticket):
                            self._tickets.remove(item)
                            self._calls_running += 1
                            item.granted.set()
                        else:
                            self.queue.remove(item)
                            self._begin(item)
                        started = True
                        break
            for job in self.queue:
                job.bump()  # queue positions moved

    def _begin(self, job: Job) -> None:
        """Count the job as running and hand it to the launcher: starting a process through
        the fork server can take seconds on a busy machine, and under the runner's lock it
        held up every page that looked up a solve (2.7 s in bench/abuse.py)."""
        child = self.children.setdefault(job.id, Child())
        child.cancel = self.context.Event()
        child.launched = threading.Event()
        child.last_heard = time.monotonic()
        job.begin()
        self._launches.put(job)

    def _launch_forever(self) -> None:
        while True:
            job = self._launches.get()
            child = self.children[job.id]
            try:
                self._launch(job, child)
            except Exception as exc:  # noqa: BLE001 - no process: the solve ends, saying so
                self._finish(job, Result(status="error", error=f"no solver could start: {exc}"))
            finally:
                child.launched.set()

    def _launch(self, job: Job, child: Child) -> None:
        receive, send = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=_child,
            args=(job.request, send, child.cancel),
            daemon=True,
            name=f"solver-{job.id}",
        )
        process.start()
        send.close()
        # The child has the level now: the job keeps only what the pages need.
        job.request = dataclasses.replace(job.request, level_text="")
        child.process = process
        job.begin(process.pid)
        threading.Thread(target=self._follow, args=(job, receive), daemon=True).start()

    def _call(
        self, target: Callable[..., Any], args: tuple, timeout: float, memory_mb: int, client: str
    ) -> Any:
        """Run ``target(*args)`` in a child process and return its result (it must pickle).

        For exhaustive computations the web process must not do itself. The child runs at
        the solvers' low priority and counts within ``max_running``: it waits for a slot
        (a client's call in its turn with the queued solves, the site's own before them),
        and its timeout includes that wait. Raises TimeoutError or RuntimeError; the child
        is killed either way.
        """
        deadline = time.monotonic() + timeout
        if client:
            return self._client_call(target, args, deadline, memory_mb, client)
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
            return self._child_call(target, args, max(0.1, deadline - time.monotonic()), memory_mb)
        finally:
            with self.lock:
                if holding:
                    self._calls_running -= 1
                else:
                    self._calls_waiting -= 1
                self._start_queued()

    def _client_call(
        self, target: Callable[..., Any], args: tuple, deadline: float, memory_mb: int, client: str
    ) -> Any:
        ticket = Ticket(client)
        with self.lock:
            self._tickets.append(ticket)
            self._start_queued()
        if not ticket.granted.wait(max(0.0, deadline - time.monotonic())):
            with self.lock:
                if not ticket.granted.is_set():
                    self._tickets.remove(ticket)
                    raise TimeoutError("no free solver in time")
        try:
            return self._child_call(target, args, max(0.1, deadline - time.monotonic()), memory_mb)
        finally:
            with self.lock:
                self._calls_running -= 1
                self._start_queued()

    def _child_call(
        self, target: Callable[..., Any], args: tuple, timeout: float, memory_mb: int
    ) -> Any:
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
        child = self.children[job.id]
        result: Result | None = None
        try:
            while True:
                kind, payload = receive.recv()
                child.last_heard = time.monotonic()
                if kind == "progress":
                    job.feed(payload)
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
        process = child.process
        process.join(5)
        if result is None:
            code = process.exitcode
            if child.overdue:
                result = Result(status="timeout", error="the solver stopped answering")
            elif child.cancel.is_set():
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
            job.end(result)
            self.children.pop(job.id, None)
            self._start_queued()

    # -- stopping -----------------------------------------------------------------------------
    def cancel(self, job: Job) -> None:
        """Stop a solve: queued ones at once; running ones by flag, then SIGTERM, then SIGKILL."""
        with self.lock:
            if job.state == "queued":
                self.queue.remove(job)
                self._finish(job, Result(status="cancelled"))
                return
            child = self.children.get(job.id)
            if job.state != "running" or child is None:
                return
            child.cancel.set()
        threading.Thread(target=self._escalate, args=(child,), daemon=True).start()

    @staticmethod
    def _escalate(child: Child) -> None:
        if child.launched is not None:
            child.launched.wait(60)
        process = child.process
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
            child = self.children.get(job.id)
            if child is not None:
                child.watchers += 1
                child.orphaned_at = None

    def unwatch(self, job: Job) -> None:
        """A page stopped watching; with nobody left, the solve is cancelled after a grace."""
        with self.lock:
            child = self.children.get(job.id)
            if child is not None:
                child.watchers = max(0, child.watchers - 1)
                if child.watchers == 0:
                    child.orphaned_at = time.monotonic()

    def _reap_forever(self) -> None:
        while True:
            time.sleep(0.5)
            self.reap()

    def reap(self) -> None:
        """Cancel orphaned solves whose grace ran out; forget old finished ones."""
        now = time.monotonic()
        with self.lock:
            for job in list(self.jobs.values()):
                child = self.children.get(job.id)
                if child is not None and self._abandoned(job, child, now):
                    self.cancel(job)
                if job.state == "done" and job.finished and now - job.finished > self.keep_seconds:
                    del self.jobs[job.id]

    def _abandoned(self, job: Job, child: Child, now: float) -> bool:
        """Whether a solve should stop: nobody has followed it for the grace, or it ran past
        its time limit and has been silent too (it stopped answering)."""
        if child.orphaned_at is not None and now - child.orphaned_at > self.orphan_grace:
            child.orphaned_at = None
            return True
        limit = job.request.limits.seconds
        if (
            job.state == "running"
            and job.started is not None
            and limit is not None
            and not child.overdue
            and now - job.started > limit + OVERDUE_GRACE
            and now - (child.last_heard or job.started) > OVERDUE_GRACE
        ):
            child.overdue = True
            return True
        return False

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
