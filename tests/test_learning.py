"""Step through a search and race solvers (webapp/web/learning.py), through the Flask client:
the step-through's expansions are ``trace``'s own, recorded in a solver child; a race runs
ordinary solves on boards of their own; racing the solver needs a win."""

from __future__ import annotations

import html
import json
import re
import time

import pytest

from tests.conftest import LEVELS, Player
from webapp import games
from webapp.games.solving import StepWriter, solve
from webapp.jobs import work
from webapp.jobs.base import Job, wait_for
from webapp.web.learning import Trace, search_kind
from webapp.web.solvers import get_runner

SOKOBAN = games.get("sokoban")
MICROBAN_1 = "/sokoban/microban/1"
#: Microban 1's shortest solution.
MICROBAN_1_SOLUTION = "dlUrrrdLullddrUluRuulDrddrruLdlUU"


def traced(game: games.Game, level, algorithm: str) -> list[dict]:
    """The expansions ``trace`` prints for a level, as the command line's writer collects them."""
    steps: list[dict] = []
    writer = StepWriter(game, level, steps.append, 5_000)
    solve(game, level, algorithm, tracer=writer)
    writer.close()
    return steps


def recorded(client, path: str, job: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = client.get(f"{path}/step/{job}/status").get_json()
        if status["state"] == "done":
            return status
        time.sleep(0.1)
    raise AssertionError("the step-through's search was not recorded in time")


def start_step(client, player: Player, path: str, algorithm: str):
    return client.post(
        f"{path}/step", data={"algorithm": algorithm}, headers={"X-CSRF-Token": player.token}
    )


def test_the_step_through_is_the_trace_recorded_in_a_solver_child(app, client):
    player = Player(client, MICROBAN_1)
    started = start_step(client, player, MICROBAN_1, "bfs")
    assert started.status_code == 303
    job_id = started.headers["Location"].split("job=")[1]
    status = recorded(client, MICROBAN_1, job_id)
    assert status["status"] == "solved" and status["kind"] == "breadth-first"
    with app.app_context():
        job = get_runner().jobs[job_id]
        assert (
            isinstance(job.request.work, work.Trace) and job.pid is not None
        )  # a child's, not ours
    level = SOKOBAN.parse((LEVELS / "sokoban/microban.xsb").read_text())[0]
    expected = traced(SOKOBAN, level, "bfs")
    assert status["steps"] == len(expected)
    for number in (0, 1, 7, len(expected) - 1):
        view = client.get(f"{MICROBAN_1}/step/{job_id}/{number}")
        assert view.status_code == 200
        text = html.unescape(re.search(r'<pre id="step-position">(.*?)</pre>', view.text, re.S)[1])
        assert text == expected[number]["position"]
        assert f'<dd id="step-g">{expected[number]["g"]}</dd>' in view.text
        verdicts = re.findall(r'data-verdict="(\w+)"', view.text)
        assert verdicts == [child["verdict"] for child in expected[number]["children"]]
    # The step page draws the level's board, offers the searches that step, and the link
    # from the level page leads there.
    page = client.get(f"{MICROBAN_1}/step?job={job_id}").text
    assert 'data-step-url="/sokoban/microban/1/step/' in page and 'value="astar"' in page
    assert 'href="/sokoban/microban/1/step"' in client.get(MICROBAN_1).text


def test_a_step_past_the_recording_or_of_another_player_is_not_found(client, app):
    player = Player(client, MICROBAN_1)
    job_id = start_step(client, player, MICROBAN_1, "bfs").headers["Location"].split("job=")[1]
    status = recorded(client, MICROBAN_1, job_id)
    past = client.get(f"{MICROBAN_1}/step/{job_id}/{status['steps']}")
    assert past.status_code == 404 and "recorded steps" in past.text
    other = app.test_client()
    assert other.get(f"{MICROBAN_1}/step/{job_id}/0").status_code == 404
    # Another level's address does not reach this level's search either.
    assert client.get(f"/sokoban/microban/2/step/{job_id}/0").status_code == 404


def test_a_search_that_cannot_step_is_refused_by_name(client):
    player = Player(client, MICROBAN_1)
    refused = start_step(client, player, MICROBAN_1, "fess")
    assert refused.status_code == 400
    assert "stepped through" in refused.text and "bfs" in refused.text


def test_the_waiting_shown_are_those_the_search_takes_next():
    level = SOKOBAN.parse((LEVELS / "sokoban/microban.xsb").read_text())[0]
    for algorithm, kind in (("bfs", "breadth-first"), ("astar", "best-first")):
        steps = traced(SOKOBAN, level, algorithm)
        trace = Trace.of(steps)
        assert trace.kind == kind == search_kind(steps)
        for number in (0, 3, 10):
            waiting = trace.next_in_line(number, 3)
            news = {c["position"] for s in steps[: number + 1] for c in s["children"]}
            # Each was met by then, and they come in the order the search takes them.
            assert all(step["position"] in news for step in waiting)
            assert [s["step"] for s in waiting] == sorted(s["step"] for s in waiting)
            if kind == "breadth-first":  # first in, first out: the very next ones
                # The frontier after the expansion: what waits as the next position is taken.
                ahead = min(3, steps[number + 1]["waiting"] + 1)
                assert [s["step"] for s in waiting] == list(range(number + 1, number + 1 + ahead))
    sliding = games.get("sliding")
    eight = sliding.parse((LEVELS / "sliding/warm-up.txt").read_text())[7]
    assert search_kind(traced(sliding, eight, "idastar")) == "depth-first"


def test_a_race_runs_each_algorithm_as_a_solve_on_a_board_of_its_own(app, client):
    player = Player(client, "/sliding/warm-up/8")
    started = client.post(
        "/sliding/warm-up/8/race",
        data={"algorithm": ["astar", "idastar"]},
        headers={"X-CSRF-Token": player.token},
    )
    assert started.status_code == 303
    ids = started.headers["Location"].split("jobs=")[1].split(",")
    with app.app_context():
        jobs = [get_runner().jobs[job_id] for job_id in ids]
        for job in jobs:
            assert wait_for(job, lambda job: job.done, 60)
    assert [job.request.board for job in jobs] == [
        "sliding/warm-up/8#race-astar",
        "sliding/warm-up/8#race-idastar",
    ]
    lengths = set()
    for job_id in ids:
        lane = client.get(f"/sliding/warm-up/8/race/{job_id}/lane").text
        assert 'data-state="done"' in lane and 'data-status="solved"' in lane
        lengths.add(re.search(r'data-length="(\d+)"', lane)[1])
    assert len(lengths) == 1  # both optimal: the same length
    page = client.get(f"/sliding/warm-up/8/race?jobs={','.join(ids)}").text
    assert page.count('class="lane"') == 2


@pytest.mark.parametrize("chosen", [["astar"], ["astar", "nosuch"]])
def test_a_race_needs_two_or_three_known_algorithms(client, chosen):
    player = Player(client, "/sliding/warm-up/8")
    refused = client.post(
        "/sliding/warm-up/8/race",
        data={"algorithm": chosen},
        headers={"X-CSRF-Token": player.token},
    )
    assert refused.status_code == 400
    assert ("two or three" in refused.text) if len(chosen) == 1 else ("nosuch" in refused.text)


def test_racing_the_solver_needs_a_win_and_then_steps_both_solutions(app, client, whole_solutions):
    player = Player(client, MICROBAN_1)
    early = client.post(
        f"{MICROBAN_1}/race", data={"versus": "1"}, headers={"X-CSRF-Token": player.token}
    )
    assert early.status_code == 400 and "Win the level first" in early.text
    mine = "rl" + MICROBAN_1_SOLUTION  # a detour: two moves more than the solver's
    assert 'id="solved"' in player.act("move", moves=mine).text
    assert 'id="race-the-solver"' in client.get(MICROBAN_1).text
    started = client.post(
        f"{MICROBAN_1}/race", data={"versus": "1"}, headers={"X-CSRF-Token": player.token}
    )
    assert started.status_code == 303 and "versus=1" in started.headers["Location"]
    job_id = started.headers["Location"].split("jobs=")[1].split("&")[0]
    with app.app_context():
        assert wait_for(get_runner().jobs[job_id], lambda job: job.done, 60)
    theirs = len(MICROBAN_1_SOLUTION)
    middle = client.get(f"{MICROBAN_1}/race/{job_id}/versus/10").text
    assert re.search(r'id="versus-you" data-played="10" data-total="35"', middle)
    assert re.search(rf'id="versus-solver" data-played="10" data-total="{theirs}"', middle)
    end = client.get(f"{MICROBAN_1}/race/{job_id}/versus/35").text
    assert 'data-last="35"' in end and f'data-played="{theirs}"' in end
    assert client.get(f"{MICROBAN_1}/race/{job_id}/versus/36").status_code == 404


def test_a_race_runs_while_its_page_looks_and_stops_when_it_is_gone(tmp_path):
    """The race page polls its lanes where the level page holds a socket: each look keeps
    the solves going, and a page gone leaves them cancelled after the grace."""
    from webapp.web.app import create_app

    app = create_app(
        {"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance"), "SOLVE_ORPHAN_GRACE": 1}
    )
    client = app.test_client()
    path = "/sokoban/xsokoban/1"  # far beyond a few seconds of breadth-first search
    player = Player(client, path)

    def race() -> list[Job]:
        started = client.post(
            f"{path}/race",
            data={"algorithm": ["bfs", "astar"]},
            headers={"X-CSRF-Token": player.token},
        )
        ids = started.headers["Location"].split("jobs=")[1].split(",")
        with app.app_context():
            return [get_runner().jobs[job_id] for job_id in ids]

    watched = race()
    deadline = time.monotonic() + 8  # past the page's connect grace and the orphan grace
    while time.monotonic() < deadline:
        for job in watched:
            assert client.get(f"{path}/race/{job.id}/lane").status_code == 200
        time.sleep(0.3)
    assert all(job.result is None or job.result.status != "cancelled" for job in watched)
    for job in watched:  # the page goes away
        job.stop()
    with app.app_context():
        for job in watched:
            assert wait_for(job, lambda job: job.done, 10)
    left = race()
    with app.app_context():
        for job in left:
            assert wait_for(job, lambda job: job.done, 20)
    assert [job.result.status for job in left] == ["cancelled", "cancelled"]


