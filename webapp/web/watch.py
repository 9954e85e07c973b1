"""What the solver panel shows: the solve's state, its live figures and chart, the playback."""

from __future__ import annotations

import re
import weakref
from typing import Any

from flask import render_template

from webapp.core.playback import SPEEDS, Playback, solution_playback
from webapp.games.base import Game
from webapp.jobs.base import Job
from webapp.jobs.work import Improve
from webapp.search import Result
from webapp.web.levels import Found, benchmark, mark_shown
from webapp.web.solvers import get_runner, web_limits

#: Fewest points, and least seconds, a chart needs to say anything: a solve quicker than that
#: is a line from nothing to everything (two such lines crossed, for the two figures).
CHART_POINTS, CHART_SECONDS = 4, 0.3
#: How a solve ends when it runs out of its limits: where it had got to can be played on.
STOPPED = ("timeout", "node-limit", "memory-limit")
#: Why a stopped search's position cannot be played from: the search kept no moves that reach
#: it from the level's start (a position alone would make a level of its own, whose win is
#: not this level's).
NO_WAY_THERE = (
    "This search did not keep the moves that lead to its position, so your game on this "
    "level cannot be moved there."
)
#: The note of an optimal search that deepens its bound (IDA*, A* by f): every solution
#: takes at least that many of its metric.
_BOUND = re.compile(r"f-bound (\d+)")
#: Where each page's playback of a solve stands, kept while the runner keeps the job, so a
#: page that reconnects resumes it.
_PLAYBACKS: weakref.WeakKeyDictionary[Job, Playback] = weakref.WeakKeyDictionary()
#: The solves whose solution this process has marked as shown to their player (once each).
_SHOWN: weakref.WeakSet[Job] = weakref.WeakSet()


def playback_of(job: Job, game: Game, level: Any) -> Playback | None:
    """The playback of a finished solve's solution; None while it has none."""
    result = job.result
    if result is None or result.status != "solved":
        return None
    playback = _PLAYBACKS.get(job)
    if playback is None:
        moves = result.moves or []
        playback = _PLAYBACKS[job] = solution_playback(game, level, job.request.moves, moves)
    return playback


def chart(job: Job, width: int = 300, height: int = 80) -> dict[str, Any]:
    """SVG polyline points for the positions looked at and those waiting over the whole
    search, on one scale (both count positions), with the axes' ends: seconds across from 0,
    positions up. Empty for a solve too quick to chart."""
    history = list(job.history)
    t_max = max((h[0] for h in history), default=0.0)
    if len(history) < CHART_POINTS or t_max < CHART_SECONDS:
        return {}
    # The history spreads its points over the whole search (jobs.base.Thinned): the time
    # axis runs from 0 to the end, however long the search.
    start = 0.0
    span = (t_max - start) or 1.0
    top = max(max(h[1], h[2]) for h in history) or 1
    lines = {
        name: " ".join(
            f"{(h[0] - start) / span * width:.1f},{height - h[index] / top * height:.1f}"
            for h in history
        )
        for name, index in (("expanded", 1), ("frontier", 2))
    }
    return {
        **lines,
        "start": start,
        "seconds": t_max,
        "states": top,
        "width": width,
        "height": height,
    }


def short_count(value: float) -> str:
    """A count of states in a few characters: 950, 12k, 3.4M."""
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            scaled = value / size
            return f"{scaled:.1f}{unit}" if scaled < 10 else f"{scaled:.0f}{unit}"
    return f"{value:.0f}"


def bounds(found: Found, job: Job, progress: Any) -> dict[str, Any]:
    """What the search has proved of the shortest solution's length (its bound, where it
    deepens one) and, for a solve from the start, the best length known of the level in the
    same metric (a proved optimum, a par, a record): the ends of the panel's progress bar."""
    match = _BOUND.fullmatch(progress.note) if progress is not None and progress.note else None
    if match is None:
        return {}
    algorithm = found.game.algorithms().get(job.request.algorithm)
    metric = algorithm.metric if algorithm is not None else found.game.counters[0]
    known: dict[str, Any] = {"lower": int(match.group(1)), "metric": metric}
    if not job.request.moves:
        mark = benchmark(found)
        if mark is not None and mark.metric == metric and mark.value >= known["lower"]:
            known["upper"] = mark.value
            known["label"] = "the shortest" if mark.proved else "the best known"
    return known


def algorithm_label(game: Game, job: Job) -> str:
    """The solve's algorithm as the panel names it: its label, in the player's words."""
    if isinstance(job.request.work, Improve):
        return f"the solution optimizer, in {job.request.work.metric.replace('_', ' ')}"
    algorithm = game.algorithms().get(job.request.algorithm)
    if algorithm is None:
        return job.request.algorithm
    return algorithm.label or algorithm.name


