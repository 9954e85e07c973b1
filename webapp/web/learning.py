"""Learning how a solver thinks: step through a textbook search, race algorithms, race the
solver with your own solution.

Step through: the search ``python -m webapp trace`` writes out (the same ``StepWriter`` on the
same ``solve``), run in a solver child through the app's JobRunner with a solve's limits and
budget (the request's task "trace", ``webapp.jobs.child``), its first expansions kept in the
result; the page fetches one expansion at a time as the reader steps.

Race: two or three ordinary solves of one level, each its own job on a board of its own
(``<board>#race-<algorithm>``), their figures polled by the page. Racing the solver puts the
player's winning moves beside the solver's solution, a move at a time.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Flask, Response, redirect, render_template, request

from webapp.core.budgets import SOLVES
from webapp.core.errors import NotFound, Refused
from webapp.games.base import LevelError
from webapp.games.solving import traceable
from webapp.jobs.base import Busy, Job
from webapp.jobs.child import STEP_THROUGH
from webapp.jobs.work import Solve, Traced
from webapp.jobs.work import Trace as Tracing
from webapp.web.budgets import spends, waiting_elsewhere
from webapp.web.levels import Found, find_level, load_play, mark_shown
from webapp.web.players import player_id
from webapp.web.solvers import get_runner, job_request, web_limits
from webapp.web.watch import algorithm_label, chart, readings, short_count

bp = Blueprint("learning", __name__)

#: The board a step-through's search and a race's solves are kept under, beside the level's.
STEP_BOARD = "#step"
RACE_BOARD = "#race-"
#: How many algorithms race at once, at most (a player's solves going: Admission.per_owner).
MOST_RACERS = 3
#: The waiting positions shown beside an expansion, those the search takes first.
NEXT_IN_LINE = 4


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


# -- the trace, read ----------------------------------------------------------------------------
@dataclass
class Trace:
    """A step-through's expansions (as ``trace`` prints them), and where each position was
    first put to wait, to tell which of those waiting the search takes next."""

    steps: list[dict[str, Any]]
    kind: str
    met: dict[str, list[int]]

    @classmethod
    def of(cls, steps: list[dict[str, Any]]) -> Trace:
        met: dict[str, list[int]] = {}
        for step in steps:
            for child in step["children"]:
                if child["verdict"] == "new":
                    met.setdefault(child["position"], []).append(step["step"])
        return cls(steps, search_kind(steps), met)

    def next_in_line(self, number: int, most: int = NEXT_IN_LINE) -> list[dict[str, Any]]:
        """The positions waiting after expansion ``number`` that the search takes first, in
        the order it takes them (the front of its queue: for breadth-first the oldest, for
        A* the least f), as the later expansions show; those taken beyond the recorded
        expansions are not known and not shown."""
        shown: list[dict[str, Any]] = []
        for later in self.steps[number + 1 :]:
            if self.kind == "depth-first" and later["g"] == 0:
                break  # IDA* starts again at a higher bound: the rest waits no more
            if any(at <= number for at in self.met.get(later["position"], ())):
                shown.append(later)
                if len(shown) == most:
                    break
        return shown


def search_kind(steps: list[dict[str, Any]]) -> str:
    """Which textbook search made these expansions, from what it did: only IDA* prunes
    (by its bound, or a move that takes back the last), only breadth-first has no estimate."""
    children = (child for step in steps for child in step["children"])
    if any(child["verdict"] == "pruned" for child in children):
        return "depth-first"
    if all(step["h"] == 0 for step in steps):
        return "breadth-first"
    return "best-first"


_TRACES: weakref.WeakKeyDictionary[Job, Trace] = weakref.WeakKeyDictionary()
#: Recordings a web process holds at most (each up to ``child.STEP_THROUGH_CHARS`` of text
#: and its objects): past it the oldest finished one is forgotten, its page told it is gone.
KEPT_RECORDINGS = 16


class Recordings:
    """The step-through jobs this process started, oldest first: the runner keeps a finished
    job for half an hour, and a recording is far larger than a solve's result, so only the
    newest few are kept that long (players and clients together: a budget is per client)."""

    def __init__(self) -> None:
        self._jobs: deque[Job] = deque()
        self._lock = threading.Lock()

    def add(self, job: Job) -> None:
        with self._lock:
            self._jobs.append(job)
            kept: deque[Job] = deque()
            while len(self._jobs) + len(kept) > KEPT_RECORDINGS and self._jobs:
                old = self._jobs.popleft()
                if old.done:
                    get_runner().forget(old)
                else:
                    kept.append(old)  # still recording: forgotten once it is done
            self._jobs.extendleft(reversed(kept))


recordings = Recordings()


def trace_of(job: Job) -> Trace | None:
    """The recorded expansions of a finished step-through job; None while it runs."""
    result = job.result
    if result is None:
        return None
    known = _TRACES.get(job)
    if known is None:
        known = _TRACES[job] = Trace.of(list(result.steps if isinstance(result, Traced) else []))
    return known


def position_board(found: Found, text: str) -> tuple[Any, Any] | None:
    """A position, as the game writes it, read back: the level it makes and its start,
    which the game's board template draws; None for one the game's rules refuse as a level
    (a board with nothing left to move: some games' goal)."""
    try:
        level = found.game.parse(text)[0]
    except LevelError:
        return None
    return level, found.game.start(level)


def own_job(found: Found, job_id: str, board: str) -> Job:
    """The player's job on this level's ``board`` (a step-through's or a racer's), kept
    going by this look: the page polls its jobs where the level page's panel holds a socket,
    and each look counts as a socket opened and closed, so a search runs while its page
    looks and is cancelled a grace (SOLVE_ORPHAN_GRACE) after the page is gone."""
    runner = get_runner()
    job = runner.get(job_id, player_id())
    if job is None or not job.request.board.startswith(found.board_key + board):
        raise NotFound("That search is not yours, is of another level, or was forgotten.")
    if not job.done:
        runner.watch(job)
        runner.unwatch(job)
    return job


# -- step through ---------------------------------------------------------------------------------
@bp.get("/<game_name>/<collection>/<ident>/step")
def step_page(game_name: str, collection: str, ident: str) -> str:
    found = find_level(game_name, collection, ident)
    job = None
    if request.args.get("job"):
        job = own_job(found, request.args["job"], STEP_BOARD)
    stepping = traceable(found.game)
    return render_template(
        "step.html",
        found=found,
        game=found.game,
        level=found.level,
        state=found.game.start(found.level),
        stepping=stepping,
        algorithms=found.game.algorithms(),
        job=job,
        limits=web_limits(),
        bound=STEP_THROUGH,
    )


@bp.post("/<game_name>/<collection>/<ident>/step")
@spends(SOLVES)
def start_step(game_name: str, collection: str, ident: str) -> Response:
    found = find_level(game_name, collection, ident)
    game = found.game
    stepping = traceable(game)
    algorithm = request.form.get("algorithm") or (stepping[0] if stepping else "")
    if algorithm not in stepping:
        known = ", ".join(stepping) or "none"
        raise Refused(
            f"{game.title} searches that can be stepped through: {known}; not {algorithm[:40]!r}."
        )
    runner = get_runner()
    board = found.board_key + STEP_BOARD
    earlier = runner.latest(player_id(), board)
    if earlier is not None and not earlier.done:
        earlier.stop()  # a newer step-through replaces the one still recording
        with waiting_elsewhere():
            earlier.wait(5)
    work = job_request(
        game, found.level, Tracing(algorithm, steps=STEP_THROUGH), web_limits(), board
    )
    try:
        job = runner.submit(work, page=True)
    except Busy as busy:
        raise Refused(str(busy)) from None
    recordings.add(job)
    return redirect(f"{found.ref.path}/step?job={job.id}", code=303)


@bp.get("/<game_name>/<collection>/<ident>/step/<job_id>/status")
def step_status(game_name: str, collection: str, ident: str, job_id: str) -> dict[str, Any]:
    """Where the step-through's search stands: while it records, its figures; then how many
    expansions there are to step through and how the search ended."""
    found = find_level(game_name, collection, ident)
    job = own_job(found, job_id, STEP_BOARD)
    progress, result = job.progress, job.result
    trace = trace_of(job)
    if result is not None and result.status == "solved" and trace and trace.steps:
        mark_shown(found)  # its last expansions lead to the goal: a solution on the screen
    return {
        "state": "done" if result is not None else job.state,
        "status": result.status if result else "",
        "error": result.error if result else "",
        "recorded": progress.expanded if progress else 0,
        "steps": len(trace.steps) if trace else 0,
        "kind": trace.kind if trace else "",
        "length": result.cost if result and result.status == "solved" else None,
        "metric": (result.metric or "").replace("_", " ") if result else "",
    }


@bp.get("/<game_name>/<collection>/<ident>/step/<job_id>/<int:number>")
def step_view(game_name: str, collection: str, ident: str, job_id: str, number: int) -> str:
    """One expansion, drawn: the position taken, its g, h and f, its children with their
    verdicts, and the positions the search takes next."""
    found = find_level(game_name, collection, ident)
    job = own_job(found, job_id, STEP_BOARD)
    trace = trace_of(job)
    if trace is None:
        raise NotFound("That search is still being recorded.")
    if not 0 <= number < len(trace.steps):
        raise NotFound(f"There are {len(trace.steps):,} recorded steps; no step {number}.")
    step = trace.steps[number]
    board = position_board(found, step["position"])
    children = [position_board(found, child["position"]) for child in step["children"]]
    waiting = []
    for later in trace.next_in_line(number):
        drawn = position_board(found, later["position"])
        waiting.append({"step": later, "board": drawn})
    return render_template(
        "partials/step_view.html",
        game=found.game,
        step=step,
        kind=trace.kind,
        total=len(trace.steps),
        board=board,
        children=children,
        waiting=waiting,
    )


@bp.get("/<game_name>/<collection>/<ident>/step/<job_id>/trace.jsonl")
def step_lines(game_name: str, collection: str, ident: str, job_id: str) -> Response:
    """The recording as ``python -m webapp trace`` prints it, one JSON object a line, for a
    student to set beside their own search's."""
    found = find_level(game_name, collection, ident)
    trace = trace_of(own_job(found, job_id, STEP_BOARD))
    if trace is None:
        raise NotFound("That search is still being recorded.")
    lines = "".join(json.dumps(step, ensure_ascii=False) + "\n" for step in trace.steps)
    name = f"{found.board_key.replace('/', '-')}-trace.jsonl"
    return Response(
        lines,
        mimetype="application/jsonl",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@bp.post("/<game_name>/<collection>/<ident>/step/<job_id>/go")
@spends(SOLVES)
def go_on(game_name: str, collection: str, ident: str, job_id: str) -> Response:
    """ "Go on at full speed": an ordinary solve of the step-through's algorithm on the
    level, live on the level's own page, as the Solve button starts it."""
    found = find_level(game_name, collection, ident)
    traced = own_job(found, job_id, STEP_BOARD)
    work = job_request(
        found.game, found.level, Solve(traced.request.algorithm), web_limits(), found.board_key
    )
    try:
        get_runner().submit(work, page=True)
    except Busy as busy:
        raise Refused(str(busy)) from None
    return redirect(f"{found.ref.path}#solver", code=303)


# -- race ---------------------------------------------------------------------------------------
def racers_of(found: Found, ids: list[str]) -> list[Job]:
    return [own_job(found, job_id, RACE_BOARD) for job_id in ids[:MOST_RACERS] if job_id]


@bp.get("/<game_name>/<collection>/<ident>/race")
def race_page(game_name: str, collection: str, ident: str) -> str:
    found = find_level(game_name, collection, ident)
    racers = racers_of(found, request.args.get("jobs", "").split(","))
    play = load_play(found)
    versus = None
    if request.args.get("versus") and racers:
        if not play.solved:
            raise Refused("Win the level first: then race the solver with your moves.")
        versus = {"yours": len(play.moves)}
    return render_template(
        "race.html",
        found=found,
        game=found.game,
        level=found.level,
        algorithms=found.game.algorithms(),
        racers=racers,
        lanes=[lane_context(found, job) for job in racers],
        versus=versus,
        won=play.solved,
        most=MOST_RACERS,
        limits=web_limits(),
    )


@bp.post("/<game_name>/<collection>/<ident>/race")
@spends(SOLVES, cost=lambda: max(1, min(len(request.form.getlist("algorithm")), MOST_RACERS)))
def start_race(game_name: str, collection: str, ident: str) -> Response:
    """Two or three algorithms on the level at once, each an ordinary solve from the start;
    with ``versus``, the level's default solver against the player's winning moves."""
    found = find_level(game_name, collection, ident)
    game = found.game
    versus = bool(request.form.get("versus"))
    chosen = [game.default_for(found.level)] if versus else request.form.getlist("algorithm")
    chosen = list(dict.fromkeys(chosen))  # each algorithm once
    if not versus and not 2 <= len(chosen) <= MOST_RACERS:
        raise Refused(f"Choose two or three algorithms to race (you chose {len(chosen)}).")
    unknown = [name for name in chosen if name not in game.algorithms()]
    if unknown:
        raise Refused(f"{game.title} has no solver called {unknown[0][:40]!r}.")
    if versus and not load_play(found).solved:
        raise Refused("Win the level first: then race the solver with your moves.")
    runner = get_runner()
    jobs: list[Job] = []
    for name in chosen:
        board = f"{found.board_key}{RACE_BOARD}{name}"
        earlier = runner.latest(player_id(), board)
        if earlier is not None and not earlier.done:
            earlier.stop()  # a new race on the board replaces the one still running
            with waiting_elsewhere():
                earlier.wait(5)
        work = job_request(game, found.level, Solve(name), web_limits(), board)
        try:
            jobs.append(runner.submit(work, page=True))
        except Busy as busy:
            for started in jobs:  # a race runs whole or not at all
                started.stop()
            raise Refused(str(busy)) from None
    ids = ",".join(job.id for job in jobs)
    return redirect(f"{found.ref.path}/race?jobs={ids}{'&versus=1' if versus else ''}", code=303)


def lane_context(found: Found, job: Job) -> dict[str, Any]:
    """What a racer's lane shows, from one reading of its job: its state, figures, chart
    and board (the position it looks at, or its solution's end once solved)."""
    game = found.game
    result, progress = job.result, job.progress
    frame = game.start(found.level)
    length = None
    if result is not None and result.status == "solved":
        frame = game.replay(found.level, result.moves or [])
        length = game.count(found.level, result.moves or [])
        mark_shown(found)  # the solution's end and length are on the screen
    elif progress is not None and progress.sample is not None:
        frame = progress.sample
    return {
        "job": job,
        "name": job.request.algorithm,
        "label": algorithm_label(game, job),
        "state": "done" if result is not None else job.state,
        "result": result,
        "readings": readings(game, found.level, job, progress),
        "chart": chart(job, 240, 70),
        "frame": frame,
        "length": length,
        "queue_position": get_runner().queue_position(job),
    }


@bp.get("/<game_name>/<collection>/<ident>/race/<job_id>/lane")
def race_lane(game_name: str, collection: str, ident: str, job_id: str) -> str:
    found = find_level(game_name, collection, ident)
    job = own_job(found, job_id, RACE_BOARD)
    return render_template(
        "partials/race_lane.html",
        game=found.game,
        level=found.level,
        lane=lane_context(found, job),
        short_count=short_count,
    )


@bp.post("/<game_name>/<collection>/<ident>/race/stop")
def stop_race(game_name: str, collection: str, ident: str) -> Response:
    found = find_level(game_name, collection, ident)
    ids = request.form.get("jobs", "")
    for job in racers_of(found, ids.split(",")):
        job.stop()
    return redirect(f"{found.ref.path}/race?jobs={ids}", code=303)


@bp.get("/<game_name>/<collection>/<ident>/race/<job_id>/versus/<int:number>")
def versus_view(game_name: str, collection: str, ident: str, job_id: str, number: int) -> str:
    """Move ``number`` of the player's winning moves beside the same move of the solver's
    solution, each board stopping at its own end, with both counts."""
    found = find_level(game_name, collection, ident)
    job = own_job(found, job_id, RACE_BOARD)
    game = found.game
    play = load_play(found)
    if not play.solved:
        raise Refused("Win the level first: then race the solver with your moves.")
    result = job.result
    if result is None or result.status != "solved":
        raise NotFound("The solver has no solution yet.")
    theirs = list(result.moves or [])
    yours = list(play.moves)
    if not 0 <= number <= max(len(yours), len(theirs)):
        raise NotFound(f"The longer solution has {max(len(yours), len(theirs))} moves.")
    sides = []
    for who, moves in (("you", yours), ("solver", theirs)):
        shown = moves[:number]
        sides.append(
            {
                "who": who,
                "state": game.replay(found.level, shown),
                "done": number >= len(moves),
                "played": len(shown),
                "total": len(moves),
                "figures": game.count(found.level, moves),
            }
        )
    mark_shown(found)
    return render_template(
        "partials/versus.html",
        game=found.game,
        level=found.level,
        sides=sides,
        number=number,
        last=max(len(yours), len(theirs)),
        label=algorithm_label(game, job),
    )
