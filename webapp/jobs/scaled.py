"""Solver runs through Redis and RQ, for several web processes (``PUZZLE_LAB_REDIS_URL``).

``RedisRunner`` offers the views the interface of ``webapp.jobs.embedded.Runner``: ``submit``,
``get``, ``latest``, ``cancel``, ``watch``/``unwatch``, ``queue_position``, ``running``,
``call``. A solve is an RQ job; any ``python -m webapp.jobs.worker`` process, on any host, runs
it in its work horse (a fork per job) with the limits of the embedded mode: capped address
space, nice and SCHED_IDLE, the search's own time and node limits. The horse writes the
solve's state, progress and result into one Redis hash and bumps its version; each web
process mirrors the solves its pages look at in ``webapp.jobs.embedded.Job`` objects (one thread
polls their versions), so the views, the socket and the playback work unchanged, and any
web process streams any solve.

Everything shared lives in Redis: the solve's record, which of a player's solves are active
(per-player caps, one solve per board), the queue (its length is the "busy" cap), the
page-closed count (``watchers``: the horse cancels itself when no page has watched it for the
grace) and the cancel flag (the horse checks it several times a second; past a grace the web
asks RQ to kill the horse wherever it runs). A horse that dies (killed, out of memory, its
worker killed) stops its heartbeat; the first web process to notice ends the solve with an
error, so the player's caps free up.
"""

from __future__ import annotations

import ctypes
import json
import os
import pickle
import secrets
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from rq import Queue, get_current_job
from rq.command import send_stop_job_command
from rq.job import Job as RQJob
from rq.job import JobStatus

from webapp.jobs.embedded import (
    CONNECT_GRACE,
    HISTORY_POINTS,
    STOP_GRACE,
    Admission,
    Busy,
    Job,
    Request,
    _cap_memory,
    _lower_priority,
)
from webapp.search import Progress, Result

#: The RQ queue the workers take solves, hints and table builds from.
QUEUE = "puzzlelab"
#: Prefix of every key this module writes.
PREFIX = "pl:"
#: Seconds between two heartbeats of a running solve, and how long one lasts.
HEARTBEAT, HEARTBEAT_TTL = 0.5, 3.0
#: A running solve whose heartbeat stopped this long ago has died.
DEAD_AFTER = HEARTBEAT_TTL + 1.0
#: Seconds between two looks at a solve's version by a web process following it.
POLL = 0.05
#: Seconds between two looks for dead solves.
REAP_EVERY = 1.0
#: A queued solve older than this whose RQ job is gone or failed will never start.
LOST_AFTER = 30.0
#: How often the horse looks at its cancel flag and watchers.
CANCEL_CHECK = 0.2
#: Seconds a web process keeps following a solve no page of its own watches.
FOLLOW_SECONDS = 120.0
#: What a player reads when Redis cannot be reached.
UNAVAILABLE = "The solver is unavailable right now; try again in a moment. (Playing still works.)"

# Ends a solve once: ARGV result, finished time, job id, seconds to keep the record.
_FINISH = """
if redis.call('HGET', KEYS[1], 'state') == 'done' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'result', ARGV[1], 'finished', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('SREM', KEYS[2], ARGV[3])
redis.call('SREM', KEYS[3], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[4])
return 1
"""
# Marks a queued solve running: ARGV pid, host, start time. 0 when it was ended meanwhile.
_START = """
if redis.call('HGET', KEYS[1], 'state') ~= 'queued' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'running', 'pid', ARGV[1], 'host', ARGV[2],
           'started', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'version', 1)
return 1
"""


def _key(job_id: str, part: str = "") -> str:
    return f"{PREFIX}job:{job_id}{':' + part if part else ''}"


def _owner_key(owner: str) -> str:
    return f"{PREFIX}owner:{owner}"


def _latest_key(owner: str, board: str) -> str:
    return f"{PREFIX}latest:{owner}:{board}"


