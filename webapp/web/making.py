"""Levels made to order: ``/<game>/random`` (a difficulty and a seed, as Tatham's links) and
``/daily`` (each game's puzzle of the UTC day, the same for everyone, with an archive).

Making a level is a search: it runs in a solver child through the job runner
(``webapp.generating.make_level``), never here, in the asking client's turn with the queued
solves. A made level is saved at its content address (or is its position code) like a pasted
one, with what it was made from and its figures, and is found there when asked for again. A
request waits on a making only a short while, and only so many wait at once
(webapp/web/orders.py); the harder bands are made ahead.
"""

from __future__ import annotations

import datetime
import random
import threading
import time
from functools import partial
from typing import Any
from urllib.parse import urlencode

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    g,
    redirect,
    render_template,
    request,
    url_for,
)

from webapp import games
from webapp.core import daily as daily_rules
from webapp.core import sharing
from webapp.core.budgets import MADE_LEVELS
from webapp.core.catalog import CUSTOM, POSITION, LevelRef
from webapp.core.errors import NotFound, Refused, Unavailable
from webapp.core.levels import Found, get_game
from webapp.core.players import Asker
from webapp.games.base import DIFFICULTIES, Game
from webapp.generating import SEED, make_level
from webapp.storage.store import Store
from webapp.web.budgets import client_key, spends, waiting_elsewhere
from webapp.web.database import get_store
from webapp.web.orders import Full, Orders, Pantry, Remembered
from webapp.web.players import VISITOR, asker
from webapp.web.solvers import get_runner

bp = Blueprint("making", __name__)

#: Seconds a level may take to make, its wait for a solver included (the hardest band's
#: searches stay well inside it).
MAKE_SECONDS = 60.0
#: Seconds a request waits for its level before it is answered "still being made" (the
#: making goes on, and the page looks again): the MAKE_WAIT setting.
MAKE_WAIT = 8.0
#: Requests that may wait on makings at once (the MAKE_MAX_WAITING setting): past it, a
#: request is answered at once with 503 and when to come back.
MAKE_MAX_WAITING = 8
#: Makings under way at once (the MAKE_AT_ONCE setting; across every web process in the
#: scaled mode), made-ahead ones included: a solver is seconds of a core for an expert
#: level, and a small machine has two; past it a request for a level not made yet is
#: answered at once with 503 and when to come back. So a flood of requests for levels holds
#: one solver at most, and a player's solve finds the other.
MAKE_AT_ONCE = 1
#: The bands made ahead, a few levels each, handed out to requests without a seed.
AHEAD = ("hard", "expert")
#: Who made-ahead levels count as in the solvers' queue: one client among the others.
AHEAD_CLIENT = "made-ahead"
#: The daily puzzle's difficulty, and how many earlier days the archive lists.
DAILY_DIFFICULTY = "medium"
ARCHIVE_DAYS = 30
#: What a player reads when too many are waiting for levels already.
BUSY = "Many levels are being made just now; please try again in a few seconds."


def _orders() -> Orders[LevelRef]:
    return current_app.extensions["puzzlelab.orders"]


def _pantry(app: Flask) -> Pantry:
    """The app's levels made ahead (each app its own: they are in its store)."""
    return app.extensions["puzzlelab.pantry"]


def _remembered(app: Flask) -> Remembered:
    return app.extensions["puzzlelab.remembered"]


def made_ref(game: Game, difficulty: str, seed: str, size: str = "", client: str = "") -> LevelRef:
    """The address of the level ``game`` makes for ``difficulty`` and ``seed``: found in the
    store when it was made before, else made in a solver child (in ``client``'s turn in the
    solvers' queue), saved, and remembered with its figures. Unavailable, with when to look
    again, when it is not made within MAKE_WAIT seconds (the making goes on) or too many
    requests wait on makings already."""
    known = _known(game, difficulty, seed, size)
    key = (game.name, difficulty, seed, size)
    if known is not None or _orders().under_way(key):
        g.nothing_new = True  # found made, or made already for someone: no budget spent
    if known is not None:
        return known
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    wait = float(app.config.get("MAKE_WAIT") or (MAKE_SECONDS if app.testing else MAKE_WAIT))
    try:
        with waiting_elsewhere():
            ref = _orders().get(
                key,
                lambda: _make(app, game, difficulty, seed, size, client),
                wait,
            )
    except Full:
        raise Unavailable(BUSY, retry_after=5) from None
    if ref is None:
        raise Unavailable(
            f"This {difficulty} level is still being made; it will be ready in a moment.",
            retry_after=3,
        )
    return ref


def _known(game: Game, difficulty: str, seed: str, size: str) -> LevelRef | None:
    """The level made before for this difficulty, seed and size, if any."""
    key = (game.name, difficulty, seed, size)
    level_id = _remembered(current_app).get(key) or get_store().made_level(*key)
    return sharing.address(game, level_id) if level_id else None


