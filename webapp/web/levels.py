"""The request's side of levels: the level an address names for this player, their game on
it loaded and saved, the picture they chose, and what a level page shows.

The work is in webapp/core/levels.py (Flask-free); these pass it the request's store, player
and form, so every core function renders the same whoever calls it.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections import OrderedDict
from functools import partial
from pathlib import Path
from typing import Any

from flask import current_app, request, url_for

from webapp.core import catalog, pictures, ratings, results, sharing
from webapp.core import levels as core
from webapp.core.budgets import LEVEL_BYTES, NEW_GAMES
from webapp.core.errors import TooMany
from webapp.core.levels import MAX_LINK_MOVES, STATES, Found, replay_url
from webapp.core.play import Play
from webapp.core.records import Benchmark, Pace, Records, against, level_records, paced
from webapp.games.base import Game
from webapp.storage.store import SavedGame
from webapp.web.budgets import charge, client_key
from webapp.web.database import get_store
from webapp.web.players import player_id, unkept
from webapp.web.solvers import get_tables


def shelf() -> sharing.Shelf:
    """Where this request's new levels go, and the budgets they count against."""
    return sharing.Shelf(
        get_store(),
        player_id(),
        current_app.config["LEVELS_BUDGET_MB"] * 2**20,
        partial(charge, LEVEL_BYTES),
        LEVEL_BYTES.message,
    )


def find_level(game_name: str, collection: str, ident: str) -> Found:
    """The level at this address, titled as this player named it (a pasted level)."""
    return core.find_level(game_name, collection, ident, get_store(), player_id())


def progress(game: Game) -> tuple[core.Progress, dict[str, core.Progress]]:
    """This player's progress over a game's collections (the home and game pages)."""
    return core.progress(game, get_store(), player_id())


def replay_context(found: Found, text: str, at: str | None) -> dict[str, Any]:
    """A replay link's view, its step links keeping the picture the request names. A link
    without a position opens at the start, where its Play shows the moves one by one."""
    kept = {"picture": request.args["picture"]} if request.args.get("picture") else {}
    return core.replay_view(found, text, "0" if at is None else at, kept)


def replay_seen(found: Found, replay: dict[str, Any]) -> None:
    """A replay link holding a solution was shown to this player ("watch a shorter solution",
    a link passed on, the editor's watch): the board counts as shown to them, unless their
    own best is already as good as the link's (their own replay, say)."""
    figures = replay.get("solution")
    if figures is None or not player_id():
        return
    first = found.game.counters[0]
    best = get_store().best(player_id(), found.game.name, found.ref.key)
    if best is not None and best.get(first, 1 << 30) <= figures.get(first, 0):
        return
    mark_shown(found)


class Unkept:
    """The games of players past their client's new-player budget: kept in this process's
    memory for their pages, never in the database (the last ``most``, the oldest forgotten).
    With several web processes a page's next request may find another process: its game
    starts afresh there, as the page's notice warns."""

    def __init__(self, most: int = 10_000):
        self._games: OrderedDict[tuple[str, str, str], SavedGame] = OrderedDict()
        self._most = most
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str]) -> SavedGame | None:
        with self._lock:
            return self._games.get(key)

    def put(self, key: tuple[str, str, str], game: SavedGame) -> None:
        with self._lock:
            self._games[key] = game
            self._games.move_to_end(key)
            if len(self._games) > self._most:
                self._games.popitem(last=False)


UNKEPT = Unkept()


def load_play(found: Found) -> Play:
    """The player's game on this level. A stored history the rules no longer accept (the
    level changed under it) is kept as it is: the game shows the position before the first
    move refused, says so (``play.broken``), and is never saved over until the player
    restarts or undoes on purpose."""
    key = (player_id(), found.game.name, found.ref.key)
    saved = UNKEPT.get(key) if unkept() else get_store().load_game(*key)
    play = Play(found.game, found.level, cache=STATES, cache_key=key)
    if saved is not None:
        play.version = SavedGame(list(saved.history), saved.cursor)
        play.history, play.cursor = saved.history, min(saved.cursor, len(saved.history))
        play.state  # noqa: B018 - replay now: a history the rules refuse marks the game broken
    return play


