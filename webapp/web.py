"""The pages: thin views that parse the request, call the model and render a template."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from jinja2 import TemplateNotFound
from werkzeug.exceptions import HTTPException

from webapp import catalog, games
from webapp.catalog import CUSTOM, POSITION, LevelRef
from webapp.db import get_store
from webapp.extras import extras_for
from webapp.games.base import MAX_LEVEL_TEXT, Game, LevelError, MoveError
from webapp.limits import RateLimit
from webapp.play import Play, StateCache
from webapp.store import SavedGame

bp = Blueprint("web", __name__)

#: Pasted or uploaded level files a player may send per hour.
PASTES = RateLimit(60, 3600)

_CUSTOM_ID = re.compile(r"^[0-9a-f]{12}$")
MAX_MOVE_TEXT = 200_000


class BadRequest(Exception):
    """A user's mistake: shown as a message with a 4xx status, never as a stack trace."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


# -- the player and forgery protection -------------------------------------------------------
def player_id() -> str:
    """The opaque id in the session cookie; a new player gets one on their first visit."""
    player = session.get("player")
    if not isinstance(player, str) or len(player) != 32:
        player = secrets.token_hex(16)
        session["player"] = player
        session.permanent = True
    return player


def csrf_token() -> str:
    """Derived from the player id with the secret key, so the cookie holds nothing else."""
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, b"csrf:" + player_id().encode(), hashlib.sha256).hexdigest()[:32]


@bp.before_app_request
def check_csrf() -> None:
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    if "player" not in session or not hmac.compare_digest(sent, csrf_token()):
        raise BadRequest(
            "This page is out of date (its security token does not match). "
            "Reload it and try again.",
            403,
        )


@bp.app_context_processor
def template_helpers() -> dict[str, Any]:
    return {"csrf_token": csrf_token, "all_games": games.all_games, "has_template": has_template}


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


# -- finding levels ---------------------------------------------------------------------------
@dataclass
class Found:
    game: Game
    ref: LevelRef
    level: Any
    title: str
    next_ref: LevelRef | None = None
    collection_title: str = ""


def get_game(name: str) -> Game:
    try:
        return games.get(name)
    except KeyError:
        raise BadRequest(f"There is no game called {name!r}.", 404) from None


def find_level(game_name: str, collection: str, ident: str) -> Found:
    game = get_game(game_name)
    if collection == POSITION and hasattr(game, "from_code"):
        try:
            level = game.from_code(ident)
        except LevelError as error:
            raise BadRequest(f"This address names no {game.title} position: {error}", 404) from None
        ref = LevelRef(game.name, POSITION, custom_id=game.position_code(level))
        if ref.custom_id != ident:
            raise BadRequest("This address names no position.", 404)
        title = f"{level.rows}×{level.cols} puzzle"
        return Found(game, ref, level, title, collection_title="Shuffled positions")
    if collection == CUSTOM:
        if not _CUSTOM_ID.match(ident):
            raise BadRequest(f"{ident!r} is not a level id.", 404)
        text = get_store().load_level(game.name, ident)
        if text is None:
            raise BadRequest("No level has that id. Paste it again to get its link.", 404)
        level = game.parse(text)[0]
        ref = LevelRef(game.name, CUSTOM, custom_id=ident)
        return Found(
            game,
            ref,
            level,
            catalog.level_title(game, level, "Your level"),
            collection_title="Shared levels",
        )
    found = catalog.collection(game.name, collection)
    if found is None:
        raise BadRequest(f"{game.title} has no collection called {collection!r}.", 404)
    if not ident.isdecimal() or not 1 <= int(ident) <= len(found.levels):
        raise BadRequest(
            f"{found.title} has levels 1 to {len(found.levels)}; there is no level {ident[:20]!r}.",
            404,
        )
    number = int(ident)
    level = found.levels[number - 1]
    ref = LevelRef(game.name, found.slug, number)
    following = LevelRef(game.name, found.slug, number + 1) if number < len(found.levels) else None
    title = catalog.level_title(game, level, f"{found.title} {number}")
    return Found(game, ref, level, title, following, found.title)


#: Positions derived for recent games, so long games do not replay from the start each move.
STATES = StateCache()


def load_play(found: Found) -> Play:
    saved = get_store().load_game(player_id(), found.game.name, found.ref.key)
    key = (player_id(), found.game.name, found.ref.key)
    play = Play(found.game, found.level, cache=STATES, cache_key=key)
    if saved is not None:
        play.history, play.cursor = saved.history, min(saved.cursor, len(saved.history))
        try:
            play.state  # noqa: B018 - replay now, so a history the rules reject is caught here
        except ValueError:
            play.history, play.cursor = [], 0
    return play


def save_play(found: Found, play: Play) -> None:
    get_store().save_game(
        player_id(), found.game.name, found.ref.key, SavedGame(play.history, play.cursor)
    )
    if play.solved and play.moves:
        get_store().record_win(player_id(), found.game.name, found.ref.key, play.figures)


def play_context(found: Found, play: Play, message: str = "") -> dict[str, Any]:
    best = get_store().best(player_id(), found.game.name, found.ref.key)
    extras = extras_for(found.game.name)
    return {
        **(extras(found, play) if extras else {}),
        "game": found.game,
        "found": found,
        "level": found.level,
        "play": play,
        "state": play.state,
        "figures": play.figures,
        "best": best,
        "message": message,
        "replay_url": replay_url(found.ref, play),
    }


def replay_url(ref: LevelRef, play: Play) -> str:
    moves = play.move_string()
    return ref.path + ("?moves=" + moves if moves else "")


