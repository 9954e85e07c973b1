"""Solver processes: results, queueing, one solve per board, cancel, kill, memory limit."""

from __future__ import annotations

import pytest

from tests.conftest import process_gone, wait_until
from webapp.games import get
from webapp.jobs import embedded as runner_module
from webapp.jobs.base import Busy, Job, Request, wait_for
from webapp.jobs.embedded import Child, Runner
from webapp.jobs.work import Solve
from webapp.search import Limits

GAME = get("sokoban")
LEVELS = GAME.parse(
    (
        __import__("pathlib").Path(__file__).resolve().parents[1]
        / "levels"
        / "sokoban"
        / "xsokoban.xsb"
    ).read_text()
)
SMALL = "#######\n#@ $ .#\n#######"
BIG = GAME.level_text(LEVELS[4])  # far beyond a breadth-first search's reach in a test


def request(text: str, board: str, algorithm: str = "bfs", moves=(), **limits) -> Request:
    return Request(
        "sokoban",
        text,
        Solve(algorithm, tuple(moves)),
        Limits(**{"seconds": 30, **limits}),
        owner="p1",
        board=board,
    )


@pytest.fixture
def runner():
    running = Runner(max_running=1, orphan_grace=0.5)
    yield running
    running.shutdown()


def test_a_solve_runs_in_another_process_and_reports_its_result(runner):
    import os

    job = runner.submit(request(SMALL, "a"))
    assert wait_for(job, lambda j: j.state == "done", 30)
    assert job.pid and job.pid != os.getpid()
    assert job.result.status == "solved" and job.result.moves == ["r", "R", "R"]


def test_a_solve_from_a_position_starts_there(runner):
    job = runner.submit(request(SMALL, "a", moves=["r", "R"]))
    assert wait_for(job, lambda j: j.state == "done", 30)
    assert job.result.moves == ["R"]


def test_solves_beyond_the_cap_queue_and_one_board_takes_one_solve(runner):
    first = runner.submit(request(BIG, "big"))
    second = runner.submit(request(SMALL, "small"))
    assert runner.queue_position(second) == 1 and second.state == "queued"
    with pytest.raises(Busy):
        runner.submit(request(SMALL, "big"))
    assert wait_for(first, lambda j: j.progress is not None and j.progress.expanded > 0, 20)
    assert runner.queue_position(first) == 0  # running, not queued
    runner.cancel(first)
    assert wait_for(second, lambda j: j.state == "done", 30)
    assert first.result.status == "cancelled" and second.result.status == "solved"
    assert runner.submit(request(SMALL, "big"))  # the board is free again


def test_cancel_stops_the_process(runner):
    job = runner.submit(request(BIG, "big"))
    assert wait_for(job, lambda j: j.progress is not None, 20)
    runner.cancel(job)
    assert wait_for(job, lambda j: j.state == "done", 10)
    assert job.result.status == "cancelled"
    assert wait_until(lambda: process_gone(job.pid), 10)


def test_a_process_that_ignores_the_flag_is_killed(runner):
    import time

    process = runner.context.Process(target=time.sleep, args=(60,), daemon=True)
    process.start()
    job = Job(id="stubborn", request=request(SMALL, "x"), state="running")
    runner.children[job.id] = Child(cancel=runner.context.Event(), process=process)
    runner.cancel(job)
    assert wait_until(lambda: not process.is_alive(), 10)


def test_an_unwatched_solve_is_cancelled_after_the_grace(runner):
    job = runner.submit(request(BIG, "big"))
    runner.watch(job)
    assert wait_for(job, lambda j: j.state == "running", 20)
    runner.unwatch(job)
    assert wait_for(job, lambda j: j.state == "done", 15)
    assert job.result.status == "cancelled"


def test_a_solve_whose_page_never_opens_its_socket_is_cancelled_after_the_grace(
    runner, monkeypatch
):
    # A page closed between starting a solve and opening its socket never unwatches it.
    monkeypatch.setattr(runner_module, "CONNECT_GRACE", 0.0)  # the orphan grace alone
    job = runner.submit(request(BIG, "big"), page=True)
    assert wait_for(job, lambda j: j.state == "done", 15)
    assert job.result.status == "cancelled"
    assert job.pid is None or wait_until(lambda: process_gone(job.pid), 10)


def test_a_page_that_opens_its_socket_in_time_keeps_its_solve(runner, monkeypatch):
    import time

    monkeypatch.setattr(runner_module, "CONNECT_GRACE", 0.0)  # the orphan grace alone
    job = runner.submit(request(BIG, "big"), page=True)
    runner.watch(job)
    time.sleep(1.5)  # three times the grace
    assert job.state == "running"
    runner.unwatch(job)