#: A small level of each game, and a search of its that steps (the trace tests' levels).
EVERY_GAME = [
    ("sokoban", "/sokoban/microban/2", "sokoban/microban.xsb", 2, "moves"),
    ("sliding", "/sliding/warm-up/8", "sliding/warm-up.txt", 8, "idastar"),
    ("vexed", "/vexed/tutorial/1", "vexed/00_tutorial.txt", 1, "bfs"),
    ("blocks", "/blocks/workshop/1", "blocks/workshop.txt", 1, "line"),
]


@pytest.mark.parametrize(("name", "path", "file", "number", "algorithm"), EVERY_GAME)
def test_every_game_steps_through_its_own_trace_drawn_on_its_board(
    app, client, name, path, file, number, algorithm
):
    game = games.get(name)
    level = game.parse((LEVELS / file).read_text(encoding="utf-8"))[number - 1]
    expected = traced(game, level, algorithm)
    player = Player(client, path)
    assert f'href="{path}/step"' in client.get(path).text
    started = start_step(client, player, path, algorithm)
    assert started.status_code == 303, started.text
    job_id = started.headers["Location"].split("job=")[1]
    status = recorded(client, path, job_id)
    assert status["steps"] == len(expected) and status["status"] == "solved"
    last = len(expected) - 1
    view = client.get(f"{path}/step/{job_id}/{last}").text
    assert f'class="board {name}' in view  # the game's own board template
    text = html.unescape(re.search(r'<pre id="step-position">(.*?)</pre>', view, re.S)[1])
    assert text == expected[last]["position"]
    assert f'<dd id="step-f">{expected[last]["f"]}</dd>' in view
    # Go on at full speed: an ordinary solve of the same search, live on the level's page.
    gone = client.post(f"{path}/step/{job_id}/go", headers={"X-CSRF-Token": player.token})
    assert gone.status_code == 303 and gone.headers["Location"].startswith(path)
    panel = client.get(path).text
    assert 'ws-connect="' in panel and f'value="{algorithm}" selected' in panel