def save_play(found: Found, play: Play, moves: int = 0, fresh: bool = False) -> None:
    """Store the game, and the win with its figures: the player's own; an assisted one (moves
    from a solver or a replay link, or on a board whose solution the player was shown), which
    never becomes their best; or a hasty one (played faster than a person could), kept but
    not ranked. ``moves``: how many moves the action brought (each click one), for the pace;
    ``fresh``: the board showed none before them."""
    if play.broken or not player_id():
        return  # a history that no longer replays is kept as it is; a visitor keeps nothing
    if unkept():  # past the new-player budget: in memory, for its page, and no record
        UNKEPT.put(
            (player_id(), found.game.name, found.ref.key), SavedGame(play.history, play.cursor)
        )
        play.version = SavedGame(list(play.history), play.cursor)
        return
    if play.version is None and not charge(NEW_GAMES, 1):
        raise TooMany(NEW_GAMES.message)  # each new game is a stored history
    store, player = get_store(), player_id()
    game, key = found.game.name, found.ref.key
    hasty, kept_pace = False, None
    if moves:
        kept = store.pace(player, game, key)
        pace = paced(Pace(*kept) if kept else None, store.clock(), moves, fresh)
        kept_pace, hasty = (pace.credit, pace.at, pace.hasty), pace.hasty
    won = play.solved and bool(play.moves)
    if won:
        if not moves:  # a win by redo: the attempt's pace as it stands
            kept = store.pace(player, game, key)
            hasty = bool(kept and kept[2])
        play.shown = play.shown or store.was_shown(player, game, board_of(found))
        play.unranked = "hasty" if hasty and not play.assisted else ""
    saved = SavedGame(play.history, play.cursor)
    store.save_game(
        player,
        game,
        key,
        saved,
        win=play.figures if won else None,
        assisted=play.assisted,
        expected=play.version,
        hasty=bool(play.unranked),
        pace=kept_pace,
    )
    play.version = SavedGame(list(play.history), play.cursor)
    if won:
        rate_first_attempt(found, won=not play.assisted, counts=not play.unranked)


def board_of(found: Found) -> str:
    """The board's own id, the same at every address it has (a collection's, a paste's, the
    editor's copy): what a player was shown a solution of is marked by it."""
    return catalog.content_id(found.game, found.level)


def mark_shown(found: Found) -> None:
    """This player was shown a solution of this board (or a move of one): every later win
    on it is assisted, even retyped by hand after a restart."""
    mark_board_shown(found.game, found.level)


def mark_board_shown(game: Game, level: Any) -> None:
    """``mark_shown`` for a board at no address yet (the editor's draft): the same board
    saved or pasted later, or found in a collection, has the same id."""
    if player_id():
        get_store().mark_shown(player_id(), game.name, catalog.content_id(game, level))


def rate_first_attempt(found: Found, won: bool, counts: bool = True) -> None:
    """The player's first finished attempt at a level, counted once: solved on their own is
    a win, after being shown a solution a loss; one played faster than a person could
    (``counts`` False) moves nothing. It moves the player's rating, and the level's only for
    a trusted player and within the client's allowance for the day (webapp/core/ratings.py).
    A level not rated yet starts where its known optimum places it."""
    store, player = get_store(), player_id()
    made = get_store().made(found.game.name, found.ref.custom_id) if found.ref.custom_id else None
    level_start = ratings.new(results.predicted_rating(found.game, found.level, made))
    wins, first = store.standing(player, found.game.name, found.ref.key)
    trusted = ratings.trusted(wins, first, store.clock())

    def rate(mine: Any, its: Any, moved_here: float, moved_today: float) -> Any:
        if not counts:
            return None, None, 0.0
        return ratings.first_attempt(mine, its, won, trusted, moved_here, moved_today)

    store.rate_attempt(
        player,
        found.game.name,
        found.ref.key,
        won,
        rate,
        level_start,
        ratings.new(),
        client=rater(),
    )


def rater() -> str:
    """The client a rating change is counted against: its address (an IPv6 /56), kept as a
    keyed hash, so the store holds no address."""
    secret = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(secret, f"rater {client_key()}".encode(), hashlib.sha256).hexdigest()[:24]


def optimum_of(found: Found) -> int | None:
    mark = benchmark(found)
    return mark.value if mark is not None else None


def benchmark(found: Found, records: Records | None = None) -> Benchmark | None:
    """What a result on this level is measured against (webapp/core/results.py)."""
    made = get_store().made(found.game.name, found.ref.custom_id) if found.ref.custom_id else None
    return results.benchmark(found.game, found.level, made, records.board if records else ())


