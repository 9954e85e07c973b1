"""The request's side of levels: the level an address names for this player, their game on
it loaded and saved, the picture they chose, and what a level page shows.

The work is in webapp/core/levels.py (Flask-free); these pass it the request's store, player
and form, so every core function renders the same whoever calls it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import partial
from pathlib import Path
from typing import Any

from flask import current_app, request, url_for

from webapp.core import catalog, pictures, ratings, sharing
from webapp.core import levels as core
from webapp.core.budgets import LEVEL_BYTES, NEW_GAMES
from webapp.core.errors import TooMany
from webapp.core.levels import MAX_LINK_MOVES, STATES, Found, replay_url
from webapp.core.play import Play
from webapp.core.records import Benchmark, Records, against, level_records
from webapp.games.base import Game
from webapp.storage.store import SavedGame
from webapp.web.budgets import charge
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


def save_play(found: Found, play: Play) -> None:
    """Store the game, and the win with its figures: the player's own, or an assisted one
    (moves from a solver or a replay link), which never becomes their best."""
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
    win = play.figures if play.solved and play.moves else None
    saved = SavedGame(play.history, play.cursor)
    get_store().save_game(
        player_id(),
        found.game.name,
        found.ref.key,
        saved,
        win=win,
        assisted=play.assisted,
        expected=play.version,
    )
    play.version = SavedGame(list(play.history), play.cursor)
    if play.solved and play.moves:
        rate_first_attempt(found, won=not play.assisted)


def rate_first_attempt(found: Found, won: bool) -> None:
    """The player's first finished attempt at a level moves both ratings, once: solved on
    their own is a win, with the solver's or a replay's moves a loss (hints count neither
    way). A level not rated yet starts where its known optimum places it."""
    level_start = ratings.new(ratings.predicted(found.game, optimum_of(found)))
    get_store().rate_attempt(
        player_id(),
        found.game.name,
        found.ref.key,
        won,
        lambda mine, its: ratings.attempt(mine, its, won),
        level_start,
        ratings.new(),
    )


def optimum_of(found: Found) -> int | None:
    mark = benchmark(found)
    return mark.value if mark is not None else None


def benchmark(found: Found, records: Records | None = None) -> Benchmark | None:
    """What a result on this level is measured against: a made level's optimum, a proved
    optimum, a published par, else the best any player has done (labelled best known)."""
    game, level = found.game, found.level
    if found.ref.custom_id:
        made = get_store().made(game.name, found.ref.custom_id)
        if made is not None:
            return Benchmark(
                made["optimum"], made["metric"], made["proved"], made.get("solution", "")
            )
    proved = catalog.known_optimum(game, level)
    if proved is not None:
        return Benchmark(proved, game.counters[0], True)
    par = game.par(level)
    if par is not None:
        return Benchmark(par, game.counters[0], False)
    others = [row for row in records.board if not row.mine] if records is not None else []
    if others:  # the best any other player has done (the board is in order)
        first = game.counters[0]
        return Benchmark(others[0].figures[first], first, False)
    return None


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
DONE = {"undo": "Move undone.", "redo": "Move redone.", "restart": "Back to the start."}


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
    return {"benchmark": mark, "against": against(play.figures, mark), "better_url": better}
