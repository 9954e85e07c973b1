"""Watch the solver: start, cancel, hint, and the WebSocket that streams progress and playback.

The socket carries HTML fragments with ids; htmx's ws extension swaps each into the page.
On every (re)connect the server sends a full snapshot, so a dropped socket loses nothing.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, current_app, render_template, request
from flask_sock import ConnectionClosed, Sock

from webapp.extras import quick_hint
from webapp.games.base import Game
from webapp.play import Play
from webapp.runner import Busy, Job, Request, Runner, wait_for
from webapp.search import Limits
from webapp.web import BadRequest, Found, find_level, load_play, play_context, player_id, save_play

bp = Blueprint("live", __name__)
sock = Sock()

#: Playback speeds offered, in moves per second.
SPEEDS = (0.5, 1, 2, 4, 8, 12, 20)
#: Most messages a socket may send in one second before it is closed.
MESSAGES_PER_SECOND = 20
#: Seconds a socket's thread waits for the page between looks at its solve: short while
#: progress or playback steps are due; longer while the solve waits in the queue or sits
#: finished, as every look wakes a thread of the one server process.
LIVELY_WAIT, QUIET_WAIT = 0.05, 0.25
#: Least seconds between two progress updates on one socket.
UPDATE_INTERVAL = 0.1


def runner() -> Runner:
    app = current_app
    found = app.extensions.get("puzzlelab.runner")
    if found is None:
        found = Runner(
            max_running=app.config.get("SOLVE_MAX_RUNNING"),
            orphan_grace=float(app.config.get("SOLVE_ORPHAN_GRACE", 10)),
            max_queued=int(app.config.get("SOLVE_MAX_QUEUED", 32)),
            per_owner=int(app.config.get("SOLVE_PER_PLAYER", 3)),
        )
        app.extensions["puzzlelab.runner"] = found
    return found


def init_app(app: Flask) -> None:
    app.config.setdefault("SOCK_SERVER_OPTIONS", {"ping_interval": 20, "max_message_size": 4096})
    app.register_blueprint(bp)
    sock.init_app(app)


def web_limits() -> Limits:
    """The solver's limits, unless the config sets others (docs/DEPLOY.md)."""
    config = current_app.config
    return Limits(
        seconds=float(config.get("SOLVE_TIME_LIMIT", Limits.seconds)),
        nodes=int(config.get("SOLVE_NODE_LIMIT", Limits.nodes)),
        memory_mb=int(config.get("SOLVE_MEMORY_MB", Limits.memory_mb)),
    )


# -- what the panel shows ---------------------------------------------------------------------
@dataclass
class Playback:
    """Where the playback of a solution stands; kept on the job so a reconnect resumes it."""

    position: int = 0
    playing: bool = False
    speed: float = 4.0
    next_at: float = 0.0
    states: list[Any] = field(default_factory=list)


def playback_of(job: Job, game: Game, level: Any) -> Playback | None:
    result = job.result
    if result is None or result.status != "solved":
        return None
    playback = getattr(job, "playback", None)
    if playback is None:
        state = game.replay(level, job.request.moves)
        states = [state]
        for token in result.moves or []:
            state = game.apply(level, state, token)
            states.append(state)
        playback = Playback(states=states)
        job.playback = playback  # type: ignore[attr-defined]
    return playback


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
        "runner": runner(),
    }
    if job is not None:
        # One reading of the job, used for the whole render: the solver's thread may finish it
        # at any moment, and the template must not see it half running, half done.
        result, progress = job.result, job.progress
        context["result"] = result
        context["progress"] = progress
        context["job_state"] = "done" if result is not None else job.state
        context["chart"] = chart_points(job)
        context["queue_position"] = runner().queue_position(job)
        playback = playback_of(job, game, found.level) if result is not None else None
        context["playback"] = playback
        if playback is not None:
            context["frame"] = playback.states[playback.position]
        elif progress is not None and progress.sample is not None:
            context["frame"] = progress.sample
        else:
            context["frame"] = game.replay(found.level, job.request.moves)
        if result is not None and result.moves is not None:
            start = playback.states[0] if playback else game.replay(found.level, job.request.moves)
            context["figures"] = game.count(found.level, result.moves, start)
    return context


