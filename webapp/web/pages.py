"""The pages: thin views that parse the request, call the model and render a template.

Every view speaks to a game through ``webapp.games.base.Game`` only: a game's own pages are
its templates, never code here.
"""

from __future__ import annotations

import random
import re
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from jinja2 import TemplateNotFound

from webapp import games
from webapp.core import catalog, drafts, pictures, selector, sharing
from webapp.core.budgets import MOVE_BYTES, MOVES, NEW_LEVELS, PASTES, PICTURE_BYTES, UPLOADS
from webapp.core.errors import Conflict, NotFound, Refused
from webapp.core.levels import get_game, replay_seen
from webapp.core.play import Play, Turns
from webapp.games.base import DIFFICULTIES, MAX_LEVEL_TEXT, Game, IllegalMove, LevelError, MoveError
from webapp.web import budgets
from webapp.web.budgets import spends
from webapp.web.levels import (
    Found,
    find_level,
    load_play,
    mark_shown,
    picture_folder,
    play_context,
    progress,
    replay_context,
    save_play,
    shelf,
)
from webapp.web.making import made_context
from webapp.web.players import asker, csrf_token, player_id
from webapp.web.solvers import get_runner
from webapp.web.standing import level_standing
from webapp.web.watch import panel_context

bp = Blueprint("web", __name__)

MAX_MOVE_TEXT = 200_000
#: Most separate moves in one request (keys that queued up behind a slow answer).
MAX_MOVE_TEXTS = 1000
#: A page's own name for itself, so the moves it numbers are played in its order.
_PAGE_ID = re.compile(r"[a-z0-9]{4,24}")
TURNS = Turns()
#: What a move on a won game is told: the win stands until the player undoes or restarts.
SOLVED_ALREADY = "Solved! Undo or restart to play on; the moves of your win are kept."
#: What a page shows for a move that reached the server after later ones (docs/SECURITY.md).
DROPPED = (
    "A move reached the server late, after the ones you made next, and was not played: "
    "the board shows your game as it stands."
)


@bp.app_context_processor
def template_helpers() -> dict[str, Any]:
    return {
        "csrf_token": csrf_token,
        "all_games": games.all_games,
        "has_template": has_template,
        "difficulties": DIFFICULTIES,
    }


def has_template(name: str) -> bool:
    """Whether an optional template (e.g. a game's counters.html) exists. Looked up once: an
    include of a missing template would search the disk again at every render."""
    known: dict[str, bool] = current_app.extensions.setdefault("puzzlelab.templates", {})
    if name not in known:
        try:
            current_app.jinja_env.get_template(name)
            known[name] = True
        except TemplateNotFound:
            known[name] = False
    return known[name]


# -- pages ------------------------------------------------------------------------------------
@bp.get("/")
def home() -> str:
    return render_template("home.html", catalog=catalog, progress=progress)


@bp.get("/<game_name>/")
def game_page(game_name: str) -> str:
    game = get_game(game_name)
    return render_template(
        "game.html",
        game=game,
        collections=catalog.collections(game.name),
        progress=progress(game),
        error=None,
        text="",
    )


@bp.get("/<game_name>/<collection>/")
def collection_page(game_name: str, collection: str) -> str:
    game = get_game(game_name)
    view = selector.collection_view(
        asker(),
        game,
        collection,
        request.args.get("sort", "number"),
        request.args.get("show", "all"),
    )
    found = view["collection"]
    return render_template(
        "collection.html",
        **view,
        game=game,
        shortest=lambda level: catalog.known_optimum(game, level),
        titles=[
            catalog.level_title(game, level, f"{found.title} {number}")
            for number, level in enumerate(found.levels, 1)
        ],
    )


@bp.get("/<game_name>/<collection>/<ident>")
def level_page(game_name: str, collection: str, ident: str) -> Response | str:
    found = find_level(game_name, collection, ident)
    moves = request.args.get("moves")
    replay: dict[str, Any] = {}
    if moves is not None:
        # A replay link opens a view of its moves; the player's own game stays as it is
        # until they choose "Play from here".
        if len(moves) > MAX_MOVE_TEXT:
            raise Refused(f"The move string is too long (the most is {MAX_MOVE_TEXT:,}).")
        try:
            replay = replay_context(found, moves, request.args.get("at"))
        except Refused as refused:  # not a dead end: the level itself, saying what failed
            return render_template("level.html", **_level_context(found, refused.message)), 400
        replay_seen(found, replay)
    context = _level_context(found)
    if replay:
        context.update(replay=replay, state=replay["state"])
    return render_template("level.html", **context)


