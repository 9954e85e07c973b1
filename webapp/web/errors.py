"""A user's mistakes and the server's, as pages a player can read: never a stack trace."""

from __future__ import annotations

from flask import Flask, Response, render_template, request
from werkzeug.exceptions import HTTPException


class BadRequest(Exception):
    """A user's mistake: shown as a message with a 4xx status, never as a stack trace."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


#: What a player reads for the errors the framework raises.
HTTP_MESSAGES = {
    404: "There is nothing at this address.",
    405: "That is not something this address does.",
    413: "That upload is too large.",
    500: "Something went wrong on our side. Your game is safe; please try again.",
}


def error_response(message: str, status: int) -> Response | tuple[str, int]:
    """The error page; for an htmx request, the message alone as plain text (the page shows
    it in its flash line, and text cannot inject markup there)."""
    if request.headers.get("HX-Request"):
        return Response(message, status, mimetype="text/plain")
    return render_template("error.html", message=message), status


def init_app(app: Flask) -> None:
    @app.errorhandler(BadRequest)
    def bad_request(error: BadRequest) -> Response | tuple[str, int]:
        return error_response(error.message, error.status)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response | tuple[str, int]:
        status = error.code or 500
        return error_response(
            HTTP_MESSAGES.get(status, error.description or "Something went wrong."), status
        )
