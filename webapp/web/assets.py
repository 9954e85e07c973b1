"""Where each game's templates and browser files live, so a game brings its own.

A game in ``webapp/games/<name>/`` keeps its templates in ``templates/<name>/`` and its script
and styles in ``static/games/<name>/`` (``game.js``, ``game.css``). A game registered from
elsewhere (the ``GAME_PACKAGES`` setting) keeps them beside its package, in ``templates/``
and ``static/``. Pages load a game's files only where the game is played.
"""

from __future__ import annotations

import sys
from pathlib import Path

from flask import Flask, abort, send_from_directory, url_for
from jinja2 import ChoiceLoader, FileSystemLoader, PrefixLoader

from webapp import games
from webapp.games.base import Game

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = "webapp.games."


def _package_folder(game: Game) -> Path | None:
    """The folder of a game registered from outside webapp/games/, else None."""
    module = games.module_of(game.name)
    if module.startswith(BUILT_IN):
        return None
    return Path(sys.modules[module].__file__ or "").resolve().parent


def static_folder(game: Game) -> Path:
    own = _package_folder(game)
    return own / "static" if own is not None else ROOT / "static" / "games" / game.name


def asset_url(game: Game, filename: str) -> str | None:
    """The address of one of the game's browser files, or None when it has no such file."""
    if not (static_folder(game) / filename).is_file():
        return None
    return url_for("game_asset", game_name=game.name, filename=filename)


def init_app(app: Flask) -> None:
    """Register the extra games the settings name, find their templates, serve their files."""
    extra: dict[str, FileSystemLoader] = {}
    for module in app.config.get("GAME_PACKAGES") or ():
        game = games.register(module)
        extra[game.name] = FileSystemLoader(str(_package_folder(game) / "templates"))
    if extra:
        app.jinja_loader = ChoiceLoader([app.jinja_loader, PrefixLoader(extra)])

    @app.get("/games/<game_name>/<filename>")
    def game_asset(game_name: str, filename: str):  # noqa: ANN202 - a Flask response
        try:
            game = games.get(game_name)
        except KeyError:
            abort(404)
        return send_from_directory(static_folder(game), filename, max_age=3600)

    app.jinja_env.globals["asset_url"] = asset_url
