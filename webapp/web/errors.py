"""Every error a player can meet, as a page they can read: never a stack trace. All the
handlers live here: the refusals the services raise (webapp/core/errors.py), the store's
(unreachable, or a game changed elsewhere) and the framework's own."""

from __future__ import annotations

from flask import Flask, Response, current_app, render_template, request
from werkzeug.exceptions import HTTPException

from webapp.core.errors import Refused
from webapp.storage.store import StaleGame, StoreUnavailable

#: What a player reads for the errors the framework raises.
HTTP_MESSAGES = {
    404: "There is nothing at this address.",
    405: "That is not something this address does.",
    413: "That upload is too large.",
    500: "Something went wrong on our side. Your game is safe; please try again.",
}
#: What a player sees when the database cannot be reached.
UNREACHABLE = "The game store is unreachable; your game is safe. Please try again in a moment."
#: What a player sees when their game changed elsewhere while this request was on its way.
STALE = "This game was changed in another tab or window; here it is as it stands now."


def error_response(message: str, status: int, again: int = 0) -> Response:
    """The error page; for an htmx request, the message alone as plain text (the page shows
    it in its flash line, and text cannot inject markup there). With ``again`` (seconds),
    when to ask again: a Retry-After header, and the page looks again by itself then."""
    if request.headers.get("HX-Request"):
        answer = Response(message, status, mimetype="text/plain")
    else:
        answer = Response(render_template("error.html", message=message, again=again), status)
    if again:
        answer.headers["Retry-After"] = str(again)
    return answer


def refused(error: Refused) -> Response:
    return error_response(error.message, error.status, getattr(error, "retry_after", 0))


def http_error(error: HTTPException) -> Response | tuple[str, int]:
    status = error.code or 500
    return error_response(
        HTTP_MESSAGES.get(status, error.description or "Something went wrong."), status
    )


def store_unavailable(error: StoreUnavailable) -> tuple[str, int, dict[str, str]]:
    """A 503 saying the game is safe: every write is one transaction, so a request the
    database failed wrote nothing. htmx requests get the sentence alone, to flash."""
    current_app.logger.warning("game store unreachable: %s", error)
    headers = {"Retry-After": "5"}
    if request.headers.get("HX-Request"):
        return UNREACHABLE, 503, {**headers, "Content-Type": "text/plain; charset=utf-8"}
    return render_template("error.html", message=UNREACHABLE), 503, headers


def stale_game(error: StaleGame) -> tuple[str, int, dict[str, str]]:
    """A 409: the save was refused, nothing was overwritten. htmx reloads the page (so the
    board shows the stored game); a plain form gets the sentence and a link back."""
    if request.headers.get("HX-Request"):
        return STALE, 409, {"HX-Refresh": "true", "Content-Type": "text/plain; charset=utf-8"}
    return render_template("error.html", message=STALE), 409, {}


def init_app(app: Flask) -> None:
    app.register_error_handler(Refused, refused)
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(StoreUnavailable, store_unavailable)
    app.register_error_handler(StaleGame, stale_game)