def readings(game: Game, level: Any, job: Job, progress: Any) -> list[dict[str, str]]:
    """The panel's figures while a search runs and after it ends: for each, its ``id`` (the
    ``stat-`` element), ``label``, ``value`` and ``what`` it is, in a player's words (the
    textbook words are the step-through view's)."""
    result = job.result
    if isinstance(job.request.work, Improve):
        return improving(game, level, job.request.work, job, progress)
    p = progress
    algorithm = game.algorithms().get(job.request.algorithm)
    unit = (algorithm.metric if algorithm else game.counters[0]).replace("_", " ")
    # A search that deepens a bound says so in its note; a textbook optimal one (breadth-first,
    # A*) reports the depth of its layer or its f, a bound too. Another reports how deep it
    # has gone (a search within par, say), which bounds nothing.
    textbook = bool(algorithm and algorithm.optimal and algorithm.steps)
    bound = bool(p and p.note.startswith("f-bound")) or textbook
    done = result.expanded if result and result.expanded else (p.expanded if p else 0)
    met = result.generated if result and result.generated else (p.generated if p else 0)
    seconds = result.seconds if result and result.seconds else (p.elapsed if p else 0)
    return [
        {
            "id": "expanded",
            "label": "positions looked at",
            "value": f"{done:,}",
            "what": "Positions the solver has taken up and tried every move from.",
        },
        {
            "id": "generated",
            "label": "positions met",
            "value": f"{met:,}",
            "what": "Different positions it has reached so far, looked at or still waiting.",
        },
        {
            "id": "frontier",
            "label": "positions waiting",
            "value": f"{p.frontier if p else 0:,}",
            "what": "Positions it has reached but not looked at yet: its list of what to do.",
        },
        {
            "id": "depth",
            "label": f"the shortest a solution can still be ({unit})"
            if bound
            else f"how deep it looks ({unit})",
            "value": str(p.depth if p else 0),
            "what": f"No solution has fewer {unit}: every shorter one has been ruled out."
            if bound
            else f"How many {unit} from the start the positions it looks at lie.",
        },
        {
            "id": "rate",
            "label": "positions a second",
            "value": f"{p.rate if p else 0:,.0f}",
            "what": "How many positions it looks at each second.",
        },
        {
            "id": "elapsed",
            "label": "time",
            "value": f"{seconds:.1f} s",
            "what": "How long the search has run.",
        },
    ]


def improving(
    game: Game, level: Any, work: Improve, job: Job, progress: Any
) -> list[dict[str, str]]:
    """The optimizer's figures, in its own terms: the solution it was given and the shortest
    it has made of it, what that saves in each counter, the shorter solutions it found on the
    way, and the positions its searches looked at."""
    metric = work.metric
    given = game.count(level, list(work.solution))
    result = job.result
    if result is not None and result.moves is not None:
        now = game.count(level, result.moves)
    else:  # the length in the metric so far rides in the progress's depth
        now = {metric: progress.depth if progress and progress.depth else given.get(metric, 0)}
    counters = [metric] + [name for name in game.counters if name != metric and name in now]
    found = result.generated if result is not None else (progress.generated if progress else 0)
    done = result.expanded if result is not None else (progress.expanded if progress else 0)
    seconds = result.seconds if result is not None else (progress.elapsed if progress else 0)
    unit = metric.replace("_", " ")
    shown = [
        {
            "id": "given",
            "label": f"the solution given ({unit})",
            "value": str(given.get(metric, 0)),
            "what": f"The {unit} of the solution the optimizer started from.",
        },
        {
            "id": "so-far",
            "label": f"the shortest made of it ({unit})",
            "value": str(now[metric]),
            "what": f"The {unit} of the shortest solution it has made of it so far.",
        },
    ]
    for name in counters:
        shown.append(
            {
                "id": f"saved-{name}",
                "label": f"{name.replace('_', ' ')} saved",
                "value": str(given.get(name, 0) - now[name]),
                "what": f"How many fewer {name.replace('_', ' ')} the shorter solution takes.",
            }
        )
    shown += [
        {
            "id": "found",
            "label": "shorter solutions found",
            "value": f"{found:,}",
            "what": "Each time one of its searches found a shorter way, it went on from there.",
        },
        {
            "id": "expanded",
            "label": "positions looked at",
            "value": f"{done:,}",
            "what": "Positions its searches near the solution have looked at.",
        },
        {
            "id": "elapsed",
            "label": "time",
            "value": f"{seconds:.1f} s",
            "what": "How long it has run.",
        },
    ]
    return shown