def _make(app: Flask, game: Game, difficulty: str, seed: str, size: str, client: str) -> LevelRef:
    """Make the level and keep it, in a thread of its own (``Orders``): what a waiting
    request, or the next one to ask, finds. Made levels are the site's, made from a seed
    within the made_levels budget: they spend no client's level bytes."""
    with app.app_context():
        try:
            made = get_runner().call(
                make_level,
                game.name,
                games.module_of(game.name),
                difficulty,
                seed,
                size,
                timeout=MAKE_SECONDS,
                memory_mb=1024,
                client=client or AHEAD_CLIENT,
            )
        except TimeoutError:
            raise Unavailable(
                f"This {difficulty} level could not be made in {MAKE_SECONDS:g} s; try another."
            ) from None
        except RuntimeError as error:
            raise Unavailable(f"This level could not be made: {error}") from None
        store = get_store()
        budget = app.config["LEVELS_BUDGET_MB"] * 2**20
        shelf = sharing.Shelf(Asker(store, VISITOR), budget, lambda _bytes: True, "")
        ref = sharing.share_level(shelf, game, game.parse(made["text"])[0])
        keys = ("optimum", "metric", "proved", "measures", "solution")
        figures = {key: made[key] for key in keys}
        figures["size"] = size
        store.save_made(game.name, ref.custom_id or "", difficulty, seed, figures)
        _remembered(app).put((game.name, difficulty, seed, size), ref.custom_id or "")
        return ref


def asked_for_a_making(_response: Response) -> bool:
    """Whether a request for a level spends the made_levels budget: only one that asked for
    a level to be made (a level found made, or made already for someone, or a seed handed
    out, spends nothing, so a page that looks again while its level is made costs nothing)."""
    return not g.get("nothing_new")


@bp.get("/<game_name>/random")
@spends(MADE_LEVELS, deduct_when=asked_for_a_making)
def random_level(game_name: str) -> Response:
    """A level of the difficulty asked for; without a seed, a new seed (and its link): one
    made ahead when there is one."""
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
        g.nothing_new = True  # a seed handed out: its level is asked for by the next request
        seed = _pantry(current_app).take(game.name, difficulty, size) or new_seed()
        query = urlencode(
            {"difficulty": difficulty, "seed": seed, **({"size": size} if size else {})}
        )
        return redirect(f"/{game.name}/random?{query}", code=302)
    if not SEED.fullmatch(seed):
        raise Refused("A seed is 1 to 40 letters, digits or dashes.")
    return redirect(made_ref(game, difficulty, seed, size, client_key()).path, code=303)


def new_seed() -> str:
    return str(random.SystemRandom().randrange(10**6, 10**7))


def make_ahead(app: Flask, pause: float = 2.0) -> None:
    """Keep a few levels of the harder bands made, for ever (a thread of its own)."""
    while True:
        time.sleep(pause)
        try:
            make_one_ahead(app)
        except Full:
            continue  # the makings' place is taken: a request's level goes first
        except Exception:  # noqa: BLE001 - a making failed: the next round tries another seed
            app.logger.warning("a level made ahead failed", exc_info=True)
            time.sleep(pause * 5)


def make_one_ahead(app: Flask) -> tuple[str, str, str] | None:
    """Make one level of the band with the fewest made ahead (the job runner makes it in its
    turn with every client's solves, as one client), for a request without a seed to be
    handed; the band, or None when every band has its few, or a solver is busy: only while
    every solver is idle, one at a time, so a player's solve finds a solver free."""
    bands = [
        (game.name, difficulty, "")
        for game in games.all_games()
        if game.generates
        for difficulty in AHEAD
    ]
    with app.app_context():
        if get_runner().running() > 0:
            return None
        short = _pantry(app).short(bands)
        if not short:
            return _daily_ahead(app)
        name, difficulty, size = short[0]
        seed = new_seed()
        making = _orders().start(
            (name, difficulty, seed, size),
            partial(_make, app, games.get(name), difficulty, seed, size, AHEAD_CLIENT),
        )
        making.result(timeout=MAKE_SECONDS + 10)
        _pantry(app).put(name, difficulty, size, seed)
        return name, difficulty, size


def _daily_ahead(app: Flask) -> tuple[str, str, str] | None:
    """Make today's or tomorrow's daily puzzle of a game that lacks it (from the day's first
    seed), so the first visitor of the day finds it made; None when all are."""
    secret = app.config["SECRET_KEY"]
    for day in (today(), today() + daily_rules.ONE_DAY):
        for game in games.all_games():
            seed = daily_rules.seed(secret, day)
            if not game.generates or _known(game, DAILY_DIFFICULTY, seed, "") is not None:
                continue
            making = _orders().start(
                (game.name, DAILY_DIFFICULTY, seed, ""),
                partial(_make, app, game, DAILY_DIFFICULTY, seed, "", AHEAD_CLIENT),
            )
            making.result(timeout=MAKE_SECONDS + 10)
            return game.name, DAILY_DIFFICULTY, day.isoformat()
    return None


