"""The scaled transport: solver runs on RQ workers through Redis, for several web processes
(``PUZZLE_LAB_REDIS_URL``, ``make cluster``).

``RedisRunner`` is a ``JobRunner`` (webapp/jobs/base.py) as the embedded one is, with the same
admission rules and the same order of turns, kept in Redis so every web process shares them:

- A solve's record is one Redis hash (state, progress, result, version); each web process
  mirrors the solves its pages look at in ``Job`` handles (one thread polls their versions),
  so any web process streams any solve.
- The queue is fair: each client has a line per pool (``line:<pool>:<client>``), and a worker
  that is free takes the next solve by ``_TAKE``, in turns across clients (the one served
  longest ago first), as ``base.fair_order`` orders them for the queue positions pages show.
  RQ carries only tokens (``run_next``), one per queued solve: whichever worker takes a token
  runs the solve whose turn it is then.
- Hints have a pool of their own: their own lines and RQ queue, served first by every worker
  and only by the hint worker (``python -m webapp.jobs.worker --hints``), so a hint never
  waits behind long solves.
- Pages that follow a solve keep a heartbeat in its ``watch`` set (one entry per web process,
  renewed every second, lasting a few); a solve whose entries have all lapsed has no page left
  (closed, or its web process died) and stops itself. The horse checks its cancel flag and
  that set several times a second; past a grace the web asks RQ to kill the horse.
- A horse that dies (killed, out of memory, its worker killed) stops its own heartbeat; the
  first web process to notice ends the solve with an error, so the player's caps free up.
"""

from __future__ import annotations

import json
import os
import pickle
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from rq import Queue, get_current_job
from rq.command import send_stop_job_command
from rq.job import JobStatus

from webapp.jobs.base import (
    CONNECT_GRACE,
    STOP_GRACE,
    Busy,
    Job,
    JobRunner,
    Request,
    Thinned,
    fair_order,
    position_in,
)
from webapp.jobs.child import confine, die_with_parent, run_request
from webapp.jobs.work import Pool
from webapp.search import Progress, Result

#: The RQ queues the workers take tokens from: solves and one-off computations, and hints.
QUEUE = "puzzlelab"
HINT_QUEUE = "puzzlelab-hints"
POOLS = {Pool.SOLVES: QUEUE, Pool.HINTS: HINT_QUEUE}
#: Prefix of every key this module writes.
PREFIX = "pl:"
#: Seconds between two heartbeats of a running solve, and how long one lasts.
HEARTBEAT, HEARTBEAT_TTL = 0.5, 3.0
#: A running solve whose heartbeat stopped this long ago has died.
DEAD_AFTER = HEARTBEAT_TTL + 1.0
#: Seconds between two looks at a solve's version by a web process following it.
POLL = 0.05
#: Seconds between two looks for dead solves, and between two renewals of a web process's
#: watch entries; how long one entry lasts without renewal.
REAP_EVERY = 1.0
WATCH_TTL = 4.0
#: How often the horse looks at its cancel flag and watchers.
CANCEL_CHECK = 0.2
#: Seconds a web process keeps following a solve no page of its own watches.
FOLLOW_SECONDS = 120.0
#: Clients' last turns kept; beyond it, those with nothing waiting are forgotten.
SERVED_KEPT = 10_000
#: The owner of every client's call's record (a call belongs to no player).
CALLER = "~calls"
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
# A free worker takes the next solve of a pool: the first in the line of the waiting client
# served longest ago (base.fair_order's order), marked running. ARGV: prefix, kind, pid,
# host, now, and the RQ job (the token) that runs it. The job's id, or nothing when none waits.
_TAKE = """
local prefix, kind = ARGV[1], ARGV[2]
local waiting, served = prefix .. 'waiting:' .. kind, prefix .. 'served:' .. kind
while true do
  local clients = redis.call('SMEMBERS', waiting)
  if #clients == 0 then return false end
  local best, turn = nil, nil
  for _, client in ipairs(clients) do
    local t = tonumber(redis.call('HGET', served, client) or '-1')
    if best == nil or t < turn or (t == turn and client < best) then best, turn = client, t end
  end
  local line = prefix .. 'line:' .. kind .. ':' .. best
  local id = redis.call('LPOP', line)
  if redis.call('LLEN', line) == 0 then redis.call('SREM', waiting, best) end
  if id then
    local key = prefix .. 'job:' .. id
    if redis.call('HGET', key, 'state') == 'queued' then
      redis.call('HSET', served, best, redis.call('INCR', prefix .. 'turns'))
      redis.call('HSET', key, 'state', 'running', 'pid', ARGV[3], 'host', ARGV[4],
                 'started', ARGV[5], 'rq', ARGV[6])
      redis.call('HINCRBY', key, 'version', 1)
      return id
    end
  end
end
"""


