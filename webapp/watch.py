"""What the solver panel shows: the solve's state, its live figures and chart, the playback."""

from __future__ import annotations

from typing import Any

from flask import render_template

from webapp.levels import Found
from webapp.playback import SPEEDS, playback_of
from webapp.runner import Job
from webapp.solvers import get_runner


def chart_points(job: Job, width: int = 300, height: int = 80) -> dict[str, str]:
    """SVG polyline points for states expanded and frontier size over time."""
    history = list(job.history)
    if len(history) < 2:
        return {"expanded": "", "frontier": ""}
    t_max = max(h[0] for h in history) or 1.0
    lines = {}
    for name, index in (("expanded", 1), ("frontier", 2)):
        top = max(h[index] for h in history) or 1
        lines[name] = " ".join(
            f"{h[0] / t_max * width:.1f},{height - h[index] / top * height:.1f}" for h in history
        )
    return lines


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
    }
    if job is not None:
        # One reading of the job, used for the whole render: the solver's thread may finish it
        # at any moment, and the template must not see it half running, half done.
        result, progress = job.result, job.progress
        context["result"] = result
        context["progress"] = progress
        context["job_state"] = "done" if result is not None else job.state
        context["chart"] = chart_points(job)
        context["queue_position"] = get_runner().queue_position(job)
        playback = playback_of(job, game, found.level) if result is not None else None
        context["playback"] = playback
        if playback is not None:
            context["frame"] = playback.state
        elif progress is not None and progress.sample is not None:
            context["frame"] = progress.sample
        else:
            context["frame"] = game.replay(found.level, job.request.moves)
        if result is not None and result.moves is not None:
            start = playback.states[0] if playback else game.replay(found.level, job.request.moves)
            context["figures"] = game.count(found.level, result.moves, start)
    return context


def render_panel(found: Found, job: Job | None, notice: str = "") -> str:
    return render_template("partials/solver.html", notice=notice, **panel_context(found, job))


def render_stream(found: Found, job: Job) -> str:
    """The fragments that change while a solve runs or plays back (swapped by id)."""
    return render_template("partials/solver_stream.html", **panel_context(found, job))


def render_frame(found: Found, job: Job) -> str:
    """Only what one playback step changes: the board, the position, play/pause."""
    return render_template("partials/solver_frame.html", **panel_context(found, job))
