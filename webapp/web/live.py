"""Watch the solver: start, cancel, hint, and the WebSocket that streams progress and playback.

The socket carries HTML fragments with ids; htmx's ws extension swaps each into the page.
On every (re)connect the server sends a full snapshot, so a dropped socket loses nothing.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from flask import Blueprint, Flask, Response, current_app, redirect, render_template, request
from flask_sock import ConnectionClosed, Sock

from webapp.core.budgets import HINTS, MOVES, SOCKETS, SOLVES
from webapp.core.errors import NotFound, Refused
from webapp.core.play import Play
from webapp.core.playback import Playback
from webapp.core.text import MAX_JSON_DEPTH, json_depth
from webapp.games.base import MoveError
from webapp.games.solving import check_solution
from webapp.jobs.base import Busy, Job
from webapp.jobs.work import Improve, Solve
from webapp.web.budgets import client_key, socket_turn, spends, waiting_elsewhere
from webapp.web.levels import (
    Found,
    find_level,
    load_play,
    mark_shown,
    play_context,
    save_play,
)
from webapp.web.players import player_id, same_origin
from webapp.web.solvers import get_runner, get_tables, hint_limits, job_request, web_limits
from webapp.web.watch import (
    NO_WAY_THERE,
    playback_of,
    render_frame,
    render_panel,
    render_stream,
    stopped_at,
    stopped_moves,
)

bp = Blueprint("live", __name__)
sock = Sock()

#: Seconds the solution optimizer may take on a player's solution, and the longest solution
#: text it takes.
IMPROVE_SECONDS = 20.0
MAX_SOLUTION_TEXT = 20_000
#: Most messages a socket may send in one second before it is closed.
MESSAGES_PER_SECOND = 20
#: Seconds a socket's thread waits for the page between looks at its solve: short while
#: progress or playback steps are due; longer while the solve waits in the queue or sits
#: finished, as every look wakes a thread of the one server process.
LIVELY_WAIT, QUIET_WAIT = 0.05, 0.25
#: Least seconds between two progress updates on one socket.
UPDATE_INTERVAL = 0.1
#: Open solver sockets per solve, per player and per client (an address, an IPv6 /56), the
#: settings SOCKETS_PER_JOB, _PER_PLAYER, _PER_CLIENT; past a cap the oldest is closed. The
#: client's is below the threads one address may hold (webapp/ops/serving.py, 16), so its oldest
#: socket is closed before the address runs out of threads for its pages and moves.
SOCKET_CAPS = {"job": 4, "player": 8, "client": 12}
#: Open solver sockets in all (the SOCKETS_SITE setting): each holds one of the server's
#: threads (128), so sockets may hold at most this many and pages always have the rest.
SOCKETS_SITE = 48
#: Seconds a socket to a finished solve stays open with nothing played or asked (the
#: SOCKET_IDLE_SECONDS setting); then it closes, and the page opens it again on its next
#: playback command. Pings alone keep no thread.
IDLE_SECONDS = 60.0
IDLE_NOTE = "The live view paused to free the server; any playback button picks it up again."
#: What a page reads when every socket the site allows is open: the solve itself goes on.
SITE_FULL = "the live view is full just now; your solve goes on and this page retries"


class Sockets:
    """The open solver sockets of this process, capped per solve, player and client, and in
    all: each holds a server thread, so a page reloaded in a loop or a script opening sockets
    must not take them. Within a cap the oldest goes first, as it is most likely a page
    already left. When the site is full, a newcomer takes the oldest socket of the client
    holding the most, if that client holds more than the newcomer's own plus one; else the
    newcomer is refused (a few addresses cannot keep everyone else from watching)."""

    def __init__(self) -> None:
        self._open: list[tuple[dict[str, str], Any]] = []
        self._lock = threading.Lock()

    def opened(self, ws: Any, caps: dict[str, int], site: int, **keys: str) -> bool:
        """Count a new socket in; False (and nothing counted) when the site is full."""
        closing = []
        with self._lock:
            if len(self._open) >= site and not self._make_room(keys["client"], closing):
                return False
            self._open.append((keys, ws))
            for name, cap in caps.items():
                same = [entry for entry in self._open if entry[0][name] == keys[name]]
                for entry in same[: max(0, len(same) - cap)]:
                    self._open.remove(entry)
                    closing.append(entry[1])
        for old in closing:
            try:
                old.close(reason=1008, message="too many solver streams open: this was the oldest")
            except Exception:  # noqa: BLE001 - already closing: nothing more to do
                pass
        return True

    def _make_room(self, client: str, closing: list[Any]) -> bool:
        held = Counter(entry[0]["client"] for entry in self._open)
        heaviest, most = held.most_common(1)[0]
        if most <= held.get(client, 0) + 1:
            return False
        oldest = next(entry for entry in self._open if entry[0]["client"] == heaviest)
        self._open.remove(oldest)
        closing.append(oldest[1])
        return True

    def closed(self, ws: Any) -> None:
        with self._lock:
            self._open = [entry for entry in self._open if entry[1] is not ws]


sockets = Sockets()


def init_app(app: Flask) -> None:
    app.config.setdefault("SOCK_SERVER_OPTIONS", {"ping_interval": 20, "max_message_size": 4096})
    app.register_blueprint(bp)
    sock.init_app(app)


def client_address() -> str:
    """Where the request came from: behind ``PROXIES`` trusted proxies (the setting), the
    address the farthest of them saw (counted from the end of X-Forwarded-For, as werkzeug's
    ProxyFix does); else the connection's. Behind a proxy without the setting, every player
    shares the proxy's address."""
    return client_key()  # ProxyFix (webapp/web/budgets.py) has put that address in remote_addr