def made_context(found: Found) -> dict[str, Any]:
    """What a level page says of a generated level: its difficulty, seed and optimum, and
    the links to another one and a harder one; nothing for other levels."""
    game, ref = found.game, found.ref
    if ref.collection not in (CUSTOM, POSITION) or not game.generates:
        return {}
    made = found.store.made(game.name, ref.custom_id or "")
    if made is None:
        return {}
    band = DIFFICULTIES.index(made["difficulty"])
    harder = DIFFICULTIES[band + 1] if band + 1 < len(DIFFICULTIES) else None
    sized = f"&size={made['size']}" if made.get("size") else ""
    day = daily_day(found.store, game, ref.custom_id or "")
    return {
        "made": made,
        "daily": day,
        "daily_title": f"Daily {game.title}, {spoken(day)}" if day else "",
        "daily_is_today": day == today(),
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


def daily_ref(store: Store, game: Game, day: datetime.date) -> LevelRef:
    """The puzzle of ``day``: made from a seed only this instance's secret gives
    (webapp/core/daily.py), and never a level another day had (a repeat takes the day's
    next seed)."""
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
        return sharing.address(game, picked)
    return sharing.address(game, store.save_daily(game.name, day.isoformat(), picked))


def daily_day(store: Store, game: Game, level_id: str) -> datetime.date | None:
    """The day whose daily puzzle this level is, or None."""
    days = [stamp for stamp, known in store.daily(game.name).items() if known == level_id]
    return datetime.date.fromisoformat(min(days)) if days else None


def spoken(day: datetime.date) -> str:
    """A date as a person writes it: "28 November 2026"."""
    return f"{day.day} {day.strftime('%B')} {day.year}"


def streak(who: Asker, game: Game, day: datetime.date, known: dict[str, str]) -> int:
    """How many days in a row, up to ``day`` (or the day before, while its puzzle is not
    solved), the asking player solved the day's puzzle on their own."""
    if not who.player:
        return 0
    solved = who.store.solved(who.player, game.name)
    puzzles = {
        datetime.date.fromisoformat(stamp): sharing.address(game, level_id).key
        for stamp, level_id in known.items()
    }
    return daily_rules.streak(day, puzzles, solved)


@bp.get("/daily")
def daily() -> str:
    """Today's puzzle of every game that makes levels, the archive, and the player's streaks."""
    day = today()
    who = asker()
    store = who.store  # the site's daily puzzles; the player's results and streak are who's
    shown = []
    for game in games.all_games():
        if not game.generates:
            continue
        known = store.daily(game.name)
        past = [
            (datetime.date.fromisoformat(stamp), sharing.address(game, level_id))
            for stamp, level_id in sorted(known.items(), reverse=True)
            if stamp < day.isoformat()
        ][:ARCHIVE_DAYS]
        ref = daily_ref(store, game, day)
        known[day.isoformat()] = ref.custom_id or ""
        results = store.results(who.player, game.name, [ref.key]) if who.player else {}
        made = store.made(game.name, ref.custom_id or "") or {}
        shown.append(
            {
                "game": game,
                "ref": ref,
                "made": made,
                "past": past,
                "streak": streak(who, game, day, known),
                "share": share_text(game, day, results.get(ref.key), made),
            }
        )
    return render_template("daily.html", day=day, shown=shown, spoken=spoken)


def share_text(
    game: Game, day: datetime.date, best: dict[str, int] | None, made: dict[str, Any]
) -> str:
    """A result to share after a win, giving nothing of the solution away: the counts only."""
    if not best:
        return ""
    metric = made.get("metric", "moves")
    count = best.get(metric, best.get("moves"))
    unit = metric.replace("_", " ")
    text = f"Puzzle Lab daily {game.title}, {spoken(day)}: {count} {unit}"
    if made.get("optimum") is not None:
        label = "the fewest possible" if made.get("proved") else "the best known"
        text += f" ({label} {made['optimum']})"
    return text + f". Play it: {url_for('making.daily', _external=True)}"


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    at_once = int(app.config.get("MAKE_AT_ONCE") or MAKE_AT_ONCE)
    site = None
    if app.config.get("REDIS_URL"):  # several web processes: the cap is the site's
        from webapp.jobs.scaled import Permits

        site = Permits(app.config["REDIS_URL"], "making", at_once, MAKE_SECONDS + 30)
    app.extensions["puzzlelab.orders"] = Orders(
        int(app.config.get("MAKE_MAX_WAITING") or MAKE_MAX_WAITING), at_once, site
    )
    app.extensions["puzzlelab.pantry"] = Pantry()
    app.extensions["puzzlelab.remembered"] = Remembered()
    # Levels made ahead from the first request on (not at import: a command that makes the
    # app to run one task has no use for them); off in the test client's apps by default.
    if app.config.get("MAKE_AHEAD", not app.testing) not in (False, "false", "0", 0):
        started = threading.Event()

        def start_making_ahead() -> None:
            if not started.is_set():
                started.set()
                threading.Thread(target=make_ahead, args=(app,), daemon=True).start()

        app.before_request(start_making_ahead)