def stopped_at(job: Job | None) -> Any:
    """Where a search stopped by its limits leaves a player to take over: the closest
    position it met, where it keeps one, else the last it looked at; None for any other."""
    if job is None or job.result is None or job.result.status not in STOPPED:
        return None
    progress = job.progress
    if progress is None:
        return None
    return progress.closest if progress.closest is not None else progress.sample


def stopped_moves(found: Found, job: Job) -> list[str] | None:
    """The moves from the level's start to the position a stopped search shows (the closest
    it met, else the one it was looking at), when the search kept the moves there and they
    reach it by the rules; else None."""
    progress = job.progress
    shown = stopped_at(job)
    if progress is None or shown is None:
        return None
    if progress.closest is not None:
        kept = getattr(progress, "closest_moves", None)
    else:
        kept = getattr(progress, "sample_moves", None)
    if kept is None:
        return None
    game, level = found.game, found.level
    moves = [*job.request.moves, *kept]
    try:
        reached = game.replay(level, moves)
    except ValueError:  # moves the rules refuse: not this level's way there
        return None
    if game.render_text(level, reached) != game.render_text(level, shown):
        return None
    return moves


def panel_context(found: Found, job: Job | None) -> dict[str, Any]:
    game = found.game
    context: dict[str, Any] = {
        "game": game,
        "found": found,
        "level": found.level,
        "job": job,
        "algorithms": game.algorithms(),
        "speeds": SPEEDS,
        "runner": get_runner(),
        "limits": web_limits(),
    }
    if job is not None:
        # One reading of the job, used for the whole render: the solver's thread may finish it
        # at any moment, and the template must not see it half running, half done.
        result, progress = job.result, job.progress
        context["result"] = result
        context["progress"] = progress
        context["job_state"] = "done" if result is not None else job.state
        context["chart"] = chart(job)
        context["readings"] = readings(game, found.level, job, progress)
        context["algorithm_label"] = algorithm_label(game, job)
        context["improving"] = isinstance(job.request.work, Improve)
        context["short_count"] = short_count
        context["queue_position"] = get_runner().queue_position(job)
        playback = playback_of(job, game, found.level) if result is not None else None
        context["playback"] = playback
        if playback is not None and job not in _SHOWN:
            # The solution is on the player's screen: a win on this board is not their own.
            mark_shown(found)
            _SHOWN.add(job)
        context["bounds"] = bounds(found, job, progress)
        # Where the search looked: all of it once it has ended, else the last report's.
        context["heat"] = result.heat if result is not None else getattr(progress, "heat", None)
        # A search stopped by its limits: the closest position it met (where the search
        # keeps one; else the last it looked at) can be played on.
        stopped = stopped_at(job)
        context["stopped"] = stopped is not None
        context["stopped_closest"] = stopped is not None and progress.closest is not None
        context["stopped_here"] = stopped is not None and stopped_moves(found, job) is not None
        context["no_way_there"] = NO_WAY_THERE
        if playback is not None:
            context["frame"] = playback.state
        elif stopped is not None:
            context["frame"] = stopped
        elif progress is not None and progress.sample is not None:
            context["frame"] = progress.sample
        else:
            context["frame"] = game.replay(found.level, job.request.moves)
        if result is not None and result.moves is not None:
            start = playback.states[0] if playback else game.replay(found.level, job.request.moves)
            figures = game.count(found.level, result.moves, start)
            context["figures"] = figures
            if playback is not None:
                context["metric"] = metric_reached(game, found.level, result, playback, figures)
    return context


def metric_reached(
    game: Game, level: Any, result: Result, playback: Playback, figures: dict[str, int]
) -> tuple[str, int, int] | None:
    """Where the playback stands in the figure the solver optimised, when that is not the
    count of steps played back (118 steps played back may be 81 path moves): (name, so far,
    in all)."""
    name = result.metric
    if name not in figures or figures[name] == playback.last:
        return None
    start = playback.states[0]
    reached = game.count(level, (result.moves or [])[: playback.position], start)[name]
    return name, reached, figures[name]


def render_panel(found: Found, job: Job | None, notice: str = "") -> str:
    return render_template("partials/solver.html", notice=notice, **panel_context(found, job))


def render_stream(found: Found, job: Job) -> str:
    """The fragments that change while a solve runs or plays back (swapped by id)."""
    return render_template("partials/solver_stream.html", **panel_context(found, job))


def render_frame(found: Found, job: Job) -> str:
    """Only what one playback step changes: the board, the position, play/pause."""
    return render_template("partials/solver_frame.html", **panel_context(found, job))