def _level_context(found: Found, message: str = "") -> dict[str, Any]:
    """What the level page shows: the player's game and the solver panel."""
    play = load_play(found)
    job = get_runner().latest(player_id(), found.board_key)
    return {
        **made_context(found),
        "author": drafts.author_of(found.store, found.ref),
        **level_standing(found),
        **panel_context(found, job),
        **play_context(found, play, message, request.form.get("action", "")),
    }


@bp.post("/<game_name>/<collection>/<ident>/play")
@spends(MOVES)
@spends(MOVE_BYTES, cost=budgets.move_bytes)
def play_action(game_name: str, collection: str, ident: str) -> Response | str:
    """One action on the player's game. A page sends moves without waiting for answers and
    numbers them (``page``, ``seq``): they are played in that order, and each answer says
    which it was (X-Play-Seq) so the page shows none out of order."""
    found = find_level(game_name, collection, ident)
    page, seq = request.form.get("page", ""), request.form.get("seq", "")
    ordered = _PAGE_ID.fullmatch(page) is not None and seq.isdecimal() and len(seq) < 10
    turn = TURNS.turn(
        (player_id(), found.board_key),
        (player_id(), page) if ordered else None,
        int(seq) if ordered else None,
    )
    with turn as taken:
        if not taken:
            # Overtaken by a later request of the same page: playing it now would land it on
            # a position the player did not mean. Not played, and the page says so.
            answer = Response(DROPPED, mimetype="text/plain", headers={"X-Play-Dropped": "1"})
        else:
            answer = _act(found)
    if ordered:
        answer = make_response(answer)
        answer.headers["X-Play-Seq"] = seq
    return answer


def _act(found: Found) -> Response | str:
    play = load_play(found)
    action = request.form.get("action", "")
    message = ""
    if action in ("move", "click") and play.solved and not play.broken:
        # A won game stays won: moves after the win would count on and ride in its link.
        message = SOLVED_ALREADY
        return render_template("partials/play.html", **play_context(found, play, message, ""))
    shown = len(play.moves) if action in ("move", "click") and not play.broken else 0
    try:
        if action == "move":
            message = _play_moves(found, play, request.form.getlist("moves") or [""])
        elif action == "click":
            row, column = _cell(request.form.get("cell", ""))
            tokens = found.game.click(found.level, play.state, row, column)
            if not tokens:
                return Response(status=204)
            play.play(tokens, gesture=True)
        elif action in ("undo", "redo", "restart"):
            if not {"undo": play.undo, "redo": play.redo, "restart": play.restart}[action]():
                action = "nothing to " + action  # told as such, never as a move undone
        elif action == "refresh":  # the page asks again for figures computed meanwhile
            return render_template(
                "partials/play.html",
                **play_context(found, play, message, request.form.get("action", "")),
            )
        elif action == "adopt":
            return _play_from_here(found, play)
        else:
            raise Refused(f"Unknown action {action[:40]!r}.")
    except MoveError as exc:
        raise Refused(f"Not a move: {exc}") from None
    except IllegalMove as exc:  # the rules refuse it: the board stays as it is
        message = str(exc)
        if request.form.get("quiet") == "1" and not play.broken:
            return Response(status=204)
    played = len(play.moves) - shown if action in ("move", "click") else 0
    # The pace counts each key's move (a page sends one a text) and each click once (the
    # server works out a click's path): a solution posted whole is one burst of all its moves.
    paced = min(played, 1) if action == "click" else max(played, 0)
    save_play(found, play, moves=paced, fresh=shown == 0)
    board = render_template(
        "partials/play.html", **play_context(found, play, message, action, played)
    )
    if played and play.solved:
        # The winning move: the records beside the board show the win at once, not after a
        # reload (htmx swaps them by their id).
        board += render_template(
            "partials/records.html", game=found.game, oob=True, **level_standing(found)
        )
        made = made_context(found)
        if made.get("daily"):  # the daily's note tells how short it can be, now it is solved
            board += render_template(
                "partials/made.html", game=found.game, play=play, oob=True, **made
            )
    return board