# Takes a permit when fewer than ARGV[3] are held: KEYS[1] the holders (a sorted set, each
# until its expiry), ARGV: now, the holder's expiry, the most at once, the holder.
_PERMIT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
return 1
"""


class Permits:
    """At most ``most`` of something at once across every web process (levels being made:
    each takes a solver for seconds), kept in Redis: a holder lasts ``ttl`` seconds at most,
    so a process that dies holding one frees it by then."""

    def __init__(self, url: str, name: str, most: int, ttl: float):
        self.client = connect(url)
        self.key = f"{PREFIX}permits:{name}"
        self.most = most
        self.ttl = ttl

    def take(self) -> str | None:
        """A permit's token, or None when ``most`` are held. With Redis away, a permit (the
        web process's own cap still holds)."""
        token = secrets.token_hex(8)
        now = time.time()
        try:
            taken = self.client.eval(_PERMIT, 1, self.key, now, now + self.ttl, self.most, token)
        except redis.RedisError:
            return token
        return token if taken else None

    def give(self, token: str) -> None:
        try:
            self.client.zrem(self.key, token)
        except redis.RedisError:
            pass  # it lapses by itself


def _key(job_id: str, part: str = "") -> str:
    return f"{PREFIX}job:{job_id}{':' + part if part else ''}"


def _owner_key(owner: str) -> str:
    return f"{PREFIX}owner:{owner}"


def _latest_key(owner: str, board: str) -> str:
    return f"{PREFIX}latest:{owner}:{board}"


def _line_key(kind: str, client: str) -> str:
    return f"{PREFIX}line:{kind}:{client}"


def _waiting_key(kind: str) -> str:
    return f"{PREFIX}waiting:{kind}"


def _served_key(kind: str) -> str:
    return f"{PREFIX}served:{kind}"


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


def _orphaned(watched: Any, watching: int) -> bool:
    """Whether a solve's pages are all gone: it was started for a page (``watched``) and no
    entry of its watch set lasts until now (``watching`` counts those that do)."""
    return bool(watched) and not watching


def _look(pipe: Any, job_id: str, now: float) -> None:
    """Queue on ``pipe`` what ``_orphaned`` needs: the record's mark and the live entries."""
    pipe.hget(_key(job_id), "watched")
    pipe.zcount(_key(job_id, "watch"), now, "+inf")


# -- in the worker's horse ------------------------------------------------------------------------
def run_next(kind: str) -> str:
    """The RQ task behind every token: run the solve of the pool ``kind`` whose turn it is."""
    token = get_current_job()
    client = token.connection
    die_with_parent()
    host, now = os.uname().nodename, repr(time.time())
    taken = client.eval(_TAKE, 0, PREFIX, kind, os.getpid(), host, now, token.id)
    if not taken:
        return "nothing waiting"
    return _run(client, taken.decode())