def test_the_memory_limit_stops_a_search(runner):
    job = runner.submit(request(BIG, "big", memory_mb=80))
    assert wait_for(job, lambda j: j.state == "done", 60)
    assert job.result.status == "memory-limit"


def test_jobs_are_only_found_by_their_owner(runner):
    job = runner.submit(request(SMALL, "a"))
    assert runner.get(job.id, "p1") is job
    assert runner.get(job.id, "someone else") is None


def test_call_runs_a_computation_in_a_child_and_returns_its_value(runner):
    import os

    assert runner.call(os.getpid) != os.getpid()
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        runner.call(divmod, 1, 0)


def _kernels_in_memory() -> bool:
    """In a solver child: were the compiled kernels readied before the fork? (A dispatcher
    that has run holds its machine code in ``overloads``.)"""
    import sys

    from webapp.games.sliding import kernels as sliding
    from webapp.games.vexed import kernels as vexed

    return (
        "webapp.jobs.warmed" in sys.modules
        and bool(sliding.pdb_ida.overloads)
        and bool(sliding.beam_layer.overloads)
        and bool(vexed.astar.overloads)
    )


def test_solver_children_start_with_the_kernels_ready(runner):
    # The fork server imports webapp.jobs.warmed, so no solve or hint pays numba's import and
    # cache load (about half a second) in its own child.
    assert runner.call(_kernels_in_memory, timeout=120) is True


def test_call_gives_up_after_its_timeout(runner):
    import time

    with pytest.raises(TimeoutError):
        runner.call(time.sleep, 30, timeout=0.5)


def test_a_solver_that_stops_answering_is_stopped_after_its_time_limit(runner, monkeypatch):
    import time

    import webapp.jobs.embedded as module

    monkeypatch.setattr(module, "OVERDUE_GRACE", 0.5)
    process = runner.context.Process(target=time.sleep, args=(60,), daemon=True)
    process.start()
    job = Job(id="silent", request=request(SMALL, "x", seconds=0.5), state="running")
    job.started = time.monotonic()
    child = runner.children[job.id] = Child(cancel=runner.context.Event(), process=process)
    runner.jobs[job.id] = job
    assert wait_until(lambda: child.overdue, 5)
    assert wait_until(lambda: not process.is_alive(), 10)


def test_a_player_has_a_few_solves_at_once_and_the_queue_is_bounded():
    running = Runner(max_running=1, max_queued=3, per_owner=2)
    try:
        running.submit(request(BIG, "one"))
        running.submit(request(BIG, "two"))
        with pytest.raises(Busy, match="already have 2 solves"):
            running.submit(request(BIG, "three"))
        others = [
            Request("sokoban", BIG, Solve("bfs"), Limits(30), f"other{n}", "b") for n in range(4)
        ]
        running.submit(others[0])
        running.submit(others[1])
        with pytest.raises(Busy, match="queue is full"):
            running.submit(others[2])
    finally:
        running.shutdown()
        for job in list(running.jobs.values()):
            running.cancel(job)


def test_a_solver_process_that_crashes_is_reported_and_the_runner_goes_on(runner):
    import os
    import signal

    # A long solve's process killed outright (as the kernel's out-of-memory killer does): no
    # exception, no message, only a pipe that closes.
    job = runner.submit(request(BIG, "big"))
    assert wait_for(job, lambda j: j.progress is not None and j.progress.expanded > 0, 20)
    os.kill(job.pid, signal.SIGKILL)
    assert wait_for(job, lambda j: j.state == "done", 15)
    assert job.result.status == "error"
    assert job.result.error == "the solver process was killed (out of memory?)"
    after = runner.submit(request(SMALL, "fine"))
    assert wait_for(after, lambda j: j.state == "done", 30)
    assert after.result.status == "solved"


def test_a_solver_process_that_dies_of_an_error_is_reported(runner):
    crash = Request("no-such-game", SMALL, Solve("bfs"), Limits(5), "p1", "crash")
    job = runner.submit(crash)
    assert wait_for(job, lambda j: j.state == "done", 30)
    assert job.result.status == "error" and "no-such-game" in job.result.error


@pytest.mark.skipif(not hasattr(__import__("os"), "SCHED_IDLE"), reason="Linux only")
def test_a_solver_gets_the_cpu_only_when_the_server_leaves_it(runner):
    import os

    job = runner.submit(request(BIG, "idle"))
    assert wait_for(job, lambda j: j.progress is not None, 20)  # past its start-up
    assert os.sched_getscheduler(job.pid) == os.SCHED_IDLE
    runner.cancel(job)