def _play_moves(found: Found, play: Play, texts: list[str]) -> str:
    """Play each text of moves in turn (a page sends several that queued up behind a slow
    answer): one the rules refuse is skipped and the rest still played. The refusal to show,
    if any; a lone text refused raises IllegalMove, as a single move always did."""
    if len(texts) > MAX_MOVE_TEXTS:
        raise MoveError(f"too many moves at once (the most is {MAX_MOVE_TEXTS:,} a request)")
    refused = ""
    for text in texts:
        if len(text) > MAX_MOVE_TEXT:
            raise MoveError(f"too many moves at once (the most is {MAX_MOVE_TEXT:,})")
        try:
            play.play(found.game.split_moves(text), gesture=True)
        except IllegalMove as exc:
            if len(texts) == 1 or play.broken:
                raise
            refused = str(exc)
    if refused and request.form.get("quiet") == "1":
        return ""
    return refused


def _play_from_here(found: Found, play: Play) -> Response:
    """A replay link's moves up to where its view stands become the player's game: undoable
    (the old game is a restart away back), and assisted (a win with them is not the
    player's own best)."""
    text = request.form.get("moves", "")
    if len(text) > MAX_MOVE_TEXT:
        raise MoveError(f"too many moves at once (the most is {MAX_MOVE_TEXT:,})")
    tokens = found.game.split_moves(text)
    at = request.form.get("at", "")
    if at.isdecimal():
        tokens = tokens[: int(at)]
    try:
        play.replace(tokens, assisted=True)
    except IllegalMove as exc:
        raise Refused(f"This replay link does not work on this level: {exc}") from None
    if play.solved:
        mark_shown(found)  # a solution handed over: retyped after a restart, still not theirs
    save_play(found, play)
    return redirect(_with_picture(found.game, found.ref.path), code=303)


def _cell(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d{1,3}),(\d{1,3})", text)
    if not match:
        raise Refused("A cell is given as row,column.")
    return int(match.group(1)), int(match.group(2))