# -- HTTP actions -----------------------------------------------------------------------------
@bp.post("/<game_name>/<collection>/<ident>/solve")
@spends(SOLVES)
def start_solve(game_name: str, collection: str, ident: str) -> str:
    found = find_level(game_name, collection, ident)
    play = load_play(found)
    algorithm = request.form.get("algorithm") or found.game.default_for(found.level)
    if algorithm not in found.game.algorithms():
        raise Refused(f"{found.game.title} has no solver called {algorithm[:40]!r}.")
    moves = play.moves if request.form.get("start") == "current" else []
    work = Solve(algorithm, tuple(moves))
    solve = job_request(found.game, found.level, work, web_limits(), found.board_key)
    try:
        job = get_runner().submit(solve, page=True)
    except Busy as busy:
        return render_panel(found, get_runner().latest(player_id(), found.board_key), str(busy))
    return render_panel(found, job)


@bp.post("/<game_name>/<collection>/<ident>/solve/improve")
@spends(SOLVES)
def improve_solution(game_name: str, collection: str, ident: str) -> str:
    """A solution of the level (the solver's, the player's, a replay's) made shorter by the
    game's optimizer: a solve in the panel, its playback the shorter solution."""
    found = find_level(game_name, collection, ident)
    game = found.game
    metric = request.form.get("metric", "")
    if metric not in game.improves:
        known = ", ".join(game.improves) or "none"
        raise Refused(f"{game.title} solutions are shortened in: {known}; not {metric[:20]!r}.")
    text = request.form.get("moves", "")
    if len(text) > MAX_SOLUTION_TEXT:
        raise Refused(f"The solution is too long (the most is {MAX_SOLUTION_TEXT:,} characters).")
    try:
        tokens = game.split_moves(text)
    except MoveError as error:
        raise Refused(f"The solution cannot be read: {error}") from None
    problem = check_solution(game, found.level, game.start(found.level), tokens)
    if problem:
        raise Refused(f"Those moves do not solve this level: {problem}")
    limits = web_limits()
    seconds = min(limits.seconds or IMPROVE_SECONDS, IMPROVE_SECONDS)
    work = Improve(tuple(tokens), metric)
    solve = job_request(
        found.game, found.level, work, replace(limits, seconds=seconds), found.board_key
    )
    try:
        job = get_runner().submit(solve, page=True)
    except Busy as busy:
        return render_panel(found, get_runner().latest(player_id(), found.board_key), str(busy))
    return render_panel(found, job)


@bp.post("/<game_name>/<collection>/<ident>/solve/cancel")
def cancel_solve(game_name: str, collection: str, ident: str) -> str:
    found = find_level(game_name, collection, ident)
    job = get_runner().get(request.form.get("job", ""), player_id())
    if job is None:
        raise NotFound("That solve is not running any more.")
    job.stop()
    with waiting_elsewhere():
        job.wait(5)
    return render_panel(found, job)


@bp.post("/<game_name>/<collection>/<ident>/solve/use")
def use_solution(game_name: str, collection: str, ident: str) -> str:
    """Play the solver's solution in the player's game, as undoable moves; a win with them
    is assisted, never the player's own best."""
    found = find_level(game_name, collection, ident)
    job = get_runner().get(request.form.get("job", ""), player_id())
    if job is None or job.result is None or job.result.status != "solved":
        raise NotFound("There is no solution to use; solve the level first.")
    if job.request.board != found.board_key:
        raise NotFound("That solution is for another level.")
    play = load_play(found)
    solution = list(job.result.moves or [])
    message = ""
    if job.request.moves == play.moves:
        play.play(solution, assisted=True)
    elif not job.request.moves:
        play.replace(solution, assisted=True)
    else:
        message = "Your position changed since this solve started; solve again from here."
    save_play(found, play)
    return render_template(
        "partials/play.html", **play_context(found, play, message, request.form.get("action", ""))
    )


