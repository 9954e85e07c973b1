"""Where a player stands: the records and leaderboard of a level, a name to show on them
(``/settings``), the page settings a player keeps, ratings, and "a level for me" near the
player's rating.

The counting is in webapp/core/records.py and webapp/core/ratings.py, the choosing (a level
for me, a collection listed by rating) in webapp/core/selector.py; this passes them the
request's store and player.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, redirect, render_template, request

from webapp.core import budgets as declared
from webapp.core import profile, selector, sketch
from webapp.core.errors import NotFound, Refused
from webapp.core.levels import Found, get_game
from webapp.core.records import level_records
from webapp.core.text import read_json
from webapp.storage.store import StoreUnavailable
from webapp.web.budgets import spends
from webapp.web.levels import find_level
from webapp.web.players import asker, player_id

bp = Blueprint("standing", __name__)


def level_standing(found: Found) -> dict[str, Any]:
    """The level page's records: its leaderboard, and the player's and the level's ratings."""
    store, player = found.store, found.player
    rated = store.level_rating(found.game.name, found.ref.key)
    mine = store.player_rating(player) if player else None
    return {
        "records": level_records(store, found.game, found.ref.key, player),
        "rating": mine[0] if mine else None,
        "level_rating": rated[0] if rated else None,
    }


@bp.route("/settings", methods=["GET", "POST"])
@spends(declared.NAMES, methods=["POST"])  # viewing the page is free
def settings() -> Response | str | tuple[str, int]:
    """The player's name on leaderboards (anonymous unless they choose one)."""
    who = asker()
    message = ""
    if request.method == "POST":
        try:
            profile.rename(who, request.form.get("name", "")[:200])
        except Refused as refused:
            message = refused.message
        else:
            return redirect("/settings?saved=1", code=303)
    mine = profile.profile(who)
    page = render_template(
        "settings.html",
        name=mine.name,
        message=message,
        saved=request.args.get("saved") == "1",
        rating=mine.rating,
    )
    return (page, 400) if message else page


def player_settings() -> dict[str, Any]:
    """This player's kept page settings (for the page's first paint); none for a visitor."""
    if not player_id():  # a visitor's page reads no store
        return {}
    try:
        return profile.preferences(asker())
    except StoreUnavailable:  # the error page that says so draws with the defaults
        return {}


@bp.post("/settings/page")
@spends(declared.PREFERENCES)
def keep_settings() -> Response:
    """Keep the page settings the player chose, so every browser they play in shows them."""
    if request.is_json:  # read bounded: deeply nested JSON broke the parser (a 500)
        raw = request.get_data(cache=False)
        sent = read_json(raw, "settings sent", profile.MAX_SETTINGS_BYTES)
    else:  # a form: true and false as words
        words = {"true": True, "false": False}
        sent = {name: words.get(value, value) for name, value in request.form.items()}
        sent.pop("csrf_token", None)
    profile.keep_preferences(asker(), sent)
    return Response(status=204)


@bp.get("/<game_name>/for-me")
def level_for_me(game_name: str) -> Response:
    """An unsolved level of the game's collections near the player's rating (``shift``
    easier or harder moves the aim): webapp/core/selector.py."""
    game = get_game(game_name)
    shift = request.args.get("shift", "")
    ref = selector.level_for_me(asker(), game, shift)
    return redirect(f"{ref.path}?for-me=1", code=303)


@bp.get("/<game_name>/<collection>/<ident>/sketch.svg")
def level_sketch(game_name: str, collection: str, ident: str) -> Response:
    """A small picture of a level's board, for the collection page (cached a day)."""
    found = find_level(game_name, collection, ident)
    rows = found.game.sketch(found.level)
    if rows is None:
        raise NotFound(f"{found.game.title} levels have no picture.")
    answer = Response(sketch.svg(tuple(rows)), mimetype="image/svg+xml")
    answer.headers["Cache-Control"] = "public, max-age=86400"
    return answer


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.context_processor(lambda: {"player_settings": player_settings})