# -- pages ------------------------------------------------------------------------------------
@bp.get("/")
def home() -> str:
    return render_template("home.html", catalog=catalog)


@bp.get("/<game_name>/")
def game_page(game_name: str) -> str:
    game = get_game(game_name)
    return render_template(
        "game.html", game=game, collections=catalog.collections(game.name), error=None, text=""
    )


@bp.get("/<game_name>/<collection>/")
def collection_page(game_name: str, collection: str) -> str:
    game = get_game(game_name)
    found = catalog.collection(game.name, collection)
    if found is None:
        raise BadRequest(f"{game.title} has no collection called {collection!r}.", 404)
    keys = [f"{found.slug}/{n}" for n in range(1, len(found.levels) + 1)]
    results = get_store().results(player_id(), game.name, keys)
    started = get_store().started(player_id(), game.name)
    return render_template(
        "collection.html",
        game=game,
        collection=found,
        results=results,
        started=started,
        shortest=lambda level: catalog.known_optimum(game, level),
    )


@bp.get("/<game_name>/<collection>/<ident>")
def level_page(game_name: str, collection: str, ident: str) -> Response | str:
    found = find_level(game_name, collection, ident)
    play = load_play(found)
    moves = request.args.get("moves")
    if moves is not None:
        # A replay link: its moves win over what is stored, and stay undoable.
        if len(moves) > MAX_MOVE_TEXT:
            raise BadRequest(f"The move string is too long (the most is {MAX_MOVE_TEXT:,}).")
        try:
            play.replace(found.game.split_moves(moves))
        except ValueError as exc:
            raise BadRequest(f"This replay link does not work on this level: {exc}") from None
        save_play(found, play)
        return redirect(found.ref.path, code=303)
    from webapp.live import panel_context, runner

    job = runner().latest(player_id(), f"{found.game.name}/{found.ref.key}")
    return render_template(
        "level.html", **{**panel_context(found, job), **play_context(found, play)}
    )


@bp.post("/<game_name>/<collection>/<ident>/play")
def play_action(game_name: str, collection: str, ident: str) -> Response | str:
    found = find_level(game_name, collection, ident)
    play = load_play(found)
    action = request.form.get("action", "")
    message = ""
    try:
        if action == "move":
            text = request.form.get("moves", "")
            if len(text) > MAX_MOVE_TEXT:
                raise MoveError(f"too many moves at once (the most is {MAX_MOVE_TEXT:,})")
            play.play(found.game.split_moves(text))
        elif action == "click":
            row, column = _cell(request.form.get("cell", ""))
            tokens = found.game.click(found.level, play.state, row, column)
            if not tokens:
                return Response(status=204)
            play.play(tokens)
        elif action == "undo":
            play.undo()
        elif action == "redo":
            play.redo()
        elif action == "restart":
            play.restart()
        elif action == "refresh":
            pass  # the page asks again for figures computed in the background
        else:
            raise BadRequest(f"Unknown action {action[:40]!r}.")
    except MoveError as exc:
        raise BadRequest(f"Not a move: {exc}") from None
    except ValueError as exc:  # an illegal move: the board stays as it is
        message = str(exc)
        if request.form.get("quiet") == "1":
            return Response(status=204)
    save_play(found, play)
    return render_template("partials/play.html", **play_context(found, play, message))


def _cell(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d{1,3}),(\d{1,3})", text)
    if not match:
        raise BadRequest("A cell is given as row,column.")
    return int(match.group(1)), int(match.group(2))


@bp.post("/<game_name>/new")
def paste(game_name: str) -> Response | tuple[str, int]:
    """A pasted or uploaded level gets a stable URL derived from its content."""
    game = get_game(game_name)
    if not PASTES.allow(player_id()):
        raise BadRequest("You have shared many levels this hour; please wait a while.", 429)
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
    if len(text) > MAX_LEVEL_TEXT:
        return _paste_error(
            game, f"The text is too long (the most is {MAX_LEVEL_TEXT:,} characters).", ""
        )
    try:
        levels = game.parse(text)
    except LevelError as exc:
        return _paste_error(game, str(exc), text)
    refs = []
    for level in levels[:100]:
        level_id = catalog.content_id(game, level)
        get_store().save_level(game.name, level_id, game.level_text(level))
        refs.append((LevelRef(game.name, CUSTOM, custom_id=level_id), game.level_title(level)))
    if len(refs) == 1:
        return redirect(refs[0][0].path, code=303)
    return render_template("pasted.html", game=game, refs=refs, total=len(levels)), 200


def _paste_error(game: Game, message: str, text: str) -> tuple[str, int]:
    return (
        render_template(
            "game.html",
            game=game,
            collections=catalog.collections(game.name),
            error=message,
            text=text,
        ),
        400,
    )


# -- errors -----------------------------------------------------------------------------------
def register_errors(app: Flask) -> None:
    @app.errorhandler(BadRequest)
    def bad_request(error: BadRequest) -> tuple[str, int]:
        if request.headers.get("HX-Request"):
            return error.message, error.status
        return render_template("error.html", message=error.message), error.status

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[str, int]:
        message = {
            404: "There is nothing at this address.",
            405: "That is not something this address does.",
            413: "That upload is too large.",
            500: "Something went wrong on our side. Your game is safe; please try again.",
        }.get(error.code or 500, error.description or "Something went wrong.")
        if request.headers.get("HX-Request"):
            return message, error.code or 500
        return render_template("error.html", message=message), error.code or 500

    @app.route("/favicon.ico")
    def favicon() -> Response:
        return redirect(url_for("static", filename="favicon.svg"), code=301)