# -- new levels: pasted, uploaded or generated ------------------------------------------------
@bp.post("/<game_name>/new")
@spends(PASTES)
def paste(game_name: str) -> Response | tuple[str, int]:
    """A pasted or uploaded level gets a stable URL derived from its content."""
    game = get_game(game_name)
    text = request.form.get("text", "")
    upload = request.files.get("file")
    if upload is not None and upload.filename:
        data = upload.read(MAX_LEVEL_TEXT + 1)
        if len(data) > MAX_LEVEL_TEXT:
            return _paste_error(
                game, f"The file is too large (the most is {MAX_LEVEL_TEXT:,} bytes).", ""
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return _paste_error(game, "The file is not text (UTF-8).", "")
    if not text.strip():
        return _paste_error(game, "Paste a level or choose a file.", text)
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        message = f"Line {line} holds a NUL character (byte 0): a level is plain text."
        return _paste_error(game, message, text.replace("\x00", ""))
    if len(text) > MAX_LEVEL_TEXT:
        return _paste_error(
            game, f"The text is too long (the most is {MAX_LEVEL_TEXT:,} characters).", ""
        )
    try:
        levels = game.parse(text)
    except LevelError as exc:
        return _paste_error(game, str(exc), text)
    try:
        refs = sharing.save_levels(shelf(), game, levels)
    except Refused as refused:
        return _paste_error(game, refused.message, text)
    if len(refs) == 1:
        return redirect(refs[0][0].path, code=303)
    return render_template("pasted.html", game=game, refs=refs, total=len(levels)), 200


def _paste_error(game: Game, message: str, text: str) -> tuple[str, int]:
    return (
        render_template(
            "game.html",
            game=game,
            collections=catalog.collections(game.name),
            progress=progress(game),
            error=message,
            text=text,
        ),
        400,
    )


@bp.post("/<game_name>/generate")
@spends(NEW_LEVELS)
def generate(game_name: str) -> Response:
    """A new level made by the game from the settings of its start form (a shuffle, say);
    refused while a solver works on the board it would replace."""
    game = get_game(game_name)
    if not game.has_start_form:
        raise NotFound(f"{game.title} makes no new levels; pick one from a collection.")
    current = request.form.get("board", "")
    job = get_runner().latest(player_id(), current) if current else None
    if job is not None and not job.done:
        raise Conflict(
            "A solver is working on this board: cancel it or let it finish before a new game.",
        )
    try:
        level = game.level_from_form(request.form, random.SystemRandom())
    except LevelError as error:
        raise Refused(error.message) from None
    ref = sharing.share_level(shelf(), game, level)
    return redirect(_with_picture(game, ref.path), code=303)


def _with_picture(game: Game, path: str, picture: str | None = None) -> str:
    """A level's address, keeping the picture the player chose (the default needs none)."""
    if not game.uses_pictures:
        return path
    picture = picture or request.values.get("picture", "")
    if not picture or picture == pictures.DEFAULT:
        return path
    return f"{path}?{urlencode({'picture': picture})}"


# -- pictures ----------------------------------------------------------------------------------
@bp.post("/<game_name>/picture")
@spends(UPLOADS)
def upload_picture(game_name: str) -> Response | tuple[str, int]:
    """Store an uploaded picture, cropped to the board it was sent from, and show it there."""
    game = get_game(game_name)
    if not game.uses_pictures:
        raise NotFound(f"{game.title} shows no pictures.")
    back = request.form.get("back", "")
    match = re.fullmatch(r"/([a-z]+)/([A-Za-z0-9_-]+)/([A-Za-z0-9_-]+)", back)
    if match is None or match.group(1) != game.name:
        raise Refused("Upload a picture from a puzzle's page.")
    found = find_level(*match.groups())
    upload = request.files.get("picture")
    if upload is None or not upload.filename:
        return _level_with_message(found, "Choose a picture to upload.", 400)
    data = upload.read(pictures.MAX_BYTES + 1)
    if len(data) > pictures.MAX_BYTES:
        message = f"The picture is larger than {pictures.MAX_BYTES // 2**20} MB."
        return _level_with_message(found, message, 400)
    if pictures.folder_bytes(picture_folder()) > current_app.config["PICTURES_BUDGET_MB"] * 2**20:
        message = "The site holds as many pictures as it can just now; try later."
        return _level_with_message(found, message, 503)
    budgets.check(PICTURE_BYTES)
    rows, cols = game.board_shape(found.level)
    # Decoded in a child process with a memory cap: never in this one.
    try:
        with budgets.waiting_elsewhere():
            stored = get_runner().call(
                pictures.store_checked,
                data,
                picture_folder(),
                rows,
                cols,
                timeout=20,
                memory_mb=512,
            )
    except (TimeoutError, RuntimeError):
        message = "That picture could not be read in time; try a smaller one."
        return _level_with_message(found, message, 400)
    if "refused" in stored:
        return _level_with_message(found, f"That picture cannot be used: {stored['refused']}", 400)
    kept = pictures.upload_path(picture_folder(), stored["picture"])
    budgets.charge(PICTURE_BYTES, kept.stat().st_size if kept is not None else len(data))
    return redirect(_with_picture(game, found.ref.path, stored["picture"]), code=303)


def _level_with_message(found: Found, message: str, status: int) -> tuple[str, int]:
    """The puzzle's own page, the player's game as it was, saying what went wrong."""
    return render_template("level.html", **_level_context(found, message)), status


@bp.get("/pictures/<picture>.jpg")
def uploaded_picture(picture: str) -> Response:
    path = pictures.upload_path(picture_folder(), picture)
    if path is None:
        raise NotFound("There is no such picture.")
    return send_file(path, mimetype="image/jpeg", max_age=31536000)


#: How often stored pictures are swept.
SWEEP_SECONDS = 6 * 3600


def start_picture_sweep(app: Flask) -> None:
    """Remove pictures nobody showed for a while, and the least recently shown beyond the
    budget, now and every few hours, on a background thread."""
    folder = Path(app.instance_path) / "pictures"
    days = float(app.config["PICTURES_UNUSED_DAYS"])
    budget = int(app.config["PICTURES_BUDGET_MB"]) * 2**20

    def sweep_forever() -> None:
        while True:
            try:
                pictures.sweep(folder, days, budget)
            except Exception:  # noqa: BLE001 - the next sweep tries again; the thread lives on
                app.logger.exception("sweeping pictures failed")
            time.sleep(SWEEP_SECONDS)

    threading.Thread(target=sweep_forever, name="sweep-pictures", daemon=True).start()


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    if not app.config.get("TESTING"):
        start_picture_sweep(app)

    @app.route("/favicon.ico")
    def favicon() -> Response:
        return redirect(url_for("static", filename="favicon.svg"), code=301)
