"""Levels made to order: ``/<game>/random`` (a difficulty and a seed, as Tatham's links) and
``/daily`` (each game's puzzle of the UTC day, the same for everyone, with an archive).

Making a level is a search: it runs in a solver child through the job runner
(``webapp.generating.make_level``), never here. A made level is saved at its content address
(or is its position code) like a pasted one, with what it was made from and its figures.
"""

from __future__ import annotations

import datetime
import random
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Flask, Response, current_app, redirect, render_template, request

from webapp import games
from webapp.core import daily as daily_rules
from webapp.core import sharing
from webapp.core.catalog import CUSTOM, POSITION, LevelRef
from webapp.core.errors import NotFound, Refused, Unavailable
from webapp.core.levels import get_game
from webapp.games.base import DIFFICULTIES, Game
from webapp.generating import SEED, make_level
from webapp.web.budgets import limit, waiting_elsewhere
from webapp.web.database import get_store
from webapp.web.levels import shelf
from webapp.web.players import player_id
from webapp.web.solvers import get_runner

bp = Blueprint("making", __name__)

#: Seconds a level may take to make (the hardest band's searches stay well inside it).
MAKE_SECONDS = 60.0
#: The daily puzzle's difficulty, and how many earlier days the archive lists.
DAILY_DIFFICULTY = "medium"
ARCHIVE_DAYS = 30


def made_ref(game: Game, difficulty: str, seed: str, size: str = "") -> LevelRef:
    """The address of the level ``game`` makes for ``difficulty`` and ``seed``: made in a
    solver child the first time, saved, and remembered with its figures."""
    try:
        with waiting_elsewhere():
            made = get_runner().call(
                make_level,
                game.name,
                games.module_of(game.name),
                difficulty,
                seed,
                size,
                timeout=MAKE_SECONDS,
                memory_mb=1024,
            )
    except TimeoutError:
        raise Unavailable(
            f"This {difficulty} level could not be made in {MAKE_SECONDS:g} s; try another."
        ) from None
    except RuntimeError as error:
        raise Unavailable(f"This level could not be made: {error}") from None
    if made["code"]:
        ref = LevelRef(game.name, POSITION, custom_id=made["code"])
    else:
        level = game.parse(made["text"])[0]
        ref = sharing.save_levels(shelf(), game, [level])[0][0]
    figures = {key: made[key] for key in ("optimum", "metric", "proved", "measures", "solution")}
    figures["size"] = size
    get_store().save_made(game.name, ref.custom_id or "", difficulty, seed, figures)
    return ref


@bp.get("/<game_name>/random")
@limit("made_levels", "60 per hour", "You have asked for many new levels this hour; please wait.")
def random_level(game_name: str) -> Response:
    """A level of the difficulty asked for; without a seed, a new seed (and its link)."""
    game = get_game(game_name)
    if not game.generates:
        raise NotFound(f"{game.title} makes no levels of its own.")
    difficulty = request.args.get("difficulty", "medium")
    if difficulty not in DIFFICULTIES:
        raise Refused(f"The difficulty is one of {', '.join(DIFFICULTIES)}.")
    size = request.args.get("size", "")
    if size and size not in game.made_sizes:
        known = ", ".join(game.made_sizes) or "none: the difficulty sets the board"
        raise Refused(f"{game.title} makes boards of these sizes: {known}.")
    seed = request.args.get("seed", "")
    if not seed:
        seed = str(random.SystemRandom().randrange(10**6, 10**7))
        query = urlencode(
            {"difficulty": difficulty, "seed": seed, **({"size": size} if size else {})}
        )
        return redirect(f"/{game.name}/random?{query}", code=302)
    if not SEED.fullmatch(seed):
        raise Refused("A seed is 1 to 40 letters, digits or dashes.")
    return redirect(made_ref(game, difficulty, seed, size).path, code=303)


