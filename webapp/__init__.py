"""Puzzle Lab: puzzles to play in the browser, and the solvers that watch them solved.

``create_app`` (the Flask application factory, in ``webapp/web/app.py``) is loaded only when
it is asked for: a solver process imports this package for its games and searches, and never
loads Flask, the database drivers or the views."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webapp.web.app import create_app


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from webapp.web.app import create_app

        return create_app
    raise AttributeError(f"module 'webapp' has no attribute {name!r}")


__all__ = ["create_app"]