@bp.post("/<game_name>/<collection>/<ident>/solve/stopped")
@spends(MOVES)  # the player's game moved on by the search's moves: no level is made
def play_stopped(game_name: str, collection: str, ident: str) -> Response:
    """The position a search stopped at (out of time or states), for the player to take on
    in their own game on this level, as assisted moves (a replay link's "Play from here"):
    never a level of its own, whose win would not count for this one."""
    found = find_level(game_name, collection, ident)
    job = get_runner().get(request.form.get("job", ""), player_id())
    position = stopped_at(job)
    if position is None:
        raise NotFound("That search did not stop short of its goal: no position to take on.")
    if job.request.board != found.board_key:
        raise NotFound("That search left no position of this level to take on.")
    moves = stopped_moves(found, job)
    if moves is None:
        raise Refused(NO_WAY_THERE)
    play = load_play(found)
    play.replace(moves, assisted=True)
    save_play(found, play)
    return redirect(found.ref.path, code=303)


@bp.post("/<game_name>/<collection>/<ident>/hint")
@spends(HINTS)
def hint(game_name: str, collection: str, ident: str) -> str:
    found = find_level(game_name, collection, ident)
    play = load_play(found)
    return render_template("partials/hint.html", hint=next_move_hint(found, play))


def next_move_hint(found: Found, play: Play) -> str:
    """The next move of a solution from the current position, in words."""
    game = found.game
    if play.broken:
        return play.broken
    if play.solved:
        return "Already solved!"
    tables, _pending = get_tables().get(game, found.level)
    tokens = game.quick_hint(found.level, play.state, tables)
    if tokens:
        mark_shown(found)  # a move of a solution: a win on this board is not the player's own
        return "Next move: " + game.describe_move(found.level, play.state, tokens[0])
    limits = hint_limits()
    algorithm = game.default_for(found.level)
    board = found.board_key + "#hint"
    hint = Solve(algorithm, tuple(play.moves), hint=True)
    solve = job_request(found.game, found.level, hint, limits, board)
    try:
        handle = get_runner().submit(solve)
    except Busy as busy:
        working = get_runner().latest(solve.owner, solve.board)
        return "A hint is already being worked out." if working and not working.done else str(busy)
    with handle, waiting_elsewhere():
        result = handle.wait(limits.seconds + 5)
    get_runner().forget(handle)  # answered: its record would only take memory for 30 minutes
    if result is None:
        return "No hint in time; try again."
    if result.status == "solved" and result.moves:
        mark_shown(found)
        return "Next move: " + game.describe_move(found.level, play.state, result.moves[0])
    return hint_failure(result, limits.seconds)


def hint_failure(result: Any, seconds: float) -> str:
    """Why a hint's search gave no move, in the player's words: what actually stopped it."""
    if result.status == "unsolvable":
        return "This position cannot be solved any more: undo some moves."
    if result.status == "memory-limit":
        return "No hint: this position needs more memory than a hint may use. Try the solver."
    if result.status == "node-limit":
        return "No hint: the search grew too large for a hint. Try the solver."
    if result.status in ("error", "cancelled"):
        return "No hint this time: the solver stopped. Please try again."
    return f"No hint: the solver found nothing within {seconds:g} s from here."


# -- the socket ---------------------------------------------------------------------------------
@sock.route("/<game_name>/<collection>/<ident>/solve/ws/<job_id>", bp=bp)
# A page opens one socket a solve, and again after a drop; each open renders the panel.
@spends(SOCKETS)
def solve_socket(ws: Any, game_name: str, collection: str, ident: str, job_id: str) -> None:
    if not same_origin(request):
        ws.close(reason=1008, message="cross-site socket refused")
        return
    try:
        found = find_level(game_name, collection, ident)
    except Refused as error:
        ws.close(reason=1008, message=error.message[:120])
        return
    job = get_runner().get(job_id, player_id())
    if job is None or job.request.board != found.board_key:
        ws.close(reason=1008, message="no such solve of this board for this player")
        return
    config = current_app.config
    caps = {
        name: int(config.get(f"SOCKETS_PER_{name.upper()}", cap))
        for name, cap in SOCKET_CAPS.items()
    }
    site = int(config.get("SOCKETS_SITE", SOCKETS_SITE))
    if not sockets.opened(
        ws, caps, site, job=job.id, player=job.request.owner, client=client_address()
    ):
        ws.send(
            render_template(
                "partials/live_note.html", note=SITE_FULL[0].upper() + SITE_FULL[1:] + "."
            )
        )
        ws.close(reason=1013, message=SITE_FULL)  # "try again later": the page retries
        return
    get_runner().watch(job)
    try:
        with socket_turn() as turned:
            if not turned:  # the site is too busy even to draw the panel: the page retries
                ws.close(reason=1013, message="the site is busy; this page retries")
                return
            snapshot = job.version, render_stream(found, job)
        idle = float(config.get("SOCKET_IDLE_SECONDS", IDLE_SECONDS))
        stream(ws, found, job, idle, snapshot)
    except (ConnectionClosed, ConnectionError, TimeoutError):
        pass  # the page went away, or its connection was reset mid-send: nothing to report
    finally:
        sockets.closed(ws)
        get_runner().unwatch(job)