def made_context(game: Game, ref: LevelRef) -> dict[str, Any]:
    """What a level page says of a generated level: its difficulty, seed and optimum, and
    the links to another one and a harder one; nothing for other levels."""
    if ref.collection not in (CUSTOM, POSITION) or not game.generates:
        return {}
    made = get_store().made(game.name, ref.custom_id or "")
    if made is None:
        return {}
    band = DIFFICULTIES.index(made["difficulty"])
    harder = DIFFICULTIES[band + 1] if band + 1 < len(DIFFICULTIES) else None
    sized = f"&size={made['size']}" if made.get("size") else ""
    return {
        "made": made,
        "another_url": f"/{game.name}/random?difficulty={made['difficulty']}{sized}",
        "harder_url": f"/{game.name}/random?difficulty={harder}{sized}" if harder else None,
        "harder": harder,
        "seed_url": (
            f"/{game.name}/random?difficulty={made['difficulty']}&seed={made['seed']}{sized}"
        ),
    }


# -- the daily puzzle ----------------------------------------------------------------------------
def today() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date()


def daily_ref(game: Game, day: datetime.date) -> LevelRef:
    """The puzzle of ``day``: made from a seed only this instance's secret gives
    (webapp/core/daily.py), and never a level another day had (a repeat takes the day's
    next seed)."""
    store = get_store()
    known = store.daily(game.name)
    secret = current_app.config["SECRET_KEY"]
    picked = daily_rules.pick(
        secret,
        day,
        known,
        lambda seed: made_ref(game, DAILY_DIFFICULTY, seed).custom_id or "",
    )
    if picked is None:
        raise Unavailable("Today's puzzle could not be made; try again later.")
    if day.isoformat() in known:
        return _ref_of(game, picked)
    return _ref_of(game, store.save_daily(game.name, day.isoformat(), picked))


def _ref_of(game: Game, level_id: str) -> LevelRef:
    kind = POSITION if game.has_position_codes else CUSTOM
    return LevelRef(game.name, kind, custom_id=level_id)


def streak(game: Game, day: datetime.date, known: dict[str, str]) -> int:
    """How many days in a row, up to ``day`` (or the day before, while its puzzle is not
    solved), this player solved the day's puzzle on their own."""
    if not player_id():
        return 0
    solved = get_store().solved(player_id(), game.name)
    puzzles = {
        datetime.date.fromisoformat(stamp): _ref_of(game, level_id).key
        for stamp, level_id in known.items()
    }
    return daily_rules.streak(day, puzzles, solved)


@bp.get("/daily")
def daily() -> str:
    """Today's puzzle of every game that makes levels, the archive, and the player's streaks."""
    day = today()
    shown = []
    for game in games.all_games():
        if not game.generates:
            continue
        known = get_store().daily(game.name)
        past = [
            (datetime.date.fromisoformat(stamp), _ref_of(game, level_id))
            for stamp, level_id in sorted(known.items(), reverse=True)
            if stamp < day.isoformat()
        ][:ARCHIVE_DAYS]
        ref = daily_ref(game, day)
        known[day.isoformat()] = ref.custom_id or ""
        results = get_store().results(player_id(), game.name, [ref.key]) if player_id() else {}
        made = get_store().made(game.name, ref.custom_id or "") or {}
        shown.append(
            {
                "game": game,
                "ref": ref,
                "made": made,
                "past": past,
                "streak": streak(game, day, known),
                "share": share_text(game, day, results.get(ref.key), made),
            }
        )
    return render_template("daily.html", day=day, shown=shown)


def share_text(
    game: Game, day: datetime.date, best: dict[str, int] | None, made: dict[str, Any]
) -> str:
    """A result to share after a win, giving nothing of the solution away: the counts only."""
    if not best:
        return ""
    metric = made.get("metric", "moves")
    count = best.get(metric, best.get("moves"))
    unit = metric.replace("_", " ")
    text = f"Puzzle Lab {game.title} {day.isoformat()}: {count} {unit}"
    if made.get("optimum") is not None:
        label = "optimum" if made.get("proved") else "best known"
        text += f", {label} {made['optimum']}"
    return text


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
