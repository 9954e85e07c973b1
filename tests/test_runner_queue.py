"""The solver queue of issue #20: turns across clients, a cap on one client's waiting solves,
hints in a pool of their own, computations within the running cap at low priority, and a
started job that no longer keeps its level's text."""

from __future__ import annotations

import os

import pytest

from tests.test_runner import BIG, SMALL
from webapp.jobs.base import Busy, Request, wait_for
from webapp.jobs.embedded import Runner
from webapp.jobs.work import Solve
from webapp.search import Limits


def request(text: str, board: str, client: str, hint: bool = False, owner: str = "") -> Request:
    return Request(
        "sokoban",
        text,
        Solve("bfs", hint=hint),
        Limits(seconds=30),
        owner=owner or client,
        board=board,
        client=client,
    )


@pytest.fixture
def runner():
    running = Runner(max_running=1, orphan_grace=60, per_owner=10, per_client_queued=3)
    yield running
    for job in list(running.jobs.values()):
        job.stop()
    running.shutdown()


def test_queued_solves_start_in_turns_across_clients(runner):
    flood = [runner.submit(request(BIG, f"board-{n}", "flood")) for n in range(3)]
    assert wait_for(flood[0], lambda j: j.state == "running", 20)
    other = runner.submit(request(SMALL, "small", "other"))
    # The flooding client was served last: the other client's solve goes next, not third.
    assert runner.queue_position(other) == 1
    assert [runner.queue_position(job) for job in flood[1:]] == [2, 3]
    flood[0].stop()
    assert wait_for(other, lambda j: j.state == "running" or j.done, 20)
    assert flood[1].state == "queued"


def test_one_client_may_keep_only_a_few_solves_waiting(runner):
    jobs = [runner.submit(request(BIG, f"board-{n}", "flood")) for n in range(4)]
    assert sum(job.state == "queued" for job in jobs) == 3
    with pytest.raises(Busy, match="waiting for a solver already"):
        runner.submit(request(BIG, "board-4", "flood", owner="another-cookie"))
    assert runner.submit(request(SMALL, "small", "other"))  # another client is not held up


def test_a_hint_does_not_wait_behind_running_solves(runner):
    long = runner.submit(request(BIG, "big", "a"))
    assert wait_for(long, lambda j: j.state == "running", 20)
    queued = runner.submit(request(BIG, "big-2", "b"))
    hint = runner.submit(request(SMALL, "small#hint", "c", hint=True))
    assert wait_for(hint, lambda j: j.done, 30)
    assert hint.result.status == "solved"
    assert long.state == "running" and queued.state == "queued"


def test_a_started_job_forgets_its_level_text(runner):
    job = runner.submit(request(SMALL, "small", "a"))
    assert wait_for(job, lambda j: j.done, 30)
    assert job.result.status == "solved"
    assert job.request.level_text == ""


def test_computations_run_at_low_priority_within_the_running_cap(runner):
    assert runner.call(os.nice, 0) >= 10  # the child's niceness: the solvers' own
    long = runner.submit(request(BIG, "big", "a"))
    assert wait_for(long, lambda j: j.state == "running", 20)
    with pytest.raises(TimeoutError, match="no free solver"):
        runner.call(os.getpid, timeout=1.0)
    long.stop()
    assert wait_for(long, lambda j: j.done, 20)
    assert runner.call(os.getpid) != os.getpid()


def test_the_client_address_behind_a_trusted_proxy(tmp_path):
    from webapp import create_app
    from webapp.web.live import client_address

    forwarded = {"X-Forwarded-For": "6.6.6.6, 10.0.0.7"}  # the first one the client wrote
    seen = []
    for proxies in (0, 1):
        app = create_app(
            {"TESTING": True, "INSTANCE_PATH": str(tmp_path / str(proxies)), "PROXIES": proxies}
        )
        app.add_url_rule("/client", "client", client_address)
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = "10.1.1.1"
        seen.append(client.get("/client", headers=forwarded).text)
    # No proxy trusted: the connection's; one: what the proxy saw, not what was claimed.
    assert seen == ["10.1.1.1", "10.0.0.7"]


def test_a_hint_is_not_refused_because_the_clients_solve_is_waiting(runner):
    running = runner.submit(request(BIG, "big", "a"))
    assert wait_for(running, lambda j: j.state == "running", 20)
    waiting = runner.submit(request(BIG, "big-2", "a"))
    assert waiting.state == "queued"
    hint = runner.submit(request(SMALL, "small#hint", "a", hint=True))  # not refused
    assert wait_for(hint, lambda j: j.done, 20)


def test_the_queues_last_places_are_kept_for_clients_with_nothing_waiting():
    """A few clients' floods fill the queue only so far: its last places go to clients with
    nothing waiting, one each, so a newcomer still gets in."""
    runner = Runner(max_running=1, max_queued=6, per_owner=10, per_client_queued=3, reserve=2)
    try:
        first = runner.submit(request(BIG, "big", "a"))
        assert wait_for(first, lambda j: j.state == "running", 20)
        for n in range(3):
            runner.submit(request(BIG, f"a-{n}", "a"))  # a keeps its 3 waiting
        runner.submit(request(BIG, "b-0", "b"))  # 4 of 6 waiting: the last 2 are kept
        with pytest.raises(Busy, match="last places are kept"):
            runner.submit(request(BIG, "b-1", "b"))
        runner.submit(request(BIG, "c-0", "c"))  # nothing waiting: let in
        runner.submit(request(BIG, "d-0", "d"))
        with pytest.raises(Busy, match="queue is full"):
            runner.submit(request(BIG, "e-0", "e"))
        # A queue full of solves never refuses a hint.
        hint = runner.submit(request(SMALL, "small#hint", "e", hint=True))
        assert wait_for(hint, lambda j: j.done, 20)
    finally:
        for job in list(runner.jobs.values()):
            job.stop()
        runner.shutdown()


def test_a_slow_process_start_holds_up_no_page_that_looks_up_a_solve(runner, monkeypatch):
    """Starting a solver through the fork server can take seconds on a busy machine; the
    runner's lock is not held meanwhile, so pages looking up solves are answered."""
    import threading

    release, entered = threading.Event(), threading.Event()
    launch = Runner._launch

    def slow_launch(self, job, child):
        entered.set()
        release.wait(20)
        return launch(self, job, child)

    monkeypatch.setattr(Runner, "_launch", slow_launch)
    submitted = []
    submit = threading.Thread(
        target=lambda: submitted.append(runner.submit(request(SMALL, "small", "a")))
    )
    submit.start()
    assert entered.wait(10)
    looked_up = []
    lookup = threading.Thread(target=lambda: looked_up.append(runner.latest("a", "small")))
    lookup.start()
    lookup.join(5)
    answered = not lookup.is_alive()
    release.set()
    lookup.join(5)
    submit.join(20)
    assert answered and looked_up == submitted
    job = submitted[0]
    assert wait_for(job, lambda j: j.done, 20) and job.result.status == "solved"