# -- pictures ---------------------------------------------------------------------------------
def picture_folder() -> Path:
    return Path(current_app.instance_path) / "pictures"


def chosen_picture() -> str:
    """The picture the request names (query or form), if it is one we have; else the default."""
    picture = request.values.get("picture", "")
    if picture in pictures.BUILT_IN:
        return picture
    path = pictures.upload_path(picture_folder(), picture)
    if path is not None:
        pictures.touch(path)  # in use: the sweep keeps it
        return picture
    return pictures.DEFAULT


def picture_url(picture: str) -> str:
    if picture in pictures.BUILT_IN:
        return url_for("static", filename=f"pictures/{picture}.svg")
    return url_for("web.uploaded_picture", picture=picture)


def picture_context(game: Game) -> dict[str, Any]:
    if not game.uses_pictures:
        return {}
    picture = chosen_picture()
    return {"picture": picture, "picture_url": picture_url(picture), "pictures": pictures.BUILT_IN}


# -- what a level page shows ------------------------------------------------------------------
#: What a screen reader hears first after the buttons that change no single move.
DONE = {
    "undo": "Move undone.",
    "redo": "Move redone.",
    "restart": "Back to the start.",
    "nothing to undo": "Nothing to undo.",
    "nothing to redo": "Nothing to redo.",
    "nothing to restart": "Already at the start.",
}


#: The most positions one answer shows in between its moves: more moves than that in one
#: answer came faster than anyone could watch them, and the board jumps to the last.
MAX_STEPS = 40


def play_context(
    found: Found, play: Play, message: str = "", action: str = "", played: int = 0
) -> dict[str, Any]:
    """What the board partial shows; ``action`` is what the player just did (a move or a
    click shows its frames and is announced; undo, redo and restart are announced), and
    ``played`` how many moves it added: the positions between them go with the answer."""
    game, level = found.game, found.level
    best = get_store().best(player_id(), game.name, found.ref.key)
    tables, pending = get_tables().get(game, level)
    frames: list[Any] = []
    steps: list[Any] = []
    announcement = ""
    if play.moves and not play.broken and action in ("move", "click"):
        if 1 < played <= MAX_STEPS:
            steps = play.steps_before(played)
        before = play.previous_state()
        if action == "move" and played <= 1:  # a game's own frames of a move played alone
            frames = game.frames(level, before, play.moves[-1])
        if not message:  # a refused move is told by the message itself
            announcement = game.announce(level, before, play.state, play.moves[-1])
    elif action in DONE:
        announcement = f"{DONE[action]} {game.announce(level, None, play.state, None)}".strip()
    return {
        **picture_context(game),
        **game.page_figures(level, play.state, tables),
        "tables_pending": pending,
        "optimum": catalog.known_optimum(game, level),
        "frames": frames,
        "steps": steps,
        "announcement": announcement,
        "game": game,
        "found": found,
        "level": level,
        "play": play,
        "state": play.state,
        "figures": play.figures,
        "best": best,
        "next_unsolved": (
            core.next_unsolved(found, get_store(), player_id()) if play.solved else None
        ),
        "message": message or play.broken,
        "replay_url": replay_url(found.ref, play),
        "max_link_moves": MAX_LINK_MOVES,
        **_result_context(found, play),
    }


def _result_context(found: Found, play: Play) -> dict[str, Any]:
    """After a win: the result beside the best possible (or best known), and a replay of a
    shorter solution where one is known."""
    if not play.solved:
        return {}
    records = level_records(get_store(), found.game, found.ref.key, player_id())
    mark = benchmark(found, records)
    better = ""
    if mark is not None and mark.replay and play.figures.get(mark.metric, 0) > mark.value:
        better = f"{found.ref.path}?moves={mark.replay}"
    return {
        "benchmark": mark,
        "against": against(play.figures, mark),
        "better_url": better,
        "shortenable": [m for m in found.game.improves if _could_shorten(play, m, mark)],
    }


def _could_shorten(play: Play, metric: str, mark: Benchmark | None) -> bool:
    """Whether the optimizer could make this win shorter in ``metric``: not at one, and not
    at an optimum proved in that metric."""
    mine = play.figures.get(metric)
    if mine is not None and mine <= 1:
        return False
    return not (
        mark and mark.proved and mark.metric == metric and mine is not None and mine <= mark.value
    )