def render_panel(found: Found, job: Job | None) -> str:
    return render_template("partials/solver.html", **panel_context(found, job))


def render_stream(found: Found, job: Job) -> str:
    """The fragments that change while a solve runs or plays back (swapped by id)."""
    return render_template("partials/solver_stream.html", **panel_context(found, job))


def render_frame(found: Found, job: Job) -> str:
    """Only what one playback step changes: the board, the position, play/pause."""
    return render_template("partials/solver_frame.html", **panel_context(found, job))


# -- HTTP actions -----------------------------------------------------------------------------
def board_key(found: Found) -> str:
    return f"{found.game.name}/{found.ref.key}"


@bp.post("/<game_name>/<collection>/<ident>/solve")
def start_solve(game_name: str, collection: str, ident: str) -> str:
    found = find_level(game_name, collection, ident)
    play = load_play(found)
    algorithm = request.form.get("algorithm") or found.game.default_for(found.level)
    if algorithm not in found.game.algorithms():
        raise BadRequest(f"{found.game.title} has no solver called {algorithm[:40]!r}.")
    moves = play.moves if request.form.get("start") == "current" else []
    solve = Request(
        game=found.game.name,
        level_text=found.game.level_text(found.level),
        moves=list(moves),
        algorithm=algorithm,
        limits=web_limits(),
        owner=player_id(),
        board=board_key(found),
    )
    try:
        job = runner().submit(solve, page=True)
    except Busy as busy:
        context = panel_context(found, runner().latest(player_id(), board_key(found)))
        return render_template("partials/solver.html", notice=str(busy), **context)
    return render_panel(found, job)


@bp.post("/<game_name>/<collection>/<ident>/solve/cancel")
def cancel_solve(game_name: str, collection: str, ident: str) -> str:
    found = find_level(game_name, collection, ident)
    job = runner().get(request.form.get("job", ""), player_id())
    if job is None:
        raise BadRequest("That solve is not running any more.", 404)
    runner().cancel(job)
    wait_for(job, lambda j: j.state == "done", 5)
    return render_panel(found, job)


@bp.post("/<game_name>/<collection>/<ident>/solve/use")
def use_solution(game_name: str, collection: str, ident: str) -> str:
    """Play the solver's solution in the player's game, as undoable moves."""
    found = find_level(game_name, collection, ident)
    job = runner().get(request.form.get("job", ""), player_id())
    if job is None or job.result is None or job.result.status != "solved":
        raise BadRequest("There is no solution to use; solve the level first.", 404)
    play = load_play(found)
    solution = list(job.result.moves or [])
    message = ""
    if job.request.moves == play.moves:
        play.play(solution)
    elif not job.request.moves:
        play.replace(solution)
    else:
        message = "Your position changed since this solve started; solve again from here."
    save_play(found, play)
    return render_template("partials/play.html", **play_context(found, play, message))


@bp.post("/<game_name>/<collection>/<ident>/hint")
def hint(game_name: str, collection: str, ident: str) -> str:
    found = find_level(game_name, collection, ident)
    play = load_play(found)
    return render_template("partials/hint.html", hint=next_move_hint(found, play))


def next_move_hint(found: Found, play: Play) -> str:
    """The next move of a solution from the current position, in words."""
    game = found.game
    if play.solved:
        return "Already solved!"
    table_hint = quick_hint(game.name)
    tokens = table_hint(found, play) if table_hint else None
    if tokens:
        return "Next move: " + game.describe_move(found.level, play.state, tokens[0])
    limits = Limits(
        seconds=float(current_app.config.get("HINT_TIME_LIMIT", 5)), nodes=None, memory_mb=1024
    )
    solve = Request(
        game.name,
        game.level_text(found.level),
        list(play.moves),
        game.default_for(found.level),
        limits,
        player_id(),
        board_key(found) + "#hint",
    )
    try:
        job = runner().submit(solve)
    except Busy:
        return "A hint is already being worked out."
    wait_for(job, lambda j: j.state == "done", limits.seconds + 5)
    result = job.result
    if result is None:
        runner().cancel(job)
        return "No hint in time; try again."
    if result.status == "solved" and result.moves:
        return "Next move: " + game.describe_move(found.level, play.state, result.moves[0])
    if result.status == "unsolvable":
        return "This position cannot be solved any more: undo some moves."
    return f"No hint: the solver found nothing within {limits.seconds:g} s from here."