ACTIVE = PREFIX + "active"


def connect(url: str) -> redis.Redis:
    """A client that gives up quickly: a page must not hang on an unreachable Redis."""
    return redis.Redis.from_url(
        url, socket_connect_timeout=1.0, socket_timeout=3.0, health_check_interval=10
    )


def _finish(client: redis.Redis, job_id: str, owner: str, result: Result, keep: float) -> bool:
    keys = [_key(job_id), ACTIVE, _owner_key(owner), _key(job_id, "history")]
    args = [pickle.dumps(result), repr(time.time()), job_id, int(keep)]
    return bool(client.eval(_FINISH, len(keys), *keys, *args))


# -- in the worker's horse ------------------------------------------------------------------------
def _die_with_parent() -> None:
    """Ask Linux to kill this horse when its worker dies (a killed worker leaves no solve)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_solve(job_id: str) -> str:
    """The RQ task: run one solve, writing its progress and result into Redis."""
    client = get_current_job().connection
    record = client.hgetall(_key(job_id))
    if not record:
        return "gone"
    request: Request = pickle.loads(record[b"request"])
    owner = request.owner
    keep = float(record.get(b"keep", b"1800"))
    _die_with_parent()
    started = client.eval(
        _START, 1, _key(job_id), os.getpid(), os.uname().nodename, repr(time.time())
    )
    if not started:
        return "ended before it started"
    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.is_set():
            try:
                client.set(_key(job_id, "alive"), "1", px=int(HEARTBEAT_TTL * 1000))
            except redis.RedisError:
                pass
            stop.wait(HEARTBEAT)

    threading.Thread(target=heartbeat, daemon=True).start()
    _lower_priority()
    _cap_memory(request.limits.memory_mb or 2048)
    from webapp import games
    from webapp.solving import solve

    checked = [0.0, False]

    def cancelled() -> bool:
        now = time.monotonic()
        if checked[1] or now - checked[0] < CANCEL_CHECK:
            return checked[1]
        checked[0] = now
        try:
            pipe = client.pipeline()
            pipe.exists(_key(job_id, "cancel"))
            pipe.hmget(_key(job_id), "watchers", "orphaned_at", "grace")
            flag, fields = pipe.execute()
        except redis.RedisError:
            return False  # Redis away: the solve goes on within its limits
        checked[1] = bool(flag) or _orphaned(fields, time.time())
        return checked[1]

    def report(progress: Progress) -> None:
        point = json.dumps([progress.elapsed, progress.expanded, progress.frontier])
        try:
            pipe = client.pipeline()
            pipe.hset(_key(job_id), "progress", pickle.dumps(progress))
            pipe.rpush(_key(job_id, "history"), point)
            pipe.ltrim(_key(job_id, "history"), -HISTORY_POINTS, -1)
            pipe.hincrby(_key(job_id), "version", 1)
            pipe.execute()
        except redis.RedisError:
            pass

    try:
        if request.game_module:
            games.register(request.game_module)
        game = games.get(request.game)
        if request.tables_dir and os.path.isdir(request.tables_dir):
            from pathlib import Path

            game.use_disk_tables(Path(request.tables_dir))
        level = game.parse(request.level_text)[0]
        state = game.replay(level, request.moves)
        result = solve(game, level, request.algorithm, state, request.limits, report, cancelled)
    except MemoryError:
        result = Result(status="memory-limit")
    except Exception as exc:  # noqa: BLE001 - told to the player, not raised into RQ
        result = Result(status="error", error=f"{type(exc).__name__}: {exc}")
    finally:
        stop.set()
    _finish(client, job_id, owner, result, keep)
    client.delete(_key(job_id, "alive"))
    return result.status


def run_call(target: Callable[..., Any], args: tuple, memory_mb: int) -> Any:
    """The RQ task for a one-off computation (a distance table), capped like the embedded one."""
    _die_with_parent()
    _lower_priority()
    _cap_memory(memory_mb)
    return target(*args)


def _orphaned(fields: list[Any], now: float) -> bool:
    """Whether a solve's page has been gone longer than its grace: from its record's
    watchers, orphaned_at and grace."""
    watchers, orphaned, grace = fields
    if int(watchers or 0) > 0 or not orphaned:
        return False
    return now - float(orphaned) > float(grace or 0)


# -- in the web processes ------------------------------------------------------------------------
class RedisRunner:
    """The solves of every web process, through Redis; see the module's docstring."""

    def __init__(
        self,
        url: str,
        keep_seconds: float = 1800.0,
        orphan_grace: float = 10.0,
        max_queued: int = 32,
        per_owner: int = 3,
        queue_name: str = QUEUE,
        per_client_queued: int = 8,
    ):
        self.client = connect(url)
        self.queue = Queue(queue_name, connection=self.client)
        self.keep_seconds = keep_seconds
        self.orphan_grace = orphan_grace
        self.admission = Admission(max_queued, per_owner, per_client_queued)
        self.jobs: dict[str, Job] = {}  # the solves this process mirrors
        self._seen: dict[str, int] = {}  # their Redis versions last read
        self._touched: dict[str, float] = {}
        self._local_watchers: dict[str, int] = {}
        self.lock = threading.RLock()
        self._last_reap = 0.0
        threading.Thread(target=self._follow_forever, daemon=True).start()

    @property
    def max_running(self) -> int:
        """Solves that can run at once: the workers listening now."""
        try:
            from rq import Worker

            return max(1, Worker.count(queue=self.queue))
        except redis.RedisError:
            return 1

    # -- starting -----------------------------------------------------------------------------
    def submit(self, request: Request, page: bool = False) -> Job:
        try:
            return self._submit(request, page)
        except redis.RedisError:
            raise Busy(UNAVAILABLE) from None

    def _submit(self, request: Request, page: bool) -> Job:
        client = self.client
        with client.lock(PREFIX + "submit", timeout=5, blocking_timeout=5):
            self._reap_dead(client.smembers(_owner_key(request.owner)))
            mine = [member.decode() for member in client.smembers(_owner_key(request.owner))]
            boards = [client.hget(_key(job_id), "board") for job_id in mine]
            waiting_key = f"{PREFIX}waiting:{request.kind}:{request.queue_key}"
            self.admission.check(
                request,
                mine_going=len(mine),
                board_taken=request.board.encode() in boards,
                client_waiting=self._still_queued(waiting_key),
                # A hint goes to the front of the shared queue: one per client bounds them.
                queued=self.queue.count if request.kind != "hint" else 0,
            )
            job_id = secrets.token_urlsafe(12)
            now = time.time()
            orphaned = now + max(0.0, CONNECT_GRACE - self.orphan_grace) if page else ""
            pipe = client.pipeline()
            pipe.hset(
                _key(job_id),
                mapping={
                    "owner": request.owner,
                    "board": request.board,
                    "state": "queued",
                    "version": 0,
                    "request": pickle.dumps(request),
                    "created": repr(now),
                    "watchers": 0,
                    "orphaned_at": repr(orphaned) if page else "",
                    "keep": int(self.keep_seconds),
                    "grace": repr(self.orphan_grace),
                },
            )
            pipe.sadd(ACTIVE, job_id)
            pipe.sadd(_owner_key(request.owner), job_id)
            pipe.sadd(waiting_key, job_id)
            pipe.expire(waiting_key, int(self.keep_seconds))
            pipe.set(_latest_key(request.owner, request.board), job_id, ex=int(self.keep_seconds))
            pipe.execute()
            seconds = request.limits.seconds or 3600
            try:
                self.queue.enqueue_call(
                    run_solve,
                    args=(job_id,),
                    job_id=job_id,
                    timeout=int(seconds + 30),
                    result_ttl=60,
                    failure_ttl=300,
                    at_front=not page,  # a hint is short: it goes before the waiting solves
                )
            except Exception:
                # Never queued: end its record at once, or the board would stay "taken".
                lost = Result(status="error", error="the solver queue did not take this solve")
                _finish(client, job_id, request.owner, lost, self.keep_seconds)
                raise
        job = Job(id=job_id, request=request, _runner=self)  # type: ignore[arg-type]
        with self.lock:
            self.jobs[job_id] = job
            self._seen[job_id] = -1
            self._touched[job_id] = time.monotonic()
        self._refresh(job)
        return job

    def _still_queued(self, key: str) -> int:
        """How many of the solves in the set at ``key`` still wait; the others leave it."""
        members = [member.decode() for member in self.client.smembers(key)]
        if not members:
            return 0
        pipe = self.client.pipeline(transaction=False)
        for job_id in members:
            pipe.hget(_key(job_id), "state")
        states = pipe.execute()
        gone = [job_id for job_id, state in zip(members, states, strict=True) if state != b"queued"]
        if gone:
            self.client.srem(key, *gone)
        return len(members) - len(gone)

    def call(
        self, target: Callable[..., Any], *args: Any, timeout: float = 30.0, memory_mb: int = 1024
    ) -> Any:
        """Run ``target(*args)`` on a worker and return its result; TimeoutError or RuntimeError
        as ``Runner.call``."""
        try:
            job = self.queue.enqueue_call(
                run_call,
                args=(target, args, memory_mb),
                timeout=int(timeout) + 5,
                result_ttl=60,
                failure_ttl=60,
                at_front=True,
            )
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                status = job.get_status(refresh=True)
                if status == JobStatus.FINISHED:
                    return job.return_value(refresh=True)
                if status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED):
                    raise RuntimeError(f"the worker could not build it ({status})")
                time.sleep(0.1)
            try:
                job.cancel()
                send_stop_job_command(self.client, job.id)
            except Exception:  # noqa: BLE001 - already finished or gone: nothing to stop
                pass
            raise TimeoutError(f"no answer within {timeout:g} s")
        except redis.RedisError as exc:
            raise RuntimeError(f"the solver queue is unreachable: {exc}") from None

    def queue_position(self, job: Job) -> int:
        if job.state != "queued":
            return 0
        try:
            position = self.queue.get_job_position(job.id)
        except redis.RedisError:
            return 0
        return 0 if position is None else position + 1

    def running(self) -> int:
        try:
            members = self.client.smembers(ACTIVE)
            pipe = self.client.pipeline()
            for job_id in members:
                pipe.hget(_key(job_id.decode()), "state")
            return sum(1 for state in pipe.execute() if state == b"running")
        except redis.RedisError:
            return 0

    # -- finding ------------------------------------------------------------------------------
    def get(self, job_id: str, owner: str) -> Job | None:
        with self.lock:
            job = self.jobs.get(job_id)
        if job is not None:
            self._touched[job_id] = time.monotonic()
            return job if job.request.owner == owner else None
        try:
            blob = self.client.hget(_key(job_id), "request")
        except redis.RedisError:
            return None
        if blob is None:
            return None
        request: Request = pickle.loads(blob)
        if request.owner != owner:
            return None
        job = Job(id=job_id, request=request, _runner=self)  # type: ignore[arg-type]
        with self.lock:
            job = self.jobs.setdefault(job_id, job)
            self._seen.setdefault(job_id, -1)
            self._touched[job_id] = time.monotonic()
        self._refresh(job)
        return job

    def latest(self, owner: str, board: str) -> Job | None:
        try:
            job_id = self.client.get(_latest_key(owner, board))
        except redis.RedisError:
            return None
        return self.get(job_id.decode(), owner) if job_id else None

    # -- following ----------------------------------------------------------------------------
    def _refresh(self, job: Job) -> bool:
        """Read the solve's record into ``job`` if it changed; True when it did."""
        client = self.client
        version = client.hget(_key(job.id), "version")
        if version is None:  # the record expired, or Redis lost it
            if not job.done:
                self._end_locally(job, Result(status="error", error="the solver lost this solve"))
                return True
            return False
        if int(version) == self._seen.get(job.id):
            return False
        pipe = client.pipeline()
        pipe.hgetall(_key(job.id))
        pipe.lrange(_key(job.id, "history"), 0, -1)
        record, history = pipe.execute()
        self._seen[job.id] = int(record.get(b"version", b"0"))
        if record.get(b"progress"):
            job.progress = pickle.loads(record[b"progress"])
        job.history.clear()
        job.history.extend(tuple(json.loads(point)) for point in history)
        if record.get(b"pid"):
            job.pid = int(record[b"pid"])
        state = record.get(b"state", b"queued").decode()
        if state == "done":
            job.result = pickle.loads(record[b"result"])
            job.finished = time.monotonic()
        elif state == "running" and job.started is None:
            job.started = time.monotonic()
        job.state = state
        job.bump()
        return True

    def _end_locally(self, job: Job, result: Result) -> None:
        job.result = result
        job.state = "done"
        job.finished = time.monotonic()
        job.bump()

    def _follow_forever(self) -> None:
        while True:
            time.sleep(POLL)
            try:
                self.follow()
            except redis.RedisError:
                time.sleep(0.5)  # Redis away: the pages wait; solves end when it is back
            except Exception:  # noqa: BLE001 - the follower must outlive any one bad record
                time.sleep(0.5)

    def forget(self, job: Job) -> None:
        """Stop mirroring a finished job here (its records in Redis expire on their own)."""
        with self.lock:
            if job.done:
                self.jobs.pop(job.id, None)
                self._seen.pop(job.id, None)
                self._touched.pop(job.id, None)

    def follow(self) -> None:
        """Bring the mirrored solves up to date (their versions in one round trip); forget
        ones nobody here looks at."""
        now = time.monotonic()
        with self.lock:
            jobs = list(self.jobs.values())
        followed = []
        for job in jobs:
            idle = now - self._touched.get(job.id, now)
            if self._local_watchers.get(job.id, 0) == 0 and idle > FOLLOW_SECONDS:
                with self.lock:
                    self.jobs.pop(job.id, None)
                    self._seen.pop(job.id, None)
                    self._touched.pop(job.id, None)
            elif not job.done:
                followed.append(job)
        if followed:
            pipe = self.client.pipeline(transaction=False)
            for job in followed:
                pipe.hget(_key(job.id), "version")
            for job, version in zip(followed, pipe.execute(), strict=True):
                if version is None or int(version) != self._seen.get(job.id):
                    self._refresh(job)
        if now - self._last_reap > REAP_EVERY:
            self._last_reap = now
            self._reap_dead(self.client.smembers(ACTIVE))

    def _reap_dead(self, job_ids: Any) -> None:
        """End the running solves whose horse stopped beating (killed, or its worker was)."""
        now = time.time()
        client = self.client
        ids = [raw.decode() if isinstance(raw, bytes) else raw for raw in job_ids]
        if not ids:
            return
        pipe = client.pipeline(transaction=False)
        for job_id in ids:
            pipe.hmget(_key(job_id), "state", "started", "owner", "created")
            pipe.exists(_key(job_id, "alive"))
            pipe.hmget(_key(job_id), "watchers", "orphaned_at", "grace")
        answers = pipe.execute()
        for index, job_id in enumerate(ids):
            (state, started, owner, created), alive = answers[3 * index], answers[3 * index + 1]
            if state is None:  # the record is gone: so is the solve
                client.srem(ACTIVE, job_id)
                continue
            if state == b"queued" and _orphaned(answers[3 * index + 2], now):
                # Its page went away before a worker took it: it never runs (as the embedded
                # runner does), so a queue of solves nobody watches cannot shut others out.
                self._cancel_queued(job_id, owner.decode())
                continue
            if state == b"queued" and created and now - float(created) > LOST_AFTER:
                if self._lost_in_queue(job_id):
                    lost = Result(
                        status="error", error="the solver queue lost this solve; try again"
                    )
                    _finish(client, job_id, owner.decode(), lost, self.keep_seconds)
                continue
            if state != b"running" or not started or now - float(started) < DEAD_AFTER:
                continue
            if alive:
                continue
            if client.exists(_key(job_id, "cancel")):
                result = Result(status="cancelled")
            else:
                result = Result(
                    status="error",
                    error="the solver process stopped unexpectedly; try again",
                )
            _finish(client, job_id, owner.decode(), result, self.keep_seconds)

    def _lost_in_queue(self, job_id: str) -> bool:
        """Whether RQ no longer has a queued solve's job waiting or running (it was lost or
        failed before the solve began): then nothing will ever start it."""
        try:
            status = RQJob.fetch(job_id, connection=self.client).get_status()
        except Exception:  # noqa: BLE001 - rq's NoSuchJobError, or a job it cannot read
            return True
        if status == JobStatus.QUEUED:
            return job_id not in self.queue.get_job_ids()  # queued, but in no queue
        return status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED)

    # -- stopping -----------------------------------------------------------------------------
    def _cancel_queued(self, job_id: str, owner: str) -> None:
        """Take a solve out of the queue before any worker runs it, and end its record."""
        try:
            RQJob.fetch(job_id, connection=self.client).cancel()
        except Exception:  # noqa: BLE001 - taken by a worker meanwhile: the flag stops it
            pass
        self.client.set(_key(job_id, "cancel"), "1", ex=int(self.keep_seconds))
        _finish(self.client, job_id, owner, Result(status="cancelled"), self.keep_seconds)

    def cancel(self, job: Job) -> None:
        """Queued: removed from the queue at once; running: the flag, then RQ kills the horse."""
        try:
            state = self.client.hget(_key(job.id), "state")
            if state == b"queued":
                self._cancel_queued(job.id, job.request.owner)
                self._refresh(job)
                return
            if state != b"running":
                return
            self.client.set(_key(job.id, "cancel"), "1", ex=int(self.keep_seconds))
        except redis.RedisError:
            return
        threading.Thread(target=self._escalate, args=(job,), daemon=True).start()

    def _escalate(self, job: Job) -> None:
        deadline = time.monotonic() + 2 * STOP_GRACE
        while time.monotonic() < deadline:
            time.sleep(0.1)
            try:
                if self.client.hget(_key(job.id), "state") == b"done":
                    return
            except redis.RedisError:
                return
        try:
            send_stop_job_command(self.client, job.id)
        except Exception:  # noqa: BLE001 - the horse ended meanwhile
            pass

    def watch(self, job: Job) -> None:
        with self.lock:
            self._local_watchers[job.id] = self._local_watchers.get(job.id, 0) + 1
        try:
            pipe = self.client.pipeline()
            pipe.hincrby(_key(job.id), "watchers", 1)
            pipe.hset(_key(job.id), "orphaned_at", "")
            pipe.execute()
        except redis.RedisError:
            pass

    def unwatch(self, job: Job) -> None:
        with self.lock:
            left = self._local_watchers.get(job.id, 1) - 1
            if left > 0:
                self._local_watchers[job.id] = left
            else:
                self._local_watchers.pop(job.id, None)
        self._touched[job.id] = time.monotonic()
        try:
            watchers = self.client.hincrby(_key(job.id), "watchers", -1)
            if watchers <= 0:
                self.client.hset(_key(job.id), "orphaned_at", repr(time.time()))
        except redis.RedisError:
            pass

    def reap(self) -> None:
        self._reap_dead(self.client.smembers(ACTIVE))

    def shutdown(self) -> None:
        pass