def test_a_step_through_keeps_a_bounded_text_and_stops_its_search_there(monkeypatch):
    """A large board's expansions run to kilobytes: past the text a step-through may keep,
    the search stops (as at its bound of expansions), the expansions kept being trace's."""
    from webapp.jobs import child
    from webapp.jobs.base import Request
    from webapp.jobs.work import Trace
    from webapp.search import Limits

    level = SOKOBAN.parse((LEVELS / "sokoban/microban.xsb").read_text())[2]
    whole = traced(SOKOBAN, level, "bfs")

    def request(steps: int) -> Request:
        return Request(
            game="sokoban",
            level_text=SOKOBAN.level_text(level),
            work=Trace("bfs", steps=steps),
            limits=Limits(seconds=30),
            owner="someone",
            board="sokoban/microban/3#step",
        )

    monkeypatch.setattr(child, "STEP_THROUGH_CHARS", 2_000)
    result = child.run_request(request(child.STEP_THROUGH), lambda progress: None, lambda: False)
    steps = result.steps
    assert result.status == "node-limit" and 0 < len(steps) < len(whole)
    assert steps == whole[: len(steps)] and result.expanded == len(steps)
    monkeypatch.setattr(child, "STEP_THROUGH_CHARS", 10**9)
    bounded = child.run_request(request(10), lambda progress: None, lambda: False)
    assert bounded.status == "node-limit" and bounded.steps == whole[:10]