def _run(client: redis.Redis, job_id: str) -> str:
    """Run one solve (already marked running), writing its progress and result into Redis."""
    record = client.hgetall(_key(job_id))
    if record.get(b"call"):
        return _run_call(client, job_id, record)
    request: Request = pickle.loads(record[b"request"])
    keep = float(record.get(b"keep", b"1800"))
    stop = _beating(client, job_id)
    confine(request.limits.memory_mb or 2048)
    checked = [0.0, False]

    def cancelled() -> bool:
        now = time.monotonic()
        if checked[1] or now - checked[0] < CANCEL_CHECK:
            return checked[1]
        checked[0] = now
        try:
            pipe = client.pipeline()
            pipe.exists(_key(job_id, "cancel"))
            _look(pipe, job_id, time.time())
            flag, watched, watching = pipe.execute()
        except redis.RedisError:
            return False  # Redis away: the solve goes on within its limits
        checked[1] = bool(flag) or _orphaned(watched, watching)
        return checked[1]

    history = Thinned()

    def report(progress: Progress) -> None:
        # The whole search in at most HISTORY_POINTS + 1 points, written over each time.
        history.append((progress.elapsed, progress.expanded, progress.frontier))
        points = [json.dumps(list(point)) for point in history]
        try:
            pipe = client.pipeline()
            pipe.hset(_key(job_id), "progress", pickle.dumps(progress))
            pipe.delete(_key(job_id, "history"))
            pipe.rpush(_key(job_id, "history"), *points)
            pipe.hincrby(_key(job_id), "version", 1)
            pipe.execute()
        except redis.RedisError:
            pass

    try:
        result = run_request(request, report, cancelled)
    finally:
        stop.set()
    _finish(client, job_id, request.owner, result, keep)
    client.delete(_key(job_id, "alive"))
    return result.status


def _beating(client: redis.Redis, job_id: str) -> threading.Event:
    """Say the job is alive every HEARTBEAT seconds, from a thread of its own, until the
    event returned is set (a dead horse's key then expires and the job is reaped)."""
    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.is_set():
            try:
                client.set(_key(job_id, "alive"), "1", px=int(HEARTBEAT_TTL * 1000))
            except redis.RedisError:
                pass
            stop.wait(HEARTBEAT)

    threading.Thread(target=heartbeat, daemon=True).start()
    return stop


def _run_call(client: redis.Redis, job_id: str, record: dict[bytes, bytes]) -> str:
    """Run a client's call that took its turn in a line (``RedisRunner._call``): its answer
    (or error) in the record, for the web process that waits on it."""
    target, args, memory_mb = pickle.loads(record[b"call"])
    keep = float(record.get(b"keep", b"300"))
    stop = _beating(client, job_id)
    confine(memory_mb)
    try:
        answer = ("ok", target(*args))
    except BaseException as exc:  # noqa: BLE001 - reported to the web process, which says it
        answer = ("error", f"{type(exc).__name__}: {exc}")
    finally:
        stop.set()
    client.hset(_key(job_id), "answer", pickle.dumps(answer))
    _finish(client, job_id, CALLER, Result(status="solved"), keep)
    client.delete(_key(job_id, "alive"))
    return answer[0]


def run_call(target: Callable[..., Any], args: tuple, memory_mb: int) -> Any:
    """The RQ task for a one-off computation (a distance table), capped like the embedded one."""
    die_with_parent()
    confine(memory_mb)
    return target(*args)


