"""One contract, two transports: the same scenarios over the embedded runner (the web
process's fork server) and the scaled one (RQ workers on a real Redis).

Each runner has one solver for solves and a pool of one for hints: the scaled one gets one
worker for solves and one for hints (``--hints``), as ``make cluster`` starts them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import process_gone, wait_until
from tests.redis_server import RedisServer, start_worker
from tests.test_runner import BIG, GAME, SMALL
from webapp.checking import Status, Verdict
from webapp.games.solving import check_solution
from webapp.jobs.base import Busy, Job, JobRunner, Request, wait_for
from webapp.jobs.work import Check, Improve, Solve, Trace, Work, verdict_of
from webapp.search import Limits

SETTINGS = {"orphan_grace": 0.5, "per_owner": 10, "per_client_queued": 3, "max_queued": 32}


#: A breadth-first search from the level's start: what most scenarios queue.
BFS = Solve("bfs")
#: A level a box stuck in a corner makes impossible (the rules say so before any search).
STUCK = "#######\n#@  . #\n#$    #\n#######"


def ask(board: str, client: str, text: str = BIG, work: Work = BFS, **limits) -> Request:
    return Request(
        "sokoban",
        text,
        work,
        Limits(**{"seconds": 60, **limits}),
        owner=f"player-{client}",
        board=board,
        client=client,
    )


class Workers:
    """A Redis server and two RQ workers: one for solves (and hints), one for hints only."""

    def __init__(self, folder: Path):
        self.redis = RedisServer()
        self.folder = folder
        self.processes: list[subprocess.Popen] = []

    def start(self) -> None:
        self.redis.start()
        self.add(), self.add("--hints")

    def add(self, *flags: str) -> subprocess.Popen:
        worker = start_worker(self.redis.url, self.folder / "workers.log", *flags)
        self.processes.append(worker)
        return worker

    def ready(self) -> bool:
        """Both workers listen (they import the solvers and ready the kernels first)."""
        import redis
        from rq import Worker

        client = redis.Redis.from_url(self.redis.url)
        alive = [w for w in self.processes if w.poll() is None]
        return len(Worker.all(connection=client)) >= len(alive)

    def stop(self) -> None:
        for worker in self.processes:
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            worker.wait(10)
        self.redis.remove()


@pytest.fixture(scope="module")
def workers(tmp_path_factory) -> Iterator[Workers]:
    running = Workers(tmp_path_factory.mktemp("workers"))
    try:
        running.start()
        assert wait_until(running.ready, 60), (running.folder / "workers.log").read_text()
        yield running
    finally:
        running.stop()


@pytest.fixture(params=["embedded", "scaled"])
def runner(request) -> Iterator[JobRunner]:
    if request.param == "embedded":
        from webapp.jobs.embedded import Runner

        made: JobRunner = Runner(max_running=1, max_hints=1, **SETTINGS)
    else:
        from webapp.jobs.scaled import RedisRunner

        workers = request.getfixturevalue("workers")
        if not workers.ready():  # a test killed one: the pool is made whole again
            workers.add()
            assert wait_until(workers.ready, 60)
        made = RedisRunner(workers.redis.url, **SETTINGS)
        for key in made.client.scan_iter("pl:*"):  # no solve of an earlier test left in line
            made.client.delete(key)
        for queue in made.queues.values():
            queue.empty()
        assert wait_until(workers.ready, 30)
    yield made
    for job in list(getattr(made, "jobs", {}).values()):
        job.stop()
    for job in list(getattr(made, "jobs", {}).values()):
        job.wait(15)
    made.shutdown()


def started(job: Job, timeout: float = 30) -> bool:
    """The solve runs, past its start (its process reported progress)."""
    return wait_for(job, lambda j: j.done or (j.state == "running" and j.progress), timeout)


def test_queued_solves_start_in_turns_across_three_clients(runner):
    first = runner.submit(ask("a-1", "a"))
    assert started(first) and first.state == "running"
    a = [runner.submit(ask(f"a-{n}", "a")) for n in (2, 3)]
    b = [runner.submit(ask(f"b-{n}", "b")) for n in (1, 2)]
    c = [runner.submit(ask("c-1", "c"))]
    # a was served last: b and c (in the order they came) before a's next, then in turns.
    expected = [b[0], c[0], a[0], b[1], a[1]]
    assert [runner.queue_position(job) for job in expected] == [1, 2, 3, 4, 5]
    first.stop()
    assert started(b[0])
    assert b[0].state == "running" and a[0].state == "queued" and c[0].state == "queued"
    b[0].stop()
    assert started(c[0]) and a[0].state == "queued"


def test_one_client_keeps_only_a_few_solves_waiting(runner):
    running = runner.submit(ask("x-0", "x"))
    assert started(running)
    waiting = [runner.submit(ask(f"x-{n}", "x")) for n in (1, 2, 3)]
    assert all(job.state == "queued" for job in waiting)
    with pytest.raises(Busy, match="3 solves from you are waiting"):
        runner.submit(ask("x-4", "x"))
    assert runner.submit(ask("y-1", "y")).state == "queued"  # another client gets in


def test_a_hint_never_waits_behind_solves(runner):
    long = runner.submit(ask("long", "a"))
    assert started(long)
    queued = runner.submit(ask("next", "b"))
    hint = runner.submit(ask("small#hint", "c", text=SMALL, work=Solve("bfs", hint=True)))
    assert hint.wait(30) is not None and hint.result.status == "solved"
    assert long.state == "running" and queued.state == "queued"


def test_cancel_ends_a_queued_solve_at_once_and_stops_a_running_one(runner):
    running = runner.submit(ask("one", "a"))
    assert started(running)
    queued = runner.submit(ask("two", "a"))
    runner.cancel(queued)
    assert queued.wait(5) is not None and queued.result.status == "cancelled"
    pid = running.pid
    running.stop()
    assert running.wait(15) is not None and running.result.status == "cancelled"
    assert wait_until(lambda: process_gone(pid), 10)
    again = runner.submit(ask("two", "a", text=SMALL))  # both boards are free again
    assert again.wait(30) is not None and again.result.status == "solved"


def test_a_closed_page_stops_its_solve(runner):
    job = runner.submit(ask("watched", "a"), page=True)
    runner.watch(job)
    assert started(job)
    runner.unwatch(job)  # the page went away
    assert job.wait(20) is not None and job.result.status == "cancelled"
    assert wait_until(lambda: process_gone(job.pid), 10)


def test_a_killed_solver_ends_its_job_with_a_clear_message_and_frees_the_board(runner):
    job = runner.submit(ask("doomed", "a"))
    assert started(job)
    os.kill(job.pid, signal.SIGKILL)  # as the out-of-memory killer would
    assert job.wait(20) is not None
    assert job.result.status == "error" and "solver process" in job.result.error
    after = runner.submit(ask("doomed", "a", text=SMALL))
    assert after.wait(30) is not None and after.result.status == "solved"


def test_the_memory_and_time_limits_stop_a_search(runner):
    hungry = runner.submit(ask("hungry", "a", memory_mb=80))
    assert hungry.wait(60) is not None and hungry.result.status == "memory-limit"
    slow = runner.submit(ask("slow", "a", seconds=1.0))
    assert slow.wait(30) is not None and slow.result.status == "timeout"


def test_the_handle_knows_nothing_of_its_transport(runner):
    with runner.submit(ask("handle", "a")) as job:
        reports = iter(job)
        assert next(reports).expanded >= 0  # progress, as the solve reports it
    assert job.wait(15) is not None and job.result.status == "cancelled"  # `with` stopped it
    assert runner.get(job.id, "player-a") is job and runner.get(job.id, "someone") is None
    assert runner.latest("player-a", "handle") is job


def call_waiting(runner: JobRunner, client: str) -> bool:
    """Whether a call made for ``client`` waits for a solver, wherever the transport keeps it
    (its line, or the place a call for no client waits)."""
    if hasattr(runner, "_tickets"):
        return any(t.client == client for t in runner._tickets) or bool(runner._calls_waiting)
    return bool(runner.client.llen(f"pl:line:solve:{client}") or runner.queue.count)


def test_a_level_made_for_a_client_does_not_jump_a_queued_solve(runner):
    """Levels made to order are a client's work like its solves: a call for client c waits
    its turn behind b's solve that was queued first (it used to go ahead of every solve)."""
    long = runner.submit(ask("long", "a"))
    assert started(long)
    queued = runner.submit(ask("queued", "b"))
    answers: list[int] = []
    asking = threading.Thread(
        target=lambda: answers.append(runner.call(os.getpid, timeout=90, client="c"))
    )
    asking.start()
    assert wait_until(lambda: call_waiting(runner, "c"), 10)
    long.stop()
    assert started(queued) and queued.state == "running"
    assert not answers and call_waiting(runner, "c")  # still waiting behind b's solve
    queued.stop()
    asking.join(60)
    assert answers and answers[0] != os.getpid()  # then made, in a child of its own