def test_a_process_keeps_its_newest_recordings_only(app, client, monkeypatch):
    from webapp.web import learning

    monkeypatch.setattr(learning, "KEPT_RECORDINGS", 2)
    monkeypatch.setattr(learning, "recordings", learning.Recordings())
    player = Player(client, MICROBAN_1)
    started = []
    for number in (1, 2, 3):
        path = f"/sokoban/microban/{number}"
        job_id = start_step(client, player, path, "bfs").headers["Location"].split("job=")[1]
        recorded(client, path, job_id)
        started.append((path, job_id))
    # The third recording made the first the oldest of three: forgotten, its page told so.
    gone, kept = started[0], started[1:]
    assert client.get(f"{gone[0]}/step/{gone[1]}/status").status_code == 404
    for path, job_id in kept:
        assert client.get(f"{path}/step/{job_id}/0").status_code == 200


def test_a_new_step_through_of_a_level_replaces_the_one_still_recording(app, client):
    path = "/sokoban/xsokoban/1"  # 5,000 expansions of breadth-first: seconds to record
    player = Player(client, path)
    first = start_step(client, player, path, "bfs").headers["Location"].split("job=")[1]
    second = start_step(client, player, path, "astar")
    assert second.status_code == 303, second.text
    with app.app_context():
        replaced = get_runner().jobs[first]
        assert wait_for(replaced, lambda job: job.done, 10)
    assert replaced.result.status == "cancelled"
    status = recorded(client, path, second.headers["Location"].split("job=")[1])
    assert status["kind"] == "best-first" and status["steps"] > 0


def test_the_recording_downloads_as_the_command_line_prints_it(client):
    player = Player(client, MICROBAN_1)
    job_id = start_step(client, player, MICROBAN_1, "astar").headers["Location"].split("job=")[1]
    recorded(client, MICROBAN_1, job_id)
    lines = client.get(f"{MICROBAN_1}/step/{job_id}/trace.jsonl")
    assert lines.status_code == 200 and "attachment" in lines.headers["Content-Disposition"]
    level = SOKOBAN.parse((LEVELS / "sokoban/microban.xsb").read_text())[0]
    assert [json.loads(line) for line in lines.text.splitlines()] == traced(SOKOBAN, level, "astar")
    # Each child's position is drawn beside its line, on the game's board.
    view = client.get(f"{MICROBAN_1}/step/{job_id}/0").text
    first = traced(SOKOBAN, level, "astar")[0]
    assert view.count('class="child-board mini"') == len(first["children"])
