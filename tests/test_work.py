"""The typed work a job carries (webapp/jobs/work.py): each kind names its pool, a request
answers the panel's questions from its work, and a result says what it carries by its type."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from tests.test_runner import SMALL
from webapp.checking import Status, Verdict
from webapp.jobs.base import Request
from webapp.jobs.child import run_request
from webapp.jobs.work import Check, Checked, Improve, Pool, Solve, Trace, Traced, verdict_of
from webapp.search import Limits, Result


def request(work: object) -> Request:
    return Request("sokoban", SMALL, work, Limits(seconds=10), "p", "b")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("work", "pool"),
    [
        (Solve("bfs"), Pool.SOLVES),
        (Solve("bfs", hint=True), Pool.HINTS),
        (Check(), Pool.HINTS),  # the designer waits on it: never behind long solves
        (Improve(("r", "R", "R"), "moves"), Pool.SOLVES),
        (Trace("bfs"), Pool.SOLVES),
    ],
)
def test_each_kind_of_work_waits_in_its_own_pool(work, pool):
    assert request(work).pool is pool


def test_a_request_tells_the_panel_its_start_and_its_search_from_its_work():
    solve = request(Solve("astar", ("r", "R")))
    # A list, as the player's moves are: the panel compares the two to know the start.
    assert solve.moves == ["r", "R"] and solve.algorithm == "astar"
    assert request(Trace("bfs")).algorithm == "bfs" and request(Trace("bfs")).moves == []
    improve = request(Improve(("r", "l", "r", "R", "R"), "moves"))
    assert improve.moves == [] and improve.algorithm == ""
    assert request(Check()).moves == [] and request(Check()).algorithm == ""


def test_work_is_a_value_it_cannot_change_on_its_way():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Solve("bfs").algorithm = "fast"  # type: ignore[misc]
    crossed = pickle.loads(pickle.dumps(request(Improve(("r",), "moves"))))
    assert crossed.work == Improve(("r",), "moves") and crossed.pool is Pool.SOLVES


def test_only_a_checks_result_carries_a_verdict():
    verdict = Verdict(Status.SOLVABLE, "a solution", length=3, solution="rRR")
    assert verdict_of(Checked(status="solved", verdict=verdict)) is verdict
    assert verdict_of(Result(status="solved", extra={"verdict": verdict})) is None
    assert verdict_of(Traced(status="solved")) is None and verdict_of(None) is None
    crossed = pickle.loads(pickle.dumps(Checked(status="solved", verdict=verdict)))
    assert verdict_of(crossed) == verdict and verdict_of(crossed).status is Status.SOLVABLE


def test_work_of_no_known_kind_ends_in_an_error_the_player_can_read():
    result = run_request(request("check"), lambda progress: None, lambda: False)
    assert result.status == "error" and "no such work: 'check'" in result.error