def test_a_check_comes_back_as_its_verdict_and_waits_behind_no_solve(runner):
    """The editor's check is typed work: it runs in the hints' pool (a long solve holds the
    only solver) and its verdict crosses the transport as a Verdict, not a dict."""
    long = runner.submit(ask("long", "a"))
    assert started(long)
    solvable = runner.submit(ask("small#edit", "b", text=SMALL, work=Check(), seconds=20))
    assert solvable.wait(30) is not None and long.state == "running"
    verdict = verdict_of(solvable.result)
    assert isinstance(verdict, Verdict) and verdict.status is Status.SOLVABLE
    assert verdict.optimal and verdict.length == 2 and verdict.metric == "pushes"
    level = GAME.parse(SMALL)[0]
    assert (
        check_solution(GAME, level, GAME.start(level), GAME.split_moves(verdict.solution)) is None
    )
    stuck = runner.submit(ask("stuck#edit", "c", text=STUCK, work=Check(), seconds=20))
    assert stuck.wait(30) is not None and stuck.result.status == "unsolvable"
    proof = verdict_of(stuck.result)
    assert proof is not None and proof.status is Status.UNSOLVABLE and proof.squares == [(2, 1)]


def test_an_improvement_comes_back_shorter_with_the_solution_it_started_from(runner):
    given = ("r", "l", "r", "R", "R")  # a step there and back before the two pushes
    improve = runner.submit(ask("small", "a", text=SMALL, work=Improve(given, "moves")))
    assert improve.wait(30) is not None and improve.result.status == "solved"
    assert improve.result.moves == ["r", "R", "R"] and improve.result.cost == 3
    assert improve.result.extra["shortened_from"] == {"moves": 5, "pushes": 2}
    assert improve.request.moves == [] and isinstance(improve.request.work, Improve)


def test_a_trace_comes_back_with_each_expansion_in_order(runner):
    traced = runner.submit(ask("small#trace", "a", text=SMALL, work=Trace("bfs", steps=50)))
    assert traced.wait(30) is not None and traced.result.status == "solved"
    steps = traced.result.steps
    assert [step["step"] for step in steps] == list(range(len(steps))) and steps
    assert steps[0]["position"] == SMALL and traced.result.expanded == len(steps)
    unknown = runner.submit(ask("small#trace2", "a", text=SMALL, work=Trace("fast")))
    assert unknown.wait(30) is not None and unknown.result.status == "error"
    assert "'fast' cannot be traced; traceable: bfs, astar, moves" in unknown.result.error