def stream(
    ws: Any,
    found: Found,
    job: Job,
    idle_seconds: float = IDLE_SECONDS,
    snapshot: tuple[int, str] | None = None,
) -> None:
    # The version is read before the snapshot is rendered: a change landing in between is then
    # sent next, where reading it after would have lost it (and left the page "running").
    seen, first = snapshot or (job.version, render_stream(found, job))
    ws.send(first)
    sent_at = active_at = time.monotonic()
    window_start, window_count = time.monotonic(), 0
    wait = LIVELY_WAIT
    while True:
        message = ws.receive(timeout=wait)
        now = time.monotonic()
        changed = stepped = False
        if message is not None:
            active_at = now
            if now - window_start >= 1.0:
                window_start, window_count = now, 0
            window_count += 1
            if window_count > MESSAGES_PER_SECOND:
                ws.close(reason=1008, message="too many messages")
                return
            try:
                handled = handle_message(message, found, job)
            except Refused as refused:  # named on the page; the stream goes on
                ws.send(render_template("partials/live_note.html", note=refused.message))
                handled = ""
            stepped = handled == "frame"
            changed = handled == "all"
        playback = playback_of(job, found.game, found.level)
        if playback is not None and playback.advance(now):
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
        if changed or stepped or playing:
            active_at = now
        elif job.done and now - active_at > idle_seconds:
            # A finished solve nobody plays back: give the thread back. A normal closure,
            # which the page does not retry; its next playback command opens it again.
            ws.send(render_template("partials/live_note.html", note=IDLE_NOTE))
            ws.close(reason=1000, message="idle")
            return
        quiet = job.state == "queued" or (job.done and not playing)
        wait = QUIET_WAIT if quiet and job.version == seen else LIVELY_WAIT


# -- the page's commands: each returns what to send again ("all", "frame" or "") --------------
def _speed(playback: Playback, data: dict[str, Any]) -> str:
    try:
        playback.set_speed(float(data.get("speed", playback.speed)))
    except (TypeError, ValueError):
        pass
    return ""


def _seek(playback: Playback, data: dict[str, Any]) -> str:
    try:
        playback.seek(int(data.get("position", playback.position)))
    except (TypeError, ValueError):
        return ""
    return "frame"


def _frame(command: Callable[[Playback], None]) -> Callable[[Playback, dict[str, Any]], str]:
    def run(playback: Playback, _data: dict[str, Any]) -> str:
        command(playback)
        return "frame"

    return run


PLAYBACK_COMMANDS: dict[str, Callable[[Playback, dict[str, Any]], str]] = {
    "play": _frame(Playback.play),
    "pause": _frame(Playback.pause),
    "forward": _frame(lambda playback: playback.step(1)),
    "back": _frame(lambda playback: playback.step(-1)),
    "start": _frame(lambda playback: playback.seek(0)),
    "end": _frame(lambda playback: playback.seek(playback.last)),
    "seek": _seek,
    "speed": _speed,
}


def handle_message(message: Any, found: Found, job: Job) -> str:
    """Apply one command from the page: "all" or "frame" for what to send again, "" for none.
    Malformed JSON is ignored; JSON nested deeper than any command is Refused, checked before
    it is parsed (the parser's recursion failed on it, and the handler with it)."""
    text = message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)
    if json_depth(text) > MAX_JSON_DEPTH:
        raise Refused(
            f"The page sent a message nested too deeply (the most is {MAX_JSON_DEPTH} levels "
            "of arrays and objects); it was ignored."
        )
    try:
        data = json.loads(text)
        action = data.get("action")
    except (ValueError, AttributeError, RecursionError):
        return ""
    if action == "cancel":
        job.stop()
        return "all"
    command = PLAYBACK_COMMANDS.get(action) if isinstance(action, str) else None
    playback = playback_of(job, found.game, found.level)
    if command is None or playback is None:
        return ""
    return command(playback, data)