# -- the socket ---------------------------------------------------------------------------------
def _same_origin() -> bool:
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # not a browser: no cross-site page can be behind it
    return urlsplit(origin).netloc == request.host


@sock.route("/<game_name>/<collection>/<ident>/solve/ws/<job_id>", bp=bp)
def solve_socket(ws: Any, game_name: str, collection: str, ident: str, job_id: str) -> None:
    if not _same_origin():
        ws.close(reason=1008, message="cross-site socket refused")
        return
    try:
        found = find_level(game_name, collection, ident)
    except BadRequest as error:
        ws.close(reason=1008, message=error.message[:120])
        return
    job = runner().get(job_id, player_id())
    if job is None:
        ws.close(reason=1008, message="no such solve for this player")
        return
    runner().watch(job)
    try:
        stream(ws, found, job)
    except ConnectionClosed:
        pass
    finally:
        runner().unwatch(job)


def stream(ws: Any, found: Found, job: Job) -> None:
    # The version is read before the snapshot is rendered: a change landing in between is then
    # sent next, where reading it after would have lost it (and left the page "running").
    seen = job.version
    ws.send(render_stream(found, job))
    sent_at = time.monotonic()
    window_start, window_count = time.monotonic(), 0
    wait = LIVELY_WAIT
    while True:
        message = ws.receive(timeout=wait)
        now = time.monotonic()
        changed = stepped = False
        if message is not None:
            if now - window_start >= 1.0:
                window_start, window_count = now, 0
            window_count += 1
            if window_count > MESSAGES_PER_SECOND:
                ws.close(reason=1008, message="too many messages")
                return
            handled = handle_message(message, found, job)
            stepped = handled == "frame"
            changed = handled == "all"
        playback = playback_of(job, found.game, found.level)
        if playback is not None and playback.playing and now >= playback.next_at:
            if playback.position < len(playback.states) - 1:
                playback.position += 1
                playback.next_at = now + 1.0 / playback.speed
                stepped = True
            else:
                playback.playing = False
                stepped = True
        if job.version != seen and now - sent_at >= UPDATE_INTERVAL:
            seen = job.version
            changed = True
        if changed:
            ws.send(render_stream(found, job))
            sent_at = now
        elif stepped:
            ws.send(render_frame(found, job))
        playing = playback is not None and playback.playing
        quiet = job.state == "queued" or (job.state == "done" and not playing)
        wait = QUIET_WAIT if quiet and job.version == seen else LIVELY_WAIT


def handle_message(message: Any, found: Found, job: Job) -> str:
    """Apply one command from the page: "all" or "frame" for what to send again, "" for none."""
    try:
        data = json.loads(message)
        action = data.get("action")
    except (ValueError, AttributeError):
        return ""
    if action == "cancel":
        runner().cancel(job)
        return "all"
    playback = playback_of(job, found.game, found.level)
    if playback is None:
        return ""
    last = len(playback.states) - 1
    if action == "play":
        if playback.position >= last:
            playback.position = 0
        playback.playing = True
        playback.next_at = 0.0
    elif action == "pause":
        playback.playing = False
    elif action == "forward":
        playback.playing = False
        playback.position = min(last, playback.position + 1)
    elif action == "back":
        playback.playing = False
        playback.position = max(0, playback.position - 1)
    elif action == "start":
        playback.playing = False
        playback.position = 0
    elif action == "end":
        playback.playing = False
        playback.position = last
    elif action == "speed":
        try:
            speed = float(data.get("speed", playback.speed))
        except (TypeError, ValueError):
            return ""
        playback.speed = min(20.0, max(0.5, speed))
        return ""
    else:
        return ""
    return "frame"