# -- in the web processes ------------------------------------------------------------------------
class RedisRunner(JobRunner):
    """The solves of every web process, through Redis; see the module's docstring."""

    def __init__(self, url: str, **rules: Any):
        """``rules``: JobRunner's (the grace, the admission's counts)."""
        super().__init__(**rules)
        self.client = connect(url)
        self.queues = {pool: Queue(name, connection=self.client) for pool, name in POOLS.items()}
        self.queue = self.queues[Pool.SOLVES]
        #: This process's name in the watch sets of the solves its pages follow.
        self.name = secrets.token_hex(6)
        self.jobs: dict[str, Job] = {}  # the solves this process mirrors
        self._seen: dict[str, int] = {}  # their Redis versions last read
        self._touched: dict[str, float] = {}
        self._local_watchers: dict[str, int] = {}
        self.lock = threading.RLock()
        self._last_reap = 0.0
        threading.Thread(target=self._follow_forever, daemon=True).start()

    @property
    def max_running(self) -> int:  # type: ignore[override]
        """Solves that can run at once: the workers listening for solves now."""
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
        client, kind = self.client, request.pool.value
        with client.lock(PREFIX + "submit", timeout=5, blocking_timeout=5):
            self._reap_dead(client.smembers(_owner_key(request.owner)))
            mine = [member.decode() for member in client.smembers(_owner_key(request.owner))]
            boards = [client.hget(_key(job_id), "board") for job_id in mine]
            lines = self._lines(kind)
            self.admission.check(
                request,
                mine_going=len(mine),
                board_taken=request.board.encode() in boards,
                client_waiting=len(lines.get(request.queue_key, [])),
                queued=sum(len(line) for line in lines.values()),
            )
            job_id = secrets.token_urlsafe(12)
            now = time.time()
            pipe = client.pipeline()
            pipe.hset(
                _key(job_id),
                mapping={
                    "owner": request.owner,
                    "board": request.board,
                    "kind": kind,
                    "client": request.queue_key,
                    "state": "queued",
                    "version": 0,
                    "request": pickle.dumps(request),
                    "created": repr(now),
                    "watched": "1" if page else "",
                    "keep": int(self.keep_seconds),
                },
            )
            if page:  # until the page's socket opens, the page counts as watching
                until = now + max(CONNECT_GRACE, self.orphan_grace)
                pipe.zadd(_key(job_id, "watch"), {"page": until})
                pipe.expire(_key(job_id, "watch"), int(self.keep_seconds))
            pipe.sadd(ACTIVE, job_id)
            pipe.sadd(_owner_key(request.owner), job_id)
            pipe.set(_latest_key(request.owner, request.board), job_id, ex=int(self.keep_seconds))
            # A client never served goes after those waiting already, before any served one.
            arrival = client.incr(PREFIX + "turns") - 10**15
            pipe.hsetnx(_served_key(kind), request.queue_key, arrival)
            pipe.rpush(_line_key(kind, request.queue_key), job_id)
            pipe.sadd(_waiting_key(kind), request.queue_key)
            pipe.execute()
            try:
                self._token(kind, request.limits.seconds)
            except Exception:
                # Never queued: end its record at once, or the board would stay "taken".
                lost = Result(status="error", error="the solver queue did not take this solve")
                self._cancel_queued(job_id, request.owner, lost)
                raise
        job = self._mirror(job_id, request)
        self._refresh(job)
        return job

    def _token(self, kind: str, seconds: float | None = None) -> None:
        """One more turn for a free worker of the pool: it runs whichever solve is next."""
        self.queues[kind].enqueue_call(
            run_next,
            args=(kind,),
            timeout=int((seconds or 3600) + 30),
            result_ttl=60,
            failure_ttl=300,
        )

    def _lines(self, kind: str) -> dict[str, list[str]]:
        """Each waiting client's line of a pool, its job ids in the order they came."""
        clients = [member.decode() for member in self.client.smembers(_waiting_key(kind))]
        pipe = self.client.pipeline(transaction=False)
        for queue_key in clients:
            pipe.lrange(_line_key(kind, queue_key), 0, -1)
        lines = pipe.execute() if clients else []
        return {
            queue_key: [job_id.decode() for job_id in line]
            for queue_key, line in zip(clients, lines, strict=True)
            if line
        }

    def _mirror(self, job_id: str, request: Request) -> Job:
        job = Job(id=job_id, request=request, _stop=self.cancel)
        with self.lock:
            job = self.jobs.setdefault(job_id, job)
            self._seen.setdefault(job_id, -1)
            self._touched[job_id] = time.monotonic()
        return job

    def _call(
        self, target: Callable[..., Any], args: tuple, timeout: float, memory_mb: int, client: str
    ) -> Any:
        """Run ``target(*args)`` on a worker and return its result: a client's call in its
        turn in the solves' lines, the site's own at the front of RQ's queue."""
        if client:
            try:
                return self._client_call(target, args, timeout, memory_mb, client)
            except redis.RedisError as exc:
                raise RuntimeError(f"the solver queue is unreachable: {exc}") from None
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

    def _client_call(
        self, target: Callable[..., Any], args: tuple, timeout: float, memory_mb: int, client: str
    ) -> Any:
        """Queue the call in ``client``'s line of the solves' pool, as a solve is queued, and
        wait for the worker that takes it in its turn to write the answer."""
        deadline = time.monotonic() + timeout
        job_id = secrets.token_urlsafe(12)
        keep = max(60, int(timeout) + 60)
        with self.client.lock(PREFIX + "submit", timeout=5, blocking_timeout=5):
            arrival = self.client.incr(PREFIX + "turns") - 10**15
            pipe = self.client.pipeline()
            pipe.hset(
                _key(job_id),
                mapping={
                    "owner": CALLER,
                    "board": "",
                    "kind": "solve",
                    "client": client,
                    "state": "queued",
                    "version": 0,
                    "call": pickle.dumps((target, args, memory_mb)),
                    "created": repr(time.time()),
                    "watched": "",
                    "keep": keep,
                },
            )
            pipe.expire(_key(job_id), keep + int(timeout))
            pipe.sadd(ACTIVE, job_id)
            pipe.hsetnx(_served_key("solve"), client, arrival)
            pipe.rpush(_line_key("solve", client), job_id)
            pipe.sadd(_waiting_key("solve"), client)
            pipe.execute()
            self._token("solve", timeout)
        while time.monotonic() < deadline:
            state, answer = self.client.hmget(_key(job_id), "state", "answer")
            if state == b"done":
                if answer is None:
                    raise RuntimeError("the worker stopped before it answered")
                kind, payload = pickle.loads(answer)
                if kind != "ok":
                    raise RuntimeError(payload)
                return payload
            time.sleep(0.1)
        state, taken = self.client.hmget(_key(job_id), "state", "rq")
        if state == b"queued":
            self._cancel_queued(job_id, CALLER)
        elif state == b"running" and taken:
            try:
                send_stop_job_command(self.client, taken.decode())
            except Exception:  # noqa: BLE001 - it ended meanwhile: nothing to stop
                pass
        raise TimeoutError(f"no answer within {timeout:g} s")

    def queue_position(self, job: Job) -> int:
        if job.state != "queued":
            return 0
        kind = job.request.pool.value
        try:
            lines = self._lines(kind)
            clients = list(lines)
            turns = self.client.hmget(_served_key(kind), clients) if clients else []
        except redis.RedisError:
            return 0
        served = {c: float(t) for c, t in zip(clients, turns, strict=True) if t is not None}
        return position_in(fair_order(lines, served), job.id)

    def running(self, pool: Pool = Pool.SOLVES) -> int:
        try:
            members = [member.decode() for member in self.client.smembers(ACTIVE)]
            pipe = self.client.pipeline()
            for job_id in members:
                pipe.hmget(_key(job_id), "state", "kind")
            return sum(
                1
                for state, of in pipe.execute()
                if state == b"running" and (of or b"solve").decode() == pool.value
            )
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
        job = self._mirror(job_id, request)
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
                job.end(Result(status="error", error="the solver lost this solve"))
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
        job.history.load(tuple(json.loads(point)) for point in history)
        state = record.get(b"state", b"queued").decode()
        if state == "done":
            job.end(pickle.loads(record[b"result"]))
        elif state == "running":
            job.begin(int(record[b"pid"]) if record.get(b"pid") else None)
        else:
            job.bump()
        return True

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
                self._drop(job.id)

    def _drop(self, job_id: str) -> None:
        self.jobs.pop(job_id, None)
        self._seen.pop(job_id, None)
        self._touched.pop(job_id, None)

    def follow(self) -> None:
        """Bring the mirrored solves up to date (their versions in one round trip); forget
        ones nobody here looks at; every second, renew this process's watch entries and look
        for solves that died or lost their pages."""
        now = time.monotonic()
        with self.lock:
            jobs = list(self.jobs.values())
        followed = []
        for job in jobs:
            idle = now - self._touched.get(job.id, now)
            if self._local_watchers.get(job.id, 0) == 0 and idle > FOLLOW_SECONDS:
                with self.lock:
                    self._drop(job.id)
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
            self._renew_watches()
            self.reap()

    def _renew_watches(self) -> None:
        """This process's pages still follow these solves: say so for a few seconds more. A
        process that dies stops renewing, and its solves lose their pages within WATCH_TTL."""
        with self.lock:
            watched = [job_id for job_id, count in self._local_watchers.items() if count > 0]
        if watched:
            pipe = self.client.pipeline(transaction=False)
            for job_id in watched:
                pipe.zadd(_key(job_id, "watch"), {self.name: time.time() + WATCH_TTL})
            pipe.execute()

    def _reap_dead(self, job_ids: Any) -> None:
        """End the running solves whose horse stopped beating (killed, or its worker was),
        and take out of the queue those whose pages went away before a worker took them."""
        now = time.time()
        client = self.client
        ids = [raw.decode() if isinstance(raw, bytes) else raw for raw in job_ids]
        if not ids:
            return
        pipe = client.pipeline(transaction=False)
        for job_id in ids:
            pipe.hmget(_key(job_id), "state", "started", "owner")
            pipe.exists(_key(job_id, "alive"))
            _look(pipe, job_id, now)
        answers = pipe.execute()
        for index, job_id in enumerate(ids):
            (state, started, owner), alive, watched, watching = answers[4 * index : 4 * index + 4]
            if state is None:  # the record is gone: so is the solve
                client.srem(ACTIVE, job_id)
                continue
            if state == b"queued" and _orphaned(watched, watching):
                # Its page went away before a worker took it: it never runs (as in the
                # embedded runner), so solves nobody watches cannot shut others out.
                self._cancel_queued(job_id, owner.decode())
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

    def _heal_tokens(self) -> None:
        """Every queued solve has a token in its pool's RQ queue (one lost with a worker
        that died before taking its solve is made again); a token too many finds nothing."""
        for kind, queue in self.queues.items():
            missing = sum(len(line) for line in self._lines(kind).values()) - queue.count
            for _ in range(max(0, missing)):
                self._token(kind)
        served = _served_key("solve")
        if self.client.hlen(served) > SERVED_KEPT:
            waiting = {m.decode() for m in self.client.smembers(_waiting_key("solve"))}
            gone = [c for c in self.client.hkeys(served) if c.decode() not in waiting]
            self.client.hdel(served, *gone)

    # -- stopping -----------------------------------------------------------------------------
    def _cancel_queued(self, job_id: str, owner: str, result: Result | None = None) -> None:
        """Take a solve out of its line before any worker runs it, and end its record."""
        kind, queue_key = self.client.hmget(_key(job_id), "kind", "client")
        if kind and queue_key:
            line = _line_key(kind.decode(), queue_key.decode())
            self.client.lrem(line, 0, job_id)
            if not self.client.llen(line):
                self.client.srem(_waiting_key(kind.decode()), queue_key)
        self.client.set(_key(job_id, "cancel"), "1", ex=int(self.keep_seconds))
        ended = result or Result(status="cancelled")
        _finish(self.client, job_id, owner, ended, self.keep_seconds)

    def cancel(self, job: Job) -> None:
        """Queued: taken out of its line at once; running: the flag, then RQ kills the horse."""
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
        try:  # the RQ job whose horse runs the solve: the token it took
            send_stop_job_command(self.client, self.client.hget(_key(job.id), "rq").decode())
        except Exception:  # noqa: BLE001 - the horse ended meanwhile
            pass

    def watch(self, job: Job) -> None:
        with self.lock:
            self._local_watchers[job.id] = self._local_watchers.get(job.id, 0) + 1
        try:
            pipe = self.client.pipeline()
            pipe.zadd(_key(job.id, "watch"), {self.name: time.time() + WATCH_TTL})
            pipe.zrem(_key(job.id, "watch"), "page")
            pipe.expire(_key(job.id, "watch"), int(self.keep_seconds))
            pipe.execute()
        except redis.RedisError:
            pass

    def unwatch(self, job: Job) -> None:
        """A page of this process stopped following; with none left here, this process's
        entry lasts the grace (a reload comes back within it), then lapses."""
        with self.lock:
            left = self._local_watchers.get(job.id, 1) - 1
            if left > 0:
                self._local_watchers[job.id] = left
            else:
                self._local_watchers.pop(job.id, None)
        self._touched[job.id] = time.monotonic()
        if left > 0:
            return
        try:
            self.client.zadd(_key(job.id, "watch"), {self.name: time.time() + self.orphan_grace})
        except redis.RedisError:
            pass

    def reap(self) -> None:
        self._reap_dead(self.client.smembers(ACTIVE))
        self._heal_tokens()

    def shutdown(self) -> None:
        """Nothing runs in this process: the workers' solves stop when their pages go."""
